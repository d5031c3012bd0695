//! Aggregator states of per-query columns, where the queries are split (a
//! Spark job's partitions): each part updates every run's (metric,
//! aggregator) states ([`ColumnStates`]), sends them as bytes
//! ([`ColumnStates::take`]), and the driver merges every part's bytes and
//! finishes them ([`finish_aggregates`]) into the bits the command line's
//! aggregates have on the whole columns, for any aggregator, a plugin's
//! included (`rankeval_core::aggregate_state`).
//!
//! One run's states travel as one message:
//!
//! ```text
//! version: u8 = 1
//! metrics:     u32 count, then each canonical name (u32 length, UTF-8 bytes)
//! aggregators: u32 count, then each canonical name (u32 length, UTF-8 bytes)
//! states:      metrics x aggregators, metric by metric, each as its length
//!              (u64) and its bytes (AggregateState::to_bytes)
//! ```
//!
//! numbers little-endian. The names travel with the states so that states
//! of other metrics or aggregators (`gmean(floor=0.001)` for `gmean`) are
//! refused, not merged.

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int8Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use rankeval_core::{AggregateState, Aggregator};

use super::sided::{KIND_COLUMN, KIND_VALUES, SidedError};

/// The version of the message [`ColumnStates::take`] writes.
pub const MESSAGE_VERSION: u8 = 1;

/// Every run's states of every (metric, aggregator) over the queries seen.
pub struct ColumnStates {
    metrics: Vec<String>,
    aggregators: Vec<Box<dyn Aggregator>>,
    runs: Vec<String>,
    /// Per run, metric by metric, one state per aggregator.
    states: Vec<Vec<AggregateState>>,
}

impl ColumnStates {
    /// States of the columns `metrics` (canonical names) of `runs` under
    /// `aggregators`, none seen yet.
    pub fn new(
        metrics: Vec<String>,
        aggregators: Vec<Box<dyn Aggregator>>,
        runs: Vec<String>,
    ) -> Self {
        let mut out = Self {
            metrics,
            aggregators,
            runs,
            states: Vec::new(),
        };
        out.states = out.runs.iter().map(|_| out.empty()).collect();
        out
    }

    /// One run's states, none seen.
    fn empty(&self) -> Vec<AggregateState> {
        self.metrics
            .iter()
            .flat_map(|_| self.aggregators.iter().map(|a| a.state()))
            .collect()
    }

    /// The runs, in the order of [`take`](Self::take).
    pub fn runs(&self) -> &[String] {
        &self.runs
    }

    /// Sees query `query`'s values on run `run` (its position), one per
    /// metric in order.
    pub fn update(&mut self, run: usize, query: &str, values: impl IntoIterator<Item = f64>) {
        let width = self.aggregators.len();
        let states = &mut self.states[run];
        for (m, value) in values.into_iter().enumerate().take(self.metrics.len()) {
            for (a, aggregator) in self.aggregators.iter().enumerate() {
                aggregator.update(&mut states[m * width + a], query.as_bytes(), value);
            }
        }
    }

    /// Sees the per-query rows of `batch`: a `query` and a `run` column
    /// (strings) first, then one `Float64` column per metric in order
    /// (whatever their names: a Spark job renames them); rows of another
    /// kind than values are skipped when the batch has a `_kind` column.
    pub fn update_batch(&mut self, batch: &RecordBatch) -> Result<(), SidedError> {
        let columns = batch.columns();
        if columns.len() < 2 + self.metrics.len() {
            return Err(SidedError::Column {
                column: "query",
                problem: format!(
                    "{} columns where query, run and {} metrics are expected",
                    columns.len(),
                    self.metrics.len()
                ),
            });
        }
        let queries = strings(columns[0].as_ref(), "query")?;
        let runs = strings(columns[1].as_ref(), "run")?;
        let mut values = Vec::with_capacity(self.metrics.len());
        for (m, column) in columns[2..2 + self.metrics.len()].iter().enumerate() {
            if *column.data_type() != DataType::Float64 {
                return Err(SidedError::Column {
                    column: "metric",
                    problem: format!(
                        "`{}` is {} where float64 is expected",
                        self.metrics[m],
                        column.data_type()
                    ),
                });
            }
            values.push(column.as_primitive::<Float64Type>());
        }
        let kind = batch
            .column_by_name(KIND_COLUMN)
            .filter(|k| *k.data_type() == DataType::Int8)
            .map(|k| k.as_primitive::<Int8Type>().clone());
        for row in 0..batch.num_rows() {
            if kind
                .as_ref()
                .is_some_and(|k| k.is_null(row) || k.value(row) != KIND_VALUES)
            {
                continue;
            }
            let (Some(query), Some(run)) = (&queries[row], &runs[row]) else {
                return Err(SidedError::Column {
                    column: "query",
                    problem: "a per-query row without its query or run".to_owned(),
                });
            };
            let r = self
                .runs
                .iter()
                .position(|name| name == run)
                .ok_or_else(|| SidedError::UnknownRun(run.clone()))?;
            // A null value is what the per-query table holds for NaN.
            let row_values: Vec<f64> = values
                .iter()
                .map(|c| {
                    if c.is_null(row) {
                        f64::NAN
                    } else {
                        c.value(row)
                    }
                })
                .collect();
            self.update(r, query, row_values);
        }
        Ok(())
    }

