//! Validation of paired columns and the descriptive statistics every test
//! reports: means, the per-query differences, their standard deviation, the
//! paired effect size and wins / ties / losses.

use serde::Serialize;

use crate::error::{CompareError, Side};

/// Checks that two columns pair query by query: equal lengths, at least two
/// queries, every value finite.
pub fn validate(baseline: &[f64], candidate: &[f64]) -> Result<(), CompareError> {
    if baseline.len() != candidate.len() {
        return Err(CompareError::LengthMismatch {
            baseline: baseline.len(),
            candidate: candidate.len(),
        });
    }
    if baseline.len() < 2 {
        return Err(CompareError::TooFewQueries {
            queries: baseline.len(),
        });
    }
    check_finite(baseline, Side::Baseline)?;
    check_finite(candidate, Side::Candidate)
}

fn check_finite(column: &[f64], side: Side) -> Result<(), CompareError> {
    match column.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(CompareError::NotFinite {
            side,
            index,
            value: column[index],
        }),
        None => Ok(()),
    }
}

/// Checks columns of per-query differences tested together: the same
/// length, at least two queries, every value finite.
pub fn validate_differences(columns: &[&[f64]]) -> Result<(), CompareError> {
    let Some(first) = columns.first() else {
        return Ok(());
    };
    for (column, values) in columns.iter().enumerate() {
        if values.len() != first.len() {
            return Err(CompareError::ColumnLengths {
                column,
                len: values.len(),
                expected: first.len(),
            });
        }
        check_finite(values, Side::Difference)?;
    }
    if first.len() < 2 {
        return Err(CompareError::TooFewQueries {
            queries: first.len(),
        });
    }
    Ok(())
}

/// The most resamples any resampling statistic of the crate draws: a
/// million, a hundred times the default (p-values resolved to 1e-6, the
/// Monte Carlo error of a bound far below any difference worth reporting).
/// Each resample keeps a number or an exact sum (a few of them per system
/// for the Tukey HSD), so the bound keeps the memory drawn up front to
/// megabytes, not the gigabytes `--resamples 100000000000` would ask for.
pub const MAX_RESAMPLES: u64 = 1_000_000;

/// Checks a number of resamples: at least 1 and at most
/// [`MAX_RESAMPLES`]. Every resampling statistic here checks it before it
/// allocates anything, and the front ends (the command line's and TOML's
/// comparison settings, the `ci` aggregator's `resamples`, the Python
/// package) reach it before any data is read.
pub fn check_resamples(resamples: u64) -> Result<(), CompareError> {
    match resamples {
        0 => Err(CompareError::NoResamples),
        r if r > MAX_RESAMPLES => Err(CompareError::TooManyResamples {
            resamples,
            max: MAX_RESAMPLES,
        }),
        _ => Ok(()),
    }
}

/// Checks a confidence level: strictly between 0 and 1.
pub fn validate_level(level: f64) -> Result<(), CompareError> {
    if level > 0.0 && level < 1.0 {
        Ok(())
    } else {
        Err(CompareError::InvalidLevel { level })
    }
}

/// The per-query differences `candidate - baseline`, in query order.
pub fn differences(baseline: &[f64], candidate: &[f64]) -> Vec<f64> {
    candidate.iter().zip(baseline).map(|(c, b)| c - b).collect()
}

/// The arithmetic mean from the exact sum (Python's `statistics.fmean`,
/// [`rankeval_core::exact_sum::fmean`]): the same bits in any order, and
/// the same as a run's `mean` aggregate.
pub fn mean(values: &[f64]) -> f64 {
    rankeval_core::exact_sum::fmean(values)
}

/// The sample standard deviation (`n - 1` in the denominator, two passes
/// around `mean`, the squares summed exactly). It is exactly `0.0` when
/// every value is the same, even where the computed mean is off by a
/// rounding error.
pub fn sample_sd(values: &[f64], mean: f64) -> f64 {
    let Some(first) = values.first() else {
        return 0.0;
    };
    if values.iter().all(|v| v == first) {
        return 0.0;
    }
    let squares = rankeval_core::exact_sum::fsum(values.iter().map(|v| (v - mean) * (v - mean)));
    (squares / (values.len() - 1) as f64).sqrt()
}

/// Queries where the candidate scores higher, equal (exactly) or lower than
/// the baseline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WinsTiesLosses {
    /// Queries with `candidate > baseline`.
    pub wins: usize,
    /// Queries with `candidate == baseline` (exact equality of the values).
    pub ties: usize,
    /// Queries with `candidate < baseline`.
    pub losses: usize,
}

impl WinsTiesLosses {
    /// Counts wins, ties and losses from the per-query differences.
    pub fn count(differences: &[f64]) -> Self {
        let mut out = Self::default();
        for d in differences {
            if *d > 0.0 {
                out.wins += 1;
            } else if *d < 0.0 {
                out.losses += 1;
            } else {
                out.ties += 1;
            }
        }
        out
    }
}

/// Descriptive statistics of a paired comparison, the same for every test.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Number of paired queries.
    pub queries: usize,
    /// Mean of the baseline column.
    pub baseline_mean: f64,
    /// Mean of the candidate column.
    pub candidate_mean: f64,
    /// Mean of the per-query differences `candidate - baseline` (equal to
    /// `candidate_mean - baseline_mean` up to rounding).
    pub difference: f64,
    /// Sample standard deviation (`n - 1`) of the per-query differences.
    pub sd_difference: f64,
    /// The paired effect size (Cohen's d_z): `difference / sd_difference`.
    /// `None` when `sd_difference` is 0, i.e. every query moved by the same
    /// amount: the effect is then undefined (0 / 0, no change at all) or
    /// infinite (a constant non-zero shift), and no finite number says so.
    pub effect_size: Option<f64>,
    /// Wins, ties and losses by query.
    #[serde(flatten)]
    pub outcomes: WinsTiesLosses,
}

impl Summary {
    /// Summarizes two validated columns and their differences.
    pub fn new(baseline: &[f64], candidate: &[f64], differences: &[f64]) -> Self {
        let difference = mean(differences);
        let sd_difference = sample_sd(differences, difference);
        Self {
            queries: differences.len(),
            baseline_mean: mean(baseline),
            candidate_mean: mean(candidate),
            difference,
            sd_difference,
            effect_size: (sd_difference > 0.0).then(|| difference / sd_difference),
            outcomes: WinsTiesLosses::count(differences),
        }
    }
}
