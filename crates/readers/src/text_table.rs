//! What the row-table readers of text files share (span files, subtopic
//! judgements): numbering lines, skipping blank ones, and finding the wanted
//! columns in a CSV/TSV header (each once, with the header's own names in
//! the message when one is missing).

use rankeval_core::shorten_id;

use crate::split_csv_line;

/// Column names a message lists at most.
const SHOWN_COLUMNS: usize = 10;

/// The lines of `bytes` numbered from 1, without their `\n` or `\r\n`.
pub(crate) fn numbered_lines(bytes: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
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
pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| b == b' ' || b == b'\t')
}

/// Where the `wanted` columns are in the header `text` split by
/// `delimiter` (names unquoted and trimmed), and the header's width. The
/// problem, as a message, when a column is named twice or missing;
/// `columns_are` ends the latter ("query, subtopic, doc, grade").
pub(crate) fn header_columns<const N: usize>(
    text: &[u8],
    delimiter: u8,
    wanted: [&str; N],
    columns_are: &str,
) -> Result<(usize, [usize; N]), String> {
    let mut found: [Option<usize>; N] = [None; N];
    let mut twice: Option<(&str, usize, usize)> = None;
    let width = split_csv_line(text, delimiter, |index, field| {
        let field = field.trim_ascii();
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
    .map_err(|kind| kind.to_string())?;
    if let Some((column, first, second)) = twice {
        return Err(named_twice(column, first, second));
    }
    let mut at = [0usize; N];
    for ((slot, found), want) in at.iter_mut().zip(found).zip(wanted) {
        *slot =
            found.ok_or_else(|| no_column(text, delimiter, &format!("`{want}`"), columns_are))?;
    }
    Ok((width, at))
}

/// Where the one column named `want` is in the header `text` split by
/// `delimiter` (names unquoted and trimmed): `None` when the header has
/// none; the problem, as a message, when it names it twice.
pub(crate) fn header_column(
    text: &[u8],
    delimiter: u8,
    want: &str,
) -> Result<Option<usize>, String> {
    let mut first = None;
    let mut twice = None;
    split_csv_line(text, delimiter, |index, field| {
        if field.trim_ascii() == want.as_bytes() {
            match first {
                None => first = Some(index),
                Some(first) => {
                    twice.get_or_insert((first, index));
                }
            }
        }
    })
    .map_err(|kind| kind.to_string())?;
    match twice {
        Some((first, second)) => Err(named_twice(want, first, second)),
        None => Ok(first),
    }
}

/// The problem of a header naming `column` in the fields `first` and
/// `second` (from 0).
fn named_twice(column: &str, first: usize, second: usize) -> String {
    format!(
        "column `{column}` appears twice in the header (fields {} and {})",
        first + 1,
        second + 1
    )
}

/// The problem of a header `text` split by `delimiter` that lacks a column:
/// `wanted` as the message names it (``"`score` (or `rank`)"``), the
/// header's own first names, and `columns_are` ("query, subtopic, doc,
/// grade").
pub(crate) fn no_column(text: &[u8], delimiter: u8, wanted: &str, columns_are: &str) -> String {
    let mut shown: Vec<String> = Vec::new();
    let width = split_csv_line(text, delimiter, |_, field| {
        if shown.len() < SHOWN_COLUMNS {
            shown.push(shorten_id(field.trim_ascii()));
        }
    })
    .unwrap_or(shown.len());
    let mut has = shown.join(", ");
    if width > shown.len() {
        has.push_str(&format!(", ... ({width} columns)"));
    }
    format!("no column {wanted} in the header (it has: {has}); the columns are {columns_are}")
}
