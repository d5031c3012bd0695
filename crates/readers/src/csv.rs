//! CSV and TSV files with a header line, the usual shape of recommender
//! logs:
//!
//! ```text
//! user,item,score        user,item,rank        user,item,grade
//! u1,i7,0.92             u1,i7,1               u1,i7,2
//! u1,i3,0.41             u1,i3,2               u1,i9,1
//! ```
//!
//! - Columns are found by their name in the header, in any order; other
//!   columns are allowed and ignored. The names are set with [`CsvOptions`]
//!   (defaults `user`, `item`, `score`, `rank`, `grade`).
//! - A run is ordered by its score column when it has one, exactly like a
//!   TREC run: score descending, ties by document id descending in byte
//!   order. Without a score column, the rank column orders it: rank
//!   ascending, ties in rank broken like tied scores (the reader stores
//!   `-rank` as the score, so that is also what
//!   [`RankedList::score`](rankeval_core::RankedList::score) returns).
//!   A run with both orders by score and ignores the rank, as trec_eval does.
//! - Ground truth has a grade column, or none and then every listed pair has
//!   grade 1 (with a note, [`QrelsNote`](crate::QrelsNote)); a grade column
//!   named in the options ([`CsvOptions::is_named`]) must be there. A
//!   grade is an integer or a decimal (`2`, `2.0`, `3.5`).
//! - The delimiter is a comma, or a tab for files named `*.tsv` (also
//!   `*.tsv.gz`), or the one set in the options. A UTF-8 byte order mark
//!   before the header is skipped; lines may end with `\r\n`; blank lines are
//!   skipped.
//! - Fields may be quoted as in RFC 4180 (`"a,b"`, `""` for a quote inside
//!   quotes), but a quoted field must end on its line: fields spanning
//!   several lines are not supported, and a quote left open is an error.
//!   A quote inside an unquoted field is kept as text (`55" TV`).
//! - Ids are taken as written (no trimming); numbers may have spaces or
//!   tabs around them. An empty id or number is an error.
//!
//! The header is read first; the data lines are then parsed in parallel
//! like every other line format. Lines without a quote are split with
//! `memchr` on the delimiter, without allocating.

use std::borrow::Cow;
use std::io::{BufRead, Read};

use rankeval_core::{QrelsBuilder, RunBuilder};

use super::error::{LineError, ReadErrorKind, excerpt};
use super::fields::{control_bytes_only, is_blank};
use super::grade::parse_grade;
use super::lines::{Failure, LineParser, RunLines, RunSink};
use super::missing_column::{ColumnNote, ColumnPlace, InputKind, MissingColumn, PresentColumn};
use super::trec::{qrels_push_error, run_push_error};
use super::ungraded::{EmptyGrade, QrelsRows};

/// What a CSV file looks like, for messages.
pub(crate) const CSV_LINE: &str =
    "a header line naming the columns, then one line per query and document";

/// Column names and delimiter of a CSV/TSV input.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CsvOptions {
    /// Column with the query (user) id. Default "user".
    pub query: String,
    /// Column with the document (item) id. Default "item".
    pub doc: String,
    /// Column with a run's scores. Default "score".
    pub score: String,
    /// Column with a run's ranks (used when there is no score column). Default "rank".
    pub rank: String,
    /// Column with grades in ground truth (grade 1 when absent). Default "grade".
    pub grade: String,
    /// Field delimiter; default: tab for `.tsv` names, else comma.
    pub delimiter: Option<char>,
    /// JSON Lines with one query per line: the key of the ranked list.
    /// Default "predicted".
    pub predicted: String,
    /// JSON Lines with one query per line: the key of the scores of the
    /// ranked list. Default "scores".
    pub scores: String,
    /// JSON Lines with one query per line: the key of the judgements.
    /// Default "relevant".
    pub relevant: String,
}

impl Default for CsvOptions {
    fn default() -> Self {
        Self {
            query: "user".to_owned(),
            doc: "item".to_owned(),
            score: "score".to_owned(),
            rank: "rank".to_owned(),
            grade: "grade".to_owned(),
            delimiter: None,
            predicted: "predicted".to_owned(),
            scores: "scores".to_owned(),
            relevant: "relevant".to_owned(),
        }
    }
}

