//! A baseline's per-query values from a Parquet table of `query`, `run`
//! and one float column per metric: what `rankeval_rs.spark` writes
//! (`SparkEvaluation.write_parquet`), a file or a directory of part files.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::baseline::BaselineResults;

/// The results of run `run` (or the table's only run) in the Parquet file or
/// directory at `path`; the error says what is wrong, for the caller to
/// name the file.
pub(crate) fn read(path: &Path, run: Option<&str>) -> Result<BaselineResults, String> {
    let (metrics, rows) = read_table(path)?;
    let names = || {
        rows.keys()
            .map(|r| format!("`{r}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (name, queries) = match run {
        Some(wanted) => rows
            .get_key_value(wanted)
            .ok_or_else(|| format!("no run named `{wanted}` in the table (it has {})", names()))?,
        None if rows.len() == 1 => rows.iter().next().ok_or("the table holds no run")?,
        None if rows.is_empty() => return Err("the table holds no run".into()),
        None => {
            return Err(format!(
                "the table holds several runs ({}): say which one is the baseline",
                names()
            ));
        }
    };
    Ok(results(path, name, &metrics, queries))
}

/// Every run of the Parquet file or directory at `path`, in byte order of
/// their names; the error says what is wrong, for the caller to name the
/// file.
pub(crate) fn read_all(path: &Path) -> Result<Vec<BaselineResults>, String> {
    let (metrics, rows) = read_table(path)?;
    if rows.is_empty() {
        return Err("the table holds no run".into());
    }
    Ok(rows
        .iter()
        .map(|(name, queries)| results(path, name, &metrics, queries))
        .collect())
}

/// One run's results from its rows (query -> values in metric order).
fn results(
    path: &Path,
    name: &str,
    metrics: &[String],
    queries: &BTreeMap<String, Vec<f64>>,
) -> BaselineResults {
    let mut per_query = vec![Vec::with_capacity(queries.len()); metrics.len()];
    for values in queries.values() {
        for (column, value) in per_query.iter_mut().zip(values) {
            column.push(*value);
        }
    }
    BaselineResults {
        name: name.to_owned(),
        source: path.display().to_string(),
        metrics: metrics.to_vec(),
        queries: queries.keys().cloned().collect(),
        per_query,
    }
}

/// The metric columns and every run's rows (run -> query -> values in
/// metric order) of the Parquet file or directory at `path`.
#[allow(clippy::type_complexity)] // the nested maps are the table's shape
fn read_table(
    path: &Path,
) -> Result<(Vec<String>, BTreeMap<String, BTreeMap<String, Vec<f64>>>), String> {
    let mut metrics: Option<Vec<String>> = None;
    // run -> query -> values, in metric order.
    let mut rows: BTreeMap<String, BTreeMap<String, Vec<f64>>> = BTreeMap::new();
    for file in parts(path)? {
        let shown = file.display().to_string();
        let opened = File::open(&file).map_err(|e| format!("{shown}: cannot read: {e}"))?;
        let reader = ParquetRecordBatchReaderBuilder::try_new(opened)
            .and_then(|b| b.build())
            .map_err(|e| format!("{shown}: not a Parquet file: {e}"))?;
        for batch in reader {
            let batch = batch.map_err(|e| format!("{shown}: {e}"))?;
            let names = metric_names(&batch);
            match &metrics {
                None => metrics = Some(names.clone()),
                Some(first) if *first != names => {
                    return Err(format!(
                        "{shown}: the metric columns {names:?} differ from {first:?} in another part"
                    ));
                }
                Some(_) => {}
            }
            add_rows(&batch, &names, &mut rows).map_err(|e| format!("{shown}: {e}"))?;
        }
    }
    let metrics = metrics.ok_or("no Parquet part holds a row group")?;
    Ok((metrics, rows))
}

/// The Parquet files of `path`: itself, or a directory's `*.parquet` files
/// in name order (Spark's part files; its `_SUCCESS` and `.crc` files left
/// aside).
fn parts(path: &Path) -> Result<Vec<PathBuf>, String> {
    if !path.is_dir() {
        return Ok(vec![path.to_owned()]);
    }
    let entries = std::fs::read_dir(path).map_err(|e| format!("cannot list the directory: {e}"))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "parquet")
                && !p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with('.') || n.starts_with('_'))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err("the directory holds no .parquet file".into());
    }
    Ok(files)
}

/// Every column but `query` and `run`, in order.
fn metric_names(batch: &RecordBatch) -> Vec<String> {
    batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .filter(|n| n != "query" && n != "run")
        .collect()
}

/// Adds the batch's rows to `rows`; a query seen twice for a run is an error.
fn add_rows(
    batch: &RecordBatch,
    metrics: &[String],
    rows: &mut BTreeMap<String, BTreeMap<String, Vec<f64>>>,
) -> Result<(), String> {
    let query = strings(batch, "query")?;
    let run = strings(batch, "run")?;
    let columns = metrics
        .iter()
        .map(|m| floats(batch.column_by_name(m), m))
        .collect::<Result<Vec<_>, _>>()?;
    for i in 0..batch.num_rows() {
        let (Some(q), Some(r)) = (&query[i], &run[i]) else {
            return Err(format!("row {}: a null query or run", i + 1));
        };
        let values = columns.iter().map(|c| c[i]).collect();
        if rows
            .entry(r.clone())
            .or_default()
            .insert(q.clone(), values)
            .is_some()
        {
            return Err(format!("run `{r}` has query `{q}` twice"));
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
    let column = column.ok_or_else(|| format!("no column `{name}`"))?;
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
        other => return Err(format!("metric column `{name}` is {other}, not floats")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Float64Array, StringArray};
    use arrow_schema::{Field, Schema};
    use parquet::arrow::ArrowWriter;
    use std::sync::Arc;

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
        let x = read(dir.path(), Some("x")).unwrap();
        assert_eq!(x.queries, ["q1", "q10", "q2"]);
        assert_eq!(x.metrics, ["ap"]);
        assert!(x.per_query[0][0].is_nan());
        assert_eq!(&x.per_query[0][1..], &[0.25, 0.5]);
        let err = read(dir.path(), None).unwrap_err();
        assert!(err.contains("several runs (`x`, `y`)"), "{err}");
        let err = read(dir.path(), Some("z")).unwrap_err();
        assert!(err.contains("no run named `z`"), "{err}");
    }

    #[test]
    fn a_query_twice_or_a_missing_column_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.parquet");
        write(&file, &[("q1", "x", Some(0.5)), ("q1", "x", Some(1.0))]);
        assert!(read(&file, None).unwrap_err().contains("query `q1` twice"));
    }
}
