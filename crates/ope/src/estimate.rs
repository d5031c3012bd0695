//! An estimate with its standard error, interval and diagnostics, and the
//! decision to refuse it: the floors live here, in one place.

use rankeval_stats::Interval;
use rankeval_stats::student::upper_quantile;
use serde::Serialize;

use crate::error::OpeError;
use crate::state::State;

/// The interval around an estimate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IntervalKind {
    /// `estimate ± z se`, `z` the normal quantile of `(1 + level) / 2`:
    /// the large-sample interval obp and VW's `gaussian` interval use.
    #[default]
    Normal,
    /// `estimate ± t se`, `t` Student's quantile with `n - 1` degrees of
    /// freedom: a little wider for small logs.
    T,
    /// The percentile interval of a seeded bootstrap of the impressions
    /// ([`crate::bootstrap`]). A state alone has no impressions to
    /// resample: [`State::estimate`] gives the normal interval, which the
    /// caller replaces with the bootstrap's.
    Bootstrap,
}

/// The floors below which an estimate is refused ([`Refusal`]). The
/// defaults are the ones documented in docs/ope.md; every front end takes
/// them from here.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Floors {
    /// The fewest impressions: default [`Floors::DEFAULT_MIN_N`].
    pub min_n: u64,
    /// The smallest effective sample size `(Σw)² / Σw²`: default
    /// [`Floors::DEFAULT_MIN_ESS`].
    pub min_ess: f64,
    /// The smallest share of the target's mass the log supports: default
    /// [`Floors::DEFAULT_MIN_SUPPORT`].
    pub min_support: f64,
}

impl Floors {
    /// 30 impressions: below, neither the normal nor the t interval of a
    /// mean of skewed weighted rewards is near its level.
    pub const DEFAULT_MIN_N: u64 = 30;
    /// An effective sample size of 100: the estimate rests on at least as
    /// much information as 100 impressions logged by the target itself.
    /// The Open Bandit Dataset's "women" campaign under a uniform target
    /// has about 2 out of 10,000.
    pub const DEFAULT_MIN_ESS: f64 = 100.0;
    /// 95% of the target's mass supported: below, the unsupported actions'
    /// rewards, which no log can show, can move the value by more than
    /// the 5% left out.
    pub const DEFAULT_MIN_SUPPORT: f64 = 0.95;

    /// Floors that refuse nothing (what `--allow-low-support` reports
    /// against, with the refusals still listed).
    pub const NONE: Floors = Floors {
        min_n: 0,
        min_ess: 0.0,
        min_support: f64::NEG_INFINITY,
    };
}

impl Default for Floors {
    fn default() -> Self {
        Self {
            min_n: Self::DEFAULT_MIN_N,
            min_ess: Self::DEFAULT_MIN_ESS,
            min_support: Self::DEFAULT_MIN_SUPPORT,
        }
    }
}

/// How estimates are finished: the interval's kind and level and the
/// refusal floors.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Options {
    /// Normal or t.
    pub interval: IntervalKind,
    /// The interval's level, strictly between 0 and 1 (default 0.95).
    pub level: f64,
    /// The refusal floors.
    pub floors: Floors,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            interval: IntervalKind::Normal,
            level: 0.95,
            floors: Floors::default(),
        }
    }
}

/// What an estimate rests on, reported with every estimate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Diagnostics {
    /// Impressions.
    pub n: u64,
    /// The effective sample size `(Σw)² / Σw²` (Kong, 1992; Owen, *Monte
    /// Carlo theory, methods and examples*, 2013, eq. 9.13): `n` when
    /// every weight is equal, near 1 when one weight dominates; 0 when
    /// every weight is 0.
    pub ess: f64,
    /// The largest weight (in absolute value).
    pub max_weight: f64,
    /// The share of the target's probability mass the log supports: the
    /// mean of the impressions' supported mass (see
    /// [`Contribution::support`](crate::state::Contribution::support)).
    pub support: f64,
    /// The standard error of [`support`](Self::support), `s / sqrt(n)`
    /// (0 when every impression's supported mass is the same; NaN below
    /// two impressions).
    pub support_error: f64,
    /// The number of weights clipped (or switched to the reward model).
    pub clipped: u64,
}

