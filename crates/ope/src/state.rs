//! Every estimator's state: exact sums of its per-impression columns, their
//! products and its weights, which merge exactly.
//!
//! Every estimator of this crate is a smooth function of the means of at
//! most three per-impression columns ([`Form`]): IPS is the mean of `w r`,
//! SNIPS the ratio of the means of `w r` and `w`, self-normalised DR the
//! mean of the direct method plus a ratio. The state keeps, per column `j`,
//! the exact sum `Σ x_j` and, per pair `j <= k`, the exact sum `Σ x_j x_k`
//! of the rounded products (rankeval-core's [`FullSum`]), with the number of
//! impressions: the estimate, its delta-method standard error and its
//! interval are computed from these alone. Beside them, the diagnostics'
//! sums ([`WeightSums`]): `Σ w`, `Σ w²`, the largest `|w|`, the number of
//! clipped weights and the exact sum of the supported target mass.
//!
//! Exact sums do not depend on the order of the additions, so a state built
//! from any partition of a log, in any order, and merged
//! ([`State::merge`]) is the same state to the bit, and so is everything
//! computed from it: a Spark job and the command line print the same
//! numbers.

use rankeval_core::exact_sum::FullSum;

use crate::error::OpeError;

/// The number of per-impression columns a state keeps.
pub const COLUMNS: usize = 3;

/// The number of products of two columns a state keeps (`j <= k`).
pub const PRODUCTS: usize = 6;

/// How an estimate is made from the means `m` of the columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `m0`: IPS, clipped IPS, DM, DR, Switch-DR, DR-OS, the slate
    /// estimators, the pseudo-inverse estimator, click IPS.
    Mean,
    /// `m0 / m1`: SNIPS and the other self-normalised estimators.
    Ratio,
    /// `m0 + m1 / m2`: self-normalised DR.
    MeanPlusRatio,
}

/// One impression's share of an estimate: its columns, the weight the
/// diagnostics see, the target mass the log supports, and whether its
/// weight was clipped (or switched away from, for Switch-DR).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contribution {
    /// The columns the [`Form`] reads; the unused ones are 0.
    pub columns: [f64; COLUMNS],
    /// The impression's importance weight, before any clipping.
    pub weight: f64,
    /// The target's mass on what the log can show for this impression:
    /// its expectation under the logging policy is the share of the
    /// target's probability the logging policy supports (the weight itself
    /// when only the logged action's probabilities are known, since
    /// `E_π0[π/π0] = Σ_{a: π0(a) > 0} π(a)`).
    pub support: f64,
    /// Whether the weight was clipped (clipped IPS, click IPS with a
    /// clip) or the impression switched to the reward model (Switch-DR).
    pub clipped: bool,
}

/// The diagnostics' sums: impressions, `Σ w`, `Σ w²`, the largest `|w|`,
/// the clipped weights and `Σ support`, all exact and mergeable.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightSums {
    /// Impressions added.
    pub n: u64,
    /// `Σ w`.
    pub sum: FullSum,
    /// `Σ w²` (each square rounded).
    pub sum_squares: FullSum,
    /// The largest `|w|` (0 when empty).
    pub max: f64,
    /// Weights clipped or switched.
    pub clipped: u64,
    /// `Σ support`.
    pub support: FullSum,
    /// `Σ support²` (each square rounded): the supported share's
    /// standard error, which the refusal reads.
    pub support_squares: FullSum,
}

impl Default for WeightSums {
    fn default() -> Self {
        Self {
            n: 0,
            sum: FullSum::new(),
            sum_squares: FullSum::new(),
            max: 0.0,
            clipped: 0,
            support: FullSum::new(),
            support_squares: FullSum::new(),
        }
    }
}

impl WeightSums {
    fn add(&mut self, c: &Contribution) {
        // The caller checked that n < u64::MAX.
        self.n += 1;
        self.sum.add(c.weight);
        self.sum_squares.add(c.weight * c.weight);
        self.max = self.max.max(c.weight.abs());
        self.clipped += u64::from(c.clipped);
        self.support.add(c.support);
        self.support_squares.add(c.support * c.support);
    }

    /// The counts of `self` and `other` together; `None` beyond `u64`.
    fn merged_counts(&self, other: &WeightSums) -> Option<(u64, u64)> {
        Some((
            self.n.checked_add(other.n)?,
            self.clipped.checked_add(other.clipped)?,
        ))
    }

    /// Adds `other`'s sums; `counts` from [`merged_counts`](Self::merged_counts).
    fn merge(&mut self, other: &WeightSums, (n, clipped): (u64, u64)) {
        self.n = n;
        self.sum.merge(&other.sum);
        self.sum_squares.merge(&other.sum_squares);
        self.max = self.max.max(other.max);
        self.clipped = clipped;
        self.support.merge(&other.support);
        self.support_squares.merge(&other.support_squares);
    }
}

