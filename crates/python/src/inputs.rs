//! Qrels and runs from what Python users have: files (read as the command
//! line reads them), dicts of dicts (as ranx and pytrec_eval take them) and
//! table columns (pandas, pyarrow), into the core model.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use numpy::PyReadonlyArray1;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyString};
use rankeval::benchmarks::irds;
use rankeval::read::arrow_array::RecordBatch;
use rankeval::read::{QrelsNote, read_qrels_noted};
use rankeval::report::ReportWarning;
use rankeval::{CsvOptions, Format, Input, ReadOptions};
use rankeval_core::{
    Duplicates, Id, Qrels, QrelsBuilder, QrelsError, Run, RunBuilder, RunError, Ties,
};
use rayon::prelude::*;

use crate::columns::IdColumn;
use crate::errors::{qrels_error, read_error, run_error};
use crate::fingerprint::fingerprint;
use crate::options::ties as parse_ties;

/// Rows per task when a table is read in parallel.
const ROWS_PER_TASK: usize = 1 << 16;

/// Relevance judgements, read once and evaluated against any number of runs.
#[pyclass(name = "Qrels", module = "rankeval_rs", frozen)]
pub struct PyQrels {
    /// The judgements.
    pub qrels: Arc<Qrels>,
    /// What every evaluation on these judgements warns of, as the command
    /// line does when it reads them (a table without its grade column).
    pub warning: Option<ReportWarning>,
    /// Their fingerprint, computed the first time it is needed.
    fingerprint: OnceLock<u64>,
    /// The ir_datasets id they were read as (`"irds:<id>"`), if they were:
    /// the benchmark `official=True` evaluates.
    pub benchmark: Option<String>,
}

impl From<Qrels> for PyQrels {
    fn from(qrels: Qrels) -> Self {
        Self {
            qrels: Arc::new(qrels),
            warning: None,
            fingerprint: OnceLock::new(),
            benchmark: None,
        }
    }
}

impl PyQrels {
    /// Qrels read from the input called `name`, with the reader's `note`
    /// about them kept as the warning the command line gives.
    pub fn noted(qrels: Qrels, name: &str, note: Option<QrelsNote>) -> Self {
        Self {
            warning: note.map(|note| ReportWarning::of_qrels(name, note)),
            ..Self::from(qrels)
        }
    }

    /// The fingerprint of the judgements (see [`fingerprint`]), computed
    /// once per `Qrels` object.
    pub fn fingerprint(&self) -> u64 {
        *self.fingerprint.get_or_init(|| fingerprint(&self.qrels))
    }
}

/// Where a run comes from: built in memory, or a file read while it is
/// evaluated (as the command line does, without holding it whole).
// One per Python `Run` object: the size of the file variant costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum RunSource {
    /// A run built from Python data.
    Memory(Arc<Run>),
    /// A file, read when evaluated.
    File {
        /// The file, its format and CSV columns.
        input: Input,
        /// The duplicates policy.
        read: ReadOptions,
    },
    /// An Arrow table (the producer's buffers, not copied), read when
    /// evaluated: a table grouped by query is scored query by query while
    /// it is read, without building the whole run.
    Table(TableRun),
}

impl RunSource {
    /// What messages call the run's data: its file, its table's name, or
    /// `fallback` (the run's name) for Python data.
    pub fn name<'a>(&'a self, fallback: &'a str) -> &'a str {
        match self {
            RunSource::Memory(_) => fallback,
            RunSource::File { input, .. } => input.name(),
            RunSource::Table(table) => &table.name,
        }
    }
}

/// An Arrow table kept to be evaluated while it is read; see
/// [`RunSource::Table`].
pub struct TableRun {
    /// What errors call it.
    pub name: String,
    /// The record batches, in order, sliced for parallel reading.
    pub batches: Vec<RecordBatch>,
    /// The column names.
    pub columns: CsvOptions,
    /// The duplicates policy.
    pub read: ReadOptions,
}

/// A run: one ranked list per query.
#[pyclass(name = "Run", module = "rankeval_rs", frozen)]
pub struct PyRun {
    /// Where it comes from.
    pub source: RunSource,
    /// How tied scores were ordered when a run in memory was converted
    /// (`input`: as given; else by document id); a file is ordered as the
    /// evaluation asks when it is read.
    pub ties: Ties,
}

