//! What `rankeval_rs.spark` runs inside Spark's Python workers and on its
//! driver: the sided evaluator over a partition's Arrow batches
//! ([`SparkEvaluator`], `DataFrame.mapInArrow`), the registry's aggregators'
//! mergeable states, updated in the tasks ([`SparkEvaluator`] with
//! `aggregators`, or [`SparkAggregates`] over the per-query rows) and merged
//! and finished on the driver ([`spark_aggregate_values`]), and the corpus
//! metrics' states merged and finished on the driver
//! ([`spark_corpus_values`]). No per-row or per-query Python: a batch in, a
//! batch out; every aggregate is computed by the aggregator's own code
//! (`rankeval_core::aggregate_state`).

use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3_arrow::PyRecordBatch;
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::types::PyBytes;
use rankeval::corpus::{CorpusInput, CorpusSources};
use rankeval::engine::column_states::{ColumnStates, finish_aggregates};
use rankeval::engine::sided::{
    Context, DEFAULT_CHUNK_ROWS, SidedError, SidedEvaluator, carriable, finish_corpus,
    merge_qrels_facts, whole_qrels,
};
use rankeval::metrics::aggregators::gmean::{DEFAULT_FLOOR, GeometricMean};
use rankeval::metrics::aggregators::std_dev::{DEFAULT_DDOF, StdDev};
use rankeval::read::{Input, ReadOptions};
use rankeval::spec::{Origin, check_requirements, check_sampled, check_sampled_corpus};
use rankeval_core::registry::{aggregators, parse_aggregator, parse_corpus_metric};
use rankeval_core::{Aggregator, CorpusInputs, CorpusMetric};
use rankeval_stats::keyed::{self, GroupedSums, KeyedSignFlip, PairedSums, SquaredDeviations};
use rankeval_stats::{KeyedBootstrap, KeyedTukey};

use crate::errors::InputError;
use crate::inputs::duplicates;
use crate::options;
use crate::python_metric::Metrics;

/// Evaluates one Spark partition's sided batches (see
/// `rankeval::engine::sided`): `push` each batch, then `finish`; each
/// returns a `pyarrow.RecordBatch` of results or `None`.
#[pyclass(module = "rankeval_rs._native")]
pub struct SparkEvaluator {
    evaluator: SidedEvaluator,
    pool: rayon::ThreadPool,
    /// Whether the metrics read facts of the whole qrels.
    needs_facts: bool,
}

/// The keywords that give the inputs of the metrics that require more
/// than the qrels and the run, as `rankeval_rs.evaluate` names them.
struct ContextInputs {
    subtopic_qrels: Option<PathBuf>,
    doc_groups: Option<PathBuf>,
    group_targets: Option<PathBuf>,
    label_counts: Option<PathBuf>,
    train_instances: Option<u64>,
    inverse_propensities: Option<PathBuf>,
}

