//! Exact, mergeable sums of `f64`s, rounded once: Python's `math.fsum`.
//!
//! Every aggregate sums per-query values with [`ExactSum`], so a mean does
//! not depend on the order of the queries, on how they were split among
//! threads, or on how a Spark job partitioned them: the exact sum of the
//! values is kept (as Shewchuk's non-overlapping partials, as CPython's
//! `math.fsum` keeps them) and rounded to the nearest `f64` once, at the
//! end. Two sums of different parts merge exactly ([`ExactSum::merge`]),
//! and a sum's partials can be sent elsewhere and merged there
//! ([`ExactSum::partials`], [`ExactSum::from_partials`]).
//!
//! Why not the `fsum` crate: it does not expose its partials, which a sum
//! computed on a Spark executor must send to the driver.

/// The exact sum of the `f64`s added so far.
///
/// ```
/// use rankeval_core::exact_sum::ExactSum;
/// let mut left = ExactSum::new();
/// left.extend([1e100, 1.0]);
/// let mut right = ExactSum::new();
/// right.add(-1e100);
/// left.merge(&right);
/// assert_eq!(left.value(), 1.0); // a plain sum gives 0.0
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExactSum {
    /// Non-overlapping partials, by increasing magnitude, whose exact sum
    /// is the sum of the finite values added.
    partials: Vec<f64>,
    /// The sum of the infinities and NaNs added (plain IEEE addition):
    /// when not 0, it is the result.
    special: f64,
}

impl ExactSum {
    /// An empty sum (0).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `x` exactly.
    #[inline]
    pub fn add(&mut self, x: f64) {
        if !x.is_finite() {
            self.special += x;
            return;
        }
        let mut x = x;
        let mut kept = 0;
        for j in 0..self.partials.len() {
            let mut y = self.partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                self.partials[kept] = lo;
                kept += 1;
            }
            x = hi;
        }
        self.partials.truncate(kept);
        self.partials.push(x);
    }

    /// Adds every value of `values` exactly.
    pub fn extend(&mut self, values: impl IntoIterator<Item = f64>) {
        for x in values {
            self.add(x);
        }
    }

    /// Adds the exact sum `other` to this one: the result is the same
    /// whichever way parts are merged.
    pub fn merge(&mut self, other: &ExactSum) {
        for &p in &other.partials {
            self.add(p);
        }
        self.special += other.special;
    }

    /// The partials and the special sum, for sending the exact sum elsewhere:
    /// [`from_partials`](Self::from_partials) restores it.
    pub fn partials(&self) -> Vec<f64> {
        let mut out = self.partials.clone();
        if self.special != 0.0 || self.special.is_nan() {
            out.push(self.special);
        }
        out
    }

    /// The exact sum of `partials` (any `f64`s, such as those
    /// [`partials`](Self::partials) gave).
    pub fn from_partials(partials: &[f64]) -> Self {
        let mut sum = ExactSum::new();
        sum.extend(partials.iter().copied());
        sum
    }

    /// The exact sum rounded to the nearest `f64` (ties to even), as
    /// CPython's `math.fsum` rounds it; an infinity or NaN added makes it
    /// that (`inf + -inf` is NaN). A sum too large for an `f64` is an
    /// infinity (Python raises `OverflowError` there).
    pub fn value(&self) -> f64 {
        if self.special != 0.0 || self.special.is_nan() {
            return self.special;
        }
        let p = &self.partials;
        let mut n = p.len();
        if n == 0 {
            return 0.0;
        }
        n -= 1;
        let mut hi = p[n];
        let mut lo = 0.0;
        while n > 0 {
            let x = hi;
            n -= 1;
            let y = p[n];
            hi = x + y;
            let yr = hi - x;
            lo = y - yr;
            if lo != 0.0 {
                break;
            }
        }
        // Half-way cases across several partials round to even: if the
        // next partial has the sign of `lo`, the exact sum lies beyond the
        // half-way point and rounds away.
        if n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0)) {
            let y = lo * 2.0;
            let x = hi + y;
            let yr = x - hi;
            if y == yr {
                hi = x;
            }
        }
        hi
    }
}

impl FromIterator<f64> for ExactSum {
    fn from_iter<I: IntoIterator<Item = f64>>(iter: I) -> Self {
        let mut sum = ExactSum::new();
        sum.extend(iter);
        sum
    }
}

