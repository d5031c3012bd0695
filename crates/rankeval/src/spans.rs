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
//! Files are read whole within the limits every reader shares
//! ([`read_whole`]: 2 GiB, lines up to 64 MiB, gzip by magic), tables split
//! as the CSV reader splits them (RFC 4180 quotes), ids held to the one id
//! rule ([`check_id`]) and interned, offsets bounded by [`MAX_OFFSET`].
//! Read files are held as [`SpanQrels`] and [`ChunkRun`]: 32 bytes a row
//! and each distinct id once.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::str::FromStr;

use rankeval_core::exact_sum::fmean;
use rankeval_core::{
    Duplicates, Interner, Metric, Qrels, QrelsBuilder, Run, RunBuilder, check_grade, check_id,
    compare_scored, shorten_id,
};
use rankeval_readers::{ReadError, ReadErrorKind, WholeInput, read_whole, split_csv_line};
use serde::Serialize;

use crate::engine::{NeverRan, Options, Warning, evaluate, never_ran};

/// The largest character offset a span or a chunk may have, 2^53: every
/// length, intersection and union of ranges of one document is then an
/// integer an `f64` holds exactly, so the overlap rules and the
/// character-level ratios divide exact counts. A larger offset is refused
/// where it is read, naming the file and line.
pub const MAX_OFFSET: u64 = 1 << 53;

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

/// The id of the chunk `[start, end)` of `doc`: `doc#start-end`.
pub fn chunk_id(doc: &str, start: u64, end: u64) -> String {
    format!("{doc}#{start}-{end}")
}

/// The id of a relevant span no retrieved chunk matched, in the
/// chunk-level qrels: `doc#span:start-end` (never a chunk's id).
pub fn unretrieved_span_id(doc: &str, start: u64, end: u64) -> String {
    format!("{doc}#span:{start}-{end}")
}

/// Why span qrels or a chunk run could not be read or used.
#[derive(Debug, thiserror::Error)]
pub enum SpansError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line is wrong.
    #[error("{path}, line {line}: {problem}")]
    Line {
        /// The file.
        path: String,
        /// The line, from 1.
        line: u64,
        /// What is wrong.
        problem: String,
    },
    /// The file as a whole is wrong (no header, no row, too large).
    #[error("{path}: {problem}")]
    File {
        /// The file.
        path: String,
        /// What is wrong.
        problem: String,
    },
    /// The chunk-level qrels or run could not be built.
    #[error("{0}")]
    Build(String),
    /// A run of chunks never ran on the span qrels: it shares no query with
    /// them, or has no chunk for any of theirs (every value would be 0).
    #[error(transparent)]
    NeverRan(#[from] NeverRan),
}

impl From<ReadError> for SpansError {
    /// The shared reader's limits (size, line length, a directory) in the
    /// spans' own terms: file, line and problem.
    fn from(error: ReadError) -> Self {
        let ReadError { path, line, kind } = error;
        match (line, kind) {
            (None, ReadErrorKind::Io(source)) => SpansError::Io { path, source },
            (Some(line), kind) => SpansError::Line {
                path,
                line,
                problem: kind.to_string(),
            },
            (None, kind) => SpansError::File {
                path,
                problem: kind.to_string(),
            },
        }
    }
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

/// An id of a [`Table`] that the other table does not hold.
const ABSENT: u32 = u32::MAX;

/// One row as held: query and document as ids of the table's interner, the
/// offsets and the last number (a grade or a score).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry {
    query: u32,
    doc: u32,
    start: u64,
    end: u64,
    value: f64,
}

/// Rows of span qrels or of a run of chunks: 32 bytes a row, each distinct
/// query or document id held once.
#[derive(Clone, Default)]
struct Table {
    ids: Interner,
    rows: Vec<Entry>,
}

