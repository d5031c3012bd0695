//! Discounted cumulative gain@k, and the gain functions nDCG shares.
//!
//! `DCG@k = sum_{i <= k} gain(g(d_i)) / log2(i + 1)`, with `gain` chosen by
//! `gain`: `linear` (`g`, trec_eval's convention) or `exponential`
//! (`2^g - 1`, Burges et al.; ranx `ndcg_burges`, gdeval). Grades below 0
//! count as 0; every positive grade is a gain, whatever the relevance level.
//! trec_eval prints no plain DCG.

use std::fmt;

use rankeval_core::registry::{PARAM_K, ParamDoc};
use rankeval_core::{CanonicalName, Cutoff, Grade, JudgedRanking, Metric};
use serde::{Deserialize, Serialize};

use crate::common::is_none;

/// How a grade becomes a gain in DCG and nDCG.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Gain {
    /// The grade itself (trec_eval `ndcg`, ranx `ndcg`).
    #[default]
    Linear,
    /// `2^g - 1` (Burges et al. 2005; ranx `ndcg_burges`, gdeval).
    Exponential,
}

impl Gain {
    /// The gain of `grade`, used as it is (decimal grades too: a grade of
    /// 3.5 gains 3.5, or `2^3.5 - 1`); grades below 0 count as 0.
    ///
    /// ```
    /// use rankeval_metrics::dcg::Gain;
    /// assert_eq!(Gain::Linear.of(3.0), 3.0);
    /// assert_eq!(Gain::Linear.of(3.5), 3.5);
    /// assert_eq!(Gain::Exponential.of(3.0), 2.0 * 2.0 * 2.0 - 1.0);
    /// assert_eq!(Gain::Exponential.of(0.5), 2f64.sqrt() - 1.0);
    /// assert_eq!(Gain::Exponential.of(-1.0), 0.0);
    /// ```
    #[inline]
    pub fn of(self, grade: Grade) -> f64 {
        let g = if grade > 0.0 { grade } else { 0.0 };
        match self {
            Gain::Linear => g,
            Gain::Exponential => g.exp2() - 1.0,
        }
    }
}

impl fmt::Display for Gain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Gain::Linear => "linear",
            Gain::Exponential => "exponential",
        })
    }
}

/// The discounted sum of the gains of `grades`, best first: rank `i`
/// (1-based) is discounted by `1 / log2(i + 1)`. Ideal DCG is this sum over
/// the ideal grades.
pub fn discounted_sum(grades: impl IntoIterator<Item = Grade>, gain: Gain) -> f64 {
    grades
        .into_iter()
        .enumerate()
        .map(|(i, g)| (i, gain.of(g)))
        .filter(|&(_, x)| x != 0.0)
        // A fold from +0.0: `Sum` for f64 starts at -0.0, which would print
        // as "-0.0000" for a query with no gain.
        .fold(0.0, |sum, (i, x)| sum + x / ((i + 2) as f64).log2())
}

/// DCG@k of one query.
///
/// # Example
/// Grades 3, 0, 2 at ranks 1 to 3 (the 2 is discounted by `log2(4) = 2`).
/// ```
/// use rankeval_metrics::dcg::{dcg, Gain};
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::judged("3 0 2", &[]);
/// assert_eq!(dcg(&q.view(), Cutoff::new(3), Gain::Linear), 3.0 + 2.0 / 2.0);
/// assert_eq!(dcg(&q.view(), Cutoff::new(3), Gain::Exponential), 7.0 + 3.0 / 2.0);
/// ```
pub fn dcg(q: &JudgedRanking<'_>, k: Option<Cutoff>, gain: Gain) -> f64 {
    discounted_sum(q.top(k).iter().map(|j| j.grade()), gain)
}

/// The expected DCG@k over every order of each group of tied scores.
pub fn expected_dcg(q: &JudgedRanking<'_>, k: Option<Cutoff>, gain: Gain) -> f64 {
    crate::tie_average::expected_sum(
        q,
        k,
        |j| gain.of(j.grade()),
        |mean, i| mean / ((i + 2) as f64).log2(),
    )
}

/// The `dcg` metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dcg {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// How a grade becomes a gain.
    #[serde(default)]
    pub gain: Gain,
}

#[typetag::serde(name = "dcg")]
impl Metric for Dcg {
    // `rankeval explain`: crate::explain holds every metric's explanation.
    fn explain(&self, q: &JudgedRanking<'_>) -> rankeval_core::Explanation {
        crate::explain::dcg(self, q)
    }
    /// Grades are gains; no level plays a part.
    fn uses_default_level(&self) -> bool {
        false
    }

    fn name(&self) -> String {
        CanonicalName::new("dcg")
            .param_unless_default("gain", self.gain, Gain::Linear)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        dcg(q, self.k, self.gain)
    }
    /// The expected gain of each rank, discounted.
    fn score_tie_average(&self, q: &JudgedRanking<'_>) -> Option<f64> {
        Some(expected_dcg(q, self.k, self.gain))
    }
}

/// The `gain` parameter, shared with `ndcg`.
pub(crate) const PARAM_GAIN: ParamDoc = ParamDoc {
    name: "gain",
    alias: None,
    default: "linear",
    doc: "linear: the grade g (trec_eval); exponential: 2^g - 1 (Burges, ranx ndcg_burges)",
};

rankeval_core::register_metric! {
    name: "dcg",
    aliases: &[],
    summary: "discounted cumulative gain: sum of gain / log2(rank + 1) over the top k",
    params: &[PARAM_K, PARAM_GAIN],
    example: || Box::new(Dcg { k: Cutoff::new(10), gain: Gain::Exponential }),
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::judged;

    fn at(pattern: &str, k: Option<usize>, gain: Gain) -> f64 {
        dcg(&judged(pattern, &[]).view(), k.and_then(Cutoff::new), gain)
    }

    #[test]
    fn linear_gain_discounted_by_log2_of_rank_plus_one() {
        let expected = 2.0 / 2f64.log2() + 1.0 / 3f64.log2() + 3.0 / 5f64.log2();
        assert_eq!(at("2 1 0 3", None, Gain::Linear), expected);
        assert_eq!(
            at("2 1 0 3", Some(2), Gain::Linear),
            2.0 / 2f64.log2() + 1.0 / 3f64.log2()
        );
    }

    #[test]
    fn exponential_gain() {
        let expected = (4.0 - 1.0) / 2f64.log2() + (2.0 - 1.0) / 3f64.log2();
        assert_eq!(at("2 1", None, Gain::Exponential), expected);
    }

    #[test]
    fn negative_and_unjudged_count_zero() {
        assert_eq!(at("- . 1", None, Gain::Linear), 1.0 / 4f64.log2());
        assert_eq!(at("- . 1", None, Gain::Exponential), 1.0 / 4f64.log2());
    }

    #[test]
    fn empty_list_and_list_shorter_than_k() {
        assert_eq!(at("", Some(3), Gain::Linear), 0.0);
        assert_eq!(at("1", Some(10), Gain::Linear), 1.0);
    }

    #[test]
    fn canonical_names() {
        assert_eq!(Dcg::default().name(), "dcg");
        let m = Dcg {
            k: Cutoff::new(5),
            gain: Gain::Exponential,
        };
        assert_eq!(m.name(), "dcg(gain=exponential)@5");
    }
}
