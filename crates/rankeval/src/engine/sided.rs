//! Evaluating a stream of Arrow batches that hold both sides of each query:
//! its judgements and the ranked rows of one or more runs, told apart by a
//! `side` column. This is how a Spark job hands its data over
//! (`DataFrame.mapInArrow` over the union of the run and the qrels,
//! repartitioned by query and sorted within partitions by query and side):
//! every query's rows are contiguous, so the stream is cut at query
//! boundaries into chunks, and each chunk is evaluated as the command line
//! evaluates whole files ([`evaluate`](super::evaluate)): the same
//! finishing, ordering, judging and scoring, so the same bits per query.
//!
//! Per-query values come out as record batches (`query`, `run`, one
//! `Float64` column per metric), with one row per run and chunk that counts
//! what the command line's coverage counts (queries evaluated, left out,
//! run-only, repeats dropped): the caller sums those, no query is dropped
//! without a count.
//!
//! With corpus metrics ([`SidedEvaluator::with_corpus`]), every list of
//! each run also updates the run's corpus states, and the end of the
//! stream gives one more row per run ([`KIND_CORPUS`]) with the states as
//! bytes in a `_corpus` column; the caller merges every stream's states
//! and finishes them once ([`finish_corpus`]): the bits of the command
//! line's corpus values, however the queries were partitioned.
//!
//! With aggregators ([`SidedEvaluator::with_aggregators`]), every query's
//! values also update each run's aggregator states, and the end of the
//! stream gives one more row per run ([`KIND_AGGREGATES`]) with the states
//! as bytes in an `_aggregates` column; the caller merges and finishes
//! them ([`finish_aggregates`](super::column_states::finish_aggregates)):
//! the command line's aggregates, bit for bit, for any aggregator.

use std::sync::{Arc, Mutex, PoisonError};

use arrow_array::builder::BinaryBuilder;
use arrow_array::builder::{Float64Builder, Int8Builder, Int64Builder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::Int8Type;
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use arrow_select::concat::concat_batches;
use arrow_select::filter::filter_record_batch;
use rankeval_core::corpus::StateWireError;
use rankeval_core::doc_groups::DocumentGroups;
use rankeval_core::subtopics::SubtopicQrels;
use rankeval_core::{
    AggregateStateError, Aggregator, CorpusInputs, CorpusMetric, CorpusState, DocumentContext,
    LabelPropensities, Metric, Qrels, QrelsBuilder, Requirement, Run, RunBuilder, SampledRun,
    SampledRunBuilder, WholeQrels,
};

use super::column_states::ColumnStates;
use super::qrels_facts::{QrelsFacts, QrelsFactsError};
use super::{Options, corpus_states, evaluate};
use crate::read::{
    CsvOptions, ReadError, ReadErrorKind, ReadOptions, qrels_from_batches, run_from_batches,
};

/// The `side` of a judgement row.
pub const SIDE_QRELS: i8 = 0;
/// The `side` of a run's ranked row.
pub const SIDE_RUN: i8 = 1;

/// The input columns, by name: `side` (Int8), `run` (string, the run's
/// name; null on judgement rows), `query` and `doc` (string), `score`
/// (Float64, null on judgement rows) and `grade` (Float64, null on run
/// rows).
pub const INPUT_COLUMNS: [&str; 6] = ["side", "run", "query", "doc", "score", "grade"];

/// The column of an output row's kind: [`KIND_VALUES`] or [`KIND_COUNTS`].
pub const KIND_COLUMN: &str = "_kind";
/// An output row of one query's values on one run.
pub const KIND_VALUES: i8 = 0;
/// An output row of counts for one run over one chunk (no query, no values).
pub const KIND_COUNTS: i8 = 1;
/// An output row of one run's corpus states over the whole stream, in the
/// [`CORPUS_COLUMN`] (only with corpus metrics).
pub const KIND_CORPUS: i8 = 2;
/// The binary column of a [`KIND_CORPUS`] row: each corpus metric's state
/// ([`encode_corpus_states`]); null on other rows.
pub const CORPUS_COLUMN: &str = "_corpus";
/// An output row of one run's aggregator states over the whole stream, in
/// the [`AGGREGATES_COLUMN`] (only with aggregators).
pub const KIND_AGGREGATES: i8 = 3;
/// The binary column of a [`KIND_AGGREGATES`] row: the run's states
/// ([`ColumnStates::take`]); null on other rows.
pub const AGGREGATES_COLUMN: &str = "_aggregates";
/// The count columns of a [`KIND_COUNTS`] row (null on value rows), in
/// order: queries evaluated, evaluated with a non-empty list, judged but
/// absent from the run and left out, judged but absent and scored 0, in
/// the run without judgements, run rows dropped as repeats.
pub const COUNT_COLUMNS: [&str; 6] = [
    "_evaluated",
    "_ranked",
    "_missing_skipped",
    "_missing_zero",
    "_run_only",
    "_duplicates_dropped",
];

/// Rows gathered before a chunk is evaluated (at the next query boundary).
pub const DEFAULT_CHUNK_ROWS: usize = 1 << 18;

/// Why a sided stream could not be evaluated.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SidedError {
    /// A column is absent or of another type than expected.
    #[error("column `{column}`: {problem}")]
    Column {
        /// The column's name.
        column: &'static str,
        /// What is wrong with it.
        problem: String,
    },
    /// A metric needs more than a chunk's judgements and runs
    /// (`Metric::requires`) that the evaluator was not given (subtopic
    /// judgements, document groups, group targets, label propensities,
    /// and the facts of the whole qrels gathered by a first pass:
    /// [`SidedEvaluator::with_context`], [`carried`]).
    #[error("{metric} reads {what}, which {why}")]
    Requires {
        /// The metric.
        metric: String,
        /// What it reads.
        what: &'static str,
        /// Why the evaluator cannot give it.
        why: &'static str,
    },
    /// A row has a `side` other than 0 (qrels) or 1 (run).
    #[error("row with side = {0}: expected 0 (judgement) or 1 (run)")]
    Side(i8),
    /// A run row names a run that was not declared.
    #[error("a row of run `{0}`, which is not one of the runs declared")]
    UnknownRun(String),
    /// The judgements or a run of a chunk could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A problem in one row of the judgements or of a run, located by the
    /// row's query and column: rows reach a Spark task in no fixed order,
    /// so a row number would count the rows of one chunk of one task and
    /// tell the user nothing.
    #[error("{input}, query `{query}`, column `{column}`: {problem}")]
    Row {
        /// `the judgements` or `run `NAME``.
        input: String,
        /// The query of the row.
        query: String,
        /// The column.
        column: String,
        /// What is wrong, without row numbers.
        problem: String,
    },
    /// A sampled run's rankings could not be finished (a document twice
    /// in one sample): the problem names the query and the sample.
    #[error("{input}: {problem}")]
    Sampled {
        /// `run `NAME``.
        input: String,
        /// What is wrong, without positions.
        problem: String,
    },
    /// An empty run or qrels could not be built (never expected).
    #[error("building an empty run or qrels: {0}")]
    Empty(String),
    /// Arrow could not concatenate or filter the batches.
    #[error("arrow: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    /// A corpus metric whose state cannot be sent as bytes.
    #[error(
        "corpus metric `{0}` keeps a state with no wire format, so it cannot be merged across machines"
    )]
    NoWireFormat(String),
    /// Bytes that are not the corpus states of the metrics given.
    #[error("corpus states: {0}")]
    Wire(String),
    /// Bytes that are not the aggregator states of the metrics and
    /// aggregators given, or states that do not finish.
    #[error("aggregator states: {0}")]
    AggregateStates(String),
    /// Bytes that are not the facts of the whole qrels, or parts of them
    /// that do not merge.
    #[error(transparent)]
    QrelsFacts(#[from] QrelsFactsError),
}

impl From<AggregateStateError> for SidedError {
    fn from(e: AggregateStateError) -> Self {
        SidedError::AggregateStates(e.to_string())
    }
}

impl From<StateWireError> for SidedError {
    fn from(e: StateWireError) -> Self {
        SidedError::Wire(e.to_string())
    }
}

/// Evaluates a sided stream chunk by chunk: [`push`](Self::push) each batch
/// in order, then [`finish`](Self::finish).
pub struct SidedEvaluator {
    metrics: Vec<Box<dyn Metric>>,
    options: Options,
    read: ReadOptions,
    runs: Vec<String>,
    chunk_rows: usize,
    pending: Vec<RecordBatch>,
    pending_rows: usize,
    output: SchemaRef,
    corpus: Corpus,
    /// Each run's aggregator states, with aggregators.
    aggregates: Option<ColumnStates>,
    /// The user's names of the `query`, `doc`, `score` and `grade` columns
    /// (a DataFrame's `user`, `item`...), for messages.
    shown: [String; 4],
    /// The subtopic judgements and document groups attached to each
    /// chunk's qrels, as the command line attaches them to its qrels.
    context: Context,
    /// Whether the runs are sampled rankings ([`SAMPLE_COLUMN`]).
    sampled: bool,
}

/// The column naming a run row's sample (a string; null on judgement
/// rows), read with [`SidedEvaluator::with_samples`]: each query's
/// samples, all in one chunk (the stream is cut at query boundaries),
/// scored together as `rankeval eval --samples` scores them.
pub const SAMPLE_COLUMN: &str = "sample";

/// What the evaluator attaches to each chunk's qrels for the metrics that
/// require it (`Metric::requires`): inputs of documents or of queries
/// whole, read once by the caller (every task reads the same file).
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// The subtopic judgements (`Qrels::with_subtopics`): each query's own,
    /// looked up by its id, so a chunk's queries read exactly what they
    /// read in the whole qrels.
    pub subtopics: Option<Arc<SubtopicQrels>>,
    /// The document groups (`Qrels::with_doc_groups`): a table of
    /// documents, the same whole table in every chunk, with the per-query
    /// group targets when a metric reads them (`DocumentGroups::with_targets`).
    pub doc_groups: Option<Arc<DocumentGroups>>,
    /// The file of the group targets, when given: every chunk's judged
    /// queries must have a target, as every judged query must on the
    /// command line (`CorpusSources::check_targets_cover`, which names it).
    pub group_targets: Option<std::path::PathBuf>,
    /// The label propensities (the propensity-scored metrics), with the
    /// file they were read from (named when a judged label has no given
    /// inverse propensity).
    pub propensities: Option<(std::path::PathBuf, Arc<LabelPropensities>)>,
    /// What the whole qrels give each chunk: the normalisers and the
    /// documents judged for any query, gathered by a first pass over every
    /// partition's judgements ([`SidedEvaluator::qrels_facts`], merged,
    /// [`QrelsFacts::whole`]). Each chunk's per-document facts are built
    /// over its own qrels (the judge looks a query's judgements up by its
    /// number in the chunk's qrels) with these in place of what the chunk
    /// alone would give (`DocumentContext::build_part`).
    pub whole: WholeQrels,
}