/// The mergeable state of one estimator over a log: the exact sums of its
/// columns and of their products, and the diagnostics' [`WeightSums`].
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The estimator's name, as reports print it (`ips`, `snips`,
    /// `clipped_ips(max_weight=10)`...): only states of one name merge.
    name: String,
    /// How the estimate is made from the columns' means.
    form: Form,
    /// `Σ x_j`.
    sums: [FullSum; COLUMNS],
    /// `Σ x_j x_k` for `j <= k`, in the order (0,0), (0,1), (0,2), (1,1),
    /// (1,2), (2,2).
    products: [FullSum; PRODUCTS],
    /// The diagnostics' sums.
    weights: WeightSums,
}

/// The index of `(j, k)`, `j <= k`, in [`State::products`].
fn product_index(j: usize, k: usize) -> usize {
    let (j, k) = if j <= k { (j, k) } else { (k, j) };
    match (j, k) {
        (0, 0) => 0,
        (0, 1) => 1,
        (0, 2) => 2,
        (1, 1) => 3,
        (1, 2) => 4,
        _ => 5,
    }
}

impl State {
    /// An empty state of the estimator `name` of the form `form`.
    pub fn new(name: impl Into<String>, form: Form) -> Self {
        Self {
            name: name.into(),
            form,
            sums: std::array::from_fn(|_| FullSum::new()),
            products: std::array::from_fn(|_| FullSum::new()),
            weights: WeightSums::default(),
        }
    }

    /// The estimator's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The estimator's form.
    pub fn form(&self) -> Form {
        self.form
    }

    /// The number of impressions added.
    pub fn count(&self) -> u64 {
        self.weights.n
    }

    /// The diagnostics' sums.
    pub fn weights(&self) -> &WeightSums {
        &self.weights
    }

    /// The columns' sums, the products' sums and the diagnostics' sums,
    /// for the wire ([`crate::wire`]).
    pub(crate) fn parts(&self) -> (&[FullSum; COLUMNS], &[FullSum; PRODUCTS], &WeightSums) {
        (&self.sums, &self.products, &self.weights)
    }

    /// A state from its parts, as the wire ([`crate::wire`]) read them.
    pub(crate) fn from_parts(
        name: String,
        form: Form,
        sums: [FullSum; COLUMNS],
        products: [FullSum; PRODUCTS],
        weights: WeightSums,
    ) -> Self {
        Self {
            name,
            form,
            sums,
            products,
            weights,
        }
    }

    /// Adds one impression's contribution. Error: a column, the weight or
    /// the support is NaN or infinite, or its square is (beyond about
    /// 1.3e154; `index` names the impression), or
    /// the state already counts `u64::MAX` impressions.
    pub fn add(&mut self, index: usize, c: &Contribution) -> Result<(), OpeError> {
        if self.weights.n == u64::MAX {
            return Err(OpeError::TooMany {
                name: self.name.clone(),
            });
        }
        let named = [
            ("contribution", c.columns[0]),
            ("contribution", c.columns[1]),
            ("contribution", c.columns[2]),
            ("importance weight", c.weight),
            ("supported mass", c.support),
        ];
        for (what, value) in named {
            if !value.is_finite() {
                return Err(OpeError::NotFinite {
                    index,
                    position: None,
                    what,
                    value,
                });
            }
        }
        // The products and squares the sums keep must be finite too: a
        // value beyond about 1.3e154 has no finite square, and a state
        // holding an infinity could not be told from corrupt bytes.
        let squares = [
            ("contribution's square", c.columns[0] * c.columns[0]),
            ("contribution's square", c.columns[1] * c.columns[1]),
            ("contribution's square", c.columns[2] * c.columns[2]),
            ("importance weight's square", c.weight * c.weight),
            ("supported mass's square", c.support * c.support),
        ];
        for (what, value) in squares {
            if !value.is_finite() {
                return Err(OpeError::NotFinite {
                    index,
                    position: None,
                    what,
                    value,
                });
            }
        }
        for j in 0..COLUMNS {
            self.sums[j].add(c.columns[j]);
            for k in j..COLUMNS {
                // |x_j x_k| <= max(x_j², x_k²): finite.
                self.products[product_index(j, k)].add(c.columns[j] * c.columns[k]);
            }
        }
        self.weights.add(c);
        Ok(())
    }