    /// Each run's states as one message (see the [module docs](self)),
    /// and the states reset: what a part sends to the driver.
    pub fn take(&mut self) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::with_capacity(self.runs.len());
        for r in 0..self.runs.len() {
            let empty = self.empty();
            let states = std::mem::replace(&mut self.states[r], empty);
            let mut message = vec![MESSAGE_VERSION];
            write_names(&mut message, self.metrics.iter().map(String::as_str));
            let names: Vec<String> = self.aggregators.iter().map(|a| a.name()).collect();
            write_names(&mut message, names.iter().map(String::as_str));
            for state in &states {
                let bytes = state.to_bytes();
                message.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
                message.extend_from_slice(&bytes);
            }
            out.push((self.runs[r].clone(), message));
        }
        out
    }
}

/// The aggregates of one run over every part: each of `parts` one part's
/// message for that run ([`ColumnStates::take`]), merged in any order and
/// finished; `[metric][aggregator]`, in the orders given. A message of
/// other metrics or aggregators, or malformed, is an error; no part gives
/// every aggregate of no value (NaN).
pub fn finish_aggregates(
    metrics: &[String],
    aggregators: &[Box<dyn Aggregator>],
    parts: &[&[u8]],
) -> Result<Vec<Vec<f64>>, SidedError> {
    let names: Vec<String> = aggregators.iter().map(|a| a.name()).collect();
    let mut merged: Vec<AggregateState> = metrics
        .iter()
        .flat_map(|_| aggregators.iter().map(|a| a.state()))
        .collect();
    for part in parts {
        let mut reader = Reader { bytes: part, at: 0 };
        let version = reader.take(1)?[0];
        if version != MESSAGE_VERSION {
            return Err(wire(format!(
                "message version {version}; this build reads version {MESSAGE_VERSION}"
            )));
        }
        let sent_metrics = reader.names()?;
        let sent_aggregators = reader.names()?;
        if sent_metrics != metrics || sent_aggregators != names {
            return Err(wire(format!(
                "states of metrics {sent_metrics:?} under {sent_aggregators:?}, where \
                 {metrics:?} under {names:?} are expected"
            )));
        }
        for state in &mut merged {
            let len = reader.u64()?;
            let bytes = reader.take(usize::try_from(len).unwrap_or(usize::MAX))?;
            state.merge(AggregateState::from_bytes(bytes)?)?;
        }
        if reader.at != part.len() {
            return Err(wire(format!(
                "{} bytes after the states",
                part.len() - reader.at
            )));
        }
    }
    let width = aggregators.len();
    let mut out = Vec::with_capacity(metrics.len());
    let mut states = merged.into_iter();
    for _ in metrics {
        let mut row = Vec::with_capacity(width);
        for aggregator in aggregators {
            let state = states.next().ok_or_else(|| wire("too few states".into()))?;
            row.push(aggregator.finish(state)?);
        }
        out.push(row);
    }
    Ok(out)
}

fn wire(problem: String) -> SidedError {
    SidedError::AggregateStates(problem)
}

/// Appends `names` as their count and each name's length and bytes.
fn write_names<'a>(out: &mut Vec<u8>, names: impl ExactSizeIterator<Item = &'a str>) {
    out.extend_from_slice(&(names.len() as u32).to_le_bytes());
    for name in names {
        out.extend_from_slice(&(name.len() as u32).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
    }
}

/// Reads a message's fields in order.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], SidedError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| wire(format!("the message ends early (at byte {})", self.at)))?;
        let field = &self.bytes[self.at..end];
        self.at = end;
        Ok(field)
    }

    fn u32(&mut self) -> Result<u32, SidedError> {
        let bytes = self.take(4)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    fn u64(&mut self) -> Result<u64, SidedError> {
        let bytes = self.take(8)?;
        let mut word = [0; 8];
        word.copy_from_slice(bytes);
        Ok(u64::from_le_bytes(word))
    }

    fn names(&mut self) -> Result<Vec<String>, SidedError> {
        let n = self.u32()?;
        let mut out = Vec::new();
        for _ in 0..n {
            let len = self.u32()? as usize;
            let name = std::str::from_utf8(self.take(len)?)
                .map_err(|_| wire("a name that is not UTF-8".into()))?;
            out.push(name.to_owned());
        }
        Ok(out)
    }
}

