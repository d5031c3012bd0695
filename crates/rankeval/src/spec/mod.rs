//! One request: the plain description of an experiment that every front
//! end fills (the command line's flags, a TOML file, Python's keyword
//! arguments), each value with where it came from ([`Origin`]). One
//! [`resolve`] checks it, every rule in one place, and turns it into an
//! [`Experiment`](crate::experiment::Experiment); its messages begin with
//! the value's origin and name other options in that front end's words.
//!
//! A front end only maps its syntax onto the spec: it parses a flag's or
//! key's text into a value (a number, a metric in the short syntax or a
//! TOML table, a path made relative to the experiment file) and leaves
//! every rule about values to `resolve`. A new option is one field here,
//! one clause in `resolve` and one line per front end.

mod compare;
mod ope;
mod ope_click;
mod origin;
mod record;
mod resolve;

use std::path::PathBuf;

use rankeval_core::{Aggregator, Duplicates, RequestedMetric, Ties};

use crate::engine::Missing;
use crate::read::{CsvOptions, Format, Input};

pub use compare::{
    BaselineRequest, CompareRequest, GateRequest, GateTable, HISTORY_PREFIX, IntervalKind,
    MarginRequest, resolve_comparison,
};
pub use ope::{
    OpePartsRequest, OpeRequest, OpeSpec, PolicyRequest, PolicyRun, resolve_ope, resolve_ope_parts,
};
pub use origin::{Given, Origin};
pub use record::{MAX_LABEL, RecordRequest, resolve_record};
pub use resolve::{
    SpecError, check_metric_ties, check_requirements, check_sampled, check_sampled_corpus,
    propensity_source, relevance_level, resolve, score_threshold_of,
};

/// An experiment as asked for, nothing checked yet.
#[derive(Debug)]
pub struct ExperimentSpec {
    /// Where the request as a whole came from, for a rule about no value
    /// in particular (no run at all): the command, or the TOML file.
    pub whole: Origin,
    /// The qrels; `None` when every run is JSON Lines with its own.
    pub qrels: Option<Given<Input>>,
    /// The runs, in report order.
    pub runs: Vec<RunRequest>,
    /// Systems of several runs (seeds, folds).
    pub systems: Vec<SystemRequest>,
    /// The metrics as built by the front end, with the list's origin;
    /// `None` for the defaults.
    pub metrics: Option<Given<Vec<MetricRequest>>>,
    /// The aggregators as built; `None` for the mean.
    pub aggregators: Option<Given<Vec<Box<dyn Aggregator>>>>,
    /// The inputs of corpus metrics.
    pub corpus: CorpusRequest,
    /// The groups of queries (slices): a CSV/TSV, JSON Lines or Parquet file.
    pub groups: Option<Given<PathBuf>>,
    /// The separator of conversation and turn in query ids.
    pub turns: Option<Given<String>>,
    /// Conversations, not turns, are the unit of every aggregate.
    pub per_conversation: Option<Given<bool>>,
    /// Queries judged but missing from a run: skipped or scored zero.
    pub missing: Option<Given<Missing>>,
    /// The default relevance level, as given (checked by `resolve`).
    pub rel: Option<Given<f64>>,
    /// How tied scores are ordered.
    pub ties: Option<Given<Ties>>,
    /// Entries scored at or below it are not retrieved (checked by
    /// `resolve`).
    pub score_threshold: Option<Given<f64>>,
    /// Every metric on judged documents only.
    pub judged_only: Option<Given<bool>>,
    /// Each metric's two completions and the hole rate.
    pub bounds: Option<Given<bool>>,
    /// A document repeated in one list: an error, or the first kept.
    pub duplicates: Option<Given<Duplicates>>,
    /// A run that never ran on the qrels is evaluated rather than refused.
    pub allow_empty_run: Option<Given<bool>>,
    /// Every run is a sampled run (several rankings per query, the second
    /// column of a TREC run or a `sample` column naming the sample).
    pub samples: Option<Given<bool>>,
    /// The comparison with a baseline, and the gates.
    pub compare: CompareRequest,
    /// The report's title (the HTML page's title and heading).
    pub title: Option<Given<String>>,
    /// Where to record the results (a results history), with a label.
    pub record: RecordRequest,
    /// A benchmark by name: `irds:` qrels fetched, the card's measures and
    /// conventions (`rankeval::benchmarks`).
    pub benchmark: BenchmarkRequest,
}

