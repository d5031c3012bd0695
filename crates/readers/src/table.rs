//! Arrow record batches (from Parquet, Arrow IPC, or handed over in memory)
//! into the core builders.
//!
//! Two shapes of table are read, with the same column mapping as CSV
//! ([`CsvOptions`]):
//!
//! - **long**: one row per query and document, `query, doc, score` or
//!   `query, doc, rank` for a run, `query, doc[, grade]` for qrels;
//! - **list columns**: one row per query, the document column a list
//!   (`list<string>`, `list<int64>`, ...) and the score, rank or grade column,
//!   when there is one, a list of numbers of the same length (`user, items:
//!   list<string>, scores: list<double>`, what recommenders write). A list
//!   without scores or ranks is already ranked, best first; a query with an
//!   empty list was run and retrieved nothing.
//!
//! The shape follows the type of the document column. A column mapping that
//! is left at its default also finds the usual other names: the query in
//! `user` or `query`, documents in `item`, `items` or `doc`, scores in
//! `score` or `scores`, ranks in `rank` or `ranks`, grades in `grade` or
//! `grades`; a name set explicitly is the only one looked for.
//!
//! Ids may be any integer type (`int8` ... `uint64`), a string
//! (`utf8`, `large_utf8`, `utf8_view`) or a dictionary of those. Numbers
//! may be any integer or float type. A null, an empty id or an id with
//! whitespace or a control character is an error naming the row and column,
//! as are scores that are NaN. Rows are numbered from 1 across the whole
//! input, in order; errors give that number, where positions in TREC files
//! give line numbers.
//!
//! Batches are converted in parallel, each into its own builder, joined in
//! input order: the result does not depend on the number of threads. Ids
//! are handed to the builders as borrowed bytes (integers are formatted
//! into a stack buffer): nothing is allocated per row.

use std::borrow::Cow;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type,
    UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{
    Array, ArrayRef, GenericListArray, LargeStringArray, OffsetSizeTrait, PrimitiveArray,
    RecordBatch, StringArray, StringViewArray,
};
use arrow_schema::{DataType, Schema};
use rankeval_core::{Qrels, QrelsBuilder, QrelsError, Run, RunBuilder, RunError};
use rayon::prelude::*;

use super::csv::CsvOptions;
use super::error::{ReadError, ReadErrorKind, excerpt};
use super::grade::{grade_from_number, shown};
use super::stream::{ListScorer, RowSink, TableStream};
use super::trec::{qrels_push_error, run_push_error};
use super::{QrelsNote, ReadOptions};

/// Reads a run from Arrow record batches, with `columns` naming the
/// columns; `name` is what errors call the input. The batches must share
/// one schema. This is the entry point for data that is already in Arrow
/// form (a Python data frame handed over through the Arrow PyCapsule
/// interface, for instance); files go through [`read_run`](super::read_run).
pub fn run_from_batches(
    name: &str,
    batches: &[RecordBatch],
    columns: &CsvOptions,
    options: ReadOptions,
) -> Result<Run, ReadError> {
    let Some(first) = batches.first() else {
        return Err(no_batches(name));
    };
    let layout = Layout::new(name, first.schema_ref(), columns, Kind::Run)?;
    layout.run_of_batches(name, batches, options)
}

/// Evaluates the run in `batches` while reading it, batches in parallel,
/// scoring each query with `scorer` as soon as its rows are complete, as a
/// Parquet run is (see [`TableStream`]): no whole run is built. `None`
/// when the table is not one the streaming path takes (lists without
/// scores, an empty list), or when a list holds a repeated document that
/// `options` refuses: then it is read whole with [`run_from_batches`],
/// which names the same problem as reading it whole does (the first
/// repeat of the run, where a query held back at a batch boundary would
/// otherwise be finished last). Whether the run is grouped by query is for
/// the scorer to tell (a query scored twice).
///
/// A problem in a row (a null, a bad id, a NaN score) is an error here:
/// the first in input order.
pub fn stream_batches<S: ListScorer>(
    name: &str,
    batches: &[RecordBatch],
    columns: &CsvOptions,
    options: ReadOptions,
    scorer: &S,
) -> Result<Option<S::Scores>, ReadError> {
    /// A repeated document refused: the run is read whole to name it.
    struct Refused;

    let Some(first) = batches.first() else {
        return Err(no_batches(name));
    };
    let layout = Layout::new(name, first.schema_ref(), columns, Kind::Run)?;
    if !layout.streams() {
        return Ok(None);
    }
    if total_rows(batches) == 0 {
        return Err(empty(name));
    }
    let stream = TableStream::new(scorer, options.duplicates);
    /// A batch's sink, and whether a repeated document was refused in it.
    type Piece<T> = Result<(RowSink<T>, bool), ReadError>;
    let pieces: Vec<Piece<S::Scores>> = batches
        .par_iter()
        .zip(row_starts(batches))
        .map(|(batch, start)| {
            let mut sink = stream.sink();
            layout.run_part(name, batch, start, &mut stream.rows(&mut sink))?;
            let refused = stream.take_failure(&mut sink).is_some();
            Ok((sink, refused))
        })
        .collect();
    let mut sinks = Vec::with_capacity(pieces.len());
    let mut refused = false;
    for piece in pieces {
        let (sink, failed) = piece?;
        refused |= failed;
        sinks.push(sink);
    }
    if refused {
        return Ok(None);
    }
    match stream.finish(sinks, |query| {
        layout
            .finish_run(name, vec![query], 1, options)
            .map_err(|_| Refused)
    }) {
        Ok(scores) => Ok(scores),
        Err(Refused) => Ok(None),
    }
}

/// Reads qrels from Arrow record batches; see [`run_from_batches`].
pub fn qrels_from_batches(
    name: &str,
    batches: &[RecordBatch],
    columns: &CsvOptions,
) -> Result<Qrels, ReadError> {
    qrels_from_batches_noted(name, batches, columns).map(|(qrels, _)| qrels)
}

