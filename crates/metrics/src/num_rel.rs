//! `num_rel`: the number of relevant documents of the query, `|R|`.
//!
//! trec_eval `num_rel`, which its `all` line sums over queries.

use rankeval_core::explain::Explanation;
use rankeval_core::registry::PARAM_REL;
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure,
};
use serde::{Deserialize, Serialize};

use crate::common::is_none;

/// `|R|` at `level`, retrieved or not.
///
/// # Example
/// ```
/// use rankeval_metrics::num_rel::num_rel;
/// use rankeval_core::testing;
/// let q = testing::judged("2 0 1", &[3, -1]);
/// assert_eq!(num_rel(&q.view(), 1.0), 3.0);
/// assert_eq!(num_rel(&q.view(), 2.0), 2.0);
/// ```
pub fn num_rel(q: &JudgedRanking<'_>, level: Grade) -> f64 {
    q.num_relevant(level) as f64
}

/// The `num_rel` metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NumRel {
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "num_rel",
    summary = "number of relevant documents in the qrels of the query, |R|",
    params = &[PARAM_REL],
    example = NumRel { rel: RelevanceLevel::new(2) },
)]
impl Metric for NumRel {
    /// One count per relevant document.
    fn is_additive(&self) -> bool {
        true
    }
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }

    fn name(&self) -> String {
        CanonicalName::new("num_rel")
            .param_if_set("rel", self.rel)
            .finish()
    }
    /// Reads no rank (only the qrels), so it asks for the least depth.
    fn depth(&self) -> Option<Cutoff> {
        Cutoff::new(1)
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        num_rel(q, q.level(self.rel))
    }
    /// num_rel: `|R|`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        Explanation::new(self, q)
            .level(level)
            .formula(format!("{} = |R| (grade >= {level})", self.name()))
    }
    /// The count does not depend on the order.
    fn score_tie_average(&self, q: &JudgedRanking<'_>) -> Option<f64> {
        Some(num_rel(q, q.level(self.rel)))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        self.rel.is_none().then(|| TrecEvalMeasure::sum("num_rel"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::judged;

    #[test]
    fn counts_relevant_judgements_retrieved_or_not() {
        let q = judged("1 - . 0 2", &[3, 1, 0]);
        assert_eq!(num_rel(&q.view(), 1.0), 4.0);
        assert_eq!(num_rel(&q.view(), 2.0), 2.0);
        assert_eq!(num_rel(&q.view(), 4.0), 0.0);
        assert_eq!(num_rel(&judged("", &[]).view(), 1.0), 0.0);
    }

    #[test]
    fn canonical_name_and_trec_eval() {
        assert_eq!(NumRel::default().name(), "num_rel");
        assert_eq!(
            NumRel::default().trec_eval(),
            Some(TrecEvalMeasure::sum("num_rel"))
        );
        let m = NumRel {
            rel: RelevanceLevel::new(2),
        };
        assert_eq!(m.name(), "num_rel(rel=2)");
        assert!(m.trec_eval().is_none());
    }
}
