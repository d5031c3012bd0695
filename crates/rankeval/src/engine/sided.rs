//! Evaluating a stream of Arrow batches that hold both sides of each query:
//! its judgements and the ranked rows of one or more runs, told apart by a
//! `side` column. This is how a Spark job hands its data over
//! (`DataFrame.mapInArrow` over the union of the run and the qrels,
//! repartitioned by query and sorted within partitions by query and side):
//! every query's rows are contiguous, so the stream is cut at query
//! boundaries into chunks, and each chunk is evaluated as the command line
//! evaluates whole files ([`evaluate`](super::evaluate)): the same
//! finishing, ordering, judging and scoring, so the same bits per query.
//!
//! Per-query values come out as record batches (`query`, `run`, one
//! `Float64` column per metric), with one row per run and chunk that counts
//! what the command line's coverage counts (queries evaluated, left out,
//! run-only, repeats dropped): the caller sums those, no query is dropped
//! without a count.

use std::sync::Arc;

use arrow_array::builder::{Float64Builder, Int8Builder, Int64Builder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::Int8Type;
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use arrow_select::concat::concat_batches;
use arrow_select::filter::filter_record_batch;
use rankeval_core::{Metric, Qrels, QrelsBuilder, Run, RunBuilder};

use super::{Options, evaluate};
use crate::read::{CsvOptions, ReadError, ReadOptions, qrels_from_batches, run_from_batches};

/// The `side` of a judgement row.
pub const SIDE_QRELS: i8 = 0;
/// The `side` of a run's ranked row.
pub const SIDE_RUN: i8 = 1;

/// The input columns, by name: `side` (Int8), `run` (string, the run's
/// name; null on judgement rows), `query` and `doc` (string), `score`
/// (Float64, null on judgement rows) and `grade` (Float64, null on run
/// rows).
pub const INPUT_COLUMNS: [&str; 6] = ["side", "run", "query", "doc", "score", "grade"];

/// The column of an output row's kind: [`KIND_VALUES`] or [`KIND_COUNTS`].
pub const KIND_COLUMN: &str = "_kind";
/// An output row of one query's values on one run.
pub const KIND_VALUES: i8 = 0;
/// An output row of counts for one run over one chunk (no query, no values).
pub const KIND_COUNTS: i8 = 1;
/// The count columns of a [`KIND_COUNTS`] row (null on value rows), in
/// order: queries evaluated, evaluated with a non-empty list, judged but
/// absent from the run and left out, judged but absent and scored 0, in
/// the run without judgements, run rows dropped as repeats.
pub const COUNT_COLUMNS: [&str; 6] = [
    "_evaluated",
    "_ranked",
    "_missing_skipped",
    "_missing_zero",
    "_run_only",
    "_duplicates_dropped",
];

/// Rows gathered before a chunk is evaluated (at the next query boundary).
pub const DEFAULT_CHUNK_ROWS: usize = 1 << 18;

/// Why a sided stream could not be evaluated.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SidedError {
    /// A column is absent or of another type than expected.
    #[error("column `{column}`: {problem}")]
    Column {
        /// The column's name.
        column: &'static str,
        /// What is wrong with it.
        problem: String,
    },
    /// A row has a `side` other than 0 (qrels) or 1 (run).
    #[error("row with side = {0}: expected 0 (judgement) or 1 (run)")]
    Side(i8),
    /// A run row names a run that was not declared.
    #[error("a row of run `{0}`, which is not one of the runs declared")]
    UnknownRun(String),
    /// The judgements or a run of a chunk could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// An empty run or qrels could not be built (never expected).
    #[error("building an empty run or qrels: {0}")]
    Empty(String),
    /// Arrow could not concatenate or filter the batches.
    #[error("arrow: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
}