impl CsvOptions {
    /// The names of the settings [`set`](Self::set) takes, as TOML keys and
    /// in `--qrels-columns` / `--run-columns`.
    pub const KEYS: &'static [&'static str] = &[
        "query",
        "doc",
        "score",
        "rank",
        "grade",
        "delimiter",
        "predicted",
        "scores",
        "relevant",
    ];

    /// Sets one column name, JSON key or the delimiter by its name (one of
    /// [`KEYS`](Self::KEYS)). The error says what is wrong, without naming
    /// where the setting came from.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        if value.is_empty() {
            return Err(format!("`{key}` cannot be empty"));
        }
        let slot = match key {
            "query" => &mut self.query,
            "doc" => &mut self.doc,
            "score" => &mut self.score,
            "rank" => &mut self.rank,
            "grade" => &mut self.grade,
            "predicted" => &mut self.predicted,
            "scores" => &mut self.scores,
            "relevant" => &mut self.relevant,
            "delimiter" => {
                let mut chars = value.chars();
                self.delimiter = match (value, chars.next(), chars.next()) {
                    ("tab" | "\\t", _, _) => Some('\t'),
                    (_, Some(c), None) => Some(c),
                    _ => {
                        return Err(format!(
                            "`delimiter` is `{value}`: give one character, or `tab`"
                        ));
                    }
                };
                return self.check();
            }
            other => {
                return Err(format!(
                    "unknown column setting `{other}`; expected one of {}",
                    Self::KEYS.join(", ")
                ));
            }
        };
        *slot = value.to_owned();
        Ok(())
    }

    /// Whether the setting `key` (one of [`KEYS`](Self::KEYS) but
    /// `delimiter`) names a column or key of its own: it differs from the
    /// default. Such a name is the only one looked for, and an input that
    /// lacks it is an error naming it and listing what the input has (a
    /// misspelled `grade = "labl"` must not read every pair as relevant
    /// with grade 1, nor a misspelled `score` order by ranks). A setting
    /// left at its default is also looked for under the usual other names
    /// where the reader has them, and a grade column left at its default
    /// may be absent (grade 1, with a warning, [`QrelsNote`](super::QrelsNote)).
    pub fn is_named(&self, key: &str) -> bool {
        let defaults = Self::default();
        let (set, default) = match key {
            "query" => (&self.query, defaults.query),
            "doc" => (&self.doc, defaults.doc),
            "score" => (&self.score, defaults.score),
            "rank" => (&self.rank, defaults.rank),
            "grade" => (&self.grade, defaults.grade),
            "predicted" => (&self.predicted, defaults.predicted),
            "scores" => (&self.scores, defaults.scores),
            "relevant" => (&self.relevant, defaults.relevant),
            _ => return false,
        };
        *set != default
    }

    /// Checks what can be checked before reading: the delimiter must be one
    /// ASCII character other than `"`, `\r` and `\n`. The error is a
    /// message naming the option.
    pub fn check(&self) -> Result<(), String> {
        self.delimiter_byte(false).map(|_| ())
    }

    /// The delimiter as a byte: the one set, else tab if `tsv`, else comma.
    pub(crate) fn delimiter_byte(&self, tsv: bool) -> Result<u8, String> {
        match self.delimiter {
            None if tsv => Ok(b'\t'),
            None => Ok(b','),
            Some(c) if c.is_ascii() && !matches!(c, '"' | '\r' | '\n') => Ok(c as u8),
            Some(c) => Err(format!(
                "the CSV option `delimiter` is {c:?}; it must be one ASCII character \
                 other than a double quote, \\r and \\n"
            )),
        }
    }
}

/// Refuses an id with whitespace or a control character, as the TREC and
/// JSON Lines readers do (such an id could not be written back to a TREC
/// file, and is most often a misread column).
#[inline]
fn check_id(id: &[u8], column: &str) -> Result<(), ReadErrorKind> {
    // Most ids are printable ASCII: one pass over the bytes, inlined here.
    if id.iter().all(|&b| b > b' ' && b < 0x7f) {
        return Ok(());
    }
    match rankeval_core::check_id(id) {
        // An empty CSV field is told apart where the row is read.
        Ok(()) | Err(rankeval_core::BadId::Empty) => Ok(()),
        Err(bad) => Err(ReadErrorKind::BadField(format!("column `{column}`: {bad}"))),
    }
}

