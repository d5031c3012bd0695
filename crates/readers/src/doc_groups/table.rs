//! Document groups as Parquet or Arrow IPC tables (see the
//! [module](super)): the columns found by name, each once (`weight`
//! optional); ids strings or integers (or a dictionary of them), the
//! weight numbers; a null is an error naming its row and column.

use std::fs::File;

use arrow_array::RecordBatch;
use arrow_schema::Schema;
use rankeval_core::shorten_id;

use super::{COLUMNS, DocGroupsFileError, Rows, checked_id};
use crate::parquet::{ParquetSource, whole_batches};
use crate::table::{Ids, is_id, is_number, numbers};
use crate::{Format, Input, ReadError, ReadErrorKind, WholeInput, ipc};

/// Column names a message lists at most.
const SHOWN_COLUMNS: usize = 10;

/// Where the columns are in the batches read: `doc`, `group`, `weight`
/// (if the table has one).
type At = ([usize; 2], Option<usize>);

/// The rows of a table.
pub(super) fn read(input: &Input) -> Result<Rows, DocGroupsFileError> {
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

/// Where the columns are in the batches read (which hold those columns
/// only, in the schema's order), and the columns to read; each column's
/// type checked.
fn columns(name: &str, schema: &Schema) -> Result<(At, Vec<usize>), ReadError> {
    let fail = |problem: String| ReadError::new(name, None, ReadErrorKind::BadField(problem));
    let fields = schema.fields();
    let mut found: [Option<usize>; 3] = [None; 3];
    for (slot, want) in found.iter_mut().zip(COLUMNS) {
        let mut named = fields.iter().enumerate().filter(|(_, f)| f.name() == want);
        let Some((first, _)) = named.next() else {
            if want == "weight" {
                continue;
            }
            let mut has: Vec<String> = fields
                .iter()
                .take(SHOWN_COLUMNS)
                .map(|f| shorten_id(f.name().as_bytes()))
                .collect();
            if fields.len() > SHOWN_COLUMNS {
                has.push(format!("... ({} columns)", fields.len()));
            }
            return Err(fail(format!(
                "no column `{want}` in the table (it has: {}); the columns are doc, group, \
                 weight (optional)",
                has.join(", ")
            )));
        };
        if let Some((second, _)) = named.next() {
            return Err(fail(format!(
                "column `{want}` appears twice in the table (columns {} and {})",
                first + 1,
                second + 1
            )));
        }
        *slot = Some(first);
    }
    for (&i, want) in found.iter().zip(COLUMNS) {
        let Some(data_type) = i.and_then(|i| fields.get(i)).map(|f| f.data_type()) else {
            continue;
        };
        let expected = match want {
            "weight" if !is_number(data_type) => Some("numbers"),
            "weight" => None,
            _ if !is_id(data_type) => Some("ids: strings or integers, or a dictionary of them"),
            _ => None,
        };
        if let Some(expected) = expected {
            return Err(fail(format!(
                "column `{want}` is {data_type}, not {expected}"
            )));
        }
    }
    let mut read: Vec<usize> = found.iter().flatten().copied().collect();
    read.sort_unstable();
    let place = |i: usize| read.iter().position(|&r| r == i).unwrap_or(i);
    let [doc, group, weight] = found;
    let at = (
        [place(doc.unwrap_or(0)), place(group.unwrap_or(0))],
        weight.map(place),
    );
    Ok((at, read))
}

/// Adds the rows of `batch` (columns at `at`, its first row the table's
/// row `before + 1`) to `rows`.
fn add(
    rows: &mut Rows,
    batch: &RecordBatch,
    at: At,
    before: u64,
) -> Result<(), DocGroupsFileError> {
    let ([doc, group], weight) = at;
    let (doc, group) = (batch.column(doc).as_ref(), batch.column(group).as_ref());
    let weight = weight.map(|w| batch.column(w).as_ref());
    let mut nulls = vec![
        ("doc", doc.logical_nulls()),
        ("group", group.logical_nulls()),
    ];
    if let Some(weight) = weight {
        nulls.push(("weight", weight.logical_nulls()));
    }
    let (doc_ids, group_ids) = (Ids::of(doc), Ids::of(group));
    let weights = weight.map(numbers);
    for row in 0..batch.num_rows() {
        let number = before + row as u64 + 1;
        if let Some((column, _)) = nulls
            .iter()
            .find(|(_, n)| n.as_ref().is_some_and(|n| n.is_null(row)))
        {
            return Err(rows.error(number, format!("column `{column}`: the value is null")));
        }
        let value = weights
            .as_ref()
            .map_or(1.0, |w| w.get(row).copied().unwrap_or(f64::NAN));
        doc_ids.with(row, |doc| {
            let doc =
                checked_id(doc, "column `doc`").map_err(|problem| rows.error(number, problem))?;
            group_ids.with(row, |group| {
                let group = checked_id(group, "column `group`")
                    .map_err(|problem| rows.error(number, problem))?;
                rows.push(number, doc, group, value)
            })
        })?;
    }
    Ok(())
}
