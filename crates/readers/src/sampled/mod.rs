//! Sampled runs: several rankings per query (a stochastic ranking policy),
//! the input of expected exposure (Diaz et al., CIKM 2020). Rows `query,
//! sample, doc, score`: expeval's `query sample doc rank` layout, in which
//! a TREC run's second column (`Q0`) names the sample.
//!
//! Formats, told apart by the file's name ([`Format::from_path`]) and, for
//! text, by the first line that is not blank:
//!
//! - TREC run lines whose second field is the sample:
//!   `query sample doc rank score [tag]`, separated by spaces or tabs (the
//!   rank field must be a number; the score orders);
//! - a CSV or TSV table whose header names `query`, `sample`, `doc` and
//!   `score` (or, without a score, `rank`), in any order, others ignored,
//!   each once;
//! - JSON Lines, one object per row with those keys (a first line starting
//!   with `{`);
//! - a Parquet or Arrow IPC table with those columns: ids strings or
//!   integers (or a dictionary of them), `score` or `rank` numbers; no
//!   nulls.
//!
//! The tables (CSV/TSV, JSON Lines, Parquet, Arrow; gzip in every text
//! format, Parquet's and Arrow's own compression) are read by the shared
//! reader of named-column tables (`row_table`): this module gives their
//! columns and checks each row, and reads the run lines itself (`text`).
//!
//! What orders a sample is one rule, [`order_value`]: the score if the row
//! has one, else the rank (`rank` stands in for `score`: a table or JSON
//! Lines row with both is ordered by its score, as a TREC line is). A
//! score is any number but NaN, as every run's (an infinite score orders
//! first or last); a rank `r` is ordered as the score `-r` (lower ranks
//! first), and must be finite and less than 2^53 in size, from which on two
//! integer ranks can be one number and would silently tie (rank 0 and
//! negative ranks are ordered as numbers).
//!
//! Each sample's list is ordered as every run's is (score descending, ties
//! by document id, or as [`ReadOptions::ties`] says) and checked for
//! repeated documents ([`ReadOptions::duplicates`]); expeval orders by the
//! rank field instead, so a TREC line's rank and score should agree. Every
//! input is read whole within the limits every reader shares
//! ([`read_whole`](crate::read_whole)); ids follow the one id rule
//! ([`check_id`](rankeval_core::check_id)) and must be UTF-8. Each error
//! names the file, the line (text) or row (tables), the column or key, and
//! the problem.

#[cfg(test)]
mod tests;
mod text;

use std::path::Path;

use rankeval_core::{RunError, SampledRun, SampledRunBuilder, shorten_id};

use crate::row_table::{
    Cell, Column, Kind, LinesOrTable, Source, parse_lines_or_table, read_input_lines_or_table,
};
use crate::{Input, ReadOptions, RowAt};

/// The columns (keys) of a sampled run's table; `rank` stands for `score`
/// in a table without one.
pub const COLUMNS: [&str; 4] = ["query", "sample", "doc", "score"];

/// Why a sampled run could not be read.
pub type SampledRunError = crate::row_file::RowFileError;

/// The columns of a table of sampled rankings, in the order of a row's
/// cells: `rank` is read only when there is no `score`.
const TABLE: [Column; 5] = [
    Column {
        name: "query",
        kind: Kind::Id,
        optional: false,
        instead_of: None,
    },
    Column {
        name: "sample",
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
        name: "score",
        kind: Kind::Number,
        optional: false,
        instead_of: None,
    },
    Column {
        name: "rank",
        kind: Kind::Number,
        optional: true,
        instead_of: Some("score"),
    },
];

/// The size from which a rank is refused (2^53): from there on not every
/// integer is a distinct `f64`, so two ranks could be one number and tie.
const RANK_LIMIT: f64 = 9_007_199_254_740_992.0;

/// Reads a sampled run (see the module). A file without a row is an
/// error.
pub fn read_sampled_run(path: &Path, options: ReadOptions) -> Result<SampledRun, SampledRunError> {
    read_sampled_input(&Input::file(path), options)
}

/// [`read_sampled_run`] from any input (a file, standard input, bytes):
/// read whole within the shared limits, a table by its format.
pub fn read_sampled_input(
    input: &Input,
    options: ReadOptions,
) -> Result<SampledRun, SampledRunError> {
    read_input_lines_or_table::<Rows>(input)?.finish(options)
}

/// [`read_sampled_run`] on bytes in memory (gzip already read through);
/// `name` is the file errors name. Parquet and Arrow IPC are told by their
/// magic bytes.
pub fn parse_sampled_run(
    bytes: &[u8],
    name: &str,
    options: ReadOptions,
) -> Result<SampledRun, SampledRunError> {
    parse_lines_or_table::<Rows>(bytes, name)?.finish(options)
}

/// Entries read, checked and added to the builder, with where each was
/// read.
struct Rows {
    name: String,
    /// Numbered as rows of a table, not lines.
    rows: bool,
    builder: SampledRunBuilder,
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

    fn parse_lines(bytes: &[u8], name: &str) -> Result<Self, SampledRunError> {
        text::parse(bytes, name)
    }
}

