//! Reading a run while evaluating it.
//!
//! A run grouped by query (every TREC or CSV run a system writes) can be
//! evaluated piece by piece: in the task that parsed a piece, the queries
//! that start and end inside it are finished (repeats, order), judged and
//! scored at once, while their lines are in the CPU cache, and only their
//! scores are kept. The first and last query of each piece may continue in
//! the neighbouring pieces; they are held back, joined in input order and
//! scored at the end. So the run is never stored whole.
//!
//! Whether the run really is grouped is for the scorer to tell (a query
//! scored twice); the caller then reads it the general way.

use rankeval_core::{Duplicates, Run, RunBuilder};
use rayon::prelude::*;

use super::csv::CsvRun;
use super::error::{LineError, ReadError};
use super::lines::LineParser;
use super::trec::{RUN_LINE, TrecRun};
use super::{Format, Input, Progress, ReadOptions, finish_run, run_error_at};

/// Scores complete lists of a run as they are read (the engine's side).
pub(crate) trait ListScorer: Sync {
    /// What scoring parts of the run gives.
    type Scores: Send + Default;
    /// Scores every list of `part`, a set of complete queries, into `scores`.
    fn score(&self, part: &Run, scores: &mut Self::Scores);
    /// Appends `later` to `scores`.
    fn merge(&self, scores: &mut Self::Scores, later: Self::Scores);
}

/// Reads `input` as a run, scoring each query with `scorer` as soon as its
/// lines are complete. `None` for formats read whole (JSON Lines).
pub(crate) fn stream_run<S: ListScorer>(
    input: &Input,
    options: ReadOptions,
    scorer: &S,
    progress: Progress<'_>,
) -> Result<Option<S::Scores>, ReadError> {
    let duplicates = options.duplicates;
    let sink = match input.format {
        Format::Trec => {
            let parser = Streaming::new(TrecRun, scorer, duplicates);
            input.parse(&parser, RUN_LINE, progress)?.sink
        }
        Format::Csv => input.parse_csv(
            |header, csv| {
                Ok(Streaming::new(
                    CsvRun::new(header, csv)?,
                    scorer,
                    duplicates,
                ))
            },
            progress,
        )?,
        Format::Jsonl => return Ok(None),
    };
    let StreamSink {
        mut scores,
        open,
        mut held_back,
        ..
    } = sink;
    held_back.extend(open);
    let parts: Vec<Result<S::Scores, ReadError>> = held_back
        .into_par_iter()
        .map(|query| {
            let part = finish_run(input, query, options)?;
            let mut scores = S::Scores::default();
            scorer.score(&part, &mut scores);
            Ok(scores)
        })
        .collect();
    for part in parts {
        scorer.merge(&mut scores, part?);
    }
    Ok(Some(scores))
}

/// A run line parser, wrapped to score queries as pieces end.
struct Streaming<'a, P, S> {
    inner: P,
    scorer: &'a S,
    duplicates: Duplicates,
}

impl<'a, P, S> Streaming<'a, P, S> {
    fn new(inner: P, scorer: &'a S, duplicates: Duplicates) -> Self {
        Self {
            inner,
            scorer,
            duplicates,
        }
    }
}

/// A piece being parsed, or the pieces before it joined.
struct StreamSink<T> {
    /// The piece's first query, when the piece moved on to another one.
    head: Option<RunBuilder>,
    /// The lines after the first query (all of them until it moves on).
    body: RunBuilder,
    /// Whether a second query started in the piece.
    moved_on: bool,
    /// The piece's last query, which the next piece may continue.
    tail: Option<RunBuilder>,
    /// Scores of the complete queries.
    scores: T,
    /// Joined: the last query so far, which the next piece may continue.
    open: Option<RunBuilder>,
    /// Joined: complete queries that spanned a piece boundary, to score.
    held_back: Vec<RunBuilder>,
}

impl<T: Default> StreamSink<T> {
    fn new(body: RunBuilder) -> Self {
        Self {
            head: None,
            body,
            moved_on: false,
            tail: None,
            scores: T::default(),
            open: None,
            held_back: Vec::new(),
        }
    }
}

/// `builder` with `offset` added to its line numbers.
fn shifted(builder: RunBuilder, offset: u32) -> RunBuilder {
    if offset == 0 {
        return builder;
    }
    let mut moved = RunBuilder::with_capacity(builder.len(), 0);
    moved.append(builder, offset);
    moved
}

impl<P, S> LineParser for Streaming<'_, P, S>
where
    P: LineParser<Sink = RunBuilder>,
    S: ListScorer,
{
    type Sink = StreamSink<S::Scores>;

    fn sink(&self) -> Self::Sink {
        StreamSink::new(self.inner.sink())
    }

    fn sink_for(&self, lines: usize, bytes: usize) -> Self::Sink {
        StreamSink::new(self.inner.sink_for(lines, bytes))
    }

    #[inline]
    fn parse(&self, sink: &mut Self::Sink, line: &[u8], number: u32) -> Result<(), LineError> {
        self.inner.parse(&mut sink.body, line, number)?;
        if !sink.moved_on && sink.body.num_blocks() > 1 {
            // The first query ended: set it aside with the one line of the next.
            let mut head = std::mem::take(&mut sink.body);
            if let Some(next) = head.split_last_block() {
                sink.body = next;
            }
            sink.head = Some(head);
            sink.moved_on = true;
        }
        Ok(())
    }

    fn end_piece(&self, sink: &mut Self::Sink) -> Result<(), LineError> {
        if !sink.moved_on {
            if !sink.body.is_empty() {
                sink.head = Some(std::mem::take(&mut sink.body));
            }
            return Ok(());
        }
        sink.tail = sink.body.split_last_block();
        let complete = std::mem::take(&mut sink.body);
        let part = complete.finish(self.duplicates).map_err(|error| {
            let (line, kind) = run_error_at(error);
            LineError::new(line.unwrap_or(1), kind)
        })?;
        self.scorer.score(&part, &mut sink.scores);
        Ok(())
    }

    fn join(&self, sink: &mut Self::Sink, later: Self::Sink, offset: u32) -> Result<(), LineError> {
        if let Some(head) = later.head {
            let head = shifted(head, offset);
            match sink.open.take() {
                Some(mut open) if open.first_query() == head.first_query() => {
                    open.append(head, 0);
                    sink.open = Some(open);
                }
                other => {
                    sink.held_back.extend(other);
                    sink.open = Some(head);
                }
            }
        }
        if later.moved_on {
            // The open query ended inside this piece.
            sink.held_back.extend(sink.open.take());
            self.scorer.merge(&mut sink.scores, later.scores);
            sink.open = later.tail.map(|tail| shifted(tail, offset));
        }
        Ok(())
    }

    fn first(&self, piece: Self::Sink, offset: u32) -> Result<Self::Sink, LineError> {
        let mut sink = self.sink();
        self.join(&mut sink, piece, offset)?;
        Ok(sink)
    }
}
