//! Retrieval for RAG judged on text spans (docs/judgements.md, "Retrieval
//! for RAG, judged on text spans").
//!
//! Span qrels hold `(query, doc, start, end, grade)`: a passage of a
//! document, half-open `[start, end)` character offsets local to the
//! document, judged with a grade. A run of chunks holds `(query, doc,
//! start, end, score)`. Since judgements name text, not chunk ids,
//! re-chunking a corpus leaves them valid:
//!
//! - **chunk level**: a retrieved chunk's grade is the highest grade of
//!   the spans of its query and document that it overlaps by the declared
//!   [`Overlap`] rule; the spans and chunks become ordinary [`Qrels`] and
//!   [`Run`] ([`chunk_level`]) and every metric of the engine applies;
//! - **character level**: the retrieved text of the top k chunks against
//!   the relevant text, as character sets: precision, recall and IoU
//!   ([`char_level`]).
//!
//! Files are read by the readers ([`rankeval_readers::spans`]: CSV/TSV with
//! CSV quoting, JSON Lines, Parquet and Arrow IPC, plain or gzip, within the
//! limits every reader shares, ids held to the one id rule, offsets bounded
//! by [`MAX_OFFSET`]); this module evaluates what they read, held as
//! [`SpanQrels`] and [`ChunkRun`]: 32 bytes a row and each distinct id
//! once.

use std::cmp::Ordering;
use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::str::FromStr;

use rankeval_core::exact_sum::fmean;
use rankeval_core::{
    Duplicates, Metric, Qrels, QrelsBuilder, Run, RunBuilder, compare_scored, shorten_id,
};
use rankeval_readers::spans::{SpanFileError, SpanRow, SpanTable};
use serde::Serialize;

use crate::engine::{NeverRan, Options, Warning, evaluate, never_ran};

/// The largest character offset a span or a chunk may have, 2^53 (every
/// count of characters is then exact as an `f64`), refused where it is
/// read.
pub use rankeval_readers::spans::MAX_OFFSET;
/// The id of the chunk `[start, end)` of `doc`: `doc#start-end`.
pub use rankeval_readers::spans::chunk_id;

/// A judged passage: half-open character offsets `[start, end)` in `doc`.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// The query.
    pub query: String,
    /// The document.
    pub doc: String,
    /// The first character.
    pub start: u64,
    /// One past the last character (`end > start`).
    pub end: u64,
    /// Its grade (0: judged non-relevant).
    pub grade: f64,
}

/// A retrieved chunk: half-open character offsets `[start, end)` in `doc`.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    /// The query.
    pub query: String,
    /// The document.
    pub doc: String,
    /// The first character.
    pub start: u64,
    /// One past the last character (`end > start`).
    pub end: u64,
    /// Its score: higher is ranked first.
    pub score: f64,
}

impl Chunk {
    /// The chunk's id in the chunk-level run and qrels: `doc#start-end`.
    pub fn id(&self) -> String {
        chunk_id(&self.doc, self.start, self.end)
    }
}

/// The id of a relevant span no retrieved chunk matched, in the
/// chunk-level qrels: `doc#span:start-end` (never a chunk's id).
pub fn unretrieved_span_id(doc: &str, start: u64, end: u64) -> String {
    format!("{doc}#span:{start}-{end}")
}

/// Why span qrels or a chunk run could not be read or used.
#[derive(Debug, thiserror::Error)]
pub enum SpansError {
    /// A file could not be read: the readers' error, naming the file and
    /// the line or row.
    #[error(transparent)]
    Read(#[from] SpanFileError),
    /// The chunk-level qrels or run could not be built.
    #[error("{0}")]
    Build(String),
    /// A run of chunks never ran on the span qrels: it shares no query with
    /// them, or has no chunk for any of theirs (every value would be 0).
    #[error(transparent)]
    NeverRan(#[from] NeverRan),
}

/// The overlap rule that makes a chunk match a span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Overlap {
    /// At least one character in common.
    Any,
    /// `|chunk ∩ span| / |chunk ∪ span| >= t`.
    Iou(f64),
    /// `|chunk ∩ span| / |span| >= t`: the share of the span the chunk
    /// covers.
    Coverage(f64),
}

impl Overlap {
    /// Whether the chunk `[chunk.0, chunk.1)` matches the span `[span.0,
    /// span.1)` (never without a character in common). The counts are
    /// exact for any offsets (128-bit sums); below [`MAX_OFFSET`] they are
    /// also exact as `f64`.
    pub fn holds(self, chunk: (u64, u64), span: (u64, u64)) -> bool {
        let common = u128::from(chunk.1.min(span.1).saturating_sub(chunk.0.max(span.0)));
        if common == 0 {
            return false;
        }
        // A character in common: both ranges are non-empty.
        let chunk_len = u128::from(chunk.1 - chunk.0);
        let span_len = u128::from(span.1 - span.0);
        match self {
            Overlap::Any => true,
            Overlap::Iou(t) => ratio(common, chunk_len + span_len - common) >= t,
            Overlap::Coverage(t) => ratio(common, span_len) >= t,
        }
    }
}

impl fmt::Display for Overlap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Overlap::Any => f.write_str("any"),
            Overlap::Iou(t) => write!(f, "iou>={t}"),
            Overlap::Coverage(t) => write!(f, "coverage>={t}"),
        }
    }
}

impl FromStr for Overlap {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text == "any" {
            return Ok(Overlap::Any);
        }
        let bad = || {
            format!(
                "`{}`: `any`, `iou>=T` or `coverage>=T`, T in (0, 1]",
                shorten_id(text.as_bytes())
            )
        };
        let (rule, threshold) = text.split_once(">=").ok_or_else(bad)?;
        let t: f64 = threshold.trim().parse().map_err(|_| bad())?;
        if !(t > 0.0 && t <= 1.0) {
            return Err(bad());
        }
        match rule.trim() {
            "iou" => Ok(Overlap::Iou(t)),
            "coverage" => Ok(Overlap::Coverage(t)),
            _ => Err(bad()),
        }
    }
}

/// `a / b` of two counts (0 when `b` is 0).
fn ratio(a: u128, b: u128) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// An id of a table that the other table does not hold.
const ABSENT: u32 = u32::MAX;

