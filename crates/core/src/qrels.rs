//! Qrels: the graded judgements of documents, per query.
//!
//! Each query's judgements are stored in input order, one grade column and
//! no second copy. The ideal grades nDCG needs (and the relevant count `|R|`
//! at any threshold) are put in descending order per query when the query
//! is judged ([`Qrels::ideal_grades_into`]), in the parallel evaluation, so
//! that reading large qrels does no sorting.
//! The engine's [`Judge`](crate::Judge) finds grades through a small hash
//! table per query, which stays in the CPU cache.

use std::cmp::Ordering;

use crate::error::{QrelsError, shorten_id};
use crate::id::Id;
use crate::interner::Interner;
use crate::judge::{Grade, check_grade};
use crate::lists::{FinishError, List, ListRules, ListStore, PushError, Repeat, RepeatError};
use crate::origins::Origins;

/// Judgements per query; built with a [`QrelsBuilder`], or from pieces
/// read in parallel with [`QrelsParts`].
#[derive(Clone, Debug)]
pub struct Qrels {
    /// The query ids, in order of first appearance.
    queries: Interner,
    /// Where query `q`'s judgements are: list `.1` of part `.0`.
    lists: Vec<(u32, u32)>,
    /// Finished stores: one per piece the qrels were read in, each list
    /// in input order.
    parts: Vec<ListStore<Grade>>,
}

/// Collects judgements in any order; [`finish`](QrelsBuilder::finish) checks
/// and indexes them.
///
/// The same judgement given twice is kept once; the same document judged
/// twice for one query with two grades is an error.
#[derive(Clone, Debug, Default)]
pub struct QrelsBuilder {
    store: ListStore<Grade>,
    pushed: u64,
}

impl QrelsBuilder {
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

    /// Judges `doc` with `grade` for `query` (an integer or decimal grade:
    /// `2`, `3.5`; NaN, infinities and grades beyond
    /// [`MAX_GRADE`](crate::MAX_GRADE) are refused).
    pub fn push(
        &mut self,
        query: impl Id,
        doc: impl Id,
        grade: impl Into<f64>,
    ) -> Result<(), QrelsError> {
        let grade = grade.into();
        self.pushed = self.pushed.saturating_add(1);
        let at = self.pushed;
        query.with_bytes(|q| doc.with_bytes(|d| self.push_at(q, d, grade, at)))
    }

    /// Gives `query` a place in the qrels even with no judgement: the query
    /// counts, with no relevant document. `at` is the position errors name.
    pub fn declare_query(&mut self, query: &[u8], at: u64) -> Result<(), QrelsError> {
        self.store
            .declare(query, false)
            .map_err(|e| push_error(e, at))
    }

    /// [`push`](Self::push) with an explicit position (a line number).
    #[inline]
    pub fn push_at(
        &mut self,
        query: &[u8],
        doc: &[u8],
        grade: f64,
        at: u64,
    ) -> Result<(), QrelsError> {
        let grade =
            check_grade(grade).map_err(|reason| QrelsError::InvalidGrade { grade, reason, at })?;
        self.store
            .push(query, doc, grade, at, false)
            .map_err(|e| push_error(e, at))
    }

    /// Moves `other`'s judgements after this builder's, adding
    /// `position_offset` to their positions.
    pub fn append(&mut self, other: QrelsBuilder, position_offset: u64) {
        self.pushed = self.pushed.saturating_add(other.pushed);
        self.store.append(other.store, position_offset);
    }

    /// Number of judgements pushed so far.
    pub fn len(&self) -> usize {
        self.store.num_entries()
    }

    /// Whether nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.store.num_entries() == 0
    }

    /// Checks for conflicting grades and orders each query's grades.
    pub fn finish(self) -> Result<Qrels, QrelsError> {
        let mut store = self.store.finish(&QrelsRules).map_err(|e| match e {
            FinishError::Repeat(e) => conflict(e, 0),
            FinishError::MixedOrdering { .. } => {
                unreachable!("qrels entries are never pushed as ranked")
            }
        })?;
        let queries = std::mem::take(&mut store.queries);
        Ok(Qrels {
            lists: (0..queries.len() as u32).map(|q| (0, q)).collect(),
            queries,
            parts: vec![compact(store)],
        })
    }

    /// Finishes these judgements as one piece of larger qrels (a block of
    /// lines of a file read in parallel), right where they were read: each
    /// query's judgements are checked and its grades ordered now, and
    /// [`QrelsParts::finish`] joins the pieces later, joining only the
    /// queries that continue from one piece into another.
    pub fn finish_part(self) -> QrelsPart {
        let mut store = self.store;
        let conflicts = match store.finish_in_place(&QrelsRules) {
            Ok(conflicts) => conflicts,
            Err(FinishError::Repeat(e)) => vec![e],
            Err(FinishError::MixedOrdering { .. }) => {
                unreachable!("qrels entries are never pushed as ranked")
            }
        };
        QrelsPart {
            store,
            conflicts,
            offset: 0,
        }
    }
}

