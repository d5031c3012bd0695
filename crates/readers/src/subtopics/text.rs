//! Subtopic qrels as text (see the [module](super)): ndeval's lines of
//! four fields, a CSV or TSV table with a header, or JSON Lines, told apart
//! by the first line that is not blank: `{` starts JSON Lines; a tab or a
//! comma and a field `subtopic` make a header; anything else is ndeval's
//! lines. A byte order mark is skipped, `\r\n` line ends read, blank lines
//! (spaces and tabs only) skipped.

use std::borrow::Cow;

use super::{COLUMNS, Rows, SubtopicFileError, checked_id};
use rankeval_core::shorten_id;

use crate::split_csv_line;
use crate::text_table::{header_columns, is_blank, numbered_lines};

/// The rows of a text file.
pub(super) fn parse(bytes: &[u8], name: &str) -> Result<Rows, SubtopicFileError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut lines = numbered_lines(bytes).filter(|(_, line)| !is_blank(line));
    let mut rows = Rows::new(name, false);
    let Some((first_at, first)) = lines.next() else {
        return Ok(rows);
    };
    if first.trim_ascii_start().starts_with(b"{") {
        json(&mut rows, first_at, first)?;
        for (at, line) in lines {
            json(&mut rows, at, line)?;
        }
    } else if let Some(delimiter) = header_delimiter(first) {
        let header = Header::read(first_at, first, delimiter, &rows)?;
        for (at, line) in lines {
            csv(&mut rows, &header, at, line)?;
        }
    } else {
        whitespace(&mut rows, first_at, first)?;
        for (at, line) in lines {
            whitespace(&mut rows, at, line)?;
        }
    }
    Ok(rows)
}

/// The delimiter of a header line: a tab or a comma, with a field
/// `subtopic`; `None` for a line of judgements.
fn header_delimiter(line: &[u8]) -> Option<u8> {
    let delimiter = if memchr::memchr(b'\t', line).is_some() {
        b'\t'
    } else if memchr::memchr(b',', line).is_some() {
        b','
    } else {
        return None;
    };
    line.split(|&b| b == delimiter)
        .any(|field| field.trim_ascii().trim_ascii_matches(b'"') == b"subtopic")
        .then_some(delimiter)
}

/// Trims a byte on both ends.
trait TrimByte {
    fn trim_ascii_matches(&self, byte: u8) -> &Self;
}

impl TrimByte for [u8] {
    fn trim_ascii_matches(&self, byte: u8) -> &[u8] {
        let start = self.iter().position(|&b| b != byte).unwrap_or(self.len());
        let end = self
            .iter()
            .rposition(|&b| b != byte)
            .map_or(start, |e| e + 1);
        &self[start..end.max(start)]
    }
}

/// A grade's text as a number; `what` names the column or field.
fn grade(text: &[u8], what: &str) -> Result<f64, String> {
    let text = text.trim_ascii();
    std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .ok_or_else(|| format!("{what} `{}`: not a number", shorten_id(text)))
}

/// One of ndeval's lines: `query subtopic doc grade`, separated by spaces
/// or tabs.
fn whitespace(rows: &mut Rows, line: u64, text: &[u8]) -> Result<(), SubtopicFileError> {
    let fields: Vec<&[u8]> = text
        .split(|b| b.is_ascii_whitespace())
        .filter(|f| !f.is_empty())
        .take(5)
        .collect();
    let [query, subtopic, doc, value] = fields[..] else {
        return Err(rows.error(
            line,
            format!(
                "{} fields: a line of subtopic qrels is `query subtopic doc grade` (4 fields)",
                if fields.len() > 4 {
                    "more than 4".to_owned()
                } else {
                    fields.len().to_string()
                }
            ),
        ));
    };
    let read = (|| {
        Ok::<_, String>((
            checked_id(query, "field 1 (query)")?,
            checked_id(subtopic, "field 2 (subtopic)")?,
            checked_id(doc, "field 3 (doc)")?,
            grade(value, "field 4 (grade)")?,
        ))
    })();
    let (query, subtopic, doc, value) = read.map_err(|problem| rows.error(line, problem))?;
    rows.push(line, query, subtopic, doc, value)
}

/// A table's header: its delimiter, its width and where the four columns
/// are.
struct Header {
    delimiter: u8,
    width: usize,
    at: [usize; 4],
}

impl Header {
    /// The header on line `line`, names unquoted and trimmed; each column
    /// once.
    fn read(
        line: u64,
        text: &[u8],
        delimiter: u8,
        rows: &Rows,
    ) -> Result<Header, SubtopicFileError> {
        let (width, at) = header_columns(text, delimiter, COLUMNS, "query, subtopic, doc, grade")
            .map_err(|problem| rows.error(line, problem))?;
        Ok(Header {
            delimiter,
            width,
            at,
        })
    }
}

/// One line of a table.
fn csv(rows: &mut Rows, header: &Header, line: u64, text: &[u8]) -> Result<(), SubtopicFileError> {
    let mut fields: [Cow<'_, [u8]>; 4] = Default::default();
    let found = split_csv_line(text, header.delimiter, |index, field| {
        if let Some(slot) = header.at.iter().position(|&at| at == index) {
            fields[slot] = field;
        }
    })
    .map_err(|kind| rows.error(line, kind.to_string()))?;
    if found != header.width {
        return Err(rows.error(
            line,
            format!("{found} fields, the header has {}", header.width),
        ));
    }
    let [query, subtopic, doc, value] = &fields;
    let read = (|| {
        Ok::<_, String>((
            checked_id(query.trim_ascii(), "column `query`")?,
            checked_id(subtopic.trim_ascii(), "column `subtopic`")?,
            checked_id(doc.trim_ascii(), "column `doc`")?,
            grade(value, "column `grade`")?,
        ))
    })();
    let (query, subtopic, doc, value) = read.map_err(|problem| rows.error(line, problem))?;
    rows.push(line, query, subtopic, doc, value)
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

/// One line of JSON Lines.
fn json(rows: &mut Rows, line: u64, text: &[u8]) -> Result<(), SubtopicFileError> {
    let value: serde_json::Value =
        serde_json::from_slice(text).map_err(|e| rows.error(line, format!("not JSON: {e}")))?;
    let object = value
        .as_object()
        .ok_or_else(|| rows.error(line, "not a JSON object".to_owned()))?;
    let field = |key: &str| object.get(key).ok_or_else(|| format!("no key `{key}`"));
    let id = |key: &str| -> Result<Cow<'_, [u8]>, String> {
        let text = match field(key)? {
            serde_json::Value::String(s) => Cow::Borrowed(s.as_bytes()),
            serde_json::Value::Number(n) => Cow::Owned(n.to_string().into_bytes()),
            other => {
                return Err(format!(
                    "key `{key}` {}: not a string or a number",
                    json_shown(other)
                ));
            }
        };
        checked_id(&text, &format!("key `{key}`"))?;
        Ok(text)
    };
    let read = (|| {
        let query = id("query")?;
        let subtopic = id("subtopic")?;
        let doc = id("doc")?;
        let v = field("grade")?;
        let number = v
            .as_f64()
            .ok_or_else(|| format!("key `grade` {}: not a number", json_shown(v)))?;
        Ok::<_, String>((query, subtopic, doc, number))
    })();
    let (query, subtopic, doc, number) = read.map_err(|problem| rows.error(line, problem))?;
    rows.push(line, &query, &subtopic, &doc, number)
}
