//! Normalized discounted cumulative gain@k.
//!
//! `nDCG@k = DCG@k / IDCG@k`, where IDCG@k is the DCG of the ideal ranking:
//! every judged grade of the query, in descending order, cut at k. 0 when
//! IDCG is 0. Grades below 0 count as 0, and with linear or exponential gain
//! every positive grade is a gain whatever the relevance level (as
//! trec_eval; ranx instead drops grades below its threshold). With linear
//! gain this is trec_eval's `ndcg` (no cutoff) and `ndcg_cut_k`. With
//! `gain = "binary"` a grade of at least `rel` gains 1 and any other 0, in
//! DCG and in the ideal alike: the binary nDCG of recommender evaluation
//! ("relevant = rating >= 4": `ndcg(gain=binary,rel=4)@10`).
//!
//! With `ideal = "k"`, IDCG@k is instead the DCG of k documents of the
//! query's top grade, whatever `|R|` (RecTools, C/W/L SDCG; see
//! [`ndcg_ideal`](crate::ndcg_ideal)).

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::{PARAM_K, ParamDoc};
use rankeval_core::{
    CanonicalName, Cutoff, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure,
};
use serde::{Deserialize, Serialize};

use crate::common::is_none;
use crate::dcg::{
    Gain, GainAt, PARAM_GAIN, PARAM_GAIN_REL, check_rel, dcg, dcg_columns, discounted_sum,
    expected_dcg, gain_level,
};
use crate::explain::{at, sum_text};
use crate::ndcg_ideal::{NdcgIdeal, ndcg_ideal_k};

/// nDCG@k of one query.
///
/// # Example
/// Grades 0, 2, 1 retrieved and a grade-2 document missed: the ideal
/// order is 2, 2, 1.
/// ```
/// use rankeval_metrics::ndcg::ndcg;
/// use rankeval_metrics::dcg::Gain;
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::judged("0 2 1", &[2]);
/// let dcg = 2.0 / 3f64.log2() + 1.0 / 4f64.log2();
/// let ideal = 2.0 / 2f64.log2() + 2.0 / 3f64.log2() + 1.0 / 4f64.log2();
/// assert_eq!(ndcg(&q.view(), Cutoff::new(3), Gain::Linear), dcg / ideal);
/// ```
pub fn ndcg(q: &JudgedRanking<'_>, k: Option<Cutoff>, gain: impl Into<GainAt>) -> f64 {
    let gain = gain.into();
    let ideal = q.ideal_grades();
    let ideal = match k {
        Some(k) => &ideal[..k.get().min(ideal.len())],
        None => ideal,
    };
    let top = ideal.first().copied().unwrap_or(0.0);
    if gain.is_exponential() && top > LARGEST_UNSCALED_GRADE {
        return scaled_exponential_ndcg(q, k, ideal, top);
    }
    let ideal_dcg = discounted_sum(ideal.iter().copied(), gain);
    if ideal_dcg > 0.0 {
        dcg(q, k, gain) / ideal_dcg
    } else {
        0.0
    }
}

/// Above this grade, `2^g` overflows an `f64` (at 1024) or comes close:
/// exponential gains are then divided by `2^top` first, which leaves the
/// ratio unchanged. Grades up to it are computed as written, so their
/// values do not change.
const LARGEST_UNSCALED_GRADE: rankeval_core::Grade = 1000.0;

/// nDCG with exponential gain, every gain `2^g - 1` divided by `2^top`
/// (the largest grade of the ideal ranking), so that no gain overflows.
fn scaled_exponential_ndcg(
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    ideal: &[rankeval_core::Grade],
    top: rankeval_core::Grade,
) -> f64 {
    let sum = |grades: &mut dyn Iterator<Item = rankeval_core::Grade>| {
        grades
            .enumerate()
            .filter(|&(_, g)| g > 0.0)
            .map(|(i, g)| ((g - top).exp2() - (-top).exp2()) / ((i + 2) as f64).log2())
            .fold(0.0, |sum, x| sum + x)
    };
    // `top > 0`, so the ideal sum is positive.
    sum(&mut q.top(k).iter().map(|j| j.grade())) / sum(&mut ideal.iter().copied())
}

