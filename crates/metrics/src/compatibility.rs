//! Compatibility (Clarke, Vtyurina and Smucker, "Assessing top-k
//! preferences", TOIS 2021; Clarke, Smucker and Vtyurina, CIKM 2020): the
//! rank-biased overlap of the run with an ideal ranking built from the
//! judgements, as `compatibility.py` of github:claclark/Compatibility
//! computes it.
//!
//! - The ideal ranking holds every document with a grade above 0, by grade
//!   descending; documents of one grade are ordered as the run ranks them,
//!   those the run does not hold after them (`idealize`).
//! - `RBO(run, ideal) = sum_{i < D} p^i * |run[..=i] ∩ ideal[..=i]| / (i + 1)`,
//!   divided by `sum_{i < D} p^i`, with `D` = 1000 (the script's `DEPTH`).
//! - With `normalize` (the default, paper #1's step for short ideal
//!   rankings), it is divided by `RBO(ideal, ideal)`.
//!
//! A query with no document above grade 0 has no ideal ranking: the script
//! leaves it out of its average; rankeval scores it 0 (the rule for an
//! empty denominator). ir_measures' `Compat` sums to the longer of the two
//! lists instead of 1000 ranks: `depth = 0` here.

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::ParamDoc;
use rankeval_core::{CanonicalName, JudgedRanking, Metric};
use serde::{Deserialize, Serialize};

use crate::explain::per_rank;
use crate::rbp::Persistence;

/// compatibility.py's `DEPTH`: the ranks the overlap is summed over.
pub const DEFAULT_DEPTH: u32 = 1000;

/// The largest `depth` accepted: each query sums `depth` terms twice.
pub const MAX_DEPTH: u32 = 10_000_000;

/// compatibility.py's default persistence, 0.95 ("roughly equivalent to
/// NSCG@20").
pub const DEFAULT_P: f64 = 0.95;

/// The ideal ranking of one query, as ranks of the run (`Some(rank)`, 0
/// based) or documents the run does not hold (`None`), and, for each rank
/// of the run, its place in the ideal ranking.
struct Ideal {
    items: Vec<Option<usize>>,
    place: Vec<Option<usize>>,
}

/// compatibility.py's `idealize`: grade descending, ties by the run's
/// order, unretrieved documents of a grade after its retrieved ones.
fn idealize(q: &JudgedRanking<'_>) -> Ideal {
    let ranked = q.ranked();
    let relevant: Vec<f64> = q
        .ideal_grades()
        .iter()
        .copied()
        .take_while(|&g| g > 0.0)
        .collect();
    // The retrieved relevant documents, grade descending, then by rank.
    let mut retrieved: Vec<(f64, usize)> = ranked
        .iter()
        .enumerate()
        .filter(|(_, j)| j.is_judged() && j.grade() > 0.0)
        .map(|(rank, j)| (j.grade(), rank))
        .collect();
    retrieved.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut items = Vec::with_capacity(relevant.len());
    let mut place = vec![None; ranked.len()];
    let mut next = 0;
    let mut start = 0;
    while start < relevant.len() {
        let grade = relevant[start];
        let count = relevant[start..]
            .iter()
            .take_while(|&&g| g == grade)
            .count();
        // A grade the query's judgements lack (not from the engine) is skipped.
        while next < retrieved.len() && retrieved[next].0 > grade {
            next += 1;
        }
        let mut taken = 0;
        while taken < count && next < retrieved.len() && retrieved[next].0 == grade {
            let rank = retrieved[next].1;
            place[rank] = Some(items.len());
            items.push(Some(rank));
            taken += 1;
            next += 1;
        }
        items.extend(std::iter::repeat_n(None, count - taken));
        start += count;
    }
    Ideal { items, place }
}

/// `rbo` of compatibility.py: the overlaps at depths 1..=depth, weighted
/// by `p^i / (i + 1)`, over the sum of the weights. `overlap(i)` is the
/// size of the intersection of the two prefixes of length `i + 1`.
fn rbo(depth: usize, p: f64, mut overlap: impl FnMut(usize) -> usize) -> f64 {
    let mut score = 0.0;
    let mut normalizer = 0.0;
    let mut weight = 1.0;
    for i in 0..depth {
        if weight == 0.0 {
            // p^i has underflowed: every later term adds exactly 0.
            break;
        }
        score += weight * overlap(i) as f64 / (i + 1) as f64;
        normalizer += weight;
        weight *= p;
    }
    score / normalizer
}

/// The parts of one query's compatibility: the run's RBO with the ideal
/// ranking and the ideal's with itself, and the depth summed to.
struct Parts {
    score: f64,
    best: f64,
}

