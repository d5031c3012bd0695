//! Why a file of plain rows (span files, subtopic judgements) could not be
//! read: one error for the readers of such files, each of which names it
//! in its own terms (`SpanFileError`, `SubtopicFileError`).

use crate::{ReadError, ReadErrorKind, RowAt};

/// Why a file of rows could not be read: the file, and the line (text) or
/// row (a table) when one is at fault.
#[derive(Debug, thiserror::Error)]
pub enum RowFileError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line (text) or a row (a table) is wrong.
    #[error("{path}, {at}: {problem}")]
    At {
        /// The file.
        path: String,
        /// The line or row, from 1.
        at: RowAt,
        /// What is wrong.
        problem: String,
    },
    /// The file as a whole is wrong (no header, no row, too large, not a
    /// readable table).
    #[error("{path}: {problem}")]
    File {
        /// The file.
        path: String,
        /// What is wrong.
        problem: String,
    },
}

impl From<ReadError> for RowFileError {
    /// The shared reader's limits (size, line length, a directory, a
    /// damaged table) in these files' terms: file, line and problem.
    fn from(error: ReadError) -> Self {
        let ReadError { path, line, kind } = error;
        match (line, kind) {
            (None, ReadErrorKind::Io(source)) => RowFileError::Io { path, source },
            (Some(line), kind) => RowFileError::At {
                path,
                at: RowAt::Line(line),
                problem: kind.to_string(),
            },
            (None, kind) => RowFileError::File {
                path,
                problem: kind.to_string(),
            },
        }
    }
}

impl From<RowFileError> for ReadError {
    /// The error as every reader's: the file, the line when there is one
    /// (a table's row in the message), the problem.
    fn from(error: RowFileError) -> Self {
        match error {
            RowFileError::Io { path, source } => {
                ReadError::new(&path, None, ReadErrorKind::Io(source))
            }
            RowFileError::At {
                path,
                at: RowAt::Line(line),
                problem,
            } => ReadError::new(&path, Some(line), ReadErrorKind::BadField(problem)),
            RowFileError::At { path, at, problem } => ReadError::new(
                &path,
                None,
                ReadErrorKind::BadField(format!("{at}: {problem}")),
            ),
            RowFileError::File { path, problem } => {
                ReadError::new(&path, None, ReadErrorKind::BadField(problem))
            }
        }
    }
}
