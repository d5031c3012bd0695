//! trec_eval 10's experimental nDCG averages `ndcg_rel` and `Rndcg`, with
//! its default gains (a grade `g >= 0` is worth `g`; the discount of rank
//! `i + 1` is `log2(i + 2)`).
//!
//! `ndcg_rel`: nDCG taken at each relevant document (gain > 0) retrieved,
//! and, for each relevant document not retrieved, at the end of the list
//! (there, over the ideal DCG of all relevant documents); averaged over the
//! relevant documents.
//!
//! `Rndcg`: nDCG taken at each "R level", the ranks where the ideal gain
//! changes (after the documents of each grade, highest first) and at the end
//! of the list if it ends before the ideal gains do; averaged over those
//! points. 0 when `|R| = 0` at the relevance level.

use rankeval_core::registry::PARAM_REL;
use rankeval_core::{CanonicalName, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure};
use serde::{Deserialize, Serialize};

use crate::common::is_none;
use crate::trec_gains::{discount, gain, ideal, top};

/// trec_eval's `ndcg_rel` of one query.
///
/// # Example
/// Grades 0 then 1, one relevant: nDCG at rank 2 is `(1/log2 3) / (1/log2 2)`.
/// ```
/// use rankeval_metrics::ndcg_averaged::ndcg_rel;
/// use rankeval_core::testing;
/// let q = testing::judged("0 1", &[]);
/// assert_eq!(ndcg_rel(&q.view()), (1.0 / 3f64.log2()) / (1.0 / 2f64.log2()));
/// ```
pub fn ndcg_rel(q: &JudgedRanking<'_>) -> f64 {
    let ranked = q.ranked();
    let (mut results_dcg, mut ideal_dcg, mut sum) = (0.0, 0.0, 0.0);
    let (mut num_rel, mut num_rel_ret) = (0_usize, 0_usize);
    let mut ideal_gain = top(q);
    let mut i = 0;
    while i < ranked.len() && ideal_gain > 0.0 {
        let results_gain = gain(ranked[i]);
        if results_gain != 0.0 {
            results_dcg += results_gain / discount(i);
        }
        ideal_gain = ideal(q, i);
        if ideal_gain > 0.0 {
            num_rel += 1;
            ideal_dcg += ideal_gain / discount(i);
        }
        if results_gain > 0.0 {
            sum += results_dcg / ideal_dcg;
            num_rel_ret += 1;
        }
        i += 1;
    }
    while i < ranked.len() {
        let results_gain = gain(ranked[i]);
        if results_gain != 0.0 {
            results_dcg += results_gain / discount(i);
        }
        if results_gain > 0.0 {
            sum += results_dcg / ideal_dcg;
            num_rel_ret += 1;
        }
        i += 1;
    }
    while ideal_gain > 0.0 {
        ideal_gain = ideal(q, i);
        if ideal_gain > 0.0 {
            num_rel += 1;
            ideal_dcg += ideal_gain / discount(i);
        }
        i += 1;
    }
    sum += (num_rel - num_rel_ret) as f64 * results_dcg / ideal_dcg;
    if sum > 0.0 { sum / num_rel as f64 } else { 0.0 }
}

