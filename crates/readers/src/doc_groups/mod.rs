//! Document groups, the input of the group-fairness metrics (group
//! exposure, AWRF: TREC Fair Ranking 2021-2022): rows `doc, group[,
//! weight]`, a document's membership in a group, with its weight
//! (alignment; 1 when not given).
//!
//! Formats, told apart by the file's name ([`Format::from_path`]) and, for
//! text, by the first line that is not blank:
//!
//! - lines of two or three fields separated by spaces or tabs,
//!   `doc group [weight]`, no header (as TREC qrels are written);
//! - a CSV or TSV table whose header names the columns `doc` and `group`
//!   and, optionally, `weight` (in any order, others ignored, each once),
//!   split on tabs if the header has one, else on commas, fields quoted as
//!   the CSV reader reads them ([`split_csv_line`](crate::split_csv_line));
//! - JSON Lines, one object per row with the keys `doc`, `group` and,
//!   optionally, `weight` (a first line starting with `{`);
//! - a Parquet or Arrow IPC table (`.parquet`, `.pq`; `.arrow`, `.arrows`,
//!   `.feather`, `.ipc`) with those columns: ids strings or integers (or a
//!   dictionary of them), the weight numbers; no nulls.
//!
//! The tables (CSV/TSV, JSON Lines, Parquet, Arrow) are read by the
//! shared reader of named-column tables (`row_table`);
//! this module gives their columns and checks each row, and reads the
//! lines of fields itself (`text`).
//!
//! Every input is read whole within the limits every reader shares
//! ([`read_whole`]); ids follow the one id rule
//! ([`check_id`](rankeval_core::check_id)) and must be UTF-8; a weight is
//! a finite number >= 0. A row repeated with the same weight is kept once
//! and counted ([`DocumentGroups::repeats`]); with another weight it is an
//! error naming both lines. Each error names the file, the line (text) or
//! row (tables), the column or key, and the problem.

#[cfg(test)]
mod tests;
mod text;

use std::path::Path;

use rankeval_core::{DocGroupsError, DocumentGroups, DocumentGroupsBuilder, shorten_id};

use crate::RowAt;
use crate::row_table::{
    Cell, Column, Kind, LinesOrTable, Source, parse_lines_or_table, read_lines_or_table,
};

/// The columns (keys) of document groups, in the order of a row; the last,
/// `weight`, may be left out (weight 1).
pub const COLUMNS: [&str; 3] = ["doc", "group", "weight"];

/// Why document groups could not be read.
pub type DocGroupsFileError = crate::row_file::RowFileError;

/// The columns of a table of document groups.
const TABLE: [Column; 3] = [
    Column {
        name: "doc",
        kind: Kind::Id,
        optional: false,
        instead_of: None,
    },
    Column {
        name: "group",
        kind: Kind::Id,
        optional: false,
        instead_of: None,
    },
    Column {
        name: "weight",
        kind: Kind::Number,
        optional: true,
        instead_of: None,
    },
];

/// Reads document groups (see the module). A file without a row is an
/// error.
pub fn read_doc_groups(path: &Path) -> Result<DocumentGroups, DocGroupsFileError> {
    read_lines_or_table::<Rows>(path)?.finish()
}

/// [`read_doc_groups`] on bytes in memory (gzip already read through);
/// `name` is the file errors name. Parquet and Arrow IPC are told by their
/// magic bytes.
pub fn parse_doc_groups(bytes: &[u8], name: &str) -> Result<DocumentGroups, DocGroupsFileError> {
    parse_lines_or_table::<Rows>(bytes, name)?.finish()
}

/// Memberships read, checked and added to the builder, with where each was
/// read.
struct Rows {
    name: String,
    /// Numbered as rows of a table, not lines.
    rows: bool,
    builder: DocumentGroupsBuilder,
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

    fn parse_lines(bytes: &[u8], name: &str) -> Result<Self, DocGroupsFileError> {
        text::parse(bytes, name)
    }
}

impl Rows {
    /// No rows yet, of the file `name`.
    fn new(name: &str, rows: bool) -> Self {
        Rows {
            name: name.to_owned(),
            rows,
            builder: DocumentGroupsBuilder::new(),
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
    fn error(&self, number: u64, problem: String) -> DocGroupsFileError {
        DocGroupsFileError::At {
            path: self.name.clone(),
            at: self.at(number),
            problem,
        }
    }

    /// Adds a membership read at `number` (ids checked by [`checked_id`]).
    fn push(
        &mut self,
        number: u64,
        doc: &[u8],
        group: &[u8],
        weight: f64,
    ) -> Result<(), DocGroupsFileError> {
        self.builder
            .push(doc, group, weight, number)
            .map_err(|e| self.builder_error(e))?;
        self.count += 1;
        Ok(())
    }

    /// The builder's error at the line (row) it names.
    fn builder_error(&self, error: DocGroupsError) -> DocGroupsFileError {
        let unit = if self.rows { "row" } else { "line" };
        let problem = error.to_string().replace("(at ", &format!("({unit} "));
        match error {
            DocGroupsError::InvalidWeight { at, .. } => {
                self.error(at, format!("column `weight`: {problem}"))
            }
            DocGroupsError::ConflictingWeights { second, .. } => self.error(second, problem),
            DocGroupsError::TooLarge => DocGroupsFileError::File {
                path: self.name.clone(),
                problem,
            },
        }
    }

    /// Checks and adds a row of a table (its cells `doc`, `group`,
    /// `weight`); the problem as a message.
    fn table_row(&mut self, at: RowAt, cells: &[Cell<'_>], source: Source) -> Result<(), String> {
        let number = match at {
            RowAt::Line(n) => n,
            RowAt::Row(n) => n,
        };
        self.rows = matches!(at, RowAt::Row(_));
        let (Some(Some(doc)), Some(Some(group))) = (cells.first(), cells.get(1)) else {
            return Err("a row needs a doc and a group".to_owned());
        };
        let doc = checked_id(doc, &source.name("doc"))?;
        let group = checked_id(group, &source.name("group"))?;
        let weight = match cells.get(2) {
            Some(Some(text)) => text::weight(text, &source.name("weight"))?,
            _ => 1.0,
        };
        self.push(number, doc, group, weight).map_err(|e| match e {
            DocGroupsFileError::At { problem, .. } | DocGroupsFileError::File { problem, .. } => {
                problem
            }
            other => other.to_string(),
        })
    }

    /// The groups, unless there is no row.
    fn finish(self) -> Result<DocumentGroups, DocGroupsFileError> {
        if self.count == 0 {
            return Err(DocGroupsFileError::File {
                path: self.name.clone(),
                problem: "no row: document groups are rows `doc group [weight]`".to_owned(),
            });
        }
        let name = self.name;
        self.builder.finish().map_err(|e| DocGroupsFileError::File {
            path: name,
            problem: e.to_string(),
        })
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