    /// Adds the impressions of `other`, exactly. Error: `other` is another
    /// estimator's state, or the two count more impressions (or clipped
    /// weights) than a `u64` holds; the state is then unchanged.
    pub fn merge(&mut self, other: &State) -> Result<(), OpeError> {
        if other.name != self.name || other.form != self.form {
            return Err(OpeError::Mismatch {
                ours: self.name.clone(),
                theirs: other.name.clone(),
            });
        }
        let counts =
            self.weights
                .merged_counts(&other.weights)
                .ok_or_else(|| OpeError::TooMany {
                    name: self.name.clone(),
                })?;
        for (mine, theirs) in self.sums.iter_mut().zip(&other.sums) {
            mine.merge(theirs);
        }
        for (mine, theirs) in self.products.iter_mut().zip(&other.products) {
            mine.merge(theirs);
        }
        self.weights.merge(&other.weights, counts);
        Ok(())
    }

    /// The mean of column `j` (NaN when empty).
    pub fn mean(&self, j: usize) -> f64 {
        self.sums[j].mean(self.weights.n)
    }

    /// The sample covariance of columns `j` and `k`, `(Σ x_j x_k - Σ x_j
    /// Σ x_k / n) / (n - 1)`: the exact sum of the products less the
    /// rounded product of the sums, rounded once, then divided (NaN below
    /// two impressions). A variance is never below 0.
    pub fn covariance(&self, j: usize, k: usize) -> f64 {
        let n = self.weights.n;
        if n < 2 {
            return f64::NAN;
        }
        let mut centred = self.products[product_index(j, k)].clone();
        centred.add(-(self.sums[j].value() * self.sums[k].value() / n as f64));
        let c = centred.value() / (n - 1) as f64;
        if j == k { c.max(0.0) } else { c }
    }

    /// The estimate and its standard error: the form applied to the
    /// columns' means, and the delta method's `sqrt(gᵀ S g / n)`, `g` the
    /// form's gradient at the means and `S` the columns' sample covariance
    /// (for [`Form::Mean`] the standard error of the mean, `s / sqrt(n)`).
    /// NaN when the state is empty (the value) or holds fewer than two
    /// impressions (the standard error).
    pub fn value_and_error(&self) -> (f64, f64) {
        let n = self.weights.n as f64;
        let m: [f64; COLUMNS] = std::array::from_fn(|j| self.mean(j));
        let (value, gradient) = match self.form {
            Form::Mean => (m[0], [1.0, 0.0, 0.0]),
            Form::Ratio => (m[0] / m[1], [1.0 / m[1], -m[0] / (m[1] * m[1]), 0.0]),
            Form::MeanPlusRatio => (m[0] + m[1] / m[2], [1.0, 1.0 / m[2], -m[1] / (m[2] * m[2])]),
        };
        let used = match self.form {
            Form::Mean => 1,
            Form::Ratio => 2,
            Form::MeanPlusRatio => 3,
        };
        let mut variance = 0.0;
        for j in 0..used {
            for k in 0..used {
                variance += gradient[j] * gradient[k] * self.covariance(j, k);
            }
        }
        let standard_error = (variance.max(0.0) / n).sqrt();
        (value, standard_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contribution(x: f64, y: f64) -> Contribution {
        Contribution {
            columns: [x, y, 0.0],
            weight: y,
            support: y,
            clipped: false,
        }
    }

    #[test]
    fn mean_form_is_the_mean_and_its_standard_error() {
        let mut s = State::new("t", Form::Mean);
        for (i, x) in [1.0, 2.0, 3.0, 6.0].into_iter().enumerate() {
            s.add(i, &contribution(x, 1.0)).unwrap();
        }
        let (v, se) = s.value_and_error();
        assert_eq!(v, 3.0);
        // Sample variance (4 + 1 + 0 + 9) / 3.
        assert!((se - (14.0f64 / 3.0 / 4.0).sqrt()).abs() < 1e-15);
    }

    #[test]
    fn ratio_form_is_the_ratio_of_means() {
        let mut s = State::new("t", Form::Ratio);
        s.add(0, &contribution(1.0, 2.0)).unwrap();
        s.add(1, &contribution(3.0, 2.0)).unwrap();
        assert_eq!(s.value_and_error().0, 1.0);
    }

    #[test]
    fn non_finite_is_an_error_naming_the_impression() {
        let mut s = State::new("t", Form::Mean);
        let err = s.add(7, &contribution(f64::NAN, 1.0)).unwrap_err();
        assert!(err.to_string().starts_with("impression 7:"), "{err}");
        assert_eq!(s.count(), 0);
    }

    #[test]
    fn states_of_different_estimators_do_not_merge() {
        let mut a = State::new("ips", Form::Mean);
        let b = State::new("snips", Form::Ratio);
        assert!(a.merge(&b).is_err());
    }
}