/// [`qrels_from_batches`], with what the user should be told about the
/// qrels (a table without a grade column: [`QrelsNote`]), as
/// [`read_qrels_noted`](super::read_qrels_noted) tells it of files.
pub fn qrels_from_batches_noted(
    name: &str,
    batches: &[RecordBatch],
    columns: &CsvOptions,
) -> Result<(Qrels, Option<QrelsNote>), ReadError> {
    let Some(first) = batches.first() else {
        return Err(no_batches(name));
    };
    let layout = Layout::new(name, first.schema_ref(), columns, Kind::Qrels)?;
    let qrels = layout.qrels_of_batches(name, batches)?;
    Ok((qrels, layout.note(columns)))
}

/// Where the rows of a run table go: a [`RunBuilder`], or the streaming
/// evaluator, which scores each query as soon as its rows are complete.
pub(crate) trait TableRunSink {
    /// A row of a table with list columns starts: `query`'s list of `len`
    /// documents, `ranked` if it has no scores (so that a query with an
    /// empty list still counts: it was run and retrieved nothing).
    fn declare_list(
        &mut self,
        query: &[u8],
        ranked: bool,
        len: usize,
        at: u64,
    ) -> Result<(), RunError>;
    /// Adds `doc` with `score` to `query`'s list; `at` is its row.
    fn push_scored_at(
        &mut self,
        query: &[u8],
        doc: &[u8],
        score: f64,
        at: u64,
    ) -> Result<(), RunError>;
    /// Adds `doc` after the documents of `query`'s list given so far.
    fn push_ranked_at(&mut self, query: &[u8], doc: &[u8], at: u64) -> Result<(), RunError>;
    /// Adds consecutive rows of one query at once, the first at `first_at`:
    /// `docs` holds their document ids one after the other, `ends[i]` where
    /// id `i` ends in it, and `scores` their scores (none NaN). The fast
    /// path of a table with string document ids.
    fn push_scored_contiguous(
        &mut self,
        query: &[u8],
        docs: &[u8],
        ends: impl ExactSizeIterator<Item = usize>,
        scores: &[f64],
        first_at: u64,
    ) -> Result<(), RunError>;
}

impl TableRunSink for RunBuilder {
    fn declare_list(
        &mut self,
        query: &[u8],
        ranked: bool,
        _len: usize,
        at: u64,
    ) -> Result<(), RunError> {
        self.declare_query(query, ranked, at)
    }

    #[inline]
    fn push_scored_at(
        &mut self,
        query: &[u8],
        doc: &[u8],
        score: f64,
        at: u64,
    ) -> Result<(), RunError> {
        RunBuilder::push_scored_at(self, query, doc, score, at)
    }

    #[inline]
    fn push_ranked_at(&mut self, query: &[u8], doc: &[u8], at: u64) -> Result<(), RunError> {
        RunBuilder::push_ranked_at(self, query, doc, at)
    }

    fn push_scored_contiguous(
        &mut self,
        query: &[u8],
        docs: &[u8],
        ends: impl ExactSizeIterator<Item = usize>,
        scores: &[f64],
        first_at: u64,
    ) -> Result<(), RunError> {
        RunBuilder::push_scored_contiguous(self, query, docs, ends, scores, first_at)
    }
}

/// The number of rows of all batches.
fn total_rows(batches: &[RecordBatch]) -> u64 {
    batches.iter().map(|b| b.num_rows() as u64).sum()
}

/// The number of rows before each batch.
fn row_starts(batches: &[RecordBatch]) -> Vec<u64> {
    batches
        .iter()
        .scan(0u64, |seen, batch| {
            let start = *seen;
            *seen += batch.num_rows() as u64;
            Some(start)
        })
        .collect()
}

fn no_batches(name: &str) -> ReadError {
    ReadError::new(
        name,
        None,
        ReadErrorKind::BadField("no record batch: the data has no schema and no rows".into()),
    )
}

pub(crate) fn empty(name: &str) -> ReadError {
    ReadError::new(
        name,
        None,
        ReadErrorKind::Empty {
            expected: TABLE_ROWS,
        },
    )
}

/// What a table looks like, for messages.
pub(crate) const TABLE_ROWS: &str = "rows of query, document and score, rank or grade";

/// Whether a table is read as a run or as qrels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A run: the value column is a score or a rank.
    Run,
    /// Qrels: the value column is a grade.
    Qrels,
}

/// What the value column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    /// Scores: higher first.
    Score,
    /// Ranks: lower first (stored as the score `-rank`, as for CSV).
    Rank,
    /// Grades of qrels.
    Grade,
    /// None: a list is already ranked; qrels have grade 1.
    Absent,
}

/// Which columns of a schema are read, and how.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    query: usize,
    doc: usize,
    value: Option<usize>,
    what: Value,
    /// Whether the document (and value) columns are lists.
    lists: bool,
    /// The column names, for messages: query, document, value.
    names: [String; 3],
    /// Long qrels without a grade column: the table's columns, for the
    /// warning that every listed pair counts as relevant.
    ungraded: Option<Vec<String>>,
}

