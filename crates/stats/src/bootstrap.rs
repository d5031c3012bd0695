//! The paired bootstrap of the mean difference.
//!
//! Two variants ([`BootstrapMethod`]); this module is the classic one and
//! chooses between them, [`crate::double_or_nothing`] is the one for large
//! query sets.
//!
//! Multinomial variant: the nonparametric bootstrap resampling *queries* with
//! replacement (each resample draws `n` query positions uniformly, keeping
//! each query's baseline and candidate values together), the statistic is
//! the mean of the drawn differences, and the interval is the **percentile**
//! interval: the `(1 - level) / 2` and `(1 + level) / 2` quantiles of the
//! `B` resampled means, with linear interpolation between order statistics
//! (numpy's default `percentile`, as `scipy.stats.bootstrap(...,
//! method="percentile")` uses).
//!
//! p-value: the two-sided test of "mean difference = 0" by the shifted
//! bootstrap (Efron & Tibshirani 1993, section 16.4; Sakai 2006 uses the
//! studentized form): the resampled means centred on the observed mean
//! approximate the null distribution, so
//! `p = (b + 1) / (B + 1)` with `b = #{ |mean*_r - mean| >= |mean| }`.
//! A resampled mean exactly as far from the observed one counts, as the
//! definition says, though the two means round differently: the comparison
//! allows `4 (n + 2) eps max|d|`, a bound on their rounding errors (the
//! randomization test allows for its sums in the same way).
//!
//! Query positions are uniform integers from 32-bit ChaCha20 draws
//! (Lemire's unbiased method, [`crate::rng::below`]); resamples are cut
//! into chunks of [`CHUNK`], chunk `k` drawing from stream `k`, and each
//! resample's mean is summed in draw order. Several columns with the same
//! queries share the drawn positions, so each column's result equals the
//! result of that column alone.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::CompareError;
use crate::paired::{validate_differences, validate_level};
use crate::rng::{below, chunk_rng};
use crate::ttest::Interval;

/// Resamples per chunk (per random stream). Part of the definition of the
/// results.
pub const CHUNK: u64 = 256;

/// [`BootstrapMethod::Auto`] uses the multinomial bootstrap up to this many
/// queries (included) and the double-or-nothing bootstrap above. Up to
/// here the multinomial bootstrap costs less than about a second for
/// 10,000 resamples, and typical IR topic sets (50 to a few thousand
/// queries) get the textbook bootstrap that scipy computes; above, the
/// difference between the two (the skewness of the resampled means,
/// `O(1 / sqrt(n))`) is far below the Monte Carlo error of the bounds,
/// while the multinomial bootstrap's cost (`n` random draws and gathers per
/// resample) grows past the evaluation's.
pub const MULTINOMIAL_UP_TO: usize = 10_000;

/// Which bootstrap draws the resamples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BootstrapMethod {
    /// [`Multinomial`](Self::Multinomial) up to [`MULTINOMIAL_UP_TO`]
    /// queries, [`DoubleOrNothing`](Self::DoubleOrNothing) above (the
    /// default). Results record the variant actually used.
    #[default]
    Auto,
    /// Efron's bootstrap: each resample draws `n` queries uniformly with
    /// replacement ([`bootstrap_columns`]); as `scipy.stats.bootstrap`.
    Multinomial,
    /// Each query weighted 0 or 2 with probability 1/2, the resample's
    /// statistic is the weighted mean
    /// ([`crate::double_or_nothing::double_or_nothing_columns`]); over 200
    /// times cheaper on a million queries (docs/compare.md, Speed).
    #[serde(alias = "double-or-nothing")]
    DoubleOrNothing,
}

impl BootstrapMethod {
    /// The name used in reports and configuration.
    pub fn name(self) -> &'static str {
        match self {
            BootstrapMethod::Auto => "auto",
            BootstrapMethod::Multinomial => "multinomial",
            BootstrapMethod::DoubleOrNothing => "double_or_nothing",
        }
    }

    /// The variant used on `queries` queries: `Auto` resolved, the others
    /// as they are.
    pub fn resolve(self, queries: usize) -> BootstrapMethod {
        match self {
            BootstrapMethod::Auto if queries <= MULTINOMIAL_UP_TO => BootstrapMethod::Multinomial,
            BootstrapMethod::Auto => BootstrapMethod::DoubleOrNothing,
            other => other,
        }
    }
}

