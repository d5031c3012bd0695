//! Why a history could not be opened, written or read: each error names the
//! database file and says what is wrong, so that a CI log alone explains a
//! failed job.

use std::path::PathBuf;

/// An error of the results history. Every variant names the database file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HistoryError {
    /// The path exists but is not a regular file (a directory, a FIFO, a
    /// device such as `/dev/zero`): SQLite would block on it or write into it.
    #[error("history {path}: not a regular file ({kind}): a history is an SQLite database file")]
    NotAFile {
        /// The database path.
        path: PathBuf,
        /// What it is instead.
        kind: &'static str,
    },
    /// A history to read does not exist (reading never creates one).
    #[error("history {path}: no such file (record into it first with `--record`)")]
    Missing {
        /// The database path.
        path: PathBuf,
    },
    /// The file is not an SQLite database at all.
    #[error("history {path}: not an SQLite database (its header is not SQLite's): {detail}")]
    NotSqlite {
        /// The database path.
        path: PathBuf,
        /// SQLite's own words.
        detail: String,
    },
    /// An SQLite database, but another application's.
    #[error(
        "history {path}: an SQLite database, but not a rankeval history (its application id is \
         {application_id:#010x}, a history's is {expected:#010x})"
    )]
    NotAHistory {
        /// The database path.
        path: PathBuf,
        /// The file's `PRAGMA application_id`.
        application_id: i32,
        /// A history's application id.
        expected: i32,
    },
    /// A history written by a later rankeval, with a schema this one does
    /// not know: refused rather than misread or downgraded.
    #[error(
        "history {path}: schema version {found} was written by a later rankeval (this one \
         knows versions up to {known}): upgrade rankeval to read or write it"
    )]
    NewerSchema {
        /// The database path.
        path: PathBuf,
        /// The file's schema version.
        found: i64,
        /// The latest version this build knows.
        known: i64,
    },
    /// The database is damaged (SQLite's integrity check or a record's
    /// stored values do not hold together).
    #[error("history {path}: the database is damaged: {detail}")]
    Corrupt {
        /// The database path.
        path: PathBuf,
        /// What was found.
        detail: String,
    },
    /// No record with this id.
    #[error("history {path}: no record {id}")]
    NoRecord {
        /// The database path.
        path: PathBuf,
        /// The id asked for.
        id: i64,
    },
    /// No record has been accepted yet.
    #[error(
        "history {path}: no record is accepted yet (accept one with `rankeval history {path} --accept ID`)"
    )]
    NoneAccepted {
        /// The database path.
        path: PathBuf,
    },
    /// A record to write does not hold together (a column of values whose
    /// length is not the number of queries, a query given twice, an empty
    /// name): said before anything is written.
    #[error("history {path}: record of run `{run}`: {detail}")]
    InvalidRecord {
        /// The database path.
        path: PathBuf,
        /// The record's run name.
        run: String,
        /// What is wrong.
        detail: String,
    },
    /// The database stayed locked by other writers past the busy timeout
    /// and every retry.
    #[error(
        "history {path}: still locked by another process after {attempts} attempts over {seconds} s: {detail}"
    )]
    Busy {
        /// The database path.
        path: PathBuf,
        /// How many times the write was tried.
        attempts: u32,
        /// The total time waited, in seconds.
        seconds: u64,
        /// SQLite's words.
        detail: String,
    },
    /// Any other SQLite error (a full disk, a read-only directory...).
    #[error("history {path}: {detail}")]
    Sqlite {
        /// The database path.
        path: PathBuf,
        /// SQLite's words.
        detail: String,
    },
    /// An export could not be written.
    #[error("history {path}: export: {detail}")]
    Export {
        /// The database path.
        path: PathBuf,
        /// What failed.
        detail: String,
    },
}
