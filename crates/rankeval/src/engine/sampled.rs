//! Evaluating a sampled run (several rankings per query, `--samples`):
//! each sample is judged as a list is, and every metric scores the query's
//! samples together ([`Metric::score_samples`]: expected exposure sums a
//! document's exposure over them; any other metric is its mean over them).
//! Each sample's ranking carries what the judge hands an ordinary list:
//! the document groups and the per-document facts (label propensities, the
//! documents judged for any query), so psp, psndcg and hole are each
//! sample's value averaged.
//! A separate path from the ordinary one, which it leaves untouched: one
//! list per query there, several here.
//!
//! Queries are scored in parallel, each into the slot of its position, as
//! on the ordinary path: the same bits for any thread count.

use std::collections::HashMap;

use rankeval_core::{
    DocumentView, Grade, GroupRanking, JudgedRanking, Judgement, Metric, Qrels, SampledRun, Samples,
};
use rayon::prelude::*;

use super::{Evaluation, Options, coverage, judge_for, judged_depth, score_judged};

/// Evaluates the sampled run `run` against `qrels` with every metric in
/// `metrics`. A query judged but missing from the run follows
/// `options.missing` (scored on an empty list, or skipped); the lists are
/// cut by the score threshold as any run's are.
pub fn evaluate_sampled(
    qrels: &Qrels,
    run: &SampledRun,
    metrics: &[Box<dyn Metric>],
    options: &Options,
) -> Evaluation {
    let run_only: Vec<String> = run
        .query_ids()
        .into_iter()
        .filter(|q| qrels.query_index(q).is_none())
        .map(|q| String::from_utf8_lossy(q).into_owned())
        .collect();
    let (rows, mut coverage) = coverage::align(
        qrels,
        |q| run.samples(qrels.query_bytes(q)),
        run_only,
        options.missing,
    );
    coverage.duplicates_dropped = run.run().duplicates_dropped();
    let listed = |samples: &[u32]| {
        samples
            .iter()
            .any(|&s| !options.retrieved(run.run().list_at(s)).is_empty())
    };
    coverage.ranked = rows
        .iter()
        .filter(|(_, samples)| samples.is_some_and(listed))
        .count();
    let depth = judged_depth(metrics);
    let width = metrics.len();
    let mut values = vec![0.0; rows.len() * width];
    if width > 0 {
        let (judged, holding) = values
            .par_chunks_mut(width)
            .zip(rows.par_iter())
            .map_init(
                || judge_for(depth, options, metrics),
                |judge, (slots, &(query, samples))| {
                    let Some(samples) = samples else {
                        let judged = judge.judge(qrels, query, None);
                        score_judged(&judged, metrics, options.ties, slots);
                        return (0, 0);
                    };
                    let mut one = Query::default();
                    for &s in samples {
                        one.add(judge, qrels, query, run, s, options);
                    }
                    one.score(qrels, metrics, slots);
                    (
                        usize::from(listed(samples)),
                        usize::from(one.holds_judged()),
                    )
                },
            )
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        coverage.lists_judged = judged;
        coverage.lists_with_judged = holding;
    }
    Evaluation::new(qrels, &rows, metrics, values, coverage)
}

/// One query's samples, judged and copied out of the judge (which judges
/// the next sample in the same buffers); `explain --samples` reads it too.
#[derive(Default)]
pub(crate) struct Query {
    ranked: Vec<Vec<Judgement>>,
    retrieved: Vec<usize>,
    /// Each sample's judged ranks' document numbers.
    docs: Vec<Vec<u32>>,
    /// The documents' numbers.
    numbers: HashMap<Box<[u8]>, u32>,
    ideal: Vec<Grade>,
    /// Each sample's documents' places among those with a group.
    group_ranked: Vec<Vec<u32>>,
    group_judged: Vec<(u32, Grade)>,
    level: rankeval_core::RelevanceLevel,
    /// The query's number in the qrels (the per-document facts' view
    /// reads its judged labels through it).
    query: u32,
    /// Each sample's per-document facts, per judged rank: the label value
    /// and whether the document is judged for any query (when the qrels
    /// carry a [`rankeval_core::DocumentContext`]).
    doc_labels: Vec<Vec<f64>>,
    doc_anywhere: Vec<Vec<bool>>,
}

