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
use std::ops::Range;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type,
    UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{
    Array, ArrayRef, GenericListArray, LargeStringArray, OffsetSizeTrait, PrimitiveArray,
    RecordBatch, StringArray, StringViewArray,
};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Schema};
use rankeval_core::{Qrels, QrelsError, Run, RunBuilder, RunError};
use rayon::prelude::*;

use super::csv::{CsvOptions, DOC_IDS, GRADES, ORDERING_VALUES, QUERY_IDS};
use super::error::{ReadError, ReadErrorKind};
use super::grade::{grade_from_number, shown};
use super::missing_column::{ColumnNote, ColumnPlace, InputKind, MissingColumn, PresentColumn};
use super::stream::{ListScorer, RowSink, TableStream};
use super::trec::{qrels_push_error, run_push_error};
use super::ungraded::{EmptyGrade, QrelsRows, RowAt, UngradedRows};
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
    let (qrels, _) = layout.qrels_of_batches(name, batches, EmptyGrade::Refused)?;
    Ok((qrels, layout.note(columns)))
}

/// The columns of a table with `schema` that reading it as a run with
/// `columns` looks at, in schema order. For data handed over column by
/// column (a data frame's columns, each exported on its own), these are
/// the only ones to import: the batches of these columns alone (in this
/// order) read as the whole table would. An error is the one reading the
/// whole table gives (a column named and absent, a column of a type that
/// cannot be read), naming every column of `schema`.
pub fn run_columns(
    name: &str,
    schema: &Schema,
    columns: &CsvOptions,
) -> Result<Vec<usize>, ReadError> {
    Ok(Layout::new(name, schema, columns, Kind::Run)?.columns())
}