/// Why a stream of chunks cannot give a metric `requirement` with
/// `context`, or `Ok` when it can. PSP's and PSnDCG's normaliser is a mean
/// over every query of the qrels, and the documents judged anywhere
/// (Hole@k) a set over every query: a chunk holds some queries only, so
/// both come from the first pass over the qrels (`context.whole`), never
/// from the chunk, which would give a different number silently.
pub fn carried(requirement: Requirement, context: &Context) -> Result<(), &'static str> {
    carriable(requirement)?;
    let gathered = "were not gathered over every query of the qrels (the first pass over the \
                    judgements, `SidedEvaluator::qrels_facts`)";
    match requirement {
        Requirement::Subtopics if context.subtopics.is_none() => {
            Err("were not given to the Spark evaluator (subtopic_qrels=PATH)")
        }
        Requirement::DocumentGroups if context.doc_groups.is_none() => {
            Err("were not given to the Spark evaluator (doc_groups=PATH)")
        }
        Requirement::GroupTargets
            if !context
                .doc_groups
                .as_ref()
                .is_some_and(|groups| groups.has_targets()) =>
        {
            Err("were not given to the Spark evaluator (group_targets=PATH with doc_groups=PATH)")
        }
        Requirement::Propensities if context.propensities.is_none() => Err(
            "were not given to the Spark evaluator (label_counts=PATH with train_instances=N, or \
             inverse_propensities=PATH)",
        ),
        Requirement::Propensities if context.whole.normalisers.is_none() => Err(gathered),
        Requirement::JudgedAnywhere if context.whole.judged_anywhere.is_none() => Err(gathered),
        _ => Ok(()),
    }
}

/// Why a stream of chunks can never give a metric `requirement`, whatever
/// it is given (see [`carried`]), or `Ok` when a [`Context`] can carry
/// it: checked before the inputs are asked for, so that a metric Spark
/// cannot evaluate is not told to give an input it cannot use.
pub fn carriable(requirement: Requirement) -> Result<(), &'static str> {
    match requirement {
        Requirement::Subtopics
        | Requirement::DocumentGroups
        | Requirement::GroupTargets
        | Requirement::Propensities
        | Requirement::JudgedAnywhere => Ok(()),
        _ => Err(
            "the Spark evaluator cannot give it: it is read over every query of the qrels, and a \
             Spark task sees only its partition's queries; evaluate it with `rankeval eval` or \
             `rankeval_rs.evaluate`",
        ),
    }
}

/// The layout's own column names, which [`SidedEvaluator::with_column_names`]
/// maps to the user's in messages.
const LAYOUT_COLUMNS: [&str; 4] = ["query", "doc", "score", "grade"];

/// The corpus metrics of a sided evaluation and each run's states.
#[derive(Default)]
struct Corpus {
    metrics: Vec<Box<dyn CorpusMetric>>,
    inputs: Arc<CorpusInputs>,
    /// Per run (in the evaluator's order), each metric's state (behind a
    /// lock so that the evaluator is `Sync`, as a Python class must be).
    states: Mutex<Vec<Vec<CorpusState>>>,
}

impl SidedEvaluator {
    /// An evaluator of `runs` (every run name the stream may hold, in the
    /// order of the output) with `metrics`, `options` and `read` as the
    /// command line takes them; chunks of at least `chunk_rows` rows.
    pub fn new(
        metrics: Vec<Box<dyn Metric>>,
        options: Options,
        read: ReadOptions,
        runs: Vec<String>,
        chunk_rows: usize,
    ) -> Self {
        let output = output_schema(&metrics.iter().map(|m| m.name()).collect::<Vec<_>>());
        Self {
            metrics,
            options,
            read,
            runs,
            chunk_rows: chunk_rows.max(1),
            pending: Vec::new(),
            pending_rows: 0,
            output,
            corpus: Corpus::default(),
            aggregates: None,
            shown: LAYOUT_COLUMNS.map(str::to_owned),
            context: Context::default(),
            sampled: false,
        }
    }

    /// With runs of sampled rankings: the [`SAMPLE_COLUMN`] names each run
    /// row's sample, and each query's samples are scored together
    /// ([`evaluate_sampled`](super::evaluate_sampled), the command line's
    /// `--samples`). A query's samples are taken in byte order of their
    /// ids (rows reach a task in no fixed order); the command line takes
    /// them in the order of the file, which gives the same bits when the
    /// file lists each query's samples in that order. Corpus metrics are
    /// not evaluated with it (the caller refuses them, as the command line
    /// does).
    pub fn with_samples(mut self) -> Self {
        self.sampled = true;
        self
    }

    /// With `context` attached to every chunk's qrels: the subtopic
    /// judgements and document groups the metrics that require them read.
    pub fn with_context(mut self, context: Context) -> Self {
        self.context = context;
        self
    }

    /// Refuses a metric that requires an input the evaluator does not
    /// carry ([`carried`]): checked before the first batch, so that a
    /// caller (Spark's driver) can refuse it before any job.
    pub fn check_requirements(&self) -> Result<(), SidedError> {
        for metric in &self.metrics {
            for &requirement in metric.requires() {
                if let Err(why) = carried(requirement, &self.context) {
                    return Err(SidedError::Requires {
                        metric: metric.name(),
                        what: requirement.what(),
                        why,
                    });
                }
            }
        }
        Ok(())
    }

    /// With the names the user knows the `query`, `doc`, `score` and
    /// `grade` columns by (a Spark DataFrame's own columns), so that an
    /// error names `user`, not the layout's `query`.
    pub fn with_column_names(mut self, query: &str, doc: &str, score: &str, grade: &str) -> Self {
        self.shown = [query, doc, score, grade].map(str::to_owned);
        self
    }

    /// The user's name of the layout's column `column`.
    fn shown(&self, column: String) -> String {
        match LAYOUT_COLUMNS.iter().position(|c| *c == column) {
            Some(i) => self.shown[i].clone(),
            None => column,
        }
    }

    /// With corpus metrics read on `inputs`: each run's lists update their
    /// states, which the end of the stream gives as bytes. Refused for a
    /// metric whose state has no wire format.
    pub fn with_corpus(
        mut self,
        metrics: Vec<Box<dyn CorpusMetric>>,
        inputs: Arc<CorpusInputs>,
    ) -> Result<Self, SidedError> {
        for metric in &metrics {
            if metric.state_to_bytes(&metric.init()).is_none() {
                return Err(SidedError::NoWireFormat(metric.name()));
            }
        }
        self.corpus = Corpus {
            states: Mutex::new(
                self.runs
                    .iter()
                    .map(|_| metrics.iter().map(|m| m.init()).collect())
                    .collect(),
            ),
            metrics,
            inputs,
        };
        self.output = self.output_schema();
        Ok(self)
    }

    /// With `aggregators`: each query's values update each run's states of
    /// every (metric, aggregator), which the end of the stream gives as
    /// bytes.
    pub fn with_aggregators(mut self, aggregators: Vec<Box<dyn Aggregator>>) -> Self {
        self.aggregates = (!aggregators.is_empty()).then(|| {
            let names = self.metrics.iter().map(|m| m.name()).collect();
            ColumnStates::new(names, aggregators, self.runs.clone())
        });
        self.output = self.output_schema();
        self
    }

    /// The output schema for this evaluator's metrics, corpus metrics and
    /// aggregators.
    fn output_schema(&self) -> SchemaRef {
        let names: Vec<String> = self.metrics.iter().map(|m| m.name()).collect();
        schema_with(
            &names,
            !self.corpus.metrics.is_empty(),
            self.aggregates.is_some(),
        )
    }

    /// The schema of the output batches.
    pub fn schema(&self) -> SchemaRef {
        self.output.clone()
    }

    /// Takes the next batch of the stream; the results of the queries that
    /// are complete, once enough rows have gathered.
    pub fn push(&mut self, batch: RecordBatch) -> Result<Option<RecordBatch>, SidedError> {
        self.check_requirements()?;
        check_input(&batch)?;
        if self.sampled {
            let fits = batch.column_by_name(SAMPLE_COLUMN).map(|c| {
                matches!(
                    c.data_type(),
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
                )
            });
            if fits != Some(true) {
                return Err(SidedError::Column {
                    column: SAMPLE_COLUMN,
                    problem: "absent or not a string (a sampled run's rows name their sample)"
                        .to_owned(),
                });
            }
        }
        let rows = batch.num_rows();
        if rows == 0 {
            return Ok(None);
        }
        self.pending_rows += rows;
        if self.pending_rows < self.chunk_rows {
            self.pending.push(batch);
            return Ok(None);
        }
        // The last query of this batch may go on in the next one: hold its
        // rows back.
        let last = last_query_start(&batch);
        if last == 0 {
            // One query's rows fill the batch (a long list): keep gathering.
            self.pending.push(batch);
            return Ok(None);
        }
        self.pending.push(batch.slice(0, last));
        let held = batch.slice(last, rows - last);
        let chunk = std::mem::take(&mut self.pending);
        self.pending_rows = held.num_rows();
        self.pending.push(held);
        self.evaluate_chunk(&chunk).map(Some)
    }

