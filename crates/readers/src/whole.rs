//! Inputs that must be read whole into memory (an experiment file, a groups
//! table, span files, per-query results, JSON, Parquet from a pipe), read
//! within one set of limits: a total size, and for text the longest line
//! that any reader takes ([`MAX_LINE_BYTES`](crate::MAX_LINE_BYTES)). A
//! file, a FIFO, `/dev/zero`, a sparse file or a gzip bomb all end either in
//! bytes or in an error naming the file (and the line) before memory grows
//! past the limit.

use std::fs::File;
use std::io::{BufRead, BufReader, ErrorKind, Read};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use crate::lines::LINE_LIMIT;
use crate::{ReadError, ReadErrorKind};

/// The largest data input read whole, in bytes (2 GiB): a groups table, a
/// span file, per-query results, a JSON run or qrels, a Parquet or Arrow
/// file from a pipe or gzip. Files this large are read by row group or
/// streamed when they are runs; a whole-read input past it is refused.
pub const MAX_WHOLE_BYTES: u64 = 2 << 30;

/// The largest experiment file (TOML) read, in bytes (64 MiB).
pub const MAX_CONFIG_BYTES: u64 = 64 << 20;

/// Which kind of input is read whole, and so its limits.
#[derive(Debug, Clone, Copy)]
pub struct WholeInput {
    /// What the input is, for the message past the limit.
    what: &'static str,
    /// The largest size, in bytes (decompressed for gzip).
    limit: u64,
    /// Whether it is text, whose lines are held to the line limit.
    text: bool,
    /// The bytes it must start with, one of several, if any (Parquet's
    /// `PAR1`), and the message for an input that does not.
    magic: Option<(&'static [&'static [u8]], &'static str)>,
}

impl WholeInput {
    /// A TOML experiment or suite file.
    pub const CONFIG: Self = Self {
        what: "an experiment file",
        limit: MAX_CONFIG_BYTES,
        text: true,
        magic: None,
    };
    /// A text data input (CSV, TSV, JSON Lines, JSON, TREC) read whole.
    pub const TEXT: Self = Self {
        what: "a text input read whole",
        limit: MAX_WHOLE_BYTES,
        text: true,
        magic: None,
    };
    /// A binary input read whole, of no format in particular.
    pub const BINARY: Self = Self {
        what: "a binary input read whole",
        limit: MAX_WHOLE_BYTES,
        text: false,
        magic: None,
    };
    /// An Arrow IPC file or stream from a pipe or gzip: a file starts with
    /// `ARROW1`, a stream with the continuation marker `FF FF FF FF`.
    pub const ARROW: Self = Self {
        what: "an Arrow IPC input read whole",
        limit: MAX_WHOLE_BYTES,
        text: false,
        magic: Some((
            &[b"ARROW1", b"\xFF\xFF\xFF\xFF"],
            "not Arrow IPC: an Arrow IPC file starts with the bytes ARROW1, a stream with FF FF FF FF",
        )),
    };
    /// A Parquet file that cannot be read in place (a pipe, a FIFO, gzip):
    /// it must start with `PAR1`, which `/dev/zero` or a text file does not.
    pub const PARQUET: Self = Self {
        what: "a Parquet file read whole",
        limit: MAX_WHOLE_BYTES,
        text: false,
        magic: Some((
            &[b"PAR1"],
            "not a Parquet file: Parquet files start with the bytes PAR1",
        )),
    };

    /// Refuses `bytes` (a whole input already in memory or mapped) that do
    /// not start with the kind's magic: a sparse file of zeros named
    /// `.arrow` is refused before any decoder copies it.
    pub(crate) fn check_start(&self, name: &str, bytes: &[u8]) -> Result<(), ReadError> {
        match self.magic {
            Some((magics, expected)) if !magics.iter().any(|m| bytes.starts_with(m)) => Err(
                ReadError::new(name, None, ReadErrorKind::BadField(expected.to_owned())),
            ),
            _ => Ok(()),
        }
    }

    /// The kind an input of `format` is read whole as: Parquet and Arrow
    /// with their magic checked, every other format as text.
    pub fn of_format(format: crate::Format) -> Self {
        match format {
            crate::Format::Parquet => Self::PARQUET,
            crate::Format::Arrow => Self::ARROW,
            _ => Self::TEXT,
        }
    }

