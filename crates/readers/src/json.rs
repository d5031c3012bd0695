//! JSON in the two shapes other tools write besides one query per line:
//!
//! - **rows**, one JSON object per line and per (query, document), as pandas
//!   `to_json(orient="records", lines=True)` writes a data frame:
//!   `{"user": 1, "item": "i7", "score": 0.9}`. Read like a CSV file, with
//!   the same column names ([`CsvOptions`]; a name left at its default also
//!   finds the usual other names, as for Parquet: `query`, `doc`); other
//!   keys are ignored. Ids are strings or integers; scores, ranks and grades
//!   numbers.
//! - **a dict of dicts**, one JSON document `{"q1": {"d1": 12.5, "d2": 9.1}}`
//!   as ranx saves runs and qrels and pytrec_eval takes them: scores for a
//!   run, grades for qrels. A query mapped to `{}` was run (or judged) and
//!   has nothing.
//!
//! [`shape`] tells the three JSON shapes apart from the start of a file.

use std::cell::Cell;
use std::fmt;

use rankeval_core::{QrelsBuilder, RunBuilder};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::csv::{CsvOptions, GRADES, ORDERING_VALUES};
use super::error::{LineError, ReadErrorKind, excerpt};
use super::jsonl::JsonKeys;
use super::lines::LineParser;
use super::missing_column::{ColumnPlace, InputKind, MissingColumn, PresentColumn};
use super::table::grade_of_number;
use super::trec::{qrels_push_error, run_push_error};
use super::ungraded::{EmptyGrade, QrelsRows};

/// The shape of a JSON input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// One query per line (`predicted`, `relevant`).
    QueryLines,
    /// One row per line (`user`, `item`, `score`).
    Rows,
    /// One document mapping queries to documents to numbers.
    DictOfDicts,
}

/// Tells the shape from the input's first bytes (`start`: its first line,
/// or more): a first key whose value is an object, other than the query
/// lines' own keys, or a first line that is not a whole JSON value (a
/// pretty-printed document), makes a dict of dicts; a first line with
/// `predicted` or `relevant` (as the options name them) is a query line,
/// else one with a document column (`item` or `doc`, as named) a row, else
/// a query line.
pub(crate) fn shape(start: &[u8], options: &CsvOptions) -> Shape {
    let keys = &JsonKeys::of(options);
    let first_line = start
        .split(|&b| b == b'\n')
        .find(|line| !line.trim_ascii().is_empty())
        .unwrap_or_default();
    let first_line = first_line
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(first_line);
    // The first entry of the first object.
    let found: Cell<Option<(bool, bool)>> = Cell::new(None);
    let mut deserializer = serde_json::Deserializer::from_slice(first_line);
    let _ = deserializer.deserialize_map(FirstEntry {
        keys,
        found: &found,
    });
    match found.get() {
        Some((false, true)) => return Shape::DictOfDicts,
        Some((true, _)) => return Shape::QueryLines,
        _ => {}
    }
    // A whole first line: its keys.
    let mut shape = Shape::QueryLines;
    let whole = serde_json::from_slice::<de::IgnoredAny>(first_line).is_ok();
    if !whole {
        let trimmed = first_line.trim_ascii();
        if trimmed.first() == Some(&b'{') && found.get().is_none() {
            return Shape::DictOfDicts;
        }
        return Shape::QueryLines;
    }
    if let Ok(object) =
        serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(first_line)
    {
        let doc = names(&options.doc, "item", &["doc"]);
        if !object.keys().any(|k| keys.marks_a_query_line(k))
            && object.keys().any(|k| doc.contains(k))
        {
            shape = Shape::Rows;
        }
    }
    shape
}

/// Looks at the first entry of an object: whether its key is a query
/// line's key, and whether its value is an object. Stops there (with an
/// error the caller ignores).
struct FirstEntry<'a> {
    keys: &'a JsonKeys,
    found: &'a Cell<Option<(bool, bool)>>,
}

impl<'de> Visitor<'de> for FirstEntry<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        if let Some(key) = map.next_key::<String>()? {
            let query_key = self.keys.marks_a_query_line(&key);
            let is_object = map.next_value::<IsObject>()?.0;
            self.found.set(Some((query_key, is_object)));
        }
        Err(de::Error::custom("stop"))
    }
}

/// Whether a value is an object (its content skipped).
struct IsObject(bool);

impl<'de> de::Deserialize<'de> for IsObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Kind;
        impl<'de> Visitor<'de> for Kind {
            type Value = IsObject;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<IsObject, M::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(IsObject(true))
            }
            fn visit_seq<S: de::SeqAccess<'de>>(self, mut seq: S) -> Result<IsObject, S::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(IsObject(false))
            }
            fn visit_bool<E>(self, _: bool) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_i64<E>(self, _: i64) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_u64<E>(self, _: u64) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_f64<E>(self, _: f64) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_str<E>(self, _: &str) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_unit<E>(self) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
        }
        deserializer.deserialize_any(Kind)
    }
}