/// The fewest resamples `B` whose percentile interval at `level` has both
/// bounds among the resampled means: the bounds are the `(B + 1) a`-th and
/// `(B + 1) (1 - a)`-th of the `B` ordered means, `a = (1 - level) / 2`
/// (Davison & Hinkley, *Bootstrap Methods and their Application*, 1997,
/// section 5.2), which needs `(B + 1) a >= 1`: 39 at 0.95, 19 at 0.9.
/// With fewer, a bound is the smallest or largest mean or beyond, and one
/// resample gives an interval `[m*, m*]` that need not hold the estimate.
/// The front ends refuse fewer for the bootstrap tests
/// ([`check_percentile_resamples`]).
pub fn percentile_minimum(level: f64) -> u64 {
    let tail = (1.0 - level) / 2.0;
    if !(tail > 0.0 && tail < 0.5) {
        return 1;
    }
    // `1e-9` absorbs the rounding of `1 / tail` (39.99999999999996 at 0.95).
    ((1.0 / tail - 1.0 - 1e-9).ceil()).max(1.0) as u64
}

/// Checks that `resamples` give a percentile interval at `level` its
/// bounds ([`percentile_minimum`]).
pub fn check_percentile_resamples(resamples: u64, level: f64) -> Result<(), CompareError> {
    let minimum = percentile_minimum(level);
    if resamples < minimum {
        return Err(CompareError::TooFewResamples {
            resamples,
            level,
            minimum,
        });
    }
    Ok(())
}

/// The outcome of a paired bootstrap on one column of differences.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Bootstrap {
    /// The percentile interval of the mean difference.
    pub interval: Interval,
    /// The shifted-bootstrap two-sided p-value `(b + 1) / (B + 1)`.
    pub p_value: f64,
    /// Standard deviation (`B - 1`) of the resampled means: the bootstrap
    /// standard error.
    pub standard_error: f64,
    /// Number of resamples `B`.
    pub resamples: u64,
    /// The variant that drew the resamples (never `Auto`).
    pub method: BootstrapMethod,
}

/// The multinomial bootstrap of one column (at least 2 finite values, at most
/// `u32::MAX`; `resamples >= 1`; `0 < level < 1`).
pub fn bootstrap(
    differences: &[f64],
    level: f64,
    resamples: u64,
    seed: u64,
) -> Result<Bootstrap, CompareError> {
    let mut results = bootstrap_columns(&[differences], level, resamples, seed)?;
    results
        .pop()
        .ok_or(CompareError::TooFewQueries { queries: 0 })
}

/// The bootstrap of several columns of the same length with the chosen
/// variant ([`BootstrapMethod::Auto`] resolved on their length), sharing
/// the random draws; each result equals that of the column alone.
pub fn bootstrap_columns_with(
    columns: &[&[f64]],
    level: f64,
    resamples: u64,
    seed: u64,
    method: BootstrapMethod,
) -> Result<Vec<Bootstrap>, CompareError> {
    let queries = columns.first().map_or(0, |c| c.len());
    match method.resolve(queries) {
        BootstrapMethod::DoubleOrNothing => {
            crate::double_or_nothing::double_or_nothing_columns(columns, level, resamples, seed)
        }
        _ => bootstrap_columns(columns, level, resamples, seed),
    }
}

/// Checks the inputs every bootstrap of several columns takes: the
/// differences, the confidence level and at least one resample.
pub(crate) fn validate_resampling(
    columns: &[&[f64]],
    level: f64,
    resamples: u64,
) -> Result<(), CompareError> {
    validate_differences(columns)?;
    validate_level(level)?;
    crate::paired::check_resamples(resamples)
}

/// The multinomial bootstrap of several columns of the same length, sharing
/// the drawn query positions; each result equals [`bootstrap`] of that
/// column alone.
pub fn bootstrap_columns(
    columns: &[&[f64]],
    level: f64,
    resamples: u64,
    seed: u64,
) -> Result<Vec<Bootstrap>, CompareError> {
    validate_resampling(columns, level, resamples)?;
    Ok(columns
        .iter()
        .zip(resampled_means(columns, resamples, seed)?)
        .map(|(column, means)| summarize(column, means, level, BootstrapMethod::Multinomial))
        .collect())
}

