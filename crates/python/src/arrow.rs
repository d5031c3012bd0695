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

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3_arrow::input::AnyRecordBatch;
use rankeval::read::arrow_array::{RecordBatch, RecordBatchReader};
use rankeval::read::{QrelsNote, qrels_from_batches_noted};
use rankeval::{CsvOptions, ReadOptions, run_from_batches};

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

/// Qrels from an Arrow table, record batch or stream: one row per
/// judgement (`query`, `doc`, optional `grade`, grade 1 without it), or one
/// row per query with list columns; `name` is what errors call the input.
///
/// `ungraded_frame` holds the columns of the data frame that `data` was
/// selected from, when it had no grade column: `data` then holds the query
/// and document columns alone, and the warning that every pair counts as
/// relevant names the frame's columns.
#[pyfunction]
#[pyo3(signature = (data, name, query, doc, grade, ungraded_frame=None))]
pub fn qrels_from_arrow(
    py: Python<'_>,
    data: AnyRecordBatch,
    name: &str,
    query: &str,
    doc: &str,
    grade: &str,
    ungraded_frame: Option<Vec<String>>,
) -> PyResult<PyQrels> {
    let batches = batches(data, name)?;
    let columns = columns(query, doc, "score", "rank", grade);
    let (qrels, note) = py
        .detach(|| qrels_from_batches_noted(name, &batches, &columns))
        .map_err(|e| read_error(&e))?;
    let note = match ungraded_frame {
        Some(frame) => QrelsNote::no_grade_column(&columns, frame),
        None => note,
    };
    Ok(PyQrels::noted(qrels, name, note))
}

/// A run from an Arrow table, record batch or stream: one row per query and
/// document ordered by `score` (or by `rank` when there is no score
/// column), or one row per query with list columns. With `stream`, the
/// batches are kept and read when the run is evaluated, query by query
/// where the table is grouped by query (what `evaluate` does with a table:
/// no whole run is built); else the run is built now, to be evaluated many
/// times.
#[pyfunction]
#[pyo3(signature = (data, name, query, doc, score, rank, duplicates, ties="docid", stream=false))]
#[allow(clippy::too_many_arguments)]
pub fn run_from_arrow(
    py: Python<'_>,
    data: AnyRecordBatch,
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
    let batches = batches(data, name)?;
    let columns = columns(query, doc, score, rank, "grade");
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
