//! Document groups as text (see the [module](super)): lines of two or
//! three fields, a CSV or TSV table with a header, or JSON Lines, told
//! apart by the first line that is not blank: `{` starts JSON Lines; a tab
//! or a comma and a field `doc` or `group` make a header; anything else is lines of
//! fields. A byte order mark is skipped, `\r\n` line ends read, blank lines
//! (spaces and tabs only) skipped.

use std::borrow::Cow;

use rankeval_core::shorten_id;

use super::{DocGroupsFileError, Rows, checked_id};
use crate::split_csv_line;
use crate::text_table::{header_columns, is_blank, numbered_lines};

/// The rows of a text file.
pub(super) fn parse(bytes: &[u8], name: &str) -> Result<Rows, DocGroupsFileError> {
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
fn weight(text: &[u8], what: &str) -> Result<f64, String> {
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

/// A table's header: its delimiter, its width and where the columns are
/// (`weight` when there is one).
struct Header {
    delimiter: u8,
    width: usize,
    at: [usize; 2],
    weight: Option<usize>,
}

impl Header {
    /// The header on line `line`, names unquoted and trimmed; each column
    /// once.
    fn read(
        line: u64,
        text: &[u8],
        delimiter: u8,
        rows: &Rows,
    ) -> Result<Header, DocGroupsFileError> {
        let (width, at) = header_columns(
            text,
            delimiter,
            ["doc", "group"],
            "doc, group, weight (optional)",
        )
        .map_err(|problem| rows.error(line, problem))?;
        let weight =
            match header_columns(text, delimiter, ["weight"], "doc, group, weight (optional)") {
                Ok((_, [w])) => Some(w),
                Err(problem) if problem.contains("twice") => return Err(rows.error(line, problem)),
                Err(_) => None,
            };
        Ok(Header {
            delimiter,
            width,
            at,
            weight,
        })
    }
}

/// One line of a table.
fn csv(rows: &mut Rows, header: &Header, line: u64, text: &[u8]) -> Result<(), DocGroupsFileError> {
    let mut fields: [Cow<'_, [u8]>; 3] = Default::default();
    let found = split_csv_line(text, header.delimiter, |index, field| {
        if let Some(slot) = header.at.iter().position(|&at| at == index) {
            fields[slot] = field;
        } else if header.weight == Some(index) {
            fields[2] = field;
        }
    })
    .map_err(|kind| rows.error(line, kind.to_string()))?;
    if found != header.width {
        return Err(rows.error(
            line,
            format!("{found} fields, the header has {}", header.width),
        ));
    }
    let [doc, group, value] = &fields;
    let read = (|| {
        Ok::<_, String>((
            checked_id(doc.trim_ascii(), "column `doc`")?,
            checked_id(group.trim_ascii(), "column `group`")?,
            match header.weight {
                Some(_) => weight(value, "column `weight`")?,
                None => 1.0,
            },
        ))
    })();
    let (doc, group, value) = read.map_err(|problem| rows.error(line, problem))?;
    rows.push(line, doc, group, value)
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
fn json(rows: &mut Rows, line: u64, text: &[u8]) -> Result<(), DocGroupsFileError> {
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
        let doc = id("doc")?;
        let group = id("group")?;
        let number = match object.get("weight") {
            None => 1.0,
            Some(v) => v
                .as_f64()
                .ok_or_else(|| format!("key `weight` {}: not a number", json_shown(v)))?,
        };
        Ok::<_, String>((doc, group, number))
    })();
    let (doc, group, number) = read.map_err(|problem| rows.error(line, problem))?;
    rows.push(line, &doc, &group, number)
}