/// Why an estimate is refused.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Refusal {
    /// Fewer impressions than [`Floors::min_n`].
    TooFewImpressions {
        /// Impressions.
        n: u64,
        /// The floor.
        min: u64,
    },
    /// An effective sample size below [`Floors::min_ess`].
    LowEffectiveSampleSize {
        /// The effective sample size.
        ess: f64,
        /// The floor.
        min: f64,
    },
    /// Less of the target's mass supported than [`Floors::min_support`],
    /// beyond the noise: the supported share's one-sided 97.5% upper
    /// bound, `support + 1.96 support_error`, is below the floor (or the
    /// support is not a number, from an empty log). The share is a mean of
    /// weights when only the logged actions' probabilities are known, as
    /// noisy as the estimate; the bound keeps a log that supports the
    /// target from being refused for its noise.
    LowSupport {
        /// The share supported.
        support: f64,
        /// The floor.
        min: f64,
    },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::TooFewImpressions { n, min } => {
                write!(f, "{n} impressions, fewer than the floor of {min}")
            }
            Refusal::LowEffectiveSampleSize { ess, min } => write!(
                f,
                "effective sample size {ess:.1}, below the floor of {min}: a few large weights carry the estimate"
            ),
            Refusal::LowSupport { support, min } => write!(
                f,
                "the log supports {:.1}% of the target's mass, below the floor of {:.1}%",
                support * 100.0,
                min * 100.0
            ),
        }
    }
}

/// The normal quantile of the support's one-sided 97.5% upper bound
/// ([`Refusal::LowSupport`]).
pub const SUPPORT_BOUND_Z: f64 = 1.959963984540054;

impl Diagnostics {
    /// The refusals these diagnostics earn under `floors`, in the order
    /// impressions, effective sample size, support (empty: accepted).
    pub fn refusals(&self, floors: &Floors) -> Vec<Refusal> {
        let mut out = Vec::new();
        if self.n < floors.min_n {
            out.push(Refusal::TooFewImpressions {
                n: self.n,
                min: floors.min_n,
            });
        }
        if self.ess.is_nan() || self.ess < floors.min_ess {
            out.push(Refusal::LowEffectiveSampleSize {
                ess: self.ess,
                min: floors.min_ess,
            });
        }
        let upper = self.support + SUPPORT_BOUND_Z * self.support_error.max(0.0);
        if self.support.is_nan() || upper < floors.min_support {
            out.push(Refusal::LowSupport {
                support: self.support,
                min: floors.min_support,
            });
        }
        out
    }
}

/// One estimator's estimate of a target policy's value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// The estimator's name (`ips`, `snips`, `dr`, ...).
    pub estimator: String,
    /// The estimate (NaN for an empty log).
    pub value: f64,
    /// Its standard error (the delta method for the self-normalised
    /// estimators; NaN below two impressions).
    pub standard_error: f64,
    /// `value ∓ q standard_error`, `q` the normal or t quantile.
    pub interval: Interval,
    /// The interval's kind.
    pub interval_kind: IntervalKind,
    /// What the estimate rests on.
    pub diagnostics: Diagnostics,
    /// Why it is refused under the options' floors (empty: accepted).
    pub refusals: Vec<Refusal>,
}

impl Estimate {
    /// Whether the estimate is refused.
    pub fn is_refused(&self) -> bool {
        !self.refusals.is_empty()
    }
}

impl State {
    /// The diagnostics of the impressions added.
    pub fn diagnostics(&self) -> Diagnostics {
        let w = self.weights();
        let sum = w.sum.value();
        let squares = w.sum_squares.value();
        let ess = if squares > 0.0 {
            sum * sum / squares
        } else if w.n > 0 {
            0.0
        } else {
            f64::NAN
        };
        let support_error = if w.n < 2 {
            f64::NAN
        } else {
            let mut centred = w.support_squares.clone();
            let total = w.support.value();
            centred.add(-(total * total / w.n as f64));
            (centred.value().max(0.0) / (w.n - 1) as f64 / w.n as f64).sqrt()
        };
        Diagnostics {
            n: w.n,
            ess,
            max_weight: w.max,
            support: w.support.mean(w.n),
            support_error,
            clipped: w.clipped,
        }
    }

    /// The estimate, its standard error, interval, diagnostics and
    /// refusals under `options`. Error: a level not strictly between 0
    /// and 1.
    pub fn estimate(&self, options: &Options) -> Result<Estimate, OpeError> {
        let level = options.level;
        if !(level > 0.0 && level < 1.0) {
            return Err(OpeError::Level(level));
        }
        let (value, standard_error) = self.value_and_error();
        let df = match options.interval {
            IntervalKind::Normal | IntervalKind::Bootstrap => f64::INFINITY,
            IntervalKind::T => self.count().saturating_sub(1) as f64,
        };
        let interval = if standard_error == 0.0 {
            Interval {
                lower: value,
                upper: value,
                level,
            }
        } else {
            let q = upper_quantile(df, (1.0 - level) / 2.0);
            Interval {
                lower: value - q * standard_error,
                upper: value + q * standard_error,
                level,
            }
        };
        let diagnostics = self.diagnostics();
        Ok(Estimate {
            estimator: self.name().to_string(),
            value,
            standard_error,
            interval,
            interval_kind: options.interval,
            refusals: diagnostics.refusals(&options.floors),
            diagnostics,
        })
    }
}
