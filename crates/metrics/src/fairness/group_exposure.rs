//! Expected exposure at the group level: expeval's `-G` (its `group.py`
//! and the `Group*` classes of `metrics.py`, github.com/diazf/expeval), in
//! its default, retrieval setting.
//!
//! The documents' expected exposures `epsilon(d)` and targets
//! `epsilon*(d)` are [`exposure`](super::exposure)'s. expeval then sums
//! them per group over the query's **relevant** documents (a relevant
//! document not retrieved adds 0; a document not relevant adds nothing,
//! retrieved or not):
//!
//! ```text
//! E(g)  = sum over relevant d in g of w(d, g) epsilon(d)
//! E*(g) = sum over relevant d in g of w(d, g) epsilon*(d)
//! ```
//!
//! over the groups `G` of the relevant documents (`k = |G|`), with the
//! document's weight in the group `w(d, g)` (expeval has no weights: each
//! of a document's groups gets its whole exposure, `w = 1`, rankeval's
//! default weight). Then `EE-D = ||E||^2`, `EE-R = E . E*`, `EE-L =
//! ||E - E*||^2`, and expeval's bounds, with `r` the number of relevant
//! documents and `S(x) = (1 - x^r) / (1 - x)`, `q' = p` (RBP) or `p u`
//! (gERR):
//!
//! | metric | lower | upper | default |
//! |---|---|---|---|
//! | EE-D | `k S(q')^2` | `k S(p)^2`; both 0 when `k = 1` | 0 |
//! | EE-R | 0 | 0 (see below) | 1 |
//! | EE-L | 0 | `max(||E*||^2, sum_g (S(p) - E*(g))^2)` | 0 |
//!
//! expeval's choices, kept: EE-D's bounds meet under RBP (normalised EE-D
//! is then 0 whatever the ranking), and EE-R's upper bound is a loop that
//! adds `v * ub` to `ub = 0` (`GroupRelevance`), so it is 0 and the
//! normalised EE-R is 1 whatever the ranking: compare group EE-R with
//! `norm=false`. Where rankeval differs: expeval's squared norm (`util.l2`)
//! is infinite for a vector of no mass (no relevant document retrieved:
//! EE-D `inf`); rankeval gives its value, 0.

use std::collections::HashMap;

use rankeval_core::{GroupRanking, Samples};

use super::exposure::{Browsing, Model, Which, targets};

/// One group's summed exposure and target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupValue {
    /// The group's number in the document groups.
    pub group: u32,
    /// `E(g)`.
    pub exposure: f64,
    /// `E*(g)`.
    pub target: f64,
}

/// The group-level values and what normalises them.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupExposure {
    /// Each group of a relevant document, in order of first appearance
    /// among the query's judged documents.
    pub groups: Vec<GroupValue>,
    /// EE-D, `||E||^2`.
    pub disparity: f64,
    /// EE-R, `E . E*`.
    pub relevance: f64,
    /// EE-L, `||E - E*||^2`.
    pub loss: f64,
    /// `||E*||^2`.
    pub target_norm: f64,
    /// `r`, the query's number of relevant documents.
    pub relevant: usize,
}

/// `S(x) = sum_{i < r} x^i = (1 - x^r) / (1 - x)`, expeval's
/// `geometricSeries(x, r)`.
fn series(x: f64, r: usize) -> f64 {
    let power = match i32::try_from(r) {
        Ok(r) => x.powi(r),
        Err(_) => 0.0,
    };
    (1.0 - power) / (1.0 - x)
}

