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
    /// infinity (Python raises `OverflowError` there). Values near
    /// `f64::MAX` can overflow in the partials themselves (two of them give
    /// NaN here); [`fsum`] and [`fmean`] sum those another way.
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
///
/// Values of any magnitude: a sum whose partials would overflow (values
/// near `f64::MAX`) is computed exactly another way ([`WideSum`]), so the
/// result is the exact sum rounded once, an infinity only when that sum is
/// beyond the largest `f64` (`fsum([f64::MAX, f64::MAX, -f64::MAX])` is
/// `f64::MAX`, where the partials alone give NaN).
pub fn fsum(values: impl IntoIterator<Item = f64>) -> f64 {
    exact_sum(values).value()
}

/// The largest magnitude summed with [`ExactSum`]'s partials: below it, no
/// sum of up to 2^64 values overflows in a partial or an intermediate sum
/// (each stays below 3 x 2^64 x 2^957 < `f64::MAX`). A value at or above
/// it sends the sum to [`WideSum`]. 2^957, about 1.2e288.
const PARTIALS_LIMIT: f64 = f64::from_bits((1023 + 957) << 52);

/// The exact sum of `values`, rounded once ([`FullSum`]).
fn exact_sum(values: impl IntoIterator<Item = f64>) -> Rounded {
    let mut sum = FullSum::new();
    sum.extend(values);
    sum.rounded()
}

/// The exact sum of `f64`s of any magnitude, mergeable and sendable: what
/// [`fsum`] and [`fmean`] compute with, and what an aggregator's state
/// keeps (`rankeval_core::aggregate_state`). [`ExactSum`]'s partials while
/// every value is below 2^957 (about 1.2e288), a fixed-point sum of every
/// `f64`'s bits past it, where the partials could overflow. Merged in any
/// order and split in any way, the same values round to the same bits.
///
/// ```
/// use rankeval_core::exact_sum::{FullSum, fsum};
/// let values = [f64::MAX, 0.5, -f64::MAX, 1e-300];
/// let mut left: FullSum = values[..1].iter().copied().collect();
/// let right: FullSum = values[1..].iter().copied().collect();
/// left.merge(&right);
/// assert_eq!(left.value(), fsum(values));
/// assert_eq!(left.value(), 0.5);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct FullSum {
    inner: FullInner,
}

/// The two forms of a [`FullSum`].
#[derive(Clone, Debug, PartialEq)]
enum FullInner {
    /// Every finite value so far is below [`PARTIALS_LIMIT`].
    Partials(ExactSum),
    /// A value at or above [`PARTIALS_LIMIT`] was added.
    Wide(Box<WideSum>),
}

impl Default for FullSum {
    fn default() -> Self {
        Self::new()
    }
}

impl FullSum {
    /// An empty sum (0).
    pub fn new() -> Self {
        Self {
            inner: FullInner::Partials(ExactSum::new()),
        }
    }

    /// Adds `x` exactly.
    #[inline]
    pub fn add(&mut self, x: f64) {
        match &mut self.inner {
            FullInner::Partials(sum) if x.abs() >= PARTIALS_LIMIT && x.is_finite() => {
                // The partials so far are exact and finite: carried over.
                let mut wide = WideSum::from_partials(sum);
                wide.add(x);
                self.inner = FullInner::Wide(Box::new(wide));
            }
            FullInner::Partials(sum) => sum.add(x),
            FullInner::Wide(wide) => wide.add(x),
        }
    }

    /// Adds every value of `values` exactly.
    pub fn extend(&mut self, values: impl IntoIterator<Item = f64>) {
        for x in values {
            self.add(x);
        }
    }

    /// Adds the exact sum `other` to this one.
    pub fn merge(&mut self, other: &FullSum) {
        match (&mut self.inner, &other.inner) {
            (FullInner::Partials(mine), FullInner::Partials(theirs)) => mine.merge(theirs),
            (FullInner::Wide(mine), FullInner::Partials(theirs)) => {
                mine.merge(&WideSum::from_partials(theirs));
            }
            (FullInner::Partials(mine), FullInner::Wide(theirs)) => {
                let mut wide = WideSum::from_partials(mine);
                wide.merge(theirs);
                self.inner = FullInner::Wide(Box::new(wide));
            }
            (FullInner::Wide(mine), FullInner::Wide(theirs)) => mine.merge(theirs),
        }
    }

