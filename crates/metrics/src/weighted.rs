//! A metric declared in TOML, without code: a gain per document, a
//! discount per rank, and a normalization.
//!
//! ```text
//! weighted@k = sum_{i <= k} gain(d_i) (*|/) discount(i)  /  Z
//! ```
//!
//! | `gain` | gain of a document of grade `g` |
//! |---|---|
//! | `binary` | 1 if `g >= rel`, else 0 |
//! | `grade` (default) | `max(g, 0)` |
//! | `exponential` | `2^max(g, 0) - 1` |
//! | `map` | the gain `gains` gives `g` (`"1=3,2=9"`, trec_eval's `ndcg` gain values); a grade it does not list is its own gain (`max(g, 0)`), as in trec_eval |
//!
//! | `discount` | rank `i` (from 1) |
//! |---|---|
//! | `none` | gain as is |
//! | `log2` (default) | gain / log2(i + 1) |
//! | `reciprocal` | gain / i |
//! | `geometric` | gain * p^(i-1), persistence `p` |
//!
//! | `normalization` | `Z` |
//! |---|---|
//! | `none` | 1 |
//! | `ideal` (default) | the same sum over the ideal ranking: the query's judged gains, descending, cut at k |
//! | `weights` | the sum of the discounts of ranks 1..k (`k = n` without cutoff): a weighted share |
//! | `unbounded` | `1 / (1 - p)`, the total weight of an endless list (geometric only): the result is multiplied by `1 - p` |
//!
//! `Z = 0` gives 0. The sums run in rank order with the same operations as
//! the built-in metrics they overlap with, so `weighted` gives their
//! values bit for bit: `dcg` (`normalization = "none"`), `ndcg` (the
//! defaults; `gain = "exponential"`), `precision` (`binary`, `none`,
//! `weights`), `rbp` (`binary`, `geometric`, `unbounded`) and the
//! custom-metric example's attention share (`binary`, `geometric`,
//! `weights`).

use std::fmt;

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::{PARAM_K, PARAM_REL, ParamDoc};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Judgement, Metric, RelevanceLevel,
};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::common::is_none;
use crate::dcg::Gain;
use crate::explain::{per_rank, sum_text};
use crate::rbp::Persistence;

/// How a document's grade becomes its gain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WeightedGain {
    /// 1 if relevant at the level, else 0.
    Binary,
    /// The grade, floored at 0.
    #[default]
    Grade,
    /// `2^g - 1`, the grade floored at 0.
    Exponential,
    /// The gain `gains` gives the grade; unlisted grades are their own gain.
    Map,
}

/// How rank `i` discounts a gain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Discount {
    /// No discount.
    None,
    /// Divided by `log2(i + 1)`.
    #[default]
    Log2,
    /// Divided by `i`.
    Reciprocal,
    /// Multiplied by `p^(i-1)`.
    Geometric,
}

/// What the discounted sum is divided by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WeightedNormalization {
    /// Nothing: the discounted sum itself.
    None,
    /// The discounted sum of the ideal ranking.
    #[default]
    Ideal,
    /// The sum of the discounts of ranks 1..k.
    Weights,
    /// `1 / (1 - p)` (geometric discount only), as RBP.
    Unbounded,
}

macro_rules! display_lowercase {
    ($type:ty, $($variant:ident => $text:literal),+) => {
        impl fmt::Display for $type {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(match self { $(Self::$variant => $text),+ })
            }
        }
    };
}
display_lowercase!(WeightedGain, Binary => "binary", Grade => "grade", Exponential => "exponential", Map => "map");
display_lowercase!(Discount, None => "none", Log2 => "log2", Reciprocal => "reciprocal", Geometric => "geometric");
display_lowercase!(WeightedNormalization, None => "none", Ideal => "ideal", Weights => "weights", Unbounded => "unbounded");

/// Gains per grade, written `"1=3,2=9"` (trec_eval's `ndcg` gain values):
/// each gain a non-negative finite number, each grade once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GainMap(Vec<(Grade, f64)>);

