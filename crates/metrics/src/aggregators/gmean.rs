//! The geometric mean over the evaluated queries, with trec_eval's floor.
//!
//! `gmean = exp(mean(ln(max(x, floor))))`. The floor keeps a query that
//! scores 0 from making the whole mean 0; its default, 0.00001, is
//! trec_eval's `MIN_GEO_MEAN`, so `gmean` of AP is trec_eval's `gm_map`
//! (and of bpref, `gm_bpref`).

use rankeval_core::exact_sum::fsum;
use rankeval_core::registry::ParamDoc;
use rankeval_core::{AggregateState, AggregateStateError, Aggregator, CanonicalName};
use serde::{Deserialize, Serialize};

/// trec_eval's `MIN_GEO_MEAN`, the default floor.
pub const DEFAULT_FLOOR: f64 = 0.00001;

/// The geometric mean of `values`, each raised to at least `floor`, with
/// the logarithms summed exactly ([`fsum`]); NaN when there are none. The
/// logarithm and the exponential are the `libm` crate's (a port of musl's),
/// not the platform's C library's: the same bits on every platform, and in
/// a Spark job ([`floored_ln`], [`from_log_sum`]).
///
/// ```
/// use rankeval_metrics::aggregators::gmean::gmean;
/// assert_eq!(gmean(&[0.5, 0.125], 0.00001), libm::exp((libm::log(0.5) + libm::log(0.125)) / 2.0));
/// // A 0 counts as the floor.
/// assert_eq!(gmean(&[0.0], 0.001), libm::exp(libm::log(0.001)));
/// ```
pub fn gmean(values: &[f64], floor: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let logs = fsum(values.iter().map(|x| floored_ln(*x, floor)));
    from_log_sum(logs, values.len())
}

/// `ln(max(x, floor))`, the term a geometric mean sums: `libm::log`, the
/// same bits on every platform (the platform's `f64::ln` is glibc's, musl's,
/// macOS' or Windows' and may differ in the last bit).
pub fn floored_ln(x: f64, floor: f64) -> f64 {
    libm::log(x.max(floor))
}

/// The geometric mean from the sum of `n` values' [`floored_ln`]:
/// `exp(log_sum / n)`, with `libm::exp`.
pub fn from_log_sum(log_sum: f64, n: usize) -> f64 {
    libm::exp(log_sum / n as f64)
}

/// The `gmean` aggregator (aliases `geometric_mean`, `gm`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeometricMean {
    /// Values below this count as this; positive.
    #[serde(default = "default_floor")]
    pub floor: f64,
}

fn default_floor() -> f64 {
    DEFAULT_FLOOR
}

impl Default for GeometricMean {
    fn default() -> Self {
        Self {
            floor: DEFAULT_FLOOR,
        }
    }
}

#[rankeval_core::aggregator(
    name = "gmean",
    aliases = &["geometric_mean", "gm"],
    summary = "geometric mean, values floored at 0.00001 (trec_eval gm_map)",
    params = &[ParamDoc {
        name: "floor",
        alias: None,
        default: "0.00001",
        doc: "values below floor count as floor (positive; trec_eval's MIN_GEO_MEAN)",
    }],
    example = GeometricMean { floor: 0.001 },
)]
impl Aggregator for GeometricMean {
    fn name(&self) -> String {
        CanonicalName::new("gmean")
            .param_unless_default("floor", self.floor, DEFAULT_FLOOR)
            .finish()
    }
    fn aggregate(&self, per_query: &[f64]) -> f64 {
        gmean(per_query, self.floor)
    }
    /// n and the exact sum of the floored logarithms.
    fn state(&self) -> AggregateState {
        AggregateState::sum()
    }
    fn update(&self, state: &mut AggregateState, query: &[u8], value: f64) {
        state.add(query, floored_ln(value, self.floor));
    }
    fn finish(&self, state: AggregateState) -> Result<f64, AggregateStateError> {
        super::state::from_sum(self, state, |sum| {
            from_log_sum(sum.sum.value(), sum.n as usize)
        })
    }
    fn validate(&self) -> Result<(), String> {
        if self.floor > 0.0 && self.floor.is_finite() {
            Ok(())
        } else {
            Err(format!(
                "floor must be a positive number (the logarithm of 0 is -inf), not {}",
                self.floor
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trec_eval_gm_map_of_its_test_run() {
        // Per-query AP of queries 301, 302, 303 in trec_eval's test suite,
        // printed to 4 decimals; trec_eval prints gm_map 0.1051.
        let gm = gmean(&[0.0324, 0.4175, 0.0858], DEFAULT_FLOOR);
        assert_eq!(
            gm,
            libm::exp((libm::log(0.0324) + libm::log(0.4175) + libm::log(0.0858)) / 3.0)
        );
        assert!((gm - 0.1051).abs() < 0.00005, "{gm}");
    }

    /// The same bits on every platform: the `libm` crate's log and exp, not
    /// the C library's (glibc 2.36's `ln` and `exp` give
    /// 0x3f673d7d755748fb here, one ulp above).
    #[test]
    fn the_same_bits_on_every_platform() {
        let gm = gmean(&[1.0 / 997.0, 8.0 / 997.0], DEFAULT_FLOOR);
        assert_eq!(gm.to_bits(), 0x3f67_3d7d_7557_48fa, "{gm:e}");
    }

    #[test]
    fn zero_is_raised_to_the_floor() {
        let gm = gmean(&[0.0, 0.1], DEFAULT_FLOOR);
        assert_eq!(gm, libm::exp((libm::log(0.00001) + libm::log(0.1)) / 2.0));
        assert!(gmean(&[], DEFAULT_FLOOR).is_nan());
    }

    #[test]
    fn floor_is_validated() {
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(GeometricMean { floor: bad }.validate().is_err(), "{bad}");
        }
        assert!(GeometricMean::default().validate().is_ok());
    }

    #[test]
    fn canonical_names() {
        assert_eq!(GeometricMean::default().name(), "gmean");
        assert_eq!(GeometricMean { floor: 0.001 }.name(), "gmean(floor=0.001)");
    }
}
