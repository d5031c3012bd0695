//! Prediction-powered inference (PPI): the mean of a per-query metric, or
//! the difference of two systems' means, from an LLM judge's labels on
//! every query and human labels on a subset, corrected for the judge's
//! bias, with a confidence interval.
//!
//! A metric (say nDCG@10) is computed per query twice: with the judge's
//! labels (the *prediction* `f_i`, known for every query) and with human
//! labels (the *label* `y_i`, known for the `n` labelled queries only).
//! The mean of the predictions alone is biased by whatever the judge gets
//! wrong; the mean of the labels alone is unbiased but has the variance of
//! `n` queries. PPI (Angelopoulos, Bates, Fannjiang, Jordan, Zrnic,
//! "Prediction-powered inference", Science 382, 2023) adds to the
//! predictions' mean the labelled queries' mean error, the *rectifier*,
//! which removes the bias; PPI++ (Angelopoulos, Duchi, Zrnic, "PPI++:
//! Efficient prediction-powered inference", arXiv:2311.01453, 2023) weighs
//! the predictions by a power-tuning parameter `λ` chosen to minimise the
//! variance, so that poor predictions cost nothing (`λ = 0` is the
//! human-only mean) and good ones narrow the interval. Boyeau, Angelopoulos,
//! Yosef, Malik, Jordan ("AutoEval done right: using synthetic data for
//! model evaluation", arXiv:2403.07008, 2024) apply it to model evaluation,
//! as here.
//!
//! With `N` the queries *without* a human label (their predictions `f̃_j`):
//!
//! ```text
//! θ̂(λ)  = mean_j(λ f̃_j) + mean_i(y_i - λ f_i)
//! se(λ) = sqrt( var_j(λ f̃_j) / N + var_i(y_i - λ f_i) / n )
//! CI    = θ̂ ∓ z se,   z = Φ⁻¹((1 + level) / 2)
//! ```
//!
//! variances with `1 / count` (no `- 1`), and the tuned `λ` (PPI++'s
//! optimum for a mean, clipped to `[0, 1]`)
//!
//! ```text
//! λ = clip( cov_i(y_i, f_i) / ((1 + n / N) var(f_1..f_n, f̃_1..f̃_N)), 0, 1 )
//! ```
//!
//! `cov` with `1 / n`, the predictions' variance over all `n + N` queries
//! with `1 / (n + N - 1)`. These are the definitions of the `ppi_py` package
//! (`ppi_mean_pointestimate`, `ppi_mean_ci` with `alternative="two-sided"`,
//! `_calc_lam_glm` with `clip=True`), which the tests check within 1e-12.
//!
//! **Which predictions enter the imputed mean.** As in `ppi_py` and Boyeau
//! et al., the labelled and unlabelled sets are disjoint: the imputed mean
//! `mean_j(λ f̃_j)` is over the queries without a human label only, and the
//! labelled queries' predictions enter the rectifier (and `λ`'s variance of
//! all predictions). The two terms are then independent, which is what the
//! standard error's sum of two variances assumes. [`PpiColumns::from_queries`]
//! splits one column of every query's prediction and one of optional human
//! labels that way. Which queries get human labels must not depend on their
//! values (a uniformly random subset): that is what makes the rectifier an
//! unbiased estimate of the judge's error.
//!
//! The interval is a normal (z) interval, valid as `n` and `N` grow; the
//! human-only interval beside it ([`PpiMean::classical`]) is `ppi_py`'s
//! `classical_mean_ci`: `mean(y) ∓ z sd(y) / sqrt(n)`, also normal, also
//! with `1 / n` in the variance, so the two compare like for like (the
//! crate's [`t_interval`](crate::interval::t_interval) is the Student t
//! version of the latter, a little wider for small `n`).
//!
//! Means and sums of squares are exact sums
//! ([`rankeval_core::exact_sum`]), as everywhere in the crate.

use rankeval_core::exact_sum::{ExactSum, fmean, fsum};
use serde::{Deserialize, Serialize};