impl Rows {
    /// No rows yet, of the file `name`.
    fn new(name: &str, rows: bool) -> Self {
        Rows {
            name: name.to_owned(),
            rows,
            builder: SampledRunBuilder::new(),
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
    fn error(&self, number: u64, problem: String) -> SampledRunError {
        SampledRunError::At {
            path: self.name.clone(),
            at: self.at(number),
            problem,
        }
    }

    /// Adds an entry read at `number` (ids checked by [`checked_id`]).
    fn push(
        &mut self,
        number: u64,
        query: &[u8],
        sample: &[u8],
        doc: &[u8],
        score: f64,
    ) -> Result<(), SampledRunError> {
        self.builder
            .push(query, sample, doc, score, number)
            .map_err(|e| self.run_error(e))
    }

    /// Checks and adds a row of a table (its cells `query`, `sample`,
    /// `doc`, `score`, `rank`); the problem as a message.
    fn table_row(&mut self, at: RowAt, cells: &[Cell<'_>], source: Source) -> Result<(), String> {
        let number = match at {
            RowAt::Line(n) | RowAt::Row(n) => n,
        };
        self.rows = matches!(at, RowAt::Row(_));
        let cell = |i: usize| cells.get(i).and_then(Option::as_deref);
        let id = |i: usize, column: &str| match cell(i) {
            Some(text) => checked_id(text, || source.name(column)),
            None => Err(format!("{}: no value", source.name(column))),
        };
        let (query, sample, doc) = (id(0, "query")?, id(1, "sample")?, id(2, "doc")?);
        let score = order_value(cell(3), cell(4), source)?;
        self.push(number, query, sample, doc, score)
            .map_err(|e| match e {
                SampledRunError::At { problem, .. } | SampledRunError::File { problem, .. } => {
                    problem
                }
                other => other.to_string(),
            })
    }

    /// The builder's error at the line (row) it names.
    fn run_error(&self, error: RunError) -> SampledRunError {
        let at = match &error {
            RunError::DuplicateDoc { second, .. } => Some(*second),
            RunError::NanScore { at, .. }
            | RunError::QueryNotUtf8 { at }
            | RunError::ListTooLarge { at } => Some(*at),
            _ => None,
        };
        let unit = if self.rows { "row" } else { "line" };
        let problem = error.to_string().replace("(at ", &format!("({unit} "));
        match at {
            Some(at) => self.error(at, problem),
            None => SampledRunError::File {
                path: self.name.clone(),
                problem,
            },
        }
    }

    /// The sampled run, unless there is no row.
    fn finish(self, options: ReadOptions) -> Result<SampledRun, SampledRunError> {
        if self.builder.is_empty() {
            return Err(SampledRunError::File {
                path: self.name.clone(),
                problem: "no row: a sampled run is rows `query sample doc rank score [tag]`"
                    .to_owned(),
            });
        }
        let (name, rows) = (self.name.clone(), self.rows);
        self.builder
            .finish(options.duplicates, options.ties)
            .map_err(|e| {
                Rows {
                    name,
                    rows,
                    builder: SampledRunBuilder::new(),
                }
                .run_error(e)
            })
    }
}

/// An id's text checked: not empty, no whitespace or control character
/// ([`check_id`](rankeval_core::check_id)), UTF-8. `what` names the column,
/// key or field (made only for a message).
fn checked_id(text: &[u8], what: impl FnOnce() -> String) -> Result<&[u8], String> {
    if text.is_empty() {
        return Err(format!("{} is empty", what()));
    }
    if let Err(bad) = rankeval_core::check_id(text) {
        return Err(format!("{}: {bad}", what()));
    }
    if std::str::from_utf8(text).is_err() {
        return Err(format!(
            "{}: the id `{}` is not UTF-8 text",
            what(),
            shorten_id(text)
        ));
    }
    Ok(text)
}

/// A number's text; `what` names the column, key or field (made only for
/// a message).
fn number(text: &[u8], what: impl FnOnce() -> String) -> Result<f64, String> {
    let text = text.trim_ascii();
    std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .ok_or_else(|| format!("{} `{}`: not a number", what(), shorten_id(text)))
}

/// What orders a row in its sample, the one rule of every format: its
/// `score` if it has one, else its `rank` `r` as the score `-r` (lower
/// ranks first; finite and less than 2^53 in size). `source` names the
/// column or key in the message.
fn order_value(score: Option<&[u8]>, rank: Option<&[u8]>, source: Source) -> Result<f64, String> {
    match (score, rank) {
        (Some(score), _) => number(score, || source.name("score")),
        (None, Some(rank)) => {
            let what = || source.name("rank");
            let value = number(rank, what)?;
            if !value.is_finite() {
                return Err(format!("{}: {value} is not a rank", what()));
            }
            if value.abs() >= RANK_LIMIT {
                return Err(format!(
                    "{}: {} is 2^53 or more in size, where ranks are no longer told apart",
                    what(),
                    shorten_id(rank.trim_ascii())
                ));
            }
            Ok(-value)
        }
        (None, None) => Err(format!(
            "no {} (or {})",
            source.name("score"),
            source.name("rank")
        )),
    }
}