/// The rows of span qrels or of a run of chunks, as the readers hold them.
type Table = SpanTable;

/// A row of a [`Table`].
type Entry = SpanRow;

/// The rows of `table` as `(query, doc, start, end, value)` with their ids
/// as text.
fn texts(table: &Table) -> impl Iterator<Item = (String, String, u64, u64, f64)> + '_ {
    table.rows.iter().map(|r| {
        (
            table.text(r.query),
            table.text(r.doc),
            r.start,
            r.end,
            r.value,
        )
    })
}

/// Where the rows of `(query, doc)` are in `order` (from
/// [`SpanTable::by_query_doc`]).
fn group(table: &Table, order: &[u32], query: u32, doc: u32) -> Range<usize> {
    let key = |i: &u32| {
        let r = &table.rows[*i as usize];
        (r.query, r.doc)
    };
    let start = order.partition_point(|i| key(i) < (query, doc));
    let len = order[start..].partition_point(|i| key(i) == (query, doc));
    start..start + len
}

/// For each id of `table`, the same id in `other` ([`ABSENT`] if it has
/// none).
fn translate(table: &Table, other: &Table) -> Vec<u32> {
    (0..table.ids.len() as u32)
        .map(|id| other.ids.get(table.ids.resolve(id)).unwrap_or(ABSENT))
        .collect()
}

/// The order of a run's chunks `a` and `b` (rows of `table`): score
/// descending, ties by chunk id descending in byte order, as every run
/// ([`compare_scored`]); the ids are compared without being built.
fn run_order(table: &Table, a: &Entry, b: &Entry) -> Ordering {
    compare_scored((a.value, &[]), (b.value, &[])).then_with(|| {
        let mut buffers = [[0u8; 20]; 4];
        let [a_start, a_end, b_start, b_end] = &mut buffers;
        let a_id = id_bytes(
            table.ids.resolve(a.doc),
            decimal(a.start, a_start),
            decimal(a.end, a_end),
        );
        let b_id = id_bytes(
            table.ids.resolve(b.doc),
            decimal(b.start, b_start),
            decimal(b.end, b_end),
        );
        b_id.cmp(a_id)
    })
}

/// The bytes of the chunk id `doc#start-end` ([`chunk_id`]), the offsets
/// given in decimal.
fn id_bytes<'a>(doc: &'a [u8], start: &'a [u8], end: &'a [u8]) -> impl Iterator<Item = &'a u8> {
    doc.iter().chain(b"#").chain(start).chain(b"-").chain(end)
}

/// `n` in decimal, written at the end of `buffer`.
fn decimal(mut n: u64, buffer: &mut [u8; 20]) -> &[u8] {
    let mut at = buffer.len();
    loop {
        at -= 1;
        buffer[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buffer[at..];
        }
    }
}

/// Span qrels as held for evaluation: each span 32 bytes, each distinct
/// query or document id once (a `Vec<Span>` holds two strings a span).
/// Read by [`read_span_qrels`], or made from spans with `From`.
#[derive(Clone, Default)]
pub struct SpanQrels {
    table: Table,
}

impl SpanQrels {
    /// The number of spans.
    pub fn len(&self) -> usize {
        self.table.rows.len()
    }

    /// Whether there is no span.
    pub fn is_empty(&self) -> bool {
        self.table.rows.is_empty()
    }

    /// The spans, in input order.
    pub fn spans(&self) -> impl Iterator<Item = Span> + '_ {
        texts(&self.table).map(|(query, doc, start, end, grade)| Span {
            query,
            doc,
            start,
            end,
            grade,
        })
    }
}

impl From<&[Span]> for SpanQrels {
    fn from(spans: &[Span]) -> Self {
        SpanQrels {
            table: SpanTable::of(
                spans
                    .iter()
                    .map(|s| (s.query.as_str(), s.doc.as_str(), s.start, s.end, s.grade)),
            ),
        }
    }
}

impl fmt::Debug for SpanQrels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SpanQrels")
            .field("spans", &self.len())
            .finish_non_exhaustive()
    }
}

/// A run of chunks as held for evaluation: each chunk 32 bytes, each
/// distinct query or document id once, and the file it was read from.
/// Read by [`read_chunk_run`], or made from chunks with `From`.
#[derive(Clone, Default)]
pub struct ChunkRun {
    table: Table,
    source: String,
}

impl ChunkRun {
    /// The number of chunks.
    pub fn len(&self) -> usize {
        self.table.rows.len()
    }

    /// Whether there is no chunk.
    pub fn is_empty(&self) -> bool {
        self.table.rows.is_empty()
    }

    /// The chunks, in input order.
    pub fn chunks(&self) -> impl Iterator<Item = Chunk> + '_ {
        texts(&self.table).map(|(query, doc, start, end, score)| Chunk {
            query,
            doc,
            start,
            end,
            score,
        })
    }

    /// The file the run was read from (empty if made from chunks), which
    /// messages about the run name.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The same run, named as read from `source` in messages.
    pub fn with_source(mut self, source: impl Into<String>) -> Self {
        self.source = source.into();
        self
    }
}

impl From<&[Chunk]> for ChunkRun {
    fn from(chunks: &[Chunk]) -> Self {
        ChunkRun {
            table: SpanTable::of(
                chunks
                    .iter()
                    .map(|c| (c.query.as_str(), c.doc.as_str(), c.start, c.end, c.score)),
            ),
            source: String::new(),
        }
    }
}

impl fmt::Debug for ChunkRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkRun")
            .field("chunks", &self.len())
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

/// Reads span qrels: a CSV/TSV table with a header naming `query, doc,
/// start, end, grade`, JSON Lines objects with those keys, or a Parquet or
/// Arrow IPC table with those columns; plain or gzip, within the limits of
/// every input read whole ([`rankeval_readers::spans`]).
pub fn read_span_qrels(path: &Path) -> Result<SpanQrels, SpansError> {
    let table = rankeval_readers::spans::read_span_qrels(path)?;
    Ok(SpanQrels { table })
}

