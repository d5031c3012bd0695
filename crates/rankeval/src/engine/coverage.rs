//! Which queries count (the spec's policy), and the warnings that say what
//! was left out, so that no query is dropped without a word.

use std::fmt;

use rankeval_core::{Qrels, Run};
use rayon::slice::ParallelSliceMut;

use crate::front::{Describe, FrontEnd};
use serde::{Deserialize, Serialize};

/// What to do with a query that has judgements but no list in the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Missing {
    /// Leave it out of the evaluation (trec_eval's default); it is warned about.
    #[default]
    Skip,
    /// Evaluate it with an empty ranking, so it scores 0 (trec_eval `-c`).
    Zero,
}

/// Which queries were evaluated, and which were not and why.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// Queries evaluated, in report order (byte order of their ids).
    pub evaluated: usize,
    /// Queries evaluated whose list in the run holds a document (before a
    /// score threshold): 0 for a run that never ran on these qrels (see
    /// [`never_ran`](super::never_ran)).
    pub ranked: usize,
    /// Queries with judgements but no list in the run, left out (`missing = "skip"`).
    pub missing_skipped: QuerySample,
    /// Queries with judgements but no list in the run, scored on an empty
    /// ranking (`missing = "zero"`).
    pub missing_scored_zero: QuerySample,
    /// Queries in the run with no judgements at all: not evaluated.
    pub run_only: Vec<String>,
    /// Run entries left out as repeats of a document in their query's list
    /// (`duplicates = "first"`).
    pub duplicates_dropped: usize,
    /// Retrieved documents dropped because their id is their query's
    /// ([`Options::drop_identical_ids`](super::Options::drop_identical_ids)).
    pub identical_ids_dropped: usize,
    /// Queries judged with a non-empty list (0 when no metric was asked).
    pub lists_judged: usize,
    /// Of those, the queries whose list holds at least one judged document
    /// in the ranks the metrics read. None of them with some lists judged
    /// almost always means document ids written differently in the run and
    /// the qrels (`7` and `007`): every metric is then 0, and
    /// [`Warning::NoJudgedDocument`] says so.
    pub lists_with_judged: usize,
    /// A query whose list holds no judged document, the smallest such id in
    /// byte order (so the same on every evaluation path and thread count),
    /// with a few document ids of each side for the warning.
    pub unmatched: Option<UnmatchedIds>,
}

/// One query's document ids on each side, when none of the run's is judged.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct UnmatchedIds {
    /// The query, as messages show it.
    pub query: String,
    /// The query's id, for choosing the smallest.
    #[serde(skip)]
    query_id: Vec<u8>,
    /// The first few document ids of its list, in byte order.
    pub run: Vec<String>,
    /// The first few of its judged document ids, in byte order.
    pub qrels: Vec<String>,
}

impl UnmatchedIds {
    /// The ids of query `q` of `qrels`, with `docs` its list's documents.
    pub(crate) fn of<'d>(qrels: &Qrels, q: u32, docs: impl Iterator<Item = &'d [u8]>) -> Self {
        let smallest = |ids: &mut Vec<&[u8]>| -> Vec<String> {
            ids.sort_unstable();
            ids.dedup();
            ids.iter()
                .take(3)
                .map(|id| rankeval_core::shorten_id(id))
                .collect()
        };
        let mut run: Vec<&[u8]> = docs.collect();
        let mut judged: Vec<&[u8]> = qrels.judgements(q).map(|(doc, _)| doc).collect();
        UnmatchedIds {
            query: rankeval_core::shorten_id(qrels.query_bytes(q)),
            query_id: qrels.query_bytes(q).to_vec(),
            run: smallest(&mut run),
            qrels: smallest(&mut judged),
        }
    }

    /// The query's id.
    pub(crate) fn query_bytes(&self) -> &[u8] {
        &self.query_id
    }

    /// Keeps the example of the smaller query id of `a` and `b`.
    pub(crate) fn smaller(a: Option<Self>, b: Option<Self>) -> Option<Self> {
        match (a, b) {
            (Some(a), Some(b)) => Some(if b.query_id < a.query_id { b } else { a }),
            (a, b) => a.or(b),
        }
    }
}

/// Queries of the qrels counted, with the first few ids in byte order
/// (what the warnings show). Only a sample is kept: qrels of a million
/// queries run against a small run would otherwise keep a million ids.
/// Which queries they are follows from the qrels and the run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct QuerySample {
    /// How many queries.
    pub count: usize,
    /// The first [`EXAMPLES`] of their ids, in byte order.
    pub first: Vec<String>,
}