    /// The results of the rows still held: the end of the stream (and,
    /// with corpus metrics, each run's states).
    pub fn finish(&mut self) -> Result<Option<RecordBatch>, SidedError> {
        let chunk = std::mem::take(&mut self.pending);
        self.pending_rows = 0;
        let last = if chunk.iter().all(|b| b.num_rows() == 0) {
            None
        } else {
            Some(self.evaluate_chunk(&chunk)?)
        };
        if self.corpus.metrics.is_empty() && self.aggregates.is_none() {
            return Ok(last);
        }
        let mut out = self.builder();
        if !self.corpus.metrics.is_empty() {
            let all = self
                .corpus
                .states
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner);
            for (run, states) in self.runs.iter().zip(all.iter_mut()) {
                let done = std::mem::replace(
                    states,
                    self.corpus.metrics.iter().map(|m| m.init()).collect(),
                );
                out.corpus(run, &encode_corpus_states(&self.corpus.metrics, &done)?);
            }
        }
        if let Some(aggregates) = &mut self.aggregates {
            for (run, message) in aggregates.take() {
                out.aggregates(&run, &message);
            }
        }
        let states = out.finish(self.output.clone())?;
        Ok(Some(match last {
            Some(last) => concat_batches(&self.output, &[last, states])?,
            None => states,
        }))
    }

    /// A builder of output rows of this evaluator's schema.
    fn builder(&self) -> OutputBuilder {
        OutputBuilder::new(
            self.metrics.len(),
            !self.corpus.metrics.is_empty(),
            self.aggregates.is_some(),
        )
    }

    /// Run `name`'s sampled rankings in `rows` (one chunk's rows of the
    /// run): pushed in byte order of (query, sample), so that each query's
    /// samples come in the same order whatever order the rows arrived in,
    /// each id checked as the readers check it; a bad row is named by the
    /// run, its query and the column.
    fn sampled_run(&self, name: &str, rows: &RecordBatch) -> Result<SampledRun, SidedError> {
        let input = format!("run `{name}`");
        let strings = |column: &'static str| -> Result<Vec<Option<String>>, SidedError> {
            let array = rows.column_by_name(column).ok_or_else(|| missing(column))?;
            string_values(array, column)
        };
        let (query, sample, doc) = (strings("query")?, strings(SAMPLE_COLUMN)?, strings("doc")?);
        let score = rows
            .column_by_name("score")
            .ok_or_else(|| missing("score"))?
            .as_primitive::<arrow_array::types::Float64Type>()
            .clone();
        let bad = |query: &str, column: &str, problem: String| SidedError::Row {
            input: input.clone(),
            query: query.to_owned(),
            column: self.shown(column.to_owned()),
            problem,
        };
        let mut order: Vec<usize> = (0..rows.num_rows()).collect();
        order.sort_by(|&a, &b| (&query[a], &sample[a]).cmp(&(&query[b], &sample[b])));
        let mut builder = SampledRunBuilder::new();
        for (at, i) in order.into_iter().enumerate() {
            let null = || "the value is null".to_owned();
            let q = query[i]
                .as_deref()
                .ok_or_else(|| bad("?", "query", null()))?;
            let id = |column: &'static str, value: &Option<String>| match value.as_deref() {
                None => Err(bad(q, column, null())),
                Some(text) => rankeval_core::check_id(text.as_bytes())
                    .map(|()| text.to_owned())
                    .map_err(|e| bad(q, column, e.to_string())),
            };
            id("query", &query[i])?;
            let s = id(SAMPLE_COLUMN, &sample[i])?;
            let d = id("doc", &doc[i])?;
            if score.is_null(i) {
                return Err(bad(q, "score", null()));
            }
            builder
                .push(
                    q.as_bytes(),
                    s.as_bytes(),
                    d.as_bytes(),
                    score.value(i),
                    at as u64 + 1,
                )
                .map_err(|e| bad(q, run_error_column(&e), without_row_numbers(&e.to_string())))?;
        }
        builder
            .finish(self.read.duplicates, self.read.ties)
            .map_err(|e| SidedError::Sampled {
                input: input.clone(),
                problem: without_positions(&e.to_string()),
            })
    }

    /// `qrels` (a chunk's) with the per-document facts the metrics read:
    /// each query's judgements from the chunk, the normalisers and the
    /// documents judged anywhere from the whole qrels ([`Context::whole`]);
    /// `qrels` as they are when no metric reads any.
    fn with_documents(&self, qrels: Qrels) -> Result<Qrels, SidedError> {
        if !super::qrels_facts::needed(&self.metrics) {
            return Ok(qrels);
        }
        let mut requirements: Vec<Requirement> = Vec::new();
        for metric in &self.metrics {
            for &r in metric.requires() {
                if !requirements.contains(&r) {
                    requirements.push(r);
                }
            }
        }
        let table = self
            .context
            .propensities
            .as_ref()
            .map(|(_, t)| Arc::clone(t));
        let documents =
            DocumentContext::build_part(&qrels, &requirements, table, &self.context.whole)
                .map_err(|e| self.missing_propensity(&e))?;
        Ok(qrels.with_documents(Arc::new(documents)))
    }

    /// A judged label without a given inverse propensity, named by the
    /// propensities' file as the command line names it.
    fn missing_propensity(
        &self,
        missing: &rankeval_core::context::MissingPropensity,
    ) -> SidedError {
        SidedError::Read(ReadError {
            path: self
                .context
                .propensities
                .as_ref()
                .map_or_else(String::new, |(path, _)| path.display().to_string()),
            line: None,
            kind: ReadErrorKind::BadField(missing.to_string()),
        })
    }

    /// The first pass over the qrels: the facts of the whole qrels that
    /// the metrics read ([`QrelsFacts`]: the propensity normalisers' sums,
    /// the documents judged), over the judgement rows of `batches` (the
    /// sided layout; rows of runs are ignored), as bytes to merge with
    /// [`merge_qrels_facts`]. Every judgement of a query must be in the
    /// same call (a partition of the qrels repartitioned by query); the
    /// rows are read as a chunk's are, so the same checks apply.
    pub fn qrels_facts(&self, batches: &[RecordBatch]) -> Result<Vec<u8>, SidedError> {
        let mut judged = Vec::new();
        for batch in batches {
            check_input(batch)?;
            let side = batch
                .column_by_name("side")
                .map(|c| c.as_primitive::<Int8Type>().clone())
                .ok_or_else(|| missing("side"))?;
            let mine: BooleanArray = side.iter().map(|s| Some(s == Some(SIDE_QRELS))).collect();
            let rows = filter_record_batch(batch, &mine)?;
            if rows.num_rows() > 0 {
                judged.push(rows);
            }
        }
        let qrels = match judged.first() {
            None => empty_qrels()?,
            Some(first) => {
                let rows = concat_batches(&first.schema(), &judged)?;
                qrels_from_batches("qrels", std::slice::from_ref(&rows), &columns())
                    .map_err(|e| located(e, &rows, "the judgements", |c| self.shown(c)))?
            }
        };
        let table = self.context.propensities.as_ref().map(|(_, t)| t);
        let facts = QrelsFacts::of_part(&qrels, &self.metrics, self.options.level, table)
            .map_err(|e| self.missing_propensity(&e))?;
        Ok(facts.to_bytes())
    }

    /// Evaluates whole queries: the judgements and each run of `chunk`.
    fn evaluate_chunk(&mut self, chunk: &[RecordBatch]) -> Result<RecordBatch, SidedError> {
        let schema = chunk[0].schema();
        let all = concat_batches(&schema, chunk)?;
        let side = all
            .column_by_name("side")
            .map(|c| c.as_primitive::<Int8Type>().clone())
            .ok_or_else(|| missing("side"))?;
        if let Some(bad) = side
            .iter()
            .flatten()
            .find(|s| *s != SIDE_QRELS && *s != SIDE_RUN)
        {
            return Err(SidedError::Side(bad));
        }
        let judged: BooleanArray = side.iter().map(|s| Some(s == Some(SIDE_QRELS))).collect();
        let ranked: BooleanArray = side.iter().map(|s| Some(s == Some(SIDE_RUN))).collect();
        let qrels_rows = filter_record_batch(&all, &judged)?;
        let run_rows = filter_record_batch(&all, &ranked)?;
        let mut qrels = if qrels_rows.num_rows() == 0 {
            empty_qrels()?
        } else {
            qrels_from_batches("qrels", std::slice::from_ref(&qrels_rows), &columns())
                .map_err(|e| located(e, &qrels_rows, "the judgements", |c| self.shown(c)))?
        };
        // As the command line attaches them to its qrels (`experiment`).
        if let Some(subtopics) = &self.context.subtopics {
            qrels = qrels.with_subtopics(Arc::clone(subtopics));
        }
        if let Some(groups) = &self.context.doc_groups {
            if let Some(path) = &self.context.group_targets {
                // Every judged query needs its target, as on the command
                // line (the count it gives is the chunk's).
                crate::corpus::CorpusSources {
                    group_targets: Some(path.clone()),
                    ..Default::default()
                }
                .check_targets_cover(&qrels, groups, &self.metrics)?;
            }
            qrels = qrels.with_doc_groups(Arc::clone(groups));
        }
        let qrels = self.with_documents(qrels)?;
        let run_names = run_rows
            .column_by_name("run")
            .ok_or_else(|| missing("run"))?
            .clone();
        let run_names = string_values(&run_names, "run")?;
        if let Some(unknown) = run_names
            .iter()
            .flatten()
            .find(|name| !self.runs.iter().any(|r| r == *name))
        {
            return Err(SidedError::UnknownRun(unknown.clone()));
        }
        let mut out = self.builder();
        for (r, name) in self.runs.iter().enumerate() {
            let mine: BooleanArray = run_names
                .iter()
                .map(|r| Some(r.as_deref() == Some(name.as_str())))
                .collect();
            let rows = filter_record_batch(&run_rows, &mine)?;
            if self.sampled {
                let sampled = self.sampled_run(name, &rows)?;
                let evaluation =
                    super::evaluate_sampled(&qrels, &sampled, &self.metrics, &self.options);
                values_and_counts(&mut out, &mut self.aggregates, r, name, &evaluation);
                continue;
            }
            // The run's own columns only: `side`, `run` and `grade` are the
            // layout's, not columns of the run a repeat could be told by.
            let rows = run_columns_of(&rows)?;
            let run = if rows.num_rows() == 0 {
                empty_run()?
            } else {
                run_from_batches(name, std::slice::from_ref(&rows), &columns(), self.read)
                    .map_err(|e| located(e, &rows, &format!("run `{name}`"), |c| self.shown(c)))?
            };
            if !self.corpus.metrics.is_empty() {
                let part = corpus_states(
                    &self.options.counted(&run).0,
                    &self.corpus.metrics,
                    &self.corpus.inputs,
                    self.options.score_threshold,
                );
                let all = self
                    .corpus
                    .states
                    .get_mut()
                    .unwrap_or_else(PoisonError::into_inner);
                for ((metric, state), other) in
                    self.corpus.metrics.iter().zip(&mut all[r]).zip(part)
                {
                    metric.merge(state, other);
                }
            }
            let evaluation = evaluate(&qrels, &run, &self.metrics, &self.options);
            values_and_counts(&mut out, &mut self.aggregates, r, name, &evaluation);
        }
        out.finish(self.output.clone())
    }
}

/// The facts of the whole qrels from every partition's
/// [`SidedEvaluator::qrels_facts`] bytes, merged (in any order: the same
/// bits), as bytes that every task decodes with [`whole_qrels`].
pub fn merge_qrels_facts(parts: &[&[u8]]) -> Result<Vec<u8>, SidedError> {
    let mut merged: Option<QrelsFacts> = None;
    for part in parts {
        let facts = QrelsFacts::from_bytes(part)?;
        match &mut merged {
            None => merged = Some(facts),
            Some(all) => all.merge(facts)?,
        }
    }
    Ok(merged.unwrap_or_default().to_bytes())
}

/// What [`merge_qrels_facts`]'s bytes give each chunk
/// ([`Context::whole`]).
pub fn whole_qrels(bytes: &[u8]) -> Result<WholeQrels, SidedError> {
    Ok(QrelsFacts::from_bytes(bytes)?.whole())
}

/// The output schema for metrics named `metrics`.
pub fn output_schema(metrics: &[String]) -> SchemaRef {
    let mut fields = vec![
        Field::new("query", DataType::Utf8, true),
        Field::new("run", DataType::Utf8, false),
    ];
    fields.extend(
        metrics
            .iter()
            .map(|m| Field::new(m, DataType::Float64, true)),
    );
    fields.push(Field::new(KIND_COLUMN, DataType::Int8, false));
    fields.extend(
        COUNT_COLUMNS
            .iter()
            .map(|c| Field::new(*c, DataType::Int64, true)),
    );
    Arc::new(Schema::new(fields))
}

/// [`output_schema`] with the [`CORPUS_COLUMN`] last.
pub fn schema_with_corpus(metrics: &[String]) -> SchemaRef {
    schema_with(metrics, true, false)
}

/// [`output_schema`], then the [`CORPUS_COLUMN`] with `corpus`, then the
/// [`AGGREGATES_COLUMN`] with `aggregates`.
pub fn schema_with(metrics: &[String], corpus: bool, aggregates: bool) -> SchemaRef {
    let mut fields: Vec<Field> = output_schema(metrics)
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    if corpus {
        fields.push(Field::new(CORPUS_COLUMN, DataType::Binary, true));
    }
    if aggregates {
        fields.push(Field::new(AGGREGATES_COLUMN, DataType::Binary, true));
    }
    Arc::new(Schema::new(fields))
}