/// trec_eval's `Rndcg` of one query at relevance level `level`.
///
/// # Example
/// Ideal grades 2 1; retrieved 1 then 2. nDCG at rank 1 (where the ideal
/// gain falls from 2 to 1) is 1/2; at rank 2 (where it falls to 0) it is
/// `(1 + 2/log2 3) / (2 + 1/log2 3)`.
/// ```
/// use rankeval_metrics::ndcg_averaged::rndcg;
/// use rankeval_core::testing;
/// let q = testing::judged("1 2", &[]);
/// let l3 = 3f64.log2();
/// assert_eq!(rndcg(&q.view(), 1.0), (1.0 / 2.0 + (1.0 + 2.0 / l3) / (2.0 + 1.0 / l3)) / 2.0);
/// ```
pub fn rndcg(q: &JudgedRanking<'_>, level: Grade) -> f64 {
    if q.num_relevant(level) == 0 {
        return 0.0;
    }
    let ranked = q.ranked();
    let (mut results_dcg, mut ideal_dcg, mut sum) = (0.0, 0.0, 0.0);
    let mut points = 0_usize;
    let mut ideal_gain = top(q);
    let mut old_ideal_gain = ideal_gain;
    let mut i = 0;
    while i < ranked.len() && ideal_gain > 0.0 {
        let results_gain = gain(ranked[i]);
        ideal_gain = ideal(q, i);
        if old_ideal_gain != ideal_gain {
            if ideal_dcg > 0.0 {
                sum += results_dcg / ideal_dcg;
                points += 1;
            }
            old_ideal_gain = ideal_gain;
        }
        if results_gain != 0.0 {
            results_dcg += results_gain / discount(i);
        }
        if ideal_gain > 0.0 {
            ideal_dcg += ideal_gain / discount(i);
        }
        i += 1;
    }
    if i < ranked.len() {
        while i < ranked.len() {
            let results_gain = gain(ranked[i]);
            if results_gain != 0.0 {
                results_dcg += results_gain / discount(i);
            }
            i += 1;
        }
        if ideal_dcg > 0.0 {
            sum += results_dcg / ideal_dcg;
            points += 1;
        }
    }
    while ideal_gain > 0.0 {
        ideal_gain = ideal(q, i);
        if old_ideal_gain != ideal_gain {
            if ideal_dcg > 0.0 {
                sum += results_dcg / ideal_dcg;
                points += 1;
            }
            old_ideal_gain = ideal_gain;
        }
        if ideal_gain > 0.0 {
            ideal_dcg += ideal_gain / discount(i);
        }
        i += 1;
    }
    if points > 0 { sum / points as f64 } else { 0.0 }
}

/// The `ndcg_rel` metric (trec_eval `ndcg_rel`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NdcgRel {}

#[rankeval_core::metric(
    name = "ndcg_rel",
    summary = "nDCG averaged over the relevant documents (trec_eval ndcg_rel)",
    example = NdcgRel {},
)]
impl Metric for NdcgRel {
    // `rankeval explain`: crate::explain holds every metric's explanation.
    fn explain(&self, q: &JudgedRanking<'_>) -> rankeval_core::Explanation {
        crate::explain::ndcg_rel(self, q)
    }
    fn name(&self) -> String {
        "ndcg_rel".to_owned()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        ndcg_rel(q)
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        Some(TrecEvalMeasure::mean("ndcg_rel"))
    }
    fn uses_default_level(&self) -> bool {
        false
    }
}

/// The `rndcg` metric (trec_eval `Rndcg`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rndcg {
    /// Relevance level (only for "no relevant document: 0"); `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "rndcg",
    aliases = &["r_ndcg"],
    summary = "nDCG averaged at the R levels of each grade (trec_eval Rndcg)",
    params = &[PARAM_REL],
    example = Rndcg { rel: RelevanceLevel::new(2) },
)]
impl Metric for Rndcg {
    // `rankeval explain`: crate::explain holds every metric's explanation.
    fn explain(&self, q: &JudgedRanking<'_>) -> rankeval_core::Explanation {
        crate::explain::rndcg(self, q)
    }
    fn name(&self) -> String {
        CanonicalName::new("rndcg")
            .param_if_set("rel", self.rel)
            .finish()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        rndcg(q, q.level(self.rel))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        self.rel.is_none().then(|| TrecEvalMeasure::mean("Rndcg"))
    }
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::judged;

    #[test]
    fn ndcg_rel_counts_missed_relevant_at_the_end() {
        // Ideal 1 1; retrieved 1 then 0: nDCG at rank 1 is 1; the missed one
        // counts DCG at the end (1) over the full ideal (1 + 1/log2 3).
        let q = judged("1 0", &[1]);
        let full = 1.0 + 1.0 / 3f64.log2();
        assert_eq!(ndcg_rel(&q.view()), (1.0 + 1.0 / full) / 2.0);
        assert_eq!(ndcg_rel(&judged("0 .", &[]).view()), 0.0);
    }

    #[test]
    fn rndcg_needs_a_relevant_document() {
        assert_eq!(rndcg(&judged("0 0", &[]).view(), 1.0), 0.0);
        // A perfect ranking is 1 at every point.
        assert_eq!(rndcg(&judged("2 1 0", &[]).view(), 1.0), 1.0);
    }
}
