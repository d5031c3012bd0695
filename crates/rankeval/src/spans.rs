//! Retrieval for RAG judged on text spans (docs/judgements.md, "Retrieval
//! for RAG, judged on text spans").
//!
//! Span qrels hold `(query, doc, start, end, grade)`: a passage of a
//! document, half-open `[start, end)` character offsets local to the
//! document, judged with a grade. A run of chunks holds `(query, doc,
//! start, end, score)`. Since judgements name text, not chunk ids,
//! re-chunking a corpus leaves them valid:
//!
//! - **chunk level**: a retrieved chunk's grade is the highest grade of
//!   the spans of its query and document that it overlaps by the declared
//!   [`Overlap`] rule; the spans and chunks become ordinary [`Qrels`] and
//!   [`Run`] ([`chunk_level`]) and every metric of the engine applies;
//! - **character level**: the retrieved text of the top k chunks against
//!   the relevant text, as character sets: precision, recall and IoU
//!   ([`char_level`]).

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;
use std::str::FromStr;

use rankeval_core::exact_sum::fmean;
use rankeval_core::{Duplicates, Metric, Qrels, QrelsBuilder, Run, RunBuilder, compare_scored};
use serde::Serialize;

use crate::engine::{Options, evaluate};

/// A judged passage: half-open character offsets `[start, end)` in `doc`.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// The query.
    pub query: String,
    /// The document.
    pub doc: String,
    /// The first character.
    pub start: u64,
    /// One past the last character (`end > start`).
    pub end: u64,
    /// Its grade (0: judged non-relevant).
    pub grade: f64,
}

/// A retrieved chunk: half-open character offsets `[start, end)` in `doc`.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    /// The query.
    pub query: String,
    /// The document.
    pub doc: String,
    /// The first character.
    pub start: u64,
    /// One past the last character (`end > start`).
    pub end: u64,
    /// Its score: higher is ranked first.
    pub score: f64,
}

impl Chunk {
    /// The chunk's id in the chunk-level run and qrels: `doc#start-end`.
    pub fn id(&self) -> String {
        chunk_id(&self.doc, self.start, self.end)
    }
}

/// The id of the chunk `[start, end)` of `doc`: `doc#start-end`.
pub fn chunk_id(doc: &str, start: u64, end: u64) -> String {
    format!("{doc}#{start}-{end}")
}

/// The id of a relevant span no retrieved chunk matched, in the
/// chunk-level qrels: `doc#span:start-end` (never a chunk's id).
pub fn unretrieved_span_id(doc: &str, start: u64, end: u64) -> String {
    format!("{doc}#span:{start}-{end}")
}

/// Why span qrels or a chunk run could not be read or used.
#[derive(Debug, thiserror::Error)]
pub enum SpansError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line is wrong.
    #[error("{path}, line {line}: {problem}")]
    Line {
        /// The file.
        path: String,
        /// The line, from 1.
        line: u64,
        /// What is wrong.
        problem: String,
    },
    /// The file as a whole is wrong (no header, a missing column).
    #[error("{path}: {problem}")]
    File {
        /// The file.
        path: String,
        /// What is wrong.
        problem: String,
    },
    /// The chunk-level qrels or run could not be built.
    #[error("{0}")]
    Build(String),
}

/// The overlap rule that makes a chunk match a span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Overlap {
    /// At least one character in common.
    Any,
    /// `|chunk ∩ span| / |chunk ∪ span| >= t`.
    Iou(f64),
    /// `|chunk ∩ span| / |span| >= t`: the share of the span the chunk
    /// covers.
    Coverage(f64),
}

impl Overlap {
    /// Whether the chunk `[chunk.0, chunk.1)` matches the span `[span.0,
    /// span.1)` (never without a character in common).
    pub fn holds(self, chunk: (u64, u64), span: (u64, u64)) -> bool {
        let common = chunk.1.min(span.1).saturating_sub(chunk.0.max(span.0));
        if common == 0 {
            return false;
        }
        match self {
            Overlap::Any => true,
            Overlap::Iou(t) => {
                let union = (chunk.1 - chunk.0) + (span.1 - span.0) - common;
                common as f64 / union as f64 >= t
            }
            Overlap::Coverage(t) => common as f64 / (span.1 - span.0) as f64 >= t,
        }
    }
}

impl fmt::Display for Overlap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Overlap::Any => f.write_str("any"),
            Overlap::Iou(t) => write!(f, "iou>={t}"),
            Overlap::Coverage(t) => write!(f, "coverage>={t}"),
        }
    }
}

impl FromStr for Overlap {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text == "any" {
            return Ok(Overlap::Any);
        }
        let bad = || format!("`{text}`: `any`, `iou>=T` or `coverage>=T`, T in (0, 1]");
        let (rule, threshold) = text.split_once(">=").ok_or_else(bad)?;
        let t: f64 = threshold.trim().parse().map_err(|_| bad())?;
        if !(t > 0.0 && t <= 1.0) {
            return Err(bad());
        }
        match rule.trim() {
            "iou" => Ok(Overlap::Iou(t)),
            "coverage" => Ok(Overlap::Coverage(t)),
            _ => Err(bad()),
        }
    }
}