impl Table {
    /// A table of rows given with their ids as text.
    fn of<'a>(rows: impl ExactSizeIterator<Item = (&'a str, &'a str, u64, u64, f64)>) -> Self {
        let mut table = Table {
            ids: Interner::new(),
            rows: Vec::with_capacity(rows.len()),
        };
        for (query, doc, start, end, value) in rows {
            let query = table.ids.intern(query.as_bytes());
            let doc = table.ids.intern(doc.as_bytes());
            table.rows.push(Entry {
                query,
                doc,
                start,
                end,
                value,
            });
        }
        table
    }

    /// The text of an id (UTF-8 for every table read or built here).
    fn text(&self, id: u32) -> String {
        String::from_utf8_lossy(self.ids.resolve(id)).into_owned()
    }

    /// The rows as `(query, doc, start, end, value)` with their ids as text.
    fn rows(&self) -> impl Iterator<Item = (String, String, u64, u64, f64)> + '_ {
        self.rows.iter().map(|r| {
            (
                self.text(r.query),
                self.text(r.doc),
                r.start,
                r.end,
                r.value,
            )
        })
    }

    /// The indices of the rows sorted by query, document, start and end
    /// (ids compared as interned numbers), ties in input order.
    fn by_query_doc(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.rows.len() as u32).collect();
        order.sort_unstable_by_key(|&i| {
            let r = &self.rows[i as usize];
            (r.query, r.doc, r.start, r.end, i)
        });
        order
    }

    /// Where the rows of `(query, doc)` are in `order` (from
    /// [`by_query_doc`](Self::by_query_doc)).
    fn group(&self, order: &[u32], query: u32, doc: u32) -> Range<usize> {
        let key = |i: &u32| {
            let r = &self.rows[*i as usize];
            (r.query, r.doc)
        };
        let start = order.partition_point(|i| key(i) < (query, doc));
        let len = order[start..].partition_point(|i| key(i) == (query, doc));
        start..start + len
    }

    /// For each id of `self`, the same id in `other` ([`ABSENT`] if it has
    /// none).
    fn translate(&self, other: &Table) -> Vec<u32> {
        (0..self.ids.len() as u32)
            .map(|id| other.ids.get(self.ids.resolve(id)).unwrap_or(ABSENT))
            .collect()
    }

    /// The order of a run's chunks `a` and `b` (rows of `self`): score
    /// descending, ties by chunk id descending in byte order, as every
    /// run ([`compare_scored`]); the ids are compared without being built.
    fn run_order(&self, a: &Entry, b: &Entry) -> Ordering {
        compare_scored((a.value, &[]), (b.value, &[])).then_with(|| {
            let mut buffers = [[0u8; 20]; 4];
            let [a_start, a_end, b_start, b_end] = &mut buffers;
            let a_id = id_bytes(
                self.ids.resolve(a.doc),
                decimal(a.start, a_start),
                decimal(a.end, a_end),
            );
            let b_id = id_bytes(
                self.ids.resolve(b.doc),
                decimal(b.start, b_start),
                decimal(b.end, b_end),
            );
            b_id.cmp(a_id)
        })
    }
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
        self.table
            .rows()
            .map(|(query, doc, start, end, grade)| Span {
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
            table: Table::of(
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
        self.table
            .rows()
            .map(|(query, doc, start, end, score)| Chunk {
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
            table: Table::of(
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

/// Reads span qrels: a TSV/CSV table with a header naming `query, doc,
/// start, end, grade`, or JSON Lines objects with those keys; plain or
/// gzip, within the limits of [`read_whole`].
pub fn read_span_qrels(path: &Path) -> Result<SpanQrels, SpansError> {
    let bytes = read_whole(path, WholeInput::TEXT)?;
    parse_span_qrels(&bytes, &path.display().to_string())
}

/// Reads a run of chunks: a TSV/CSV table with a header naming `query,
/// doc, start, end, score`, or JSON Lines objects with those keys; plain or
/// gzip, within the limits of [`read_whole`].
pub fn read_chunk_run(path: &Path) -> Result<ChunkRun, SpansError> {
    let bytes = read_whole(path, WholeInput::TEXT)?;
    parse_chunk_run(&bytes, &path.display().to_string())
}

/// [`read_span_qrels`] as a list of [`Span`]s.
pub fn read_spans(path: &Path) -> Result<Vec<Span>, SpansError> {
    Ok(read_span_qrels(path)?.spans().collect())
}

/// [`read_chunk_run`] as a list of [`Chunk`]s.
pub fn read_chunks(path: &Path) -> Result<Vec<Chunk>, SpansError> {
    Ok(read_chunk_run(path)?.chunks().collect())
}

/// [`read_span_qrels`] on bytes; `name` is the file errors name. A table
/// with a header and no span is an error (there would be nothing to
/// evaluate against).
pub fn parse_span_qrels(bytes: &[u8], name: &str) -> Result<SpanQrels, SpansError> {
    let (table, _) = parse_rows(bytes, name, Last::Grade)?;
    if table.rows.is_empty() {
        return Err(SpansError::File {
            path: name.to_owned(),
            problem: "a header and no span: span qrels need rows `query, doc, start, end, grade`"
                .to_owned(),
        });
    }
    Ok(SpanQrels { table })
}

/// [`read_chunk_run`] on bytes; `name` is the file errors name (and the
/// run's [`source`](ChunkRun::source)). A chunk given twice for one query
/// is an error naming both lines. A run without chunks is read (its
/// evaluation refuses it, [`spans_report`]).
pub fn parse_chunk_run(bytes: &[u8], name: &str) -> Result<ChunkRun, SpansError> {
    let (table, lines) = parse_rows(bytes, name, Last::Score)?;
    refuse_repeated_chunks(&table, &lines, name)?;
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

/// The fifth column: a grade (span qrels) or a score (a run).
#[derive(Clone, Copy, PartialEq)]
enum Last {
    Grade,
    Score,
}

impl Last {
    fn name(self) -> &'static str {
        match self {
            Last::Grade => "grade",
            Last::Score => "score",
        }
    }
}

/// An error on line `line` of `path`.
fn line_error(path: &str, line: u64, problem: String) -> SpansError {
    SpansError::Line {
        path: path.to_owned(),
        line,
        problem,
    }
}

/// The lines of `bytes` numbered from 1, without their `\n` or `\r\n`.
fn numbered_lines(bytes: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    let mut rest = Some(bytes);
    let mut number = 0u64;
    std::iter::from_fn(move || {
        let text = rest?;
        let (line, after) = match memchr::memchr(b'\n', text) {
            Some(at) => (&text[..at], Some(&text[at + 1..])),
            None => (text, None),
        };
        rest = after;
        number += 1;
        Some((number, line.strip_suffix(b"\r").unwrap_or(line)))
    })
}

/// A line of nothing but spaces and tabs (or nothing): skipped.
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| b == b' ' || b == b'\t')
}

/// The rows of a table or JSON Lines file and their line numbers.
fn parse_rows(bytes: &[u8], name: &str, last: Last) -> Result<(Table, Vec<u64>), SpansError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut lines = numbered_lines(bytes).filter(|(_, line)| !is_blank(line));
    let Some((first_at, first)) = lines.next() else {
        return Err(SpansError::File {
            path: name.to_owned(),
            problem: format!(
                "empty: a header naming query, doc, start, end, {} is needed",
                last.name()
            ),
        });
    };
    let mut reader = RowReader {
        name,
        last,
        table: Table::default(),
        lines: Vec::new(),
    };
    if first.trim_ascii_start().starts_with(b"{") {
        reader.json(first_at, first)?;
        for (at, line) in lines {
            reader.json(at, line)?;
        }
    } else {
        let header = Header::read(first_at, first, name, last)?;
        for (at, line) in lines {
            reader.csv(&header, at, line)?;
        }
    }
    let RowReader {
        mut table,
        mut lines,
        ..
    } = reader;
    table.rows.shrink_to_fit();
    table.ids.shrink_to_fit();
    lines.shrink_to_fit();
    Ok((table, lines))
}

/// The columns wanted, in the order of [`Header::at`].
fn wanted(last: Last) -> [&'static str; 5] {
    ["query", "doc", "start", "end", last.name()]
}

/// Column names a message lists at most.
const SHOWN_COLUMNS: usize = 10;

/// A table's header: its delimiter, its width and where the wanted columns
/// are.
struct Header {
    delimiter: u8,
    width: usize,
    /// The fields of query, doc, start, end and the last column.
    at: [usize; 5],
}

impl Header {
    /// The header on line `line`: split by tabs if it has one, else by
    /// commas, names unquoted and trimmed; each wanted column once.
    fn read(line: u64, text: &[u8], name: &str, last: Last) -> Result<Header, SpansError> {
        let delimiter = if memchr::memchr(b'\t', text).is_some() {
            b'\t'
        } else {
            b','
        };
        let wanted = wanted(last);
        let mut found: [Option<usize>; 5] = [None; 5];
        let mut twice: Option<(&str, usize, usize)> = None;
        let mut shown: Vec<String> = Vec::new();
        let width = split_csv_line(text, delimiter, |index, field| {
            let field = field.trim_ascii();
            if shown.len() < SHOWN_COLUMNS {
                shown.push(shorten_id(field));
            }
            for (slot, want) in found.iter_mut().zip(wanted) {
                if field == want.as_bytes() {
                    match *slot {
                        None => *slot = Some(index),
                        Some(first) => {
                            twice.get_or_insert((want, first, index));
                        }
                    }
                }
            }
        })
        .map_err(|kind| line_error(name, line, kind.to_string()))?;
        if let Some((column, first, second)) = twice {
            return Err(line_error(
                name,
                line,
                format!(
                    "column `{column}` appears twice in the header (fields {} and {})",
                    first + 1,
                    second + 1
                ),
            ));
        }
        let mut at = [0usize; 5];
        for ((slot, found), want) in at.iter_mut().zip(found).zip(wanted) {
            *slot = found.ok_or_else(|| {
                let mut has = shown.join(", ");
                if width > shown.len() {
                    has.push_str(&format!(", ... ({width} columns)"));
                }
                line_error(
                    name,
                    line,
                    format!(
                        "no column `{want}` in the header (it has: {has}); the columns are \
                         query, doc, start, end, {}",
                        last.name()
                    ),
                )
            })?;
        }
        Ok(Header {
            delimiter,
            width,
            at,
        })
    }
}

/// Reads rows into a [`Table`], checking each.
struct RowReader<'a> {
    name: &'a str,
    last: Last,
    table: Table,
    /// Each row's line.
    lines: Vec<u64>,
}

/// An id's text checked: not empty, no whitespace or control character
/// ([`check_id`]), UTF-8. `what` names the column or key.
fn checked_id<'b>(text: &'b [u8], what: &str) -> Result<&'b [u8], String> {
    if text.is_empty() {
        return Err(format!("{what} is empty"));
    }
    check_id(text).map_err(|bad| format!("{what}: {bad}"))?;
    if std::str::from_utf8(text).is_err() {
        return Err(format!(
            "{what}: the id `{}` is not UTF-8 text",
            shorten_id(text)
        ));
    }
    Ok(text)
}