/// The expected nDCG@k over every order of each group of tied scores: the
/// ideal does not depend on the order, so it is the expected DCG over the
/// same ideal (the ideal's grades with `ideal = "k"`).
pub fn expected_ndcg(
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    gain: impl Into<GainAt>,
    ideal: NdcgIdeal,
) -> f64 {
    let gain = gain.into();
    let grades = q.ideal_grades();
    let top = grades.first().copied().unwrap_or(0.0);
    let ideal: Vec<rankeval_core::Grade> = match ideal {
        NdcgIdeal::Judged => match k {
            Some(k) => grades[..k.get().min(grades.len())].to_vec(),
            None => grades.to_vec(),
        },
        NdcgIdeal::K => vec![top; k.map_or(q.retrieved(), Cutoff::get)],
    };
    let discount = |i: usize| ((i + 2) as f64).log2();
    if gain.is_exponential() && top > LARGEST_UNSCALED_GRADE {
        let scaled = |g: rankeval_core::Grade| {
            if g > 0.0 {
                (g - top).exp2() - (-top).exp2()
            } else {
                0.0
            }
        };
        let dcg = crate::tie_average::expected_sum(
            q,
            k,
            |j| scaled(j.grade()),
            |mean, i| mean / discount(i),
        );
        let ideal_dcg = ideal
            .iter()
            .enumerate()
            .fold(0.0, |sum, (i, &g)| sum + scaled(g) / discount(i));
        return if ideal_dcg > 0.0 {
            dcg / ideal_dcg
        } else {
            0.0
        };
    }
    let ideal_dcg = discounted_sum(ideal.iter().copied(), gain);
    if ideal_dcg > 0.0 {
        expected_dcg(q, k, gain) / ideal_dcg
    } else {
        0.0
    }
}

/// The `ndcg` metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ndcg {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// How a grade becomes a gain.
    #[serde(default)]
    pub gain: Gain,
    /// Relevance level of binary gain; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
    /// What DCG is divided by.
    #[serde(default)]
    pub ideal: NdcgIdeal,
}

impl Ndcg {
    /// nDCG at `k` with linear gain (`None` if `k` is 0).
    pub fn at(k: usize) -> Option<Self> {
        Some(Self {
            k: Some(Cutoff::new(k)?),
            gain: Gain::Linear,
            rel: None,
            ideal: NdcgIdeal::Judged,
        })
    }
}

#[rankeval_core::metric(
    name = "ndcg",
    summary = "DCG@k divided by the DCG@k of the ideal ordering of all judged grades",
    params = &[PARAM_K, PARAM_GAIN, PARAM_GAIN_REL, PARAM_IDEAL],
    example = Ndcg { k: Cutoff::new(10), gain: Gain::Binary, rel: RelevanceLevel::new(4), ideal: NdcgIdeal::Judged },
)]
impl Metric for Ndcg {
    /// Grades are gains; only binary gain reads a level.
    fn uses_default_level(&self) -> bool {
        self.gain == Gain::Binary && self.rel.is_none()
    }
    fn validate(&self) -> Result<(), String> {
        check_rel(self.gain, self.rel)
    }

