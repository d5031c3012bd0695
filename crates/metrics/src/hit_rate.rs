//! Hit rate@k: 1 if any relevant document is in the top k, else 0
//! (trec_eval `success_k`).

use rankeval_core::explain::Explanation;
use rankeval_core::registry::{PARAM_K, PARAM_REL};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure,
};
use serde::{Deserialize, Serialize};

use crate::common::is_none;

/// Hit rate of one query.
///
/// # Example
/// ```
/// use rankeval_metrics::hit_rate::hit_rate;
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::binary("0 0 1", 1);
/// assert_eq!(hit_rate(&q.view(), Cutoff::new(2), 1.0), 0.0);
/// assert_eq!(hit_rate(&q.view(), Cutoff::new(3), 1.0), 1.0);
/// ```
pub fn hit_rate(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade) -> f64 {
    if q.top(k).iter().any(|j| j.is_relevant(level)) {
        1.0
    } else {
        0.0
    }
}

/// The `hit_rate` metric (alias `success`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HitRate {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "hit_rate",
    aliases = &["success"],
    summary = "1 if a relevant document is in the top k, else 0",
    params = &[PARAM_K, PARAM_REL],
    example = HitRate { k: Cutoff::new(10), rel: RelevanceLevel::new(3) },
)]
impl Metric for HitRate {
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }

    fn name(&self) -> String {
        CanonicalName::new("hit_rate")
            .param_if_set("rel", self.rel)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        hit_rate(q, self.k, q.level(self.rel))
    }
    /// hit rate: 1 if a relevant document is in the top k.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let first = q.top(self.k).iter().position(|j| j.is_relevant(level));
        let reason = match first {
            Some(i) => format!("1 (a relevant document at rank {})", i + 1),
            None => format!(
                "0 (no relevant document in ranks 1-{})",
                q.top(self.k).len()
            ),
        };
        Explanation::new(self, q)
            .level(level)
            .formula(format!("{} = {reason}", self.name()))
    }
    /// The probability of a relevant document in the top k.
    fn score_tie_average(&self, q: &JudgedRanking<'_>) -> Option<f64> {
        Some(crate::tie_average::expected_hit(
            q,
            self.k,
            q.level(self.rel),
        ))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        let k = self.k?;
        self.rel
            .is_none()
            .then(|| TrecEvalMeasure::mean(format!("success_{k}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::binary;

    #[test]
    fn any_relevant_in_the_top_k() {
        assert_eq!(hit_rate(&binary("000", 1).view(), None, 1.0), 0.0);
        assert_eq!(hit_rate(&binary("0001", 1).view(), None, 1.0), 1.0);
        assert_eq!(hit_rate(&binary("", 1).view(), Cutoff::new(1), 1.0), 0.0);
    }

    #[test]
    fn canonical_name() {
        let m = HitRate {
            k: Cutoff::new(5),
            rel: None,
        };
        assert_eq!(m.name(), "hit_rate@5");
    }
}
