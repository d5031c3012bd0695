//! Statistics of a suite of datasets (strata): the macro average of the
//! datasets' means, each dataset weighing the same whatever its query count
//! (the BEIR convention), its stratified bootstrap interval, and the paired
//! comparison of two systems across the suite.
//!
//! With `D` datasets, dataset `d` holding `n_d` per-query values `x_{d,i}`
//! (a system's values of one metric, or the differences between two
//! systems, paired by query within the dataset):
//!
//! * the macro average is `M = (1/D) Σ_d mean_d`, `mean_d = (1/n_d) Σ_i x_{d,i}`;
//! * the **stratified bootstrap** resamples the queries *within* each dataset
//!   (`n_d` draws with replacement from dataset `d`'s values, independently
//!   per dataset) and recomputes `M`: the datasets are fixed, the queries of
//!   each are a sample of that dataset's queries (Efron & Tibshirani 1993,
//!   §3.3 and the stratified bootstrap of Davison & Hinkley 1997, §3.7).
//!   The interval is the percentile interval of the `B` resampled macro
//!   averages (numpy's `linear` percentile), and the standard error their
//!   standard deviation; its exact value under the bootstrap, to which the
//!   resampled one converges, is `sqrt((1/D²) Σ_d σ²_d / n_d)` with `σ²_d`
//!   the population variance (`ddof = 0`) of dataset `d`'s values;
//! * the **paired comparison** across the suite takes the per-query
//!   differences within each dataset: its interval is the stratified
//!   bootstrap's on them, its p-value the two-sided paired randomization
//!   (sign-flip) test of the macro difference, each difference's sign
//!   flipped independently (Fisher's test, as the paired randomization test
//!   of `crate::sign_flip`, on the macro statistic): `p = (1 + #{|M*| >=
//!   |M|}) / (1 + B)` (Phipson & Smyth 2010), `|M*|` equal to `|M|` within
//!   the rounding allowance of the other resampling tests.
//!
//! Draws: ChaCha20 ([`crate::rng::chunk_rng`]), chunks of
//! [`CHUNK`](crate::bootstrap::CHUNK) resamples, chunk `k` from stream `k`,
//! datasets in order within a resample, queries drawn by Lemire's method:
//! the same bits for any thread count.

use rankeval_core::exact_sum::fmean;
use rayon::prelude::*;
use serde::Serialize;

use crate::bootstrap::{CHUNK, percentile, rounding_allowance};
use crate::error::CompareError;
use crate::paired::validate_level;
use crate::rng::{below, chunk_rng};
use crate::ttest::Interval;

/// The macro average of a suite with its stratified bootstrap interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MacroMean {
    /// `(1/D) Σ_d mean_d`.
    pub value: f64,
    /// The percentile interval of the resampled macro averages.
    pub interval: Interval,
    /// The standard deviation (`B - 1`) of the resampled macro averages.
    pub standard_error: f64,
    /// The number of resamples `B`.
    pub resamples: u64,
    /// The seed of the draws.
    pub seed: u64,
}

/// The paired comparison of two systems across a suite.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MacroComparison {
    /// The macro average of the per-query differences (candidate minus
    /// baseline), with its stratified bootstrap interval.
    pub difference: MacroMean,
    /// The two-sided randomization p-value of the macro difference.
    pub p_value: f64,
}

fn validate(strata: &[&[f64]], level: f64, resamples: u64) -> Result<(), CompareError> {
    validate_level(level)?;
    crate::paired::check_resamples(resamples)?;
    if strata.is_empty() {
        return Err(CompareError::TooFewValues { values: 0 });
    }
    for stratum in strata {
        if stratum.is_empty() {
            return Err(CompareError::TooFewValues { values: 0 });
        }
        if stratum.len() > u32::MAX as usize {
            return Err(CompareError::TooManyQueries {
                queries: stratum.len(),
            });
        }
        if let Some(index) = stratum.iter().position(|v| !v.is_finite()) {
            return Err(CompareError::NotFiniteValue {
                index,
                value: stratum[index],
            });
        }
    }
    Ok(())
}

/// `(1/D) Σ_d mean_d`, each mean and their sum from exact sums (the
/// datasets' means are those their reports print).
pub fn macro_average(strata: &[&[f64]]) -> f64 {
    let means: Vec<f64> = strata.iter().map(|s| fmean(s)).collect();
    fmean(&means)
}

/// Runs `one(rng)` for each of `resamples` resamples, in chunks, in order.
fn resample(
    resamples: u64,
    seed: u64,
    one: impl Fn(&mut rand_chacha::ChaCha20Rng) -> f64 + Sync,
) -> Vec<f64> {
    let chunks = resamples.div_ceil(CHUNK);
    let per_chunk: Vec<Vec<f64>> = (0..chunks)
        .into_par_iter()
        .map(|k| {
            let mut rng = chunk_rng(seed, k);
            let size = CHUNK.min(resamples - k * CHUNK);
            (0..size).map(|_| one(&mut rng)).collect()
        })
        .collect();
    per_chunk.into_iter().flatten().collect()
}

/// The stratified bootstrap distribution of the macro average of `strata`.
fn bootstrap(strata: &[&[f64]], resamples: u64, seed: u64) -> Vec<f64> {
    let d = strata.len() as f64;
    resample(resamples, seed, |rng| {
        let mut total = 0.0;
        for stratum in strata {
            let n = stratum.len() as u32;
            let mut sum = 0.0;
            for _ in 0..n {
                sum += stratum[below(rng, n) as usize];
            }
            total += sum / f64::from(n);
        }
        total / d
    })
}

