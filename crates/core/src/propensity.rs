//! Label propensities for the propensity-scored metrics of extreme
//! classification (Jain, Prabhu and Varma, "Extreme Multi-label Loss
//! Functions for Recommendation, Tagging, Ranking & Other Missing Label
//! Applications", KDD 2016).
//!
//! A label's propensity `p_l` is the chance that a relevant label is
//! observed at all; the paper models it from the label's training
//! frequency `N_l` among `N` training instances:
//!
//! ```text
//! 1 / p_l = 1 + C (N_l + B)^(-A),   C = (ln N - 1) (B + 1)^A
//! ```
//!
//! with `A`, `B` per data-set family ([`JainModel::GENERAL`] 0.55/1.5,
//! [`JainModel::WIKIPEDIA`] 0.5/0.4, [`JainModel::AMAZON`] 0.6/2.6), as
//! pyxclib's `compute_inv_propesity` computes them. A table is either the
//! frequencies (and `N`), from which each metric computes the weights with
//! its `A`, `B`, or inverse propensities computed elsewhere, used as they
//! are.

use std::collections::HashMap;

/// The propensity model's parameters `A` and `B`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JainModel {
    /// `A`: how fast the weight falls with the label's frequency
    /// (0: every label weighs the same).
    pub a: f64,
    /// `B`: the frequency offset (positive).
    pub b: f64,
}

impl JainModel {
    /// The paper's values for data sets other than the two below.
    pub const GENERAL: JainModel = JainModel { a: 0.55, b: 1.5 };
    /// The paper's values for Wikipedia and LSHTC.
    pub const WIKIPEDIA: JainModel = JainModel { a: 0.5, b: 0.4 };
    /// The paper's values for Amazon.
    pub const AMAZON: JainModel = JainModel { a: 0.6, b: 2.6 };

    /// Why `a` and `b` are not a model: `A` must be finite and at least 0,
    /// `B` finite and above 0 (a label never seen in training has
    /// `N_l + B = B`, raised to `-A`).
    pub fn check(self) -> Result<Self, String> {
        if !(self.a.is_finite() && self.a >= 0.0) {
            return Err(format!(
                "a (the model's A) must be a finite number from 0 up, not {}",
                self.a
            ));
        }
        if !(self.b.is_finite() && self.b > 0.0) {
            return Err(format!(
                "b (the model's B) must be a finite number above 0, not {}",
                self.b
            ));
        }
        Ok(self)
    }

    /// The inverse propensity `1 + C (count + B)^(-A)` of a label seen
    /// `count` times among `instances` training instances, computed as
    /// `1 + (ln N - 1) ((B + 1) / (count + B))^A`: the same number (the
    /// ratio rounds once where pyxclib's product rounds twice), finite for
    /// any `B`, however large.
    pub fn inverse(self, count: f64, instances: u64) -> f64 {
        let c = (instances as f64).ln() - 1.0;
        1.0 + c * ((self.b + 1.0) / (count + self.b)).powf(self.a)
    }
}

/// Per label, what its propensity is made from.
#[derive(Clone, Debug)]
pub enum LabelPropensities {
    /// Training frequencies: per label, the number of training instances
    /// it is relevant to (a label not listed: 0), and the number of
    /// training instances `N`.
    Counts {
        /// Per label, its count.
        counts: HashMap<Box<[u8]>, u64>,
        /// `N`, the number of training instances.
        instances: u64,
    },
    /// Inverse propensities `1 / p_l` given per label, used as they are
    /// (every judged label must have one).
    Inverse(HashMap<Box<[u8]>, f64>),
}

impl LabelPropensities {
    /// The value a ranked document carries: its count (0 when not listed)
    /// for counts, its inverse propensity (NaN when not listed) for given
    /// inverse propensities.
    pub fn value(&self, label: &[u8]) -> f64 {
        match self {
            LabelPropensities::Counts { counts, .. } => {
                counts.get(label).copied().unwrap_or(0) as f64
            }
            LabelPropensities::Inverse(inverse) => inverse.get(label).copied().unwrap_or(f64::NAN),
        }
    }

    /// The weight `1 / p_l` of a label whose [`value`](Self::value) is
    /// `value`, under `model` (unused for given inverse propensities).
    #[inline]
    pub fn weight(&self, value: f64, model: JainModel) -> f64 {
        match self {
            LabelPropensities::Counts { instances, .. } => model.inverse(value, *instances),
            LabelPropensities::Inverse(_) => value,
        }
    }

    /// Whether the weights come from the model (counts), not given.
    pub fn uses_model(&self) -> bool {
        matches!(self, LabelPropensities::Counts { .. })
    }

    /// The number of labels listed.
    pub fn len(&self) -> usize {
        match self {
            LabelPropensities::Counts { counts, .. } => counts.len(),
            LabelPropensities::Inverse(inverse) => inverse.len(),
        }
    }

    /// Whether no label is listed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_weight_is_the_papers_formula() {
        // 1 + (ln N - 1)(B + 1)^A (N_l + B)^-A, N = 100, N_l = 3.
        let m = JainModel::GENERAL;
        let by_paper = 1.0 + (100f64.ln() - 1.0) * 2.5f64.powf(0.55) * 4.5f64.powf(-0.55);
        let got = m.inverse(3.0, 100);
        assert!((got - by_paper).abs() < 1e-14, "{got} {by_paper}");
    }

    #[test]
    fn a_zero_weighs_every_label_as_ln_n() {
        let m = JainModel { a: 0.0, b: 1.5 };
        assert_eq!(m.inverse(0.0, 1000), 1000f64.ln());
        assert_eq!(m.inverse(999.0, 1000), 1000f64.ln());
    }

    #[test]
    fn a_huge_b_stays_finite() {
        let m = JainModel { a: 0.55, b: 1e300 };
        let w = m.inverse(5.0, 1000);
        assert!(w.is_finite());
        assert!((w - 1000f64.ln()).abs() < 1e-12);
        assert!(
            JainModel {
                a: 0.55,
                b: f64::INFINITY
            }
            .check()
            .is_err()
        );
        assert!(JainModel { a: -0.1, b: 1.0 }.check().is_err());
        assert!(JainModel { a: 0.5, b: 0.0 }.check().is_err());
        assert!(
            JainModel {
                a: f64::NAN,
                b: 1.0
            }
            .check()
            .is_err()
        );
    }
}