#[pymethods]
impl SparkEvaluator {
    /// An evaluator of `runs` with the metrics `specs` and the command
    /// line's options, on `threads` threads (Spark's `spark.task.cpus`).
    /// With `corpus` metric specs, each run's lists also update the corpus
    /// states (read on `catalog`, `training`, `features`, paths every
    /// worker reads), given as bytes at `finish`; with `aggregators`
    /// (specs, see [`spark_aggregators`]), each query's values update each
    /// run's aggregator states, given as bytes at `finish` too.
    /// `subtopic_qrels`, `doc_groups`, `group_targets`, `label_counts`
    /// with `train_instances`, and `inverse_propensities` are the inputs
    /// of the metrics that require them, read by every task; `qrels_facts`
    /// the facts of the whole qrels ([`spark_merge_qrels_facts`]'s bytes),
    /// without which an evaluator whose metrics read them
    /// ([`Self::needs_qrels_facts`]) only gathers them ([`Self::qrels_facts`]).
    #[new]
    #[pyo3(signature = (specs, runs, missing="skip", rel=1.0, ties="docid", duplicates_policy="error", score_threshold=None, threads=1, chunk_rows=DEFAULT_CHUNK_ROWS, corpus=Vec::new(), catalog=None, training=None, features=None, column_names=None, aggregators=Vec::new(), drop_identical_ids=false, subtopic_qrels=None, doc_groups=None, sample=None, group_targets=None, label_counts=None, train_instances=None, inverse_propensities=None, qrels_facts=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        specs: Vec<String>,
        runs: Vec<String>,
        missing: &str,
        rel: f64,
        ties: &str,
        duplicates_policy: &str,
        score_threshold: Option<f64>,
        threads: usize,
        chunk_rows: usize,
        corpus: Vec<String>,
        catalog: Option<PathBuf>,
        training: Option<PathBuf>,
        features: Option<PathBuf>,
        column_names: Option<(String, String, String, String)>,
        aggregators: Vec<String>,
        drop_identical_ids: bool,
        subtopic_qrels: Option<PathBuf>,
        doc_groups: Option<PathBuf>,
        sample: Option<String>,
        group_targets: Option<PathBuf>,
        label_counts: Option<PathBuf>,
        train_instances: Option<u64>,
        inverse_propensities: Option<PathBuf>,
        qrels_facts: Option<Vec<u8>>,
    ) -> PyResult<Self> {
        let aggregators = build_aggregators(&aggregators, DEFAULT_FLOOR, DEFAULT_DDOF)?;
        let ties = options::ties(ties)?;
        let mut options = options::evaluation(missing, rel, ties, score_threshold, false)?;
        options.drop_identical_ids = drop_identical_ids;
        let metrics = Metrics::build(&specs)?;
        if !metrics.is_builtin() {
            return Err(PyValueError::new_err(
                "a metric written in Python cannot run on Spark's workers: register it there, or compute it on the per-query output",
            ));
        }
        options::check_metric_ties(&metrics.metrics, ties)?;
        let inputs = ContextInputs {
            subtopic_qrels,
            doc_groups,
            group_targets,
            label_counts,
            train_instances,
            inverse_propensities,
        };
        let mut context = metric_context(&metrics.metrics, inputs)?;
        let gathered = qrels_facts.is_some();
        let needs_facts = rankeval::engine::qrels_facts::needed(&metrics.metrics);
        if let Some(bytes) = &qrels_facts {
            context.whole = whole_qrels(bytes).map_err(sided_error)?;
        }
        if let Some(column) = &sample {
            // The command line's rules for `--samples`, named by the keyword.
            let from = Origin::keyword("sample", crate::keywords::quoted(column));
            let corpus = spark_corpus_metrics(&corpus)?;
            check_sampled_corpus(&from, &corpus)
                .and_then(|()| check_sampled(&from, &metrics.metrics, ties))
                .map_err(|e| crate::keywords::spec_error(&e))?;
        }
        let read = ReadOptions {
            duplicates: duplicates(duplicates_policy)?,
            ties,
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
            .map_err(|e| PyValueError::new_err(format!("threads={threads}: {e}")))?;
        let mut evaluator = SidedEvaluator::new(metrics.metrics, options, read, runs, chunk_rows)
            .with_aggregators(aggregators)
            .with_context(context);
        if sample.is_some() {
            evaluator = evaluator.with_samples();
        }
        // What a chunk cannot carry is refused here, on the driver, before
        // any job; the facts of the whole qrels arrive after the first
        // pass, which an evaluator without them runs.
        if gathered || !needs_facts {
            evaluator.check_requirements().map_err(sided_error)?;
        }
        if let Some((query, doc, score, grade)) = &column_names {
            evaluator = evaluator.with_column_names(query, doc, score, grade);
        }
        if !corpus.is_empty() {
            let (corpus, inputs) = corpus_inputs(&corpus, catalog, training, features)?;
            evaluator = evaluator
                .with_corpus(corpus, Arc::new(inputs))
                .map_err(sided_error)?;
        }
        Ok(Self {
            evaluator,
            pool,
            needs_facts,
        })
    }

    /// Whether the metrics read facts of the whole qrels (PSP's and
    /// PSnDCG's normalisers, the documents Hole@k looks up), which a first
    /// pass over every partition's judgements gathers
    /// ([`Self::qrels_facts`], [`spark_merge_qrels_facts`]) before the
    /// evaluation's tasks are given them (`qrels_facts=`).
    fn needs_qrels_facts(&self) -> bool {
        self.needs_facts
    }

    /// The first pass over one partition of the judgement rows (the sided
    /// layout, every judgement of a query in the partition): the facts of
    /// its queries that the metrics read, as bytes to merge.
    fn qrels_facts<'py>(
        &self,
        py: Python<'py>,
        batches: Vec<PyRecordBatch>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let batches: Vec<_> = batches.into_iter().map(|b| b.into_inner()).collect();
        let (evaluator, pool) = (&self.evaluator, &self.pool);
        let bytes = py
            .detach(|| pool.install(|| evaluator.qrels_facts(&batches)))
            .map_err(sided_error)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The names of the output's columns, in order.
    fn columns(&self) -> Vec<String> {
        self.evaluator
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    /// Takes the next batch; the results of the queries complete so far,
    /// or `None`.
    fn push<'py>(
        &mut self,
        py: Python<'py>,
        batch: PyRecordBatch,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let batch = batch.into_inner();
        let (evaluator, pool) = (&mut self.evaluator, &self.pool);
        let out = py.detach(|| pool.install(|| evaluator.push(batch)));
        out.map_err(sided_error)?
            .map(|b| PyRecordBatch::new(b).into_pyarrow(py))
            .transpose()
    }

    /// The results of the rows held back: the end of the partition.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let (evaluator, pool) = (&mut self.evaluator, &self.pool);
        let out = py.detach(|| pool.install(|| evaluator.finish()));
        out.map_err(sided_error)?
            .map(|b| PyRecordBatch::new(b).into_pyarrow(py))
            .transpose()
    }
}