use crate::error::{CompareError, PpiColumn, Side};
use crate::interval::normal_quantile;
use crate::paired::validate_level;
use crate::ttest::Interval;
use crate::wilcoxon::standard_normal_sf;

/// How PPI weighs the predictions: the power-tuning parameter `λ`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lambda {
    /// PPI++: the `λ` that minimises the estimate's variance, estimated
    /// from the data and clipped to `[0, 1]` (`ppi_py`'s default): as the
    /// number of queries grows, never less precise than the human-only mean
    /// (`λ = 0`) nor than plain PPI (`λ = 1`).
    #[default]
    Tuned,
    /// A fixed `λ`, any finite number, used as given: `1` is the original
    /// PPI estimator, `0` the human-only (classical) mean.
    Fixed(f64),
}

/// The settings of prediction-powered inference.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PpiOptions {
    /// Confidence level of the intervals, in `(0, 1)`; default 0.95.
    pub level: f64,
    /// The power-tuning parameter; default [`Lambda::Tuned`].
    pub lambda: Lambda,
}

impl Default for PpiOptions {
    fn default() -> Self {
        Self {
            level: crate::compare::DEFAULT_LEVEL,
            lambda: Lambda::Tuned,
        }
    }
}

impl PpiOptions {
    /// Checks the level (strictly between 0 and 1) and a fixed `λ`
    /// (finite).
    pub fn validate(&self) -> Result<(), CompareError> {
        validate_level(self.level)?;
        match self.lambda {
            Lambda::Fixed(lambda) if !lambda.is_finite() => {
                Err(CompareError::InvalidLambda { lambda })
            }
            _ => Ok(()),
        }
    }
}

/// One system's per-query values of a metric, split into the labelled and
/// the unlabelled queries: the three columns of PPI (`ppi_py`'s `Y`,
/// `Yhat`, `Yhat_unlabeled`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PpiSample<'a> {
    /// The metric with human labels, one value per labelled query.
    pub labels: &'a [f64],
    /// The metric with the judge's labels on the same labelled queries, in
    /// the same order as `labels`.
    pub predictions: &'a [f64],
    /// The metric with the judge's labels on the queries without a human
    /// label.
    pub unlabelled: &'a [f64],
}

/// The three columns of a [`PpiSample`], owned: what
/// [`PpiColumns::from_queries`] splits a run's per-query columns into.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PpiColumns {
    /// The metric with human labels, one value per labelled query.
    pub labels: Vec<f64>,
    /// The metric with the judge's labels on the labelled queries.
    pub predictions: Vec<f64>,
    /// The metric with the judge's labels on the other queries.
    pub unlabelled: Vec<f64>,
}

impl PpiColumns {
    /// Splits the columns of every query (`predictions[q]` the metric with
    /// the judge's labels, `labels[q]` the metric with human labels where
    /// query `q` has them) into the labelled and unlabelled sets, both in
    /// query order. A query with a human label is in the labelled set only:
    /// its prediction is not in the unlabelled set (see the module's
    /// documentation).
    ///
    /// Errors: the columns' lengths differ; a value is NaN or infinite (the
    /// error gives the query's position).
    pub fn from_queries(predictions: &[f64], labels: &[Option<f64>]) -> Result<Self, CompareError> {
        if predictions.len() != labels.len() {
            return Err(CompareError::PpiLengthMismatch {
                side: None,
                labels: labels.len(),
                predictions: predictions.len(),
            });
        }
        let mut out = Self::default();
        for (index, (&prediction, &label)) in predictions.iter().zip(labels).enumerate() {
            if !prediction.is_finite() {
                return Err(not_finite(None, PpiColumn::Predictions, index, prediction));
            }
            match label {
                Some(label) if !label.is_finite() => {
                    return Err(not_finite(None, PpiColumn::Labels, index, label));
                }
                Some(label) => {
                    out.labels.push(label);
                    out.predictions.push(prediction);
                }
                None => out.unlabelled.push(prediction),
            }
        }
        Ok(out)
    }

