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
//! both lines (rows), and so is a column named twice (two columns of one
//! name would be one group column in every report). Query ids follow the
//! one id rule of every reader ([`rankeval_core::check_id`]); column names
//! and values may hold spaces but no control character (they are printed in
//! reports as they are).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::Path;

use rankeval_core::shorten_id;

use super::corpus::{delimiter_of, lines, text};
use super::error::excerpt;
use super::{ReadError, ReadErrorKind};

/// The first name that `names` holds twice, if any.
fn repeated_name<'a>(names: impl IntoIterator<Item = &'a String>) -> Option<&'a String> {
    let mut seen = std::collections::HashSet::new();
    names.into_iter().find(|name| !seen.insert(name.as_str()))
}

/// Why `id` (a query id of a groups file, read from `place`: its column or
/// key) cannot be one: the id rule of every reader.
fn bad_query(id: &[u8], place: impl FnOnce() -> String) -> Option<String> {
    rankeval_core::check_id(id)
        .err()
        .map(|bad| format!("{}: {bad}", place()))
}

/// Why `text`, a column's name or a group (`what`), cannot be one: it
/// holds a control character, which reports would print as it is.
fn bad_label(text: &str, what: impl FnOnce() -> String) -> Option<String> {
    text.chars().find(|c| c.is_control()).map(|c| {
        format!(
            "{} `{}` contains U+{:04X}; names and values of groups cannot contain control \
             characters",
            what(),
            shorten_id(text.as_bytes()),
            u32::from(c)
        )
    })
}

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
    /// no group. Errors (as text) on a column named twice, a query given
    /// twice or a row with a value count other than the columns'.
    pub fn from_rows(
        query_column: impl Into<String>,
        columns: Vec<String>,
        rows: impl IntoIterator<Item = (String, Vec<String>)>,
    ) -> Result<Self, String> {
        let query_column = query_column.into();
        if let Some(repeated) = repeated_name(std::iter::once(&query_column).chain(&columns)) {
            return Err(format!(
                "the column `{}` is named twice: give each column a name of its own",
                shorten_id(repeated.as_bytes())
            ));
        }
        let mut values = HashMap::new();
        for (query, row) in rows {
            if row.len() != columns.len() {
                return Err(format!(
                    "query `{}` has {} group values for {} group columns",
                    shorten_id(query.as_bytes()),
                    row.len(),
                    columns.len()
                ));
            }
            match values.entry(query) {
                Entry::Occupied(seen) => {
                    return Err(format!(
                        "query `{}` is given twice",
                        shorten_id(seen.key().as_bytes())
                    ));
                }
                Entry::Vacant(slot) => {
                    slot.insert(row);
                }
            }
        }
        Ok(Self {
            query_column,
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
    if let Some(repeated) = repeated_name(&names) {
        let columns: Vec<usize> = (0..names.len())
            .filter(|&i| names[i] == *repeated)
            .map(|i| i + 1)
            .collect();
        return Err(at(
            header_line,
            ReadErrorKind::BadField(format!(
                "the header names the column `{}` twice (columns {} and {}): two columns of one \
                 name would be one group column in every report; give each a name of its own",
                shorten_id(repeated.as_bytes()),
                columns[0],
                columns[1]
            )),
        ));
    }
    if let Some(problem) = names
        .iter()
        .find_map(|n| bad_label(n, || "the column name".to_owned()))
    {
        return Err(at(header_line, ReadErrorKind::BadField(problem)));
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
        if let Some(problem) = bad_query(query, || {
            format!("column `{}`", excerpt(query_column.as_bytes()))
        }) {
            return Err(at(number, ReadErrorKind::BadField(problem)));
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
                    "query `{}` is given again (first on line {before}); give each query \
                     one line",
                    excerpt(query.as_bytes())
                )),
            ));
        }
        let values: Vec<String> = fields[1..]
            .iter()
            .map(|v| String::from_utf8_lossy(v.trim_ascii()).into_owned())
            .collect();
        if let Some(problem) = values.iter().zip(&names).find_map(|(value, column)| {
            bad_label(value, || {
                format!("column `{}`: the group", excerpt(column.as_bytes()))
            })
        }) {
            return Err(at(number, ReadErrorKind::BadField(problem)));
        }
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

