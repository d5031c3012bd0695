//! bpref (binary preference), as trec_eval computes it.
//!
//! For each relevant retrieved document `d`, count the judged non-relevant
//! documents ranked above it, `n_d`; then
//! `bpref = sum_d (1 - min(n_d, |R|) / min(|R|, |N|)) / |R|`, where a term is
//! 1 when `n_d = 0`, and `N` is the set of judged non-relevant documents
//! (grades 0 to `rel - 1`). Unjudged documents are skipped, and negative
//! grades are neither relevant nor judged non-relevant. 0 when `|R| = 0`
//! (trec_eval `bpref`; Buckley and Voorhees, SIGIR 2004).

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::{PARAM_K, PARAM_REL};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure,
};
use serde::{Deserialize, Serialize};

use crate::common::is_none;
use crate::explain::{per_rank, sum_text};

/// bpref of one query, over the top k.
///
/// # Example
/// Ranked: non-relevant, relevant, unjudged, non-relevant, relevant; the
/// qrels also hold a third relevant and two more non-relevant documents,
/// so `|R| = 3`, `|N| = 4`.
/// ```
/// use rankeval_metrics::bpref::bpref;
/// use rankeval_core::testing;
/// let q = testing::judged("0 1 . 0 1", &[1, 0, 0]);
/// let expected = ((1.0 - 1.0 / 3.0) + (1.0 - 2.0 / 3.0)) / 3.0;
/// assert_eq!(bpref(&q.view(), None, 1.0), expected);
/// ```
pub fn bpref(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade) -> f64 {
    let relevant = q.num_relevant(level);
    if relevant == 0 {
        return 0.0;
    }
    let bound = relevant.min(q.num_judged_nonrelevant(level)) as f64;
    let mut nonrelevant_above = 0usize;
    let mut sum = 0.0;
    for judgement in q.top(k) {
        if judgement.is_relevant(level) {
            sum += if nonrelevant_above == 0 {
                1.0
            } else {
                // `nonrelevant_above > 0` implies `bound >= 1`.
                1.0 - nonrelevant_above.min(relevant) as f64 / bound
            };
        } else if judgement.is_judged_nonrelevant(level) {
            nonrelevant_above += 1;
        }
    }
    sum / relevant as f64
}