impl Layout {
    /// Finds the columns in `schema` and checks their types.
    pub(crate) fn new(
        name: &str,
        schema: &Schema,
        columns: &CsvOptions,
        kind: Kind,
    ) -> Result<Self, ReadError> {
        let defaults = CsvOptions::default();
        let fail = |message: String| ReadError::new(name, None, ReadErrorKind::BadField(message));
        let find = |set: &str, default: &str, others: &[&str]| -> Option<usize> {
            let index = |n: &str| schema.fields().iter().position(|f| f.name() == n);
            if set != default {
                return index(set);
            }
            std::iter::once(default)
                .chain(others.iter().copied())
                .find_map(index)
        };
        let missing = |set: &str, default: &str, others: &[&str], option: &str| {
            let wanted = if set == default {
                std::iter::once(default)
                    .chain(others.iter().copied())
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            } else {
                format!("`{set}`")
            };
            fail(format!(
                "no column {wanted} (columns: {}); set the column option `{option}`",
                column_list(schema)
            ))
        };
        let query = find(&columns.query, &defaults.query, &["query"])
            .ok_or_else(|| missing(&columns.query, &defaults.query, &["query"], "query"))?;
        let doc = find(&columns.doc, &defaults.doc, &["items", "doc"])
            .ok_or_else(|| missing(&columns.doc, &defaults.doc, &["items", "doc"], "doc"))?;
        let field = |i: usize| schema.field(i);
        let lists = list_item(field(doc).data_type()).is_some();
        let (value, what) = match kind {
            Kind::Run => match find(&columns.score, &defaults.score, &["scores"]) {
                Some(i) => (Some(i), Value::Score),
                // A score column named but absent is not replaced by ranks
                // the user did not name.
                None if columns.is_named("score") && !columns.is_named("rank") => {
                    return Err(missing(&columns.score, &defaults.score, &[], "score"));
                }
                None => match find(&columns.rank, &defaults.rank, &["ranks"]) {
                    Some(i) => (Some(i), Value::Rank),
                    None if lists => (None, Value::Absent),
                    None => {
                        return Err(fail(format!(
                            "no column {} or {} to order the lists (columns: {}); set the \
                             column option `score` or `rank`, or give the documents as a list \
                             column, best first",
                            names_of(&columns.score, &defaults.score, "scores"),
                            names_of(&columns.rank, &defaults.rank, "ranks"),
                            column_list(schema)
                        )));
                    }
                },
            },
            Kind::Qrels => match find(&columns.grade, &defaults.grade, &["grades"]) {
                Some(i) => (Some(i), Value::Grade),
                None if columns.is_named("grade") => {
                    return Err(missing(&columns.grade, &defaults.grade, &[], "grade"));
                }
                None => (None, Value::Absent),
            },
        };
        let ungraded = (kind == Kind::Qrels && value.is_none() && !lists)
            .then(|| schema.fields().iter().map(|f| f.name().clone()).collect());
        let names = [
            field(query).name().clone(),
            field(doc).name().clone(),
            value.map(|i| field(i).name().clone()).unwrap_or_default(),
        ];
        let check = |i: usize, ok: fn(&DataType) -> bool, expected: &str| {
            let f = field(i);
            if ok(f.data_type()) {
                Ok(())
            } else {
                Err(fail(format!(
                    "column `{}` is {}; expected {expected}",
                    f.name(),
                    f.data_type()
                )))
            }
        };
        check(query, is_id, ID_TYPES)?;
        if lists {
            check(doc, |t| list_item(t).is_some_and(is_id), LIST_ID_TYPES)?;
            if let Some(i) = value {
                check(
                    i,
                    |t| list_item(t).is_some_and(is_number),
                    "a list of numbers, as the document column is a list",
                )?;
            }
        } else {
            check(doc, is_id, ID_TYPES)?;
            if let Some(i) = value {
                check(i, is_number, "numbers (an integer or float type)")?;
            }
        }
        Ok(Self {
            query,
            doc,
            value,
            what,
            lists,
            names,
            ungraded,
        })
    }

    /// For long qrels without a grade column but with a column that could
    /// hold grades, the note that says so (a list column without grades, or
    /// a table of only query and document, is binary relevance as written:
    /// no note).
    pub(crate) fn note(&self, columns: &CsvOptions) -> Option<QrelsNote> {
        self.ungraded
            .as_ref()
            .and_then(|names| QrelsNote::no_grade_column(columns, names.clone()))
    }

    /// Converts `batches` (in input order, each with this layout's schema)
    /// in parallel and finishes the run.
    pub(crate) fn run_of_batches(
        &self,
        name: &str,
        batches: &[RecordBatch],
        options: ReadOptions,
    ) -> Result<Run, ReadError> {
        let parts: Vec<RunBuilder> = batches
            .par_iter()
            .zip(row_starts(batches))
            .map(|(batch, start)| {
                let mut run = self.run_builder(batch);
                self.run_part(name, batch, start, &mut run).map(|()| run)
            })
            .collect::<Result<_, _>>()?;
        self.finish_run(name, parts, total_rows(batches), options)
    }

    /// A builder with room for `batch`'s entries and document ids, so that
    /// it does not grow (and copy) while the batch is converted.
    pub(crate) fn run_builder(&self, batch: &RecordBatch) -> RunBuilder {
        let doc = batch.column(self.doc);
        let (entries, bytes) = if self.lists {
            let values = Lists::of(doc).values.as_ref();
            (values.len(), id_bytes(values))
        } else {
            (doc.len(), id_bytes(doc.as_ref()))
        };
        RunBuilder::with_capacity(entries, bytes)
    }

    /// Converts `batches` in parallel and finishes the qrels.
    pub(crate) fn qrels_of_batches(
        &self,
        name: &str,
        batches: &[RecordBatch],
    ) -> Result<Qrels, ReadError> {
        let parts: Vec<QrelsBuilder> = batches
            .par_iter()
            .zip(row_starts(batches))
            .map(|(batch, start)| {
                let mut qrels = QrelsBuilder::new();
                self.qrels_part(name, batch, start, &mut qrels)
                    .map(|()| qrels)
            })
            .collect::<Result<_, _>>()?;
        self.finish_qrels(name, parts, total_rows(batches))
    }

    /// Whether a run of this layout can be evaluated while it is read:
    /// every row has a score or a rank (a list without either is kept
    /// ranked as given, which only a whole run holds).
    pub(crate) fn streams(&self) -> bool {
        matches!(self.what, Value::Score | Value::Rank)
    }

    /// The column indices this layout reads (to read no others).
    pub(crate) fn columns(&self) -> Vec<usize> {
        let mut all = vec![self.query, self.doc];
        all.extend(self.value);
        all.sort_unstable();
        all.dedup();
        all
    }

    /// The same layout over a batch holding only [`columns`](Self::columns),
    /// in that order.
    pub(crate) fn projected(&self) -> Self {
        let kept = self.columns();
        let at = |i: usize| kept.iter().position(|&k| k == i).unwrap_or(i);
        Self {
            query: at(self.query),
            doc: at(self.doc),
            value: self.value.map(at),
            ..self.clone()
        }
    }