    /// Whether no infinity or NaN was added: the sum is then a finite real
    /// number (its [`value`](Self::value) may still round beyond
    /// `f64::MAX`). A decoder of bytes from elsewhere checks it.
    pub fn is_finite_sum(&self) -> bool {
        let special = match &self.inner {
            FullInner::Partials(sum) => sum.special,
            FullInner::Wide(wide) => wide.special,
        };
        special == 0.0
    }

    /// The exact sum rounded to the nearest `f64`, ties to even: an
    /// infinity beyond `f64::MAX`, or the infinity or NaN added.
    pub fn value(&self) -> f64 {
        self.rounded().value()
    }

    /// The sum divided by `n`, rounded once more: as [`fmean`] divides, so
    /// the mean of values whose sum is beyond `f64::MAX` is still finite.
    pub fn mean(&self, n: u64) -> f64 {
        self.rounded().divided(n as f64)
    }

    /// The exact sum rounded to 53 bits.
    fn rounded(&self) -> Rounded {
        match &self.inner {
            FullInner::Partials(sum) => Rounded::Plain(sum.value()),
            FullInner::Wide(wide) => wide.rounded(),
        }
    }

    /// Appends the sum's wire to `out`: a form byte, then for form 0 (the
    /// partials) their number (`u64`) and each partial's bits (`u64`), for
    /// form 1 (the wide sum) the special sum's bits and the 34 limbs of
    /// the positive, then of the negative values (`u64` each), every
    /// number little-endian.
    pub fn write(&self, out: &mut Vec<u8>) {
        match &self.inner {
            FullInner::Partials(sum) => {
                let partials = sum.partials();
                out.push(0);
                out.extend_from_slice(&(partials.len() as u64).to_le_bytes());
                for p in partials {
                    out.extend_from_slice(&p.to_bits().to_le_bytes());
                }
            }
            FullInner::Wide(wide) => {
                out.push(1);
                out.extend_from_slice(&wide.special.to_bits().to_le_bytes());
                for limb in wide.positive.iter().chain(&wide.negative) {
                    out.extend_from_slice(&limb.to_le_bytes());
                }
            }
        }
    }

    /// A sum from [`write`](Self::write)'s bytes at the start of `bytes`,
    /// and how many bytes it took; `None` if they are not such a wire (any
    /// `f64`s are accepted as partials: they are added exactly).
    pub fn read(bytes: &[u8]) -> Option<(FullSum, usize)> {
        let word = |at: usize| -> Option<u64> {
            let end = at.checked_add(8)?;
            Some(u64::from_le_bytes(bytes.get(at..end)?.try_into().ok()?))
        };
        match *bytes.first()? {
            0 => {
                let n = word(1)?;
                let size = usize::try_from(n).ok()?.checked_mul(8)?.checked_add(9)?;
                if size > bytes.len() {
                    return None;
                }
                let mut sum = FullSum::new();
                for i in 0..size / 8 - 1 {
                    sum.add(f64::from_bits(word(9 + 8 * i)?));
                }
                Some((sum, size))
            }
            1 => {
                let mut wide = WideSum::new();
                wide.special = f64::from_bits(word(1)?);
                for i in 0..WIDE_LIMBS {
                    wide.positive[i] = word(9 + 8 * i)?;
                    wide.negative[i] = word(9 + 8 * (WIDE_LIMBS + i))?;
                }
                let sum = FullSum {
                    inner: FullInner::Wide(Box::new(wide)),
                };
                Some((sum, 9 + 16 * WIDE_LIMBS))
            }
            _ => None,
        }
    }
}

impl FromIterator<f64> for FullSum {
    fn from_iter<I: IntoIterator<Item = f64>>(iter: I) -> Self {
        let mut sum = FullSum::new();
        sum.extend(iter);
        sum
    }
}

/// An exact sum rounded to 53 bits, within the range of `f64` or beyond it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rounded {
    /// The sum as an `f64` (an infinity or NaN when one was added).
    Plain(f64),
    /// `mantissa * 2^exponent`, the exact sum rounded to 53 bits with no
    /// limit on the exponent: `mantissa` is an integer below 2^53.
    Wide {
        /// The integer mantissa, below 2^53 in magnitude.
        mantissa: f64,
        /// The power of two it is scaled by.
        exponent: i32,
    },
}