#[pymethods]
impl PyQrels {
    /// The number of judged queries.
    #[getter]
    fn num_queries(&self) -> usize {
        self.qrels.num_queries()
    }

    /// The number of judgements.
    #[getter]
    fn num_judgements(&self) -> usize {
        self.qrels.num_judgements()
    }

    /// Whether `other` holds the same judgements (the same object, or equal
    /// fingerprints: see [`fingerprint`]); computed only when asked, so
    /// that evaluating never pays for it.
    fn same_judgements(&self, py: Python<'_>, other: &Bound<'_, PyQrels>) -> bool {
        let other = other.get();
        Arc::ptr_eq(&self.qrels, &other.qrels)
            || py.detach(|| self.fingerprint() == other.fingerprint())
    }

    fn __repr__(&self) -> String {
        format!(
            "Qrels({} queries, {} judgements)",
            self.qrels.num_queries(),
            self.qrels.num_judgements()
        )
    }
}

#[pymethods]
impl PyRun {
    /// The file the run is read from, or `None` for a run in memory.
    #[getter]
    fn file(&self) -> Option<String> {
        match &self.source {
            RunSource::File { input, .. } => Some(input.name().to_owned()),
            RunSource::Memory(_) | RunSource::Table(_) => None,
        }
    }

    fn __repr__(&self) -> String {
        match &self.source {
            RunSource::Memory(run) => format!(
                "Run({} queries, {} entries)",
                run.num_queries(),
                run.num_entries()
            ),
            RunSource::File { input, .. } => format!("Run(file={:?})", input.name()),
            RunSource::Table(table) => format!(
                "Run(table, {} rows)",
                table.batches.iter().map(|b| b.num_rows()).sum::<usize>()
            ),
        }
    }
}

/// `"error"` or `"first"`.
pub fn duplicates(value: &str) -> PyResult<Duplicates> {
    match value {
        "error" => Ok(Duplicates::Error),
        "first" => Ok(Duplicates::First),
        other => Err(PyValueError::new_err(format!(
            "duplicates={other:?}: expected \"error\" or \"first\""
        ))),
    }
}

/// A file input as the command line makes it: the format from the name
/// unless given, CSV columns and delimiter applied to CSV files.
#[allow(clippy::too_many_arguments)]
fn file_input(
    path: PathBuf,
    format: Option<&str>,
    query: String,
    doc: String,
    score: String,
    rank: String,
    grade: String,
    delimiter: Option<char>,
) -> PyResult<Input> {
    if !path.is_file() {
        let problem = if path.exists() {
            "is not a file"
        } else {
            "no such file"
        };
        return Err(crate::errors::located::<crate::errors::InputError>(
            Some(&path.display().to_string()),
            None,
            problem,
        ));
    }
    let input = Input::file(&path);
    let input = match format {
        None => input,
        Some("trec") => input.with_format(Format::Trec),
        Some("jsonl") => input.with_format(Format::Jsonl),
        Some("csv") => input.with_format(Format::Csv),
        Some("parquet") => input.with_format(Format::Parquet),
        Some("arrow") => input.with_format(Format::Arrow),
        Some("msmarco") => input.with_format(Format::Msmarco),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "format={other:?}: expected \"trec\", \"jsonl\", \"csv\", \"parquet\", \"arrow\" or \"msmarco\""
            )));
        }
    };
    if !matches!(
        input.format(),
        Format::Csv | Format::Parquet | Format::Arrow
    ) {
        return Ok(input);
    }
    let csv = CsvOptions {
        query,
        doc,
        score,
        rank,
        grade,
        delimiter,
        ..CsvOptions::default()
    };
    csv.check().map_err(PyValueError::new_err)?;
    Ok(input.with_columns(csv))
}

