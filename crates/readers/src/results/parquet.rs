//! Per-query results from a Parquet table of `query`, `run` and one float
//! column per metric: what `rankeval_rs.spark` writes
//! (`SparkEvaluation.write_parquet`), a file or a directory of part files.

use std::collections::BTreeMap;
use std::fs::File;

use crate::{ReadError, ReadErrorKind};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type};
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchReader};
use arrow_schema::{DataType, Schema};
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::file::reader::ChunkReader;
use rankeval_core::{check_id, shorten_id};

use super::input::{Part, PartData};
use super::{RunResults, metric_name_problem};

/// Every run's rows: run -> query -> values in metric order.
type Rows = BTreeMap<String, BTreeMap<String, Vec<f64>>>;

/// The results of run `run` (or the table's only run) in the Parquet
/// `parts` of the table `source`; the error says what is wrong, for the
/// caller to name the table.
pub(crate) fn read(source: &str, parts: &[Part], run: Option<&str>) -> Result<RunResults, String> {
    let (metrics, rows) = read_table(source, parts)?;
    let names = || {
        rows.keys()
            .map(|r| format!("`{}`", shorten_id(r.as_bytes())))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (name, queries) = match run {
        Some(wanted) => rows.get_key_value(wanted).ok_or_else(|| {
            format!(
                "no run named `{}` in the table (it has {})",
                shorten_id(wanted.as_bytes()),
                names()
            )
        })?,
        None if rows.len() == 1 => rows.iter().next().ok_or("the table holds no run")?,
        None if rows.is_empty() => return Err("the table holds no run".into()),
        None => {
            return Err(format!(
                "the table holds several runs ({}): say which one is the baseline",
                names()
            ));
        }
    };
    Ok(results(source, name, &metrics, queries))
}

/// Every run of the Parquet `parts` of the table `source`, in byte order
/// of their names; the error says what is wrong, for the caller to name
/// the table.
pub(crate) fn read_all(source: &str, parts: &[Part]) -> Result<Vec<RunResults>, String> {
    let (metrics, rows) = read_table(source, parts)?;
    if rows.is_empty() {
        return Err("the table holds no run".into());
    }
    Ok(rows
        .iter()
        .map(|(name, queries)| results(source, name, &metrics, queries))
        .collect())
}

/// One run's results from its rows (query -> values in metric order).
fn results(
    source: &str,
    name: &str,
    metrics: &[String],
    queries: &BTreeMap<String, Vec<f64>>,
) -> RunResults {
    let mut per_query = vec![Vec::with_capacity(queries.len()); metrics.len()];
    for values in queries.values() {
        for (column, value) in per_query.iter_mut().zip(values) {
            column.push(*value);
        }
    }
    RunResults {
        name: name.to_owned(),
        source: source.to_owned(),
        metrics: metrics.to_vec(),
        queries: queries.keys().cloned().collect(),
        per_query,
    }
}

/// The metric columns and every run's rows of the table of `parts`
/// (`source` names the whole table: a part is named in a message only
/// when it is a file of a directory).
fn read_table(source: &str, parts: &[Part]) -> Result<(Vec<String>, Rows), String> {
    let mut metrics: Option<Vec<String>> = None;
    let mut rows = Rows::new();
    for part in parts {
        let located = |problem: String| {
            if part.name == source {
                problem
            } else {
                format!("{}: {problem}", part.name)
            }
        };
        let table = match &part.data {
            PartData::File(path) => {
                let file = File::open(path).map_err(|e| located(format!("cannot read: {e}")))?;
                PartTable::open(&part.name, file)
            }
            PartData::Bytes(bytes) => PartTable::open(&part.name, bytes.clone()),
        }
        .map_err(located)?;
        let names = metric_names(&table.schema).map_err(located)?;
        match &metrics {
            None => metrics = Some(names.clone()),
            Some(first) if *first != names => {
                return Err(located(format!(
                    "the metric columns {} differ from {} in another part",
                    listed(&names),
                    listed(first)
                )));
            }
            Some(_) => {}
        }
        let mut row = 0u64;
        let mut batches = table.batches;
        while let Some(batch) = next_batch(&part.name, &mut batches).map_err(located)? {
            add_rows(&batch, &names, row, &mut rows).map_err(located)?;
            row += batch.num_rows() as u64;
        }
    }
    let metrics = metrics.ok_or("no Parquet part holds a row group")?;
    Ok((metrics, rows))
}

/// A Parquet part opened: its schema and its batches.
struct PartTable {
    schema: std::sync::Arc<Schema>,
    batches: ParquetRecordBatchReader,
}

impl PartTable {
    /// Reads the footer of the part `name` from `reader` (a panic of the
    /// decoder on a damaged footer is an error, as every reader's).
    fn open<R: ChunkReader + 'static>(name: &str, reader: R) -> Result<Self, String> {
        crate::decoding(name, "Parquet", || {
            let batches = ParquetRecordBatchReaderBuilder::try_new(reader)
                .and_then(|b| b.build())
                .map_err(|e| bad(name, format!("not a readable Parquet file: {e}")))?;
            Ok(Self {
                schema: batches.schema(),
                batches,
            })
        })
        .map_err(|e| e.kind.to_string())
    }
}