/// One row as read: query, doc, start, end and the last number (a grade or
/// a score).
struct Row {
    query: String,
    doc: String,
    start: u64,
    end: u64,
    value: f64,
}

/// Reads span qrels: a TSV/CSV table with a header naming `query, doc,
/// start, end, grade`, or JSON Lines objects with those keys.
pub fn read_spans(path: &Path) -> Result<Vec<Span>, SpansError> {
    let text = read_text(path)?;
    parse_spans(&text, &path.display().to_string())
}

/// Reads a run of chunks: a TSV/CSV table with a header naming `query,
/// doc, start, end, score`, or JSON Lines objects with those keys.
pub fn read_chunks(path: &Path) -> Result<Vec<Chunk>, SpansError> {
    let text = read_text(path)?;
    parse_chunks(&text, &path.display().to_string())
}

fn read_text(path: &Path) -> Result<String, SpansError> {
    std::fs::read_to_string(path).map_err(|source| SpansError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// [`read_spans`] on text; `name` is the file errors name.
pub fn parse_spans(text: &str, name: &str) -> Result<Vec<Span>, SpansError> {
    Ok(parse_rows(text, name, "grade")?
        .into_iter()
        .map(|(_, r)| Span {
            query: r.query,
            doc: r.doc,
            start: r.start,
            end: r.end,
            grade: r.value,
        })
        .collect())
}

/// [`read_chunks`] on text; `name` is the file errors name. A chunk given
/// twice for one query is an error.
pub fn parse_chunks(text: &str, name: &str) -> Result<Vec<Chunk>, SpansError> {
    let rows = parse_rows(text, name, "score")?;
    let mut seen: HashMap<(&str, &str, u64, u64), u64> = HashMap::new();
    for (line, r) in &rows {
        if let Some(first) = seen.insert((&r.query, &r.doc, r.start, r.end), *line) {
            return Err(SpansError::Line {
                path: name.to_owned(),
                line: *line,
                problem: format!(
                    "query `{}` retrieves the chunk {} twice (first at line {first})",
                    r.query,
                    chunk_id(&r.doc, r.start, r.end)
                ),
            });
        }
    }
    Ok(rows
        .into_iter()
        .map(|(_, r)| Chunk {
            query: r.query,
            doc: r.doc,
            start: r.start,
            end: r.end,
            score: r.value,
        })
        .collect())
}

/// The rows of a table or JSON Lines text with their line numbers; `last`
/// names the fifth column (`grade` or `score`).
fn parse_rows(text: &str, name: &str, last: &str) -> Result<Vec<(u64, Row)>, SpansError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.lines().find(|l| !l.trim().is_empty());
    let Some(first) = first else {
        return Err(SpansError::File {
            path: name.to_owned(),
            problem: format!("empty: a header naming query, doc, start, end, {last} is needed"),
        });
    };
    if first.trim_start().starts_with('{') {
        json_rows(text, name, last)
    } else {
        table_rows(text, name, last)
    }
}

fn check_row(row: Row, last: &str) -> Result<Row, String> {
    if row.end <= row.start {
        return Err(format!(
            "end {} <= start {}: a span is [start, end), end after start",
            row.end, row.start
        ));
    }
    if !row.value.is_finite() {
        return Err(format!("{last} {}: not a finite number", row.value));
    }
    Ok(row)
}

fn table_rows(text: &str, name: &str, last: &str) -> Result<Vec<(u64, Row)>, SpansError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (header_at, header) = lines.next().unwrap_or((0, ""));
    let separator = if header.contains('\t') { '\t' } else { ',' };
    let names: Vec<&str> = header.split(separator).map(str::trim).collect();
    let wanted = ["query", "doc", "start", "end", last];
    let mut at = [0usize; 5];
    for (slot, want) in at.iter_mut().zip(wanted) {
        *slot = names.iter().position(|n| *n == want).ok_or_else(|| SpansError::Line {
            path: name.to_owned(),
            line: header_at as u64 + 1,
            problem: format!(
                "no column `{want}` in the header (it has: {}); the columns are query, doc, start, end, {last}",
                names.join(", ")
            ),
        })?;
    }
    let mut rows = Vec::new();
    for (i, line) in lines {
        let number = i as u64 + 1;
        let error = |problem: String| SpansError::Line {
            path: name.to_owned(),
            line: number,
            problem,
        };
        let fields: Vec<&str> = line.split(separator).map(str::trim).collect();
        if fields.len() != names.len() {
            return Err(error(format!(
                "{} fields, the header has {}",
                fields.len(),
                names.len()
            )));
        }
        let offset = |column: usize, what: &str| {
            let field = fields[at[column]];
            field
                .parse::<u64>()
                .map_err(|_| error(format!("{what} `{field}`: not a non-negative integer")))
        };
        let start = offset(2, "start")?;
        let end = offset(3, "end")?;
        let field = fields[at[4]];
        let value: f64 = field
            .parse()
            .map_err(|_| error(format!("{last} `{field}`: not a number")))?;
        let row = Row {
            query: fields[at[0]].to_owned(),
            doc: fields[at[1]].to_owned(),
            start,
            end,
            value,
        };
        rows.push((number, check_row(row, last).map_err(error)?));
    }
    Ok(rows)
}