    /// The columns, borrowed, for [`ppi_mean`] and [`ppi_paired`].
    pub fn sample(&self) -> PpiSample<'_> {
        PpiSample {
            labels: &self.labels,
            predictions: &self.predictions,
            unlabelled: &self.unlabelled,
        }
    }
}

/// A mean with its normal (z) interval, from one column alone: what the
/// human labels or the judge's labels say without the other.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct NormalMean {
    /// The mean of the column.
    pub mean: f64,
    /// `sd / sqrt(count)`, `sd` with `1 / count` in the variance (`ppi_py`'s
    /// `classical_mean_ci`).
    pub standard_error: f64,
    /// `mean ∓ z standard_error`, `z = Φ⁻¹((1 + level) / 2)`.
    pub interval: Interval,
    /// The number of values.
    pub count: usize,
}

/// A prediction-powered estimate of a mean, with what it is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PpiMean {
    /// `θ̂ = mean(λ f̃) + mean(y - λ f)`: unbiased for the mean of the
    /// metric with human labels, whatever the judge's bias.
    pub estimate: f64,
    /// `sqrt(var(λ f̃) / N + var(y - λ f) / n)` (variances with
    /// `1 / count`).
    pub standard_error: f64,
    /// `estimate ∓ z standard_error`, `z = Φ⁻¹((1 + level) / 2)`.
    pub interval: Interval,
    /// The power-tuning parameter used (tuned or fixed).
    pub lambda: f64,
    /// Whether `lambda` was tuned ([`Lambda::Tuned`]) rather than given.
    pub lambda_tuned: bool,
    /// `n`: the queries with a human label.
    pub labelled: usize,
    /// `N`: the queries with a prediction and no human label (the queries
    /// in all: `labelled + unlabelled`).
    pub unlabelled: usize,
    /// The human-only (classical) mean of the labels, and its interval: the
    /// naive estimate that ignores the judge.
    pub classical: NormalMean,
    /// The judge-only mean of all `n + N` predictions, and its interval:
    /// the naive estimate that trusts the judge. Its interval does not
    /// cover the truth when the judge is biased, however many queries.
    pub imputed: NormalMean,
}

/// Two systems compared by PPI on the same queries: the bias-corrected
/// difference `candidate - baseline` with its interval and p-value, and
/// each system's own PPI mean. The shape a gate reads: the difference's
/// interval for `non_inferior`, its p-value and sign for `superior`, the
/// baseline's mean for a relative margin.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PpiComparison {
    /// PPI on the per-query differences `candidate - baseline` (labels and
    /// predictions both differenced query by query), with its own `λ`.
    pub difference: PpiMean,
    /// `difference.estimate / difference.standard_error`; 0 when both are
    /// 0, infinite when only the standard error is.
    pub z: f64,
    /// The two-sided p-value `2 P(Z > |z|)` of "no difference", normal: it
    /// is below `1 - level` when, and only when, the difference's interval
    /// excludes 0 (up to rounding at the boundary).
    pub p_value: f64,
    /// The baseline's PPI mean (its own `λ` when tuned).
    pub baseline: PpiMean,
    /// The candidate's PPI mean (its own `λ` when tuned). With tuned `λ`s
    /// the two means' difference need not equal `difference.estimate`,
    /// which tunes `λ` for the difference itself.
    pub candidate: PpiMean,
}

/// The prediction-powered mean of a metric from `sample` (at least two
/// labelled queries and one unlabelled), with its interval at
/// `options.level`, the `λ` used, and the human-only and judge-only
/// means for comparison. See the module's documentation for the formulas.
///
/// Errors: a level not strictly between 0 and 1, a fixed `λ` that is not
/// finite, labels and predictions of different lengths, fewer than two
/// labelled queries, no unlabelled query, a value that is NaN or infinite.
pub fn ppi_mean(sample: &PpiSample<'_>, options: &PpiOptions) -> Result<PpiMean, CompareError> {
    options.validate()?;
    validate_sample(sample, None)?;
    Ok(ppi_estimate(sample, options))
}

