//! scikit-learn's ranking scores over a query's run scores, where the
//! documents of one score count together (scikit-learn 1.9,
//! `sklearn/metrics/_ranking.py`):
//!
//! - `label_ranking_average_precision` (scikit-learn's
//!   `label_ranking_average_precision_score`, LRAP): the query's ranked
//!   documents are the labels, the relevant ones the true labels; for each
//!   relevant document `d`, with `rank(d)` the number of documents scored
//!   at least as high as `d` (ties count as ranked above) and `L(d)` the
//!   relevant ones among them, LRAP = mean of `L(d) / rank(d)`. A query
//!   whose documents are all relevant, or none, scores 1.
//! - `average_precision_score` (scikit-learn's `average_precision_score`):
//!   `sum_n (R_n - R_(n-1)) P_n` over the distinct scores, highest first,
//!   where `P_n` and `R_n` are the precision and recall of the documents
//!   scored at least the `n`-th score: all documents of one score enter at
//!   one threshold. Recall is over the relevant documents retrieved (the
//!   labels scikit-learn is given). A query with no relevant document
//!   scores 0 (scikit-learn warns and sets recall to 1 everywhere).
//!
//! Both read the groups of tied scores ([`JudgedRanking::tie_groups`]),
//! whatever the experiment's `ties`; a list given without scores (a ranked
//! list) has a group per rank.

use rankeval_core::explain::Explanation;
use rankeval_core::registry::PARAM_REL;
use rankeval_core::{CanonicalName, Grade, JudgedRanking, Metric, RelevanceLevel};
use serde::{Deserialize, Serialize};

use crate::common::is_none;

/// The sum over groups of tied scores of `relevant in the group x
/// relevant through the group / documents through the group`, and the
/// relevant documents and documents in all.
fn thresholds(q: &JudgedRanking<'_>, level: Grade) -> (f64, usize, usize) {
    let ranked = q.ranked();
    let mut sum = 0.0;
    let mut through = 0;
    for group in q.tie_groups() {
        let end = group.end;
        let relevant = ranked[group]
            .iter()
            .filter(|j| j.is_relevant(level))
            .count();
        through += relevant;
        if relevant > 0 {
            sum += relevant as f64 * (through as f64 / end as f64);
        }
    }
    (sum, through, ranked.len())
}

/// scikit-learn's LRAP of one query at relevance `level`.
///
/// # Example
/// Relevant, not, relevant, the first two tied: ranks 2, 3 (ties count as
/// above), `L` = 1, 2.
/// ```
/// use rankeval_metrics::sklearn::lrap;
/// use rankeval_core::testing;
/// let q = testing::binary("101", 2);
/// let ends = [2, 3];
/// let view = q.view().with_tie_groups(&ends);
/// assert_eq!(lrap(&view, 1.0), (1.0 / 2.0 + 2.0 / 3.0) / 2.0);
/// ```
pub fn lrap(q: &JudgedRanking<'_>, level: Grade) -> f64 {
    let (sum, relevant, labels) = thresholds(q, level);
    if relevant == 0 || relevant == labels {
        1.0
    } else {
        sum / relevant as f64
    }
}

/// scikit-learn's `average_precision_score` of one query at `level`.
pub fn average_precision_score(q: &JudgedRanking<'_>, level: Grade) -> f64 {
    let (sum, relevant, _) = thresholds(q, level);
    if relevant == 0 {
        0.0
    } else {
        sum / relevant as f64
    }
}

/// Columns `explain` shows: each rank's group, and the precision at its
/// group's end for relevant documents.
fn explain_thresholds(
    metric: &dyn Metric,
    q: &JudgedRanking<'_>,
    level: Grade,
    special: Option<&str>,
) -> Explanation {
    let ranked = q.ranked();
    let mut group_of = vec![None; ranked.len()];
    let mut precision = vec![None; ranked.len()];
    let mut through = 0;
    for (number, group) in q.tie_groups().enumerate() {
        let end = group.end;
        through += ranked[group.clone()]
            .iter()
            .filter(|j| j.is_relevant(level))
            .count();
        for i in group {
            group_of[i] = Some((number + 1) as f64);
            if ranked[i].is_relevant(level) {
                precision[i] = Some(through as f64 / end as f64);
            }
        }
    }
    let explanation = Explanation::new(metric, q)
        .level(level)
        .column("score group", group_of)
        .column("L / rank (relevant: through its group)", precision);
    match special {
        Some(why) => explanation.formula(format!("{} = {why}", metric.name())),
        None => explanation.formula(format!(
            "{} = mean over relevant documents of L / rank",
            metric.name()
        )),
    }
}

