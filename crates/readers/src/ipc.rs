//! Arrow IPC files (Feather v2, `.arrow`, `.feather`) and streams
//! (`.arrows`, what `pyarrow.ipc.new_stream` writes), told apart by their
//! first bytes, read with `arrow-ipc` (lz4 and zstd buffers included) into
//! record batches and converted by [`table`](super::table) in parallel.
//!
//! The input is in memory, and is decoded in place with arrow-ipc's
//! push decoders ([`FileDecoder`], [`StreamDecoder`]) rather than its
//! readers, which allocate whatever length a message header claims (a few
//! bytes claiming 2 GiB took 2 GiB): here every offset and length of the
//! file is checked against its size first, and the decoders only ever see
//! bytes that are there. What they still assert is fenced by
//! [`guard::decoding`](super::guard::decoding).

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_ipc::reader::{FileDecoder, StreamDecoder, read_footer_length};
use arrow_schema::Schema;
use rankeval_core::{Qrels, Run};

use super::csv::CsvOptions;
use super::error::{ReadError, ReadErrorKind};
use super::guard::decoding;
use super::table::{Kind, Layout};
use super::ungraded::{EmptyGrade, UngradedRows};
use super::{Progress, QrelsNote, ReadOptions};

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

/// Reads qrels from Arrow IPC bytes, a null grade meaning `empty`; gives
/// the note that a long table has no grade column, and the rows left out
/// as not judged.
pub(crate) fn read_qrels(
    name: &str,
    bytes: &[u8],
    columns: &CsvOptions,
    progress: Progress<'_>,
    empty: EmptyGrade,
) -> Result<(Qrels, Option<QrelsNote>, UngradedRows), ReadError> {
    let (layout, batches) = read_batches(name, bytes, columns, Kind::Qrels)?;
    progress(bytes.len() as u64);
    let note = layout.note(columns);
    let (qrels, ungraded) = layout.qrels_of_batches(name, &batches, empty)?;
    Ok((qrels, note, ungraded))
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
    decode(name, bytes, |schema| {
        let layout = Layout::new(name, schema, columns, kind)?;
        let read = layout.columns();
        Ok((layout.projected(), read))
    })
}

/// The batches of Arrow IPC bytes (a file or a stream, told by the first
/// bytes), of the columns `choose` picks from the schema (their indices,
/// ascending), with what `choose` made of the schema: the one way Arrow IPC
/// is decoded, for runs and qrels and for other tables (span files).
pub(crate) fn decode<T>(
    name: &str,
    bytes: &[u8],
    choose: impl Fn(&Schema) -> Result<(T, Vec<usize>), ReadError>,
) -> Result<(T, Vec<RecordBatch>), ReadError> {
    let buffer = Buffer::from(bytes.to_vec());
    decoding(name, "Arrow IPC", || {
        if bytes.starts_with(FILE_MAGIC) {
            file_batches(name, &buffer, &choose)
        } else {
            stream_batches(name, buffer.clone(), &choose)
        }
    })
}

/// The batches of an Arrow IPC file: the footer, then each block, every
/// offset and length checked against the file's size.
fn file_batches<T>(
    name: &str,
    buffer: &Buffer,
    choose: &impl Fn(&Schema) -> Result<(T, Vec<usize>), ReadError>,
) -> Result<(T, Vec<RecordBatch>), ReadError> {
    let fail = |e: String| ipc_error(name, e);
    let size = buffer.len();
    let trailer: [u8; 10] = size
        .checked_sub(10)
        .and_then(|start| buffer.get(start..))
        .and_then(|t| t.try_into().ok())
        .ok_or_else(|| fail("the file is too short for an Arrow IPC file".into()))?;
    let footer_len = read_footer_length(trailer).map_err(|e| fail(e.to_string()))?;
    let footer_end = size - 10;
    let footer = footer_end
        .checked_sub(footer_len)
        .and_then(|start| buffer.get(start..footer_end))
        .ok_or_else(|| {
            fail(format!(
                "the footer is said to be {footer_len} bytes long, more than the file holds"
            ))
        })?;
    let footer = arrow_ipc::root_as_footer(footer)
        .map_err(|e| fail(format!("the footer is damaged ({e})")))?;
    let schema = footer
        .schema()
        .map(arrow_ipc::convert::fb_to_schema)
        .ok_or_else(|| fail("the footer has no schema".into()))?;
    let (chosen, read) = choose(&schema)?;
    let mut decoder = FileDecoder::new(Arc::new(schema), footer.version()).with_projection(read);
    let block_bytes = |block: &arrow_ipc::Block| -> Result<Buffer, ReadError> {
        let offset = usize::try_from(block.offset()).ok();
        let meta = usize::try_from(block.metaDataLength()).ok();
        let body = usize::try_from(block.bodyLength()).ok();
        match (offset, meta, body) {
            (Some(offset), Some(meta), Some(body))
                if meta >= 8
                    && offset
                        .checked_add(meta)
                        .and_then(|end| end.checked_add(body))
                        .is_some_and(|end| end <= size) =>
            {
                Ok(buffer.slice_with_length(offset, meta + body))
            }
            _ => Err(fail(format!(
                "a block at byte {} of {} + {} bytes lies outside the file ({size} bytes)",
                block.offset(),
                block.metaDataLength(),
                block.bodyLength()
            ))),
        }
    };
    let arrow = |e: arrow_schema::ArrowError| fail(e.to_string());
    for block in footer.dictionaries().iter().flatten() {
        decoder
            .read_dictionary(block, &block_bytes(block)?)
            .map_err(arrow)?;
    }
    let mut batches = Vec::new();
    for block in footer.recordBatches().iter().flatten() {
        if let Some(batch) = decoder
            .read_record_batch(block, &block_bytes(block)?)
            .map_err(arrow)?
        {
            batches.push(batch);
        }
    }
    Ok((chosen, batches))
}

/// The batches of an Arrow IPC stream, decoded from the bytes in memory
/// (a message can claim no more than there is), then projected on the
/// chosen columns.
fn stream_batches<T>(
    name: &str,
    mut buffer: Buffer,
    choose: &impl Fn(&Schema) -> Result<(T, Vec<usize>), ReadError>,
) -> Result<(T, Vec<RecordBatch>), ReadError> {
    let not_ipc = |e: arrow_schema::ArrowError| {
        ipc_error(
            name,
            format!(
                "it is neither an Arrow IPC file (which starts with ARROW1) nor an Arrow IPC \
                 stream ({e})"
            ),
        )
    };
    let mut decoder = StreamDecoder::new();
    let mut chosen: Option<(T, Vec<usize>)> = None;
    let mut batches = Vec::new();
    while !buffer.is_empty() {
        let batch = decoder.decode(&mut buffer).map_err(not_ipc)?;
        if chosen.is_none()
            && let Some(schema) = decoder.schema()
        {
            chosen = Some(choose(&schema)?);
        }
        if let (Some(batch), Some((_, read))) = (batch, &chosen) {
            let batch = batch.project(read).map_err(|e| ipc_error(name, e))?;
            batches.push(batch);
        }
    }
    decoder.finish().map_err(not_ipc)?;
    match (chosen, decoder.schema()) {
        (Some((chosen, _)), _) => Ok((chosen, batches)),
        (None, Some(schema)) => Ok((choose(&schema)?.0, batches)),
        (None, None) => Err(not_ipc(arrow_schema::ArrowError::IpcError(
            "no schema message".into(),
        ))),
    }
}
