//! Reading a run while evaluating it.
//!
//! A run grouped by query (every TREC or CSV run a system writes) can be
//! evaluated as it is parsed: each piece's parser collects one query at a
//! time in a small reused buffer, and when the next query starts, finishes
//! the one collected (repeats, order), judges and scores it while it is in
//! the CPU cache, and keeps only its scores. The first and last query of
//! each piece may continue in the neighbouring pieces; they are held back,
//! joined in input order and scored at the end. So the run is never stored
//! whole.
//!
//! Whether the run really is grouped is for the scorer to tell (a query
//! scored twice); the caller then reads it the general way. The scorer is
//! the engine's (the `rankeval` crate's `engine::stream`): this module only
//! hands it complete lists.

use std::fs::File;
use std::io::{Read, Write};
use std::sync::Arc;

use rankeval_core::{Decimal, Duplicates, ListBuffer, RankedList, Run, RunBuilder, RunError};
use rayon::prelude::*;

use super::csv::CsvRun;
use super::error::{LineError, ReadError};
use super::lines::{LineCounts, LineParser, RunLines, RunSink};
use super::msmarco::{MSMARCO_RUN_LINE, MsmarcoRun};
use super::table::TableRunSink;
use super::trec::{RUN_LINE, TrecRun};
use super::{Format, Input, Origin, Progress, ReadOptions, finish_run, run_error_at};

/// Scores complete lists of a run as they are read (the engine's side).
pub trait ListScorer: Sync {
    /// What scoring parts of the run gives.
    type Scores: Send + Default;
    /// Scores `query`'s complete, finished `list` into `scores`.
    fn score_list(&self, query: &[u8], list: RankedList<'_>, scores: &mut Self::Scores);
    /// Finishes (repeats per `duplicates`, order) and scores the complete
    /// list of one query in `buffer` into `scores`.
    fn score_buffer(
        &self,
        buffer: &ListBuffer,
        duplicates: Duplicates,
        scores: &mut Self::Scores,
    ) -> Result<(), RunError>;
    /// Scores every list of `part`, a set of complete queries, into `scores`.
    fn score(&self, part: &Run, scores: &mut Self::Scores) {
        for r in 0..part.num_queries() as u32 {
            self.score_list(part.query_bytes(r), part.list_at(r), scores);
        }
    }
    /// Appends `later` to `scores`.
    fn merge(&self, scores: &mut Self::Scores, later: Self::Scores);
}

/// Reads `input` as a run, scoring each query with `scorer` as soon as its
/// lines are complete. `None` for formats read whole (JSON Lines).
pub fn stream_run<S: ListScorer>(
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
        Format::Msmarco => {
            let parser = Streaming::new(MsmarcoRun, scorer, duplicates);
            input.parse(&parser, MSMARCO_RUN_LINE, progress)?.sink
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
        Format::Parquet => {
            // Only a regular file can be read again if the run turns out
            // not to be grouped (a pipe is read into memory first).
            return match input.plain_file() {
                Some(path) => super::parquet::stream_run(
                    &input.name,
                    path,
                    &input.csv,
                    options,
                    scorer,
                    progress,
                ),
                None => Ok(None),
            };
        }
        Format::Jsonl | Format::JsonlRows | Format::Json | Format::Arrow => {
            return Ok(None);
        }
    };
    sink.score_held_back(scorer, |query| finish_run(input, query, options))
        .map(Some)
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
    /// The query being read.
    current: ListBuffer,
    /// The piece's first query, once the piece moved on to another one.
    head: Option<RunBuilder>,
    /// Whether a second query started in the piece.
    moved_on: bool,
    /// The piece's last query, which the next piece may continue.
    tail: Option<RunBuilder>,
    /// A problem found while finishing a query (a repeated document), with
    /// its own line; reported after the line that revealed it.
    failed: Option<RunError>,
    /// Scores of the complete queries.
    scores: T,
    /// Joined: the last query so far, which the next piece may continue.
    open: Option<RunBuilder>,
    /// Joined: complete queries that spanned a piece boundary, to score.
    held_back: Vec<RunBuilder>,
}

impl<T: Default + Send> StreamSink<T> {
    /// The scores of every query, once the joined sink's last query and
    /// those that spanned a piece boundary are finished (`finish`, in
    /// parallel) and scored.
    fn score_held_back<S, E>(
        self,
        scorer: &S,
        finish: impl Fn(RunBuilder) -> Result<Run, E> + Sync,
    ) -> Result<T, E>
    where
        S: ListScorer<Scores = T>,
        E: Send,
    {
        let StreamSink {
            mut scores,
            open,
            mut held_back,
            ..
        } = self;
        held_back.extend(open);
        let parts: Vec<Result<T, E>> = held_back
            .into_par_iter()
            .map(|query| {
                let part = finish(query)?;
                let mut scores = S::Scores::default();
                scorer.score(&part, &mut scores);
                Ok(scores)
            })
            .collect();
        for part in parts {
            scorer.merge(&mut scores, part?);
        }
        Ok(scores)
    }
}

impl<T: Default> StreamSink<T> {
    fn new() -> Self {
        Self {
            current: ListBuffer::new(),
            head: None,
            moved_on: false,
            tail: None,
            failed: None,
            scores: T::default(),
            open: None,
            held_back: Vec::new(),
        }
    }
}

impl<T> StreamSink<T> {
    /// The piece ends: its last query may continue in the next piece, so
    /// it is held, not scored.
    fn end_piece(&mut self) {
        if !self.current.is_empty() {
            let last = self.current.take_builder();
            if self.moved_on {
                self.tail = Some(last);
            } else {
                self.head = Some(last);
            }
        }
    }

