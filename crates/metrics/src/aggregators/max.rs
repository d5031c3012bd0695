//! The largest per-query value.

use rankeval_core::Aggregator;
use rankeval_core::aggregate_state::larger;
use rankeval_core::{AggregateState, AggregateStateError};
use serde::{Deserialize, Serialize};

/// The largest of `values`, NaN skipped and `0.0` above `-0.0`, so the same bits in
/// any order of the values (a merged Spark state's); NaN when there are
/// none.
///
/// ```
/// use rankeval_metrics::aggregators::max::max;
/// assert_eq!(max(&[0.5, 0.25, 1.0]), 1.0);
/// ```
pub fn max(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::NAN, larger)
}

/// The `max` aggregator.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Max {}

#[rankeval_core::aggregator(
    name = "max",
    summary = "largest per-query value (the best query)",
    example = Max {},
)]
impl Aggregator for Max {
    fn name(&self) -> String {
        "max".to_owned()
    }
    fn aggregate(&self, per_query: &[f64]) -> f64 {
        max(per_query)
    }
    /// n, the smallest and the largest value.
    fn state(&self) -> AggregateState {
        AggregateState::range()
    }
    fn finish(&self, state: AggregateState) -> Result<f64, AggregateStateError> {
        match state {
            AggregateState::Range(range) => Ok(range.max),
            other => Err(super::state::wrong_kind(self, &other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_or_nan() {
        assert_eq!(max(&[0.5, 0.0, 1.0]), 1.0);
        assert_eq!(max(&[-2.0]), -2.0);
        assert!(max(&[]).is_nan());
    }
}