/// The UTF-8 byte order mark some tools write at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The header of a CSV file.
pub(crate) struct Header {
    /// Its line number (blank lines may come before it).
    pub(crate) line: u64,
    /// Bytes read up to the end of the header line.
    pub(crate) bytes: u64,
    /// The column names, unquoted, with spaces around them trimmed.
    columns: Vec<String>,
    /// The delimiter it was split with.
    delimiter: u8,
}

/// Reads the header: the first line that is not blank, after a byte order
/// mark. `None` if the input has no such line.
pub(crate) fn read_header(
    reader: &mut dyn BufRead,
    delimiter: u8,
) -> Result<Option<Header>, Failure> {
    let mut buffer = Vec::new();
    let mut line = 0u64;
    let mut bytes = 0u64;
    loop {
        buffer.clear();
        let limit = super::MAX_LINE_BYTES as u64 + 1;
        let got = (&mut *reader)
            .take(limit)
            .read_until(b'\n', &mut buffer)
            .map_err(Failure::Io)?;
        if got == 0 {
            return Ok(None);
        }
        if got as u64 == limit && buffer.last() != Some(&b'\n') {
            let kind = ReadErrorKind::LineTooLong {
                limit: super::MAX_LINE_BYTES,
            };
            return Err(LineError::new(line.saturating_add(1), kind).into());
        }
        bytes += got as u64;
        line = line.saturating_add(1);
        let mut text = &buffer[..];
        if line == 1 {
            text = text.strip_prefix(BOM).unwrap_or(text);
        }
        let text = text.strip_suffix(b"\n").unwrap_or(text);
        if is_blank(text) {
            if let Some(kind) = control_bytes_only(text) {
                return Err(LineError::new(line, kind).into());
            }
            continue;
        }
        let mut columns = Vec::new();
        split(strip_cr(text), delimiter, |_, field| {
            columns.push(String::from_utf8_lossy(field.trim_ascii()).into_owned());
        })
        .map_err(|kind| LineError::new(line, kind))?;
        return Ok(Some(Header {
            line,
            bytes,
            columns,
            delimiter,
        }));
    }
}

impl Header {
    /// The index of column `name`, if the header has it; an error if it has
    /// it twice.
    fn find(&self, name: &str) -> Result<Option<usize>, LineError> {
        let mut found = self.columns.iter().enumerate().filter(|(_, c)| *c == name);
        match (found.next(), found.next()) {
            (Some((first, _)), Some((second, _))) => Err(LineError::new(
                self.line,
                ReadErrorKind::BadField(format!(
                    "column `{name}` appears twice in the header (fields {} and {})",
                    first + 1,
                    second + 1
                )),
            )),
            (found, _) => Ok(found.map(|(i, _)| i)),
        }
    }

    /// The index of a column the reader cannot do without.
    fn require(
        &self,
        input: InputKind,
        name: &str,
        option: &'static str,
        what: &'static str,
    ) -> Result<usize, LineError> {
        self.find(name)?
            .ok_or_else(|| self.missing(input, &[option], &[name], what))
    }

