//! The median over the evaluated queries.

use rankeval_core::AggregateState;
use rankeval_core::Aggregator;
use serde::{Deserialize, Serialize};

/// The median of `values` (the mean of the two middle values for an even
/// count); NaN when there are none. The mean of the middle two is
/// `(a + b) / 2`, or `a / 2 + b / 2` when `a + b` overflows (values near
/// `f64::MAX`): the same correctly rounded mean, never an infinity.
///
/// ```
/// use rankeval_metrics::aggregators::median::median;
/// assert_eq!(median(&[0.9, 0.1, 0.5]), 0.5);
/// assert_eq!(median(&[0.9, 0.1, 0.5, 0.2]), (0.2 + 0.5) / 2.0);
/// ```
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => middle(sorted[n / 2 - 1], sorted[n / 2]),
    }
}

/// The mean of `a` and `b`, without overflow: halving is exact for values
/// that large, so `a / 2 + b / 2` is rounded once, as `(a + b) / 2` is.
fn middle(a: f64, b: f64) -> f64 {
    let sum = a + b;
    if sum.is_infinite() && a.is_finite() && b.is_finite() {
        a / 2.0 + b / 2.0
    } else {
        sum / 2.0
    }
}

/// The `median` aggregator.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Median {}

#[rankeval_core::aggregator(
    name = "median",
    summary = "median over the evaluated queries (mean of the middle two for even counts)",
    example = Median {},
)]
impl Aggregator for Median {
    fn name(&self) -> String {
        "median".to_owned()
    }
    fn aggregate(&self, per_query: &[f64]) -> f64 {
        median(per_query)
    }
    /// The count of each distinct value, exact and often small; the
    /// default finish aggregates them.
    fn state(&self) -> AggregateState {
        AggregateState::counts()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn middle_value_or_mean_of_the_middle_two() {
        assert_eq!(median(&[3.0]), 3.0);
        assert_eq!(median(&[1.0, 0.0, 0.5]), 0.5);
        assert_eq!(median(&[1.0, 0.0, 0.25, 0.75]), (0.25 + 0.75) / 2.0);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn the_middle_two_near_the_largest_f64_do_not_overflow() {
        let max = f64::MAX;
        assert_eq!(median(&[max, max]), max);
        assert_eq!(median(&[-max, -max, 0.0, -max]), -max);
        assert_eq!(median(&[max, max / 2.0, 0.0, max]), max * 0.75);
        assert_eq!(median(&[max, f64::INFINITY]), f64::INFINITY);
    }
}
