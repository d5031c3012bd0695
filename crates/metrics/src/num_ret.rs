//! `num_ret`: the number of documents retrieved, `n` (or `min(n, k)`).
//!
//! trec_eval `num_ret`, which its `all` line sums over queries.

use rankeval_core::explain::Explanation;
use rankeval_core::registry::PARAM_K;
use rankeval_core::{CanonicalName, Cutoff, JudgedRanking, Metric, TrecEvalMeasure};
use serde::{Deserialize, Serialize};

use crate::common::is_none;

/// The length of the list, cut at k.
///
/// # Example
/// ```
/// use rankeval_metrics::num_ret::num_ret;
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::judged("1 . 0", &[]);
/// assert_eq!(num_ret(&q.view(), None), 3.0);
/// assert_eq!(num_ret(&q.view(), Cutoff::new(2)), 2.0);
/// ```
pub fn num_ret(q: &JudgedRanking<'_>, k: Option<Cutoff>) -> f64 {
    k.map_or(q.retrieved(), |k| k.get().min(q.retrieved())) as f64
}

/// The `num_ret` metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NumRet {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
}

#[rankeval_core::metric(
    name = "num_ret",
    summary = "number of documents retrieved (cut at k)",
    params = &[PARAM_K],
    example = NumRet { k: Cutoff::new(1000) },
)]
impl Metric for NumRet {
    /// Grades do not enter.
    fn is_additive(&self) -> bool {
        true
    }
    /// Counts retrieved documents, judged or not.
    fn uses_default_level(&self) -> bool {
        false
    }

    fn name(&self) -> String {
        CanonicalName::new("num_ret").cutoff(self.k)
    }
    /// Reads no rank (only the list length), so it asks for the least depth.
    fn depth(&self) -> Option<Cutoff> {
        Cutoff::new(1)
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        num_ret(q, self.k)
    }
    /// num_ret: the ranks retrieved, at most k.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let text = match self.k {
            Some(k) => format!("{} = min(k, n) = min({k}, {})", self.name(), q.retrieved()),
            None => format!("{} = n", self.name()),
        };
        Explanation::new(self, q).formula(text)
    }
    /// The count does not depend on the order.
    fn score_tie_average(&self, q: &JudgedRanking<'_>) -> Option<f64> {
        Some(num_ret(q, self.k))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        self.k.is_none().then(|| TrecEvalMeasure::sum("num_ret"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::judged;

    #[test]
    fn counts_every_retrieved_document() {
        let q = judged("1 - . 0 2", &[3]);
        assert_eq!(num_ret(&q.view(), None), 5.0);
        assert_eq!(num_ret(&q.view(), Cutoff::new(3)), 3.0);
        assert_eq!(num_ret(&q.view(), Cutoff::new(10)), 5.0);
        assert_eq!(num_ret(&judged("", &[1]).view(), None), 0.0);
    }

    #[test]
    fn reads_the_length_not_the_ranks() {
        // A ranking judged to depth 1 of a list of 4.
        let q = judged("1 0 0 0", &[]);
        let view = q.view();
        let cut = JudgedRanking::new(
            &view.ranked()[..1],
            4,
            view.ideal_grades(),
            view.default_level(),
        );
        assert_eq!(NumRet::default().score(&cut), 4.0);
    }

    #[test]
    fn canonical_name_and_trec_eval() {
        assert_eq!(NumRet::default().name(), "num_ret");
        assert_eq!(
            NumRet::default().trec_eval(),
            Some(TrecEvalMeasure::sum("num_ret"))
        );
        let m = NumRet { k: Cutoff::new(10) };
        assert_eq!(m.name(), "num_ret@10");
        assert!(m.trec_eval().is_none());
    }
}
