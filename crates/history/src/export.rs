//! Records exported for other tools: CSV and Parquet as one long table of
//! per-query values (DuckDB, pandas, polars read either), JSON Lines as one
//! record per line with its means (what MLflow's `log_metrics` and W&B's
//! `log` take, in two lines of Python: docs/history.md).
//!
//! The long table's columns, in order: `record` (id), `time` (RFC 3339
//! UTC), `run`, `label`, `commit`, `accepted`, `metric`,
//! `definition_version`, `query`, `value`. CSV quotes a field as RFC 4180
//! says and writes a NaN value as an empty field; Parquet keeps every value's
//! bits. An off-policy record (`rankeval ope --record`) has one row per
//! estimate, its `query` empty and its `value` the estimate (its standard
//! error, interval and refusal are in the JSON Lines).
//!
//! An export streams: the records' ids are listed (8 bytes a record), then
//! each record is read, written and dropped before the next is read; CSV
//! and JSON Lines go through a buffered writer, Parquet is written in row
//! groups of at most [`ROW_GROUP_ROWS`] rows, each flushed to `out` when
//! full. Memory is one record and one row group, whatever the history's
//! size (scripts/bench/history.sh measures the peak).

use std::io::Write;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray, UInt32Array,
};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use serde_json::{Map, Value, json};

use crate::record::Record;
use crate::time::rfc3339;
use crate::{History, HistoryError};

/// An export format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// CSV, the long table of per-query values.
    Csv,
    /// JSON Lines, one record per line.
    Jsonl,
    /// Parquet, the long table of per-query values.
    Parquet,
}

/// The long table's columns, in order.
pub const COLUMNS: [&str; 10] = [
    "record",
    "time",
    "run",
    "label",
    "commit",
    "accepted",
    "metric",
    "definition_version",
    "query",
    "value",
];

/// The most rows of one Parquet row group: what an export holds before it
/// writes them (parquet's own default, said here so that the bound on
/// memory is ours).
pub const ROW_GROUP_ROWS: usize = 1024 * 1024;

impl History {
    /// Writes every record to `out` in `format`, one record read at a time
    /// (a history larger than memory exports: module docs).
    pub fn export(
        &mut self,
        format: ExportFormat,
        out: impl Write + Send,
    ) -> Result<(), HistoryError> {
        let ids = self.ids()?;
        let path = self.path.clone();
        let failed = |detail: String| HistoryError::Export {
            path: path.clone(),
            detail,
        };
        match format {
            ExportFormat::Csv => {
                let mut out = std::io::BufWriter::new(out);
                let io = |e: std::io::Error| failed(e.to_string());
                writeln!(out, "{}", COLUMNS.join(",")).map_err(io)?;
                for id in ids {
                    write_csv(&mut out, &self.get(id)?).map_err(io)?;
                }
                out.flush().map_err(io)
            }
            ExportFormat::Jsonl => {
                let mut out = std::io::BufWriter::new(out);
                let io = |e: std::io::Error| failed(e.to_string());
                for id in ids {
                    let line = json_line(&self.get(id)?);
                    serde_json::to_writer(&mut out, &line).map_err(|e| failed(e.to_string()))?;
                    out.write_all(b"\n").map_err(io)?;
                }
                out.flush().map_err(io)
            }
            ExportFormat::Parquet => {
                let schema = Arc::new(schema());
                let parquet = |e: parquet::errors::ParquetError| failed(e.to_string());
                let properties = parquet::file::properties::WriterProperties::builder()
                    .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
                    .build();
                let mut writer =
                    ArrowWriter::try_new(out, schema.clone(), Some(properties)).map_err(parquet)?;
                for id in ids {
                    let batch =
                        batch(&schema, &self.get(id)?).map_err(|e| failed(e.to_string()))?;
                    writer.write(&batch).map_err(parquet)?;
                }
                writer.close().map(drop).map_err(parquet)
            }
        }
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a line end.
fn csv_field(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\"")).into()
    } else {
        text.into()
    }
}

/// The long table's rows of `record` as CSV.
fn write_csv(out: &mut impl Write, record: &Record) -> std::io::Result<()> {
    let d = &record.data;
    let head = format!(
        "{},{},{},{},{},{}",
        record.id,
        rfc3339(d.time_ms),
        csv_field(&d.run),
        csv_field(d.label.as_deref().unwrap_or("")),
        csv_field(d.commit.as_deref().unwrap_or("")),
        record.accepted
    );
    for metric in &d.metrics {
        let name = csv_field(&metric.name);
        for (query, value) in d.queries.iter().zip(&metric.values) {
            let value = if value.is_nan() {
                String::new()
            } else {
                format!("{value:?}")
            };
            writeln!(
                out,
                "{head},{name},{},{},{value}",
                metric.definition_version,
                csv_field(query)
            )?;
        }
    }
    for estimate in &d.estimates {
        let value = if estimate.value.is_nan() {
            String::new()
        } else {
            format!("{:?}", estimate.value)
        };
        writeln!(
            out,
            "{head},{},{},,{value}",
            csv_field(&estimate.name),
            estimate.definition_version
        )?;
    }
    Ok(())
}