/// One piece of qrels, finished on its own; see [`QrelsBuilder::finish_part`].
#[derive(Debug)]
pub struct QrelsPart {
    /// Finished (each list in input order, repeats resolved), with
    /// positions (origins) kept.
    store: ListStore<Grade>,
    /// The conflicting grades found in the piece, the first of each query.
    conflicts: Vec<RepeatError<Grade>>,
    /// Added to the piece's positions to make them the input's.
    offset: u64,
}

/// Qrels read in pieces, in input order, each finished on its own: the
/// pieces are kept as they are (nothing is copied) and a query whose
/// judgements continue from one piece into the next is joined from them.
/// The result, and the error for conflicting grades, are the same as
/// pushing every judgement into one [`QrelsBuilder`].
#[derive(Debug, Default)]
pub struct QrelsParts {
    parts: Vec<QrelsPart>,
}

impl QrelsParts {
    /// No pieces yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the next piece, whose positions are `position_offset` less
    /// than the input's.
    pub fn push(&mut self, mut part: QrelsPart, position_offset: u64) {
        part.offset = part.offset.saturating_add(position_offset);
        self.parts.push(part);
    }

    /// Adds `later`'s pieces after these, their positions shifted by
    /// `position_offset`.
    pub fn append(&mut self, later: QrelsParts, position_offset: u64) {
        for part in later.parts {
            self.push(part, position_offset);
        }
    }

    /// Whether no piece was added.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// Joins the pieces into qrels; fails on the first conflicting grades
    /// in input order.
    pub fn finish(self) -> Result<Qrels, QrelsError> {
        let mut parts: Vec<ListStore<Grade>> = Vec::with_capacity(self.parts.len() + 1);
        // Room for every piece's queries: the table never grows.
        let mut queries = Interner::with_capacity(
            self.parts.iter().map(|p| p.store.queries.len()).sum(),
            self.parts.iter().map(|p| p.store.queries.byte_len()).sum(),
        );
        let mut lists: Vec<(u32, u32)> = Vec::with_capacity(queries.capacity());
        // For each query judged in more than one piece, every (piece, list)
        // holding its judgements, in input order.
        let mut spanning: Vec<(u32, Vec<(u32, u32)>)> = Vec::new();
        let mut spanning_of: Vec<u32> = Vec::with_capacity(queries.capacity());
        let mut conflicts: Vec<(u32, RepeatError<Grade>)> = Vec::new();
        let mut offsets = Vec::with_capacity(self.parts.len());
        for (p, part) in self.parts.into_iter().enumerate() {
            let p = p as u32;
            for list in 0..part.store.lists.len() as u32 {
                let known = queries.len() as u32;
                let q = queries.intern(part.store.queries.resolve(list));
                if q == known {
                    lists.push((p, list));
                    spanning_of.push(u32::MAX);
                    continue;
                }
                let group = &mut spanning_of[q as usize];
                if *group == u32::MAX {
                    *group = spanning.len() as u32;
                    spanning.push((q, vec![lists[q as usize]]));
                }
                spanning[*group as usize].1.push((p, list));
            }
            for mut conflict in part.conflicts {
                conflict.query_name = part.store.query_name(conflict.query);
                conflicts.push((p, conflict));
            }
            offsets.push(part.offset);
            // The qrels' own table names the queries from here on.
            let mut store = part.store;
            store.queries = Interner::new();
            parts.push(store);
        }
        // Conflicts within one piece stand for queries in that piece only;
        // those of joined queries are looked for again, over all pieces.
        let mut first: Option<RepeatError<Grade>> = None;
        let mut keep_first = |mut conflict: RepeatError<Grade>, offset: u64| {
            conflict.first.1 = conflict.first.1.saturating_add(offset);
            conflict.second.1 = conflict.second.1.saturating_add(offset);
            if first
                .as_ref()
                .is_none_or(|f| conflict.second.1 < f.second.1)
            {
                first = Some(conflict);
            }
        };
        for (p, conflict) in conflicts {
            let q = queries.get(conflict.query_name.as_bytes());
            if q.is_some_and(|q| spanning_of[q as usize] == u32::MAX) {
                keep_first(conflict, offsets[p as usize]);
            }
        }
        if !spanning.is_empty() {
            let mut joined = ListStore::default();
            // (position, piece, list, entry of the list)
            let mut entries: Vec<(u64, u32, u32, usize)> = Vec::new();
            for (q, pieces) in &spanning {
                entries.clear();
                for &(p, list) in pieces {
                    let store = &parts[p as usize];
                    let l = store.lists[list as usize];
                    let offset = offsets[p as usize];
                    entries.extend((0..l.len).map(|i| {
                        (
                            store.origins.get(l.start + i).saturating_add(offset),
                            p,
                            list,
                            i,
                        )
                    }));
                }
                // Input order, so that repeats resolve as in one builder.
                entries.sort_unstable();
                let name = queries.resolve(*q);
                for &(origin, p, list, i) in &entries {
                    let store = &parts[p as usize];
                    let l = store.lists[list as usize];
                    let pushed = joined.push(
                        name,
                        store.doc(&l, i),
                        store.values[l.start + i],
                        origin,
                        false,
                    );
                    debug_assert!(pushed.is_ok(), "these entries were pushed once already");
                }
            }
            let joined_conflicts = match joined.finish_in_place(&QrelsRules) {
                Ok(conflicts) => conflicts,
                Err(FinishError::Repeat(e)) => vec![e],
                Err(FinishError::MixedOrdering { .. }) => {
                    unreachable!("qrels entries are never pushed as ranked")
                }
            };
            for mut conflict in joined_conflicts {
                conflict.query_name = joined.query_name(conflict.query);
                keep_first(conflict, 0);
            }
            let p = parts.len() as u32;
            for (list, (q, _)) in spanning.iter().enumerate() {
                lists[*q as usize] = (p, list as u32);
            }
            parts.push(joined);
        }
        if let Some(conflict) = first {
            return Err(conflict_error(conflict));
        }
        Ok(Qrels {
            queries,
            lists,
            parts: parts.into_iter().map(compact).collect(),
        })
    }
}