    fn name(&self) -> String {
        CanonicalName::new("ndcg")
            .param_unless_default("gain", self.gain, Gain::Linear)
            .param_if_set("rel", self.rel)
            .param_unless_default("ideal", self.ideal, NdcgIdeal::Judged)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        let gain = self.gain.at(q.level(self.rel));
        match self.ideal {
            NdcgIdeal::Judged => ndcg(q, self.k, gain),
            NdcgIdeal::K => ndcg_ideal_k(q, self.k, gain),
        }
    }
    /// nDCG: `DCG@k / IDCG@k`, the ideal DCG of the judged grades sorted.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let ideal = q.ideal_grades();
        let ideal = match self.k {
            Some(k) => &ideal[..k.get().min(ideal.len())],
            None => ideal,
        };
        let gain = self.gain.at(q.level(self.rel));
        let dcg = crate::dcg::dcg(q, self.k, gain);
        let ideal_dcg = discounted_sum(ideal.iter().copied(), gain);
        let ideal_terms: Vec<String> = ideal
            .iter()
            .enumerate()
            .filter(|(_, g)| gain.of(**g) != 0.0)
            .map(|(i, g)| {
                format!(
                    "{}/{}",
                    number(gain.of(*g)),
                    number(((i + 2) as f64).log2())
                )
            })
            .collect();
        let explanation = gain_level(Explanation::new(self, q), gain);
        let (explanation, dcg_terms) = dcg_columns(explanation, q, self.k, gain);
        let read = q.top(self.k).len();
        let ideal_gains: Vec<Option<f64>> = (0..q.ranked().len())
            .map(|i| (i < read).then(|| ideal.get(i).map_or(0.0, |g| gain.of(*g))))
            .collect();
        let k = at(self.k);
        let explanation = explanation
            .column("ideal gain", ideal_gains)
            .quantity(format!("DCG{k}"), dcg)
            .quantity(format!("IDCG{k}"), ideal_dcg);
        let formula = if ideal_dcg > 0.0 {
            format!(
                "{} = DCG{k} / IDCG{k} = ({}) / ({}) = {} / {}",
                self.name(),
                sum_text(&dcg_terms),
                sum_text(&ideal_terms),
                number(dcg),
                number(ideal_dcg)
            )
        } else {
            format!("{} = 0 (IDCG{k} = 0: no judged gain)", self.name())
        };
        explanation
            .formula(formula)
            .normalizer(format!("divided by IDCG{k} = {}", number(ideal_dcg)))
    }
    /// The expected DCG over the ideal, which does not depend on the order.
    fn score_tie_average(&self, q: &JudgedRanking<'_>) -> Option<f64> {
        let gain = self.gain.at(q.level(self.rel));
        Some(expected_ndcg(q, self.k, gain, self.ideal))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        if self.gain != Gain::Linear || self.ideal != NdcgIdeal::Judged {
            return None;
        }
        Some(match self.k {
            Some(k) => TrecEvalMeasure::mean(format!("ndcg_cut_{k}")),
            None => TrecEvalMeasure::mean("ndcg"),
        })
    }
}

