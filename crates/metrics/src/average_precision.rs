//! Average precision@k; its mean is MAP@k.
//!
//! `AP@k = sum_{i <= k} P@i * rel(i) / N`, where `N` is chosen by
//! `normalization`:
//!
//! | normalization | `N` | used by |
//! |---|---|---|
//! | `relevant` (default) | `|R|` | trec_eval `map`, `map_cut_k`; ranx, ir_measures |
//! | `truncated` | `min(|R|, k)` | Kaggle, recometrics, seeds 000 and 003 |
//! | `hits` | `hits@k` | seed 001 (precision averaged over the hits only) |
//! | `k` | `k` | RecTools `MAP(divide_by_k=True)` |
//!
//! `N = 0` gives 0. With no cutoff `k = n`, so truncated AP divides by
//! `min(|R|, n)`. The "mean of P@i for i = 1..k" reading is not AP and is
//! not offered (seed 003 explains why).

use std::fmt;

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::{PARAM_K, PARAM_REL, ParamDoc};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure,
};
use serde::{Deserialize, Serialize};

use crate::common::is_none;
use crate::explain::{at, per_rank, precision_at_each_rank, sum_text};

/// What average precision divides the summed precisions by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ApNormalization {
    /// `|R|`, every relevant document of the query (trec_eval).
    #[default]
    Relevant,
    /// `min(|R|, k)`: a perfect top k scores 1 even when `|R| > k`.
    Truncated,
    /// `hits@k`: the mean precision at the relevant ranks retrieved.
    Hits,
    /// `k` (`n` without a cutoff): RecTools' `MAP(divide_by_k=True)`.
    K,
}

impl fmt::Display for ApNormalization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ApNormalization::Relevant => "relevant",
            ApNormalization::Truncated => "truncated",
            ApNormalization::Hits => "hits",
            ApNormalization::K => "k",
        })
    }
}

/// Average precision of one query.
///
/// # Example
/// Spec vector a: `A B C D E` against `B D Z`, truncated.
/// ```
/// use rankeval_metrics::average_precision::{average_precision, ApNormalization};
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::binary("0 1 0 1 0", 3);
/// let ap = average_precision(&q.view(), Cutoff::new(5), 1.0, ApNormalization::Truncated);
/// assert_eq!(ap, (1.0 / 2.0 + 2.0 / 4.0) / 3.0);
/// ```
pub fn average_precision(
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    level: Grade,
    normalization: ApNormalization,
) -> f64 {
    let mut hits = 0usize;
    let mut sum = 0.0;
    for (i, judgement) in q.top(k).iter().enumerate() {
        if judgement.is_relevant(level) {
            hits += 1;
            sum += hits as f64 / (i + 1) as f64;
        }
    }
    let relevant = q.num_relevant(level);
    let divisor = match normalization {
        ApNormalization::Relevant => relevant,
        ApNormalization::Truncated => relevant.min(k.map_or(q.retrieved(), Cutoff::get)),
        ApNormalization::Hits => hits,
        ApNormalization::K => k.map_or(q.retrieved(), Cutoff::get),
    };
    if divisor == 0 {
        0.0
    } else {
        sum / divisor as f64
    }
}

/// The `average_precision` metric (aliases `ap`, `map`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AveragePrecision {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
    /// What to divide by.
    #[serde(default)]
    pub normalization: ApNormalization,
}

impl AveragePrecision {
    /// AP at `k` with `normalization` (`None` if `k` is 0).
    pub fn at(k: usize, normalization: ApNormalization) -> Option<Self> {
        Some(Self {
            k: Some(Cutoff::new(k)?),
            rel: None,
            normalization,
        })
    }
}

