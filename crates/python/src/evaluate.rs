//! `evaluate`: the engine run on Python's inputs with the GIL released, and
//! its results handed back as NumPy arrays and lists.

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankeval_runner::report::{ReportWarning, RunWarning};
use rankeval_runner::{
    Evaluation, Format, Missing, Options, ReadError, RelevanceLevel, evaluate as evaluate_run,
    evaluate_batches, evaluate_input, parse_aggregator, read::read_run_with,
};

use crate::errors::{InputError, located, read_error};
use crate::inputs::{PyQrels, PyRun, RunSource};
use crate::python_metric::Metrics;

/// One run's results: `(run, metrics, queries, values, means, warnings)`,
/// `values` a `queries x metrics` float64 array.
type RunResults<'py> = (
    String,
    Vec<String>,
    Vec<String>,
    Bound<'py, PyAny>,
    Vec<f64>,
    Vec<String>,
);

/// Evaluates each `(name, run)` against `qrels` (or, for JSON Lines run
/// files, the judgements they hold when `qrels` is `None`) with the metrics
/// `specs`; `missing` is `"skip"` or `"zero"`, `rel` the relevance level.
#[pyfunction]
#[pyo3(signature = (qrels, runs, specs, missing, rel))]
pub fn evaluate<'py>(
    py: Python<'py>,
    qrels: Option<PyRef<'py, PyQrels>>,
    runs: Vec<(String, PyRef<'py, PyRun>)>,
    specs: Vec<String>,
    missing: &str,
    rel: i32,
) -> PyResult<Vec<RunResults<'py>>> {
    let options = Options {
        missing: match missing {
            "skip" => Missing::Skip,
            "zero" => Missing::Zero,
            other => {
                return Err(PyValueError::new_err(format!(
                    "missing={other:?}: expected \"skip\" or \"zero\""
                )));
            }
        },
        level: RelevanceLevel::new(rel).ok_or_else(|| {
            PyValueError::new_err(format!(
                "rel={rel}: the relevance level must be at least 1 (grades of 0 and below are never relevant)"
            ))
        })?,
        ..Options::default()
    };
    if specs.is_empty() {
        return Err(PyValueError::new_err("give at least one metric"));
    }
    let metrics = Metrics::build(&specs)?;
    let mean = parse_aggregator("mean")
        .map_err(|e| PyValueError::new_err(format!("the `mean` aggregator: {e}")))?;
    let qrels = qrels.as_ref().map(|q| q.qrels.clone());
    let mut results = Vec::with_capacity(runs.len());
    for (name, run) in &runs {
        let source: &RunSource = &run.source;
        let evaluated = py.detach(|| evaluate_one(qrels.as_deref(), source, &metrics, &options));
        if let Some(raised) = metrics.take_error(py) {
            return Err(raised);
        }
        let (evaluation, ignored) = evaluated?;
        let width = evaluation.metrics().len();
        let queries = evaluation.queries().to_vec();
        let mut values = Vec::with_capacity(queries.len() * width);
        for q in 0..queries.len() {
            values.extend((0..width).map(|m| evaluation.value(q, m)));
        }
        let values = PyArray1::from_vec(py, values).reshape([queries.len(), width])?;
        let means = (0..width)
            .map(|m| mean.aggregate(&evaluation.column(m)))
            .collect();
        let mut warnings: Vec<ReportWarning> = Vec::new();
        if let Some(count) = ignored {
            warnings.push(ReportWarning::RunJudgementsIgnored {
                count,
                qrels: "the qrels given".to_owned(),
            });
        }
        warnings.extend(evaluation.warnings().into_iter().map(ReportWarning::from));
        let warnings = warnings
            .into_iter()
            .map(|warning| {
                RunWarning {
                    run: name.clone(),
                    warning,
                }
                .to_string()
            })
            .collect();
        results.push((
            name.clone(),
            evaluation.metrics().to_vec(),
            queries,
            values.into_any(),
            means,
            warnings,
        ));
    }
    Ok(results)
}

/// Why a run could not be evaluated.
enum Failure {
    Read(ReadError),
    NoQrels(String),
}

impl From<Failure> for PyErr {
    fn from(failure: Failure) -> PyErr {
        match failure {
            Failure::Read(e) => read_error(&e),
            Failure::NoQrels(name) => located::<InputError>(
                Some(&name),
                None,
                "no qrels: give qrels, or a JSON Lines run file with `relevant`",
            ),
        }
    }
}

/// Evaluates one run as the command line does (a grouped run file while it
/// is read); also returns how many judged queries a JSON Lines run held
/// that were ignored for `qrels`.
fn evaluate_one(
    qrels: Option<&rankeval_core::Qrels>,
    source: &RunSource,
    metrics: &Metrics,
    options: &Options,
) -> Result<(Evaluation, Option<usize>), Failure> {
    let metrics = &metrics.metrics;
    match (source, qrels) {
        (RunSource::Memory(run), Some(qrels)) => {
            Ok((evaluate_run(qrels, run, metrics, options), None))
        }
        (RunSource::Memory(_), None) => Err(Failure::NoQrels("the run".to_owned())),
        (RunSource::File { input, read }, Some(qrels)) if input.format() == Format::Jsonl => {
            let (run, own) = read_run_with(input, *read, &|_| {}).map_err(Failure::Read)?;
            let ignored = own.map(|own| own.num_queries());
            Ok((evaluate_run(qrels, &run, metrics, options), ignored))
        }
        (RunSource::File { input, read }, Some(qrels)) => {
            evaluate_input(qrels, input, *read, metrics, options, &|_| {})
                .map(|e| (e, None))
                .map_err(Failure::Read)
        }
        (RunSource::Table(table), Some(qrels)) => evaluate_batches(
            qrels,
            &table.name,
            &table.batches,
            &table.columns,
            table.read,
            metrics,
            options,
        )
        .map(|e| (e, None))
        .map_err(Failure::Read),
        (RunSource::Table(table), None) => Err(Failure::NoQrels(table.name.clone())),
        (RunSource::File { input, read }, None) => {
            let (run, own) = read_run_with(input, *read, &|_| {}).map_err(Failure::Read)?;
            let Some(own) = own else {
                return Err(Failure::NoQrels(input.name().to_owned()));
            };
            Ok((evaluate_run(&own, &run, metrics, options), None))
        }
    }
}
