//! JSON Lines in the seed posts' shape, one query per line:
//!
//! ```text
//! {"query": "u1", "predicted": ["A", "B"], "relevant": {"B": 1, "D": 2}}
//! ```
//!
//! - `query`: a string or an integer;
//! - ids (of queries and documents) are not empty and hold no whitespace
//!   and no control character, as in TREC files;
//! - `predicted` (optional): document ids, already ranked, best first; with
//!   an optional `scores` array of the same length the list is ordered by
//!   score instead (ties by document id, as for TREC runs);
//! - `relevant` (optional): document -> grade (an integer, or a float with
//!   no fraction such as `1.0`), or a list of documents (grade 1).
//!
//! A file with `relevant` serves as qrels, one with `predicted` as a run,
//! one with both as both; each query appears on one line. Other keys
//! (`model`, `timestamp`, features...) are ignored. The four keys can be
//! renamed ([`JsonKeys`], from the column options: `query`, `predicted`,
//! `scores`, `relevant`), e.g. to `user_id`, `items`, `ground_truth`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use rankeval_core::{QrelsBuilder, RunBuilder};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::csv::CsvOptions;
use super::error::{LineError, ReadErrorKind};
use super::grade::{EXPECTED_GRADE, grade_from_number, shown};
use super::lines::LineParser;
use super::trec::{qrels_push_error, run_push_error};

/// What a JSONL line looks like, for messages.
pub(crate) const JSONL_LINE: &str =
    r#"one JSON object per line: {"query": ..., "predicted": [...], "relevant": {...}}"#;

/// Parses JSONL lines into a run and qrels at once.
pub(crate) struct Jsonl {
    keys: JsonKeys,
}

impl Jsonl {
    /// The parser for lines with these keys.
    pub(crate) fn new(keys: JsonKeys) -> Self {
        Self { keys }
    }
}

/// The names of the four keys of a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct JsonKeys {
    pub(crate) query: String,
    pub(crate) predicted: String,
    pub(crate) scores: String,
    pub(crate) relevant: String,
}

impl JsonKeys {
    /// The keys the column options name: `query` is the CSV query column
    /// when that is set (not its default `user`), else `query`.
    pub(crate) fn of(options: &CsvOptions) -> Self {
        let defaults = CsvOptions::default();
        Self {
            query: if options.query == defaults.query {
                "query".to_owned()
            } else {
                options.query.clone()
            },
            predicted: options.predicted.clone(),
            scores: options.scores.clone(),
            relevant: options.relevant.clone(),
        }
    }

    /// Whether `key` is one of the keys that mark a line with one query.
    pub(crate) fn marks_a_query_line(&self, key: &str) -> bool {
        key == self.predicted || key == self.relevant
    }
}

/// What a piece of a JSONL file parses into.
#[derive(Default)]
pub(crate) struct JsonlSink {
    pub(crate) run: RunBuilder,
    pub(crate) qrels: QrelsBuilder,
    /// Lines with `predicted` / with `relevant`.
    pub(crate) predicted_lines: u64,
    pub(crate) relevant_lines: u64,
    /// First line of each query, to refuse a repeat.
    seen: HashMap<Box<[u8]>, u64>,
}

/// One line, its keys found by the names in [`JsonKeys`].
struct Line<'a> {
    query: JsonId<'a>,
    predicted: Option<Vec<JsonId<'a>>>,
    scores: Option<Vec<f64>>,
    relevant: Option<Relevant<'a>>,
}

/// Reads a [`Line`] with these key names, skipping other keys.
struct LineSeed<'k>(&'k JsonKeys);