/// The subtopic judgements, document groups (with their per-query
/// targets) and label propensities the metrics `metrics` read, from the
/// files every worker reads: a metric whose input is not given is refused
/// by the rule of every front end (`spec::check_requirements`, naming the
/// keyword), label propensities are resolved by `spec::propensity_source`
/// (a table and its count, or inverse propensities, not both); files no
/// metric reads are not read.
fn metric_context(
    metrics: &[Box<dyn rankeval_core::Metric>],
    inputs: ContextInputs,
) -> PyResult<Context> {
    use crate::keywords::{keyword, quoted};
    let path_keyword =
        |p: &PathBuf, name: &str| keyword(p.clone(), name, quoted(&p.display().to_string()));
    let request = rankeval::spec::CorpusRequest {
        label_counts: inputs
            .label_counts
            .as_ref()
            .map(|p| path_keyword(p, "label_counts")),
        train_instances: inputs
            .train_instances
            .map(|n| keyword(n, "train_instances", n)),
        inverse_propensities: inputs
            .inverse_propensities
            .as_ref()
            .map(|p| path_keyword(p, "inverse_propensities")),
        ..Default::default()
    };
    let propensities =
        rankeval::spec::propensity_source(&request).map_err(|e| crate::keywords::spec_error(&e))?;
    let sources = CorpusSources {
        subtopics: inputs.subtopic_qrels,
        doc_groups: inputs.doc_groups,
        group_targets: inputs.group_targets,
        propensities,
        ..CorpusSources::default()
    };
    for metric in metrics {
        // What no input makes Spark carry is refused first: asking for an
        // input it cannot use would mislead.
        for &requirement in metric.requires() {
            if let Err(why) = carriable(requirement) {
                return Err(sided_error(SidedError::Requires {
                    metric: metric.name(),
                    what: requirement.what(),
                    why,
                }));
            }
        }
        let from = Origin::keyword("metrics", crate::keywords::quoted(&metric.name()));
        check_requirements(metric.as_ref(), &from, &sources)
            .map_err(|e| crate::keywords::spec_error(&e))?;
    }
    let read = |e: rankeval::read::ReadError| crate::errors::read_error(&e);
    let reads_targets =
        rankeval_core::context::any_requires(metrics, rankeval_core::Requirement::GroupTargets);
    let propensities = match (
        sources.read_propensities(metrics).map_err(read)?,
        &sources.propensities,
    ) {
        (Some(table), Some((path, _))) => Some((path.clone(), table)),
        _ => None,
    };
    Ok(Context {
        subtopics: sources.read_subtopics(metrics).map_err(read)?,
        doc_groups: sources.read_doc_groups(metrics).map_err(read)?,
        group_targets: sources.group_targets.clone().filter(|_| reads_targets),
        propensities,
        whole: Default::default(),
    })
}