/// One run's corpus states as bytes: their number (`u32`), then each
/// metric's state ([`CorpusMetric::state_to_bytes`]) as its length (`u64`)
/// and bytes, in the metrics' order.
pub fn encode_corpus_states(
    metrics: &[Box<dyn CorpusMetric>],
    states: &[CorpusState],
) -> Result<Vec<u8>, SidedError> {
    let mut out = (states.len() as u32).to_le_bytes().to_vec();
    for (metric, state) in metrics.iter().zip(states) {
        let bytes = metric
            .state_to_bytes(state)
            .ok_or_else(|| SidedError::NoWireFormat(metric.name()))?;
        out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(&bytes);
    }
    Ok(out)
}

/// The corpus metrics' values over every stream: each element of `parts`
/// one stream's [`encode_corpus_states`] bytes for one run, merged (in any
/// order: the states merge to the same bits) and finished on `inputs`.
pub fn finish_corpus(
    metrics: &[Box<dyn CorpusMetric>],
    parts: &[&[u8]],
    inputs: &CorpusInputs,
) -> Result<Vec<f64>, SidedError> {
    let mut merged: Vec<CorpusState> = metrics.iter().map(|m| m.init()).collect();
    for part in parts {
        let bad = |what: &str| SidedError::Wire(what.to_owned());
        let count = part
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| bad("a part ends before its count of states"))?;
        if count as usize != metrics.len() {
            return Err(SidedError::Wire(format!(
                "a part holds {count} states for {} corpus metrics",
                metrics.len()
            )));
        }
        let mut at = 4;
        for (metric, state) in metrics.iter().zip(&mut merged) {
            let len = part
                .get(at..at + 8)
                .and_then(|b| b.try_into().ok())
                .map(u64::from_le_bytes)
                .ok_or_else(|| bad("a part ends before a state's length"))?;
            let end = usize::try_from(len)
                .ok()
                .and_then(|len| at.checked_add(8 + len))
                .filter(|&end| end <= part.len())
                .ok_or_else(|| bad("a part ends inside a state"))?;
            metric.merge(state, metric.state_from_bytes(&part[at + 8..end])?);
            at = end;
        }
        if at != part.len() {
            return Err(bad("bytes after a part's states"));
        }
    }
    Ok(metrics
        .iter()
        .zip(merged)
        .map(|(metric, state)| metric.finish(state, inputs))
        .collect())
}

/// The readers' column names for the sided layout.
fn columns() -> CsvOptions {
    CsvOptions {
        query: "query".to_owned(),
        doc: "doc".to_owned(),
        score: "score".to_owned(),
        grade: "grade".to_owned(),
        ..CsvOptions::default()
    }
}

/// The rows' query, document and score columns (what a run is read from).
fn run_columns_of(rows: &RecordBatch) -> Result<RecordBatch, SidedError> {
    let schema = rows.schema();
    let read: Vec<usize> = ["query", "doc", "score"]
        .iter()
        .filter_map(|name| schema.index_of(name).ok())
        .collect();
    Ok(rows.project(&read)?)
}

/// Qrels without a judgement, for a chunk of run rows only.
fn empty_qrels() -> Result<Qrels, SidedError> {
    QrelsBuilder::new()
        .finish()
        .map_err(|e| SidedError::Empty(e.to_string()))
}

/// A run without a row, for a run absent from a chunk.
fn empty_run() -> Result<Run, SidedError> {
    RunBuilder::new()
        .finish(rankeval_core::Duplicates::Error)
        .map_err(|e| SidedError::Empty(e.to_string()))
}

fn missing(column: &'static str) -> SidedError {
    SidedError::Column {
        column,
        problem: "absent".to_owned(),
    }
}

/// Checks the columns the evaluator reads and their types.
fn check_input(batch: &RecordBatch) -> Result<(), SidedError> {
    for column in INPUT_COLUMNS {
        let Some(array) = batch.column_by_name(column) else {
            return Err(missing(column));
        };
        let fits = match column {
            "side" => *array.data_type() == DataType::Int8,
            "score" | "grade" => *array.data_type() == DataType::Float64,
            _ => matches!(
                array.data_type(),
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
            ),
        };
        if !fits {
            let expected = match column {
                "side" => "int8",
                "score" | "grade" => "float64",
                _ => "a string",
            };
            return Err(SidedError::Column {
                column,
                problem: format!("{} where {expected} is expected", array.data_type()),
            });
        }
    }
    Ok(())
}

/// The values of a string column (any of Arrow's three string types).
fn string_values(
    array: &ArrayRef,
    column: &'static str,
) -> Result<Vec<Option<String>>, SidedError> {
    let own = |s: Option<&str>| s.map(str::to_owned);
    Ok(match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().iter().map(own).collect(),
        DataType::LargeUtf8 => array.as_string::<i64>().iter().map(own).collect(),
        DataType::Utf8View => array.as_string_view().iter().map(own).collect(),
        other => {
            return Err(SidedError::Column {
                column,
                problem: format!("{other} where a string is expected"),
            });
        }
    })
}

/// A read error of `rows` (the judgements or one run's rows of a chunk),
/// named `input`: a problem at a row becomes [`SidedError::Row`], located
/// by the row's query instead of its number within the chunk, and the
/// command line's advice on repeated documents becomes the Python
/// keyword's; the column is named as the user knows it (`shown`).
fn located(
    error: ReadError,
    rows: &RecordBatch,
    input: &str,
    shown: impl Fn(String) -> String,
) -> SidedError {
    let ReadError { path, line, kind } = error;
    match kind {
        ReadErrorKind::AtRow {
            row,
            column,
            problem,
        } => {
            let query = usize::try_from(row)
                .ok()
                .and_then(|row| row.checked_sub(1))
                .filter(|&index| index < rows.num_rows())
                .and_then(|index| {
                    let ids = rows.column_by_name("query")?.slice(index, 1);
                    string_values(&ids, "query").ok()?.pop().flatten()
                })
                .unwrap_or_else(|| "?".to_owned());
            SidedError::Row {
                input: input.to_owned(),
                query,
                column: shown(column),
                problem: without_row_numbers(&problem).replace(
                    "to keep the first occurrence, use --duplicates first \
                     (TOML: duplicates = \"first\")",
                    "to keep its best-scored occurrence, pass duplicates=\"first\"",
                ),
            }
        }
        kind => SidedError::Read(ReadError { path, line, kind }),
    }
}

/// `problem` without the row numbers the table reader puts in it (` on row
/// 3`, ` (first on row 3)`), which count rows of one chunk of a Spark task.
fn without_row_numbers(problem: &str) -> String {
    let mut out = problem.to_owned();
    for (start, end) in [(" (first on row ", ")"), (" on row ", "")] {
        while let Some(at) = out.find(start) {
            let digits = out[at + start.len()..]
                .bytes()
                .take_while(u8::is_ascii_digit)
                .count();
            if digits == 0 {
                break;
            }
            let mut stop = at + start.len() + digits;
            if out[stop..].starts_with(end) {
                stop += end.len();
            }
            out.replace_range(at..stop, "");
        }
    }
    out
}

/// The rows of run `name` (the `r`th) of one chunk's evaluation: each
/// query's values (updating the aggregator states) and the counts.
fn values_and_counts(
    out: &mut OutputBuilder,
    aggregates: &mut Option<ColumnStates>,
    r: usize,
    name: &str,
    evaluation: &super::Evaluation,
) {
    let width = evaluation.metrics().len();
    for (q, query) in evaluation.queries().iter().enumerate() {
        let values = (0..width).map(|m| evaluation.value(q, m));
        out.values(query, name, values.clone());
        if let Some(aggregates) = aggregates {
            aggregates.update(r, query, values);
        }
    }
    let c = evaluation.coverage();
    out.counts(
        name,
        [
            c.evaluated,
            c.ranked,
            c.missing_skipped.count,
            c.missing_scored_zero.count,
            c.run_only.len(),
            c.duplicates_dropped,
        ],
    );
}

/// The column a run builder's error is about: the score's, or the
/// document's.
fn run_error_column(error: &rankeval_core::RunError) -> &'static str {
    match error {
        rankeval_core::RunError::NanScore { .. } => "score",
        _ => "doc",
    }
}

/// `problem` without the positions ` (at 3 and 7)` of a repeated
/// document, which count rows of one chunk of a Spark task.
fn without_positions(problem: &str) -> String {
    match problem.find(" (at ") {
        Some(at) if problem.ends_with(')') => problem[..at].to_owned(),
        _ => problem.to_owned(),
    }
}

/// The row where the batch's last query starts (0 if it fills the batch).
fn last_query_start(batch: &RecordBatch) -> usize {
    let Some(query) = batch.column_by_name("query") else {
        return 0;
    };
    let rows = batch.num_rows();
    let at = |i: usize| -> Option<&[u8]> {
        if query.is_null(i) {
            return None;
        }
        Some(match query.data_type() {
            DataType::LargeUtf8 => query.as_string::<i64>().value(i).as_bytes(),
            DataType::Utf8View => query.as_string_view().value(i).as_bytes(),
            _ => query.as_string::<i32>().value(i).as_bytes(),
        })
    };
    let last = at(rows - 1);
    let mut start = rows - 1;
    while start > 0 && at(start - 1) == last {
        start -= 1;
    }
    start
}

/// The output rows being built.
struct OutputBuilder {
    query: StringBuilder,
    run: StringBuilder,
    values: Vec<Float64Builder>,
    kind: Int8Builder,
    counts: Vec<Int64Builder>,
    /// The corpus states' column, when there are corpus metrics.
    corpus: Option<BinaryBuilder>,
    /// The aggregator states' column, when there are aggregators.
    aggregates: Option<BinaryBuilder>,
}

impl OutputBuilder {
    fn new(metrics: usize, corpus: bool, aggregates: bool) -> Self {
        Self {
            query: StringBuilder::new(),
            run: StringBuilder::new(),
            values: (0..metrics).map(|_| Float64Builder::new()).collect(),
            kind: Int8Builder::new(),
            counts: (0..COUNT_COLUMNS.len())
                .map(|_| Int64Builder::new())
                .collect(),
            corpus: corpus.then(BinaryBuilder::new),
            aggregates: aggregates.then(BinaryBuilder::new),
        }
    }

    /// A row of one run's aggregator states.
    fn aggregates(&mut self, run: &str, states: &[u8]) {
        self.state_row(run, KIND_AGGREGATES);
        if let Some(column) = &mut self.corpus {
            column.append_null();
        }
        if let Some(column) = &mut self.aggregates {
            column.append_value(states);
        }
    }

    /// A row of one run's corpus states.
    fn corpus(&mut self, run: &str, states: &[u8]) {
        self.state_row(run, KIND_CORPUS);
        if let Some(column) = &mut self.corpus {
            column.append_value(states);
        }
        if let Some(column) = &mut self.aggregates {
            column.append_null();
        }
    }

    /// The query, values and counts of a row of states: nulls.
    fn state_row(&mut self, run: &str, kind: i8) {
        self.query.append_null();
        self.run.append_value(run);
        for column in &mut self.values {
            column.append_null();
        }
        self.kind.append_value(kind);
        for column in &mut self.counts {
            column.append_null();
        }
    }

    /// No states on a row of values or counts.
    fn no_states(&mut self) {
        for column in [&mut self.corpus, &mut self.aggregates]
            .into_iter()
            .flatten()
        {
            column.append_null();
        }
    }

    fn values(&mut self, query: &str, run: &str, values: impl Iterator<Item = f64>) {
        self.query.append_value(query);
        self.run.append_value(run);
        for (column, value) in self.values.iter_mut().zip(values) {
            column.append_value(value);
        }
        self.kind.append_value(KIND_VALUES);
        for column in &mut self.counts {
            column.append_null();
        }
        self.no_states();
    }

