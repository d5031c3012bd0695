//! Systems of several runs (`[[systems]]`: training seeds, folds): each
//! system's grand mean over queries and runs, the spread from run to run,
//! its two-way bootstrap interval, and every system compared with the
//! first, counting both systems' run variance (`rankeval_stats::seeds`).
//! A system's values are those of its runs on the queries every one of its
//! runs was evaluated on; two systems are compared on the queries all of
//! their runs share.

use std::collections::{HashMap, HashSet};

use rankeval_stats::{SystemComparison, SystemSummary, compare_systems, summarize_system};
use serde::Serialize;

use crate::experiment::SystemSpec;
use crate::report::{Report, RunResult};
use crate::suite::SuiteSettings;

/// One system's results.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemResult {
    /// The system's name.
    pub name: String,
    /// Its runs.
    pub runs: Vec<String>,
    /// The queries every run of it was evaluated on.
    pub queries: usize,
    /// Per metric, its summary; `None` with the reason in `errors`.
    pub metrics: Vec<Option<SystemSummary>>,
    /// Per metric, why there is no summary.
    pub errors: Vec<Option<String>>,
}

/// A system compared with the first system on one metric.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemComparisonCell {
    /// The system.
    pub system: String,
    /// The system it is compared with (the first).
    pub baseline: String,
    /// The metric.
    pub metric: String,
    /// The queries every run of both systems shares.
    pub queries: usize,
    /// The comparison; `None` when it cannot be made.
    pub result: Option<SystemComparison>,
    /// Why there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Every system's results and comparisons.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Systems {
    /// The metrics, as the report's.
    pub metrics: Vec<String>,
    /// The systems, in the experiment's order.
    pub systems: Vec<SystemResult>,
    /// Every system after the first compared with the first.
    pub comparisons: Vec<SystemComparisonCell>,
    /// Level, resamples and seed.
    pub settings: SuiteSettings,
    /// The generator of the bootstrap's draws.
    pub rng: &'static str,
}

/// The runs of `spec` in `report`.
fn runs_of<'a>(report: &'a Report, spec: &SystemSpec) -> Vec<&'a RunResult> {
    spec.runs
        .iter()
        .filter_map(|name| report.runs.iter().find(|r| &r.name == name))
        .collect()
}

/// The queries every run of `runs` has, in the first run's order.
fn shared_queries(runs: &[&RunResult]) -> Vec<String> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    let sets: Vec<HashSet<&str>> = runs
        .iter()
        .map(|r| r.queries.iter().map(String::as_str).collect())
        .collect();
    first
        .queries
        .iter()
        .filter(|q| sets.iter().all(|s| s.contains(q.as_str())))
        .cloned()
        .collect()
}

/// `values[s][q]` of metric `m`: run `s` of `runs` on `queries`.
fn matrix(runs: &[&RunResult], queries: &[String], m: usize) -> Vec<Vec<f64>> {
    runs.iter()
        .map(|run| {
            let index: HashMap<&str, usize> = run
                .queries
                .iter()
                .enumerate()
                .map(|(i, q)| (q.as_str(), i))
                .collect();
            queries
                .iter()
                .map(|q| {
                    index
                        .get(q.as_str())
                        .map_or(f64::NAN, |&i| run.per_query[m][i])
                })
                .collect()
        })
        .collect()
}

/// The systems of `specs` in `report`: each one's summary per metric, and
/// each after the first compared with the first.
pub fn system_results(report: &Report, specs: &[SystemSpec], settings: SuiteSettings) -> Systems {
    let metrics: Vec<String> = report.metrics.iter().map(|m| m.name.clone()).collect();
    let mut systems = Vec::with_capacity(specs.len());
    for spec in specs {
        let runs = runs_of(report, spec);
        let queries = shared_queries(&runs);
        let (mut summaries, mut errors) = (Vec::new(), Vec::new());
        for m in 0..metrics.len() {
            let values = matrix(&runs, &queries, m);
            let slices: Vec<&[f64]> = values.iter().map(Vec::as_slice).collect();
            match summarize_system(&slices, settings.level, settings.resamples, settings.seed) {
                Ok(summary) => {
                    summaries.push(Some(summary));
                    errors.push(None);
                }
                Err(error) => {
                    summaries.push(None);
                    errors.push(Some(error.to_string()));
                }
            }
        }
        systems.push(SystemResult {
            name: spec.name.clone(),
            runs: spec.runs.clone(),
            queries: queries.len(),
            metrics: summaries,
            errors,
        });
    }
    let mut comparisons = Vec::new();
    if let Some((first, others)) = specs.split_first() {
        let base_runs = runs_of(report, first);
        for spec in others {
            let runs = runs_of(report, spec);
            let both: Vec<&RunResult> = base_runs.iter().chain(&runs).copied().collect();
            let queries = shared_queries(&both);
            for (m, metric) in metrics.iter().enumerate() {
                let a = matrix(&base_runs, &queries, m);
                let b = matrix(&runs, &queries, m);
                let a: Vec<&[f64]> = a.iter().map(Vec::as_slice).collect();
                let b: Vec<&[f64]> = b.iter().map(Vec::as_slice).collect();
                let (result, error) = match compare_systems(&a, &b, settings.level) {
                    Ok(result) => (Some(result), None),
                    Err(error) => (None, Some(error.to_string())),
                };
                comparisons.push(SystemComparisonCell {
                    system: spec.name.clone(),
                    baseline: first.name.clone(),
                    metric: metric.clone(),
                    queries: queries.len(),
                    result,
                    error,
                });
            }
        }
    }
    Systems {
        metrics,
        systems,
        comparisons,
        settings,
        rng: rankeval_stats::RNG_NAME,
    }
}
