//! One reader of small tables of named columns in every table format:
//! a CSV or TSV table with a header line (a tab in the header makes it
//! TSV, else CSV; names trimmed and unquoted, others ignored, each once),
//! JSON Lines (one object per row, a first line starting with `{`), and a
//! Parquet or Arrow IPC table (told by the file's name or magic bytes;
//! ids strings or integers or a dictionary of them, numbers integers or
//! floats, no nulls); gzip in every text format. A reader of such a file
//! is only its columns and its checks: it gives [`Column`]s and is handed
//! each row's cells as text ([`Cell`]), with where the row is ([`RowAt`]),
//! and returns the problem of a row as a message; this module names the
//! file, the line or row and the problem ([`RowFileError`]).
//!
//! The input is read whole within the limits every reader shares
//! ([`read_whole`](crate::read_whole): size, line length, gzip, magic
//! bytes); a byte order mark is skipped, `\r\n` read, blank lines (spaces
//! and tabs only) skipped.

use std::borrow::Cow;
use std::fs::File;
use std::path::Path;

use arrow_array::{Array, RecordBatch};
use arrow_schema::Schema;
use rankeval_core::shorten_id;

use crate::parquet::{ParquetSource, whole_batches};
use crate::row_file::RowFileError;
use crate::table::{Ids, is_id, is_number, numbers};
use crate::text_table::{header_column, is_blank, no_column, numbered_lines};
use crate::{Format, Input, ReadError, ReadErrorKind, RowAt, WholeInput, ipc, split_csv_line};

/// Column names a message lists at most.
const SHOWN_COLUMNS: usize = 10;

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Ids: text, or integers (a JSON number, an integer column) read as
    /// their decimal text.
    Id,
    /// Numbers: a JSON number, an integer or float column, a text field;
    /// handed on as text for the reader to parse (integers exactly).
    Number,
}

/// A column a reader reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Column {
    /// Its name in the header, the JSON key, the table's column.
    pub(crate) name: &'static str,
    /// What it holds.
    pub(crate) kind: Kind,
    /// Whether it may be left out (its cell is then `None`).
    pub(crate) optional: bool,
    /// The column this one stands in for: read only when the table (a JSON
    /// Lines row) has no column (key) of that name, and then meeting that
    /// column's requirement; its cell is `None` when that column is there.
    /// A sampled run's `rank` stands in for `score`: a score if given, else
    /// a rank.
    pub(crate) instead_of: Option<&'static str>,
}

impl Column {
    /// The columns of `columns` that stand in for this one.
    fn stand_ins<'c>(&self, columns: &'c [Column]) -> impl Iterator<Item = &'c Column> {
        let name = self.name;
        columns.iter().filter(move |c| c.instead_of == Some(name))
    }

    /// How a message names this column when none of it is found:
    /// ``"`score` (or `rank`)"``.
    fn wanted(&self, columns: &[Column]) -> String {
        let mut shown = format!("`{}`", self.name);
        for stand_in in self.stand_ins(columns) {
            shown.push_str(&format!(" (or `{}`)", stand_in.name));
        }
        shown
    }
}

