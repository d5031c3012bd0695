//! Subtopic qrels, the judgements of the diversity metrics (the TREC Web
//! track's `ndeval`): rows `query, subtopic, doc, grade`, a document's
//! grade for one subtopic (intent, aspect) of a query.
//!
//! Formats, told apart by the file's name ([`Format::from_path`]) and, for
//! text, by the first line that is not blank:
//!
//! - ndeval's qrels: lines of four fields separated by spaces or tabs,
//!   `query subtopic doc grade`, no header;
//! - a CSV or TSV table whose header names the four columns `query`,
//!   `subtopic`, `doc`, `grade` (in any order, others ignored, each once),
//!   split on tabs if the header has one, else on commas, fields quoted as
//!   the CSV reader reads them ([`split_csv_line`](crate::split_csv_line));
//! - JSON Lines, one object per row with those keys (a first line starting
//!   with `{`);
//! - a Parquet or Arrow IPC table (`.parquet`, `.pq`; `.arrow`, `.arrows`,
//!   `.feather`, `.ipc`) with those columns: ids strings or integers (or a
//!   dictionary of them), the grade numbers; no nulls.
//!
//! The tables (CSV/TSV, JSON Lines, Parquet, Arrow) are read by the
//! shared reader of named-column tables (`row_table`); this module gives
//! their columns and checks each row, and reads ndeval's lines itself.
//!
//! Every input is read whole within the limits every reader shares
//! ([`read_whole`]); ids follow the one id rule
//! ([`check_id`](rankeval_core::check_id)) and must be UTF-8; grades pass
//! the grade check of every qrels. A judgement repeated with the same grade
//! is kept once and counted ([`SubtopicQrels::repeats`]); with another
//! grade it is an error naming both lines. Each error names the file, the
//! line (text) or row (tables), the column or key, and the problem.

#[cfg(test)]
mod tests;
mod text;

use std::path::Path;

use rankeval_core::{QrelsError, SubtopicQrels, SubtopicQrelsBuilder, shorten_id};

use crate::RowAt;
use crate::row_table::{
    Cell, Column, Kind, LinesOrTable, Source, parse_lines_or_table, read_lines_or_table,
};

/// The columns (keys) of subtopic qrels, in the order of a row.
pub const COLUMNS: [&str; 4] = ["query", "subtopic", "doc", "grade"];

/// Why subtopic qrels could not be read.
pub type SubtopicFileError = crate::row_file::RowFileError;

/// The columns of a table of subtopic qrels.
const TABLE: [Column; 4] = [
    Column {
        name: "query",
        kind: Kind::Id,
        optional: false,
        instead_of: None,
    },
    Column {
        name: "subtopic",
        kind: Kind::Id,
        optional: false,
        instead_of: None,
    },
    Column {
        name: "doc",
        kind: Kind::Id,
        optional: false,
        instead_of: None,
    },
    Column {
        name: "grade",
        kind: Kind::Number,
        optional: false,
        instead_of: None,
    },
];

/// Reads subtopic qrels (see the module). Subtopic qrels without a
/// judgement are an error.
pub fn read_subtopic_qrels(path: &Path) -> Result<SubtopicQrels, SubtopicFileError> {
    read_lines_or_table::<Rows>(path)?.finish()
}

/// [`read_subtopic_qrels`] on bytes in memory (gzip already read through);
/// `name` is the file errors name. Parquet and Arrow IPC are told by their
/// magic bytes.
pub fn parse_subtopic_qrels(bytes: &[u8], name: &str) -> Result<SubtopicQrels, SubtopicFileError> {
    parse_lines_or_table::<Rows>(bytes, name)?.finish()
}

/// Judgements read, checked and added to the builder, with where each was
/// read.
struct Rows {
    name: String,
    /// Numbered as rows of a table, not lines.
    rows: bool,
    builder: SubtopicQrelsBuilder,
    count: u64,
}

impl LinesOrTable for Rows {
    const COLUMNS: &'static [Column] = &TABLE;

    fn empty(name: &str, rows: bool) -> Self {
        Rows::new(name, rows)
    }

    fn row(&mut self, at: RowAt, cells: &[Cell<'_>], source: Source) -> Result<(), String> {
        self.table_row(at, cells, source)
    }

    fn is_table(bytes: &[u8]) -> bool {
        text::is_table(bytes)
    }

    fn parse_lines(bytes: &[u8], name: &str) -> Result<Self, SubtopicFileError> {
        text::parse(bytes, name)
    }
}

impl Rows {
    /// No rows yet, of the file `name`.
    fn new(name: &str, rows: bool) -> Self {
        Rows {
            name: name.to_owned(),
            rows,
            builder: SubtopicQrelsBuilder::new(),
            count: 0,
        }
    }

