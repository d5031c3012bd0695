//! `compare`: runs compared with a baseline (or every pair of runs) and
//! quality gates checked, through the library's comparison API, on either
//! the report of an experiment or the results of `evaluate` (runs
//! evaluated on the same qrels). The statistics are the library's; this
//! module only gathers the per-query values and the settings.

use std::path::PathBuf;

use numpy::PyReadonlyArray2;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankeval::compare::{ComparisonReport, run_plan};
use rankeval::engine::Missing;
use rankeval::report::{MetricColumn, Report, RunResult};
use rankeval::spec::resolve_comparison;

use crate::errors::{CompareError, located};
use crate::keywords::{CompareKeywords, named, spec_error};
use crate::report::PyReport;

/// One run's results as `evaluate` gave them: `(name, metrics, queries,
/// values)`, `values` a `queries x metrics` float64 array.
pub(crate) type RunValues<'py> = (String, Vec<String>, Vec<String>, PyReadonlyArray2<'py, f64>);

/// What is compared: an experiment's report, or runs `evaluate` evaluated.
#[derive(FromPyObject)]
pub enum Source<'py> {
    /// The report of `run_experiment`.
    Report(PyRef<'py, PyReport>),
    /// Runs evaluated on the same qrels with the same metrics.
    Runs(Vec<RunValues<'py>>),
}

/// A `CompareError` with `message`.
fn compare_error(message: &str) -> PyErr {
    located::<CompareError>(None, None, message)
}

/// The report the comparison API takes, made of `evaluate`'s results: the
/// runs in the order given, each with its queries and per-query values
/// (copied as they are, so the numbers are the command line's).
pub(crate) fn report_of(runs: &[RunValues<'_>]) -> PyResult<Report> {
    let Some((_, metrics, _, _)) = runs.first() else {
        return Err(compare_error("no runs to compare"));
    };
    let mut results = Vec::with_capacity(runs.len());
    for (name, own, queries, values) in runs {
        if own != metrics {
            return Err(compare_error(&format!(
                "run `{name}` was evaluated with the metrics {own:?}, run `{}` with {metrics:?}: \
                 compare runs evaluated with the same metrics",
                runs[0].0
            )));
        }
        let values = values.as_array();
        if values.dim() != (queries.len(), metrics.len()) {
            return Err(PyValueError::new_err(format!(
                "run `{name}`: {} values for {} queries x {} metrics",
                values.len(),
                queries.len(),
                metrics.len()
            )));
        }
        results.push(RunResult {
            name: name.clone(),
            queries: queries.clone(),
            per_query: values.columns().into_iter().map(|c| c.to_vec()).collect(),
            aggregates: vec![Vec::new(); metrics.len()],
            intervals: Vec::new(),
            groups: Vec::new(),
            ir_metadata: None,
            corpus: Vec::new(),
        });
    }
    Ok(Report {
        metrics: metrics
            .iter()
            .map(|name| MetricColumn {
                name: name.clone(),
                trec: None,
            })
            .collect(),
        aggregators: Vec::new(),
        corpus: Vec::new(),
        runs: results,
        warnings: Vec::new(),
    })
}

/// Compares the runs of `source` (an experiment's report, or `evaluate`'s
/// results as `(name, metrics, queries, values)`) with a baseline (a run by
/// name, or `(file, run)` of a JSON results file written with `--format
/// json --per-query`) or, without one, every pair of runs, and checks
/// `gates` (the command line's syntax, `ndcg@10:at_least(0.4)`). The
/// keywords fill the spec's comparison, checked by
/// `rankeval::spec::resolve_comparison` as the command line's flags are.
/// Returns the comparison report as JSON text (the `comparison` object of
/// the command line's JSON) and whether every gate passed.
#[pyfunction]
#[pyo3(signature = (source, baseline, baseline_file, gates, test=None, level=None, resamples=None, seed=None, correction=None, family=None, alpha=None, missing=None, bootstrap=None, groups_in_family=None, interval=None, jackknife_groups=None))]
#[allow(clippy::too_many_arguments)]
pub fn compare(
    py: Python<'_>,
    source: Source<'_>,
    baseline: Option<String>,
    baseline_file: Option<(PathBuf, Option<String>)>,
    gates: Vec<String>,
    test: Option<String>,
    level: Option<f64>,
    resamples: Option<i128>,
    seed: Option<i128>,
    correction: Option<String>,
    family: Option<String>,
    alpha: Option<f64>,
    missing: Option<&str>,
    bootstrap: Option<String>,
    groups_in_family: Option<bool>,
    interval: Option<String>,
    jackknife_groups: Option<i128>,
) -> PyResult<(String, bool)> {
    let request = CompareKeywords {
        baseline,
        baseline_file,
        gates,
        test,
        level,
        resamples,
        seed,
        bootstrap,
        correction,
        family,
        alpha,
        groups_in_family,
        interval,
        jackknife_groups,
        allow_changed_qrels: None,
        allow_changed_options: None,
    }
    .request()?;
    let missing = match missing {
        Some(m) => named(m, "missing", "skip, zero")?,
        None => Missing::default(),
    };
    let report = match &source {
        Source::Report(report) => report.shown().clone(),
        Source::Runs(runs) => report_of(runs)?,
    };
    let run_names: Vec<String> = report.runs.iter().map(|r| r.name.clone()).collect();
    let metric_names: Vec<String> = report.metrics.iter().map(|m| m.name.clone()).collect();
    let plan = resolve_comparison(request, &run_names, &metric_names, missing, false)
        .map_err(|e| spec_error(&e))?
        .ok_or_else(|| compare_error("no comparison asked for"))?;
    // A record is never compared silently: here there are no judgements
    // nor options to check it against.
    if let Some(rankeval::compare::BaselineRef::History { .. }) = &plan.baseline {
        return Err(compare_error(
            "baseline=\"db:...\": a results history's record is checked against the \
             judgements, definitions and options of the evaluation compared with it, which \
             compare() does not have: give the baseline to report() (it evaluates, checks and \
             compares)",
        ));
    }
    let compared: ComparisonReport = py
        .detach(|| run_plan(&plan, report, &[]))
        .map_err(|e| compare_error(&e.to_string()))?
        .comparison;
    let json = serde_json::to_string(&compared)
        .map_err(|e| PyValueError::new_err(format!("the comparison as JSON: {e}")))?;
    Ok((json, compared.passed()))
}

/// Systems of several runs among `evaluate`'s results (`runs` as
/// `(name, metrics, queries, values)`, `systems` as `(name, [run names])`):
/// the command line's `systems` object (`--system`) as JSON text.
#[pyfunction]
#[pyo3(signature = (runs, systems, level=0.95, resamples=10_000, seed=rankeval::compare::stats::DEFAULT_SEED))]
pub fn systems(
    py: Python<'_>,
    runs: Vec<RunValues<'_>>,
    systems: Vec<(String, Vec<String>)>,
    level: f64,
    resamples: u64,
    seed: u64,
) -> PyResult<String> {
    if !(level > 0.0 && level < 1.0)
        || rankeval::compare::stats::check_resamples(resamples).is_err()
    {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "level must be strictly between 0 and 1 (got {level}) and resamples from 1 to {} \
             (got {resamples})",
            rankeval::compare::stats::MAX_RESAMPLES
        )));
    }
    let report = report_of(&runs)?;
    let specs: Vec<rankeval::experiment::SystemSpec> = systems
        .into_iter()
        .map(|(name, runs)| rankeval::experiment::SystemSpec { name, runs })
        .collect();
    let settings = rankeval::suite::SuiteSettings {
        level,
        resamples,
        seed,
    };
    let result = py.detach(|| rankeval::systems::system_results(&report, &specs, settings));
    serde_json::to_string(&result).map_err(|e| compare_error(&e.to_string()))
}