/// Compares two systems evaluated on the same queries (`baseline` and
/// `candidate` with the same labelled and unlabelled queries, in the same
/// order) by PPI on the per-query differences `candidate - baseline`: the
/// difference's estimate, interval and two-sided normal p-value, and each
/// system's PPI mean.
///
/// Errors: those of [`ppi_mean`] for either system, and columns whose
/// lengths differ between the systems.
pub fn ppi_paired(
    baseline: &PpiSample<'_>,
    candidate: &PpiSample<'_>,
    options: &PpiOptions,
) -> Result<PpiComparison, CompareError> {
    options.validate()?;
    validate_sample(baseline, Some(Side::Baseline))?;
    validate_sample(candidate, Some(Side::Candidate))?;
    for (column, b, c) in [
        (PpiColumn::Labels, baseline.labels, candidate.labels),
        (
            PpiColumn::Predictions,
            baseline.predictions,
            candidate.predictions,
        ),
        (
            PpiColumn::Unlabelled,
            baseline.unlabelled,
            candidate.unlabelled,
        ),
    ] {
        if b.len() != c.len() {
            return Err(CompareError::PpiSystemsMismatch {
                column,
                baseline: b.len(),
                candidate: c.len(),
            });
        }
    }
    let diff = |b: &[f64], c: &[f64]| -> Vec<f64> { c.iter().zip(b).map(|(c, b)| c - b).collect() };
    let labels = diff(baseline.labels, candidate.labels);
    let predictions = diff(baseline.predictions, candidate.predictions);
    let unlabelled = diff(baseline.unlabelled, candidate.unlabelled);
    let difference = ppi_estimate(
        &PpiSample {
            labels: &labels,
            predictions: &predictions,
            unlabelled: &unlabelled,
        },
        options,
    );
    let (z, p_value) = z_test(difference.estimate, difference.standard_error);
    Ok(PpiComparison {
        difference,
        z,
        p_value,
        baseline: ppi_estimate(baseline, options),
        candidate: ppi_estimate(candidate, options),
    })
}

fn not_finite(side: Option<Side>, column: PpiColumn, index: usize, value: f64) -> CompareError {
    CompareError::NotFinitePpi {
        side,
        column,
        index,
        value,
    }
}

fn validate_sample(sample: &PpiSample<'_>, side: Option<Side>) -> Result<(), CompareError> {
    if sample.labels.len() != sample.predictions.len() {
        return Err(CompareError::PpiLengthMismatch {
            side,
            labels: sample.labels.len(),
            predictions: sample.predictions.len(),
        });
    }
    if sample.labels.len() < 2 {
        return Err(CompareError::TooFewLabelled {
            side,
            labelled: sample.labels.len(),
        });
    }
    if sample.unlabelled.is_empty() {
        return Err(CompareError::NoUnlabelled { side });
    }
    for (column, values) in [
        (PpiColumn::Labels, sample.labels),
        (PpiColumn::Predictions, sample.predictions),
        (PpiColumn::Unlabelled, sample.unlabelled),
    ] {
        if let Some(index) = values.iter().position(|v| !v.is_finite()) {
            return Err(not_finite(side, column, index, values[index]));
        }
    }
    Ok(())
}

/// The PPI estimate of a validated sample.
fn ppi_estimate(sample: &PpiSample<'_>, options: &PpiOptions) -> PpiMean {
    let (y, f, unlabelled) = (sample.labels, sample.predictions, sample.unlabelled);
    let (lambda, lambda_tuned) = match options.lambda {
        Lambda::Tuned => (tuned_lambda(y, f, unlabelled), true),
        Lambda::Fixed(lambda) => (lambda, false),
    };
    let imputed: Vec<f64> = unlabelled.iter().map(|v| lambda * v).collect();
    let rectifier: Vec<f64> = y.iter().zip(f).map(|(y, f)| y - lambda * f).collect();
    let estimate = fmean(&imputed) + fmean(&rectifier);
    let standard_error = (population_variance(&imputed) / imputed.len() as f64
        + population_variance(&rectifier) / rectifier.len() as f64)
        .sqrt();
    let all: Vec<f64> = f.iter().chain(unlabelled).copied().collect();
    PpiMean {
        estimate,
        standard_error,
        interval: z_interval(estimate, standard_error, options.level),
        lambda,
        lambda_tuned,
        labelled: y.len(),
        unlabelled: unlabelled.len(),
        classical: normal_mean(y, options.level),
        imputed: normal_mean(&all, options.level),
    }
}

