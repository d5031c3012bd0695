//! Precision@k: the share of the top k that is relevant.
//!
//! `P@k = hits@k / k` (trec_eval `P_k`, ranx `precision`), or with
//! `denominator = "retrieved"`, `hits@k / min(k, n)`, which does not punish
//! a list shorter than k (seed 002's code). With no cutoff, `k = n`.

use std::fmt;

use rankeval_core::explain::Explanation;
use rankeval_core::registry::{PARAM_K, PARAM_REL, ParamDoc};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure,
};
use serde::{Deserialize, Serialize};

use crate::common::{hits, is_none, ratio};
use crate::explain::{at, precision_at_each_rank};

/// What precision divides by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PrecisionDenominator {
    /// `k` (trec_eval, ranx): a list shorter than k counts its missing ranks as misses.
    #[default]
    K,
    /// `min(k, n)`: only the retrieved ranks count; 0 for an empty list.
    Retrieved,
    /// `min(k, |R|)`: a perfect top k scores 1 even when `|R| < k`
    /// (RecTools `Precision(r_precision=True)`, recometrics `tp_at_k`).
    Truncated,
}

impl fmt::Display for PrecisionDenominator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PrecisionDenominator::K => "k",
            PrecisionDenominator::Retrieved => "retrieved",
            PrecisionDenominator::Truncated => "truncated",
        })
    }
}

/// Precision@k of one query.
///
/// # Example
/// Spec vector c: `A B C L Y U F Z` against `A K B Z`.
/// ```
/// use rankeval_metrics::precision::{precision, PrecisionDenominator};
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::binary("1 1 0 0 0 0 0 1", 4);
/// assert_eq!(precision(&q.view(), Cutoff::new(5), 1.0, PrecisionDenominator::K), 2.0 / 5.0);
/// ```
pub fn precision(
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    level: Grade,
    denominator: PrecisionDenominator,
) -> f64 {
    let top = q.top(k);
    let depth = k.map_or(q.retrieved(), Cutoff::get);
    let divisor = match denominator {
        PrecisionDenominator::K => depth,
        PrecisionDenominator::Retrieved => depth.min(q.retrieved()),
        PrecisionDenominator::Truncated => depth.min(q.num_relevant(level)),
    };
    ratio(hits(top, level), divisor)
}

/// The `precision` metric (alias `p`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Precision {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
    /// What to divide by.
    #[serde(default)]
    pub denominator: PrecisionDenominator,
}

impl Precision {
    /// Precision at `k` with default parameters (`None` if `k` is 0).
    pub fn at(k: usize) -> Option<Self> {
        Some(Self {
            k: Some(Cutoff::new(k)?),
            ..Self::default()
        })
    }
}

