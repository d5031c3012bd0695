//! Arrow data from any Python library that speaks the Arrow PyCapsule
//! interface (`__arrow_c_stream__` or `__arrow_c_array__`: pyarrow tables
//! and record batches, polars DataFrames, DuckDB results, pandas through
//! pyarrow), read by the readers' Arrow reader, the one that reads Parquet
//! and Arrow IPC files for the command line.
//!
//! The record batches are imported through the C data interface
//! (pyo3-arrow): the columns stay in the producer's buffers, nothing is
//! copied into Python objects. Long batches are cut into zero-copy slices
//! so that the readers convert them on every core; ids may be any integer
//! or string type (`string`, `large_string`, `string_view`) or a
//! dictionary of those, as in Parquet files.
//!
//! A polars DataFrame is handed over column by column ([`ArrowData::Columns`]):
//! its own `__arrow_c_stream__` first makes every column one chunk, a copy
//! of the whole frame (in place, in the user's frame), where each column's
//! chunks can be read where they are. Only the columns the reader needs are
//! imported, and the batches are cut where any of them has a chunk boundary.

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use pyo3_arrow::input::{AnyArray, AnyRecordBatch};
use rankeval::read::arrow_array::{ArrayRef, RecordBatch, RecordBatchReader};
use rankeval::read::arrow_schema::{ArrowError, Field, Schema, SchemaRef};
use rankeval::read::{QrelsNote, qrels_columns, qrels_from_batches_noted, run_columns};
use rankeval::{CsvOptions, ReadError, ReadOptions, run_from_batches};

use crate::errors::read_error;
use crate::inputs::{PyQrels, PyRun, RunSource, TableRun, duplicates};

/// Rows per slice handed to the readers, which convert slices in parallel.
const ROWS_PER_SLICE: usize = 1 << 16;

/// The record batches of `data`, cut into slices of at most
/// [`ROWS_PER_SLICE`] rows; one empty batch (with the schema) when the data
/// have no rows, so that the reader reports an empty input.
fn batches(data: AnyRecordBatch, name: &str) -> PyResult<Vec<RecordBatch>> {
    let reader = data.into_reader()?;
    let schema = reader.schema();
    let mut sliced = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| {
            PyValueError::new_err(format!("{name}: reading the Arrow stream failed: {e}"))
        })?;
        let rows = batch.num_rows();
        let mut start = 0;
        while start < rows {
            let length = ROWS_PER_SLICE.min(rows - start);
            sliced.push(batch.slice(start, length));
            start += length;
        }
    }
    if sliced.is_empty() {
        sliced.push(RecordBatch::new_empty(schema));
    }
    Ok(sliced)
}

/// Arrow data as the Python package hands it over.
pub enum ArrowData {
    /// A table, record batch or stream (`__arrow_c_stream__` or
    /// `__arrow_c_array__`), read as it comes.
    Table(AnyRecordBatch),
    /// A data frame's columns one by one, in the frame's order: a list of
    /// `(name, column)`, each column exporting an Arrow array or array
    /// stream (a polars Series); see [`column_batches`].
    Columns(Vec<(String, AnyArray)>),
}

impl<'py> FromPyObject<'_, 'py> for ArrowData {
    type Error = PyErr;

    fn extract(object: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        if object.is_instance_of::<PyList>() {
            Ok(Self::Columns(object.extract()?))
        } else {
            Ok(Self::Table(object.extract()?))
        }
    }
}

/// Record batches of the columns among `columns` that `needed` picks from
/// their schema (every column nullable, so that a null is the reader's
/// error naming its row): only those columns' chunks are imported, and the
/// batches are cut where any of them has a chunk boundary, and into slices
/// of at most [`ROWS_PER_SLICE`] rows; nothing is copied. One empty batch
/// when there are no rows, as for [`batches`].
fn column_batches(
    name: &str,
    columns: Vec<(String, AnyArray)>,
    needed: impl FnOnce(&Schema) -> Result<Vec<usize>, ReadError>,
) -> PyResult<Vec<RecordBatch>> {
    let failed = |e: ArrowError| {
        PyValueError::new_err(format!("{name}: reading the Arrow columns failed: {e}"))
    };
    let fields = columns
        .iter()
        .map(|(column, array)| Ok(Field::new(column, array.field()?.data_type().clone(), true)))
        .collect::<PyResult<Vec<_>>>()?;
    let schema = Schema::new(fields);
    let needed = needed(&schema).map_err(|e| read_error(&e))?;
    let mut columns: Vec<Option<AnyArray>> = columns.into_iter().map(|(_, a)| Some(a)).collect();
    let mut chunks = Vec::with_capacity(needed.len());
    for &index in &needed {
        let Some(array) = columns.get_mut(index).and_then(Option::take) else {
            // `needed` gives each column of the schema at most once.
            return Err(PyValueError::new_err(format!(
                "{name}: column {index} of {} asked for twice",
                columns.len()
            )));
        };
        let imported: Vec<ArrayRef> = array
            .into_reader()?
            .collect::<Result<_, _>>()
            .map_err(failed)?;
        chunks.push(imported);
    }
    let schema = Arc::new(schema.project(&needed).map_err(failed)?);
    cut(name, schema, chunks)
}