/// An offset's text as a number: an integer in `[0, MAX_OFFSET]`.
fn offset(text: &[u8], what: &str) -> Result<u64, String> {
    let text = text.trim_ascii();
    if !text.is_empty() && text.iter().all(u8::is_ascii_digit) {
        return match std::str::from_utf8(text)
            .ok()
            .and_then(|t| t.parse::<u64>().ok())
        {
            Some(n) if n <= MAX_OFFSET => Ok(n),
            _ => Err(too_far(what, &format!("`{}`", shorten_id(text)))),
        };
    }
    Err(format!(
        "{what} `{}`: not a non-negative integer",
        shorten_id(text)
    ))
}

/// The message for an offset past [`MAX_OFFSET`].
fn too_far(what: &str, shown: &str) -> String {
    format!(
        "{what} {shown}: larger than {MAX_OFFSET} (2^53), the largest offset taken (so that every \
         count of characters is exact)"
    )
}

impl RowReader<'_> {
    /// One line of a table.
    fn csv(&mut self, header: &Header, line: u64, text: &[u8]) -> Result<(), SpansError> {
        let error = |problem: String| line_error(self.name, line, problem);
        let mut fields: [Cow<'_, [u8]>; 5] = Default::default();
        let found = split_csv_line(text, header.delimiter, |index, field| {
            if let Some(slot) = header.at.iter().position(|&at| at == index) {
                fields[slot] = field;
            }
        })
        .map_err(|kind| error(kind.to_string()))?;
        if found != header.width {
            return Err(error(format!(
                "{found} fields, the header has {}",
                header.width
            )));
        }
        let [query, doc, start, end, value] = &fields;
        let query = checked_id(query.trim_ascii(), "column `query`").map_err(error)?;
        let doc = checked_id(doc.trim_ascii(), "column `doc`").map_err(error)?;
        let start = offset(start, "start").map_err(error)?;
        let end = offset(end, "end").map_err(error)?;
        let last = self.last.name();
        let value_text = value.trim_ascii();
        let shown = || format!("`{}`", shorten_id(value_text));
        let value: f64 = std::str::from_utf8(value_text)
            .ok()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| error(format!("{last} {}: not a number", shown())))?;
        self.push(line, query, doc, start, end, value, &shown)
    }

    /// One line of JSON Lines.
    fn json(&mut self, line: u64, text: &[u8]) -> Result<(), SpansError> {
        let error = |problem: String| line_error(self.name, line, problem);
        let value: serde_json::Value =
            serde_json::from_slice(text).map_err(|e| error(format!("not JSON: {e}")))?;
        let object = value
            .as_object()
            .ok_or_else(|| error("not a JSON object".to_owned()))?;
        let field = |key: &str| {
            object
                .get(key)
                .ok_or_else(|| error(format!("no key `{key}`")))
        };
        let id = |key: &str| -> Result<Cow<'_, [u8]>, SpansError> {
            let text = match field(key)? {
                serde_json::Value::String(s) => Cow::Borrowed(s.as_bytes()),
                serde_json::Value::Number(n) => Cow::Owned(n.to_string().into_bytes()),
                other => {
                    return Err(error(format!(
                        "{key} {}: not a string or a number",
                        json_shown(other)
                    )));
                }
            };
            checked_id(&text, &format!("key `{key}`")).map_err(error)?;
            Ok(text)
        };
        let offset = |key: &str| {
            let v = field(key)?;
            match v.as_u64() {
                Some(n) if n <= MAX_OFFSET => Ok(n),
                Some(n) => Err(error(too_far(key, &n.to_string()))),
                None => Err(error(format!(
                    "{key} {}: not a non-negative integer",
                    json_shown(v)
                ))),
            }
        };
        let query = id("query")?;
        let doc = id("doc")?;
        let start = offset("start")?;
        let end = offset("end")?;
        let last = self.last.name();
        let v = field(last)?;
        let number = v
            .as_f64()
            .ok_or_else(|| error(format!("{last} {}: not a number", json_shown(v))))?;
        self.push(line, &query, &doc, start, end, number, &|| json_shown(v))
    }

    /// Checks a row read (offsets in order, the value a grade or a finite
    /// score) and keeps it; `shown` is its value as messages show it.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        line: u64,
        query: &[u8],
        doc: &[u8],
        start: u64,
        end: u64,
        value: f64,
        shown: &dyn Fn() -> String,
    ) -> Result<(), SpansError> {
        let error = |problem: String| line_error(self.name, line, problem);
        if end <= start {
            return Err(error(format!(
                "end {end} <= start {start}: a span is [start, end), end after start"
            )));
        }
        let last = self.last.name();
        let value = match self.last {
            Last::Grade => {
                check_grade(value).map_err(|e| error(format!("{last} {}: {e}", shown())))?
            }
            Last::Score if value.is_finite() => value,
            Last::Score => return Err(error(format!("{last} {}: not a finite number", shown()))),
        };
        if self.table.rows.len() >= ABSENT as usize {
            return Err(error(format!("more than {} rows", ABSENT - 1)));
        }
        let query = self.table.ids.intern(query);
        let doc = self.table.ids.intern(doc);
        self.table.rows.push(Entry {
            query,
            doc,
            start,
            end,
            value,
        });
        self.lines.push(line);
        Ok(())
    }
}

