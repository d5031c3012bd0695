//! Errors of the readers: every one names the file, the line (when there is
//! one) and what was expected.

use std::fmt;
use std::io;

/// Input that could not be read. Displays as `path:line: problem`.
#[derive(Debug, thiserror::Error)]
#[error("{}", self.render())]
pub struct ReadError {
    /// The file as the user named it (or the name given to in-memory bytes).
    pub path: String,
    /// The 1-based line, when the problem is on one.
    pub line: Option<u64>,
    /// What is wrong.
    pub kind: ReadErrorKind,
}

impl ReadError {
    pub(crate) fn new(path: &str, line: Option<u64>, kind: ReadErrorKind) -> Self {
        Self {
            path: path.to_owned(),
            line,
            kind,
        }
    }

    fn render(&self) -> String {
        match self.line {
            Some(line) => format!("{}:{line}: {}", self.path, self.kind),
            None => format!("{}: {}", self.path, self.kind),
        }
    }
}

/// What is wrong with the input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// The file could not be opened or read.
    #[error("cannot read: {0}")]
    Io(#[from] io::Error),
    /// The file holds no data line.
    #[error("the file is empty: expected {expected}")]
    Empty {
        /// What a data line looks like.
        expected: &'static str,
    },
    /// A line is longer than [`MAX_LINE_BYTES`](super::MAX_LINE_BYTES)
    /// (no newline for that long: not a text file of the expected format,
    /// or one line of a huge list).
    #[error("the line is longer than {} MiB, the limit for one line", limit >> 20)]
    LineTooLong {
        /// The limit in bytes.
        limit: usize,
    },
    /// An input that must be read whole is larger than its limit
    /// ([`WholeInput`](crate::WholeInput)).
    #[error(
        "the input is larger than {} MiB, the limit for {what}",
        limit >> 20
    )]
    TooLarge {
        /// What kind of input it is.
        what: &'static str,
        /// The limit in bytes.
        limit: u64,
    },
    /// A line has the wrong number of fields.
    #[error("expected {expected}, found {found} field{}", if *found == 1 { "" } else { "s" })]
    FieldCount {
        /// The line format, e.g. "4 fields: query iteration document grade".
        expected: &'static str,
        /// How many fields the line has.
        found: usize,
    },
    /// A field is not the number it should be.
    #[error("{field} `{text}` is not {expected}")]
    BadNumber {
        /// The field's name, e.g. "score".
        field: &'static str,
        /// The text found (shortened if long).
        text: String,
        /// What was expected, e.g. "a number".
        expected: &'static str,
    },
    /// A line of a CSV/TSV file has not as many fields as its header.
    #[error(
        "expected {expected} field{} as in the header, found {found}",
        if *expected == 1 { "" } else { "s" }
    )]
    ColumnCount {
        /// How many fields the header has.
        expected: usize,
        /// How many fields the line has.
        found: usize,
    },
    /// A CSV/TSV field is not the number its column should hold.
    #[error("column `{column}`: `{text}` is not {expected}")]
    BadColumnValue {
        /// The column's name in the header, e.g. "rating".
        column: String,
        /// The text found (shortened if long).
        text: String,
        /// What was expected, e.g. "a number".
        expected: &'static str,
    },
    /// A line holds nothing but bytes up to 0x20, some of them control
    /// bytes other than whitespace (a NUL, a 0x01): it has no field, and is
    /// not a blank line either (those hold only spaces, tabs and a `\r`).
    #[error(
        "the line holds only control bytes ({bytes}) and no field; a blank line may hold only \
         spaces, tabs and a carriage return"
    )]
    ControlBytesOnly {
        /// The bytes, in hex (the first few).
        bytes: String,
    },
    /// A field is empty or otherwise unusable.
    #[error("{0}")]
    BadField(String),
    /// A column (or JSON key) the input lacks, and the options that would
    /// name it.
    #[error("{0}")]
    MissingColumn(Box<crate::missing_column::MissingColumn>),
    /// A JSON line could not be read.
    #[error("invalid JSON line: {0}")]
    Json(String),
    /// A document appears twice in one query's list.
    #[error(
        "document `{doc}` appears twice in the list of query `{query}` (first on line {first_line}); \
         to keep the best-ranked occurrence, use --duplicates first (TOML: duplicates = \"first\")"
    )]
    DuplicateDoc {
        /// The query.
        query: String,
        /// The document.
        doc: String,
        /// The line of the first occurrence.
        first_line: u64,
    },
    /// A document is judged twice for one query with two grades.
    #[error(
        "document `{doc}` of query `{query}` is judged {second_grade} here but {first_grade} on line {first_line}"
    )]
    ConflictingGrades {
        /// The query.
        query: String,
        /// The document.
        doc: String,
        /// The first grade.
        first_grade: f64,
        /// The line of the first judgement.
        first_line: u64,
        /// The grade on this line.
        second_grade: f64,
    },
    /// The same query appears on two lines of a file with one query per line.
    #[error("query `{query}` appears again (first on line {first_line}); give each query one line")]
    RepeatedQuery {
        /// The query.
        query: String,
        /// The line where it first appeared.
        first_line: u64,
    },
    /// A problem at a row and column of a table (Parquet, Arrow).
    #[error("row {row}, column `{column}`: {problem}")]
    AtRow {
        /// The row, counted from 1 over the whole input.
        row: u64,
        /// The column's name.
        column: String,
        /// What is wrong.
        problem: String,
    },
    /// Any other problem with the data, from the core model.
    #[error("{0}")]
    Data(String),
}

/// A problem on one line, before the file name is known to the parser.
#[derive(Debug)]
pub(crate) struct LineError {
    pub(crate) line: u64,
    pub(crate) kind: ReadErrorKind,
}

impl LineError {
    pub(crate) fn new(line: u64, kind: ReadErrorKind) -> Self {
        Self { line, kind }
    }

    /// The same error, `offset` lines further down (lines inside the kind too).
    pub(crate) fn shifted(mut self, offset: u64) -> Self {
        self.line = self.line.saturating_add(offset);
        match &mut self.kind {
            ReadErrorKind::DuplicateDoc { first_line, .. }
            | ReadErrorKind::ConflictingGrades { first_line, .. }
            | ReadErrorKind::RepeatedQuery { first_line, .. } => {
                *first_line = first_line.saturating_add(offset);
            }
            _ => {}
        }
        self
    }

    pub(crate) fn in_file(self, path: &str) -> ReadError {
        ReadError::new(path, Some(self.line), self.kind)
    }
}

/// Shortens a field for a message, keeping it readable (the one helper of
/// the core, [`rankeval_core::shorten_id`]).
pub(crate) fn excerpt(bytes: &[u8]) -> String {
    rankeval_core::shorten_id(bytes)
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.kind)
    }
}