    /// "no column ... in the header", listing the header's columns.
    fn missing(
        &self,
        input: InputKind,
        options: &[&'static str],
        wanted: &[&str],
        what: &'static str,
    ) -> LineError {
        let mut note = None;
        if let [only] = &self.columns[..] {
            let others = [b',', b'\t', b';', b'|'];
            if others
                .iter()
                .any(|&d| d != self.delimiter && only.as_bytes().contains(&d))
            {
                note = Some(ColumnNote::OneColumnHeader {
                    delimiter: show_delimiter(self.delimiter),
                });
            }
        }
        let missing = MissingColumn {
            input,
            place: ColumnPlace::Header,
            options: options.to_vec(),
            wanted: wanted.iter().map(|&w| w.to_owned()).collect(),
            what,
            present: self
                .columns
                .iter()
                .map(|name| PresentColumn {
                    name: name.clone(),
                    data_type: None,
                })
                .collect(),
            note,
        };
        LineError::new(self.line, ReadErrorKind::MissingColumn(Box::new(missing)))
    }
}

fn show_delimiter(delimiter: u8) -> String {
    match delimiter {
        b'\t' => "`\\t` (tab)".to_owned(),
        d => format!("`{}`", char::from(d)),
    }
}

/// What the query column holds, for a message.
pub(crate) const QUERY_IDS: &str = "query (user) ids";
/// What the document column holds, for a message.
pub(crate) const DOC_IDS: &str = "document (item) ids";
/// What the column that orders a run's lists holds, for a message.
pub(crate) const ORDERING_VALUES: &str = "scores or ranks that order the lists";
/// What the grade column holds, for a message.
pub(crate) const GRADES: &str = "grades";

/// Drops the `\r` of a `\r\n` line end.
#[inline]
fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Calls `each(index, field)` for every field of `line` (a line without its
/// line end), unquoting quoted fields as RFC 4180 says, within the line;
/// returns the number of fields. Used for the header and for lines with
/// quotes; lines without are split by [`Layout::plain_fields`].
#[cold]
fn split<'a>(
    line: &'a [u8],
    delimiter: u8,
    mut each: impl FnMut(usize, Cow<'a, [u8]>),
) -> Result<usize, ReadErrorKind> {
    let mut start = 0;
    let mut index = 0;
    loop {
        let end = if line.get(start) == Some(&b'"') {
            let (field, after) = unquote(line, start + 1).ok_or_else(|| {
                ReadErrorKind::BadField(format!(
                    "field {} opens a quote that is not closed on this line \
                     (fields spanning several lines are not supported)",
                    index + 1
                ))
            })?;
            if after < line.len() && line[after] != delimiter {
                return Err(ReadErrorKind::BadField(format!(
                    "field {} has text after its closing quote: `{}`",
                    index + 1,
                    excerpt(&line[after..])
                )));
            }
            each(index, field);
            after
        } else {
            let end = memchr::memchr(delimiter, &line[start..]).map_or(line.len(), |i| start + i);
            each(index, Cow::Borrowed(&line[start..end]));
            end
        };
        index += 1;
        if end >= line.len() {
            return Ok(index);
        }
        start = end + 1;
    }
}

/// The fields of one CSV or TSV line (without its line end), quoted fields
/// unquoted as RFC 4180 says (within the line), exactly as this reader
/// splits its header and its lines with quotes: `each(index, field)` for
/// every field, and the number of fields. For readers of other tables with
/// a header (span qrels, runs of chunks), so that every CSV is read one
/// way. The error names the field, not the line, which the caller knows.
pub fn split_csv_line<'a>(
    line: &'a [u8],
    delimiter: u8,
    each: impl FnMut(usize, Cow<'a, [u8]>),
) -> Result<usize, ReadErrorKind> {
    split(line, delimiter, each)
}

/// The quoted field whose text starts at `from` (just after its opening
/// quote), and the index just after its closing quote; `None` if the quote
/// is not closed.
fn unquote(line: &[u8], from: usize) -> Option<(Cow<'_, [u8]>, usize)> {
    let mut owned: Option<Vec<u8>> = None;
    let mut segment = from;
    let mut at = from;
    loop {
        let quote = at + memchr::memchr(b'"', &line[at..])?;
        if line.get(quote + 1) == Some(&b'"') {
            // `""`: one quote in the text.
            owned
                .get_or_insert_with(Vec::new)
                .extend_from_slice(&line[segment..=quote]);
            segment = quote + 2;
            at = quote + 2;
        } else {
            let field = match owned {
                None => Cow::Borrowed(&line[from..quote]),
                Some(mut text) => {
                    text.extend_from_slice(&line[segment..quote]);
                    Cow::Owned(text)
                }
            };
            return Some((field, quote + 1));
        }
    }
}

/// Which columns a parser reads, and how to split a line into them.
struct Layout {
    delimiter: u8,
    /// Number of columns in the header.
    width: usize,
    /// Column index of query, document and value (`usize::MAX`: none).
    wanted: [usize; 3],
    /// Their names, for messages.
    names: [String; 3],
}

const NONE: usize = usize::MAX;

impl Layout {
    /// Splits `line` and calls `then` with its query, document and value
    /// fields (the value is empty if the layout has no value column).
    #[inline]
    fn with_fields<R>(
        &self,
        line: &[u8],
        then: impl FnOnce([&[u8]; 3]) -> Result<R, ReadErrorKind>,
    ) -> Result<R, ReadErrorKind> {
        let line = strip_cr(line);
        match self.plain_fields(line) {
            Some(fields) => then(fields?),
            None => {
                let fields = self.quoted_fields(line)?;
                then(self.check([&fields[0], &fields[1], &fields[2]])?)
            }
        }
    }

    /// The fields of a line without quotes, borrowed from it; `None` if the
    /// line has a quote. One pass, no allocation.
    #[inline]
    fn plain_fields<'a>(&self, line: &'a [u8]) -> Option<Result<[&'a [u8]; 3], ReadErrorKind>> {
        let mut out: [&[u8]; 3] = [&[]; 3];
        let mut start = 0;
        let mut index = 0;
        for at in memchr::memchr2_iter(self.delimiter, b'"', line) {
            if line[at] == b'"' {
                return None;
            }
            self.keep(&mut out, index, &line[start..at]);
            index += 1;
            start = at + 1;
        }
        self.keep(&mut out, index, &line[start..]);
        if index + 1 != self.width {
            return Some(Err(self.field_count(index + 1)));
        }
        Some(self.check(out))
    }

    /// The fields of a line with quotes, unquoted.
    #[cold]
    fn quoted_fields<'a>(&self, line: &'a [u8]) -> Result<[Cow<'a, [u8]>; 3], ReadErrorKind> {
        let mut out: [Cow<'a, [u8]>; 3] = [const { Cow::Borrowed(&[]) }; 3];
        let found = split(line, self.delimiter, |index, field| {
            for (slot, &wanted) in out.iter_mut().zip(&self.wanted) {
                if wanted == index {
                    *slot = field.clone();
                }
            }
        })?;
        if found != self.width {
            return Err(self.field_count(found));
        }
        Ok(out)
    }

    /// Puts field `index` in the slots that want it.
    #[inline]
    fn keep<'a>(&self, out: &mut [&'a [u8]; 3], index: usize, field: &'a [u8]) {
        for (slot, &wanted) in out.iter_mut().zip(&self.wanted) {
            if wanted == index {
                *slot = field;
            }
        }
    }

    fn field_count(&self, found: usize) -> ReadErrorKind {
        ReadErrorKind::ColumnCount {
            expected: self.width,
            found,
        }
    }

    /// Refuses an empty query or document id.
    #[inline]
    fn check<'a>(&self, fields: [&'a [u8]; 3]) -> Result<[&'a [u8]; 3], ReadErrorKind> {
        for (field, name) in fields[..2].iter().zip(&self.names) {
            if field.is_empty() {
                return Err(empty(name));
            }
            check_id(field, name)?;
        }
        Ok(fields)
    }

    /// The value field as a number that can be ordered.
    #[inline]
    fn number(&self, text: &[u8]) -> Result<f64, ReadErrorKind> {
        let column = &self.names[2];
        let text = trim_number(text);
        if text.is_empty() {
            return Err(empty(column));
        }
        let bad = |expected| ReadErrorKind::BadColumnValue {
            column: column.clone(),
            text: excerpt(text),
            expected,
        };
        match fast_float2::parse::<f64, _>(text) {
            Ok(value) if value.is_nan() => Err(bad("a number that can be ordered")),
            Ok(value) => Ok(value),
            Err(_) => Err(bad("a number")),
        }
    }

    /// The value field as a grade (integer or decimal), read as every
    /// reader reads grades.
    #[inline]
    fn grade(&self, text: &[u8]) -> Result<f64, ReadErrorKind> {
        let column = &self.names[2];
        let text = trim_number(text);
        if text.is_empty() {
            return Err(empty(column));
        }
        let bad = |expected| ReadErrorKind::BadColumnValue {
            column: column.clone(),
            text: excerpt(text),
            expected,
        };
        parse_grade(text).map_err(bad)
    }
}

