//! Rank-biased precision (Moffat and Zobel, 2008).
//!
//! `RBP@k = (1 - p) * sum_{i <= k} u(d_i) * p^(i - 1)`, for a user who goes
//! on from one rank to the next with probability `p` (the persistence). The
//! utility `u` is chosen by `gain`:
//!
//! | gain | `u(d)` | used by |
//! |---|---|---|
//! | `binary` (default) | `rel(i)` at the level `rel` | Moffat and Zobel; ir_measures `RBP` |
//! | `graded` | `g(d) / g_max`, `g_max` the highest grade in the query's qrels | trec_eval 10 `rbp` (with `p = 0.9`) |
//!
//! Grades below 0 count as 0. `p` must lie strictly between 0 and 1; the
//! default is 0.8 (ir_measures); trec_eval's is 0.9.

use std::fmt;

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::{PARAM_K, PARAM_REL, ParamDoc};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Judgement, Metric, RelevanceLevel, TrecEvalMeasure,
};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};

use crate::common::is_none;
use crate::explain::per_rank;

/// RBP's persistence `p`: the probability of going on to the next rank,
/// strictly between 0 and 1.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct Persistence(f64);

impl Persistence {
    /// The default, 0.8 (ir_measures' default).
    pub const DEFAULT: Persistence = Persistence(0.8);
    /// trec_eval 10's value, 0.9.
    pub const TREC_EVAL: Persistence = Persistence(0.9);

    /// The persistence `p`, or `None` unless `0 < p < 1`.
    pub fn new(p: f64) -> Option<Self> {
        (p > 0.0 && p < 1.0).then_some(Persistence(p))
    }

    /// The value of `p`.
    pub const fn get(self) -> f64 {
        self.0
    }
}

impl Default for Persistence {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl fmt::Display for Persistence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<'de> Deserialize<'de> for Persistence {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PersistenceVisitor;
        impl Visitor<'_> for PersistenceVisitor {
            type Value = Persistence;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number strictly between 0 and 1")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Persistence, E> {
                Persistence::new(v).ok_or_else(|| {
                    E::custom(format!(
                        "p must be strictly between 0 and 1 (the chance of going on to the next rank), not {v}"
                    ))
                })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Persistence, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Persistence, E> {
                self.visit_f64(v as f64)
            }
        }
        deserializer.deserialize_f64(PersistenceVisitor)
    }
}

/// What a document at a rank is worth to RBP.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RbpGain {
    /// 1 if relevant at the level, else 0 (Moffat and Zobel; ir_measures).
    #[default]
    Binary,
    /// The grade divided by the highest grade in the query's qrels (trec_eval 10).
    Graded,
}

impl fmt::Display for RbpGain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RbpGain::Binary => "binary",
            RbpGain::Graded => "graded",
        })
    }
}

/// Rank-biased precision of one query. `level` is read only with binary gain.
///
/// # Example
/// Relevant at ranks 1 and 3, `p = 0.5`.
/// ```
/// use rankeval_metrics::rbp::{rbp, Persistence, RbpGain};
/// use rankeval_core::testing;
/// let q = testing::binary("1 0 1", 2);
/// let p = Persistence::new(0.5).unwrap();
/// assert_eq!(rbp(&q.view(), None, p, RbpGain::Binary, 1.0), (1.0 - 0.5) * (1.0 + 0.5 * 0.5));
/// ```
pub fn rbp(
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    p: Persistence,
    gain: RbpGain,
    level: Grade,
) -> f64 {
    let p = p.get();
    let max_grade = q.ideal_grades().first().copied().unwrap_or(0.0).max(0.0);
    let mut weight = 1.0;
    let mut sum = 0.0;
    for judgement in q.top(k) {
        let utility = match gain {
            RbpGain::Binary => f64::from(u8::from(judgement.is_relevant(level))),
            RbpGain::Graded if judgement.gain() > 0.0 => judgement.gain() / max_grade,
            RbpGain::Graded => 0.0,
        };
        sum += utility * weight;
        weight *= p;
    }
    (1.0 - p) * sum
}