    fn counts(&mut self, run: &str, counts: [usize; 6]) {
        self.query.append_null();
        self.run.append_value(run);
        for column in &mut self.values {
            column.append_null();
        }
        self.kind.append_value(KIND_COUNTS);
        for (column, count) in self.counts.iter_mut().zip(counts) {
            column.append_value(count as i64);
        }
        self.no_states();
    }

    fn finish(mut self, schema: SchemaRef) -> Result<RecordBatch, SidedError> {
        let mut columns: Vec<ArrayRef> =
            vec![Arc::new(self.query.finish()), Arc::new(self.run.finish())];
        columns.extend(
            self.values
                .iter_mut()
                .map(|b| Arc::new(b.finish()) as ArrayRef),
        );
        columns.push(Arc::new(self.kind.finish()));
        columns.extend(
            self.counts
                .iter_mut()
                .map(|b| Arc::new(b.finish()) as ArrayRef),
        );
        for states in [&mut self.corpus, &mut self.aggregates]
            .into_iter()
            .flatten()
        {
            columns.push(Arc::new(states.finish()));
        }
        Ok(RecordBatch::try_new(schema, columns)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::types::Float64Type;
    use arrow_array::{Float64Array, Int8Array, StringArray};
    use rankeval_core::registry::parse_metric;

    /// A sided row: side, run, query, doc, score, grade.
    type Row<'a> = (
        i8,
        Option<&'a str>,
        &'a str,
        &'a str,
        Option<f64>,
        Option<f64>,
    );

    /// An [`OwnedRow`] with its sample.
    type SampledRow<'a> = (
        i8,
        Option<&'a str>,
        String,
        String,
        Option<f64>,
        Option<f64>,
        Option<String>,
    );