impl Rounded {
    /// The sum as an `f64`: an infinity when it is beyond `f64::MAX`.
    fn value(self) -> f64 {
        match self {
            Rounded::Plain(v) => v,
            Rounded::Wide { mantissa, exponent } => scale(mantissa, exponent),
        }
    }

    /// The sum divided by `n`, rounded once more: `value() / n`, or, when
    /// the sum is beyond `f64::MAX`, its mantissa divided and scaled back
    /// (scaling by a power of two does not change the rounding), so a mean
    /// of values near `f64::MAX` is that of unbounded floats.
    fn divided(self, n: f64) -> f64 {
        let value = self.value();
        match self {
            Rounded::Wide { mantissa, exponent } if value.is_infinite() => {
                scale(mantissa / n, exponent)
            }
            _ => value / n,
        }
    }
}

/// `x * 2^exponent`, exact unless the result is beyond `f64::MAX` (then an
/// infinity); `x` is normal and the result normal or beyond.
fn scale(x: f64, exponent: i32) -> f64 {
    let power = |e: i32| -> f64 {
        // 2^e for e in -1074..=1023, from its bits.
        if e >= -1022 {
            f64::from_bits(((e + 1023) as u64) << 52)
        } else {
            f64::from_bits(1u64 << (e + 1074))
        }
    };
    let mut x = x;
    let mut e = exponent;
    while e > 1023 {
        x *= power(1023);
        e -= 1023;
    }
    while e < -1022 {
        // Keeps the intermediate value normal: no bit is lost.
        let step = (e + 1022).max(-1022);
        x *= power(step);
        e -= step;
    }
    x * power(e)
}

/// A sum of `f64`s of any magnitude, exact: each finite value is an integer
/// times 2^-1074, added to a fixed-point integer of 34 64-bit limbs (enough
/// for every `f64` and 2^64 of them); positive and negative values in two
/// such integers. Slower than [`ExactSum`], so used only past
/// [`PARTIALS_LIMIT`], where the partials would overflow.
#[derive(Clone, Debug, PartialEq)]
struct WideSum {
    /// The sum of the positive values, in units of 2^-1074, limbs from the least significant.
    positive: [u64; WIDE_LIMBS],
    /// The sum of the magnitudes of the negative values, likewise.
    negative: [u64; WIDE_LIMBS],
    /// The sum of the infinities and NaNs added: when not 0, the result.
    special: f64,
}

/// Limbs of a [`WideSum`]: bit 2045 + 53 for the largest `f64`, and 64 more
/// bits of carries.
const WIDE_LIMBS: usize = 34;

impl WideSum {
    fn new() -> Self {
        Self {
            positive: [0; WIDE_LIMBS],
            negative: [0; WIDE_LIMBS],
            special: 0.0,
        }
    }

    /// The exact sum `sum` (finite partials, and its special sum).
    fn from_partials(sum: &ExactSum) -> Self {
        let mut wide = WideSum::new();
        for &p in &sum.partials {
            wide.add(p);
        }
        wide.special = sum.special;
        wide
    }

    /// Adds the exact sum `other` (limb by limb, with carries).
    fn merge(&mut self, other: &WideSum) {
        for (mine, theirs) in [
            (&mut self.positive, &other.positive),
            (&mut self.negative, &other.negative),
        ] {
            let mut carry = false;
            for (a, b) in mine.iter_mut().zip(theirs) {
                let (sum, c1) = a.overflowing_add(*b);
                let (sum, c2) = sum.overflowing_add(u64::from(carry));
                *a = sum;
                carry = c1 || c2;
            }
        }
        self.special += other.special;
    }

