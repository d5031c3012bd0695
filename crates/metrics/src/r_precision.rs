//! R-precision: precision at rank `|R|`.
//!
//! `R-Prec = hits@|R| / |R|`, 0 when `|R| = 0` (trec_eval `Rprec`). A list
//! shorter than `|R|` counts its missing ranks as misses.
//!
//! With a cutoff `k`, only the top `min(|R|, k)` ranks are read, and the
//! hits there are still divided by `|R|`: `hits@min(|R|, k) / |R|`
//! (Microsoft recommenders' `r_precision_at_k`, where "k indicates the
//! maximum possible R"). Without a cutoff this is trec_eval's `Rprec`.

use rankeval_core::explain::Explanation;
use rankeval_core::registry::{PARAM_K, PARAM_REL};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure,
};
use serde::{Deserialize, Serialize};

use crate::common::{hits, is_none, ratio};

/// R-precision of one query.
///
/// # Example
/// Spec vector c: `A B C L Y U F Z` against `A K B Z`; `|R| = 4`.
/// ```
/// use rankeval_metrics::r_precision::r_precision;
/// use rankeval_core::testing;
/// let q = testing::binary("1 1 0 0 0 0 0 1", 4);
/// assert_eq!(r_precision(&q.view(), 1.0), 2.0 / 4.0);
/// ```
pub fn r_precision(q: &JudgedRanking<'_>, level: Grade) -> f64 {
    r_precision_at(q, None, level)
}

/// R-precision of one query with the rank read capped at `k`:
/// `hits@min(|R|, k) / |R|` (Microsoft recommenders' `r_precision_at_k`).
///
/// # Example
/// `|R| = 4`, relevant at ranks 1, 2 and 8; at `k = 2` only the top 2 are
/// read, and the hits there are still divided by 4.
/// ```
/// use rankeval_metrics::r_precision::r_precision_at;
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::binary("1 1 0 0 0 0 0 1", 4);
/// assert_eq!(r_precision_at(&q.view(), Cutoff::new(2), 1.0), 2.0 / 4.0);
/// assert_eq!(r_precision_at(&q.view(), Cutoff::new(1), 1.0), 1.0 / 4.0);
/// ```
pub fn r_precision_at(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade) -> f64 {
    let relevant = q.num_relevant(level);
    let depth = k.map_or(relevant, |k| relevant.min(k.get()));
    match Cutoff::new(depth) {
        Some(r) => ratio(hits(q.top(Some(r)), level), relevant),
        None => 0.0,
    }
}

/// The `r_precision` metric (alias `rprec`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RPrecision {
    /// Cap on the rank read (`min(|R|, k)`); `None` = `|R|` (trec_eval).
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "r_precision",
    aliases = &["rprec"],
    summary = "precision at rank |R|: hits@|R| / |R|; with k, hits@min(|R|, k) / |R|",
    params = &[PARAM_K, PARAM_REL],
    example = RPrecision { k: Cutoff::new(10), rel: RelevanceLevel::new(2) },
)]
impl Metric for RPrecision {
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }

    fn name(&self) -> String {
        CanonicalName::new("rprec")
            .param_if_set("rel", self.rel)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        r_precision_at(q, self.k, q.level(self.rel))
    }
    /// R-precision: precision at rank |R|.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let relevant = q.num_relevant(level);
        let hits = hits(q.top(Cutoff::new(relevant)), level);
        let explanation = Explanation::new(self, q)
            .level(level)
            .quantity("|R|", relevant as f64);
        if relevant == 0 {
            return explanation.formula(format!("{} = 0 (|R| = 0)", self.name()));
        }
        explanation
            .quantity(format!("hits@{relevant}"), hits as f64)
            .formula(format!(
                "{} = hits@|R| / |R| = {hits} / {relevant}",
                self.name()
            ))
    }
    /// The expected hits at rank `min(|R|, k)` over `|R|`.
    fn score_tie_average(&self, q: &JudgedRanking<'_>) -> Option<f64> {
        let level = q.level(self.rel);
        let relevant = q.num_relevant(level);
        let depth = self.k.map_or(relevant, |k| relevant.min(k.get()));
        Some(match Cutoff::new(depth) {
            Some(r) => crate::tie_average::expected_hits(q, Some(r), level) / relevant as f64,
            None => 0.0,
        })
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        (self.rel.is_none() && self.k.is_none()).then(|| TrecEvalMeasure::mean("Rprec"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::{binary, judged};

    #[test]
    fn precision_at_the_number_of_relevant() {
        assert_eq!(r_precision(&binary("1010 11", 5).view(), 1.0), 3.0 / 5.0);
        assert_eq!(r_precision(&binary("0111", 3).view(), 1.0), 2.0 / 3.0);
        assert_eq!(r_precision(&binary("111", 3).view(), 1.0), 3.0 / 3.0);
    }

    #[test]
    fn list_shorter_than_r_counts_misses() {
        assert_eq!(r_precision(&binary("1", 4).view(), 1.0), 1.0 / 4.0);
        assert_eq!(r_precision(&binary("", 4).view(), 1.0), 0.0 / 4.0);
    }

    #[test]
    fn a_cutoff_caps_the_ranks_read_but_not_the_divisor() {
        let q = binary("0110 1001", 5);
        let at = |k| r_precision_at(&q.view(), Cutoff::new(k), 1.0);
        // min(|R|, k) = k below |R|: hits in the top k over |R|.
        assert_eq!(at(1), 0.0 / 5.0);
        assert_eq!(at(3), 2.0 / 5.0);
        // At or past |R| the cap changes nothing: plain R-precision.
        assert_eq!(at(5), 3.0 / 5.0);
        assert_eq!(at(8), r_precision(&q.view(), 1.0));
        assert_eq!(
            r_precision_at(&binary("000", 0).view(), Cutoff::new(2), 1.0),
            0.0
        );
    }

    #[test]
    fn no_relevant_gives_zero() {
        assert_eq!(r_precision(&binary("000", 0).view(), 1.0), 0.0);
        assert_eq!(r_precision(&judged("", &[]).view(), 1.0), 0.0);
    }

    #[test]
    fn level_and_negative_grades() {
        // At level 2, |R| = 2 (the 3 and the 2); the top 2 hold one of them.
        let q = judged("3 1 - 2", &[]);
        assert_eq!(r_precision(&q.view(), 2.0), 1.0 / 2.0);
        // At level 1, |R| = 3; the top 3 hold the 3 and the 1 (not the -1).
        assert_eq!(r_precision(&q.view(), 1.0), 2.0 / 3.0);
    }

    #[test]
    fn canonical_name_and_trec_eval() {
        assert_eq!(RPrecision::default().name(), "rprec");
        assert_eq!(RPrecision::default().trec_eval().unwrap().name, "Rprec");
        let m = RPrecision {
            k: None,
            rel: RelevanceLevel::new(2),
        };
        assert_eq!(m.name(), "rprec(rel=2)");
        assert!(m.trec_eval().is_none());
        let m = RPrecision {
            k: Cutoff::new(10),
            rel: None,
        };
        assert_eq!(m.name(), "rprec@10");
        assert!(m.trec_eval().is_none());
    }
}
