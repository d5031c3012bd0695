//! The smallest per-query value.

use rankeval_core::Aggregator;
use rankeval_core::aggregate_state::smaller;
use rankeval_core::{AggregateState, AggregateStateError};
use serde::{Deserialize, Serialize};

/// The smallest of `values`, NaN skipped and `-0.0` below `0.0`, so the same bits in
/// any order of the values (a merged Spark state's); NaN when there are
/// none.
///
/// ```
/// use rankeval_metrics::aggregators::min::min;
/// assert_eq!(min(&[0.5, 0.25, 1.0]), 0.25);
/// ```
pub fn min(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::NAN, smaller)
}

/// The `min` aggregator.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Min {}

#[rankeval_core::aggregator(
    name = "min",
    summary = "smallest per-query value (the worst query)",
    example = Min {},
)]
impl Aggregator for Min {
    fn name(&self) -> String {
        "min".to_owned()
    }
    fn aggregate(&self, per_query: &[f64]) -> f64 {
        min(per_query)
    }
    /// n, the smallest and the largest value.
    fn state(&self) -> AggregateState {
        AggregateState::range()
    }
    fn finish(&self, state: AggregateState) -> Result<f64, AggregateStateError> {
        match state {
            AggregateState::Range(range) => Ok(range.min),
            other => Err(super::state::wrong_kind(self, &other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smallest_or_nan() {
        assert_eq!(min(&[0.5, 0.0, 1.0]), 0.0);
        assert_eq!(min(&[2.0]), 2.0);
        assert!(min(&[]).is_nan());
    }
}