fn json_rows(text: &str, name: &str, last: &str) -> Result<Vec<(u64, Row)>, SpansError> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let number = i as u64 + 1;
        let error = |problem: String| SpansError::Line {
            path: name.to_owned(),
            line: number,
            problem,
        };
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| error(format!("not JSON: {e}")))?;
        let object = value
            .as_object()
            .ok_or_else(|| error("not a JSON object".to_owned()))?;
        let field = |key: &str| {
            object
                .get(key)
                .ok_or_else(|| error(format!("no key `{key}`")))
        };
        let id = |key: &str| match field(key)? {
            serde_json::Value::String(s) => Ok(s.clone()),
            serde_json::Value::Number(n) => Ok(n.to_string()),
            other => Err(error(format!("{key} {other}: not a string or a number"))),
        };
        let offset = |key: &str| {
            let v = field(key)?;
            v.as_u64()
                .ok_or_else(|| error(format!("{key} {v}: not a non-negative integer")))
        };
        let v = field(last)?;
        let number_value = v
            .as_f64()
            .ok_or_else(|| error(format!("{last} {v}: not a number")))?;
        let row = Row {
            query: id("query")?,
            doc: id("doc")?,
            start: offset("start")?,
            end: offset("end")?,
            value: number_value,
        };
        rows.push((number, check_row(row, last).map_err(error)?));
    }
    Ok(rows)
}

/// The spans of each (query, doc).
fn by_query_doc(spans: &[Span]) -> HashMap<(&str, &str), Vec<usize>> {
    let mut map: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for (i, s) in spans.iter().enumerate() {
        map.entry((s.query.as_str(), s.doc.as_str()))
            .or_default()
            .push(i);
    }
    map
}

/// The chunk-level grade of `chunk`: the highest grade of the spans of its
/// query and document it matches by `overlap`; 0 when the document has
/// spans for the query but the chunk matches none; `None` (unjudged) when
/// the document has no span for the query.
pub fn chunk_grade(spans: &[Span], chunk: &Chunk, overlap: Overlap) -> Option<f64> {
    let mut judged = false;
    let mut grade: f64 = 0.0;
    for s in spans
        .iter()
        .filter(|s| s.query == chunk.query && s.doc == chunk.doc)
    {
        judged = true;
        if overlap.holds((chunk.start, chunk.end), (s.start, s.end)) {
            grade = grade.max(s.grade);
        }
    }
    judged.then_some(grade)
}

/// Span qrels and a run of chunks as ordinary qrels and run, for the
/// engine's metrics.
#[derive(Clone, Debug)]
pub struct ChunkLevel {
    /// Every query of the span qrels; per query, each retrieved chunk of a
    /// document with spans for it, graded by [`chunk_grade`] (id
    /// [`chunk_id`]), and each span of grade > 0 no retrieved chunk matched
    /// (id [`unretrieved_span_id`]), so that `|R|` counts it.
    pub qrels: Qrels,
    /// The chunks, ids [`chunk_id`], ranked by score (ties by id, as every
    /// run).
    pub run: Run,
}

/// Builds the chunk-level qrels and run of `chunks` against `spans`.
pub fn chunk_level(
    spans: &[Span],
    chunks: &[Chunk],
    overlap: Overlap,
) -> Result<ChunkLevel, SpansError> {
    let build = |e: &dyn fmt::Display| SpansError::Build(e.to_string());
    let groups = by_query_doc(spans);
    let mut qrels = QrelsBuilder::new();
    for (at, s) in spans.iter().enumerate() {
        qrels
            .declare_query(s.query.as_bytes(), at as u64 + 1)
            .map_err(|e| build(&e))?;
    }
    let mut matched = vec![false; spans.len()];
    let mut judged: HashSet<(&str, String)> = HashSet::new();
    let mut run = RunBuilder::with_capacity(chunks.len(), 0);
    for chunk in chunks {
        let id = chunk.id();
        run.push_scored(chunk.query.as_str(), id.as_str(), chunk.score)
            .map_err(|e| build(&e))?;
        let Some(indices) = groups.get(&(chunk.query.as_str(), chunk.doc.as_str())) else {
            continue;
        };
        let mut grade: f64 = 0.0;
        for &i in indices {
            let s = &spans[i];
            if overlap.holds((chunk.start, chunk.end), (s.start, s.end)) {
                matched[i] = true;
                grade = grade.max(s.grade);
            }
        }
        if judged.insert((chunk.query.as_str(), id.clone())) {
            qrels
                .push(chunk.query.as_str(), id.as_str(), grade)
                .map_err(|e| build(&e))?;
        }
    }
    for (s, matched) in spans.iter().zip(matched) {
        if !matched && s.grade > 0.0 {
            let id = unretrieved_span_id(&s.doc, s.start, s.end);
            if judged.insert((s.query.as_str(), id.clone())) {
                qrels
                    .push(s.query.as_str(), id.as_str(), s.grade)
                    .map_err(|e| build(&e))?;
            }
        }
    }
    Ok(ChunkLevel {
        qrels: qrels.finish().map_err(|e| build(&e))?,
        run: run.finish(Duplicates::Error).map_err(|e| build(&e))?,
    })
}

