//! `evaluate` and `report`: Python's inputs and keyword arguments fill the
//! library's experiment spec (`rankeval::spec`), `resolve` checks it as it
//! checks the command line's flags, and `Experiment::run` evaluates it with
//! the GIL released; the results come back as NumPy arrays and lists, or as
//! the text of one of the command line's formats.

use std::path::PathBuf;
use std::sync::Arc;

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rankeval::Input;
use rankeval::experiment::{ExecuteError, Experiment};
use rankeval::front::{Describe, FrontEnd};
use rankeval::outcome::{Outcome, RunError, Wanted};
use rankeval::read::Loaded;
use rankeval::report::Report;
use rankeval::spec::{
    BenchmarkRequest, CorpusRequest, ExperimentSpec, Given, MetricRequest, Origin, RecordRequest,
    RunRequest, resolve,
};
use rankeval_core::Duplicates;
use rankeval_report::{OutputFormat, RenderOptions};

use crate::errors::{CompareError, InputError, located, read_error};
use crate::inputs::{PyQrels, PyRun, RunSource};
use crate::keywords::{CompareKeywords, keyword, named, quoted, spec_error};
use crate::options;
use crate::python_metric::Metrics;

/// What the qrels given to `evaluate` are called where a message names
/// them (a JSON Lines run's own judgements left for them).
const GIVEN_QRELS: &str = "the qrels given";

/// One run's results: `(run, metrics, queries, values, means, warnings,
/// qrels, corpus, ir_metadata, parts)`, `values` a `queries x metrics`
/// float64 array, `qrels` the judgements it was evaluated on (for `compare`
/// to check that runs share them; `None` for a JSON Lines run's own),
/// `corpus` the corpus metrics' values by name, `ir_metadata` the run
/// file's ir_metadata block (`(tag, [(field, text)])`, `None` without one),
/// `parts` each part's `(name, queries, values, means)` for a benchmark
/// reported as the mean of its parts (CQADupStack's forums; the run's own
/// queries are then the parts).
type RunResults<'py> = (
    String,
    Vec<String>,
    Vec<String>,
    Bound<'py, PyAny>,
    Vec<f64>,
    Vec<String>,
    Option<Py<PyQrels>>,
    Vec<(String, f64)>,
    Option<IrMetadataTuple>,
    Vec<PartResults<'py>>,
);

/// `parts=`: the benchmark's `irds:<id>` and each run's name (if given)
/// and pattern or folder.
type PartsKeyword = (String, Vec<(Option<String>, PathBuf)>);

/// A run's ir_metadata block as Python takes it: its tag and fields.
type IrMetadataTuple = (Option<String>, Vec<(String, String)>);

/// One part's results of a run: `(part, queries, values, means)`.
type PartResults<'py> = (String, Vec<String>, Bound<'py, PyAny>, Vec<f64>);

/// `evaluate`'s keyword arguments (every key present), as Python spells
/// them: the command line's `--missing`, `--rel`, `--ties`,
/// `--score-threshold`, `--allow-empty-run`, `--judged-only`, `--bounds`,
/// `--duplicates`, `--catalog`, `--train`, `--item-features`, `--record`,
/// `--label`, `--subtopic-qrels`, `--doc-groups`, `--group-targets`, `--samples`,
/// `--label-counts`, `--train-instances`, `--inverse-propensities`,
/// `--official` (`None`, `""` for the
/// benchmark of the qrels, or an id), `--fetch`, `--drop-identical-ids`.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct EvaluateKeywords<'py> {
    missing: String,
    rel: f64,
    ties: String,
    score_threshold: Option<f64>,
    allow_empty_run: bool,
    judged_only: bool,
    bounds: bool,
    duplicates: String,
    catalog: Option<PathBuf>,
    train: Option<Bound<'py, PyQrels>>,
    item_features: Option<PathBuf>,
    record: Option<PathBuf>,
    label: Option<String>,
    subtopic_qrels: Option<PathBuf>,
    doc_groups: Option<PathBuf>,
    group_targets: Option<PathBuf>,
    samples: bool,
    label_counts: Option<PathBuf>,
    train_instances: Option<u64>,
    inverse_propensities: Option<PathBuf>,
    official: Option<String>,
    fetch: bool,
    drop_identical_ids: bool,
    /// A benchmark reported as the mean of its parts (`"irds:beir/cqadupstack"`)
    /// and each run as `(name or None, its pattern or folder)`: the qrels
    /// and runs are then these, not `qrels` and `runs`.
    parts: Option<PartsKeyword>,
}