/// A JSON value as a message shows it: strings and numbers cut as ids are,
/// arrays and objects by their kind.
fn json_shown(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => format!("\"{}\"", shorten_id(s.as_bytes())),
        serde_json::Value::Array(_) => "(an array)".to_owned(),
        serde_json::Value::Object(_) => "(an object)".to_owned(),
        other => shorten_id(other.to_string().as_bytes()),
    }
}

/// Refuses a run that gives one chunk twice for one query, naming the line
/// of the first repeat in file order and the line it repeats.
fn refuse_repeated_chunks(table: &Table, lines: &[u64], name: &str) -> Result<(), SpansError> {
    let order = table.by_query_doc();
    let key = |i: u32| {
        let r = &table.rows[i as usize];
        (r.query, r.doc, r.start, r.end)
    };
    // (the repeat, the row it repeats), the earliest repeat kept.
    let mut repeat: Option<(u32, u32)> = None;
    let mut first = order.first().copied().unwrap_or(0);
    for pair in order.windows(2) {
        if key(pair[0]) != key(pair[1]) {
            first = pair[1];
            continue;
        }
        if pair[0] == first && repeat.is_none_or(|(at, _)| pair[1] < at) {
            repeat = Some((pair[1], first));
        }
    }
    let Some((again, first)) = repeat else {
        return Ok(());
    };
    let r = &table.rows[again as usize];
    let id = chunk_id(&table.text(r.doc), r.start, r.end);
    Err(line_error(
        name,
        lines[again as usize],
        format!(
            "query `{}` retrieves the chunk {} twice (first at line {})",
            shorten_id(table.ids.resolve(r.query)),
            shorten_id(id.as_bytes()),
            lines[first as usize]
        ),
    ))
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
    let to_span = c.translate(s);
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
        let group = s.group(&order, span_query, span_doc);
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
    let to_span = c.translate(s);
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
            .then_with(|| c.run_order(&c.rows[a as usize], &c.rows[b as usize]))
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
    fn reading_tables_and_json_lines() {
        let tsv = "query\tdoc\tstart\tend\tgrade\nq1\td1\t0\t10\t2\n\nq1\td2\t5\t9\t1\n";
        let spans = parse_spans(tsv, "s.tsv").unwrap();
        assert_eq!(spans[1], span("q1", "d2", 5, 9, 1.0));
        let csv = "doc,query,score,start,end\nd1,q1,0.5,0,10\n";
        assert_eq!(
            parse_chunks(csv, "c.csv").unwrap(),
            vec![chunk("q1", "d1", 0, 10, 0.5)]
        );
        let jsonl = "{\"query\": 7, \"doc\": \"d\", \"start\": 1, \"end\": 4, \"score\": 2}\n";
        assert_eq!(
            parse_chunks(jsonl, "c.jsonl").unwrap(),
            vec![chunk("7", "d", 1, 4, 2.0)]
        );
    }

    #[test]
    fn reading_errors_name_file_and_line() {
        let message = |r: Result<Vec<Span>, SpansError>| r.unwrap_err().to_string();
        let m = message(parse_spans(
            "query,doc,start,end,grade\nq,d,5,5,1\n",
            "s.csv",
        ));
        assert_eq!(
            m,
            "s.csv, line 2: end 5 <= start 5: a span is [start, end), end after start"
        );
        let m = message(parse_spans(
            "query,doc,start,end,grade\nq,d,x,5,1\n",
            "s.csv",
        ));
        assert!(m.starts_with("s.csv, line 2: start `x`"), "{m}");
        let m = message(parse_spans("query,doc,start,end\nq,d,0,5\n", "s.csv"));
        assert!(m.starts_with("s.csv, line 1: no column `grade`"), "{m}");
        let m = message(parse_spans("query,doc,start,end,grade\nq,d,0,5\n", "s.csv"));
        assert!(m.contains("line 2: 4 fields, the header has 5"), "{m}");
        let m = message(parse_spans(
            "{\"query\":\"q\",\"doc\":\"d\",\"start\":0,\"end\":5,\"grade\":1}\n{\"query\":\"q\"}\n",
            "s.jsonl",
        ));
        assert!(m.starts_with("s.jsonl, line 2: no key"), "{m}");
        let m = message(parse_spans("", "s.csv"));
        assert!(m.starts_with("s.csv: empty"), "{m}");
        let m = parse_chunks("query,doc,start,end,score\nq,d,0,5,1\nq,d,0,5,2\n", "c.csv")
            .unwrap_err()
            .to_string();
        assert!(
            m.starts_with("c.csv, line 3: query `q` retrieves the chunk d#0-5 twice"),
            "{m}"
        );
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
    fn offsets_past_2_53_are_refused_naming_the_line() {
        let at_bound = format!("query,doc,start,end,grade\nq,d,0,{MAX_OFFSET},1\n");
        assert_eq!(parse_spans(&at_bound, "s.csv").unwrap()[0].end, MAX_OFFSET);
        for end in [
            (MAX_OFFSET + 1).to_string(),
            u64::MAX.to_string(),
            "99999999999999999999999".to_owned(),
        ] {
            let text = format!("query,doc,start,end,grade\nq,d,0,{end},1\n");
            let m = parse_spans(&text, "s.csv").unwrap_err().to_string();
            assert!(
                m.starts_with(&format!(
                    "s.csv, line 2: end `{end}`: larger than 9007199254740992 (2^53)"
                )),
                "{m}"
            );
            let json = format!(
                "{{\"query\":\"q\",\"doc\":\"d\",\"start\":0,\"end\":{end},\"score\":1}}\n"
            );
            let m = parse_chunks(&json, "c.jsonl").unwrap_err().to_string();
            assert!(m.starts_with("c.jsonl, line 1: end "), "{m}");
        }
    }

    #[test]
    fn quoted_csv_is_read_as_csv() {
        let quoted = "\"query\",\"doc\",\"start\",\"end\",\"score\",\"note\"\n\
                      \"q1\",\"d,1\",\"0\",\"10\",\"0.5\",\"a \"\"quoted\"\" note, with a comma\"\n";
        assert_eq!(
            parse_chunks(quoted, "c.csv").unwrap(),
            vec![chunk("q1", "d,1", 0, 10, 0.5)]
        );
        let open = "query,doc,start,end,score\n\"q1,d,0,10,1\n";
        let m = parse_chunks(open, "c.csv").unwrap_err().to_string();
        assert!(m.starts_with("c.csv, line 2: field 1 opens a quote"), "{m}");
    }

    #[test]
    fn ids_follow_the_id_rule_and_messages_stay_short() {
        let cases: [(&[u8], &str); 5] = [
            (
                b"q 1,d,0,5,1",
                "column `query`: the id `q 1` contains U+0020",
            ),
            (
                b"q,\x1b[31m,0,5,1",
                "column `doc`: the id `\\u{1b}[31m` contains U+001B",
            ),
            (b",d,0,5,1", "column `query` is empty"),
            (
                b"q,\xff\xfe,0,5,1",
                "column `doc`: the id `\u{fffd}\u{fffd}` is not UTF-8",
            ),
            (b"q,d,0,5,1e12", "grade `1e12`: a grade must be between"),
        ];
        for (line, want) in cases {
            let mut text = b"query,doc,start,end,grade\n".to_vec();
            text.extend_from_slice(line);
            let m = parse_span_qrels(&text, "s.csv").unwrap_err().to_string();
            assert!(m.starts_with(&format!("s.csv, line 2: {want}")), "{m}");
        }
        // A huge id, a huge header: the message is short.
        let long = format!(
            "query,doc,start,end,grade\nq{}x,d,0,5,1\n",
            " ".repeat(1 << 20)
        );
        let m = parse_spans(&long, "s.csv").unwrap_err().to_string();
        assert!(m.len() < 300, "{}", m.len());
        let mut header = vec![0u8; 10 << 20];
        header.extend_from_slice(b",x\n");
        let m = parse_span_qrels(&header, "s.csv").unwrap_err().to_string();
        assert!(m.starts_with("s.csv, line 1: no column `query`"), "{m}");
        assert!(m.len() < 500, "{}", m.len());
        let many = format!("{}\n", "a,".repeat(1 << 20));
        let m = parse_span_qrels(many.as_bytes(), "s.csv")
            .unwrap_err()
            .to_string();
        assert!(m.contains("... (1048577 columns)"), "{m}");
        assert!(m.len() < 500, "{}", m.len());
        let m = parse_span_qrels(b"query,doc,query,start,end,grade\n", "s.csv")
            .unwrap_err()
            .to_string();
        assert_eq!(
            m,
            "s.csv, line 1: column `query` appears twice in the header (fields 1 and 3)"
        );
        let json = format!(
            "{{\"query\":[{}],\"doc\":\"d\"}}\n",
            "1,".repeat(1 << 16) + "1"
        );
        let m = parse_span_qrels(json.as_bytes(), "s.jsonl")
            .unwrap_err()
            .to_string();
        assert_eq!(
            m,
            "s.jsonl, line 1: query (an array): not a string or a number"
        );
    }

    #[test]
    fn header_only_span_qrels_are_refused_and_a_header_only_run_is_read() {
        let m = parse_spans("query,doc,start,end,grade\n\n", "s.csv")
            .unwrap_err()
            .to_string();
        assert!(m.starts_with("s.csv: a header and no span"), "{m}");
        assert!(
            parse_chunk_run(b"query,doc,start,end,score\n", "c.csv")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_byte_order_mark_crlf_and_gzip_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let text = "\u{feff}query\tdoc\tstart\tend\tgrade\r\nq\td\t0\t5\t1\r\n";
        let mut gz = flate2_like_gzip(text.as_bytes());
        let path = dir.path().join("s.tsv.gz");
        std::fs::write(&path, &mut gz).unwrap();
        assert_eq!(read_spans(&path).unwrap(), vec![span("q", "d", 0, 5, 1.0)]);
        // A directory is an error naming it, not a panic or a read.
        let m = read_spans(dir.path()).unwrap_err().to_string();
        assert!(m.starts_with("cannot read "), "{m}");
    }

    /// `bytes` as a gzip member with stored (uncompressed) deflate blocks.
    fn flate2_like_gzip(bytes: &[u8]) -> Vec<u8> {
        let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
        let chunks: Vec<&[u8]> = bytes.chunks(65535).collect();
        for (i, chunk) in chunks.iter().enumerate() {
            out.push(u8::from(i + 1 == chunks.len()));
            let len = chunk.len() as u16;
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&(!len).to_le_bytes());
            out.extend_from_slice(chunk);
        }
        out.extend_from_slice(&crc32(bytes).to_le_bytes());
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        out
    }

    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
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

    /// Pieces of span files, faults mixed in.
    const PIECES: &[&str] = &[
        "query",
        "doc",
        "start",
        "end",
        "grade",
        "score",
        "q",
        "r",
        "d",
        "e",
        "0",
        "1",
        "5",
        "10",
        "2.5",
        "-1",
        "1e999",
        "NaN",
        "9007199254740992",
        "9007199254740993",
        "18446744073709551615",
        "2147483648",
        ",",
        ",",
        "\t",
        "\n",
        "\n",
        "\r\n",
        " ",
        "\"",
        "\"\"",
        "{",
        "}",
        ":",
        "[",
        "]",
        "\"query\":",
        "\"doc\":",
        "\"start\":",
        "\"end\":",
        "\"grade\":",
        "\"score\":",
        "\u{feff}",
        "\0",
        "\x1b",
        "\u{e9}",
        "null",
    ];

    fn text() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        prop_oneof![
            prop::collection::vec(any::<u8>(), 0..256),
            prop::collection::vec(prop::sample::select(PIECES), 0..80)
                .prop_map(|pieces| pieces.concat().into_bytes()),
        ]
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

    /// Checks what a parse gave: values, or an error naming the file and a
    /// line that exists.
    fn check_error<T>(result: &Result<T, SpansError>, text: &[u8], name: &str) {
        if let Err(e) = result {
            let m = e.to_string();
            assert!(m.starts_with(name), "{m}");
            assert!(m.len() < 1000, "{m}");
            if let SpansError::Line { line, .. } = e {
                let lines = text.split(|&b| b == b'\n').count() as u64;
                assert!(*line >= 1 && *line <= lines, "{m}: {lines} lines");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_as_span_files_never_panic(spans in text(), run in text()) {
            let qrels = parse_span_qrels(&spans, "s.in");
            check_error(&qrels, &spans, "s.in");
            let chunks = parse_chunk_run(&run, "c.in");
            check_error(&chunks, &run, "c.in");
        }

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