/// The union of half-open ranges, sorted and merged (touching ranges
/// joined).
pub fn union(mut ranges: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    ranges.retain(|r| r.1 > r.0);
    ranges.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
    for (start, end) in ranges {
        match out.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => out.push((start, end)),
        }
    }
    out
}

/// The number of characters of merged ranges.
pub fn length(ranges: &[(u64, u64)]) -> u64 {
    ranges.iter().map(|r| r.1 - r.0).sum()
}

/// The number of characters two merged lists of ranges have in common.
pub fn common(a: &[(u64, u64)], b: &[(u64, u64)]) -> u64 {
    let (mut i, mut j, mut total) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let start = a[i].0.max(b[j].0);
        let end = a[i].1.min(b[j].1);
        total += end.saturating_sub(start);
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    total
}

/// Character ranges per document.
type ByDoc<'a> = HashMap<&'a str, Vec<(u64, u64)>>;

/// One query's character-level values.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CharScores {
    /// `|retrieved ∩ relevant| / |retrieved|` (0 when nothing is retrieved).
    pub precision: f64,
    /// `|retrieved ∩ relevant| / |relevant|`.
    pub recall: f64,
    /// `|retrieved ∩ relevant| / |retrieved ∪ relevant|`.
    pub iou: f64,
}

/// Each query's character-level values.
#[derive(Clone, Debug, Serialize)]
pub struct CharLevel {
    /// `(query, values)` for each query of the span qrels with relevant
    /// text (spans of grade >= the level), in byte order of the ids.
    pub queries: Vec<(String, CharScores)>,
    /// Queries of the span qrels without relevant text: left out.
    pub without_relevant: usize,
}

/// The character-level values of `chunks` against `spans`: per query, the
/// union of the character ranges of the top `k` chunks (all with `None`;
/// ranked by score, ties as the chunk-level run), per document, against
/// the union of the spans of grade >= `level`. A query without chunks
/// scores 0.
pub fn char_level(spans: &[Span], chunks: &[Chunk], k: Option<usize>, level: f64) -> CharLevel {
    char_level_counting(spans, chunks, k, level, CharText::Union)
}

/// How the retrieved text is measured in character-level precision and
/// IoU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CharText {
    /// The union of the chunks' ranges: text two chunks share counts once.
    #[default]
    Union,
    /// The sum of the chunks' lengths: text two chunks share counts once
    /// per chunk, as Chroma's `chunking_evaluation` measures it (its
    /// precision's denominator is the sum of the retrieved chunks' lengths,
    /// its IoU's that sum plus the relevant text not retrieved). The same
    /// as `Union` when chunks do not overlap.
    Chunks,
}