const PARAM_IDEAL: ParamDoc = ParamDoc {
    name: "ideal",
    alias: None,
    default: "judged",
    doc: "judged: the query's judged grades, descending (trec_eval); k: k documents of its top grade (RecTools, SDCG)",
};

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::judged;

    fn at(pattern: &str, unretrieved: &[i32], k: Option<usize>, gain: Gain) -> f64 {
        ndcg(
            &judged(pattern, unretrieved).view(),
            k.and_then(Cutoff::new),
            gain,
        )
    }

    #[test]
    fn divides_by_the_ideal_cut_at_k() {
        // Ranked 1 0 3; the qrels also hold an unretrieved 2: ideal 3 2 1 0.
        let dcg2 = 1.0 / 2f64.log2();
        let ideal2 = 3.0 / 2f64.log2() + 2.0 / 3f64.log2();
        assert_eq!(at("1 0 3", &[2], Some(2), Gain::Linear), dcg2 / ideal2);
        let dcg = 1.0 / 2f64.log2() + 3.0 / 4f64.log2();
        let ideal = 3.0 / 2f64.log2() + 2.0 / 3f64.log2() + 1.0 / 4f64.log2();
        assert_eq!(at("1 0 3", &[2], None, Gain::Linear), dcg / ideal);
    }

    #[test]
    fn exponential_gain() {
        let dcg = (2.0 - 1.0) / 2f64.log2() + (8.0 - 1.0) / 4f64.log2();
        let ideal = (8.0 - 1.0) / 2f64.log2() + (2.0 - 1.0) / 3f64.log2();
        assert_eq!(at("1 0 3", &[], None, Gain::Exponential), dcg / ideal);
    }

    /// nDCG of a ranking of judged `grades`, the ideal being those grades.
    fn of_grades(grades: &[i32], gain: Gain) -> f64 {
        use rankeval_core::{Judgement, RelevanceLevel};
        let ranked: Vec<Judgement> = grades
            .iter()
            .map(|&g| Judgement::judged(g.into()))
            .collect();
        let mut ideal: Vec<f64> = grades.iter().map(|&g| g.into()).collect();
        ideal.sort_unstable_by(|a, b| b.total_cmp(a));
        let q = JudgedRanking::new(&ranked, ranked.len(), &ideal, RelevanceLevel::DEFAULT);
        ndcg(&q, None, gain)
    }

    #[test]
    fn exponential_gain_of_huge_grades_does_not_overflow() {
        // 2^1030 overflows an f64; the ratio is taken with every gain
        // divided by 2^1030 (the -1 of each gain is then below an ulp).
        let dcg = 2f64.powi(-6) / 2f64.log2() + 1.0 / 3f64.log2();
        let ideal = 1.0 / 2f64.log2() + 2f64.powi(-6) / 3f64.log2();
        let got = of_grades(&[1024, 1030], Gain::Exponential);
        assert!(((got - dcg / ideal) / (dcg / ideal)).abs() < 1e-15, "{got}");
        assert_eq!(of_grades(&[1030, 1024, 0, -1], Gain::Exponential), 1.0);
        assert_eq!(of_grades(&[i32::MAX, 1], Gain::Exponential), 1.0);
        // Grades up to the limit are computed as written.
        let dcg = (2f64.powi(999) - 1.0) / 2f64.log2() + (2f64.powi(1000) - 1.0) / 3f64.log2();
        let ideal = (2f64.powi(1000) - 1.0) / 2f64.log2() + (2f64.powi(999) - 1.0) / 3f64.log2();
        assert_eq!(of_grades(&[999, 1000], Gain::Exponential), dcg / ideal);
    }

    #[test]
    fn ideal_ranking_scores_one() {
        assert_eq!(at("3 2 2 1 0", &[0, -1], None, Gain::Linear), 1.0);
        assert_eq!(at("3 2 2 1 0", &[], Some(3), Gain::Exponential), 1.0);
    }

    #[test]
    fn negative_grades_count_zero_and_every_positive_grade_counts() {
        // The negative grade adds nothing to DCG nor to the ideal.
        let dcg = 1.0 / 3f64.log2();
        let ideal = 1.0 / 2f64.log2();
        assert_eq!(at("- 1", &[-1], None, Gain::Linear), dcg / ideal);
        // The level plays no part: grade 1 is a gain even at level 3.
        let q = judged("- 1", &[-1]).with_level(3);
        assert_eq!(ndcg(&q.view(), None, Gain::Linear), dcg / ideal);
    }

    #[test]
    fn no_gain_in_the_qrels_gives_zero() {
        assert_eq!(at("0 0 .", &[-1], Some(3), Gain::Linear), 0.0);
        assert_eq!(at("", &[], None, Gain::Linear), 0.0);
        assert_eq!(at("", &[2], Some(5), Gain::Linear), 0.0 / 2.0);
    }

    #[test]
    fn list_shorter_than_k() {
        // One retrieved, four in the ideal top 5.
        let ideal = 1.0 / 2f64.log2() + 1.0 / 3f64.log2() + 1.0 / 4f64.log2() + 1.0 / 5f64.log2();
        assert_eq!(
            at("1", &[1, 1, 1], Some(5), Gain::Linear),
            (1.0 / 2f64.log2()) / ideal
        );
    }

    #[test]
    fn binary_gain_counts_grades_from_the_level_as_one() {
        // Ratings 5 3 4 1 ranked, a 4 missed; relevant = rating >= 4.
        let q = judged("5 3 4 1", &[4]);
        let dcg = 1.0 / 2f64.log2() + 1.0 / 4f64.log2();
        // Ideal: 5 4 4 3 1, gains 1 1 1 0 0.
        let ideal = 1.0 / 2f64.log2() + 1.0 / 3f64.log2() + 1.0 / 4f64.log2();
        let binary = Gain::Binary.at(4.0);
        assert_eq!(ndcg(&q.view(), Cutoff::new(4), binary), dcg / ideal);
        // The same as linear gain on the qrels made binary at 4.
        let made_binary = judged("1 0 1 0", &[1]);
        assert_eq!(
            ndcg(&q.view(), Cutoff::new(4), binary),
            ndcg(&made_binary.view(), Cutoff::new(4), Gain::Linear)
        );
        // Without `rel`, the experiment's level: 1 by default, so every
        // positive grade gains 1.
        let m = |spec: &str| rankeval_core::registry::parse_metric(spec).unwrap();
        let all = 1.0 / 2f64.log2() + 1.0 / 3f64.log2() + 1.0 / 4f64.log2() + 1.0 / 5f64.log2();
        assert_eq!(q.score(m("ndcg(gain=binary)@4").as_ref()), all / all);
        let at_four = m("ndcg(gain=binary,rel=4)@4");
        assert_eq!(q.score(at_four.as_ref()), dcg / ideal);
        assert_eq!(
            q.clone()
                .with_level(4)
                .score(m("ndcg(gain=binary)@4").as_ref()),
            dcg / ideal
        );
        // `rel` of the metric wins over the experiment's level.
        assert_eq!(q.with_level(2).score(at_four.as_ref()), dcg / ideal);
        // Decimal levels: 3.5 stars and up.
        let half_stars = judged("3 4 5", &[]);
        let m35 = m("ndcg(gain=binary,rel=3.5)");
        let expected = (1.0 / 3f64.log2() + 1.0 / 4f64.log2()) / (1.0 + 1.0 / 3f64.log2());
        assert_eq!(half_stars.score(m35.as_ref()), expected);
    }

    #[test]
    fn rel_without_binary_gain_is_refused_with_the_way_to_write_it() {
        let error = rankeval_core::registry::parse_metric("ndcg(rel=4)@10")
            .unwrap_err()
            .to_string();
        assert!(error.contains("rel has no effect"), "{error}");
        assert!(error.contains("gain=binary,rel=4"), "{error}");
        for spec in ["ndcg(gain=exponential,rel=2)", "dcg(rel=2)"] {
            assert!(
                rankeval_core::registry::parse_metric(spec).is_err(),
                "{spec}"
            );
        }
        let m = rankeval_core::registry::parse_metric("ndcg(rel=4,gain=binary)@10").unwrap();
        assert_eq!(m.name(), "ndcg(gain=binary,rel=4)@10");
        assert!(m.trec_eval().is_none());
        assert!(!m.uses_default_level());
        let m = rankeval_core::registry::parse_metric("ndcg(gain=binary)@10").unwrap();
        assert!(m.uses_default_level());
    }

    #[test]
    fn canonical_names_and_trec_eval() {
        assert_eq!(Ndcg::at(10).unwrap().name(), "ndcg@10");
        assert_eq!(
            Ndcg::at(10).unwrap().trec_eval().unwrap().name,
            "ndcg_cut_10"
        );
        assert_eq!(Ndcg::default().trec_eval().unwrap().name, "ndcg");
        let burges = Ndcg {
            k: Cutoff::new(5),
            gain: Gain::Exponential,
            rel: None,
            ideal: NdcgIdeal::Judged,
        };
        assert_eq!(burges.name(), "ndcg(gain=exponential)@5");
        assert!(burges.trec_eval().is_none());
        let rectools = Ndcg {
            ideal: NdcgIdeal::K,
            ..Ndcg::at(10).unwrap()
        };
        assert_eq!(rectools.name(), "ndcg(ideal=k)@10");
        assert!(rectools.trec_eval().is_none());
    }
}