/// `record` as one JSON object: its fields, `means` (`{metric: mean}`, for
/// MLflow and W&B), `metrics` (mean, interval, n, definition version) and
/// `per_query` (`{metric: {query: value}}`, NaN as null). An off-policy
/// record's `metrics` are its estimates (`mean` the estimate, with its
/// `standard_error` and `refused`), its `means` the estimates that are not
/// refused (a refused one is null: logged, it would read as measured).
pub fn json_line(record: &Record) -> Value {
    let d = &record.data;
    let mut means = Map::new();
    let mut metrics = Map::new();
    let mut per_query = Map::new();
    for m in &d.metrics {
        let mean = rankeval_core::exact_sum::fmean(&m.values);
        let interval = rankeval_stats::t_interval(&m.values, crate::LEVEL).ok();
        means.insert(m.name.clone(), json!(mean));
        metrics.insert(
            m.name.clone(),
            json!({
                "mean": mean,
                "lower": interval.map(|i| i.lower),
                "upper": interval.map(|i| i.upper),
                "n": m.values.len(),
                "definition_version": m.definition_version,
            }),
        );
        let values: Map<String, Value> = d
            .queries
            .iter()
            .zip(&m.values)
            .map(|(q, v)| (q.clone(), json!(v)))
            .collect();
        per_query.insert(m.name.clone(), Value::Object(values));
    }
    for e in &d.estimates {
        let usable = e.refused.is_none();
        means.insert(e.name.clone(), json!(usable.then_some(e.value)));
        metrics.insert(
            e.name.clone(),
            json!({
                "mean": e.value,
                "standard_error": e.standard_error,
                "lower": e.interval.0,
                "upper": e.interval.1,
                "n": e.n,
                "definition_version": e.definition_version,
                "refused": e.refused,
            }),
        );
    }
    json!({
        "kind": d.kind().as_str(),
        "id": record.id,
        "time": rfc3339(d.time_ms),
        "time_ms": d.time_ms,
        "run": d.run,
        "label": d.label,
        "commit": d.commit,
        "accepted": record.accepted,
        "rankeval_version": d.rankeval_version,
        "qrels_fingerprint": d.qrels_fingerprint,
        "definitions_fingerprint": record.definitions_fingerprint,
        "run_hash": d.run_hash,
        "experiment_hash": d.experiment_hash,
        "options": d.options,
        "metadata": d.metadata,
        "means": means,
        "metrics": metrics,
        "per_query": per_query,
    })
}

/// The long table's Arrow schema.
fn schema() -> Schema {
    let text = |name: &str, nullable: bool| Field::new(name, DataType::Utf8, nullable);
    Schema::new(vec![
        Field::new("record", DataType::Int64, false),
        text("time", false),
        text("run", false),
        text("label", true),
        text("commit", true),
        Field::new("accepted", DataType::Boolean, false),
        text("metric", false),
        Field::new("definition_version", DataType::UInt32, false),
        text("query", false),
        Field::new("value", DataType::Float64, false),
    ])
}

/// The long table's rows of `record` as one batch.
fn batch(schema: &Arc<Schema>, record: &Record) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let d = &record.data;
    let rows = d.queries.len() * d.metrics.len() + d.estimates.len();
    let repeat = |text: Option<&str>| -> ArrayRef { Arc::new(StringArray::from(vec![text; rows])) };
    let metric: Vec<&str> = d
        .metrics
        .iter()
        .flat_map(|m| std::iter::repeat_n(m.name.as_str(), d.queries.len()))
        .chain(d.estimates.iter().map(|e| e.name.as_str()))
        .collect();
    let version: Vec<u32> = d
        .metrics
        .iter()
        .flat_map(|m| std::iter::repeat_n(m.definition_version, d.queries.len()))
        .chain(d.estimates.iter().map(|e| e.definition_version))
        .collect();
    let query: Vec<&str> = d
        .metrics
        .iter()
        .flat_map(|_| d.queries.iter().map(String::as_str))
        .chain(d.estimates.iter().map(|_| ""))
        .collect();
    let value: Vec<f64> = d
        .metrics
        .iter()
        .flat_map(|m| m.values.iter().copied())
        .chain(d.estimates.iter().map(|e| e.value))
        .collect();
    let time = rfc3339(d.time_ms);
    RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from(vec![record.id; rows])),
            repeat(Some(&time)),
            repeat(Some(&d.run)),
            repeat(d.label.as_deref()),
            repeat(d.commit.as_deref()),
            Arc::new(BooleanArray::from(vec![record.accepted; rows])),
            Arc::new(StringArray::from(metric)),
            Arc::new(UInt32Array::from(version)),
            Arc::new(StringArray::from(query)),
            Arc::new(Float64Array::from(value)),
        ],
    )
}
