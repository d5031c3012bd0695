//! A suite of datasets as one number per run (`rankeval run a.toml b.toml
//! --aggregate macro`): each run's macro average over the experiments (each
//! dataset weighs the same, the BEIR convention), its stratified bootstrap
//! interval (queries resampled within each dataset), and the comparison of
//! every run with a baseline across the suite, paired by (dataset, query).
//! The statistics are `rankeval_stats::stratified`'s.

use std::collections::HashMap;

use rankeval_stats::{MacroComparison, MacroMean, macro_mean_interval, macro_paired};
use serde::Serialize;

use crate::report::Report;

/// How a suite is aggregated.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SuiteSettings {
    /// Confidence level of the intervals.
    pub level: f64,
    /// Bootstrap (and randomization) resamples.
    pub resamples: u64,
    /// The seed of the draws.
    pub seed: u64,
}

impl SuiteSettings {
    /// The level, resamples and seed of an experiment's comparison
    /// settings (`[compare]`), or the defaults without one.
    pub fn of(settings: Option<&crate::compare::Settings>) -> Self {
        settings.map_or_else(Self::default, |s| Self {
            level: s.level,
            resamples: s.resamples,
            seed: s.seed,
        })
    }
}

impl Default for SuiteSettings {
    fn default() -> Self {
        Self {
            level: 0.95,
            resamples: 10_000,
            seed: rankeval_stats::DEFAULT_SEED,
        }
    }
}

/// Why a suite cannot be aggregated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SuiteError {
    /// Two datasets were evaluated with different metrics.
    #[error(
        "the datasets of a suite need the same metrics: {first} has {first_metrics}, {other} has {other_metrics}"
    )]
    MetricsDiffer {
        /// The first dataset.
        first: String,
        /// Its metrics, listed.
        first_metrics: String,
        /// The dataset that differs.
        other: String,
        /// Its metrics, listed.
        other_metrics: String,
    },
    /// A run is not in every dataset.
    #[error(
        "run `{run}` is in {present} but not in {missing}: a macro average needs every run on every dataset"
    )]
    RunMissing {
        /// The run.
        run: String,
        /// A dataset that has it.
        present: String,
        /// A dataset that does not.
        missing: String,
    },
    /// The baseline is not a run of the suite.
    #[error("the suite's baseline `{0}` is not one of its runs")]
    UnknownBaseline(String),
    /// Fewer than two datasets.
    #[error("a macro average over datasets needs at least 2 experiment files, got {0}")]
    TooFewDatasets(usize),
    /// One experiment file listed twice: its queries would be resampled as
    /// two independent datasets, and every interval and p-value would be
    /// too small.
    #[error(
        "{repeat} is {}: a suite lists each experiment file once (its queries would count as \
         two independent datasets)",
        if first == repeat { "given twice".to_owned() } else { format!("the same file as {first}") }
    )]
    RepeatedFile {
        /// The file as first listed.
        first: String,
        /// The same file listed again.
        repeat: String,
    },
}

/// Refuses a suite that lists one experiment file twice, however its path
/// is spelled (`rankeval run a.toml ./a.toml`, a suite file, Python's
/// `suite`): the one check every front end calls before evaluating.
pub fn distinct_files<P: AsRef<std::path::Path>>(files: &[P]) -> Result<(), SuiteError> {
    match crate::files::first_repeat(files.iter().map(AsRef::as_ref)) {
        Some((first, repeat)) => Err(SuiteError::RepeatedFile {
            first: first.display().to_string(),
            repeat: repeat.display().to_string(),
        }),
        None => Ok(()),
    }
}

/// One run across the suite.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SuiteRun {
    /// The run's name (the same in every dataset).
    pub name: String,
    /// `means[d][m]`: its mean of metric `m` on dataset `d`.
    pub means: Vec<Vec<f64>>,
    /// Per metric, the macro average with its interval; `None` (with the
    /// reason in `errors`) when a dataset has no value for it.
    pub macro_means: Vec<Option<MacroMean>>,
    /// Per metric, why there is no macro average, if there is none.
    pub errors: Vec<Option<String>>,
}

/// One run compared with the baseline across the suite, on one metric.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SuiteComparison {
    /// The run.
    pub run: String,
    /// The baseline.
    pub baseline: String,
    /// The metric.
    pub metric: String,
    /// Queries paired, per dataset (in both runs).
    pub paired: Vec<usize>,
    /// The comparison; `None` when it cannot be made (`error` says why).
    pub result: Option<MacroComparison>,
    /// Why there is no comparison.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A suite aggregated over its datasets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Suite {
    /// The datasets (experiment files), in the order given.
    pub datasets: Vec<String>,
    /// The metrics, as in every dataset.
    pub metrics: Vec<String>,
    /// Every run, in the first dataset's order.
    pub runs: Vec<SuiteRun>,
    /// Every run but the baseline compared with it, when there is one.
    pub comparisons: Vec<SuiteComparison>,
    /// Level, resamples and seed.
    pub settings: SuiteSettings,
    /// The generator of the draws.
    pub rng: &'static str,
}