/// Reads a run of chunks: as [`read_span_qrels`], with a `score` column
/// (key) in place of `grade`. A chunk given twice for one query is an
/// error naming both lines (rows).
pub fn read_chunk_run(path: &Path) -> Result<ChunkRun, SpansError> {
    let table = rankeval_readers::spans::read_chunk_run(path)?;
    Ok(ChunkRun {
        table,
        source: path.display().to_string(),
    })
}

/// [`read_span_qrels`] as a list of [`Span`]s.
pub fn read_spans(path: &Path) -> Result<Vec<Span>, SpansError> {
    Ok(read_span_qrels(path)?.spans().collect())
}

/// [`read_chunk_run`] as a list of [`Chunk`]s.
pub fn read_chunks(path: &Path) -> Result<Vec<Chunk>, SpansError> {
    Ok(read_chunk_run(path)?.chunks().collect())
}

/// [`read_span_qrels`] on bytes (not gzip); `name` is the file errors name.
/// Span qrels without a row are an error (there would be nothing to
/// evaluate against).
pub fn parse_span_qrels(bytes: &[u8], name: &str) -> Result<SpanQrels, SpansError> {
    let table = rankeval_readers::spans::parse_span_qrels(bytes, name)?;
    Ok(SpanQrels { table })
}

/// [`read_chunk_run`] on bytes (not gzip); `name` is the file errors name
/// (and the run's [`source`](ChunkRun::source)). A run without chunks is
/// read (its evaluation refuses it, [`spans_report`]).
pub fn parse_chunk_run(bytes: &[u8], name: &str) -> Result<ChunkRun, SpansError> {
    let table = rankeval_readers::spans::parse_chunk_run(bytes, name)?;
    Ok(ChunkRun {
        table,
        source: name.to_owned(),
    })
}

/// [`read_spans`] on text; `name` is the file errors name.
pub fn parse_spans(text: &str, name: &str) -> Result<Vec<Span>, SpansError> {
    Ok(parse_span_qrels(text.as_bytes(), name)?.spans().collect())
}

/// [`read_chunks`] on text; `name` is the file errors name. A chunk given
/// twice for one query is an error.
pub fn parse_chunks(text: &str, name: &str) -> Result<Vec<Chunk>, SpansError> {
    Ok(parse_chunk_run(text.as_bytes(), name)?.chunks().collect())
}

/// The chunk-level grade of `chunk`: the highest grade of the spans of its
/// query and document it matches by `overlap`; 0 when the document has
/// spans for the query but the chunk matches none; `None` (unjudged) when
/// the document has no span for the query.
pub fn chunk_grade(spans: &[Span], chunk: &Chunk, overlap: Overlap) -> Option<f64> {
    let mut judged = false;
    let mut grade: f64 = 0.0;
    for s in spans
        .iter()
        .filter(|s| s.query == chunk.query && s.doc == chunk.doc)
    {
        judged = true;
        if overlap.holds((chunk.start, chunk.end), (s.start, s.end)) {
            grade = grade.max(s.grade);
        }
    }
    judged.then_some(grade)
}

/// Span qrels and a run of chunks as ordinary qrels and run, for the
/// engine's metrics.
#[derive(Clone, Debug)]
pub struct ChunkLevel {
    /// Every query of the span qrels; per query, each retrieved chunk of a
    /// document with spans for it, graded by [`chunk_grade`] (id
    /// [`chunk_id`]), and each span of grade > 0 no retrieved chunk matched
    /// (id [`unretrieved_span_id`]), so that `|R|` counts it.
    pub qrels: Qrels,
    /// The chunks, ids [`chunk_id`], ranked by score (ties by id, as every
    /// run).
    pub run: Run,
}

/// Builds the chunk-level qrels and run of `chunks` against `spans`.
pub fn chunk_level(
    spans: &[Span],
    chunks: &[Chunk],
    overlap: Overlap,
) -> Result<ChunkLevel, SpansError> {
    chunk_level_of(&SpanQrels::from(spans), &ChunkRun::from(chunks), overlap)
}

/// [`chunk_level`] of span qrels and a run as held: each chunk's spans
/// found by binary search in the spans sorted once, ids built once, into
/// the run and the qrels.
pub fn chunk_level_of(
    spans: &SpanQrels,
    chunks: &ChunkRun,
    overlap: Overlap,
) -> Result<ChunkLevel, SpansError> {
    let build = |e: &dyn fmt::Display| SpansError::Build(e.to_string());
    let (s, c) = (&spans.table, &chunks.table);
    let to_span = translate(c, s);
    let order = s.by_query_doc();
    let mut qrels = QrelsBuilder::new();
    let mut matched = vec![false; s.rows.len()];
    // The run's ids take exactly this many bytes: sized once.
    let digits = |n: u64| n.checked_ilog10().unwrap_or(0) as usize + 1;
    let id_bytes_total: usize = c
        .rows
        .iter()
        .map(|r| c.ids.resolve(r.doc).len() + 2 + digits(r.start) + digits(r.end))
        .sum();
    let mut run = RunBuilder::with_capacity(c.rows.len(), id_bytes_total);
    let mut id: Vec<u8> = Vec::new();
    let mut buffers = [[0u8; 20]; 2];
    for (at, r) in c.rows.iter().enumerate() {
        let at = at as u64 + 1;
        let query = c.ids.resolve(r.query);
        let [start, end] = &mut buffers;
        id.clear();
        id.extend(id_bytes(
            c.ids.resolve(r.doc),
            decimal(r.start, start),
            decimal(r.end, end),
        ));
        run.push_scored_at(query, &id, r.value, at)
            .map_err(|e| build(&e))?;
        let (span_query, span_doc) = (to_span[r.query as usize], to_span[r.doc as usize]);
        if span_query == ABSENT || span_doc == ABSENT {
            continue;
        }
        let group = group(s, &order, span_query, span_doc);
        if group.is_empty() {
            continue;
        }
        let mut grade: f64 = 0.0;
        for &i in &order[group] {
            let span = &s.rows[i as usize];
            if overlap.holds((r.start, r.end), (span.start, span.end)) {
                matched[i as usize] = true;
                grade = grade.max(span.value);
            }
        }
        qrels
            .push_at(query, &id, grade, at)
            .map_err(|e| build(&e))?;
    }
    // Each relevant span no chunk matched, once per (query, doc, start,
    // end): the first of equal spans (in input order) gives the grade.
    let mut last: Option<(u32, u32, u64, u64)> = None;
    for &i in &order {
        let span = &s.rows[i as usize];
        let key = (span.query, span.doc, span.start, span.end);
        if matched[i as usize] || span.value <= 0.0 || last == Some(key) {
            continue;
        }
        last = Some(key);
        let doc = s.text(span.doc);
        let id = unretrieved_span_id(&doc, span.start, span.end);
        qrels
            .push_at(
                s.ids.resolve(span.query),
                id.as_bytes(),
                span.value,
                u64::from(i) + 1,
            )
            .map_err(|e| build(&e))?;
    }
    // Every query of the span qrels counts, judgements or none (declared
    // last: a query already given a judgement opens no list of its own).
    for (at, r) in s.rows.iter().enumerate() {
        qrels
            .declare_query(s.ids.resolve(r.query), at as u64 + 1)
            .map_err(|e| build(&e))?;
    }
    Ok(ChunkLevel {
        qrels: qrels.finish().map_err(|e| build(&e))?,
        run: run.finish(Duplicates::Error).map_err(|e| build(&e))?,
    })
}

