//! Arrow IPC files (Feather v2, `.arrow`, `.feather`) and streams
//! (`.arrows`, what `pyarrow.ipc.new_stream` writes), told apart by their
//! first bytes, read with `arrow-ipc` (lz4 and zstd buffers included) into
//! record batches and converted by [`table`](super::table) in parallel.

use std::io::Cursor;

use arrow_array::RecordBatch;
use arrow_ipc::reader::{FileReaderBuilder, StreamReader};
use rankeval_core::{Qrels, Run};

use super::csv::CsvOptions;
use super::error::{ReadError, ReadErrorKind};
use super::table::{Kind, Layout};
use super::{Progress, ReadOptions};

/// The first bytes of an Arrow IPC file (a stream has none).
const FILE_MAGIC: &[u8] = b"ARROW1";

/// Reads a run from Arrow IPC bytes.
pub(crate) fn read_run(
    name: &str,
    bytes: &[u8],
    columns: &CsvOptions,
    options: ReadOptions,
    progress: Progress<'_>,
) -> Result<Run, ReadError> {
    let (layout, batches) = read_batches(name, bytes, columns, Kind::Run)?;
    progress(bytes.len() as u64);
    layout.run_of_batches(name, &batches, options)
}

/// Reads qrels from Arrow IPC bytes.
pub(crate) fn read_qrels(
    name: &str,
    bytes: &[u8],
    columns: &CsvOptions,
    progress: Progress<'_>,
) -> Result<Qrels, ReadError> {
    let (layout, batches) = read_batches(name, bytes, columns, Kind::Qrels)?;
    progress(bytes.len() as u64);
    layout.qrels_of_batches(name, &batches)
}

fn ipc_error(name: &str, error: impl std::fmt::Display) -> ReadError {
    ReadError::new(
        name,
        None,
        ReadErrorKind::BadField(format!("cannot read as Arrow IPC: {error}")),
    )
}

/// The layout (over the columns it reads) and the batches, those columns
/// only.
fn read_batches(
    name: &str,
    bytes: &[u8],
    columns: &CsvOptions,
    kind: Kind,
) -> Result<(Layout, Vec<RecordBatch>), ReadError> {
    let fail = |e| ipc_error(name, e);
    if bytes.starts_with(FILE_MAGIC) {
        let schema = FileReaderBuilder::new()
            .build(Cursor::new(bytes))
            .map_err(fail)?
            .schema();
        let layout = Layout::new(name, &schema, columns, kind)?;
        let reader = FileReaderBuilder::new()
            .with_projection(layout.columns())
            .build(Cursor::new(bytes))
            .map_err(fail)?;
        Ok((layout.projected(), collect(name, reader)?))
    } else {
        let reader = StreamReader::try_new(Cursor::new(bytes), None).map_err(|e| {
            ipc_error(
                name,
                format!(
                    "it is neither an Arrow IPC file (which starts with ARROW1) nor an \
                     Arrow IPC stream ({e})"
                ),
            )
        })?;
        let layout = Layout::new(name, &reader.schema(), columns, kind)?;
        let reader =
            StreamReader::try_new(Cursor::new(bytes), Some(layout.columns())).map_err(fail)?;
        Ok((layout.projected(), collect(name, reader)?))
    }
}

fn collect(
    name: &str,
    reader: impl Iterator<Item = Result<RecordBatch, arrow_schema::ArrowError>>,
) -> Result<Vec<RecordBatch>, ReadError> {
    reader
        .map(|batch| batch.map_err(|e| ipc_error(name, e)))
        .collect()
}