/// The facts of the whole qrels from every partition's first-pass bytes
/// (`SparkEvaluator.qrels_facts`), merged in any order: the bytes given to
/// every task of the evaluation (`qrels_facts=`).
#[pyfunction]
pub fn spark_merge_qrels_facts<'py>(
    py: Python<'py>,
    parts: Vec<Bound<'py, PyBytes>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let parts: Vec<&[u8]> = parts.iter().map(|p| p.as_bytes()).collect();
    let merged = merge_qrels_facts(&parts).map_err(sided_error)?;
    Ok(PyBytes::new(py, &merged))
}

/// Corpus metrics from their specs.
fn spark_corpus_metrics(specs: &[String]) -> PyResult<Vec<Box<dyn CorpusMetric>>> {
    specs
        .iter()
        .map(|spec| {
            parse_corpus_metric(spec)
                .map_err(|e| PyValueError::new_err(format!("corpus metric `{spec}`: {e}")))
        })
        .collect()
}

/// Corpus metrics from their specs, and the inputs they need read from
/// the paths given; a metric whose input is not given is an error naming
/// the argument.
fn corpus_inputs(
    specs: &[String],
    catalog: Option<PathBuf>,
    training: Option<PathBuf>,
    features: Option<PathBuf>,
) -> PyResult<(Vec<Box<dyn CorpusMetric>>, CorpusInputs)> {
    let metrics = spark_corpus_metrics(specs)?;
    let sources = CorpusSources {
        catalog,
        training: training.map(Input::file),
        features,
        ..CorpusSources::default()
    };
    for metric in &metrics {
        if let Some(input) = sources.missing_for(metric.as_ref()) {
            // The keyword argument of `rankeval_rs.spark.evaluate`.
            let argument = match input {
                CorpusInput::Catalog => "catalog",
                CorpusInput::Training => "training",
                CorpusInput::Features => "features",
            };
            return Err(PyValueError::new_err(format!(
                "corpus metric `{}` needs {} ({argument}=PATH)",
                metric.name(),
                input.what(),
            )));
        }
    }
    let inputs = sources
        .read(&metrics)
        .map_err(|e| crate::errors::read_error(&e))?;
    Ok((metrics, inputs))
}

/// The canonical names of the corpus metrics `specs`.
#[pyfunction]
pub fn spark_corpus_names(specs: Vec<String>) -> PyResult<Vec<String>> {
    specs
        .iter()
        .map(|spec| {
            parse_corpus_metric(spec)
                .map(|m| m.name())
                .map_err(|e| PyValueError::new_err(format!("corpus metric `{spec}`: {e}")))
        })
        .collect()
}

/// The corpus metrics' values of one run: `parts` are every partition's
/// states of that run (the `_corpus` column), merged in any order and
/// finished on the inputs read on the driver.
#[pyfunction]
#[pyo3(signature = (specs, parts, catalog=None, training=None, features=None))]
pub fn spark_corpus_values(
    py: Python<'_>,
    specs: Vec<String>,
    parts: Vec<Bound<'_, PyBytes>>,
    catalog: Option<PathBuf>,
    training: Option<PathBuf>,
    features: Option<PathBuf>,
) -> PyResult<Vec<f64>> {
    let (metrics, inputs) = corpus_inputs(&specs, catalog, training, features)?;
    let parts: Vec<&[u8]> = parts.iter().map(|p| p.as_bytes()).collect();
    let _ = py;
    finish_corpus(&metrics, &parts, &inputs).map_err(sided_error)
}

fn sided_error(e: rankeval::engine::sided::SidedError) -> PyErr {
    InputError::new_err(format!("spark: {e}"))
}

