//! Groups of queries (slices): a table that gives each query a value in
//! one or more group columns (`segment = head | tail`, `language = de`,
//! `returning = yes`), so that reports show every group's results beside
//! the whole run's.
//!
//! A CSV (`,`) or, for a name ending in `.tsv`, TSV table with a header
//! line (either may be gzip, `.gz`), a Parquet file (`.parquet`), or JSON
//! Lines (`.jsonl`, `.ndjson`: one object per query, its id under
//! `query`, a key per group column). Its
//! first column holds the query ids, every other column one group column;
//! values are text (Parquet: strings or integers, or a dictionary of
//! them), trimmed of surrounding spaces. An empty value (or a Parquet null)
//! puts the query in no group of that column. No quoting in CSV; every row
//! has as many fields as the header; a query given twice is an error naming
//! both lines (rows).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::Path;

use super::corpus::{delimiter_of, lines, text};
use super::error::excerpt;
use super::{ReadError, ReadErrorKind};

/// The groups of queries read from one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueryGroups {
    /// The name of the query column (the file's first).
    query_column: String,
    /// The group columns, in the file's order.
    columns: Vec<String>,
    /// Each query's value in every column; empty for none.
    values: HashMap<String, Vec<String>>,
}

impl QueryGroups {
    /// Groups from rows `(query, one value per column)`; an empty value is
    /// no group. Errors (as text) on a query given twice or a row with a
    /// value count other than the columns'.
    pub fn from_rows(
        query_column: impl Into<String>,
        columns: Vec<String>,
        rows: impl IntoIterator<Item = (String, Vec<String>)>,
    ) -> Result<Self, String> {
        let mut values = HashMap::new();
        for (query, row) in rows {
            if row.len() != columns.len() {
                return Err(format!(
                    "query `{query}` has {} group values for {} group columns",
                    row.len(),
                    columns.len()
                ));
            }
            match values.entry(query) {
                Entry::Occupied(seen) => {
                    return Err(format!("query `{}` is given twice", seen.key()));
                }
                Entry::Vacant(slot) => {
                    slot.insert(row);
                }
            }
        }
        Ok(Self {
            query_column: query_column.into(),
            columns,
            values,
        })
    }

    /// The name of the query column.
    pub fn query_column(&self) -> &str {
        &self.query_column
    }

    /// The group columns, in the file's order.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// How many queries the file lists.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the file lists no query.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Whether the file lists `query`.
    pub fn contains(&self, query: &str) -> bool {
        self.values.contains_key(query)
    }