/// Reads qrels from a file (TREC, JSON Lines, CSV, Parquet or Arrow IPC).
#[pyfunction]
#[pyo3(signature = (path, format, query, doc, score, rank, grade, delimiter, fetch=false))]
#[allow(clippy::too_many_arguments)]
pub fn qrels_from_file(
    py: Python<'_>,
    path: PathBuf,
    format: Option<&str>,
    query: String,
    doc: String,
    score: String,
    rank: String,
    grade: String,
    delimiter: Option<char>,
    fetch: bool,
) -> PyResult<PyQrels> {
    // `irds:<id>`: ir_datasets' cached qrels, in the format it keeps them
    // (`fetch`: filled by ir_datasets when missing, as `--fetch`).
    let (input, benchmark) = match path.to_str().and_then(|text| irds::cached(text, fetch)) {
        Some(cached) => {
            let cached = cached.map_err(|e| {
                crate::errors::located::<crate::errors::InputError>(
                    Some(&path.display().to_string()),
                    None,
                    &e.to_string(),
                )
            })?;
            (cached.input, Some(cached.benchmark.id.clone()))
        }
        None => (
            file_input(path, format, query, doc, score, rank, grade, delimiter)?,
            None,
        ),
    };
    let (qrels, note) = py
        .detach(|| read_qrels_noted(&input, &|_| {}))
        .map_err(|e| read_error(&e))?;
    Ok(PyQrels {
        benchmark,
        ..PyQrels::noted(qrels, input.name(), note)
    })
}

/// A run file (TREC, JSON Lines, CSV, Parquet or Arrow IPC), read when it
/// is evaluated.
#[pyfunction]
#[pyo3(signature = (path, format, query, doc, score, rank, grade, delimiter, duplicates, ties="docid"))]
#[allow(clippy::too_many_arguments)]
pub fn run_from_file(
    path: PathBuf,
    format: Option<&str>,
    query: String,
    doc: String,
    score: String,
    rank: String,
    grade: String,
    delimiter: Option<char>,
    duplicates: &str,
    ties: &str,
) -> PyResult<PyRun> {
    let ties = parse_ties(ties)?;
    let read = ReadOptions {
        duplicates: self::duplicates(duplicates)?,
        ties,
    };
    let input = file_input(path, format, query, doc, score, rank, grade, delimiter)?;
    Ok(PyRun {
        source: RunSource::File { input, read },
        ties,
    })
}

/// `value` as a number, or a `TypeError` naming the input, the query, the
/// document and what `value` is (a grade or a score).
fn number(
    value: &Bound<'_, PyAny>,
    what: &str,
    doc: &Bound<'_, PyAny>,
    query: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<f64> {
    let repr = |o: &Bound<'_, PyAny>| o.repr().map(|r| r.to_string()).unwrap_or_default();
    value.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name}: the {what} of document {} in query {} must be a number, found {}",
            repr(doc),
            repr(query),
            repr(value),
        ))
    })
}

/// Calls `f` with the bytes of a `str` or `int` id.
fn with_id<R>(object: &Bound<'_, PyAny>, what: &str, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    if let Ok(text) = object.cast::<PyString>() {
        Ok(f(text.to_str()?.as_bytes()))
    } else if object.is_instance_of::<PyInt>() {
        let value: i64 = object.extract()?;
        Ok(value.with_bytes(f))
    } else {
        Err(PyTypeError::new_err(format!(
            "{what} ids must be str or int, found {} `{}`",
            object.get_type().name()?,
            object.repr()?
        )))
    }
}

/// Qrels from `{query: {doc: grade}}` (or `{query: [doc, ...]}`, grade 1),
/// called `name` in errors; lines in errors count judgements from 1.
#[pyfunction]
pub fn qrels_from_dict(judgements: &Bound<'_, PyDict>, name: &str) -> PyResult<PyQrels> {
    let mut builder = QrelsBuilder::new();
    let mut at = 0u64;
    let failed = |e: QrelsError| qrels_error(name, &e);
    for (query, docs) in judgements.iter() {
        with_id(&query, "query", |q| -> PyResult<()> {
            at = at.saturating_add(1);
            builder.declare_query(q, at).map_err(failed)?;
            if let Ok(graded) = docs.cast::<PyDict>() {
                for (doc, grade) in graded.iter() {
                    let grade = number(&grade, "grade", &doc, &query, name)?;
                    at = at.saturating_add(1);
                    with_id(&doc, "document", |d| builder.push_at(q, d, grade, at))?
                        .map_err(failed)?;
                }
            } else if let Ok(listed) = docs.cast::<PyList>() {
                for doc in listed.iter() {
                    at = at.saturating_add(1);
                    with_id(&doc, "document", |d| builder.push_at(q, d, 1.0, at))?
                        .map_err(failed)?;
                }
            } else {
                return Err(PyTypeError::new_err(format!(
                    "{name}: the judgements of query {} must be a dict {{doc: grade}} or a list of docs",
                    query.repr()?
                )));
            }
            Ok(())
        })??;
    }
    let qrels = builder.finish().map_err(failed)?;
    Ok(PyQrels::from(qrels))
}

