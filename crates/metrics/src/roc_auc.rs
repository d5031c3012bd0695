//! ROC-AUC of one ranked list: the share of (positive, negative) pairs of
//! the top k that the list orders correctly.
//!
//! `AUC@k = |{(i, j) : i < j <= k, d_i relevant, d_j a negative}| / (P N)`,
//! where `P` is the number of relevant documents in the top k and `N` the
//! number of negatives there (`negatives`: `retrieved`, every other
//! document of the top k; `judged`, only those judged non-relevant). 0 when
//! `P N = 0`. This is scikit-learn's `roc_auc_score` on the list's labels
//! with the scores the ranks give, and cornac's `AUC` when the list is the
//! set of items scored (with `gt_neg` for `judged`). Relevant documents
//! the list does not retrieve play no part. The list's order is final, so
//! tied scores were already broken (by document id); scikit-learn and
//! cornac instead give a tied pair half credit and none, respectively.

use rankeval_core::explain::Explanation;
use rankeval_core::registry::{PARAM_K, PARAM_REL};
use rankeval_core::{CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel};
use serde::{Deserialize, Serialize};

use crate::common::is_none;
use crate::explain::per_rank;
use crate::negatives::{Negatives, PARAM_NEGATIVES, negatives_text};

/// ROC-AUC of the top k of one query.
///
/// # Example
/// cornac's AUC test: scores 0.1, 0.4, 0.35, 0.8 for items 0 to 3, items
/// 2 and 3 positive. Ranked: 3 (+), 1 (-), 2 (+), 0 (-): 3 of 4 pairs in
/// order.
/// ```
/// use rankeval_metrics::roc_auc::roc_auc;
/// use rankeval_metrics::negatives::Negatives;
/// use rankeval_core::testing;
/// let q = testing::binary("1 0 1 0", 2);
/// assert_eq!(roc_auc(&q.view(), None, 1.0, Negatives::Retrieved), 0.75);
/// ```
pub fn roc_auc(
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    level: Grade,
    negatives: Negatives,
) -> f64 {
    let mut positives = 0u64;
    let mut negatives_seen = 0u64;
    let mut ordered = 0u64;
    for &judgement in q.top(k) {
        if judgement.is_relevant(level) {
            positives += 1;
        } else if negatives.is_negative(judgement, level) {
            negatives_seen += 1;
            // Every positive above this negative is a pair in order.
            ordered += positives;
        }
    }
    let pairs = positives * negatives_seen;
    if pairs == 0 {
        0.0
    } else {
        ordered as f64 / pairs as f64
    }
}

/// The `roc_auc` metric (alias `auc`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RocAuc {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
    /// Which documents are negatives.
    #[serde(default)]
    pub negatives: Negatives,
}