impl QuerySample {
    /// Counts the query `id`, keeping it if it is among the first ids.
    fn add<'q>(&mut self, first: &mut Vec<&'q [u8]>, id: &'q [u8]) {
        self.count += 1;
        if first.len() == EXAMPLES && first.last().is_some_and(|last| *last <= id) {
            return;
        }
        let at = first.partition_point(|kept| *kept <= id);
        first.insert(at, id);
        first.truncate(EXAMPLES);
    }

    /// The sample of the queries `ids` (each counted once per time given):
    /// their count and the first few in byte order.
    pub fn of<'q>(ids: impl IntoIterator<Item = &'q [u8]>) -> Self {
        let mut sample = Self::default();
        let mut first: Vec<&[u8]> = Vec::with_capacity(EXAMPLES + 1);
        for id in ids {
            sample.add(&mut first, id);
        }
        sample.first = first
            .iter()
            .map(|id| String::from_utf8_lossy(id).into_owned())
            .collect();
        sample
    }

    /// Whether no query was counted.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// One evaluated query: its index in the qrels, and where its list is (an
/// index in the run, a slot of scores), if it has one.
pub(crate) type Row<L> = (u32, Option<L>);

/// Pairs the qrels' queries with the run's lists (`listed` finds a query's
/// list), sorted by query id, and records what was left out; `run_only` are
/// the run's queries without judgements.
pub(crate) fn align<L: Send>(
    qrels: &Qrels,
    listed: impl Fn(u32) -> Option<L>,
    mut run_only: Vec<String>,
    missing: Missing,
) -> (Vec<Row<L>>, Coverage) {
    let mut coverage = Coverage::default();
    let mut rows: Vec<Row<L>> = Vec::new();
    let mut first: Vec<&[u8]> = Vec::with_capacity(EXAMPLES + 1);
    for q in 0..qrels.num_queries() as u32 {
        match (listed(q), missing) {
            (Some(list), _) => rows.push((q, Some(list))),
            (None, Missing::Zero) => {
                rows.push((q, None));
                coverage
                    .missing_scored_zero
                    .add(&mut first, qrels.query_bytes(q));
            }
            (None, Missing::Skip) => coverage
                .missing_skipped
                .add(&mut first, qrels.query_bytes(q)),
        }
    }
    let sample = first
        .iter()
        .map(|id| String::from_utf8_lossy(id).into_owned())
        .collect();
    match missing {
        Missing::Skip => coverage.missing_skipped.first = sample,
        Missing::Zero => coverage.missing_scored_zero.first = sample,
    }
    rows.par_sort_unstable_by(|a, b| qrels.query_bytes(a.0).cmp(qrels.query_bytes(b.0)));
    run_only.sort_unstable();
    coverage.run_only = run_only;
    coverage.evaluated = rows.len();
    (rows, coverage)
}

/// The run's queries that have no judgements.
pub(crate) fn run_only(qrels: &Qrels, run: &Run) -> Vec<String> {
    run.queries()
        .filter(|name| qrels.query_index(name.as_bytes()).is_none())
        .map(str::to_owned)
        .collect()
}

/// Something the user should know about an evaluation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Warning {
    /// Queries in the run have no judgements and were not evaluated.
    RunOnlyQueries {
        /// How many.
        count: usize,
        /// The first few, in byte order.
        examples: Vec<String>,
    },
    /// Queries with judgements have no list in the run and were left out.
    MissingQueriesSkipped {
        /// How many.
        count: usize,
        /// The first few.
        examples: Vec<String>,
    },
    /// Queries with judgements have no list in the run and scored 0.
    MissingQueriesScoredZero {
        /// How many.
        count: usize,
        /// The first few.
        examples: Vec<String>,
    },
    /// No query was evaluated: every aggregate is NaN.
    NoQueryEvaluated,
    /// Entries of the run repeat a document of their query's list and were
    /// left out, the best-ranked occurrence kept (`duplicates = "first"`).
    DuplicatesDropped {
        /// How many entries were left out.
        count: usize,
    },
    /// Retrieved documents whose id is their query's id were dropped
    /// before judging (`drop_identical_ids`, BEIR's convention).
    IdenticalIdsDropped {
        /// How many entries were dropped.
        count: usize,
    },
    /// No list of the run holds a judged document (in the ranks the metrics
    /// read), though queries with judgements have lists: every metric is 0,
    /// most often because document ids are written differently on the two
    /// sides.
    NoJudgedDocument {
        /// Queries with a non-empty list judged.
        queries: usize,
        /// One query's ids on each side.
        example: UnmatchedIds,
    },
}

const EXAMPLES: usize = 5;