impl GainMap {
    /// Parses `"grade=gain,..."`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut pairs: Vec<(Grade, f64)> = Vec::new();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (grade, gain) = item
                .split_once('=')
                .ok_or_else(|| format!("`{item}` is not grade=gain"))?;
            let grade: Grade = grade
                .trim()
                .parse()
                .ok()
                .filter(|g: &Grade| g.is_finite())
                .ok_or_else(|| format!("`{}` in `{item}` is not a grade", grade.trim()))?;
            let gain: f64 = gain
                .trim()
                .parse()
                .ok()
                .filter(|g: &f64| g.is_finite() && *g >= 0.0)
                .ok_or_else(|| {
                    format!("`{}` in `{item}` is not a non-negative gain", gain.trim())
                })?;
            if pairs.iter().any(|&(g, _)| g == grade) {
                return Err(format!("grade {grade} is given twice"));
            }
            pairs.push((grade, gain));
        }
        if pairs.is_empty() {
            return Err("no grade=gain pair".to_owned());
        }
        pairs.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
        Ok(GainMap(pairs))
    }

    /// The gain of `grade`: its listed gain, else the grade floored at 0.
    #[inline]
    pub fn of(&self, grade: Grade) -> f64 {
        match self.0.iter().find(|&&(g, _)| g == grade) {
            Some(&(_, gain)) => gain,
            None => Gain::Linear.of(grade),
        }
    }

    fn text(&self) -> String {
        let items: Vec<String> = self.0.iter().map(|(g, x)| format!("{g}={x}")).collect();
        items.join(",")
    }
}

/// Quoted, as the short syntax needs for a value holding `,` and `=`.
impl fmt::Display for GainMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.text())
    }
}

impl Serialize for GainMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text())
    }
}

impl<'de> Deserialize<'de> for GainMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct GainMapVisitor;
        impl Visitor<'_> for GainMapVisitor {
            type Value = GainMap;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("gains per grade as a string, e.g. \"1=3,2=9\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<GainMap, E> {
                GainMap::parse(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(GainMapVisitor)
    }
}

/// The `weighted` metric: gain, discount and normalization by name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weighted {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level of `gain = "binary"`; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
    /// How a grade becomes a gain.
    #[serde(default)]
    pub gain: WeightedGain,
    /// Gains per grade, for `gain = "map"`.
    #[serde(default, skip_serializing_if = "is_none")]
    pub gains: Option<GainMap>,
    /// How a rank discounts a gain.
    #[serde(default)]
    pub discount: Discount,
    /// Persistence of the geometric discount.
    #[serde(default)]
    pub p: Persistence,
    /// What the sum is divided by.
    #[serde(default)]
    pub normalization: WeightedNormalization,
}

impl Weighted {
    /// The gain of the document at one rank.
    #[inline]
    pub(crate) fn gain_of(&self, judgement: Judgement, level: Grade) -> f64 {
        match self.gain {
            WeightedGain::Binary => f64::from(u8::from(judgement.is_relevant(level))),
            _ => self.gain_of_grade(judgement.grade()),
        }
    }

    /// The gain of a grade (not binary).
    #[inline]
    fn gain_of_grade(&self, grade: Grade) -> f64 {
        match (self.gain, &self.gains) {
            (WeightedGain::Map, Some(map)) => map.of(grade),
            (WeightedGain::Exponential, _) => Gain::Exponential.of(grade),
            _ => Gain::Linear.of(grade),
        }
    }

    /// The discounted sum of `gains`, best first, and the sum of the
    /// discounts of the first `depth` ranks.
    pub(crate) fn discounted(&self, gains: impl Iterator<Item = f64>) -> f64 {
        let p = self.p.get();
        let mut weight = 1.0;
        let mut sum = 0.0;
        for (i, gain) in gains.enumerate() {
            sum += match self.discount {
                Discount::None => gain,
                Discount::Log2 => gain / ((i + 2) as f64).log2(),
                Discount::Reciprocal => gain / (i + 1) as f64,
                Discount::Geometric => gain * weight,
            };
            weight *= p;
        }
        sum
    }

    /// The sum of the discounts of ranks 1..=depth.
    pub(crate) fn total_weight(&self, depth: usize) -> f64 {
        self.discounted(std::iter::repeat_n(1.0, depth))
    }