/// The experiment the arguments ask for, resolved, with the Python metrics'
/// handles.
struct Asked {
    experiment: Experiment,
    metrics: Metrics,
}

/// A run as the spec takes it: its file, or its data in memory.
fn run_input(name: &str, run: &PyRun) -> Input {
    match &run.source {
        RunSource::Memory(data) => Input::loaded(name, Loaded::Run(Arc::clone(data))),
        RunSource::File { input, .. } => input.clone(),
        RunSource::Table(table) => Input::loaded(
            table.name.clone(),
            Loaded::Batches(table.batches.clone().into()),
        )
        .with_columns(table.columns.clone()),
    }
}

/// Fills the spec from the arguments and resolves it: every value checked
/// by `rankeval::spec::resolve`, its message naming the keyword.
fn asked(
    qrels: Option<&Bound<'_, PyQrels>>,
    runs: &[(String, PyRef<'_, PyRun>)],
    specs: &[String],
    options: &EvaluateKeywords<'_>,
    groups: Option<PathBuf>,
    compare: Option<CompareKeywords>,
    title: Option<String>,
) -> PyResult<Asked> {
    let ties = options::ties(&options.ties)?;
    let missing = options::missing(&options.missing)?;
    let duplicates = match options.duplicates.as_str() {
        "error" => Duplicates::Error,
        "first" => Duplicates::First,
        other => return Err(keyword_error("duplicates", other, "\"error\" or \"first\"")),
    };
    // `official=` alone evaluates the card's measures.
    if specs.is_empty() && options.official.is_none() {
        return Err(PyValueError::new_err("give at least one metric"));
    }
    let (requested, metrics) = Metrics::requested(specs)?;
    if options.bounds {
        metrics.refuse_bounds()?;
    }
    for (name, run) in runs {
        check_converted_ties(name, run, ties)?;
        // A sampled run is read from its file (rows `query sample doc rank
        // score`): data converted to a run has lost the sample column.
        if options.samples && !matches!(run.source, RunSource::File { .. }) {
            return Err(PyValueError::new_err(format!(
                "samples=True reads every run from its file, and run `{name}` is data: give \
                 its file (rows `query sample doc rank score`: TREC lines, CSV/TSV, Parquet or \
                 Arrow)"
            )));
        }
    }
    let whole = Origin::keyword("run_or_runs", "");
    let (qrels_given, run_requests) = match &options.parts {
        // A benchmark of parts: `spec::resolve` reads each part's qrels and
        // run files (`rankeval::benchmarks::parts`).
        Some((id, patterns)) => (
            Some(Given::new(
                Input::file(id),
                Origin::keyword("qrels", quoted(id)),
            )),
            patterns
                .iter()
                .map(|(name, pattern)| {
                    let text = pattern.display().to_string();
                    RunRequest {
                        input: Input::file(pattern),
                        written: pattern.clone(),
                        name: name.as_ref().map(|n| keyword(n.clone(), "name", quoted(n))),
                        from: Origin::keyword("run_or_runs", quoted(&text)),
                    }
                })
                .collect(),
        ),
        None => (
            qrels.map(|q| {
                Given::new(
                    Input::loaded(GIVEN_QRELS, Loaded::Qrels(Arc::clone(&q.get().qrels), None)),
                    Origin::keyword("qrels", ""),
                )
            }),
            runs.iter()
                .map(|(name, run)| RunRequest {
                    input: run_input(name, run),
                    written: PathBuf::from(name),
                    name: Some(keyword(name.clone(), "name", quoted(name))),
                    from: Origin::keyword("run_or_runs", quoted(name)),
                })
                .collect(),
        ),
    };
    let spec = ExperimentSpec {
        whole: whole.clone(),
        qrels: qrels_given,
        runs: run_requests,
        systems: Vec::new(),
        metrics: (!specs.is_empty()).then(|| {
            keyword(
                requested
                    .into_iter()
                    .map(|(typed, metric)| MetricRequest {
                        from: Origin::keyword("metrics", quoted(&typed)),
                        typed: Some(typed),
                        metric,
                    })
                    .collect(),
                "metrics",
                "",
            )
        }),
        aggregators: None,
        corpus: CorpusRequest {
            catalog: options
                .catalog
                .clone()
                .map(|p| keyword(p.clone(), "catalog", quoted(&p.display().to_string()))),
            training: options.train.as_ref().map(|train| {
                keyword(
                    Input::loaded(
                        "the training interactions",
                        Loaded::Qrels(Arc::clone(&train.get().qrels), None),
                    ),
                    "train",
                    "",
                )
            }),
            features: options
                .item_features
                .clone()
                .map(|p| keyword(p.clone(), "item_features", quoted(&p.display().to_string()))),
            subtopics: options.subtopic_qrels.clone().map(|p| {
                keyword(
                    p.clone(),
                    "subtopic_qrels",
                    quoted(&p.display().to_string()),
                )
            }),
            doc_groups: options
                .doc_groups
                .clone()
                .map(|p| keyword(p.clone(), "doc_groups", quoted(&p.display().to_string()))),
            group_targets: options
                .group_targets
                .clone()
                .map(|p| keyword(p.clone(), "group_targets", quoted(&p.display().to_string()))),
            label_counts: options
                .label_counts
                .clone()
                .map(|p| keyword(p.clone(), "label_counts", quoted(&p.display().to_string()))),
            train_instances: options
                .train_instances
                .map(|n| keyword(n, "train_instances", n)),
            inverse_propensities: options.inverse_propensities.clone().map(|p| {
                keyword(
                    p.clone(),
                    "inverse_propensities",
                    quoted(&p.display().to_string()),
                )
            }),
        },
        groups: groups.map(|p| keyword(p.clone(), "groups", quoted(&p.display().to_string()))),
        turns: None,
        per_conversation: None,
        missing: Some(keyword(missing, "missing", quoted(&options.missing))),
        rel: Some(keyword(options.rel, "rel", options.rel)),
        ties: Some(keyword(ties, "ties", quoted(ties.as_str()))),
        score_threshold: options
            .score_threshold
            .map(|t| keyword(t, "score_threshold", t)),
        judged_only: options
            .judged_only
            .then(|| keyword(true, "judged_only", "True")),
        bounds: options.bounds.then(|| keyword(true, "bounds", "True")),
        duplicates: Some(keyword(
            duplicates,
            "duplicates",
            quoted(&options.duplicates),
        )),
        allow_empty_run: options
            .allow_empty_run
            .then(|| keyword(true, "allow_empty_run", "True")),
        samples: options.samples.then(|| keyword(true, "samples", "True")),
        compare: compare
            .map(CompareKeywords::request)
            .transpose()?
            .unwrap_or_default(),
        title: title.map(|t| keyword(t.clone(), "title", quoted(&t))),
        record: RecordRequest {
            db: options
                .record
                .clone()
                .map(|p| keyword(p.clone(), "record", quoted(&p.display().to_string()))),
            label: options
                .label
                .clone()
                .map(|l| keyword(l.clone(), "label", quoted(&l))),
            commit: None,
            experiment_hash: None,
        },
        benchmark: BenchmarkRequest {
            fetch: options.fetch.then(|| keyword(true, "fetch", "True")),
            drop_identical_ids: options
                .drop_identical_ids
                .then(|| keyword(true, "drop_identical_ids", "True")),
            official: options.official.as_ref().map(|id| match id.as_str() {
                "" => keyword(None, "official", "True"),
                _ => keyword(Some(id.clone()), "official", quoted(id)),
            }),
            qrels_benchmark: qrels.and_then(|q| q.get().benchmark.clone()),
        },
    };
    let experiment = resolve(spec).map_err(|e| spec_error(&e))?;
    Ok(Asked {
        experiment,
        metrics,
    })
}

/// `name=value: expected ...`, a keyword's value that is none of its names.
fn keyword_error(name: &str, value: &str, expected: &str) -> PyErr {
    PyValueError::new_err(format!("{name}={value:?}: expected {expected}"))
}

/// A run converted in memory has its tied scores in the order it was
/// converted with: `ties` must order them the same way (a rule of Python's
/// `Run` objects, converted before they are evaluated).
fn check_converted_ties(name: &str, run: &PyRun, ties: rankeval_core::Ties) -> PyResult<()> {
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
    Ok(())
}

/// Runs the experiment with the GIL released; a Python metric's exception
/// first, then the library's errors as Python's.
fn run(py: Python<'_>, asked: &mut Asked, wanted: Wanted) -> PyResult<Outcome> {
    let Asked {
        experiment,
        metrics,
    } = asked;
    let outcome = py.detach(|| experiment.run(wanted, &|_| {}));
    if let Some(raised) = metrics.take_error(py) {
        return Err(raised);
    }
    outcome.map_err(|e| match e {
        RunError::Execute(ExecuteError::Read(e)) => read_error(&e),
        RunError::Execute(ExecuteError::NeverRan(e)) => {
            located::<InputError>(None, None, &e.describe(FrontEnd::Python))
        }
        RunError::Compare { source, .. } => {
            located::<CompareError>(None, None, &source.to_string())
        }
        RunError::Record { source, .. } => located::<InputError>(None, None, &source.to_string()),
    })
}

/// The warnings of the run `name` as Python says them: the judgements'
/// own (`qrels_warning`), the whole experiment's, the notes on how a metric
/// was read, then the run's.
fn run_warnings(
    report: &Report,
    name: &str,
    qrels_warning: Option<String>,
    notes: &[String],
) -> Vec<String> {
    let whole = report.warnings.iter().filter(|w| w.run.is_empty());
    let own = report.warnings.iter().filter(|w| w.run == name);
    qrels_warning
        .into_iter()
        .chain(whole.map(|w| w.describe(FrontEnd::Python)))
        .chain(notes.iter().map(|note| format!("note: {note}")))
        .chain(own.map(|w| w.describe(FrontEnd::Python)))
        .collect()
}

/// Evaluates each `(name, run)` against `qrels` (or, for JSON Lines run
/// files, the judgements they hold when `qrels` is `None`) with the metrics
/// `specs` (per-query and corpus metrics) and `options` (a dict of every
/// [`EvaluateKeywords`] key), as `rankeval eval` does.
#[pyfunction]
pub fn evaluate<'py>(
    py: Python<'py>,
    qrels: Option<Bound<'py, PyQrels>>,
    runs: Vec<(String, PyRef<'py, PyRun>)>,
    specs: Vec<String>,
    options: EvaluateKeywords<'py>,
) -> PyResult<Vec<RunResults<'py>>> {
    let mut asked = asked(qrels.as_ref(), &runs, &specs, &options, None, None, None)?;
    let outcome = run(py, &mut asked, Wanted::default())?;
    let report = outcome.results.report();
    let qrels_warning = qrels.as_ref().and_then(|q| {
        q.get()
            .warning
            .as_ref()
            .map(|w| w.describe(FrontEnd::Python))
    });
    let mut results = Vec::with_capacity(report.runs.len());
    for (r, run) in report.runs.iter().enumerate() {
        let values = values_array(py, run)?;
        // The one aggregator is the mean.
        let means = run.aggregates.iter().map(|m| m[0]).collect();
        // A JSON Lines run evaluated on its own judgements has no qrels
        // object of the caller's.
        let judged = qrels.as_ref().map(|q| q.clone().unbind());
        results.push((
            run.name.clone(),
            report.metrics.iter().map(|m| m.name.clone()).collect(),
            run.queries.clone(),
            values,
            means,
            run_warnings(
                report,
                &run.name,
                qrels_warning.clone(),
                &asked.experiment.notes,
            ),
            judged,
            report
                .corpus
                .iter()
                .cloned()
                .zip(run.corpus.iter().copied())
                .collect(),
            run.ir_metadata
                .as_ref()
                .map(|block| (block.tag.clone(), block.fields.clone())),
            part_results(py, outcome.parts.as_ref(), r)?,
        ));
    }
    Ok(results)
}

/// A run's per-query values as a `queries x metrics` float64 array.
fn values_array<'py>(
    py: Python<'py>,
    run: &rankeval::report::RunResult,
) -> PyResult<Bound<'py, PyAny>> {
    let rows = run.queries.len();
    let width = run.per_query.len();
    let mut values = Vec::with_capacity(rows * width);
    for q in 0..rows {
        values.extend(run.per_query.iter().map(|column| column[q]));
    }
    Ok(PyArray1::from_vec(py, values)
        .reshape([rows, width])?
        .into_any())
}