/// The `rbp` metric (alias `rank_biased_precision`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rbp {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level for binary gain; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
    /// Persistence.
    #[serde(default)]
    pub p: Persistence,
    /// What a document is worth.
    #[serde(default)]
    pub gain: RbpGain,
}

#[rankeval_core::metric(
    name = "rbp",
    aliases = &["rank_biased_precision"],
    summary = "rank-biased precision: (1 - p) * sum of gain * p^(rank - 1)",
    params = PARAMS,
    example = Rbp {
        k: None,
        rel: None,
        p: Persistence::TREC_EVAL,
        gain: RbpGain::Graded,
    },
)]
impl Metric for Rbp {
    /// Binary gain; graded gain divides by the query's top grade.
    fn is_additive(&self) -> bool {
        self.gain == RbpGain::Binary
    }
    /// Graded gain uses grades as they are; binary gain reads the level.
    fn uses_default_level(&self) -> bool {
        self.gain == RbpGain::Binary && self.rel.is_none()
    }

    fn name(&self) -> String {
        CanonicalName::new("rbp")
            .param_if_set("rel", self.rel)
            // `p` always shows, so that no canonical name reads `rbp`,
            // trec_eval's name for a different number (p = 0.9, graded).
            .param("p", self.p)
            .param_unless_default("gain", self.gain, RbpGain::Binary)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        rbp(q, self.k, self.p, self.gain, q.level(self.rel))
    }
    /// RBP: `(1 - p) x sum of utility(i) x p^(i-1)`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let p = self.p.get();
        let max_grade = q.ideal_grades().first().copied().unwrap_or(0.0).max(0.0);
        let utility = |j: Judgement| match self.gain {
            RbpGain::Binary => f64::from(u8::from(j.is_relevant(level))),
            RbpGain::Graded if j.gain() > 0.0 => j.gain() / max_grade,
            RbpGain::Graded => 0.0,
        };
        let mut weight = 1.0;
        let weights = per_rank(q, self.k, |_, _| {
            let w = weight;
            weight *= p;
            Some(w)
        });
        let utilities = per_rank(q, self.k, |_, j| Some(utility(j)));
        let mut sum = 0.0;
        weight = 1.0;
        let terms = per_rank(q, self.k, |_, j| {
            let t = utility(j) * weight;
            sum += t;
            weight *= p;
            Some(t)
        });
        let mut explanation = Explanation::new(self, q);
        if self.gain == RbpGain::Binary {
            explanation = explanation.level(level);
        } else {
            explanation = explanation.quantity("max grade", max_grade);
        }
        explanation
            .column("utility", utilities)
            .column("p^(i-1)", weights)
            .column("utility x p^(i-1)", terms)
            .quantity("sum", sum)
            .formula(format!(
                "{} = (1 - p) x sum = {} x {}",
                self.name(),
                number(1.0 - p),
                number(sum)
            ))
    }
    fn validate(&self) -> Result<(), String> {
        if self.gain == RbpGain::Graded && self.rel.is_some() {
            return Err(
                "rel has no effect with gain = graded (every positive grade is a gain); leave it out"
                    .to_owned(),
            );
        }
        Ok(())
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        let same = self.gain == RbpGain::Graded
            && self.p == Persistence::TREC_EVAL
            && self.k.is_none()
            && self.rel.is_none();
        same.then(|| TrecEvalMeasure::mean("rbp"))
    }
}

