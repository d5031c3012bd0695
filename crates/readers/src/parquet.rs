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
use rankeval_core::{Qrels, Run, RunBuilder};
use rayon::prelude::*;

use super::csv::CsvOptions;
use super::error::{ReadError, ReadErrorKind};
use super::guard::decoding;
use super::stream::{ListScorer, TableStream};
use super::table::{Kind, Layout};
use super::ungraded::{EmptyGrade, QrelsRows, UngradedRows};
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

/// Reads qrels from a Parquet file, a null grade meaning `empty`; gives the
/// note that a long table has no grade column, and the rows left out as
/// not judged.
pub(crate) fn read_qrels(
    name: &str,
    source: ParquetSource<'_>,
    columns: &CsvOptions,
    progress: Progress<'_>,
    empty: EmptyGrade,
) -> Result<(Qrels, Option<QrelsNote>, UngradedRows), ReadError> {
    let convert = |layout: &Layout, name: &str, batch: &_, start, rows: &mut QrelsRows| {
        layout.qrels_part(name, batch, start, rows, empty)
    };
    let (layout, parts, rows) = match source {
        ParquetSource::File(path) => read_parts(
            name,
            || File::open(path),
            columns,
            Kind::Qrels,
            progress,
            QrelsRows::default,
            convert,
        )?,
        ParquetSource::Bytes(bytes) => read_parts(
            name,
            || Ok(bytes.clone()),
            columns,
            Kind::Qrels,
            progress,
            QrelsRows::default,
            convert,
        )?,
    };
    let note = layout.note(columns);
    let (qrels, ungraded) = layout.finish_qrels(name, parts, rows)?;
    Ok((qrels, note, ungraded))
}

/// A Parquet problem, naming the row group when there is one.
fn parquet_error(name: &str, row_group: Option<usize>, error: impl std::fmt::Display) -> ReadError {
    let text = match row_group {
        Some(i) => format!("cannot read Parquet row group {i}: {error}"),
        None => format!("cannot read as Parquet: {error}"),
    };
    ReadError::new(name, None, ReadErrorKind::BadField(text))
}