/// Evaluates a sided stream chunk by chunk: [`push`](Self::push) each batch
/// in order, then [`finish`](Self::finish).
pub struct SidedEvaluator {
    metrics: Vec<Box<dyn Metric>>,
    options: Options,
    read: ReadOptions,
    runs: Vec<String>,
    chunk_rows: usize,
    pending: Vec<RecordBatch>,
    pending_rows: usize,
    output: SchemaRef,
}

impl SidedEvaluator {
    /// An evaluator of `runs` (every run name the stream may hold, in the
    /// order of the output) with `metrics`, `options` and `read` as the
    /// command line takes them; chunks of at least `chunk_rows` rows.
    pub fn new(
        metrics: Vec<Box<dyn Metric>>,
        options: Options,
        read: ReadOptions,
        runs: Vec<String>,
        chunk_rows: usize,
    ) -> Self {
        let output = output_schema(&metrics.iter().map(|m| m.name()).collect::<Vec<_>>());
        Self {
            metrics,
            options,
            read,
            runs,
            chunk_rows: chunk_rows.max(1),
            pending: Vec::new(),
            pending_rows: 0,
            output,
        }
    }

    /// The schema of the output batches.
    pub fn schema(&self) -> SchemaRef {
        self.output.clone()
    }

    /// Takes the next batch of the stream; the results of the queries that
    /// are complete, once enough rows have gathered.
    pub fn push(&mut self, batch: RecordBatch) -> Result<Option<RecordBatch>, SidedError> {
        check_input(&batch)?;
        let rows = batch.num_rows();
        if rows == 0 {
            return Ok(None);
        }
        self.pending_rows += rows;
        if self.pending_rows < self.chunk_rows {
            self.pending.push(batch);
            return Ok(None);
        }
        // The last query of this batch may go on in the next one: hold its
        // rows back.
        let last = last_query_start(&batch);
        if last == 0 {
            // One query's rows fill the batch (a long list): keep gathering.
            self.pending.push(batch);
            return Ok(None);
        }
        self.pending.push(batch.slice(0, last));
        let held = batch.slice(last, rows - last);
        let chunk = std::mem::take(&mut self.pending);
        self.pending_rows = held.num_rows();
        self.pending.push(held);
        self.evaluate_chunk(&chunk).map(Some)
    }

    /// The results of the rows still held: the end of the stream.
    pub fn finish(&mut self) -> Result<Option<RecordBatch>, SidedError> {
        let chunk = std::mem::take(&mut self.pending);
        self.pending_rows = 0;
        if chunk.iter().all(|b| b.num_rows() == 0) {
            return Ok(None);
        }
        self.evaluate_chunk(&chunk).map(Some)
    }

    /// Evaluates whole queries: the judgements and each run of `chunk`.
    fn evaluate_chunk(&self, chunk: &[RecordBatch]) -> Result<RecordBatch, SidedError> {
        let schema = chunk[0].schema();
        let all = concat_batches(&schema, chunk)?;
        let side = all
            .column_by_name("side")
            .map(|c| c.as_primitive::<Int8Type>().clone())
            .ok_or_else(|| missing("side"))?;
        if let Some(bad) = side
            .iter()
            .flatten()
            .find(|s| *s != SIDE_QRELS && *s != SIDE_RUN)
        {
            return Err(SidedError::Side(bad));
        }
        let judged: BooleanArray = side.iter().map(|s| Some(s == Some(SIDE_QRELS))).collect();
        let ranked: BooleanArray = side.iter().map(|s| Some(s == Some(SIDE_RUN))).collect();
        let qrels_rows = filter_record_batch(&all, &judged)?;
        let run_rows = filter_record_batch(&all, &ranked)?;
        let qrels = if qrels_rows.num_rows() == 0 {
            empty_qrels()?
        } else {
            qrels_from_batches("qrels", &[qrels_rows], &columns())?
        };
        let run_names = run_rows
            .column_by_name("run")
            .ok_or_else(|| missing("run"))?
            .clone();
        let run_names = string_values(&run_names, "run")?;
        if let Some(unknown) = run_names
            .iter()
            .flatten()
            .find(|name| !self.runs.iter().any(|r| r == *name))
        {
            return Err(SidedError::UnknownRun(unknown.clone()));
        }
        let mut out = OutputBuilder::new(self.metrics.len());
        for name in &self.runs {
            let mine: BooleanArray = run_names
                .iter()
                .map(|r| Some(r.as_deref() == Some(name.as_str())))
                .collect();
            let rows = filter_record_batch(&run_rows, &mine)?;
            let run = if rows.num_rows() == 0 {
                empty_run()?
            } else {
                run_from_batches(name, &[rows], &columns(), self.read)?
            };
            let evaluation = evaluate(&qrels, &run, &self.metrics, &self.options);
            for (q, query) in evaluation.queries().iter().enumerate() {
                out.values(
                    query,
                    name,
                    (0..self.metrics.len()).map(|m| evaluation.value(q, m)),
                );
            }
            let c = evaluation.coverage();
            out.counts(
                name,
                [
                    c.evaluated,
                    c.ranked,
                    c.missing_skipped.count,
                    c.missing_scored_zero.count,
                    c.run_only.len(),
                    c.duplicates_dropped,
                ],
            );
        }
        out.finish(self.output.clone())
    }
}

