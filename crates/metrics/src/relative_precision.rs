//! Relative precision, as trec_eval 10's `relative_P_k` and
//! `set_relative_P`: precision divided by the best precision possible for
//! that many documents.
//!
//! `relative_P@k = hits@k / min(k, |R|)`; with no cutoff (`set_relative_P`)
//! `hits / min(n, |R|)`. 0 when `|R| = 0` (or, with no cutoff, `n = 0`).

use rankeval_core::explain::Explanation;
use rankeval_core::registry::{PARAM_K, PARAM_REL};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure,
};
use serde::{Deserialize, Serialize};

use crate::common::{hits, is_none, ratio};
use crate::explain::at;

/// Relative precision of one query.
///
/// # Example
/// `|R|` = 2, 1 relevant in the top 5: `1 / min(5, 2)`.
/// ```
/// use rankeval_metrics::relative_precision::relative_precision;
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::binary("0 0 1 0 0 0", 2);
/// assert_eq!(relative_precision(&q.view(), Cutoff::new(5), 1.0), 1.0 / 2.0);
/// ```
pub fn relative_precision(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade) -> f64 {
    let depth = k.map_or(q.retrieved(), Cutoff::get);
    ratio(hits(q.top(k), level), depth.min(q.num_relevant(level)))
}

/// The `relative_precision` metric (alias `relative_p`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelativePrecision {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "relative_precision",
    aliases = &["relative_p", "set_relative_p"],
    summary = "precision over the best possible: hits@k / min(k, |R|)",
    params = &[PARAM_K, PARAM_REL],
    example = RelativePrecision { k: Cutoff::new(10), rel: None },
)]
impl Metric for RelativePrecision {
    fn name(&self) -> String {
        CanonicalName::new("relative_p")
            .param_if_set("rel", self.rel)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        relative_precision(q, self.k, q.level(self.rel))
    }
    /// relative precision: `hits@k / min(k, |R|)`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let hits = hits(q.top(self.k), level);
        let relevant = q.num_relevant(level);
        let depth = self.k.map_or(q.retrieved(), Cutoff::get);
        let divisor = depth.min(relevant);
        let explanation = Explanation::new(self, q)
            .level(level)
            .quantity("|R|", relevant as f64)
            .quantity(format!("hits{}", at(self.k)), hits as f64);
        if divisor == 0 {
            return explanation.formula(format!("{} = 0 (min(k, |R|) = 0)", self.name()));
        }
        explanation
            .formula(format!(
                "{} = hits{} / min(k, |R|) = {hits} / min({depth}, {relevant})",
                self.name(),
                at(self.k)
            ))
            .normalizer(format!("divided by min(k, |R|) = {divisor}"))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        self.rel.is_none().then(|| match self.k {
            Some(k) => TrecEvalMeasure::mean(format!("relative_P_{k}")),
            None => TrecEvalMeasure::mean("set_relative_P"),
        })
    }
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::binary;

    #[test]
    fn divides_by_the_smaller_of_k_and_r() {
        let q = binary("1 1 0 1", 5);
        assert_eq!(
            relative_precision(&q.view(), Cutoff::new(2), 1.0),
            2.0 / 2.0
        );
        assert_eq!(
            relative_precision(&q.view(), Cutoff::new(10), 1.0),
            3.0 / 5.0
        );
        // No cutoff: n = 4 < |R| = 5.
        assert_eq!(relative_precision(&q.view(), None, 1.0), 3.0 / 4.0);
        assert_eq!(relative_precision(&binary("00", 0).view(), None, 1.0), 0.0);
        assert_eq!(relative_precision(&binary("", 2).view(), None, 1.0), 0.0);
    }

    #[test]
    fn names() {
        let m = RelativePrecision {
            k: Cutoff::new(5),
            rel: None,
        };
        assert_eq!(m.name(), "relative_p@5");
        assert_eq!(m.trec_eval().unwrap().name, "relative_P_5");
        assert_eq!(
            RelativePrecision::default().trec_eval().unwrap().name,
            "set_relative_P"
        );
    }
}
