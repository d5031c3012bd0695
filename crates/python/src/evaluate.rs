//! `evaluate`: the engine run on Python's inputs with the GIL released, and
//! its results handed back as NumPy arrays and lists.

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankeval::engine::{has_scores, never_ran, unscored_run};
use rankeval::experiment::hole_warnings;
use rankeval::front::{Describe, FrontEnd};
use rankeval::report::{ReportWarning, RunWarning};
use rankeval::{
    Evaluation, Format, Options, ReadError, ReadOptions, evaluate as evaluate_run,
    evaluate_batches, evaluate_input, parse_aggregator, read::read_run_with,
};

use crate::errors::{InputError, located, read_error};
use crate::inputs::{PyQrels, PyRun, RunSource};
use crate::options;
use crate::python_metric::Metrics;

/// One run's results: `(run, metrics, queries, values, means, warnings,
/// qrels)`, `values` a `queries x metrics` float64 array, `qrels` the
/// judgements it was evaluated on (for `compare` to check that runs share
/// them).
type RunResults<'py> = (
    String,
    Vec<String>,
    Vec<String>,
    Bound<'py, PyAny>,
    Vec<f64>,
    Vec<String>,
    Py<PyQrels>,
);

/// Evaluates each `(name, run)` against `qrels` (or, for JSON Lines run
/// files, the judgements they hold when `qrels` is `None`) with the metrics
/// `specs`; `missing` is `"skip"` or `"zero"`, `rel` the relevance level
/// (a grade above 0, `3.5` too), `ties` `"docid"`, `"input"` or
/// `"average"`, `score_threshold` a finite number or `None`,
/// `allow_empty_run` whether a run that never ran on the qrels is evaluated
/// rather than refused, `judged_only` whether every metric is scored on
/// judged documents only, `bounds` whether each metric's completions and
/// the hole rate are added (the command line's `--missing`, `--rel`,
/// `--ties`, `--score-threshold`, `--allow-empty-run`, `--judged-only` and
/// `--bounds`).
#[pyfunction]
#[pyo3(signature = (qrels, runs, specs, missing, rel, ties="docid", score_threshold=None, allow_empty_run=false, judged_only=false, bounds=false))]
#[allow(clippy::too_many_arguments)]
pub fn evaluate<'py>(
    py: Python<'py>,
    qrels: Option<Bound<'py, PyQrels>>,
    runs: Vec<(String, PyRef<'py, PyRun>)>,
    specs: Vec<String>,
    missing: &str,
    rel: f64,
    ties: &str,
    score_threshold: Option<f64>,
    allow_empty_run: bool,
    judged_only: bool,
    bounds: bool,
) -> PyResult<Vec<RunResults<'py>>> {
    let ties = options::ties(ties)?;
    let options = options::evaluation(missing, rel, ties, score_threshold, allow_empty_run)?;
    if specs.is_empty() {
        return Err(PyValueError::new_err("give at least one metric"));
    }
    let metrics = Metrics::build(&specs)?;
    let metrics = if judged_only {
        metrics.judged_only()
    } else {
        metrics
    };
    let metrics = if bounds {
        metrics.with_bounds()?
    } else {
        metrics
    };
    options::check_metric_ties(&metrics.metrics, ties)?;
    for (name, run) in &runs {
        check_run(name, run, &options)?;
    }
    let mean = parse_aggregator("mean")
        .map_err(|e| PyValueError::new_err(format!("the `mean` aggregator: {e}")))?;
    let given: Option<Py<PyQrels>> = qrels.as_ref().map(|q| q.clone().unbind());
    let qrels_warning = qrels.as_ref().and_then(|q| q.get().warning.clone());
    let qrels = qrels.as_ref().map(|q| q.get().qrels.clone());
    let mut results = Vec::with_capacity(runs.len());
    for (name, run) in &runs {
        let source: &RunSource = &run.source;
        let evaluated = py.detach(|| evaluate_one(qrels.as_deref(), source, &metrics, &options));
        if let Some(raised) = metrics.take_error(py) {
            return Err(raised);
        }
        let (evaluation, ignored, own) = evaluated?;
        never_ran(name, source.name(name), &evaluation, &options)
            .map_err(|e| located::<InputError>(None, None, &e.describe(FrontEnd::Python)))?;
        let judged = match (own, &given) {
            (Some(own), _) => Py::new(py, PyQrels::from(own))?,
            (None, Some(given)) => given.clone_ref(py),
            // `evaluate_one` fails on a run with no qrels before this.
            (None, None) => return Err(PyValueError::new_err("no qrels")),
        };
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
        // The judgements' own warning is the qrels', not the run's: said
        // without the run's name, as the command line says it.
        let mut warnings: Vec<String> = qrels_warning
            .iter()
            .map(|w| w.describe(FrontEnd::Python))
            .chain(metrics.notes.iter().map(|note| format!("note: {note}")))
            .collect();
        let mut run_warnings: Vec<ReportWarning> = Vec::new();
        if let Some(count) = ignored {
            run_warnings.push(ReportWarning::RunJudgementsIgnored {
                count,
                qrels: "the qrels given".to_owned(),
            });
        }
        run_warnings.extend(evaluation.warnings().into_iter().map(ReportWarning::from));
        run_warnings.extend(hole_warnings(evaluation.metrics(), |m| {
            rankeval_core::exact_sum::fmean(&evaluation.column(m))
        }));
        warnings.extend(run_warnings.into_iter().map(|warning| {
            RunWarning {
                run: name.clone(),
                warning,
            }
            .describe(FrontEnd::Python)
        }));
        results.push((
            name.clone(),
            evaluation.metrics().to_vec(),
            queries,
            values.into_any(),
            means,
            warnings,
            judged,
        ));
    }
    Ok(results)
}

