//! Runs: one ranked list of documents per query.
//!
//! The ordering rule of the spec is applied once, when a run is finished:
//! entries with scores are ordered by score descending (compared as `f64`,
//! with `-0.0 == 0.0`), ties broken by document id descending in byte order
//! (`d9` before `d10`), as trec_eval 10 does; lists given already ranked keep
//! their order.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::error::{RunError, shorten_id};
use crate::id::Id;
use crate::lists::{FinishError, List, ListRules, ListStore, PushError, Repeat, RepeatError};
use crate::ties_setting::Ties;

/// What to do with a document that appears twice in one query's list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Duplicates {
    /// Refuse the run, naming both positions (the default).
    #[default]
    Error,
    /// Keep the best-ranked occurrence and drop the others: the first in
    /// the ordered list (the highest score; for a list given ranked, the
    /// first given). For a scored run the file order means nothing, so it
    /// is not the first line.
    First,
}

/// Ranked lists of documents, one per query; built with a [`RunBuilder`].
#[derive(Clone, Debug)]
pub struct Run {
    store: ListStore<f64>,
    /// Entries left out as repeats of a document (`Duplicates::First`).
    dropped: usize,
}

/// Collects a run's entries in any order, then orders them with
/// [`finish`](RunBuilder::finish).
///
/// The `*_at` methods take the entry's position (a line number) so that
/// errors can point at it; the others number entries 1, 2, 3... in push order.
#[derive(Clone, Debug, Default)]
pub struct RunBuilder {
    store: ListStore<f64>,
    pushed: u64,
}