/// Run `r`'s results on each part of a benchmark of parts (empty for any
/// other): the part's queries, values and means (each the mean over the
/// part's queries, as the benchmark's rows).
fn part_results<'py>(
    py: Python<'py>,
    parts: Option<&rankeval::benchmarks::parts::PartResults>,
    r: usize,
) -> PyResult<Vec<PartResults<'py>>> {
    let Some(parts) = parts else {
        return Ok(Vec::new());
    };
    let mut results = Vec::with_capacity(parts.reports.len());
    for (name, _, report) in &parts.reports {
        let Some(run) = report.runs.get(r) else {
            continue;
        };
        let means = run
            .per_query
            .iter()
            .map(|column| rankeval_core::exact_sum::fmean(column))
            .collect();
        results.push((
            name.clone(),
            run.queries.clone(),
            values_array(py, run)?,
            means,
        ));
    }
    Ok(results)
}

/// The parts of the benchmark `id` (their short names, `android`...) when
/// the card reports it as the mean of its parts (CQADupStack), else
/// `None`: how Python tells that `qrels="irds:<id>"` asks for a run per
/// part.
#[pyfunction]
pub fn benchmark_parts(id: &str) -> Option<Vec<String>> {
    let benchmark = rankeval::benchmarks::card().find(id)?;
    (!benchmark.parts.is_empty()).then(|| {
        rankeval::benchmarks::parts::names(benchmark)
            .into_iter()
            .map(|(name, _)| name)
            .collect()
    })
}