/// The output schema for metrics named `metrics`.
pub fn output_schema(metrics: &[String]) -> SchemaRef {
    let mut fields = vec![
        Field::new("query", DataType::Utf8, true),
        Field::new("run", DataType::Utf8, false),
    ];
    fields.extend(
        metrics
            .iter()
            .map(|m| Field::new(m, DataType::Float64, true)),
    );
    fields.push(Field::new(KIND_COLUMN, DataType::Int8, false));
    fields.extend(
        COUNT_COLUMNS
            .iter()
            .map(|c| Field::new(*c, DataType::Int64, true)),
    );
    Arc::new(Schema::new(fields))
}

/// The readers' column names for the sided layout.
fn columns() -> CsvOptions {
    CsvOptions {
        query: "query".to_owned(),
        doc: "doc".to_owned(),
        score: "score".to_owned(),
        grade: "grade".to_owned(),
        ..CsvOptions::default()
    }
}

/// Qrels without a judgement, for a chunk of run rows only.
fn empty_qrels() -> Result<Qrels, SidedError> {
    QrelsBuilder::new()
        .finish()
        .map_err(|e| SidedError::Empty(e.to_string()))
}

/// A run without a row, for a run absent from a chunk.
fn empty_run() -> Result<Run, SidedError> {
    RunBuilder::new()
        .finish(rankeval_core::Duplicates::Error)
        .map_err(|e| SidedError::Empty(e.to_string()))
}

fn missing(column: &'static str) -> SidedError {
    SidedError::Column {
        column,
        problem: "absent".to_owned(),
    }
}

/// Checks the columns the evaluator reads and their types.
fn check_input(batch: &RecordBatch) -> Result<(), SidedError> {
    for column in INPUT_COLUMNS {
        let Some(array) = batch.column_by_name(column) else {
            return Err(missing(column));
        };
        let fits = match column {
            "side" => *array.data_type() == DataType::Int8,
            "score" | "grade" => *array.data_type() == DataType::Float64,
            _ => matches!(
                array.data_type(),
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
            ),
        };
        if !fits {
            let expected = match column {
                "side" => "int8",
                "score" | "grade" => "float64",
                _ => "a string",
            };
            return Err(SidedError::Column {
                column,
                problem: format!("{} where {expected} is expected", array.data_type()),
            });
        }
    }
    Ok(())
}

/// The values of a string column (any of Arrow's three string types).
fn string_values(
    array: &ArrayRef,
    column: &'static str,
) -> Result<Vec<Option<String>>, SidedError> {
    let own = |s: Option<&str>| s.map(str::to_owned);
    Ok(match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().iter().map(own).collect(),
        DataType::LargeUtf8 => array.as_string::<i64>().iter().map(own).collect(),
        DataType::Utf8View => array.as_string_view().iter().map(own).collect(),
        other => {
            return Err(SidedError::Column {
                column,
                problem: format!("{other} where a string is expected"),
            });
        }
    })
}