/// What a row line looks like, for messages.
pub(crate) const ROW_LINE: &str =
    r#"one JSON object per line and document: {"user": ..., "item": ..., "score": ...}"#;

/// What a dict of dicts looks like, for messages.
pub(crate) const DICT_OF_DICTS: &str = r#"one JSON object {"query": {"document": number}}"#;

/// What the number of a row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    Score,
    Rank,
    Grade,
    Absent,
}

/// Parses row lines into a run or qrels.
pub(crate) struct Rows {
    query: Vec<String>,
    doc: Vec<String>,
    value: Vec<String>,
    what: Value,
    /// What a `null` grade means (qrels only; a null score is an error).
    empty: EmptyGrade,
}

impl Rows {
    /// The parser of a run, its value column chosen by the first line's
    /// keys (score, else rank).
    pub(crate) fn run(options: &CsvOptions, first_line: &[u8]) -> Result<Self, ReadErrorKind> {
        let keys = first_keys(first_line);
        let score = names(&options.score, "score", &[]);
        let rank = names(&options.rank, "rank", &[]);
        let has = |names: &[String]| names.iter().any(|n| keys.contains(n));
        let (value, what) = if has(&score) {
            (score, Value::Score)
        } else if options.is_named("score") && !options.is_named("rank") {
            // A score key named but absent is not replaced by ranks the
            // user did not name.
            return Err(missing_key(
                InputKind::Run,
                &["score"],
                score,
                "scores",
                keys,
            ));
        } else if has(&rank) {
            (rank, Value::Rank)
        } else {
            let mut wanted = score;
            wanted.extend(rank);
            return Err(missing_key(
                InputKind::Run,
                &["score", "rank"],
                wanted,
                ORDERING_VALUES,
                keys,
            ));
        };
        Ok(Self::new(options, value, what))
    }

    /// The parser of qrels: grades where the first line has the grade key,
    /// else grade 1; an error when the grade key is named
    /// ([`CsvOptions::is_named`]) and the first line lacks it.
    pub(crate) fn qrels(options: &CsvOptions, first_line: &[u8]) -> Result<Self, ReadErrorKind> {
        let keys = first_keys(first_line);
        let grade = names(&options.grade, "grade", &[]);
        let what = if grade.iter().any(|n| keys.contains(n)) {
            Value::Grade
        } else if options.is_named("grade") {
            return Err(missing_key(
                InputKind::Qrels,
                &["grade"],
                grade,
                GRADES,
                keys,
            ));
        } else {
            Value::Absent
        };
        Ok(Self::new(options, grade, what))
    }

    /// Whether these are qrels read without grades (the first line has no
    /// grade key): every row is then relevant with grade 1.
    pub(crate) fn ungraded(&self) -> bool {
        self.what == Value::Absent
    }

    fn new(options: &CsvOptions, value: Vec<String>, what: Value) -> Self {
        Self {
            query: names(&options.query, "user", &["query"]),
            doc: names(&options.doc, "item", &["doc"]),
            value,
            what,
            empty: EmptyGrade::Refused,
        }
    }

    /// The same parser of qrels, a `null` grade meaning `empty`.
    pub(crate) fn with_empty(mut self, empty: EmptyGrade) -> Self {
        if self.what == Value::Grade {
            self.empty = empty;
        }
        self
    }
}

