//! The confidence interval of one column's mean: one run's per-query values
//! of one metric, or any other column of numbers whose mean a report shows.
//!
//! Two methods ([`MeanIntervalMethod`]):
//!
//! * [`t_interval`]: Student's t interval `mean ± t_{(1 + level) / 2, n - 1}
//!   s / sqrt(n)`, as `scipy.stats.t.interval(level, df=n - 1, loc=mean,
//!   scale=scipy.stats.sem(values))` computes it. Exact under normality,
//!   and by the central limit theorem close to its level for the query
//!   counts of IR test collections.
//! * [`bca_interval`]: the bias-corrected and accelerated (BCa) bootstrap
//!   interval (Efron, "Better bootstrap confidence intervals", JASA 82,
//!   1987; Efron & Tibshirani, *An Introduction to the Bootstrap*, 1993,
//!   section 14.3 and eq. 14.15 for the jackknife acceleration), with the
//!   definitions of `scipy.stats.bootstrap(..., method="BCa")`
//!   (`scipy/stats/_resampling.py`: `_bca_interval`,
//!   `_percentile_of_score`, and `scipy.stats.quantile`'s default
//!   `linear` method). It corrects the percentile interval for the bias
//!   and the skewness of the bootstrap distribution: second-order accurate
//!   where the t and percentile intervals are first-order, which matters
//!   for the skewed, zero-heavy per-query values of small topic sets.
//!
//! Both need at least two finite values ([`CompareError::TooFewValues`],
//! [`CompareError::NotFiniteValue`]); scipy's intervals are NaN for one
//! value. A column whose values are all the same has the interval
//! `[mean, mean]` under both methods, where scipy gives NaN (its t interval
//! needs a positive scale, its BCa acceleration is 0 / 0): no resample and
//! no quantile can move the mean of a constant column.
//!
//! The BCa interval draws its resamples exactly as the multinomial paired
//! bootstrap does ([`crate::bootstrap`]): ChaCha20, one stream per chunk of
//! [`CHUNK`](crate::bootstrap::CHUNK) resamples, `n` positions drawn by
//! Lemire's method, each resample's mean summed in draw order. So it is the
//! same bits for any thread count on any machine, and the bootstrap
//! distribution of a column's mean is the same whether the column is
//! compared (as a difference column) or given an interval.

use serde::{Deserialize, Serialize};

use crate::bootstrap::{percentile, resampled_means, rounding_allowance, standard_error};
use crate::error::CompareError;
use crate::paired::{mean, sample_sd, validate_level};
use crate::ttest::{Interval, student_interval};
use crate::wilcoxon::standard_normal_sf;

/// Which interval of a column's mean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MeanIntervalMethod {
    /// Student's t interval ([`t_interval`]), the default: closed-form,
    /// no resampling, what `scipy.stats.t.interval` with the standard error
    /// of the mean gives.
    #[default]
    T,
    /// The bias-corrected and accelerated bootstrap interval
    /// ([`bca_interval`]), seeded; what `scipy.stats.bootstrap(...,
    /// method="BCa")` gives, within Monte Carlo error.
    #[serde(alias = "BCa")]
    Bca,
}

impl MeanIntervalMethod {
    /// The name used in reports and configuration: `t` or `bca`.
    pub fn name(self) -> &'static str {
        match self {
            MeanIntervalMethod::T => "t",
            MeanIntervalMethod::Bca => "bca",
        }
    }

    /// Whether the method draws random numbers (resamples and seed matter).
    pub fn is_resampling(self) -> bool {
        matches!(self, MeanIntervalMethod::Bca)
    }
}