    fn error(&self, name: &str, row: u64, column: usize, problem: String) -> ReadError {
        ReadError::new(
            name,
            None,
            ReadErrorKind::AtRow {
                row,
                column: self.names[column].clone(),
                problem,
            },
        )
    }

    /// The batch's columns, checked for nulls and bad ids.
    fn columns_of<'a>(
        &self,
        name: &str,
        batch: &'a RecordBatch,
        start: u64,
    ) -> Result<Columns<'a>, ReadError> {
        let at = |column: usize, problem: Problem| {
            let (row, text) = problem;
            self.error(name, start + row as u64 + 1, column, text)
        };
        let query = batch.column(self.query);
        no_nulls(query).map_err(|p| at(0, p))?;
        let query_ids = Ids::of(query.as_ref());
        query_ids.check().map_err(|p| at(0, p))?;
        let doc = batch.column(self.doc);
        no_nulls(doc).map_err(|p| at(1, p))?;
        let value = self.value.map(|i| batch.column(i));
        if let Some(value) = value {
            no_nulls(value).map_err(|p| at(2, p))?;
        }
        if self.lists {
            let docs = Lists::of(doc);
            let doc_ids = Ids::of(docs.values.as_ref());
            no_nulls(docs.values).map_err(|p| at(1, docs.row_of(p)))?;
            doc_ids.check().map_err(|p| at(1, docs.row_of(p)))?;
            let values = match value {
                Some(value) => {
                    let lists = Lists::of(value);
                    no_nulls(lists.values).map_err(|p| at(2, lists.row_of(p)))?;
                    for row in 0..batch.num_rows() {
                        let (n, m) = (docs.range(row).len(), lists.range(row).len());
                        if n != m {
                            return Err(at(
                                2,
                                (
                                    row,
                                    format!(
                                        "the list has {m} value{} but `{}` has {n} document{}",
                                        plural(m),
                                        self.names[1],
                                        plural(n)
                                    ),
                                ),
                            ));
                        }
                    }
                    Some(numbers(lists.values.as_ref()))
                }
                None => None,
            };
            Ok(Columns {
                query: query_ids,
                doc: doc_ids,
                lists: Some(docs),
                values,
            })
        } else {
            let doc_ids = Ids::of(doc.as_ref());
            doc_ids.check().map_err(|p| at(1, p))?;
            Ok(Columns {
                query: query_ids,
                doc: doc_ids,
                lists: None,
                values: value.map(|v| numbers(v.as_ref())),
            })
        }
    }

    /// Converts one batch, whose first row is row `start + 1` of the input,
    /// into `run`.
    pub(crate) fn run_part(
        &self,
        name: &str,
        batch: &RecordBatch,
        start: u64,
        run: &mut impl TableRunSink,
    ) -> Result<(), ReadError> {
        let columns = self.columns_of(name, batch, start)?;
        if let Some(pushed) = self.run_part_contiguous(name, &columns, batch.num_rows(), start, run)
        {
            return pushed;
        }
        let ordered = |value: f64| match self.what {
            Value::Rank => -value,
            _ => value,
        };
        for row in 0..batch.num_rows() {
            let at = position(start, row);
            let fail = |column: usize, e: RunError| {
                self.error(
                    name,
                    start + row as u64 + 1,
                    column,
                    run_push_error(e).to_string(),
                )
            };
            columns.query.with(row, |query| match &columns.lists {
                None => {
                    let score = columns.values.as_ref().map_or(0.0, |v| ordered(v[row]));
                    if score.is_nan() {
                        return Err(self.error(
                            name,
                            start + row as u64 + 1,
                            2,
                            "NaN is not a score that can be ordered".into(),
                        ));
                    }
                    columns
                        .doc
                        .with(row, |doc| run.push_scored_at(query, doc, score, at))
                        .map_err(|e| fail(1, e))
                }
                Some(lists) => {
                    let ranked = columns.values.is_none();
                    run.declare_list(query, ranked, lists.range(row).len(), at)
                        .map_err(|e| fail(0, e))?;
                    for item in lists.range(row) {
                        let pushed = match &columns.values {
                            None => columns
                                .doc
                                .with(item, |doc| run.push_ranked_at(query, doc, at)),
                            Some(values) => {
                                let score = ordered(values[item]);
                                if score.is_nan() {
                                    return Err(self.error(
                                        name,
                                        start + row as u64 + 1,
                                        2,
                                        "NaN is not a score that can be ordered".into(),
                                    ));
                                }
                                columns
                                    .doc
                                    .with(item, |doc| run.push_scored_at(query, doc, score, at))
                            }
                        };
                        pushed.map_err(|e| fail(1, e))?;
                    }
                    Ok(())
                }
            })?;
        }
        Ok(())
    }

    /// [`run_part`](Self::run_part) for the common table (one row per
    /// document, string document ids, scores or ranks with no NaN): each
    /// run of rows of one query is pushed at once, its document ids one
    /// slice of the string column's bytes. `None` when the table is not of
    /// that kind (the row-by-row path then reads it, and names any error).
    fn run_part_contiguous(
        &self,
        name: &str,
        columns: &Columns<'_>,
        rows: usize,
        start: u64,
        run: &mut impl TableRunSink,
    ) -> Option<Result<(), ReadError>> {
        if columns.lists.is_some() {
            return None;
        }
        let values = columns.values.as_deref()?;
        if values.iter().any(|v| v.is_nan()) {
            return None;
        }
        let scores: Cow<'_, [f64]> = match self.what {
            Value::Rank => Cow::Owned(values.iter().map(|v| -v).collect()),
            _ => Cow::Borrowed(values),
        };
        let pushed = match &columns.doc {
            Ids::Utf8(docs) => self.push_runs(
                name,
                columns,
                docs.value_offsets(),
                docs.value_data(),
                &scores,
                rows,
                start,
                run,
            ),
            Ids::LargeUtf8(docs) => self.push_runs(
                name,
                columns,
                docs.value_offsets(),
                docs.value_data(),
                &scores,
                rows,
                start,
                run,
            ),
            _ => return None,
        };
        Some(pushed)
    }

    /// Pushes each run of rows of one query at once; see
    /// [`run_part_contiguous`](Self::run_part_contiguous).
    #[allow(clippy::too_many_arguments)]
    fn push_runs<O: OffsetSizeTrait>(
        &self,
        name: &str,
        columns: &Columns<'_>,
        offsets: &[O],
        data: &[u8],
        scores: &[f64],
        rows: usize,
        start: u64,
        run: &mut impl TableRunSink,
    ) -> Result<(), ReadError> {
        let mut first = 0;
        while first < rows {
            let mut end = first + 1;
            while end < rows && columns.query.same(end - 1, end) {
                end += 1;
            }
            let from = offsets[first].as_usize();
            let to = offsets[end].as_usize();
            let ends = offsets[first + 1..=end].iter().map(|o| o.as_usize() - from);
            columns
                .query
                .with(first, |query| {
                    run.push_scored_contiguous(
                        query,
                        &data[from..to],
                        ends,
                        &scores[first..end],
                        position(start, first),
                    )
                })
                .map_err(|e| {
                    self.error(
                        name,
                        start + first as u64 + 1,
                        1,
                        run_push_error(e).to_string(),
                    )
                })?;
            first = end;
        }
        Ok(())
    }

    /// Converts one batch of qrels, whose first row is row `start + 1`,
    /// into `qrels`.
    pub(crate) fn qrels_part(
        &self,
        name: &str,
        batch: &RecordBatch,
        start: u64,
        qrels: &mut QrelsBuilder,
    ) -> Result<(), ReadError> {
        let columns = self.columns_of(name, batch, start)?;
        for row in 0..batch.num_rows() {
            let at = position(start, row);
            let number = start + row as u64 + 1;
            let grade_at = |index: usize| match &columns.values {
                None => Ok(1.0),
                Some(values) => grade_of_number(values[index])
                    .map_err(|problem| self.error(name, number, 2, problem)),
            };
            let fail = |column: usize, e: QrelsError| {
                let column = match e {
                    QrelsError::InvalidGrade { .. } if columns.values.is_some() => 2,
                    _ => column,
                };
                self.error(name, number, column, qrels_push_error(e).to_string())
            };
            columns.query.with(row, |query| match &columns.lists {
                None => {
                    let grade = grade_at(row)?;
                    columns
                        .doc
                        .with(row, |doc| qrels.push_at(query, doc, grade, at))
                        .map_err(|e| fail(1, e))
                }
                Some(lists) => {
                    qrels.declare_query(query, at).map_err(|e| fail(0, e))?;
                    for item in lists.range(row) {
                        let grade = grade_at(item)?;
                        columns
                            .doc
                            .with(item, |doc| qrels.push_at(query, doc, grade, at))
                            .map_err(|e| fail(1, e))?;
                    }
                    Ok(())
                }
            })?;
        }
        Ok(())
    }

    /// Joins the parts in order and finishes the run.
    pub(crate) fn finish_run(
        &self,
        name: &str,
        parts: Vec<RunBuilder>,
        rows: u64,
        options: ReadOptions,
    ) -> Result<Run, ReadError> {
        if rows == 0 {
            return Err(empty(name));
        }
        let mut parts = parts.into_iter();
        let mut run = parts.next().unwrap_or_default();
        for part in parts {
            run.append(part, 0);
        }
        run.finish_with(options.duplicates, options.ties)
            .map_err(|e| self.run_error(name, e))
    }

    /// A core error from finishing a run's list, as a read error naming
    /// its row and column.
    pub(crate) fn run_error(&self, name: &str, error: RunError) -> ReadError {
        match error {
            RunError::DuplicateDoc {
                query,
                doc,
                first,
                second,
            } => self.error(
                name,
                second,
                1,
                format!(
                    "document `{doc}` appears twice in the list of query `{query}` (first on \
                     row {first}); to keep the first occurrence, use --duplicates first \
                     (TOML: duplicates = \"first\")"
                ),
            ),
            RunError::MixedOrdering { query } => ReadError::new(
                name,
                None,
                ReadErrorKind::BadField(format!(
                    "query `{query}` has rows with scores and rows without"
                )),
            ),
            other => ReadError::new(name, None, ReadErrorKind::Data(other.to_string())),
        }
    }

    /// Joins the parts in order and finishes the qrels.
    pub(crate) fn finish_qrels(
        &self,
        name: &str,
        parts: Vec<QrelsBuilder>,
        rows: u64,
    ) -> Result<Qrels, ReadError> {
        if rows == 0 {
            return Err(empty(name));
        }
        let mut parts = parts.into_iter();
        let mut qrels = parts.next().unwrap_or_default();
        for part in parts {
            qrels.append(part, 0);
        }
        qrels.finish().map_err(|e| match e {
            QrelsError::ConflictingGrades {
                query,
                doc,
                first_grade,
                first,
                second_grade,
                second,
            } => self.error(
                name,
                second,
                1,
                format!(
                    "document `{doc}` of query `{query}` is judged {second_grade} here but \
                     {first_grade} on row {first}"
                ),
            ),
            other => ReadError::new(name, None, ReadErrorKind::Data(other.to_string())),
        })
    }
}