/// What is asked of a benchmark by name (`rankeval::benchmarks`).
#[derive(Debug, Default)]
pub struct BenchmarkRequest {
    /// `irds:` qrels missing from ir_datasets' cache are fetched by running
    /// ir_datasets (`--fetch`).
    pub fetch: Option<Given<bool>>,
    /// A retrieved document whose id is the query's id is dropped before
    /// judging (BEIR's convention, `--drop-identical-ids`).
    pub drop_identical_ids: Option<Given<bool>>,
    /// Evaluate the card's measures under its conventions (`--official`):
    /// `None` inside for the benchmark of the `irds:` qrels, else the id
    /// named (`--official <id>` with a qrels file of one's own).
    pub official: Option<Given<Option<String>>>,
    /// The ir_datasets id of qrels already read from ir_datasets' cache
    /// (Python's `qrels="irds:<id>"`, read when converted): the benchmark
    /// of the qrels, as an `irds:` path tells it on the command line.
    pub qrels_benchmark: Option<String>,
}

/// A run as asked for.
#[derive(Debug)]
pub struct RunRequest {
    /// Where it is read from (its path relative to where the process
    /// runs, its format and columns).
    pub input: Input,
    /// Its path as the user wrote it: what names it when no name is
    /// given (`rankeval::naming`).
    pub written: PathBuf,
    /// The name given with it, if any.
    pub name: Option<Given<String>>,
    /// Where the run was given (`--run x.trec`, `runs[2].path`).
    pub from: Origin,
}

/// A system of several runs as asked for.
#[derive(Debug)]
pub struct SystemRequest {
    /// Its name.
    pub name: Given<String>,
    /// Its run files: paths or glob patterns relative to `base`.
    pub patterns: Given<Vec<String>>,
    /// What the patterns are relative to (the experiment file's folder).
    pub base: PathBuf,
    /// The column settings of its runs.
    pub columns: CsvOptions,
    /// The format of its runs, when their names do not say.
    pub format: Option<Format>,
}

/// One metric as the front end built it from the user's text.
#[derive(Debug)]
pub struct MetricRequest {
    /// Its name as typed (`map@10`, a table's `type`), for the note on
    /// trec_eval's `map@k`.
    pub typed: Option<String>,
    /// The metric.
    pub metric: RequestedMetric,
    /// Where it was given.
    pub from: Origin,
}

/// The inputs of corpus metrics as asked for.
#[derive(Debug, Default)]
pub struct CorpusRequest {
    /// The catalog: one item id per line.
    pub catalog: Option<Given<PathBuf>>,
    /// Training interactions, read as qrels.
    pub training: Option<Given<Input>>,
    /// Item features: item then numbers.
    pub features: Option<Given<PathBuf>>,
    /// Subtopic judgements (`query subtopic doc grade`), read by the
    /// diversity metrics (`alpha_ndcg`, `err_ia`, ...).
    pub subtopics: Option<Given<PathBuf>>,
    /// Document groups (`doc group [weight]`), read by the group-fairness
    /// metrics (`awrf`, `trec_fair`).
    pub doc_groups: Option<Given<PathBuf>>,
    /// Each query's target over the document groups (`query, group,
    /// share`), read by `awrf(target=given)` and `trec_fair(target=given)`.
    pub group_targets: Option<Given<PathBuf>>,
    /// Training label frequencies (`label,count`), read by the
    /// propensity-scored metrics (`psp`, `psndcg`) with
    /// [`train_instances`](Self::train_instances).
    pub label_counts: Option<Given<PathBuf>>,
    /// The number of training instances `N` of the label frequencies.
    pub train_instances: Option<Given<u64>>,
    /// Given inverse propensities (`label,inverse_propensity`), instead of
    /// label frequencies.
    pub inverse_propensities: Option<Given<PathBuf>>,
}