/// The aggregators `specs` as the Spark API takes them: each built from
/// the registry (built-ins and every plugin linked into this module), a
/// plain `gmean` with `floor` and a plain `std` with `ddof` (the keywords
/// of `SparkEvaluation.aggregate`). An aggregator that gives a confidence
/// interval is refused: the Spark API reports values only.
fn build_aggregators(
    specs: &[String],
    floor: f64,
    ddof: u32,
) -> PyResult<Vec<Box<dyn Aggregator>>> {
    specs
        .iter()
        .map(|spec| {
            let mut aggregator = parse_aggregator(spec)
                .map_err(|e| PyValueError::new_err(format!("aggregator `{spec}`: {e}")))?;
            let name = aggregator.name();
            if name == "gmean" && floor != DEFAULT_FLOOR {
                aggregator = Box::new(GeometricMean { floor });
            } else if name == "std" && ddof != DEFAULT_DDOF {
                aggregator = Box::new(StdDev { ddof });
            }
            aggregator
                .validate()
                .map_err(|e| PyValueError::new_err(format!("aggregator `{spec}`: {e}")))?;
            if aggregator.interval(&[]).is_some() {
                let usable: Vec<&str> = aggregators()
                    .iter()
                    .filter(|d| (d.example)().interval(&[]).is_none())
                    .map(|d| d.name)
                    .collect();
                return Err(PyValueError::new_err(format!(
                    "aggregator `{spec}` gives a confidence interval, which the Spark API does \
                     not report: on Spark, one of {} (or any aggregator without an interval); \
                     for an interval, see keyed_compare, or run `rankeval` on the per-query \
                     Parquet output",
                    usable.join(", ")
                )));
            }
            Ok(aggregator)
        })
        .collect()
}

/// The canonical names of the aggregators `specs` as
/// `SparkEvaluation.aggregate` takes them (with its `floor` and `ddof`):
/// what the states are computed and named with.
#[pyfunction]
pub fn spark_aggregators(specs: Vec<String>, floor: f64, ddof: u32) -> PyResult<Vec<String>> {
    Ok(build_aggregators(&specs, floor, ddof)?
        .iter()
        .map(|a| a.name())
        .collect())
}

/// One partition's aggregator states over per-query rows (`query`, `run`,
/// then one float64 column per metric, in the order of `metrics`): `push`
/// each batch, then `finish`, which gives `(run, states)` per run.
#[pyclass(module = "rankeval_rs._native")]
pub struct SparkAggregates {
    states: ColumnStates,
}

#[pymethods]
impl SparkAggregates {
    /// States of the columns `metrics` (canonical names) of `runs` under
    /// the aggregators `aggregators` (canonical names, from
    /// [`spark_aggregators`]).
    #[new]
    fn new(metrics: Vec<String>, aggregators: Vec<String>, runs: Vec<String>) -> PyResult<Self> {
        let aggregators = build_aggregators(&aggregators, DEFAULT_FLOOR, DEFAULT_DDOF)?;
        Ok(Self {
            states: ColumnStates::new(metrics, aggregators, runs),
        })
    }

    /// Sees a batch of per-query rows.
    fn push(&mut self, py: Python<'_>, batch: PyRecordBatch) -> PyResult<()> {
        let batch = batch.into_inner();
        let states = &mut self.states;
        py.detach(|| states.update_batch(&batch))
            .map_err(sided_error)
    }

    /// Each run's states as bytes, `(run, bytes)`, in the order of `runs`.
    fn finish<'py>(&mut self, py: Python<'py>) -> Vec<(String, Bound<'py, PyBytes>)> {
        self.states
            .take()
            .into_iter()
            .map(|(run, bytes)| (run, PyBytes::new(py, &bytes)))
            .collect()
    }
}

/// The aggregates of one run: `parts` are every partition's states of
/// that run (from [`SparkAggregates`] or the evaluator's `_aggregates`
/// column) of the columns `metrics` under `aggregators` (canonical
/// names), merged in any order and finished; `[metric][aggregator]`.
#[pyfunction]
pub fn spark_aggregate_values(
    py: Python<'_>,
    metrics: Vec<String>,
    aggregators: Vec<String>,
    parts: Vec<Bound<'_, PyBytes>>,
) -> PyResult<Vec<Vec<f64>>> {
    let aggregators = build_aggregators(&aggregators, DEFAULT_FLOOR, DEFAULT_DDOF)?;
    let parts: Vec<&[u8]> = parts.iter().map(|p| p.as_bytes()).collect();
    py.detach(|| finish_aggregates(&metrics, &aggregators, &parts))
        .map_err(sided_error)
}