/// Expected exposure summed per group over `samples`, or `None` when the
/// samples carry no document groups. The query's judged grades
/// (descending) are `ideal`, its judged documents' places among the
/// grouped documents in the first sample's [`GroupRanking::judged`].
pub fn group_expected(
    samples: &Samples<'_>,
    ideal: &[rankeval_core::Grade],
    browsing: &Browsing,
) -> Option<GroupExposure> {
    let first = samples.rankings().first()?;
    let view = first.groups()?;
    let levels = targets(ideal, browsing);
    // The relevant documents with a group: place -> (its exposure, target).
    let mut relevant: Vec<(u32, f64, f64)> = Vec::new();
    let mut index: HashMap<u32, usize> = HashMap::new();
    for &(place, grade) in view.judged() {
        if grade < browsing.level || place == GroupRanking::NONE {
            continue;
        }
        let target = levels
            .iter()
            .find(|l| l.grade == grade)
            .map_or(0.0, |l| l.target);
        index.entry(place).or_insert_with(|| {
            relevant.push((place, 0.0, target));
            relevant.len() - 1
        });
    }
    let n = samples.len() as f64;
    for ranking in samples.rankings() {
        let places = ranking.groups().map_or(&[][..], |g| g.ranked());
        let mut above = 0usize;
        for (i, judgement) in ranking.ranked().iter().enumerate() {
            let relevant_here = judgement.is_relevant(browsing.level);
            if relevant_here
                && let Some(&at) = places.get(i).and_then(|p| index.get(p))
                && let Some(slot) = relevant.get_mut(at)
            {
                slot.1 += browsing.exposure(i, above) / n;
            }
            if relevant_here {
                above += 1;
            }
        }
    }
    let groups = view.groups();
    let mut values: Vec<GroupValue> = Vec::new();
    let mut slots: HashMap<u32, usize> = HashMap::new();
    for &(place, exposure, target) in &relevant {
        for &(g, w) in groups.memberships(place) {
            let at = *slots.entry(g).or_insert_with(|| {
                values.push(GroupValue {
                    group: g,
                    exposure: 0.0,
                    target: 0.0,
                });
                values.len() - 1
            });
            if let Some(value) = values.get_mut(at) {
                value.exposure += w * exposure;
                value.target += w * target;
            }
        }
    }
    let (mut disparity, mut relevance, mut loss, mut target_norm) = (0.0, 0.0, 0.0, 0.0);
    for v in &values {
        disparity += v.exposure * v.exposure;
        relevance += v.target * v.exposure;
        let difference = v.target - v.exposure;
        loss += difference * difference;
        target_norm += v.target * v.target;
    }
    Some(GroupExposure {
        groups: values,
        disparity,
        relevance,
        loss,
        target_norm,
        relevant: levels.iter().map(|l| l.count).sum(),
    })
}

impl GroupExposure {
    /// expeval's bounds of a group-level value: `(lower, upper, default)`
    /// (see the [module](self)).
    pub fn bounds(&self, which: Which, browsing: &Browsing) -> (f64, f64, f64) {
        let k = self.groups.len() as f64;
        let p = browsing.patience;
        let rate = match browsing.model {
            Model::Rbp => p,
            Model::Gerr => p * browsing.utility,
        };
        let r = self.relevant;
        match which {
            Which::Disparity if self.groups.len() == 1 => (0.0, 0.0, 0.0),
            Which::Disparity => {
                let (low, high) = (series(rate, r), series(p, r));
                (k * low * low, k * high * high, 0.0)
            }
            Which::Relevance => (0.0, 0.0, 1.0),
            Which::Loss => {
                let mass = series(p, r);
                let spread = self
                    .groups
                    .iter()
                    .map(|v| (mass - v.target) * (mass - v.target))
                    .fold(0.0, |sum, x| sum + x);
                let upper = if self.target_norm > spread {
                    self.target_norm
                } else {
                    spread
                };
                (0.0, upper, 0.0)
            }
        }
    }

    /// The value asked for, raw or normalised by expeval's bounds.
    pub fn value(&self, which: Which, normalised: bool, browsing: &Browsing) -> f64 {
        let raw = match which {
            Which::Disparity => self.disparity,
            Which::Relevance => self.relevance,
            Which::Loss => self.loss,
        };
        if !normalised {
            return raw;
        }
        let (lower, upper, default) = self.bounds(which, browsing);
        if lower == upper {
            default
        } else {
            (raw - lower) / (upper - lower)
        }
    }
}
