//! Sampled runs as Parquet or Arrow IPC tables (see the [module](super)):
//! the columns `query`, `sample`, `doc` and `score` (or `rank`) found by
//! name, each once; ids strings or integers (or a dictionary of them), the
//! score or rank numbers; a null is an error naming its row and column.

use std::fs::File;

use arrow_array::RecordBatch;
use arrow_schema::Schema;
use rankeval_core::shorten_id;

use super::{Rows, SampledRunError, checked_id, ordered};
use crate::parquet::{ParquetSource, whole_batches};
use crate::table::{Ids, is_id, is_number, numbers};
use crate::{Format, Input, ReadError, ReadErrorKind, WholeInput, ipc};

/// Column names a message lists at most.
const SHOWN_COLUMNS: usize = 10;

/// Where the four columns are in the batches read, and whether the last
/// is `rank`.
type At = ([usize; 4], bool);

/// The rows of a table.
pub(super) fn read(input: &Input) -> Result<Rows, SampledRunError> {
    let name = input.name();
    let (at, batches) = batches(input, |schema| columns(name, schema))?;
    let mut rows = Rows::new(name, true);
    let mut before = 0u64;
    for batch in &batches {
        add(&mut rows, batch, at, before)?;
        before += batch.num_rows() as u64;
    }
    Ok(rows)
}

/// The batches of a Parquet or Arrow IPC input, of the columns `choose`
/// picks from the schema.
fn batches<T>(
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

/// The one column named `want`, if there is one (two is an error).
fn find(schema: &Schema, want: &str) -> Result<Option<usize>, String> {
    let mut named = schema
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| f.name() == want);
    let first = named.next().map(|(i, _)| i);
    if let (Some(first), Some((second, _))) = (first, named.next()) {
        return Err(format!(
            "column `{want}` appears twice in the table (columns {} and {})",
            first + 1,
            second + 1
        ));
    }
    Ok(first)
}

/// Where the columns are in the batches read (which hold those columns
/// only, in the schema's order), and the columns to read; each column's
/// type checked.
fn columns(name: &str, schema: &Schema) -> Result<(At, Vec<usize>), ReadError> {
    let fail = |problem: String| ReadError::new(name, None, ReadErrorKind::BadField(problem));
    let fields = schema.fields();
    let missing = |want: &str| {
        let mut has: Vec<String> = fields
            .iter()
            .take(SHOWN_COLUMNS)
            .map(|f| shorten_id(f.name().as_bytes()))
            .collect();
        if fields.len() > SHOWN_COLUMNS {
            has.push(format!("... ({} columns)", fields.len()));
        }
        fail(format!(
            "no column `{want}` in the table (it has: {}); the columns are query, sample, doc, \
             score (or rank)",
            has.join(", ")
        ))
    };
    let mut found = [0usize; 4];
    for (slot, want) in found.iter_mut().zip(["query", "sample", "doc"]) {
        *slot = find(schema, want)
            .map_err(fail)?
            .ok_or_else(|| missing(want))?;
    }
    let (last, by_rank) = match find(schema, "score").map_err(fail)? {
        Some(score) => (score, false),
        None => (
            find(schema, "rank")
                .map_err(fail)?
                .ok_or_else(|| missing("score"))?,
            true,
        ),
    };
    found[3] = last;
    let names = [
        "query",
        "sample",
        "doc",
        if by_rank { "rank" } else { "score" },
    ];
    for (&i, want) in found.iter().zip(names) {
        let data_type = fields[i].data_type();
        let expected = match want {
            "score" | "rank" if !is_number(data_type) => Some("numbers"),
            "score" | "rank" => None,
            _ if !is_id(data_type) => Some("ids: strings or integers, or a dictionary of them"),
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
    Ok(((at, by_rank), read))
}

/// Adds the rows of `batch` (columns at `at`, its first row the table's
/// row `before + 1`) to `rows`.
fn add(rows: &mut Rows, batch: &RecordBatch, at: At, before: u64) -> Result<(), SampledRunError> {
    let ([query, sample, doc, value], by_rank) = at;
    let [query, sample, doc, value] = [query, sample, doc, value].map(|i| batch.column(i).as_ref());
    let last = if by_rank { "rank" } else { "score" };
    let nulls = [
        ("query", query),
        ("sample", sample),
        ("doc", doc),
        (last, value),
    ]
    .map(|(name, array)| (name, array.logical_nulls()));
    let (query_ids, sample_ids, doc_ids) = (Ids::of(query), Ids::of(sample), Ids::of(doc));
    let values = numbers(value);
    for row in 0..batch.num_rows() {
        let number = before + row as u64 + 1;
        if let Some((column, _)) = nulls
            .iter()
            .find(|(_, n)| n.as_ref().is_some_and(|n| n.is_null(row)))
        {
            return Err(rows.error(number, format!("column `{column}`: the value is null")));
        }
        let score = ordered(values.get(row).copied().unwrap_or(f64::NAN), by_rank)
            .map_err(|problem| rows.error(number, problem))?;
        query_ids.with(row, |query| {
            let query = checked_id(query, "column `query`")
                .map_err(|problem| rows.error(number, problem))?;
            sample_ids.with(row, |sample| {
                let sample = checked_id(sample, "column `sample`")
                    .map_err(|problem| rows.error(number, problem))?;
                doc_ids.with(row, |doc| {
                    let doc = checked_id(doc, "column `doc`")
                        .map_err(|problem| rows.error(number, problem))?;
                    rows.push(number, query, sample, doc, score)
                })
            })
        })?;
    }
    Ok(())
}
