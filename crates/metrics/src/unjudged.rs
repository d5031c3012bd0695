//! Unjudged at k, as trec_eval 10's `unj_k`: the share of the top k that the
//! qrels do not judge (not mentioned, or a negative grade). Missing ranks of
//! a list shorter than k count as judged: `unjudged@k / k`.

use rankeval_core::explain::Explanation;
use rankeval_core::registry::PARAM_K;
use rankeval_core::{CanonicalName, Cutoff, JudgedRanking, Judgement, Metric, TrecEvalMeasure};
use serde::{Deserialize, Serialize};

use crate::common::{is_none, ratio};
use crate::explain::{at, count, marks};

/// The share of unjudged documents in the top k (`k = n` without a cutoff).
///
/// # Example
/// ```
/// use rankeval_metrics::unjudged::unjudged;
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::judged("1 . - 0", &[]);
/// assert_eq!(unjudged(&q.view(), Cutoff::new(5)), 2.0 / 5.0);
/// ```
pub fn unjudged(q: &JudgedRanking<'_>, k: Option<Cutoff>) -> f64 {
    let count = q
        .top(k)
        .iter()
        .filter(|j| !j.is_judged() || j.grade() < Default::default())
        .count();
    ratio(count, k.map_or(q.retrieved(), Cutoff::get))
}

/// The `unjudged` metric (alias `unj`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unjudged {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
}

#[rankeval_core::metric(
    name = "unjudged",
    aliases = &["unj"],
    summary = "share of the top k the qrels do not judge (trec_eval unj_k)",
    params = &[PARAM_K],
    example = Unjudged { k: Cutoff::new(10) },
)]
impl Metric for Unjudged {
    fn name(&self) -> String {
        CanonicalName::new("unjudged").cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        unjudged(q, self.k)
    }
    /// unjudged: `unjudged in the top k / k`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let unjudged = count(q, self.k, is_unjudged);
        let depth = self.k.map_or(q.retrieved(), Cutoff::get);
        let explanation = Explanation::new(self, q)
            .column("unjudged or negative", marks(q, self.k, is_unjudged))
            .quantity(format!("unjudged documents{}", at(self.k)), unjudged as f64);
        if depth == 0 {
            return explanation.formula(format!("{} = 0 (empty list)", self.name()));
        }
        explanation.formula(format!(
            "{} = unjudged documents{} / k = {unjudged} / {depth}",
            self.name(),
            at(self.k)
        ))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        self.k.map(|k| TrecEvalMeasure::mean(format!("unj_{k}")))
    }
    fn uses_default_level(&self) -> bool {
        false
    }
}

/// Not in the qrels, or judged with a negative grade (trec_eval's unjudged).
fn is_unjudged(j: Judgement) -> bool {
    !j.is_judged() || j.grade() < 0.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::judged;

    #[test]
    fn counts_unmentioned_and_negative_grades_over_k() {
        let q = judged(". 1 - 0 .", &[]);
        assert_eq!(unjudged(&q.view(), Cutoff::new(1)), 1.0);
        assert_eq!(unjudged(&q.view(), Cutoff::new(3)), 2.0 / 3.0);
        assert_eq!(unjudged(&q.view(), Cutoff::new(10)), 3.0 / 10.0);
        assert_eq!(unjudged(&q.view(), None), 3.0 / 5.0);
        assert_eq!(
            Unjudged { k: Cutoff::new(5) }.trec_eval().unwrap().name,
            "unj_5"
        );
    }
}