    /// Appends `later`, the next piece's sink (its positions shifted by
    /// `offset`), joining a query that continues from one into the other.
    fn join<S: ListScorer<Scores = T>>(&mut self, scorer: &S, later: Self, offset: u64) {
        if let Some(head) = later.head {
            let head = shifted(head, offset);
            match self.open.take() {
                Some(mut open) if open.first_query() == head.first_query() => {
                    open.append(head, 0);
                    self.open = Some(open);
                }
                other => {
                    self.held_back.extend(other);
                    self.open = Some(head);
                }
            }
        }
        if later.moved_on {
            // The open query ended inside this piece.
            self.held_back.extend(self.open.take());
            scorer.merge(&mut self.scores, later.scores);
            self.open = later.tail.map(|tail| shifted(tail, offset));
        }
    }
}

/// A core error from finishing a query's list, as the error of its line.
fn line_error(error: RunError) -> LineError {
    let (line, kind) = run_error_at(error);
    LineError::new(line.unwrap_or(1), kind)
}

/// `builder` with `offset` added to its line numbers.
fn shifted(builder: RunBuilder, offset: u64) -> RunBuilder {
    if offset == 0 {
        return builder;
    }
    let mut moved = RunBuilder::with_capacity(builder.len(), 0);
    moved.append(builder, offset);
    moved
}

/// Pushes a piece's entries into its sink, finishing each query as the next
/// one starts.
struct Pusher<'s, 'p, S: ListScorer> {
    sink: &'s mut StreamSink<S::Scores>,
    scorer: &'p S,
    duplicates: Duplicates,
}

impl<S: ListScorer> Pusher<'_, '_, S> {
    /// Before an entry of `query`: if the buffer holds another query, that
    /// query is complete.
    ///
    /// On every line, so always inlined into the parsing loop, and the
    /// once-per-query [`complete`](Self::complete) never is: left to LLVM,
    /// under thin LTO, this check became a call per line in some builds
    /// (42M instructions of 1.76G on the five-metric benchmark, 20k x 100).
    #[inline(always)]
    fn next_entry(&mut self, query: &[u8]) {
        if self.sink.current.holds_other_query(query) {
            if self.sink.moved_on {
                self.complete();
            } else {
                // The piece's first query ended: it may have begun in the
                // piece before, so it is held, not scored.
                self.sink.head = Some(self.sink.current.take_builder());
                self.sink.moved_on = true;
            }
        }
    }

