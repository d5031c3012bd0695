//! The errors of the estimators: an input that no estimator can use, named
//! by the impression's index (and the position, for slates and click logs).

use thiserror::Error;

/// Which probability an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// The logging policy's (the propensity).
    Logging,
    /// The target policy's.
    Target,
}

impl std::fmt::Display for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Policy::Logging => "logging propensity",
            Policy::Target => "target probability",
        })
    }
}

/// An input the estimators refuse to compute with. `index` is the
/// impression's place in the input (0-based), `position` the slate
/// position or logged rank (1-based) where the error is about one.
#[derive(Clone, Debug, PartialEq, Error)]
#[non_exhaustive]
pub enum OpeError {
    /// A logging propensity outside `(0, 1]` or a target probability
    /// outside `[0, 1]` (NaN included).
    #[error("impression {index}{}: {policy} {value} is not in {}", at(*position), if *policy == Policy::Logging { "(0, 1]" } else { "[0, 1]" })]
    Probability {
        /// The impression.
        index: usize,
        /// The position, for per-position propensities.
        position: Option<usize>,
        /// Which policy's probability.
        policy: Policy,
        /// The value given.
        value: f64,
    },
    /// A reward, a reward model's prediction or a computed contribution
    /// that is NaN or infinite.
    #[error("impression {index}{}: {what} {value} is not finite", at(*position))]
    NotFinite {
        /// The impression.
        index: usize,
        /// The position, where the value is one position's.
        position: Option<usize>,
        /// What the value is.
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// Per-position arrays of one impression whose lengths differ, or a
    /// slate whose length differs from the log's.
    #[error("impression {index}: {what} has {found} positions, expected {expected}")]
    Length {
        /// The impression.
        index: usize,
        /// Which array.
        what: &'static str,
        /// The length expected.
        expected: usize,
        /// The length found.
        found: usize,
    },
    /// An estimator that needs a reward model (DM and the doubly robust
    /// family) was given an impression without one.
    #[error("impression {index}: {estimator} needs a reward model's predictions")]
    MissingRewardModel {
        /// The impression.
        index: usize,
        /// The estimator's name.
        estimator: &'static str,
    },
    /// An estimator's parameter out of its range (a clipping weight, a
    /// threshold or a shrinkage that is not positive, a persistence
    /// outside `(0, 1)`, a cutoff of 0).
    #[error("{estimator}: {parameter} = {value}: {reason}")]
    Parameter {
        /// The estimator's name.
        estimator: &'static str,
        /// The parameter.
        parameter: &'static str,
        /// The value given.
        value: f64,
        /// What the range is.
        reason: &'static str,
    },
    /// An estimator that needs a form of propensities the impression
    /// does not have (slate IPS needs the slate's probability or the
    /// cascade's, IIPS and PI the marginals, RIPS and Cascade-DR the
    /// cascade's).
    #[error("impression {index}: {estimator} needs the {form} ({policy})")]
    MissingPropensity {
        /// The impression.
        index: usize,
        /// The estimator's name.
        estimator: &'static str,
        /// Which policy's.
        policy: Policy,
        /// The form needed.
        form: &'static str,
    },
    /// A state merged into a state of another estimator.
    #[error("cannot merge a {theirs} state into a {ours} state")]
    Mismatch {
        /// The receiving state's estimator.
        ours: String,
        /// The other state's estimator.
        theirs: String,
    },
    /// A state that would count more impressions (or clipped weights)
    /// than a `u64` holds: a merge of states from elsewhere whose counts
    /// overflow.
    #[error("{name}: more impressions than a 64-bit count holds")]
    TooMany {
        /// The estimator's name.
        name: String,
    },
    /// An interval level not strictly between 0 and 1.
    #[error("interval level {0} is not strictly between 0 and 1")]
    Level(f64),
}

fn at(position: Option<usize>) -> String {
    position
        .map(|p| format!(", position {p}"))
        .unwrap_or_default()
}