/// The next batch of the part `name`: its pages decoded and their
/// checksums verified (where the writer stored them), a damaged page an
/// error.
fn next_batch(
    name: &str,
    batches: &mut ParquetRecordBatchReader,
) -> Result<Option<RecordBatch>, String> {
    crate::decoding(name, "Parquet", || {
        batches
            .next()
            .transpose()
            .map_err(|e| bad(name, format!("cannot decode the table: {e}")))
    })
    .map_err(|e| e.kind.to_string())
}

/// A problem of the Parquet part `name`, as the readers' fence wants it.
fn bad(name: &str, problem: String) -> ReadError {
    ReadError {
        path: name.to_owned(),
        line: None,
        kind: ReadErrorKind::BadField(problem),
    }
}

/// The columns' names, listed for a message.
fn listed(names: &[String]) -> String {
    if names.is_empty() {
        return "(none)".to_owned();
    }
    names
        .iter()
        .map(|n| format!("`{}`", shorten_id(n.as_bytes())))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every column but `query` and `run`, in order: the metrics. A table
/// without `query` or `run`, without a metric column, or with a metric
/// column that is not of floats is an error naming the columns it has.
fn metric_names(schema: &Schema) -> Result<Vec<String>, String> {
    let all: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    for needed in ["query", "run"] {
        if !all.iter().any(|n| n == needed) {
            return Err(format!(
                "no column `{needed}` (the table has {}; a per-query table has `query`, `run` \
                 and one float column per metric)",
                listed(&all)
            ));
        }
    }
    let metrics: Vec<String> = all
        .iter()
        .filter(|n| *n != "query" && *n != "run")
        .cloned()
        .collect();
    if metrics.is_empty() {
        return Err(format!(
            "no metric column: the table has only {} (a per-query table has `query`, `run` and \
             one float column per metric)",
            listed(&all)
        ));
    }
    for field in schema.fields() {
        let name = field.name();
        if name == "query" || name == "run" {
            continue;
        }
        if let Some(problem) = metric_name_problem(name) {
            return Err(format!(
                "column `{}`: {problem}",
                shorten_id(name.as_bytes())
            ));
        }
        if !matches!(field.data_type(), DataType::Float64 | DataType::Float32) {
            return Err(format!(
                "metric column `{}` is {}, not floats",
                shorten_id(name.as_bytes()),
                field.data_type()
            ));
        }
    }
    Ok(metrics)
}

/// Adds the batch's rows (the first one row `before + 1` of its part) to
/// `rows`: each id checked, a query seen twice for a run an error.
fn add_rows(
    batch: &RecordBatch,
    metrics: &[String],
    before: u64,
    rows: &mut Rows,
) -> Result<(), String> {
    let query = strings(batch, "query")?;
    let run = strings(batch, "run")?;
    let columns = metrics
        .iter()
        .map(|m| floats(batch.column_by_name(m), m))
        .collect::<Result<Vec<_>, _>>()?;
    for i in 0..batch.num_rows() {
        let row = before + i as u64 + 1;
        let (Some(q), Some(r)) = (&query[i], &run[i]) else {
            return Err(format!(
                "row {row}: a null in column `{}`",
                if query[i].is_none() { "query" } else { "run" }
            ));
        };
        check_id(q.as_bytes()).map_err(|e| format!("row {row}, column `query`: {e}"))?;
        check_id(r.as_bytes()).map_err(|e| format!("row {row}, column `run`: {e}"))?;
        let values = columns.iter().map(|c| c[i]).collect();
        if rows
            .entry(r.clone())
            .or_default()
            .insert(q.clone(), values)
            .is_some()
        {
            return Err(format!(
                "row {row}: run `{}` has query `{}` twice",
                shorten_id(r.as_bytes()),
                shorten_id(q.as_bytes())
            ));
        }
    }
    Ok(())
}

/// A string column's values (any of Arrow's string types).
fn strings(batch: &RecordBatch, name: &str) -> Result<Vec<Option<String>>, String> {
    let column = batch.column_by_name(name).ok_or_else(|| {
        format!("no column `{name}` (a per-query table has `query`, `run` and a column per metric)")
    })?;
    let own = |s: Option<&str>| s.map(str::to_owned);
    Ok(match column.data_type() {
        DataType::Utf8 => column.as_string::<i32>().iter().map(own).collect(),
        DataType::LargeUtf8 => column.as_string::<i64>().iter().map(own).collect(),
        DataType::Utf8View => column.as_string_view().iter().map(own).collect(),
        other => return Err(format!("column `{name}` is {other}, not strings")),
    })
}

/// A metric column's values, a null read as NaN (as a JSON `null` is).
fn floats(column: Option<&ArrayRef>, name: &str) -> Result<Vec<f64>, String> {
    let column = column.ok_or_else(|| format!("no column `{}`", shorten_id(name.as_bytes())))?;
    Ok(match column.data_type() {
        DataType::Float64 => column
            .as_primitive::<Float64Type>()
            .iter()
            .map(|v| v.unwrap_or(f64::NAN))
            .collect(),
        DataType::Float32 => column
            .as_primitive::<Float32Type>()
            .iter()
            .map(|v| v.map_or(f64::NAN, f64::from))
            .collect(),
        other => {
            return Err(format!(
                "metric column `{}` is {other}, not floats",
                shorten_id(name.as_bytes())
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Float64Array, StringArray};
    use arrow_schema::Field;
    use parquet::arrow::ArrowWriter;
    use std::path::Path;
    use std::sync::Arc;

    use crate::results::input::{ResultsInput, load};

    fn write(path: &Path, rows: &[(&str, &str, Option<f64>)]) {
        let schema = Arc::new(Schema::new(vec![
            Field::new("query", DataType::Utf8, true),
            Field::new("run", DataType::Utf8, true),
            Field::new("ap", DataType::Float64, true),
        ]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(rows.iter().map(|r| Some(r.0)).collect::<StringArray>()),
                Arc::new(rows.iter().map(|r| Some(r.1)).collect::<StringArray>()),
                Arc::new(rows.iter().map(|r| r.2).collect::<Float64Array>()),
            ],
        )
        .unwrap();
        let mut writer = ArrowWriter::try_new(File::create(path).unwrap(), schema, None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
    }

    /// The run `run` of the table at `path`, as `--baseline` reads it.
    fn read_at(path: &Path, run: Option<&str>) -> Result<RunResults, String> {
        let ResultsInput::Parquet(parts) = load(path)? else {
            panic!("{} is not read as Parquet", path.display());
        };
        read(&path.display().to_string(), &parts, run)
    }

    #[test]
    fn a_directory_of_parts_reads_as_one_table_in_query_order() {
        let dir = tempfile::tempdir().unwrap();
        write(
            &dir.path().join("part-1.parquet"),
            &[("q2", "x", Some(0.5)), ("q1", "y", Some(1.0))],
        );
        write(
            &dir.path().join("part-0.parquet"),
            &[("q1", "x", None), ("q10", "x", Some(0.25))],
        );
        std::fs::write(dir.path().join("_SUCCESS"), "").unwrap();
        let x = read_at(dir.path(), Some("x")).unwrap();
        assert_eq!(x.queries, ["q1", "q10", "q2"]);
        assert_eq!(x.metrics, ["ap"]);
        assert!(x.per_query[0][0].is_nan());
        assert_eq!(&x.per_query[0][1..], &[0.25, 0.5]);
        let err = read_at(dir.path(), None).unwrap_err();
        assert!(err.contains("several runs (`x`, `y`)"), "{err}");
        let err = read_at(dir.path(), Some("z")).unwrap_err();
        assert!(err.contains("no run named `z`"), "{err}");
    }

    #[test]
    fn a_query_twice_or_a_missing_column_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.parquet");
        write(&file, &[("q1", "x", Some(0.5)), ("q1", "x", Some(1.0))]);
        let err = read_at(&file, None).unwrap_err();
        assert!(err.contains("row 2: run `x` has query `q1` twice"), "{err}");
    }

    #[test]
    fn bad_ids_are_refused_naming_the_row_and_column_and_cut() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.parquet");
        let long = format!("q{} ", "x".repeat(1 << 20));
        for (rows, needle) in [
            (
                vec![("q1", "x", Some(0.5)), ("q\x1b[31m", "x", Some(1.0))],
                "row 2, column `query`: the id `q\\u{1b}[31m` contains U+001B",
            ),
            (
                vec![("q1", "a b", Some(0.5))],
                "row 1, column `run`: the id `a b`",
            ),
            (
                vec![("", "x", Some(0.5))],
                "row 1, column `query`: an id cannot be empty",
            ),
            (
                vec![("q1", "x", Some(0.5)), (long.as_str(), "x", Some(1.0))],
                "(1048578 bytes)` contains U+0020",
            ),
        ] {
            write(&file, &rows);
            let err = read_at(&file, None).unwrap_err();
            assert!(err.contains(needle), "{err}");
            assert!(err.len() < 1000, "{} bytes", err.len());
        }
    }
}