impl<'de, 'k> DeserializeSeed<'de> for LineSeed<'k> {
    type Value = Line<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Line<'de>, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for LineSeed<'_> {
    type Value = Line<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Line<'de>, M::Error> {
        let keys = self.0;
        let mut query = None;
        let mut predicted = None;
        let mut scores = None;
        let mut relevant = None;
        fn once<T, E: de::Error>(slot: &mut Option<T>, value: T, key: &str) -> Result<(), E> {
            if slot.replace(value).is_some() {
                return Err(E::custom(format!("key `{key}` appears twice")));
            }
            Ok(())
        }
        while let Some(JsonId(key)) = map.next_key::<JsonId<'de>>()? {
            let key = key.as_ref();
            if key == keys.query {
                once(&mut query, map.next_value::<JsonId<'de>>()?, key)?;
            } else if key == keys.predicted {
                once(&mut predicted, map.next_value::<Vec<JsonId<'de>>>()?, key)?;
            } else if key == keys.scores {
                once(&mut scores, map.next_value::<Vec<f64>>()?, key)?;
            } else if key == keys.relevant {
                once(&mut relevant, map.next_value::<Relevant<'de>>()?, key)?;
            } else {
                map.next_value::<de::IgnoredAny>()?;
            }
        }
        let query = query.ok_or_else(|| {
            <M::Error as de::Error>::custom(format!("missing field `{}`", keys.query))
        })?;
        Ok(Line {
            query,
            predicted,
            scores,
            relevant,
        })
    }
}

/// An id: a JSON string or integer.
pub(crate) struct JsonId<'a>(pub(crate) Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for JsonId<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IdVisitor;
        impl<'de> Visitor<'de> for IdVisitor {
            type Value = JsonId<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an id (a string or an integer)")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(JsonId(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(JsonId(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(JsonId(Cow::Owned(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(JsonId(Cow::Owned(v.to_string())))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(JsonId(Cow::Owned(v.to_string())))
            }
        }
        deserializer.deserialize_any(IdVisitor)
    }
}

/// The judgements of a line: `{"doc": grade}` or `["doc", ...]`.
struct Relevant<'a>(Vec<(JsonId<'a>, f64)>);

impl<'de: 'a, 'a> Deserialize<'de> for Relevant<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RelevantVisitor;
        impl<'de> Visitor<'de> for RelevantVisitor {
            type Value = Relevant<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of document -> grade, or a list of documents")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut judged = Vec::new();
                while let Some((doc, grade)) = map.next_entry::<JsonId<'de>, Grade>()? {
                    judged.push((doc, grade.0));
                }
                Ok(Relevant(judged))
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
                let mut judged = Vec::new();
                while let Some(doc) = seq.next_element::<JsonId<'de>>()? {
                    judged.push((doc, 1.0));
                }
                Ok(Relevant(judged))
            }
        }
        deserializer.deserialize_any(RelevantVisitor)
    }
}

/// A grade: a JSON number, integer or decimal, checked as every reader
/// checks grades.
struct Grade(f64);

impl<'de> Deserialize<'de> for Grade {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct GradeVisitor;
        impl Visitor<'_> for GradeVisitor {
            type Value = Grade;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(EXPECTED_GRADE)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Grade, E> {
                // Beyond 2^53 the conversion rounds, but such a number is
                // out of the grade range anyway.
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Grade, E> {
                self.visit_f64(v as f64)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Grade, E> {
                grade_from_number(v)
                    .map(Grade)
                    .map_err(|expected| E::custom(format!("grade {} is not {expected}", shown(v))))
            }
        }
        deserializer.deserialize_any(GradeVisitor)
    }
}

impl LineParser for Jsonl {
    type Sink = JsonlSink;

    fn sink(&self) -> JsonlSink {
        JsonlSink::default()
    }

    fn parse(&self, sink: &mut JsonlSink, line: &[u8], number: u64) -> Result<(), LineError> {
        let fail = |kind| LineError::new(number, kind);
        let keys = &self.keys;
        let mut deserializer = serde_json::Deserializer::from_slice(line);
        let parsed = LineSeed(keys)
            .deserialize(&mut deserializer)
            .and_then(|line| deserializer.end().map(|()| line))
            .map_err(|e| fail(ReadErrorKind::Json(json_reason(&e))))?;
        check_ids(&parsed, keys).map_err(fail)?;
        let query = parsed.query.0.as_bytes();
        if parsed.predicted.is_none() && parsed.relevant.is_none() {
            return Err(fail(ReadErrorKind::BadField(format!(
                "the line has neither `{}` nor `{}`",
                keys.predicted, keys.relevant
            ))));
        }
        if let Some(first) = sink.seen.insert(query.into(), number) {
            return Err(fail(ReadErrorKind::RepeatedQuery {
                query: parsed.query.0.into_owned(),
                first_line: first,
            }));
        }
        if let Some(predicted) = &parsed.predicted {
            sink.predicted_lines += 1;
            push_predicted(
                &mut sink.run,
                query,
                predicted,
                parsed.scores.as_deref(),
                number,
                keys,
            )?;
        } else if parsed.scores.is_some() {
            return Err(fail(ReadErrorKind::BadField(format!(
                "`{}` is given without `{}`",
                keys.scores, keys.predicted
            ))));
        }
        if let Some(Relevant(judged)) = &parsed.relevant {
            sink.relevant_lines += 1;
            sink.qrels
                .declare_query(query, number)
                .map_err(|e| fail(qrels_push_error(e)))?;
            for (doc, grade) in judged {
                sink.qrels
                    .push_at(query, doc.0.as_bytes(), *grade, number)
                    .map_err(|e| fail(qrels_push_error(e)))?;
            }
        }
        Ok(())
    }