    /// The query in the buffer is complete: finish, judge and score it.
    #[inline(never)]
    fn complete(&mut self) {
        let sink = &mut *self.sink;
        match self
            .scorer
            .score_buffer(&sink.current, self.duplicates, &mut sink.scores)
        {
            Ok(()) => {}
            Err(error) => {
                if sink.failed.is_none() {
                    sink.failed = Some(error);
                }
            }
        }
        sink.current.clear();
    }
}

impl<S: ListScorer> RunSink for Pusher<'_, '_, S> {
    #[inline]
    fn push_scored_at(
        &mut self,
        query: &[u8],
        doc: &[u8],
        score: f64,
        at: u64,
    ) -> Result<(), RunError> {
        self.next_entry(query);
        self.sink.current.push_scored_at(query, doc, score, at)
    }

    #[inline]
    fn push_decimal_at(
        &mut self,
        query: &[u8],
        doc: &[u8],
        score: Decimal,
        at: u64,
    ) -> Result<(), RunError> {
        self.next_entry(query);
        self.sink.current.push_decimal_at(query, doc, score, at)
    }

    #[inline]
    fn take_failure(&mut self) -> Option<LineError> {
        self.sink.failed.take().map(line_error)
    }
}

impl<P, S> LineParser for Streaming<'_, P, S>
where
    P: RunLines,
    S: ListScorer,
{
    type Sink = StreamSink<S::Scores>;

    fn sink(&self) -> Self::Sink {
        StreamSink::new()
    }

    #[inline]
    fn parse(&self, sink: &mut Self::Sink, line: &[u8], number: u64) -> Result<(), LineError> {
        let mut pusher = Pusher {
            sink,
            scorer: self.scorer,
            duplicates: self.duplicates,
        };
        self.inner.parse_into(&mut pusher, line, number)?;
        match sink.failed.take() {
            Some(error) => Err(line_error(error)),
            None => Ok(()),
        }
    }

    fn parse_piece(&self, sink: &mut Self::Sink, piece: &[u8]) -> Result<LineCounts, LineError> {
        let mut pusher = Pusher {
            sink,
            scorer: self.scorer,
            duplicates: self.duplicates,
        };
        self.inner.parse_piece_into(&mut pusher, piece)
    }

    fn end_piece(&self, sink: &mut Self::Sink) -> Result<(), LineError> {
        sink.end_piece();
        Ok(())
    }

    fn join(&self, sink: &mut Self::Sink, later: Self::Sink, offset: u64) -> Result<(), LineError> {
        sink.join(self.scorer, later, offset);
        Ok(())
    }

    fn first(&self, piece: Self::Sink, offset: u64) -> Result<Self::Sink, LineError> {
        let mut sink = self.sink();
        self.join(&mut sink, piece, offset)?;
        Ok(sink)
    }
}

/// A table's rows (a Parquet row group), pushed into a sink that scores
/// each query as soon as its rows are complete; see [`TableStream`].
pub(crate) struct RowSink<T> {
    sink: StreamSink<T>,
    /// A row this sink cannot take: a list without scores or an empty
    /// list, which only a whole [`Run`] holds. The table is then read whole.
    unsupported: bool,
}

/// Evaluating a run table (Parquet) while it is read, piece by piece
/// (row groups, in parallel): the same sinks and joining as for text, so
/// the values are the same bits as reading the run whole.
pub(crate) struct TableStream<'a, S> {
    scorer: &'a S,
    duplicates: Duplicates,
}

impl<'a, S: ListScorer> TableStream<'a, S> {
    pub(crate) fn new(scorer: &'a S, duplicates: Duplicates) -> Self {
        Self { scorer, duplicates }
    }

    /// An empty sink for one piece.
    pub(crate) fn sink(&self) -> RowSink<S::Scores> {
        RowSink {
            sink: StreamSink::new(),
            unsupported: false,
        }
    }

    /// A sink to push rows into, scoring complete queries.
    pub(crate) fn rows<'s>(&'a self, sink: &'s mut RowSink<S::Scores>) -> RowPusher<'s, 'a, S> {
        RowPusher {
            pusher: Pusher {
                sink: &mut sink.sink,
                scorer: self.scorer,
                duplicates: self.duplicates,
            },
            unsupported: &mut sink.unsupported,
        }
    }

    /// The first problem found while finishing a query of the piece.
    pub(crate) fn take_failure(&self, sink: &mut RowSink<S::Scores>) -> Option<RunError> {
        sink.sink.failed.take()
    }

    /// Joins the pieces' sinks in order, and finishes and scores the
    /// queries held back (those that may span pieces) with `finish`.
    /// `None` if a piece held rows only a whole run can take.
    pub(crate) fn finish<E: Send>(
        &self,
        pieces: Vec<RowSink<S::Scores>>,
        finish: impl Fn(RunBuilder) -> Result<Run, E> + Sync,
    ) -> Result<Option<S::Scores>, E> {
        if pieces.iter().any(|p| p.unsupported) {
            return Ok(None);
        }
        let mut all = StreamSink::new();
        for mut piece in pieces {
            piece.sink.end_piece();
            all.join(self.scorer, piece.sink, 0);
        }
        all.score_held_back(self.scorer, finish).map(Some)
    }
}