/// The names a column is looked for under: the one set, or the default and
/// the usual others.
fn names(set: &str, default: &str, others: &[&str]) -> Vec<String> {
    if set != default {
        return vec![set.to_owned()];
    }
    std::iter::once(default)
        .chain(others.iter().copied())
        .map(str::to_owned)
        .collect()
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// A key the first line of JSON rows lacks (JSON rows are read like CSV).
fn missing_key(
    input: InputKind,
    options: &[&'static str],
    wanted: Vec<String>,
    what: &'static str,
    keys: Vec<String>,
) -> ReadErrorKind {
    ReadErrorKind::MissingColumn(Box::new(MissingColumn {
        input,
        place: ColumnPlace::FirstLineKeys,
        options: options.to_vec(),
        wanted,
        what,
        present: keys
            .into_iter()
            .map(|name| PresentColumn {
                name,
                data_type: None,
            })
            .collect(),
        note: None,
    }))
}

/// The keys of a JSON object line, in order (none if it is not one).
pub(crate) fn first_keys(line: &[u8]) -> Vec<String> {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(line)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

/// One row: its query, document and number.
struct Row<'a> {
    query: Option<super::jsonl::JsonId<'a>>,
    doc: Option<super::jsonl::JsonId<'a>>,
    value: Option<f64>,
    /// The grade is `null` (read so only with [`EmptyGrade::Unjudged`]).
    null: bool,
}

struct RowSeed<'p>(&'p Rows);

impl<'de> DeserializeSeed<'de> for RowSeed<'_> {
    type Value = Row<'de>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Row<'de>, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RowSeed<'_> {
    type Value = Row<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Row<'de>, M::Error> {
        let rows = self.0;
        let mut row = Row {
            query: None,
            doc: None,
            value: None,
            null: false,
        };
        while let Some(super::jsonl::JsonId(key)) = map.next_key::<super::jsonl::JsonId<'de>>()? {
            let key = key.as_ref();
            let is = |names: &[String]| names.iter().any(|n| n == key);
            if is(&rows.query) && row.query.is_none() {
                row.query = Some(map.next_value()?);
            } else if is(&rows.doc) && row.doc.is_none() {
                row.doc = Some(map.next_value()?);
            } else if rows.what != Value::Absent
                && is(&rows.value)
                && row.value.is_none()
                && !row.null
            {
                if rows.empty == EmptyGrade::Unjudged {
                    let value: Option<Number> = map.next_value()?;
                    row.value = value.as_ref().map(|v| v.0);
                    row.null = value.is_none();
                } else {
                    let value: Number = map.next_value()?;
                    row.value = Some(value.0);
                }
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(row)
    }
}

/// A number: a JSON number (not a string).
struct Number(f64);

impl<'de> de::Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        f64::deserialize(deserializer).map(Number)
    }
}

impl Rows {
    fn row<'a>(&self, line: &'a [u8], number: u64) -> Result<Row<'a>, LineError> {
        let fail = |kind| LineError::new(number, kind);
        let mut deserializer = serde_json::Deserializer::from_slice(line);
        let row = RowSeed(self)
            .deserialize(&mut deserializer)
            .and_then(|row| deserializer.end().map(|()| row))
            .map_err(|e| fail(ReadErrorKind::Json(super::jsonl::json_reason(&e))))?;
        let missing = |names: &[String]| {
            fail(ReadErrorKind::BadField(format!(
                "the line has no key {}",
                quoted(names)
            )))
        };
        if row.query.is_none() {
            return Err(missing(&self.query));
        }
        if row.doc.is_none() {
            return Err(missing(&self.doc));
        }
        if row.value.is_none() && !row.null && self.what != Value::Absent {
            return Err(missing(&self.value));
        }
        for (id, names) in [(&row.query, &self.query), (&row.doc, &self.doc)] {
            if let Some(id) = id {
                super::jsonl::check_id(id, &names[0]).map_err(fail)?;
            }
        }
        Ok(row)
    }
}

/// Parses row lines into a run.
pub(crate) struct RowRun(pub(crate) Rows);

impl LineParser for RowRun {
    type Sink = RunBuilder;

    fn sink(&self) -> RunBuilder {
        RunBuilder::new()
    }

    fn parse(&self, sink: &mut RunBuilder, line: &[u8], number: u64) -> Result<(), LineError> {
        let row = self.0.row(line, number)?;
        let (Some(query), Some(doc), Some(value)) = (row.query, row.doc, row.value) else {
            return Ok(());
        };
        let score = if self.0.what == Value::Rank {
            -value
        } else {
            value
        };
        sink.push_scored_at(query.0.as_bytes(), doc.0.as_bytes(), score, number)
            .map_err(|e| LineError::new(number, run_push_error(e)))
    }

    fn join(&self, sink: &mut RunBuilder, later: RunBuilder, offset: u64) -> Result<(), LineError> {
        sink.append(later, offset);
        Ok(())
    }
}

/// Parses row lines into qrels.
pub(crate) struct RowQrels(pub(crate) Rows);

impl LineParser for RowQrels {
    type Sink = QrelsRows;

    fn sink(&self) -> QrelsRows {
        QrelsRows::default()
    }

    fn parse(&self, sink: &mut QrelsRows, line: &[u8], number: u64) -> Result<(), LineError> {
        let row = self.0.row(line, number)?;
        if row.null {
            // Not judged by this judge: its ids were checked.
            sink.skip(number);
            return Ok(());
        }
        let (Some(query), Some(doc)) = (row.query, row.doc) else {
            return Ok(());
        };
        let grade = match row.value {
            Some(value) => grade_of_number(value).map_err(|problem| {
                LineError::new(
                    number,
                    ReadErrorKind::BadField(format!("`{}`: {problem}", self.0.value[0])),
                )
            })?,
            None => 1.0,
        };
        sink.qrels
            .push_at(query.0.as_bytes(), doc.0.as_bytes(), grade, number)
            .map_err(|e| LineError::new(number, qrels_push_error(e)))
    }