impl RunBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty builder with room for `entries` entries whose document ids
    /// total about `doc_bytes` bytes (readers size each chunk's builder so).
    pub fn with_capacity(entries: usize, doc_bytes: usize) -> Self {
        Self {
            store: ListStore::with_capacity(entries, doc_bytes),
            pushed: 0,
        }
    }

    /// Adds `doc` with `score` to the list of `query`.
    pub fn push_scored(
        &mut self,
        query: impl Id,
        doc: impl Id,
        score: f64,
    ) -> Result<(), RunError> {
        self.pushed = self.pushed.saturating_add(1);
        let at = self.pushed;
        query.with_bytes(|q| doc.with_bytes(|d| self.push_scored_at(q, d, score, at)))
    }

    /// Adds `doc` after the documents already given for `query`, for lists
    /// that are ranked already (no scores).
    pub fn push_ranked(&mut self, query: impl Id, doc: impl Id) -> Result<(), RunError> {
        self.pushed = self.pushed.saturating_add(1);
        let at = self.pushed;
        query.with_bytes(|q| doc.with_bytes(|d| self.push_ranked_at(q, d, at)))
    }

    /// Adds a whole ranked list for `query`, best first.
    pub fn push_list<D: Id>(
        &mut self,
        query: impl Id,
        docs: impl IntoIterator<Item = D>,
    ) -> Result<(), RunError> {
        query.with_bytes(|q| {
            docs.into_iter().try_for_each(|doc| {
                self.pushed = self.pushed.saturating_add(1);
                let at = self.pushed;
                doc.with_bytes(|d| self.push_ranked_at(q, d, at))
            })
        })
    }

    /// Gives `query` a list even if it stays empty: the query was run and
    /// retrieved nothing (which scores 0), rather than not run at all.
    /// `at` is the position errors name.
    pub fn declare_query(&mut self, query: &[u8], ranked: bool, at: u64) -> Result<(), RunError> {
        self.store
            .declare(query, ranked)
            .map_err(|e| push_error(e, at))
    }

    /// [`push_scored`](Self::push_scored) with an explicit position.
    #[inline]
    pub fn push_scored_at(
        &mut self,
        query: &[u8],
        doc: &[u8],
        score: f64,
        at: u64,
    ) -> Result<(), RunError> {
        refuse_nan(query, doc, score, at)?;
        self.store
            .push(query, doc, score, at, false)
            .map_err(|e| push_error(e, at))
    }

    /// Adds several documents with scores to the list of `query` at once,
    /// their ids lying one after the other in `docs` (as in an Arrow string
    /// column): document `i` ends at `ends[i]`, counted from the start of
    /// `docs` (it starts where `i - 1` ends, the first at 0), has
    /// `scores[i]` and the position `first_at + i`. The same entries as
    /// [`push_scored_at`](Self::push_scored_at) once per document, for one
    /// copy of the bytes.
    ///
    /// # Panics
    /// If `ends` and `scores` differ in length.
    pub fn push_scored_contiguous(
        &mut self,
        query: &[u8],
        docs: &[u8],
        ends: impl ExactSizeIterator<Item = usize>,
        scores: &[f64],
        first_at: u64,
    ) -> Result<(), RunError> {
        assert_eq!(ends.len(), scores.len(), "one end per score");
        if let Some(i) = scores.iter().position(|s| s.is_nan()) {
            let at = first_at.saturating_add(i as u64);
            return Err(RunError::NanScore {
                query: shorten_id(query),
                doc: String::new(),
                at,
            });
        }
        self.store
            .push_contiguous(query, docs, ends, scores, first_at, false)
            .map_err(|e| push_error(e, first_at))
    }

    /// [`push_ranked`](Self::push_ranked) with an explicit position.
    #[inline]
    pub fn push_ranked_at(&mut self, query: &[u8], doc: &[u8], at: u64) -> Result<(), RunError> {
        self.store
            .push(query, doc, f64::NAN, at, true)
            .map_err(|e| push_error(e, at))
    }

    /// Moves `other`'s entries after this builder's, adding `position_offset`
    /// to their positions (used to join chunks of a file parsed in parallel).
    pub fn append(&mut self, other: RunBuilder, position_offset: u64) {
        self.pushed = self.pushed.saturating_add(other.pushed);
        self.store.append(other.store, position_offset);
    }

    /// Number of entries pushed so far.
    pub fn len(&self) -> usize {
        self.store.num_entries()
    }

    /// Whether nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.store.num_entries() == 0
    }

    /// The query of the first entry pushed, if any.
    pub fn first_query(&self) -> Option<&[u8]> {
        self.store.first_query()
    }

    /// Groups entries by query, applies `duplicates`, and orders every list
    /// (ties by document id).
    pub fn finish(self, duplicates: Duplicates) -> Result<Run, RunError> {
        self.finish_with(duplicates, Ties::Docid)
    }

    /// [`finish`](Self::finish), with tied scores ordered as `ties` says:
    /// by document id (`docid`, `average`) or in input order (`input`).
    pub fn finish_with(self, duplicates: Duplicates, ties: Ties) -> Result<Run, RunError> {
        let rules = RunRules {
            duplicates,
            by_doc: ties.orders_by_doc(),
        };
        let pushed = self.store.num_entries();
        match self.store.finish(&rules) {
            Ok(store) => {
                let kept = store.lists.iter().map(|l| l.len).sum::<usize>();
                Ok(Run {
                    store,
                    dropped: pushed - kept,
                })
            }
            Err(FinishError::Repeat(e)) => Err(duplicate_error(e)),
            Err(FinishError::MixedOrdering { query }) => Err(RunError::MixedOrdering { query }),
        }
    }
}

fn duplicate_error(e: RepeatError<f64>) -> RunError {
    RunError::DuplicateDoc {
        query: shorten_id(e.query_name.as_bytes()),
        doc: shorten_id(&e.doc),
        first: e.first.1,
        second: e.second.1,
    }
}

/// A NaN score has no place in an order: the error for one at `at`.
#[inline]
pub(crate) fn refuse_nan(query: &[u8], doc: &[u8], score: f64, at: u64) -> Result<(), RunError> {
    if score.is_nan() {
        return Err(RunError::NanScore {
            query: shorten_id(query),
            doc: shorten_id(doc),
            at,
        });
    }
    Ok(())
}

