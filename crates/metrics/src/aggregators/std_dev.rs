//! The standard deviation over the evaluated queries.
//!
//! `std = sqrt(sum (x - mean)^2 / (n - ddof))`. The default `ddof = 1` is
//! the sample standard deviation (pandas `Series.std`, R `sd`), the usual
//! choice when the queries are a sample of the queries a system will see;
//! `ddof = 0` is the population standard deviation (numpy `std`). NaN when
//! `n <= ddof`, as pandas gives.

use rankeval_core::AggregateState;
use rankeval_core::exact_sum::squared_deviations;
use rankeval_core::registry::ParamDoc;
use rankeval_core::{Aggregator, CanonicalName};
use serde::{Deserialize, Serialize};

/// The standard deviation of `values` with `ddof` delta degrees of freedom,
/// in two passes: the mean from the exact sum, then the squared deviations
/// summed exactly ([`squared_deviations`]), so the same bits whatever the
/// order of the queries; NaN when `values.len() <= ddof`.
///
/// ```
/// use rankeval_metrics::aggregators::std_dev::std_dev;
/// let mean = (0.0 + 0.5 + 1.0) / 3.0;
/// let squares: f64 = (0.0 - mean) * (0.0 - mean) + 0.0 + (1.0 - mean) * (1.0 - mean);
/// assert_eq!(std_dev(&[0.0, 0.5, 1.0], 1), (squares / 2.0).sqrt());
/// assert_eq!(std_dev(&[0.0, 0.5, 1.0], 0), (squares / 3.0).sqrt());
/// ```
///
/// Values of 2^500 (about 3e150) or more, whose squares could overflow,
/// are scaled by 2^-600 first and the result scaled back: every step
/// commutes with a power of two, so the bits are those of floats without
/// an exponent limit (a deviation too small to survive the scaling is
/// lost in `x - mean` either way), not an infinity.
pub fn std_dev(values: &[f64], ddof: u32) -> f64 {
    let n = values.len();
    let ddof = ddof as usize;
    if n <= ddof {
        return f64::NAN;
    }
    let large = 2f64.powi(500);
    if values.iter().any(|x| x.is_finite() && x.abs() >= large) {
        let (down, up) = (2f64.powi(-600), 2f64.powi(600));
        let scaled: Vec<f64> = values.iter().map(|x| x * down).collect();
        return (squared_deviations(&scaled) / (n - ddof) as f64).sqrt() * up;
    }
    (squared_deviations(values) / (n - ddof) as f64).sqrt()
}

/// The `std` aggregator (aliases `std_dev`, `stdev`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StdDev {
    /// Delta degrees of freedom: divide by `n - ddof`.
    #[serde(default = "default_ddof")]
    pub ddof: u32,
}

/// The default `ddof`, 1: the sample standard deviation.
pub const DEFAULT_DDOF: u32 = 1;

fn default_ddof() -> u32 {
    DEFAULT_DDOF
}

impl Default for StdDev {
    fn default() -> Self {
        Self { ddof: DEFAULT_DDOF }
    }
}

#[rankeval_core::aggregator(
    name = "std",
    aliases = &["std_dev", "stdev"],
    summary = "standard deviation over the queries; sample (ddof = 1) by default",
    params = &[ParamDoc {
        name: "ddof",
        alias: None,
        default: "1",
        doc: "divide by n - ddof: 1 = sample (pandas, R), 0 = population (numpy)",
    }],
    example = StdDev { ddof: 0 },
)]
impl Aggregator for StdDev {
    fn name(&self) -> String {
        CanonicalName::new("std")
            .param_unless_default("ddof", self.ddof, DEFAULT_DDOF)
            .finish()
    }
    fn aggregate(&self, per_query: &[f64]) -> f64 {
        std_dev(per_query, self.ddof)
    }
    /// The count of each distinct value (the squared deviations need the
    /// mean of every value first); the default finish aggregates them.
    fn state(&self) -> AggregateState {
        AggregateState::counts()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_and_population() {
        // Mean 0.5; squared deviations 0.25, 0.25, 0, 0.
        let values = [0.0, 1.0, 0.5, 0.5];
        assert_eq!(std_dev(&values, 1), ((0.25 + 0.25) / 3.0f64).sqrt());
        assert_eq!(std_dev(&values, 0), ((0.25 + 0.25) / 4.0f64).sqrt());
    }

    #[test]
    fn too_few_values_give_nan() {
        assert!(std_dev(&[], 0).is_nan());
        assert!(std_dev(&[0.3], 1).is_nan());
        assert_eq!(std_dev(&[0.3], 0), 0.0);
    }

    #[test]
    fn values_near_the_largest_f64_have_their_deviation() {
        let max = f64::MAX;
        // Mean 1.5e308 * 2/3 = 1e308; deviations 0.5e308, 0.5e308, -1e308.
        let got = std_dev(&[1.5e308, 1.5e308, 0.0], 0);
        let scaled = std_dev(&[1.5, 1.5, 0.0], 0) * 1e308;
        assert!((got / scaled - 1.0).abs() < 1e-15, "{got} {scaled}");
        // The same bits as the values scaled down by a power of two, scaled back.
        let values = [max, max / 3.0, -max / 7.0, 1.0];
        let small: Vec<f64> = values.iter().map(|x| x * 2f64.powi(-700)).collect();
        assert_eq!(std_dev(&values, 1), std_dev(&small, 1) * 2f64.powi(700));
        assert_eq!(std_dev(&[max, max], 1), 0.0);
    }

    #[test]
    fn canonical_names() {
        assert_eq!(StdDev::default().name(), "std");
        assert_eq!(StdDev { ddof: 0 }.name(), "std(ddof=0)");
    }
}