/// The correctly rounded sum of `values`: Python's `math.fsum`.
///
/// ```
/// use rankeval_core::exact_sum::fsum;
/// assert_eq!(fsum([0.1; 10]), 1.0); // a plain sum gives 0.9999999999999999
/// ```
pub fn fsum(values: impl IntoIterator<Item = f64>) -> f64 {
    values.into_iter().collect::<ExactSum>().value()
}

/// The mean of `values` from their exact sum, `fsum(values) / n`: Python's
/// `statistics.fmean`; NaN when there are none. The same bits whatever the
/// order of the values.
///
/// ```
/// use rankeval_core::exact_sum::fmean;
/// assert_eq!(fmean(&[0.1, 0.2, 0.3]), 0.6 / 3.0);
/// assert!(fmean(&[]).is_nan());
/// ```
pub fn fmean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    fsum(values.iter().copied()) / values.len() as f64
}

/// The sum of squared deviations from the mean, `sum (x - m)^2` with `m =
/// fmean(values)`, each square rounded and the squares summed exactly: a
/// variance's numerator that does not depend on the order of the values
/// (two passes, the second mergeable given `m`).
///
/// ```
/// use rankeval_core::exact_sum::squared_deviations;
/// assert_eq!(squared_deviations(&[1.0, 2.0, 3.0]), 2.0);
/// ```
pub fn squared_deviations(values: &[f64]) -> f64 {
    let m = fmean(values);
    fsum(values.iter().map(|x| (x - m) * (x - m)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpython_test_math_cases() {
        // From CPython's Lib/test/test_math.py, testFsum.
        let cases: &[(&[f64], f64)] = &[
            (&[], 0.0),
            (&[0.0], 0.0),
            (&[1e100, 1.0, -1e100, 1e-100, 1e50, -1.0, -1e50], 1e-100),
            (
                &[2.0f64.powi(53), -0.5, -2.0f64.powi(-54)],
                2.0f64.powi(53) - 1.0,
            ),
            (
                &[2.0f64.powi(53), 1.0, 2.0f64.powi(-100)],
                2.0f64.powi(53) + 2.0,
            ),
            (
                &[2.0f64.powi(53) + 10.0, 1.0, 2.0f64.powi(-100)],
                2.0f64.powi(53) + 12.0,
            ),
            (
                &[2.0f64.powi(53) - 4.0, 0.5, 2.0f64.powi(-54)],
                2.0f64.powi(53) - 3.0,
            ),
            (&[1e16, 1.0, 1e-16], 10000000000000002.0),
            (&[1e-16, 1.0, 1e16], 10000000000000002.0),
        ];
        for (values, expected) in cases {
            assert_eq!(fsum(values.iter().copied()), *expected, "{values:?}");
        }
    }

    #[test]
    fn order_and_merging_do_not_change_the_bits() {
        let values: Vec<f64> = (1..=1000).map(|i| 1.0 / f64::from(i)).collect();
        let forward = fsum(values.iter().copied());
        let backward = fsum(values.iter().rev().copied());
        assert_eq!(forward.to_bits(), backward.to_bits());
        let naive_forward: f64 = values.iter().sum();
        let naive_backward: f64 = values.iter().rev().sum();
        assert_ne!(naive_forward, naive_backward, "a case where order matters");
        for split in [1, 7, 333, 999] {
            let mut left: ExactSum = values[..split].iter().copied().collect();
            let right = ExactSum::from_partials(
                &values[split..]
                    .iter()
                    .copied()
                    .collect::<ExactSum>()
                    .partials(),
            );
            left.merge(&right);
            assert_eq!(left.value().to_bits(), forward.to_bits());
        }
    }

    #[test]
    fn specials() {
        assert_eq!(fsum([1.0, f64::INFINITY]), f64::INFINITY);
        assert!(fsum([f64::INFINITY, f64::NEG_INFINITY]).is_nan());
        assert!(fsum([1.0, f64::NAN]).is_nan());
        let mut a: ExactSum = [f64::NAN].into_iter().collect();
        a.merge(&ExactSum::new());
        assert!(ExactSum::from_partials(&a.partials()).value().is_nan());
    }
}
