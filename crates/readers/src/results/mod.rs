//! Per-query results read back: what `rankeval eval|run --format json
//! --per-query` writes (a JSON report), or a per-query Parquet table
//! (`query`, `run`, one float column per metric) as `rankeval_rs.spark`
//! writes it (a file, or a directory of part files). Each run becomes a
//! [`RunResults`]: its name, its metrics, its queries in byte order and one
//! column of values per metric; the library compares with them (a
//! baseline) or renders them (`rankeval report`).
//!
//! Of a JSON file, only `runs[].name` and `runs[].per_query` are read
//! (`{metric: {query: value}}`; `null`, which the writer prints for NaN,
//! reads as NaN; values parsed back to the same bits); every other key is
//! ignored, so a file written by a later rankeval with more keys still
//! reads. Every input is read within the limits of an input read whole
//! ([`read_whole`](crate::read_whole)); ids follow the one id rule
//! ([`check_id`](rankeval_core::check_id)), metric names hold no control
//! character, and a run, metric or query given twice is an error.

mod input;
mod json;
mod parquet;

use std::collections::HashSet;
use std::path::Path;

use rankeval_core::shorten_id;

use input::ResultsInput;

/// The per-query results of one run, read from a results file.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResults {
    /// The run's name in the file.
    pub name: String,
    /// The file, as named by the user.
    pub source: String,
    /// The metrics' canonical names, in the order of `per_query`.
    pub metrics: Vec<String>,
    /// The queries, in byte order of their ids.
    pub queries: Vec<String>,
    /// `per_query[m][q]`: metric `m` on query `q`.
    pub per_query: Vec<Vec<f64>>,
}

impl RunResults {
    /// The results on the queries in `queries` only (a group's).
    pub fn restricted(&self, queries: &HashSet<&str>) -> Self {
        let rows: Vec<usize> = self
            .queries
            .iter()
            .enumerate()
            .filter(|(_, q)| queries.contains(q.as_str()))
            .map(|(i, _)| i)
            .collect();
        self.select(&rows)
    }

    /// The same results on the queries at `rows` (indexes into
    /// [`queries`](Self::queries), in the order given): what
    /// [`restricted`](Self::restricted) keeps, at the cost of the rows
    /// alone, for a caller that has found them (each of many groups).
    pub fn select(&self, rows: &[usize]) -> Self {
        Self {
            name: self.name.clone(),
            source: self.source.clone(),
            metrics: self.metrics.clone(),
            queries: rows.iter().map(|&i| self.queries[i].clone()).collect(),
            per_query: self
                .per_query
                .iter()
                .map(|c| rows.iter().map(|&i| c[i]).collect())
                .collect(),
        }
    }

    /// The per-query column of `metric`, if the file has it.
    pub fn column(&self, metric: &str) -> Option<&[f64]> {
        self.metrics
            .iter()
            .position(|m| m == metric)
            .map(|m| self.per_query[m].as_slice())
    }
}

/// Why a results file could not be read: the file, and what is wrong with
/// it (naming the run, metric, query, line or row where there is one).
/// The caller says what the file was to it (a baseline, the results of a
/// report) when it shows the error.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct ResultsError {
    /// The file (or directory), as named by the user.
    pub path: String,
    /// What is wrong.
    pub reason: String,
}

/// The error for `reason` about the file `path`.
fn error(path: &str) -> impl Fn(String) -> ResultsError + '_ {
    move |reason| ResultsError {
        path: path.to_owned(),
        reason,
    }
}

/// Reads the run `run` (or the file's only run, when `None`) from the
/// results file at `path`: a JSON report, or a per-query Parquet table (a
/// file, or a directory of part files). Read within the limits of an input
/// read whole (a pipe or `/dev/zero` ends in an error naming it).
pub fn read_run(path: &Path, run: Option<&str>) -> Result<RunResults, ResultsError> {
    let source = path.display().to_string();
    let problem = error(&source);
    match input::load(path).map_err(&problem)? {
        ResultsInput::Parquet(parts) => parquet::read(&source, &parts, run).map_err(problem),
        ResultsInput::Json(bytes) => json::one_run(&bytes, &source, run).map_err(problem),
    }
}

/// [`read_run`] of a JSON report's text; `source` names it in errors.
pub fn parse_json_run(
    text: &str,
    source: &str,
    run: Option<&str>,
) -> Result<RunResults, ResultsError> {
    json::one_run(text.as_bytes(), source, run).map_err(error(source))
}

/// Every run of the results file at `path` (a JSON report written with
/// `--format json --per-query`, or a per-query Parquet table), in the
/// file's order (byte order of their names for Parquet). Two runs of one
/// name are an error.
pub fn read_runs(path: &Path) -> Result<Vec<RunResults>, ResultsError> {
    let source = path.display().to_string();
    all_runs(input::load(path).map_err(error(&source))?, &source)
}

/// [`read_runs`] of bytes already read (a JSON report, or a Parquet file
/// when they start with `PAR1`); `source` names them in errors.
pub fn parse_runs(bytes: Vec<u8>, source: &str) -> Result<Vec<RunResults>, ResultsError> {
    all_runs(input::classify(bytes, source), source)
}

/// Every run of a results file's content.
fn all_runs(input: ResultsInput, source: &str) -> Result<Vec<RunResults>, ResultsError> {
    match input {
        ResultsInput::Parquet(parts) => parquet::read_all(source, &parts),
        ResultsInput::Json(bytes) => json::all_runs(&bytes, source),
    }
    .map_err(error(source))
}

/// Why `name` cannot be a metric's name in a results file (a JSON key, a
/// Parquet column), if it cannot: it is printed as a column header, so it
/// is not empty and holds no control character.
fn metric_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("a metric name cannot be empty".to_owned());
    }
    name.chars().find(|c| c.is_control()).map(|c| {
        format!(
            "the metric name `{}` contains U+{:04X}, a control character",
            shorten_id(name.as_bytes()),
            u32::from(c)
        )
    })
}