/// The `label_ranking_average_precision` metric (alias `lrap`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelRankingAveragePrecision {
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "label_ranking_average_precision",
    aliases = &["lrap"],
    summary = "scikit-learn's LRAP over the run's scores: ties count as ranked above",
    params = &[PARAM_REL],
    example = LabelRankingAveragePrecision { rel: RelevanceLevel::new(2) },
)]
impl Metric for LabelRankingAveragePrecision {
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
    fn name(&self) -> String {
        CanonicalName::new("label_ranking_average_precision")
            .param_if_set("rel", self.rel)
            .finish()
    }
    fn reads_tie_groups(&self) -> bool {
        true
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        lrap(q, q.level(self.rel))
    }
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let (_, relevant, labels) = thresholds(q, level);
        let special = (relevant == 0 || relevant == labels)
            .then_some("scikit-learn's value when every document is relevant, or none");
        explain_thresholds(self, q, level, special)
    }
}

/// The `average_precision_score` metric (scikit-learn's AP over scores).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AveragePrecisionScore {
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "average_precision_score",
    summary = "scikit-learn's average_precision_score: one threshold per distinct score",
    params = &[PARAM_REL],
    example = AveragePrecisionScore { rel: RelevanceLevel::new(2) },
)]
impl Metric for AveragePrecisionScore {
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
    fn name(&self) -> String {
        CanonicalName::new("average_precision_score")
            .param_if_set("rel", self.rel)
            .finish()
    }
    fn reads_tie_groups(&self) -> bool {
        true
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        average_precision_score(q, q.level(self.rel))
    }
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let (_, relevant, _) = thresholds(q, level);
        let special =
            (relevant == 0).then_some("scikit-learn's value when no document is relevant");
        explain_thresholds(self, q, level, special)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::binary;

    fn with_groups(pattern: &str, ends: &[u32], f: fn(&JudgedRanking<'_>, Grade) -> f64) -> f64 {
        let q = binary(pattern, pattern.chars().filter(|&c| c == '1').count());
        f(&q.view().with_tie_groups(ends), 1.0)
    }

    #[test]
    fn ties_count_as_ranked_above() {
        // scikit-learn: lrap([[1, 0, 1]], [[0.5, 0.5, 0.2]]) = 0.58333...,
        // average_precision_score([1, 0, 1], [0.5, 0.5, 0.2]) the same.
        let expected = (1.0 / 2.0 + 2.0 / 3.0) / 2.0;
        assert_eq!(with_groups("101", &[2, 3], lrap), expected);
        assert_eq!(
            with_groups("101", &[2, 3], average_precision_score),
            expected
        );
        // Without ties: (1/1 + 2/3) / 2.
        assert_eq!(with_groups("101", &[], lrap), (1.0 + 2.0 / 3.0) / 2.0);
        // One group of all three: 2/3 for each relevant document.
        assert_eq!(with_groups("101", &[3], lrap), 2.0 / 3.0);
    }

    #[test]
    fn all_or_no_relevant_is_scikit_learns_rule() {
        assert_eq!(with_groups("000", &[], lrap), 1.0);
        assert_eq!(with_groups("11", &[], lrap), 1.0);
        assert_eq!(with_groups("000", &[], average_precision_score), 0.0);
        assert_eq!(with_groups("11", &[2], average_precision_score), 1.0);
        assert_eq!(with_groups("", &[], lrap), 1.0);
        assert_eq!(with_groups("", &[], average_precision_score), 0.0);
    }

    #[test]
    fn names() {
        assert_eq!(
            LabelRankingAveragePrecision::default().name(),
            "label_ranking_average_precision"
        );
        assert_eq!(
            AveragePrecisionScore {
                rel: RelevanceLevel::new(2)
            }
            .name(),
            "average_precision_score(rel=2)"
        );
    }
}