#[rankeval_core::metric(
    name = "roc_auc",
    aliases = &["auc"],
    summary = "share of (relevant, negative) pairs of the top k ranked in order",
    params = &[PARAM_K, PARAM_REL, PARAM_NEGATIVES],
    example = RocAuc {
        k: Cutoff::new(100),
        rel: RelevanceLevel::new(2),
        negatives: Negatives::Judged,
    },
)]
impl Metric for RocAuc {
    fn name(&self) -> String {
        CanonicalName::new("auc")
            .param_if_set("rel", self.rel)
            .param_unless_default("negatives", self.negatives, Negatives::Retrieved)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        roc_auc(q, self.k, q.level(self.rel), self.negatives)
    }
    /// ROC AUC: `pairs in order / (positives x negatives)` over the top k.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let mut positives = 0u64;
        let mut negatives = 0u64;
        let mut ordered = 0u64;
        let mut terms = Vec::new();
        let column = per_rank(q, self.k, |_, j| {
            if j.is_relevant(level) {
                positives += 1;
                None
            } else if self.negatives.is_negative(j, level) {
                negatives += 1;
                ordered += positives;
                terms.push(positives.to_string());
                Some(positives as f64)
            } else {
                None
            }
        });
        let pairs = positives * negatives;
        let explanation = Explanation::new(self, q)
            .level(level)
            .column(
                format!(
                    "relevant above this negative ({})",
                    negatives_text(self.negatives, level)
                ),
                column,
            )
            .quantity("positives", positives as f64)
            .quantity("negatives", negatives as f64);
        if pairs == 0 {
            return explanation.formula(format!(
                "{} = 0 ({positives} positives x {negatives} negatives: no pair)",
                self.name()
            ));
        }
        explanation.formula(format!(
            "{} = pairs in order / (positives x negatives) = ({}) / ({positives} x {negatives}) = {ordered} / {pairs}",
            self.name(),
            terms.join(" + ")
        ))
    }
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::{binary, judged};

    fn auc(pattern: &str, k: Option<usize>, negatives: Negatives) -> f64 {
        let q = judged(pattern, &[]);
        roc_auc(&q.view(), k.and_then(Cutoff::new), 1.0, negatives)
    }

    #[test]
    fn cornac_auc_published_values() {
        // cornac tests/cornac/metrics/test_ranking.py, test_auc. Scores
        // [0.1, 0.4, 0.35, 0.8] for items 0..3.
        // gt_pos [0, 0, 1, 1]: ranked 3+ 1- 2+ 0-, AUC 0.75.
        assert_eq!(auc("1 0 1 0", None, Negatives::Retrieved), 0.75);
        // gt_pos [0, 1, 0, 1]: ranked 3+ 1+ 2- 0-, AUC 1.0.
        assert_eq!(auc("1 1 0 0", None, Negatives::Retrieved), 1.0);
        // gt_pos [0, 0, 1, 0], gt_neg [1, 1, 0, 0]: item 3 is neither, so
        // unjudged here; ranked 3. 1- 2+ 0-, AUC 0.5.
        assert_eq!(auc(". 0 1 0", None, Negatives::Judged), 0.5);
    }

    #[test]
    fn pairs_in_order_over_all_pairs() {
        // 1 0 0 1 0: P = 2, N = 3; the first 1 beats 3, the second 1.
        assert_eq!(auc("1 0 0 1 0", None, Negatives::Retrieved), 4.0 / 6.0);
        // The worst order scores 0.
        assert_eq!(auc("0 0 1 1", None, Negatives::Retrieved), 0.0);
        // Cut at 4: 1 0 0 1, P = 2, N = 2, in order 1 + 1 = 2 of 4.
        assert_eq!(auc("1 0 0 1 0", Some(4), Negatives::Retrieved), 2.0 / 4.0);
        // Unjudged documents are negatives unless negatives = judged.
        assert_eq!(auc("1 . 0 1", None, Negatives::Retrieved), 2.0 / 4.0);
        assert_eq!(auc("1 . 0 1", None, Negatives::Judged), 1.0 / 2.0);
        assert_eq!(auc(". 1 0", None, Negatives::Judged), 1.0);
    }

    #[test]
    fn equals_the_mann_whitney_count_by_brute_force() {
        // Every 0/1 pattern of length 7: count the pairs one by one.
        for bits in 0u32..128 {
            let pattern: String = (0..7)
                .map(|i| if bits >> i & 1 == 1 { '1' } else { '0' })
                .collect();
            let labels: Vec<bool> = pattern.chars().map(|c| c == '1').collect();
            let (mut ordered, mut pairs) = (0, 0);
            for i in 0..7 {
                for j in 0..7 {
                    if labels[i] && !labels[j] {
                        pairs += 1;
                        if i < j {
                            ordered += 1;
                        }
                    }
                }
            }
            let expected = if pairs == 0 {
                0.0
            } else {
                f64::from(ordered) / f64::from(pairs)
            };
            let q = binary(&pattern, labels.iter().filter(|&&l| l).count());
            assert_eq!(
                roc_auc(&q.view(), None, 1.0, Negatives::Retrieved),
                expected,
                "{pattern}"
            );
        }
    }

    #[test]
    fn no_pair_gives_zero_and_level_counts() {
        assert_eq!(auc("111", None, Negatives::Retrieved), 0.0);
        assert_eq!(auc("000", None, Negatives::Retrieved), 0.0);
        assert_eq!(auc("", None, Negatives::Retrieved), 0.0);
        // At level 2 the 1 is a negative: 2 1 2 0 -> pairs (2,1) (2,0) (2,0)
        // in order, (2 at rank 3, 1 at rank 2) not: 3 of 4.
        let q = judged("2 1 2 0", &[]);
        assert_eq!(
            roc_auc(&q.view(), None, 2.0, Negatives::Retrieved),
            3.0 / 4.0
        );
    }

    #[test]
    fn canonical_name() {
        assert_eq!(RocAuc::default().name(), "auc");
        let m = RocAuc {
            k: Cutoff::new(100),
            rel: None,
            negatives: Negatives::Judged,
        };
        assert_eq!(m.name(), "auc(negatives=judged)@100");
    }
}
