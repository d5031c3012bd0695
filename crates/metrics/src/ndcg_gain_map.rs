//! nDCG with a gain per grade, as trec_eval 10's `ndcg.1=3,2=9,4=4.5`.
//!
//! Each grade listed in `gains` is worth the gain given; every other grade
//! `g >= 0` that the query's qrels hold is worth `g`; negative grades and
//! unjudged documents are worth 0. The ideal ranking orders the judged
//! documents by gain, highest first (trec_eval sorts the grade levels by
//! gain), and stops at the first gain that is not positive. The discount
//! of rank `i` is `log2(i + 1)`, as for `ndcg`. The trec_eval entry point
//! prints it as `ndcg_1=3,2=9` (the parameters as given); it declares no
//! trec_eval name of its own, since `ndcg` is the `ndcg` metric's.

use std::fmt;

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::ParamDoc;
use rankeval_core::{CanonicalName, JudgedRanking, Judgement, Metric, ParamValue};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};

use crate::explain::{per_rank, sum_text};
use crate::trec_gains::discount;

/// Gains for some grades: `1=3,2=9,4=4.5`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GainMap(Vec<(i64, f64)>);

impl GainMap {
    /// Reads `grade=gain` pairs separated by commas.
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.trim().is_empty() {
            return Ok(Self::default());
        }
        text.split(',')
            .map(|pair| {
                let (grade, gain) = pair
                    .split_once('=')
                    .ok_or_else(|| format!("`{pair}` is not grade=gain"))?;
                let grade: i64 = grade
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{grade}` is not an integer grade"))?;
                let gain: f64 = gain
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{gain}` is not a number"))?;
                if !gain.is_finite() {
                    return Err(format!("gain `{gain}` is not finite"));
                }
                Ok((grade, gain))
            })
            .collect::<Result<_, _>>()
            .map(GainMap)
    }
}

impl fmt::Display for GainMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text: Vec<String> = self.0.iter().map(|(g, v)| format!("{g}={v}")).collect();
        write!(f, "{}", ParamValue::String(text.join(",")))
    }
}

impl Serialize for GainMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text: Vec<String> = self.0.iter().map(|(g, v)| format!("{g}={v}")).collect();
        serializer.serialize_str(&text.join(","))
    }
}

impl<'de> Deserialize<'de> for GainMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        GainMap::parse(&text).map_err(de::Error::custom)
    }
}

/// One grade level: its grade, gain and number of judged documents.
pub(crate) struct Level {
    pub(crate) grade: i64,
    pub(crate) gain: f64,
    count: usize,
}

/// trec_eval's `setup_gains`: the levels of the query, sorted by gain.
pub(crate) fn levels(q: &JudgedRanking<'_>, map: &GainMap) -> Vec<Level> {
    let mut levels: Vec<Level> = map
        .0
        .iter()
        .map(|&(grade, gain)| Level {
            grade,
            gain,
            count: 0,
        })
        .collect();
    let grades: Vec<i64> = q
        .ideal_grades()
        .iter()
        .copied()
        .filter(|&g| g >= 0.0)
        .map(|g| g as i64)
        .collect();
    let top = grades.first().copied();
    if let Some(top) = top {
        for grade in 0..=top {
            let count = grades.iter().filter(|&&g| g == grade).count();
            match levels.iter_mut().find(|l| l.grade == grade) {
                Some(level) => level.count = count,
                None => levels.push(Level {
                    grade,
                    gain: grade as f64,
                    count,
                }),
            }
        }
    }
    merge_sort(&mut levels);
    levels
}