/// A string column's values (any of Arrow's three string types).
fn strings(array: &dyn Array, column: &'static str) -> Result<Vec<Option<String>>, SidedError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{ArrayRef, Float64Array, Int8Array, StringArray};
    use rankeval_core::registry::parse_aggregator;
    use std::sync::Arc;

    fn aggregators() -> Vec<Box<dyn Aggregator>> {
        ["mean", "median", "std", "gmean", "min", "ci"]
            .iter()
            .map(|s| parse_aggregator(s).expect("built in"))
            .collect()
    }

    fn batch(rows: &[(&str, &str, f64, f64)], kind: Option<i8>) -> RecordBatch {
        let mut columns: Vec<(&str, ArrayRef)> = vec![
            (
                "query",
                Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.0))),
            ),
            (
                "run",
                Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.1))),
            ),
            (
                "_m0",
                Arc::new(Float64Array::from_iter_values(rows.iter().map(|r| r.2))),
            ),
            (
                "_m1",
                Arc::new(Float64Array::from_iter_values(rows.iter().map(|r| r.3))),
            ),
        ];
        if let Some(kind) = kind {
            columns.push((
                KIND_COLUMN,
                Arc::new(Int8Array::from(vec![kind; rows.len()])),
            ));
        }
        RecordBatch::try_from_iter(columns).expect("a batch")
    }

    #[test]
    fn parts_merge_to_the_aggregates_of_the_whole_columns() {
        let metrics = vec!["ap".to_owned(), "rbp(p=0.8)".to_owned()];
        let runs = vec!["a".to_owned(), "b".to_owned()];
        let rows: Vec<(String, &str, f64, f64)> = (0..40)
            .map(|i| {
                let x = f64::from((i * 37) % 11) / 7.0;
                (
                    format!("q{i}"),
                    if i % 3 == 0 { "b" } else { "a" },
                    x,
                    1.0 - x / 3.0,
                )
            })
            .collect();
        let whole = |run: &str, m: usize| -> Vec<f64> {
            let mut mine: Vec<&(String, &str, f64, f64)> =
                rows.iter().filter(|r| r.1 == run).collect();
            mine.sort_by(|a, b| a.0.cmp(&b.0));
            mine.iter()
                .map(|r| if m == 0 { r.2 } else { r.3 })
                .collect()
        };
        for parts in [1, 3, 8] {
            let mut messages: Vec<(String, Vec<u8>)> = Vec::new();
            for p in 0..parts {
                let mut states = ColumnStates::new(metrics.clone(), aggregators(), runs.clone());
                let mine: Vec<(&str, &str, f64, f64)> = rows
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| i % parts == p)
                    .map(|(_, r)| (r.0.as_str(), r.1, r.2, r.3))
                    .collect();
                states.update_batch(&batch(&mine, None)).expect("rows");
                // Rows of another kind are skipped.
                states
                    .update_batch(&batch(&[("q0", "a", 9.0, 9.0)], Some(1)))
                    .expect("skipped");
                messages.extend(states.take());
            }
            for run in &runs {
                let mine: Vec<&[u8]> = messages
                    .iter()
                    .rev()
                    .filter(|(r, _)| r == run)
                    .map(|(_, m)| m.as_slice())
                    .collect();
                let got = finish_aggregates(&metrics, &aggregators(), &mine).expect("merged");
                for (m, row) in got.iter().enumerate() {
                    let column = whole(run, m);
                    for (a, aggregator) in aggregators().iter().enumerate() {
                        assert_eq!(
                            row[a].to_bits(),
                            aggregator.aggregate(&column).to_bits(),
                            "{parts} parts, run {run}, metric {m}, {}",
                            aggregator.name()
                        );
                    }
                }
            }
        }
        // No part at all: every aggregate of no value.
        let none = finish_aggregates(&metrics, &aggregators(), &[]).expect("nothing");
        assert!(none.iter().flatten().all(|v| v.is_nan()));
    }

    #[test]
    fn messages_of_other_aggregators_or_malformed_are_refused() {
        let metrics = vec!["ap".to_owned()];
        let mut states = ColumnStates::new(metrics.clone(), aggregators(), vec!["a".to_owned()]);
        states.update(0, "q1", [0.5]);
        let (_, message) = states.take().remove(0);
        assert!(finish_aggregates(&metrics, &aggregators(), &[&message]).is_ok());
        let floored = vec![parse_aggregator("gmean(floor=0.001)").expect("built in")];
        let error = finish_aggregates(&metrics, &floored, &[&message]).expect_err("other names");
        assert!(error.to_string().contains("gmean(floor=0.001)"), "{error}");
        let other = vec!["ndcg".to_owned()];
        assert!(finish_aggregates(&other, &aggregators(), &[&message]).is_err());
        for end in 0..message.len() {
            assert!(
                finish_aggregates(&metrics, &aggregators(), &[&message[..end]]).is_err(),
                "cut at {end}"
            );
        }
        let mut longer = message.clone();
        longer.push(0);
        assert!(finish_aggregates(&metrics, &aggregators(), &[&longer]).is_err());
        let mut version = message.clone();
        version[0] = 2;
        assert!(finish_aggregates(&metrics, &aggregators(), &[&version]).is_err());
    }
}