fn empty(column: &str) -> ReadErrorKind {
    ReadErrorKind::BadField(format!("column `{column}` is empty"))
}

/// A number's text without the spaces or tabs around it.
#[inline]
fn trim_number(text: &[u8]) -> &[u8] {
    let is_space = |b: &u8| matches!(b, b' ' | b'\t');
    let start = text.iter().position(|b| !is_space(b)).unwrap_or(text.len());
    let end = text
        .iter()
        .rposition(|b| !is_space(b))
        .map_or(start, |i| i + 1);
    &text[start..end]
}

/// What orders a CSV run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// A score column: higher first.
    Score,
    /// A rank column: lower first (stored as score `-rank`).
    Rank,
}

/// Parses the data lines of a CSV run.
pub(crate) struct CsvRun {
    layout: Layout,
    order: Order,
}

impl CsvRun {
    /// The parser for the columns `header` names, per `options`.
    pub(crate) fn new(header: &Header, options: &CsvOptions) -> Result<Self, LineError> {
        let run = InputKind::Run;
        let query = header.require(run, &options.query, "query", QUERY_IDS)?;
        let doc = header.require(run, &options.doc, "doc", DOC_IDS)?;
        let (value, name, order) = match header.find(&options.score)? {
            Some(score) => (score, &options.score, Order::Score),
            // A score column named but absent is not replaced by ranks the
            // user did not name.
            None if options.is_named("score") && !options.is_named("rank") => {
                return Err(header.missing(run, &["score"], &[&options.score], "scores"));
            }
            None => match header.find(&options.rank)? {
                Some(rank) => (rank, &options.rank, Order::Rank),
                None => {
                    return Err(header.missing(
                        run,
                        &["score", "rank"],
                        &[&options.score, &options.rank],
                        ORDERING_VALUES,
                    ));
                }
            },
        };
        Ok(Self {
            layout: Layout {
                delimiter: header.delimiter,
                width: header.columns.len(),
                wanted: [query, doc, value],
                names: [options.query.clone(), options.doc.clone(), name.clone()],
            },
            order,
        })
    }
}

