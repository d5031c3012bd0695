//! trec_eval 10's experimental gain measures `G` and `binG` (Buckley,
//! 2008), which combine qualities of MAP and nDCG.
//!
//! `binG`: each relevant document at 0-based rank `i`, the `r`-th relevant
//! one, is worth `1 / log2(2 + i + 1 - r)` (2 plus the non-relevant
//! documents above it); the sum is divided by `|R|`.
//!
//! `G`: each document at rank `i` with gain `g` (its grade, 0 if negative or
//! unjudged) is worth `g / log2(2 + cost(i) - gained(i))`, where `gained(i)`
//! is the gain of the top `i + 1` documents and `cost(i)` the sum over the
//! top `i + 1` ideal positions of `max(ideal gain, 1)`; the sum is divided
//! by the ideal total gain.

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::PARAM_REL;
use rankeval_core::{CanonicalName, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure};
use serde::{Deserialize, Serialize};

use crate::common::is_none;
use crate::explain::{per_rank, sum_text, trec_gains};
use crate::trec_gains::{gain, ideal, top};

/// trec_eval's `G` of one query.
///
/// # Example
/// Grades 0 then 2 retrieved, ideal 2: rank 1 costs 2, rank 2 costs 1, so
/// the 2 at rank 2 is worth `2 / log2(2 + 3 - 2)`, over the ideal 2.
/// ```
/// use rankeval_metrics::g::g;
/// use rankeval_core::testing;
/// let q = testing::judged("0 2", &[]);
/// assert_eq!(g(&q.view()), (2.0 / 3f64.log2()) / 2.0);
/// ```
pub fn g(q: &JudgedRanking<'_>) -> f64 {
    let ranked = q.ranked();
    let (mut results_g, mut sum_results, mut sum_ideal, mut sum_cost) = (0.0, 0.0, 0.0, 0.0);
    let mut ideal_gain = top(q);
    let mut i = 0;
    while i < ranked.len() && ideal_gain > 0.0 {
        let results_gain = gain(ranked[i]);
        sum_results += results_gain;
        ideal_gain = ideal(q, i);
        if ideal_gain > 0.0 {
            sum_ideal += ideal_gain;
        }
        sum_cost += if ideal_gain >= 1.0 { ideal_gain } else { 1.0 };
        if results_gain != 0.0 {
            results_g += results_gain / (2.0 + sum_cost - sum_results).log2();
        }
        i += 1;
    }
    while i < ranked.len() {
        let results_gain = gain(ranked[i]);
        sum_results += results_gain;
        sum_cost += 1.0;
        if results_gain != 0.0 {
            results_g += results_gain / (2.0 + sum_cost - sum_results).log2();
        }
        i += 1;
    }
    while ideal_gain > 0.0 {
        ideal_gain = ideal(q, i);
        if ideal_gain > 0.0 {
            sum_ideal += ideal_gain;
        }
        i += 1;
    }
    if sum_ideal > 0.0 {
        results_g / sum_ideal
    } else {
        0.0
    }
}

/// trec_eval's `binG` of one query.
///
/// # Example
/// Relevant at ranks 1 and 3, `|R|` = 3: `(1/log2(2) + 1/log2(3)) / 3`.
/// ```
/// use rankeval_metrics::g::bin_g;
/// use rankeval_core::testing;
/// let q = testing::binary("1 0 1", 3);
/// assert_eq!(bin_g(&q.view(), 1.0), (1.0 / 2f64.log2() + 1.0 / 3f64.log2()) / 3.0);
/// ```
pub fn bin_g(q: &JudgedRanking<'_>, level: Grade) -> f64 {
    let mut rel_so_far = 0_usize;
    let mut sum = 0.0;
    for (i, judgement) in q.ranked().iter().enumerate() {
        if judgement.is_relevant(level) {
            rel_so_far += 1;
            sum += 1.0 / ((3 + i - rel_so_far) as f64).log2();
        }
    }
    if rel_so_far > 0 {
        sum / q.num_relevant(level) as f64
    } else {
        0.0
    }
}

/// The `g` metric (trec_eval `G`, default gains: the grades).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct G {}

