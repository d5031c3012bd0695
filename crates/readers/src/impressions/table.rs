//! Impression logs as Parquet or Arrow IPC tables (see the
//! [module](super)): the named columns found in the schema, each once;
//! ids strings or integers (or a dictionary of them), numbers integers or
//! floats, and lists (`list<...>`, `large_list<...>`) of either. Read
//! through the span tables' reader ([`crate::spans::table::batches`]): a
//! regular Parquet file in place, anything else whole within the limits.

use arrow_array::cast::AsArray;
use arrow_array::{Array, OffsetSizeTrait, RecordBatch};
use arrow_schema::{DataType, Schema};

use super::assemble::Assembler;
use super::cell::{Cell, RawRow};
use super::{COLUMNS, ImpressionError, ImpressionLog, ImpressionOptions};
use crate::spans::table::batches;
use crate::table::{Ids, is_id, is_number, numbers};
use crate::{Input, ReadError, ReadErrorKind, RowAt};

/// The impressions of a table: each batch's raw rows assembled in turn
/// (and the batch let go), so that the raw rows of a large log never all
/// exist at once.
pub(super) fn read(
    input: &Input,
    options: &ImpressionOptions,
) -> Result<ImpressionLog, ImpressionError> {
    let name = input.name();
    let wanted = options.columns.names();
    let ((found, names), batches) = batches(input, |schema| columns(name, schema, &wanted))?;
    let mut assembler = Assembler::new(found.map(|f| f.is_some()), &names, name, options)?;
    let mut before = 0u64;
    let mut rows = Vec::new();
    for batch in batches {
        let cells_of = |batch: &RecordBatch| {
            let mut cells: [Option<Vec<Cell>>; COLUMNS] = Default::default();
            for (slot, at) in cells.iter_mut().zip(found) {
                if let Some(at) = at {
                    *slot = Some(column_cells(batch.column(at).as_ref()));
                }
            }
            cells.map(|c| c.map(|v| v.into_iter()))
        };
        // A row the direct path does not take, read through cells.
        let mut one_row = |assembler: &mut Assembler<'_>, row: usize| {
            let mut iters = cells_of(&batch.slice(row, 1));
            let cells = std::array::from_fn(|i| iters[i].as_mut().and_then(|it| it.next()));
            assembler.rows(&[RawRow {
                at: RowAt::Row(before + row as u64 + 1),
                cells,
            }])
        };
        if !assembler.direct(&batch, found, before, &mut one_row)? {
            let mut iters = cells_of(&batch);
            rows.clear();
            for row in 0..batch.num_rows() {
                let cells = std::array::from_fn(|i| iters[i].as_mut().and_then(|it| it.next()));
                rows.push(RawRow {
                    at: RowAt::Row(before + row as u64 + 1),
                    cells,
                });
            }
            assembler.rows(&rows)?;
        }
        before += batch.num_rows() as u64;
        drop(batch);
    }
    assembler.finish()
}

/// Where the wanted columns are in the batches read (which hold those
/// columns only, in the schema's order), each type checked; and the
/// table's column names for messages.
#[allow(clippy::type_complexity)]
fn columns(
    name: &str,
    schema: &Schema,
    wanted: &[Option<&str>; COLUMNS],
) -> Result<(([Option<usize>; COLUMNS], Vec<String>), Vec<usize>), ReadError> {
    let fail = |problem: String| ReadError::new(name, None, ReadErrorKind::BadField(problem));
    let fields = schema.fields();
    let mut found = [None; COLUMNS];
    for (slot, want) in found.iter_mut().zip(wanted) {
        let Some(want) = want else { continue };
        let mut named = fields.iter().enumerate().filter(|(_, f)| f.name() == want);
        *slot = named.next().map(|(i, _)| i);
        if let Some((second, _)) = named.next() {
            return Err(fail(format!(
                "column `{want}` appears twice in the table (columns {} and {})",
                slot.unwrap_or(0) + 1,
                second + 1
            )));
        }
    }
    for (&at, want) in found.iter().zip(wanted) {
        let (Some(at), Some(want)) = (at, want) else {
            continue;
        };
        let data_type = fields[at].data_type();
        let scalar_ok = |t: &DataType| is_id(t) || is_number(t);
        let ok = match data_type {
            DataType::List(item) | DataType::LargeList(item) => scalar_ok(item.data_type()),
            t => scalar_ok(t),
        };
        if !ok {
            return Err(fail(format!(
                "column `{want}` is {data_type}, not ids, numbers or a list of them"
            )));
        }
    }
    let mut read: Vec<usize> = found.iter().flatten().copied().collect();
    read.sort_unstable();
    let at = found.map(|f| f.map(|i| read.iter().position(|&r| r == i).unwrap_or(i)));
    let names = fields
        .iter()
        .take(10)
        .map(|f| rankeval_core::shorten_id(f.name().as_bytes()))
        .collect();
    Ok(((at, names), read))
}

/// A column's values as cells (types checked by [`columns`]); nulls as
/// [`Cell::Null`].
fn column_cells(array: &dyn Array) -> Vec<Cell> {
    let nulls = array.logical_nulls();
    let is_null = |row: usize| nulls.as_ref().is_some_and(|n| n.is_null(row));
    let mut cells: Vec<Cell> = match array.data_type() {
        DataType::List(_) => lists(array.as_list::<i32>()),
        DataType::LargeList(_) => lists(array.as_list::<i64>()),
        t if is_number(t) && !t.is_integer() => {
            numbers(array).iter().map(|&x| Cell::Float(x)).collect()
        }
        t if t.is_integer() => {
            // Integers: ids or numbers, as the column is read.
            let values = numbers(array);
            let ids = Ids::of(array);
            (0..array.len())
                .map(|row| {
                    let shown = ids.with(row, |b| String::from_utf8_lossy(b).into_owned());
                    Cell::Number(values.get(row).copied().unwrap_or(f64::NAN), shown)
                })
                .collect()
        }
        _ => {
            let ids = Ids::of(array);
            (0..array.len())
                .map(|row| {
                    if is_null(row) {
                        Cell::Null
                    } else {
                        ids.with(row, |b| Cell::Text(b.to_vec()))
                    }
                })
                .collect()
        }
    };
    for (row, cell) in cells.iter_mut().enumerate() {
        if is_null(row) {
            *cell = Cell::Null;
        }
    }
    cells
}

/// A list column's rows as lists of cells.
fn lists<O: OffsetSizeTrait>(list: &arrow_array::GenericListArray<O>) -> Vec<Cell> {
    let values = column_cells(list.values().as_ref());
    list.value_offsets()
        .windows(2)
        .map(|w| {
            let (start, end) = (w[0].as_usize(), w[1].as_usize());
            Cell::List(
                values
                    .get(start..end)
                    .map(<[Cell]>::to_vec)
                    .unwrap_or_default(),
            )
        })
        .collect()
}