/// Aggregates the reports of a suite (`(dataset, report)` in order): every
/// run's macro average per metric with its stratified bootstrap interval,
/// and, with a `baseline`, every other run compared with it across the
/// suite, paired by (dataset, query). A run's mean on a dataset is its mean
/// over the queries it was evaluated on there (as that dataset's report
/// prints it); the interval resamples those queries.
pub fn macro_suite(
    reports: &[(String, &Report)],
    baseline: Option<&str>,
    settings: SuiteSettings,
) -> Result<Suite, SuiteError> {
    let Some((first_name, first)) = reports.first() else {
        return Err(SuiteError::TooFewDatasets(0));
    };
    if reports.len() < 2 {
        return Err(SuiteError::TooFewDatasets(reports.len()));
    }
    let mut names = std::collections::HashSet::with_capacity(reports.len());
    if let Some((name, _)) = reports.iter().find(|(name, _)| !names.insert(name)) {
        return Err(SuiteError::RepeatedFile {
            first: name.clone(),
            repeat: name.clone(),
        });
    }
    let metrics: Vec<String> = first.metrics.iter().map(|m| m.name.clone()).collect();
    for (name, report) in &reports[1..] {
        let own: Vec<String> = report.metrics.iter().map(|m| m.name.clone()).collect();
        if own != metrics {
            return Err(SuiteError::MetricsDiffer {
                first: first_name.clone(),
                first_metrics: metrics.join(", "),
                other: name.clone(),
                other_metrics: own.join(", "),
            });
        }
    }
    let names: Vec<&str> = first.runs.iter().map(|r| r.name.as_str()).collect();
    for (name, report) in reports {
        for run in &report.runs {
            if !names.contains(&run.name.as_str()) {
                return Err(SuiteError::RunMissing {
                    run: run.name.clone(),
                    present: name.clone(),
                    missing: first_name.clone(),
                });
            }
        }
        for run in &names {
            if !report.runs.iter().any(|r| r.name == *run) {
                return Err(SuiteError::RunMissing {
                    run: (*run).to_owned(),
                    present: first_name.clone(),
                    missing: name.clone(),
                });
            }
        }
    }
    if let Some(b) = baseline
        && !names.contains(&b)
    {
        return Err(SuiteError::UnknownBaseline(b.to_owned()));
    }
    let column = |report: &Report, run: &str, m: usize| -> Vec<f64> {
        report
            .runs
            .iter()
            .find(|r| r.name == run)
            .map(|r| r.per_query[m].clone())
            .unwrap_or_default()
    };
    let mut runs = Vec::with_capacity(names.len());
    for run in &names {
        let mut means = vec![Vec::with_capacity(metrics.len()); reports.len()];
        let mut macro_means = Vec::with_capacity(metrics.len());
        let mut errors = Vec::with_capacity(metrics.len());
        for m in 0..metrics.len() {
            let columns: Vec<Vec<f64>> = reports.iter().map(|(_, r)| column(r, run, m)).collect();
            for (d, values) in columns.iter().enumerate() {
                means[d].push(rankeval_core::exact_sum::fmean(values));
            }
            let strata: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
            match macro_mean_interval(&strata, settings.level, settings.resamples, settings.seed) {
                Ok(mean) => {
                    macro_means.push(Some(mean));
                    errors.push(None);
                }
                Err(error) => {
                    macro_means.push(None);
                    errors.push(Some(error.to_string()));
                }
            }
        }
        runs.push(SuiteRun {
            name: (*run).to_owned(),
            means,
            macro_means,
            errors,
        });
    }
    let mut comparisons = Vec::new();
    if let Some(baseline) = baseline {
        for run in names.iter().filter(|r| **r != baseline) {
            for (m, metric) in metrics.iter().enumerate() {
                let mut paired = Vec::with_capacity(reports.len());
                let mut strata = Vec::with_capacity(reports.len());
                for (_, report) in reports {
                    let differences = paired_differences(report, baseline, run, m);
                    paired.push(differences.len());
                    strata.push(differences);
                }
                let slices: Vec<&[f64]> = strata.iter().map(Vec::as_slice).collect();
                let (result, error) = match macro_paired(
                    &slices,
                    settings.level,
                    settings.resamples,
                    settings.seed,
                ) {
                    Ok(result) => (Some(result), None),
                    Err(error) => (None, Some(error.to_string())),
                };
                comparisons.push(SuiteComparison {
                    run: (*run).to_owned(),
                    baseline: baseline.to_owned(),
                    metric: metric.clone(),
                    paired,
                    result,
                    error,
                });
            }
        }
    }
    Ok(Suite {
        datasets: reports.iter().map(|(name, _)| name.clone()).collect(),
        metrics,
        runs,
        comparisons,
        settings,
        rng: rankeval_stats::RNG_NAME,
    })
}

/// The per-query differences `run - baseline` of metric `m` on the queries
/// both were evaluated on, in the run's query order.
fn paired_differences(report: &Report, baseline: &str, run: &str, m: usize) -> Vec<f64> {
    let (Some(b), Some(r)) = (
        report.runs.iter().find(|x| x.name == baseline),
        report.runs.iter().find(|x| x.name == run),
    ) else {
        return Vec::new();
    };
    let index: HashMap<&str, usize> = b
        .queries
        .iter()
        .enumerate()
        .map(|(i, q)| (q.as_str(), i))
        .collect();
    r.queries
        .iter()
        .enumerate()
        .filter_map(|(i, q)| {
            index
                .get(q.as_str())
                .map(|&j| r.per_query[m][i] - b.per_query[m][j])
        })
        .collect()
}
