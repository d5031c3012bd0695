//! Interpolated precision at recall levels, as trec_eval 10 computes it:
//! `iprec_at_recall_x` (one level) and `11pt_avg` (the mean over levels).
//!
//! The interpolated precision at recall `x` is the highest precision at any
//! rank where recall is at least `x`. trec_eval turns `x` into a number of
//! relevant documents, `round(x * |R|)` (half away from zero), and reads the
//! highest precision from the rank of that relevant document down to the
//! end of the list; a level past the relevant documents retrieved gets 0,
//! and level 0 gets the highest precision anywhere (precision at the end of
//! the list counts, relevant there or not).

use std::fmt;

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::{PARAM_REL, ParamDoc};
use rankeval_core::{
    CanonicalName, Grade, JudgedRanking, Metric, ParamValue, RelevanceLevel, TrecEvalMeasure,
};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};

use crate::common::is_none;
use crate::explain::per_rank;

/// The 11 standard recall levels 0.0, 0.1, ..., 1.0.
pub const ELEVEN_POINTS: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];

/// Interpolated precision at each recall level of `levels` (ascending), as
/// trec_eval's `iprec_at_recall` computes it.
///
/// # Example
/// Relevant at ranks 1 and 4 of 5, `|R|` = 4: recall 0.25 is reached at
/// rank 1 (precision 1), recall 0.5 at rank 4 (precision 2/4).
/// ```
/// use rankeval_metrics::interpolated::interpolated_precision;
/// use rankeval_core::testing;
/// let q = testing::binary("1 0 0 1 0", 4);
/// assert_eq!(interpolated_precision(&q.view(), &[0.25, 0.5, 0.75], 1.0), [1.0, 0.5, 0.0]);
/// ```
pub fn interpolated_precision(q: &JudgedRanking<'_>, levels: &[f64], level: Grade) -> Vec<f64> {
    let ranked = q.ranked();
    let num_ret = ranked.len();
    let num_rel = q.num_relevant(level);
    let mut values = vec![0.0; levels.len()];
    if num_ret == 0 {
        return values;
    }
    let num_rel_ret = ranked.iter().filter(|j| j.is_relevant(level)).count();
    let cutoffs: Vec<i64> = levels
        .iter()
        .map(|x| (x * num_rel as f64).round() as i64)
        .collect();
    let mut current = levels.len() as isize - 1;
    while current >= 0 && cutoffs[current as usize] > num_rel_ret as i64 {
        current -= 1;
    }
    let mut int_precis = num_rel_ret as f64 / num_ret as f64;
    let mut rel_so_far = num_rel_ret;
    let mut i = num_ret;
    while i > 0 && rel_so_far > 0 {
        let precis = rel_so_far as f64 / i as f64;
        if int_precis < precis {
            int_precis = precis;
        }
        if ranked[i - 1].is_relevant(level) {
            while current >= 0 && rel_so_far as i64 == cutoffs[current as usize] {
                values[current as usize] = int_precis;
                current -= 1;
            }
            rel_so_far -= 1;
        }
        i -= 1;
    }
    while current >= 0 {
        values[current as usize] = int_precis;
        current -= 1;
    }
    values
}

/// A recall level between 0 and 1.
fn check_recall(recall: f64) -> Result<(), String> {
    if (0.0..=1.0).contains(&recall) {
        Ok(())
    } else {
        Err(format!("recall must be between 0 and 1, not {recall}"))
    }
}

/// A number as trec_eval prints a level in a measure name (`%.2f`).
struct TwoDecimals(f64);

impl fmt::Display for TwoDecimals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.2}", self.0)
    }
}

/// The `iprec_at_recall` metric: interpolated precision at one recall level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IprecAtRecall {
    /// The recall level, 0 to 1.
    pub recall: f64,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "iprec_at_recall",
    aliases = &["interpolated_precision"],
    summary = "interpolated precision at a recall level (trec_eval iprec_at_recall)",
    params = IPREC_PARAMS,
    example = IprecAtRecall { recall: 0.2, rel: None },
)]
impl Metric for IprecAtRecall {
    fn name(&self) -> String {
        CanonicalName::new("iprec_at_recall")
            .param("recall", self.recall)
            .param_if_set("rel", self.rel)
            .finish()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        interpolated_precision(q, &[self.recall], q.level(self.rel))[0]
    }
    /// iprec_at_recall: the highest precision where recall reaches the level.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let explanation = interpolation_columns(Explanation::new(self, q).level(level), q, level);
        let reason = interpolated_reason(q, level, self.recall);
        explanation.formula(format!("{} = {reason}", self.name()))
    }
    fn validate(&self) -> Result<(), String> {
        check_recall(self.recall)
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        self.rel
            .is_none()
            .then(|| TrecEvalMeasure::mean(format!("iprec_at_recall_{}", TwoDecimals(self.recall))))
    }
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
}