/// Checks that `run` can be evaluated with `options` before anything is
/// read: a run converted in memory has its ties in the order `ties` needs,
/// and a score threshold has scores to compare (not an MS MARCO run).
fn check_run(name: &str, run: &PyRun, options: &Options) -> PyResult<()> {
    let ties = options.ties;
    if matches!(run.source, RunSource::Memory(_))
        && run.ties.orders_by_doc() != ties.orders_by_doc()
    {
        let (had, needs) = if run.ties.orders_by_doc() {
            ("by document id", "\"input\"")
        } else {
            ("in input order", "\"docid\" or \"average\"")
        };
        return Err(PyValueError::new_err(format!(
            "ties={:?}: run `{name}` was converted with its tied scores {had}; convert it with ties={needs}",
            ties.as_str()
        )));
    }
    if let (Some(threshold), RunSource::File { input, .. }) = (options.score_threshold, &run.source)
        && !has_scores(input.format())
    {
        return Err(PyValueError::new_err(format!(
            "score_threshold={threshold}: {}",
            unscored_run(name)
        )));
    }
    Ok(())
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

/// One run evaluated: its results, how many judged queries a JSON Lines
/// run held that were ignored for the qrels given, and the run's own
/// judgements when they were used instead.
type Evaluated = (Evaluation, Option<usize>, Option<rankeval_core::Qrels>);

/// Evaluates one run as the command line does (a grouped run file while it
/// is read, its tied scores ordered as `options.ties` says).
fn evaluate_one(
    qrels: Option<&rankeval_core::Qrels>,
    source: &RunSource,
    metrics: &Metrics,
    options: &Options,
) -> Result<Evaluated, Failure> {
    let metrics = &metrics.metrics;
    match (source, qrels) {
        (RunSource::Memory(run), Some(qrels)) => {
            Ok((evaluate_run(qrels, run, metrics, options), None, None))
        }
        (RunSource::Memory(_), None) => Err(Failure::NoQrels("the run".to_owned())),
        (RunSource::Table(table), Some(qrels)) => {
            let read = ReadOptions {
                ties: options.ties,
                ..table.read
            };
            evaluate_batches(
                qrels,
                &table.name,
                &table.batches,
                &table.columns,
                read,
                metrics,
                options,
            )
            .map(|e| (e, None, None))
            .map_err(Failure::Read)
        }
        (RunSource::Table(table), None) => Err(Failure::NoQrels(table.name.clone())),
        (RunSource::File { input, read }, qrels) => {
            let read = ReadOptions {
                ties: options.ties,
                ..*read
            };
            match qrels {
                Some(qrels) if input.format() == Format::Jsonl => {
                    let (run, own) = read_run_with(input, read, &|_| {}).map_err(Failure::Read)?;
                    let ignored = own.map(|own| own.num_queries());
                    Ok((evaluate_run(qrels, &run, metrics, options), ignored, None))
                }
                Some(qrels) => evaluate_input(qrels, input, read, metrics, options, &|_| {})
                    .map(|e| (e, None, None))
                    .map_err(Failure::Read),
                None => {
                    let (run, own) = read_run_with(input, read, &|_| {}).map_err(Failure::Read)?;
                    let Some(own) = own else {
                        return Err(Failure::NoQrels(input.name().to_owned()));
                    };
                    let evaluated = evaluate_run(&own, &run, metrics, options);
                    Ok((evaluated, None, Some(own)))
                }
            }
        }
    }
}