    /// The group of `query` in column `column` (an index into
    /// [`columns`](Self::columns)); `None` when the file does not list the
    /// query or leaves its value empty.
    pub fn value(&self, query: &str, column: usize) -> Option<&str> {
        self.values
            .get(query)
            .and_then(|row| row.get(column))
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// The listed queries, in no particular order.
    pub fn queries(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }
}

/// Reads a groups file (see the module): Parquet for a name ending in
/// `.parquet`, JSON Lines for `.jsonl` or `.ndjson`, else CSV or TSV text.
pub fn read_groups(path: &Path) -> Result<QueryGroups, ReadError> {
    let file_name = path.to_string_lossy();
    let file_name = file_name.strip_suffix(".gz").unwrap_or(&file_name);
    if file_name.ends_with(".parquet") {
        return read_parquet_groups(path);
    }
    if file_name.ends_with(".jsonl") || file_name.ends_with(".ndjson") {
        return read_jsonl_groups(path);
    }
    let delimiter = delimiter_of(path);
    let name = path.display().to_string();
    let bytes = text(path)?;
    let mut rows = lines(&bytes).filter(|(_, line)| !line.trim_ascii().is_empty());
    let at = |line: u64, kind: ReadErrorKind| ReadError::new(&name, Some(line), kind);
    let Some((header_line, header)) = rows.next() else {
        return Err(ReadError::new(
            &name,
            None,
            ReadErrorKind::Empty {
                expected: "a header `query,group,...`, then one line per query",
            },
        ));
    };
    let mut names: Vec<String> = header
        .split(|&b| b == delimiter)
        .map(|c| String::from_utf8_lossy(c.trim_ascii()).into_owned())
        .collect();
    if names.len() < 2 {
        return Err(at(
            header_line,
            ReadErrorKind::BadField(format!(
                "the header has {} column: expected the query column, then at least one group \
                 column (delimiter `{}`: a name ending in .tsv is split on tabs, any other on \
                 commas)",
                names.len(),
                if delimiter == b'\t' { "\\t" } else { "," }
            )),
        ));
    }
    if let Some(blank) = names.iter().skip(1).position(String::is_empty) {
        return Err(at(
            header_line,
            ReadErrorKind::BadField(format!(
                "group column {} has no name in the header",
                blank + 2
            )),
        ));
    }
    let query_column = names.remove(0);
    let mut first_line: HashMap<String, u64> = HashMap::new();
    let mut parsed = Vec::new();
    for (number, line) in rows {
        let fields: Vec<&[u8]> = line.split(|&b| b == delimiter).collect();
        if fields.len() != names.len() + 1 {
            return Err(at(
                number,
                ReadErrorKind::ColumnCount {
                    expected: names.len() + 1,
                    found: fields.len(),
                },
            ));
        }
        let query = fields[0].trim_ascii();
        if query.is_empty() {
            return Err(at(
                number,
                ReadErrorKind::BadField(format!("column `{query_column}`: the query id is empty")),
            ));
        }
        let Ok(query) = std::str::from_utf8(query) else {
            return Err(at(
                number,
                ReadErrorKind::BadField(format!(
                    "column `{query_column}`: the query id `{}` is not UTF-8",
                    excerpt(query)
                )),
            ));
        };
        if let Some(before) = first_line.insert(query.to_owned(), number) {
            return Err(at(
                number,
                ReadErrorKind::BadField(format!(
                    "query `{query}` is given again (first on line {before}); give each query \
                     one line"
                )),
            ));
        }
        let values = fields[1..]
            .iter()
            .map(|v| String::from_utf8_lossy(v.trim_ascii()).into_owned())
            .collect();
        parsed.push((query.to_owned(), values));
    }
    if parsed.is_empty() {
        return Err(ReadError::new(
            &name,
            None,
            ReadErrorKind::Empty {
                expected: "one line per query after the header",
            },
        ));
    }
    QueryGroups::from_rows(query_column, names, parsed)
        .map_err(|message| ReadError::new(&name, None, ReadErrorKind::BadField(message)))
}

/// The key of the query ids in a JSON Lines groups file.
pub const JSONL_QUERY_KEY: &str = "query";

/// A JSON Lines groups file: one object per query, its id under `query`
/// and one key per group column (a string or an integer; `null` or a
/// missing key: no group). The columns are the keys in the order they
/// first appear (within an object, in alphabetical order), as
/// `{"query": "31_4", "conversation": "31", "turn": 4}` gives a query its
/// conversation and turn.
fn read_jsonl_groups(path: &Path) -> Result<QueryGroups, ReadError> {
    let name = path.display().to_string();
    let bytes = text(path)?;
    let at = |line: u64, message: String| {
        ReadError::new(&name, Some(line), ReadErrorKind::BadField(message))
    };
    let mut columns: Vec<String> = Vec::new();
    let mut first_line: HashMap<String, u64> = HashMap::new();
    let mut objects: Vec<(String, serde_json::Map<String, serde_json::Value>)> = Vec::new();
    for (number, line) in lines(&bytes).filter(|(_, line)| !line.trim_ascii().is_empty()) {
        let value: serde_json::Value = serde_json::from_slice(line)
            .map_err(|e| at(number, format!("not a JSON object: {e}")))?;
        let serde_json::Value::Object(mut object) = value else {
            return Err(at(number, "not a JSON object".to_owned()));
        };
        let query = match object.remove(JSONL_QUERY_KEY) {
            Some(serde_json::Value::String(q)) if !q.is_empty() => q,
            Some(serde_json::Value::Number(n)) if n.is_i64() || n.is_u64() => n.to_string(),
            Some(other) => {
                return Err(at(
                    number,
                    format!(
                        "key `{JSONL_QUERY_KEY}`: {other} is not a query id (a string or an integer)"
                    ),
                ));
            }
            None => {
                return Err(at(
                    number,
                    format!("no key `{JSONL_QUERY_KEY}`: each line names its query with it"),
                ));
            }
        };
        if let Some(before) = first_line.insert(query.clone(), number) {
            return Err(at(
                number,
                format!(
                    "query `{query}` is given again (first on line {before}); give each query one line"
                ),
            ));
        }
        for key in object.keys() {
            if !columns.contains(key) {
                columns.push(key.clone());
            }
        }
        objects.push((query, object));
    }
    if objects.is_empty() {
        return Err(ReadError::new(
            &name,
            None,
            ReadErrorKind::Empty {
                expected: "one JSON object per query, `{\"query\": ..., \"group\": ...}`",
            },
        ));
    }
    if columns.is_empty() {
        return Err(ReadError::new(
            &name,
            None,
            ReadErrorKind::BadField("no group key: each object has only `query`".to_owned()),
        ));
    }
    let mut rows = Vec::with_capacity(objects.len());
    for (query, object) in objects {
        let line = first_line[&query];
        let mut values = Vec::with_capacity(columns.len());
        for column in &columns {
            values.push(match object.get(column) {
                None | Some(serde_json::Value::Null) => String::new(),
                Some(serde_json::Value::String(v)) => v.trim().to_owned(),
                Some(serde_json::Value::Number(n)) if n.is_i64() || n.is_u64() => n.to_string(),
                Some(other) => {
                    return Err(at(
                        line,
                        format!("key `{column}`: {other} is not a group (a string or an integer)"),
                    ));
                }
            });
        }
        rows.push((query, values));
    }
    QueryGroups::from_rows(JSONL_QUERY_KEY, columns, rows)
        .map_err(|message| ReadError::new(&name, None, ReadErrorKind::BadField(message)))
}

/// A Parquet groups file: its first column the query ids, every other a
/// group column, each of strings or integers (or a dictionary of them).
fn read_parquet_groups(path: &Path) -> Result<QueryGroups, ReadError> {
    use arrow_array::RecordBatchReader;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    let name = path.display().to_string();
    let fail = |message: String| ReadError::new(&name, None, ReadErrorKind::Data(message));
    let file =
        std::fs::File::open(path).map_err(|e| ReadError::new(&name, None, ReadErrorKind::Io(e)))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|builder| builder.build())
        .map_err(|e| fail(format!("not a readable Parquet file: {e}")))?;
    let schema = reader.schema();
    let mut names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    if names.len() < 2 {
        return Err(fail(format!(
            "{} column: expected the query column, then at least one group column",
            names.len()
        )));
    }
    let query_column = names.remove(0);
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let mut first_row: HashMap<String, usize> = HashMap::new();
    for batch in reader {
        let batch = batch.map_err(|e| fail(format!("cannot decode a record batch: {e}")))?;
        let mut columns = Vec::with_capacity(batch.num_columns());
        for (c, array) in batch.columns().iter().enumerate() {
            let column = if c == 0 { &query_column } else { &names[c - 1] };
            columns.push(super::table::column_texts(array.as_ref()).ok_or_else(|| {
                fail(format!(
                    "column `{column}` is {}: expected strings or integers",
                    array.data_type()
                ))
            })?);
        }
        for row in 0..batch.num_rows() {
            let Some(query) = columns[0][row].clone().filter(|q| !q.trim().is_empty()) else {
                return Err(fail(format!(
                    "row {}: column `{query_column}`: the query id is empty",
                    rows.len() + 1
                )));
            };
            let query = query.trim().to_owned();
            if let Some(before) = first_row.insert(query.clone(), rows.len() + 1) {
                return Err(fail(format!(
                    "row {}: query `{query}` is given again (first in row {before}); give each \
                     query one row",
                    rows.len() + 1
                )));
            }
            let values = columns[1..]
                .iter()
                .map(|column| column[row].as_deref().unwrap_or("").trim().to_owned())
                .collect();
            rows.push((query, values));
        }
    }
    if rows.is_empty() {
        return Err(fail("no rows: expected one row per query".to_owned()));
    }
    QueryGroups::from_rows(query_column, names, rows).map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        path
    }

    #[test]
    fn csv_and_tsv_with_empty_values() {
        let dir = tempfile::tempdir().expect("tempdir");
        let csv = write(
            dir.path(),
            "g.csv",
            "query,segment,language\nq1, head ,de\nq2,tail,\n\nq3,tail,en\n",
        );
        let groups = read_groups(&csv).expect("reads");
        assert_eq!(groups.query_column(), "query");
        assert_eq!(groups.columns(), ["segment", "language"]);
        assert_eq!(groups.len(), 3);
        assert_eq!(groups.value("q1", 0), Some("head"));
        assert_eq!(groups.value("q2", 1), None, "an empty value is no group");
        assert_eq!(groups.value("q9", 0), None);
        let tsv = write(
            dir.path(),
            "g.tsv",
            "user\tcohort\nu1\tnew\nu2\treturning\n",
        );
        let groups = read_groups(&tsv).expect("reads");
        assert_eq!(groups.value("u2", 0), Some("returning"));
    }

    #[test]
    fn errors_name_the_file_line_and_problem() {
        let dir = tempfile::tempdir().expect("tempdir");
        for (text, expected) in [
            ("", "empty"),
            ("query\nq1\n", "the header has 1 column"),
            ("query,segment\nq1,head\nq1,tail\n", "bad.csv:3:"),
            (
                "query,segment\nq1,head\nq1,tail\n",
                "given again (first on line 2)",
            ),
            ("query,segment\nq1,head,extra\n", "bad.csv:2:"),
            ("query,segment\n,head\n", "the query id is empty"),
            ("query,segment\n", "one line per query"),
            ("query,,x\nq1,a,b\n", "group column 2 has no name"),
        ] {
            let path = write(dir.path(), "bad.csv", text);
            let message = read_groups(&path).expect_err(text).to_string();
            assert!(message.contains("bad.csv"), "{message}");
            assert!(message.contains(expected), "{text:?}: {message}");
        }
        let missing = read_groups(&dir.path().join("none.csv")).expect_err("no file");
        assert!(missing.to_string().contains("none.csv"));
    }

    #[test]
    fn json_lines_groups() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = write(
            dir.path(),
            "g.jsonl",
            "{\"query\": \"31_4\", \"conversation\": \"31\", \"turn\": 4}\n\n\
             {\"query\": 7, \"turn\": null, \"conversation\": \"c7\", \"segment\": \"head\"}\n",
        );
        let groups = read_groups(&path).expect("reads");
        assert_eq!(groups.query_column(), "query");
        assert_eq!(groups.columns(), ["conversation", "turn", "segment"]);
        assert_eq!(groups.value("31_4", 1), Some("4"));
        assert_eq!(groups.value("31_4", 2), None, "a missing key is no group");
        assert_eq!(groups.value("7", 0), Some("c7"));
        assert_eq!(groups.value("7", 1), None, "null is no group");
        for (text, expected) in [
            ("", "empty"),
            ("[1]\n", "bad.jsonl:1: not a JSON object"),
            ("{\"turn\": 1}\n", "no key `query`"),
            ("{\"query\": 1.5, \"turn\": 1}\n", "is not a query id"),
            (
                "{\"query\": \"a\", \"turn\": 1}\n{\"query\": \"a\", \"turn\": 2}\n",
                "bad.jsonl:2: query `a` is given again (first on line 1)",
            ),
            (
                "{\"query\": \"a\", \"turn\": [1]}\n",
                "key `turn`: [1] is not a group",
            ),
            ("{\"query\": \"a\"}\n", "no group key"),
        ] {
            let path = write(dir.path(), "bad.jsonl", text);
            let message = read_groups(&path).expect_err(text).to_string();
            assert!(message.contains("bad.jsonl"), "{message}");
            assert!(message.contains(expected), "{text:?}: {message}");
        }
    }

    #[test]
    fn parquet_groups_of_strings_and_integers() {
        use std::sync::Arc;

        use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};

        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("g.parquet");
        let batch = RecordBatch::try_from_iter([
            (
                "qid",
                Arc::new(Int64Array::from(vec![301, 302, 303])) as ArrayRef,
            ),
            (
                "segment",
                Arc::new(StringArray::from(vec![Some("head"), None, Some("tail")])) as ArrayRef,
            ),
            (
                "year",
                Arc::new(Int64Array::from(vec![2024, 2025, 2025])) as ArrayRef,
            ),
        ])
        .expect("batch");
        let file = std::fs::File::create(&path).expect("create");
        let mut writer =
            parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).expect("writer");
        writer.write(&batch).expect("write");
        writer.close().expect("close");
        let groups = read_groups(&path).expect("reads");
        assert_eq!(groups.query_column(), "qid");
        assert_eq!(groups.columns(), ["segment", "year"]);
        assert_eq!(groups.value("301", 0), Some("head"));
        assert_eq!(groups.value("302", 0), None, "a null is no group");
        assert_eq!(groups.value("303", 1), Some("2025"));
    }
}