    /// The same input with another size limit (tests, or a caller with a
    /// tighter bound).
    pub const fn with_limit(mut self, limit: u64) -> Self {
        self.limit = limit;
        self
    }
}

/// The whole of the file at `path`, gunzipped if it starts as gzip does,
/// within the limits of `kind`. A regular file larger than the limit is
/// refused before anything is read.
pub fn read_whole(path: &Path, kind: WholeInput) -> Result<Vec<u8>, ReadError> {
    let name = path.display().to_string();
    let io = |e: std::io::Error| ReadError::new(&name, None, ReadErrorKind::Io(e));
    let file = File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_dir() {
        return Err(io(std::io::Error::new(
            ErrorKind::InvalidInput,
            "it is a directory, not a file",
        )));
    }
    if meta.is_file() && meta.len() > kind.limit {
        return Err(too_large(&name, kind));
    }
    read_whole_from(file, &name, kind)
}

/// [`read_whole`] for any reader (a pipe, bytes already open), named `name`
/// in errors.
pub fn read_whole_from(
    input: impl Read,
    name: &str,
    kind: WholeInput,
) -> Result<Vec<u8>, ReadError> {
    let io = |e: std::io::Error| ReadError::new(name, None, ReadErrorKind::Io(e));
    let mut buffered = BufReader::with_capacity(64 << 10, input);
    let head = buffered.fill_buf().map_err(io)?;
    if head.starts_with(&[0x1f, 0x8b]) {
        read_bounded(MultiGzDecoder::new(buffered), name, kind)
    } else {
        read_bounded(buffered, name, kind)
    }
}