#[rankeval_core::metric(
    name = "g",
    aliases = &["normalized_gain"],
    summary = "trec_eval's experimental normalized gain G (grades as gains)",
    example = G {},
)]
impl Metric for G {
    fn name(&self) -> String {
        "g".to_owned()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        g(q)
    }
    /// G: `sum of gain(i) / log2(2 + cost(i) - gained(i))`, over the ideal
    /// total gain.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let (mut gained, mut cost, mut sum) = (0.0, 0.0, 0.0);
        let mut terms = Vec::new();
        let mut costs = Vec::new();
        let mut gains_so_far = Vec::new();
        let contributions = per_rank(q, None, |i, j| {
            let g = gain(j);
            gained += g;
            let ideal_gain = ideal(q, i);
            cost += if ideal_gain >= 1.0 { ideal_gain } else { 1.0 };
            costs.push(Some(cost));
            gains_so_far.push(Some(gained));
            if g == 0.0 {
                return Some(0.0);
            }
            let t = g / (2.0 + cost - gained).log2();
            sum += t;
            terms.push(format!(
                "{}/log2({})",
                number(g),
                number(2.0 + cost - gained)
            ));
            Some(t)
        });
        let total: f64 = q
            .ideal_grades()
            .iter()
            .filter(|&&g| g > 0.0)
            .fold(0.0, |a, &g| a + g);
        let explanation = Explanation::new(self, q)
            .column("gain", trec_gains(q))
            .column("cost (ideal gains, at least 1)", costs)
            .column("gained", gains_so_far)
            .column("gain / log2(2 + cost - gained)", contributions)
            .quantity("ideal total gain", total);
        if total <= 0.0 {
            return explanation.formula(format!("{} = 0 (no positive grade)", self.name()));
        }
        explanation
            .formula(format!(
                "{} = ({}) / ideal total gain = {} / {}",
                self.name(),
                sum_text(&terms),
                number(sum),
                number(total)
            ))
            .normalizer(format!(
                "divided by the ideal total gain = {}",
                number(total)
            ))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        Some(TrecEvalMeasure::mean("G"))
    }
    fn uses_default_level(&self) -> bool {
        false
    }
}

/// The `bin_g` metric (trec_eval `binG`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BinG {
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "bin_g",
    aliases = &["binary_g"],
    summary = "trec_eval's binary G: mean of 1 / log2(2 + non-relevant above)",
    params = &[PARAM_REL],
    example = BinG { rel: RelevanceLevel::new(2) },
)]
impl Metric for BinG {
    fn name(&self) -> String {
        CanonicalName::new("bin_g")
            .param_if_set("rel", self.rel)
            .finish()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        bin_g(q, q.level(self.rel))
    }
    /// binG: `sum over relevant ranks of 1 / log2(2 + non-relevant above)`,
    /// over `|R|`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let relevant = q.num_relevant(level);
        let mut above = 0usize;
        let mut sum = 0.0;
        let mut terms = Vec::new();
        let above_column = per_rank(q, None, |_, j| {
            let shown = above as f64;
            if !j.is_relevant(level) {
                above += 1;
            }
            Some(shown)
        });
        above = 0;
        let contributions = per_rank(q, None, |_, j| {
            if !j.is_relevant(level) {
                above += 1;
                return None;
            }
            let t = 1.0 / ((2 + above) as f64).log2();
            sum += t;
            terms.push(format!("1/log2({})", 2 + above));
            Some(t)
        });
        let explanation = Explanation::new(self, q)
            .level(level)
            .column("non-relevant above", above_column)
            .column("1 / log2(2 + above)", contributions)
            .quantity("|R|", relevant as f64);
        if terms.is_empty() {
            return explanation.formula(format!(
                "{} = 0 (no relevant document retrieved)",
                self.name()
            ));
        }
        explanation
            .formula(format!(
                "{} = ({}) / |R| = {} / {relevant}",
                self.name(),
                sum_text(&terms),
                number(sum)
            ))
            .normalizer(format!("divided by |R| = {relevant}"))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        self.rel.is_none().then(|| TrecEvalMeasure::mean("binG"))
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
    fn bin_g_discounts_by_nonrelevant_above() {
        // Relevant at ranks 2 and 4 (1 and 2 non-relevant above), |R| = 2.
        let q = binary("0 1 0 1", 2);
        assert_eq!(
            bin_g(&q.view(), 1.0),
            (1.0 / 3f64.log2() + 1.0 / 4f64.log2()) / 2.0
        );
        assert_eq!(bin_g(&binary("00", 2).view(), 1.0), 0.0);
    }

    #[test]
    fn g_follows_trec_eval() {
        // Ideal 3 1; retrieved 1 then 3 then an unjudged doc.
        // i=0: gained 1, cost 3: 1 / log2(2 + 3 - 1); i=1: gained 4, cost 4:
        // 3 / log2(2 + 4 - 4); sum of ideal 4.
        let q = judged("1 3 .", &[]);
        let expected = (1.0 / 4f64.log2() + 3.0 / 2f64.log2()) / 4.0;
        assert_eq!(g(&q.view()), expected);
        assert_eq!(g(&judged("0 .", &[0]).view()), 0.0);
    }
}
