//! F1@k: the harmonic mean of Precision@k and Recall@k.
//!
//! `F1@k = 2 P R / (P + R)` with `P = hits@k / k` and `R = hits@k / |R|`;
//! 0 when both are 0. With no cutoff `k = n`, which is trec_eval's `set_F`
//! (with its default beta of 1).

use rankeval_core::registry::{PARAM_K, PARAM_REL};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure,
};
use serde::{Deserialize, Serialize};

use crate::common::{hits, is_none, ratio};

/// F1@k of one query.
///
/// # Example
/// Spec vector c: `A B C L Y U F Z` against `A K B Z`: P@5 = 2/5, R@5 = 2/4.
/// ```
/// use rankeval_metrics::f1::f1;
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::binary("1 1 0 0 0 0 0 1", 4);
/// let (p, r) = (2.0 / 5.0, 2.0 / 4.0);
/// assert_eq!(f1(&q.view(), Cutoff::new(5), 1.0), 2.0 * p * r / (p + r));
/// ```
pub fn f1(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade) -> f64 {
    let hits = hits(q.top(k), level);
    let precision = ratio(hits, k.map_or(q.retrieved(), Cutoff::get));
    let recall = ratio(hits, q.num_relevant(level));
    if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    }
}

/// The `f1` metric (alias `set_f`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct F1 {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[typetag::serde(name = "f1")]
impl Metric for F1 {
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }

    fn name(&self) -> String {
        CanonicalName::new("f1")
            .param_if_set("rel", self.rel)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        f1(q, self.k, q.level(self.rel))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        (self.rel.is_none() && self.k.is_none()).then(|| TrecEvalMeasure::mean("set_F"))
    }
}

rankeval_core::register_metric! {
    name: "f1",
    aliases: &["set_f"],
    summary: "harmonic mean of precision@k and recall@k",
    params: &[PARAM_K, PARAM_REL],
    example: || Box::new(F1 { k: Cutoff::new(10), rel: RelevanceLevel::new(2) }),
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::{binary, judged};

    fn harmonic(p: f64, r: f64) -> f64 {
        2.0 * p * r / (p + r)
    }

    #[test]
    fn harmonic_mean_of_precision_and_recall() {
        let q = binary("1110101001", 8);
        assert_eq!(
            f1(&q.view(), Cutoff::new(3), 1.0),
            harmonic(3.0 / 3.0, 3.0 / 8.0)
        );
        assert_eq!(f1(&q.view(), None, 1.0), harmonic(6.0 / 10.0, 6.0 / 8.0));
    }

    #[test]
    fn list_shorter_than_k_counts_misses() {
        let q = binary("11", 2);
        assert_eq!(
            f1(&q.view(), Cutoff::new(5), 1.0),
            harmonic(2.0 / 5.0, 2.0 / 2.0)
        );
    }

    #[test]
    fn zero_when_nothing_relevant_is_found() {
        assert_eq!(f1(&binary("000", 2).view(), None, 1.0), 0.0);
        assert_eq!(f1(&binary("000", 0).view(), Cutoff::new(2), 1.0), 0.0);
        assert_eq!(f1(&binary("", 2).view(), None, 1.0), 0.0);
    }

    #[test]
    fn level_and_negative_grades() {
        let q = judged("2 1 - 2", &[3]);
        // Level 2: hits 2 of 4 retrieved, |R| = 3.
        assert_eq!(f1(&q.view(), None, 2.0), harmonic(2.0 / 4.0, 2.0 / 3.0));
        // Level 1: hits 3 of 4, |R| = 4; the -1 is not relevant.
        assert_eq!(f1(&q.view(), None, 1.0), harmonic(3.0 / 4.0, 3.0 / 4.0));
    }

    #[test]
    fn canonical_name_and_trec_eval() {
        assert_eq!(F1::default().name(), "f1");
        assert_eq!(F1::default().trec_eval().unwrap().name, "set_F");
        let m = F1 {
            k: Cutoff::new(10),
            rel: None,
        };
        assert_eq!(m.name(), "f1@10");
        assert!(m.trec_eval().is_none());
    }
}
