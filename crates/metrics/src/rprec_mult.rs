//! Precision at a multiple of `|R|`, as trec_eval 10's `Rprec_mult_x`.
//!
//! `Rprec_mult(x) = hits@c / c` with `c = floor(x * |R| + 0.9)` (trec_eval's
//! rounding); when the list is shorter than `c`, the missing ranks are
//! misses (`hits@n / c`); 0 when `c` is 0. `x = 1` is R-precision.

use std::fmt;

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::{PARAM_REL, ParamDoc};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure,
};
use serde::{Deserialize, Serialize};

use crate::common::{hits, is_none, ratio};

/// Precision at `floor(mult * |R| + 0.9)` ranks.
///
/// # Example
/// `|R|` = 4, `mult` = 0.5: `c = floor(2.9) = 2`; the top 2 hold 1.
/// ```
/// use rankeval_metrics::rprec_mult::rprec_mult;
/// use rankeval_core::testing;
/// let q = testing::binary("0 1 1 1", 4);
/// assert_eq!(rprec_mult(&q.view(), 0.5, 1.0), 1.0 / 2.0);
/// ```
pub fn rprec_mult(q: &JudgedRanking<'_>, mult: f64, level: Grade) -> f64 {
    let cutoff = (mult * q.num_relevant(level) as f64 + 0.9) as usize;
    let ranked = q.ranked();
    ratio(hits(&ranked[..cutoff.min(ranked.len())], level), cutoff)
}

/// The `rprec_mult` metric: precision at `mult` times `|R|`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RprecMult {
    /// The multiple of `|R|`, positive.
    pub mult: f64,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

/// `%.2f`, as trec_eval names the measure.
struct TwoDecimals(f64);

impl fmt::Display for TwoDecimals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.2}", self.0)
    }
}

#[rankeval_core::metric(
    name = "rprec_mult",
    aliases = &["r_precision_mult"],
    summary = "precision at mult * |R| ranks (trec_eval Rprec_mult)",
    params = PARAMS,
    example = RprecMult { mult: 2.0, rel: None },
)]
impl Metric for RprecMult {
    fn name(&self) -> String {
        CanonicalName::new("rprec_mult")
            .param("mult", self.mult)
            .param_if_set("rel", self.rel)
            .finish()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        rprec_mult(q, self.mult, q.level(self.rel))
    }
    /// Rprec_mult: precision at `floor(mult x |R| + 0.9)` ranks.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let relevant = q.num_relevant(level);
        let cutoff = (self.mult * relevant as f64 + 0.9) as usize;
        let hits = hits(q.top(Cutoff::new(cutoff)), level);
        let explanation = Explanation::new(self, q)
            .level(level)
            .quantity("|R|", relevant as f64)
            .quantity("c", cutoff as f64);
        if cutoff == 0 {
            return explanation.formula(format!(
                "{} = 0 (c = floor({} x |R| + 0.9) = 0)",
                self.name(),
                number(self.mult)
            ));
        }
        explanation
            .quantity(format!("hits@{cutoff}"), hits as f64)
            .formula(format!(
                "{} = hits@c / c, c = floor({} x {relevant} + 0.9) = {cutoff}: {hits} / {cutoff}",
                self.name(),
                number(self.mult)
            ))
            .normalizer(format!("divided by c = {cutoff}"))
    }
    fn validate(&self) -> Result<(), String> {
        if self.mult > 0.0 && self.mult.is_finite() {
            Ok(())
        } else {
            Err(format!("mult must be a positive number, not {}", self.mult))
        }
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        self.rel
            .is_none()
            .then(|| TrecEvalMeasure::mean(format!("Rprec_mult_{}", TwoDecimals(self.mult))))
    }
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
}

const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        name: "mult",
        alias: None,
        default: "required",
        doc: "the multiple of |R| (trec_eval: 0.2, 0.4, ..., 2.0)",
    },
    PARAM_REL,
];

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::binary;

    #[test]
    fn cutoff_rounds_as_trec_eval() {
        // |R| = 3: mult 0.2 -> floor(0.6 + 0.9) = 1; 0.4 -> floor(2.1) = 2; 2.0 -> 6.
        let q = binary("1 0 1 1", 3);
        assert_eq!(rprec_mult(&q.view(), 0.2, 1.0), 1.0);
        assert_eq!(rprec_mult(&q.view(), 0.4, 1.0), 1.0 / 2.0);
        // Past the list's 4 ranks: 3 hits over 6.
        assert_eq!(rprec_mult(&q.view(), 2.0, 1.0), 3.0 / 6.0);
        assert_eq!(rprec_mult(&binary("0", 0).view(), 1.0, 1.0), 0.0);
    }

    #[test]
    fn names() {
        let m = RprecMult {
            mult: 0.2,
            rel: None,
        };
        assert_eq!(m.name(), "rprec_mult(mult=0.2)");
        assert_eq!(m.trec_eval().unwrap().name, "Rprec_mult_0.20");
        assert!(
            RprecMult {
                mult: 0.0,
                rel: None
            }
            .validate()
            .is_err()
        );
    }
}
