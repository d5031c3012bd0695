//! The sum over the evaluated queries, as trec_eval's `all` line gives the
//! counts (`num_ret`, `num_rel`, `num_rel_ret`).

use rankeval_core::Aggregator;
use rankeval_core::exact_sum::fsum;
use rankeval_core::{AggregateState, AggregateStateError};
use serde::{Deserialize, Serialize};

/// The sum of `values`, exact and rounded once ([`fsum`]); NaN when there are none (no value, as for
/// every aggregator, rather than a 0 that looks like a measurement).
///
/// ```
/// use rankeval_metrics::aggregators::sum::sum;
/// // trec_eval's test run: num_rel of queries 301, 302, 303.
/// assert_eq!(sum(&[474.0, 77.0, 10.0]), 561.0);
/// ```
pub fn sum(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    fsum(values.iter().copied())
}

/// The `sum` aggregator (alias `total`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sum {}

#[rankeval_core::aggregator(
    name = "sum",
    aliases = &["total"],
    summary = "sum over the evaluated queries (trec_eval's all line for counts)",
    example = Sum {},
)]
impl Aggregator for Sum {
    fn name(&self) -> String {
        "sum".to_owned()
    }
    fn aggregate(&self, per_query: &[f64]) -> f64 {
        sum(per_query)
    }
    /// n and the exact sum: [`fsum`]'s bits from any split.
    fn state(&self) -> AggregateState {
        AggregateState::sum()
    }
    fn finish(&self, state: AggregateState) -> Result<f64, AggregateStateError> {
        super::state::from_sum(self, state, |sum| sum.sum.value())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sum_in_order_or_nan() {
        assert_eq!(sum(&[1.0, 2.0, 0.5]), 1.0 + 2.0 + 0.5);
        assert!(sum(&[]).is_nan());
    }

    #[test]
    fn values_near_the_largest_f64_sum_exactly() {
        let max = f64::MAX;
        assert_eq!(sum(&[max, max, -max]), max);
        assert_eq!(sum(&[1.7e308, 1.7e308, -1.7e308, -1.7e308, 0.5]), 0.5);
        // Beyond the largest f64: an infinity (the report warns), not NaN.
        assert_eq!(sum(&[max, max]), f64::INFINITY);
    }
}