/// Sorts `grades` in descending order. Integer grades spanning a small
/// range (as grades usually do) are sorted by counting; anything else
/// (decimal grades, a wide range) by comparing.
fn sort_descending(grades: &mut [Grade], counts: &mut Vec<u32>) {
    const SMALL_RANGE: i64 = 64;
    let by_comparing = |grades: &mut [Grade]| grades.sort_unstable_by(|a, b| b.total_cmp(a));
    if grades.len() < 8 {
        return by_comparing(grades);
    }
    let (mut min, mut max) = (i64::MAX, i64::MIN);
    for &grade in grades.iter() {
        // Grades lie within the i32 range: the cast is exact for integers.
        let integer = grade as i64;
        if integer as Grade != grade {
            return by_comparing(grades);
        }
        min = min.min(integer);
        max = max.max(integer);
    }
    if max - min >= SMALL_RANGE {
        return by_comparing(grades);
    }
    counts.clear();
    counts.resize((max - min) as usize + 1, 0);
    for &grade in grades.iter() {
        counts[(grade as i64 - min) as usize] += 1;
    }
    let mut at = 0;
    for (offset, &count) in counts.iter().enumerate().rev() {
        let grade = (min + offset as i64) as Grade;
        grades[at..at + count as usize].fill(grade);
        at += count as usize;
    }
}

/// A finished store as the qrels keep it: no positions, no query table of
/// its own (the qrels have one for all pieces), no spare room.
fn compact(mut store: ListStore<Grade>) -> ListStore<Grade> {
    store.origins = Origins::default();
    store.queries = Interner::new();
    store.lists.shrink_to_fit();
    store.bytes.shrink_to_fit();
    store.ends.shrink_to_fit();
    store.values.shrink_to_fit();
    store
}

/// A refused repeat as the qrels error, its positions shifted by `offset`.
fn conflict(mut e: RepeatError<Grade>, offset: u64) -> QrelsError {
    e.first.1 = e.first.1.saturating_add(offset);
    e.second.1 = e.second.1.saturating_add(offset);
    conflict_error(e)
}