/// The union of half-open ranges, sorted and merged (touching ranges
/// joined).
pub fn union(mut ranges: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    ranges.retain(|r| r.1 > r.0);
    ranges.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
    merge_sorted(&ranges, &mut out);
    out
}

/// Appends to `out` the union of `ranges`, sorted by start, merged
/// (touching ranges joined, empty ones left out).
fn merge_sorted(ranges: &[(u64, u64)], out: &mut Vec<(u64, u64)>) {
    let first = out.len();
    for &(start, end) in ranges {
        if end <= start {
            continue;
        }
        match out[first..].last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => out.push((start, end)),
        }
    }
}

/// The number of characters of merged ranges (disjoint ones: their sum
/// fits a `u64`; a range with `end <= start` counts 0).
pub fn length(ranges: &[(u64, u64)]) -> u64 {
    ranges
        .iter()
        .fold(0u64, |sum, r| sum.saturating_add(r.1.saturating_sub(r.0)))
}

/// The number of characters two merged lists of ranges have in common.
pub fn common(a: &[(u64, u64)], b: &[(u64, u64)]) -> u64 {
    let (mut i, mut j, mut total) = (0, 0, 0u64);
    while i < a.len() && j < b.len() {
        let start = a[i].0.max(b[j].0);
        let end = a[i].1.min(b[j].1);
        total = total.saturating_add(end.saturating_sub(start));
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    total
}

/// The number of characters of ranges, as a 128-bit count (never wraps,
/// however many ranges).
fn count(ranges: &[(u64, u64)]) -> u128 {
    ranges
        .iter()
        .map(|r| u128::from(r.1.saturating_sub(r.0)))
        .sum()
}

/// One query's character-level values.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CharScores {
    /// `|retrieved ∩ relevant| / |retrieved|` (0 when nothing is retrieved).
    pub precision: f64,
    /// `|retrieved ∩ relevant| / |relevant|`.
    pub recall: f64,
    /// `|retrieved ∩ relevant| / |retrieved ∪ relevant|`.
    pub iou: f64,
}

/// Each query's character-level values.
#[derive(Clone, Debug, Serialize)]
pub struct CharLevel {
    /// `(query, values)` for each query of the span qrels with relevant
    /// text (spans of grade >= the level), in byte order of the ids.
    pub queries: Vec<(String, CharScores)>,
    /// Queries of the span qrels without relevant text: left out.
    pub without_relevant: usize,
}

/// The character-level values of `chunks` against `spans`: per query, the
/// union of the character ranges of the top `k` chunks (all with `None`;
/// ranked by score, ties as the chunk-level run), per document, against
/// the union of the spans of grade >= `level`. A query without chunks
/// scores 0.
pub fn char_level(spans: &[Span], chunks: &[Chunk], k: Option<usize>, level: f64) -> CharLevel {
    char_level_counting(spans, chunks, k, level, CharText::Union)
}

/// How the retrieved text is measured in character-level precision and
/// IoU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CharText {
    /// The union of the chunks' ranges: text two chunks share counts once.
    #[default]
    Union,
    /// The sum of the chunks' lengths: text two chunks share counts once
    /// per chunk, as Chroma's `chunking_evaluation` measures it (its
    /// precision's denominator is the sum of the retrieved chunks' lengths,
    /// its IoU's that sum plus the relevant text not retrieved). The same
    /// as `Union` when chunks do not overlap.
    Chunks,
}

/// [`char_level`], the retrieved text measured as `text` says.
pub fn char_level_counting(
    spans: &[Span],
    chunks: &[Chunk],
    k: Option<usize>,
    level: f64,
    text: CharText,
) -> CharLevel {
    char_level_of(
        &SpanQrels::from(spans),
        &ChunkRun::from(chunks),
        k,
        level,
        text,
    )
}