/// A number from a structured input (a column, a JSON value) as a grade,
/// through the one grade check every reader shares; the error says why.
pub(crate) fn grade_of_number(value: f64) -> Result<rankeval_core::Grade, String> {
    grade_from_number(value).map_err(|expected| format!("grade {} is not {expected}", shown(value)))
}

/// The position the builders keep for row `row` of a batch starting after
/// `start` rows: the row's number, from 1.
fn position(start: u64, row: usize) -> u64 {
    start + row as u64 + 1
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn names_of(set: &str, default: &str, other: &str) -> String {
    if set == default {
        format!("`{default}` (or `{other}`)")
    } else {
        format!("`{set}`")
    }
}

/// The schema's column names for a message, the first 20.
fn column_list(schema: &Schema) -> String {
    const SHOWN: usize = 20;
    let fields = schema.fields();
    let mut list = fields
        .iter()
        .take(SHOWN)
        .map(|f| format!("{} {}", excerpt(f.name().as_bytes()), f.data_type()))
        .collect::<Vec<_>>()
        .join(", ");
    if fields.len() > SHOWN {
        list.push_str(&format!(", … ({} in all)", fields.len()));
    }
    list
}

const ID_TYPES: &str =
    "ids: an integer type, a string type (utf8, large_utf8, utf8_view) or a dictionary of those";
const LIST_ID_TYPES: &str = "a list of ids (each an integer or string type)";

/// Whether a column of this type holds ids.
fn is_id(data_type: &DataType) -> bool {
    match data_type {
        DataType::Dictionary(_, values) => is_id(values),
        t => {
            t.is_integer() || matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
        }
    }
}

/// Whether a column of this type holds numbers.
fn is_number(data_type: &DataType) -> bool {
    data_type.is_integer() || data_type.is_floating()
}

/// The item type of a list type.
fn list_item(data_type: &DataType) -> Option<&DataType> {
    match data_type {
        DataType::List(item) | DataType::LargeList(item) => Some(item.data_type()),
        _ => None,
    }
}

/// A problem at a row of a batch (0-based), described.
type Problem = (usize, String);

/// Refuses a column with a null.
fn no_nulls(array: &ArrayRef) -> Result<(), Problem> {
    match array.logical_nulls() {
        Some(nulls) if nulls.null_count() > 0 => {
            let row = (0..array.len()).find(|&i| nulls.is_null(i)).unwrap_or(0);
            Err((row, "the value is null".into()))
        }
        _ => Ok(()),
    }
}

/// A batch's columns, ready to read row by row.
struct Columns<'a> {
    query: Ids<'a>,
    doc: Ids<'a>,
    /// The document lists, for a table with list columns.
    lists: Option<Lists<'a>>,
    /// The value column (flattened for lists) as numbers.
    values: Option<Cow<'a, [f64]>>,
}

