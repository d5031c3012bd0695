//! Expected reciprocal rank (Chapelle, Metzler, Zhang and Grinspan, 2009).
//!
//! `ERR@k = sum_{r <= k} (1 / r) * R_r * prod_{i < r} (1 - R_i)`, where
//! `R_i = (2^g_i - 1) / 2^g_max` is the chance that the user is satisfied
//! at rank `i` and stops. `g_max` is the parameter `max_grade` (default 4,
//! as in gdeval); grades above it count as `max_grade`, grades below 0 as 0.

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::{PARAM_K, ParamDoc};
use rankeval_core::{CanonicalName, Cutoff, Grade, JudgedRanking, Judgement, Metric};
use serde::{Deserialize, Serialize};

use crate::common::is_none;
use crate::explain::{per_rank, sum_text};

/// The largest `max_grade` accepted (so that `2^max_grade` stays exact).
pub const MAX_GRADE_LIMIT: i32 = 64;

/// ERR@k of one query with grades capped at `max_grade` (at least 1).
///
/// # Example
/// Grades 2 then 4, with `max_grade = 4`.
/// ```
/// use rankeval_metrics::err::err;
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::judged("2 4", &[]);
/// let (r1, r2) = (3.0 / 16.0, 15.0 / 16.0);
/// assert_eq!(err(&q.view(), None, 4), r1 / 1.0 + (1.0 - r1) * r2 / 2.0);
/// ```
///
/// Grades are used as they are: a decimal grade `g` (a half-star 3.5)
/// satisfies with `R = (2^g - 1) / 2^max_grade`, as an integer one does.
pub fn err(q: &JudgedRanking<'_>, k: Option<Cutoff>, max_grade: i32) -> f64 {
    let max_grade: Grade = max_grade.clamp(1, MAX_GRADE_LIMIT).into();
    let scale = max_grade.exp2();
    let mut not_yet_satisfied = 1.0;
    let mut sum = 0.0;
    for (i, judgement) in q.top(k).iter().enumerate() {
        let grade = judgement.gain().min(max_grade);
        if grade == 0.0 {
            continue;
        }
        let satisfied = (grade.exp2() - 1.0) / scale;
        sum += not_yet_satisfied * satisfied / (i + 1) as f64;
        not_yet_satisfied *= 1.0 - satisfied;
    }
    sum
}

/// The `err` metric (alias `expected_reciprocal_rank`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedReciprocalRank {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// The highest grade: `R = (2^g - 1) / 2^max_grade`.
    #[serde(default = "default_max_grade")]
    pub max_grade: i32,
}

/// The default `max_grade`, 4 (gdeval's).
pub const DEFAULT_MAX_GRADE: i32 = 4;

fn default_max_grade() -> i32 {
    DEFAULT_MAX_GRADE
}

impl Default for ExpectedReciprocalRank {
    fn default() -> Self {
        Self {
            k: None,
            max_grade: DEFAULT_MAX_GRADE,
        }
    }
}

#[rankeval_core::metric(
    name = "err",
    aliases = &["expected_reciprocal_rank"],
    summary = "expected reciprocal rank of a user who stops at a satisfying document",
    params = PARAMS,
    example = ExpectedReciprocalRank { k: Cutoff::new(20), max_grade: 3 },
)]
impl Metric for ExpectedReciprocalRank {
    /// Grades are gains; no level plays a part.
    fn uses_default_level(&self) -> bool {
        false
    }