/// The columns as messages list them: `doc, group, weight (optional)`,
/// `query, sample, doc, score (or rank)`.
fn columns_are(columns: &[Column]) -> String {
    columns
        .iter()
        .filter(|c| c.instead_of.is_none())
        .map(|c| {
            let mut shown = c.name.to_owned();
            for stand_in in c.stand_ins(columns) {
                shown.push_str(&format!(" (or {})", stand_in.name));
            }
            if c.optional {
                shown.push_str(" (optional)");
            }
            shown
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A row's cell: the field's text, trimmed (`None`: an optional column
/// the input does not have).
pub(crate) type Cell<'a> = Option<Cow<'a, [u8]>>;

/// Where a row's cells came from, for messages: a CSV/TSV or Parquet/Arrow
/// column, or a JSON key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// A column of a CSV/TSV, Parquet or Arrow table.
    Column,
    /// A key of a JSON Lines object.
    Key,
}

impl Source {
    /// How a message names the column `name`: ``column `doc` `` or
    /// ``key `doc` ``.
    pub(crate) fn name(self, name: &str) -> String {
        match self {
            Source::Column => format!("column `{name}`"),
            Source::Key => format!("key `{name}`"),
        }
    }
}

/// What the reader of a table does with each row: its place, its cells in
/// the order of the columns given, where they came from; a problem as a
/// message.
pub(crate) type OnRow<'f> = dyn FnMut(RowAt, &[Cell<'_>], Source) -> Result<(), String> + 'f;

/// Reads the table at `path` (its format by the name, then the magic
/// bytes, then the first line), handing each row to `on_row`; the number
/// of rows read.
pub(crate) fn read_row_table(
    path: &Path,
    columns: &[Column],
    on_row: &mut OnRow<'_>,
) -> Result<u64, RowFileError> {
    match Format::from_path(path) {
        format @ (Format::Parquet | Format::Arrow) => {
            table(&Input::file(path).with_format(format), columns, on_row)
        }
        _ => {
            let bytes = crate::read_whole(path, WholeInput::TEXT)?;
            parse_row_table(&bytes, &path.display().to_string(), columns, on_row)
        }
    }
}

/// [`read_row_table`] on bytes in memory (gzip already read through);
/// `name` names the file in errors. Parquet and Arrow IPC are told by their
/// magic bytes.
pub(crate) fn parse_row_table(
    bytes: &[u8],
    name: &str,
    columns: &[Column],
    on_row: &mut OnRow<'_>,
) -> Result<u64, RowFileError> {
    if bytes.starts_with(b"PAR1") {
        table(&Input::bytes(name, bytes, Format::Parquet), columns, on_row)
    } else if is_binary_table(bytes) {
        table(&Input::bytes(name, bytes, Format::Arrow), columns, on_row)
    } else {
        text(bytes, name, columns, on_row)
    }
}

/// Whether `bytes` start as a Parquet file or an Arrow IPC file or stream
/// does.
fn is_binary_table(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PAR1")
        || bytes.starts_with(b"ARROW1")
        || bytes.starts_with(b"\xFF\xFF\xFF\xFF")
}

/// A reader of an input written either as lines of its own layout or as a
/// table of [`Column`]s read by this module (document groups, subtopic
/// qrels): the rows it has read, built row by row.
pub(crate) trait LinesOrTable: Sized {
    /// The columns of its table, in the order of a row's cells.
    const COLUMNS: &'static [Column];
    /// No rows yet, of the file `name`; `rows`: numbered as a table's rows,
    /// not lines.
    fn empty(name: &str, rows: bool) -> Self;
    /// Checks and adds a row of a table; the problem as a message.
    fn row(&mut self, at: RowAt, cells: &[Cell<'_>], source: Source) -> Result<(), String>;
    /// Whether text is a table (a header line, JSON objects) rather than
    /// lines of its own layout.
    fn is_table(bytes: &[u8]) -> bool;
    /// Reads text as lines of its own layout.
    fn parse_lines(bytes: &[u8], name: &str) -> Result<Self, RowFileError>;
}

/// Reads the input at `path` as `R`'s lines or as a table (by the name,
/// then the magic bytes, then [`LinesOrTable::is_table`]).
pub(crate) fn read_lines_or_table<R: LinesOrTable>(path: &Path) -> Result<R, RowFileError> {
    read_input_lines_or_table(&Input::file(path))
}

/// [`read_lines_or_table`] from any input (a file, standard input, bytes in
/// memory), named as the input is: a Parquet or Arrow IPC input by its
/// format; a file read whole within the limits every reader shares
/// ([`read_whole`](crate::read_whole)); anything else (a pipe, gzip, bytes)
/// read whole through the input within the same limits.
pub(crate) fn read_input_lines_or_table<R: LinesOrTable>(input: &Input) -> Result<R, RowFileError> {
    let name = input.name();
    match (input.format(), input.path()) {
        (Format::Parquet | Format::Arrow, _) => {
            let mut rows = R::empty(name, true);
            table(input, R::COLUMNS, &mut |at, cells, source| {
                rows.row(at, cells, source)
            })?;
            Ok(rows)
        }
        (_, Some(path)) => parse_lines_or_table(&crate::read_whole(path, WholeInput::TEXT)?, name),
        _ => {
            let mut parsed = None;
            input.with_all_bytes(WholeInput::TEXT, |bytes| {
                parsed = Some(parse_lines_or_table(bytes, name));
                Ok(())
            })?;
            parsed.unwrap_or_else(|| Ok(R::empty(name, false)))
        }
    }
}

/// [`read_lines_or_table`] on bytes in memory (gzip already read through);
/// `name` names the file in errors.
pub(crate) fn parse_lines_or_table<R: LinesOrTable>(
    bytes: &[u8],
    name: &str,
) -> Result<R, RowFileError> {
    let binary = is_binary_table(bytes);
    if !binary && !R::is_table(bytes) {
        return R::parse_lines(bytes, name);
    }
    let mut rows = R::empty(name, binary);
    parse_row_table(bytes, name, R::COLUMNS, &mut |at, cells, source| {
        rows.row(at, cells, source)
    })?;
    Ok(rows)
}

/// An error at `at` of the file `name`.
fn error(name: &str, at: RowAt, problem: String) -> RowFileError {
    RowFileError::At {
        path: name.to_owned(),
        at,
        problem,
    }
}

/// A text table: JSON Lines or CSV/TSV with a header.
fn text(
    bytes: &[u8],
    name: &str,
    columns: &[Column],
    on_row: &mut OnRow<'_>,
) -> Result<u64, RowFileError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut lines = numbered_lines(bytes).filter(|(_, line)| !is_blank(line));
    let Some((first_at, first)) = lines.next() else {
        return Ok(0);
    };
    let mut count = 0u64;
    if first.trim_ascii_start().starts_with(b"{") {
        for (at, line) in std::iter::once((first_at, first)).chain(lines) {
            let cells = json(line, columns).map_err(|p| error(name, RowAt::Line(at), p))?;
            on_row(RowAt::Line(at), &cells, Source::Key)
                .map_err(|p| error(name, RowAt::Line(at), p))?;
            count += 1;
        }
        return Ok(count);
    }
    let header = Header::read(first, columns).map_err(|p| error(name, RowAt::Line(first_at), p))?;
    let mut cells: Vec<Cell<'_>> = Vec::with_capacity(columns.len());
    for (at, line) in lines {
        let here = RowAt::Line(at);
        cells.clear();
        cells.resize(columns.len(), None);
        let found = split_csv_line(line, header.delimiter, |index, field| {
            if let Some(c) = header.at.iter().position(|&a| a == Some(index))
                && let Some(cell) = cells.get_mut(c)
            {
                *cell = Some(match field {
                    Cow::Borrowed(b) => Cow::Borrowed(b.trim_ascii()),
                    Cow::Owned(b) => Cow::Owned(b.trim_ascii().to_vec()),
                });
            }
        })
        .map_err(|kind| error(name, here, kind.to_string()))?;
        if found != header.width {
            return Err(error(
                name,
                here,
                format!("{found} fields, the header has {}", header.width),
            ));
        }
        on_row(here, &cells, Source::Column).map_err(|p| error(name, here, p))?;
        count += 1;
    }
    Ok(count)
}

/// A CSV/TSV header: its delimiter, width and where each column is.
struct Header {
    delimiter: u8,
    width: usize,
    at: Vec<Option<usize>>,
}

impl Header {
    /// The header `text`: each required column once (or a column standing
    /// in for it), each optional one at most once.
    fn read(text: &[u8], columns: &[Column]) -> Result<Header, String> {
        let delimiter = if memchr::memchr(b'\t', text).is_some() {
            b'\t'
        } else {
            b','
        };
        let width = split_csv_line(text, delimiter, |_, _| {}).map_err(|k| k.to_string())?;
        let find = |name: &str| header_column(text, delimiter, name);
        let mut at = Vec::with_capacity(columns.len());
        for column in columns {
            let found = match column.instead_of {
                Some(main) if find(main)?.is_some() => None,
                _ => find(column.name)?,
            };
            if found.is_none() && !column.optional {
                let mut stood_in = false;
                for stand_in in column.stand_ins(columns) {
                    stood_in |= find(stand_in.name)?.is_some();
                }
                if !stood_in {
                    return Err(no_column(
                        text,
                        delimiter,
                        &column.wanted(columns),
                        &columns_are(columns),
                    ));
                }
            }
            at.push(found);
        }
        Ok(Header {
            delimiter,
            width,
            at,
        })
    }
}

/// A JSON value as a message shows it: strings and numbers cut as ids are,
/// arrays and objects by their kind.
pub(crate) fn json_shown(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => format!("\"{}\"", shorten_id(s.as_bytes())),
        serde_json::Value::Array(_) => "(an array)".to_owned(),
        serde_json::Value::Object(_) => "(an object)".to_owned(),
        other => shorten_id(other.to_string().as_bytes()),
    }
}

/// The cells of one line of JSON Lines.
fn json(text: &[u8], columns: &[Column]) -> Result<Vec<Cell<'static>>, String> {
    let value: serde_json::Value =
        serde_json::from_slice(text).map_err(|e| format!("not JSON: {e}"))?;
    let object = value
        .as_object()
        .ok_or_else(|| "not a JSON object".to_owned())?;
    columns
        .iter()
        .map(|column| {
            let key = column.name;
            if column
                .instead_of
                .is_some_and(|main| object.contains_key(main))
            {
                return Ok(None);
            }
            let Some(value) = object.get(key) else {
                let stood_in = column
                    .stand_ins(columns)
                    .any(|s| object.contains_key(s.name));
                return if column.optional || stood_in {
                    Ok(None)
                } else {
                    Err(format!("no key {}", column.wanted(columns)))
                };
            };
            match (value, column.kind) {
                (serde_json::Value::String(s), Kind::Id) => {
                    Ok(Some(Cow::Owned(s.as_bytes().to_vec())))
                }
                (serde_json::Value::Number(n), _) => {
                    Ok(Some(Cow::Owned(n.to_string().into_bytes())))
                }
                (other, Kind::Id) => Err(format!(
                    "key `{key}` {}: not a string or a number",
                    json_shown(other)
                )),
                (other, Kind::Number) => {
                    Err(format!("key `{key}` {}: not a number", json_shown(other)))
                }
            }
        })
        .collect()
}