impl LineParser for CsvRun {
    type Sink = RunBuilder;

    fn sink(&self) -> RunBuilder {
        RunBuilder::new()
    }

    fn sink_for(&self, _lines: usize, bytes: usize) -> RunBuilder {
        // A run line has at least 12 bytes; document ids are a fraction of
        // a line (a guess, grown if short).
        RunBuilder::with_capacity(bytes / 12 + 1, bytes / 4)
    }

    #[inline]
    fn parse(&self, sink: &mut RunBuilder, line: &[u8], number: u64) -> Result<(), LineError> {
        self.parse_into(sink, line, number)
    }

    fn join(&self, sink: &mut RunBuilder, later: RunBuilder, offset: u64) -> Result<(), LineError> {
        sink.append(later, offset);
        Ok(())
    }
}

impl RunLines for CsvRun {
    #[inline]
    fn parse_into<S: RunSink>(
        &self,
        sink: &mut S,
        line: &[u8],
        number: u64,
    ) -> Result<(), LineError> {
        self.layout
            .with_fields(line, |[query, doc, value]| {
                let value = self.layout.number(value)?;
                let score = match self.order {
                    Order::Score => value,
                    Order::Rank => -value,
                };
                sink.push_scored_at(query, doc, score, number)
                    .map_err(run_push_error)
            })
            .map_err(|kind| LineError::new(number, kind))
    }
}

/// Parses the data lines of CSV ground truth.
pub(crate) struct CsvQrels {
    layout: Layout,
    /// What an empty grade field means.
    empty: EmptyGrade,
}

impl CsvQrels {
    /// The parser for the columns `header` names, per `options`.
    pub(crate) fn new(header: &Header, options: &CsvOptions) -> Result<Self, LineError> {
        let qrels = InputKind::Qrels;
        let query = header.require(qrels, &options.query, "query", QUERY_IDS)?;
        let doc = header.require(qrels, &options.doc, "doc", DOC_IDS)?;
        let grade = if options.is_named("grade") {
            header.require(qrels, &options.grade, "grade", GRADES)?
        } else {
            header.find(&options.grade)?.unwrap_or(NONE)
        };
        Ok(Self {
            layout: Layout {
                delimiter: header.delimiter,
                width: header.columns.len(),
                wanted: [query, doc, grade],
                names: [
                    options.query.clone(),
                    options.doc.clone(),
                    options.grade.clone(),
                ],
            },
            empty: EmptyGrade::Refused,
        })
    }

