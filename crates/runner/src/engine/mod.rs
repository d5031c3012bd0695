//! The engine: judge each query once, score every metric on that one view,
//! queries in parallel; keep the query × metric matrix so that every
//! aggregate is computed from the per-query values, in query order.
//!
//! Each query's values go to a slot fixed by its position, and aggregates
//! sum sequentially, so the results are the same bits whatever the number
//! of threads.

mod corpus;
mod coverage;
mod stream;

use rankeval_core::{Aggregator, Judge, Metric, Qrels, RankedList, RelevanceLevel, Run};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

pub use corpus::evaluate_corpus;
pub use coverage::{Coverage, Missing, Warning};
pub use stream::{evaluate_grouped, evaluate_input};

/// The evaluation policies: which queries count, and the relevance level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// Queries judged but missing from the run: skipped or scored 0.
    pub missing: Missing,
    /// The relevance level metrics use unless they set `rel` (trec_eval `-l`).
    pub level: RelevanceLevel,
}

/// The per-query values of some metrics on one run.
#[derive(Clone, Debug)]
pub struct Evaluation {
    queries: Vec<String>,
    metrics: Vec<String>,
    /// Query-major: the values of query `q` are `values[q * metrics.len()..][..metrics.len()]`.
    values: Vec<f64>,
    coverage: Coverage,
}

/// Evaluates `run` against `qrels` with every metric in `metrics`.
pub fn evaluate(
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
    let depth = judged_depth(metrics);
    let width = metrics.len();
    let mut values = vec![0.0; rows.len() * width];
    if width > 0 {
        values
            .par_chunks_mut(width)
            .zip(rows.par_iter())
            .for_each_init(
                || Judge::new(depth, options.level),
                |judge, (slots, &(query, list))| {
                    score_query(
                        judge,
                        qrels,
                        query,
                        list.map(|r| run.list_at(r)),
                        metrics,
                        slots,
                    );
                },
            );
    }
    Evaluation::new(qrels, &rows, metrics, values, coverage)
}

/// Judges one query once and scores every metric on it, into `slots`.
pub(crate) fn score_query(
    judge: &mut Judge,
    qrels: &Qrels,
    query: u32,
    list: Option<RankedList<'_>>,
    metrics: &[Box<dyn Metric>],
    slots: &mut [f64],
) {
    let judged = judge.judge(qrels, query, list);
    for (slot, metric) in slots.iter_mut().zip(metrics) {
        *slot = metric.score(&judged);
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
        }
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
