//! TOML experiments and comparisons: `run_experiment` executes an
//! experiment file as `rankeval run` does and returns its [`Report`];
//! its comparison, when it has one, is made as `rankeval run` makes it
//! (`compare` on a report is in [`crate::compare`]).

use std::path::PathBuf;

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankeval::compare::Compared;
use rankeval::config::{self, ConfigError};
use rankeval::experiment::ExecuteError;
use rankeval::outcome::{Results, RunError, Wanted};
use rankeval_report::{OutputFormat, Render, RenderOptions, Report, render_compared};

use crate::errors::{CompareError, ConfigError as PyConfigError, InputError, located, read_error};
use crate::keywords::named;

/// The results of an experiment: every run's per-query values and
/// aggregates, and the warnings, as the command line reports them.
#[pyclass(name = "NativeReport", module = "rankeval_rs", frozen)]
pub struct PyReport {
    /// The report.
    pub report: Report,
    /// The experiment's own comparison (its `baseline`, `[compare]` and
    /// gates), with the report it was made on (a baseline read from a
    /// results file is its first run), as `rankeval run` makes it.
    pub compared: Option<Compared>,
    /// The experiment's systems of several runs (`[[systems]]`), if any.
    pub systems: Option<rankeval::systems::Systems>,
}

impl PyReport {
    /// The report the experiment's output shows.
    pub fn shown(&self) -> &Report {
        self.compared.as_ref().map_or(&self.report, |c| &c.report)
    }
}

/// One run of a report: `(name, queries, values, aggregates, corpus,
/// intervals)`, `values` a `queries x metrics` array, `aggregates` a
/// `metrics x aggregators` array, `intervals[m][a]` the bounds of
/// aggregate `a` of metric `m` when its aggregator gives them (`ci`; NaN
/// where they could not be computed), else None; then the run's groups of
/// queries (`groups` in the experiment) as `(column, value, rows, means)`,
/// `rows` the group's rows of `values`, `means` the `mean` aggregate of
/// each metric (empty when the experiment does not ask for the mean).
type RunParts<'py> = (
    String,
    Vec<String>,
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    Vec<f64>,
    Vec<Vec<Option<(f64, f64)>>>,
    Vec<(String, String, Vec<usize>, Vec<f64>)>,
);

/// A run's groups as `RunParts` gives them.
fn groups_of(
    aggregators: &[String],
    run: &rankeval::report::RunResult,
) -> Vec<(String, String, Vec<usize>, Vec<f64>)> {
    let index: std::collections::HashMap<&str, usize> = run
        .queries
        .iter()
        .enumerate()
        .map(|(i, q)| (q.as_str(), i))
        .collect();
    let mean = aggregators.iter().position(|a| a == "mean");
    run.groups
        .iter()
        .map(|group| {
            (
                group.column.clone(),
                group.value.clone(),
                group
                    .queries
                    .iter()
                    .filter_map(|q| index.get(q.as_str()).copied())
                    .collect(),
                mean.map_or_else(Vec::new, |a| {
                    group.aggregates.iter().map(|m| m[a]).collect()
                }),
            )
        })
        .collect()
}

/// A `rows x columns` float64 array from `columns` (each `rows` long).
fn matrix<'py>(py: Python<'py>, columns: &[Vec<f64>], rows: usize) -> PyResult<Bound<'py, PyAny>> {
    let mut values = Vec::with_capacity(rows * columns.len());
    for row in 0..rows {
        values.extend(columns.iter().map(|c| c[row]));
    }
    Ok(PyArray1::from_vec(py, values)
        .reshape([rows, columns.len()])?
        .into_any())
}

#[pymethods]
impl PyReport {
    /// The metrics' canonical names.
    #[getter]
    fn metrics(&self) -> Vec<String> {
        self.shown()
            .metrics
            .iter()
            .map(|m| m.name.clone())
            .collect()
    }

    /// The aggregators' canonical names.
    #[getter]
    fn aggregators(&self) -> Vec<String> {
        self.shown().aggregators.clone()
    }

    /// The corpus metrics' canonical names.
    #[getter]
    fn corpus(&self) -> Vec<String> {
        self.shown().corpus.clone()
    }

