//! Helpers for testing metrics and plugin crates (feature `testing`).
//!
//! Build a judged ranking from a pattern and score a metric on it, without
//! files or an engine; check that every registered plugin round-trips
//! through its canonical name.

use crate::aggregate::Aggregator;
use crate::corpus::CorpusMetric;
use crate::doc_groups::{DocumentGroups, DocumentGroupsBuilder, GroupRanking};
use crate::grade::Grade;
use crate::judge::{JudgedRanking, Judgement};
use crate::metric::Metric;
use crate::params::{ParamValue, RelevanceLevel};
use crate::registry::{self, Descriptor, Plugin};
use crate::subtopics::{QuerySubtopics, SubtopicQrelsBuilder, SubtopicRanking};

/// A judged ranking that owns its buffers; [`view`](Self::view) lends it to
/// a metric.
///
/// It also carries subtopic judgements made from its grades, so that the
/// diversity metrics see the same rankings: every judged document (ranked
/// or not) of grade `g` is judged `g` for subtopic `a` and, unless `g` is
/// negative, `4 - g` for subtopic `b`. Documents of one grade are alike, so
/// the values do not depend on the documents' ids.
///
/// And document groups made from the grades, for the group-fairness
/// metrics: a document of grade 2 or more is in group `high`, any other
/// judged document in group `low`, an unjudged one in group `none`; a
/// judged document of grade 1 or more is also in group `relevant` with
/// weight 0.5.
#[derive(Clone, Debug)]
pub struct OwnedJudged {
    ranked: Vec<Judgement>,
    ideal: Vec<Grade>,
    level: RelevanceLevel,
    subtopics: QuerySubtopics,
    /// Each ranked document's place in `subtopics`.
    subtopic_ranked: Vec<u32>,
    groups: DocumentGroups,
    /// Each ranked document's place in `groups`.
    group_ranked: Vec<u32>,
    /// Each judged document's place in `groups`, and its grade.
    group_judged: Vec<(u32, Grade)>,
    /// Per-document facts ([`crate::context`]): every judged document is
    /// judged for the query, and its label was seen in training as many
    /// times as its place in the ranking (ranked) or 100 more (not ranked),
    /// among 1000 instances.
    documents: std::sync::Arc<crate::context::DocumentContext>,
    /// Per rank, the document's label value and whether it is judged.
    doc_labels: Vec<f64>,
    doc_anywhere: Vec<bool>,
}

impl OwnedJudged {
    /// The ranking as metrics see it.
    pub fn view(&self) -> JudgedRanking<'_> {
        JudgedRanking::new(&self.ranked, self.ranked.len(), &self.ideal, self.level)
            .with_subtopics(SubtopicRanking::new(&self.subtopics, &self.subtopic_ranked))
            .with_groups(GroupRanking::new(
                &self.groups,
                &self.group_ranked,
                &self.group_judged,
            ))
            .with_documents(crate::context::DocumentView::new(
                &self.documents,
                Some(0),
                &self.doc_labels,
                &self.doc_anywhere,
            ))
    }

    /// Sets the experiment's relevance level (default 1; a positive
    /// integer or decimal).
    pub fn with_level(mut self, level: impl Into<f64>) -> Self {
        self.level = RelevanceLevel::new(level).unwrap_or_default();
        self
    }

    /// Scores `metric` on this ranking.
    pub fn score(&self, metric: &dyn Metric) -> f64 {
        metric.score(&self.view())
    }
}

/// A ranking from a pattern, one character per rank, best first:
/// `0`-`9` a judged grade, `-` grade -1, `.` a document the qrels do not
/// mention; spaces are ignored. `unretrieved` are the grades of judged
/// documents that are not in the ranking. For decimal grades, see
/// [`graded`].
///
/// # Panics
/// On any other character.
pub fn judged(pattern: &str, unretrieved: &[i32]) -> OwnedJudged {
    let ranked: Vec<Option<Grade>> = pattern
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| match c {
            '.' => None,
            '-' => Some(-1.0),
            d => match d.to_digit(10) {
                Some(g) => Some(g.into()),
                None => panic!("unexpected character {c:?} in pattern {pattern:?}"),
            },
        })
        .collect();
    let unretrieved: Vec<Grade> = unretrieved.iter().map(|&g| g.into()).collect();
    graded(&ranked, &unretrieved)
}

