//! The arithmetic mean over the evaluated queries: MAP is the mean of AP.

use rankeval_core::Aggregator;
use rankeval_core::exact_sum::fmean;
use rankeval_core::{AggregateState, AggregateStateError};
use serde::{Deserialize, Serialize};

/// The mean of `values` from their exact sum (Python's `statistics.fmean`:
/// [`fmean`]), so the same bits whatever the order of the queries or how a
/// job split them; NaN when there are none.
///
/// ```
/// use rankeval_metrics::aggregators::mean::mean;
/// // Spec vectors a and b: MAP@5 truncated.
/// assert_eq!(mean(&[1.0 / 3.0, 0.65 / 3.0]), (1.0 / 3.0 + 0.65 / 3.0) / 2.0);
/// ```
pub fn mean(values: &[f64]) -> f64 {
    fmean(values)
}

/// The `mean` aggregator (alias `avg`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mean {}

#[rankeval_core::aggregator(
    name = "mean",
    aliases = &["avg"],
    summary = "arithmetic mean over the evaluated queries",
    example = Mean {},
)]
impl Aggregator for Mean {
    fn name(&self) -> String {
        "mean".to_owned()
    }
    fn aggregate(&self, per_query: &[f64]) -> f64 {
        mean(per_query)
    }
    /// n and the exact sum: [`fmean`]'s bits from any split.
    fn state(&self) -> AggregateState {
        AggregateState::sum()
    }
    fn finish(&self, state: AggregateState) -> Result<f64, AggregateStateError> {
        super::state::from_sum(self, state, |sum| sum.sum.mean(sum.n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_of_values_and_of_nothing() {
        assert_eq!(mean(&[0.5, 1.0, 0.0]), 1.5 / 3.0);
        assert!(mean(&[]).is_nan());
    }

    #[test]
    fn values_near_the_largest_f64_have_their_mean() {
        let max = f64::MAX;
        assert_eq!(mean(&[max, max]), max);
        assert_eq!(mean(&[1.7e308, 1.7e308, -1.7e308, 0.0]), 1.7e308 / 4.0);
        assert_eq!(mean(&[-max, -max, -max]), -max);
    }
}