/// PPI++'s variance-minimising `λ` for a mean, clipped to `[0, 1]`: the
/// covariance of labels and predictions on the labelled queries (`1 / n`)
/// over `(1 + n / N)` times the variance of all predictions (`1 / (n + N -
/// 1)`). With predictions that do not vary, the estimate does not depend
/// on `λ` and `ppi_py`'s ratio is 0 / 0: `λ` is 0 then.
fn tuned_lambda(y: &[f64], f: &[f64], unlabelled: &[f64]) -> f64 {
    let n = y.len() as f64;
    let big_n = unlabelled.len() as f64;
    let (mean_y, mean_f) = (fmean(y), fmean(f));
    let covariance = fsum(y.iter().zip(f).map(|(y, f)| (y - mean_y) * (f - mean_f))) / n;
    let all = || f.iter().chain(unlabelled).copied();
    let first = f[0];
    if all().all(|v| v == first) {
        return 0.0;
    }
    let mean_all = all().collect::<ExactSum>().value() / (n + big_n);
    let variance = fsum(all().map(|v| (v - mean_all) * (v - mean_all))) / (n + big_n - 1.0);
    let ratio = covariance / ((1.0 + n / big_n) * variance);
    if ratio.is_nan() {
        // Only for values so large that their squares overflow.
        return 0.0;
    }
    ratio.clamp(0.0, 1.0)
}

/// The variance with `1 / count` (numpy's default), the squares summed
/// exactly; exactly 0 when every value is the same.
fn population_variance(values: &[f64]) -> f64 {
    match values.first() {
        None => 0.0,
        Some(first) if values.iter().all(|v| v == first) => 0.0,
        Some(_) => rankeval_core::exact_sum::squared_deviations(values) / values.len() as f64,
    }
}

fn z_interval(estimate: f64, standard_error: f64, level: f64) -> Interval {
    let z = -normal_quantile((1.0 - level) / 2.0);
    Interval {
        lower: estimate - z * standard_error,
        upper: estimate + z * standard_error,
        level,
    }
}

fn normal_mean(values: &[f64], level: f64) -> NormalMean {
    let mean = fmean(values);
    let standard_error = (population_variance(values) / values.len() as f64).sqrt();
    NormalMean {
        mean,
        standard_error,
        interval: z_interval(mean, standard_error, level),
        count: values.len(),
    }
}

/// `(z, 2 P(Z > |z|))`; a zero standard error gives `(0, 1)` for a zero
/// estimate, `(±∞, 0)` otherwise.
fn z_test(estimate: f64, standard_error: f64) -> (f64, f64) {
    if standard_error == 0.0 {
        return if estimate == 0.0 {
            (0.0, 1.0)
        } else {
            (estimate.signum() * f64::INFINITY, 0.0)
        };
    }
    let z = estimate / standard_error;
    (z, (2.0 * standard_normal_sf(z.abs())).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn population_variance_of_a_constant_column_is_zero() {
        assert_eq!(population_variance(&[0.1; 7]), 0.0);
        assert_eq!(population_variance(&[1.0, 3.0]), 1.0);
    }

    #[test]
    fn z_test_of_a_zero_standard_error() {
        assert_eq!(z_test(0.0, 0.0), (0.0, 1.0));
        assert_eq!(z_test(-0.5, 0.0), (f64::NEG_INFINITY, 0.0));
        let (z, p) = z_test(1.959_963_984_540_054, 1.0);
        assert!((z - 1.959_963_984_540_054).abs() < 1e-15);
        assert!((p - 0.05).abs() < 1e-15);
    }
}
