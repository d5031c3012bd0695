//! Reciprocal rank: `1 / i` for the first relevant rank `i <= k`, else 0;
//! its mean is MRR (trec_eval `recip_rank`, with no cutoff).

use rankeval_core::explain::Explanation;
use rankeval_core::registry::{PARAM_K, PARAM_REL};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure,
};
use serde::{Deserialize, Serialize};

use crate::common::is_none;

/// Reciprocal rank of one query.
///
/// # Example
/// ```
/// use rankeval_metrics::reciprocal_rank::reciprocal_rank;
/// use rankeval_core::{testing, Cutoff};
/// // Spec vector e: A B C L Y U F Z against C K B Z: B at rank 2.
/// let q = testing::binary("0 1 1 0 0 0 0 1", 4);
/// assert_eq!(reciprocal_rank(&q.view(), Cutoff::new(5), 1.0), 1.0 / 2.0);
/// ```
pub fn reciprocal_rank(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade) -> f64 {
    q.top(k)
        .iter()
        .position(|j| j.is_relevant(level))
        .map_or(0.0, |i| 1.0 / (i + 1) as f64)
}

/// The `reciprocal_rank` metric (aliases `rr`, `mrr`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReciprocalRank {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "reciprocal_rank",
    aliases = &["rr", "mrr"],
    summary = "1 / rank of the first relevant document in the top k, else 0 (MRR)",
    params = &[PARAM_K, PARAM_REL],
    example = ReciprocalRank { k: Cutoff::new(10), rel: None },
)]
impl Metric for ReciprocalRank {
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }

    fn name(&self) -> String {
        CanonicalName::new("rr")
            .param_if_set("rel", self.rel)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        reciprocal_rank(q, self.k, q.level(self.rel))
    }
    /// reciprocal rank: `1 / rank of the first relevant document`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let first = q.top(self.k).iter().position(|j| j.is_relevant(level));
        let explanation = Explanation::new(self, q).level(level);
        match first {
            Some(i) => explanation.formula(format!(
                "{} = 1 / rank of the first relevant document = 1 / {}",
                self.name(),
                i + 1
            )),
            None => explanation.formula(format!(
                "{} = 0 (no relevant document in ranks 1-{})",
                self.name(),
                q.top(self.k).len()
            )),
        }
    }
    /// The expected reciprocal rank of the first relevant document.
    fn score_tie_average(&self, q: &JudgedRanking<'_>) -> Option<f64> {
        Some(crate::tie_average::expected_reciprocal_rank(
            q,
            self.k,
            q.level(self.rel),
        ))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        (self.rel.is_none() && self.k.is_none()).then(|| TrecEvalMeasure::mean("recip_rank"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::binary;

    #[test]
    fn first_relevant_rank() {
        assert_eq!(
            reciprocal_rank(&binary("0001", 1).view(), None, 1.0),
            1.0 / 4.0
        );
        assert_eq!(reciprocal_rank(&binary("1001", 2).view(), None, 1.0), 1.0);
        assert_eq!(
            reciprocal_rank(&binary("0001", 1).view(), Cutoff::new(3), 1.0),
            0.0
        );
        assert_eq!(reciprocal_rank(&binary("", 1).view(), None, 1.0), 0.0);
    }

    #[test]
    fn canonical_name() {
        assert_eq!(ReciprocalRank::default().name(), "rr");
    }
}