/// The resampled means of several columns of the same length (validated by
/// the caller), in resample order, one vector per column: resample `r`
/// draws `n` query positions, shared by every column, from chunk
/// `r / CHUNK`'s stream, and each column's mean sums its drawn values in
/// draw order. The multinomial bootstrap above and the BCa interval of one
/// column's mean ([`crate::interval::bca_interval`]) both draw here.
pub(crate) fn resampled_means(
    columns: &[&[f64]],
    resamples: u64,
    seed: u64,
) -> Result<Vec<Vec<f64>>, CompareError> {
    let Some(first) = columns.first() else {
        return Ok(Vec::new());
    };
    let n = first.len();
    if n > u32::MAX as usize {
        return Err(CompareError::TooManyQueries { queries: n });
    }
    let chunks = resamples.div_ceil(CHUNK);
    // means[chunk][column * size + r]
    let per_chunk: Vec<Vec<f64>> = (0..chunks)
        .into_par_iter()
        .map(|chunk| {
            let size = (resamples - chunk * CHUNK).min(CHUNK) as usize;
            resample_chunk(columns, n, seed, chunk, size)
        })
        .collect();
    Ok((0..columns.len())
        .map(|c| {
            let mut means = Vec::with_capacity(resamples as usize);
            for chunk in &per_chunk {
                let size = chunk.len() / columns.len();
                means.extend_from_slice(&chunk[c * size..(c + 1) * size]);
            }
            means
        })
        .collect())
}

fn resample_chunk(columns: &[&[f64]], n: usize, seed: u64, chunk: u64, size: usize) -> Vec<f64> {
    let mut rng = chunk_rng(seed, chunk);
    let mut means = vec![0.0; columns.len() * size];
    let mut sums = vec![0.0; columns.len()];
    let bound = n as u32;
    for r in 0..size {
        sums.iter_mut().for_each(|s| *s = 0.0);
        for _ in 0..n {
            let i = below(&mut rng, bound) as usize;
            for (sum, column) in sums.iter_mut().zip(columns) {
                *sum += column[i];
            }
        }
        for (c, sum) in sums.iter().enumerate() {
            means[c * size + r] = sum / n as f64;
        }
    }
    means
}

/// The interval, p-value and standard error of a column from its resampled
/// means (in resample order).
pub(crate) fn summarize(
    column: &[f64],
    means: Vec<f64>,
    level: f64,
    method: BootstrapMethod,
) -> Bootstrap {
    summarize_means(
        crate::paired::mean(column),
        rounding_allowance(column),
        means,
        level,
        method,
    )
}

/// [`summarize`] from the observed mean and the rounding allowance of the
/// p-value's comparison (see [`rounding_allowance`]) instead of the column:
/// what a state that keeps no column (the keyed bootstrap) has.
pub(crate) fn summarize_means(
    observed: f64,
    allowance: f64,
    mut means: Vec<f64>,
    level: f64,
    method: BootstrapMethod,
) -> Bootstrap {
    let threshold = observed.abs() - allowance;
    let extreme = means
        .iter()
        .filter(|m| (*m - observed).abs() >= threshold)
        .count() as u64;
    let resamples = means.len() as u64;
    let standard_error = standard_error(&means);
    means.sort_by(f64::total_cmp);
    Bootstrap {
        interval: Interval {
            lower: percentile(&means, (1.0 - level) / 2.0),
            upper: percentile(&means, (1.0 + level) / 2.0),
            level,
        },
        p_value: (extreme + 1) as f64 / (resamples + 1) as f64,
        standard_error,
        resamples,
        method,
    }
}

/// The bootstrap standard error: the standard deviation (`B - 1` in the
/// denominator, two passes, summed in resample order) of the resampled
/// statistics, as `scipy.stats.bootstrap`'s `standard_error`; 0 for a
/// single resample (scipy: NaN).
pub(crate) fn standard_error(means: &[f64]) -> f64 {
    if means.len() < 2 {
        return 0.0;
    }
    let centre = crate::paired::mean(means);
    let squares: f64 = means.iter().map(|m| (m - centre) * (m - centre)).sum();
    (squares / (means.len() - 1) as f64).sqrt()
}