/// A list column: offsets and the flattened values.
struct Lists<'a> {
    offsets: Vec<usize>,
    values: &'a ArrayRef,
}

impl<'a> Lists<'a> {
    /// The list column `array` (checked to be a list type).
    fn of(array: &'a ArrayRef) -> Self {
        fn from<O: OffsetSizeTrait>(list: &GenericListArray<O>) -> Lists<'_> {
            Lists {
                offsets: list.value_offsets().iter().map(|o| o.as_usize()).collect(),
                values: list.values(),
            }
        }
        match array.data_type() {
            DataType::LargeList(_) => from(array.as_list::<i64>()),
            _ => from(array.as_list::<i32>()),
        }
    }

    /// The indices into the values of row `row`'s list.
    fn range(&self, row: usize) -> std::ops::Range<usize> {
        self.offsets[row]..self.offsets[row + 1]
    }

    /// A problem at a value index, as a problem at its row.
    fn row_of(&self, (index, text): Problem) -> Problem {
        let row = self
            .offsets
            .partition_point(|&o| o <= index)
            .saturating_sub(1);
        (
            row,
            format!("item {} of the list: {text}", index - self.offsets[row] + 1),
        )
    }
}

/// A numeric column as `f64`s: borrowed when it is `float64`, converted
/// once per batch otherwise.
fn numbers(array: &dyn Array) -> Cow<'_, [f64]> {
    macro_rules! convert {
        ($($t:ty),*) => {
            match array.data_type() {
                DataType::Float64 => {
                    return Cow::Borrowed(array.as_primitive::<Float64Type>().values());
                }
                DataType::Float16 => array
                    .as_primitive::<Float16Type>()
                    .values()
                    .iter()
                    .map(|v| v.to_f64())
                    .collect(),
                $(t if t == &<$t as arrow_array::ArrowPrimitiveType>::DATA_TYPE => array
                    .as_primitive::<$t>()
                    .values()
                    .iter()
                    .map(|&v| v as f64)
                    .collect(),)*
                _ => Vec::new(),
            }
        };
    }
    Cow::Owned(convert!(
        Float32Type,
        Int8Type,
        Int16Type,
        Int32Type,
        Int64Type,
        UInt8Type,
        UInt16Type,
        UInt32Type,
        UInt64Type
    ))
}

