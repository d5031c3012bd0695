//! Expected exposure (Diaz, Mitra, Ekstrand, Biega and Carterette,
//! "Evaluating Stochastic Rankings with Expected Exposure", CIKM 2020), as
//! its reference implementation `expeval` (github.com/diazf/expeval,
//! `exposure.py`, `metrics.py`) computes it in its default, retrieval
//! setting (judgements incomplete: only relevant documents have a target).
//!
//! A user browses a ranking from the top; the exposure of the document at
//! rank `i` (from 0) is the chance the user reaches it:
//!
//! - RBP (Moffat and Zobel, 2008): `p^i`, `p` the patience;
//! - gERR (Chapelle et al., 2009, section 7.2, as expeval has it):
//!   `p^i (1 - u)^(relevant documents above i)`, `u` the utility.
//!
//! Over a query's sampled rankings, a document's expected exposure
//! `epsilon(d)` is the mean of its exposure over the samples (0 in a
//! sample that does not retrieve it). The target `epsilon*(d)` of a
//! relevant document is the mean exposure of the ranks its relevance
//! level would share in an ideal ranking (levels by descending grade,
//! `m` documents at a level, `b` documents at higher levels):
//!
//! - RBP: `(p^b - p^(b+m)) / (m (1 - p))`;
//! - gERR: `(q^b - q^(b+m)) / (m (1 - q))`, `q = p (1 - u)`.
//!
//! Then `EE-D = ||epsilon||^2` (disparity), `EE-R = epsilon . epsilon*`
//! (relevance) and `EE-L = ||epsilon - epsilon*||^2` (the loss; the three
//! related by `EE-L = EE-D - 2 EE-R + ||epsilon*||^2`).
//!
//! expeval's normalised values are `(value - lower) / (upper - lower)`, or
//! a default when the bounds meet, with its bounds (retrieval setting):
//!
//! | metric | lower | upper | default |
//! |---|---|---|---|
//! | EE-D | 0 | `1 / (1 - p^2)` | 0 |
//! | EE-R | 0 | `||epsilon*||^2`, 0 when the query has at most one relevance level | 1 |
//! | EE-L | 0 | `||epsilon*||^2 + 1 / (1 - q')`, `q' = p` (RBP) or `p u` (gERR) | 0 |
//!
//! (expeval's own choices, kept: EE-D's upper bound squares `p` for both
//! models, and EE-L's takes `p u`, not `p (1 - u)`, for gERR.)

use rankeval_core::{Grade, Judgement, Samples};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The browsing model of expected exposure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// Rank-biased precision's user: exposure `p^i`.
    Rbp,
    /// Graded ERR's user, who may stop at a relevant document: exposure
    /// `p^i (1 - u)^(relevant above)` (expeval's default).
    #[default]
    Gerr,
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Model::Rbp => "rbp",
            Model::Gerr => "gerr",
        })
    }
}

/// A browsing model with its parameters and the relevance level that says
/// which documents are relevant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Browsing {
    /// RBP or gERR.
    pub model: Model,
    /// Patience `p`, `0 <= p < 1`.
    pub patience: f64,
    /// Utility `u` (gERR), `0 <= u <= 1`.
    pub utility: f64,
    /// The lowest relevant grade.
    pub level: Grade,
}

/// `x^n` for a count `n` (0 for a count past `i32`, where `x < 1` has
/// long reached 0).
fn pow(x: f64, n: usize) -> f64 {
    match i32::try_from(n) {
        Ok(n) => x.powi(n),
        Err(_) if x.abs() < 1.0 => 0.0,
        Err(_) => x.powf(n as f64),
    }
}

impl Browsing {
    /// The exposure of rank `i` (from 0) below `relevant_above` relevant
    /// documents.
    #[inline]
    pub fn exposure(&self, i: usize, relevant_above: usize) -> f64 {
        match self.model {
            Model::Rbp => pow(self.patience, i),
            Model::Gerr => pow(self.patience, i) * pow(1.0 - self.utility, relevant_above),
        }
    }

    /// The rate expeval's EE-L bound sums: `p` (RBP) or `p u` (gERR).
    fn bound_rate(&self) -> f64 {
        match self.model {
            Model::Rbp => self.patience,
            Model::Gerr => self.patience * self.utility,
        }
    }
}

/// The target exposure of one relevance level: its grade, its number of
/// documents `m`, and each one's target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    /// The level's grade.
    pub grade: Grade,
    /// The number of relevant documents with this grade.
    pub count: usize,
    /// Each one's target exposure.
    pub target: f64,
}

/// The target exposures of a query's relevant documents, by level (highest
/// grade first), from its judged grades in descending order.
pub fn targets(ideal: &[Grade], browsing: &Browsing) -> Vec<Level> {
    let mut levels: Vec<Level> = Vec::new();
    for &grade in ideal.iter().take_while(|&&g| g >= browsing.level) {
        match levels.last_mut() {
            Some(last) if last.grade == grade => last.count += 1,
            _ => levels.push(Level {
                grade,
                count: 1,
                target: 0.0,
            }),
        }
    }
    let rate = match browsing.model {
        Model::Rbp => browsing.patience,
        Model::Gerr => browsing.patience * (1.0 - browsing.utility),
    };
    let mut above = 0usize;
    for level in &mut levels {
        let m = level.count;
        level.target = (pow(rate, above) - pow(rate, above + m)) / (m as f64 * (1.0 - rate));
        above += m;
    }
    levels
}

