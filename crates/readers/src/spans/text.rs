//! Span files as text: a CSV or TSV table with a header, or JSON Lines
//! (see the [module](super)), told apart by the first line that is not
//! blank. A byte order mark is skipped, `\r\n` line ends read, blank lines
//! (spaces and tabs only) skipped.

use std::borrow::Cow;

use super::{
    MAX_OFFSET, Positions, Rows, SpanFileError, SpanTable, SpanValue, checked_id, too_far,
};
use rankeval_core::shorten_id;

use crate::split_csv_line;
use crate::text_table::{header_columns, is_blank, numbered_lines};

/// The rows of a text span file.
pub(super) fn parse(
    bytes: &[u8],
    name: &str,
    value: SpanValue,
) -> Result<(SpanTable, Positions), SpanFileError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut lines = numbered_lines(bytes).filter(|(_, line)| !is_blank(line));
    let Some((first_at, first)) = lines.next() else {
        return Err(SpanFileError::File {
            path: name.to_owned(),
            problem: format!(
                "empty: a header naming query, doc, start, end, {} is needed",
                value.name()
            ),
        });
    };
    let mut rows = Rows::new(name, value, false);
    if first.trim_ascii_start().starts_with(b"{") {
        json(&mut rows, first_at, first)?;
        for (at, line) in lines {
            json(&mut rows, at, line)?;
        }
    } else {
        let header = Header::read(first_at, first, &rows)?;
        for (at, line) in lines {
            csv(&mut rows, &header, at, line)?;
        }
    }
    Ok(rows.finish())
}

/// A table's header: its delimiter, its width and where the wanted columns
/// are.
struct Header {
    delimiter: u8,
    width: usize,
    /// The fields of query, doc, start, end and the last column.
    at: [usize; 5],
}

impl Header {
    /// The header on line `line`: split by tabs if it has one, else by
    /// commas, names unquoted and trimmed; each wanted column once.
    fn read(line: u64, text: &[u8], rows: &Rows<'_>) -> Result<Header, SpanFileError> {
        let delimiter = if memchr::memchr(b'\t', text).is_some() {
            b'\t'
        } else {
            b','
        };
        let wanted = rows.value.wanted();
        let columns_are = format!("query, doc, start, end, {}", rows.value.name());
        let (width, at) = header_columns(text, delimiter, wanted, &columns_are)
            .map_err(|problem| rows.error(line, problem))?;
        Ok(Header {
            delimiter,
            width,
            at,
        })
    }
}

/// An offset's text as a number: an integer in `[0, MAX_OFFSET]`.
fn offset(text: &[u8], what: &str) -> Result<u64, String> {
    let text = text.trim_ascii();
    if !text.is_empty() && text.iter().all(u8::is_ascii_digit) {
        return match std::str::from_utf8(text)
            .ok()
            .and_then(|t| t.parse::<u64>().ok())
        {
            Some(n) if n <= MAX_OFFSET => Ok(n),
            _ => Err(too_far(what, &format!("`{}`", shorten_id(text)))),
        };
    }
    Err(format!(
        "{what} `{}`: not a non-negative integer",
        shorten_id(text)
    ))
}

/// One line of a table.
fn csv(rows: &mut Rows<'_>, header: &Header, line: u64, text: &[u8]) -> Result<(), SpanFileError> {
    let error = |rows: &Rows<'_>, problem: String| rows.error(line, problem);
    let mut fields: [Cow<'_, [u8]>; 5] = Default::default();
    let found = split_csv_line(text, header.delimiter, |index, field| {
        if let Some(slot) = header.at.iter().position(|&at| at == index) {
            fields[slot] = field;
        }
    })
    .map_err(|kind| error(rows, kind.to_string()))?;
    if found != header.width {
        return Err(error(
            rows,
            format!("{found} fields, the header has {}", header.width),
        ));
    }
    let [query, doc, start, end, value] = &fields;
    let checked = (|| {
        let query = checked_id(query.trim_ascii(), "column `query`")?;
        let doc = checked_id(doc.trim_ascii(), "column `doc`")?;
        let start = offset(start, "start")?;
        let end = offset(end, "end")?;
        Ok::<_, String>((query, doc, start, end))
    })();
    let (query, doc, start, end) = checked.map_err(|problem| error(rows, problem))?;
    let last = rows.value.name();
    let value_text = value.trim_ascii();
    let shown = || format!("`{}`", shorten_id(value_text));
    let value: f64 = std::str::from_utf8(value_text)
        .ok()
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| error(rows, format!("{last} {}: not a number", shown())))?;
    rows.push(line, query, doc, start, end, value, &shown)
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
fn json(rows: &mut Rows<'_>, line: u64, text: &[u8]) -> Result<(), SpanFileError> {
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
                    "{key} {}: not a string or a number",
                    json_shown(other)
                ));
            }
        };
        checked_id(&text, &format!("key `{key}`"))?;
        Ok(text)
    };
    let offset = |key: &str| {
        let v = field(key)?;
        match v.as_u64() {
            Some(n) if n <= MAX_OFFSET => Ok(n),
            Some(n) => Err(too_far(key, &n.to_string())),
            None => Err(format!(
                "{key} {}: not a non-negative integer",
                json_shown(v)
            )),
        }
    };
    let last = rows.value.name();
    let read = (|| {
        let query = id("query")?;
        let doc = id("doc")?;
        let start = offset("start")?;
        let end = offset("end")?;
        let v = field(last)?;
        let number = v
            .as_f64()
            .ok_or_else(|| format!("{last} {}: not a number", json_shown(v)))?;
        Ok::<_, String>((query, doc, start, end, v, number))
    })();
    let (query, doc, start, end, v, number) = read.map_err(|problem| rows.error(line, problem))?;
    rows.push(line, &query, &doc, start, end, number, &|| json_shown(v))
}