/// [`char_level_counting`] of span qrels and a run as held: the spans
/// sorted once by query and document, the chunks once by query and rank;
/// every count of characters is summed in 128 bits, so that no number of
/// chunks or documents makes it wrap.
pub fn char_level_of(
    spans: &SpanQrels,
    chunks: &ChunkRun,
    k: Option<usize>,
    level: f64,
    text: CharText,
) -> CharLevel {
    let (s, c) = (&spans.table, &chunks.table);
    let to_span = translate(c, s);
    let order = s.by_query_doc();
    // Each query of the span qrels and its rows in `order`, in byte order
    // of the ids.
    let mut queries: Vec<(u32, Range<usize>)> = Vec::new();
    let mut at = 0;
    while at < order.len() {
        let query = s.rows[order[at] as usize].query;
        let len = order[at..].partition_point(|&i| s.rows[i as usize].query == query);
        queries.push((query, at..at + len));
        at += len;
    }
    queries.sort_unstable_by(|a, b| s.ids.resolve(a.0).cmp(s.ids.resolve(b.0)));
    // The chunks of those queries, by query, each query's in the run's order.
    let span_query = |i: u32| to_span[c.rows[i as usize].query as usize];
    let mut ranked: Vec<u32> = (0..c.rows.len() as u32)
        .filter(|&i| span_query(i) != ABSENT)
        .collect();
    ranked.sort_unstable_by(|&a, &b| {
        span_query(a)
            .cmp(&span_query(b))
            .then_with(|| run_order(c, &c.rows[a as usize], &c.rows[b as usize]))
    });
    let mut out = Vec::new();
    let mut without_relevant = 0;
    // Buffers used again for every query: the relevant ranges, merged per
    // document, and where each document's are; the retrieved ranges.
    let mut relevant: Vec<(u64, u64)> = Vec::new();
    let mut relevant_docs: Vec<(u32, Range<usize>)> = Vec::new();
    let mut top: Vec<(u32, u64, u64)> = Vec::new();
    let mut merged: Vec<(u64, u64)> = Vec::new();
    for (query, rows) in queries {
        relevant.clear();
        relevant_docs.clear();
        // `order[rows]` is sorted by document, then start.
        for &i in &order[rows] {
            let r = &s.rows[i as usize];
            // NaN (only from spans built by hand) is not relevant.
            let at_level = r.value >= level;
            if !at_level || r.end <= r.start {
                continue;
            }
            match relevant_docs.last_mut() {
                Some((doc, ranges)) if *doc == r.doc => match relevant.last_mut() {
                    Some(last) if r.start <= last.1 => last.1 = last.1.max(r.end),
                    _ => {
                        relevant.push((r.start, r.end));
                        ranges.end += 1;
                    }
                },
                _ => {
                    relevant_docs.push((r.doc, relevant.len()..relevant.len() + 1));
                    relevant.push((r.start, r.end));
                }
            }
        }
        let relevant_len = count(&relevant);
        if relevant_len == 0 {
            without_relevant += 1;
            continue;
        }
        let first = ranked.partition_point(|&i| span_query(i) < query);
        let len = ranked[first..].partition_point(|&i| span_query(i) == query);
        let list = &ranked[first..first + len.min(k.unwrap_or(usize::MAX))];
        top.clear();
        top.extend(list.iter().map(|&i| {
            let r = &c.rows[i as usize];
            (r.doc, r.start, r.end)
        }));
        top.sort_unstable();
        let (mut retrieved, mut both) = (0u128, 0u128);
        for doc_chunks in top.chunk_by(|a, b| a.0 == b.0) {
            if text == CharText::Chunks {
                retrieved += doc_chunks
                    .iter()
                    .map(|r| u128::from(r.2.saturating_sub(r.1)))
                    .sum::<u128>();
            }
            merged.clear();
            for &(_, start, end) in doc_chunks {
                match merged.last_mut() {
                    Some(last) if start <= last.1 => last.1 = last.1.max(end),
                    _ if end > start => merged.push((start, end)),
                    _ => {}
                }
            }
            if text == CharText::Union {
                retrieved += count(&merged);
            }
            let doc = to_span[doc_chunks[0].0 as usize];
            if let Ok(at) = relevant_docs.binary_search_by_key(&doc, |(d, _)| *d) {
                let ranges = &relevant[relevant_docs[at].1.clone()];
                both += u128::from(common(&merged, ranges));
            }
        }
        out.push((
            s.text(query),
            CharScores {
                precision: ratio(both, retrieved),
                recall: ratio(both, relevant_len),
                // Union: |retrieved ∪ relevant|; chunks: the chunks'
                // lengths plus the relevant text not retrieved.
                iou: ratio(both, retrieved + relevant_len - both),
            },
        ));
    }
    CharLevel {
        queries: out,
        without_relevant,
    }
}

/// One query of one run.
#[derive(Clone, Debug, Serialize)]
pub struct SpansQuery {
    /// The query.
    pub query: String,
    /// Each metric's value at chunk level (`None`: not evaluated).
    pub chunk: Vec<Option<f64>>,
    /// The character-level values (`None`: no relevant text).
    pub chars: Option<CharScores>,
}

/// One run's results.
#[derive(Clone, Debug, Serialize)]
pub struct SpansRun {
    /// The run's name.
    pub name: String,
    /// Queries evaluated at chunk level.
    pub queries: usize,
    /// Each metric's mean at chunk level, in the order asked.
    pub chunk: Vec<f64>,
    /// Queries evaluated at character level (with relevant text).
    pub char_queries: usize,
    /// The means of the character-level values (`None`: no query of the
    /// span qrels has relevant text, so there is nothing to average).
    pub chars: Option<CharScores>,
    /// Every query's values, in byte order of the ids.
    pub per_query: Vec<SpansQuery>,
    /// What the chunk-level evaluation left out or scored 0, as `eval`
    /// says it: queries of the run the span qrels do not hold, queries of
    /// the span qrels the run has no chunk for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

/// Every run's results.
#[derive(Clone, Debug, Serialize)]
pub struct SpansReport {
    /// The metrics' canonical names.
    pub metrics: Vec<String>,
    /// The overlap rule, as written.
    pub overlap: String,
    /// The character-level cutoff (`None`: every chunk).
    pub char_k: Option<usize>,
    /// How the retrieved text is measured at character level.
    pub char_text: CharText,
    /// The runs, in the order given.
    pub runs: Vec<SpansRun>,
}

/// What [`spans_report`] is asked.
#[derive(Clone, Copy, Debug)]
pub struct SpansPlan<'a> {
    /// The chunk-level metrics.
    pub metrics: &'a [Box<dyn Metric>],
    /// The engine's options at chunk level; `level` is also the
    /// character level's relevance level, and `allow_empty_run` lets a run
    /// that never ran on the span qrels be evaluated.
    pub options: &'a Options,
    /// The overlap rule.
    pub overlap: Overlap,
    /// The character-level cutoff (`None`: every chunk).
    pub char_k: Option<usize>,
    /// How the retrieved text is measured at character level.
    pub char_text: CharText,
}

