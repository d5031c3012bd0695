//! Systems that are several runs (training seeds, folds, shards), each run
//! scored on the same queries: `values[s][q]`, run `s` on query `q`.
//!
//! The model is the two-way crossed random-effects layout of queries and
//! runs (Searle, Casella & McCulloch, *Variance Components*, 1992, ch. 4;
//! in IR, the topic × system ANOVA view of Sakai 2018, ch. 4–5):
//!
//! ```text
//! y_{q,s} = mu + u_q + v_s + e_{q,s}
//! ```
//!
//! `u_q` the query's effect (variance `σ²_u`), `v_s` the run's (the seed's,
//! `σ²_v`), `e` the rest (`σ²_e`). A system's score is the grand mean over
//! queries and runs; the seed-to-seed spread is the standard deviation of
//! the runs' means. Reports that give one seed's number, or average the
//! seeds' values per query and test over queries only, leave `σ²_v` out of
//! the error (Reimers & Gurevych 2017; Bouthillier et al., "Accounting for
//! variance in machine learning benchmarks", MLSys 2021).
//!
//! * **A system's interval** ([`summarize`]): the two-way ("pigeonhole")
//!   bootstrap of Owen (2007) and Owen & Eckles (2012): each resample draws
//!   the queries and, independently, the runs, with replacement, and
//!   recomputes the grand mean; the percentile interval. (With few runs
//!   the runs' share of the spread is estimated from few values; the
//!   interval says so by its width, and reports print the run count.)
//! * **Two systems compared** ([`compare_systems`]), on the same queries,
//!   paired by query: `d = mean_B - mean_A`, with the method-of-moments
//!   variance of the two-way model (each system's own seed and residual
//!   variances, and the system × query interaction through the per-query
//!   differences):
//!
//!   ```text
//!   V = s²_A / S_A + s²_B / S_B + max(0, (s²_D - r_A / S_A - r_B / S_B) / n)
//!   ```
//!
//!   `s²_X` the variance of system X's run means (`σ²_v + σ²_e / n`),
//!   `s²_D` that of the per-query differences of the run-averaged values
//!   (`σ²_w + σ²_e (1/S_A + 1/S_B)`), `r_X` system X's two-way residual
//!   mean square (`σ²_e`), so that `V` estimates `Var(d) = σ²_w / n +
//!   (σ²_v + σ²_e / n)(1/S_A + 1/S_B)` without counting `σ²_e` twice. The
//!   test is Welch's: `t = d / sqrt(V)` on Student's t with the
//!   Welch–Satterthwaite degrees of freedom of the terms. A simulation
//!   (`crates/stats/tests/seeds.rs`, `scripts/data/seed-simulation.py`)
//!   checks its type-I error against the comparison that ignores the seeds
//!   (the paired t-test over queries of the run-averaged values).

use rayon::prelude::*;
use serde::Serialize;

use crate::bootstrap::{CHUNK, percentile};
use crate::error::CompareError;
use crate::paired::validate_level;
use crate::rng::{below, chunk_rng};
use crate::ttest::{Interval, student_interval, t_two_sided_p};

/// A system of several runs on the same queries.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SystemSummary {
    /// The grand mean over queries and runs.
    pub mean: f64,
    /// The standard deviation (`S - 1`) of the runs' means: the
    /// seed-to-seed spread.
    pub seed_sd: f64,
    /// The runs.
    pub runs: usize,
    /// The queries.
    pub queries: usize,
    /// The two-way bootstrap percentile interval of the grand mean.
    pub interval: Interval,
    /// Bootstrap resamples.
    pub resamples: u64,
    /// The seed of the draws.
    pub seed: u64,
}

/// Two systems compared, counting the seed variance.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SystemComparison {
    /// `mean_B - mean_A`.
    pub difference: f64,
    /// `sqrt(V)` (see the module).
    pub standard_error: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value of Welch's t.
    pub p_value: f64,
    /// `d ± t_{df} sqrt(V)`.
    pub interval: Interval,
    /// The p-value of the comparison that ignores the seeds (the paired
    /// t-test over queries of the run-averaged values), for contrast.
    pub seed_blind_p_value: f64,
}