#[rankeval_core::metric(
    name = "average_precision",
    aliases = &["ap", "map"],
    summary = "mean of the precision at each relevant rank in the top k (MAP)",
    params = PARAMS,
    example = AveragePrecision {
        k: Cutoff::new(10),
        rel: None,
        normalization: ApNormalization::Truncated,
    },
)]
impl Metric for AveragePrecision {
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }

    fn name(&self) -> String {
        CanonicalName::new("ap")
            .param_if_set("rel", self.rel)
            .param_unless_default("norm", self.normalization, ApNormalization::Relevant)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        average_precision(q, self.k, q.level(self.rel), self.normalization)
    }
    /// average precision: `sum of P@i at relevant ranks / N`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let relevant = q.num_relevant(level);
        let mut hits = 0usize;
        let mut sum = 0.0;
        let mut terms = Vec::new();
        let contributions = per_rank(q, self.k, |i, j| {
            if j.is_relevant(level) {
                hits += 1;
                let p = hits as f64 / (i + 1) as f64;
                sum += p;
                terms.push(format!("{hits}/{}", i + 1));
                Some(p)
            } else {
                Some(0.0)
            }
        });
        let depth = self.k.map_or(q.retrieved(), Cutoff::get);
        let (divisor, by) = match self.normalization {
            ApNormalization::Relevant => (relevant, format!("|R| = {relevant}")),
            ApNormalization::Truncated => {
                let d = relevant.min(depth);
                let k = self.k.map_or_else(|| "n".to_owned(), |k| k.to_string());
                (d, format!("min(|R|, {k}) = {d}"))
            }
            ApNormalization::Hits => (hits, format!("hits{} = {hits}", at(self.k))),
            ApNormalization::K => (depth, format!("k = {depth}")),
        };
        let formula = if divisor == 0 {
            format!("{} = 0 (divided by {by})", self.name())
        } else {
            format!(
                "{} = ({}) / {} = {} / {divisor}",
                self.name(),
                sum_text(&terms),
                by.split(" = ").next().unwrap_or(&by),
                number(sum)
            )
        };
        Explanation::new(self, q)
            .level(level)
            .column("P@i", precision_at_each_rank(q, self.k, level))
            .column("rel(i) x P@i", contributions)
            .quantity("|R|", relevant as f64)
            .quantity(format!("hits{}", at(self.k)), hits as f64)
            .quantity("sum of rel(i) x P@i", sum)
            .formula(formula)
            .normalizer(format!("divided by {by}"))
    }
    /// The expected sum of precisions over the (order-free) divisor; with
    /// `normalization = hits` and a cutoff the divisor depends on the
    /// order, and no exact method is offered.
    fn score_tie_average(&self, q: &JudgedRanking<'_>) -> Option<f64> {
        let level = q.level(self.rel);
        let relevant = q.num_relevant(level);
        let divisor = match self.normalization {
            ApNormalization::Relevant => relevant,
            ApNormalization::Truncated => relevant.min(self.k.map_or(q.retrieved(), Cutoff::get)),
            // Without a cutoff, every relevant document retrieved counts,
            // whatever the order.
            ApNormalization::Hits if self.k.is_none() => crate::common::hits(q.ranked(), level),
            ApNormalization::Hits => return None,
            ApNormalization::K => self.k.map_or(q.retrieved(), Cutoff::get),
        };
        let sum = crate::tie_average::expected_precision_sum(q, self.k, level);
        Some(if divisor == 0 {
            0.0
        } else {
            sum / divisor as f64
        })
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        if self.rel.is_some() || self.normalization != ApNormalization::Relevant {
            return None;
        }
        Some(match self.k {
            Some(k) => TrecEvalMeasure::mean(format!("map_cut_{k}")),
            None => TrecEvalMeasure::mean("map"),
        })
    }
}

const PARAMS: &[ParamDoc] = &[
    PARAM_K,
    PARAM_REL,
    ParamDoc {
        name: "normalization",
        alias: Some("norm"),
        default: "relevant",
        doc: "divide by relevant: |R| (trec_eval); truncated: min(|R|, k); hits: hits@k; k: k (RecTools divide_by_k)",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use ApNormalization::*;
    use rankeval_core::testing::binary;

    fn ap(pattern: &str, relevant: usize, k: Option<usize>, n: ApNormalization) -> f64 {
        let k = k.map(|k| Cutoff::new(k).unwrap());
        average_precision(&binary(pattern, relevant).view(), k, 1.0, n)
    }

    #[test]
    fn normalizations_differ_only_in_the_divisor() {
        // Relevant at ranks 2 and 4 of 5, |R| = 3: the sum is 1/2 + 2/4.
        let sum = 1.0 / 2.0 + 2.0 / 4.0;
        assert_eq!(ap("01010", 3, Some(5), Relevant), sum / 3.0);
        assert_eq!(ap("01010", 3, Some(5), Truncated), sum / 3.0);
        assert_eq!(ap("01010", 3, Some(2), Truncated), (1.0 / 2.0) / 2.0);
        assert_eq!(ap("01010", 3, Some(5), Hits), sum / 2.0);
    }

    #[test]
    fn truncated_without_cutoff_divides_by_min_of_relevant_and_length() {
        assert_eq!(ap("11", 5, None, Truncated), (1.0 + 1.0) / 2.0);
        assert_eq!(ap("11", 5, None, Relevant), (1.0 + 1.0) / 5.0);
    }

    #[test]
    fn zero_divisor_gives_zero() {
        assert_eq!(ap("000", 0, None, Relevant), 0.0);
        assert_eq!(ap("000", 2, None, Hits), 0.0);
        assert_eq!(ap("", 2, Some(3), Truncated), 0.0);
    }

    #[test]
    fn canonical_names() {
        assert_eq!(AveragePrecision::default().name(), "ap");
        assert_eq!(
            AveragePrecision::at(10, Truncated).unwrap().name(),
            "ap(norm=truncated)@10"
        );
    }
}
