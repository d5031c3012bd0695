//! The mean over the evaluated queries with its confidence interval.
//!
//! `ci` gives the same number as `mean` (the same bits), and reports show
//! it with the bounds of its interval: `0.6063 [0.4912, 0.7214]` in a
//! table, columns in JSON and CSV, error bars in HTML. The interval is of
//! the mean over the queries, the queries taken as a sample of those the
//! system will see (Sakai, *Statistical Reform in Information Retrieval?*,
//! SIGIR Forum 48(1), 2014, asks for one beside every mean).
//!
//! Two methods, both in `rankeval_stats::interval`:
//!
//! * `t` (the default): Student's t interval, what `scipy.stats.t.interval`
//!   with the standard error of the mean gives; no random numbers;
//! * `bca`: the bias-corrected and accelerated bootstrap interval, what
//!   `scipy.stats.bootstrap(..., method="BCa")` gives within Monte Carlo
//!   error, from `resamples` resamples drawn with `seed` (ChaCha20, the
//!   same bits for any thread count); better for the skewed, zero-heavy
//!   per-query values of small query sets. Its canonical name always
//!   carries the resamples and the seed, so every report says how it was
//!   drawn.

use rankeval_core::registry::ParamDoc;
use rankeval_core::{Aggregator, Bounds, CanonicalName};
use rankeval_stats::{CompareError, DEFAULT_SEED, MeanIntervalMethod, bca_interval, t_interval};
use serde::{Deserialize, Serialize};

use super::mean::mean;

/// The default confidence level, 0.95.
pub const DEFAULT_LEVEL: f64 = 0.95;

/// The default number of bootstrap resamples for `method=bca`, as the
/// paired bootstrap and randomization tests draw by default.
pub const DEFAULT_RESAMPLES: u64 = 10_000;

/// The `ci` aggregator (alias `confidence_interval`): the mean, with its
/// interval at `level`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfidenceInterval {
    /// The confidence level, strictly between 0 and 1.
    #[serde(default = "default_level")]
    pub level: f64,
    /// `t` or `bca`.
    #[serde(default)]
    pub method: MeanIntervalMethod,
    /// Bootstrap resamples (`bca` only); positive.
    #[serde(default = "default_resamples")]
    pub resamples: u64,
    /// The seed of the resamples (`bca` only).
    #[serde(default = "default_seed")]
    pub seed: u64,
}

fn default_level() -> f64 {
    DEFAULT_LEVEL
}

fn default_resamples() -> u64 {
    DEFAULT_RESAMPLES
}

fn default_seed() -> u64 {
    DEFAULT_SEED
}

impl Default for ConfidenceInterval {
    fn default() -> Self {
        Self {
            level: DEFAULT_LEVEL,
            method: MeanIntervalMethod::T,
            resamples: DEFAULT_RESAMPLES,
            seed: DEFAULT_SEED,
        }
    }
}

impl ConfidenceInterval {
    /// The interval of the mean of `values`, or why there is none.
    pub fn bounds(&self, values: &[f64]) -> Result<Bounds, CompareError> {
        let interval = match self.method {
            MeanIntervalMethod::T => t_interval(values, self.level)?,
            MeanIntervalMethod::Bca => {
                bca_interval(values, self.level, self.resamples, self.seed)?.interval
            }
        };
        Ok(Bounds {
            lower: interval.lower,
            upper: interval.upper,
        })
    }
}

#[rankeval_core::aggregator(
    name = "ci",
    aliases = &["confidence_interval"],
    summary = "the mean with its confidence interval: t (default) or BCa bootstrap, seeded",
    params = &[
        ParamDoc {
            name: "level",
            alias: None,
            default: "0.95",
            doc: "confidence level, strictly between 0 and 1",
        },
        ParamDoc {
            name: "method",
            alias: None,
            default: "t",
            doc: "t = Student's t interval (scipy.stats.t.interval); bca = BCa bootstrap \
                  (scipy.stats.bootstrap method=BCa)",
        },
        ParamDoc {
            name: "resamples",
            alias: None,
            default: "10000",
            doc: "bootstrap resamples (bca only)",
        },
        ParamDoc {
            name: "seed",
            alias: None,
            default: "42",
            doc: "seed of the resamples (bca only; ChaCha20, the same bits for any thread count)",
        },
    ],
    example = ConfidenceInterval { level: 0.9, ..ConfidenceInterval::default() },
)]
impl Aggregator for ConfidenceInterval {
    fn name(&self) -> String {
        let name =
            CanonicalName::new("ci").param_unless_default("level", self.level, DEFAULT_LEVEL);
        match self.method {
            MeanIntervalMethod::T => name.finish(),
            MeanIntervalMethod::Bca => name
                .param("method", self.method.name())
                .param("resamples", self.resamples)
                .param("seed", self.seed)
                .finish(),
        }
    }