/// The row where the batch's last query starts (0 if it fills the batch).
fn last_query_start(batch: &RecordBatch) -> usize {
    let Some(query) = batch.column_by_name("query") else {
        return 0;
    };
    let rows = batch.num_rows();
    let at = |i: usize| -> Option<&[u8]> {
        if query.is_null(i) {
            return None;
        }
        Some(match query.data_type() {
            DataType::LargeUtf8 => query.as_string::<i64>().value(i).as_bytes(),
            DataType::Utf8View => query.as_string_view().value(i).as_bytes(),
            _ => query.as_string::<i32>().value(i).as_bytes(),
        })
    };
    let last = at(rows - 1);
    let mut start = rows - 1;
    while start > 0 && at(start - 1) == last {
        start -= 1;
    }
    start
}

/// The output rows being built.
struct OutputBuilder {
    query: StringBuilder,
    run: StringBuilder,
    values: Vec<Float64Builder>,
    kind: Int8Builder,
    counts: Vec<Int64Builder>,
}

impl OutputBuilder {
    fn new(metrics: usize) -> Self {
        Self {
            query: StringBuilder::new(),
            run: StringBuilder::new(),
            values: (0..metrics).map(|_| Float64Builder::new()).collect(),
            kind: Int8Builder::new(),
            counts: (0..COUNT_COLUMNS.len())
                .map(|_| Int64Builder::new())
                .collect(),
        }
    }

    fn values(&mut self, query: &str, run: &str, values: impl Iterator<Item = f64>) {
        self.query.append_value(query);
        self.run.append_value(run);
        for (column, value) in self.values.iter_mut().zip(values) {
            column.append_value(value);
        }
        self.kind.append_value(KIND_VALUES);
        for column in &mut self.counts {
            column.append_null();
        }
    }

    fn counts(&mut self, run: &str, counts: [usize; 6]) {
        self.query.append_null();
        self.run.append_value(run);
        for column in &mut self.values {
            column.append_null();
        }
        self.kind.append_value(KIND_COUNTS);
        for (column, count) in self.counts.iter_mut().zip(counts) {
            column.append_value(count as i64);
        }
    }

    fn finish(mut self, schema: SchemaRef) -> Result<RecordBatch, SidedError> {
        let mut columns: Vec<ArrayRef> =
            vec![Arc::new(self.query.finish()), Arc::new(self.run.finish())];
        columns.extend(
            self.values
                .iter_mut()
                .map(|b| Arc::new(b.finish()) as ArrayRef),
        );
        columns.push(Arc::new(self.kind.finish()));
        columns.extend(
            self.counts
                .iter_mut()
                .map(|b| Arc::new(b.finish()) as ArrayRef),
        );
        Ok(RecordBatch::try_new(schema, columns)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::types::Float64Type;
    use arrow_array::{Float64Array, Int8Array, StringArray};
    use rankeval_core::registry::parse_metric;

    /// A sided row: side, run, query, doc, score, grade.
    type Row<'a> = (
        i8,
        Option<&'a str>,
        &'a str,
        &'a str,
        Option<f64>,
        Option<f64>,
    );

    fn batch(rows: &[Row<'_>]) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("side", DataType::Int8, false),
            Field::new("run", DataType::Utf8, true),
            Field::new("query", DataType::Utf8, false),
            Field::new("doc", DataType::Utf8, false),
            Field::new("score", DataType::Float64, true),
            Field::new("grade", DataType::Float64, true),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(rows.iter().map(|r| r.0).collect::<Int8Array>()),
                Arc::new(rows.iter().map(|r| r.1).collect::<StringArray>()),
                Arc::new(rows.iter().map(|r| Some(r.2)).collect::<StringArray>()),
                Arc::new(rows.iter().map(|r| Some(r.3)).collect::<StringArray>()),
                Arc::new(rows.iter().map(|r| r.4).collect::<Float64Array>()),
                Arc::new(rows.iter().map(|r| r.5).collect::<Float64Array>()),
            ],
        )
        .unwrap()
    }