    /// A [`Row`] with owned ids, built before it is borrowed.
    type OwnedRow<'a> = (
        i8,
        Option<&'a str>,
        String,
        String,
        Option<f64>,
        Option<f64>,
    );

    /// The per-query values rows of `out` as `(query, bits of each of the
    /// `metrics` values)`.
    fn value_rows(out: &[RecordBatch], metrics: usize) -> Vec<(String, Vec<u64>)> {
        let mut rows = Vec::new();
        for b in out {
            let kind = b
                .column_by_name(KIND_COLUMN)
                .unwrap()
                .as_primitive::<Int8Type>();
            let query = b.column_by_name("query").unwrap().as_string::<i32>();
            for i in 0..b.num_rows() {
                if kind.value(i) != KIND_VALUES {
                    continue;
                }
                let values = (0..metrics).map(|m| {
                    b.column(2 + m)
                        .as_primitive::<Float64Type>()
                        .value(i)
                        .to_bits()
                });
                rows.push((query.value(i).to_owned(), values.collect()));
            }
        }
        rows
    }

    fn batch(rows: &[Row<'_>]) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("side", DataType::Int8, false),
            Field::new("run", DataType::Utf8, true),
            Field::new("query", DataType::Utf8, false),
            Field::new("doc", DataType::Utf8, false),
            Field::new("score", DataType::Float64, true),
            Field::new("grade", DataType::Float64, true),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(rows.iter().map(|r| r.0).collect::<Int8Array>()),
                Arc::new(rows.iter().map(|r| r.1).collect::<StringArray>()),
                Arc::new(rows.iter().map(|r| Some(r.2)).collect::<StringArray>()),
                Arc::new(rows.iter().map(|r| Some(r.3)).collect::<StringArray>()),
                Arc::new(rows.iter().map(|r| r.4).collect::<Float64Array>()),
                Arc::new(rows.iter().map(|r| r.5).collect::<Float64Array>()),
            ],
        )
        .unwrap()
    }

    /// A bad row is named by its input, query and column, never by a row
    /// number (which would count the rows of one chunk of one task); the
    /// advice on repeats names the Python keyword.
    #[test]
    fn a_bad_row_is_located_by_its_query_not_its_number() {
        let judged = (SIDE_QRELS, None, "a", "x", None, Some(1.0));
        let cases: [(Vec<Row<'_>>, &str); 5] = [
            (
                vec![
                    judged,
                    (SIDE_RUN, Some("r"), "a", "x", Some(1.0), None),
                    (SIDE_RUN, Some("r"), "b", "y", Some(f64::NAN), None),
                ],
                "run `r`, query `b`, column `score`: NaN is not a score that can be ordered",
            ),
            (
                vec![
                    judged,
                    (SIDE_QRELS, None, "b", "x", None, Some(1.0)),
                    (SIDE_QRELS, None, "b", "x", None, Some(2.0)),
                    (SIDE_RUN, Some("r"), "b", "y", Some(1.0), None),
                ],
                "the judgements, query `b`, column `doc`: document `x` of query `b` is judged 2 \
                 here but 1",
            ),
            (
                vec![
                    judged,
                    (SIDE_RUN, Some("r"), "a", "x", Some(1.0), None),
                    (SIDE_RUN, Some("r"), "a", "x", Some(2.0), None),
                ],
                "run `r`, query `a`, column `doc`: document `x` appears twice in the list of \
                 query `a`; to keep its best-scored occurrence, pass duplicates=\"first\"",
            ),
            (
                vec![
                    (SIDE_QRELS, None, "a", "x", None, Some(1.0)),
                    (SIDE_QRELS, None, "c", "x", None, None),
                    (SIDE_RUN, Some("r"), "a", "x", Some(1.0), None),
                ],
                "the judgements, query `c`, column `grade`: the value is null",
            ),
            (
                vec![judged, (SIDE_RUN, Some("r"), "a", "x", None, None)],
                "run `r`, query `a`, column `score`: the value is null",
            ),
        ];
        for (rows, want) in cases {
            let mut evaluator = SidedEvaluator::new(
                vec![parse_metric("ap").unwrap()],
                Options::default(),
                ReadOptions::default(),
                vec!["r".to_owned()],
                100,
            );
            let outcome = evaluator
                .push(batch(&rows))
                .and_then(|_| evaluator.finish());
            let message = outcome.err().map(|e| e.to_string());
            assert_eq!(message.as_deref(), Some(want));
        }
    }

    /// A metric that requires more than a chunk's judgements and runs
    /// (`Metric::requires`) is refused by what it reads, document groups
    /// as the others.
    #[test]
    fn a_metric_that_requires_more_than_a_chunk_is_refused() {
        let rows = [
            (SIDE_QRELS, None, "a", "x", None, Some(1.0)),
            (SIDE_RUN, Some("r"), "a", "x", Some(1.0), None),
        ];
        for (metric, what) in [
            ("awrf@10", "document groups"),
            ("psp@5", "label propensities"),
            ("alpha_ndcg@5", "subtopic judgements"),
        ] {
            let mut evaluator = SidedEvaluator::new(
                vec![parse_metric(metric).unwrap()],
                Options::default(),
                ReadOptions::default(),
                vec!["r".to_owned()],
                100,
            );
            let message = evaluator.push(batch(&rows)).err().map(|e| e.to_string());
            let message = message.unwrap_or_default();
            assert!(
                message.starts_with(&format!("{metric} reads {what}")),
                "{metric}: {message}"
            );
        }
    }

    /// The subtopic judgements and document groups attached to every
    /// chunk's qrels (`with_context`): the diversity and group-fairness
    /// metrics' per-query values over 1, 3 and 7 streams in chunks of any
    /// size are the bits of the whole qrels with them attached, as the
    /// command line evaluates; what a chunk cannot carry is refused before
    /// any batch, naming the metric and why.
    #[test]
    fn subtopics_and_document_groups_ride_with_every_chunk() {
        use rankeval_core::DocumentGroupsBuilder;
        use rankeval_core::subtopics::SubtopicQrelsBuilder;

        let metrics = || -> Vec<Box<dyn Metric>> {
            [
                "alpha_ndcg@5",
                "alpha_dcg@5",
                "err_ia@5",
                "nerr_ia@5",
                "nrbp",
                "nnrbp",
                "p_ia@3",
                "map_ia",
                "strec@4",
                "awrf@5",
                "awrf(target=uniform)@5",
                "trec_fair@5",
                "ndcg@5",
            ]
            .iter()
            .map(|m| parse_metric(m).unwrap())
            .collect()
        };
        let queries: Vec<String> = (0..24).map(|q| format!("q{q:02}")).collect();
        let doc = |d: usize| format!("d{d}");
        let mut subtopics = SubtopicQrelsBuilder::new();
        let mut groups = DocumentGroupsBuilder::new();
        let mut at = 0;
        for d in 0..12 {
            at += 1;
            groups
                .push(doc(d).as_bytes(), format!("g{}", d % 3).as_bytes(), 1.0, at)
                .unwrap();
            if d % 4 == 0 {
                at += 1;
                groups.push(doc(d).as_bytes(), b"g9", 0.5, at).unwrap();
            }
        }
        let mut judged: Vec<(String, String, f64)> = Vec::new();
        for (q, query) in queries.iter().enumerate() {
            for d in (q % 5..12).step_by(2 + q % 3) {
                let grade = ((q + d) % 3) as f64;
                judged.push((query.clone(), doc(d), grade));
                for s in 0..1 + (q + d) % 3 {
                    at += 1;
                    subtopics
                        .push(
                            query.as_bytes(),
                            format!("s{s}").as_bytes(),
                            doc(d).as_bytes(),
                            f64::from(u8::from((d + s) % 2 == 0)),
                            at,
                        )
                        .unwrap();
                }
            }
        }
        let context = Context {
            subtopics: Some(Arc::new(subtopics.finish().unwrap())),
            doc_groups: Some(Arc::new(groups.finish().unwrap())),
            ..Context::default()
        };
        let list = |q: usize| -> Vec<(String, f64)> {
            (0..1 + q % 9)
                .map(|j| (doc((q * 7 + j * 5) % 12), 9.0 - (j / 2) as f64))
                .collect()
        };
        let mut whole_qrels = QrelsBuilder::new();
        for (query, d, grade) in &judged {
            whole_qrels
                .push(query.as_str(), d.as_str(), *grade)
                .unwrap();
        }
        let whole_qrels = whole_qrels
            .finish()
            .unwrap()
            .with_subtopics(Arc::clone(context.subtopics.as_ref().unwrap()))
            .with_doc_groups(Arc::clone(context.doc_groups.as_ref().unwrap()));
        let mut whole_run = RunBuilder::new();
        for (q, query) in queries.iter().enumerate().skip(1) {
            for (d, score) in list(q) {
                whole_run
                    .push_scored(query.as_str(), d.as_str(), score)
                    .unwrap();
            }
        }
        let whole_run = whole_run.finish(rankeval_core::Duplicates::Error).unwrap();
        let options = Options {
            missing: super::super::Missing::Zero,
            ..Options::default()
        };
        let whole = evaluate(&whole_qrels, &whole_run, &metrics(), &options);
        let mut want: Vec<(String, Vec<u64>)> = (0..whole.queries().len())
            .map(|q| {
                let values = (0..metrics().len()).map(|m| whole.value(q, m).to_bits());
                (whole.queries()[q].to_string(), values.collect())
            })
            .collect();
        want.sort();
        assert!(
            want.iter().any(|(_, v)| v[0] != 0),
            "a query scores alpha-nDCG"
        );
        for partitions in [1, 3, 7] {
            for chunk_rows in [1, 5, 1000] {
                let mut got: Vec<(String, Vec<u64>)> = Vec::new();
                for p in 0..partitions {
                    let mut rows: Vec<OwnedRow<'_>> = Vec::new();
                    for (q, query) in queries.iter().enumerate() {
                        if q % partitions != p {
                            continue;
                        }
                        for (_, d, grade) in judged.iter().filter(|(x, _, _)| x == query) {
                            rows.push((
                                SIDE_QRELS,
                                None,
                                query.clone(),
                                d.clone(),
                                None,
                                Some(*grade),
                            ));
                        }
                        if q > 0 {
                            for (d, score) in list(q) {
                                rows.push((
                                    SIDE_RUN,
                                    Some("r"),
                                    query.clone(),
                                    d,
                                    Some(score),
                                    None,
                                ));
                            }
                        }
                    }
                    let rows: Vec<Row<'_>> = rows
                        .iter()
                        .map(|(side, run, q, d, score, grade)| {
                            (*side, *run, q.as_str(), d.as_str(), *score, *grade)
                        })
                        .collect();
                    let mut evaluator = SidedEvaluator::new(
                        metrics(),
                        options,
                        ReadOptions::default(),
                        vec!["r".to_owned()],
                        chunk_rows,
                    )
                    .with_context(context.clone());
                    evaluator.check_requirements().unwrap();
                    let mut out = Vec::new();
                    for piece in rows.chunks(4) {
                        out.extend(evaluator.push(batch(piece)).unwrap());
                    }
                    out.extend(evaluator.finish().unwrap());
                    got.extend(value_rows(&out, metrics().len()));
                }
                got.sort();
                assert_eq!(got, want, "{partitions} partitions, chunks of {chunk_rows}");
            }
        }
        // Without its input, or with an input no chunk can carry, a metric
        // is refused before the first batch.
        for (metric, given, want) in [
            (
                "awrf@5",
                Context::default(),
                "awrf@5 reads document groups, which were not given",
            ),
            (
                "alpha_ndcg@5",
                Context {
                    subtopics: None,
                    ..context.clone()
                },
                "alpha_ndcg@5 reads subtopic judgements, which were not given",
            ),
            ("psp@5", context.clone(), "psp@5 reads label propensities"),
            (
                "psndcg@5",
                context.clone(),
                "psndcg@5 reads label propensities",
            ),
            (
                "hole@5",
                context.clone(),
                "hole@5 reads the documents judged for any query",
            ),
        ] {
            let evaluator = SidedEvaluator::new(
                vec![parse_metric(metric).unwrap()],
                Options::default(),
                ReadOptions::default(),
                vec!["r".to_owned()],
                100,
            )
            .with_context(given);
            let message = evaluator.check_requirements().unwrap_err().to_string();
            assert!(message.starts_with(want), "{metric}: {message}");
            if metric.starts_with("ps") {
                assert!(
                    message.contains("were not given to the Spark evaluator (label_counts=PATH"),
                    "{message}"
                );
            }
            if metric.starts_with("hole") {
                assert!(
                    message.contains("were not gathered over every query of the qrels"),
                    "{message}"
                );
            }
        }
    }

    /// The facts of the whole qrels (`Context::whole`): the first pass
    /// over each stream's judgements (`qrels_facts`), merged in reverse
    /// order, given to every stream; the propensity-scored metrics (their
    /// normaliser a mean over every query of the qrels, queries judged and
    /// absent from the run included) and Hole@k (documents judged for any
    /// query) over 1, 3 and 7 streams in chunks of any size are the bits
    /// of the whole qrels, as the command line evaluates them; without the
    /// first pass's facts, or without propensities, they are refused.
    #[test]
    fn facts_of_the_whole_qrels_ride_with_every_chunk() {
        use rankeval_core::{DocumentContext, LabelPropensities};
        use std::collections::HashMap;

        let metrics = || -> Vec<Box<dyn Metric>> {
            [
                "psp@3",
                "psp",
                "psp(a=0.3,b=4)@5",
                "psndcg@5",
                "psndcg(rel=2,family=amazon)@4",
                "hole@4",
                "hole",
                "ndcg@5",
            ]
            .iter()
            .map(|m| parse_metric(m).unwrap())
            .collect()
        };
        let doc = |d: usize| format!("d{d}");
        let counts: HashMap<Box<[u8]>, u64> = (0..30)
            .filter(|d| d % 4 != 0)
            .map(|d| (Box::from(doc(d).as_bytes()), ((d * 7) % 23) as u64))
            .collect();
        let table = Arc::new(LabelPropensities::Counts {
            counts,
            instances: 500,
        });
        let queries: Vec<String> = (0..24).map(|q| format!("q{q:02}")).collect();
        let judged: Vec<(String, String, f64)> = queries
            .iter()
            .enumerate()
            .flat_map(|(q, query)| {
                (q % 4..30)
                    .step_by(3 + q % 4)
                    .map(move |d| (query.clone(), doc(d), ((q + d) % 3) as f64))
            })
            .collect();
        // Queries 0 to 2 are judged only: they count in the normaliser.
        let list = |q: usize| -> Vec<(String, f64)> {
            (0..1 + q % 8)
                .map(|j| (doc((q * 7 + j * 11) % 30), 9.0 - (j / 2) as f64))
                .collect()
        };
        let mut whole_qrels = QrelsBuilder::new();
        for (query, d, grade) in &judged {
            whole_qrels
                .push(query.as_str(), d.as_str(), *grade)
                .unwrap();
        }
        let whole_qrels = whole_qrels.finish().unwrap();
        let requirements = [Requirement::Propensities, Requirement::JudgedAnywhere];
        let documents =
            DocumentContext::build(&whole_qrels, &requirements, Some(Arc::clone(&table))).unwrap();
        let whole_qrels = whole_qrels.with_documents(Arc::new(documents));
        let mut whole_run = RunBuilder::new();
        for (q, query) in queries.iter().enumerate().skip(3) {
            for (d, score) in list(q) {
                whole_run
                    .push_scored(query.as_str(), d.as_str(), score)
                    .unwrap();
            }
        }
        let whole_run = whole_run.finish(rankeval_core::Duplicates::Error).unwrap();
        let whole = evaluate(&whole_qrels, &whole_run, &metrics(), &Options::default());
        let mut want: Vec<(String, Vec<u64>)> = (0..whole.queries().len())
            .map(|q| {
                let values = (0..metrics().len()).map(|m| whole.value(q, m).to_bits());
                (whole.queries()[q].to_string(), values.collect())
            })
            .collect();
        want.sort();
        for m in [0, 3, 4, 5] {
            assert!(
                want.iter().any(|(_, v)| {
                    let x = f64::from_bits(v[m]);
                    x > 0.0 && x < 1.0
                }),
                "metric {m} has values strictly between 0 and 1"
            );
        }
        let given = Context {
            propensities: Some((std::path::PathBuf::from("counts.csv"), Arc::clone(&table))),
            ..Context::default()
        };
        let evaluator = |chunk_rows: usize, context: Context| {
            SidedEvaluator::new(
                metrics(),
                Options::default(),
                ReadOptions::default(),
                vec!["r".to_owned()],
                chunk_rows,
            )
            .with_context(context)
        };
        for partitions in [1, 3, 7] {
            let streams: Vec<Vec<OwnedRow<'_>>> = (0..partitions)
                .map(|p| {
                    let mut rows: Vec<OwnedRow<'_>> = Vec::new();
                    for (q, query) in queries.iter().enumerate() {
                        if q % partitions != p {
                            continue;
                        }
                        for (_, d, grade) in judged.iter().filter(|(x, _, _)| x == query) {
                            rows.push((
                                SIDE_QRELS,
                                None,
                                query.clone(),
                                d.clone(),
                                None,
                                Some(*grade),
                            ));
                        }
                        if q > 2 {
                            for (d, score) in list(q) {
                                rows.push((
                                    SIDE_RUN,
                                    Some("r"),
                                    query.clone(),
                                    d,
                                    Some(score),
                                    None,
                                ));
                            }
                        }
                    }
                    rows
                })
                .collect();
            let borrowed = |rows: &[OwnedRow<'_>]| -> Vec<RecordBatch> {
                let rows: Vec<Row<'_>> = rows
                    .iter()
                    .map(|(side, run, q, d, score, grade)| {
                        (*side, *run, q.as_str(), d.as_str(), *score, *grade)
                    })
                    .collect();
                rows.chunks(4).map(batch).collect()
            };
            // The first pass, each stream's part; merged in reverse, with
            // an empty part (the driver's).
            let first = evaluator(100, given.clone());
            let mut parts: Vec<Vec<u8>> = streams
                .iter()
                .map(|rows| first.qrels_facts(&borrowed(rows)).unwrap())
                .collect();
            parts.push(first.qrels_facts(&[]).unwrap());
            let reversed: Vec<&[u8]> = parts.iter().rev().map(Vec::as_slice).collect();
            let merged = merge_qrels_facts(&reversed).unwrap();
            let context = Context {
                whole: super::whole_qrels(&merged).unwrap(),
                ..given.clone()
            };
            for chunk_rows in [1, 5, 1000] {
                let mut got: Vec<(String, Vec<u64>)> = Vec::new();
                for rows in &streams {
                    let mut evaluator = evaluator(chunk_rows, context.clone());
                    evaluator.check_requirements().unwrap();
                    let mut out = Vec::new();
                    for piece in borrowed(rows) {
                        out.extend(evaluator.push(piece).unwrap());
                    }
                    out.extend(evaluator.finish().unwrap());
                    got.extend(value_rows(&out, metrics().len()));
                }
                got.sort();
                assert_eq!(got, want, "{partitions} partitions, chunks of {chunk_rows}");
            }
        }
        // Without the first pass's facts, or without propensities: refused.
        for (context, metric, want) in [
            (
                given.clone(),
                "psp@3",
                "were not gathered over every query of the qrels",
            ),
            (
                given.clone(),
                "hole@4",
                "were not gathered over every query of the qrels",
            ),
            (
                Context::default(),
                "psndcg@5",
                "were not given to the Spark evaluator",
            ),
        ] {
            let evaluator = SidedEvaluator::new(
                vec![parse_metric(metric).unwrap()],
                Options::default(),
                ReadOptions::default(),
                vec!["r".to_owned()],
                100,
            )
            .with_context(context);
            let message = evaluator.check_requirements().unwrap_err().to_string();
            assert!(message.contains(want), "{metric}: {message}");
        }
        // Bytes that are not facts, or cut short, are refused.
        let good = evaluator(100, given.clone()).qrels_facts(&[]).unwrap();
        for bad in [&b"nope"[..], &good[..good.len() - 1], &[]] {
            assert!(merge_qrels_facts(&[bad]).is_err());
        }
    }

    /// Sampled rankings (`with_samples`): each query's samples, whatever
    /// the order their rows arrive in, spread over 1, 3 and 7 streams in
    /// chunks of any size, give the bits of `evaluate_sampled` on the whole
    /// run with each query's samples in byte order of their ids (the
    /// command line's `--samples` on a file listing them so), with the
    /// document groups attached; a row without a sample is named.
    #[test]
    fn sampled_rankings_are_scored_together_in_any_partitioning() {
        use rankeval_core::DocumentGroupsBuilder;

        let metrics = || -> Vec<Box<dyn Metric>> {
            [
                "ee_d",
                "ee_r",
                "ee_l",
                "ee_l(model=rbp,p=0.8,norm=false)",
                "ndcg@5",
                "awrf@5",
            ]
            .iter()
            .map(|m| parse_metric(m).unwrap())
            .collect()
        };
        let doc = |d: usize| format!("d{d}");
        let mut groups = DocumentGroupsBuilder::new();
        for d in 0..10 {
            groups
                .push(
                    doc(d).as_bytes(),
                    format!("g{}", d % 3).as_bytes(),
                    1.0,
                    d as u64 + 1,
                )
                .unwrap();
        }
        let context = Context {
            subtopics: None,
            doc_groups: Some(Arc::new(groups.finish().unwrap())),
            ..Context::default()
        };
        let queries: Vec<String> = (0..15).map(|q| format!("q{q:02}")).collect();
        // Query q's samples, in the (scrambled) order their rows come.
        let samples = |q: usize| -> Vec<(String, Vec<(String, f64)>)> {
            (0..1 + q % 4)
                .rev()
                .map(|s| {
                    let list = (0..1 + (q + s) % 6)
                        .map(|j| (doc((q * 3 + s * 7 + j * 3) % 10), ((q + j) % 3) as f64))
                        .fold(Vec::new(), |mut seen: Vec<(String, f64)>, (d, score)| {
                            if !seen.iter().any(|(x, _)| *x == d) {
                                seen.push((d, score));
                            }
                            seen
                        });
                    (format!("s{}", (s * 7) % 5), list)
                })
                .collect()
        };
        let judged: Vec<(String, String, f64)> = queries
            .iter()
            .enumerate()
            .flat_map(|(q, query)| {
                (0..10)
                    .filter(move |d| (q + d) % 3 == 0)
                    .map(move |d| (query.clone(), doc(d), ((q + d) % 4) as f64))
            })
            .collect();
        let mut qrels = QrelsBuilder::new();
        for (query, d, grade) in &judged {
            qrels.push(query.as_str(), d.as_str(), *grade).unwrap();
        }
        let qrels = qrels
            .finish()
            .unwrap()
            .with_doc_groups(Arc::clone(context.doc_groups.as_ref().unwrap()));
        let mut whole = SampledRunBuilder::new();
        let mut at = 0;
        for (q, query) in queries.iter().enumerate().skip(1) {
            let mut mine = samples(q);
            mine.sort_by(|a, b| a.0.cmp(&b.0));
            for (sample, list) in mine {
                for (d, score) in list {
                    at += 1;
                    whole
                        .push(query.as_bytes(), sample.as_bytes(), d.as_bytes(), score, at)
                        .unwrap();
                }
            }
        }
        let whole = whole
            .finish(rankeval_core::Duplicates::Error, rankeval_core::Ties::Docid)
            .unwrap();
        let options = Options {
            missing: super::super::Missing::Zero,
            ..Options::default()
        };
        let evaluation = super::super::evaluate_sampled(&qrels, &whole, &metrics(), &options);
        let mut want: Vec<(String, Vec<u64>)> = (0..evaluation.queries().len())
            .map(|q| {
                let values = (0..metrics().len()).map(|m| evaluation.value(q, m).to_bits());
                (evaluation.queries()[q].clone(), values.collect())
            })
            .collect();
        want.sort();
        for partitions in [1, 3, 7] {
            for chunk_rows in [1, 5, 1000] {
                let mut got: Vec<(String, Vec<u64>)> = Vec::new();
                for p in 0..partitions {
                    let mut rows: Vec<SampledRow<'_>> = Vec::new();
                    for (q, query) in queries
                        .iter()
                        .enumerate()
                        .filter(|(q, _)| q % partitions == p)
                    {
                        for (_, d, grade) in judged.iter().filter(|(x, _, _)| x == query) {
                            rows.push((
                                SIDE_QRELS,
                                None,
                                query.clone(),
                                d.clone(),
                                None,
                                Some(*grade),
                                None,
                            ));
                        }
                        if q == 0 {
                            continue;
                        }
                        for (sample, list) in samples(q) {
                            for (d, score) in list.into_iter().rev() {
                                rows.push((
                                    SIDE_RUN,
                                    Some("r"),
                                    query.clone(),
                                    d,
                                    Some(score),
                                    None,
                                    Some(sample.clone()),
                                ));
                            }
                        }
                    }
                    let mut evaluator = SidedEvaluator::new(
                        metrics(),
                        options,
                        ReadOptions::default(),
                        vec!["r".to_owned()],
                        chunk_rows,
                    )
                    .with_context(context.clone())
                    .with_samples();
                    let mut out = Vec::new();
                    for piece in rows.chunks(4) {
                        let six: Vec<Row<'_>> = piece
                            .iter()
                            .map(|(side, run, q, d, score, grade, _)| {
                                (*side, *run, q.as_str(), d.as_str(), *score, *grade)
                            })
                            .collect();
                        let sample: arrow_array::StringArray =
                            piece.iter().map(|r| r.6.as_deref()).collect();
                        let b = batch(&six);
                        let mut fields: Vec<Field> = b
                            .schema()
                            .fields()
                            .iter()
                            .map(|f| f.as_ref().clone())
                            .collect();
                        fields.push(Field::new(SAMPLE_COLUMN, DataType::Utf8, true));
                        let mut columns = b.columns().to_vec();
                        columns.push(Arc::new(sample));
                        let b =
                            RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap();
                        out.extend(evaluator.push(b).unwrap());
                    }
                    out.extend(evaluator.finish().unwrap());
                    got.extend(value_rows(&out, metrics().len()));
                }
                got.sort();
                assert_eq!(got, want, "{partitions} partitions, chunks of {chunk_rows}");
            }
        }
        // A bad run row is named by its run, query and column: no sample, a
        // sample id with a control byte, a NaN score, a document twice in
        // one sample (its positions, rows of one chunk, left out).
        let with_sample = |rows: &[(Row<'_>, Option<&str>)]| {
            let six: Vec<Row<'_>> = rows.iter().map(|(r, _)| *r).collect();
            let b = batch(&six);
            let mut fields: Vec<Field> = b
                .schema()
                .fields()
                .iter()
                .map(|f| f.as_ref().clone())
                .collect();
            fields.push(Field::new(SAMPLE_COLUMN, DataType::Utf8, true));
            let mut columns = b.columns().to_vec();
            let sample: arrow_array::StringArray = rows.iter().map(|(_, s)| *s).collect();
            columns.push(Arc::new(sample));
            RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
        };
        let row = |doc, score| (SIDE_RUN, Some("r"), "a", doc, Some(score), None);
        for (rows, want) in [
            (
                vec![(row("d1", 1.0), None)],
                "run `r`, query `a`, column `sample`: the value is null",
            ),
            (
                vec![(row("d1", 1.0), Some("s\u{1}"))],
                "run `r`, query `a`, column `sample`: ",
            ),
            (
                vec![(row("d1", f64::NAN), Some("s1"))],
                "run `r`, query `a`, column `score`: ",
            ),
            (
                vec![(row("d1", 1.0), Some("s1")), (row("d1", 2.0), Some("s1"))],
                "run `r`: document `d1` appears twice in the list of query `a` sample `s1`",
            ),
        ] {
            let mut evaluator = SidedEvaluator::new(
                metrics(),
                options,
                ReadOptions::default(),
                vec!["r".to_owned()],
                1,
            )
            .with_context(context.clone())
            .with_samples();
            let message = evaluator
                .push(with_sample(&rows))
                .and_then(|_| evaluator.finish())
                .unwrap_err()
                .to_string();
            assert!(message.starts_with(want), "{message}");
            assert!(!message.contains(" at 1"), "{message}");
        }
        let mut evaluator = SidedEvaluator::new(
            metrics(),
            options,
            ReadOptions::default(),
            vec!["r".to_owned()],
            1,
        )
        .with_context(context)
        .with_samples();
        // Without the column, the evaluator says so.
        let message = evaluator
            .push(batch(&[(SIDE_RUN, Some("r"), "a", "d1", Some(1.0), None)]))
            .unwrap_err()
            .to_string();
        assert!(message.starts_with("column `sample`: absent"), "{message}");
    }

    #[test]
    fn row_numbers_are_taken_out_of_a_problem() {
        assert_eq!(
            without_row_numbers("judged 2 here but 1 on row 12"),
            "judged 2 here but 1"
        );
        assert_eq!(
            without_row_numbers("twice in `q` (first on row 3); keep"),
            "twice in `q`; keep"
        );
        assert_eq!(without_row_numbers("on row x"), "on row x");
    }

    /// Spec vectors a and b (AP@5 truncated = 1/3 and 0.65/3) and a query
    /// of the run without judgements, in chunks of any size.
    #[test]
    fn per_query_values_and_counts_in_any_chunking() {
        let mut rows = Vec::new();
        let lists = [
            ("a", ["A", "B", "C", "D", "E"]),
            ("b", ["A", "C", "E", "B", "D"]),
        ];
        for (query, list) in lists {
            for doc in ["B", "D", "Z"] {
                rows.push((SIDE_QRELS, None, query, doc, None, Some(1.0)));
            }
            for (i, doc) in list.into_iter().enumerate() {
                rows.push((SIDE_RUN, Some("r"), query, doc, Some(10.0 - i as f64), None));
            }
        }
        rows.push((SIDE_RUN, Some("r"), "c", "A", Some(1.0), None));
        for chunk_rows in [1, 3, 9, 100] {
            let mut evaluator = SidedEvaluator::new(
                vec![parse_metric("ap@5").unwrap()],
                Options::default(),
                ReadOptions::default(),
                vec!["r".to_owned()],
                chunk_rows,
            );
            let mut out = Vec::new();
            for piece in rows.chunks(4) {
                out.extend(evaluator.push(batch(piece)).unwrap());
            }
            out.extend(evaluator.finish().unwrap());
            let mut values = Vec::new();
            let mut run_only = 0;
            for b in &out {
                let kind = b
                    .column_by_name(KIND_COLUMN)
                    .unwrap()
                    .as_primitive::<Int8Type>();
                let ap = b
                    .column_by_name("ap@5")
                    .unwrap()
                    .as_primitive::<Float64Type>();
                let query = b.column_by_name("query").unwrap().as_string::<i32>();
                let ro = b
                    .column_by_name("_run_only")
                    .unwrap()
                    .as_primitive::<arrow_array::types::Int64Type>();
                for i in 0..b.num_rows() {
                    if kind.value(i) == KIND_VALUES {
                        values.push((query.value(i).to_owned(), ap.value(i)));
                    } else {
                        run_only += ro.value(i);
                    }
                }
            }
            values.sort_by(|x, y| x.0.cmp(&y.0));
            assert_eq!(
                values,
                vec![
                    ("a".to_owned(), 1.0 / 3.0),
                    ("b".to_owned(), (1.0 / 4.0 + 2.0 / 5.0) / 3.0)
                ],
                "chunks of {chunk_rows}"
            );
            assert_eq!(run_only, 1, "chunks of {chunk_rows}");
        }
    }

    /// Corpus metrics on Spark's layout: two runs' queries spread over 1, 3
    /// and 7 streams (partitions) in chunks of any size, each stream's
    /// states as bytes, merged in reverse and finished once: the bits of
    /// the corpus metrics on the whole runs, for every registered metric.
    /// Corpus states and aggregator states together (each in its column).
    #[test]
    fn corpus_states_over_partitions_give_the_whole_runs_bits() {
        use super::super::column_states::finish_aggregates;
        use rankeval_core::corpus::{Catalog, ItemFeatures, Training};
        use rankeval_core::registry;

        let items = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        let mut features = ItemFeatures::new(2);
        for (n, item) in items.iter().enumerate() {
            let x = n as f64 + 0.5;
            features
                .insert(item.as_bytes(), &[x.sqrt(), x.sin()])
                .unwrap();
        }
        let inputs = Arc::new(CorpusInputs {
            catalog: Some(Catalog::new(items)),
            training: Some(Training::from_pairs(
                [
                    ("u1", "a"),
                    ("u2", "a"),
                    ("u2", "b"),
                    ("u3", "c"),
                    ("u4", "a"),
                ]
                .iter()
                .map(|(u, i)| (u.as_bytes(), i.as_bytes())),
            )),
            features: Some(features),
        });
        let metrics = || -> Vec<Box<dyn CorpusMetric>> {
            registry::corpus_metrics()
                .iter()
                .map(|d| (d.example)())
                .collect()
        };
        let runs = ["r1", "r2"];
        // Query q: 1 to 6 distinct items with distinct scores; judgements
        // for every other query.
        let list = |run: usize, q: usize| -> Vec<(String, f64)> {
            (0..1 + (q + run) % 6)
                .map(|j| {
                    (
                        items[(q * 4 + j * (run + 2)) % 9].to_owned(),
                        50.0 - j as f64,
                    )
                })
                .fold(Vec::new(), |mut seen: Vec<(String, f64)>, (d, s)| {
                    if !seen.iter().any(|(x, _)| *x == d) {
                        seen.push((d, s));
                    }
                    seen
                })
        };
        let aggregators = || -> Vec<Box<dyn Aggregator>> {
            ["mean", "median", "std", "gmean", "max", "ci"]
                .iter()
                .map(|a| registry::parse_aggregator(a).unwrap())
                .collect()
        };
        let per_query = || vec![parse_metric("p@3").unwrap(), parse_metric("rr").unwrap()];
        let queries: Vec<String> = (0..30).map(|q| format!("q{q:02}")).collect();
        let mut judged = QrelsBuilder::new();
        for query in queries.iter().step_by(2) {
            judged.push(query.as_str(), "a", 1.0).unwrap();
        }
        let judged = judged.finish().unwrap();
        // Per run: the corpus values, then each metric's aggregates.
        let whole: Vec<(Vec<f64>, Vec<Vec<f64>>)> = (0..runs.len())
            .map(|r| {
                let mut builder = RunBuilder::new();
                for (q, query) in queries.iter().enumerate() {
                    for (doc, score) in list(r, q) {
                        builder
                            .push_scored(query.as_str(), doc.as_str(), score)
                            .unwrap();
                    }
                }
                let run = builder.finish(rankeval_core::Duplicates::Error).unwrap();
                let evaluation = evaluate(&judged, &run, &per_query(), &Options::default());
                let aggregates = (0..2)
                    .map(|m| {
                        aggregators()
                            .iter()
                            .map(|a| evaluation.aggregate(m, a.as_ref()))
                            .collect()
                    })
                    .collect();
                (
                    super::super::evaluate_corpus(&run, &metrics(), &inputs),
                    aggregates,
                )
            })
            .collect();
        for partitions in [1, 3, 7] {
            for chunk_rows in [1, 5, 1000] {
                let mut parts: Vec<Vec<Vec<u8>>> = vec![Vec::new(); runs.len()];
                let mut aggregate_parts: Vec<Vec<Vec<u8>>> = vec![Vec::new(); runs.len()];
                for p in 0..partitions {
                    let mut rows: Vec<OwnedRow<'_>> = Vec::new();
                    for (q, query) in queries
                        .iter()
                        .enumerate()
                        .filter(|(q, _)| q % partitions == p)
                    {
                        if q % 2 == 0 {
                            rows.push((
                                SIDE_QRELS,
                                None,
                                query.clone(),
                                "a".to_owned(),
                                None,
                                Some(1.0),
                            ));
                        }
                        for (r, run) in runs.iter().enumerate() {
                            for (doc, score) in list(r, q) {
                                rows.push((
                                    SIDE_RUN,
                                    Some(run),
                                    query.clone(),
                                    doc,
                                    Some(score),
                                    None,
                                ));
                            }
                        }
                    }
                    let rows: Vec<Row<'_>> = rows
                        .iter()
                        .map(|(side, run, q, d, score, grade)| {
                            (*side, *run, q.as_str(), d.as_str(), *score, *grade)
                        })
                        .collect();
                    let mut evaluator = SidedEvaluator::new(
                        per_query(),
                        Options::default(),
                        ReadOptions::default(),
                        runs.iter().map(|r| (*r).to_owned()).collect(),
                        chunk_rows,
                    )
                    .with_corpus(metrics(), inputs.clone())
                    .unwrap()
                    .with_aggregators(aggregators());
                    let mut out = Vec::new();
                    for piece in rows.chunks(4) {
                        out.extend(evaluator.push(batch(piece)).unwrap());
                    }
                    out.extend(evaluator.finish().unwrap());
                    for b in &out {
                        let kind = b
                            .column_by_name(KIND_COLUMN)
                            .unwrap()
                            .as_primitive::<Int8Type>();
                        let run = b.column_by_name("run").unwrap().as_string::<i32>();
                        let states = b.column_by_name(CORPUS_COLUMN).unwrap().as_binary::<i32>();
                        let aggregates = b
                            .column_by_name(AGGREGATES_COLUMN)
                            .unwrap()
                            .as_binary::<i32>();
                        for i in 0..b.num_rows() {
                            assert_eq!(states.is_null(i), kind.value(i) != KIND_CORPUS);
                            assert_eq!(aggregates.is_null(i), kind.value(i) != KIND_AGGREGATES);
                            let r = runs.iter().position(|x| *x == run.value(i)).unwrap();
                            if kind.value(i) == KIND_CORPUS {
                                parts[r].push(states.value(i).to_vec());
                            }
                            if kind.value(i) == KIND_AGGREGATES {
                                aggregate_parts[r].push(aggregates.value(i).to_vec());
                            }
                        }
                    }
                }
                for (r, run_parts) in parts.iter().enumerate() {
                    assert_eq!(run_parts.len(), partitions, "one row per stream and run");
                    let reversed: Vec<&[u8]> = run_parts.iter().rev().map(Vec::as_slice).collect();
                    let got = finish_corpus(&metrics(), &reversed, &inputs).unwrap();
                    for ((metric, g), w) in metrics().iter().zip(&got).zip(&whole[r].0) {
                        assert_eq!(
                            g.to_bits(),
                            w.to_bits(),
                            "{} run {r}, {partitions} partitions, chunks of {chunk_rows}",
                            metric.name()
                        );
                    }
                }
                let names: Vec<String> = per_query().iter().map(|m| m.name()).collect();
                for (r, run_parts) in aggregate_parts.iter().enumerate() {
                    assert_eq!(run_parts.len(), partitions, "one row per stream and run");
                    let reversed: Vec<&[u8]> = run_parts.iter().rev().map(Vec::as_slice).collect();
                    let got = finish_aggregates(&names, &aggregators(), &reversed).unwrap();
                    for (m, (g, w)) in got.iter().zip(&whole[r].1).enumerate() {
                        let bits = |v: &Vec<f64>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                        assert_eq!(
                            bits(g),
                            bits(w),
                            "metric {m} run {r}, {partitions} partitions"
                        );
                    }
                }
            }
        }
        // Bytes that are not states are refused, naming the problem.
        let bad = finish_corpus(&metrics(), &[&[1, 0, 0, 0]], &inputs).unwrap_err();
        assert!(bad.to_string().contains("states for"), "{bad}");
    }

    /// Spark's evaluator drops BEIR's identical ids for the corpus metrics
    /// too (`Options::counted`), as for the per-query metrics: entropy@10
    /// is the entropy of the lists without the query's own id.
    #[test]
    fn corpus_states_drop_identical_ids_as_the_options_say() {
        use rankeval_core::registry;

        let metrics = || vec![registry::parse_corpus_metric("entropy@10").unwrap()];
        let rows: Vec<Row<'_>> = vec![
            (SIDE_QRELS, None, "a", "b", None, Some(1.0)),
            (SIDE_RUN, Some("r"), "a", "a", Some(3.0), None),
            (SIDE_RUN, Some("r"), "a", "b", Some(2.0), None),
            (SIDE_RUN, Some("r"), "b", "b", Some(1.0), None),
        ];
        let entropy = |drop: bool| {
            let options = Options {
                drop_identical_ids: drop,
                ..Options::default()
            };
            let mut evaluator = SidedEvaluator::new(
                vec![parse_metric("rr").unwrap()],
                options,
                ReadOptions::default(),
                vec!["r".to_owned()],
                100,
            )
            .with_corpus(metrics(), Arc::new(CorpusInputs::default()))
            .unwrap();
            let mut out: Vec<RecordBatch> =
                evaluator.push(batch(&rows)).unwrap().into_iter().collect();
            out.extend(evaluator.finish().unwrap());
            let mut parts = Vec::new();
            for b in &out {
                let kind = b
                    .column_by_name(KIND_COLUMN)
                    .unwrap()
                    .as_primitive::<Int8Type>();
                let states = b.column_by_name(CORPUS_COLUMN).unwrap().as_binary::<i32>();
                for i in 0..b.num_rows() {
                    if kind.value(i) == KIND_CORPUS {
                        parts.push(states.value(i).to_vec());
                    }
                }
            }
            let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
            finish_corpus(&metrics(), &parts, &CorpusInputs::default()).unwrap()[0]
        };
        // Without `a` in query `a`'s list: `b` twice, entropy 0; with it,
        // the shares 1/3 and 2/3.
        assert_eq!(entropy(true), 0.0);
        let kept = -(1.0 / 3.0 * f64::ln(1.0 / 3.0) + 2.0 / 3.0 * f64::ln(2.0 / 3.0));
        assert!((entropy(false) - kept).abs() < 1e-12, "{}", entropy(false));
    }

    #[test]
    fn bad_columns_and_unknown_runs_are_errors() {
        let metrics = vec![parse_metric("ap").unwrap()];
        let mut evaluator = SidedEvaluator::new(
            metrics,
            Options::default(),
            ReadOptions::default(),
            vec![],
            1,
        );
        let good = batch(&[(SIDE_RUN, Some("x"), "q", "d", Some(1.0), None)]);
        assert!(
            evaluator.push(good).unwrap().is_none(),
            "one query: held back"
        );
        let err = evaluator.finish().unwrap_err().to_string();
        assert!(err.contains("run `x`"), "{err}");
        let no_side = good_without_side();
        let err = evaluator.push(no_side).unwrap_err().to_string();
        assert_eq!(err, "column `side`: absent");
    }

    fn good_without_side() -> RecordBatch {
        let b = batch(&[(SIDE_RUN, Some("x"), "q", "d", Some(1.0), None)]);
        b.project(&[1, 2, 3, 4, 5]).unwrap()
    }
}
