//! rankeval-ope's tests, one binary:
//!
//! * `definitions`: each estimator against its definition computed by hand
//!   on a few impressions;
//! * `anchors`: the peers' own test vectors: Vowpal Wabbit's estimators
//!   library (constant rewards give the constant, intervals cover it; the
//!   pseudo-inverse estimator with one slot is IPS, 1.22375 and SNIPS
//!   0.657047), obp's Cascade-DR with a zero model equal to RIPS, IPS-weighted
//!   RBP equal to rankeval's RBP when every rank is examined;
//! * `reference`: every estimator on a generated log against the plain
//!   numpy reference `scripts/cross-check/ope-reference.py`, within 1e-12;
//! * `merge`: states of any partition of a log merge to the same bits
//!   (proptest);
//! * `wire`: states to bytes and back bit for bit, decoded parts merging
//!   to the whole, hostile bytes errors not panics (proptest);
//! * `errors`: every invalid input is an error naming the impression;
//! * `sampling`: the Plackett-Luce marginals by seeded Monte Carlo
//!   converge to the exact enumeration within their Monte Carlo error;
//! * `simulation`: a seeded simulation with a known truth: IPS, SNIPS and
//!   DR unbiased, their 95% intervals' coverage, the refusal.

#![allow(clippy::unwrap_used, clippy::expect_used)]
// The tests' hand-computed values may use the platform's log2 (clippy.toml
// forbids it in the estimators, whose bits must not depend on the
// platform): an independent computation.
#![allow(clippy::disallowed_methods)]

mod anchors;
mod definitions;
mod errors;
mod generated;
mod merge;
mod reference;
mod sampling;
mod simulation;
mod wire;
