//! Capped recall, BEIR's `R_cap@k`: recall whose denominator is capped at
//! k, so that a query with more relevant documents than k can still score 1.
//!
//! `R_cap@k = hits@k / min(k, |R|)`, 0 when `|R| = 0` (BEIR's
//! `beir.retrieval.custom_metrics.recall_cap` divides by zero there).
//! Thakur et al., "BEIR: A Heterogeneous Benchmark for Zero-shot
//! Evaluation of Information Retrieval Models", NeurIPS 2021 Datasets and
//! Benchmarks; asked for by name in pyserini #1527. Without a cutoff it is
//! recall (`min(n, |R|)` with no `n` is `|R|`).

use rankeval_core::explain::Explanation;
use rankeval_core::registry::{PARAM_K, PARAM_REL};
use rankeval_core::{CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel};
use serde::{Deserialize, Serialize};

use crate::common::{hits, is_none, ratio};
use crate::explain::{at, per_rank};

/// The denominator of capped recall: `min(k, |R|)` (`|R|` without a
/// cutoff).
fn cap(k: Option<Cutoff>, relevant: usize) -> usize {
    k.map_or(relevant, |k| k.get().min(relevant))
}

/// Capped recall at `k` of one query: `hits@k / min(k, |R|)`.
///
/// # Example
/// ```
/// use rankeval_metrics::recall_cap::recall_cap;
/// use rankeval_core::{testing, Cutoff};
/// // Spec vector c: A B C L Y U F Z against A K B Z (|R| = 4).
/// let q = testing::binary("1 1 0 0 0 0 0 1", 4);
/// assert_eq!(recall_cap(&q.view(), Cutoff::new(2), 1.0), 2.0 / 2.0);
/// assert_eq!(recall_cap(&q.view(), Cutoff::new(5), 1.0), 2.0 / 4.0);
/// ```
pub fn recall_cap(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade) -> f64 {
    ratio(hits(q.top(k), level), cap(k, q.num_relevant(level)))
}

/// The `recall_cap` metric (alias `r_cap`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecallCap {
    /// Cutoff; `None` = the whole list (then it is recall).
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "recall_cap",
    aliases = &["r_cap"],
    summary = "capped recall (BEIR R_cap@k): hits@k / min(k, |R|)",
    params = &[PARAM_K, PARAM_REL],
    example = RecallCap { k: Cutoff::new(100), rel: None },
)]
impl Metric for RecallCap {
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
    fn name(&self) -> String {
        CanonicalName::new("r_cap")
            .param_if_set("rel", self.rel)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        recall_cap(q, self.k, q.level(self.rel))
    }
    /// capped recall: `hits@k / min(k, |R|)`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let relevant = q.num_relevant(level);
        let denominator = cap(self.k, relevant);
        let hits = hits(q.top(self.k), level);
        let mut seen = 0usize;
        let column = per_rank(q, self.k, |_, j| {
            seen += usize::from(j.is_relevant(level));
            (denominator > 0).then(|| seen as f64 / denominator as f64)
        });
        let cap_text = match self.k {
            Some(k) => format!("min(k, |R|) = min({k}, {relevant}) = {denominator}"),
            None => format!("|R| = {relevant} (no cutoff)"),
        };
        Explanation::new(self, q)
            .level(level)
            .column("hits@i / cap", column)
            .quantity("|R|", relevant as f64)
            .quantity(format!("hits{}", at(self.k)), hits as f64)
            .formula(format!(
                "{} = hits{} / min(k, |R|) = {hits} / {denominator}",
                self.name(),
                at(self.k)
            ))
            .normalizer(format!("divided by {cap_text}"))
    }
    /// The expected hits over `min(k, |R|)`.
    fn score_tie_average(&self, q: &JudgedRanking<'_>) -> Option<f64> {
        let level = q.level(self.rel);
        let denominator = cap(self.k, q.num_relevant(level));
        let hits = crate::tie_average::expected_hits(q, self.k, level);
        Some(if denominator == 0 {
            0.0
        } else {
            hits / denominator as f64
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::binary;

    #[test]
    fn the_cap_is_k_when_more_are_relevant() {
        // 8 relevant, 3 of them in the top 3: 3 / min(3, 8) = 1, where
        // recall@3 is 3 / 8.
        let q = binary("1110101001", 8);
        assert_eq!(recall_cap(&q.view(), Cutoff::new(3), 1.0), 1.0);
        // Top 5: 4 hits / min(5, 8).
        assert_eq!(recall_cap(&q.view(), Cutoff::new(5), 1.0), 4.0 / 5.0);
        // k beyond |R|: the cap is |R|, as recall.
        assert_eq!(recall_cap(&q.view(), Cutoff::new(20), 1.0), 6.0 / 8.0);
        assert_eq!(recall_cap(&q.view(), None, 1.0), 6.0 / 8.0);
    }

    #[test]
    fn no_relevant_gives_zero() {
        assert_eq!(
            recall_cap(&binary("000", 0).view(), Cutoff::new(2), 1.0),
            0.0
        );
    }

    #[test]
    fn canonical_name() {
        let m = RecallCap {
            k: Cutoff::new(100),
            rel: None,
        };
        assert_eq!(m.name(), "r_cap@100");
    }
}