/// A run from `{query: {doc: score}}` or `{query: [doc, ...]}` (ranked,
/// best first), called `name` in errors.
#[pyfunction]
#[pyo3(signature = (lists, name, duplicates, ties="docid"))]
pub fn run_from_dict(
    lists: &Bound<'_, PyDict>,
    name: &str,
    duplicates: &str,
    ties: &str,
) -> PyResult<PyRun> {
    let duplicates = self::duplicates(duplicates)?;
    let ties = parse_ties(ties)?;
    let mut builder = RunBuilder::new();
    let mut at = 0u64;
    let failed = |e: RunError| run_error(name, &e);
    for (query, docs) in lists.iter() {
        with_id(&query, "query", |q| -> PyResult<()> {
            at = at.saturating_add(1);
            if let Ok(scored) = docs.cast::<PyDict>() {
                builder.declare_query(q, false, at).map_err(failed)?;
                for (doc, score) in scored.iter() {
                    let score = number(&score, "score", &doc, &query, name)?;
                    at = at.saturating_add(1);
                    with_id(&doc, "document", |d| {
                        builder.push_scored_at(q, d, score, at)
                    })?
                    .map_err(failed)?;
                }
            } else if let Ok(listed) = docs.cast::<PyList>() {
                builder.declare_query(q, true, at).map_err(failed)?;
                for doc in listed.iter() {
                    at = at.saturating_add(1);
                    with_id(&doc, "document", |d| builder.push_ranked_at(q, d, at))?
                        .map_err(failed)?;
                }
            } else {
                return Err(PyTypeError::new_err(format!(
                    "{name}: the list of query {} must be a dict {{doc: score}} or a list of docs, best first",
                    query.repr()?
                )));
            }
            Ok(())
        })??;
    }
    let run = builder.finish_with(duplicates, ties).map_err(failed)?;
    Ok(PyRun {
        source: RunSource::Memory(Arc::new(run)),
        ties,
    })
}

/// Checks that every column has `rows` rows.
fn same_length(columns: &[(&str, usize)]) -> PyResult<usize> {
    let rows = columns.first().map_or(0, |c| c.1);
    match columns.iter().find(|c| c.1 != rows) {
        Some((name, len)) => Err(PyValueError::new_err(format!(
            "column `{name}` has {len} rows, column `{}` {rows}",
            columns[0].0
        ))),
        None => Ok(rows),
    }
}

/// Row ranges of at most [`ROWS_PER_TASK`] rows.
fn tasks(rows: usize) -> Vec<(usize, usize)> {
    (0..rows)
        .step_by(ROWS_PER_TASK)
        .map(|start| (start, (start + ROWS_PER_TASK).min(rows)))
        .collect()
}

/// The 1-based position of `row`, as errors name it.
fn position(row: usize) -> u64 {
    u64::try_from(row).map_or(u64::MAX, |row| row.saturating_add(1))
}