/// The `bpref` metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bpref {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "bpref",
    summary = "share of judged non-relevant documents ranked below each relevant one",
    params = &[PARAM_K, PARAM_REL],
    example = Bpref { k: Cutoff::new(100), rel: RelevanceLevel::new(2) },
)]
impl Metric for Bpref {
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }

    fn name(&self) -> String {
        CanonicalName::new("bpref")
            .param_if_set("rel", self.rel)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        bpref(q, self.k, q.level(self.rel))
    }
    /// bpref: `(1/|R|) x sum over relevant ranks of (1 - min(n_above, |R|) / min(|R|, |N|))`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let relevant = q.num_relevant(level);
        let judged_nonrelevant = q.num_judged_nonrelevant(level);
        let bound = relevant.min(judged_nonrelevant);
        let mut above = 0usize;
        let mut terms = Vec::new();
        let mut sum = 0.0;
        let above_column = per_rank(q, self.k, |_, j| {
            let shown = above as f64;
            if j.is_judged_nonrelevant(level) {
                above += 1;
            }
            Some(shown)
        });
        above = 0;
        let term_column = per_rank(q, self.k, |_, j| {
            if j.is_relevant(level) {
                let t = if above == 0 {
                    1.0
                } else {
                    1.0 - above.min(relevant) as f64 / bound as f64
                };
                sum += t;
                terms.push(number(t));
                Some(t)
            } else {
                if j.is_judged_nonrelevant(level) {
                    above += 1;
                }
                None
            }
        });
        let explanation = Explanation::new(self, q)
            .level(level)
            .column("judged non-relevant above", above_column)
            .column("1 - min(above, |R|) / min(|R|, |N|)", term_column)
            .quantity("|R|", relevant as f64)
            .quantity("|N|", judged_nonrelevant as f64);
        if relevant == 0 {
            return explanation.formula(format!("{} = 0 (|R| = 0)", self.name()));
        }
        explanation
            .formula(format!(
                "{} = ({}) / |R| = {} / {relevant}",
                self.name(),
                sum_text(&terms),
                number(sum)
            ))
            .normalizer(format!(
                "divided by |R| = {relevant}, terms by min(|R|, |N|) = {bound}"
            ))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        (self.rel.is_none() && self.k.is_none()).then(|| TrecEvalMeasure::mean("bpref"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::{binary, judged};

    fn at(pattern: &str, unretrieved: &[i32], k: Option<usize>, level: Grade) -> f64 {
        bpref(
            &judged(pattern, unretrieved).view(),
            k.and_then(Cutoff::new),
            level,
        )
    }

    #[test]
    fn relevant_above_every_non_relevant_scores_one() {
        assert_eq!(at("1 1 0 0", &[], None, 1.0), (1.0 + 1.0) / 2.0);
        // A relevant document never retrieved adds 0 to the sum.
        assert_eq!(at("1 0 0", &[1], None, 1.0), 1.0 / 2.0);
    }

    #[test]
    fn counts_judged_non_relevant_above_each_relevant() {
        // |R| = 2, |N| = 3: the bound is min(2, 3) = 2.
        assert_eq!(
            at("0 1 0 0 1", &[], None, 1.0),
            ((1.0 - 1.0 / 2.0) + (1.0 - 2.0 / 2.0)) / 2.0
        );
        // |R| = 2, |N| = 1: the bound is 1.
        assert_eq!(
            at("0 1 1", &[], None, 1.0),
            ((1.0 - 1.0) + (1.0 - 1.0)) / 2.0
        );
    }

    #[test]
    fn non_relevant_above_is_capped_at_r() {
        // |R| = 1, |N| = 3: min(3, 1) / min(1, 3) = 1.
        assert_eq!(at("0 0 0 1", &[], None, 1.0), (1.0 - 1.0 / 1.0) / 1.0);
        // |R| = 2, |N| = 4, 3 non-relevant above the second: min(3, 2) / 2.
        assert_eq!(
            at("1 0 0 0 1", &[0], None, 1.0),
            (1.0 + (1.0 - 2.0 / 2.0)) / 2.0
        );
    }

    #[test]
    fn unjudged_and_negative_grades_are_skipped() {
        // Only the 0 at rank 3 is judged non-relevant; |N| = 1 + 1.
        assert_eq!(
            at(". - 0 1 1", &[0], None, 1.0),
            ((1.0 - 1.0 / 2.0) + (1.0 - 1.0 / 2.0)) / 2.0
        );
        // Negative grades do not count in |N| either: |R| = 1, |N| = 1.
        assert_eq!(at("0 1", &[-1, -1], None, 1.0), (1.0 - 1.0 / 1.0) / 1.0);
    }

    #[test]
    fn level_moves_grades_below_it_into_n() {
        // At level 2 the 1s are judged non-relevant: |R| = 1, |N| = 2.
        assert_eq!(at("1 2 1", &[], None, 2.0), (1.0 - 1.0 / 1.0) / 1.0);
        assert_eq!(at("1 2 1", &[], None, 1.0), (1.0 + 1.0 + 1.0) / 3.0);
    }

    #[test]
    fn cutoff_and_edge_cases() {
        // The relevant document at rank 3 is past the cutoff: it adds 0.
        assert_eq!(at("1 0 1", &[0, 0], Some(2), 1.0), (1.0 + 0.0) / 2.0);
        assert_eq!(
            at("1 0 1", &[0, 0], None, 1.0),
            (1.0 + (1.0 - 1.0 / 2.0)) / 2.0
        );
        assert_eq!(bpref(&binary("", 3).view(), None, 1.0), 0.0 / 3.0);
        assert_eq!(bpref(&binary("000", 0).view(), None, 1.0), 0.0);
        assert_eq!(at("1 1", &[], Some(5), 1.0), (1.0 + 1.0) / 2.0);
    }

    #[test]
    fn canonical_name_and_trec_eval() {
        assert_eq!(Bpref::default().name(), "bpref");
        assert_eq!(Bpref::default().trec_eval().unwrap().name, "bpref");
        let m = Bpref {
            k: Cutoff::new(10),
            rel: None,
        };
        assert_eq!(m.name(), "bpref@10");
        assert!(m.trec_eval().is_none());
    }
}