/// Evaluates each run of chunks against `spans` at chunk level (every
/// metric of `plan`) and at character level. A run that never ran on the
/// span qrels (no query in common, or no chunk for any of theirs) is
/// refused as `eval` refuses it ([`never_ran`]), unless
/// `plan.options.allow_empty_run`.
pub fn spans_report(
    spans: &SpanQrels,
    runs: &[(String, ChunkRun)],
    plan: SpansPlan<'_>,
) -> Result<SpansReport, SpansError> {
    let level = plan.options.level.get();
    let names: Vec<String> = plan.metrics.iter().map(|m| m.name()).collect();
    let mut out = Vec::with_capacity(runs.len());
    for (name, chunks) in runs {
        let evaluation = {
            let ChunkLevel { qrels, run } = chunk_level_of(spans, chunks, plan.overlap)?;
            evaluate(&qrels, &run, plan.metrics, plan.options)
        };
        let input = if chunks.source.is_empty() {
            name
        } else {
            &chunks.source
        };
        never_ran(name, input, &evaluation, plan.options)?;
        let chars = char_level_of(spans, chunks, plan.char_k, level, plan.char_text);
        let column = |f: fn(&CharScores) -> f64| {
            fmean(&chars.queries.iter().map(|(_, c)| f(c)).collect::<Vec<_>>())
        };
        let means = (!chars.queries.is_empty()).then(|| CharScores {
            precision: column(|c| c.precision),
            recall: column(|c| c.recall),
            iou: column(|c| c.iou),
        });
        // Both lists are in byte order of the query ids: merged in one pass.
        let evaluated = evaluation.queries();
        let mut per_query: Vec<SpansQuery> = Vec::with_capacity(evaluated.len());
        let (mut i, mut j) = (0, 0);
        while i < evaluated.len() || j < chars.queries.len() {
            let at_chunk = evaluated.get(i).map(String::as_str);
            let at_char = chars.queries.get(j).map(|(q, _)| q.as_str());
            let order = match (at_chunk, at_char) {
                (Some(a), Some(b)) => a.as_bytes().cmp(b.as_bytes()),
                (Some(_), None) => Ordering::Less,
                _ => Ordering::Greater,
            };
            let chunk_row = (order != Ordering::Greater).then_some(i);
            let char_row = (order != Ordering::Less).then_some(j);
            let query = match (chunk_row, char_row) {
                (Some(q), _) => evaluated[q].clone(),
                (None, Some(c)) => chars.queries[c].0.clone(),
                (None, None) => break,
            };
            per_query.push(SpansQuery {
                query,
                chunk: (0..names.len())
                    .map(|m| chunk_row.map(|q| evaluation.value(q, m)))
                    .collect(),
                chars: char_row.map(|c| chars.queries[c].1),
            });
            i += usize::from(chunk_row.is_some());
            j += usize::from(char_row.is_some());
        }
        out.push(SpansRun {
            name: name.clone(),
            queries: evaluated.len(),
            chunk: (0..names.len())
                .map(|m| fmean(&evaluation.column(m)))
                .collect(),
            char_queries: chars.queries.len(),
            chars: means,
            per_query,
            warnings: evaluation.coverage().warnings(),
        });
    }
    Ok(SpansReport {
        metrics: names,
        overlap: plan.overlap.to_string(),
        char_k: plan.char_k,
        char_text: plan.char_text,
        runs: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Missing;

    fn span(query: &str, doc: &str, start: u64, end: u64, grade: f64) -> Span {
        Span {
            query: query.into(),
            doc: doc.into(),
            start,
            end,
            grade,
        }
    }

    fn chunk(query: &str, doc: &str, start: u64, end: u64, score: f64) -> Chunk {
        Chunk {
            query: query.into(),
            doc: doc.into(),
            start,
            end,
            score,
        }
    }

    #[test]
    fn overlapping_chunks_count_once_or_per_chunk() {
        // Chunks [0, 10) and [5, 15) of d, relevant [0, 10) and [20, 30):
        // retrieved text 15 characters as a union, 20 as chunks; 10 shared.
        let spans = [span("q", "d", 0, 10, 1.0), span("q", "d", 20, 30, 1.0)];
        let chunks = [chunk("q", "d", 0, 10, 2.0), chunk("q", "d", 5, 15, 1.0)];
        let union = char_level_counting(&spans, &chunks, None, 1.0, CharText::Union);
        let scores = union.queries[0].1;
        assert_eq!(
            (scores.precision, scores.recall, scores.iou),
            (10.0 / 15.0, 10.0 / 20.0, 10.0 / 25.0)
        );
        // Chroma: precision 10 / (10 + 10); IoU 10 / (20 + the 10
        // relevant characters not retrieved).
        let summed = char_level_counting(&spans, &chunks, None, 1.0, CharText::Chunks);
        let scores = summed.queries[0].1;
        assert_eq!(
            (scores.precision, scores.recall, scores.iou),
            (0.5, 10.0 / 20.0, 10.0 / 30.0)
        );
        // Without overlap the two agree.
        let apart = [chunk("q", "d", 0, 10, 2.0), chunk("q", "d", 10, 15, 1.0)];
        assert_eq!(
            char_level_counting(&spans, &apart, None, 1.0, CharText::Chunks).queries,
            char_level(&spans, &apart, None, 1.0).queries
        );
    }

    #[test]
    fn overlap_rules_by_hand() {
        // chunk [0, 10), span [5, 25): 5 in common, union 25.
        let (c, s) = ((0, 10), (5, 25));
        assert!(Overlap::Any.holds(c, s));
        assert!(Overlap::Iou(0.2).holds(c, s));
        assert!(!Overlap::Iou(0.21).holds(c, s));
        assert!(Overlap::Coverage(0.25).holds(c, s));
        assert!(!Overlap::Coverage(0.26).holds(c, s));
        // Touching ranges share no character.
        assert!(!Overlap::Any.holds((0, 10), (10, 20)));
        // A chunk inside the span: coverage is the span's share.
        assert!(Overlap::Coverage(0.5).holds((10, 15), (10, 20)));
        assert!(!Overlap::Coverage(0.51).holds((10, 15), (10, 20)));
        assert!(Overlap::Iou(1.0).holds((3, 9), (3, 9)));
    }

    #[test]
    fn overlap_parses_and_prints() {
        assert_eq!("any".parse::<Overlap>(), Ok(Overlap::Any));
        assert_eq!("iou>=0.5".parse::<Overlap>(), Ok(Overlap::Iou(0.5)));
        assert_eq!(
            " coverage >= 1 ".parse::<Overlap>(),
            Ok(Overlap::Coverage(1.0))
        );
        for bad in [
            "all",
            "iou>0.5",
            "iou>=0",
            "iou>=1.5",
            "coverage>=x",
            "dice>=0.5",
        ] {
            assert!(bad.parse::<Overlap>().is_err(), "{bad}");
        }
        assert_eq!(Overlap::Iou(0.5).to_string(), "iou>=0.5");
    }

    #[test]
    fn unions_and_intersections_by_hand() {
        let u = union(vec![(10, 20), (0, 5), (5, 7), (15, 30), (40, 40)]);
        assert_eq!(u, vec![(0, 7), (10, 30)]);
        assert_eq!(length(&u), 27);
        assert_eq!(common(&u, &[(6, 12), (25, 50)]), 1 + 2 + 5);
        assert_eq!(common(&u, &[]), 0);
    }

    #[test]
    fn char_level_by_hand() {
        // Relevant: [10, 30) in d1 (20 chars) and [0, 10) in d2 (10).
        let spans = [
            span("q", "d1", 10, 30, 1.0),
            span("q", "d2", 0, 10, 2.0),
            span("q", "d2", 50, 60, 0.0),
        ];
        // Retrieved: d1 [0, 20) and [15, 25) (union [0, 25)), d3 [0, 5).
        let chunks = [
            chunk("q", "d1", 0, 20, 3.0),
            chunk("q", "d1", 15, 25, 2.0),
            chunk("q", "d3", 0, 5, 1.0),
        ];
        let all = char_level(&spans, &chunks, None, 1.0);
        // retrieved 25 + 5 = 30, relevant 30, common 15, union 45.
        assert_eq!(
            all.queries,
            vec![(
                "q".to_owned(),
                CharScores {
                    precision: 0.5,
                    recall: 0.5,
                    iou: 15.0 / 45.0
                }
            )]
        );
        // Top 1: [0, 20) of d1: common 10.
        let top = char_level(&spans, &chunks, Some(1), 1.0);
        assert_eq!(top.queries[0].1.precision, 0.5);
        assert_eq!(top.queries[0].1.recall, 10.0 / 30.0);
        assert_eq!(top.queries[0].1.iou, 10.0 / 40.0);
        // Level 2: only d2's span is relevant, and nothing of it is retrieved.
        let two = char_level(&spans, &chunks, None, 2.0);
        assert_eq!(two.queries[0].1.recall, 0.0);
        // A query without relevant text is left out.
        let none = char_level(&[span("z", "d", 0, 5, 0.0)], &chunks, None, 1.0);
        assert_eq!((none.queries.len(), none.without_relevant), (0, 1));
    }

    #[test]
    fn chunk_level_grades_and_placeholders() {
        let spans = [
            span("q", "d1", 10, 30, 1.0),
            span("q", "d1", 100, 120, 2.0),
            span("q", "d2", 0, 10, 3.0),
        ];
        let chunks = [
            chunk("q", "d1", 0, 20, 3.0),  // 10 of span 1 (coverage 0.5)
            chunk("q", "d1", 20, 40, 2.0), // 10 of span 1
            chunk("q", "d1", 40, 60, 1.5), // nothing: judged 0
            chunk("q", "d3", 0, 5, 1.0),   // unjudged document
        ];
        let level = chunk_level(&spans, &chunks, Overlap::Coverage(0.5)).unwrap();
        let grade = |doc: &str| level.qrels.grade_of("q", doc);
        assert_eq!(grade("d1#0-20"), Some(1.0));
        assert_eq!(grade("d1#20-40"), Some(1.0));
        assert_eq!(grade("d1#40-60"), Some(0.0));
        assert_eq!(grade("d3#0-5"), None);
        assert_eq!(grade("d1#span:100-120"), Some(2.0));
        assert_eq!(grade("d2#span:0-10"), Some(3.0));
        assert_eq!(grade("d1#span:10-30"), None);
        // coverage>=0.6: neither chunk matches span 1, which gets its placeholder.
        let strict = chunk_level(&spans, &chunks, Overlap::Coverage(0.6)).unwrap();
        assert_eq!(strict.qrels.grade_of("q", "d1#0-20"), Some(0.0));
        assert_eq!(strict.qrels.grade_of("q", "d1#span:10-30"), Some(1.0));
    }

    #[test]
    fn char_level_ranks_ties_as_the_chunk_level_run() {
        // Two chunks tied on score: the run puts `d#10-20` first (ties by
        // id, descending); the character level's top 1 must be that chunk.
        let spans = [span("q", "d", 10, 20, 1.0)];
        let chunks = [chunk("q", "d", 0, 10, 1.0), chunk("q", "d", 10, 20, 1.0)];
        let level = chunk_level(&spans, &chunks, Overlap::Any).unwrap();
        let first = level.run.list("q").unwrap().doc(0);
        assert_eq!(first, b"d#10-20");
        let top = char_level(&spans, &chunks, Some(1), 1.0);
        assert_eq!(top.queries[0].1.precision, 1.0);
        let metric = rankeval_core::registry::parse_metric("p@1").unwrap();
        let p1 = evaluate(
            &level.qrels,
            &level.run,
            std::slice::from_ref(&metric),
            &Options::default(),
        )
        .value(0, 0);
        assert_eq!(p1, 1.0);
    }

    /// RAGAS's context precision@K: sum over k <= K of P@k v_k, divided by
    /// the number of relevant chunks in the top K (0 without one).
    fn ragas_context_precision(v: &[u8]) -> f64 {
        let mut hits = 0.0;
        let mut sum = 0.0;
        for (i, &r) in v.iter().enumerate() {
            if r == 1 {
                hits += 1.0;
                sum += hits / (i as f64 + 1.0);
            }
        }
        if hits == 0.0 { 0.0 } else { sum / hits }
    }

    #[test]
    fn ragas_context_precision_is_ap_norm_hits() {
        let metric = rankeval_core::registry::parse_metric("ap(norm=hits)@3").unwrap();
        let options = Options {
            missing: Missing::Zero,
            ..Options::default()
        };
        let cases: [(&[u8], f64); 5] = [
            (&[1, 0, 1], (1.0 + 2.0 / 3.0) / 2.0),
            (&[0, 1, 1], (1.0 / 2.0 + 2.0 / 3.0) / 2.0),
            (&[0, 0, 0], 0.0),
            (&[1, 1, 1], 1.0),
            (&[0, 0, 1], 1.0 / 3.0),
        ];
        for (v, want) in cases {
            assert!((ragas_context_precision(v) - want).abs() < 1e-15);
            // One relevant span per relevant chunk, each chunk its own 10 chars.
            let chunks: Vec<Chunk> = (0..3)
                .map(|i| chunk("q", "d", 10 * i, 10 * i + 10, 3.0 - i as f64))
                .collect();
            let mut spans: Vec<Span> = v
                .iter()
                .enumerate()
                .filter(|&(_, r)| *r == 1)
                .map(|(i, _)| span("q", "d", 10 * i as u64, 10 * i as u64 + 10, 1.0))
                .collect();
            // A second relevant span never retrieved: context precision
            // does not see it (it divides by the hits).
            spans.push(span("q", "d", 500, 510, 1.0));
            let level = chunk_level(&spans, &chunks, Overlap::Any).unwrap();
            let got = evaluate(
                &level.qrels,
                &level.run,
                std::slice::from_ref(&metric),
                &options,
            )
            .value(0, 0);
            assert!((got - want).abs() < 1e-12, "{v:?}: {got} != {want}");
        }
    }

    #[test]
    fn counts_of_huge_ranges_do_not_wrap() {
        // A span of 2^64 - 1 characters, a chunk of its first 10: recall
        // and IoU are both 10 / (2^64 - 1) (the union is the span), where
        // a 64-bit union wrapped and gave IoU 0.24.
        let spans = [span("q", "d", 0, u64::MAX, 1.0)];
        let chunks = [chunk("q", "d", 0, 10, 1.0)];
        let scores = char_level(&spans, &chunks, None, 1.0).queries[0].1;
        assert_eq!(scores.precision, 1.0);
        assert_eq!(scores.recall, 10.0 / u64::MAX as f64);
        assert_eq!(scores.iou, scores.recall);
        // Two chunks of 2^63 characters (in two documents): 2^64 characters
        // retrieved, which a 64-bit sum wrapped to 0 (precision 0).
        let spans = [span("q", "d", 0, 1 << 53, 1.0)];
        let chunks = [
            chunk("q", "d", 0, 1 << 63, 2.0),
            chunk("q", "e", 0, 1 << 63, 1.0),
        ];
        for text in [CharText::Union, CharText::Chunks] {
            let scores = char_level_counting(&spans, &chunks, None, 1.0, text).queries[0].1;
            assert_eq!(scores.precision, 2f64.powi(53 - 64), "{text:?}");
            assert_eq!(scores.recall, 1.0, "{text:?}");
            assert_eq!(scores.iou, scores.precision, "{text:?}");
        }
        // The overlap rules on ranges whose lengths add past 2^64.
        let whole = (0, u64::MAX);
        assert!(Overlap::Iou(1.0).holds(whole, whole));
        assert!(Overlap::Iou(0.5).holds((0, u64::MAX), (1 << 63, u64::MAX)));
        assert!(!Overlap::Iou(0.51).holds((0, u64::MAX), (1 << 63, u64::MAX)));
        assert!(Overlap::Coverage(1.0).holds(whole, (5, 6)));
    }

    #[test]
    fn compact_and_listed_forms_agree() {
        let spans = [
            span("q", "d1", 10, 30, 1.0),
            span("q", "d1", 10, 30, 3.0),
            span("q", "d2", 0, 10, 2.0),
            span("r", "d1", 0, 10, 1.0),
        ];
        let held = SpanQrels::from(&spans[..]);
        assert_eq!(held.spans().collect::<Vec<_>>(), spans);
        // Two equal spans unmatched: one placeholder, the first's grade.
        let chunks = [chunk("q", "d2", 0, 5, 1.0)];
        let level = chunk_level(&spans, &chunks, Overlap::Any).unwrap();
        assert_eq!(level.qrels.grade_of("q", "d1#span:10-30"), Some(1.0));
        assert_eq!(level.qrels.grade_of("q", "d2#0-5"), Some(2.0));
        assert_eq!(level.qrels.grade_of("r", "d1#span:0-10"), Some(1.0));
    }

    /// A header and rows of small numbers, quoted or not, for a report.
    fn table(last: &'static str) -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let row = (0..3u8, 0..3u8, 0..40u64, 1..30u64, 0..4u8, any::<bool>());
        prop::collection::vec(row, 0..24).prop_map(move |rows| {
            let mut text = format!("query,doc,start,end,{last}\n");
            for (q, d, start, len, value, quoted) in rows {
                let q = if quoted {
                    format!("\"q{q}\"")
                } else {
                    format!("q{q}")
                };
                text.push_str(&format!("{q},d{d},{start},{},{value}\n", start + len));
            }
            text.into_bytes()
        })
    }

    proptest::proptest! {
        #[test]
        fn any_span_tables_evaluate_within_bounds(
            spans in table("grade"),
            run in table("score"),
            k in proptest::option::of(1..4usize),
            union in proptest::bool::ANY,
        ) {
            let Ok(qrels) = parse_span_qrels(&spans, "s.csv") else { return Ok(()) };
            let Ok(chunks) = parse_chunk_run(&run, "c.csv") else { return Ok(()) };
            let metrics = [
                rankeval_core::registry::parse_metric("ndcg@3").unwrap(),
                rankeval_core::registry::parse_metric("recall").unwrap(),
            ];
            let options = Options {
                missing: Missing::Zero,
                allow_empty_run: true,
                ..Options::default()
            };
            let plan = SpansPlan {
                metrics: &metrics,
                options: &options,
                overlap: Overlap::Iou(0.3),
                char_k: k,
                char_text: if union { CharText::Union } else { CharText::Chunks },
            };
            let report = spans_report(&qrels, &[("c".to_owned(), chunks)], plan).unwrap();
            for q in &report.runs[0].per_query {
                if let Some(c) = q.chars {
                    for v in [c.precision, c.recall, c.iou] {
                        proptest::prop_assert!((0.0..=1.0).contains(&v), "{c:?}");
                    }
                    proptest::prop_assert!(c.iou <= c.precision.min(c.recall), "{c:?}");
                }
            }
        }
    }
}