/// [`run_columns`] for qrels, with what the user should be told about them
/// as reading the whole table tells it ([`QrelsNote`]: a long table without
/// a grade column, whose columns it names): reading only the columns
/// returned does not know the others.
pub fn qrels_columns(
    name: &str,
    schema: &Schema,
    columns: &CsvOptions,
) -> Result<(Vec<usize>, Option<QrelsNote>), ReadError> {
    let layout = Layout::new(name, schema, columns, Kind::Qrels)?;
    Ok((layout.columns(), layout.note(columns)))
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
    /// The columns not read (a `model`, a `timestamp`): when a document
    /// repeats in a query's list, one of them may tell several runs apart,
    /// and keeping the first occurrence would merge those runs.
    unread: Vec<String>,
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
        let input = match kind {
            Kind::Run => InputKind::Run,
            Kind::Qrels => InputKind::Qrels,
        };
        let looked_for = |set: &str, default: &str, others: &[&str]| -> Vec<String> {
            if set == default {
                std::iter::once(default)
                    .chain(others.iter().copied())
                    .map(str::to_owned)
                    .collect()
            } else {
                vec![set.to_owned()]
            }
        };
        let missing = |options: &[&'static str], wanted: Vec<String>, what, note| {
            let missing = MissingColumn {
                input,
                place: ColumnPlace::Schema,
                options: options.to_vec(),
                wanted,
                what,
                present: schema
                    .fields()
                    .iter()
                    .map(|f| PresentColumn {
                        name: f.name().clone(),
                        data_type: Some(f.data_type().to_string()),
                    })
                    .collect(),
                note,
            };
            ReadError::new(name, None, ReadErrorKind::MissingColumn(Box::new(missing)))
        };
        let missing_one = |set: &str, default: &str, others: &[&str], option, what| {
            missing(&[option], looked_for(set, default, others), what, None)
        };
        let query = find(&columns.query, &defaults.query, &["query"]).ok_or_else(|| {
            missing_one(
                &columns.query,
                &defaults.query,
                &["query"],
                "query",
                QUERY_IDS,
            )
        })?;
        let doc = find(&columns.doc, &defaults.doc, &["items", "doc"]).ok_or_else(|| {
            missing_one(
                &columns.doc,
                &defaults.doc,
                &["items", "doc"],
                "doc",
                DOC_IDS,
            )
        })?;
        let field = |i: usize| schema.field(i);
        let lists = list_item(field(doc).data_type()).is_some();
        let (value, what) = match kind {
            Kind::Run => match find(&columns.score, &defaults.score, &["scores"]) {
                Some(i) => (Some(i), Value::Score),
                // A score column named but absent is not replaced by ranks
                // the user did not name.
                None if columns.is_named("score") && !columns.is_named("rank") => {
                    return Err(missing_one(
                        &columns.score,
                        &defaults.score,
                        &[],
                        "score",
                        "scores",
                    ));
                }
                None => match find(&columns.rank, &defaults.rank, &["ranks"]) {
                    Some(i) => (Some(i), Value::Rank),
                    None if lists => (None, Value::Absent),
                    None => {
                        let mut wanted = looked_for(&columns.score, &defaults.score, &["scores"]);
                        wanted.extend(looked_for(&columns.rank, &defaults.rank, &["ranks"]));
                        return Err(missing(
                            &["score", "rank"],
                            wanted,
                            ORDERING_VALUES,
                            Some(ColumnNote::ListColumnWouldDo),
                        ));
                    }
                },
            },
            Kind::Qrels => match find(&columns.grade, &defaults.grade, &["grades"]) {
                Some(i) => (Some(i), Value::Grade),
                None if columns.is_named("grade") => {
                    return Err(missing_one(
                        &columns.grade,
                        &defaults.grade,
                        &[],
                        "grade",
                        GRADES,
                    ));
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
        let read = [Some(query), Some(doc), value];
        let unread = (0..schema.fields().len())
            .filter(|i| !read.contains(&Some(*i)))
            .map(|i| field(i).name().clone())
            .collect();
        Ok(Self {
            query,
            doc,
            value,
            what,
            lists,
            names,
            ungraded,
            unread,
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

    /// Converts `batches` in parallel and finishes the qrels, a null grade
    /// meaning `empty`; gives the rows left out as not judged.
    pub(crate) fn qrels_of_batches(
        &self,
        name: &str,
        batches: &[RecordBatch],
        empty: EmptyGrade,
    ) -> Result<(Qrels, UngradedRows), ReadError> {
        let parts: Vec<QrelsRows> = batches
            .par_iter()
            .zip(row_starts(batches))
            .map(|(batch, start)| {
                let mut qrels = QrelsRows::default();
                self.qrels_part(name, batch, start, &mut qrels, empty)
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

    /// The batch's columns, checked for nulls and bad ids; with
    /// `null_values`, a null value (a grade, or an item of a list of
    /// grades) is kept as such in [`Columns::value_nulls`].
    fn columns_of<'a>(
        &self,
        name: &str,
        batch: &'a RecordBatch,
        start: u64,
        null_values: bool,
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
        // A long table's null grades are kept when read (a list column's
        // nulls are its items', checked below); a null list is refused.
        if let Some(value) = value
            && (!null_values || self.lists)
        {
            no_nulls(value).map_err(|p| at(2, p))?;
        }
        if self.lists {
            let docs = Lists::of(doc);
            let doc_ids = Ids::of(docs.values.as_ref());
            no_nulls(docs.values).map_err(|p| at(1, docs.row_of(p)))?;
            doc_ids.check().map_err(|p| at(1, docs.row_of(p)))?;
            let mut value_nulls = None;
            let values = match value {
                Some(value) => {
                    let lists = Lists::of(value);
                    if null_values {
                        value_nulls = lists.values.logical_nulls();
                    } else {
                        no_nulls(lists.values).map_err(|p| at(2, lists.row_of(p)))?;
                    }
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
                value_nulls,
            })
        } else {
            let doc_ids = Ids::of(doc.as_ref());
            doc_ids.check().map_err(|p| at(1, p))?;
            Ok(Columns {
                query: query_ids,
                doc: doc_ids,
                lists: None,
                values: value.map(|v| numbers(v.as_ref())),
                value_nulls: value
                    .filter(|_| null_values)
                    .and_then(|v| v.logical_nulls()),
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
        let columns = self.columns_of(name, batch, start, false)?;
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
    /// slice of the string column's bytes (`utf8`, `large_utf8`) or
    /// gathered from its views (`utf8_view`). `None` when the table is not
    /// of that kind (the row-by-row path then reads it, and names any
    /// error).
    fn run_part_contiguous<R: TableRunSink>(
        &self,
        name: &str,
        columns: &Columns<'_>,
        rows: usize,
        start: u64,
        run: &mut R,
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
        let scores = &scores[..];
        let pushed = match &columns.doc {
            Ids::Utf8(docs) => self.push_runs(
                name,
                columns,
                rows,
                start,
                run,
                offsets_pusher(docs.value_offsets(), docs.value_data(), scores),
            ),
            Ids::LargeUtf8(docs) => self.push_runs(
                name,
                columns,
                rows,
                start,
                run,
                offsets_pusher(docs.value_offsets(), docs.value_data(), scores),
            ),
            // Views (polars' strings) point at their ids one by one: a
            // query's ids are gathered into one reused buffer, then pushed
            // as a string column's would be.
            Ids::Utf8View(docs) => {
                let mut bytes = Vec::new();
                self.push_runs(name, columns, rows, start, run, |run, query, rows, at| {
                    let views = &docs.views()[rows.clone()];
                    gather_views(docs, views, &mut bytes);
                    let mut end = 0;
                    let ends = views.iter().map(|&view| {
                        end += view as u32 as usize;
                        end
                    });
                    run.push_scored_contiguous(query, &bytes, ends, &scores[rows], at)
                })
            }
            _ => return None,
        };
        Some(pushed)
    }

    /// Pushes each run of rows of one query at once with `push` (given the
    /// sink, the query, the rows and the position of the first); see
    /// [`run_part_contiguous`](Self::run_part_contiguous).
    fn push_runs<R: TableRunSink>(
        &self,
        name: &str,
        columns: &Columns<'_>,
        rows: usize,
        start: u64,
        run: &mut R,
        mut push: impl FnMut(&mut R, &[u8], Range<usize>, u64) -> Result<(), RunError>,
    ) -> Result<(), ReadError> {
        let mut first = 0;
        while first < rows {
            let end = columns.query.run_end(first, rows);
            columns
                .query
                .with(first, |query| {
                    push(run, query, first..end, position(start, first))
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
    /// into `rows`, a null grade meaning `empty` (a pair not judged is
    /// counted in `rows`, at its row).
    pub(crate) fn qrels_part(
        &self,
        name: &str,
        batch: &RecordBatch,
        start: u64,
        rows: &mut QrelsRows,
        empty: EmptyGrade,
    ) -> Result<(), ReadError> {
        let columns = self.columns_of(name, batch, start, empty == EmptyGrade::Unjudged)?;
        let unjudged = |index: usize| {
            columns
                .value_nulls
                .as_ref()
                .is_some_and(|nulls| nulls.is_null(index))
        };
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
                None if unjudged(row) => {
                    // Not judged by this judge: its ids were checked.
                    rows.skip(number);
                    Ok(())
                }
                None => {
                    let grade = grade_at(row)?;
                    columns
                        .doc
                        .with(row, |doc| rows.qrels.push_at(query, doc, grade, at))
                        .map_err(|e| fail(1, e))
                }
                Some(lists) => {
                    let items = lists.range(row);
                    // A list whose every grade is null was not judged: the
                    // query is not declared (an empty list is: judged,
                    // nothing relevant).
                    if items.is_empty() || !items.clone().all(unjudged) {
                        rows.qrels
                            .declare_query(query, at)
                            .map_err(|e| fail(0, e))?;
                    }
                    for item in items {
                        if unjudged(item) {
                            rows.skip(number);
                            continue;
                        }
                        let grade = grade_at(item)?;
                        columns
                            .doc
                            .with(item, |doc| rows.qrels.push_at(query, doc, grade, at))
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
                match self.unread.as_slice() {
                    [] => format!(
                        "document `{doc}` appears twice in the list of query `{query}` (first \
                         on row {first}); to keep the first occurrence, use --duplicates first \
                         (TOML: duplicates = \"first\")"
                    ),
                    // Keeping the first occurrence would merge the runs a
                    // column tells apart into one list: a wrong number.
                    unread => format!(
                        "document `{doc}` appears twice in the list of query `{query}` (first \
                         on row {first}); the table has columns that are not read ({}): if one \
                         tells runs apart (a model, a system), the table holds several runs, \
                         which must be evaluated one by one, each from its own rows; keep the \
                         first occurrence (duplicates first) only if the repeats are one \
                         run's",
                        unread
                            .iter()
                            .take(5)
                            .map(|c| format!("`{}`", rankeval_core::shorten_id(c.as_bytes())))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                },
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
        parts: Vec<QrelsRows>,
        rows: u64,
    ) -> Result<(Qrels, UngradedRows), ReadError> {
        if rows == 0 {
            return Err(empty(name));
        }
        let mut parts = parts.into_iter();
        let mut all = parts.next().unwrap_or_default();
        for part in parts {
            all.append(part, 0);
        }
        let (qrels, ungraded) = all.into_parts(RowAt::Row);
        let qrels = qrels.finish().map_err(|e| match e {
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
        })?;
        Ok((qrels, ungraded))
    }
}

/// The ids of `views` (views of `array`) one after the other in `bytes`,
/// emptied first. An id of up to 12 bytes, in its view, is copied as the
/// view's 12 bytes and cut to its length: a copy of a fixed size, without a
/// call; a longer one from its buffer.
#[inline]
fn gather_views(array: &StringViewArray, views: &[u128], bytes: &mut Vec<u8>) {
    bytes.clear();
    bytes.reserve(views.len() * INLINE_VIEW);
    for &view in views {
        let len = view as u32 as usize;
        if len <= INLINE_VIEW {
            let end = bytes.len() + len;
            bytes.extend_from_slice(&view.to_le_bytes()[4..]);
            bytes.truncate(end);
        } else {
            let buffer = (view >> 64) as u32 as usize;
            let offset = (view >> 96) as u32 as usize;
            bytes.extend_from_slice(&array.data_buffers()[buffer][offset..offset + len]);
        }
    }
}

/// Pushes rows of one query of a string column (`offsets` into `data`),
/// their ids one slice of `data`; see [`Layout::push_runs`].
fn offsets_pusher<'a, O: OffsetSizeTrait, R: TableRunSink>(
    offsets: &'a [O],
    data: &'a [u8],
    scores: &'a [f64],
) -> impl FnMut(&mut R, &[u8], Range<usize>, u64) -> Result<(), RunError> + 'a {
    move |run, query, rows, at| {
        let from = offsets[rows.start].as_usize();
        let to = offsets[rows.end].as_usize();
        let ends = offsets[rows.start + 1..=rows.end]
            .iter()
            .map(move |o| o.as_usize() - from);
        run.push_scored_contiguous(query, &data[from..to], ends, &scores[rows], at)
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

const ID_TYPES: &str =
    "ids: an integer type, a string type (utf8, large_utf8, utf8_view) or a dictionary of those";
const LIST_ID_TYPES: &str = "a list of ids (each an integer or string type)";

/// Whether a column of this type holds ids.
pub(crate) fn is_id(data_type: &DataType) -> bool {
    match data_type {
        DataType::Dictionary(_, values) => is_id(values),
        t => {
            t.is_integer() || matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
        }
    }
}

/// Each row of `array` as text, read as the readers read ids (strings,
/// integers, or a dictionary of either); `None` for a null row. `None`
/// for a column of any other type.
pub(crate) fn column_texts(array: &dyn Array) -> Option<Vec<Option<String>>> {
    if !is_id(array.data_type()) {
        return None;
    }
    let ids = Ids::of(array);
    Some(
        (0..array.len())
            .map(|row| {
                (!array.is_null(row))
                    .then(|| ids.with(row, |bytes| String::from_utf8_lossy(bytes).into_owned()))
            })
            .collect(),
    )
}

/// Whether a column of this type holds numbers.
pub(crate) fn is_number(data_type: &DataType) -> bool {
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
    /// Which values are null, when nulls are read (grades of a judge who
    /// did not judge every pair); `None` when they are refused, or there
    /// is none.
    value_nulls: Option<NullBuffer>,
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
pub(crate) fn numbers(array: &dyn Array) -> Cow<'_, [f64]> {
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
pub(crate) enum Ids<'a> {
    Utf8(&'a StringArray),
    LargeUtf8(&'a LargeStringArray),
    Utf8View(&'a StringViewArray),
    Signed(Signed<'a>),
    Unsigned(Unsigned<'a>),
    /// A dictionary: the key of each row (checked not null), and the values.
    Dictionary(Vec<usize>, Box<Ids<'a>>),
}

/// Signed integer ids.
pub(crate) enum Signed<'a> {
    I8(&'a PrimitiveArray<Int8Type>),
    I16(&'a PrimitiveArray<Int16Type>),
    I32(&'a PrimitiveArray<Int32Type>),
    I64(&'a PrimitiveArray<Int64Type>),
}

/// Unsigned integer ids.
pub(crate) enum Unsigned<'a> {
    U8(&'a PrimitiveArray<UInt8Type>),
    U16(&'a PrimitiveArray<UInt16Type>),
    U32(&'a PrimitiveArray<UInt32Type>),
    U64(&'a PrimitiveArray<UInt64Type>),
}

impl<'a> Ids<'a> {
    /// The ids of `array` (checked to be an id type by [`Layout::new`]).
    pub(crate) fn of(array: &'a dyn Array) -> Self {
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
    pub(crate) fn with<R>(&self, row: usize, then: impl FnOnce(&[u8]) -> R) -> R {
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

    /// The end of the run of rows from `first` (below `rows`) whose ids
    /// [`same`](Self::same) finds equal, one after the other.
    #[inline]
    fn run_end(&self, first: usize, rows: usize) -> usize {
        let mut end = first + 1;
        if let Ids::Utf8View(ids) = self {
            // Equal views first, in one pass over the views: the common case.
            let views = &ids.views()[..rows];
            loop {
                let view = views[end - 1];
                end += views[end..].iter().take_while(|&&v| v == view).count();
                if end < rows && ids.value(end - 1) == ids.value(end) {
                    end += 1;
                } else {
                    return end;
                }
            }
        }
        while end < rows && self.same(end - 1, end) {
            end += 1;
        }
        end
    }

    /// Whether rows `a` and `b` hold the same id, as far as a cheap look
    /// tells (different dictionary keys may name one id: `false` then, and
    /// the builder, which compares the ids, still joins the rows).
    #[inline]
    fn same(&self, a: usize, b: usize) -> bool {
        match self {
            Ids::Utf8(ids) => ids.value(a) == ids.value(b),
            Ids::LargeUtf8(ids) => ids.value(a) == ids.value(b),
            // Equal views are equal ids (the same inline bytes, or the same
            // bytes of the same buffer); unequal ones may still be.
            Ids::Utf8View(ids) => {
                let views = ids.views();
                views[a] == views[b] || ids.value(a) == ids.value(b)
            }
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
            Ids::Utf8View(a) => plain_views(a),
            Ids::Signed(_) | Ids::Unsigned(_) => true,
            Ids::Dictionary(..) => false,
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
        DataType::Utf8View => array
            .as_string_view()
            .views()
            .iter()
            .map(|&view| view as u32 as usize)
            .sum(),
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

/// The longest id a string view holds itself.
const INLINE_VIEW: usize = 12;

/// [`plain_ids`] for a string view array (polars' strings): no view is of
/// length 0 and every byte of every id is printable ASCII other than a
/// space. An id of up to 12 bytes is inside its view: its bytes are checked
/// at once, as the view's two 64-bit words (the bytes that are not the id's
/// replaced by a printable one), without a branch; longer ids, in their
/// data buffers, in a second pass if there are any. `false` also for a
/// view that points outside its buffers.
fn plain_views(array: &StringViewArray) -> bool {
    /// A byte of 1 in each of a word's 8 bytes.
    const ONES: u64 = u64::MAX / 0xff;
    /// The high bit of each byte.
    const HIGH: u64 = ONES * 0x80;
    /// A printable byte in each byte.
    const FILL: u64 = ONES * b'A' as u64;
    /// For each length up to [`INLINE_VIEW`], the bytes of the view's low
    /// and high words that hold an id of that length (after the 4 bytes of
    /// the length).
    const ID_BYTES: [(u64, u64); INLINE_VIEW + 1] = {
        let mut masks = [(0, 0); INLINE_VIEW + 1];
        let mut len = 1;
        while len <= INLINE_VIEW {
            let (low, high) = if len <= 4 { (len, 0) } else { (4, len - 4) };
            masks[len].0 = ((1u64 << (8 * low)) - 1) << 32;
            masks[len].1 = if high == 8 {
                u64::MAX
            } else {
                (1u64 << (8 * high)) - 1
            };
            len += 1;
        }
        masks
    };
    /// Whether a byte of `word` is below `!` or above `~` (0x80 and over
    /// included): exact for "any byte", as borrows and carries start at a
    /// byte that is out of range itself.
    #[inline]
    fn unprintable(word: u64) -> u64 {
        let below = word.wrapping_sub(ONES * b'!' as u64) & !word;
        let above = word.wrapping_add(ONES * (0x7f - b'~') as u64) | word;
        (below | above) & HIGH
    }
    let views = array.views();
    let (mut plain, mut long) = (true, false);
    // A view equal to the one before holds the same id (a query's rows).
    let mut previous = None;
    for &view in views.iter() {
        if previous == Some(view) {
            continue;
        }
        previous = Some(view);
        // The view's layout (little-endian): the length in its low 4 bytes,
        // then the id if it is short, else its first 4 bytes, the buffer's
        // index and the offset in the buffer.
        let len = view as u32 as usize;
        let (low, high) = ID_BYTES[len.min(INLINE_VIEW)];
        let words = [view as u64, (view >> 64) as u64];
        let bad =
            unprintable(words[0] & low | FILL & !low) | unprintable(words[1] & high | FILL & !high);
        let short = len <= INLINE_VIEW;
        plain &= !short | ((len > 0) & (bad == 0));
        long |= !short;
    }
    if !plain || !long {
        return plain;
    }
    let buffers = array.data_buffers();
    views.iter().all(|&view| {
        let len = view as u32 as usize;
        if len <= INLINE_VIEW {
            return true;
        }
        let buffer = (view >> 64) as u32 as usize;
        let offset = (view >> 96) as u32 as usize;
        buffers
            .get(buffer)
            .and_then(|b| b.get(offset..offset.saturating_add(len)))
            .is_some_and(|bytes| bytes.iter().fold(true, |ok, &b| ok & printable(b)))
    })
}

/// Whether `b` is printable ASCII other than a space.
#[inline]
fn printable(b: u8) -> bool {
    b.wrapping_sub(b'!') < 0x7f - b'!'
}

/// Why `id` cannot be an id, if it cannot: it is empty, or holds whitespace
/// or a control character, which no TREC file or report layout can carry.
fn id_problem(id: &str) -> Result<(), String> {
    rankeval_core::check_id(id.as_bytes()).map_err(|bad| bad.to_string())
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
    fn the_columns_to_read_are_found_in_the_whole_schema() {
        use arrow_schema::Field;
        let field = |name: &str, t: DataType| Field::new(name, t, true);
        let schema = Schema::new(vec![
            field("note", DataType::Utf8),
            field("score", DataType::Float64),
            field("user", DataType::Utf8View),
            field("rank", DataType::Int64),
            field("item", DataType::LargeUtf8),
            field("label", DataType::Int8),
        ]);
        let columns = CsvOptions::default();
        assert_eq!(run_columns("run", &schema, &columns).unwrap(), [1, 2, 4]);
        // Without a grade column: the note names every column of the table.
        let (read, note) = qrels_columns("qrels", &schema, &columns).unwrap();
        assert_eq!(read, [2, 4]);
        let Some(QrelsNote::NoGradeColumn { columns: named, .. }) = note else {
            panic!("no note: {note:?}");
        };
        assert_eq!(named, ["note", "score", "user", "rank", "item", "label"]);
        let graded = CsvOptions {
            grade: "label".into(),
            ..CsvOptions::default()
        };
        let (read, note) = qrels_columns("qrels", &schema, &graded).unwrap();
        assert_eq!((read, note), (vec![2, 4, 5], None));
        // An error names every column, as reading the whole table does.
        let wrong = CsvOptions {
            query: "qid".into(),
            ..CsvOptions::default()
        };
        let error = run_columns("run", &schema, &wrong).unwrap_err().to_string();
        assert!(
            error.contains("no column `qid`") && error.contains("label Int8"),
            "{error}"
        );
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

    /// Ids of every kind the checks tell apart: short (in the view) and
    /// long (in a buffer), of each length around 12 bytes, empty, with
    /// whitespace, a control character, a byte of 0x7f or non-ASCII at the
    /// start, the middle or the end.
    fn tricky_ids() -> Vec<String> {
        let mut ids = vec![String::new()];
        for len in 1..=16 {
            let plain: String = (0..len)
                .map(|i| char::from(b'!' + (i * 7 % 94) as u8))
                .collect();
            ids.push(plain.clone());
            for bad in [" ", "\t", "\u{7f}", "\0", "é", "~"] {
                for at in [0, len / 2, len - 1] {
                    let mut id: Vec<char> = plain.chars().collect();
                    id[at] = bad.chars().next().unwrap_or(' ');
                    ids.push(id.into_iter().collect());
                }
            }
        }
        ids
    }

    #[test]
    fn string_views_are_passed_at_a_glance_exactly_as_strings_are() {
        let ids = tricky_ids();
        let check = |ids: &[&str]| {
            let views = StringViewArray::from(ids.to_vec());
            let strings = StringArray::from(ids.to_vec());
            assert_eq!(
                plain_views(&views),
                plain_ids(strings.value_offsets(), strings.value_data()),
                "{ids:?}"
            );
        };
        // Each id alone, after a plain one, and among many plain ones.
        for id in &ids {
            check(&[id]);
            check(&["ok", id]);
            check(&["a-long-plain-id-in-a-buffer", id, "q1", "q1"]);
        }
        let plain: Vec<&str> = ids
            .iter()
            .map(String::as_str)
            .filter(|id| plain_ids(&[0, id.len() as i32], id.as_bytes()))
            .collect();
        assert!(plain.len() > 16, "{plain:?}");
        check(&plain);
        // A slice sees its own views only.
        let views = StringViewArray::from(vec!["a b", "ok", "a-long-plain-id-in-a-buffer", ""]);
        assert!(plain_views(&views.slice(1, 2)));
        assert!(!plain_views(&views.slice(0, 2)));
        assert!(!plain_views(&views.slice(2, 2)));
    }

    /// A sink that records each entry, and how it was pushed.
    #[derive(Default)]
    struct Recorded {
        /// `(query, doc, score, position)` per entry.
        entries: Vec<(String, String, f64, u64)>,
        /// Calls of `push_scored_contiguous`: one per run of rows of a query.
        runs: usize,
        /// Calls of `push_scored_at`: one per row, on the slow path.
        rows: usize,
    }

    impl TableRunSink for Recorded {
        fn declare_list(&mut self, _: &[u8], _: bool, _: usize, _: u64) -> Result<(), RunError> {
            Ok(())
        }

        fn push_scored_at(
            &mut self,
            query: &[u8],
            doc: &[u8],
            score: f64,
            at: u64,
        ) -> Result<(), RunError> {
            self.rows += 1;
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            self.entries.push((text(query), text(doc), score, at));
            Ok(())
        }

        fn push_ranked_at(&mut self, _: &[u8], _: &[u8], _: u64) -> Result<(), RunError> {
            Ok(())
        }

        fn push_scored_contiguous(
            &mut self,
            query: &[u8],
            docs: &[u8],
            ends: impl ExactSizeIterator<Item = usize>,
            scores: &[f64],
            first_at: u64,
        ) -> Result<(), RunError> {
            self.runs += 1;
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            let mut start = 0;
            for (i, end) in ends.enumerate() {
                let at = first_at + i as u64;
                self.entries
                    .push((text(query), text(&docs[start..end]), scores[i], at));
                start = end;
            }
            Ok(())
        }
    }

    /// The run `rows` (`query, doc, score`) read into a [`Recorded`] sink,
    /// its id columns built by `column`, the batch sliced to `rows[skip..]`.
    fn recorded(
        rows: &[(&str, &str, f64)],
        skip: usize,
        column: impl Fn(Vec<&str>) -> ArrayRef,
    ) -> Recorded {
        let batch = RecordBatch::try_from_iter([
            ("query", column(rows.iter().map(|r| r.0).collect())),
            ("doc", column(rows.iter().map(|r| r.1).collect())),
            (
                "score",
                std::sync::Arc::new(arrow_array::Float64Array::from(
                    rows.iter().map(|r| r.2).collect::<Vec<_>>(),
                )) as ArrayRef,
            ),
        ])
        .unwrap();
        let batch = batch.slice(skip, batch.num_rows() - skip);
        let columns = CsvOptions {
            query: "query".into(),
            doc: "doc".into(),
            ..CsvOptions::default()
        };
        let layout = Layout::new("run", batch.schema_ref(), &columns, Kind::Run).unwrap();
        let mut sink = Recorded::default();
        layout.run_part("run", &batch, 10, &mut sink).unwrap();
        sink
    }

    #[test]
    fn string_views_are_pushed_a_query_at_a_time_as_strings_are() {
        let long = "a-document-id-longer-than-twelve-bytes";
        let rows = [
            ("q1", "d1", 0.5),
            ("q1", long, 0.25),
            ("q1", "d3", 0.75),
            ("a-query-id-longer-than-twelve", "d1", 1.0),
            ("a-query-id-longer-than-twelve", "d12345678901", 2.0),
            ("q3", long, 0.0),
            ("q1", "d4", 0.1),
        ];
        for skip in [0, 1, 4] {
            let expected = recorded(&rows, skip, |ids| {
                std::sync::Arc::new(StringArray::from(ids))
            });
            assert_eq!(expected.entries.len(), rows.len() - skip);
            assert_eq!(expected.rows, 0, "strings take the contiguous path");
            let large = recorded(&rows, skip, |ids| {
                std::sync::Arc::new(LargeStringArray::from(ids))
            });
            let views = recorded(&rows, skip, |ids| {
                std::sync::Arc::new(StringViewArray::from(ids))
            });
            for (what, got) in [("large_utf8", large), ("utf8_view", views)] {
                assert_eq!(got.entries, expected.entries, "{what}, from row {skip}");
                assert_eq!(got.rows, 0, "{what} pushed row by row");
                assert_eq!(
                    got.runs, expected.runs,
                    "{what}: one push per run of a query"
                );
            }
        }
    }

    #[test]
    fn equal_long_view_ids_in_other_places_are_one_run() {
        // The builder does not deduplicate: the same long id twice is two
        // views with other offsets, the same query all the same.
        let long = "a-query-id-longer-than-twelve";
        let views = StringViewArray::from(vec![long, long, "q2", "q2", long]);
        assert_ne!(views.views()[0], views.views()[1]);
        let ids = Ids::Utf8View(&views);
        assert_eq!(ids.run_end(0, 5), 2);
        assert_eq!(ids.run_end(2, 5), 4);
        assert_eq!(ids.run_end(4, 5), 5);
        assert!(ids.same(0, 1) && ids.same(2, 3) && !ids.same(1, 2));
        assert_eq!(id_bytes(&views), 3 * long.len() + 4);
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