/// trec_eval's order of grade levels: `qsort` with the comparator
/// `(int)(gain1 - gain2)`, which calls gains less than 1 apart equal. glibc's
/// `qsort` is a top-down merge sort, stable: this is the same algorithm, so
/// the order (and so the ideal ranking) is trec_eval's even for such gains.
fn merge_sort(levels: &mut Vec<Level>) {
    fn compare(a: &Level, b: &Level) -> i64 {
        // C's double-to-int conversion truncates toward zero.
        (a.gain - b.gain) as i64
    }
    fn sort(items: Vec<Level>) -> Vec<Level> {
        if items.len() <= 1 {
            return items;
        }
        let mut items = items;
        let right = items.split_off(items.len() / 2);
        let (left, right) = (sort(items), sort(right));
        let mut merged = Vec::with_capacity(left.len() + right.len());
        let (mut left, mut right) = (left.into_iter().peekable(), right.into_iter().peekable());
        while let (Some(l), Some(r)) = (left.peek(), right.peek()) {
            let next = if compare(l, r) <= 0 {
                left.next()
            } else {
                right.next()
            };
            merged.extend(next);
        }
        merged.extend(left);
        merged.extend(right);
        merged
    }
    let items = std::mem::take(levels);
    *levels = sort(items);
}

pub(crate) fn gain_of(judgement: Judgement, levels: &[Level]) -> f64 {
    if !judgement.is_judged() {
        return 0.0;
    }
    let grade = judgement.grade();
    levels
        .iter()
        .find(|l| l.grade as f64 == grade)
        .map_or(0.0, |l| l.gain)
}

/// The ideal ranking's gains: each level's gain, from the highest level
/// down, once per judged document, until a gain is not positive (as
/// trec_eval's ndcg sorts and cuts its gain levels).
pub(crate) fn ideal_gains(levels: &[Level]) -> Vec<f64> {
    let mut gains = Vec::new();
    'levels: for level in levels.iter().rev() {
        for _ in 0..level.count {
            if level.gain <= 0.0 {
                break 'levels;
            }
            gains.push(level.gain);
        }
    }
    gains
}

/// nDCG with the gains of `map`, as trec_eval's `ndcg` with parameters.
///
/// # Example
/// Grade 1 worth 3, grade 2 worth 9: ideal 9 then 3; retrieved 1 then 2.
/// ```
/// use rankeval_metrics::ndcg_gain_map::{ndcg_gain_map, GainMap};
/// use rankeval_core::testing;
/// let q = testing::judged("1 2", &[]);
/// let map = GainMap::parse("1=3,2=9").unwrap();
/// let l3 = 3f64.log2();
/// assert_eq!(ndcg_gain_map(&q.view(), &map), (3.0 + 9.0 / l3) / (9.0 + 3.0 / l3));
/// ```
pub fn ndcg_gain_map(q: &JudgedRanking<'_>, map: &GainMap) -> f64 {
    let levels = levels(q, map);
    let mut results_dcg = 0.0;
    for (i, &judgement) in q.ranked().iter().enumerate() {
        let gain = gain_of(judgement, &levels);
        if gain != 0.0 {
            results_dcg += gain / discount(i);
        }
    }
    let ideal_dcg = ideal_gains(&levels)
        .iter()
        .enumerate()
        .fold(0.0, |sum, (i, gain)| sum + gain / discount(i));
    if ideal_dcg > 0.0 {
        results_dcg / ideal_dcg
    } else {
        0.0
    }
}

/// The `ndcg_gain_map` metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NdcgGainMap {
    /// Gains of some grades, e.g. `1=3,2=9`; other grades are worth themselves.
    #[serde(default)]
    pub gains: GainMap,
}