/// The target of a document judged `judgement` (0 unless relevant).
fn target_of(levels: &[Level], judgement: Judgement, level: Grade) -> f64 {
    if !judgement.is_relevant(level) {
        return 0.0;
    }
    levels
        .iter()
        .find(|l| l.grade == judgement.grade())
        .map_or(0.0, |l| l.target)
}

/// The three values and what normalises them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Exposure {
    /// EE-D, `||epsilon||^2`.
    pub disparity: f64,
    /// EE-R, `epsilon . epsilon*`.
    pub relevance: f64,
    /// EE-L, `||epsilon - epsilon*||^2`.
    pub loss: f64,
    /// `||epsilon*||^2`.
    pub target_norm: f64,
    /// The number of relevance levels.
    pub levels: usize,
}

/// A document's exposure summed over the samples, its judgement, and
/// whether it was retrieved.
#[derive(Clone, Copy)]
struct Doc {
    exposure: f64,
    judgement: Judgement,
}

/// Expected exposure over `samples` (each judged down to its whole list),
/// against the targets made from `ideal` (the query's judged grades,
/// descending). No sample: every exposure 0.
pub fn expected(samples: &Samples<'_>, ideal: &[Grade], browsing: &Browsing) -> Exposure {
    let levels = targets(ideal, browsing);
    let (docs, seen) = accumulate(samples, browsing);
    let (mut disparity, mut relevance, mut loss) = (0.0, 0.0, 0.0);
    // Relevant documents retrieved, per level.
    let mut retrieved = vec![0usize; levels.len()];
    for (doc, &seen) in docs.iter().zip(&seen) {
        if !seen {
            continue;
        }
        let target = target_of(&levels, doc.judgement, browsing.level);
        if doc.judgement.is_relevant(browsing.level)
            && let Some(at) = levels.iter().position(|l| l.grade == doc.judgement.grade())
        {
            retrieved[at] += 1;
        }
        disparity += doc.exposure * doc.exposure;
        relevance += target * doc.exposure;
        let difference = doc.exposure - target;
        loss += difference * difference;
    }
    let mut target_norm = 0.0;
    for (level, &got) in levels.iter().zip(&retrieved) {
        let square = level.target * level.target;
        target_norm += level.count as f64 * square;
        loss += level.count.saturating_sub(got) as f64 * square;
    }
    Exposure {
        disparity,
        relevance,
        loss,
        target_norm,
        levels: levels.len(),
    }
}

/// Each document's exposure summed over `samples` (divided by their
/// number as it is added), its judgement, and whether a sample retrieved
/// it, by the documents' numbers.
fn accumulate(samples: &Samples<'_>, browsing: &Browsing) -> (Vec<Doc>, Vec<bool>) {
    let n = samples.len() as f64;
    let mut docs = vec![
        Doc {
            exposure: 0.0,
            judgement: Judgement::UNJUDGED,
        };
        samples.num_docs()
    ];
    let mut seen = vec![false; samples.num_docs()];
    for (s, ranking) in samples.rankings().iter().enumerate() {
        let mut relevant_above = 0usize;
        for (i, (&judgement, &d)) in ranking.ranked().iter().zip(samples.docs(s)).enumerate() {
            if let Some(doc) = docs.get_mut(d as usize) {
                doc.exposure += browsing.exposure(i, relevant_above) / n;
                doc.judgement = judgement;
            }
            if let Some(seen) = seen.get_mut(d as usize) {
                *seen = true;
            }
            if judgement.is_relevant(browsing.level) {
                relevant_above += 1;
            }
        }
    }
    (docs, seen)
}

/// One document's expected exposure `epsilon(d)` over the samples and its
/// target `epsilon*(d)` (0 unless relevant): the terms of
/// [`expected`], which `explain` prints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DocumentExposure {
    /// `epsilon(d)`.
    pub exposure: f64,
    /// `epsilon*(d)`.
    pub target: f64,
}

/// Each document's exposure and target, by the documents' numbers in
/// `samples` (`None` for a number no sample retrieved), as [`expected`]
/// computes them.
pub fn documents(
    samples: &Samples<'_>,
    ideal: &[Grade],
    browsing: &Browsing,
) -> Vec<Option<DocumentExposure>> {
    let levels = targets(ideal, browsing);
    let (docs, seen) = accumulate(samples, browsing);
    docs.iter()
        .zip(&seen)
        .map(|(doc, &seen)| {
            seen.then(|| DocumentExposure {
                exposure: doc.exposure,
                target: target_of(&levels, doc.judgement, browsing.level),
            })
        })
        .collect()
}

/// Which of the three values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// EE-D.
    Disparity,
    /// EE-R.
    Relevance,
    /// EE-L.
    Loss,
}

/// expeval's bounds of a value: `(lower, upper, default)` (see the
/// [module](self)).
pub fn bounds(which: Which, exposure: &Exposure, browsing: &Browsing) -> (f64, f64, f64) {
    match which {
        Which::Disparity => {
            let p2 = browsing.patience * browsing.patience;
            (0.0, 1.0 / (1.0 - p2), 0.0)
        }
        Which::Relevance if exposure.levels <= 1 => (0.0, 0.0, 1.0),
        Which::Relevance => (0.0, exposure.target_norm, 1.0),
        Which::Loss => (
            0.0,
            exposure.target_norm + 1.0 / (1.0 - browsing.bound_rate()),
            0.0,
        ),
    }
}

impl Exposure {
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
        let (lower, upper, default) = bounds(which, self, browsing);
        if lower == upper {
            default
        } else {
            (raw - lower) / (upper - lower)
        }
    }
}
