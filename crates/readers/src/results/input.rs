//! Where the bytes of a per-query results file come from, within the
//! limits every input read whole is held to ([`read_whole`]): a regular
//! Parquet file is read in place (its size bounds what is read); JSON, a
//! gzip, and anything that is not a regular file (a pipe, a FIFO,
//! `/dev/zero`) are read whole, so an input without end stops at a limit
//! with an error naming it instead of filling memory.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::{ReadError, WholeInput, read_whole, read_whole_from};

/// Parquet's magic bytes, at the start (and the end) of every Parquet file.
const PARQUET_MAGIC: &[u8] = b"PAR1";

/// A results file's content: JSON text, or the part files of a Parquet
/// table.
pub(crate) enum ResultsInput {
    /// A JSON report's bytes (a byte order mark left out).
    Json(Vec<u8>),
    /// A Parquet table: one part, or a directory's part files in name order.
    Parquet(Vec<Part>),
}

/// One Parquet file of a results table.
pub(crate) struct Part {
    /// The file, as messages name it.
    pub(crate) name: String,
    /// Where its bytes are.
    pub(crate) data: PartData,
}

/// Where a Parquet part's bytes are.
pub(crate) enum PartData {
    /// A regular file, read in place.
    File(PathBuf),
    /// Bytes read whole (from a pipe, a FIFO, a gzip).
    Bytes(bytes::Bytes),
}

/// The content of the results file or directory at `path`: a directory is a
/// Parquet table's part files; a file is Parquet when it starts with `PAR1`
/// (or is named `.parquet`/`.pq`), JSON otherwise. The error says what is
/// wrong, for the caller to name the file.
pub(crate) fn load(path: &Path) -> Result<ResultsInput, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if meta.is_dir() {
        return directory_parts(path).map(ResultsInput::Parquet);
    }
    let name = path.display().to_string();
    let named_parquet = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet") || e.eq_ignore_ascii_case("pq"));
    let file = File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    let mut buffered = BufReader::with_capacity(64 << 10, file);
    let head = buffered
        .fill_buf()
        .map_err(|e| format!("cannot read: {e}"))?;
    let starts_parquet = head.starts_with(PARQUET_MAGIC);
    if meta.is_file() && starts_parquet {
        return Ok(ResultsInput::Parquet(vec![Part {
            name,
            data: PartData::File(path.to_owned()),
        }]));
    }
    let kind = if named_parquet || starts_parquet {
        WholeInput::PARQUET
    } else {
        WholeInput::TEXT
    };
    let bytes = if meta.is_file() {
        drop(buffered);
        read_whole(path, kind)
    } else {
        read_whole_from(buffered, &name, kind)
    }
    .map_err(|e| reason(&e))?;
    Ok(classify(bytes, &name))
}

/// Bytes already read: Parquet when they start with `PAR1`, JSON otherwise.
pub(crate) fn classify(bytes: Vec<u8>, name: &str) -> ResultsInput {
    if bytes.starts_with(PARQUET_MAGIC) {
        ResultsInput::Parquet(vec![Part {
            name: name.to_owned(),
            data: PartData::Bytes(bytes.into()),
        }])
    } else {
        let mut bytes = bytes;
        if bytes.starts_with(b"\xef\xbb\xbf") {
            bytes.drain(..3);
        }
        ResultsInput::Json(bytes)
    }
}

/// A read error's problem and line, without the file it names (the caller
/// names it).
fn reason(error: &ReadError) -> String {
    match error.line {
        Some(line) => format!("line {line}: {}", error.kind),
        None => error.kind.to_string(),
    }
}

/// The Parquet files of a directory: its `*.parquet` files in name order
/// (Spark's part files; its `_SUCCESS` and `.crc` files left aside). A part
/// that is not a regular file is read whole, within the limits of a
/// Parquet file read whole.
fn directory_parts(path: &Path) -> Result<Vec<Part>, String> {
    let entries = std::fs::read_dir(path).map_err(|e| format!("cannot list the directory: {e}"))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "parquet")
                && !p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with('.') || n.starts_with('_'))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err("the directory holds no .parquet file".into());
    }
    files
        .into_iter()
        .map(|file| {
            let name = file.display().to_string();
            let regular = std::fs::metadata(&file)
                .map_err(|e| format!("{name}: cannot read: {e}"))?
                .is_file();
            let data = if regular {
                PartData::File(file)
            } else {
                PartData::Bytes(
                    read_whole(&file, WholeInput::PARQUET)
                        .map_err(|e| format!("{name}: {}", reason(&e)))?
                        .into(),
                )
            };
            Ok(Part { name, data })
        })
        .collect()
}