    /// The same parser, an empty grade field meaning `empty`.
    pub(crate) fn with_empty(mut self, empty: EmptyGrade) -> Self {
        self.empty = empty;
        self
    }
}

impl CsvQrels {
    /// Whether the header has no grade column, so that every listed pair
    /// is relevant with grade 1.
    pub(crate) fn ungraded(&self) -> bool {
        self.layout.wanted[2] == NONE
    }
}

impl Header {
    /// The column names, as read.
    pub(crate) fn columns(&self) -> &[String] {
        &self.columns
    }
}

impl LineParser for CsvQrels {
    type Sink = QrelsRows;

    fn sink(&self) -> QrelsRows {
        QrelsRows::default()
    }

    fn sink_for(&self, _lines: usize, bytes: usize) -> QrelsRows {
        // A qrels line has at least 8 bytes.
        QrelsRows::new(QrelsBuilder::with_capacity(bytes / 8 + 1, bytes / 3))
    }

    #[inline]
    fn parse(&self, sink: &mut QrelsRows, line: &[u8], number: u64) -> Result<(), LineError> {
        self.layout
            .with_fields(line, |[query, doc, grade]| {
                let grade = if self.layout.wanted[2] == NONE {
                    1.0
                } else if self.empty == EmptyGrade::Unjudged && trim_number(grade).is_empty() {
                    // Not judged by this judge: its ids were checked.
                    sink.skip(number);
                    return Ok(());
                } else {
                    self.layout.grade(grade)?
                };
                sink.qrels
                    .push_at(query, doc, grade, number)
                    .map_err(qrels_push_error)
            })
            .map_err(|kind| LineError::new(number, kind))
    }

    fn join(&self, sink: &mut QrelsRows, later: QrelsRows, offset: u64) -> Result<(), LineError> {
        sink.append(later, offset);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(line: &str) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        let count = split(line.as_bytes(), b',', |i, f| {
            assert_eq!(i, out.len());
            out.push(String::from_utf8_lossy(&f).into_owned());
        })
        .map_err(|e| e.to_string())?;
        assert_eq!(count, out.len());
        Ok(out)
    }

