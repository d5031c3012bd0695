//! Recall@k: the share of the relevant documents found in the top k.
//!
//! `R@k = hits@k / |R|`, 0 when `|R| = 0` (trec_eval `recall_k`).

use rankeval_core::explain::Explanation;
use rankeval_core::registry::{PARAM_K, PARAM_REL};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure,
};
use serde::{Deserialize, Serialize};

use crate::common::{hits, is_none, ratio};
use crate::explain::{at, per_rank};

/// Recall@k of one query.
///
/// # Example
/// ```
/// use rankeval_metrics::recall::recall;
/// use rankeval_core::{testing, Cutoff};
/// // Spec vector c: A B C L Y U F Z against A K B Z; K is never retrieved.
/// let q = testing::binary("1 1 0 0 0 0 0 1", 4);
/// assert_eq!(recall(&q.view(), Cutoff::new(5), 1.0), 2.0 / 4.0);
/// ```
pub fn recall(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade) -> f64 {
    ratio(hits(q.top(k), level), q.num_relevant(level))
}

/// The `recall` metric (alias `r`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recall {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

impl Recall {
    /// Recall at `k` (`None` if `k` is 0).
    pub fn at(k: usize) -> Option<Self> {
        Some(Self {
            k: Some(Cutoff::new(k)?),
            ..Self::default()
        })
    }
}

#[rankeval_core::metric(
    name = "recall",
    aliases = &["r"],
    summary = "share of the relevant documents found in the top k: hits@k / |R|",
    params = &[PARAM_K, PARAM_REL],
    example = Recall { k: Cutoff::new(100), rel: RelevanceLevel::new(2) },
)]
impl Metric for Recall {
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }

    fn name(&self) -> String {
        CanonicalName::new("r")
            .param_if_set("rel", self.rel)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        recall(q, self.k, q.level(self.rel))
    }
    /// recall: `hits@k / |R|`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let relevant = q.num_relevant(level);
        let hits = hits(q.top(self.k), level);
        let mut seen = 0usize;
        let column = per_rank(q, self.k, |_, j| {
            seen += usize::from(j.is_relevant(level));
            (relevant > 0).then(|| seen as f64 / relevant as f64)
        });
        Explanation::new(self, q)
            .level(level)
            .column("R@i", column)
            .quantity("|R|", relevant as f64)
            .quantity(format!("hits{}", at(self.k)), hits as f64)
            .formula(format!(
                "{} = hits{} / |R| = {hits} / {relevant}",
                self.name(),
                at(self.k)
            ))
            .normalizer(format!("divided by |R| = {relevant}"))
    }
    /// The expected hits over `|R|`.
    fn score_tie_average(&self, q: &JudgedRanking<'_>) -> Option<f64> {
        let level = q.level(self.rel);
        let relevant = q.num_relevant(level);
        let hits = crate::tie_average::expected_hits(q, self.k, level);
        Some(if relevant == 0 {
            0.0
        } else {
            hits / relevant as f64
        })
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        if self.rel.is_some() {
            return None;
        }
        Some(match self.k {
            Some(k) => TrecEvalMeasure::mean(format!("recall_{k}")),
            None => TrecEvalMeasure::mean("set_recall"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::binary;

    #[test]
    fn hits_over_all_relevant() {
        let q = binary("1110101001", 8);
        assert_eq!(recall(&q.view(), Cutoff::new(3), 1.0), 3.0 / 8.0);
        assert_eq!(recall(&q.view(), None, 1.0), 6.0 / 8.0);
    }

    #[test]
    fn no_relevant_gives_zero() {
        assert_eq!(recall(&binary("000", 0).view(), None, 1.0), 0.0);
    }

    #[test]
    fn canonical_name() {
        assert_eq!(Recall::at(20).unwrap().name(), "r@20");
    }
}