/// Qrels from columns of equal length (grade 1 where `grade` is `None`),
/// read in parallel with the GIL released; errors name `name` and the
/// 1-based row.
#[pyfunction]
#[pyo3(signature = (name, query_name, query, doc_name, doc, grade_name, grade, columns))]
#[allow(clippy::too_many_arguments)]
pub fn qrels_from_columns<'py>(
    py: Python<'py>,
    name: &str,
    query_name: &str,
    query: &Bound<'py, PyAny>,
    doc_name: &str,
    doc: &Bound<'py, PyAny>,
    grade_name: &str,
    grade: Option<PyReadonlyArray1<'py, f64>>,
    columns: Vec<String>,
) -> PyResult<PyQrels> {
    let query = IdColumn::extract(query, query_name)?;
    let doc = IdColumn::extract(doc, doc_name)?;
    let mut lengths = vec![(query_name, query.len()), (doc_name, doc.len())];
    if let Some(grade) = &grade {
        lengths.push((grade_name, grade.len()?));
    }
    let rows = same_length(&lengths)?;
    let (queries, docs) = (query.ids()?, doc.ids()?);
    let grades = match &grade {
        Some(g) => Some(
            g.as_slice()
                .map_err(|e| PyValueError::new_err(e.to_string()))?,
        ),
        None => None,
    };
    let built = py.detach(|| {
        let parts: Vec<Result<QrelsBuilder, QrelsError>> = tasks(rows)
            .into_par_iter()
            .map(|(start, end)| {
                let mut builder = QrelsBuilder::with_capacity(end - start, (end - start) * 8);
                for row in start..end {
                    let grade = grades.map_or(1.0, |g| g[row]);
                    queries.with(row, |q| {
                        docs.with(row, |d| builder.push_at(q, d, grade, position(row)))
                    })?;
                }
                Ok(builder)
            })
            .collect();
        let mut joined = QrelsBuilder::new();
        for part in parts {
            joined.append(part?, 0);
        }
        joined.finish()
    });
    let qrels = built.map_err(|e| qrels_error(name, &e))?;
    let note = if grades.is_none() {
        let options = CsvOptions {
            query: query_name.to_owned(),
            doc: doc_name.to_owned(),
            grade: grade_name.to_owned(),
            ..CsvOptions::default()
        };
        QrelsNote::no_grade_column(&options, columns)
    } else {
        None
    };
    Ok(PyQrels::noted(qrels, name, note))
}

/// A run from columns of equal length, ordered by `score` (descending,
/// ties by document id descending) or, without scores, by `rank`
/// (ascending, ties as for scores), as a CSV run; read in parallel with the
/// GIL released. Errors name `name` and the 1-based row.
#[pyfunction]
#[pyo3(signature = (name, query_name, query, doc_name, doc, order_name, order, by_rank, duplicates, ties="docid"))]
#[allow(clippy::too_many_arguments)]
pub fn run_from_columns<'py>(
    py: Python<'py>,
    name: &str,
    query_name: &str,
    query: &Bound<'py, PyAny>,
    doc_name: &str,
    doc: &Bound<'py, PyAny>,
    order_name: &str,
    order: PyReadonlyArray1<'py, f64>,
    by_rank: bool,
    duplicates: &str,
    ties: &str,
) -> PyResult<PyRun> {
    let duplicates = self::duplicates(duplicates)?;
    let ties = parse_ties(ties)?;
    let query = IdColumn::extract(query, query_name)?;
    let doc = IdColumn::extract(doc, doc_name)?;
    let rows = same_length(&[
        (query_name, query.len()),
        (doc_name, doc.len()),
        (order_name, order.len()?),
    ])?;
    let (queries, docs) = (query.ids()?, doc.ids()?);
    let order = order
        .as_slice()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let built = py.detach(|| {
        let parts: Vec<Result<RunBuilder, RunError>> = tasks(rows)
            .into_par_iter()
            .map(|(start, end)| {
                let mut builder = RunBuilder::with_capacity(end - start, (end - start) * 8);
                for (row, &value) in order.iter().enumerate().take(end).skip(start) {
                    // A rank is stored as the score -rank, as the CSV reader does.
                    let score = if by_rank { -value } else { value };
                    queries.with(row, |q| {
                        docs.with(row, |d| builder.push_scored_at(q, d, score, position(row)))
                    })?;
                }
                Ok(builder)
            })
            .collect();
        let mut joined = RunBuilder::new();
        for part in parts {
            joined.append(part?, 0);
        }
        joined.finish_with(duplicates, ties)
    });
    let run = built.map_err(|e| run_error(name, &e))?;
    Ok(PyRun {
        source: RunSource::Memory(Arc::new(run)),
        ties,
    })
}
