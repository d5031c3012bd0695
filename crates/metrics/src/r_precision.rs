//! R-precision: precision at rank `|R|`.
//!
//! `R-Prec = hits@|R| / |R|`, 0 when `|R| = 0` (trec_eval `Rprec`). A list
//! shorter than `|R|` counts its missing ranks as misses.

use rankeval_core::registry::PARAM_REL;
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
    let relevant = q.num_relevant(level);
    match Cutoff::new(relevant) {
        Some(r) => ratio(hits(q.top(Some(r)), level), relevant),
        None => 0.0,
    }
}

/// The `r_precision` metric (alias `rprec`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RPrecision {
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[typetag::serde(name = "r_precision")]
impl Metric for RPrecision {
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }

    fn name(&self) -> String {
        CanonicalName::new("rprec")
            .param_if_set("rel", self.rel)
            .finish()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        r_precision(q, q.level(self.rel))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        self.rel.is_none().then(|| TrecEvalMeasure::mean("Rprec"))
    }
}

rankeval_core::register_metric! {
    name: "r_precision",
    aliases: &["rprec"],
    summary: "precision at rank |R|: hits@|R| / |R|",
    params: &[PARAM_REL],
    example: || Box::new(RPrecision { rel: RelevanceLevel::new(2) }),
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
            rel: RelevanceLevel::new(2),
        };
        assert_eq!(m.name(), "rprec(rel=2)");
        assert!(m.trec_eval().is_none());
    }
}