    /// Adds `x` exactly.
    fn add(&mut self, x: f64) {
        if !x.is_finite() {
            self.special += x;
            return;
        }
        let bits = x.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as usize;
        let fraction = bits & ((1 << 52) - 1);
        // x = mantissa * 2^(at - 1074).
        let (mantissa, at) = if biased == 0 {
            (fraction, 0)
        } else {
            (fraction | (1 << 52), biased - 1)
        };
        if mantissa == 0 {
            return;
        }
        let limbs = if x < 0.0 {
            &mut self.negative
        } else {
            &mut self.positive
        };
        let (limb, offset) = (at / 64, at % 64);
        let low = mantissa << offset;
        let high = if offset == 0 {
            0
        } else {
            mantissa >> (64 - offset)
        };
        let mut carry;
        (limbs[limb], carry) = limbs[limb].overflowing_add(low);
        let mut i = limb + 1;
        let mut add = high;
        while i < WIDE_LIMBS && (add != 0 || carry) {
            let (a, c1) = limbs[i].overflowing_add(add);
            let (b, c2) = a.overflowing_add(u64::from(carry));
            limbs[i] = b;
            carry = c1 || c2;
            add = 0;
            i += 1;
        }
    }

    /// The exact sum rounded to nearest, ties to even, to 53 bits.
    fn rounded(&self) -> Rounded {
        if self.special != 0.0 || self.special.is_nan() {
            return Rounded::Plain(self.special);
        }
        let negative = self.negative.iter().rev().cmp(self.positive.iter().rev())
            == std::cmp::Ordering::Greater;
        let (big, small) = if negative {
            (&self.negative, &self.positive)
        } else {
            (&self.positive, &self.negative)
        };
        // The magnitude: big - small.
        let mut magnitude = [0u64; WIDE_LIMBS];
        let mut borrow = false;
        for i in 0..WIDE_LIMBS {
            let (a, b1) = big[i].overflowing_sub(small[i]);
            let (b, b2) = a.overflowing_sub(u64::from(borrow));
            magnitude[i] = b;
            borrow = b1 || b2;
        }
        let sign = if negative { -1.0 } else { 1.0 };
        let Some(top) = (0..WIDE_LIMBS).rev().find(|&i| magnitude[i] != 0) else {
            return Rounded::Plain(0.0);
        };
        let high = top * 64 + 63 - magnitude[top].leading_zeros() as usize;
        let bit = |i: usize| (magnitude[i / 64] >> (i % 64)) & 1;
        if high < 53 {
            // Below 2^-1021: an integer times 2^-1074 that an f64 holds
            // exactly.
            return Rounded::Wide {
                mantissa: sign * magnitude[0] as f64,
                exponent: -1074,
            };
        }
        // The 53 bits from `high` down, the next bit, and whether any
        // bit below that is set.
        let low = high - 52;
        let mut mantissa: u64 = 0;
        for i in (low..=high).rev() {
            mantissa = (mantissa << 1) | bit(i);
        }
        let round = bit(low - 1) == 1;
        let sticky = (0..low - 1).any(|i| bit(i) == 1);
        let mut exponent = low as i32 - 1074;
        if round && (sticky || mantissa & 1 == 1) {
            mantissa += 1;
            if mantissa == 1 << 53 {
                mantissa >>= 1;
                exponent += 1;
            }
        }
        Rounded::Wide {
            mantissa: sign * mantissa as f64,
            exponent,
        }
    }
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
///
/// Values near `f64::MAX` whose sum is beyond it still have a mean: the
/// exact sum is rounded with an unbounded exponent and divided
/// ([`fsum`] explains how), so `fmean(&[f64::MAX, f64::MAX])` is
/// `f64::MAX`, not an infinity or NaN.
pub fn fmean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    exact_sum(values.iter().copied()).divided(values.len() as f64)
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

    /// The wide sum of `values`, every value sent there.
    fn wide(values: &[f64]) -> f64 {
        let mut sum = WideSum::new();
        for &x in values {
            sum.add(x);
        }
        sum.rounded().value()
    }

