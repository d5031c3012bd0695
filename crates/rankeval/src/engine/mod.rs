//! The engine: judge each query once, score every metric on that one view,
//! queries in parallel; keep the query × metric matrix so that every
//! aggregate is computed from the per-query values, in query order.
//!
//! Each query's values go to a slot fixed by its position, and aggregates
//! sum sequentially, so the results are the same bits whatever the number
//! of threads.

pub mod column_states;
mod corpus;
mod coverage;
mod never_ran;
pub mod qrels_facts;
mod sampled;
pub mod sided;
mod stream;
mod threshold;

use crate::read::ReadError;
use crate::read::ir_metadata::IrMetadata;
use rankeval_core::ties::{no_tie_average, supports_tie_average};
use rankeval_core::{
    Aggregator, Judge, JudgedRanking, Metric, Qrels, RankedList, RelevanceLevel, Run, Ties,
};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

pub use corpus::{corpus_states, evaluate_corpus, evaluate_corpus_with};
pub use coverage::{Coverage, Missing, QuerySample, UnmatchedIds, Warning};
pub use never_ran::{NeverRan, NeverRanWhy, never_ran};
pub(crate) use sampled::Query as SampledQuery;
pub use sampled::evaluate_sampled;
pub use stream::{evaluate_batches, evaluate_grouped, evaluate_grouped_batches, evaluate_input};
pub use threshold::{ScoreThreshold, has_scores, unscored_run};

/// The evaluation policies: which queries count, the relevance level, tied
/// scores, and which scores count as retrieved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// Queries judged but missing from the run: skipped or scored 0.
    pub missing: Missing,
    /// The relevance level metrics use unless they set `rel` (trec_eval `-l`).
    pub level: RelevanceLevel,
    /// How metrics without a `ties` of their own treat tied scores. With
    /// `input`, a stored run must have been finished in input order
    /// ([`RunBuilder::finish_with`](rankeval_core::RunBuilder::finish_with),
    /// [`ReadOptions::ties`](crate::read::ReadOptions)); check the metrics
    /// with [`check_ties`] first.
    #[serde(default)]
    pub ties: Ties,
    /// Entries scored at or below it are not retrieved: each list is cut
    /// before it is judged (`None`: every entry counts). A run evaluated
    /// with one is read whole rather than while read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_threshold: Option<ScoreThreshold>,
    /// Evaluate a run that never ran on the qrels (no shared query, or
    /// only empty lists) instead of refusing it ([`never_ran`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_empty_run: bool,
    /// A retrieved document whose id is its query's id is dropped before
    /// the list is judged (BEIR's convention, beir-cellar/beir PR #91), and
    /// counted ([`Coverage::identical_ids_dropped`]). A run evaluated so is
    /// read whole rather than while read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub drop_identical_ids: bool,
}

impl Options {
    /// The run whose lists these options judge: `run` itself, or, with
    /// [`drop_identical_ids`](Self::drop_identical_ids), `run` without the
    /// entries whose document id is their query's id (BEIR's convention,
    /// beir-cellar/beir PR #91); and how many entries were dropped. Every
    /// path that reads a run's lists takes them from here (per-query
    /// metrics, corpus metrics, `explain`, Spark's evaluator), then cuts
    /// each with [`retrieved`](Self::retrieved): the rule is kept once.
    pub fn counted<'r>(&self, run: &'r Run) -> (std::borrow::Cow<'r, Run>, usize) {
        if self.drop_identical_ids {
            let (kept, dropped) = run.without_identical_ids();
            (std::borrow::Cow::Owned(kept), dropped)
        } else {
            (std::borrow::Cow::Borrowed(run), 0)
        }
    }

    /// The entries of `list` that count as retrieved under
    /// [`score_threshold`](Self::score_threshold).
    #[inline]
    pub fn retrieved<'a>(&self, list: RankedList<'a>) -> RankedList<'a> {
        match self.score_threshold {
            Some(threshold) => threshold.retrieved(list),
            None => list,
        }
    }
}