/// Student's t interval of the mean of `values` at `level`: `mean ± q s /
/// sqrt(n)`, `s` the sample standard deviation (`n - 1` in the
/// denominator), `q` the `(1 + level) / 2` quantile of Student's t with
/// `n - 1` degrees of freedom. It is `scipy.stats.t.interval(level,
/// df=n - 1, loc=mean, scale=scipy.stats.sem(values))` (the tests check it
/// within 1e-12), and the same computation as the paired t-test's interval
/// of the mean difference.
///
/// Errors: fewer than two values, a value that is NaN or infinite, a level
/// not strictly between 0 and 1. Every value the same: `[mean, mean]`.
pub fn t_interval(values: &[f64], level: f64) -> Result<Interval, CompareError> {
    validate_column(values)?;
    validate_level(level)?;
    let n = values.len() as f64;
    let m = mean(values);
    let standard_error = sample_sd(values, m) / n.sqrt();
    Ok(student_interval(m, standard_error, n - 1.0, level))
}

/// A BCa interval with the quantities that define it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Bca {
    /// The interval: the [`lower_quantile`](Self::lower_quantile) and
    /// [`upper_quantile`](Self::upper_quantile) quantiles of the resampled
    /// means (numpy's `linear` interpolation between order statistics).
    pub interval: Interval,
    /// The bias correction `z0 = Φ⁻¹(p)`, `p` the share of resampled means
    /// below the observed mean, those equal to it counting one half.
    pub bias_correction: f64,
    /// The acceleration `a`, from the jackknife of the mean.
    pub acceleration: f64,
    /// `α1 = Φ(z0 + (z0 + z_α) / (1 - a (z0 + z_α)))`, `α = (1 - level) /
    /// 2`: the quantile of the resampled means taken as the lower bound
    /// (`α` itself when `z0 = a = 0`, the percentile interval).
    pub lower_quantile: f64,
    /// `α2 = Φ(z0 + (z0 + z_{1-α}) / (1 - a (z0 + z_{1-α})))`: the quantile
    /// taken as the upper bound.
    pub upper_quantile: f64,
    /// The standard deviation (`B - 1`) of the resampled means: the
    /// bootstrap standard error, as scipy's `standard_error`.
    pub standard_error: f64,
    /// The number of resamples `B`.
    pub resamples: u64,
    /// The seed of the draws; `None` for a distribution given by the caller
    /// ([`bca_from_distribution`]).
    pub seed: Option<u64>,
}

/// The BCa bootstrap interval of the mean of `values` at `level`, from
/// `resamples` multinomial resamples of the values drawn with `seed` (as
/// the paired bootstrap draws them: the same bits for any thread count).
///
/// With `θ̂` the mean of the values, `θ*_1..θ*_B` the resampled means and
/// `Φ` the standard normal distribution function, following scipy's
/// `_bca_interval` (Efron & Tibshirani 1993, section 14.3):
///
/// * bias correction `z0 = Φ⁻¹((#{θ*_b < θ̂} + #{θ*_b <= θ̂}) / 2B)`, the
///   `mean` convention of `scipy.stats.percentileofscore` that scipy's
///   `_percentile_of_score` uses: a resampled mean equal to the observed
///   one counts one half. Equal means the same in exact arithmetic: the two
///   means are sums in different orders, so a resampled mean within the
///   rounding allowance of the paired bootstrap's p-value (`4 (n + 2) eps
///   max|x|`) of `θ̂` counts as equal, where scipy compares the rounded
///   values and counts ties only when the roundings happen to agree;
/// * acceleration `a = Σ U_i³ / (6 (Σ U_i²)^{3/2})` with `U_i = (n - 1)
///   (θ̂_(·) - θ̂_(i))` from the jackknife means `θ̂_(i)` (Efron &
///   Tibshirani eq. 14.15, scipy's `a_hat`); for the mean `U_i = x_i - θ̂`
///   exactly, which is what is summed here (in a single pass, scaled by
///   `max |x_i - θ̂|` against underflow);
/// * `α1 = Φ(z0 + (z0 + z_α) / (1 - a (z0 + z_α)))` and `α2` the same with
///   `z_{1-α} = -z_α`, `α = (1 - level) / 2`, `z_α = Φ⁻¹(α)`;
/// * the interval is the `α1` and `α2` quantiles of the `θ*_b`, linearly
///   interpolated between order statistics (numpy's default percentile,
///   `scipy.stats.quantile(method="linear")`).
///
/// `Φ` is `erfc` from the `libm` crate (about 1 ulp) and `Φ⁻¹` Newton steps
/// on it (no platform `libm`: the same bits everywhere).
///
/// Errors: fewer than two values, a value that is NaN or infinite, more
/// than `u32::MAX` values, a level not strictly between 0 and 1, zero
/// resamples, and [`CompareError::BcaUndefined`] when every resampled mean
/// lies on one side of the observed one (`z0` infinite; scipy gives NaN).
/// Every value the same: `[mean, mean]` (no resamples are drawn; `z0 = a =
/// 0`, the standard error 0).
pub fn bca_interval(
    values: &[f64],
    level: f64,
    resamples: u64,
    seed: u64,
) -> Result<Bca, CompareError> {
    validate_column(values)?;
    validate_level(level)?;
    crate::paired::check_resamples(resamples)?;
    let observed = mean(values);
    if is_constant(values) {
        return Ok(constant(observed, level, resamples, Some(seed)));
    }
    let means = resampled_means(&[values], resamples, seed)?
        .pop()
        .ok_or(CompareError::NoResamples)?;
    let mut result = bca(values, observed, means, level)?;
    result.seed = Some(seed);
    Ok(result)
}