/// The macro average from its resampled values: percentile interval and
/// standard error.
fn summarize(value: f64, mut means: Vec<f64>, level: f64, seed: u64) -> MacroMean {
    let resamples = means.len() as u64;
    let mean_of = means.iter().sum::<f64>() / means.len() as f64;
    let standard_error = if means.len() > 1 {
        (means
            .iter()
            .map(|m| (m - mean_of) * (m - mean_of))
            .sum::<f64>()
            / (means.len() - 1) as f64)
            .sqrt()
    } else {
        0.0
    };
    means.sort_by(f64::total_cmp);
    let alpha = (1.0 - level) / 2.0;
    MacroMean {
        value,
        interval: Interval {
            lower: percentile(&means, alpha),
            upper: percentile(&means, 1.0 - alpha),
            level,
        },
        standard_error,
        resamples,
        seed,
    }
}

/// The macro average of `strata` (one slice of per-query values per
/// dataset) with its stratified bootstrap percentile interval at `level`
/// from `resamples` resamples drawn with `seed`.
///
/// Errors: no dataset, a dataset without values, a value that is NaN or
/// infinite, a level not strictly between 0 and 1, zero resamples.
pub fn macro_mean_interval(
    strata: &[&[f64]],
    level: f64,
    resamples: u64,
    seed: u64,
) -> Result<MacroMean, CompareError> {
    validate(strata, level, resamples)?;
    let value = macro_average(strata);
    Ok(summarize(
        value,
        bootstrap(strata, resamples, seed),
        level,
        seed,
    ))
}

/// The paired comparison across a suite of `differences` (per dataset, the
/// per-query differences candidate minus baseline, paired by query): the
/// macro difference with its stratified bootstrap interval, and the
/// two-sided sign-flip randomization p-value, both from `resamples`
/// resamples drawn with `seed` (the randomization from the streams after
/// the bootstrap's: `seed` + 1).
pub fn macro_paired(
    differences: &[&[f64]],
    level: f64,
    resamples: u64,
    seed: u64,
) -> Result<MacroComparison, CompareError> {
    validate(differences, level, resamples)?;
    let observed = macro_average(differences);
    let difference = summarize(
        observed,
        bootstrap(differences, resamples, seed),
        level,
        seed,
    );
    let d = differences.len() as f64;
    let flipped = resample(resamples, seed.wrapping_add(1), |rng| {
        let mut total = 0.0;
        for stratum in differences {
            let mut sum = 0.0;
            let mut bits = 0u32;
            for (i, x) in stratum.iter().enumerate() {
                if i % 32 == 0 {
                    bits = rand_core::Rng::next_u32(rng);
                }
                sum += if bits & 1 == 1 { -x } else { *x };
                bits >>= 1;
            }
            total += sum / stratum.len() as f64;
        }
        total / d
    });
    let all: Vec<f64> = differences.iter().flat_map(|s| s.iter().copied()).collect();
    let allowance = rounding_allowance(&all);
    let extreme = flipped
        .iter()
        .filter(|m| m.abs() >= observed.abs() - allowance)
        .count() as f64;
    Ok(MacroComparison {
        difference,
        p_value: (1.0 + extreme) / (1.0 + flipped.len() as f64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_dataset_weighs_the_same() {
        let a = [1.0, 1.0, 1.0, 1.0];
        let b = [0.0];
        assert_eq!(macro_average(&[&a, &b]), 0.5);
    }

    #[test]
    fn constant_strata_have_a_point_interval() {
        let a = [0.25; 5];
        let b = [0.75; 3];
        let m = macro_mean_interval(&[&a, &b], 0.95, 500, 1).expect("valid");
        assert_eq!(m.value, 0.5);
        assert_eq!((m.interval.lower, m.interval.upper), (0.5, 0.5));
        assert_eq!(m.standard_error, 0.0);
    }

    #[test]
    fn errors_for_bad_input() {
        let a = [0.5, 0.25];
        assert!(macro_mean_interval(&[], 0.95, 10, 1).is_err());
        assert!(macro_mean_interval(&[&a, &[]], 0.95, 10, 1).is_err());
        assert!(macro_mean_interval(&[&a], 1.0, 10, 1).is_err());
        assert!(macro_mean_interval(&[&a], 0.95, 0, 1).is_err());
        assert!(macro_mean_interval(&[&[0.5, f64::NAN]], 0.95, 10, 1).is_err());
    }

    #[test]
    fn the_same_bits_for_any_thread_count() {
        let a: Vec<f64> = (0..300).map(|i| f64::from(i % 11) / 11.0).collect();
        let b: Vec<f64> = (0..50).map(|i| f64::from(i % 3) / 3.0 - 0.3).collect();
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool")
                .install(|| macro_paired(&[&a, &b], 0.95, 3_000, 9).expect("valid"))
        };
        assert_eq!(run(1), run(4));
    }

    #[test]
    fn no_difference_is_not_significant_and_a_large_one_is() {
        let zero = [0.1, -0.1, 0.2, -0.2, 0.05, -0.05];
        let none = macro_paired(&[&zero, &zero], 0.95, 2_000, 3).expect("valid");
        assert!(none.p_value > 0.5, "{none:?}");
        let shifted: Vec<f64> = zero.iter().map(|x| x + 0.5).collect();
        let some = macro_paired(&[&shifted, &shifted], 0.95, 2_000, 3).expect("valid");
        assert!(some.p_value < 0.01, "{some:?}");
        assert!(some.difference.interval.lower > 0.0);
    }
}