#[rankeval_core::metric(
    name = "ndcg_gain_map",
    summary = "nDCG with a gain per grade, as trec_eval's ndcg.1=3,2=9",
    params = PARAMS,
    example = NdcgGainMap { gains: GainMap(vec![(1, 3.0), (2, 9.0)]) },
)]
impl Metric for NdcgGainMap {
    fn name(&self) -> String {
        CanonicalName::new("ndcg_gain_map")
            .param("gains", &self.gains)
            .finish()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        ndcg_gain_map(q, &self.gains)
    }
    /// nDCG with trec_eval's gain map: `DCG / IDCG`, gains from the map.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let levels = crate::ndcg_gain_map::levels(q, &self.gains);
        let gains = per_rank(q, None, |_, j| {
            Some(crate::ndcg_gain_map::gain_of(j, &levels))
        });
        let mut dcg = 0.0;
        let mut dcg_terms = Vec::new();
        let dcg_column = per_rank(q, None, |i, j| {
            let g = crate::ndcg_gain_map::gain_of(j, &levels);
            if g == 0.0 {
                return Some(0.0);
            }
            dcg += g / discount(i);
            dcg_terms.push(format!("{}/{}", number(g), number(discount(i))));
            Some(g / discount(i))
        });
        let ideal: Vec<f64> = crate::ndcg_gain_map::ideal_gains(&levels);
        let mut ideal_dcg = 0.0;
        let ideal_terms: Vec<String> = ideal
            .iter()
            .enumerate()
            .map(|(i, &g)| {
                ideal_dcg += g / discount(i);
                format!("{}/{}", number(g), number(discount(i)))
            })
            .collect();
        let ideal_column = per_rank(q, None, |i, _| Some(ideal.get(i).copied().unwrap_or(0.0)));
        let map: Vec<String> = levels
            .iter()
            .map(|l| format!("{}:{}", l.grade, number(l.gain)))
            .collect();
        let explanation = Explanation::new(self, q)
            .column(format!("gain (grade:gain {})", map.join(", ")), gains)
            .column(
                "discount log2(i+1)",
                per_rank(q, None, |i, _| Some(discount(i))),
            )
            .column("DCG term", dcg_column)
            .column("ideal gain", ideal_column)
            .quantity("DCG", dcg)
            .quantity("IDCG", ideal_dcg);
        let formula = if ideal_dcg > 0.0 {
            format!(
                "{} = DCG / IDCG = ({}) / ({}) = {} / {}",
                self.name(),
                sum_text(&dcg_terms),
                sum_text(&ideal_terms),
                number(dcg),
                number(ideal_dcg)
            )
        } else {
            format!("{} = 0 (IDCG = 0: no positive gain)", self.name())
        };
        explanation
            .formula(formula)
            .normalizer(format!("divided by IDCG = {}", number(ideal_dcg)))
    }
    fn uses_default_level(&self) -> bool {
        false
    }
}

const PARAMS: &[ParamDoc] = &[ParamDoc {
    name: "gains",
    alias: None,
    default: "\"\"",
    doc: "grade=gain pairs, e.g. \"1=3,2=9\" (trec_eval ndcg.1=3,2=9); other grades: the grade",
}];

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::judged;

    #[test]
    fn without_a_map_it_is_linear_ndcg() {
        let q = judged("0 2 1 .", &[3]);
        let l = |r: f64| (r + 1.0).log2();
        let dcg = 2.0 / l(2.0) + 1.0 / l(3.0);
        let ideal = 3.0 / l(1.0) + 2.0 / l(2.0) + 1.0 / l(3.0);
        assert_eq!(ndcg_gain_map(&q.view(), &GainMap::default()), dcg / ideal);
    }

    #[test]
    fn a_map_reorders_the_ideal_and_drops_nonpositive_gains() {
        // Grade 2 worth 0.5, grade 1 worth 4: the ideal puts the 1 first.
        let q = judged("2 1", &[]);
        let map = GainMap::parse("2=0.5,1=4").unwrap();
        let l3 = 3f64.log2();
        assert_eq!(
            ndcg_gain_map(&q.view(), &map),
            (0.5 + 4.0 / l3) / (4.0 + 0.5 / l3)
        );
        let zero = GainMap::parse("1=0,2=0").unwrap();
        assert_eq!(ndcg_gain_map(&q.view(), &zero), 0.0);
        assert!(GainMap::parse("1=x").is_err());
        assert!(GainMap::parse("a=1").is_err());
    }

    #[test]
    fn names_round_trip() {
        let m = NdcgGainMap {
            gains: GainMap::parse("1=3,2=9,4=4.5").unwrap(),
        };
        assert_eq!(m.name(), "ndcg_gain_map(gains=\"1=3,2=9,4=4.5\")");
        let back = rankeval_core::registry::parse_metric(&m.name()).unwrap();
        assert_eq!(back.name(), m.name());
    }
}