/// The BCa interval of the mean of `values` from a bootstrap distribution
/// of it given by the caller (`distribution`, the resampled means in any
/// order), with the definitions of [`bca_interval`]. With the resampled
/// means of `scipy.stats.bootstrap(..., method="BCa")`
/// (its `bootstrap_distribution`) it gives scipy's interval (the tests
/// check it within 1e-12).
///
/// Errors: as [`bca_interval`], and
/// [`CompareError::NotFiniteResample`] for a resampled mean that is NaN or
/// infinite; an empty distribution is [`CompareError::NoResamples`].
pub fn bca_from_distribution(
    values: &[f64],
    distribution: &[f64],
    level: f64,
) -> Result<Bca, CompareError> {
    validate_column(values)?;
    validate_level(level)?;
    if distribution.is_empty() {
        return Err(CompareError::NoResamples);
    }
    if let Some(index) = distribution.iter().position(|v| !v.is_finite()) {
        return Err(CompareError::NotFiniteResample {
            index,
            value: distribution[index],
        });
    }
    let observed = mean(values);
    if is_constant(values) {
        return Ok(constant(observed, level, distribution.len() as u64, None));
    }
    bca(values, observed, distribution.to_vec(), level)
}

/// The BCa interval of a validated, non-constant column with mean
/// `observed` from its resampled means.
fn bca(
    values: &[f64],
    observed: f64,
    mut means: Vec<f64>,
    level: f64,
) -> Result<Bca, CompareError> {
    let resamples = means.len() as u64;
    // scipy's _percentile_of_score: (#{< score} + #{<= score}) / (2 B),
    // with equality up to rounding.
    let allowance = rounding_allowance(values);
    let (mut below, mut equal) = (0u64, 0u64);
    for m in &means {
        if *m < observed - allowance {
            below += 1;
        } else if *m <= observed + allowance {
            equal += 1;
        }
    }
    let share = (2 * below + equal) as f64 / (2 * resamples) as f64;
    let z0 = normal_quantile(share);
    let undefined = CompareError::BcaUndefined { below, resamples };
    if !z0.is_finite() {
        return Err(undefined);
    }
    let a = acceleration(values, observed);
    let z_alpha = normal_quantile((1.0 - level) / 2.0);
    let adjusted = |z: f64| {
        let num = z0 + z;
        normal_cdf(z0 + num / (1.0 - a * num))
    };
    let (alpha_1, alpha_2) = (adjusted(z_alpha), adjusted(-z_alpha));
    if alpha_1.is_nan() || alpha_2.is_nan() {
        return Err(undefined);
    }
    let standard_error = standard_error(&means);
    means.sort_by(f64::total_cmp);
    Ok(Bca {
        interval: Interval {
            lower: percentile(&means, alpha_1),
            upper: percentile(&means, alpha_2),
            level,
        },
        bias_correction: z0,
        acceleration: a,
        lower_quantile: alpha_1,
        upper_quantile: alpha_2,
        standard_error,
        resamples,
        seed: None,
    })
}