    fn join(&self, sink: &mut JsonlSink, later: JsonlSink, offset: u64) -> Result<(), LineError> {
        for (query, line) in later.seen {
            let line = line.saturating_add(offset);
            if let Some(&first) = sink.seen.get(&query) {
                return Err(LineError::new(
                    line,
                    ReadErrorKind::RepeatedQuery {
                        query: rankeval_core::shorten_id(&query),
                        first_line: first,
                    },
                ));
            }
            sink.seen.insert(query, line);
        }
        sink.run.append(later.run, offset);
        sink.qrels.append(later.qrels, offset);
        sink.predicted_lines += later.predicted_lines;
        sink.relevant_lines += later.relevant_lines;
        Ok(())
    }
}

/// serde's message without its "at line 1": the line is the file's, named
/// already; the column stays.
pub(crate) fn json_reason(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    match text.strip_suffix(&position) {
        Some(reason) if error.column() > 0 => format!("{reason} at column {}", error.column()),
        Some(reason) => reason.to_owned(),
        None => text,
    }
}

/// Refuses a line with an id that is empty or holds whitespace or a control
/// character, naming the key it is under: such an id cannot be written back
/// to a TREC file (split on whitespace) nor to a table or CSV report.
fn check_ids(line: &Line<'_>, keys: &JsonKeys) -> Result<(), ReadErrorKind> {
    check_id(&line.query, &keys.query)?;
    for doc in line.predicted.iter().flatten() {
        check_id(doc, &keys.predicted)?;
    }
    for (doc, _) in line.relevant.iter().flat_map(|r| &r.0) {
        check_id(doc, &keys.relevant)?;
    }
    Ok(())
}

pub(crate) fn check_id(id: &JsonId<'_>, key: &str) -> Result<(), ReadErrorKind> {
    rankeval_core::check_id(id.0.as_bytes())
        .map_err(|bad| ReadErrorKind::BadField(format!("`{key}`: {bad}")))
}

fn push_predicted(
    run: &mut RunBuilder,
    query: &[u8],
    predicted: &[JsonId<'_>],
    scores: Option<&[f64]>,
    number: u64,
    keys: &JsonKeys,
) -> Result<(), LineError> {
    let fail = |kind| LineError::new(number, kind);
    run.declare_query(query, scores.is_none(), number)
        .map_err(|e| fail(run_push_error(e)))?;
    match scores {
        Some(scores) => {
            if scores.len() != predicted.len() {
                let plural = |n: usize| if n == 1 { "" } else { "s" };
                return Err(fail(ReadErrorKind::BadField(format!(
                    "`{}` has {} value{} but `{}` has {} document{}",
                    keys.scores,
                    scores.len(),
                    plural(scores.len()),
                    keys.predicted,
                    predicted.len(),
                    plural(predicted.len())
                ))));
            }
            for (doc, &score) in predicted.iter().zip(scores) {
                run.push_scored_at(query, doc.0.as_bytes(), score, number)
                    .map_err(|e| fail(run_push_error(e)))?;
            }
        }
        None => {
            for doc in predicted {
                run.push_ranked_at(query, doc.0.as_bytes(), number)
                    .map_err(|e| fail(run_push_error(e)))?;
            }
        }
    }
    Ok(())
}