impl Query {
    /// Judges sample list `s` of `run`.
    pub(crate) fn add(
        &mut self,
        judge: &mut rankeval_core::Judge,
        qrels: &Qrels,
        query: u32,
        run: &SampledRun,
        s: u32,
        options: &Options,
    ) {
        let list = options.retrieved(run.run().list_at(s));
        let judged = judge.judge(qrels, query, Some(list));
        let ranked = judged.ranked().to_vec();
        let numbers = &mut self.numbers;
        let docs = list
            .docs()
            .take(ranked.len())
            .map(|doc| {
                let next = numbers.len() as u32;
                *numbers.entry(doc.into()).or_insert(next)
            })
            .collect();
        if self.ranked.is_empty() {
            self.ideal = judged.ideal_grades().to_vec();
            self.level = judged.default_level();
            self.query = query;
            if let Some(groups) = judged.groups() {
                self.group_judged = groups.judged().to_vec();
            }
        }
        if let Some(groups) = judged.groups() {
            self.group_ranked.push(groups.ranked().to_vec());
        }
        if let Some(view) = judged.documents() {
            self.doc_labels
                .push((0..ranked.len()).map(|i| view.label(i)).collect());
            self.doc_anywhere
                .push((0..ranked.len()).map(|i| view.judged_anywhere(i)).collect());
        }
        self.retrieved.push(judged.retrieved());
        self.ranked.push(ranked);
        self.docs.push(docs);
    }

    /// Whether a sample holds a judged document.
    fn holds_judged(&self) -> bool {
        self.ranked.iter().flatten().any(|j| j.is_judged())
    }

    /// Every metric on the samples, into `slots`.
    fn score(&self, qrels: &Qrels, metrics: &[Box<dyn Metric>], slots: &mut [f64]) {
        self.with_samples(qrels, |samples| {
            for (slot, metric) in slots.iter_mut().zip(metrics) {
                *slot = metric.score_samples(samples);
            }
        });
    }

    /// The documents by their numbers in [`Samples`], each with its
    /// judgement (the same in every sample that retrieves it).
    pub(crate) fn documents(&self) -> Vec<(&[u8], Judgement)> {
        let mut documents = vec![(&b""[..], Judgement::UNJUDGED); self.numbers.len()];
        for (doc, &n) in &self.numbers {
            if let Some(slot) = documents.get_mut(n as usize) {
                slot.0 = doc;
            }
        }
        for (ranked, docs) in self.ranked.iter().zip(&self.docs) {
            for (&judgement, &n) in ranked.iter().zip(docs) {
                if let Some(slot) = documents.get_mut(n as usize) {
                    slot.1 = judgement;
                }
            }
        }
        documents
    }

    /// Each sample's judged ranks' document numbers.
    pub(crate) fn numbers(&self) -> &[Vec<u32>] {
        &self.docs
    }

    /// The query's judged grades, best first (its ideal ranking).
    pub(crate) fn ideal(&self) -> &[Grade] {
        &self.ideal
    }

    /// Calls `f` with the query's samples as the metrics see them.
    pub(crate) fn with_samples<T>(&self, qrels: &Qrels, f: impl FnOnce(&Samples<'_>) -> T) -> T {
        let groups = qrels.doc_groups();
        let context = qrels.documents();
        let rankings: Vec<JudgedRanking<'_>> = self
            .ranked
            .iter()
            .zip(&self.retrieved)
            .enumerate()
            .map(|(s, (ranked, &retrieved))| {
                let judged = JudgedRanking::new(ranked, retrieved, &self.ideal, self.level);
                let judged = match (context, self.doc_labels.get(s), self.doc_anywhere.get(s)) {
                    (Some(context), Some(labels), Some(anywhere)) => judged.with_documents(
                        DocumentView::new(context, Some(self.query), labels, anywhere),
                    ),
                    _ => judged,
                };
                match (groups, self.group_ranked.get(s)) {
                    (Some(groups), Some(ranked)) => judged.with_groups(
                        GroupRanking::new(groups, ranked, &self.group_judged)
                            .with_target(groups.target(qrels.query_bytes(self.query))),
                    ),
                    _ => judged,
                }
            })
            .collect();
        let samples = Samples::new(&rankings, &self.docs, self.numbers.len());
        f(&samples)
    }
}