/// A ranking of any grades, best first (`None`: a document the qrels do
/// not mention), with `unretrieved` the grades of judged documents not in
/// the ranking.
///
/// # Panics
/// On a grade that is NaN or infinite.
pub fn graded(ranked: &[Option<Grade>], unretrieved: &[Grade]) -> OwnedJudged {
    let ranked: Vec<Judgement> = ranked
        .iter()
        .map(|g| match g {
            Some(g) => match crate::grade::check_grade(*g) {
                Ok(g) => Judgement::judged(g),
                Err(e) => panic!("grade {g}: {e}"),
            },
            None => Judgement::UNJUDGED,
        })
        .collect();
    let mut ideal: Vec<Grade> = ranked
        .iter()
        .filter(|j| j.is_judged())
        .map(|j| j.grade())
        .chain(unretrieved.iter().copied())
        .collect();
    ideal.sort_unstable_by(|a, b| b.total_cmp(a));
    let (subtopics, subtopic_ranked) = subtopics_of(&ranked, unretrieved);
    let (groups, group_ranked, group_judged) = groups_of(&ranked, unretrieved);
    let (documents, doc_labels, doc_anywhere) = documents_of(&ranked, unretrieved);
    OwnedJudged {
        ranked,
        ideal,
        level: RelevanceLevel::DEFAULT,
        subtopics,
        subtopic_ranked,
        groups,
        group_ranked,
        group_judged,
        documents,
        doc_labels,
        doc_anywhere,
    }
}

/// The document groups [`OwnedJudged`] carries, each ranked document's
/// place in them, and each judged document's place and grade.
fn groups_of(
    ranked: &[Judgement],
    unretrieved: &[Grade],
) -> (DocumentGroups, Vec<u32>, Vec<(u32, Grade)>) {
    let mut builder = DocumentGroupsBuilder::new();
    // The groups numbered in one order whatever the ranking (as a groups
    // file numbers them), by a document in none of the rankings with
    // weight 0 in each.
    for (n, group) in [&b"high"[..], b"low", b"none", b"relevant"]
        .iter()
        .enumerate()
    {
        if let Err(e) = builder.push(b"~groups", group, 0.0, n as u64) {
            panic!("{e}");
        }
    }
    let docs = ranked
        .iter()
        .enumerate()
        .map(|(i, &j)| (format!("r{i:05}"), j))
        .chain(
            unretrieved
                .iter()
                .enumerate()
                .map(|(i, &g)| (format!("u{i:05}"), Judgement::judged(g))),
        );
    for (n, (doc, j)) in docs.enumerate() {
        let group: &[u8] = match (j.is_judged(), j.grade()) {
            (false, _) => b"none",
            (true, g) if g >= 2.0 => b"high",
            _ => b"low",
        };
        let mut pushed = builder.push(doc.as_bytes(), group, 1.0, n as u64);
        if j.is_judged() && j.grade() >= 1.0 && pushed.is_ok() {
            pushed = builder.push(doc.as_bytes(), b"relevant", 0.5, n as u64);
        }
        if let Err(e) = pushed {
            panic!("{e}");
        }
    }
    let groups = match builder.finish() {
        Ok(groups) => groups,
        Err(e) => panic!("{e}"),
    };
    let place = |doc: String| {
        groups
            .position(doc.as_bytes())
            .unwrap_or(GroupRanking::NONE)
    };
    let group_ranked = (0..ranked.len())
        .map(|i| place(format!("r{i:05}")))
        .collect();
    let group_judged = ranked
        .iter()
        .enumerate()
        .filter(|(_, j)| j.is_judged())
        .map(|(i, j)| (place(format!("r{i:05}")), j.grade()))
        .chain(
            unretrieved
                .iter()
                .enumerate()
                .map(|(i, &g)| (place(format!("u{i:05}")), g)),
        )
        .collect::<Vec<_>>();
    // In one order whatever the ranking (as the qrels' order is): documents
    // of one grade are alike.
    let mut group_judged = group_judged;
    group_judged.sort_by(|a, b| a.1.total_cmp(&b.1));
    (groups, group_ranked, group_judged)
}

