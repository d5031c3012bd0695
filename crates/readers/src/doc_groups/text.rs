//! Document groups as lines of fields (see the [module](super)): two or
//! three fields separated by spaces or tabs, no header. A text file whose
//! first line that is not blank starts with `{` (JSON Lines) or is a header
//! (a tab or a comma and a field `doc` or `group`) is a table, read by the
//! shared `row_table` reader instead. A byte order mark
//! is skipped, `\r\n` line ends read, blank lines (spaces and tabs only)
//! skipped.

use rankeval_core::shorten_id;

use super::{DocGroupsFileError, Rows, checked_id};
use crate::text_table::{is_blank, numbered_lines};

/// Whether the text `bytes` is a table (JSON Lines or CSV/TSV with a
/// header) rather than lines of fields.
pub(super) fn is_table(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    numbered_lines(bytes)
        .find(|(_, line)| !is_blank(line))
        .is_some_and(|(_, first)| {
            first.trim_ascii_start().starts_with(b"{") || header_delimiter(first).is_some()
        })
}

/// The rows of a text file of lines of fields.
pub(super) fn parse(bytes: &[u8], name: &str) -> Result<Rows, DocGroupsFileError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut rows = Rows::new(name, false);
    for (at, line) in numbered_lines(bytes).filter(|(_, line)| !is_blank(line)) {
        whitespace(&mut rows, at, line)?;
    }
    Ok(rows)
}

/// A header field's name: trimmed, one pair of quotes removed.
fn unquoted(field: &[u8]) -> &[u8] {
    let field = field.trim_ascii();
    field
        .strip_prefix(b"\"")
        .and_then(|f| f.strip_suffix(b"\""))
        .unwrap_or(field)
}

/// The delimiter of a header line: a tab or a comma, with a field `doc` or
/// `group`;
/// `None` for a line of memberships.
fn header_delimiter(line: &[u8]) -> Option<u8> {
    let delimiter = if memchr::memchr(b'\t', line).is_some() {
        b'\t'
    } else if memchr::memchr(b',', line).is_some() {
        b','
    } else {
        return None;
    };
    line.split(|&b| b == delimiter)
        .any(|field| matches!(unquoted(field), b"doc" | b"group"))
        .then_some(delimiter)
}

/// A weight's text as a number; `what` names the column or field.
pub(super) fn weight(text: &[u8], what: &str) -> Result<f64, String> {
    let text = text.trim_ascii();
    std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .ok_or_else(|| format!("{what} `{}`: not a number", shorten_id(text)))
}

/// A line of fields: `doc group [weight]`, separated by spaces or tabs.
fn whitespace(rows: &mut Rows, line: u64, text: &[u8]) -> Result<(), DocGroupsFileError> {
    let fields: Vec<&[u8]> = text
        .split(|b| b.is_ascii_whitespace())
        .filter(|f| !f.is_empty())
        .take(4)
        .collect();
    let (doc, group, value) = match fields[..] {
        [doc, group] => (doc, group, None),
        [doc, group, value] => (doc, group, Some(value)),
        _ => {
            return Err(rows.error(
                line,
                format!(
                    "{} fields: a line of document groups is `doc group [weight]` (2 or 3 fields)",
                    if fields.len() > 3 {
                        "more than 3".to_owned()
                    } else {
                        fields.len().to_string()
                    }
                ),
            ));
        }
    };
    let read = (|| {
        Ok::<_, String>((
            checked_id(doc, "field 1 (doc)")?,
            checked_id(group, "field 2 (group)")?,
            value.map_or(Ok(1.0), |v| weight(v, "field 3 (weight)"))?,
        ))
    })();
    let (doc, group, value) = read.map_err(|problem| rows.error(line, problem))?;
    rows.push(line, doc, group, value)
}
