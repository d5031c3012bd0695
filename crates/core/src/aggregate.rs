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

    /// The confidence interval around [`aggregate`](Aggregator::aggregate)
    /// for an aggregator that gives one (`ci`), so that reports can show
    /// `mean [lower, upper]`; `None` (the default) for every other.
    /// `Some(Err(reason))` when these values have no interval (too few of
    /// them, a value that is not finite): reports then show no bounds and
    /// warn with the reason. Like `aggregate`, the same input must give the
    /// same bits, whatever the thread count.
    fn interval(&self, per_query: &[f64]) -> Option<Result<Bounds, String>> {
        let _ = per_query;
        None
    }
}

/// The two ends of an aggregate's confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// The lower end.
    pub lower: f64,
    /// The upper end.
    pub upper: f64,
}

impl Bounds {
    /// No bounds: both ends NaN, what a report keeps for an interval that
    /// could not be computed.
    pub const UNDEFINED: Bounds = Bounds {
        lower: f64::NAN,
        upper: f64::NAN,
    };
}

/// Aggregators are equal when their canonical names are.
impl PartialEq for dyn Aggregator {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}