    /// Where line (row) `number` is.
    fn at(&self, number: u64) -> RowAt {
        if self.rows {
            RowAt::Row(number)
        } else {
            RowAt::Line(number)
        }
    }

    /// An error at line (row) `number`.
    fn error(&self, number: u64, problem: String) -> SubtopicFileError {
        SubtopicFileError::At {
            path: self.name.clone(),
            at: self.at(number),
            problem,
        }
    }

    /// Adds a judgement read at `number` (ids checked by [`checked_id`]).
    fn push(
        &mut self,
        number: u64,
        query: &[u8],
        subtopic: &[u8],
        doc: &[u8],
        grade: f64,
    ) -> Result<(), SubtopicFileError> {
        self.builder
            .push(query, subtopic, doc, grade, number)
            .map_err(|e| self.qrels_error(e))?;
        self.count += 1;
        Ok(())
    }

    /// The builder's error at the line (row) it names.
    fn qrels_error(&self, error: QrelsError) -> SubtopicFileError {
        let at = match &error {
            QrelsError::ConflictingGrades { second, .. } => Some(*second),
            QrelsError::InvalidGrade { at, .. }
            | QrelsError::QueryNotUtf8 { at }
            | QrelsError::ListTooLarge { at } => Some(*at),
            _ => None,
        };
        let unit = if self.rows { "row" } else { "line" };
        let problem = error.to_string().replace("(at ", &format!("({unit} "));
        match at {
            Some(at) => self.error(at, column_of(&error, problem)),
            None => SubtopicFileError::File {
                path: self.name.clone(),
                problem,
            },
        }
    }

    /// Checks and adds a row of a table (its cells `query`, `subtopic`,
    /// `doc`, `grade`); the problem as a message.
    fn table_row(&mut self, at: RowAt, cells: &[Cell<'_>], source: Source) -> Result<(), String> {
        let number = match at {
            RowAt::Line(n) => n,
            RowAt::Row(n) => n,
        };
        self.rows = matches!(at, RowAt::Row(_));
        let [Some(query), Some(subtopic), Some(doc), Some(grade)] = cells else {
            return Err("a row needs a query, a subtopic, a doc and a grade".to_owned());
        };
        let query = checked_id(query, &source.name("query"))?;
        let subtopic = checked_id(subtopic, &source.name("subtopic"))?;
        let doc = checked_id(doc, &source.name("doc"))?;
        let grade = text::grade(grade, &source.name("grade"))?;
        self.push(number, query, subtopic, doc, grade)
            .map_err(|e| match e {
                SubtopicFileError::At { problem, .. } | SubtopicFileError::File { problem, .. } => {
                    problem
                }
                other => other.to_string(),
            })
    }

    /// The subtopic qrels, unless there is no judgement.
    fn finish(self) -> Result<SubtopicQrels, SubtopicFileError> {
        if self.count == 0 {
            return Err(SubtopicFileError::File {
                path: self.name.clone(),
                problem: "no judgement: subtopic qrels are rows `query subtopic doc grade`"
                    .to_owned(),
            });
        }
        let name = self.name;
        self.builder.finish().map_err(|e| SubtopicFileError::File {
            path: name,
            problem: e.to_string(),
        })
    }
}

/// The builder's message with the column it concerns.
fn column_of(error: &QrelsError, problem: String) -> String {
    match error {
        QrelsError::InvalidGrade { .. } => format!("column `grade`: {problem}"),
        QrelsError::QueryNotUtf8 { .. } => format!("column `query`: {problem}"),
        _ => problem,
    }
}

/// An id's text checked: not empty, no whitespace or control character
/// ([`check_id`](rankeval_core::check_id)), UTF-8. `what` names the column
/// or key.
fn checked_id<'b>(text: &'b [u8], what: &str) -> Result<&'b [u8], String> {
    if text.is_empty() {
        return Err(format!("{what} is empty"));
    }
    rankeval_core::check_id(text).map_err(|bad| format!("{what}: {bad}"))?;
    if std::str::from_utf8(text).is_err() {
        return Err(format!(
            "{what}: the id `{}` is not UTF-8 text",
            shorten_id(text)
        ));
    }
    Ok(text)
}