/// Checks a system's layout: at least 2 runs and 2 queries, every run
/// with the same queries, every value finite.
fn validate(values: &[&[f64]]) -> Result<usize, CompareError> {
    if values.len() < 2 {
        return Err(CompareError::TooFewValues {
            values: values.len(),
        });
    }
    let n = values[0].len();
    if n < 2 {
        return Err(CompareError::TooFewValues { values: n });
    }
    if n > u32::MAX as usize {
        return Err(CompareError::TooManyQueries { queries: n });
    }
    for run in values {
        if run.len() != n {
            return Err(CompareError::LengthMismatch {
                baseline: n,
                candidate: run.len(),
            });
        }
        if let Some(index) = run.iter().position(|v| !v.is_finite()) {
            return Err(CompareError::NotFiniteValue {
                index,
                value: run[index],
            });
        }
    }
    Ok(n)
}

/// The mean from the exact sum, as a run's `mean` aggregate.
fn mean(values: &[f64]) -> f64 {
    rankeval_core::exact_sum::fmean(values)
}

/// The sample variance, the squared deviations summed exactly.
fn variance(values: &[f64]) -> f64 {
    rankeval_core::exact_sum::squared_deviations(values) / (values.len() - 1) as f64
}

/// The run means, the per-query means (over runs), the grand mean and the
/// two-way residual mean square of a system.
struct Layout {
    run_means: Vec<f64>,
    query_means: Vec<f64>,
    grand: f64,
    residual: f64,
}

fn layout(values: &[&[f64]]) -> Layout {
    let s = values.len();
    let n = values[0].len();
    let run_means: Vec<f64> = values.iter().map(|r| mean(r)).collect();
    let query_means: Vec<f64> = (0..n)
        .map(|q| values.iter().map(|r| r[q]).sum::<f64>() / s as f64)
        .collect();
    let grand = mean(&run_means);
    let mut squares = 0.0;
    for (r, run) in values.iter().enumerate() {
        for (q, y) in run.iter().enumerate() {
            let e = y - query_means[q] - run_means[r] + grand;
            squares += e * e;
        }
    }
    Layout {
        run_means,
        query_means,
        grand,
        residual: squares / ((n - 1) * (s - 1)) as f64,
    }
}

/// A system of runs `values[s][q]` (every run on the same queries, in the
/// same order): its grand mean, the seed-to-seed standard deviation, and
/// the two-way bootstrap interval at `level` from `resamples` resamples
/// drawn with `seed` (ChaCha20, chunks of `CHUNK`; the same bits for any
/// thread count).
pub fn summarize(
    values: &[&[f64]],
    level: f64,
    resamples: u64,
    seed: u64,
) -> Result<SystemSummary, CompareError> {
    validate_level(level)?;
    crate::paired::check_resamples(resamples)?;
    let n = validate(values)?;
    let s = values.len();
    let l = layout(values);
    let chunks = resamples.div_ceil(CHUNK);
    let mut means: Vec<f64> = (0..chunks)
        .into_par_iter()
        .map(|k| {
            let mut rng = chunk_rng(seed, k);
            let size = CHUNK.min(resamples - k * CHUNK);
            let mut out = Vec::with_capacity(size as usize);
            let mut queries = vec![0usize; n];
            let mut runs = vec![0usize; s];
            for _ in 0..size {
                for q in &mut queries {
                    *q = below(&mut rng, n as u32) as usize;
                }
                for r in &mut runs {
                    *r = below(&mut rng, s as u32) as usize;
                }
                let mut total = 0.0;
                for &r in &runs {
                    let run = values[r];
                    for &q in &queries {
                        total += run[q];
                    }
                }
                out.push(total / (n * s) as f64);
            }
            out
        })
        .collect::<Vec<Vec<f64>>>()
        .into_iter()
        .flatten()
        .collect();
    means.sort_by(f64::total_cmp);
    let alpha = (1.0 - level) / 2.0;
    Ok(SystemSummary {
        mean: l.grand,
        seed_sd: variance(&l.run_means).sqrt(),
        runs: s,
        queries: n,
        interval: Interval {
            lower: percentile(&means, alpha),
            upper: percentile(&means, 1.0 - alpha),
            level,
        },
        resamples,
        seed,
    })
}