impl Coverage {
    /// The warnings this coverage calls for.
    pub fn warnings(&self) -> Vec<Warning> {
        let sample = |ids: &[String]| {
            ids.iter()
                .take(EXAMPLES)
                .map(|id| rankeval_core::shorten_id(id.as_bytes()))
                .collect()
        };
        let mut warnings = Vec::new();
        if !self.run_only.is_empty() {
            warnings.push(Warning::RunOnlyQueries {
                count: self.run_only.len(),
                examples: sample(&self.run_only),
            });
        }
        if !self.missing_skipped.is_empty() {
            warnings.push(Warning::MissingQueriesSkipped {
                count: self.missing_skipped.count,
                examples: sample(&self.missing_skipped.first),
            });
        }
        if !self.missing_scored_zero.is_empty() {
            warnings.push(Warning::MissingQueriesScoredZero {
                count: self.missing_scored_zero.count,
                examples: sample(&self.missing_scored_zero.first),
            });
        }
        if self.duplicates_dropped > 0 {
            warnings.push(Warning::DuplicatesDropped {
                count: self.duplicates_dropped,
            });
        }
        if self.identical_ids_dropped > 0 {
            warnings.push(Warning::IdenticalIdsDropped {
                count: self.identical_ids_dropped,
            });
        }
        if self.evaluated == 0 {
            warnings.push(Warning::NoQueryEvaluated);
        }
        if self.lists_judged > 0
            && self.lists_with_judged == 0
            && let Some(example) = &self.unmatched
        {
            warnings.push(Warning::NoJudgedDocument {
                queries: self.lists_judged,
                example: example.clone(),
            });
        }
        warnings
    }
}

fn examples(count: usize, examples: &[String]) -> String {
    let listed = examples
        .iter()
        .map(|e| format!("`{e}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if count > examples.len() {
        format!("{listed}, ...")
    } else {
        listed
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "query" } else { "queries" }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_for(f, FrontEnd::CommandLine)
    }
}

impl Describe for Warning {
    fn write_for(&self, f: &mut dyn fmt::Write, front: FrontEnd) -> fmt::Result {
        match self {
            Warning::RunOnlyQueries { count, examples: e } => write!(
                f,
                "{count} {} in the run {} no judgements and {} not evaluated: {}",
                plural(*count),
                if *count == 1 { "has" } else { "have" },
                if *count == 1 { "was" } else { "were" },
                examples(*count, e)
            ),
            Warning::MissingQueriesSkipped { count, examples: e } => write!(
                f,
                "{count} judged {} {} no list in the run and {} left out (to score {} 0, use {}): {}",
                plural(*count),
                if *count == 1 { "has" } else { "have" },
                if *count == 1 { "was" } else { "were" },
                if *count == 1 { "it" } else { "them" },
                front.setting("missing", "zero"),
                examples(*count, e)
            ),
            Warning::MissingQueriesScoredZero { count, examples: e } => write!(
                f,
                "{count} judged {} {} no list in the run and scored 0: {}",
                plural(*count),
                if *count == 1 { "has" } else { "have" },
                examples(*count, e)
            ),
            Warning::NoQueryEvaluated => {
                f.write_str("no query was evaluated: the run and the qrels share no query id")
            }
            Warning::NoJudgedDocument { queries, example } => {
                let ids = |ids: &[String]| {
                    ids.iter()
                        .map(|id| format!("`{id}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                write!(
                    f,
                    "none of the documents the run ranks for its {queries} judged {} is in the \
                     qrels (in the ranks the metrics read), so every metric is 0: are document \
                     ids written the same way on both sides? (query `{}`: the run ranks {}; \
                     the qrels judge {})",
                    plural(*queries),
                    example.query,
                    ids(&example.run),
                    ids(&example.qrels)
                )
            }
            Warning::IdenticalIdsDropped { count } => write!(
                f,
                "{count} retrieved {} the query's own id and {} dropped before judging \
                 (drop_identical_ids, BEIR's convention)",
                if *count == 1 {
                    "document had"
                } else {
                    "documents had"
                },
                if *count == 1 { "was" } else { "were" },
            ),
            Warning::DuplicatesDropped { count } => write!(
                f,
                "{count} {} of the run repeated a document already in {} query's list and {} left out (duplicates = first keeps the best-ranked occurrence)",
                if *count == 1 { "entry" } else { "entries" },
                if *count == 1 { "its" } else { "their" },
                if *count == 1 { "was" } else { "were" },
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::QrelsBuilder;

    #[test]
    fn missing_queries_are_counted_with_the_first_ids_in_byte_order() {
        let mut qrels = QrelsBuilder::new();
        for q in ["q9", "q10", "q2", "a", "q7", "z", "q1", "b"] {
            qrels.push(q, "d", 1).unwrap();
        }
        let qrels = qrels.finish().unwrap();
        let listed = |q: u32| (qrels.query_name(q) == "q7").then_some(q);
        let (rows, coverage) = align(&qrels, listed, Vec::new(), Missing::Skip);
        assert_eq!(rows.len(), 1);
        assert_eq!(coverage.missing_skipped.count, 7);
        assert_eq!(
            coverage.missing_skipped.first,
            ["a", "b", "q1", "q10", "q2"]
        );
        assert!(coverage.missing_scored_zero.is_empty());
        let (rows, coverage) = align(&qrels, listed, Vec::new(), Missing::Zero);
        assert_eq!(rows.len(), 8);
        assert_eq!(coverage.missing_scored_zero.count, 7);
        assert_eq!(
            coverage.missing_scored_zero.first,
            ["a", "b", "q1", "q10", "q2"]
        );
    }
}
