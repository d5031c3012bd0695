//! The largest per-query value.

use rankeval_core::Aggregator;
use serde::{Deserialize, Serialize};

/// The largest of `values`; NaN when there are none.
///
/// ```
/// use rankeval_metrics::aggregators::max::max;
/// assert_eq!(max(&[0.5, 0.25, 1.0]), 1.0);
/// ```
pub fn max(values: &[f64]) -> f64 {
    values.iter().copied().reduce(f64::max).unwrap_or(f64::NAN)
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