/// The first pass of the query-keyed statistics of paired differences
/// `differences` (candidate - baseline) of queries `queries`: the wires of
/// `(PairedSums, GroupedSums over `groups` groups, KeyedSignFlip and
/// KeyedBootstrap with `resamples` and `seed`)`, each mergeable in any
/// order (`rankeval_stats::keyed`, `rankeval_stats::keyed_bootstrap`).
#[pyfunction]
pub fn keyed_states(
    queries: Vec<String>,
    differences: PyReadonlyArray1<'_, f64>,
    groups: u32,
    resamples: u64,
    seed: u64,
) -> PyResult<KeyedWires> {
    let d = differences.as_slice()?;
    if d.len() != queries.len() {
        return Err(PyValueError::new_err(format!(
            "{} differences for {} queries",
            d.len(),
            queries.len()
        )));
    }
    let mut paired = PairedSums::new();
    let mut grouped = GroupedSums::new(groups).map_err(keyed_error)?;
    let mut flips = KeyedSignFlip::new(resamples, seed).map_err(keyed_error)?;
    let mut boot = KeyedBootstrap::new(resamples, seed).map_err(keyed_error)?;
    for (query, &value) in queries.iter().zip(d) {
        paired.add(value).map_err(keyed_error)?;
        grouped.add(query.as_bytes(), value).map_err(keyed_error)?;
        flips.add(query.as_bytes(), value).map_err(keyed_error)?;
        boot.add(query.as_bytes(), value).map_err(keyed_error)?;
    }
    Ok((
        paired.to_wire(),
        grouped.to_wire(),
        flips.to_wire(),
        boot.to_wire(),
    ))
}

/// The wires of [`keyed_states`]: paired sums, jackknife groups, sign
/// flips, bootstrap.
type KeyedWires = (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>);

/// The keyed randomized Tukey HSD's state of one partition's queries:
/// `queries[q]`'s scores are row `q` of `scores` (queries x systems, the
/// systems in the order the driver gives), `resamples` and `seed` as the
/// command line's (`rankeval_stats::keyed_tukey`); its wire.
#[pyfunction]
pub fn keyed_tukey_state(
    queries: Vec<String>,
    scores: PyReadonlyArray2<'_, f64>,
    resamples: u64,
    seed: u64,
) -> PyResult<Vec<f64>> {
    let scores = scores.as_array();
    let (rows, systems) = scores.dim();
    if rows != queries.len() {
        return Err(PyValueError::new_err(format!(
            "{rows} rows of scores for {} queries",
            queries.len()
        )));
    }
    let mut state = KeyedTukey::new(systems, resamples, seed).map_err(keyed_error)?;
    let mut row = vec![0.0; systems];
    for (query, values) in queries.iter().zip(scores.rows()) {
        for (slot, value) in row.iter_mut().zip(values) {
            *slot = *value;
        }
        state.add(query.as_bytes(), &row).map_err(keyed_error)?;
    }
    Ok(state.to_wire())
}

/// The keyed randomized Tukey HSD of merged partition states, as a dict:
/// `queries`, `means` (one per system, in the states' order), `pairs`
/// (`(first, second, mean[second] - mean[first], p_value)` for every
/// `first < second`), `resamples`, `seed`, `rng`.
#[pyfunction]
pub fn keyed_tukey_result<'py>(
    py: Python<'py>,
    states: Vec<Vec<f64>>,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    use pyo3::types::PyDict;
    let state = merged(&states, KeyedTukey::from_wire, KeyedTukey::merge, "Tukey")?;
    let hsd = state.result().map_err(keyed_error)?;
    let out = PyDict::new(py);
    out.set_item("queries", state.count())?;
    out.set_item("means", hsd.means)?;
    let pairs: Vec<(usize, usize, f64, f64)> = hsd
        .pairs
        .iter()
        .map(|p| (p.first, p.second, p.difference, p.p_value))
        .collect();
    out.set_item("pairs", pairs)?;
    out.set_item("resamples", hsd.resamples)?;
    out.set_item("seed", hsd.seed)?;
    out.set_item("rng", rankeval_stats::KEYED_TUKEY_RNG_NAME)?;
    Ok(out)
}

/// The second pass: the wire of the squared deviations of `differences`
/// from `mean` (the merged first pass's mean).
#[pyfunction]
pub fn keyed_squares(differences: PyReadonlyArray1<'_, f64>, mean: f64) -> PyResult<Vec<f64>> {
    let mut squares = SquaredDeviations::new(mean).map_err(keyed_error)?;
    for &d in differences.as_slice()? {
        squares.add(d).map_err(keyed_error)?;
    }
    Ok(squares.to_wire())
}

/// The mean of merged first-pass states: what the second pass needs.
#[pyfunction]
pub fn keyed_mean(paired: Vec<Vec<f64>>) -> PyResult<f64> {
    Ok(merge_paired(&paired)?.mean())
}