/// Checks that every metric can treat ties as it (or, if it does not say,
/// the experiment's `ties`) asks: `average` needs an exact method, and a
/// metric's own `docid` or `input` must be the order of the experiment's
/// lists (one list has one order). The error names the metric.
pub fn check_ties(metrics: &[Box<dyn Metric>], ties: Ties) -> Result<(), String> {
    for metric in metrics {
        match metric.ties() {
            None if ties == Ties::Average && !supports_tie_average(metric.as_ref()) => {
                return Err(format!(
                    "ties = average: {}; set ties=docid on that metric to rank its ties by document id",
                    no_tie_average(&metric.name())
                ));
            }
            Some(own @ (Ties::Docid | Ties::Input))
                if own.orders_by_doc() != ties.orders_by_doc() =>
            {
                let list_order = if ties.orders_by_doc() {
                    "by document id"
                } else {
                    "in input order"
                };
                return Err(format!(
                    "metric `{}` asks for ties = {own}, but this experiment orders tied scores {list_order} \
                     (ties = {ties}); set the experiment's ties = {own} (a list has one order)",
                    metric.name()
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether some metric averages over ties (its own `ties` or the
/// experiment's) or reads the groups of tied scores by definition
/// (`Metric::reads_tie_groups`): then the judge finds the groups.
pub(crate) fn averages(metrics: &[Box<dyn Metric>], ties: Ties) -> bool {
    metrics
        .iter()
        .any(|m| m.ties().unwrap_or(ties) == Ties::Average || m.reads_tie_groups())
}

/// A judge for `options`, down to `depth`, finding tie groups if a metric
/// averages over them.
pub(crate) fn judge_for(
    depth: Option<usize>,
    options: &Options,
    metrics: &[Box<dyn Metric>],
) -> Judge {
    Judge::new(depth, options.level).with_ties(options.ties, averages(metrics, options.ties))
}

/// The per-query values of some metrics on one run.
#[derive(Clone, Debug)]
pub struct Evaluation {
    queries: Vec<String>,
    metrics: Vec<String>,
    /// Query-major: the values of query `q` are `values[q * metrics.len()..][..metrics.len()]`.
    values: Vec<f64>,
    coverage: Coverage,
    /// The run's ir_metadata block as [`evaluate_input`] read it (from the
    /// spill file for a pipe); `None` when the run was not read from an
    /// input here.
    ir_metadata: Option<MetadataRead>,
}

/// What reading a run's ir_metadata block gave: the block (`None` without
/// one), or why it could not be read (shared, so that an evaluation stays
/// `Clone`).
pub type MetadataRead = Result<Option<IrMetadata>, std::sync::Arc<ReadError>>;

/// Evaluates `run` against `qrels` with every metric in `metrics`.
pub fn evaluate(
    qrels: &Qrels,
    run: &Run,
    metrics: &[Box<dyn Metric>],
    options: &Options,
) -> Evaluation {
    let (counted, dropped) = options.counted(run);
    let mut evaluation = evaluate_lists(qrels, &counted, metrics, options);
    evaluation.coverage.identical_ids_dropped = dropped;
    evaluation
}

/// [`evaluate`] on the lists of `run` as they are.
fn evaluate_lists(
    qrels: &Qrels,
    run: &Run,
    metrics: &[Box<dyn Metric>],
    options: &Options,
) -> Evaluation {
    let (rows, mut coverage) = coverage::align(
        qrels,
        |q| run.query_index(qrels.query_name(q).as_bytes()),
        coverage::run_only(qrels, run),
        options.missing,
    );
    coverage.duplicates_dropped = run.duplicates_dropped();
    coverage.ranked = rows
        .iter()
        .filter(|(_, list)| list.is_some_and(|r| !run.list_at(r).is_empty()))
        .count();
    let depth = judged_depth(metrics);
    let width = metrics.len();
    let mut values = vec![0.0; rows.len() * width];
    if width > 0 {
        // Per query: (a non-empty list judged, holding a judged document).
        let (listed, holding) = values
            .par_chunks_mut(width)
            .zip(rows.par_iter())
            .map_init(
                || judge_for(depth, options, metrics),
                |judge, (slots, &(query, list))| {
                    let list = list.map(|r| options.retrieved(run.list_at(r)));
                    let listed = list.is_some_and(|l| !l.is_empty());
                    let holds =
                        score_query(judge, qrels, query, list, metrics, options.ties, slots);
                    (usize::from(listed), usize::from(holds))
                },
            )
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        coverage.lists_judged = listed;
        coverage.lists_with_judged = holding;
        if holding == 0 {
            // Rows are in query order: the first listed is the smallest id.
            coverage.unmatched = rows.iter().find_map(|&(q, list)| {
                let list = options.retrieved(run.list_at(list?));
                (!list.is_empty()).then(|| UnmatchedIds::of(qrels, q, list.docs()))
            });
        }
    }
    Evaluation::new(qrels, &rows, metrics, values, coverage)
}

/// Judges one query once and scores every metric on it, into `slots`;
/// whether its list holds a judged document in the ranks the metrics read
/// (see [`Coverage::lists_with_judged`]).
pub(crate) fn score_query(
    judge: &mut Judge,
    qrels: &Qrels,
    query: u32,
    list: Option<RankedList<'_>>,
    metrics: &[Box<dyn Metric>],
    ties: Ties,
    slots: &mut [f64],
) -> bool {
    let judged = judge.judge(qrels, query, list);
    score_judged(&judged, metrics, ties, slots);
    holds_judged(&judged)
}

/// Whether a judged list holds a judged document (most lists do within a
/// few ranks, so this stops early).
#[inline]
pub(crate) fn holds_judged(judged: &JudgedRanking<'_>) -> bool {
    judged.ranked().iter().any(|j| j.is_judged())
}

/// Scores every metric on one judged query, into `slots`; with `ties =
/// average`, a metric without a `ties` of its own gives its expected value
/// over the ties (NaN if it has none: [`check_ties`] refuses that first).
#[inline]
pub(crate) fn score_judged(
    judged: &JudgedRanking<'_>,
    metrics: &[Box<dyn Metric>],
    ties: Ties,
    slots: &mut [f64],
) {
    if ties == Ties::Average {
        for (slot, metric) in slots.iter_mut().zip(metrics) {
            *slot = match metric.ties() {
                Some(_) => metric.score(judged),
                None => metric.score_tie_average(judged).unwrap_or(f64::NAN),
            };
        }
    } else {
        for (slot, metric) in slots.iter_mut().zip(metrics) {
            *slot = metric.score(judged);
        }
    }
}

/// The deepest rank any metric reads; `None` if one reads the whole list.
pub(crate) fn judged_depth(metrics: &[Box<dyn Metric>]) -> Option<usize> {
    metrics
        .iter()
        .try_fold(0, |deepest, m| m.depth().map(|k| deepest.max(k.get())))
}

impl Evaluation {
    /// An evaluation of the queries in `rows` (in report order), with their
    /// values query-major in `values`.
    pub(crate) fn new<L>(
        qrels: &Qrels,
        rows: &[coverage::Row<L>],
        metrics: &[Box<dyn Metric>],
        values: Vec<f64>,
        coverage: Coverage,
    ) -> Self {
        Evaluation {
            queries: rows
                .iter()
                .map(|(q, _)| qrels.query_name(*q).to_owned())
                .collect(),
            metrics: metrics.iter().map(|m| m.name()).collect(),
            values,
            coverage,
            ir_metadata: None,
        }
    }

    /// An evaluation without judgements and without per-query metrics, for
    /// a run evaluated by corpus metrics alone: every query of `run` counts,
    /// in byte order.
    pub fn unjudged(run: &Run) -> Self {
        let mut queries: Vec<String> = run.queries().map(str::to_owned).collect();
        queries.sort_unstable();
        Evaluation {
            coverage: Coverage {
                evaluated: queries.len(),
                duplicates_dropped: run.duplicates_dropped(),
                ..Coverage::default()
            },
            queries,
            metrics: Vec::new(),
            values: Vec::new(),
            ir_metadata: None,
        }
    }

    /// The run's ir_metadata block, as [`evaluate_input`] read it; `None`
    /// when the evaluation was not made from an input by it.
    pub fn ir_metadata(&self) -> Option<&MetadataRead> {
        self.ir_metadata.as_ref()
    }

    /// The same evaluation, with `read` as its run's ir_metadata.
    pub(crate) fn with_ir_metadata(mut self, read: MetadataRead) -> Self {
        self.ir_metadata = Some(read);
        self
    }

    /// The evaluated query ids, in report order (byte order).
    pub fn queries(&self) -> &[String] {
        &self.queries
    }

    /// The metrics' canonical names, in the order given.
    pub fn metrics(&self) -> &[String] {
        &self.metrics
    }

    /// Position of the metric with canonical name `name`.
    pub fn metric_index(&self, name: &str) -> Option<usize> {
        self.metrics.iter().position(|m| m == name)
    }

    /// The value of metric `metric` on query `query` (positions).
    pub fn value(&self, query: usize, metric: usize) -> f64 {
        self.values[query * self.metrics.len() + metric]
    }

    /// Metric `metric`'s values, in query order.
    pub fn column(&self, metric: usize) -> Vec<f64> {
        let width = self.metrics.len();
        self.values
            .iter()
            .skip(metric)
            .step_by(width.max(1))
            .copied()
            .collect()
    }

    /// `(query, value)` for the metric with canonical name `name`.
    pub fn per_query(&self, name: &str) -> Option<impl Iterator<Item = (&str, f64)> + '_> {
        let metric = self.metric_index(name)?;
        Some(
            self.queries
                .iter()
                .enumerate()
                .map(move |(q, id)| (id.as_str(), self.value(q, metric))),
        )
    }

    /// Aggregates metric `metric`'s values with `aggregator`.
    pub fn aggregate(&self, metric: usize, aggregator: &dyn Aggregator) -> f64 {
        aggregator.aggregate(&self.column(metric))
    }

    /// The mean of the metric with canonical name `name` over the evaluated
    /// queries (NaN if none was evaluated).
    pub fn mean(&self, name: &str) -> Option<f64> {
        let column = self.column(self.metric_index(name)?);
        Some(rankeval_metrics::aggregators::mean::mean(&column))
    }

    /// Which queries were evaluated, and which were not.
    pub fn coverage(&self) -> &Coverage {
        &self.coverage
    }

    /// What the user should be told about the query sets.
    pub fn warnings(&self) -> Vec<Warning> {
        self.coverage.warnings()
    }
}
