//! Fall-out@k: the share of the negatives that reach the top k.
//!
//! `Fallout@k = |{i <= k : d_i is a negative}| / |N|`, 0 when `|N| = 0`,
//! where the negatives `N` are chosen by `negatives`:
//!
//! - `retrieved` (default): every document of the ranked list that is not
//!   relevant at the level, judged or not; the list is the candidate set
//!   (torchmetrics `RetrievalFallOut(top_k=k)`, whose candidates are the
//!   documents it is given scores for). This reads the whole list.
//! - `judged`: the documents the qrels judge non-relevant (grades 0 to
//!   `rel - 1`), retrieved or not; unjudged documents in the top k do not
//!   count (the textbook `FP / (FP + TN)` over the judged documents).
//!
//! Lower is better. With no cutoff, `k = n`.

use rankeval_core::explain::Explanation;
use rankeval_core::registry::{PARAM_K, PARAM_REL};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Judgement, Metric, RelevanceLevel,
};
use serde::{Deserialize, Serialize};

use crate::common::{is_none, ratio};
use crate::explain::{at, count, marks};
use crate::negatives::{Negatives, PARAM_NEGATIVES, negatives_text};

/// Fall-out@k of one query. With `Negatives::Retrieved`, `q` must be judged
/// to the end of the list.
///
/// # Example
/// Relevant, unjudged, judged non-relevant, relevant, unjudged; one more
/// non-relevant document is judged but not retrieved.
/// ```
/// use rankeval_metrics::fallout::fallout;
/// use rankeval_metrics::negatives::Negatives;
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::judged("1 . 0 1 .", &[0]);
/// // Negatives in the list: ranks 2, 3, 5; two of them in the top 3.
/// assert_eq!(fallout(&q.view(), Cutoff::new(3), 1.0, Negatives::Retrieved), 2.0 / 3.0);
/// // Judged negatives: rank 3 and the unretrieved one; one in the top 3.
/// assert_eq!(fallout(&q.view(), Cutoff::new(3), 1.0, Negatives::Judged), 1.0 / 2.0);
/// ```
pub fn fallout(
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    level: Grade,
    negatives: Negatives,
) -> f64 {
    let in_top = q
        .top(k)
        .iter()
        .filter(|&&j| negatives.is_negative(j, level))
        .count();
    let total = match negatives {
        Negatives::Retrieved => q.ranked().iter().filter(|j| !j.is_relevant(level)).count(),
        Negatives::Judged => q.num_judged_nonrelevant(level),
    };
    ratio(in_top, total)
}

/// The `fallout` metric (alias `fall_out`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fallout {
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
    name = "fallout",
    aliases = &["fall_out"],
    summary = "share of the negatives ranked in the top k (lower is better)",
    params = &[PARAM_K, PARAM_REL, PARAM_NEGATIVES],
    example = Fallout {
        k: Cutoff::new(10),
        rel: RelevanceLevel::new(2),
        negatives: Negatives::Judged,
    },
)]
impl Metric for Fallout {
    fn name(&self) -> String {
        CanonicalName::new("fallout")
            .param_if_set("rel", self.rel)
            .param_unless_default("negatives", self.negatives, Negatives::Retrieved)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        match self.negatives {
            // The denominator counts the negatives of the whole list.
            Negatives::Retrieved => None,
            Negatives::Judged => self.k,
        }
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        fallout(q, self.k, q.level(self.rel), self.negatives)
    }
    /// fall-out: `negatives in the top k / |N|`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let negative = |j: Judgement| self.negatives.is_negative(j, level);
        let in_top = count(q, self.k, negative);
        let total = match self.negatives {
            Negatives::Retrieved => count(q, None, |j| !j.is_relevant(level)),
            Negatives::Judged => q.num_judged_nonrelevant(level),
        };
        let explanation = Explanation::new(self, q)
            .level(level)
            .column(
                format!("negative ({})", negatives_text(self.negatives, level)),
                marks(q, self.k, negative),
            )
            .quantity(format!("negatives{}", at(self.k)), in_top as f64)
            .quantity("|N|", total as f64);
        if total == 0 {
            return explanation.formula(format!("{} = 0 (|N| = 0: no negative)", self.name()));
        }
        explanation
            .formula(format!(
                "{} = negatives{} / |N| = {in_top} / {total}",
                self.name(),
                at(self.k)
            ))
            .normalizer(format!("divided by |N| = {total}"))
    }
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::{binary, judged};

    #[test]
    fn torchmetrics_fallout_published_values() {
        // torchmetrics' docstring example for `retrieval_fall_out`:
        // preds [0.2, 0.3, 0.5], target [True, False, True], top_k=2 gives
        // 1.0: ranked 0.5 (relevant), 0.3 (not), 0.2 (relevant); the one
        // negative is in the top 2.
        let q = binary("1 0 1", 2);
        assert_eq!(
            fallout(&q.view(), Cutoff::new(2), 1.0, Negatives::Retrieved),
            1.0
        );
        assert_eq!(
            fallout(&q.view(), Cutoff::new(1), 1.0, Negatives::Retrieved),
            0.0
        );
    }

    #[test]
    fn negatives_in_the_top_k_over_all_negatives() {
        let q = binary("0110 0100", 3);
        let at = |k, n| fallout(&q.view(), Cutoff::new(k), 1.0, n);
        assert_eq!(at(1, Negatives::Retrieved), 1.0 / 5.0);
        assert_eq!(at(4, Negatives::Retrieved), 2.0 / 5.0);
        assert_eq!(at(8, Negatives::Retrieved), 5.0 / 5.0);
        // All documents are judged here, so both choices agree.
        assert_eq!(at(4, Negatives::Judged), at(4, Negatives::Retrieved));
        assert_eq!(fallout(&q.view(), None, 1.0, Negatives::Retrieved), 1.0);
    }

    #[test]
    fn level_and_unjudged_documents() {
        // Grades 2 1 . 0 -, a 0 unretrieved, level 2: the 1 is a negative.
        let q = judged("2 1 . 0 -", &[0]);
        let at = |k, n| fallout(&q.view(), Cutoff::new(k), 2.0, n);
        // Retrieved: negatives are ranks 2 to 5 (4 of them).
        assert_eq!(at(3, Negatives::Retrieved), 2.0 / 4.0);
        // Judged: the 1, the retrieved 0 and the unretrieved 0 (the -1 is
        // not a judged non-relevant grade, as in bpref).
        assert_eq!(at(3, Negatives::Judged), 1.0 / 3.0);
        assert_eq!(at(5, Negatives::Judged), 2.0 / 3.0);
    }

    #[test]
    fn no_negatives_gives_zero() {
        let q = binary("11", 2);
        assert_eq!(
            fallout(&q.view(), Cutoff::new(2), 1.0, Negatives::Retrieved),
            0.0
        );
        assert_eq!(
            fallout(&q.view(), Cutoff::new(2), 1.0, Negatives::Judged),
            0.0
        );
        assert_eq!(
            fallout(&binary("", 0).view(), None, 1.0, Negatives::Retrieved),
            0.0
        );
    }

    #[test]
    fn depth_and_canonical_name() {
        let m = Fallout {
            k: Cutoff::new(10),
            ..Fallout::default()
        };
        assert_eq!(m.name(), "fallout@10");
        assert_eq!(m.depth(), None);
        let m = Fallout {
            negatives: Negatives::Judged,
            ..m
        };
        assert_eq!(m.name(), "fallout(negatives=judged)@10");
        assert_eq!(m.depth(), Cutoff::new(10));
    }
}