/// The result for a constant column: `[mean, mean]`, as every resampled
/// mean is the mean; `z0 = a = 0`, which makes the adjusted quantiles `α`
/// and `1 - α`.
fn constant(observed: f64, level: f64, resamples: u64, seed: Option<u64>) -> Bca {
    Bca {
        interval: Interval {
            lower: observed,
            upper: observed,
            level,
        },
        bias_correction: 0.0,
        acceleration: 0.0,
        lower_quantile: (1.0 - level) / 2.0,
        upper_quantile: (1.0 + level) / 2.0,
        standard_error: 0.0,
        resamples,
        seed,
    }
}

/// The jackknife acceleration of the mean, `Σ U³ / (6 (Σ U²)^{3/2})` with
/// `U_i = x_i - mean` (the jackknife's `(n - 1) (θ̂_(·) - θ̂_(i))` for the
/// mean). The deviations are divided by the largest one first (the ratio is
/// scale-free), so their squares and cubes neither underflow nor overflow.
/// The column is not constant, so some deviation is not 0.
fn acceleration(values: &[f64], observed: f64) -> f64 {
    let largest = values
        .iter()
        .fold(0.0f64, |m, v| m.max((v - observed).abs()));
    let (mut squares, mut cubes) = (0.0f64, 0.0f64);
    for v in values {
        let u = (v - observed) / largest;
        squares += u * u;
        cubes += u * u * u;
    }
    // (Σ U²)^(3/2) as Σ U² √(Σ U²): correctly rounded operations only.
    cubes / (6.0 * (squares * squares.sqrt()))
}

fn is_constant(values: &[f64]) -> bool {
    values.iter().all(|v| *v == values[0])
}

/// Checks a column whose mean gets an interval: at least two values, every
/// one finite.
fn validate_column(values: &[f64]) -> Result<(), CompareError> {
    if values.len() < 2 {
        return Err(CompareError::TooFewValues {
            values: values.len(),
        });
    }
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(CompareError::NotFiniteValue {
            index,
            value: values[index],
        }),
        None => Ok(()),
    }
}

/// `Φ(x) = P(Z <= x)` for a standard normal `Z` (scipy's `ndtr`), from
/// `libm`'s erfc: accurate to a few ulps relative in the lower tail.
fn normal_cdf(x: f64) -> f64 {
    standard_normal_sf(-x)
}