/// One JSON object with its keys in the order written, repeats kept (a map
/// would keep the last of a repeated key silently).
struct Pairs(Vec<(String, serde_json::Value)>);

impl<'de> serde::Deserialize<'de> for Pairs {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Pairs;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Pairs, A::Error> {
                let mut pairs = Vec::new();
                while let Some(pair) = map.next_entry()? {
                    pairs.push(pair);
                }
                Ok(Pairs(pairs))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

/// A JSON Lines groups file: one object per query, its id under `query`
/// and one key per group column (a string or an integer; `null` or a
/// missing key: no group). The columns are the keys in the order they
/// first appear (within an object, in alphabetical order), as
/// `{"query": "31_4", "conversation": "31", "turn": 4}` gives a query its
/// conversation and turn. A key given twice in one object is an error.
fn read_jsonl_groups(path: &Path) -> Result<QueryGroups, ReadError> {
    let name = path.display().to_string();
    let bytes = text(path)?;
    let at = |line: u64, message: String| {
        ReadError::new(&name, Some(line), ReadErrorKind::BadField(message))
    };
    let mut columns: Vec<String> = Vec::new();
    let mut known: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut first_line: HashMap<String, u64> = HashMap::new();
    let mut objects: Vec<(String, Vec<(String, serde_json::Value)>)> = Vec::new();
    for (number, line) in lines(&bytes).filter(|(_, line)| !line.trim_ascii().is_empty()) {
        let Pairs(mut pairs) = serde_json::from_slice(line)
            .map_err(|e| at(number, format!("not a JSON object: {e}")))?;
        if let Some(repeated) = repeated_name(pairs.iter().map(|(key, _)| key)) {
            return Err(at(
                number,
                format!(
                    "the key `{}` is given twice in the object: give each key once",
                    shorten_id(repeated.as_bytes())
                ),
            ));
        }
        let query = match pairs
            .iter()
            .position(|(key, _)| key == JSONL_QUERY_KEY)
            .map(|i| pairs.remove(i).1)
        {
            Some(serde_json::Value::String(q)) => {
                if let Some(problem) =
                    bad_query(q.as_bytes(), || format!("key `{JSONL_QUERY_KEY}`"))
                {
                    return Err(at(number, problem));
                }
                q
            }
            Some(serde_json::Value::Number(n)) if n.is_i64() || n.is_u64() => n.to_string(),
            Some(other) => {
                return Err(at(
                    number,
                    format!(
                        "key `{JSONL_QUERY_KEY}`: {} is not a query id (a string or an integer)",
                        excerpt(other.to_string().as_bytes())
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
                    "query `{}` is given again (first on line {before}); give each query one line",
                    excerpt(query.as_bytes())
                ),
            ));
        }
        // New keys in alphabetical order within an object.
        let mut keys: Vec<&String> = pairs.iter().map(|(key, _)| key).collect();
        keys.sort_unstable();
        for key in keys {
            if let Some(problem) = bad_label(key, || "the key".to_owned()) {
                return Err(at(number, problem));
            }
            if known.insert(key.clone()) {
                columns.push(key.clone());
            }
        }
        objects.push((query, pairs));
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
    let position: HashMap<&str, usize> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| (c.as_str(), i))
        .collect();
    let mut rows = Vec::with_capacity(objects.len());
    for (query, pairs) in &objects {
        let line = first_line[query];
        let mut values = vec![String::new(); columns.len()];
        for (column, value) in pairs {
            values[position[column.as_str()]] = match value {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(v) => {
                    let v = v.trim();
                    if let Some(problem) = bad_label(v, || {
                        format!("key `{}`: the group", excerpt(column.as_bytes()))
                    }) {
                        return Err(at(line, problem));
                    }
                    v.to_owned()
                }
                serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
                other => {
                    return Err(at(
                        line,
                        format!(
                            "key `{}`: {} is not a group (a string or an integer)",
                            excerpt(column.as_bytes()),
                            excerpt(other.to_string().as_bytes())
                        ),
                    ));
                }
            };
        }
        rows.push((query.clone(), values));
    }
    QueryGroups::from_rows(JSONL_QUERY_KEY, columns, rows)
        .map_err(|message| ReadError::new(&name, None, ReadErrorKind::BadField(message)))
}

/// A Parquet groups file: its first column the query ids, every other a
/// group column, each of strings or integers (or a dictionary of them). A
/// regular file is read in place; anything else (a FIFO, `/dev/zero`, gzip)
/// is read whole within [`WholeInput::PARQUET`](crate::WholeInput::PARQUET)'s
/// limits first (it must start with `PAR1`), since Parquet is read from its
/// end.
fn read_parquet_groups(path: &Path) -> Result<QueryGroups, ReadError> {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    let name = path.display().to_string();
    let fail = |message: String| ReadError::new(&name, None, ReadErrorKind::Data(message));
    let io = |e: std::io::Error| ReadError::new(&name, None, ReadErrorKind::Io(e));
    let mut file = std::fs::File::open(path).map_err(io)?;
    let in_place = file.metadata().map_err(io)?.is_file() && !is_gzip(&mut file).map_err(io)?;
    let reader = if in_place {
        ParquetRecordBatchReaderBuilder::try_new(file).and_then(|builder| builder.build())
    } else {
        // The file as opened: a FIFO opened again would wait for another
        // writer.
        let bytes = crate::read_whole_from(file, &name, crate::WholeInput::PARQUET)?;
        ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes))
            .and_then(|builder| builder.build())
    }
    .map_err(|e| fail(format!("not a readable Parquet file: {e}")))?;
    parquet_groups(&name, reader)
}

/// Whether the regular file `file` starts with gzip's magic bytes; it is
/// left at its start either way.
fn is_gzip(file: &mut std::fs::File) -> std::io::Result<bool> {
    use std::io::{Read, Seek};
    let mut magic = [0u8; 2];
    let gzip = file.read_exact(&mut magic).is_ok() && magic == [0x1f, 0x8b];
    file.rewind()?;
    Ok(gzip)
}

/// The groups of a Parquet file's record batches (see
/// [`read_parquet_groups`]), named `name` in errors.
fn parquet_groups(
    name: &str,
    reader: parquet::arrow::arrow_reader::ParquetRecordBatchReader,
) -> Result<QueryGroups, ReadError> {
    use arrow_array::RecordBatchReader;

    let fail = |message: String| ReadError::new(name, None, ReadErrorKind::Data(message));
    let schema = reader.schema();
    let mut names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    if names.len() < 2 {
        return Err(fail(format!(
            "{} column: expected the query column, then at least one group column",
            names.len()
        )));
    }
    if let Some(repeated) = repeated_name(&names) {
        return Err(fail(format!(
            "the column `{}` is named twice: two columns of one name would be one group column \
             in every report; give each a name of its own",
            shorten_id(repeated.as_bytes())
        )));
    }
    if let Some(problem) = names
        .iter()
        .find_map(|n| bad_label(n, || "the column name".to_owned()))
    {
        return Err(fail(problem));
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
                    "column `{}` is {}: expected strings or integers",
                    excerpt(column.as_bytes()),
                    array.data_type()
                ))
            })?);
        }
        for row in 0..batch.num_rows() {
            let number = rows.len() + 1;
            let Some(query) = columns[0][row].clone().filter(|q| !q.trim().is_empty()) else {
                return Err(fail(format!(
                    "row {number}: column `{}`: the query id is empty",
                    excerpt(query_column.as_bytes())
                )));
            };
            let query = query.trim().to_owned();
            if let Some(problem) = bad_query(query.as_bytes(), || {
                format!("column `{}`", excerpt(query_column.as_bytes()))
            }) {
                return Err(fail(format!("row {number}: {problem}")));
            }
            if let Some(before) = first_row.insert(query.clone(), number) {
                return Err(fail(format!(
                    "row {number}: query `{}` is given again (first in row {before}); give each \
                     query one row",
                    excerpt(query.as_bytes())
                )));
            }
            let mut values = Vec::with_capacity(names.len());
            for (column, texts) in names.iter().zip(&columns[1..]) {
                let value = texts[row].as_deref().unwrap_or("").trim();
                if let Some(problem) = bad_label(value, || {
                    format!("column `{}`: the group", excerpt(column.as_bytes()))
                }) {
                    return Err(fail(format!("row {number}: {problem}")));
                }
                values.push(value.to_owned());
            }
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
            (
                "query,segment,lang,segment\nq1,a,b,c\n",
                "bad.csv:1: the header names the column `segment` twice (columns 2 and 4)",
            ),
            (
                "query,segment\nq1,head\nq 2,tail\n",
                "bad.csv:3: column `query`: the id `q 2` contains U+0020",
            ),
            (
                "query,segment\nq\u{1b}[31m,head\n",
                "bad.csv:2: column `query`: the id `q\\u{1b}[31m` contains U+001B",
            ),
            (
                "query,segment\nq1,he\u{7}ad\n",
                "bad.csv:2: column `segment`: the group `he\\u{7}ad` contains U+0007",
            ),
            (
                "query,seg\u{0}ment\nq1,head\n",
                "bad.csv:1: the column name `seg\\0ment` contains U+0000",
            ),
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
            (
                "{\"query\": \"a\", \"turn\": 1, \"turn\": 2}\n",
                "bad.jsonl:1: the key `turn` is given twice in the object",
            ),
            (
                "{\"query\": \"a\", \"query\": \"b\", \"turn\": 2}\n",
                "bad.jsonl:1: the key `query` is given twice",
            ),
            (
                "{\"query\": \"a b\", \"turn\": 1}\n",
                "bad.jsonl:1: key `query`: the id `a b` contains U+0020",
            ),
            (
                "{\"query\": \"\", \"turn\": 1}\n",
                "bad.jsonl:1: key `query`: an id cannot be empty",
            ),
            (
                "{\"query\": \"a\", \"turn\": \"1\\u001b\"}\n",
                "bad.jsonl:1: key `turn`: the group `1\\u{1b}` contains U+001B",
            ),
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
        // Read the same from a stream (gzip), read whole first.
        let gz = dir.path().join("g.parquet.gz");
        let mut encoder = flate2::write::GzEncoder::new(
            std::fs::File::create(&gz).expect("create"),
            flate2::Compression::fast(),
        );
        std::io::Write::write_all(&mut encoder, &std::fs::read(&path).expect("read"))
            .expect("gzip");
        encoder.finish().expect("gzip");
        assert_eq!(read_groups(&gz).expect("reads gzip"), groups);
        assert_eq!(groups.query_column(), "qid");
        assert_eq!(groups.columns(), ["segment", "year"]);
        assert_eq!(groups.value("301", 0), Some("head"));
        assert_eq!(groups.value("302", 0), None, "a null is no group");
        assert_eq!(groups.value("303", 1), Some("2025"));
    }

    fn parquet_file(path: &Path, columns: Vec<(&str, Vec<Option<&str>>)>) {
        use std::sync::Arc;

        use arrow_array::{ArrayRef, RecordBatch, StringArray};
        use arrow_schema::{Field, Schema};

        let fields: Vec<Field> = columns
            .iter()
            .map(|(name, _)| Field::new(*name, arrow_schema::DataType::Utf8, true))
            .collect();
        let arrays: Vec<ArrayRef> = columns
            .into_iter()
            .map(|(_, values)| Arc::new(StringArray::from(values)) as ArrayRef)
            .collect();
        let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).expect("batch");
        let file = std::fs::File::create(path).expect("create");
        let mut writer =
            parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).expect("writer");
        writer.write(&batch).expect("write");
        writer.close().expect("close");
    }

    #[test]
    fn parquet_with_a_repeated_column_or_a_bad_id_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let twice = dir.path().join("twice.parquet");
        parquet_file(
            &twice,
            vec![
                ("query", vec![Some("q1")]),
                ("segment", vec![Some("head")]),
                ("segment", vec![Some("tail")]),
            ],
        );
        let message = read_groups(&twice).expect_err("two `segment`").to_string();
        assert!(
            message.contains("twice.parquet: the column `segment` is named twice"),
            "{message}"
        );
        let spaced = dir.path().join("spaced.parquet");
        parquet_file(
            &spaced,
            vec![
                ("query", vec![Some("q1"), Some("q\t2")]),
                ("segment", vec![Some("head"), Some("tail")]),
            ],
        );
        let message = read_groups(&spaced)
            .expect_err("a tab in an id")
            .to_string();
        assert!(
            message.contains("row 2: column `query`: the id `q\\t2` contains U+0009"),
            "{message}"
        );
    }

    #[test]
    fn from_rows_refuses_a_repeated_column() {
        let error = QueryGroups::from_rows(
            "query",
            vec!["segment".into(), "segment".into()],
            [("q1".to_owned(), vec!["a".to_owned(), "b".to_owned()])],
        )
        .expect_err("two `segment`");
        assert!(error.contains("`segment` is named twice"), "{error}");
    }

    /// `/dev/zero`, a FIFO fed without end and a sparse file, named as each
    /// groups format: an error naming the file, quickly, never memory
    /// without bound.
    #[cfg(unix)]
    #[test]
    fn endless_or_huge_inputs_in_every_groups_format_end_in_an_error() {
        use std::io::Write;
        let dir = tempfile::tempdir().expect("tempdir");
        for name in ["g.csv", "g.tsv", "g.jsonl", "g.parquet"] {
            let zero = dir.path().join(format!("zero-{name}"));
            std::os::unix::fs::symlink("/dev/zero", &zero).expect("symlink");
            let message = read_groups(&zero).expect_err(name).to_string();
            assert!(message.contains(&format!("zero-{name}")), "{message}");
            if name.ends_with(".parquet") {
                assert!(message.contains("not a Parquet file"), "{message}");
            } else {
                assert!(message.contains(":1: "), "{name}: {message}");
            }

            let sparse = dir.path().join(format!("sparse-{name}"));
            std::fs::File::create(&sparse)
                .expect("create")
                .set_len(3 << 30)
                .expect("a sparse file");
            let message = read_groups(&sparse).expect_err(name).to_string();
            assert!(message.contains(&format!("sparse-{name}")), "{message}");

            let fifo = dir.path().join(format!("fifo-{name}"));
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if !made.is_ok_and(|s| s.success()) {
                continue;
            }
            let writer = {
                let fifo = fifo.clone();
                std::thread::spawn(move || {
                    let mut pipe = std::fs::OpenOptions::new()
                        .write(true)
                        .open(&fifo)
                        .expect("open the FIFO");
                    let block = vec![b'x'; 1 << 20];
                    // Until the reader stops reading (a broken pipe).
                    while pipe.write_all(&block).is_ok() {}
                })
            };
            let message = read_groups(&fifo).expect_err(name).to_string();
            assert!(message.contains(&format!("fifo-{name}")), "{message}");
            writer.join().expect("the writer ends");
        }
    }
}
