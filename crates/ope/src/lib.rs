//! Off-policy evaluation: what a target policy (a ranking never shipped)
//! would have earned, estimated from impression logs that carry the
//! logging policy's propensities.
//!
//! * [`bandit`]: one action per impression: IPS, clipped IPS, SNIPS, DM,
//!   DR, self-normalised DR, Switch-DR, DR with optimistic shrinkage.
//! * [`slate`]: a slate per impression: the standard slate IPS,
//!   independent IPS (item-position), reward-interaction IPS (cascade),
//!   Cascade-DR, the pseudo-inverse estimator (and its self-normalised
//!   form).
//! * [`click`]: click logs: IPS-weighted rank metrics (DCG, RBP,
//!   precision) under the position-based examination model.
//!
//! Each estimator turns an impression into a [`Contribution`] and adds it
//! to a [`State`]: exact sums (rankeval-core's `FullSum`) of at most three
//! columns, their products and the weights, which merge to the same bits
//! for any partition of the log. [`State::estimate`] finishes a state into
//! an [`Estimate`]: the value, its standard error (the delta method for
//! the self-normalised estimators), a normal or t interval
//! ([`IntervalKind`]), the [`Diagnostics`] (impressions, effective sample
//! size, largest weight, supported share of the target's mass, clipped
//! weights) and the [`Refusal`]s under the [`Floors`] (one place for their
//! defaults). Two policies on one log are compared paired by impression
//! ([`paired`]): the difference of their linearised contributions.
//!
//! A state goes to bytes and back ([`wire`]: versioned, checked on
//! decode) to be merged on another machine.
//!
//! Pure functions over plain structs, no I/O; it depends on rankeval-core
//! (exact sums) and rankeval-stats (the t and normal quantiles, the
//! interval type). See docs/ope.md for when to use which estimator and
//! what each assumes.

pub mod bandit;
pub mod bootstrap;
mod check;
pub mod click;
pub mod error;
pub mod estimate;
pub mod paired;
pub mod plackett_luce;
pub mod slate;
pub mod state;
pub mod wire;

pub use bootstrap::Resampling;
pub use error::{OpeError, Policy};
pub use estimate::{Diagnostics, Estimate, Floors, IntervalKind, Options, Refusal};
pub use paired::{
    PairedDifference, linearised, linearised_with, paired_difference, paired_of_squares,
};
pub use plackett_luce::PlackettLuce;
pub use state::{Contribution, Form, State, WeightSums};
