//! The geometric mean over the evaluated queries, with trec_eval's floor.
//!
//! `gmean = exp(mean(ln(max(x, floor))))`. The floor keeps a query that
//! scores 0 from making the whole mean 0; its default, 0.00001, is
//! trec_eval's `MIN_GEO_MEAN`, so `gmean` of AP is trec_eval's `gm_map`
//! (and of bpref, `gm_bpref`).

use rankeval_core::exact_sum::fsum;
use rankeval_core::registry::ParamDoc;
use rankeval_core::{Aggregator, CanonicalName};
use serde::{Deserialize, Serialize};

/// trec_eval's `MIN_GEO_MEAN`, the default floor.
pub const DEFAULT_FLOOR: f64 = 0.00001;

/// The geometric mean of `values`, each raised to at least `floor`, with
/// the logarithms summed exactly ([`fsum`]); NaN when there are none.
///
/// ```
/// use rankeval_metrics::aggregators::gmean::gmean;
/// assert_eq!(gmean(&[0.5, 0.125], 0.00001), ((0.5f64.ln() + 0.125f64.ln()) / 2.0).exp());
/// // A 0 counts as the floor.
/// assert_eq!(gmean(&[0.0], 0.001), 0.001f64.ln().exp());
/// ```
pub fn gmean(values: &[f64], floor: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let logs = fsum(values.iter().map(|x| x.max(floor).ln()));
    (logs / values.len() as f64).exp()
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
            ((0.0324f64.ln() + 0.4175f64.ln() + 0.0858f64.ln()) / 3.0).exp()
        );
        assert!((gm - 0.1051).abs() < 0.00005, "{gm}");
    }

    #[test]
    fn zero_is_raised_to_the_floor() {
        let gm = gmean(&[0.0, 0.1], DEFAULT_FLOOR);
        assert_eq!(gm, ((0.00001f64.ln() + 0.1f64.ln()) / 2.0).exp());
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