/// [`char_level`], the retrieved text measured as `text` says.
pub fn char_level_counting(
    spans: &[Span],
    chunks: &[Chunk],
    k: Option<usize>,
    level: f64,
    text: CharText,
) -> CharLevel {
    let mut relevant: HashMap<&str, ByDoc<'_>> = HashMap::new();
    let mut queries: Vec<&str> = Vec::new();
    for s in spans {
        let docs = relevant.entry(s.query.as_str()).or_insert_with(|| {
            queries.push(s.query.as_str());
            HashMap::new()
        });
        if s.grade >= level {
            docs.entry(s.doc.as_str())
                .or_default()
                .push((s.start, s.end));
        }
    }
    let mut retrieved: HashMap<&str, Vec<(f64, String, &Chunk)>> = HashMap::new();
    for c in chunks {
        retrieved
            .entry(c.query.as_str())
            .or_default()
            .push((c.score, c.id(), c));
    }
    queries.sort_unstable();
    let mut out = Vec::new();
    let mut without_relevant = 0;
    for query in queries {
        let rel: ByDoc<'_> = relevant[query]
            .iter()
            .map(|(doc, r)| (*doc, union(r.clone())))
            .collect();
        let rel_len: u64 = rel.values().map(|r| length(r)).sum();
        if rel_len == 0 {
            without_relevant += 1;
            continue;
        }
        let mut list = retrieved.remove(query).unwrap_or_default();
        list.sort_by(|a, b| compare_scored((a.0, a.1.as_bytes()), (b.0, b.1.as_bytes())));
        list.truncate(k.unwrap_or(usize::MAX));
        let mut ret: ByDoc<'_> = HashMap::new();
        for (_, _, c) in &list {
            ret.entry(c.doc.as_str())
                .or_default()
                .push((c.start, c.end));
        }
        let (mut ret_len, mut both) = (0, 0);
        for (doc, ranges) in ret {
            if text == CharText::Chunks {
                ret_len += ranges.iter().map(|r| r.1.saturating_sub(r.0)).sum::<u64>();
            }
            let ranges = union(ranges);
            if text == CharText::Union {
                ret_len += length(&ranges);
            }
            if let Some(r) = rel.get(doc) {
                both += common(&ranges, r);
            }
        }
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        out.push((
            query.to_owned(),
            CharScores {
                precision: ratio(both, ret_len),
                recall: ratio(both, rel_len),
                // Union: |retrieved ∪ relevant|; chunks: the chunks'
                // lengths plus the relevant text not retrieved.
                iou: ratio(both, ret_len + rel_len - both),
            },
        ));
    }
    CharLevel {
        queries: out,
        without_relevant,
    }
}

/// One query of one run.
#[derive(Clone, Debug, Serialize)]
pub struct SpansQuery {
    /// The query.
    pub query: String,
    /// Each metric's value at chunk level (`None`: not evaluated).
    pub chunk: Vec<Option<f64>>,
    /// The character-level values (`None`: no relevant text).
    pub chars: Option<CharScores>,
}

/// One run's results.
#[derive(Clone, Debug, Serialize)]
pub struct SpansRun {
    /// The run's name.
    pub name: String,
    /// Queries evaluated at chunk level.
    pub queries: usize,
    /// Each metric's mean at chunk level, in the order asked.
    pub chunk: Vec<f64>,
    /// Queries evaluated at character level (with relevant text).
    pub char_queries: usize,
    /// The means of the character-level values.
    pub chars: CharScores,
    /// Every query's values, in byte order of the ids.
    pub per_query: Vec<SpansQuery>,
}

/// Every run's results.
#[derive(Clone, Debug, Serialize)]
pub struct SpansReport {
    /// The metrics' canonical names.
    pub metrics: Vec<String>,
    /// The overlap rule, as written.
    pub overlap: String,
    /// The character-level cutoff (`None`: every chunk).
    pub char_k: Option<usize>,
    /// How the retrieved text is measured at character level.
    pub char_text: CharText,
    /// The runs, in the order given.
    pub runs: Vec<SpansRun>,
}

/// What [`spans_report`] is asked.
#[derive(Clone, Copy, Debug)]
pub struct SpansPlan<'a> {
    /// The chunk-level metrics.
    pub metrics: &'a [Box<dyn Metric>],
    /// The engine's options at chunk level; `level` is also the
    /// character level's relevance level.
    pub options: &'a Options,
    /// The overlap rule.
    pub overlap: Overlap,
    /// The character-level cutoff (`None`: every chunk).
    pub char_k: Option<usize>,
    /// How the retrieved text is measured at character level.
    pub char_text: CharText,
}

