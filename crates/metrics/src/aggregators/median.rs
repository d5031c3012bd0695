//! The median over the evaluated queries.

use rankeval_core::Aggregator;
use serde::{Deserialize, Serialize};

/// The median of `values` (the mean of the two middle values for an even
/// count); NaN when there are none.
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
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
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
}
