//! Label propensities of the propensity-scored metrics (PSP@k, PSnDCG@k):
//! a label-frequency table (`label, count`: how many training instances
//! each label is relevant to, with the number of training instances given
//! beside it) or given inverse propensities (`label, inverse_propensity`).
//!
//! A table with those two columns in any table format the other row
//! inputs are read in (`row_table`): CSV or TSV with a
//! header line naming them (others ignored), JSON Lines with those keys,
//! Parquet or Arrow IPC with those columns (labels strings or integers,
//! values numbers), gzip in every text format; read whole through
//! [`read_whole`](crate::read_whole) (size and line limits). Errors name
//! the file, the line (text) or row (tables) and the column: a label given
//! twice (with its first line or row), a count that is not a whole number
//! from 0 to 2^64 - 1 or is above the number of training instances, an
//! inverse propensity that is not a finite number above 0.

use std::collections::HashMap;
use std::path::Path;

use rankeval_core::LabelPropensities;

use crate::error::excerpt;
use crate::row_file::RowFileError;
use crate::row_table::{Cell, Column, Kind, parse_row_table, read_row_table};
use crate::{ReadError, ReadErrorKind, RowAt};

/// Which table: counts (with the number of training instances) or given
/// inverse propensities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropensityTable {
    /// `label, count`, from `instances` training instances.
    Counts {
        /// The number of training instances `N`.
        instances: u64,
    },
    /// `label, inverse_propensity`.
    Inverse,
}

impl PropensityTable {
    /// The value column's name.
    pub fn column(self) -> &'static str {
        match self {
            PropensityTable::Counts { .. } => "count",
            PropensityTable::Inverse => "inverse_propensity",
        }
    }

    /// The table's two columns.
    fn columns(self) -> [Column; 2] {
        [
            Column {
                name: "label",
                kind: Kind::Id,
                optional: false,
                instead_of: None,
            },
            Column {
                name: self.column(),
                kind: Kind::Number,
                optional: false,
                instead_of: None,
            },
        ]
    }

    /// What the table is, for the message of an empty one.
    fn expected(self) -> &'static str {
        match self {
            PropensityTable::Counts { .. } => "a header `label,count`, then one line per label",
            PropensityTable::Inverse => {
                "a header `label,inverse_propensity`, then one line per label"
            }
        }
    }
}

/// Reads the table at `path` (its format by its name, magic bytes or
/// first line).
pub fn read_propensities(
    path: &Path,
    table: PropensityTable,
) -> Result<LabelPropensities, ReadError> {
    let name = path.display().to_string();
    check_instances(&name, table)?;
    let mut rows = Rows::new(table);
    let read = read_row_table(path, &table.columns(), &mut |at, cells, _| {
        rows.add(at, cells)
    });
    rows.finish(&name, read)
}

/// Parses a table's bytes (CSV/TSV, JSON Lines, Parquet or Arrow IPC by
/// its magic bytes); `name` names the file in errors.
pub fn parse_propensities(
    bytes: &[u8],
    name: &str,
    table: PropensityTable,
) -> Result<LabelPropensities, ReadError> {
    check_instances(name, table)?;
    let mut rows = Rows::new(table);
    let read = parse_row_table(bytes, name, &table.columns(), &mut |at, cells, _| {
        rows.add(at, cells)
    });
    rows.finish(name, read)
}

/// Refuses a count table of no training instance.
fn check_instances(name: &str, table: PropensityTable) -> Result<(), ReadError> {
    if let PropensityTable::Counts { instances: 0 } = table {
        return Err(ReadError::new(
            name,
            None,
            ReadErrorKind::BadField(
                "the number of training instances must be at least 1 (the model takes its log)"
                    .to_owned(),
            ),
        ));
    }
    Ok(())
}

/// The labels read so far, with where each was read.
struct Rows {
    table: PropensityTable,
    first: HashMap<Box<[u8]>, RowAt>,
    counts: HashMap<Box<[u8]>, u64>,
    inverse: HashMap<Box<[u8]>, f64>,
}

impl Rows {
    fn new(table: PropensityTable) -> Self {
        Rows {
            table,
            first: HashMap::new(),
            counts: HashMap::new(),
            inverse: HashMap::new(),
        }
    }

