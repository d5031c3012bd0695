//! Discounted cumulative gain@k, and the gain functions nDCG shares.
//!
//! `DCG@k = sum_{i <= k} gain(g(d_i)) / log2(i + 1)`, with `gain` chosen by
//! `gain`: `linear` (`g`, trec_eval's convention), `exponential`
//! (`2^g - 1`, Burges et al.; ranx `ndcg_burges`, gdeval) or `binary` (1 for
//! a grade of at least the relevance level `rel`, else 0: the recommender
//! convention of "relevant = rating >= 4"). Grades below 0 count as 0; with
//! linear and exponential gain every positive grade is a gain, whatever the
//! relevance level. trec_eval prints no plain DCG.

use std::fmt;

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::{PARAM_K, ParamDoc};
use rankeval_core::{CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel};
use serde::{Deserialize, Serialize};

use crate::common::is_none;
use crate::explain::{per_rank, sum_text};

/// How a grade becomes a gain in DCG and nDCG.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Gain {
    /// The grade itself (trec_eval `ndcg`, ranx `ndcg`).
    #[default]
    Linear,
    /// `2^g - 1` (Burges et al. 2005; ranx `ndcg_burges`, gdeval).
    Exponential,
    /// 1 if the grade is at least the relevance level, else 0 (RecBole and
    /// RecTools `NDCG`, Spark `ndcgAt` without relevance values, Microsoft
    /// recommenders `ndcg_at_k(score_type="binary")`).
    Binary,
}

impl Gain {
    /// The gain of `grade`, used as it is (decimal grades too: a grade of
    /// 3.5 gains 3.5, or `2^3.5 - 1`); grades below 0 count as 0. Binary
    /// gain reads the default level, 1: [`Gain::at`] sets another.
    ///
    /// ```
    /// use rankeval_metrics::dcg::Gain;
    /// assert_eq!(Gain::Linear.of(3.0), 3.0);
    /// assert_eq!(Gain::Linear.of(3.5), 3.5);
    /// assert_eq!(Gain::Exponential.of(3.0), 2.0 * 2.0 * 2.0 - 1.0);
    /// assert_eq!(Gain::Exponential.of(0.5), 2f64.sqrt() - 1.0);
    /// assert_eq!(Gain::Exponential.of(-1.0), 0.0);
    /// assert_eq!(Gain::Binary.of(3.0), 1.0);
    /// assert_eq!(Gain::Binary.of(0.0), 0.0);
    /// ```
    #[inline]
    pub fn of(self, grade: Grade) -> f64 {
        GainAt::from(self).of(grade)
    }

    /// This gain with `level` as the lowest relevant grade of binary gain
    /// (the other gains do not read it).
    pub fn at(self, level: Grade) -> GainAt {
        GainAt { gain: self, level }
    }
}

impl fmt::Display for Gain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Gain::Linear => "linear",
            Gain::Exponential => "exponential",
            Gain::Binary => "binary",
        })
    }
}

/// A gain with the relevance level that binary gain reads: what DCG and
/// nDCG compute with once a metric's `rel` (or the experiment's level) is
/// known.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GainAt {
    /// How a grade becomes a gain.
    pub gain: Gain,
    /// The lowest grade that binary gain counts as 1.
    pub level: Grade,
}

impl GainAt {
    /// The gain of `grade` (see [`Gain::of`]; binary gain reads `level`).
    ///
    /// ```
    /// use rankeval_metrics::dcg::Gain;
    /// assert_eq!(Gain::Binary.at(4.0).of(5.0), 1.0);
    /// assert_eq!(Gain::Binary.at(4.0).of(3.5), 0.0);
    /// assert_eq!(Gain::Linear.at(4.0).of(3.5), 3.5);
    /// ```
    #[inline]
    pub fn of(self, grade: Grade) -> f64 {
        let g = if grade > 0.0 { grade } else { 0.0 };
        match self.gain {
            Gain::Linear => g,
            Gain::Exponential => g.exp2() - 1.0,
            Gain::Binary => f64::from(u8::from(g > 0.0 && g >= self.level)),
        }
    }