fn push_error(error: PushError, at: u64) -> RunError {
    match error {
        PushError::QueryNotUtf8 => RunError::QueryNotUtf8 { at },
        PushError::ListTooLarge => RunError::ListTooLarge { at },
    }
}

struct RunRules {
    duplicates: Duplicates,
    /// Ties by document id, else in input order.
    by_doc: bool,
}

impl ListRules<f64> for RunRules {
    /// With [`Duplicates::First`], the occurrence ranked higher stays: the
    /// later one if its score is higher. Entries given ranked have NaN
    /// scores, so the first given stays; equal scores are the same
    /// document at the same rank, so either is the one kept.
    fn on_repeat(&self, first: f64, second: f64) -> Repeat {
        match self.duplicates {
            Duplicates::Error => Repeat::Fail,
            Duplicates::First if second > first => Repeat::DropFirst,
            Duplicates::First => Repeat::DropSecond,
        }
    }

    fn sorts(&self, list: &List) -> bool {
        !list.ranked
    }

    fn compare_values(&self, a: f64, b: f64) -> Ordering {
        b.partial_cmp(&a).unwrap_or(Ordering::Equal)
    }

    fn compare_docs(&self, a: &[u8], b: &[u8]) -> Ordering {
        b.cmp(a)
    }

    fn ties_by_doc(&self) -> bool {
        self.by_doc
    }

    /// Scores descending as an integer: the IEEE bits mapped to ascending
    /// order, then inverted (`-0.0` as `0.0`; NaN scores are refused when
    /// pushed, and lists given ranked are not sorted).
    fn value_key(&self, score: f64) -> Option<u64> {
        let score = if score == 0.0 { 0.0 } else { score };
        let bits = score.to_bits();
        let ascending = if bits >> 63 == 1 {
            !bits
        } else {
            bits | 1 << 63
        };
        Some(!ascending)
    }
}

/// The spec's order of two scored entries: score descending (`-0.0 == 0.0`),
/// then document id descending in byte order.
pub fn compare_scored(a: (f64, &[u8]), b: (f64, &[u8])) -> Ordering {
    b.0.partial_cmp(&a.0)
        .unwrap_or(Ordering::Equal)
        .then_with(|| b.1.cmp(a.1))
}

impl Run {
    /// Number of queries with a list.
    pub fn num_queries(&self) -> usize {
        self.store.lists.len()
    }

    /// How many entries were left out as repeats of a document in their
    /// query's list (with [`Duplicates::First`]; 0 otherwise).
    pub fn duplicates_dropped(&self) -> usize {
        self.dropped
    }

    /// Number of entries over all lists.
    pub fn num_entries(&self) -> usize {
        self.store.lists.iter().map(|l| l.len).sum()
    }

    /// The query ids, in order of first appearance.
    pub fn queries(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.store.lists.len() as u32).map(|q| self.query_name(q))
    }

    /// The ranked list of `query`, if the run has one.
    pub fn list(&self, query: impl Id) -> Option<RankedList<'_>> {
        query
            .with_bytes(|q| self.store.queries.get(q))
            .map(|q| self.list_at(q))
    }

    /// The dense index of `query` in this run (position in [`queries`](Self::queries)).
    pub fn query_index(&self, query: &[u8]) -> Option<u32> {
        self.store.queries.get(query)
    }

    /// The ranked list of the query with dense index `index`.
    ///
    /// # Panics
    /// If `index >= self.num_queries()`.
    pub fn list_at(&self, index: u32) -> RankedList<'_> {
        RankedList {
            store: &self.store,
            list: self.store.lists[index as usize],
        }
    }

    /// The id of the query with dense index `index`.
    pub fn query_name(&self, index: u32) -> &str {
        std::str::from_utf8(self.store.queries.resolve(index)).unwrap_or("\u{fffd}")
    }

    /// The id of the query with dense index `index`, as bytes.
    pub fn query_bytes(&self, index: u32) -> &[u8] {
        self.store.queries.resolve(index)
    }

    /// This run without the entries whose document id is their query's id
    /// (BEIR's convention: a query found in the corpus is not an answer to
    /// itself, beir-cellar/beir PR #91), every list otherwise in its order;
    /// and how many entries were dropped. Queries keep their indices.
    pub fn without_identical_ids(&self) -> (Run, usize) {
        let old = &self.store;
        let mut store = ListStore::<f64>::with_capacity(old.values.len(), old.bytes.len());
        store.queries = old.queries.clone();
        let mut dropped = 0;
        for list in &old.lists {
            let query = old.queries.resolve(list.query);
            let start = store.values.len();
            let byte_start = store.bytes.len();
            for (i, doc) in old.docs(list).enumerate() {
                if doc == query {
                    dropped += 1;
                    continue;
                }
                store.bytes.extend_from_slice(doc);
                // A list's bytes were within u32 before; fewer still are.
                store.ends.push((store.bytes.len() - byte_start) as u32);
                store.values.push(old.values[list.start + i]);
            }
            store.lists.push(List {
                query: list.query,
                start,
                len: store.values.len() - start,
                byte_start,
                ranked: list.ranked,
            });
        }
        (
            Run {
                store,
                dropped: self.dropped,
            },
            dropped,
        )
    }
}