    #[test]
    fn the_wide_sum_rounds_as_the_partials_do() {
        // A value generator spanning the exponents, with cancellations and
        // ties (no randomness crate in core: a fixed LCG).
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            state
        };
        for case in 0..2000 {
            let n = 1 + (next() % 12) as usize;
            let spread = [4, 60, 600, 1800][case % 4];
            let values: Vec<f64> = (0..n)
                .map(|_| {
                    let bits = next();
                    let exponent = 1023 + (bits % spread) as i64 - (spread / 2) as i64;
                    let exponent = exponent.clamp(0, 1900) as u64;
                    f64::from_bits((bits & (1 << 63)) | (exponent << 52) | (next() >> 12))
                })
                .collect();
            let mut with_ties = values.clone();
            with_ties.push(-values[0]);
            with_ties.push(f64::from_bits(values[n - 1].to_bits() & !0xf));
            for v in [&values, &with_ties] {
                let partials = v.iter().copied().collect::<ExactSum>().value();
                assert_eq!(wide(v).to_bits(), partials.to_bits(), "{v:?}");
            }
        }
        assert_eq!(wide(&[]), 0.0);
        assert_eq!(wide(&[5e-324, 5e-324]), 1e-323);
        assert_eq!(wide(&[1.0, 2f64.powi(-53)]), 1.0); // a tie, to even
        assert_eq!(
            wide(&[1.0, 2f64.powi(-53), 2f64.powi(-1000)]),
            1.0 + f64::EPSILON
        );
        assert_eq!(PARTIALS_LIMIT, 2f64.powi(957));
    }

    #[test]
    fn values_near_the_largest_f64_sum_and_average_without_overflow() {
        let max = f64::MAX;
        // The partials alone give NaN for each of these.
        let plain = |v: &[f64]| v.iter().copied().collect::<ExactSum>().value();
        assert!(plain(&[max, max, -max]).is_nan());
        assert_eq!(fsum([max, max, -max]), max);
        assert_eq!(fsum([1e308, 1e308, -1e308, -1e308, 1e-320]), 1e-320);
        assert_eq!(fsum([max, 1.0, -max]), 1.0);
        // A sum beyond the largest f64 is an infinity, as IEEE rounds it.
        assert_eq!(fsum([max, max]), f64::INFINITY);
        assert_eq!(fsum([-max, -max]), f64::NEG_INFINITY);
        // The mean of values whose sum overflows is that of unbounded floats.
        assert_eq!(fmean(&[max, max]), max);
        assert_eq!(fmean(&[1e308, 1e308, 1e308]), 1e308);
        assert_eq!(fmean(&[max, max / 2.0]), max * 0.75);
        assert_eq!(fmean(&[-max, -max, -max, max]), -max / 2.0);
        assert_eq!(fmean(&[1.5e308, 1.5e308, -1.5e308]), 1.5e308 / 3.0);
        // Specials still decide.
        assert!(fsum([max, max, f64::NAN]).is_nan());
        assert_eq!(fsum([max, f64::NEG_INFINITY]), f64::NEG_INFINITY);
        // The order of the values does not change the bits.
        let values = [max, 1e-300, -max / 3.0, 7.0, max / 5.0, -1e308];
        let mut reversed = values;
        reversed.reverse();
        assert_eq!(fmean(&values).to_bits(), fmean(&reversed).to_bits());
    }

    #[test]
    fn a_full_sum_merges_and_travels_with_the_bits_of_fsum() {
        let max = f64::MAX;
        let cases: [&[f64]; 5] = [
            &[0.1, 0.2, 0.3, 1e100, -1e100],
            &[max, max, -max, 1e-300],
            &[1e300, 1.0, -1e300, 2f64.powi(960), -2f64.powi(960)],
            &[f64::INFINITY, 1.0],
            &[],
        ];
        for values in cases {
            let whole = fsum(values.iter().copied());
            for split in 0..=values.len() {
                let mut left: FullSum = values[..split].iter().copied().collect();
                let right: FullSum = values[split..].iter().copied().collect();
                let mut bytes = Vec::new();
                right.write(&mut bytes);
                let (back, used) = FullSum::read(&bytes).expect("its own wire");
                assert_eq!(used, bytes.len());
                assert_eq!(back.value().to_bits(), right.value().to_bits());
                left.merge(&back);
                assert_eq!(
                    left.value().to_bits(),
                    whole.to_bits(),
                    "{values:?} at {split}"
                );
                if !values.is_empty() {
                    let n = values.len() as u64;
                    assert_eq!(left.mean(n).to_bits(), fmean(values).to_bits());
                }
            }
        }
        // Malformed wires: an unknown form, cut short, a count beyond the bytes.
        assert!(FullSum::read(&[]).is_none());
        assert!(FullSum::read(&[2]).is_none());
        assert!(FullSum::read(&[1, 0, 0]).is_none());
        let mut huge = vec![0];
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        assert!(FullSum::read(&huge).is_none());
    }
}
