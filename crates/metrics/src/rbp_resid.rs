//! The residual of RBP, as trec_eval 10's `rbp_resid`: how much RBP could
//! still rise if every unjudged document retrieved were fully relevant, plus
//! the weight of the ranks past the list.
//!
//! `rbp_resid = p^n + (1 - p) * sum over unjudged d at 0-based rank i of p^i`,
//! where unjudged means not in the qrels or a negative grade; 0 when no
//! retrieved document is unjudged (trec_eval's rule, even though `p^n`
//! remains). trec_eval's `p` is 0.9.

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::ParamDoc;
use rankeval_core::{CanonicalName, JudgedRanking, Judgement, Metric, TrecEvalMeasure};
use serde::{Deserialize, Serialize};

use crate::explain::per_rank;
use crate::rbp::Persistence;

/// The RBP residual of one query.
///
/// # Example
/// Unjudged at ranks 2 and 3 of 3, `p = 0.5`: `0.5^3 + 0.5 * (0.5 + 0.25)`.
/// ```
/// use rankeval_metrics::rbp_resid::rbp_resid;
/// use rankeval_metrics::rbp::Persistence;
/// use rankeval_core::testing;
/// let q = testing::judged("1 . -", &[]);
/// let p = Persistence::new(0.5).unwrap();
/// assert_eq!(rbp_resid(&q.view(), p), 0.125 + 0.5 * (0.5 + 0.25));
/// ```
pub fn rbp_resid(q: &JudgedRanking<'_>, p: Persistence) -> f64 {
    let p = p.get();
    let mut unjudged = false;
    let mut sum = 0.0;
    let mut weight = 1.0;
    for judgement in q.ranked() {
        if !judgement.is_judged() || judgement.grade() < Default::default() {
            unjudged = true;
            sum += weight;
        }
        weight *= p;
    }
    if unjudged {
        weight + (1.0 - p) * sum
    } else {
        0.0
    }
}

/// The `rbp_resid` metric.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RbpResid {
    /// Persistence (default 0.9, trec_eval's).
    #[serde(default = "trec_eval_p")]
    pub p: Persistence,
}

fn trec_eval_p() -> Persistence {
    Persistence::TREC_EVAL
}

impl Default for RbpResid {
    fn default() -> Self {
        Self {
            p: Persistence::TREC_EVAL,
        }
    }
}

#[rankeval_core::metric(
    name = "rbp_resid",
    aliases = &["rbp_residual"],
    summary = "how much RBP could rise if unjudged documents were relevant",
    params = PARAMS,
    example = RbpResid { p: Persistence::DEFAULT },
)]
impl Metric for RbpResid {
    fn name(&self) -> String {
        CanonicalName::new("rbp_resid")
            .param_unless_default("p", self.p, Persistence::TREC_EVAL)
            .finish()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        rbp_resid(q, self.p)
    }
    /// rbp_resid: `p^n + (1 - p) x sum of p^(i-1) over unjudged ranks`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let p = self.p.get();
        let unjudged = |j: Judgement| !j.is_judged() || j.grade() < 0.0;
        let mut weight = 1.0;
        let mut sum = 0.0;
        let mut any = false;
        let weights = per_rank(q, None, |_, j| {
            let w = weight;
            if unjudged(j) {
                any = true;
                sum += w;
            }
            weight *= p;
            Some(w)
        });
        let explanation = Explanation::new(self, q)
            .column(
                "unjudged",
                per_rank(q, None, |_, j| Some(f64::from(u8::from(unjudged(j))))),
            )
            .column("p^(i-1)", weights)
            .quantity("sum of p^(i-1) over unjudged", sum)
            .quantity("p^n", weight);
        if !any {
            return explanation.formula(format!(
                "{} = 0 (every retrieved document is judged)",
                self.name()
            ));
        }
        explanation.formula(format!(
            "{} = p^n + (1 - p) x sum = {} + {} x {}",
            self.name(),
            number(weight),
            number(1.0 - p),
            number(sum)
        ))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        (self.p == Persistence::TREC_EVAL).then(|| TrecEvalMeasure::mean("rbp_resid"))
    }
    fn uses_default_level(&self) -> bool {
        false
    }
}

const PARAMS: &[ParamDoc] = &[ParamDoc {
    name: "p",
    alias: None,
    default: "0.9",
    doc: "persistence, strictly between 0 and 1 (trec_eval's 0.9)",
}];

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::judged;

    #[test]
    fn residual_weights_unjudged_ranks_and_the_tail() {
        let p = Persistence::TREC_EVAL;
        let q = judged(". 1 0 -", &[]);
        let w = 0.9_f64;
        let expected = (w * w * w * w) + (1.0 - w) * (1.0 + w * w * w);
        assert_eq!(rbp_resid(&q.view(), p), expected);
        assert_eq!(rbp_resid(&judged("1 0", &[]).view(), p), 0.0);
        assert_eq!(RbpResid::default().name(), "rbp_resid");
    }
}