/// One query's documents, best first.
#[derive(Clone, Copy, Debug)]
pub struct RankedList<'a> {
    store: &'a ListStore<f64>,
    list: List,
}

impl<'a> RankedList<'a> {
    /// Number of documents retrieved.
    pub fn len(&self) -> usize {
        self.list.len
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.list.len == 0
    }

    /// The document at 0-based position `i`.
    #[inline]
    pub fn doc(&self, i: usize) -> &'a [u8] {
        self.store.doc(&self.list, i)
    }

    /// The documents, best first.
    pub fn docs(&self) -> impl ExactSizeIterator<Item = &'a [u8]> + 'a {
        self.store.docs(&self.list)
    }

    /// The score of the document at position `i`, or `None` for lists given
    /// already ranked.
    pub fn score(&self, i: usize) -> Option<f64> {
        (!self.list.ranked).then(|| self.store.values[self.list.start + i])
    }

    /// Whether the list was given already ranked rather than scored.
    pub fn is_ranked_as_given(&self) -> bool {
        self.list.ranked
    }

    /// The list without its entries scored at or below `threshold`: the
    /// documents a system retrieved with a score above it (torchmetrics
    /// counts a score <= 0 as not retrieved). A finished list is in score
    /// order, so they are its top, found by binary search; a list given
    /// already ranked has no scores and is returned whole.
    pub fn scored_above(self, threshold: f64) -> Self {
        if self.list.ranked {
            return self;
        }
        let scores = &self.store.values[self.list.start..self.list.start + self.list.len];
        let len = scores.partition_point(|&score| score > threshold);
        RankedList {
            store: self.store,
            list: List { len, ..self.list },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_ids_are_dropped_and_the_rest_keeps_its_order() {
        let mut b = RunBuilder::new();
        for (q, d, s) in [
            ("0", "3", 1.0),
            ("0", "0", 3.0),
            ("0", "5", 2.0),
            ("7", "1", 1.0),
        ] {
            b.push_scored(q, d, s).unwrap();
        }
        b.push_ranked("r", "r").unwrap();
        b.push_ranked("r", "x").unwrap();
        let run = b.finish(Duplicates::Error).unwrap();
        let (kept, dropped) = run.without_identical_ids();
        assert_eq!(dropped, 2);
        assert_eq!(docs(&kept, "0"), ["5", "3"]);
        assert_eq!(kept.list("0").unwrap().score(0), Some(2.0));
        assert_eq!(docs(&kept, "7"), ["1"]);
        assert_eq!(docs(&kept, "r"), ["x"]);
        assert!(kept.list("r").unwrap().is_ranked_as_given());
        assert_eq!(kept.queries().collect::<Vec<_>>(), ["0", "7", "r"]);
        // Nothing to drop: the same lists.
        let (again, none) = kept.without_identical_ids();
        assert_eq!(none, 0);
        assert_eq!(docs(&again, "0"), ["5", "3"]);
    }

    fn docs(run: &Run, query: &str) -> Vec<String> {
        run.list(query)
            .unwrap()
            .docs()
            .map(|d| String::from_utf8_lossy(d).into_owned())
            .collect()
    }

    #[test]
    fn scored_above_keeps_the_entries_scored_above_the_threshold() {
        let mut b = RunBuilder::new();
        for (doc, score) in [("a", 0.5), ("b", 0.0), ("c", 2.0), ("d", -1.0), ("e", -0.0)] {
            b.push_scored("q", doc, score).unwrap();
        }
        b.push_list("r", ["x", "y"]).unwrap();
        let run = b.finish(Duplicates::Error).unwrap();
        let q = run.list("q").unwrap();
        let kept = |t: f64| -> Vec<&[u8]> { q.scored_above(t).docs().collect() };
        // At the threshold is out (0.0 and -0.0 are equal); above it is in.
        assert_eq!(kept(0.0), [&b"c"[..], b"a"]);
        assert_eq!(kept(0.5), [&b"c"[..]]);
        assert_eq!(kept(-1.0).len(), 4);
        assert_eq!(kept(-2.0).len(), 5);
        assert!(kept(2.0).is_empty());
        assert_eq!(q.scored_above(0.0).score(1), Some(0.5));
        // A list given ranked has no scores to compare: it stays whole.
        assert_eq!(run.list("r").unwrap().scored_above(10.0).len(), 2);
    }

    #[test]
    fn scored_lists_follow_score_then_doc_id_descending() {
        let mut b = RunBuilder::new();
        for (doc, score) in [
            ("d10", 1.0),
            ("d9", 1.0),
            ("a", 2.0),
            ("z", -0.0),
            ("y", 0.0),
        ] {
            b.push_scored("q", doc, score).unwrap();
        }
        let run = b.finish(Duplicates::Error).unwrap();
        // -0.0 == 0.0, so z and y tie and z (greater bytes) comes first.
        assert_eq!(docs(&run, "q"), ["a", "d9", "d10", "z", "y"]);
    }

    #[test]
    fn lists_sorted_by_score_get_only_their_ties_reordered() {
        let mut b = RunBuilder::new();
        for (doc, score) in [
            ("a", 3.0),
            ("d10", 2.0),
            ("d9", 2.0),
            ("b", 2.0),
            ("x", 1.0),
            ("y", 1.0),
            ("p", 0.0),
            ("q", -0.0),
        ] {
            b.push_scored("q", doc, score).unwrap();
        }
        let run = b.finish(Duplicates::Error).unwrap();
        assert_eq!(docs(&run, "q"), ["a", "d9", "d10", "b", "y", "x", "q", "p"]);
    }

    #[test]
    fn positions_past_four_billion_are_kept_exactly() {
        let far = 5_000_000_000_u64;
        let mut b = RunBuilder::new();
        b.push_scored_at(b"q", b"d", 1.0, far).unwrap();
        let mut later = RunBuilder::new();
        later.push_scored_at(b"q", b"d", 2.0, 7).unwrap();
        b.append(later, far);
        let error = b.finish(Duplicates::Error).unwrap_err();
        assert!(
            matches!(
                error,
                RunError::DuplicateDoc {
                    first: 5_000_000_000,
                    second: 5_000_000_007,
                    ..
                }
            ),
            "{error:?}"
        );
    }

    #[test]
    fn finishing_orders_like_a_full_sort_on_random_lists() {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for case in 0..300 {
            let len = 1 + next(60) as usize;
            let mut entries: Vec<(String, f64)> = (0..len)
                .map(|i| (format!("d{}", i * 7 % 61), (next(6) as f64) / 2.0 - 1.0))
                .collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            entries.dedup_by(|a, b| a.0 == b.0);
            if case % 2 == 0 {
                // Sorted by score with ties in arbitrary order: the fast path.
                entries.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap());
            }
            let mut builder = RunBuilder::new();
            for (doc, score) in &entries {
                let score = if *score == 0.0 && next(2) == 0 {
                    -0.0
                } else {
                    *score
                };
                builder.push_scored("q", doc, score).unwrap();
            }
            let run = builder.finish(Duplicates::Error).unwrap();
            let mut expected = entries.clone();
            expected.sort_by(|a, b| compare_scored((a.1, a.0.as_bytes()), (b.1, b.0.as_bytes())));
            let expected: Vec<String> = expected.into_iter().map(|(d, _)| d).collect();
            assert_eq!(docs(&run, "q"), expected, "case {case}");
        }
    }

    #[test]
    fn scores_a_few_units_in_the_last_place_apart_are_ordered_exactly() {
        // Long lists sort on keys whose lowest bits are cut off; scores
        // that differ only there must still come out in order.
        let mut builder = RunBuilder::new();
        let mut entries = Vec::new();
        for i in 0..300_u64 {
            let score = f64::from_bits(1.0_f64.to_bits() + (i * 37 % 11));
            let score = if i % 3 == 0 { -score } else { score };
            let doc = format!("d{}", i * 7 % 300);
            builder.push_scored("q", doc.as_str(), score).unwrap();
            entries.push((doc, score));
        }
        let run = builder.finish(Duplicates::Error).unwrap();
        entries.sort_by(|a, b| compare_scored((a.1, a.0.as_bytes()), (b.1, b.0.as_bytes())));
        let expected: Vec<String> = entries.into_iter().map(|(d, _)| d).collect();
        assert_eq!(docs(&run, "q"), expected);
    }

    #[test]
    fn documents_pushed_at_once_are_those_pushed_one_by_one() {
        let docs = ["d3", "d10", "x", "d3b", "a"];
        let scores = [0.5, 2.0, 0.5, -1.0, 2.0];
        let mut one_by_one = RunBuilder::new();
        let mut at_once = RunBuilder::new();
        for (query, range) in [("q1", 0..2), ("q2", 2..3), ("q1", 3..5)] {
            for i in range.clone() {
                one_by_one
                    .push_scored_at(
                        query.as_bytes(),
                        docs[i].as_bytes(),
                        scores[i],
                        10 + i as u64,
                    )
                    .unwrap();
            }
            let bytes: String = docs[range.clone()].concat();
            let ends = docs[range.clone()].iter().scan(0, |end, doc| {
                *end += doc.len();
                Some(*end)
            });
            at_once
                .push_scored_contiguous(
                    query.as_bytes(),
                    bytes.as_bytes(),
                    ends.collect::<Vec<_>>().into_iter(),
                    &scores[range.clone()],
                    10 + range.start as u64,
                )
                .unwrap();
        }
        let (a, b) = (
            one_by_one.finish(Duplicates::Error).unwrap(),
            at_once.finish(Duplicates::Error).unwrap(),
        );
        for query in ["q1", "q2"] {
            assert_eq!(docs_of(&a, query), docs_of(&b, query));
            let list = b.list(query).unwrap();
            let scores: Vec<_> = (0..list.len()).map(|i| list.score(i)).collect();
            let expected: Vec<_> = (0..list.len())
                .map(|i| a.list(query).unwrap().score(i))
                .collect();
            assert_eq!(scores, expected);
        }
        assert_eq!(docs_of(&b, "q1"), ["d10", "a", "d3", "d3b"]);

        // Positions count from `first_at`: a repeat names both.
        let mut repeated = RunBuilder::new();
        repeated
            .push_scored_contiguous(b"q", b"aba", [1, 2, 3].into_iter(), &[1.0, 2.0, 3.0], 7)
            .unwrap();
        let error = repeated.finish(Duplicates::Error).unwrap_err();
        assert!(
            matches!(
                error,
                RunError::DuplicateDoc {
                    first: 7,
                    second: 9,
                    ..
                }
            ),
            "{error:?}"
        );
        let mut nan = RunBuilder::new();
        let error = nan
            .push_scored_contiguous(b"q", b"ab", [1, 2].into_iter(), &[1.0, f64::NAN], 3)
            .unwrap_err();
        assert!(
            matches!(error, RunError::NanScore { at: 4, .. }),
            "{error:?}"
        );
    }

    fn docs_of(run: &Run, query: &str) -> Vec<String> {
        docs(run, query)
    }

    #[test]
    fn score_keys_order_as_scores_compare() {
        let scores = [
            f64::INFINITY,
            f64::MAX,
            1.5,
            1.0,
            f64::MIN_POSITIVE,
            5e-324,
            0.0,
            -0.0,
            -5e-324,
            -1.0,
            -1.5,
            f64::MIN,
            f64::NEG_INFINITY,
        ];
        let rules = RunRules {
            duplicates: Duplicates::Error,
            by_doc: true,
        };
        for &a in &scores {
            for &b in &scores {
                let by_key = rules.value_key(a).cmp(&rules.value_key(b));
                assert_eq!(by_key, rules.compare_values(a, b), "{a} vs {b}");
            }
        }
    }

    #[test]
    fn scores_compare_as_f64_not_f32() {
        let mut b = RunBuilder::new();
        b.push_scored("q", "a", 1.000_000_01).unwrap();
        b.push_scored("q", "b", 1.000_000_02).unwrap();
        let run = b.finish(Duplicates::Error).unwrap();
        assert_eq!(docs(&run, "q"), ["b", "a"]);
    }

    #[test]
    fn ranked_lists_keep_their_order() {
        let mut b = RunBuilder::new();
        b.push_list("u1", ["C", "A", "B"]).unwrap();
        b.push_list(7, [3, 1]).unwrap();
        let run = b.finish(Duplicates::Error).unwrap();
        assert_eq!(docs(&run, "u1"), ["C", "A", "B"]);
        assert_eq!(docs(&run, "7"), ["3", "1"]);
        assert!(run.list("u1").unwrap().is_ranked_as_given());
        assert_eq!(run.list("u1").unwrap().score(0), None);
    }

    #[test]
    fn duplicates_are_refused_or_the_best_ranked_kept() {
        let build = || {
            let mut b = RunBuilder::new();
            b.push_scored("q", "a", 1.0).unwrap();
            b.push_scored("q", "b", 3.0).unwrap();
            b.push_scored("q", "a", 5.0).unwrap();
            b
        };
        assert_eq!(
            build().finish(Duplicates::Error).unwrap_err(),
            RunError::DuplicateDoc {
                query: "q".into(),
                doc: "a".into(),
                first: 1,
                second: 3
            }
        );
        // The best-ranked occurrence (score 5, third line) stays, not the
        // first line.
        let run = build().finish(Duplicates::First).unwrap();
        assert_eq!(docs(&run, "q"), ["a", "b"]);
        assert_eq!(run.list("q").unwrap().score(0), Some(5.0));
        assert_eq!(run.duplicates_dropped(), 1);

        // Three occurrences, the best in the middle; equal scores.
        let mut b = RunBuilder::new();
        for (doc, score) in [("a", 2.0), ("c", 2.5), ("a", 4.0), ("a", 3.0), ("c", 2.5)] {
            b.push_scored("q", doc, score).unwrap();
        }
        let run = b.finish(Duplicates::First).unwrap();
        assert_eq!(docs(&run, "q"), ["a", "c"]);
        assert_eq!(run.list("q").unwrap().score(0), Some(4.0));
        assert_eq!(run.duplicates_dropped(), 3);

        // A list given ranked: the first given is the best-ranked.
        let mut b = RunBuilder::new();
        b.push_list("q", ["x", "y", "x", "z", "y"]).unwrap();
        let run = b.finish(Duplicates::First).unwrap();
        assert_eq!(docs(&run, "q"), ["x", "y", "z"]);
        assert_eq!(run.duplicates_dropped(), 2);
    }

    #[test]
    fn nan_scores_are_refused() {
        let mut b = RunBuilder::new();
        assert!(matches!(
            b.push_scored("q", "a", f64::NAN),
            Err(RunError::NanScore { at: 1, .. })
        ));
    }
}