/// `Φ⁻¹(p)` (scipy's `ndtri`): `-inf` at 0, `inf` at 1, 0 at 1/2. Abramowitz
/// & Stegun's 26.2.23 (within 4.5e-4), then Newton steps on [`normal_cdf`]
/// until a step is below 4 ulps or has stopped shrinking (the rounding of
/// `erfc`), keeping the point of the smallest residual; every function from
/// the `libm` crate, so the same bits on every platform. Above 1/2 it is
/// `-Φ⁻¹(1 - p)`, `1 - p` exact there.
pub(crate) fn normal_quantile(p: f64) -> f64 {
    if p.is_nan() {
        return f64::NAN;
    }
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    if p == 0.5 {
        return 0.0;
    }
    if p > 0.5 {
        return -normal_quantile(1.0 - p);
    }
    let t = (-2.0 * libm::log(p)).sqrt();
    let mut x = -(t
        - (2.515_517 + 0.802_853 * t + 0.010_328 * t * t)
            / (1.0 + t * (1.432_788 + t * (0.189_269 + 0.001_308 * t))));
    let mut best = (f64::INFINITY, x);
    let mut previous = f64::INFINITY;
    for _ in 0..16 {
        let residual = normal_cdf(x) - p;
        if residual.abs() < best.0 {
            best = (residual.abs(), x);
        }
        let density = libm::exp(-x * x / 2.0) / (2.0 * std::f64::consts::PI).sqrt();
        if residual == 0.0 || density.is_nan() || density <= 0.0 {
            break;
        }
        let step = residual / density;
        if step.abs() <= 4.0 * f64::EPSILON * x.abs() || step.abs() > 0.5 * previous {
            break;
        }
        previous = step.abs();
        x -= step;
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_quantile_inverts_the_cdf_to_a_few_ulps() {
        for p in [
            1e-300, 1e-20, 1e-5, 0.001, 0.025, 0.3, 0.5, 0.6, 0.975, 0.999_999,
        ] {
            let x = normal_quantile(p);
            let back = normal_cdf(x);
            assert!(
                (back - p).abs() <= 1e-14 * p.min(1.0 - p).max(1e-300) + 1e-300,
                "{p}: {x} -> {back}"
            );
        }
        assert_eq!(normal_quantile(0.5), 0.0);
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
        assert_eq!(normal_quantile(1.0), f64::INFINITY);
        // -1.95996398454005423552... (mpmath, 40 digits), nearest double
        // -1.9599639845400543; scipy's ndtri gives -1.9599639845400545.
        let z = normal_quantile(0.025);
        assert!((z + 1.959_963_984_540_054_3).abs() <= 4.5e-16, "{z:e}");
    }

    /// The closed form is the jackknife: `U_i` from the leave-one-out means
    /// literally, as scipy computes them.
    #[test]
    fn the_acceleration_is_the_jackknife_of_the_mean() {
        let values = [0.0, 0.0, 0.1, 0.0, 0.9, 0.35, 0.0, 1.0, 0.25];
        let n = values.len() as f64;
        let total: f64 = values.iter().sum();
        let leave_one_out: Vec<f64> = values.iter().map(|v| (total - v) / (n - 1.0)).collect();
        let dot = leave_one_out.iter().sum::<f64>() / n;
        let u: Vec<f64> = leave_one_out
            .iter()
            .map(|t| (n - 1.0) * (dot - t))
            .collect();
        let num: f64 = u.iter().map(|u| u * u * u).sum::<f64>() / (n * n * n);
        let den: f64 = u.iter().map(|u| u * u).sum::<f64>() / (n * n);
        let jackknife = num / libm::pow(den, 1.5) / 6.0;
        let ours = acceleration(&values, mean(&values));
        assert!((ours - jackknife).abs() <= 1e-14, "{ours} vs {jackknife}");
        assert!(ours > 0.0, "right-skewed values accelerate upwards");
    }

    /// Values in tenths (not exact in binary) whose resampled means often
    /// equal the observed mean exactly: those count one half, as exact
    /// arithmetic on the tenths as integers counts them with the same draws.
    #[test]
    fn resampled_means_equal_to_the_observed_one_count_one_half() {
        let tenths: [i64; 5] = [1, 3, 0, 0, 7];
        let values: Vec<f64> = tenths.iter().map(|&k| k as f64 / 10.0).collect();
        let (resamples, seed) = (3000u64, 11u64);
        let ours = bca_interval(&values, 0.9, resamples, seed).unwrap();
        let observed: i64 = tenths.iter().sum();
        let (mut less, mut equal) = (0u64, 0u64);
        for drawn in crate::bootstrap::exact_resampled_sums(&tenths, resamples, seed) {
            less += u64::from(drawn < observed);
            equal += u64::from(drawn == observed);
        }
        assert!(equal > 50, "the case must hold exact ties: {equal}");
        let share = (2 * less + equal) as f64 / (2 * resamples) as f64;
        assert_eq!(ours.bias_correction, normal_quantile(share));
    }
}
