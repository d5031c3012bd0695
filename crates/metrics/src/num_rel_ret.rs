//! `num_rel_ret`: the number of relevant documents retrieved, `hits@k`.
//!
//! trec_eval `num_rel_ret` (no cutoff), which its `all` line sums over
//! queries.

use rankeval_core::explain::Explanation;
use rankeval_core::registry::{PARAM_K, PARAM_REL};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure,
};
use serde::{Deserialize, Serialize};

use crate::common::{hits, is_none};
use crate::explain::at;

/// `hits@k`: relevant documents in the top k.
///
/// # Example
/// ```
/// use rankeval_metrics::num_rel_ret::num_rel_ret;
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::binary("1 0 1 1", 5);
/// assert_eq!(num_rel_ret(&q.view(), None, 1.0), 3.0);
/// assert_eq!(num_rel_ret(&q.view(), Cutoff::new(2), 1.0), 1.0);
/// ```
pub fn num_rel_ret(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade) -> f64 {
    hits(q.top(k), level) as f64
}

/// The `num_rel_ret` metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NumRelRet {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "num_rel_ret",
    summary = "number of relevant documents retrieved in the top k, hits@k",
    params = &[PARAM_K, PARAM_REL],
    example = NumRelRet { k: Cutoff::new(100), rel: RelevanceLevel::new(2) },
)]
impl Metric for NumRelRet {
    /// One count per relevant document retrieved.
    fn is_additive(&self) -> bool {
        true
    }
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }

    fn name(&self) -> String {
        CanonicalName::new("num_rel_ret")
            .param_if_set("rel", self.rel)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        num_rel_ret(q, self.k, q.level(self.rel))
    }
    /// num_rel_ret: the relevant documents in the top k.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        Explanation::new(self, q).level(level).formula(format!(
            "{} = hits{}",
            self.name(),
            at(self.k)
        ))
    }
    /// The expected hits.
    fn score_tie_average(&self, q: &JudgedRanking<'_>) -> Option<f64> {
        Some(crate::tie_average::expected_hits(
            q,
            self.k,
            q.level(self.rel),
        ))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        (self.rel.is_none() && self.k.is_none()).then(|| TrecEvalMeasure::sum("num_rel_ret"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::judged;

    #[test]
    fn counts_relevant_retrieved() {
        let q = judged("1 - . 0 2", &[3]);
        assert_eq!(num_rel_ret(&q.view(), None, 1.0), 2.0);
        assert_eq!(num_rel_ret(&q.view(), None, 2.0), 1.0);
        assert_eq!(num_rel_ret(&q.view(), Cutoff::new(3), 1.0), 1.0);
        assert_eq!(num_rel_ret(&q.view(), Cutoff::new(9), 1.0), 2.0);
        assert_eq!(num_rel_ret(&judged("", &[1]).view(), None, 1.0), 0.0);
    }

    #[test]
    fn canonical_name_and_trec_eval() {
        assert_eq!(NumRelRet::default().name(), "num_rel_ret");
        assert_eq!(
            NumRelRet::default().trec_eval(),
            Some(TrecEvalMeasure::sum("num_rel_ret"))
        );
        let m = NumRelRet {
            k: Cutoff::new(10),
            rel: RelevanceLevel::new(2),
        };
        assert_eq!(m.name(), "num_rel_ret(rel=2)@10");
        assert!(m.trec_eval().is_none());
    }
}