/// The per-document facts [`OwnedJudged`] carries, and each ranked
/// document's label value and whether it is judged.
fn documents_of(
    ranked: &[Judgement],
    unretrieved: &[Grade],
) -> (
    std::sync::Arc<crate::context::DocumentContext>,
    Vec<f64>,
    Vec<bool>,
) {
    use crate::context::{DocumentContext, Requirement};
    let mut qrels = crate::QrelsBuilder::new();
    let mut counts = std::collections::HashMap::new();
    let ranked_docs = ranked
        .iter()
        .enumerate()
        .filter(|(_, j)| j.is_judged())
        .map(|(i, j)| (format!("r{i:05}"), j.grade(), i as u64));
    let unretrieved_docs = unretrieved
        .iter()
        .enumerate()
        .map(|(i, &g)| (format!("u{i:05}"), g, 100 + i as u64));
    for (doc, grade, count) in ranked_docs.chain(unretrieved_docs) {
        if let Err(e) = qrels.push("q", doc.as_str(), grade) {
            panic!("grade {grade}: {e}");
        }
        counts.insert(Box::from(doc.as_bytes()), count);
    }
    let qrels = match qrels.finish() {
        Ok(qrels) => qrels,
        Err(e) => panic!("{e}"),
    };
    let table = crate::LabelPropensities::Counts {
        counts,
        instances: 1000,
    };
    let context = match DocumentContext::build(
        &qrels,
        &[Requirement::Propensities, Requirement::JudgedAnywhere],
        Some(std::sync::Arc::new(table)),
    ) {
        Ok(context) => context,
        Err(e) => panic!("{e}"),
    };
    let names: Vec<String> = ranked
        .iter()
        .enumerate()
        .map(|(i, j)| {
            if j.is_judged() {
                format!("r{i:05}")
            } else {
                format!("n{i:05}")
            }
        })
        .collect();
    let labels = names
        .iter()
        .map(|n| context.label_value(n.as_bytes()))
        .collect();
    let anywhere = names
        .iter()
        .map(|n| context.is_judged_anywhere(n.as_bytes()))
        .collect();
    (std::sync::Arc::new(context), labels, anywhere)
}

/// The subtopic judgements [`OwnedJudged`] carries, and each ranked
/// document's place in them.
fn subtopics_of(ranked: &[Judgement], unretrieved: &[Grade]) -> (QuerySubtopics, Vec<u32>) {
    let mut builder = SubtopicQrelsBuilder::new();
    let ranked_docs = ranked
        .iter()
        .enumerate()
        .filter(|(_, j)| j.is_judged())
        .map(|(i, j)| (format!("r{i:05}"), j.grade()));
    let unretrieved_docs = unretrieved
        .iter()
        .enumerate()
        .map(|(i, &g)| (format!("u{i:05}"), g));
    for (n, (doc, grade)) in ranked_docs.chain(unretrieved_docs).enumerate() {
        let pushed = builder
            .push(b"q", b"a", doc.as_bytes(), grade, n as u64)
            .and_then(|()| {
                if grade >= 0.0 {
                    builder.push(b"q", b"b", doc.as_bytes(), 4.0 - grade, n as u64)
                } else {
                    Ok(())
                }
            });
        if let Err(e) = pushed {
            panic!("grade {grade}: {e}");
        }
    }
    let qrels = match builder.finish() {
        Ok(qrels) => qrels,
        Err(e) => panic!("{e}"),
    };
    let query = qrels.query(b"q").cloned().unwrap_or_default();
    let places = (0..ranked.len())
        .map(|i| {
            query
                .position(format!("r{i:05}").as_bytes())
                .unwrap_or(SubtopicRanking::UNJUDGED)
        })
        .collect();
    (query, places)
}

