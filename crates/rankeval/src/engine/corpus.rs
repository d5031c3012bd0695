//! Corpus metrics over a stored run: lists in fixed chunks, in parallel,
//! each chunk's states merged in chunk order.
//!
//! The chunks do not depend on the number of threads, and the states
//! merge exactly (see `rankeval_core::corpus`), so the values are the same
//! bits for any thread count. This is a separate pass over the run: the
//! per-query engine and its benchmark are untouched.

use rankeval_core::{CorpusInputs, CorpusMetric, CorpusState, Run};

use super::ScoreThreshold;
use rayon::prelude::*;

/// Lists per chunk: a state per chunk and metric, merged in order.
const CHUNK: usize = 1024;

/// Evaluates every corpus metric on every list of `run` (in query order;
/// each list cut at the metric's depth), and returns one value per metric,
/// in the order given.
pub fn evaluate_corpus(
    run: &Run,
    metrics: &[Box<dyn CorpusMetric>],
    inputs: &CorpusInputs,
) -> Vec<f64> {
    evaluate_corpus_with(run, metrics, inputs, None)
}

/// [`evaluate_corpus`] on the entries scored above `threshold` only (the
/// experiment's `score_threshold`; `None`: every entry).
pub fn evaluate_corpus_with(
    run: &Run,
    metrics: &[Box<dyn CorpusMetric>],
    inputs: &CorpusInputs,
    threshold: Option<ScoreThreshold>,
) -> Vec<f64> {
    let merged = corpus_states(run, metrics, inputs, threshold);
    metrics
        .iter()
        .zip(merged)
        .map(|(metric, state)| metric.finish(state, inputs))
        .collect()
}

/// Each corpus metric's state after every list of `run` (entries scored
/// above `threshold`), not finished: a part of a run split across machines
/// (Spark), to be merged with the other parts' states and finished once.
pub fn corpus_states(
    run: &Run,
    metrics: &[Box<dyn CorpusMetric>],
    inputs: &CorpusInputs,
    threshold: Option<ScoreThreshold>,
) -> Vec<CorpusState> {
    let queries: Vec<u32> = (0..run.num_queries() as u32).collect();
    let parts: Vec<Vec<CorpusState>> = queries
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut states: Vec<CorpusState> = metrics.iter().map(|m| m.init()).collect();
            let mut docs: Vec<&[u8]> = Vec::new();
            for &query in chunk {
                docs.clear();
                let list = run.list_at(query);
                let list = threshold.map_or(list, |t| t.retrieved(list));
                docs.extend(list.docs());
                for (metric, state) in metrics.iter().zip(&mut states) {
                    let depth = metric
                        .depth()
                        .map_or(docs.len(), |k| k.get().min(docs.len()));
                    metric.update(state, u64::from(query), &docs[..depth], inputs);
                }
            }
            states
        })
        .collect();
    let mut merged: Vec<CorpusState> = metrics.iter().map(|m| m.init()).collect();
    for part in parts {
        for ((metric, state), other) in metrics.iter().zip(&mut merged).zip(part) {
            metric.merge(state, other);
        }
    }
    merged
}
