//! Sampled runs: several rankings per query (a stochastic ranking policy),
//! the input of expected exposure (Diaz et al., CIKM 2020). Rows `query,
//! sample, doc, score`: expeval's `query sample doc rank` layout, in which
//! a TREC run's second column (`Q0`) names the sample.
//!
//! Formats, told apart by the file's name ([`Format::from_path`]) and, for
//! text, by the first line that is not blank:
//!
//! - TREC run lines whose second field is the sample:
//!   `query sample doc rank score [tag]`, separated by spaces or tabs;
//! - a CSV or TSV table whose header names `query`, `sample`, `doc` and
//!   `score` (or, without a score, `rank`: lower ranks first), in any
//!   order, others ignored, each once;
//! - JSON Lines, one object per row with those keys (a first line starting
//!   with `{`);
//! - a Parquet or Arrow IPC table with those columns: ids strings or
//!   integers (or a dictionary of them), `score` or `rank` numbers; no
//!   nulls.
//!
//! Each sample's list is ordered as every run's is (score descending, ties
//! by document id, or as [`ReadOptions::ties`] says) and checked for
//! repeated documents ([`ReadOptions::duplicates`]); expeval orders by the
//! rank field instead, so a TREC line's rank and score should agree. Every
//! input is read whole within the limits every reader shares
//! ([`read_whole`]); ids follow the one id rule. Each error names the file,
//! the line (text) or row (tables), the column or key, and the problem.

mod table;
#[cfg(test)]
mod tests;
mod text;

use std::path::Path;

use rankeval_core::{RunError, SampledRun, SampledRunBuilder, shorten_id};

use crate::{Format, Input, ReadOptions, RowAt, WholeInput, read_whole};

/// The columns (keys) of a sampled run's table; `rank` stands for `score`
/// in a table without one.
pub const COLUMNS: [&str; 4] = ["query", "sample", "doc", "score"];

/// Why a sampled run could not be read.
pub type SampledRunError = crate::row_file::RowFileError;

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
    let rows = match (input.format(), input.path()) {
        (Format::Parquet | Format::Arrow, _) => table::read(input)?,
        // A file is read within the limits every whole read keeps (size,
        // line length), as the other row files are.
        (_, Some(path)) => {
            let bytes = read_whole(path, WholeInput::TEXT)?;
            parse_rows(&bytes, input.name())?
        }
        _ => {
            let mut failed = None;
            let rows = input.with_all_bytes(WholeInput::TEXT, |bytes| {
                match parse_rows(bytes, input.name()) {
                    Ok(rows) => Ok(Some(rows)),
                    Err(e) => {
                        failed = Some(e);
                        Ok(None)
                    }
                }
            })?;
            match (rows, failed) {
                (Some(rows), _) => rows,
                (None, Some(e)) => return Err(e),
                (None, None) => Rows::new(input.name(), false),
            }
        }
    };
    rows.finish(options)
}

/// [`read_sampled_run`] on bytes in memory (gzip already read through);
/// `name` is the file errors name. Parquet and Arrow IPC are told by their
/// magic bytes.
pub fn parse_sampled_run(
    bytes: &[u8],
    name: &str,
    options: ReadOptions,
) -> Result<SampledRun, SampledRunError> {
    parse_rows(bytes, name)?.finish(options)
}

/// The rows of bytes: a table by its magic, else text.
fn parse_rows(bytes: &[u8], name: &str) -> Result<Rows, SampledRunError> {
    if bytes.starts_with(b"PAR1") {
        table::read(&Input::bytes(name, bytes, Format::Parquet))
    } else if bytes.starts_with(b"ARROW1") || bytes.starts_with(b"\xFF\xFF\xFF\xFF") {
        table::read(&Input::bytes(name, bytes, Format::Arrow))
    } else {
        text::parse(bytes, name)
    }
}

/// Entries read, checked and added to the builder, with where each was
/// read.
struct Rows {
    name: String,
    /// Numbered as rows of a table, not lines.
    rows: bool,
    builder: SampledRunBuilder,
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

/// A score from a table's `score` or `rank` column: a rank `r` scores
/// `-r`, so that lower ranks come first. A rank must be a finite number.
fn ordered(value: f64, by_rank: bool) -> Result<f64, String> {
    if by_rank {
        if !value.is_finite() {
            return Err(format!("column `rank`: {value} is not a rank"));
        }
        Ok(-value)
    } else {
        Ok(value)
    }
}
