//! Impression logs as text: a CSV or TSV table with a header, or JSON
//! Lines, told apart by the first line that is not blank (`{`: JSON). A
//! byte order mark is skipped, `\r\n` read, blank lines skipped.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

use rankeval_core::shorten_id;

use super::cell::{Cell, RawRow, RawTable};
use super::{COLUMNS, ImpressionError, ImpressionOptions};
use crate::{RowAt, split_csv_line};

/// Column names a message lists at most.
const SHOWN_COLUMNS: usize = 10;

/// The raw rows of a text log.
pub(super) fn parse(
    bytes: &[u8],
    name: &str,
    options: &ImpressionOptions,
) -> Result<RawTable, ImpressionError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut lines = numbered_lines(bytes).filter(|(_, line)| !is_blank(line));
    let Some((first_at, first)) = lines.next() else {
        return Err(ImpressionError::File {
            path: name.to_owned(),
            problem: "empty: an impression log needs a header (CSV, TSV) or JSON objects".into(),
        });
    };
    let wanted = options.columns.names();
    let mut table = RawTable::default();
    if first.trim_ascii_start().starts_with(b"{") {
        for (at, line) in std::iter::once((first_at, first)).chain(lines) {
            let row = json(name, at, line, &wanted)?;
            for (has, cell) in table.has.iter_mut().zip(&row.cells) {
                *has |= cell.is_some();
            }
            table.rows.push(row);
        }
        table.names = wanted
            .iter()
            .flatten()
            .map(|s| shorten_id(s.as_bytes()))
            .collect();
    } else {
        let delimiter = if first.contains(&b'\t') { b'\t' } else { b',' };
        let mut header = Vec::new();
        split_csv_line(first, delimiter, |_, field| {
            header.push(String::from_utf8_lossy(&field).trim().to_owned());
        })
        .map_err(|kind| row_error(name, first_at, kind.to_string()))?;
        let mut at_column = [None; COLUMNS];
        for (slot, want) in at_column.iter_mut().zip(wanted) {
            let Some(want) = want else { continue };
            let mut named = header.iter().enumerate().filter(|(_, h)| *h == want);
            *slot = named.next().map(|(i, _)| i);
            if let Some((second, _)) = named.next() {
                return Err(ImpressionError::File {
                    path: name.to_owned(),
                    problem: format!(
                        "column `{want}` appears twice in the header (columns {} and {})",
                        slot.unwrap_or(0) + 1,
                        second + 1
                    ),
                });
            }
        }
        table.has = at_column.map(|c| c.is_some());
        table.names = header
            .iter()
            .take(SHOWN_COLUMNS)
            .map(|h| shorten_id(h.as_bytes()))
            .collect();
        if header.len() > SHOWN_COLUMNS {
            table.names.push(format!("... ({} columns)", header.len()));
        }
        for (at, line) in lines {
            let mut fields: Vec<Option<Cow<'_, [u8]>>> = vec![None; header.len()];
            let count = split_csv_line(line, delimiter, |i, field| {
                if let Some(slot) = fields.get_mut(i) {
                    *slot = Some(field);
                }
            })
            .map_err(|kind| row_error(name, at, kind.to_string()))?;
            if count != header.len() {
                return Err(row_error(
                    name,
                    at,
                    format!("{count} fields, but the header has {}", header.len()),
                ));
            }
            let cells = at_column.map(|c| {
                c.and_then(|i| fields.get(i).cloned().flatten()).map(|f| {
                    if f.is_empty() {
                        Cell::Null
                    } else {
                        Cell::Text(f.into_owned())
                    }
                })
            });
            table.rows.push(RawRow {
                at: RowAt::Line(at),
                cells,
            });
        }
    }
    Ok(table)
}

fn row_error(name: &str, at: u64, problem: String) -> ImpressionError {
    ImpressionError::Row {
        path: name.to_owned(),
        at: RowAt::Line(at),
        problem,
    }
}

/// One JSON Lines row: an object whose keys are the wanted columns (others
/// ignored). A wanted key given twice is an error, as in a run's JSON
/// Lines and a table's header: either value would be a guess.
fn json(
    name: &str,
    at: u64,
    line: &[u8],
    wanted: &[Option<&str>; COLUMNS],
) -> Result<RawRow, ImpressionError> {
    let bad = |e: serde_json::Error| row_error(name, at, format!("not a JSON object: {e}"));
    let mut reader = serde_json::Deserializer::from_slice(line);
    let values = WantedKeys(wanted)
        .deserialize(&mut reader)
        .and_then(|values| reader.end().map(|()| values))
        .map_err(bad)?;
    let cells = values.map(|value| value.as_ref().map(from_json));
    Ok(RawRow {
        at: RowAt::Line(at),
        cells,
    })
}

/// Reads a JSON object's values of the wanted keys (in the order of the
/// columns), each key at most once, skipping the others.
struct WantedKeys<'w, 'n>(&'w [Option<&'n str>; COLUMNS]);

impl<'de> DeserializeSeed<'de> for WantedKeys<'_, '_> {
    type Value = [Option<serde_json::Value>; COLUMNS];

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for WantedKeys<'_, '_> {
    type Value = [Option<serde_json::Value>; COLUMNS];

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut values: [Option<serde_json::Value>; COLUMNS] = Default::default();
        while let Some(key) = map.next_key::<String>()? {
            match self.0.iter().position(|want| *want == Some(key.as_str())) {
                Some(column) => {
                    let value = map.next_value::<serde_json::Value>()?;
                    if values[column].replace(value).is_some() {
                        return Err(de::Error::custom(format!(
                            "key `{}` appears twice",
                            shorten_id(key.as_bytes())
                        )));
                    }
                }
                None => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        Ok(values)
    }
}

/// A JSON value as a cell (arrays one level deep; deeper is `Other`).
fn from_json(value: &serde_json::Value) -> Cell {
    match value {
        serde_json::Value::String(s) => Cell::Text(s.as_bytes().to_vec()),
        serde_json::Value::Number(n) => Cell::Number(n.as_f64().unwrap_or(f64::NAN), n.to_string()),
        serde_json::Value::Null => Cell::Null,
        serde_json::Value::Bool(_) => Cell::Other("a boolean"),
        serde_json::Value::Object(_) => Cell::Other("an object"),
        serde_json::Value::Array(items) => Cell::List(
            items
                .iter()
                .map(|v| match v {
                    serde_json::Value::Array(_) => Cell::Other("a nested list"),
                    v => from_json(v),
                })
                .collect(),
        ),
    }
}

/// The lines of `bytes` numbered from 1, without their `\n` or `\r\n`.
fn numbered_lines(bytes: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    let mut rest = Some(bytes);
    let mut number = 0u64;
    std::iter::from_fn(move || {
        let text = rest?;
        let (line, after) = match memchr::memchr(b'\n', text) {
            Some(at) => (&text[..at], text.get(at + 1..)),
            None => (text, None),
        };
        rest = after;
        number += 1;
        Some((number, line.strip_suffix(b"\r").unwrap_or(line)))
    })
}

/// A line of nothing but spaces and tabs (or nothing): skipped.
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| b == b' ' || b == b'\t')
}