    /// Checks and adds the row at `at`.
    fn add(&mut self, at: RowAt, cells: &[Cell<'_>]) -> Result<(), String> {
        let value_column = self.table.column();
        let (Some(Some(label)), Some(Some(value))) = (cells.first(), cells.get(1)) else {
            return Err("a row needs a label and a value".to_owned());
        };
        let label: &[u8] = label;
        if label.is_empty() {
            return Err("column `label`: the label is empty".to_owned());
        }
        rankeval_core::check_id(label).map_err(|bad| format!("column `label`: {bad}"))?;
        if let Some(before) = self.first.get(label) {
            return Err(format!(
                "column `label`: label `{}` is given again (first on {before}); give each label one line",
                excerpt(label)
            ));
        }
        self.first.insert(label.into(), at);
        let text: &[u8] = value;
        let bad = |expected: &str| {
            format!(
                "column `{value_column}`: `{}` is not {expected}",
                excerpt(text)
            )
        };
        let parsed = std::str::from_utf8(text).ok();
        match self.table {
            PropensityTable::Counts { instances } => {
                let count = parsed.and_then(|t| t.parse::<u64>().ok()).ok_or_else(|| {
                    bad("a whole number of training instances, from 0 to 2^64 - 1")
                })?;
                if count > instances {
                    return Err(format!(
                        "column `{value_column}`: {count} is more than the {instances} training instances"
                    ));
                }
                self.counts.insert(label.into(), count);
            }
            PropensityTable::Inverse => {
                let weight = parsed
                    .and_then(|t| t.parse::<f64>().ok())
                    .filter(|w| w.is_finite() && *w > 0.0)
                    .ok_or_else(|| bad("a finite number above 0 (1 / propensity)"))?;
                self.inverse.insert(label.into(), weight);
            }
        }
        Ok(())
    }

    /// The propensities read, unless the table had no row.
    fn finish(
        self,
        name: &str,
        read: Result<u64, RowFileError>,
    ) -> Result<LabelPropensities, ReadError> {
        read.map_err(ReadError::from)?;
        if self.first.is_empty() {
            return Err(ReadError::new(
                name,
                None,
                ReadErrorKind::Empty {
                    expected: self.table.expected(),
                },
            ));
        }
        Ok(match self.table {
            PropensityTable::Counts { instances } => LabelPropensities::Counts {
                counts: self.counts,
                instances,
            },
            PropensityTable::Inverse => LabelPropensities::Inverse(self.inverse),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(text: &str, instances: u64) -> Result<LabelPropensities, String> {
        parse_propensities(
            text.as_bytes(),
            "f.csv",
            PropensityTable::Counts { instances },
        )
        .map_err(|e| e.to_string())
    }

    fn inverse(text: &str) -> Result<LabelPropensities, String> {
        parse_propensities(text.as_bytes(), "f.tsv", PropensityTable::Inverse)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_table_of_counts_is_read_by_its_header() {
        let table = counts("\u{feff}count,label,other\r\n3,a,x\n\n0,b,y\n", 10).unwrap();
        assert_eq!(table.value(b"a"), 3.0);
        assert_eq!(table.value(b"b"), 0.0);
        assert_eq!(table.value(b"c"), 0.0);
        let table = inverse("label\tinverse_propensity\na\t2.5\n").unwrap();
        assert_eq!(table.value(b"a"), 2.5);
        assert!(table.value(b"b").is_nan());
    }

    #[test]
    fn bad_values_name_the_file_line_and_column() {
        for (text, problem) in [
            ("label,count\na,-1\n", "f.csv:2: column `count`"),
            ("label,count\na,1.5\n", "f.csv:2: column `count`"),
            ("label,count\na,NaN\n", "f.csv:2: column `count`"),
            (
                "label,count\na,18446744073709551616\n",
                "f.csv:2: column `count`",
            ),
            ("label,count\na,11\n", "more than the 10 training instances"),
            (
                "label,count\na,1\nb,2\na,3\n",
                "f.csv:4: column `label`: label `a` is given again (first on line 2)",
            ),
            ("label,count\n,1\n", "the label is empty"),
            ("label,count\na\n", "f.csv:2"),
            ("label,cnt\na,1\n", "no column `count`"),
            ("", "empty"),
        ] {
            let error = counts(text, 10).unwrap_err();
            assert!(error.contains("f.csv"), "{error}");
            assert!(error.contains(problem), "{text:?}: {error}");
        }
        for text in [
            "label\tinverse_propensity\na\t0\n",
            "label\tinverse_propensity\na\t-2\n",
            "label\tinverse_propensity\na\tinf\n",
            "label\tinverse_propensity\na\t1e400\n",
            "label\tinverse_propensity\na\tnan\n",
        ] {
            let error = inverse(text).unwrap_err();
            assert!(
                error.contains("f.tsv:2: column `inverse_propensity`"),
                "{error}"
            );
            assert!(error.contains("inverse_propensity"), "{error}");
        }
        assert!(
            counts("label,count\na,1\n", 0)
                .unwrap_err()
                .contains("at least 1")
        );
    }

    /// A table of labels (`None`: null) as integers-or-strings and values
    /// as floats or unsigned integers.
    fn batch(
        labels: &[Option<&str>],
        values: arrow_array::ArrayRef,
        column: &str,
    ) -> arrow_array::RecordBatch {
        use arrow_array::StringArray;
        use arrow_schema::{Field, Schema};
        use std::sync::Arc;
        let fields = vec![
            Field::new(column, values.data_type().clone(), true),
            Field::new("label", arrow_schema::DataType::Utf8, true),
        ];
        let labels = Arc::new(labels.iter().copied().collect::<StringArray>());
        arrow_array::RecordBatch::try_new(Arc::new(Schema::new(fields)), vec![values, labels])
            .unwrap()
    }

    fn parquet(batch: &arrow_array::RecordBatch) -> Vec<u8> {
        let mut out = Vec::new();
        let mut writer =
            parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), None).unwrap();
        writer.write(batch).unwrap();
        writer.close().unwrap();
        out
    }

    fn arrow_ipc(batch: &arrow_array::RecordBatch) -> Vec<u8> {
        let mut out = Vec::new();
        let mut writer = arrow_ipc::writer::FileWriter::try_new(&mut out, &batch.schema()).unwrap();
        writer.write(batch).unwrap();
        writer.finish().unwrap();
        out
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(bytes).unwrap();
        gz.finish().unwrap()
    }

    #[test]
    fn every_table_format_gives_the_same_propensities() {
        use arrow_array::{Float64Array, UInt64Array};
        use std::sync::Arc;
        let dir = tempfile::tempdir().unwrap();
        let counts_batch = batch(
            &[Some("a"), Some("b")],
            Arc::new(UInt64Array::from(vec![3, u64::MAX])),
            "count",
        );
        let inverse_batch = batch(
            &[Some("a"), Some("b")],
            Arc::new(Float64Array::from(vec![2.5, 0.1])),
            "inverse_propensity",
        );
        let csv = format!("label,count\na,3\nb,{}\n", u64::MAX);
        let jsonl = format!(
            "{{\"label\": \"a\", \"count\": 3}}\n{{\"label\": \"b\", \"count\": {}}}\n",
            u64::MAX
        );
        let counts_files: Vec<(&str, Vec<u8>)> = vec![
            ("c.csv", csv.clone().into_bytes()),
            ("c.tsv", csv.replace(',', "\t").into_bytes()),
            ("c.jsonl", jsonl.clone().into_bytes()),
            ("c.jsonl.gz", gzip(jsonl.as_bytes())),
            ("c.csv.gz", gzip(csv.as_bytes())),
            ("c.parquet", parquet(&counts_batch)),
            ("c.arrow", arrow_ipc(&counts_batch)),
            ("c.parquet.gz", gzip(&parquet(&counts_batch))),
            ("c.data", parquet(&counts_batch)),
        ];
        for (name, bytes) in &counts_files {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            let table = read_propensities(
                &path,
                PropensityTable::Counts {
                    instances: u64::MAX,
                },
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
            let LabelPropensities::Counts { counts, .. } = &table else {
                panic!("{name}: not counts");
            };
            assert_eq!(counts.get(&b"a"[..]), Some(&3), "{name}");
            assert_eq!(counts.get(&b"b"[..]), Some(&u64::MAX), "{name}");
        }
        let text = "label,inverse_propensity\na,2.5\nb,0.1\n";
        let jsonl = "{\"label\": \"a\", \"inverse_propensity\": 2.5}\n{\"label\": \"b\", \"inverse_propensity\": 0.1}\n";
        let inverse_files: Vec<(&str, Vec<u8>)> = vec![
            ("i.csv", text.as_bytes().to_vec()),
            ("i.jsonl", jsonl.as_bytes().to_vec()),
            ("i.parquet", parquet(&inverse_batch)),
            ("i.arrow", arrow_ipc(&inverse_batch)),
        ];
        for (name, bytes) in &inverse_files {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            let table = read_propensities(&path, PropensityTable::Inverse)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(table.value(b"a").to_bits(), 2.5f64.to_bits(), "{name}");
            assert_eq!(table.value(b"b").to_bits(), 0.1f64.to_bits(), "{name}");
        }
    }

    #[test]
    fn bad_rows_of_tables_and_json_lines_name_the_row_and_column() {
        use arrow_array::Float64Array;
        use std::sync::Arc;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.parquet");
        for (labels, values, problem) in [
            (
                vec![Some("a"), None],
                vec![1.0, 2.0],
                "bad.parquet: row 2: column `label`: the value is null",
            ),
            (
                vec![Some("a"), Some("b")],
                vec![1.0, f64::NAN],
                "row 2: column `inverse_propensity`: `NaN` is not a finite number above 0",
            ),
            (
                vec![Some("a"), Some("b")],
                vec![f64::INFINITY, 1.0],
                "row 1: column `inverse_propensity`: `inf` is not",
            ),
            (
                vec![Some("a"), Some("a")],
                vec![1.0, 2.0],
                "row 2: column `label`: label `a` is given again (first on row 1)",
            ),
            (vec![Some("a\u{1}b")], vec![1.0], "row 1: column `label`"),
        ] {
            let b = batch(
                &labels,
                Arc::new(Float64Array::from(values)),
                "inverse_propensity",
            );
            std::fs::write(&path, parquet(&b)).unwrap();
            let m = read_propensities(&path, PropensityTable::Inverse)
                .unwrap_err()
                .to_string();
            assert!(m.contains(problem), "{m}");
        }
        for (text, problem) in [
            (
                "{\"label\": \"a\", \"count\": 1e400}\n",
                "f.csv:1: not JSON: number out of range",
            ),
            (
                "{\"label\": \"a\", \"count\": -1}\n",
                "f.csv:1: column `count`: `-1` is not",
            ),
            (
                "{\"label\": \"a\", \"count\": \"3\"}\n",
                "f.csv:1: key `count` \"3\": not a number",
            ),
            ("{\"label\": \"a\"}\n", "f.csv:1: no key `count`"),
            (
                "{\"label\": null, \"count\": 1}\n",
                "key `label` null: not a string or a number",
            ),
            (
                "{\"label\": \"a\", \"count\": 1}\n{\"label\": \"a\", \"count\": 2}\n",
                "f.csv:2: column `label`: label `a` is given again (first on line 1)",
            ),
            (
                "{\"label\": \"a\", \"count\": 1}\n[1]\n",
                "f.csv:2: not a JSON object",
            ),
            ("{\"label\": \"a\", \"count\": 1\n", "f.csv:1: not JSON"),
        ] {
            let error = counts(text, 10).unwrap_err();
            assert!(error.contains(problem), "{text:?}: {error}");
        }
        let error = inverse("{\"label\": \"a\", \"inverse_propensity\": 1e400}\n").unwrap_err();
        assert!(
            error.contains("f.tsv:1: not JSON: number out of range"),
            "{error}"
        );
        let error = inverse("{\"label\": \"a\", \"inverse_propensity\": 0}\n").unwrap_err();
        assert!(
            error.contains("f.tsv:1: column `inverse_propensity`"),
            "{error}"
        );
    }
}
