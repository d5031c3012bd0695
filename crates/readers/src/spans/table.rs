//! Span files as Parquet or Arrow IPC tables (see the [module](super)):
//! the five columns found by name, each once; ids strings or integers (or
//! a dictionary of them), offsets integers, the grade or score numbers; a
//! null is an error naming its row. A regular Parquet file is read in
//! place; anything else (a pipe, gzip, Arrow IPC) is read whole within the
//! limits of [`WholeInput::PARQUET`](crate::WholeInput::PARQUET) or
//! [`ARROW`](crate::WholeInput::ARROW), its magic checked first.

use std::fs::File;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::Schema;
use rankeval_core::shorten_id;

use super::{
    MAX_OFFSET, Positions, Rows, SpanFileError, SpanTable, SpanValue, checked_id, too_far,
};
use crate::parquet::{ParquetSource, whole_batches};
use crate::table::{Ids, is_id, is_number, numbers};
use crate::{Format, Input, ReadError, ReadErrorKind, WholeInput, ipc};

/// Column names a message lists at most.
const SHOWN_COLUMNS: usize = 10;

/// The rows of a span table.
pub(super) fn read(
    input: &Input,
    value: SpanValue,
) -> Result<(SpanTable, Positions), SpanFileError> {
    let name = input.name();
    let (at, batches) = batches(input, |schema| columns(name, schema, value))?;
    let mut rows = Rows::new(name, value, true);
    let mut before = 0u64;
    for batch in &batches {
        add(&mut rows, batch, at, before)?;
        before += batch.num_rows() as u64;
    }
    Ok(rows.finish())
}

/// The batches of a Parquet or Arrow IPC input, of the columns `choose`
/// picks from the schema.
pub(crate) fn batches<T>(
    input: &Input,
    choose: impl Fn(&Schema) -> Result<(T, Vec<usize>), ReadError>,
) -> Result<(T, Vec<RecordBatch>), ReadError> {
    let name = input.name();
    if input.format() == Format::Arrow {
        return input.with_all_bytes(WholeInput::ARROW, |bytes| ipc::decode(name, bytes, &choose));
    }
    match input.parquet_source()? {
        ParquetSource::File(path) => {
            let file =
                File::open(path).map_err(|e| ReadError::new(name, None, ReadErrorKind::Io(e)))?;
            whole_batches(name, file, choose)
        }
        ParquetSource::Bytes(bytes) => whole_batches(name, bytes, choose),
    }
}

/// Where the five columns are in the batches read (which hold those
/// columns only, in the schema's order), and the columns to read; each
/// column's type checked.
fn columns(
    name: &str,
    schema: &Schema,
    value: SpanValue,
) -> Result<([usize; 5], Vec<usize>), ReadError> {
    let fail = |problem: String| ReadError::new(name, None, ReadErrorKind::BadField(problem));
    let fields = schema.fields();
    let mut found = [0usize; 5];
    for (slot, want) in found.iter_mut().zip(value.wanted()) {
        let mut named = fields.iter().enumerate().filter(|(_, f)| f.name() == want);
        let Some((first, _)) = named.next() else {
            let mut has: Vec<String> = fields
                .iter()
                .take(SHOWN_COLUMNS)
                .map(|f| shorten_id(f.name().as_bytes()))
                .collect();
            if fields.len() > SHOWN_COLUMNS {
                has.push(format!("... ({} columns)", fields.len()));
            }
            return Err(fail(format!(
                "no column `{want}` in the table (it has: {}); the columns are query, doc, \
                 start, end, {}",
                has.join(", "),
                value.name()
            )));
        };
        if let Some((second, _)) = named.next() {
            return Err(fail(format!(
                "column `{want}` appears twice in the table (columns {} and {})",
                first + 1,
                second + 1
            )));
        }
        *slot = first;
    }
    for (&i, want) in found.iter().zip(value.wanted()) {
        let data_type = fields[i].data_type();
        let expected = match want {
            "query" | "doc" if !is_id(data_type) => {
                Some("ids: strings or integers, or a dictionary of them")
            }
            "start" | "end" if !data_type.is_integer() => Some("offsets: integers"),
            "grade" | "score" if !is_number(data_type) => Some("numbers"),
            _ => None,
        };
        if let Some(expected) = expected {
            return Err(fail(format!(
                "column `{want}` is {data_type}, not {expected}"
            )));
        }
    }
    let mut read = found.to_vec();
    read.sort_unstable();
    let at = found.map(|i| read.iter().position(|&r| r == i).unwrap_or(i));
    Ok((at, read))
}

/// Adds the rows of `batch` (columns at `at`, its first row the table's
/// row `before + 1`) to `rows`.
fn add(
    rows: &mut Rows<'_>,
    batch: &RecordBatch,
    at: [usize; 5],
    before: u64,
) -> Result<(), SpanFileError> {
    let [query, doc, start, end, value] = at.map(|i| batch.column(i).as_ref());
    let last = rows.value.name();
    let nulls = [
        ("query", query),
        ("doc", doc),
        ("start", start),
        ("end", end),
        (last, value),
    ]
    .map(|(name, array)| (name, array.logical_nulls()));
    let (query_ids, doc_ids) = (Ids::of(query), Ids::of(doc));
    let (starts, ends) = (integers(start), integers(end));
    let values = numbers(value);
    for row in 0..batch.num_rows() {
        let number = before + row as u64 + 1;
        if let Some((column, _)) = nulls
            .iter()
            .find(|(_, n)| n.as_ref().is_some_and(|n| n.is_null(row)))
        {
            return Err(rows.error(number, format!("column `{column}`: the value is null")));
        }
        let offsets = offset(starts[row], "start")
            .and_then(|start| Ok((start, offset(ends[row], "end")?)))
            .map_err(|problem| rows.error(number, problem));
        let (start, end) = offsets?;
        let value = values[row];
        let shown = || format!("`{value}`");
        query_ids.with(row, |query| {
            let query = checked_id(query, "column `query`")
                .map_err(|problem| rows.error(number, problem))?;
            doc_ids.with(row, |doc| {
                let doc = checked_id(doc, "column `doc`")
                    .map_err(|problem| rows.error(number, problem))?;
                rows.push(number, query, doc, start, end, value, &shown)
            })
        })?;
    }
    Ok(())
}

/// An offset of an integer column, in `[0, MAX_OFFSET]`.
fn offset(value: i128, what: &str) -> Result<u64, String> {
    match u64::try_from(value) {
        Ok(n) if n <= MAX_OFFSET => Ok(n),
        Ok(n) => Err(too_far(what, &format!("`{n}`"))),
        Err(_) => Err(format!("{what} `{value}`: not a non-negative integer")),
    }
}

/// An integer column's values (checked to be integers by [`columns`]).
fn integers(array: &dyn Array) -> Vec<i128> {
    macro_rules! widen {
        ($($t:ty),*) => {
            match array.data_type() {
                $(t if t == &<$t as arrow_array::ArrowPrimitiveType>::DATA_TYPE => array
                    .as_primitive::<$t>()
                    .values()
                    .iter()
                    .map(|&v| i128::from(v))
                    .collect(),)*
                _ => vec![0; array.len()],
            }
        };
    }
    widen!(
        Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type
    )
}