/// The report of `rankeval eval` as text: the runs evaluated as
/// [`evaluate`] evaluates them, the groups of the file `groups`, the
/// comparison `compare` asks for (a dict of `compare`'s keywords, or
/// `None`), rendered in `format` (the HTML page with its curves and the
/// queries that changed most); then the warnings as Python says them, and
/// whether every gate passed.
#[pyfunction]
#[pyo3(signature = (qrels, runs, specs, options, groups, compare, format, per_query, title=None))]
#[allow(clippy::too_many_arguments)]
pub fn report<'py>(
    py: Python<'py>,
    qrels: Option<Bound<'py, PyQrels>>,
    runs: Vec<(String, PyRef<'py, PyRun>)>,
    specs: Vec<String>,
    options: EvaluateKeywords<'py>,
    groups: Option<PathBuf>,
    compare: Option<Bound<'py, PyDict>>,
    format: &str,
    per_query: bool,
    title: Option<String>,
) -> PyResult<(String, Vec<String>, bool)> {
    let format: OutputFormat = named(
        format,
        "format",
        "table, json, csv, markdown, trec, latex, html",
    )?;
    let compare = compare
        .map(|c| CompareKeywords::from_dict(&c))
        .transpose()?;
    let mut asked = asked(
        qrels.as_ref(),
        &runs,
        &specs,
        &options,
        groups,
        compare,
        title,
    )?;
    let wanted = Wanted {
        curves_and_changes: format == OutputFormat::Html,
    };
    let outcome = run(py, &mut asked, wanted)?;
    let text = rankeval_report::outcome::render(&outcome, format, RenderOptions { per_query });
    let report = outcome.results.report();
    let mut warnings: Vec<String> = qrels
        .as_ref()
        .and_then(|q| {
            q.get()
                .warning
                .as_ref()
                .map(|w| w.describe(FrontEnd::Python))
        })
        .into_iter()
        .chain(asked.experiment.notes.iter().map(|n| format!("note: {n}")))
        .chain(report.warnings.iter().map(|w| w.describe(FrontEnd::Python)))
        .collect();
    let passed = match &outcome.results {
        rankeval::outcome::Results::Compared(compared) => {
            warnings.extend(
                compared
                    .comparison
                    .group_warnings()
                    .iter()
                    .map(|w| w.to_string()),
            );
            compared.comparison.passed()
        }
        rankeval::outcome::Results::Plain(_) => true,
    };
    Ok((text, warnings, passed))
}
