//! Parquet files, read with the arrow-rs `parquet` crate into Arrow record
//! batches and converted by [`table`](super::table).
//!
//! The footer is read once; then the row groups are read in parallel, each
//! from its own handle on the file and only the columns the layout needs,
//! each into its own builder; the builders are joined in row-group order,
//! so the result does not depend on the number of threads. Compression
//! codecs: snappy, gzip, lz4 and zstd (brotli is not built in). A panic
//! of the decoder on a damaged file is an error naming the file
//! ([`guard::decoding`](super::guard::decoding)).

use std::fs::File;
use std::path::Path;

use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::file::reader::ChunkReader;
use rankeval_core::{Qrels, QrelsBuilder, Run, RunBuilder};
use rayon::prelude::*;

use super::csv::CsvOptions;
use super::error::{ReadError, ReadErrorKind};
use super::guard::decoding;
use super::table::{Kind, Layout};
use super::{Progress, QrelsNote, ReadOptions};

/// Rows per batch the decoder hands over.
const BATCH_ROWS: usize = 16 * 1024;

/// Where a Parquet file's bytes are.
pub(crate) enum ParquetSource<'a> {
    /// A regular file: each row group opens it again.
    File(&'a Path),
    /// Bytes in memory (or read from a pipe).
    Bytes(bytes::Bytes),
}

/// Reads a run from a Parquet file.
pub(crate) fn read_run(
    name: &str,
    source: ParquetSource<'_>,
    columns: &CsvOptions,
    options: ReadOptions,
    progress: Progress<'_>,
) -> Result<Run, ReadError> {
    let (layout, parts, rows) = match source {
        ParquetSource::File(path) => read_parts(
            name,
            || File::open(path),
            columns,
            Kind::Run,
            progress,
            RunBuilder::new,
            Layout::run_part,
        )?,
        ParquetSource::Bytes(bytes) => read_parts(
            name,
            || Ok(bytes.clone()),
            columns,
            Kind::Run,
            progress,
            RunBuilder::new,
            Layout::run_part,
        )?,
    };
    layout.finish_run(name, parts, rows, options)
}

/// Reads qrels from a Parquet file, and the note that a long table has no
/// grade column.
pub(crate) fn read_qrels(
    name: &str,
    source: ParquetSource<'_>,
    columns: &CsvOptions,
    progress: Progress<'_>,
) -> Result<(Qrels, Option<QrelsNote>), ReadError> {
    let (layout, parts, rows) = match source {
        ParquetSource::File(path) => read_parts(
            name,
            || File::open(path),
            columns,
            Kind::Qrels,
            progress,
            QrelsBuilder::new,
            Layout::qrels_part,
        )?,
        ParquetSource::Bytes(bytes) => read_parts(
            name,
            || Ok(bytes.clone()),
            columns,
            Kind::Qrels,
            progress,
            QrelsBuilder::new,
            Layout::qrels_part,
        )?,
    };
    let note = layout.note(columns);
    Ok((layout.finish_qrels(name, parts, rows)?, note))
}

/// A Parquet problem, naming the row group when there is one.
fn parquet_error(name: &str, row_group: Option<usize>, error: impl std::fmt::Display) -> ReadError {
    let text = match row_group {
        Some(i) => format!("cannot read Parquet row group {i}: {error}"),
        None => format!("cannot read as Parquet: {error}"),
    };
    ReadError::new(name, None, ReadErrorKind::BadField(text))
}

/// Reads the footer through `open`, finds the layout, then converts every
/// row group in parallel into a builder made by `new` with `convert`.
/// Returns the layout (over the projected columns), the builders in
/// row-group order, and the number of rows.
#[allow(clippy::type_complexity)]
fn read_parts<R, B>(
    name: &str,
    open: impl Fn() -> std::io::Result<R> + Sync,
    columns: &CsvOptions,
    kind: Kind,
    progress: Progress<'_>,
    new: fn() -> B,
    convert: fn(&Layout, &str, &arrow_array::RecordBatch, u64, &mut B) -> Result<(), ReadError>,
) -> Result<(Layout, Vec<B>, u64), ReadError>
where
    R: ChunkReader + 'static,
    B: Send,
{
    let io = |e: std::io::Error| ReadError::new(name, None, ReadErrorKind::Io(e));
    let first = open().map_err(io)?;
    let metadata = decoding(name, "Parquet", || {
        ArrowReaderMetadata::load(&first, ArrowReaderOptions::new())
            .map_err(|e| parquet_error(name, None, e))
    })?;
    let layout = Layout::new(name, metadata.schema(), columns, kind)?;
    let mask = ProjectionMask::roots(
        metadata.metadata().file_metadata().schema_descr(),
        layout.columns(),
    );
    let projected = layout.projected();
    let groups = metadata.metadata().row_groups();
    let starts: Vec<u64> = groups
        .iter()
        .scan(0u64, |seen, group| {
            let start = *seen;
            *seen = seen.saturating_add(u64::try_from(group.num_rows()).unwrap_or(0));
            Some(start)
        })
        .collect();
    let rows: u64 = groups
        .iter()
        .map(|g| u64::try_from(g.num_rows()).unwrap_or(0))
        .fold(0, u64::saturating_add);
    let parts = (0..groups.len())
        .into_par_iter()
        .map(|index| {
            decoding(name, "Parquet", || {
                let reader = open().map_err(io)?;
                let batches =
                    ParquetRecordBatchReaderBuilder::new_with_metadata(reader, metadata.clone())
                        .with_row_groups(vec![index])
                        .with_projection(mask.clone())
                        .with_batch_size(BATCH_ROWS)
                        .build()
                        .map_err(|e| parquet_error(name, Some(index), e))?;
                let mut part = new();
                let mut start = starts[index];
                for batch in batches {
                    let batch = batch.map_err(|e| parquet_error(name, Some(index), e))?;
                    convert(&projected, name, &batch, start, &mut part)?;
                    start = start.saturating_add(batch.num_rows() as u64);
                }
                progress(u64::try_from(groups[index].compressed_size()).unwrap_or(0));
                Ok(part)
            })
        })
        .collect::<Result<Vec<B>, ReadError>>()?;
    Ok((projected, parts, rows))
}
