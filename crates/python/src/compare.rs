//! `compare`: runs compared with a baseline (or every pair of runs) and
//! quality gates checked, through the library's comparison API, on either
//! the report of an experiment or the results of `evaluate` (runs
//! evaluated on the same qrels). The statistics are the library's; this
//! module only gathers the per-query values and the settings.

use std::path::PathBuf;

use numpy::PyReadonlyArray2;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankeval::compare::{
    Baseline, CompareRunError, ComparisonReport, Family, GateSpec, Settings, parse_gate,
    read_results,
};
use rankeval::report::{MetricColumn, Report, RunResult};

use crate::errors::{CompareError, located};
use crate::options::named;
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

/// The comparison settings: anything not given is the command line's
/// default (`missing` defaults to the evaluation's, as `rankeval eval`
/// passes its `--missing` on).
#[allow(clippy::too_many_arguments)]
fn settings(
    test: Option<&str>,
    level: Option<f64>,
    resamples: Option<u64>,
    seed: Option<u64>,
    bootstrap: Option<&str>,
    correction: Option<&str>,
    family: Option<&str>,
    alpha: Option<f64>,
    missing: Option<&str>,
    groups_in_family: Option<bool>,
) -> PyResult<Settings> {
    let default = Settings::default();
    let settings = Settings {
        test: match test {
            Some(test) => named(
                test,
                "test",
                "t, randomization, bootstrap, wilcoxon, randomization_keyed, bootstrap_keyed",
            )?,
            None => default.test,
        },
        level: level.unwrap_or(default.level),
        resamples: resamples.unwrap_or(default.resamples),
        seed: seed.unwrap_or(default.seed),
        bootstrap: match bootstrap {
            Some(b) => named(b, "bootstrap", "auto, multinomial, double_or_nothing")?,
            None => default.bootstrap,
        },
        correction: match correction {
            Some(c) => named(
                c,
                "correction",
                "holm, bonferroni, benjamini_hochberg (bh), none",
            )?,
            None => default.correction,
        },
        family: match family {
            Some(f) => named::<Family>(f, "family", "runs_x_metrics, per_metric, per_run")?,
            None => default.family,
        },
        alpha: alpha.unwrap_or(default.alpha),
        missing: match missing {
            Some(m) => named(m, "missing", "skip, zero")?,
            None => default.missing,
        },
        groups_in_family: groups_in_family.unwrap_or(default.groups_in_family),
        // The jackknife interval is the command line's `--interval
        // jackknife`; in Python, `rankeval_rs.spark`'s `keyed_compare`.
        jackknife_groups: None,
    };
    settings
        .validate()
        .map_err(|e| compare_error(&e.to_string()))?;
    Ok(settings)
}

/// Compares the runs of `source` (an experiment's report, or `evaluate`'s
/// results as `(name, metrics, queries, values)`) with a baseline (a run by
/// name, or `(file, run)` of a JSON results file written with `--format
/// json --per-query`) or, without one, every pair of runs, and checks
/// `gates` (the command line's syntax, `ndcg@10:at_least(0.4)`). Returns
/// the comparison report as JSON text (the `comparison` object of the
/// command line's JSON) and whether every gate passed.
#[pyfunction]
#[pyo3(signature = (source, baseline, baseline_file, gates, test=None, level=None, resamples=None, seed=None, correction=None, family=None, alpha=None, missing=None, bootstrap=None, groups_in_family=None, interval=None, jackknife_groups=None))]
#[allow(clippy::too_many_arguments)]
pub fn compare(
    py: Python<'_>,
    source: Source<'_>,
    baseline: Option<String>,
    baseline_file: Option<(PathBuf, Option<String>)>,
    gates: Vec<String>,
    test: Option<&str>,
    level: Option<f64>,
    resamples: Option<u64>,
    seed: Option<u64>,
    correction: Option<&str>,
    family: Option<&str>,
    alpha: Option<f64>,
    missing: Option<&str>,
    bootstrap: Option<&str>,
    groups_in_family: Option<bool>,
    interval: Option<&str>,
    jackknife_groups: Option<u32>,
) -> PyResult<(String, bool)> {
    let mut settings = settings(
        test,
        level,
        resamples,
        seed,
        bootstrap,
        correction,
        family,
        alpha,
        missing,
        groups_in_family,
    )?;
    // The command line's --interval and --jackknife-groups.
    settings.jackknife_groups = match (interval, jackknife_groups) {
        (None | Some("test"), None) => None,
        (Some("jackknife"), groups) => {
            let groups = groups.unwrap_or(rankeval_compare::keyed::DEFAULT_GROUPS);
            if groups < 2 {
                return Err(PyValueError::new_err(format!(
                    "jackknife_groups={groups}: give at least 2"
                )));
            }
            Some(groups)
        }
        (None | Some("test"), Some(_)) => {
            return Err(PyValueError::new_err(
                "jackknife_groups goes with interval=\"jackknife\"",
            ));
        }
        (Some(other), _) => {
            return Err(PyValueError::new_err(format!(
                "interval=\"{other}\": \"test\" (the test's own) or \"jackknife\""
            )));
        }
    };
    let failed = |e: CompareRunError| compare_error(&e.to_string());
    let built;
    let report = match &source {
        Source::Report(report) => report.shown(),
        Source::Runs(runs) => {
            built = report_of(runs)?;
            &built
        }
    };
    let baseline = match (baseline, baseline_file) {
        (Some(_), Some(_)) => {
            return Err(PyValueError::new_err(
                "give the baseline as a run name or as a results file, not both",
            ));
        }
        (Some(name), None) => Some(Baseline::Run(name)),
        (None, Some((path, run))) => Some(Baseline::Results(
            read_results(&path, run.as_deref()).map_err(failed)?,
        )),
        (None, None) => None,
    };
    let metrics: Vec<String> = report.metrics.iter().map(|m| m.name.clone()).collect();
    let gates: Vec<GateSpec> = gates
        .iter()
        .map(|text| {
            parse_gate(text, settings.alpha, |metric| {
                rankeval::parse_metric(metric)
                    .map(|m| m.name())
                    .or_else(|e| {
                        // A corpus metric, a Python metric, or a name the
                        // report has as written.
                        if metrics.iter().any(|m| m == metric) {
                            Ok(metric.to_owned())
                        } else {
                            Err(e.to_string())
                        }
                    })
            })
            .map_err(|e| compare_error(&format!("gate `{text}`: {e}")))
        })
        .collect::<PyResult<_>>()?;
    let compared: ComparisonReport = py
        .detach(|| rankeval::compare::compare(report, baseline.as_ref(), &settings, &gates))
        .map_err(failed)?;
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