/// How far apart two means of `column`'s values (the observed mean and a
/// resampled one, each summed in its own order, of at most `2n` terms for
/// the double-or-nothing weights) may come out by rounding alone, and the
/// subtraction of one from the other: `4 (n + 2) eps max|d|`. Each sum of
/// `n` terms is within `(n - 1) eps` times the sum of their magnitudes of
/// its exact value (Higham, *Accuracy and Stability of Numerical
/// Algorithms*, 2nd ed., eq. 4.4), and those magnitudes sum to at most
/// `2n max|d|` here.
pub(crate) fn rounding_allowance(column: &[f64]) -> f64 {
    let largest = column.iter().fold(0.0f64, |m, d| m.max(d.abs()));
    allowance_of(column.len() as u64, largest)
}

/// [`rounding_allowance`] of `n` values whose largest magnitude is
/// `largest`.
pub(crate) fn allowance_of(n: u64, largest: f64) -> f64 {
    4.0 * (n + 2) as f64 * f64::EPSILON * largest
}

/// numpy's default (`linear`) percentile of sorted values at `q` in [0, 1].
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * q;
    let low = h.floor();
    let i = low as usize;
    let Some(next) = sorted.get(i + 1) else {
        return sorted[sorted.len() - 1];
    };
    let fraction = h - low;
    sorted[i] + fraction * (next - sorted[i])
}

/// The sums of the resamples [`resampled_means`] draws from a column of
/// integers (the same positions, in resample order), summed exactly: what
/// the resampled means are in exact arithmetic, for tests of how ties are
/// counted on values not exact in binary (tenths as integers).
#[cfg(test)]
pub(crate) fn exact_resampled_sums(integers: &[i64], resamples: u64, seed: u64) -> Vec<i64> {
    let bound = integers.len() as u32;
    let mut sums = Vec::with_capacity(resamples as usize);
    for chunk in 0..resamples.div_ceil(CHUNK) {
        let mut rng = chunk_rng(seed, chunk);
        for _ in 0..(resamples - chunk * CHUNK).min(CHUNK) {
            sums.push(
                (0..integers.len())
                    .map(|_| integers[below(&mut rng, bound) as usize])
                    .sum(),
            );
        }
    }
    sums
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Differences in tenths, not exact in binary, with many resamples whose
    /// mean is exactly 0 or twice the observed mean (as far from it as 0):
    /// the p-value counts each of them, as exact arithmetic on the tenths
    /// as integers (the same draws) counts them.
    #[test]
    fn resampled_means_exactly_as_far_count_though_not_exact_in_binary() {
        let tenths: [i64; 5] = [2, 2, 2, -3, 2];
        let column: Vec<f64> = tenths.iter().map(|&k| k as f64 / 10.0).collect();
        let (resamples, seed) = (2000u64, 7u64);
        let result = &bootstrap_columns(&[&column], 0.95, resamples, seed).unwrap()[0];
        // The same draws, summed exactly: |S* - S| >= |S| over the integers.
        let observed: i64 = tenths.iter().sum();
        let (mut extreme, mut ties) = (0u64, 0u64);
        for drawn in exact_resampled_sums(&tenths, resamples, seed) {
            extreme += u64::from((drawn - observed).abs() >= observed.abs());
            ties += u64::from((drawn - observed).abs() == observed.abs());
        }
        assert!(ties > 100, "the case must hold exact ties: {ties}");
        assert_eq!(
            result.p_value,
            (extreme + 1) as f64 / (resamples + 1) as f64,
            "{ties} ties"
        );
    }

    /// A resampled mean nearer than the observed one by more than rounding
    /// is not counted: the allowance is far below the data's spacing.
    #[test]
    fn the_allowance_is_rounding_only() {
        let column = [0.1, 0.2, 0.3];
        assert!(rounding_allowance(&column) < 1e-14);
        assert_eq!(rounding_allowance(&[0.0, 0.0]), 0.0);
    }
}
