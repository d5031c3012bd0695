//! Evaluating a run file while it is read (the engine's side of
//! `read::stream`): each complete query is judged and scored where it was
//! parsed, and only its scores are kept. The values are the same bits as
//! reading the run whole and calling [`evaluate`](super::evaluate): the
//! same finishing, judging and scoring run on the same lists.

use rankeval_core::{Duplicates, Judge, ListBuffer, Metric, Qrels, RankedList, Run, RunError};
use rayon::prelude::*;

use super::coverage::{self, Row};
use super::{
    Evaluation, Options, UnmatchedIds, evaluate, holds_judged, judge_for, judged_depth,
    score_judged, score_query,
};
use crate::read::arrow_array::RecordBatch;
use crate::read::stream::{ListScorer, Spill, stream_run};
use crate::read::{
    CsvOptions, Format, Input, Loaded, Progress, ReadError, ReadOptions, read_ir_metadata,
    read_run_with, run_from_batches, stream_batches,
};

/// Reads the run in `input` and evaluates it against `qrels`.
///
/// A TREC or CSV run grouped by query (each query's lines together, as
/// systems write them) is evaluated while it is read and never held whole in
/// memory; any other run is read whole first. The result is the same.
///
/// A run that cannot be read twice (a pipe, a FIFO, `<(...)`) is copied to
/// a temporary spill file as it is streamed (its bytes as they come, still
/// compressed if gzip): if it turns out not to be grouped, it is read whole
/// from there.
pub fn evaluate_input(
    qrels: &Qrels,
    input: &Input,
    read: ReadOptions,
    metrics: &[Box<dyn Metric>],
    options: &Options,
    progress: Progress<'_>,
) -> Result<Evaluation, ReadError> {
    // Data already in memory is evaluated where it is.
    match input.loaded_data() {
        Some(Loaded::Run(run)) => return Ok(evaluate(qrels, run, metrics, options)),
        Some(Loaded::Batches(batches)) => {
            let columns = input.csv_options();
            return evaluate_batches(
                qrels,
                input.name(),
                batches,
                columns,
                read,
                metrics,
                options,
            );
        }
        Some(Loaded::Qrels(..)) | None => {}
    }
    // A score threshold cuts stored lists (`Options::retrieved`): such a
    // run is read whole.
    let streams = matches!(input.format(), Format::Trec | Format::Msmarco | Format::Csv)
        && options.score_threshold.is_none()
        && !options.drop_identical_ids;
    let spill = if streams { Spill::new(input)? } else { None };
    let first = spill.as_ref().map_or(input, Spill::teed);
    // A pipe is read again from its spill file, for its ir_metadata too.
    let again = || spill.as_ref().map(Spill::replay);
    let metadata = |evaluation: Evaluation| {
        let read = match again() {
            Some(replay) => read_ir_metadata(&replay),
            None => read_ir_metadata(input),
        };
        evaluation.with_ir_metadata(read.map_err(std::sync::Arc::new))
    };
    if let Some(evaluation) = evaluate_grouped(qrels, first, read, metrics, options, progress)? {
        return Ok(metadata(evaluation));
    }
    let (run, _) = match again() {
        Some(replay) => read_run_with(&replay, read, &|_| {})?,
        None => read_run_with(input, read, &|_| {})?,
    };
    Ok(metadata(evaluate(qrels, &run, metrics, options)))
}

/// Evaluates the run in `input` while reading it, if it is a TREC or CSV run
/// grouped by query; `None` if it is not (a query's lines are split up, or
/// it is JSON Lines), or if `options` has a score threshold: then read it
/// whole, as [`evaluate_input`] does.
pub fn evaluate_grouped(
    qrels: &Qrels,
    input: &Input,
    read: ReadOptions,
    metrics: &[Box<dyn Metric>],
    options: &Options,
    progress: Progress<'_>,
) -> Result<Option<Evaluation>, ReadError> {
    let Some(scorer) = QueryScorer::streaming(qrels, metrics, options) else {
        return Ok(None);
    };
    Ok(match stream_run(input, read, &scorer, progress)? {
        Some(scores) => scorer.assemble(scores, options),
        None => None,
    })
}