/// A binary ranking (`1` relevant, `0` judged non-relevant) where `|R|` is
/// `num_relevant`: relevant documents not in the ranking are added to the
/// qrels.
///
/// # Panics
/// If the pattern holds more relevant documents than `num_relevant`.
pub fn binary(pattern: &str, num_relevant: usize) -> OwnedJudged {
    let retrieved = pattern.chars().filter(|&c| c == '1').count();
    assert!(
        retrieved <= num_relevant,
        "{pattern:?} has more than {num_relevant} relevant"
    );
    judged(pattern, &vec![1; num_relevant - retrieved])
}

/// Checks every registered metric, aggregator and corpus metric: its example serializes
/// with `type` equal to its registered name, deserializes back to the same
/// canonical name, and its canonical name parses back to an equal plugin.
/// Returns every failure, one per line.
pub fn check_round_trips() -> Result<(), String> {
    let mut failures = Vec::new();
    round_trips::<dyn Metric>(&mut failures, |m| serde_json::to_value(m), |m| m.name());
    round_trips::<dyn Aggregator>(&mut failures, |a| serde_json::to_value(a), |a| a.name());
    round_trips::<dyn CorpusMetric>(&mut failures, |c| serde_json::to_value(c), |c| c.name());
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

fn round_trips<T: Plugin + ?Sized>(
    failures: &mut Vec<String>,
    to_json: impl Fn(&T) -> serde_json::Result<serde_json::Value>,
    name_of: impl Fn(&T) -> String,
) {
    for d in registry::descriptors::<T>() {
        if let Err(problem) = round_trip(d, &to_json, &name_of) {
            failures.push(format!("`{}` ({}): {problem}", d.name, d.defined_at));
        }
    }
}

fn round_trip<T: Plugin + ?Sized>(
    d: &Descriptor<T>,
    to_json: &impl Fn(&T) -> serde_json::Result<serde_json::Value>,
    name_of: &impl Fn(&T) -> String,
) -> Result<(), String> {
    let example = (d.example)();
    let name = name_of(&example);
    let json = to_json(&example).map_err(|e| format!("does not serialize: {e}"))?;
    let serde_json::Value::Object(map) = &json else {
        return Err(format!("serializes to {json}, not an object"));
    };
    if map.get("type").and_then(|t| t.as_str()) != Some(d.name) {
        return Err(format!(
            "serializes with type {:?}, not {:?}",
            map.get("type"),
            d.name
        ));
    }
    let params = map
        .iter()
        .filter(|(k, _)| k.as_str() != "type")
        .map(|(k, v)| Ok((k.clone(), json_param(v)?)))
        .collect::<Result<Vec<_>, String>>()?;
    let rebuilt = registry::build::<T>(d.name, params)
        .map_err(|e| format!("its serialized parameters do not build: {e}"))?;
    let rebuilt_json = to_json(&rebuilt).map_err(|e| e.to_string())?;
    if rebuilt_json != json || name_of(&rebuilt) != name {
        return Err(format!("{json} came back as {rebuilt_json}"));
    }
    let parsed = registry::parse::<T>(&name)
        .map_err(|e| format!("its canonical name `{name}` does not parse: {e}"))?;
    let parsed_json = to_json(&parsed).map_err(|e| e.to_string())?;
    if parsed_json != json || name_of(&parsed) != name {
        return Err(format!("`{name}` parses to {parsed_json}, not {json}"));
    }
    Ok(())
}

fn json_param(value: &serde_json::Value) -> Result<ParamValue, String> {
    match value {
        serde_json::Value::Bool(b) => Ok(ParamValue::Bool(*b)),
        serde_json::Value::Number(n) => n
            .as_i64()
            .map(ParamValue::Integer)
            .or_else(|| n.as_f64().map(ParamValue::Float))
            .ok_or_else(|| format!("number {n} is out of range")),
        serde_json::Value::String(s) => Ok(ParamValue::String(s.clone())),
        other => Err(format!("parameter value {other} is not a scalar")),
    }
}