/// Where the columns are in the batches read (`None`: an optional column
/// the table lacks), and the columns to read; each column's type checked.
fn table_columns(
    name: &str,
    schema: &Schema,
    columns: &[Column],
) -> Result<(Vec<Option<usize>>, Vec<usize>), ReadError> {
    let fail = |problem: String| ReadError::new(name, None, ReadErrorKind::BadField(problem));
    let fields = schema.fields();
    let has = |name: &str| fields.iter().any(|f| f.name() == name);
    let mut found = Vec::with_capacity(columns.len());
    for column in columns {
        let want = column.name;
        if column.instead_of.is_some_and(has) {
            found.push(None);
            continue;
        }
        let mut named = fields.iter().enumerate().filter(|(_, f)| f.name() == want);
        let Some((first, field)) = named.next() else {
            if column.optional || column.stand_ins(columns).any(|s| has(s.name)) {
                found.push(None);
                continue;
            }
            let mut shown: Vec<String> = fields
                .iter()
                .take(SHOWN_COLUMNS)
                .map(|f| shorten_id(f.name().as_bytes()))
                .collect();
            if fields.len() > SHOWN_COLUMNS {
                shown.push(format!("... ({} columns)", fields.len()));
            }
            return Err(fail(format!(
                "no column {} in the table (it has: {}); the columns are {}",
                column.wanted(columns),
                shown.join(", "),
                columns_are(columns)
            )));
        };
        if let Some((second, _)) = named.next() {
            return Err(fail(format!(
                "column `{want}` appears twice in the table (columns {} and {})",
                first + 1,
                second + 1
            )));
        }
        let data_type = field.data_type();
        let expected = match column.kind {
            Kind::Id if !is_id(data_type) => {
                Some("ids: strings or integers, or a dictionary of them")
            }
            Kind::Number if !is_number(data_type) => Some("numbers"),
            _ => None,
        };
        if let Some(expected) = expected {
            return Err(fail(format!(
                "column `{want}` is {data_type}, not {expected}"
            )));
        }
        found.push(Some(first));
    }
    let mut read: Vec<usize> = found.iter().flatten().copied().collect();
    read.sort_unstable();
    let place = |i: usize| read.iter().position(|&r| r == i).unwrap_or(i);
    let at = found.iter().map(|f| f.map(place)).collect();
    Ok((at, read))
}