const PARAMS: &[ParamDoc] = &[
    PARAM_K,
    PARAM_REL,
    ParamDoc {
        name: "p",
        alias: None,
        default: "0.8",
        doc: "persistence, strictly between 0 and 1 (trec_eval uses 0.9)",
    },
    ParamDoc {
        name: "gain",
        alias: None,
        default: "binary",
        doc: "binary: 1 if relevant at rel; graded: grade / the query's highest grade (trec_eval), rel not used",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::{binary, judged};

    fn persistence(p: f64) -> Persistence {
        Persistence::new(p).unwrap()
    }

    #[test]
    fn binary_gain_weights_rank_i_by_p_to_the_i_minus_1() {
        let q = binary("1 0 1 1", 5);
        let p = 0.8;
        let expected = (1.0 - p) * (1.0 + p * p + p * p * p);
        assert_eq!(
            rbp(&q.view(), None, persistence(p), RbpGain::Binary, 1.0),
            expected
        );
        let top2 = (1.0 - p) * 1.0;
        assert_eq!(
            rbp(
                &q.view(),
                Cutoff::new(2),
                persistence(p),
                RbpGain::Binary,
                1.0
            ),
            top2
        );
    }

    #[test]
    fn binary_gain_follows_the_level() {
        let q = judged("1 2 - 3", &[]);
        let p = 0.5;
        let expected = (1.0 - p) * (p + p * p * p);
        assert_eq!(
            rbp(&q.view(), None, persistence(p), RbpGain::Binary, 2.0),
            expected
        );
    }

    #[test]
    fn graded_gain_divides_by_the_highest_grade_of_the_query() {
        // The highest grade, 4, is never retrieved; the -1 counts 0.
        let q = judged("2 - 0 1", &[4, 0]);
        let p = 0.9;
        let expected = (1.0 - p) * (2.0 / 4.0 + 1.0 / 4.0 * (p * p * p));
        assert_eq!(
            rbp(&q.view(), None, persistence(p), RbpGain::Graded, 1.0),
            expected
        );
    }

    #[test]
    fn empty_list_and_no_relevant_give_zero() {
        let p = persistence(0.8);
        assert_eq!(
            rbp(&binary("", 3).view(), None, p, RbpGain::Binary, 1.0),
            0.0
        );
        assert_eq!(
            rbp(&binary("000", 0).view(), None, p, RbpGain::Graded, 1.0),
            0.0
        );
        assert_eq!(
            rbp(&judged("0 -", &[-1]).view(), None, p, RbpGain::Graded, 1.0),
            0.0
        );
    }

    #[test]
    fn persistence_must_be_strictly_between_0_and_1() {
        assert!(Persistence::new(0.0).is_none());
        assert!(Persistence::new(1.0).is_none());
        assert!(Persistence::new(f64::NAN).is_none());
        assert_eq!(Persistence::new(0.95).unwrap().get(), 0.95);
        for bad in ["0", "1", "1.5", "-0.2", "\"high\""] {
            assert!(serde_json::from_str::<Persistence>(bad).is_err(), "{bad}");
        }
        let error = serde_json::from_str::<Persistence>("1.5")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("p must be strictly between 0 and 1"),
            "{error}"
        );
    }

    #[test]
    fn graded_gain_refuses_a_level() {
        let m = Rbp {
            rel: RelevanceLevel::new(2),
            gain: RbpGain::Graded,
            ..Rbp::default()
        };
        assert!(m.validate().is_err());
        assert!(Rbp::default().validate().is_ok());
    }

    #[test]
    fn canonical_names_and_trec_eval() {
        assert_eq!(Rbp::default().name(), "rbp(p=0.8)");
        assert!(Rbp::default().trec_eval().is_none());
        let trec = Rbp {
            p: Persistence::TREC_EVAL,
            gain: RbpGain::Graded,
            ..Rbp::default()
        };
        assert_eq!(trec.name(), "rbp(p=0.9,gain=graded)");
        assert_eq!(trec.trec_eval().unwrap().name, "rbp");
        let m = Rbp {
            k: Cutoff::new(10),
            rel: RelevanceLevel::new(2),
            p: persistence(0.95),
            gain: RbpGain::Binary,
        };
        assert_eq!(m.name(), "rbp(rel=2,p=0.95)@10");
    }
}
