//! The `Aggregator` trait: one number from a metric's per-query values.

use std::fmt;

/// Summarizes one metric's per-query values (mean, median, ...).
///
/// Implementors write [`name`](Aggregator::name) and
/// [`aggregate`](Aggregator::aggregate), and register the impl with
/// [`#[rankeval_core::aggregator(...)]`](macro@crate::aggregator) like metrics.
#[typetag::serde(tag = "type")]
pub trait Aggregator: Send + Sync + fmt::Debug {
    /// The canonical name, e.g. `mean`; parses back to an equal aggregator.
    fn name(&self) -> String;

    /// The summary of `per_query`, which is in the engine's query order. The
    /// same input must always give the same bits: sum in order, no
    /// parallel reduction. An empty input gives NaN ("no value").
    fn aggregate(&self, per_query: &[f64]) -> f64;

    /// Checks the parameters together. Default: accept.
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Aggregators are equal when their canonical names are.
impl PartialEq for dyn Aggregator {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}