/// A Parquet or Arrow IPC table.
fn table(input: &Input, columns: &[Column], on_row: &mut OnRow<'_>) -> Result<u64, RowFileError> {
    let name = input.name();
    let choose = |schema: &Schema| table_columns(name, schema, columns);
    let (at, batches) = if input.format() == Format::Arrow {
        input.with_all_bytes(WholeInput::ARROW, |bytes| ipc::decode(name, bytes, choose))?
    } else {
        match input.parquet_source()? {
            ParquetSource::File(path) => {
                let file = File::open(path)
                    .map_err(|e| ReadError::new(name, None, ReadErrorKind::Io(e)))?;
                whole_batches(name, file, choose)?
            }
            ParquetSource::Bytes(bytes) => whole_batches(name, bytes, choose)?,
        }
    };
    let mut before = 0u64;
    for batch in &batches {
        batch_rows(name, batch, columns, &at, before, on_row)?;
        before += batch.num_rows() as u64;
    }
    Ok(before)
}

/// One column of a batch, as its cells are read.
enum Values<'a> {
    Ids(Ids<'a>),
    Floats(Cow<'a, [f64]>),
}

/// Hands the rows of `batch` (its first row the table's row `before + 1`)
/// to `on_row`.
fn batch_rows(
    name: &str,
    batch: &RecordBatch,
    columns: &[Column],
    at: &[Option<usize>],
    before: u64,
    on_row: &mut OnRow<'_>,
) -> Result<(), RowFileError> {
    let arrays: Vec<Option<(&'static str, &dyn Array)>> = columns
        .iter()
        .zip(at)
        .map(|(c, a)| a.map(|a| (c.name, batch.column(a).as_ref())))
        .collect();
    let nulls: Vec<_> = arrays
        .iter()
        .flatten()
        .map(|(column, array)| (*column, array.logical_nulls()))
        .collect();
    let values: Vec<Option<Values<'_>>> = arrays
        .iter()
        .map(|a| {
            a.map(|(_, array)| match array.data_type() {
                t if t.is_floating() => Values::Floats(numbers(array)),
                // Strings, integers, a dictionary of them: their text.
                _ => Values::Ids(Ids::of(array)),
            })
        })
        .collect();
    let mut cells: Vec<Cell<'_>> = Vec::with_capacity(columns.len());
    for row in 0..batch.num_rows() {
        let here = RowAt::Row(before + row as u64 + 1);
        if let Some((column, _)) = nulls
            .iter()
            .find(|(_, n)| n.as_ref().is_some_and(|n| n.is_null(row)))
        {
            return Err(error(
                name,
                here,
                format!("column `{column}`: the value is null"),
            ));
        }
        cells.clear();
        for value in &values {
            cells.push(value.as_ref().map(|v| {
                match v {
                    Values::Ids(ids) => Cow::Owned(ids.with(row, <[u8]>::to_vec)),
                    Values::Floats(floats) => Cow::Owned(
                        floats
                            .get(row)
                            .map_or_else(|| "NaN".to_owned(), |f| format!("{f:?}"))
                            .into_bytes(),
                    ),
                }
            }));
        }
        on_row(here, &cells, Source::Column).map_err(|p| error(name, here, p))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key, a value, and a level standing in for the value.
    const COLUMNS: [Column; 3] = [
        Column {
            name: "key",
            kind: Kind::Id,
            optional: false,
            instead_of: None,
        },
        Column {
            name: "value",
            kind: Kind::Number,
            optional: false,
            instead_of: None,
        },
        Column {
            name: "level",
            kind: Kind::Number,
            optional: true,
            instead_of: Some("value"),
        },
    ];

    /// Each row's cells as text (`-` for none), or the error.
    fn rows(bytes: &[u8], columns: &[Column]) -> Result<Vec<String>, String> {
        let mut rows = Vec::new();
        parse_row_table(bytes, "t", columns, &mut |_, cells, _| {
            let shown: Vec<String> = cells
                .iter()
                .map(|c| {
                    c.as_deref()
                        .map_or("-".to_owned(), |c| String::from_utf8_lossy(c).into_owned())
                })
                .collect();
            rows.push(shown.join(" "));
            Ok(())
        })
        .map_err(|e| e.to_string())?;
        Ok(rows)
    }

    fn parquet(batch: &RecordBatch) -> Vec<u8> {
        let mut out = Vec::new();
        let mut writer =
            parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), None).unwrap();
        writer.write(batch).unwrap();
        writer.close().unwrap();
        out
    }

    #[test]
    fn a_stand_in_is_read_only_without_the_column_it_stands_for() {
        use arrow_array::{ArrayRef, Float64Array, StringArray};
        use std::sync::Arc;
        let table = |names: &[&str]| {
            let columns: Vec<(&str, ArrayRef)> = names
                .iter()
                .map(|&name| -> (&str, ArrayRef) {
                    if name == "key" {
                        (name, Arc::new(StringArray::from(vec!["a"])))
                    } else {
                        (name, Arc::new(Float64Array::from(vec![2.5])))
                    }
                })
                .collect();
            parquet(&RecordBatch::try_from_iter(columns).unwrap())
        };
        let both = "a 2.5 -";
        let level = "a - 2.5";
        let cases: Vec<(Vec<u8>, Result<&str, &str>)> = vec![
            (b"key,value,level\na,2.5,9\n".to_vec(), Ok(both)),
            (b"level,key\n2.5,a\n".to_vec(), Ok(level)),
            // The stand-in named twice is not read when the column is there.
            (b"key,value,level,level\na,2.5,1,2\n".to_vec(), Ok(both)),
            (
                b"key,other\na,1\n".to_vec(),
                Err(
                    "t, line 1: no column `value` (or `level`) in the header (it has: key, \
                     other); the columns are key, value (or level)",
                ),
            ),
            (
                b"key,level,level\na,1,2\n".to_vec(),
                Err("t, line 1: column `level` appears twice in the header (fields 2 and 3)"),
            ),
            (
                b"{\"key\": \"a\", \"value\": 2.5, \"level\": 9}\n".to_vec(),
                Ok(both),
            ),
            (b"{\"key\": \"a\", \"level\": 2.5}\n".to_vec(), Ok(level)),
            (
                b"{\"key\": \"a\", \"other\": 2.5}\n".to_vec(),
                Err("t, line 1: no key `value` (or `level`)"),
            ),
            (table(&["key", "level", "value"]), Ok(both)),
            (table(&["level", "key"]), Ok(level)),
            (
                table(&["key", "other"]),
                Err(
                    "t: no column `value` (or `level`) in the table (it has: key, other); the \
                     columns are key, value (or level)",
                ),
            ),
        ];
        for (bytes, wanted) in cases {
            let got = rows(&bytes, &COLUMNS).map(|r| r.join("\n"));
            assert_eq!(
                got.as_deref().map_err(String::as_str),
                wanted,
                "{}",
                String::from_utf8_lossy(&bytes)
            );
        }
    }

    /// A header field whose name holds the word `twice` is not a column
    /// named twice: an optional column missing from such a header was
    /// refused (the message of the missing column was read as one of a
    /// repeated column).
    #[test]
    fn a_header_field_named_twice_is_read_as_any_other() {
        let optional = [
            COLUMNS[0],
            Column {
                name: "weight",
                kind: Kind::Number,
                optional: true,
                instead_of: None,
            },
        ];
        assert_eq!(
            rows(b"key,twice\na,1\n", &optional),
            Ok(vec!["a -".to_owned()])
        );
        assert_eq!(
            rows(b"key,weight,twice\na,1,2\n", &optional),
            Ok(vec!["a 1".to_owned()])
        );
        assert_eq!(
            rows(b"key,weight,weight\na,1,2\n", &optional),
            Err(
                "t, line 1: column `weight` appears twice in the header (fields 2 and 3)"
                    .to_owned()
            )
        );
    }
}
