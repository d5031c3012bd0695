//! Set MAP, as trec_eval 10's `set_map`: the unranked AP of the retrieved
//! set, `P * R = hits^2 / (n * |R|)`, 0 when `n` or `|R|` is 0.

use rankeval_core::explain::Explanation;
use rankeval_core::registry::PARAM_REL;
use rankeval_core::{CanonicalName, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure};
use serde::{Deserialize, Serialize};

use crate::common::{hits, is_none};

/// `hits^2 / (n * |R|)`.
///
/// # Example
/// ```
/// use rankeval_metrics::set_map::set_map;
/// use rankeval_core::testing;
/// let q = testing::binary("1 0 1 0", 3);
/// assert_eq!(set_map(&q.view(), 1.0), (2.0 * 2.0) / (4.0 * 3.0));
/// ```
pub fn set_map(q: &JudgedRanking<'_>, level: Grade) -> f64 {
    let n = q.ranked().len();
    let r = q.num_relevant(level);
    if n == 0 || r == 0 {
        return 0.0;
    }
    let h = hits(q.ranked(), level) as f64;
    (h * h) / (n as f64 * r as f64)
}

/// The `set_map` metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetMap {
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "set_map",
    summary = "unranked AP of the retrieved set: hits^2 / (n * |R|)",
    params = &[PARAM_REL],
    example = SetMap { rel: RelevanceLevel::new(2) },
)]
impl Metric for SetMap {
    fn name(&self) -> String {
        CanonicalName::new("set_map")
            .param_if_set("rel", self.rel)
            .finish()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        set_map(q, q.level(self.rel))
    }
    /// set_map: `hits^2 / (n x |R|)`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let relevant = q.num_relevant(level);
        let n = q.ranked().len();
        let hits = hits(q.ranked(), level);
        let explanation = Explanation::new(self, q)
            .level(level)
            .quantity("|R|", relevant as f64)
            .quantity("hits", hits as f64);
        if n == 0 || relevant == 0 {
            return explanation.formula(format!("{} = 0 (n = {n}, |R| = {relevant})", self.name()));
        }
        explanation.formula(format!(
            "{} = (hits / n) x (hits / |R|) = hits^2 / (n x |R|) = {hits}^2 / ({n} x {relevant})",
            self.name()
        ))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        self.rel.is_none().then(|| TrecEvalMeasure::mean("set_map"))
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
    fn precision_times_recall() {
        assert_eq!(
            set_map(&binary("1 1 0", 4).view(), 1.0),
            (2.0 / 3.0) * (2.0 / 4.0)
        );
        assert_eq!(set_map(&binary("", 4).view(), 1.0), 0.0);
        assert_eq!(set_map(&binary("0", 0).view(), 1.0), 0.0);
    }
}