const IPREC_PARAMS: &[ParamDoc] = &[
    ParamDoc {
        name: "recall",
        alias: None,
        default: "required",
        doc: "the recall level, 0 to 1 (trec_eval: 0.0, 0.1, ..., 1.0)",
    },
    PARAM_REL,
];

/// Recall levels, written `0.25,0.5,0.75` (ascending, as trec_eval reads
/// them for `11pt_avg..25,.5,.75`).
#[derive(Clone, Debug, PartialEq)]
pub struct RecallLevels(Vec<f64>);

impl RecallLevels {
    /// Reads comma-separated levels, each 0 to 1, ascending.
    pub fn parse(text: &str) -> Result<Self, String> {
        let levels = text
            .split(',')
            .map(|x| {
                let v: f64 = x
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{x}` is not a number"))?;
                check_recall(v).map(|()| v)
            })
            .collect::<Result<Vec<f64>, String>>()?;
        if levels.windows(2).any(|w| w[0] >= w[1]) {
            return Err(format!("recall levels must be ascending: `{text}`"));
        }
        Ok(RecallLevels(levels))
    }

    /// The levels.
    pub fn get(&self) -> &[f64] {
        &self.0
    }

    fn text(&self) -> String {
        let text: Vec<String> = self.0.iter().map(f64::to_string).collect();
        text.join(",")
    }
}

impl fmt::Display for RecallLevels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", ParamValue::String(self.text()))
    }
}

impl Serialize for RecallLevels {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text())
    }
}

impl<'de> Deserialize<'de> for RecallLevels {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        RecallLevels::parse(&text).map_err(de::Error::custom)
    }
}

/// The `eleven_point_average` metric: the mean interpolated precision over
/// the recall levels 0.0, 0.1, ..., 1.0 (trec_eval `11pt_avg`), or others.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ElevenPointAverage {
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
    /// Other recall levels than the 11 standard ones.
    #[serde(default, skip_serializing_if = "is_none")]
    pub levels: Option<RecallLevels>,
}

/// The mean interpolated precision over `levels` (trec_eval `11pt_avg`).
///
/// # Example
/// ```
/// use rankeval_metrics::interpolated::{eleven_point_average, ELEVEN_POINTS};
/// use rankeval_core::testing;
/// // One relevant document, at rank 2: precision 1/2 at every level.
/// let q = testing::binary("0 1", 1);
/// assert_eq!(eleven_point_average(&q.view(), &ELEVEN_POINTS, 1.0), 11.0 * 0.5 / 11.0);
/// ```
pub fn eleven_point_average(q: &JudgedRanking<'_>, levels: &[f64], level: Grade) -> f64 {
    let values = interpolated_precision(q, levels, level);
    // trec_eval adds the levels from the highest down.
    let sum = values.iter().rev().fold(0.0, |sum, v| sum + v);
    sum / levels.len() as f64
}

#[rankeval_core::metric(
    name = "eleven_point_average",
    aliases = &["eleven_pt_avg"],
    summary = "mean interpolated precision at recall 0.0, 0.1, ..., 1.0 (11pt_avg)",
    params = ELEVEN_PARAMS,
    example = ElevenPointAverage {
        rel: RelevanceLevel::new(2),
        levels: RecallLevels::parse("0.25,0.5,0.75").ok(),
    },
)]
impl Metric for ElevenPointAverage {
    fn name(&self) -> String {
        CanonicalName::new("eleven_point_average")
            .param_if_set("rel", self.rel)
            .param_if_set("levels", self.levels.as_ref())
            .finish()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        let levels = self
            .levels
            .as_ref()
            .map_or(&ELEVEN_POINTS[..], RecallLevels::get);
        eleven_point_average(q, levels, q.level(self.rel))
    }
    /// 11pt_avg: the mean of the interpolated precision at the recall levels.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let levels = self
            .levels
            .as_ref()
            .map_or(&ELEVEN_POINTS[..], RecallLevels::get);
        let values = crate::interpolated::interpolated_precision(q, levels, level);
        let mut explanation =
            interpolation_columns(Explanation::new(self, q).level(level), q, level);
        for (x, v) in levels.iter().zip(&values) {
            explanation = explanation.quantity(format!("iP({})", number(*x)), *v);
        }
        let terms: Vec<String> = values.iter().map(|v| number(*v)).collect();
        explanation
            .formula(format!(
                "{} = (iP({}) + ... + iP({})) / {} = ({}) / {}",
                self.name(),
                number(levels[0]),
                number(levels[levels.len() - 1]),
                levels.len(),
                terms.join(" + "),
                levels.len()
            ))
            .normalizer(format!("averaged over {} recall levels", levels.len()))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        (self.rel.is_none() && self.levels.is_none()).then(|| TrecEvalMeasure::mean("11pt_avg"))
    }
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
}

const ELEVEN_PARAMS: &[ParamDoc] = &[
    PARAM_REL,
    ParamDoc {
        name: "levels",
        alias: None,
        default: "unset",
        doc: "recall levels, ascending, e.g. \"0.25,0.5,0.75\"; unset = 0.0, 0.1, ..., 1.0",
    },
];

/// `P@i`, and the interpolated precision `max P@j for j >= i`, at every
/// rank; `R@i`; and the recall levels' interpolated precision.
fn interpolation_columns(
    explanation: Explanation,
    q: &JudgedRanking<'_>,
    level: rankeval_core::Grade,
) -> Explanation {
    let relevant = q.num_relevant(level);
    let mut hits = 0usize;
    let precision: Vec<f64> = q
        .ranked()
        .iter()
        .enumerate()
        .map(|(i, j)| {
            hits += usize::from(j.is_relevant(level));
            hits as f64 / (i + 1) as f64
        })
        .collect();
    let mut best = 0.0_f64;
    let mut interpolated: Vec<Option<f64>> = precision
        .iter()
        .rev()
        .map(|&p| {
            best = best.max(p);
            Some(best)
        })
        .collect();
    interpolated.reverse();
    let mut seen = 0usize;
    let recall = per_rank(q, None, |_, j| {
        seen += usize::from(j.is_relevant(level));
        (relevant > 0).then(|| seen as f64 / relevant as f64)
    });
    explanation
        .column("P@i", precision.into_iter().map(Some).collect())
        .column("R@i", recall)
        .column("max P@j, j >= i", interpolated)
        .quantity("|R|", relevant as f64)
}

/// The rank of the `c`-th relevant document, if retrieved.
fn rank_of_relevant(q: &JudgedRanking<'_>, level: rankeval_core::Grade, c: usize) -> Option<usize> {
    q.ranked()
        .iter()
        .enumerate()
        .filter(|(_, j)| j.is_relevant(level))
        .nth(c.saturating_sub(1))
        .map(|(i, _)| i + 1)
}

/// Where the interpolated precision at recall `x` is read, and why.
fn interpolated_reason(q: &JudgedRanking<'_>, level: rankeval_core::Grade, x: f64) -> String {
    let relevant = q.num_relevant(level);
    let c = (x * relevant as f64).round() as usize;
    if q.ranked().is_empty() {
        return "0 (empty list)".to_owned();
    }
    if c == 0 {
        return format!(
            "max P@j over every rank j (round({} x |R|) = 0 relevant documents to reach)",
            number(x)
        );
    }
    match rank_of_relevant(q, level, c) {
        Some(rank) => format!(
            "max P@j, j >= {rank} (round({} x {relevant}) = {c} relevant documents to reach: the last of them at rank {rank})",
            number(x)
        ),
        None => format!(
            "0 (round({} x {relevant}) = {c} relevant documents to reach, fewer retrieved)",
            number(x)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::binary;

    #[test]
    fn highest_precision_at_or_after_each_level() {
        // |R| = 3; relevant at ranks 2, 3 and 6: precision 1/2, 2/3, 3/6.
        let q = binary("0 1 1 0 0 1", 3);
        let v = q.view();
        let got = interpolated_precision(&v, &ELEVEN_POINTS, 1.0);
        // Documents needed: round(x * 3) = 0 0 1 1 1 2 2 2 2 3 3 (0.5 * 3 =
        // 1.5 rounds up). From the 1st or 2nd relevant (ranks 2, 3) on, the
        // best precision is 2/3 (rank 3); from the 3rd (rank 6) on, 3/6.
        let two_thirds = 2.0 / 3.0;
        let mut want = [two_thirds; 11];
        want[9] = 0.5;
        want[10] = 0.5;
        assert_eq!(got, want);
    }

    #[test]
    fn levels_past_the_relevant_retrieved_are_zero() {
        let q = binary("1 0", 4);
        let got = interpolated_precision(&q.view(), &[0.25, 0.5, 1.0], 1.0);
        assert_eq!(got, [1.0, 0.0, 0.0]);
        assert_eq!(
            interpolated_precision(&binary("", 2).view(), &[0.0], 1.0),
            [0.0]
        );
    }

    #[test]
    fn names() {
        let m = IprecAtRecall {
            recall: 0.1,
            rel: None,
        };
        assert_eq!(m.name(), "iprec_at_recall(recall=0.1)");
        assert_eq!(m.trec_eval().unwrap().name, "iprec_at_recall_0.10");
        assert!(
            IprecAtRecall {
                recall: 1.5,
                rel: None
            }
            .validate()
            .is_err()
        );
        assert_eq!(
            ElevenPointAverage::default().trec_eval().unwrap().name,
            "11pt_avg"
        );
    }
}