fn parts(q: &JudgedRanking<'_>, p: f64, depth: u32) -> Option<Parts> {
    let ideal = idealize(q);
    if ideal.items.is_empty() {
        return None;
    }
    let run_len = q.ranked().len();
    let depth = if depth == 0 {
        run_len.max(ideal.items.len())
    } else {
        depth as usize
    };
    let mut overlap = 0;
    let score = rbo(depth, p, |i| {
        // run[i] joins the run's prefix: shared if the ideal has it by now.
        if let Some(Some(at)) = ideal.place.get(i)
            && *at <= i
        {
            overlap += 1;
        }
        // ideal[i] joins the ideal's prefix: shared if the run had it before.
        if let Some(Some(rank)) = ideal.items.get(i)
            && *rank < i
        {
            overlap += 1;
        }
        overlap
    });
    let n = ideal.items.len();
    let best = rbo(depth, p, |i| (i + 1).min(n));
    Some(Parts { score, best })
}

/// Compatibility of one query: RBO with the ideal ranking at persistence
/// `p`, summed to `depth` ranks (0: the longer of the run and the ideal
/// ranking), divided by the ideal's own RBO when `normalize`.
///
/// # Example
/// Grades 2, 0, 1 ranked, nothing else judged: the ideal ranking is the
/// documents at ranks 1 and 3, so the run is ideal at rank 1 only.
/// ```
/// use rankeval_metrics::compatibility::compatibility;
/// use rankeval_core::testing;
/// let q = testing::judged("2 0 1", &[]);
/// let value = compatibility(&q.view(), 0.5, true, 2);
/// // overlaps 1, 1 against the ideal's 1, 2: (1 + 0.5/2) / (1 + 0.5 * 2/2)
/// assert_eq!(value, ((1.0 + 0.5 * 1.0 / 2.0) / 1.5) / ((1.0 + 0.5 * 2.0 / 2.0) / 1.5));
/// ```
pub fn compatibility(q: &JudgedRanking<'_>, p: f64, normalize: bool, depth: u32) -> f64 {
    match parts(q, p, depth) {
        None => 0.0,
        Some(Parts { score, best }) if normalize => {
            if best > 0.0 {
                score / best
            } else {
                best
            }
        }
        Some(Parts { score, .. }) => score,
    }
}

/// The `compatibility` metric (alias `compat`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Compatibility {
    /// Persistence of the overlap's weights.
    #[serde(default = "default_p")]
    pub p: Persistence,
    /// Divide by the ideal ranking's own RBO.
    #[serde(default = "default_normalize")]
    pub normalize: bool,
    /// Ranks summed over; 0 = the longer of the run and the ideal ranking.
    #[serde(default = "default_depth")]
    pub depth: u32,
}

fn default_p() -> Persistence {
    Persistence::new(DEFAULT_P).unwrap_or_default()
}

fn default_normalize() -> bool {
    true
}

fn default_depth() -> u32 {
    DEFAULT_DEPTH
}

impl Default for Compatibility {
    fn default() -> Self {
        Self {
            p: default_p(),
            normalize: true,
            depth: DEFAULT_DEPTH,
        }
    }
}

#[rankeval_core::metric(
    name = "compatibility",
    aliases = &["compat"],
    summary = "rank-biased overlap with the ideal ranking (Clarke et al. 2020)",
    params = PARAMS,
    example = Compatibility {
        p: Persistence::new(0.8).unwrap_or_default(),
        normalize: true,
        depth: 0,
    },
)]
impl Metric for Compatibility {
    /// Every grade above 0 is in the ideal ranking; no level plays a part.
    fn uses_default_level(&self) -> bool {
        false
    }

    fn name(&self) -> String {
        CanonicalName::new("compatibility")
            .param_unless_default("p", self.p, default_p())
            .param_unless_default("normalize", self.normalize, true)
            .param_unless_default("depth", self.depth, DEFAULT_DEPTH)
            .finish()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        compatibility(q, self.p.get(), self.normalize, self.depth)
    }
    fn validate(&self) -> Result<(), String> {
        if self.depth > MAX_DEPTH {
            return Err(format!(
                "depth must be at most {MAX_DEPTH} ranks (0 = the longer of the run and the ideal ranking), not {}",
                self.depth
            ));
        }
        Ok(())
    }
    /// Each rank's overlap with the ideal ranking, its weighted term, and
    /// the two RBOs divided.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let p = self.p.get();
        let ideal = idealize(q);
        let mut overlap = 0;
        let overlaps = per_rank(q, None, |i, _| {
            if let Some(Some(at)) = ideal.place.get(i)
                && *at <= i
            {
                overlap += 1;
            }
            if let Some(Some(rank)) = ideal.items.get(i)
                && *rank < i
            {
                overlap += 1;
            }
            Some(overlap as f64)
        });
        let explanation = Explanation::new(self, q)
            .column("overlap with the ideal", overlaps)
            .quantity("ideal ranking's length", ideal.items.len() as f64);
        match parts(q, p, self.depth) {
            None => explanation.formula(format!(
                "{} = no ideal ranking (no document above grade 0)",
                self.name()
            )),
            Some(Parts { score, best }) if self.normalize => explanation
                .quantity("RBO(run, ideal)", score)
                .quantity("RBO(ideal, ideal)", best)
                .formula(format!(
                    "{} = {} / {}",
                    self.name(),
                    number(score),
                    number(best)
                )),
            Some(Parts { score, .. }) => explanation
                .quantity("RBO(run, ideal)", score)
                .formula(format!("{} = {}", self.name(), number(score))),
        }
    }
}