fn conflict_error(e: RepeatError<Grade>) -> QrelsError {
    QrelsError::ConflictingGrades {
        query: e.query_name,
        doc: shorten_id(&e.doc),
        first_grade: e.first.0,
        first: e.first.1,
        second_grade: e.second.0,
        second: e.second.1,
    }
}

fn push_error(error: PushError, at: u64) -> QrelsError {
    match error {
        PushError::QueryNotUtf8 => QrelsError::QueryNotUtf8 { at },
        PushError::ListTooLarge => QrelsError::ListTooLarge { at },
    }
}

struct QrelsRules;

impl ListRules<Grade> for QrelsRules {
    fn on_repeat(&self, first: Grade, second: Grade) -> Repeat {
        // Bitwise: stored grades are never NaN or -0.
        if first.to_bits() == second.to_bits() {
            Repeat::DropSecond
        } else {
            Repeat::Fail
        }
    }

    /// Judgements keep their input order; their grades are ordered per
    /// query when it is judged (see [`Qrels::ideal_grades_into`]).
    fn sorts(&self, _list: &List) -> bool {
        false
    }

    fn compare_values(&self, a: Grade, b: Grade) -> Ordering {
        b.total_cmp(&a)
    }

    fn compare_docs(&self, a: &[u8], b: &[u8]) -> Ordering {
        a.cmp(b)
    }

    fn ties_by_doc(&self) -> bool {
        false
    }
}

impl Qrels {
    /// Number of queries with at least one judgement.
    pub fn num_queries(&self) -> usize {
        self.lists.len()
    }

    /// Number of judgements.
    pub fn num_judgements(&self) -> usize {
        (0..self.lists.len() as u32)
            .map(|q| self.judged(q).1.len)
            .sum()
    }

