//! Judged@k: the share of the top k that the qrels judge.
//!
//! `Judged@k = |{i <= k : d_i is in the qrels}| / min(k, n)`, 0 for an
//! empty list (ir_measures `Judged@k`, from OpenNIR). A document judged
//! with any grade, negative ones included, counts as judged. With no
//! cutoff, `k = n`. It measures the qrels' coverage of a run, not its
//! quality: a low value warns that the other metrics count many unjudged
//! documents as non-relevant.

use rankeval_core::explain::Explanation;
use rankeval_core::registry::PARAM_K;
use rankeval_core::{CanonicalName, Cutoff, JudgedRanking, Judgement, Metric};
use serde::{Deserialize, Serialize};

use crate::common::{is_none, ratio};
use crate::explain::{at, count, marks};

/// Judged@k of one query.
///
/// # Example
/// Judged, unjudged, judged non-relevant, unjudged: 2 of the top 4.
/// ```
/// use rankeval_metrics::judged::judged;
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::judged("1 . 0 .", &[]);
/// assert_eq!(judged(&q.view(), Cutoff::new(4)), 2.0 / 4.0);
/// // A list shorter than k divides by its length (ir_measures).
/// assert_eq!(judged(&q.view(), Cutoff::new(10)), 2.0 / 4.0);
/// ```
pub fn judged(q: &JudgedRanking<'_>, k: Option<Cutoff>) -> f64 {
    let top = q.top(k);
    let count = top.iter().filter(|j| j.is_judged()).count();
    let depth = k.map_or(q.retrieved(), Cutoff::get).min(q.retrieved());
    ratio(count, depth)
}

/// The `judged` metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Judged {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
}

#[rankeval_core::metric(
    name = "judged",
    summary = "share of the top k that the qrels judge: judged@k / min(k, n)",
    params = &[PARAM_K],
    example = Judged { k: Cutoff::new(10) },
)]
impl Metric for Judged {
    fn name(&self) -> String {
        CanonicalName::new("judged").cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        judged(q, self.k)
    }
    /// judged: `judged in the top k / min(k, n)`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let judged = count(q, self.k, Judgement::is_judged);
        let depth = self.k.map_or(q.retrieved(), Cutoff::get).min(q.retrieved());
        let explanation = Explanation::new(self, q)
            .column("judged", marks(q, self.k, Judgement::is_judged))
            .quantity(format!("judged documents{}", at(self.k)), judged as f64);
        if depth == 0 {
            return explanation.formula(format!("{} = 0 (empty list)", self.name()));
        }
        explanation.formula(format!(
            "{} = judged documents{} / min(k, n) = {judged} / {depth}",
            self.name(),
            at(self.k)
        ))
    }
    fn uses_default_level(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::judged as ranking;

    fn at(pattern: &str, k: Option<usize>) -> f64 {
        judged(&ranking(pattern, &[]).view(), k.and_then(Cutoff::new))
    }

    #[test]
    fn counts_judged_documents_of_any_grade() {
        // Grades 2, 0 and -1 are all judged; `.` is not.
        assert_eq!(at("2 . 0 - . .", Some(3)), 2.0 / 3.0);
        assert_eq!(at("2 . 0 - . .", Some(6)), 3.0 / 6.0);
        assert_eq!(at("2 . 0 - . .", None), 3.0 / 6.0);
        assert_eq!(at("...", Some(2)), 0.0);
        assert_eq!(at("111", Some(2)), 1.0);
    }

    #[test]
    fn a_short_list_divides_by_its_length_and_an_empty_one_scores_zero() {
        assert_eq!(at("1 .", Some(10)), 1.0 / 2.0);
        assert_eq!(at("", Some(10)), 0.0);
        assert_eq!(at("", None), 0.0);
    }

    #[test]
    fn canonical_name() {
        assert_eq!(Judged { k: Cutoff::new(10) }.name(), "judged@10");
        assert_eq!(Judged::default().name(), "judged");
    }
}
