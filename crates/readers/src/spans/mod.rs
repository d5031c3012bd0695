//! Span files, for retrieval judged on text spans (the library's
//! `rankeval::spans` evaluates them): span qrels, rows `query, doc, start,
//! end, grade`, and runs of chunks, rows `query, doc, start, end, score`,
//! each a passage of a document named by half-open character offsets
//! `[start, end)`.
//!
//! Formats, told apart as every reader tells them ([`Format::from_path`]),
//! and by the first bytes of input given as bytes:
//!
//! - a CSV or TSV table with a header naming the five columns (in any
//!   order, others ignored, each once), split on tabs if the header has
//!   one, else on commas, fields quoted as the CSV reader reads them
//!   ([`split_csv_line`](crate::split_csv_line), RFC 4180);
//! - JSON Lines, one object per row with those keys (a file whose first
//!   line starts with `{`);
//! - a Parquet or Arrow IPC table (`.parquet`, `.pq`; `.arrow`,
//!   `.arrows`, `.feather`, `.ipc`) with those columns: ids strings or
//!   integers (or a dictionary of them), offsets integers, the grade or
//!   score numbers; no nulls.
//!
//! Every input is read whole within the limits every reader shares
//! ([`read_whole`]: 2 GiB, lines up to 64 MiB, gzip told by its first
//! bytes, Parquet and Arrow by their magic when not read in place); ids
//! follow the one id rule ([`check_id`](rankeval_core::check_id)) and must
//! be UTF-8; offsets are at most [`MAX_OFFSET`]; grades pass the grade
//! check of every qrels and scores are finite. Each error names the file,
//! the line (text) or row (tables) and the problem, input cut as ids are
//! ([`shorten_id`]). The rows are held as a
//! [`SpanTable`]: 32 bytes a row, each distinct id once.

pub(crate) mod table;
#[cfg(test)]
mod tests;
mod text;

use std::path::Path;

use rankeval_core::{Interner, check_grade, shorten_id};

use crate::{Format, Input, RowAt, WholeInput, read_whole};

/// The largest character offset a span or a chunk may have, 2^53: every
/// length, intersection and union of ranges of one document is then an
/// integer an `f64` holds exactly, so that the overlap rules and the
/// character-level ratios divide exact counts. A larger offset is refused
/// where it is read, naming the file and line (or row).
pub const MAX_OFFSET: u64 = 1 << 53;

/// The fifth column of a span file: what the number of a row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpanValue {
    /// A grade: span qrels.
    Grade,
    /// A score: a run of chunks.
    Score,
}

impl SpanValue {
    /// The column's (or key's) name.
    pub fn name(self) -> &'static str {
        match self {
            SpanValue::Grade => "grade",
            SpanValue::Score => "score",
        }
    }

    /// The columns a span file needs, in the order of a row.
    fn wanted(self) -> [&'static str; 5] {
        ["query", "doc", "start", "end", self.name()]
    }
}

/// One row as held: query and document as ids of the table's interner, the
/// offsets, and the grade or score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpanRow {
    /// The query, an id of [`SpanTable::ids`].
    pub query: u32,
    /// The document, an id of [`SpanTable::ids`].
    pub doc: u32,
    /// The first character.
    pub start: u64,
    /// One past the last character (`end > start` when read).
    pub end: u64,
    /// The grade (span qrels) or the score (a run of chunks).
    pub value: f64,
}

/// The rows of span qrels or of a run of chunks: 32 bytes a row, each
/// distinct query or document id held once, in input order.
#[derive(Clone, Debug, Default)]
pub struct SpanTable {
    /// The query and document ids.
    pub ids: Interner,
    /// The rows.
    pub rows: Vec<SpanRow>,
}

impl SpanTable {
    /// A table of rows given with their ids as text (no check: rows built
    /// by a program, not read).
    pub fn of<'a>(rows: impl ExactSizeIterator<Item = (&'a str, &'a str, u64, u64, f64)>) -> Self {
        let mut table = SpanTable {
            ids: Interner::new(),
            rows: Vec::with_capacity(rows.len()),
        };
        for (query, doc, start, end, value) in rows {
            let query = table.ids.intern(query.as_bytes());
            let doc = table.ids.intern(doc.as_bytes());
            table.rows.push(SpanRow {
                query,
                doc,
                start,
                end,
                value,
            });
        }
        table
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The text of an id (UTF-8 for every table read or made from text).
    pub fn text(&self, id: u32) -> String {
        String::from_utf8_lossy(self.ids.resolve(id)).into_owned()
    }