/// The batches of a whole Parquet table read from `reader`, of the columns
/// `choose` picks from its schema (their indices, ascending), with what
/// `choose` made of the schema: for tables read whole that are neither a
/// run nor qrels (span files). A panic of the decoder is an error naming
/// the file, as for runs.
pub(crate) fn whole_batches<T, R: ChunkReader + 'static>(
    name: &str,
    reader: R,
    choose: impl FnOnce(&arrow_schema::Schema) -> Result<(T, Vec<usize>), ReadError>,
) -> Result<(T, Vec<arrow_array::RecordBatch>), ReadError> {
    decoding(name, "Parquet", || {
        let builder = ParquetRecordBatchReaderBuilder::try_new(reader)
            .map_err(|e| parquet_error(name, None, e))?;
        let (chosen, read) = choose(builder.schema())?;
        let mask = ProjectionMask::roots(builder.parquet_schema(), read);
        let batches = builder
            .with_projection(mask)
            .with_batch_size(BATCH_ROWS)
            .build()
            .map_err(|e| parquet_error(name, None, e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| parquet_error(name, None, e))?;
        Ok((chosen, batches))
    })
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
    new: impl Fn() -> B + Sync,
    convert: impl Fn(&Layout, &str, &arrow_array::RecordBatch, u64, &mut B) -> Result<(), ReadError>
    + Sync,
) -> Result<(Layout, Vec<B>, u64), ReadError>
where
    R: ChunkReader + 'static,
    B: Send,
{
    let footer = Footer::read(name, &open, columns, kind)?;
    let parts = footer.convert(name, &open, progress, new, convert)?;
    Ok((footer.projected, parts, footer.rows))
}

/// A Parquet file's footer and the layout of its table.
struct Footer {
    metadata: ArrowReaderMetadata,
    /// The layout over the file's columns.
    layout: Layout,
    /// The layout over the columns read (the projection).
    projected: Layout,
    mask: ProjectionMask,
    /// The number of rows before each row group.
    starts: Vec<u64>,
    /// The number of rows.
    rows: u64,
}

impl Footer {
    /// Reads the footer through `open` and finds the layout.
    fn read<R: ChunkReader + 'static>(
        name: &str,
        open: &impl Fn() -> std::io::Result<R>,
        columns: &CsvOptions,
        kind: Kind,
    ) -> Result<Self, ReadError> {
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
        Ok(Self {
            metadata,
            layout,
            projected,
            mask,
            starts,
            rows,
        })
    }

    /// Converts every row group in parallel, each from its own handle
    /// (`open`), into a part made by `new` with `convert`; the parts in
    /// row-group order.
    fn convert<R, B>(
        &self,
        name: &str,
        open: &(impl Fn() -> std::io::Result<R> + Sync),
        progress: Progress<'_>,
        new: impl Fn() -> B + Sync,
        convert: impl Fn(&Layout, &str, &arrow_array::RecordBatch, u64, &mut B) -> Result<(), ReadError>
        + Sync,
    ) -> Result<Vec<B>, ReadError>
    where
        R: ChunkReader + 'static,
        B: Send,
    {
        let io = |e: std::io::Error| ReadError::new(name, None, ReadErrorKind::Io(e));
        let groups = self.metadata.metadata().row_groups();
        (0..groups.len())
            .into_par_iter()
            .map(|index| {
                decoding(name, "Parquet", || {
                    let reader = open().map_err(io)?;
                    let batches = ParquetRecordBatchReaderBuilder::new_with_metadata(
                        reader,
                        self.metadata.clone(),
                    )
                    .with_row_groups(vec![index])
                    .with_projection(self.mask.clone())
                    .with_batch_size(BATCH_ROWS)
                    .build()
                    .map_err(|e| parquet_error(name, Some(index), e))?;
                    let mut part = new();
                    let mut start = self.starts[index];
                    for batch in batches {
                        let batch = batch.map_err(|e| parquet_error(name, Some(index), e))?;
                        convert(&self.projected, name, &batch, start, &mut part)?;
                        start = start.saturating_add(batch.num_rows() as u64);
                    }
                    progress(u64::try_from(groups[index].compressed_size()).unwrap_or(0));
                    Ok(part)
                })
            })
            .collect()
    }
}

/// Evaluates the run in the Parquet file at `path` while reading it, row
/// groups in parallel, scoring each query with `scorer` as soon as its rows
/// are complete (see [`TableStream`]). `None` when the table is not one
/// the streaming path takes (lists without scores, an empty list): then it
/// is read whole. The run is not checked to be grouped by query here: the
/// scorer finds a query scored twice.
pub(crate) fn stream_run<S: ListScorer>(
    name: &str,
    path: &Path,
    columns: &CsvOptions,
    options: ReadOptions,
    scorer: &S,
    progress: Progress<'_>,
) -> Result<Option<S::Scores>, ReadError> {
    let open = || File::open(path);
    let footer = Footer::read(name, &open, columns, Kind::Run)?;
    if !footer.layout.streams() {
        return Ok(None);
    }
    if footer.rows == 0 {
        return Err(super::table::empty(name));
    }
    let stream = TableStream::new(scorer, options.duplicates);
    let pieces = footer.convert(
        name,
        &open,
        progress,
        || stream.sink(),
        |layout, name, batch, start, sink| {
            layout.run_part(name, batch, start, &mut stream.rows(sink))?;
            match stream.take_failure(sink) {
                Some(error) => Err(layout.run_error(name, error)),
                None => Ok(()),
            }
        },
    )?;
    let layout = &footer.projected;
    stream.finish(pieces, |query| {
        layout.finish_run(name, vec![query], 1, options)
    })
}