/// Record batches of `schema` from each column's chunks (`columns[i]` for
/// field `i`), cut where any column's chunk ends and every
/// [`ROWS_PER_SLICE`] rows: slices of the chunks, not copies.
fn cut(name: &str, schema: SchemaRef, columns: Vec<Vec<ArrayRef>>) -> PyResult<Vec<RecordBatch>> {
    let lengths: Vec<usize> = columns
        .iter()
        .map(|chunks| chunks.iter().map(|c| c.len()).sum())
        .collect();
    let rows = lengths.first().copied().unwrap_or(0);
    if let Some(other) = lengths.iter().position(|&n| n != rows) {
        return Err(PyValueError::new_err(format!(
            "{name}: column `{}` has {} rows, column `{}` {rows}",
            schema.field(other).name(),
            lengths[other],
            schema.field(0).name(),
        )));
    }
    // Where each column is: its chunk, and the row in that chunk.
    let mut at = vec![(0usize, 0usize); columns.len()];
    let mut batches = Vec::new();
    let mut done = 0;
    while done < rows {
        let mut length = ROWS_PER_SLICE.min(rows - done);
        for (chunks, (chunk, row)) in columns.iter().zip(&mut at) {
            // Every column has `rows - done` rows left: a chunk with rows
            // left comes before the end.
            while chunks[*chunk].len() == *row {
                *chunk += 1;
                *row = 0;
            }
            length = length.min(chunks[*chunk].len() - *row);
        }
        let arrays = columns
            .iter()
            .zip(&mut at)
            .map(|(chunks, (chunk, row))| {
                let slice = chunks[*chunk].slice(*row, length);
                *row += length;
                slice
            })
            .collect();
        let batch = RecordBatch::try_new(schema.clone(), arrays).map_err(|e| {
            PyValueError::new_err(format!("{name}: reading the Arrow columns failed: {e}"))
        })?;
        batches.push(batch);
        done += length;
    }
    if batches.is_empty() {
        batches.push(RecordBatch::new_empty(schema));
    }
    Ok(batches)
}

/// The column names as the table reader takes them.
fn columns(query: &str, doc: &str, score: &str, rank: &str, grade: &str) -> CsvOptions {
    CsvOptions {
        query: query.to_owned(),
        doc: doc.to_owned(),
        score: score.to_owned(),
        rank: rank.to_owned(),
        grade: grade.to_owned(),
        ..CsvOptions::default()
    }
}

/// Qrels from an Arrow table, record batch or stream, or a data frame's
/// columns ([`ArrowData`]): one row per judgement (`query`, `doc`, optional
/// `grade`, grade 1 without it), or one row per query with list columns;
/// `name` is what errors call the input.
///
/// `ungraded_frame` holds the columns of the data frame that `data` was
/// selected from, when it had no grade column: `data` then holds the query
/// and document columns alone, and the warning that every pair counts as
/// relevant names the frame's columns.
#[pyfunction]
#[pyo3(signature = (data, name, query, doc, grade, ungraded_frame=None))]
pub fn qrels_from_arrow(
    py: Python<'_>,
    data: ArrowData,
    name: &str,
    query: &str,
    doc: &str,
    grade: &str,
    ungraded_frame: Option<Vec<String>>,
) -> PyResult<PyQrels> {
    let columns = columns(query, doc, "score", "rank", grade);
    // For a frame's columns, the note of the whole frame: the batches hold
    // only the columns read.
    let (batches, frame_note) = match data {
        ArrowData::Table(table) => (batches(table, name)?, None),
        ArrowData::Columns(frame) => {
            let mut note = None;
            let batches = column_batches(name, frame, |schema| {
                let (needed, whole) = qrels_columns(name, schema, &columns)?;
                note = whole;
                Ok(needed)
            })?;
            (batches, Some(note))
        }
    };
    let (qrels, note) = py
        .detach(|| qrels_from_batches_noted(name, &batches, &columns))
        .map_err(|e| read_error(&e))?;
    let note = match (ungraded_frame, frame_note) {
        (Some(frame), _) => QrelsNote::no_grade_column(&columns, frame),
        (None, Some(whole)) => whole,
        (None, None) => note,
    };
    Ok(PyQrels::noted(qrels, name, note))
}

/// A run from an Arrow table, record batch or stream, or a data frame's
/// columns ([`ArrowData`]): one row per query and document ordered by
/// `score` (or by `rank` when there is no score column), or one row per
/// query with list columns. With `stream`, the batches are kept and read
/// when the run is evaluated, query by query where the table is grouped by
/// query (what `evaluate` does with a table: no whole run is built); else
/// the run is built now, to be evaluated many times.
#[pyfunction]
#[pyo3(signature = (data, name, query, doc, score, rank, duplicates, ties="docid", stream=false))]
#[allow(clippy::too_many_arguments)]
pub fn run_from_arrow(
    py: Python<'_>,
    data: ArrowData,
    name: &str,
    query: &str,
    doc: &str,
    score: &str,
    rank: &str,
    duplicates: &str,
    ties: &str,
    stream: bool,
) -> PyResult<PyRun> {
    let ties = crate::options::ties(ties)?;
    let read = ReadOptions {
        duplicates: self::duplicates(duplicates)?,
        ties,
    };
    let columns = columns(query, doc, score, rank, "grade");
    let batches = match data {
        ArrowData::Table(table) => batches(table, name)?,
        ArrowData::Columns(frame) => {
            column_batches(name, frame, |schema| run_columns(name, schema, &columns))?
        }
    };
    if stream {
        return Ok(PyRun {
            source: RunSource::Table(TableRun {
                name: name.to_owned(),
                batches,
                columns,
                read,
            }),
            ties,
        });
    }
    let run = py
        .detach(|| run_from_batches(name, &batches, &columns, read))
        .map_err(|e| read_error(&e))?;
    Ok(PyRun {
        source: RunSource::Memory(Arc::new(run)),
        ties,
    })
}