    /// The discounted sum of the ideal ranking: the query's judged gains,
    /// descending, cut at k.
    pub(crate) fn ideal(&self, q: &JudgedRanking<'_>, level: Grade) -> f64 {
        let grades = q.ideal_grades();
        let depth = self.k.map_or(grades.len(), |k| k.get().min(grades.len()));
        match self.gain {
            WeightedGain::Binary => {
                let relevant = q.num_relevant(level).min(depth);
                self.discounted(std::iter::repeat_n(1.0, relevant))
            }
            // Monotone in the grade: the grades' order is the gains' order.
            WeightedGain::Grade | WeightedGain::Exponential => {
                self.discounted(grades.iter().take(depth).map(|&g| self.gain_of_grade(g)))
            }
            WeightedGain::Map => {
                let mut gains: Vec<f64> = grades.iter().map(|&g| self.gain_of_grade(g)).collect();
                gains.sort_by(|a, b| b.total_cmp(a));
                self.discounted(gains.into_iter().take(depth))
            }
        }
    }

    /// The metric's value on one query.
    pub fn value(&self, q: &JudgedRanking<'_>) -> f64 {
        let level = q.level(self.rel);
        let sum = self.discounted(q.top(self.k).iter().map(|&j| self.gain_of(j, level)));
        let divisor = match self.normalization {
            WeightedNormalization::None => return sum,
            WeightedNormalization::Unbounded => return (1.0 - self.p.get()) * sum,
            WeightedNormalization::Ideal => self.ideal(q, level),
            WeightedNormalization::Weights => {
                self.total_weight(self.k.map_or(q.retrieved(), Cutoff::get))
            }
        };
        if divisor > 0.0 { sum / divisor } else { 0.0 }
    }
}

#[rankeval_core::metric(
    name = "weighted",
    summary = "sum of gain x discount over the top k, normalized: a metric declared in TOML",
    params = PARAMS,
    example = Weighted {
        k: Cutoff::new(10),
        rel: None,
        gain: WeightedGain::Map,
        gains: GainMap::parse("1=3,2=9").ok(),
        discount: Discount::Geometric,
        p: Persistence::TREC_EVAL,
        normalization: WeightedNormalization::Weights,
    },
)]
impl Metric for Weighted {
    /// Unless divided by the ideal ranking's sum.
    fn is_additive(&self) -> bool {
        self.normalization != WeightedNormalization::Ideal
    }
    fn name(&self) -> String {
        let p = (self.discount == Discount::Geometric).then_some(self.p);
        CanonicalName::new("weighted")
            .param_if_set("rel", self.rel)
            .param_unless_default("gain", self.gain, WeightedGain::Grade)
            .param_if_set("gains", self.gains.as_ref())
            .param_unless_default("discount", self.discount, Discount::Log2)
            .param_if_set("p", p.filter(|&p| p != Persistence::DEFAULT))
            .param_unless_default("norm", self.normalization, WeightedNormalization::Ideal)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        self.value(q)
    }
    /// weighted: `sum of gain(i) (*|/) discount(i)`, over `Z`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let p = self.p.get();
        let gains = per_rank(q, self.k, |_, j| Some(self.gain_of(j, level)));
        let discount_name = match self.discount {
            Discount::None => "discount (none)",
            Discount::Log2 => "discount log2(i+1)",
            Discount::Reciprocal => "discount i",
            Discount::Geometric => "weight p^(i-1)",
        };
        let mut weight = 1.0;
        let weights = per_rank(q, self.k, |i, _| {
            let w = match self.discount {
                Discount::None => 1.0,
                Discount::Log2 => ((i + 2) as f64).log2(),
                Discount::Reciprocal => (i + 1) as f64,
                Discount::Geometric => weight,
            };
            weight *= p;
            Some(w)
        });
        let mut weight = 1.0;
        let mut terms = Vec::new();
        let term_column = per_rank(q, self.k, |i, j| {
            let gain = self.gain_of(j, level);
            let (t, text) = match self.discount {
                Discount::None => (gain, number(gain)),
                Discount::Log2 => {
                    let d = ((i + 2) as f64).log2();
                    (gain / d, format!("{}/{}", number(gain), number(d)))
                }
                Discount::Reciprocal => {
                    (gain / (i + 1) as f64, format!("{}/{}", number(gain), i + 1))
                }
                Discount::Geometric => (
                    gain * weight,
                    format!("{} x {}", number(gain), number(weight)),
                ),
            };
            weight *= p;
            if gain != 0.0 {
                terms.push(text);
            }
            Some(t)
        });
        let sum = self.discounted(q.top(self.k).iter().map(|&j| self.gain_of(j, level)));
        let mut explanation = Explanation::new(self, q);
        if self.gain == WeightedGain::Binary {
            explanation = explanation.level(level);
        }
        let explanation = explanation
            .column(format!("gain ({})", self.gain), gains)
            .column(discount_name, weights)
            .column("term", term_column)
            .quantity("sum", sum);
        let sum_part = sum_text(&terms);
        let (z_name, z) = match self.normalization {
            WeightedNormalization::None => {
                return explanation.formula(format!("{} = {sum_part}", self.name()));
            }
            WeightedNormalization::Unbounded => {
                return explanation
                    .formula(format!(
                        "{} = (1 - p) x sum = {} x ({sum_part}) = {} x {}",
                        self.name(),
                        number(1.0 - p),
                        number(1.0 - p),
                        number(sum)
                    ))
                    .normalizer(format!("multiplied by 1 - p = {}", number(1.0 - p)));
            }
            WeightedNormalization::Ideal => ("the ideal ranking's sum", self.ideal(q, level)),
            WeightedNormalization::Weights => (
                "the discounts of ranks 1..k",
                self.total_weight(self.k.map_or(q.retrieved(), Cutoff::get)),
            ),
        };
        let explanation = explanation.quantity("Z", z);
        if z <= 0.0 {
            return explanation.formula(format!("{} = 0 (Z = {z_name} = 0)", self.name()));
        }
        explanation
            .formula(format!(
                "{} = sum / Z = ({sum_part}) / Z = {} / {}",
                self.name(),
                number(sum),
                number(z)
            ))
            .normalizer(format!("divided by {z_name} = {}", number(z)))
    }
    fn uses_default_level(&self) -> bool {
        self.gain == WeightedGain::Binary && self.rel.is_none()
    }
    fn validate(&self) -> Result<(), String> {
        if self.rel.is_some() && self.gain != WeightedGain::Binary {
            return Err(format!(
                "rel has no effect with gain = \"{}\": only gain = \"binary\" reads a relevance level",
                self.gain
            ));
        }
        match (self.gain, &self.gains) {
            (WeightedGain::Map, None) => {
                return Err("gain = \"map\" needs gains, e.g. gains = \"1=3,2=9\"".to_owned());
            }
            (gain, Some(_)) if gain != WeightedGain::Map => {
                return Err(format!(
                    "gains has no effect with gain = \"{gain}\": set gain = \"map\""
                ));
            }
            _ => {}
        }
        if self.discount != Discount::Geometric && self.p != Persistence::DEFAULT {
            return Err(format!(
                "p has no effect with discount = \"{}\": set discount = \"geometric\"",
                self.discount
            ));
        }
        if self.normalization == WeightedNormalization::Unbounded
            && self.discount != Discount::Geometric
        {
            return Err(
                "normalization = \"unbounded\" needs discount = \"geometric\" (an endless list \
                 has a finite total weight only then)"
                    .to_owned(),
            );
        }
        Ok(())
    }
}