    /// Whether this is exponential gain, which large grades overflow.
    pub(crate) fn is_exponential(self) -> bool {
        self.gain == Gain::Exponential
    }
}

/// The default level (1) for binary gain: the gain alone, as [`Gain::of`].
impl From<Gain> for GainAt {
    fn from(gain: Gain) -> Self {
        gain.at(RelevanceLevel::DEFAULT.get())
    }
}

impl fmt::Display for GainAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.gain {
            Gain::Binary => write!(f, "binary, relevant from {}", self.level),
            gain => gain.fmt(f),
        }
    }
}

/// The error of a `rel` set with a gain that does not read it (`dcg`,
/// `ndcg`).
pub(crate) fn check_rel(gain: Gain, rel: Option<RelevanceLevel>) -> Result<(), String> {
    match rel {
        Some(level) if gain != Gain::Binary => Err(format!(
            "rel has no effect with gain = \"{gain}\": only gain = \"binary\" reads a relevance level \
             (for gain 1 from grade {level} up and 0 below it: gain=binary,rel={level})"
        )),
        _ => Ok(()),
    }
}

/// The base of DCG's logarithmic discount: a number above 1, 2 by default.
/// Rank `i` is discounted by `log_base(i + 1)`; scikit-learn's `dcg_score`
/// takes it as `log_base`, and ML.NET's DCG uses the natural logarithm
/// (`base = 2.718281828459045`). In nDCG the base cancels out (every
/// discount is divided by the same `ln(base)`), so only `dcg` takes it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(transparent)]
pub struct LogBase(f64);

impl LogBase {
    /// Base 2 (trec_eval, Järvelin and Kekäläinen's usual choice).
    pub const TWO: LogBase = LogBase(2.0);

    /// `base`, or `None` unless it is finite and above 1.
    pub fn new(base: f64) -> Option<Self> {
        (base > 1.0 && base.is_finite()).then_some(LogBase(base))
    }

    /// Whether this is the default, 2.
    pub fn is_two(&self) -> bool {
        self.0 == 2.0
    }

    /// The discount of 0-based rank `i`: `log_base(i + 2)`.
    #[inline]
    pub fn discount(self, i: usize) -> f64 {
        if self.is_two() {
            ((i + 2) as f64).log2()
        } else {
            ((i + 2) as f64).ln() / self.0.ln()
        }
    }
}

impl Default for LogBase {
    fn default() -> Self {
        Self::TWO
    }
}

impl fmt::Display for LogBase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<'de> Deserialize<'de> for LogBase {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::{self, Visitor};
        struct BaseVisitor;
        impl Visitor<'_> for BaseVisitor {
            type Value = LogBase;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number above 1")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<LogBase, E> {
                LogBase::new(v).ok_or_else(|| {
                    E::custom(format!(
                        "base must be a number above 1 (2 by default), not {v}"
                    ))
                })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<LogBase, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<LogBase, E> {
                self.visit_f64(v as f64)
            }
        }
        deserializer.deserialize_f64(BaseVisitor)
    }
}

/// DCG@k with the discount `log_base(i + 1)` at rank `i` (base 2: [`dcg`],
/// the same bits).
pub fn dcg_with_base(
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    gain: impl Into<GainAt>,
    base: LogBase,
) -> f64 {
    let gain = gain.into();
    if base.is_two() {
        return dcg(q, k, gain);
    }
    q.top(k)
        .iter()
        .enumerate()
        .map(|(i, j)| (i, gain.of(j.grade())))
        .filter(|&(_, x)| x != 0.0)
        .fold(0.0, |sum, (i, x)| sum + x / base.discount(i))
}

