//! Integration tests of the built-in metrics, in one binary.
//!
//! - `spec_vectors`: every row a–j of the spec's test vectors, by name,
//!   through the registry (short syntax), the judge and the metric.
//! - `registry`: the registry's invariants and round trips, and the errors
//!   of the short syntax.
//! - `properties`: invariants every metric keeps on random judged rankings
//!   (proptest).
//! - `grades`: integer grades give the bits of the integer formulas
//!   (proptest), decimal grades and levels are used as they are, and
//!   `Metric::uses_default_level` tells the truth.
//! - `docs`: `docs/metrics.md` documents every registered metric and
//!   aggregator with the parameters and defaults of its descriptor.
//! - `peers`: the peers' variants on the values their own test suites
//!   publish (RecTools, Microsoft recommenders, cornac).
//! - `ties`: `ties = average` against every order of the ties, enumerated.
//! - `weighted`: the declarative metric gives the built-ins it overlaps
//!   with bit for bit.
//! - `additive`: a metric that says it is additive in the grades has no
//!   interaction between two documents' grades.

#![allow(clippy::unwrap_used, clippy::expect_used)]

// The registry is filled by linking this crate; name it so it is linked.
use rankeval_metrics as _;

mod additive;
mod bounds;
mod docs;
mod grades;
mod peers;
mod properties;
mod registry;
mod spec_vectors;
mod ties;
mod weighted;