#[rankeval_core::metric(
    name = "precision",
    aliases = &["p"],
    summary = "share of the top k that is relevant: hits@k / k",
    params = PARAMS,
    example = Precision {
        k: Cutoff::new(10),
        rel: RelevanceLevel::new(2),
        denominator: PrecisionDenominator::Retrieved,
    },
)]
impl Metric for Precision {
    /// Hits over a fixed k (or the list's length); not over min(k, |R|).
    fn is_additive(&self) -> bool {
        self.denominator != PrecisionDenominator::Truncated
    }
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }

    fn name(&self) -> String {
        CanonicalName::new("p")
            .param_if_set("rel", self.rel)
            .param_unless_default("denominator", self.denominator, PrecisionDenominator::K)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        precision(q, self.k, q.level(self.rel), self.denominator)
    }
    /// precision: `hits@k / k` (or `/ min(k, n)`).
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let hits = hits(q.top(self.k), level);
        let depth = self.k.map_or(q.retrieved(), Cutoff::get);
        let (divisor, by) = match self.denominator {
            PrecisionDenominator::K => (depth, format!("k = {depth}")),
            PrecisionDenominator::Retrieved => {
                let d = depth.min(q.retrieved());
                (d, format!("min(k, n) = {d}"))
            }
            PrecisionDenominator::Truncated => {
                let d = depth.min(q.num_relevant(level));
                (d, format!("min(k, |R|) = {d}"))
            }
        };
        Explanation::new(self, q)
            .level(level)
            .column("P@i", precision_at_each_rank(q, self.k, level))
            .quantity(format!("hits{}", at(self.k)), hits as f64)
            .formula(format!(
                "{} = hits{} / {} = {hits} / {divisor}",
                self.name(),
                at(self.k),
                by.split(" = ").next().unwrap_or(&by)
            ))
            .normalizer(format!("divided by {by}"))
    }
    /// The expected hits over the same (order-free) denominator.
    fn score_tie_average(&self, q: &JudgedRanking<'_>) -> Option<f64> {
        let level = q.level(self.rel);
        let depth = self.k.map_or(q.retrieved(), Cutoff::get);
        let divisor = match self.denominator {
            PrecisionDenominator::K => depth,
            PrecisionDenominator::Retrieved => depth.min(q.retrieved()),
            PrecisionDenominator::Truncated => depth.min(q.num_relevant(level)),
        };
        let hits = crate::tie_average::expected_hits(q, self.k, level);
        Some(if divisor == 0 {
            0.0
        } else {
            hits / divisor as f64
        })
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        if self.rel.is_some() || self.denominator != PrecisionDenominator::K {
            return None;
        }
        Some(match self.k {
            Some(k) => TrecEvalMeasure::mean(format!("P_{k}")),
            None => TrecEvalMeasure::mean("set_P"),
        })
    }
}

const PARAMS: &[ParamDoc] = &[
    PARAM_K,
    PARAM_REL,
    ParamDoc {
        name: "denominator",
        alias: None,
        default: "k",
        doc: "k: hits/k (trec_eval, ranx); retrieved: hits/min(k, n), 0 for an empty list; truncated: hits/min(k, |R|) (RecTools r_precision)",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::binary;

    fn p(pattern: &str, relevant: usize, k: usize, denominator: PrecisionDenominator) -> f64 {
        precision(
            &binary(pattern, relevant).view(),
            Cutoff::new(k),
            1.0,
            denominator,
        )
    }

    #[test]
    fn counts_hits_over_k() {
        use PrecisionDenominator::K;
        assert_eq!(p("1110101001", 6, 3, K), 3.0 / 3.0);
        assert_eq!(p("1110101001", 6, 7, K), 5.0 / 7.0);
        // A list shorter than k: the missing ranks are misses.
        assert_eq!(p("11", 2, 5, K), 2.0 / 5.0);
    }

    #[test]
    fn retrieved_denominator_ignores_missing_ranks() {
        use PrecisionDenominator::Retrieved;
        assert_eq!(p("11", 2, 5, Retrieved), 2.0 / 2.0);
        assert_eq!(p("1100", 2, 3, Retrieved), 2.0 / 3.0);
        assert_eq!(p("", 2, 3, Retrieved), 0.0);
    }

    #[test]
    fn no_cutoff_divides_by_the_list_length() {
        let q = binary("0101", 3);
        assert_eq!(
            precision(&q.view(), None, 1.0, PrecisionDenominator::K),
            2.0 / 4.0
        );
        assert_eq!(
            precision(&binary("", 3).view(), None, 1.0, PrecisionDenominator::K),
            0.0
        );
    }

    #[test]
    fn level_raises_the_bar() {
        let q = rankeval_core::testing::judged("2 1 0 2", &[]);
        assert_eq!(
            precision(&q.view(), Cutoff::new(4), 2.0, PrecisionDenominator::K),
            2.0 / 4.0
        );
        assert_eq!(
            precision(&q.view(), Cutoff::new(4), 1.0, PrecisionDenominator::K),
            3.0 / 4.0
        );
    }

    #[test]
    fn canonical_names() {
        assert_eq!(Precision::at(10).unwrap().name(), "p@10");
        let m = Precision {
            k: Cutoff::new(5),
            rel: RelevanceLevel::new(2),
            denominator: PrecisionDenominator::Retrieved,
        };
        assert_eq!(m.name(), "p(rel=2,denominator=retrieved)@5");
    }
}