/// An id column, read row by row as bytes.
enum Ids<'a> {
    Utf8(&'a StringArray),
    LargeUtf8(&'a LargeStringArray),
    Utf8View(&'a StringViewArray),
    Signed(Signed<'a>),
    Unsigned(Unsigned<'a>),
    /// A dictionary: the key of each row (checked not null), and the values.
    Dictionary(Vec<usize>, Box<Ids<'a>>),
}

/// Signed integer ids.
enum Signed<'a> {
    I8(&'a PrimitiveArray<Int8Type>),
    I16(&'a PrimitiveArray<Int16Type>),
    I32(&'a PrimitiveArray<Int32Type>),
    I64(&'a PrimitiveArray<Int64Type>),
}

/// Unsigned integer ids.
enum Unsigned<'a> {
    U8(&'a PrimitiveArray<UInt8Type>),
    U16(&'a PrimitiveArray<UInt16Type>),
    U32(&'a PrimitiveArray<UInt32Type>),
    U64(&'a PrimitiveArray<UInt64Type>),
}

impl<'a> Ids<'a> {
    /// The ids of `array` (checked to be an id type by [`Layout::new`]).
    fn of(array: &'a dyn Array) -> Self {
        match array.data_type() {
            DataType::Utf8 => Ids::Utf8(array.as_string::<i32>()),
            DataType::LargeUtf8 => Ids::LargeUtf8(array.as_string::<i64>()),
            DataType::Utf8View => Ids::Utf8View(array.as_string_view()),
            DataType::Int8 => Ids::Signed(Signed::I8(array.as_primitive())),
            DataType::Int16 => Ids::Signed(Signed::I16(array.as_primitive())),
            DataType::Int32 => Ids::Signed(Signed::I32(array.as_primitive())),
            DataType::Int64 => Ids::Signed(Signed::I64(array.as_primitive())),
            DataType::UInt8 => Ids::Unsigned(Unsigned::U8(array.as_primitive())),
            DataType::UInt16 => Ids::Unsigned(Unsigned::U16(array.as_primitive())),
            DataType::UInt32 => Ids::Unsigned(Unsigned::U32(array.as_primitive())),
            DataType::UInt64 => Ids::Unsigned(Unsigned::U64(array.as_primitive())),
            _ => {
                let dictionary = array.as_any_dictionary();
                // Without values there is no key to read (an empty batch, or
                // only nulls, refused before a row is read); arrow asserts
                // there are values to normalise keys to.
                let keys = if dictionary.values().is_empty() {
                    Vec::new()
                } else {
                    dictionary.normalized_keys()
                };
                Ids::Dictionary(keys, Box::new(Ids::of(dictionary.values().as_ref())))
            }
        }
    }

    /// Calls `then` with the id of row `row`.
    #[inline]
    fn with<R>(&self, row: usize, then: impl FnOnce(&[u8]) -> R) -> R {
        let mut buffer = itoa::Buffer::new();
        match self {
            Ids::Utf8(a) => then(a.value(row).as_bytes()),
            Ids::LargeUtf8(a) => then(a.value(row).as_bytes()),
            Ids::Utf8View(a) => then(a.value(row).as_bytes()),
            Ids::Signed(s) => then(
                match s {
                    Signed::I8(a) => buffer.format(a.value(row)),
                    Signed::I16(a) => buffer.format(a.value(row)),
                    Signed::I32(a) => buffer.format(a.value(row)),
                    Signed::I64(a) => buffer.format(a.value(row)),
                }
                .as_bytes(),
            ),
            Ids::Unsigned(u) => then(
                match u {
                    Unsigned::U8(a) => buffer.format(a.value(row)),
                    Unsigned::U16(a) => buffer.format(a.value(row)),
                    Unsigned::U32(a) => buffer.format(a.value(row)),
                    Unsigned::U64(a) => buffer.format(a.value(row)),
                }
                .as_bytes(),
            ),
            Ids::Dictionary(keys, values) => values.with(keys[row], then),
        }
    }

    /// Whether rows `a` and `b` hold the same id, as far as a cheap look
    /// tells (different dictionary keys may name one id: `false` then, and
    /// the builder, which compares the ids, still joins the rows).
    #[inline]
    fn same(&self, a: usize, b: usize) -> bool {
        match self {
            Ids::Utf8(ids) => ids.value(a) == ids.value(b),
            Ids::LargeUtf8(ids) => ids.value(a) == ids.value(b),
            Ids::Utf8View(ids) => ids.value(a) == ids.value(b),
            Ids::Signed(Signed::I8(ids)) => ids.value(a) == ids.value(b),
            Ids::Signed(Signed::I16(ids)) => ids.value(a) == ids.value(b),
            Ids::Signed(Signed::I32(ids)) => ids.value(a) == ids.value(b),
            Ids::Signed(Signed::I64(ids)) => ids.value(a) == ids.value(b),
            Ids::Unsigned(Unsigned::U8(ids)) => ids.value(a) == ids.value(b),
            Ids::Unsigned(Unsigned::U16(ids)) => ids.value(a) == ids.value(b),
            Ids::Unsigned(Unsigned::U32(ids)) => ids.value(a) == ids.value(b),
            Ids::Unsigned(Unsigned::U64(ids)) => ids.value(a) == ids.value(b),
            Ids::Dictionary(keys, _) => keys[a] == keys[b],
        }
    }

    /// Refuses an empty id, or one with whitespace or a control character
    /// (as in every other format). Integers are always fine; a dictionary's
    /// values are checked where a row uses them.
    fn check(&self) -> Result<(), Problem> {
        if self.plainly_valid() {
            return Ok(());
        }
        match self.problems(true).into_iter().next() {
            Some(problem) => Err(problem),
            None => Ok(()),
        }
    }

    /// Whether every id is printable ASCII and none is empty, checked over
    /// the column's whole value buffer and offsets at once (no branch per
    /// byte, so the compiler vectorizes it): the usual case, many times
    /// faster than id by id. If not, [`problems`](Self::problems) looks at
    /// the ids one by one and finds the row, if any id is wrong.
    fn plainly_valid(&self) -> bool {
        fn strings<O: OffsetSizeTrait>(array: &arrow_array::GenericStringArray<O>) -> bool {
            let offsets = array.value_offsets();
            let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else {
                return true;
            };
            let values = &array.value_data()[first.as_usize()..last.as_usize()];
            let printable = values
                .iter()
                .fold(true, |ok, &b| ok & (b.wrapping_sub(0x21) < 0x5e));
            let non_empty = offsets.windows(2).fold(true, |ok, w| ok & (w[0] < w[1]));
            printable && non_empty
        }
        match self {
            Ids::Utf8(a) => strings(*a),
            Ids::LargeUtf8(a) => strings(*a),
            Ids::Signed(_) | Ids::Unsigned(_) => true,
            Ids::Utf8View(_) | Ids::Dictionary(..) => false,
        }
    }

    /// The rows with bad ids: the first only if `first`, else all of them.
    fn problems(&self, first: bool) -> Vec<Problem> {
        fn strings<'s>(values: impl Iterator<Item = &'s str>, first: bool) -> Vec<Problem> {
            let mut found = Vec::new();
            for (row, id) in values.enumerate() {
                if let Err(text) = id_problem(id) {
                    found.push((row, text));
                    if first {
                        break;
                    }
                }
            }
            found
        }
        match self {
            Ids::Utf8(a) if plain_ids(a.value_offsets(), a.value_data()) => Vec::new(),
            Ids::LargeUtf8(a) if plain_ids(a.value_offsets(), a.value_data()) => Vec::new(),
            Ids::Utf8(a) => strings(a.iter().map(Option::unwrap_or_default), first),
            Ids::LargeUtf8(a) => strings(a.iter().map(Option::unwrap_or_default), first),
            Ids::Utf8View(a) => strings(a.iter().map(Option::unwrap_or_default), first),
            Ids::Signed(_) | Ids::Unsigned(_) => Vec::new(),
            Ids::Dictionary(keys, values) => {
                let bad: std::collections::HashMap<usize, String> =
                    values.problems(false).into_iter().collect();
                if bad.is_empty() {
                    return Vec::new();
                }
                keys.iter()
                    .enumerate()
                    .filter_map(|(row, key)| bad.get(key).map(|text| (row, text.clone())))
                    .take(if first { 1 } else { usize::MAX })
                    .collect()
            }
        }
    }
}

/// About how many bytes the ids of `array` take as text: exact for strings,
/// an estimate of 8 per id otherwise.
fn id_bytes(array: &dyn Array) -> usize {
    fn span<O: OffsetSizeTrait>(offsets: &[O]) -> usize {
        match (offsets.first(), offsets.last()) {
            (Some(first), Some(last)) => last.as_usize().saturating_sub(first.as_usize()),
            _ => 0,
        }
    }
    match array.data_type() {
        DataType::Utf8 => span(array.as_string::<i32>().value_offsets()),
        DataType::LargeUtf8 => span(array.as_string::<i64>().value_offsets()),
        _ => array.len().saturating_mul(8),
    }
}

/// Whether every id of a string array is fine at a glance: none is empty
/// (the offsets ascend strictly) and every byte is printable ASCII other
/// than a space. One pass over the offsets and one over the bytes, which
/// the compiler vectorises; anything else is checked id by id.
fn plain_ids<O: OffsetSizeTrait>(offsets: &[O], data: &[u8]) -> bool {
    let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else {
        return true;
    };
    let Some(bytes) = data.get(first.as_usize()..last.as_usize()) else {
        return false;
    };
    // Folded without an early exit, in blocks, so that each block is one
    // vector loop.
    const BLOCK: usize = 4096;
    let ascending = offsets.chunks(BLOCK).enumerate().all(|(i, block)| {
        let joined = i == 0 || offsets[i * BLOCK - 1] < block[0];
        joined
            && block
                .windows(2)
                .fold(true, |ok, pair| ok & (pair[0] < pair[1]))
    });
    ascending
        && bytes.chunks(BLOCK).all(|block| {
            block
                .iter()
                .fold(true, |ok, &b| ok & (b.wrapping_sub(b'!') < 0x7f - b'!'))
        })
}

/// Why `id` cannot be an id, if it cannot: it is empty, or holds whitespace
/// or a control character, which no TREC file or report layout can carry.
fn id_problem(id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err("an id cannot be empty".into());
    }
    if id.bytes().all(|b| b > b' ' && b < 0x7f) {
        return Ok(());
    }
    match id.chars().find(|c| c.is_whitespace() || c.is_control()) {
        Some(c) => Err(format!(
            "the id `{}` contains U+{:04X}; ids cannot contain whitespace or control \
             characters (as in TREC files)",
            excerpt(id.escape_debug().to_string().as_bytes()),
            u32::from(c)
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Offsets and data of `ids`, as a string array holds them.
    fn layout(ids: &[&str]) -> (Vec<i32>, Vec<u8>) {
        let mut offsets = vec![0];
        let mut data = Vec::new();
        for id in ids {
            data.extend_from_slice(id.as_bytes());
            offsets.push(data.len() as i32);
        }
        (offsets, data)
    }

    #[test]
    fn plain_ids_are_passed_at_a_glance_and_anything_else_is_not() {
        let plain = |ids: &[&str]| {
            let (offsets, data) = layout(ids);
            plain_ids(&offsets, &data)
        };
        assert!(plain(&["q1", "d-7", "~!"]));
        assert!(plain(&[]));
        assert!(!plain(&["q1", "a b"]));
        assert!(!plain(&["q1", ""]));
        assert!(!plain(&["q\u{7f}"]));
        assert!(!plain(&["dé"]), "non-ASCII ids are checked one by one");
        // Beyond the first block of offsets and bytes.
        let many: Vec<String> = (0..5000).map(|i| format!("d{i}")).collect();
        let mut ids: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(plain(&ids));
        ids[4095] = "";
        assert!(!plain(&ids), "an empty id where two blocks of offsets meet");
        ids[4095] = "d1";
        ids[4096] = "";
        assert!(!plain(&ids));
        ids[4096] = "d\t1";
        assert!(!plain(&ids));
    }

    #[test]
    fn an_empty_batch_of_dictionary_ids_has_no_rows_to_read() {
        use arrow_array::types::Int32Type;
        use arrow_array::{DictionaryArray, Float64Array};
        let batch = |ids: Vec<&str>, scores: Vec<f64>| {
            let ids: ArrayRef = std::sync::Arc::new(DictionaryArray::<Int32Type>::from_iter(ids));
            RecordBatch::try_from_iter([
                ("user", ids.clone()),
                ("item", ids),
                (
                    "score",
                    std::sync::Arc::new(Float64Array::from(scores)) as ArrayRef,
                ),
            ])
            .unwrap()
        };
        let empty = batch(vec![], vec![]);
        assert!(empty.column(0).as_any_dictionary().values().is_empty());
        let batches = [empty, batch(vec!["a"], vec![1.0])];
        let columns = CsvOptions::default();
        let run = run_from_batches("run", &batches, &columns, ReadOptions::default()).unwrap();
        assert_eq!(run.num_entries(), 1);
        let qrels = qrels_from_batches("qrels", &batches[..1], &columns);
        let empty = qrels.unwrap_err().to_string();
        assert!(empty.contains("is empty"), "{empty}");
    }

    #[test]
    fn a_string_array_slice_is_checked_within_its_offsets() {
        let (offsets, mut data) = layout(&["a", "b c", "d"]);
        // The slice of the last id only: the space before it is not its.
        assert!(plain_ids(&offsets[2..], &data));
        assert!(!plain_ids(&offsets[1..], &data));
        data.truncate(3);
        assert!(!plain_ids(&offsets, &data), "offsets past the data");
    }
}