    fn join(&self, sink: &mut QrelsRows, later: QrelsRows, offset: u64) -> Result<(), LineError> {
        sink.append(later, offset);
        Ok(())
    }
}

/// Where a dict of dicts goes: scores into a run, or grades into qrels.
pub(crate) trait DictSink {
    /// Gives `query` a place even if it has no entry.
    fn declare(&mut self, query: &str, at: u64) -> Result<(), String>;
    /// Adds one entry; `at` counts entries from 1.
    fn push(&mut self, query: &str, doc: &str, value: f64, at: u64) -> Result<(), String>;
}

impl DictSink for RunBuilder {
    fn declare(&mut self, query: &str, at: u64) -> Result<(), String> {
        self.declare_query(query.as_bytes(), false, at)
            .map_err(|e| run_push_error(e).to_string())
    }
    fn push(&mut self, query: &str, doc: &str, value: f64, at: u64) -> Result<(), String> {
        if value.is_nan() {
            return Err("NaN is not a score that can be ordered".into());
        }
        self.push_scored_at(query.as_bytes(), doc.as_bytes(), value, at)
            .map_err(|e| run_push_error(e).to_string())
    }
}

impl DictSink for QrelsBuilder {
    fn declare(&mut self, query: &str, at: u64) -> Result<(), String> {
        self.declare_query(query.as_bytes(), at)
            .map_err(|e| qrels_push_error(e).to_string())
    }
    fn push(&mut self, query: &str, doc: &str, value: f64, at: u64) -> Result<(), String> {
        let grade = grade_of_number(value)?;
        self.push_at(query.as_bytes(), doc.as_bytes(), grade, at)
            .map_err(|e| qrels_push_error(e).to_string())
    }
}

/// Reads a dict of dicts from `bytes` into `sink`; the error says where
/// (query, document, and the JSON line and column for syntax).
pub(crate) fn read_dict_of_dicts<S: DictSink>(
    bytes: &[u8],
    sink: &mut S,
) -> Result<u64, ReadErrorKind> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let problem: Cell<Option<String>> = Cell::new(None);
    let mut entries = 0u64;
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let result = deserializer
        .deserialize_map(Outer {
            sink,
            entries: &mut entries,
            problem: &problem,
        })
        .and_then(|()| deserializer.end());
    if let Some(problem) = problem.take() {
        return Err(ReadErrorKind::BadField(problem));
    }
    result.map_err(|e| ReadErrorKind::BadField(format!("invalid JSON: {e}")))?;
    Ok(entries)
}

struct Outer<'a, S> {
    sink: &'a mut S,
    entries: &'a mut u64,
    problem: &'a Cell<Option<String>>,
}

impl<'de, S: DictSink> Visitor<'de> for Outer<'_, S> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"an object {"query": {"document": number}}"#)
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        let mut queries = 0u64;
        while let Some(super::jsonl::JsonId(query)) = map.next_key::<super::jsonl::JsonId<'de>>()? {
            queries += 1;
            let fail = |problem: String| {
                self.problem.set(Some(problem));
                de::Error::custom("stop")
            };
            super::jsonl::check_id(&super::jsonl::JsonId(query.clone()), "query")
                .map_err(|k| fail(format!("query {}: {k}", queries)))?;
            self.sink
                .declare(&query, *self.entries + 1)
                .map_err(|p| fail(format!("query `{}`: {p}", excerpt(query.as_bytes()))))?;
            map.next_value_seed(Inner {
                query: &query,
                sink: &mut *self.sink,
                entries: &mut *self.entries,
                problem: self.problem,
            })?;
        }
        Ok(())
    }
}

struct Inner<'a, S> {
    query: &'a str,
    sink: &'a mut S,
    entries: &'a mut u64,
    problem: &'a Cell<Option<String>>,
}

impl<'de, S: DictSink> DeserializeSeed<'de> for Inner<'_, S> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, S: DictSink> Visitor<'de> for Inner<'_, S> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "an object of document -> number for query `{}`",
            self.query
        )
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        while let Some(super::jsonl::JsonId(doc)) = map.next_key::<super::jsonl::JsonId<'de>>()? {
            let value: f64 = map.next_value()?;
            *self.entries += 1;
            let stop = |problem: String| {
                self.problem.set(Some(problem));
                de::Error::custom("stop")
            };
            let query = excerpt(self.query.as_bytes());
            super::jsonl::check_id(&super::jsonl::JsonId(doc.clone()), "document")
                .map_err(|k| stop(format!("query `{query}`: {k}")))?;
            let fail = |problem: String| {
                stop(format!(
                    "query `{query}`, document `{}`: {problem}",
                    excerpt(doc.as_bytes())
                ))
            };
            self.sink
                .push(self.query, &doc, value, *self.entries)
                .map_err(fail)?;
        }
        Ok(())
    }
}
