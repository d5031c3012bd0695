//! Sampled runs as run lines (see the [module](super)): TREC run lines
//! whose second field is the sample, `query sample doc rank score [tag]`,
//! separated by spaces or tabs. A text file whose first line that is not
//! blank starts with `{` (JSON Lines) or is a header (a tab or a comma and
//! a field `query` or `sample`) is a table, read by the shared `row_table`
//! reader instead. A byte order mark is skipped, `\r\n` line ends read,
//! blank lines (spaces and tabs only) skipped.

use super::{Rows, SampledRunError, checked_id, number};
use crate::text_table::{is_blank, numbered_lines};

/// Whether the text `bytes` is a table (JSON Lines or CSV/TSV with a
/// header) rather than run lines.
pub(super) fn is_table(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    numbered_lines(bytes)
        .find(|(_, line)| !is_blank(line))
        .is_some_and(|(_, first)| {
            first.trim_ascii_start().starts_with(b"{") || header_delimiter(first).is_some()
        })
}

/// The rows of a text file of run lines.
pub(super) fn parse(bytes: &[u8], name: &str) -> Result<Rows, SampledRunError> {
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

/// The delimiter of a header line: a tab or a comma, with a field
/// `sample` or `query`; `None` for a run line.
fn header_delimiter(line: &[u8]) -> Option<u8> {
    let delimiter = if memchr::memchr(b'\t', line).is_some() {
        b'\t'
    } else if memchr::memchr(b',', line).is_some() {
        b','
    } else {
        return None;
    };
    line.split(|&b| b == delimiter)
        .any(|field| matches!(unquoted(field), b"sample" | b"query"))
        .then_some(delimiter)
}

/// A run line: `query sample doc rank score [tag]`; the score orders (the
/// rank must be a number).
fn whitespace(rows: &mut Rows, line: u64, text: &[u8]) -> Result<(), SampledRunError> {
    let fields: Vec<&[u8]> = text
        .split(|b| b.is_ascii_whitespace())
        .filter(|f| !f.is_empty())
        .take(7)
        .collect();
    let [query, sample, doc, rank, score, ..] = fields[..] else {
        return Err(rows.error(
            line,
            format!(
                "{} fields: a line of a sampled run is `query sample doc rank score [tag]` (5 or 6 fields)",
                fields.len()
            ),
        ));
    };
    if fields.len() > 6 {
        return Err(rows.error(
            line,
            "more than 6 fields: a line of a sampled run is `query sample doc rank score [tag]`"
                .to_owned(),
        ));
    }
    let read = (|| {
        number(rank, || "field 4 (rank)".to_owned())?;
        Ok::<_, String>((
            checked_id(query, || "field 1 (query)".to_owned())?,
            checked_id(sample, || "field 2 (sample)".to_owned())?,
            checked_id(doc, || "field 3 (doc)".to_owned())?,
            number(score, || "field 5 (score)".to_owned())?,
        ))
    })();
    let (query, sample, doc, score) = read.map_err(|problem| rows.error(line, problem))?;
    rows.push(line, query, sample, doc, score)
}