    /// The query ids, in order of first appearance.
    pub fn queries(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.lists.len() as u32).map(|q| self.query_name(q))
    }

    /// The dense index of `query` (position in [`queries`](Self::queries)).
    pub fn query_index(&self, query: &[u8]) -> Option<u32> {
        self.queries.get(query)
    }

    /// The id of the query with dense index `index`.
    pub fn query_name(&self, index: u32) -> &str {
        std::str::from_utf8(self.queries.resolve(index)).unwrap_or("\u{fffd}")
    }

    /// The id of the query with dense index `index`, as bytes (UTF-8).
    pub fn query_bytes(&self, index: u32) -> &[u8] {
        self.queries.resolve(index)
    }

    /// The judgements of query `index`: the store that holds them and
    /// where they are in it.
    #[inline]
    pub(crate) fn judged(&self, index: u32) -> (&ListStore<Grade>, List) {
        let (part, list) = self.lists[index as usize];
        let store = &self.parts[part as usize];
        (store, store.lists[list as usize])
    }

    /// Every grade judged for the query `index`, in descending order.
    pub fn ideal_grades(&self, index: u32) -> Vec<Grade> {
        let mut ideal = Vec::new();
        self.ideal_grades_into(index, &mut ideal, &mut Vec::new());
        ideal
    }

    /// Every grade judged for the query `index`, in descending order, into
    /// `ideal` (emptied first); `counts` is scratch space. The engine calls
    /// this once per judged query, reusing both buffers.
    pub fn ideal_grades_into(&self, index: u32, ideal: &mut Vec<Grade>, counts: &mut Vec<u32>) {
        let (store, list) = self.judged(index);
        ideal.clear();
        ideal.extend_from_slice(&store.values[list.start..list.start + list.len]);
        sort_descending(ideal, counts);
    }

    /// The grade of `doc` for query `index`, if it is judged: a scan of the
    /// query's judgements (the engine judges whole lists another way).
    pub fn grade(&self, index: u32, doc: &[u8]) -> Option<Grade> {
        let (store, list) = self.judged(index);
        (0..list.len)
            .find(|&i| store.doc(&list, i) == doc)
            .map(|i| store.values[list.start + i])
    }

    /// The judged documents of query `index` with their grades, in input
    /// order (repeats left out).
    pub fn judgements(&self, index: u32) -> impl ExactSizeIterator<Item = (&[u8], Grade)> + '_ {
        let (store, list) = self.judged(index);
        (0..list.len).map(move |i| (store.doc(&list, i), store.values[list.start + i]))
    }

    /// The grade of `doc` for `query`, if it is judged.
    pub fn grade_of(&self, query: impl Id, doc: impl Id) -> Option<Grade> {
        let index = query.with_bytes(|q| self.query_index(q))?;
        doc.with_bytes(|d| self.grade(index, d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grades_are_found_and_ideal_order_is_descending() {
        let mut b = QrelsBuilder::new();
        b.push("q1", "a", 1).unwrap();
        b.push("q2", "a", 3).unwrap();
        b.push("q1", "b", 2).unwrap();
        b.push("q1", "c", -1).unwrap();
        b.push("q1", "d", 0).unwrap();
        b.push("q1", "b", 2).unwrap();
        let qrels = b.finish().unwrap();
        assert_eq!(qrels.num_queries(), 2);
        assert_eq!(qrels.num_judgements(), 5);
        assert_eq!(qrels.grade_of("q1", "a"), Some(1.0));
        assert_eq!(qrels.grade_of("q2", "a"), Some(3.0));
        assert_eq!(qrels.grade_of("q1", "c"), Some(-1.0));
        assert_eq!(qrels.grade_of("q2", "b"), None);
        assert_eq!(qrels.grade_of("q3", "a"), None);
        let q1 = qrels.query_index(b"q1").unwrap();
        assert_eq!(qrels.ideal_grades(q1), [2.0, 1.0, 0.0, -1.0]);
    }

    #[test]
    fn grade_lookups_agree_with_a_map() {
        let mut expected = std::collections::HashMap::new();
        let mut b = QrelsBuilder::new();
        for i in 0..500u64 {
            let (query, doc, grade) = (
                i % 7,
                format!("doc{}", i * 37 % 211),
                // Integer and half grades.
                (i * 13 % 9) as f64 / [1.0, 2.0][i as usize % 2] - 2.0,
            );
            if expected.insert((query, doc.clone()), grade).is_none() {
                b.push(query, &doc, grade).unwrap();
            }
        }
        let qrels = b.finish().unwrap();
        for query in 0..8u64 {
            for d in 0..220 {
                let doc = format!("doc{d}");
                let want = expected.get(&(query, doc.clone())).copied();
                assert_eq!(qrels.grade_of(query, &doc), want, "{query} {doc}");
            }
        }
    }

    /// Everything a reader of the qrels can see, or the error.
    fn observed(qrels: Result<Qrels, QrelsError>, docs: &[String]) -> String {
        match qrels {
            Err(e) => e.to_string(),
            Ok(qrels) => {
                let mut seen = format!("{} {} ", qrels.num_queries(), qrels.num_judgements());
                for (q, name) in qrels.queries().enumerate() {
                    let grades: Vec<_> = docs
                        .iter()
                        .map(|d| qrels.grade(q as u32, d.as_bytes()))
                        .collect();
                    seen += &format!("{name}: {:?} {grades:?}\n", qrels.ideal_grades(q as u32));
                }
                seen
            }
        }
    }

    #[test]
    fn qrels_joined_from_pieces_are_those_of_one_builder() {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let docs: Vec<String> = (0..40).map(|d| format!("d{d}")).collect();
        let (mut conflicts, mut joined) = (0, 0);
        for case in 0..400 {
            // Queries mostly grouped, some interleaved; repeated judgements,
            // now and then with another grade.
            let lines: Vec<(String, String, f64)> = (0..next(120) + 1)
                .map(|i| {
                    let query = if next(8) == 0 { next(6) } else { i / 15 };
                    let d = next(if case % 3 == 0 { 12 } else { 40 });
                    let grade = if next(80) == 0 {
                        next(4)
                    } else {
                        (d + query) % 4
                    };
                    (
                        format!("q{query}"),
                        docs[d as usize].clone(),
                        // Now and then a decimal grade.
                        grade as f64 - [1.0, 0.5][usize::from(next(5) == 0)],
                    )
                })
                .collect();
            let mut whole = QrelsBuilder::new();
            let mut parts = QrelsParts::new();
            let mut piece = QrelsBuilder::new();
            let mut piece_start = 0;
            for (i, (query, doc, grade)) in lines.iter().enumerate() {
                let line = i as u64 + 1;
                whole
                    .push_at(query.as_bytes(), doc.as_bytes(), *grade, line)
                    .unwrap();
                piece
                    .push_at(query.as_bytes(), doc.as_bytes(), *grade, line - piece_start)
                    .unwrap();
                if next(10) == 0 {
                    parts.push(std::mem::take(&mut piece).finish_part(), piece_start);
                    piece_start = line;
                }
            }
            parts.push(piece.finish_part(), piece_start);
            let expected = observed(whole.finish(), &docs);
            conflicts += usize::from(expected.contains("twice"));
            joined += usize::from(parts.parts.len() > 1);
            assert_eq!(observed(parts.finish(), &docs), expected, "case {case}");
        }
        // Both outcomes were compared, many times over.
        assert!(conflicts > 50 && conflicts < 350, "{conflicts}");
        assert!(joined > 300, "{joined}");
    }

    #[test]
    fn ideal_grades_are_sorted_by_counting_or_comparing_and_judgements_found() {
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for case in 0..500 {
            let spread = [3, 10, 100, 1 << 31][case % 4];
            // Integers, and now and then one decimal grade among them.
            let decimal = case % 3 == 0;
            let mut b = QrelsBuilder::new();
            let mut judged = Vec::new();
            for d in 0..next(60) {
                let mut grade = (next(spread) as i64 - (spread / 2) as i64) as Grade;
                if decimal && next(20) == 0 {
                    grade += 0.5;
                }
                let doc = format!("d{d}");
                b.push("q", doc.as_str(), grade).unwrap();
                judged.push((doc, grade));
            }
            b.push("other", "d0", 1).unwrap();
            let qrels = b.finish().unwrap();
            let mut expected: Vec<Grade> = judged.iter().map(|(_, g)| *g).collect();
            expected.sort_by(|a, b| b.total_cmp(a));
            if judged.is_empty() {
                assert_eq!(qrels.query_index(b"q"), None);
                continue;
            }
            let q = qrels.query_index(b"q").unwrap();
            assert_eq!(qrels.ideal_grades(q), expected, "case {case}");
            for (doc, grade) in &judged {
                assert_eq!(qrels.grade(q, doc.as_bytes()), Some(*grade), "case {case}");
            }
            assert_eq!(qrels.grade(q, b"missing"), None);
        }
    }

    #[test]
    fn two_grades_for_one_judgement_are_refused() {
        let mut b = QrelsBuilder::new();
        b.push("q1", "a", 1).unwrap();
        b.push("q1", "a", 2).unwrap();
        assert_eq!(
            b.finish().unwrap_err(),
            QrelsError::ConflictingGrades {
                query: "q1".into(),
                doc: "a".into(),
                first_grade: 1.0,
                first: 1,
                second_grade: 2.0,
                second: 2
            }
        );
    }

    #[test]
    fn grades_outside_i32_or_not_finite_are_refused() {
        use crate::GradeError;
        let mut b = QrelsBuilder::new();
        for (grade, reason) in [
            (f64::from(i32::MAX) + 1.0, GradeError::OutOfRange),
            (f64::from(i32::MIN), GradeError::OutOfRange),
            (f64::NAN, GradeError::NotFinite),
            (f64::INFINITY, GradeError::NotFinite),
            (f64::NEG_INFINITY, GradeError::NotFinite),
        ] {
            assert!(
                matches!(
                    b.push("q", "d", grade),
                    Err(QrelsError::InvalidGrade { reason: r, .. }) if r == reason
                ),
                "{grade}"
            );
        }
        assert!(b.is_empty());
    }

    #[test]
    fn decimal_grades_are_kept_as_they_are_and_minus_zero_is_zero() {
        let mut b = QrelsBuilder::new();
        for (doc, grade) in [("a", 0.5), ("b", 4.5), ("c", -0.0), ("d", 2.0), ("e", 0.1)] {
            b.push("q", doc, grade).unwrap();
        }
        let qrels = b.finish().unwrap();
        assert_eq!(qrels.grade_of("q", "e"), Some(0.1));
        assert_eq!(
            qrels.grade_of("q", "c").map(f64::to_bits),
            Some(0.0f64.to_bits())
        );
        let q = qrels.query_index(b"q").unwrap();
        assert_eq!(qrels.ideal_grades(q), [4.5, 2.0, 0.5, 0.1, 0.0]);
        // The same grade twice is one judgement; another grade is a conflict.
        let mut b = QrelsBuilder::new();
        b.push("q", "a", 0.5).unwrap();
        b.push("q", "a", 0.5).unwrap();
        assert_eq!(b.finish().unwrap().num_judgements(), 1);
        let mut b = QrelsBuilder::new();
        b.push("q", "a", 0.5).unwrap();
        b.push("q", "a", 1).unwrap();
        assert!(b.finish().is_err());
    }
}