    fn name(&self) -> String {
        CanonicalName::new("err")
            .param_unless_default("max_grade", self.max_grade, DEFAULT_MAX_GRADE)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        err(q, self.k, self.max_grade)
    }
    /// ERR: `sum of R(i) x P(reach i) / i`, with `R(i) = (2^g - 1) / 2^max`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let max_grade = self.max_grade.clamp(1, crate::err::MAX_GRADE_LIMIT);
        let top: Grade = max_grade.into();
        let scale = top.exp2();
        let stop = |j: Judgement| {
            let g = j.gain().min(top);
            if g == 0.0 {
                0.0
            } else {
                (g.exp2() - 1.0) / scale
            }
        };
        let stops = per_rank(q, self.k, |_, j| Some(stop(j)));
        let mut reach = 1.0;
        let reached = per_rank(q, self.k, |_, j| {
            let r = reach;
            let s = stop(j);
            if s != 0.0 {
                reach *= 1.0 - s;
            }
            Some(r)
        });
        reach = 1.0;
        let mut terms = Vec::new();
        let contributions = per_rank(q, self.k, |i, j| {
            let s = stop(j);
            if s == 0.0 {
                return Some(0.0);
            }
            let t = reach * s / (i + 1) as f64;
            terms.push(number(t));
            reach *= 1.0 - s;
            Some(t)
        });
        Explanation::new(self, q)
            .column(format!("R(i) = (2^g - 1) / 2^{max_grade}"), stops)
            .column("P(reach i)", reached)
            .column("R(i) x P(reach i) / i", contributions)
            .formula(format!("{} = {}", self.name(), sum_text(&terms)))
    }
    fn validate(&self) -> Result<(), String> {
        if (1..=MAX_GRADE_LIMIT).contains(&self.max_grade) {
            Ok(())
        } else {
            Err(format!(
                "max_grade must be from 1 to {MAX_GRADE_LIMIT}, not {}",
                self.max_grade
            ))
        }
    }
}

const PARAMS: &[ParamDoc] = &[
    PARAM_K,
    ParamDoc {
        name: "max_grade",
        alias: None,
        default: "4",
        doc: "the highest grade (1 to 64): R = (2^g - 1) / 2^max_grade; higher grades are capped",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::judged;

    fn at(pattern: &str, k: Option<usize>, max_grade: i32) -> f64 {
        err(
            &judged(pattern, &[]).view(),
            k.and_then(Cutoff::new),
            max_grade,
        )
    }

    #[test]
    fn cascade_of_satisfaction_probabilities() {
        let r = |g: i32| (2f64.powi(g) - 1.0) / 16.0;
        let expected = r(3) / 1.0 + (1.0 - r(3)) * r(1) / 3.0;
        assert_eq!(at("3 0 1", None, 4), expected);
        assert_eq!(at("3 0 1", Some(2), 4), r(3) / 1.0);
    }

    #[test]
    fn max_grade_one_satisfies_half_the_time() {
        // R = (2^1 - 1) / 2^1 = 1/2 at grade 1.
        assert_eq!(at("1 1", None, 1), 0.5 / 1.0 + (1.0 - 0.5) * 0.5 / 2.0);
    }

    #[test]
    fn grades_above_max_are_capped_and_negative_count_zero() {
        let r2 = (4.0 - 1.0) / 4.0;
        assert_eq!(at("- 5", None, 2), r2 / 2.0);
        assert_eq!(at("2", None, 2), at("9", None, 2));
    }

    #[test]
    fn empty_and_irrelevant_lists_give_zero() {
        assert_eq!(at("", Some(5), 4), 0.0);
        assert_eq!(at("0 . -", None, 4), 0.0);
    }

    #[test]
    fn max_grade_is_validated() {
        let bad = |max_grade| {
            ExpectedReciprocalRank { k: None, max_grade }
                .validate()
                .is_err()
        };
        assert!(bad(0));
        assert!(bad(-1));
        assert!(bad(MAX_GRADE_LIMIT + 1));
        assert!(!bad(1));
        assert!(!bad(MAX_GRADE_LIMIT));
    }

    #[test]
    fn canonical_names() {
        assert_eq!(ExpectedReciprocalRank::default().name(), "err");
        let m = ExpectedReciprocalRank {
            k: Cutoff::new(20),
            max_grade: 3,
        };
        assert_eq!(m.name(), "err(max_grade=3)@20");
    }
}