    /// The indices of the rows sorted by query, document, start and end
    /// (ids compared as interned numbers), ties in input order: the order
    /// in which rows of one query and document, and equal rows, are found.
    pub fn by_query_doc(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.rows.len() as u32).collect();
        order.sort_unstable_by_key(|&i| {
            let r = &self.rows[i as usize];
            (r.query, r.doc, r.start, r.end, i)
        });
        order
    }
}

/// The id of the chunk `[start, end)` of `doc`, `doc#start-end`: how a
/// chunk is named in messages and in the chunk-level run the library
/// builds.
pub fn chunk_id(doc: &str, start: u64, end: u64) -> String {
    format!("{doc}#{start}-{end}")
}

/// Why a span file could not be read.
pub type SpanFileError = crate::row_file::RowFileError;

/// Reads span qrels (see the module). Span qrels without a row are an
/// error: there would be nothing to evaluate against.
pub fn read_span_qrels(path: &Path) -> Result<SpanTable, SpanFileError> {
    let (table, _) = read(path, SpanValue::Grade)?;
    some_span(table, &path.display().to_string())
}

/// Reads a run of chunks (see the module). A chunk given twice for one
/// query is an error naming both lines (rows); a run without chunks is
/// read (the library refuses to evaluate it as `eval` refuses a run that
/// never ran).
pub fn read_chunk_run(path: &Path) -> Result<SpanTable, SpanFileError> {
    let (table, at) = read(path, SpanValue::Score)?;
    refuse_repeated_chunks(&table, &at, &path.display().to_string())?;
    Ok(table)
}

/// [`read_span_qrels`] on bytes in memory (not gzip: [`read_whole`] reads
/// gzip through); `name` is the file errors name. Parquet and Arrow IPC
/// are told by their magic bytes.
pub fn parse_span_qrels(bytes: &[u8], name: &str) -> Result<SpanTable, SpanFileError> {
    let (table, _) = parse(bytes, name, SpanValue::Grade)?;
    some_span(table, name)
}

/// [`read_chunk_run`] on bytes in memory (not gzip); `name` is the file
/// errors name.
pub fn parse_chunk_run(bytes: &[u8], name: &str) -> Result<SpanTable, SpanFileError> {
    let (table, at) = parse(bytes, name, SpanValue::Score)?;
    refuse_repeated_chunks(&table, &at, name)?;
    Ok(table)
}

/// Where each row of a table was read.
struct Positions {
    /// Lines of text, or rows of a table.
    rows: bool,
    /// Each row's line or row number.
    numbers: Vec<u64>,
}

impl Positions {
    /// Where row `i` was read.
    fn at(&self, i: usize) -> RowAt {
        let number = self.numbers[i];
        if self.rows {
            RowAt::Row(number)
        } else {
            RowAt::Line(number)
        }
    }
}

/// The rows of the span file at `path`: a Parquet or Arrow table by its
/// name, else text (or a table, by its first bytes).
fn read(path: &Path, value: SpanValue) -> Result<(SpanTable, Positions), SpanFileError> {
    match Format::from_path(path) {
        format @ (Format::Parquet | Format::Arrow) => {
            table::read(&Input::file(path).with_format(format), value)
        }
        _ => {
            let bytes = read_whole(path, WholeInput::TEXT)?;
            parse(&bytes, &path.display().to_string(), value)
        }
    }
}

/// The rows of a span file's bytes (gzip already read through): Parquet or
/// Arrow IPC when they start with its magic, else text.
fn parse(
    bytes: &[u8],
    name: &str,
    value: SpanValue,
) -> Result<(SpanTable, Positions), SpanFileError> {
    let format = if bytes.starts_with(b"PAR1") {
        Format::Parquet
    } else if bytes.starts_with(b"ARROW1") || bytes.starts_with(b"\xFF\xFF\xFF\xFF") {
        Format::Arrow
    } else {
        return text::parse(bytes, name, value);
    };
    table::read(&Input::bytes(name, bytes, format), value)
}