/// Reads `input` to its end within `kind`'s limits: the magic bytes, the
/// total size and, for text, the length of every line.
pub(crate) fn read_bounded(
    mut input: impl Read,
    name: &str,
    kind: WholeInput,
) -> Result<Vec<u8>, ReadError> {
    const CHUNK: usize = 1 << 20;
    // The bytes read one read at a time where a magic is checked.
    const HEAD: usize = 16;
    let mut all: Vec<u8> = Vec::new();
    // Where the line being read starts (after the last newline seen).
    let mut line_start = 0usize;
    loop {
        let old = all.len();
        if all.capacity() < old + CHUNK {
            // Doubling, but never far past the limit: a 2 GiB limit must
            // not ask for 4 GiB.
            let cap = usize::try_from(kind.limit).unwrap_or(usize::MAX);
            let wanted =
                (all.capacity() * 2).clamp(old + CHUNK, cap.saturating_add(CHUNK).max(old + CHUNK));
            all.reserve_exact(wanted - old);
        }
        let io = |e| ReadError::new(name, None, ReadErrorKind::Io(e));
        let got = if kind.magic.is_some() && old < HEAD {
            // The head, read by single reads and checked after each: a
            // pipe that sends a few wrong bytes and stalls is refused now.
            let mut head = [0u8; HEAD];
            let got = loop {
                match input.read(&mut head[old..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(e) => return Err(io(e)),
                }
            };
            all.extend_from_slice(&head[old..old + got]);
            got
        } else {
            // A chunk, or what is left: `read_to_end` fills the spare
            // capacity without zeroing it first (zeroing a chunk for each
            // of a pipe's reads of a few KiB made a FIFO fed by `yes` take
            // minutes to reach the limit), and retries an interrupted read.
            (&mut input)
                .take(CHUNK as u64)
                .read_to_end(&mut all)
                .map_err(io)?
        };
        let filled = all.len();
        let read = &all[..filled];
        if let Some((magics, expected)) = kind.magic {
            // Wrong once no magic can still match what has been read.
            let fits = |magic: &[u8]| {
                let seen = read.len().min(magic.len());
                read[..seen] == magic[..seen] && (got > 0 || seen == magic.len())
            };
            if !magics.iter().any(|magic| fits(magic)) {
                return Err(ReadError::new(
                    name,
                    None,
                    ReadErrorKind::BadField(expected.to_owned()),
                ));
            }
        }
        if got == 0 {
            break;
        }
        if filled as u64 > kind.limit {
            return Err(too_large(name, kind));
        }
        if kind.text {
            if let Some(at) = memchr::memrchr(b'\n', &read[old..]) {
                line_start = old + at + 1;
            }
            if filled - line_start > LINE_LIMIT {
                let line = memchr::memchr_iter(b'\n', &read[..line_start]).count() as u64 + 1;
                return Err(ReadError::new(
                    name,
                    Some(line),
                    ReadErrorKind::LineTooLong { limit: LINE_LIMIT },
                ));
            }
        }
    }
    all.shrink_to_fit();
    Ok(all)
}

fn too_large(name: &str, kind: WholeInput) -> ReadError {
    ReadError::new(
        name,
        None,
        ReadErrorKind::TooLarge {
            what: kind.what,
            limit: kind.limit,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_without_newlines_is_refused_at_the_line_limit_naming_the_line() {
        let mut text = b"a\nb\n".to_vec();
        let zeros = std::io::repeat(0).take(LINE_LIMIT as u64 + (4 << 20));
        let input = std::io::Cursor::new(std::mem::take(&mut text)).chain(zeros);
        let err = read_whole_from(input, "zero", WholeInput::TEXT).unwrap_err();
        assert_eq!(err.line, Some(3), "{err}");
        assert!(
            matches!(err.kind, ReadErrorKind::LineTooLong { .. }),
            "{err}"
        );
    }

    #[test]
    fn input_past_the_limit_is_refused_and_within_it_read_whole() {
        let lines = b"q1,a\n".repeat(1000);
        let kind = WholeInput::TEXT.with_limit(4000);
        let err = read_whole_from(&lines[..], "big.csv", kind).unwrap_err();
        assert!(err.to_string().starts_with("big.csv: "), "{err}");
        assert!(matches!(err.kind, ReadErrorKind::TooLarge { .. }), "{err}");
        let read =
            read_whole_from(&lines[..], "ok.csv", WholeInput::TEXT.with_limit(5000)).unwrap();
        assert_eq!(read, lines);
    }

    #[test]
    fn gzip_is_read_as_its_content_and_bounded_by_it() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&b"x\n".repeat(10_000)).unwrap();
        let gz = gz.finish().unwrap();
        let read = read_whole_from(&gz[..], "t.gz", WholeInput::TEXT).unwrap();
        assert_eq!(read.len(), 20_000);
        let err =
            read_whole_from(&gz[..], "t.gz", WholeInput::TEXT.with_limit(10_000)).unwrap_err();
        assert!(matches!(err.kind, ReadErrorKind::TooLarge { .. }), "{err}");
    }

    #[test]
    fn parquet_must_start_with_its_magic() {
        let zeros = std::io::repeat(0).take(1 << 30);
        let err = read_whole_from(zeros, "/dev/zero", WholeInput::PARQUET).unwrap_err();
        assert!(err.to_string().contains("not a Parquet file"), "{err}");
        let err = read_whole_from(&b"PA"[..], "short", WholeInput::PARQUET).unwrap_err();
        assert!(err.to_string().contains("not a Parquet file"), "{err}");
        let ok = read_whole_from(&b"PAR1....PAR1"[..], "p", WholeInput::PARQUET).unwrap();
        assert_eq!(ok.len(), 12);
    }

    #[test]
    fn arrow_must_start_as_a_file_or_a_stream_does() {
        let zeros = std::io::repeat(0).take(1 << 30);
        let err = read_whole_from(zeros, "/dev/zero", WholeInput::ARROW).unwrap_err();
        assert!(
            err.to_string()
                .contains("not Arrow IPC: an Arrow IPC file starts"),
            "{err}"
        );
        for ok in [&b"ARROW1\0\0rest"[..], &b"\xFF\xFF\xFF\xFF\x10\0\0\0"[..]] {
            assert_eq!(read_whole_from(ok, "a", WholeInput::ARROW).unwrap(), ok);
        }
    }

    #[test]
    fn a_directory_and_a_large_regular_file_are_refused_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_whole(dir.path(), WholeInput::TEXT).unwrap_err();
        assert!(err.to_string().contains("directory"), "{err}");
        let sparse = dir.path().join("sparse.csv");
        let file = File::create(&sparse).unwrap();
        file.set_len(3 << 30).unwrap();
        let err = read_whole(&sparse, WholeInput::TEXT).unwrap_err();
        assert!(matches!(err.kind, ReadErrorKind::TooLarge { .. }), "{err}");
    }
}