/// Evaluates each run of chunks against `spans` at chunk level (every
/// metric of `plan`) and at character level.
pub fn spans_report(
    spans: &[Span],
    runs: &[(String, Vec<Chunk>)],
    plan: SpansPlan<'_>,
) -> Result<SpansReport, SpansError> {
    let level = plan.options.level.get();
    let names: Vec<String> = plan.metrics.iter().map(|m| m.name()).collect();
    let mut out = Vec::with_capacity(runs.len());
    for (name, chunks) in runs {
        let ChunkLevel { qrels, run } = chunk_level(spans, chunks, plan.overlap)?;
        let evaluation = evaluate(&qrels, &run, plan.metrics, plan.options);
        let chars = char_level_counting(spans, chunks, plan.char_k, level, plan.char_text);
        let column = |f: fn(&CharScores) -> f64| {
            fmean(&chars.queries.iter().map(|(_, c)| f(c)).collect::<Vec<_>>())
        };
        let means = CharScores {
            precision: column(|c| c.precision),
            recall: column(|c| c.recall),
            iou: column(|c| c.iou),
        };
        let mut per_query: Vec<SpansQuery> = Vec::new();
        let chunk_at: HashMap<&str, usize> = evaluation
            .queries()
            .iter()
            .enumerate()
            .map(|(i, q)| (q.as_str(), i))
            .collect();
        let char_at: HashMap<&str, CharScores> = chars
            .queries
            .iter()
            .map(|(q, c)| (q.as_str(), *c))
            .collect();
        let mut all: Vec<&str> = chunk_at.keys().chain(char_at.keys()).copied().collect();
        all.sort_unstable();
        all.dedup();
        for query in all {
            per_query.push(SpansQuery {
                query: query.to_owned(),
                chunk: (0..names.len())
                    .map(|m| chunk_at.get(query).map(|&q| evaluation.value(q, m)))
                    .collect(),
                chars: char_at.get(query).copied(),
            });
        }
        out.push(SpansRun {
            name: name.clone(),
            queries: evaluation.queries().len(),
            chunk: (0..names.len())
                .map(|m| fmean(&evaluation.column(m)))
                .collect(),
            char_queries: chars.queries.len(),
            chars: means,
            per_query,
        });
    }
    Ok(SpansReport {
        metrics: names,
        overlap: plan.overlap.to_string(),
        char_k: plan.char_k,
        char_text: plan.char_text,
        runs: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Missing;

    fn span(query: &str, doc: &str, start: u64, end: u64, grade: f64) -> Span {
        Span {
            query: query.into(),
            doc: doc.into(),
            start,
            end,
            grade,
        }
    }

    fn chunk(query: &str, doc: &str, start: u64, end: u64, score: f64) -> Chunk {
        Chunk {
            query: query.into(),
            doc: doc.into(),
            start,
            end,
            score,
        }
    }

    #[test]
    fn overlapping_chunks_count_once_or_per_chunk() {
        // Chunks [0, 10) and [5, 15) of d, relevant [0, 10) and [20, 30):
        // retrieved text 15 characters as a union, 20 as chunks; 10 shared.
        let spans = [span("q", "d", 0, 10, 1.0), span("q", "d", 20, 30, 1.0)];
        let chunks = [chunk("q", "d", 0, 10, 2.0), chunk("q", "d", 5, 15, 1.0)];
        let union = char_level_counting(&spans, &chunks, None, 1.0, CharText::Union);
        let scores = union.queries[0].1;
        assert_eq!(
            (scores.precision, scores.recall, scores.iou),
            (10.0 / 15.0, 10.0 / 20.0, 10.0 / 25.0)
        );
        // Chroma: precision 10 / (10 + 10); IoU 10 / (20 + the 10
        // relevant characters not retrieved).
        let summed = char_level_counting(&spans, &chunks, None, 1.0, CharText::Chunks);
        let scores = summed.queries[0].1;
        assert_eq!(
            (scores.precision, scores.recall, scores.iou),
            (0.5, 10.0 / 20.0, 10.0 / 30.0)
        );
        // Without overlap the two agree.
        let apart = [chunk("q", "d", 0, 10, 2.0), chunk("q", "d", 10, 15, 1.0)];
        assert_eq!(
            char_level_counting(&spans, &apart, None, 1.0, CharText::Chunks).queries,
            char_level(&spans, &apart, None, 1.0).queries
        );
    }

    #[test]
    fn overlap_rules_by_hand() {
        // chunk [0, 10), span [5, 25): 5 in common, union 25.
        let (c, s) = ((0, 10), (5, 25));
        assert!(Overlap::Any.holds(c, s));
        assert!(Overlap::Iou(0.2).holds(c, s));
        assert!(!Overlap::Iou(0.21).holds(c, s));
        assert!(Overlap::Coverage(0.25).holds(c, s));
        assert!(!Overlap::Coverage(0.26).holds(c, s));
        // Touching ranges share no character.
        assert!(!Overlap::Any.holds((0, 10), (10, 20)));
        // A chunk inside the span: coverage is the span's share.
        assert!(Overlap::Coverage(0.5).holds((10, 15), (10, 20)));
        assert!(!Overlap::Coverage(0.51).holds((10, 15), (10, 20)));
        assert!(Overlap::Iou(1.0).holds((3, 9), (3, 9)));
    }

    #[test]
    fn overlap_parses_and_prints() {
        assert_eq!("any".parse::<Overlap>(), Ok(Overlap::Any));
        assert_eq!("iou>=0.5".parse::<Overlap>(), Ok(Overlap::Iou(0.5)));
        assert_eq!(
            " coverage >= 1 ".parse::<Overlap>(),
            Ok(Overlap::Coverage(1.0))
        );
        for bad in [
            "all",
            "iou>0.5",
            "iou>=0",
            "iou>=1.5",
            "coverage>=x",
            "dice>=0.5",
        ] {
            assert!(bad.parse::<Overlap>().is_err(), "{bad}");
        }
        assert_eq!(Overlap::Iou(0.5).to_string(), "iou>=0.5");
    }

    #[test]
    fn unions_and_intersections_by_hand() {
        let u = union(vec![(10, 20), (0, 5), (5, 7), (15, 30), (40, 40)]);
        assert_eq!(u, vec![(0, 7), (10, 30)]);
        assert_eq!(length(&u), 27);
        assert_eq!(common(&u, &[(6, 12), (25, 50)]), 1 + 2 + 5);
        assert_eq!(common(&u, &[]), 0);
    }

    #[test]
    fn char_level_by_hand() {
        // Relevant: [10, 30) in d1 (20 chars) and [0, 10) in d2 (10).
        let spans = [
            span("q", "d1", 10, 30, 1.0),
            span("q", "d2", 0, 10, 2.0),
            span("q", "d2", 50, 60, 0.0),
        ];
        // Retrieved: d1 [0, 20) and [15, 25) (union [0, 25)), d3 [0, 5).
        let chunks = [
            chunk("q", "d1", 0, 20, 3.0),
            chunk("q", "d1", 15, 25, 2.0),
            chunk("q", "d3", 0, 5, 1.0),
        ];
        let all = char_level(&spans, &chunks, None, 1.0);
        // retrieved 25 + 5 = 30, relevant 30, common 15, union 45.
        assert_eq!(
            all.queries,
            vec![(
                "q".to_owned(),
                CharScores {
                    precision: 0.5,
                    recall: 0.5,
                    iou: 15.0 / 45.0
                }
            )]
        );
        // Top 1: [0, 20) of d1: common 10.
        let top = char_level(&spans, &chunks, Some(1), 1.0);
        assert_eq!(top.queries[0].1.precision, 0.5);
        assert_eq!(top.queries[0].1.recall, 10.0 / 30.0);
        assert_eq!(top.queries[0].1.iou, 10.0 / 40.0);
        // Level 2: only d2's span is relevant, and nothing of it is retrieved.
        let two = char_level(&spans, &chunks, None, 2.0);
        assert_eq!(two.queries[0].1.recall, 0.0);
        // A query without relevant text is left out.
        let none = char_level(&[span("z", "d", 0, 5, 0.0)], &chunks, None, 1.0);
        assert_eq!((none.queries.len(), none.without_relevant), (0, 1));
    }

    #[test]
    fn chunk_level_grades_and_placeholders() {
        let spans = [
            span("q", "d1", 10, 30, 1.0),
            span("q", "d1", 100, 120, 2.0),
            span("q", "d2", 0, 10, 3.0),
        ];
        let chunks = [
            chunk("q", "d1", 0, 20, 3.0),  // 10 of span 1 (coverage 0.5)
            chunk("q", "d1", 20, 40, 2.0), // 10 of span 1
            chunk("q", "d1", 40, 60, 1.5), // nothing: judged 0
            chunk("q", "d3", 0, 5, 1.0),   // unjudged document
        ];
        let level = chunk_level(&spans, &chunks, Overlap::Coverage(0.5)).unwrap();
        let grade = |doc: &str| level.qrels.grade_of("q", doc);
        assert_eq!(grade("d1#0-20"), Some(1.0));
        assert_eq!(grade("d1#20-40"), Some(1.0));
        assert_eq!(grade("d1#40-60"), Some(0.0));
        assert_eq!(grade("d3#0-5"), None);
        assert_eq!(grade("d1#span:100-120"), Some(2.0));
        assert_eq!(grade("d2#span:0-10"), Some(3.0));
        assert_eq!(grade("d1#span:10-30"), None);
        // coverage>=0.6: neither chunk matches span 1, which gets its placeholder.
        let strict = chunk_level(&spans, &chunks, Overlap::Coverage(0.6)).unwrap();
        assert_eq!(strict.qrels.grade_of("q", "d1#0-20"), Some(0.0));
        assert_eq!(strict.qrels.grade_of("q", "d1#span:10-30"), Some(1.0));
    }

    #[test]
    fn char_level_ranks_ties_as_the_chunk_level_run() {
        // Two chunks tied on score: the run puts `d#10-20` first (ties by
        // id, descending); the character level's top 1 must be that chunk.
        let spans = [span("q", "d", 10, 20, 1.0)];
        let chunks = [chunk("q", "d", 0, 10, 1.0), chunk("q", "d", 10, 20, 1.0)];
        let level = chunk_level(&spans, &chunks, Overlap::Any).unwrap();
        let first = level.run.list("q").unwrap().doc(0);
        assert_eq!(first, b"d#10-20");
        let top = char_level(&spans, &chunks, Some(1), 1.0);
        assert_eq!(top.queries[0].1.precision, 1.0);
        let metric = rankeval_core::registry::parse_metric("p@1").unwrap();
        let p1 = evaluate(
            &level.qrels,
            &level.run,
            std::slice::from_ref(&metric),
            &Options::default(),
        )
        .value(0, 0);
        assert_eq!(p1, 1.0);
    }

    /// RAGAS's context precision@K: sum over k <= K of P@k v_k, divided by
    /// the number of relevant chunks in the top K (0 without one).
    fn ragas_context_precision(v: &[u8]) -> f64 {
        let mut hits = 0.0;
        let mut sum = 0.0;
        for (i, &r) in v.iter().enumerate() {
            if r == 1 {
                hits += 1.0;
                sum += hits / (i as f64 + 1.0);
            }
        }
        if hits == 0.0 { 0.0 } else { sum / hits }
    }

    #[test]
    fn ragas_context_precision_is_ap_norm_hits() {
        let metric = rankeval_core::registry::parse_metric("ap(norm=hits)@3").unwrap();
        let options = Options {
            missing: Missing::Zero,
            ..Options::default()
        };
        let cases: [(&[u8], f64); 5] = [
            (&[1, 0, 1], (1.0 + 2.0 / 3.0) / 2.0),
            (&[0, 1, 1], (1.0 / 2.0 + 2.0 / 3.0) / 2.0),
            (&[0, 0, 0], 0.0),
            (&[1, 1, 1], 1.0),
            (&[0, 0, 1], 1.0 / 3.0),
        ];
        for (v, want) in cases {
            assert!((ragas_context_precision(v) - want).abs() < 1e-15);
            // One relevant span per relevant chunk, each chunk its own 10 chars.
            let chunks: Vec<Chunk> = (0..3)
                .map(|i| chunk("q", "d", 10 * i, 10 * i + 10, 3.0 - i as f64))
                .collect();
            let mut spans: Vec<Span> = v
                .iter()
                .enumerate()
                .filter(|&(_, r)| *r == 1)
                .map(|(i, _)| span("q", "d", 10 * i as u64, 10 * i as u64 + 10, 1.0))
                .collect();
            // A second relevant span never retrieved: context precision
            // does not see it (it divides by the hits).
            spans.push(span("q", "d", 500, 510, 1.0));
            let level = chunk_level(&spans, &chunks, Overlap::Any).unwrap();
            let got = evaluate(
                &level.qrels,
                &level.run,
                std::slice::from_ref(&metric),
                &options,
            )
            .value(0, 0);
            assert!((got - want).abs() < 1e-12, "{v:?}: {got} != {want}");
        }
    }

    #[test]
    fn reading_tables_and_json_lines() {
        let tsv = "query\tdoc\tstart\tend\tgrade\nq1\td1\t0\t10\t2\n\nq1\td2\t5\t9\t1\n";
        let spans = parse_spans(tsv, "s.tsv").unwrap();
        assert_eq!(spans[1], span("q1", "d2", 5, 9, 1.0));
        let csv = "doc,query,score,start,end\nd1,q1,0.5,0,10\n";
        assert_eq!(
            parse_chunks(csv, "c.csv").unwrap(),
            vec![chunk("q1", "d1", 0, 10, 0.5)]
        );
        let jsonl = "{\"query\": 7, \"doc\": \"d\", \"start\": 1, \"end\": 4, \"score\": 2}\n";
        assert_eq!(
            parse_chunks(jsonl, "c.jsonl").unwrap(),
            vec![chunk("7", "d", 1, 4, 2.0)]
        );
    }

    #[test]
    fn reading_errors_name_file_and_line() {
        let message = |r: Result<Vec<Span>, SpansError>| r.unwrap_err().to_string();
        let m = message(parse_spans(
            "query,doc,start,end,grade\nq,d,5,5,1\n",
            "s.csv",
        ));
        assert_eq!(
            m,
            "s.csv, line 2: end 5 <= start 5: a span is [start, end), end after start"
        );
        let m = message(parse_spans(
            "query,doc,start,end,grade\nq,d,x,5,1\n",
            "s.csv",
        ));
        assert!(m.starts_with("s.csv, line 2: start `x`"), "{m}");
        let m = message(parse_spans("query,doc,start,end\nq,d,0,5\n", "s.csv"));
        assert!(m.starts_with("s.csv, line 1: no column `grade`"), "{m}");
        let m = message(parse_spans("query,doc,start,end,grade\nq,d,0,5\n", "s.csv"));
        assert!(m.contains("line 2: 4 fields, the header has 5"), "{m}");
        let m = message(parse_spans(
            "{\"query\":\"q\",\"doc\":\"d\",\"start\":0,\"end\":5,\"grade\":1}\n{\"query\":\"q\"}\n",
            "s.jsonl",
        ));
        assert!(m.starts_with("s.jsonl, line 2: no key"), "{m}");
        let m = message(parse_spans("", "s.csv"));
        assert!(m.starts_with("s.csv: empty"), "{m}");
        let m = parse_chunks("query,doc,start,end,score\nq,d,0,5,1\nq,d,0,5,2\n", "c.csv")
            .unwrap_err()
            .to_string();
        assert!(
            m.starts_with("c.csv, line 3: query `q` retrieves the chunk d#0-5 twice"),
            "{m}"
        );
    }
}
