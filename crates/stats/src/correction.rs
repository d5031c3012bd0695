//! Multiple-testing corrections over a family of p-values, equal bit for
//! bit to statsmodels' `multipletests(p, method=...)[1]` for `holm`,
//! `bonferroni` and `fdr_bh`:
//!
//! * Bonferroni: `min(1, p * m)`.
//! * Holm (step-down, family-wise error rate): sort ascending, multiply the
//!   `i`-th smallest (0-based) by `m - i`, take the running maximum, clip at
//!   1, put back in input order.
//! * Benjamini-Hochberg (step-up, false discovery rate): sort ascending,
//!   divide the `i`-th smallest by `(i + 1) / m`, take the running minimum
//!   from the largest down, clip at 1, put back in input order.
//!
//! Equal p-values get equal corrected values whatever their order, so the
//! result does not depend on how ties are sorted.

use serde::{Deserialize, Serialize};

use crate::error::CompareError;

/// A multiple-testing correction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Correction {
    /// Holm's step-down method (family-wise error rate); the default.
    #[default]
    Holm,
    /// Bonferroni (family-wise error rate, more conservative than Holm).
    Bonferroni,
    /// Benjamini-Hochberg (false discovery rate).
    #[serde(alias = "bh", alias = "fdr_bh", alias = "benjamini-hochberg")]
    BenjaminiHochberg,
    /// No correction: the corrected p-values are the p-values.
    None,
}

impl Correction {
    /// The name used in reports and configuration.
    pub fn name(self) -> &'static str {
        match self {
            Correction::Holm => "holm",
            Correction::Bonferroni => "bonferroni",
            Correction::BenjaminiHochberg => "benjamini_hochberg",
            Correction::None => "none",
        }
    }
}

/// The corrected p-values of a family, in input order.
pub fn correct(p_values: &[f64], correction: Correction) -> Result<Vec<f64>, CompareError> {
    if let Some(index) = p_values.iter().position(|p| !(0.0..=1.0).contains(p)) {
        return Err(CompareError::InvalidPValue {
            index,
            value: p_values[index],
        });
    }
    let m = p_values.len();
    let mf = m as f64;
    Ok(match correction {
        Correction::None => p_values.to_vec(),
        Correction::Bonferroni => p_values.iter().map(|p| (p * mf).min(1.0)).collect(),
        Correction::Holm => {
            let order = ascending(p_values);
            let mut out = vec![0.0; m];
            let mut running = f64::NEG_INFINITY;
            for (i, index) in order.iter().enumerate() {
                running = running.max(p_values[*index] * (m - i) as f64);
                out[*index] = running.min(1.0);
            }
            out
        }
        Correction::BenjaminiHochberg => {
            let order = ascending(p_values);
            let mut out = vec![0.0; m];
            let mut running = f64::INFINITY;
            for (i, index) in order.iter().enumerate().rev() {
                let factor = (i + 1) as f64 / mf;
                running = running.min(p_values[*index] / factor);
                out[*index] = running.min(1.0);
            }
            out
        }
    })
}

fn ascending(p_values: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..p_values.len()).collect();
    order.sort_by(|a, b| p_values[*a].total_cmp(&p_values[*b]));
    order
}