/// The discounted sum of the gains of `grades`, best first: rank `i`
/// (1-based) is discounted by `1 / log2(i + 1)`. Ideal DCG is this sum over
/// the ideal grades.
pub fn discounted_sum(grades: impl IntoIterator<Item = Grade>, gain: impl Into<GainAt>) -> f64 {
    let gain = gain.into();
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
pub fn dcg(q: &JudgedRanking<'_>, k: Option<Cutoff>, gain: impl Into<GainAt>) -> f64 {
    discounted_sum(q.top(k).iter().map(|j| j.grade()), gain)
}

/// The expected DCG@k over every order of each group of tied scores.
pub fn expected_dcg(q: &JudgedRanking<'_>, k: Option<Cutoff>, gain: impl Into<GainAt>) -> f64 {
    expected_dcg_with_base(q, k, gain, LogBase::TWO)
}

/// [`expected_dcg`] with the discount `log_base(i + 1)`.
pub fn expected_dcg_with_base(
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    gain: impl Into<GainAt>,
    base: LogBase,
) -> f64 {
    let gain = gain.into();
    crate::tie_average::expected_sum(
        q,
        k,
        |j| gain.of(j.grade()),
        |mean, i| mean / base.discount(i),
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
    /// Relevance level of binary gain; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
    /// The base of the logarithmic discount.
    #[serde(default, skip_serializing_if = "LogBase::is_two")]
    pub base: LogBase,
}

#[rankeval_core::metric(
    name = "dcg",
    summary = "discounted cumulative gain: sum of gain / log2(rank + 1) over the top k",
    params = &[PARAM_K, PARAM_GAIN, PARAM_GAIN_REL, PARAM_BASE],
    example = Dcg { k: Cutoff::new(10), gain: Gain::Exponential, rel: None, base: LogBase::TWO },
)]
impl Metric for Dcg {
    /// A sum of discounted gains, each of one document's grade.
    fn is_additive(&self) -> bool {
        true
    }
    /// Grades are gains; only binary gain reads a level.
    fn uses_default_level(&self) -> bool {
        self.gain == Gain::Binary && self.rel.is_none()
    }
    fn validate(&self) -> Result<(), String> {
        check_rel(self.gain, self.rel)
    }

    fn name(&self) -> String {
        CanonicalName::new("dcg")
            .param_unless_default("gain", self.gain, Gain::Linear)
            .param_if_set("rel", self.rel)
            .param_unless_default("base", self.base, LogBase::TWO)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        dcg_with_base(q, self.k, self.gain.at(q.level(self.rel)), self.base)
    }
    /// DCG: `sum of gain(i) / log2(i + 1)`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        if !self.base.is_two() {
            // The per-rank columns show base-2 discounts: the value alone.
            return Explanation::new(self, q);
        }
        let gain = self.gain.at(q.level(self.rel));
        let explanation = gain_level(Explanation::new(self, q), gain);
        let (explanation, terms) = dcg_columns(explanation, q, self.k, gain);
        explanation.formula(format!("{} = {}", self.name(), sum_text(&terms)))
    }
    /// The expected gain of each rank, discounted.
    fn score_tie_average(&self, q: &JudgedRanking<'_>) -> Option<f64> {
        let gain = self.gain.at(q.level(self.rel));
        Some(expected_dcg_with_base(q, self.k, gain, self.base))
    }
}

/// The `gain` parameter, shared with `ndcg`.
pub(crate) const PARAM_GAIN: ParamDoc = ParamDoc {
    name: "gain",
    alias: None,
    default: "linear",
    doc: "linear: the grade g (trec_eval); exponential: 2^g - 1 (Burges, ranx ndcg_burges); binary: 1 if g >= rel, else 0 (RecBole, RecTools, Spark ndcgAt, Microsoft recommenders)",
};

/// The `rel` parameter of binary gain, shared with `ndcg`.
pub(crate) const PARAM_GAIN_REL: ParamDoc = ParamDoc {
    name: "rel",
    alias: None,
    default: "unset",
    doc: "relevance level of gain = binary (an error with any other gain); unset = the experiment's level (--rel, TOML rel; 1 unless set)",
};

/// The `base` parameter of `dcg`.
const PARAM_BASE: ParamDoc = ParamDoc {
    name: "base",
    alias: None,
    default: "2",
    doc: "base of the discount log_base(rank + 1), above 1 (scikit-learn dcg_score log_base; 2.718281828459045 = ML.NET's natural log)",
};