/// The statistics of merged states, as a dict: `queries`, `difference`
/// (the mean), `t`, `df`, `p_value` and `interval` (Student's paired t),
/// `jackknife` (the delete-a-group interval of the mean difference, with
/// `groups`), `sign_flip_p_value`, `bootstrap` (the keyed bootstrap's
/// percentile interval), `bootstrap_p_value`, `bootstrap_standard_error`,
/// `resamples`, `seed`, `rng` (the sign flip's generator) and
/// `bootstrap_rng`.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // one list of wires per state, then the level
pub fn keyed_result<'py>(
    py: Python<'py>,
    paired: Vec<Vec<f64>>,
    squares: Vec<Vec<f64>>,
    grouped: Vec<Vec<f64>>,
    flips: Vec<Vec<f64>>,
    boots: Vec<Vec<f64>>,
    level: f64,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    use pyo3::types::PyDict;
    let first = merge_paired(&paired)?;
    let t = if first.is_constant() {
        keyed::paired_t(first.count(), first.mean(), 0.0, level)
    } else {
        let sq = merged(
            &squares,
            SquaredDeviations::from_wire,
            SquaredDeviations::merge,
            "second-pass",
        )?;
        sq.paired_t(level)
    }
    .map_err(keyed_error)?;
    let groups = merged(
        &grouped,
        GroupedSums::from_wire,
        GroupedSums::merge,
        "jackknife",
    )?;
    let sign = merged(
        &flips,
        KeyedSignFlip::from_wire,
        KeyedSignFlip::merge,
        "sign-flip",
    )?;
    let out = PyDict::new(py);
    out.set_item("queries", first.count())?;
    out.set_item("difference", first.mean())?;
    out.set_item("t", t.t)?;
    out.set_item("df", t.df)?;
    out.set_item("p_value", t.p_value)?;
    out.set_item(
        "interval",
        (t.interval.lower, t.interval.upper, t.interval.level),
    )?;
    match groups.jackknife_interval(level) {
        Ok(i) => out.set_item("jackknife", (i.lower, i.upper, i.level))?,
        Err(e) => out.set_item("jackknife", e.to_string())?,
    }
    out.set_item("groups", groups.groups())?;
    out.set_item("sign_flip_p_value", sign.p_value().map_err(keyed_error)?)?;
    out.set_item("resamples", sign.resamples())?;
    out.set_item("seed", sign.seed())?;
    out.set_item("rng", keyed::KEYED_RNG_NAME)?;
    let boot = merged(
        &boots,
        KeyedBootstrap::from_wire,
        KeyedBootstrap::merge,
        "bootstrap",
    )?
    .result(level)
    .map_err(keyed_error)?;
    out.set_item(
        "bootstrap",
        (
            boot.interval.lower,
            boot.interval.upper,
            boot.interval.level,
        ),
    )?;
    out.set_item("bootstrap_p_value", boot.p_value)?;
    out.set_item("bootstrap_standard_error", boot.standard_error)?;
    out.set_item("bootstrap_rng", rankeval_stats::KEYED_BOOTSTRAP_RNG_NAME)?;
    Ok(out)
}

/// The states sent as `wires`, read and merged; an error when there is none.
fn merged<T>(
    wires: &[Vec<f64>],
    read: impl Fn(&[f64]) -> Result<T, rankeval_stats::CompareError>,
    merge: impl Fn(&mut T, &T) -> Result<(), rankeval_stats::CompareError>,
    what: &str,
) -> PyResult<T> {
    let mut out: Option<T> = None;
    for wire in wires {
        let part = read(wire).map_err(keyed_error)?;
        match &mut out {
            None => out = Some(part),
            Some(sum) => merge(sum, &part).map_err(keyed_error)?,
        }
    }
    out.ok_or_else(|| PyValueError::new_err(format!("no {what} state")))
}

fn merge_paired(wires: &[Vec<f64>]) -> PyResult<PairedSums> {
    let mut merged = PairedSums::new();
    for wire in wires {
        merged.merge(&PairedSums::from_wire(wire).map_err(keyed_error)?);
    }
    Ok(merged)
}

fn keyed_error(e: rankeval_stats::CompareError) -> PyErr {
    crate::errors::CompareError::new_err(e.to_string())
}
