//! Subtopic qrels as ndeval's lines of four fields separated by spaces or
//! tabs, no header (see the [module](super)). A text file whose first line
//! that is not blank starts with `{` (JSON Lines) or is a header (a tab or
//! a comma and a field `subtopic`) is a table, read by the shared
//! `row_table` reader instead. A byte order mark is skipped, `\r\n` line
//! ends read, blank lines (spaces and tabs only) skipped.

use super::{Rows, SubtopicFileError, checked_id};
use rankeval_core::shorten_id;

use crate::text_table::{is_blank, numbered_lines};

/// Whether the text `bytes` is a table (JSON Lines or CSV/TSV with a
/// header) rather than ndeval's lines.
pub(super) fn is_table(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    numbered_lines(bytes)
        .find(|(_, line)| !is_blank(line))
        .is_some_and(|(_, first)| {
            first.trim_ascii_start().starts_with(b"{") || header_delimiter(first).is_some()
        })
}

/// The rows of a text file of ndeval's lines.
pub(super) fn parse(bytes: &[u8], name: &str) -> Result<Rows, SubtopicFileError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut rows = Rows::new(name, false);
    for (at, line) in numbered_lines(bytes).filter(|(_, line)| !is_blank(line)) {
        whitespace(&mut rows, at, line)?;
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
pub(super) fn grade(text: &[u8], what: &str) -> Result<f64, String> {
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