/// The gain, discount and DCG term of each rank read.
pub(crate) fn dcg_columns(
    explanation: Explanation,
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    gain: GainAt,
) -> (Explanation, Vec<String>) {
    let mut terms = Vec::new();
    let gains = per_rank(q, k, |_, j| Some(gain.of(j.grade())));
    let discounts = per_rank(q, k, |i, _| Some(((i + 2) as f64).log2()));
    let dcg_terms = per_rank(q, k, |i, j| {
        let g = gain.of(j.grade());
        let d = ((i + 2) as f64).log2();
        if g != 0.0 {
            terms.push(format!("{}/{}", number(g), number(d)));
        }
        Some(g / d)
    });
    let explanation = explanation
        .column(format!("gain ({})", gain.gain), gains)
        .column("discount log2(i+1)", discounts)
        .column("DCG term", dcg_terms);
    (explanation, terms)
}

/// The relevance level in the explanation, for binary gain (the only gain
/// that reads one).
pub(crate) fn gain_level(explanation: Explanation, gain: GainAt) -> Explanation {
    if gain.gain == Gain::Binary {
        explanation.level(gain.level)
    } else {
        explanation
    }
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
            rel: None,
            base: LogBase::TWO,
        };
        assert_eq!(m.name(), "dcg(gain=exponential)@5");
        let m = Dcg {
            base: LogBase::new(10.0).unwrap(),
            ..m
        };
        assert_eq!(m.name(), "dcg(gain=exponential,base=10)@5");
    }

    /// scikit-learn's `dcg_score` documentation: true relevance
    /// `[10, 0, 0, 1, 5]`, scores `[.1, .2, .3, 4, 70]`: DCG 9.49...,
    /// at k = 2 5.63...; with scores `[1, 0, 0, 0, 1]` (a tie at the top)
    /// and k = 1, 7.5 averaging the tie, 5.0 ignoring it.
    #[test]
    fn scikit_learn_published_values() {
        // Ranked by score: 5 (70), 1 (4), 0 (.3), 0 (.2), 10 (.1).
        let q = judged_grades(&[5.0, 1.0, 0.0, 0.0, 10.0]);
        let value = dcg(&q.view(), None, Gain::Linear);
        // The documentation prints the first digits: 9.49...
        assert!((9.49..9.5).contains(&value), "{value}");
        let value = dcg(&q.view(), Cutoff::new(2), Gain::Linear);
        assert!((5.63..5.64).contains(&value), "{value}");
        // Scores 1, 1 tie for 10 and 5; then 0, 0, 0.
        let tied = judged_grades(&[10.0, 5.0, 0.0, 0.0, 1.0]);
        let view = tied.view().with_tie_groups(&[2, 5]);
        assert_eq!(expected_dcg(&view, Cutoff::new(1), Gain::Linear), 7.5);
        // `ignore_ties=True` ranks 5 before 10 (a stable argsort reversed).
        let ignored = judged_grades(&[5.0, 10.0, 0.0, 0.0, 1.0]);
        assert_eq!(dcg(&ignored.view(), Cutoff::new(1), Gain::Linear), 5.0);
    }

    /// Base 10 and base e: every discount divided by `log2(base)`.
    #[test]
    fn another_base_scales_every_discount() {
        let q = judged("2 1 0 3", &[]);
        for base in [10.0, std::f64::consts::E] {
            let m = Dcg {
                base: LogBase::new(base).unwrap(),
                ..Dcg::default()
            };
            let expected = dcg(&q.view(), None, Gain::Linear) * base.log2();
            assert!((m.score(&q.view()) - expected).abs() < 1e-12);
        }
        assert!(LogBase::new(1.0).is_none() && LogBase::new(f64::NAN).is_none());
    }

    fn judged_grades(grades: &[f64]) -> rankeval_core::testing::OwnedJudged {
        let ranked: Vec<Option<f64>> = grades.iter().copied().map(Some).collect();
        rankeval_core::testing::graded(&ranked, &[])
    }
}
