//! Sampled runs as text (see the [module](super)): TREC run lines whose
//! second field is the sample, a CSV or TSV table with a header, or JSON
//! Lines, told apart by the first line that is not blank: `{` starts JSON
//! Lines; a tab or a comma and a field `sample` make a header; anything
//! else is run lines. A byte order mark is skipped, `\r\n` line ends read,
//! blank lines (spaces and tabs only) skipped.

use std::borrow::Cow;

use rankeval_core::shorten_id;

use super::{Rows, SampledRunError, checked_id, ordered};
use crate::split_csv_line;
use crate::text_table::{header_columns, is_blank, numbered_lines};

/// The rows of a text file.
pub(super) fn parse(bytes: &[u8], name: &str) -> Result<Rows, SampledRunError> {
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

/// The delimiter of a header line: a tab or a comma, with a field
/// `sample`; `None` for a run line.
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

/// A number's text; `what` names the column or field.
fn number(text: &[u8], what: &str) -> Result<f64, String> {
    let text = text.trim_ascii();
    std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .ok_or_else(|| format!("{what} `{}`: not a number", shorten_id(text)))
}

/// A run line: `query sample doc rank score [tag]`.
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
        number(rank, "field 4 (rank)")?;
        Ok::<_, String>((
            checked_id(query, "field 1 (query)")?,
            checked_id(sample, "field 2 (sample)")?,
            checked_id(doc, "field 3 (doc)")?,
            number(score, "field 5 (score)")?,
        ))
    })();
    let (query, sample, doc, score) = read.map_err(|problem| rows.error(line, problem))?;
    rows.push(line, query, sample, doc, score)
}

/// A table's header: its delimiter, its width, where the columns are and
/// whether the last is `rank`.
struct Header {
    delimiter: u8,
    width: usize,
    at: [usize; 4],
    by_rank: bool,
}

impl Header {
    /// The header on line `line`, names unquoted and trimmed; each column
    /// once.
    fn read(line: u64, text: &[u8], delimiter: u8, rows: &Rows) -> Result<Header, SampledRunError> {
        const ARE: &str = "query, sample, doc, score (or rank)";
        let scored = header_columns(text, delimiter, ["query", "sample", "doc", "score"], ARE);
        let (width, at, by_rank) = match scored {
            Ok((width, at)) => (width, at, false),
            Err(problem) if problem.contains("`score`") => {
                let (width, at) =
                    header_columns(text, delimiter, ["query", "sample", "doc", "rank"], ARE)
                        .map_err(|_| rows.error(line, problem))?;
                (width, at, true)
            }
            Err(problem) => return Err(rows.error(line, problem)),
        };
        Ok(Header {
            delimiter,
            width,
            at,
            by_rank,
        })
    }
}

/// One line of a table.
fn csv(rows: &mut Rows, header: &Header, line: u64, text: &[u8]) -> Result<(), SampledRunError> {
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
    let [query, sample, doc, value] = &fields;
    let column = if header.by_rank {
        "column `rank`"
    } else {
        "column `score`"
    };
    let read = (|| {
        Ok::<_, String>((
            checked_id(query.trim_ascii(), "column `query`")?,
            checked_id(sample.trim_ascii(), "column `sample`")?,
            checked_id(doc.trim_ascii(), "column `doc`")?,
            ordered(number(value, column)?, header.by_rank)?,
        ))
    })();
    let (query, sample, doc, score) = read.map_err(|problem| rows.error(line, problem))?;
    rows.push(line, query, sample, doc, score)
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
fn json(rows: &mut Rows, line: u64, text: &[u8]) -> Result<(), SampledRunError> {
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
        let sample = id("sample")?;
        let doc = id("doc")?;
        let (key, by_rank) = match (object.get("score"), object.get("rank")) {
            (Some(_), _) => ("score", false),
            (None, Some(_)) => ("rank", true),
            (None, None) => return Err("no key `score` (or `rank`)".to_owned()),
        };
        let v = field(key)?;
        let number = v
            .as_f64()
            .ok_or_else(|| format!("key `{key}` {}: not a number", json_shown(v)))?;
        Ok::<_, String>((query, sample, doc, ordered(number, by_rank)?))
    })();
    let (query, sample, doc, score) = read.map_err(|problem| rows.error(line, problem))?;
    rows.push(line, &query, &sample, &doc, score)
}