    /// The warnings, as the command line prints them.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.shown()
            .warnings
            .iter()
            .map(|w| w.to_string())
            .collect()
    }

    /// Every run's results, in report order.
    fn runs<'py>(&self, py: Python<'py>) -> PyResult<Vec<RunParts<'py>>> {
        let width = self.shown().aggregators.len();
        self.shown()
            .runs
            .iter()
            .map(|run| {
                let aggregates: Vec<Vec<f64>> = (0..width)
                    .map(|a| run.aggregates.iter().map(|m| m[a]).collect())
                    .collect();
                Ok((
                    run.name.clone(),
                    run.queries.clone(),
                    matrix(py, &run.per_query, run.queries.len())?,
                    matrix(py, &aggregates, run.aggregates.len())?,
                    run.corpus.clone(),
                    (0..run.aggregates.len())
                        .map(|m| {
                            (0..width)
                                .map(|a| run.interval(m, a).map(|b| (b.lower, b.upper)))
                                .collect()
                        })
                        .collect(),
                    groups_of(&self.shown().aggregators, run),
                ))
            })
            .collect()
    }

    /// The report in one of the command line's formats (`table`, `json`,
    /// `csv`, `markdown`, `trec`, `html`), with per-query values or not.
    fn render(&self, format: &str, per_query: bool) -> PyResult<String> {
        let format: OutputFormat =
            named(format, "format", "table, json, csv, markdown, trec, html")?;
        let options = RenderOptions { per_query };
        Ok(match &self.compared {
            Some(compared) => render_compared(compared, format, options),
            None => self.report.render(format, options),
        })
    }

    /// The experiment's systems of several runs as JSON text (the command
    /// line's `systems` object); `None` without `[[systems]]`.
    #[getter]
    fn systems(&self) -> PyResult<Option<String>> {
        self.systems
            .as_ref()
            .map(|s| serde_json::to_string(s).map_err(|e| CompareError::new_err(e.to_string())))
            .transpose()
    }

    /// The experiment's own comparison, as JSON text, and whether every
    /// gate passed; `None` when the experiment has no baseline nor gates.
    #[getter]
    fn comparison(&self) -> PyResult<Option<(String, bool)>> {
        self.compared
            .as_ref()
            .map(|c| {
                serde_json::to_string(&c.comparison)
                    .map(|json| (json, c.comparison.passed()))
                    .map_err(|e| PyValueError::new_err(format!("the comparison as JSON: {e}")))
            })
            .transpose()
    }
}

/// An experiment file's error with its file and line.
fn config_error(error: &ConfigError) -> PyErr {
    let text = error.to_string();
    let (path, line) = match error {
        ConfigError::Read { path, .. } | ConfigError::Toml { path, .. } => (path.as_str(), None),
        ConfigError::NotUtf8 { path, line } => (path.as_str(), Some(*line)),
        ConfigError::Invalid { path, line, .. }
        | ConfigError::MissingFile { path, line, .. }
        | ConfigError::Plugin { path, line, .. } => (path.as_str(), u64::try_from(*line).ok()),
        _ => ("", None),
    };
    let prefix = match line {
        Some(line) => format!("{path}:{line}: "),
        None => format!("{path}: "),
    };
    let message = text.strip_prefix(&prefix).unwrap_or(&text);
    located::<PyConfigError>((!path.is_empty()).then_some(path), line, message)
}

/// Runs the TOML experiment at `path` as `rankeval run` does.
#[pyfunction]
pub fn run_experiment(py: Python<'_>, path: PathBuf) -> PyResult<PyReport> {
    let mut experiment = config::load(&path).map_err(|e| config_error(&e))?;
    let outcome = py
        .detach(|| experiment.run(Wanted::default(), &|_| {}))
        .map_err(|e| match e {
            RunError::Execute(ExecuteError::Read(e)) => read_error(&e),
            // An experiment file: its key, as the command line says it.
            RunError::Execute(ExecuteError::NeverRan(e)) => {
                located::<InputError>(None, None, &e.to_string())
            }
            RunError::Compare { source, .. } => {
                located::<CompareError>(None, None, &source.to_string())
            }
            RunError::Record { source, .. } => {
                located::<InputError>(None, None, &source.to_string())
            }
        })?;
    Ok(match outcome.results {
        Results::Plain(report) => PyReport {
            report,
            compared: None,
            systems: outcome.systems,
        },
        Results::Compared(compared) => PyReport {
            report: compared.report.clone(),
            compared: Some(*compared),
            systems: outcome.systems,
        },
    })
}

/// The macro average of a suite of experiments' reports (`rankeval run
/// a.toml b.toml --aggregate macro`): the `Suite` as JSON text.
#[pyfunction]
#[pyo3(signature = (reports, names, baseline=None, level=0.95, resamples=10_000, seed=rankeval::compare::stats::DEFAULT_SEED))]
pub fn macro_suite(
    py: Python<'_>,
    reports: Vec<PyRef<'_, PyReport>>,
    names: Vec<String>,
    baseline: Option<String>,
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
    // The names are the experiment files' paths (`rankeval_rs.suite`).
    rankeval::suite::distinct_files(&names)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    let named: Vec<(String, &Report)> = names
        .into_iter()
        .zip(reports.iter().map(|r| r.shown()))
        .collect();
    let settings = rankeval::suite::SuiteSettings {
        level,
        resamples,
        seed,
    };
    let suite = py
        .detach(|| rankeval::suite::macro_suite(&named, baseline.as_deref(), settings))
        .map_err(|e| located::<CompareError>(None, None, &e.to_string()))?;
    serde_json::to_string(&suite).map_err(|e| CompareError::new_err(e.to_string()))
}

/// The experiment files of a suite file (`experiments = [...]`, relative
/// to it) and whether it asks for the macro average; `None` for an
/// experiment file.
#[pyfunction]
pub fn load_suite(path: PathBuf) -> PyResult<Option<(Vec<PathBuf>, bool)>> {
    rankeval::config::load_suite(&path)
        .map(|suite| suite.map(|s| (s.experiments, s.macro_average)))
        .map_err(|e| config_error(&e))
}