    fn aggregate(&self, per_query: &[f64]) -> f64 {
        mean(per_query)
    }

    fn interval(&self, per_query: &[f64]) -> Option<Result<Bounds, String>> {
        Some(self.bounds(per_query).map_err(|error| error.to_string()))
    }

    fn validate(&self) -> Result<(), String> {
        if !(self.level > 0.0 && self.level < 1.0) {
            return Err(format!(
                "level must be strictly between 0 and 1 (0.95 for a 95% interval), not {}",
                self.level
            ));
        }
        match self.method {
            MeanIntervalMethod::Bca if self.resamples == 0 => {
                Err("resamples must be at least 1 (10000 by default)".to_owned())
            }
            MeanIntervalMethod::Bca => rankeval_stats::check_resamples(self.resamples)
                .map_err(|error| format!("resamples: {error}")),
            MeanIntervalMethod::T
                if self.resamples != DEFAULT_RESAMPLES || self.seed != DEFAULT_SEED =>
            {
                Err(
                    "resamples and seed are the bootstrap's: they need method=bca (the t \
                     interval draws nothing)"
                        .to_owned(),
                )
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bca(seed: u64) -> ConfidenceInterval {
        ConfidenceInterval {
            method: MeanIntervalMethod::Bca,
            resamples: 2_000,
            seed,
            ..ConfidenceInterval::default()
        }
    }

    #[test]
    fn the_value_is_the_mean_bit_for_bit() {
        let values = [0.1, 0.7, 0.25, 1.0, 0.0, 0.3];
        assert_eq!(
            ConfidenceInterval::default().aggregate(&values).to_bits(),
            mean(&values).to_bits()
        );
        assert_eq!(bca(1).aggregate(&values).to_bits(), mean(&values).to_bits());
    }

    #[test]
    fn t_interval_by_hand() {
        // mean 0.5, sample sd sqrt(((0.4)^2 * 2 + 0 + 0) / 3), n = 4;
        // t_{0.975, 3} = 3.182446305284263 (scipy.stats.t.ppf).
        let values = [0.1, 0.9, 0.5, 0.5];
        let bounds = ConfidenceInterval::default()
            .interval(&values)
            .expect("ci gives an interval")
            .expect("defined");
        let half = 3.182446305284263 * (0.32f64 / 3.0).sqrt() / 2.0;
        assert!((bounds.lower - (0.5 - half)).abs() < 1e-12, "{bounds:?}");
        assert!((bounds.upper - (0.5 + half)).abs() < 1e-12, "{bounds:?}");
    }

    #[test]
    fn bca_is_seeded_and_brackets_the_mean() {
        let values: Vec<f64> = (0..40).map(|i| f64::from(i % 7) / 7.0).collect();
        let first = bca(7).interval(&values).expect("some").expect("defined");
        let again = bca(7).interval(&values).expect("some").expect("defined");
        assert_eq!(first.lower.to_bits(), again.lower.to_bits());
        assert_eq!(first.upper.to_bits(), again.upper.to_bits());
        let m = mean(&values);
        assert!(first.lower < m && m < first.upper, "{first:?} around {m}");
        let other = bca(8).interval(&values).expect("some").expect("defined");
        assert_ne!(first, other, "another seed draws other resamples");
    }

    #[test]
    fn too_few_values_give_a_reason_not_a_panic() {
        let reason = ConfidenceInterval::default()
            .interval(&[0.5])
            .expect("some")
            .expect_err("one value has no interval");
        assert!(reason.contains("at least 2 values"), "{reason}");
        let reason = ConfidenceInterval::default()
            .interval(&[0.5, f64::NAN])
            .expect("some")
            .expect_err("NaN");
        assert!(reason.contains("NaN"), "{reason}");
    }

    #[test]
    fn canonical_names_carry_what_the_interval_depends_on() {
        assert_eq!(ConfidenceInterval::default().name(), "ci");
        let level = ConfidenceInterval {
            level: 0.9,
            ..ConfidenceInterval::default()
        };
        assert_eq!(level.name(), "ci(level=0.9)");
        assert_eq!(bca(3).name(), "ci(method=bca,resamples=2000,seed=3)");
    }

    #[test]
    fn parameters_are_validated() {
        for level in [0.0, 1.0, -0.5, 1.5, f64::NAN] {
            let ci = ConfidenceInterval {
                level,
                ..ConfidenceInterval::default()
            };
            assert!(ci.validate().is_err(), "{level}");
        }
        let mut zero = bca(1);
        zero.resamples = 0;
        assert!(zero.validate().is_err());
        let seeded_t = ConfidenceInterval {
            seed: 5,
            ..ConfidenceInterval::default()
        };
        let error = seeded_t.validate().expect_err("seed without bca");
        assert!(error.contains("method=bca"), "{error}");
        assert!(ConfidenceInterval::default().validate().is_ok());
        assert!(bca(1).validate().is_ok());
    }
}