    /// Spec vectors a and b (AP@5 truncated = 1/3 and 0.65/3) and a query
    /// of the run without judgements, in chunks of any size.
    #[test]
    fn per_query_values_and_counts_in_any_chunking() {
        let mut rows = Vec::new();
        let lists = [
            ("a", ["A", "B", "C", "D", "E"]),
            ("b", ["A", "C", "E", "B", "D"]),
        ];
        for (query, list) in lists {
            for doc in ["B", "D", "Z"] {
                rows.push((SIDE_QRELS, None, query, doc, None, Some(1.0)));
            }
            for (i, doc) in list.into_iter().enumerate() {
                rows.push((SIDE_RUN, Some("r"), query, doc, Some(10.0 - i as f64), None));
            }
        }
        rows.push((SIDE_RUN, Some("r"), "c", "A", Some(1.0), None));
        for chunk_rows in [1, 3, 9, 100] {
            let mut evaluator = SidedEvaluator::new(
                vec![parse_metric("ap@5").unwrap()],
                Options::default(),
                ReadOptions::default(),
                vec!["r".to_owned()],
                chunk_rows,
            );
            let mut out = Vec::new();
            for piece in rows.chunks(4) {
                out.extend(evaluator.push(batch(piece)).unwrap());
            }
            out.extend(evaluator.finish().unwrap());
            let mut values = Vec::new();
            let mut run_only = 0;
            for b in &out {
                let kind = b
                    .column_by_name(KIND_COLUMN)
                    .unwrap()
                    .as_primitive::<Int8Type>();
                let ap = b
                    .column_by_name("ap@5")
                    .unwrap()
                    .as_primitive::<Float64Type>();
                let query = b.column_by_name("query").unwrap().as_string::<i32>();
                let ro = b
                    .column_by_name("_run_only")
                    .unwrap()
                    .as_primitive::<arrow_array::types::Int64Type>();
                for i in 0..b.num_rows() {
                    if kind.value(i) == KIND_VALUES {
                        values.push((query.value(i).to_owned(), ap.value(i)));
                    } else {
                        run_only += ro.value(i);
                    }
                }
            }
            values.sort_by(|x, y| x.0.cmp(&y.0));
            assert_eq!(
                values,
                vec![
                    ("a".to_owned(), 1.0 / 3.0),
                    ("b".to_owned(), (1.0 / 4.0 + 2.0 / 5.0) / 3.0)
                ],
                "chunks of {chunk_rows}"
            );
            assert_eq!(run_only, 1, "chunks of {chunk_rows}");
        }
    }

    #[test]
    fn bad_columns_and_unknown_runs_are_errors() {
        let metrics = vec![parse_metric("ap").unwrap()];
        let mut evaluator = SidedEvaluator::new(
            metrics,
            Options::default(),
            ReadOptions::default(),
            vec![],
            1,
        );
        let good = batch(&[(SIDE_RUN, Some("x"), "q", "d", Some(1.0), None)]);
        assert!(
            evaluator.push(good).unwrap().is_none(),
            "one query: held back"
        );
        let err = evaluator.finish().unwrap_err().to_string();
        assert!(err.contains("run `x`"), "{err}");
        let no_side = good_without_side();
        let err = evaluator.push(no_side).unwrap_err().to_string();
        assert_eq!(err, "column `side`: absent");
    }

    fn good_without_side() -> RecordBatch {
        let b = batch(&[(SIDE_RUN, Some("x"), "q", "d", Some(1.0), None)]);
        b.project(&[1, 2, 3, 4, 5]).unwrap()
    }
}