    #[test]
    fn splits_plain_and_quoted_fields() {
        assert_eq!(fields("a,b,c").unwrap(), ["a", "b", "c"]);
        assert_eq!(fields("").unwrap(), [""]);
        assert_eq!(fields(",a,").unwrap(), ["", "a", ""]);
        assert_eq!(fields(r#""a,b",c"#).unwrap(), ["a,b", "c"]);
        assert_eq!(
            fields(r#"x,"say ""hi""",y"#).unwrap(),
            ["x", r#"say "hi""#, "y"]
        );
        assert_eq!(fields(r#""","""""#).unwrap(), ["", "\""]);
        assert_eq!(fields(r#"a,"""#).unwrap(), ["a", ""]);
        assert_eq!(fields(r#"a,"b","#).unwrap(), ["a", "b", ""]);
        assert_eq!(fields(r#"55" TV,b"#).unwrap(), [r#"55" TV"#, "b"]);
    }

    #[test]
    fn the_fast_path_agrees_with_the_quoting_splitter() {
        let layout = Layout {
            delimiter: b',',
            width: 4,
            wanted: [2, 0, 2],
            names: ["user".into(), "item".into(), "score".into()],
        };
        for line in ["i,x,u,1", "i,,u,", "item_1,x y,user_2,0.5", "a,b,c,d\r"] {
            let fast = layout.plain_fields(strip_cr(line.as_bytes())).unwrap();
            let slow = layout.quoted_fields(strip_cr(line.as_bytes())).unwrap();
            assert_eq!(fast.unwrap(), [&*slow[0], &*slow[1], &*slow[2]], "{line}");
        }
        assert!(layout.plain_fields(b"i,x,\"u\",1").is_none());
        assert!(layout.plain_fields(b"i,x,u,1\"").is_none());
        for line in ["i,x,u", "i,x,u,1,", ""] {
            let found = line.split(',').count();
            let fast = layout.plain_fields(line.as_bytes()).unwrap().unwrap_err();
            let slow = layout.quoted_fields(line.as_bytes()).unwrap_err();
            let expected = format!("expected 4 fields as in the header, found {found}");
            assert_eq!(
                (fast.to_string(), slow.to_string()),
                (expected.clone(), expected)
            );
        }
        let with_fields = |line: &str| {
            layout
                .with_fields(line.as_bytes(), |f| Ok(f.map(|f| f.to_vec())))
                .map_err(|e| e.to_string())
        };
        assert_eq!(
            with_fields("i,x,\"u,2\",1\r").unwrap(),
            [b"u,2".to_vec(), b"i".to_vec(), b"u,2".to_vec()]
        );
        assert_eq!(with_fields("i,x,,1").unwrap_err(), "column `user` is empty");
        assert_eq!(
            with_fields("\"\",x,u,1").unwrap_err(),
            "column `item` is empty"
        );
        // Ids are checked as in TREC and JSON Lines, quoted or not.
        for (line, c) in [
            ("i,x,u 2,1", "0020"),
            ("i\t1,x,u,1", "0009"),
            ("i,x,\"u\0\",1", "0000"),
        ] {
            let message = with_fields(line).unwrap_err();
            assert!(
                message.contains(&format!("contains U+{c}; ids cannot contain")),
                "{message}"
            );
        }
    }

    #[test]
    fn quotes_must_close_on_their_line_and_end_their_field() {
        assert_eq!(
            fields(r#"a,"b,c"#).unwrap_err(),
            "field 2 opens a quote that is not closed on this line \
             (fields spanning several lines are not supported)"
        );
        assert_eq!(
            fields(r#"a,"b""c"#).unwrap_err(),
            "field 2 opens a quote that is not closed on this line \
             (fields spanning several lines are not supported)"
        );
        assert_eq!(
            fields(r#""a"b,c"#).unwrap_err(),
            "field 1 has text after its closing quote: `b,c`"
        );
    }

    #[test]
    fn numbers_may_be_padded_and_grades_may_be_decimals() {
        let layout = Layout {
            delimiter: b',',
            width: 3,
            wanted: [0, 1, 2],
            names: ["user".into(), "item".into(), "rating".into()],
        };
        assert_eq!(layout.number(b" 2.5\t").unwrap(), 2.5);
        assert_eq!(layout.grade(b" 3 ").unwrap(), 3.0);
        assert_eq!(layout.grade(b"2.0").unwrap(), 2.0);
        assert_eq!(layout.grade(b"-1").unwrap(), -1.0);
        assert_eq!(layout.grade(b"+1e0").unwrap(), 1.0);
        assert_eq!(layout.grade(b"4.5").unwrap(), 4.5);
        for bad in [&b"1-"[..], b"--1", b"x", b"1.0.0"] {
            let message = layout.grade(bad).unwrap_err().to_string();
            assert!(
                message.ends_with("is not a grade (an integer or a decimal such as 3.5)"),
                "{message}"
            );
        }
        for bad in [&b"inf"[..], b"NaN", b"-infinity"] {
            let message = layout.grade(bad).unwrap_err().to_string();
            assert!(message.ends_with("is not a finite grade"), "{message}");
        }
        assert_eq!(
            layout.grade(b"1e12").unwrap_err().to_string(),
            "column `rating`: `1e12` is not a grade between -2147483647 and 2147483647"
        );
        assert_eq!(
            layout.grade(b"1e300").unwrap_err().to_string(),
            "column `rating`: `1e300` is not a grade between -2147483647 and 2147483647"
        );
        assert_eq!(
            layout.number(b"  ").unwrap_err().to_string(),
            "column `rating` is empty"
        );
        assert_eq!(
            layout.number(b"nan").unwrap_err().to_string(),
            "column `rating`: `nan` is not a number that can be ordered"
        );
    }

    #[test]
    fn delimiters() {
        let mut options = CsvOptions::default();
        assert_eq!(options.delimiter_byte(false), Ok(b','));
        assert_eq!(options.delimiter_byte(true), Ok(b'\t'));
        options.delimiter = Some(';');
        assert_eq!(options.delimiter_byte(true), Ok(b';'));
        assert!(options.check().is_ok());
        for bad in ['"', '\n', '→'] {
            options.delimiter = Some(bad);
            assert!(options.check().is_err(), "{bad:?}");
        }
    }
}