/// Pushes a table's rows into a piece's sink; see [`TableStream`].
pub(crate) struct RowPusher<'s, 'p, S: ListScorer> {
    pusher: Pusher<'s, 'p, S>,
    unsupported: &'s mut bool,
}

impl<S: ListScorer> TableRunSink for RowPusher<'_, '_, S> {
    fn declare_list(
        &mut self,
        _query: &[u8],
        ranked: bool,
        len: usize,
        _at: u64,
    ) -> Result<(), RunError> {
        if ranked || len == 0 {
            *self.unsupported = true;
        }
        Ok(())
    }

    #[inline]
    fn push_scored_at(
        &mut self,
        query: &[u8],
        doc: &[u8],
        score: f64,
        at: u64,
    ) -> Result<(), RunError> {
        RunSink::push_scored_at(&mut self.pusher, query, doc, score, at)
    }

    fn push_ranked_at(&mut self, _query: &[u8], _doc: &[u8], _at: u64) -> Result<(), RunError> {
        *self.unsupported = true;
        Ok(())
    }

    #[inline]
    fn push_scored_contiguous(
        &mut self,
        query: &[u8],
        docs: &[u8],
        ends: impl ExactSizeIterator<Item = usize>,
        scores: &[f64],
        first_at: u64,
    ) -> Result<(), RunError> {
        self.pusher.next_entry(query);
        self.pusher
            .sink
            .current
            .push_scored_contiguous(query, docs, ends, scores, first_at)
    }
}

/// A run that cannot be read twice (a pipe, a FIFO, `<(...)`), read once
/// for streaming evaluation while its bytes (still compressed, if gzip) are
/// copied to a temporary spill file: if the run turns out not to be grouped
/// by query, it is read whole from the spill file instead of the pipe,
/// which holds nothing any more. The spill file is deleted when dropped
/// (and on INT, TERM or HUP with the command line's handler, see
/// [`temporary`](crate::temporary)).
pub struct Spill {
    file: tempfile::NamedTempFile,
    teed: Input,
}

impl Spill {
    /// `None` when `input` can be read again as it is (a regular file,
    /// bytes in memory).
    pub fn new(input: &Input) -> Result<Option<Self>, ReadError> {
        let Origin::File(path) = &input.origin else {
            return Ok(None);
        };
        if std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            return Ok(None);
        }
        let io_error = |e: std::io::Error| ReadError::new(&input.name, None, e.into());
        let file = tempfile::Builder::new()
            .prefix(".rankeval-spill")
            .tempfile()
            .map_err(io_error)?;
        crate::temporary::register(file.path());
        let copy = Arc::new(file.reopen().map_err(io_error)?);
        let mut teed = input.clone();
        teed.origin = Origin::Teed(path.clone(), copy);
        Ok(Some(Self { file, teed }))
    }

    /// The input to read first: the pipe, copied to the spill file.
    pub fn teed(&self) -> &Input {
        &self.teed
    }

    /// The same input again, from the spill file (after [`teed`](Self::teed)
    /// was read to its end).
    pub fn replay(&self) -> Input {
        let mut replay = self.teed.clone();
        replay.origin = Origin::File(self.file.path().to_owned());
        replay
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        crate::temporary::unregister(self.file.path());
    }
}

/// A reader that copies what it reads to a file.
pub(crate) struct Tee {
    inner: File,
    copy: Arc<File>,
}

impl Tee {
    pub(crate) fn new(inner: File, copy: Arc<File>) -> Self {
        Self { inner, copy }
    }
}

impl Read for Tee {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        (&*self.copy).write_all(&buf[..n])?;
        Ok(n)
    }
}