/// Evaluates the run in Arrow record batches (a table handed over in
/// memory, see [`run_from_batches`]) against `qrels`, with `columns` naming
/// its columns and `name` what errors call it.
///
/// A table grouped by query (each query's rows together, as systems write
/// them) is evaluated while it is read, batches in parallel, as a Parquet
/// run file is: each query is finished, judged and scored where its rows
/// are, and no whole run is built. Any other table (a query's rows split
/// up, lists without scores), or `options` with a score threshold, is read
/// whole first. The result is the same bits.
pub fn evaluate_batches(
    qrels: &Qrels,
    name: &str,
    batches: &[RecordBatch],
    columns: &CsvOptions,
    read: ReadOptions,
    metrics: &[Box<dyn Metric>],
    options: &Options,
) -> Result<Evaluation, ReadError> {
    if let Some(evaluation) =
        evaluate_grouped_batches(qrels, name, batches, columns, read, metrics, options)?
    {
        return Ok(evaluation);
    }
    let run = run_from_batches(name, batches, columns, read)?;
    Ok(evaluate(qrels, &run, metrics, options))
}

/// Evaluates the run in `batches` while reading it, if it is grouped by
/// query and every row has a score or a rank; `None` if not (or if
/// `options` has a score threshold): then read it whole, as
/// [`evaluate_batches`] does.
pub fn evaluate_grouped_batches(
    qrels: &Qrels,
    name: &str,
    batches: &[RecordBatch],
    columns: &CsvOptions,
    read: ReadOptions,
    metrics: &[Box<dyn Metric>],
    options: &Options,
) -> Result<Option<Evaluation>, ReadError> {
    let Some(scorer) = QueryScorer::streaming(qrels, metrics, options) else {
        return Ok(None);
    };
    Ok(
        match stream_batches(name, batches, columns, read, &scorer)? {
            Some(scores) => scorer.assemble(scores, options),
            None => None,
        },
    )
}

/// Judges and scores complete queries.
struct QueryScorer<'a> {
    qrels: &'a Qrels,
    metrics: &'a [Box<dyn Metric>],
    depth: Option<usize>,
    options: &'a Options,
}

/// Scores of complete queries, in no particular order.
#[derive(Default)]
struct Scores {
    /// The judge of this part, reused from query to query.
    judge: Option<Judge>,
    /// The qrels index of each scored query.
    queries: Vec<u32>,
    /// Their values, query-major.
    values: Vec<f64>,
    /// Queries of the run without judgements.
    run_only: Vec<String>,
    /// Run entries left out as repeats (`duplicates = "first"`).
    dropped: usize,
    /// Judged queries whose list holds a document.
    ranked: usize,
    /// Of those, the ones whose list holds a judged document.
    with_judged: usize,
    /// The smallest query whose list holds none, with ids of each side.
    unmatched: Option<UnmatchedIds>,
    /// The qrels index of the last query scored: runs and qrels usually
    /// list queries in the same order, so the next query is tried first.
    last: Option<u32>,
}

impl Scores {
    /// Counts a judged query whose list is `listed` (not empty) and `holds`
    /// a judged document; while no list of this part holds one, keeps the
    /// smallest query's ids (`example`, built only for a smaller query).
    fn count_judged(
        &mut self,
        holds: bool,
        listed: bool,
        query: &[u8],
        example: impl FnOnce() -> UnmatchedIds,
    ) {
        if holds {
            self.with_judged += 1;
            self.unmatched = None;
        } else if listed
            && self.with_judged == 0
            && self
                .unmatched
                .as_ref()
                .is_none_or(|kept| query < kept.query_bytes())
        {
            self.unmatched = Some(example());
        }
    }
}