const PARAMS: &[ParamDoc] = &[
    PARAM_K,
    PARAM_REL,
    ParamDoc {
        name: "gain",
        alias: None,
        default: "grade",
        doc: "binary: 1 if relevant at rel; grade: the grade; exponential: 2^g - 1; map: from gains",
    },
    ParamDoc {
        name: "gains",
        alias: None,
        default: "none",
        doc: "gain per grade for gain = map, e.g. \"1=3,2=9\" (trec_eval ndcg); unlisted grades are their own gain",
    },
    ParamDoc {
        name: "discount",
        alias: None,
        default: "log2",
        doc: "rank i divides or scales its gain: none; log2: / log2(i+1); reciprocal: / i; geometric: * p^(i-1)",
    },
    ParamDoc {
        name: "p",
        alias: None,
        default: "0.8",
        doc: "persistence of the geometric discount, strictly between 0 and 1",
    },
    ParamDoc {
        name: "normalization",
        alias: Some("norm"),
        default: "ideal",
        doc: "divide by none; ideal: the ideal ranking's sum; weights: the discounts of ranks 1..k; unbounded: 1/(1-p)",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::{binary, judged};

    fn weighted(
        gain: WeightedGain,
        discount: Discount,
        normalization: WeightedNormalization,
    ) -> Weighted {
        Weighted {
            gain,
            discount,
            normalization,
            ..Weighted::default()
        }
    }

    #[test]
    fn each_discount_as_written() {
        use WeightedGain::Grade;
        use WeightedNormalization::None as Plain;
        let q = judged("2 0 3", &[]);
        let at = |d| weighted(Grade, d, Plain).value(&q.view());
        assert_eq!(at(Discount::None), 2.0 + 0.0 + 3.0);
        assert_eq!(at(Discount::Reciprocal), 2.0 / 1.0 + 0.0 / 2.0 + 3.0 / 3.0);
        assert_eq!(
            at(Discount::Log2),
            2.0 / 2f64.log2() + 0.0 + 3.0 / 4f64.log2()
        );
        let p = 0.8;
        assert_eq!(at(Discount::Geometric), 2.0 + 0.0 * p + 3.0 * (p * p));
    }

    #[test]
    fn each_normalization_as_written() {
        use WeightedGain::Binary;
        let q = binary("0 1 0", 3);
        let at = |n| {
            Weighted {
                k: Cutoff::new(4),
                ..weighted(Binary, Discount::Reciprocal, n)
            }
            .value(&q.view())
        };
        let sum = 1.0 / 2.0;
        assert_eq!(at(WeightedNormalization::None), sum);
        // Ideal: three relevant documents on top, cut at k = 4.
        assert_eq!(
            at(WeightedNormalization::Ideal),
            sum / (1.0 + 1.0 / 2.0 + 1.0 / 3.0)
        );
        // Weights: every rank of the top 4, retrieved or not.
        let weights = 1.0 + 1.0 / 2.0 + 1.0 / 3.0 + 1.0 / 4.0;
        assert_eq!(at(WeightedNormalization::Weights), sum / weights);
        let rbp = Weighted {
            discount: Discount::Geometric,
            normalization: WeightedNormalization::Unbounded,
            ..weighted(
                Binary,
                Discount::Geometric,
                WeightedNormalization::Unbounded,
            )
        };
        assert_eq!(rbp.value(&q.view()), (1.0 - 0.8) * (1.0 * 0.8));
        // Nothing relevant: the ideal is 0, and so is the metric.
        let none = binary("000", 0);
        assert_eq!(
            weighted(Binary, Discount::Log2, WeightedNormalization::Ideal).value(&none.view()),
            0.0
        );
    }

    #[test]
    fn gain_maps_parse_and_print_in_grade_order() {
        let map = GainMap::parse(" 2=9, 1=3 ").unwrap();
        assert_eq!(map.to_string(), "\"1=3,2=9\"");
        assert_eq!(map.of(2.0), 9.0);
        assert_eq!(map.of(3.0), 3.0);
        assert_eq!(map.of(-1.0), 0.0);
        for (bad, why) in [
            ("", "no grade=gain"),
            ("1", "not grade=gain"),
            ("a=1", "not a grade"),
            ("nan=1", "not a grade"),
            ("1=x", "not a non-negative gain"),
            ("1=-2", "not a non-negative gain"),
            ("1=inf", "not a non-negative gain"),
            ("1=2,1=3", "given twice"),
        ] {
            let error = GainMap::parse(bad).unwrap_err();
            assert!(error.contains(why), "{bad:?}: {error}");
        }
    }

    #[test]
    fn parameters_that_would_be_ignored_are_refused() {
        let m = |spec: &str| rankeval_core::registry::parse_metric(spec).map(|m| m.name());
        assert!(
            m("weighted(rel=2)")
                .unwrap_err()
                .to_string()
                .contains("rel has no effect")
        );
        assert!(
            m("weighted(gain=map)")
                .unwrap_err()
                .to_string()
                .contains("needs gains")
        );
        assert!(
            m("weighted(gains=\"1=2\")")
                .unwrap_err()
                .to_string()
                .contains("gains has no effect")
        );
        assert!(
            m("weighted(p=0.5)")
                .unwrap_err()
                .to_string()
                .contains("p has no effect")
        );
        assert!(
            m("weighted(norm=unbounded)")
                .unwrap_err()
                .to_string()
                .contains("needs discount")
        );
        assert_eq!(
            m("weighted(gain=binary,discount=geometric,p=0.5,norm=unbounded)@10").unwrap(),
            "weighted(gain=binary,discount=geometric,p=0.5,norm=unbounded)@10"
        );
        assert_eq!(
            m("weighted(gain=map,gains=\"2=9,1=3\")").unwrap(),
            "weighted(gain=map,gains=\"1=3,2=9\")"
        );
        assert_eq!(m("weighted@5").unwrap(), "weighted@5");
    }
}