/// System B (`candidate[s][q]`) compared with system A (`baseline[s][q]`)
/// on the same queries, counting each system's seed variance (see the
/// module): Welch's t on the two-way method-of-moments variance, its
/// interval at `level`, and the p-value of the seed-blind paired t-test.
pub fn compare_systems(
    baseline: &[&[f64]],
    candidate: &[&[f64]],
    level: f64,
) -> Result<SystemComparison, CompareError> {
    validate_level(level)?;
    let n = validate(baseline)?;
    let n_b = validate(candidate)?;
    if n != n_b {
        return Err(CompareError::LengthMismatch {
            baseline: n,
            candidate: n_b,
        });
    }
    let a = layout(baseline);
    let b = layout(candidate);
    let (s_a, s_b, nf) = (baseline.len() as f64, candidate.len() as f64, n as f64);
    let per_query: Vec<f64> = b
        .query_means
        .iter()
        .zip(&a.query_means)
        .map(|(y, x)| y - x)
        .collect();
    let difference = b.grand - a.grand;
    let v_d = variance(&per_query);
    let terms = [
        (variance(&a.run_means) / s_a, s_a - 1.0),
        (variance(&b.run_means) / s_b, s_b - 1.0),
        (
            ((v_d - a.residual / s_a - b.residual / s_b) / nf).max(0.0),
            nf - 1.0,
        ),
    ];
    let v: f64 = terms.iter().map(|(t, _)| t).sum();
    let denominator: f64 = terms
        .iter()
        .filter(|(t, _)| *t > 0.0)
        .map(|(t, df)| t * t / df)
        .sum();
    let df = if denominator > 0.0 {
        v * v / denominator
    } else {
        nf - 1.0
    };
    let standard_error = v.sqrt();
    let p_value = if standard_error > 0.0 {
        t_two_sided_p(difference / standard_error, df)
    } else if difference == 0.0 {
        1.0
    } else {
        0.0
    };
    let blind_se = (v_d / nf).sqrt();
    let seed_blind_p_value = if blind_se > 0.0 {
        t_two_sided_p(difference / blind_se, nf - 1.0)
    } else if difference == 0.0 {
        1.0
    } else {
        0.0
    };
    Ok(SystemComparison {
        difference,
        standard_error,
        df,
        p_value,
        interval: student_interval(difference, standard_error, df, level),
        seed_blind_p_value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grand_mean_and_seed_spread() {
        let runs = [[0.2, 0.4, 0.6], [0.4, 0.6, 0.8]];
        let slices: Vec<&[f64]> = runs.iter().map(|r| r.as_slice()).collect();
        let s = summarize(&slices, 0.95, 1_000, 1).expect("valid");
        assert!((s.mean - 0.5).abs() < 1e-15);
        // Run means 0.4 and 0.6: sd sqrt(0.02).
        assert!((s.seed_sd - 0.02f64.sqrt()).abs() < 1e-15);
        assert!(s.interval.lower <= s.mean && s.mean <= s.interval.upper);
    }

    #[test]
    fn errors_for_bad_layouts() {
        let one = [[0.5, 0.5]];
        let slices: Vec<&[f64]> = one.iter().map(|r| r.as_slice()).collect();
        assert!(summarize(&slices, 0.95, 10, 1).is_err(), "one run");
        let ragged: [&[f64]; 2] = [&[0.1, 0.2], &[0.1]];
        assert!(compare_systems(&ragged, &ragged, 0.95).is_err());
        let nan: [&[f64]; 2] = [&[0.1, f64::NAN], &[0.1, 0.2]];
        assert!(compare_systems(&nan, &nan, 0.95).is_err());
    }
}