impl ListScorer for QueryScorer<'_> {
    type Scores = Scores;

    fn score_list(&self, query: &[u8], list: RankedList<'_>, scores: &mut Scores) {
        match self.qrels.query_index(query) {
            Some(q) => {
                let judge = scores
                    .judge
                    .get_or_insert_with(|| judge_for(self.depth, self.options, self.metrics));
                scores.queries.push(q);
                scores.ranked += usize::from(!list.is_empty());
                let start = scores.values.len();
                scores.values.resize(start + self.metrics.len(), 0.0);
                let slots = &mut scores.values[start..];
                let ties = self.options.ties;
                let holds =
                    score_query(judge, self.qrels, q, Some(list), self.metrics, ties, slots);
                scores.count_judged(holds, !list.is_empty(), query, || {
                    UnmatchedIds::of(self.qrels, q, list.docs())
                });
            }
            None => scores
                .run_only
                .push(String::from_utf8_lossy(query).into_owned()),
        }
    }

    fn score_buffer(
        &self,
        buffer: &ListBuffer,
        duplicates: Duplicates,
        scores: &mut Scores,
    ) -> Result<(), RunError> {
        let Some(query_id) = buffer.query() else {
            return Ok(());
        };
        let next = scores.last.map_or(0, |q| q + 1);
        let query = if (next as usize) < self.qrels.num_queries()
            && self.qrels.query_bytes(next) == query_id
        {
            Some(next)
        } else {
            self.qrels.query_index(query_id)
        };
        if query.is_some() {
            scores.last = query;
        }
        let judge = scores
            .judge
            .get_or_insert_with(|| judge_for(self.depth, self.options, self.metrics));
        let judged = judge.judge_buffer(self.qrels, query, buffer, duplicates)?;
        let Some(judged) = judged else {
            scores.dropped += judge.repeats_dropped();
            scores
                .run_only
                .push(String::from_utf8_lossy(query_id).into_owned());
            return Ok(());
        };
        scores.dropped += buffer.len() - judged.retrieved();
        if let Some(query) = query {
            scores.queries.push(query);
            scores.ranked += usize::from(!buffer.is_empty());
        }
        let start = scores.values.len();
        scores.values.resize(start + self.metrics.len(), 0.0);
        score_judged(
            &judged,
            self.metrics,
            self.options.ties,
            &mut scores.values[start..],
        );
        if let Some(query) = query {
            let holds = holds_judged(&judged);
            scores.count_judged(holds, !buffer.is_empty(), query_id, || {
                UnmatchedIds::of(self.qrels, query, buffer.docs())
            });
        }
        Ok(())
    }

    fn score(&self, part: &Run, scores: &mut Scores) {
        scores.dropped += part.duplicates_dropped();
        for r in 0..part.num_queries() as u32 {
            self.score_list(part.query_bytes(r), part.list_at(r), scores);
        }
    }

    fn merge(&self, scores: &mut Scores, later: Scores) {
        scores.dropped += later.dropped;
        scores.ranked += later.ranked;
        scores.with_judged += later.with_judged;
        scores.unmatched = if scores.with_judged > 0 {
            None
        } else {
            UnmatchedIds::smaller(scores.unmatched.take(), later.unmatched)
        };
        scores.queries.extend(later.queries);
        scores.values.extend(later.values);
        scores.run_only.extend(later.run_only);
    }
}

impl<'a> QueryScorer<'a> {
    /// The scorer of a run evaluated while it is read, or `None` if it
    /// must be read whole first (a score threshold drops entries before
    /// the run is ordered; identical ids are dropped from stored lists).
    fn streaming(
        qrels: &'a Qrels,
        metrics: &'a [Box<dyn Metric>],
        options: &'a Options,
    ) -> Option<Self> {
        (options.score_threshold.is_none() && !options.drop_identical_ids).then(|| QueryScorer {
            qrels,
            metrics,
            depth: judged_depth(metrics),
            options,
        })
    }

    /// The evaluation, or `None` if a query was scored twice: the run was
    /// not grouped by query after all.
    fn assemble(&self, scores: Scores, options: &Options) -> Option<Evaluation> {
        let width = self.metrics.len();
        let mut slot_of = vec![u32::MAX; self.qrels.num_queries()];
        for (slot, &query) in scores.queries.iter().enumerate() {
            let seen = &mut slot_of[query as usize];
            if *seen != u32::MAX {
                return None;
            }
            *seen = slot as u32;
        }
        let mut run_only = scores.run_only;
        run_only.sort_unstable();
        if run_only.windows(2).any(|pair| pair[0] == pair[1]) {
            return None;
        }
        let (rows, mut coverage): (Vec<Row<u32>>, _) = coverage::align(
            self.qrels,
            |q| Some(slot_of[q as usize]).filter(|&slot| slot != u32::MAX),
            run_only,
            options.missing,
        );
        coverage.duplicates_dropped = scores.dropped;
        coverage.ranked = scores.ranked;
        if width > 0 {
            coverage.lists_judged = scores.ranked;
            coverage.lists_with_judged = scores.with_judged;
            coverage.unmatched = scores.unmatched;
        }
        let mut values = vec![0.0; rows.len() * width];
        if width > 0 {
            values
                .par_chunks_mut(width)
                .zip(rows.par_iter())
                .for_each_init(
                    || judge_for(self.depth, self.options, self.metrics),
                    |judge, (slots, &(query, slot))| match slot {
                        Some(slot) => {
                            let start = slot as usize * width;
                            slots.copy_from_slice(&scores.values[start..start + width]);
                        }
                        None => {
                            // An empty ranking (`missing = "zero"`).
                            score_query(
                                judge,
                                self.qrels,
                                query,
                                None,
                                self.metrics,
                                self.options.ties,
                                slots,
                            );
                        }
                    },
                );
        }
        Some(Evaluation::new(
            self.qrels,
            &rows,
            self.metrics,
            values,
            coverage,
        ))
    }
}
