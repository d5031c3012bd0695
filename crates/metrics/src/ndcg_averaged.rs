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

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::PARAM_REL;
use rankeval_core::{CanonicalName, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure};
use serde::{Deserialize, Serialize};

use crate::common::is_none;
use crate::explain::{per_rank, sum_text, trec_gains};
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
    fn name(&self) -> String {
        "ndcg_rel".to_owned()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        ndcg_rel(q)
    }
    /// ndcg_rel: `DCG@i / IDCG@i` at every rank with a positive gain, plus
    /// the last ratio once per positive document not retrieved, over the
    /// positive grades.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let n = q.ranked().len();
        let dcg = running_dcg(q);
        let num_rel = positive_ideal(q);
        let ideal_dcg = running_ideal(q, n.max(num_rel));
        let mut sum = 0.0;
        let mut found = 0usize;
        let mut terms = Vec::new();
        let ratios = per_rank(q, None, |i, j| {
            if gain(j) <= 0.0 {
                return None;
            }
            let r = dcg[i].unwrap_or(0.0) / ideal_dcg[i];
            sum += r;
            found += 1;
            terms.push(number(r));
            Some(r)
        });
        let full_dcg = dcg.last().copied().flatten().unwrap_or(0.0);
        let full_ideal = ideal_dcg.last().copied().unwrap_or(0.0);
        let explanation = Explanation::new(self, q)
            .column("gain", trec_gains(q))
            .column("DCG@i", dcg)
            .column("ideal gain", ideal_gains(q))
            .column(
                "IDCG@i",
                ideal_dcg.iter().take(n).map(|&v| Some(v)).collect(),
            )
            .column("DCG@i / IDCG@i at a gain", ratios)
            .quantity("positive grades", num_rel as f64)
            .quantity("DCG", full_dcg)
            .quantity("IDCG", full_ideal);
        if num_rel == 0 {
            return explanation.formula(format!("{} = 0 (no positive grade)", self.name()));
        }
        let missed = num_rel.saturating_sub(found);
        if missed > 0 {
            sum += missed as f64 * full_dcg / full_ideal;
            terms.push(format!(
                "{missed} x {} / {}",
                number(full_dcg),
                number(full_ideal)
            ));
        }
        explanation
            .formula(format!(
                "{} = ({}) / positive grades = {} / {num_rel}",
                self.name(),
                sum_text(&terms),
                number(sum)
            ))
            .normalizer(format!("averaged over {num_rel} positive grades"))
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
    fn name(&self) -> String {
        CanonicalName::new("rndcg")
            .param_if_set("rel", self.rel)
            .finish()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        rndcg(q, q.level(self.rel))
    }
    /// Rndcg: `DCG / IDCG` averaged at the ranks where the ideal grade drops
    /// (and at the end of the list).
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let n = q.ranked().len();
        let dcg = running_dcg(q);
        let grades = q.ideal_grades().len();
        let ideal_dcg = running_ideal(q, n.max(grades) + 1);
        // (rank, DCG, IDCG) at each point, as trec_eval finds them.
        let mut points: Vec<(usize, f64, f64)> = Vec::new();
        let dcg_at = |r: usize| {
            if r == 0 {
                0.0
            } else {
                dcg[r.min(n) - 1].unwrap_or(0.0)
            }
        };
        let ideal_at = |r: usize| if r == 0 { 0.0 } else { ideal_dcg[r - 1] };
        if q.num_relevant(level) > 0 {
            let mut old = ideal(q, 0);
            let mut current = old;
            let mut i = 0;
            while i < n && current > 0.0 {
                current = ideal(q, i);
                if old != current {
                    if ideal_at(i) > 0.0 {
                        points.push((i, dcg_at(i), ideal_at(i)));
                    }
                    old = current;
                }
                i += 1;
            }
            if i < n {
                if ideal_at(i) > 0.0 {
                    points.push((n, dcg_at(n), ideal_at(i)));
                }
            } else {
                while current > 0.0 {
                    current = ideal(q, i);
                    if old != current {
                        if ideal_at(i) > 0.0 {
                            points.push((i, dcg_at(n), ideal_at(i)));
                        }
                        old = current;
                    }
                    i += 1;
                }
            }
        }
        let at_points = per_rank(q, None, |i, _| {
            points
                .iter()
                .find(|p| p.0 == i + 1)
                .map(|&(_, d, ideal)| d / ideal)
        });
        let explanation = Explanation::new(self, q)
            .level(level)
            .column("gain", trec_gains(q))
            .column("DCG@i", dcg)
            .column("ideal gain", ideal_gains(q))
            .column(
                "IDCG@i",
                ideal_dcg.iter().take(n).map(|&v| Some(v)).collect(),
            )
            .column("DCG / IDCG at a point", at_points)
            .quantity("points", points.len() as f64);
        if points.is_empty() {
            let why = if q.num_relevant(level) == 0 {
                "|R| = 0"
            } else {
                "no point"
            };
            return explanation.formula(format!("{} = 0 ({why})", self.name()));
        }
        let mut sum = 0.0;
        let terms: Vec<String> = points
            .iter()
            .map(|&(r, d, ideal)| {
                sum += d / ideal;
                format!("{}/{} (@{r})", number(d), number(ideal))
            })
            .collect();
        explanation
            .formula(format!(
                "{} = ({}) / points = {} / {}",
                self.name(),
                terms.join(" + "),
                number(sum),
                points.len()
            ))
            .normalizer(format!(
                "averaged over {} points: the ranks where the ideal grade drops, and the list's end",
                points.len()
            ))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        self.rel.is_none().then(|| TrecEvalMeasure::mean("Rndcg"))
    }
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
}

/// The ideal gain (the judged grades sorted, negatives as 0) at every rank.
fn ideal_gains(q: &JudgedRanking<'_>) -> Vec<Option<f64>> {
    per_rank(q, None, |i, _| Some(ideal(q, i)))
}

/// `DCG@i` after every rank, trec_eval's way (a zero gain adds nothing).
fn running_dcg(q: &JudgedRanking<'_>) -> Vec<Option<f64>> {
    let mut dcg = 0.0;
    per_rank(q, None, |i, j| {
        let g = gain(j);
        if g != 0.0 {
            dcg += g / discount(i);
        }
        Some(dcg)
    })
}

/// The ideal DCG through rank `i` (0-based) for every `i` up to `len`
/// (rank `len` excluded), trec_eval's way (positive ideal gains only).
fn running_ideal(q: &JudgedRanking<'_>, len: usize) -> Vec<f64> {
    let mut dcg = 0.0;
    (0..len)
        .map(|i| {
            let g = ideal(q, i);
            if g > 0.0 {
                dcg += g / discount(i);
            }
            dcg
        })
        .collect()
}

/// How many judged grades are positive: the ranks of the ideal list that
/// gain.
fn positive_ideal(q: &JudgedRanking<'_>) -> usize {
    q.ideal_grades().iter().filter(|&&g| g > 0.0).count()
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
