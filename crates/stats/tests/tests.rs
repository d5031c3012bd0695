//! rankeval-stats's tests, one binary:
//!
//! * `reference`: against scipy / statsmodels values and exact enumerations
//!   written by `scripts/data/compare.py` into `tests/data/`;
//! * `determinism`: thread counts, the pinned RNG stream, shared draws;
//! * `properties`: proptest invariants;
//! * `gates`: each rule passing and failing;
//! * `intervals`: the interval of one column's mean (t and BCa) against
//!   scipy, its determinism and its errors;
//! * `macro_average`: a suite's macro average, stratified bootstrap and
//!   paired comparison against numpy;
//! * `seeds`: systems of several runs: the seed-aware comparison's type-I
//!   error in a simulation, against numpy's;
//! * `keyed`: the query-keyed, mergeable statistics: Spark's `xxhash64`,
//!   the delete-a-group jackknife, the keyed sign-flip and t-tests giving
//!   the same bits for any split and order of the queries, the wire format;
//! * `keyed_resampling`: the keyed bootstrap and the keyed randomized Tukey
//!   HSD against their definitions, split- and order-free, and against the
//!   position-drawn tests they stand in for;
//! * `agreement`: agreement between two judge sets (Cohen's kappa, Kendall's
//!   tau, top-k agreement, the mean difference) against scikit-learn and
//!   scipy values written by `scripts/data/agreement.py`, hand-computed
//!   examples and the errors;
//! * `ppi`: prediction-powered inference against numpy and `ppi_py`
//!   (`scripts/data/ppi-simulation.py`), its interval's coverage in a
//!   simulation with a biased LLM judge, and its errors;
//! * `rbo`: rank-biased overlap against Corsi and Urbano's `rbo/test.csv`
//!   (their R implementation's twelve scores per pair of tied rankings)
//!   and their README's example;
//! * `errors`: every invalid input is an error, never a panic.

#![allow(clippy::unwrap_used, clippy::expect_used)]
// The tests' reference values, tolerances and generated inputs may use the
// platform's exp, ln, powi (clippy.toml forbids them in the crate's
// statistics, whose bits must not depend on the platform).
#![allow(clippy::disallowed_methods)]

mod agreement;
mod determinism;
mod errors;
mod fixtures;
mod gates;
mod intervals;
mod keyed;
mod keyed_resampling;
mod macro_average;
mod ppi;
mod properties;
mod rbo;
mod reference;
mod seeds;
