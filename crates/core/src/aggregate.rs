//! The `Aggregator` trait: one number from a metric's per-query values.

use std::fmt;

use crate::aggregate_state::{AggregateState, AggregateStateError};

/// Summarizes one metric's per-query values (mean, median, ...).
///
/// Implementors write [`name`](Aggregator::name) and
/// [`aggregate`](Aggregator::aggregate), and register the impl with
/// [`#[rankeval_core::aggregator(...)]`](macro@crate::aggregator) like metrics.
///
/// Where a column is split (a Spark job's partitions), the aggregate is
/// computed from mergeable states ([`crate::aggregate_state`]):
/// [`state`](Aggregator::state), [`update`](Aggregator::update) and
/// [`finish`](Aggregator::finish) have defaults that keep every value with
/// its query and call `aggregate` on the whole column at the end, so every
/// aggregator runs there with no code of its own; an aggregator whose
/// result depends only on the values may override `state` (and `update`,
/// `finish`) with a compact state, as the built-in `mean` and `median` do.
/// `finish` must give exactly the bits of `aggregate` on the whole column.
#[typetag::serde(tag = "type")]
pub trait Aggregator: Send + Sync + fmt::Debug {
    /// The canonical name, e.g. `mean`; parses back to an equal aggregator.
    fn name(&self) -> String;

    /// The summary of `per_query`, which is in the engine's query order. The
    /// same input must always give the same bits: sum in order, no
    /// parallel reduction. An empty input gives NaN ("no value").
    fn aggregate(&self, per_query: &[f64]) -> f64;

    /// A state that has seen no value. Default:
    /// [`AggregateState::values`], every `(query, value)`, exact for any
    /// aggregate. Override with a compact kind (a
    /// [`Sum`](AggregateState::Sum) for a mean) when the aggregate does not
    /// depend on the order of the values.
    fn state(&self) -> AggregateState {
        AggregateState::values()
    }

    /// Sees query `query`'s value (its id's bytes). Default:
    /// [`AggregateState::add`]; override to add a function of the value
    /// (`gmean` adds its logarithm to a [`Sum`](AggregateState::Sum)).
    fn update(&self, state: &mut AggregateState, query: &[u8], value: f64) {
        state.add(query, value);
    }

    /// The aggregate of every value `state` (merged from every part) has
    /// seen: exactly the bits of [`aggregate`](Aggregator::aggregate) on
    /// the whole column in the engine's order. Default: `aggregate` on the
    /// column of a [`Values`](AggregateState::Values) state (sorted by
    /// query id) or a [`Counts`](AggregateState::Counts) state (in IEEE
    /// total order: for an aggregate of the values alone); an error for
    /// another kind.
    fn finish(&self, state: AggregateState) -> Result<f64, AggregateStateError> {
        let kind = state.kind();
        match state.into_column() {
            Some(column) => Ok(self.aggregate(&column?)),
            None => Err(AggregateStateError::WrongKind {
                aggregator: self.name(),
                kind,
            }),
        }
    }

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