/// `table`, unless it has no span.
fn some_span(table: SpanTable, name: &str) -> Result<SpanTable, SpanFileError> {
    if table.rows.is_empty() {
        return Err(SpanFileError::File {
            path: name.to_owned(),
            problem: "a header and no span: span qrels need rows `query, doc, start, end, grade`"
                .to_owned(),
        });
    }
    Ok(table)
}

/// Rows read and checked into a [`SpanTable`], with where each was read.
struct Rows<'a> {
    name: &'a str,
    value: SpanValue,
    table: SpanTable,
    at: Positions,
}

impl<'a> Rows<'a> {
    /// No rows yet, of the file `name`; `rows`: numbered as rows of a
    /// table, not lines.
    fn new(name: &'a str, value: SpanValue, rows: bool) -> Self {
        Rows {
            name,
            value,
            table: SpanTable::default(),
            at: Positions {
                rows,
                numbers: Vec::new(),
            },
        }
    }

    /// An error at line (row) `number`.
    fn error(&self, number: u64, problem: String) -> SpanFileError {
        let at = if self.at.rows {
            RowAt::Row(number)
        } else {
            RowAt::Line(number)
        };
        SpanFileError::At {
            path: self.name.to_owned(),
            at,
            problem,
        }
    }

    /// Checks a row read at `number` (offsets in order, the value a grade
    /// or a finite score; ids already checked by [`checked_id`]) and keeps
    /// it; `shown` is its value as messages show it.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        number: u64,
        query: &[u8],
        doc: &[u8],
        start: u64,
        end: u64,
        value: f64,
        shown: &dyn Fn() -> String,
    ) -> Result<(), SpanFileError> {
        if end <= start {
            return Err(self.error(
                number,
                format!("end {end} <= start {start}: a span is [start, end), end after start"),
            ));
        }
        let last = self.value.name();
        let value = match self.value {
            SpanValue::Grade => check_grade(value)
                .map_err(|e| self.error(number, format!("{last} {}: {e}", shown())))?,
            SpanValue::Score if value.is_finite() => value,
            SpanValue::Score => {
                return Err(self.error(number, format!("{last} {}: not a finite number", shown())));
            }
        };
        if self.table.rows.len() >= u32::MAX as usize {
            return Err(self.error(number, format!("more than {} rows", u32::MAX - 1)));
        }
        let query = self.table.ids.intern(query);
        let doc = self.table.ids.intern(doc);
        self.table.rows.push(SpanRow {
            query,
            doc,
            start,
            end,
            value,
        });
        self.at.numbers.push(number);
        Ok(())
    }

    /// The rows, with the room reserved beyond them given back.
    fn finish(self) -> (SpanTable, Positions) {
        let Rows {
            mut table, mut at, ..
        } = self;
        table.rows.shrink_to_fit();
        table.ids.shrink_to_fit();
        at.numbers.shrink_to_fit();
        (table, at)
    }
}

/// An id's text checked: not empty, no whitespace or control character
/// ([`check_id`](rankeval_core::check_id)), UTF-8. `what` names the column
/// or key.
fn checked_id<'b>(text: &'b [u8], what: &str) -> Result<&'b [u8], String> {
    if text.is_empty() {
        return Err(format!("{what} is empty"));
    }
    rankeval_core::check_id(text).map_err(|bad| format!("{what}: {bad}"))?;
    if std::str::from_utf8(text).is_err() {
        return Err(format!(
            "{what}: the id `{}` is not UTF-8 text",
            shorten_id(text)
        ));
    }
    Ok(text)
}

/// The message for an offset past [`MAX_OFFSET`]; `shown` is the offset
/// as the input gave it.
fn too_far(what: &str, shown: &str) -> String {
    format!(
        "{what} {shown}: larger than {MAX_OFFSET} (2^53), the largest offset taken (so that every \
         count of characters is exact)"
    )
}

/// Refuses a run that gives one chunk twice for one query, naming the line
/// (row) of the first repeat in input order and the one it repeats.
fn refuse_repeated_chunks(
    table: &SpanTable,
    at: &Positions,
    name: &str,
) -> Result<(), SpanFileError> {
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
    Err(SpanFileError::At {
        path: name.to_owned(),
        at: at.at(again as usize),
        problem: format!(
            "query `{}` retrieves the chunk {} twice (first at {})",
            shorten_id(table.ids.resolve(r.query)),
            shorten_id(id.as_bytes()),
            at.at(first as usize)
        ),
    })
}
