//! The `rankeval_rs` Python package's native module with the example's
//! aggregators linked in: on Spark, `result.aggregate(["trimmed_mean"])`
//! runs them in the tasks and on the driver like the built-ins.
//!
//! Nothing to write but the two names: rankeval-python brings the module
//! (its `PyInit__native`, which this library exports), the plugin crate its
//! `#[aggregator]` registrations. A crate that is not named is not linked,
//! and its plugins are then silently missing from the registry.

use rankeval_example_custom_aggregator as _;
use rankeval_python as _;