const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        name: "p",
        alias: None,
        default: "0.95",
        doc: "persistence of the overlap's weights p^(i-1), strictly between 0 and 1",
    },
    ParamDoc {
        name: "normalize",
        alias: None,
        default: "true",
        doc: "divide by the ideal ranking's own RBO (compatibility.py's NORMALIZE)",
    },
    ParamDoc {
        name: "depth",
        alias: None,
        default: "1000",
        doc: "ranks summed over, at most 10000000 (compatibility.py's DEPTH); 0 = the longer of the run and the ideal ranking (ir_measures' Compat)",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::judged;

    /// compatibility.py's `rbo` and `idealize`, written over document
    /// names, for the hand-worked cases.
    fn script(run: &[&str], ideal: &[&str], p: f64, depth: usize) -> f64 {
        let mut run_set = Vec::new();
        let mut ideal_set = Vec::new();
        let (mut score, mut normalizer, mut weight) = (0.0, 0.0, 1.0);
        for i in 0..depth {
            if let Some(d) = run.get(i) {
                run_set.push(*d);
            }
            if let Some(d) = ideal.get(i) {
                ideal_set.push(*d);
            }
            let overlap = ideal_set.iter().filter(|d| run_set.contains(d)).count();
            score += weight * overlap as f64 / (i + 1) as f64;
            normalizer += weight;
            weight *= p;
        }
        score / normalizer
    }

    #[test]
    fn the_ideal_ranking_orders_grades_then_the_runs_order() {
        // Ranks a..e with grades 1 0 2 1 unjudged; one unretrieved 2 (x)
        // and one unretrieved 1 (y). Ideal: c x a d y.
        let q = judged("1 0 2 1 .", &[2, 1]);
        let run = ["a", "b", "c", "d", "e"];
        let ideal = ["c", "x", "a", "d", "y"];
        for p in [0.5, 0.8, 0.95] {
            for depth in [3, 5, 1000] {
                let expected = script(&run, &ideal, p, depth) / script(&ideal, &ideal, p, depth);
                let got = compatibility(&q.view(), p, true, depth as u32);
                assert!(
                    (got - expected).abs() < 1e-15,
                    "{p} {depth}: {got} {expected}"
                );
                let raw = compatibility(&q.view(), p, false, depth as u32);
                assert!((raw - script(&run, &ideal, p, depth)).abs() < 1e-15);
            }
        }
        // depth 0: the longer of the two lists, 5.
        assert_eq!(
            compatibility(&q.view(), 0.8, false, 0),
            compatibility(&q.view(), 0.8, false, 5)
        );
    }

    #[test]
    fn the_ideal_run_scores_one_and_no_relevant_scores_zero() {
        let q = judged("3 2 2 1 0", &[0, -1]);
        assert_eq!(compatibility(&q.view(), 0.95, true, 1000), 1.0);
        assert_eq!(
            compatibility(&judged("0 . -", &[0]).view(), 0.95, true, 1000),
            0.0
        );
        assert_eq!(
            compatibility(&judged("", &[]).view(), 0.95, true, 1000),
            0.0
        );
        // Nothing relevant retrieved: no overlap at any depth.
        assert_eq!(
            compatibility(&judged("0 .", &[1]).view(), 0.95, true, 1000),
            0.0
        );
    }

    #[test]
    fn depth_is_bounded() {
        let m = |depth| Compatibility {
            depth,
            ..Compatibility::default()
        };
        assert!(m(MAX_DEPTH).validate().is_ok());
        assert!(m(MAX_DEPTH + 1).validate().is_err());
        assert!(m(0).validate().is_ok());
        // p small enough that p^i underflows long before the depth: the
        // same value as a depth it never reaches.
        let q = judged("0 1 2", &[3]);
        assert_eq!(
            compatibility(&q.view(), 0.01, true, MAX_DEPTH),
            compatibility(&q.view(), 0.01, true, 1000)
        );
    }

    #[test]
    fn canonical_names() {
        assert_eq!(Compatibility::default().name(), "compatibility");
        let m = Compatibility {
            p: Persistence::new(0.8).unwrap(),
            normalize: false,
            depth: 0,
        };
        assert_eq!(m.name(), "compatibility(p=0.8,normalize=false,depth=0)");
    }
}
