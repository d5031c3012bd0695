//! Qrels: the graded judgements of documents, per query.
//!
//! Each query's judgements are stored in ideal order (grade descending,
//! equal grades in input order), so that the ideal grades nDCG needs and
//! the relevant count `|R|` at any threshold are read off the one grade
//! column, with no second copy.
//! The engine's [`Judge`](crate::Judge) finds grades through a small hash
//! table per query, which stays in the CPU cache.
//!
//! The finished store is flat, to keep qrels of many small queries small
//! (1M queries of one judgement each: about 50 bytes a judgement, the id
//! texts included): the query ids in one interner, and per query only
//! where its judgements start; the judgements' document ids in one byte
//! arena with a 32-bit end each, their grades in one column. Nothing is
//! allocated per query or per judgement. Pieces of a file read in parallel
//! are packed the same way as soon as each is finished, and copied into
//! the flat store one after the other, each freed once copied. The rare
//! query judged in more than one piece (a file not grouped by query) is
//! joined in a small side store.

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
    /// Query `q`'s judgements are entries `starts[q]..starts[q + 1]` of the
    /// columns below (one more than there are queries).
    starts: Vec<u32>,
    /// Where query `q`'s document ids start in `bytes`.
    byte_starts: Vec<u32>,
    /// The document ids, one after the other.
    bytes: Vec<u8>,
    /// The end of each document id, from its query's byte start.
    ends: Vec<u32>,
    /// The grade of each judgement; each query's in descending order.
    grades: Vec<Grade>,
    /// Queries judged in more than one piece of the input: (query, its
    /// list in `joined`), by query. Their range in the columns is empty.
    spanning: Vec<(u32, u32)>,
    /// The judgements of the queries in `spanning`, joined and finished.
    joined: ListStore<Grade>,
}

/// One query's judgements in ideal order: a view into the qrels.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Judged<'a> {
    /// The document ids, from the first one's start.
    bytes: &'a [u8],
    /// The end of each document id in `bytes`.
    ends: &'a [u32],
    /// The grades, in descending order.
    pub(crate) grades: &'a [Grade],
}

impl<'a> Judged<'a> {
    /// Number of judgements.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The document id of judgement `i`.
    #[inline]
    pub(crate) fn doc(&self, i: usize) -> &'a [u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }

    /// The document ids, in ideal order.
    pub(crate) fn docs(self) -> impl ExactSizeIterator<Item = &'a [u8]> + 'a {
        (0..self.len()).map(move |i| self.doc(i))
    }
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
        let mut parts = QrelsParts::new();
        parts.push(self.finish_part(), 0);
        parts.finish()
    }

    /// Finishes these judgements as one piece of larger qrels (a block of
    /// lines of a file read in parallel), right where they were read: each
    /// query's judgements are checked and its grades ordered now, and
    /// [`QrelsParts::finish`] joins the pieces later, joining only the
    /// queries that continue from one piece into another.
    pub fn finish_part(self) -> QrelsPart {
        let mut store = self.store;
        let mut conflicts = match store.finish_in_place(&QrelsRules) {
            Ok(conflicts) => conflicts,
            Err(FinishError::Repeat(e)) => vec![e],
            Err(FinishError::MixedOrdering { .. }) => {
                unreachable!("qrels entries are never pushed as ranked")
            }
        };
        for conflict in &mut conflicts {
            conflict.query_name = store.query_name(conflict.query);
        }
        QrelsPart::packed(store, conflicts)
    }
}

/// One piece of qrels, finished on its own and packed; see
/// [`QrelsBuilder::finish_part`].
#[derive(Debug)]
pub struct QrelsPart {
    /// The query ids of the piece's lists, one after the other.
    names: Vec<u8>,
    /// The end of each list's query id in `names`.
    name_ends: Vec<u32>,
    /// List `i`'s judgements are `starts[i]..starts[i + 1]`.
    starts: Vec<u32>,
    /// Where list `i`'s document ids start in `bytes`.
    byte_starts: Vec<u32>,
    bytes: Vec<u8>,
    /// The end of each document id, from its list's byte start.
    ends: Vec<u32>,
    /// Each list in descending order of grade.
    grades: Vec<Grade>,
    /// Where each judgement came from, for the queries joined later.
    origins: Origins,
    /// The conflicting grades found in the piece, the first of each query,
    /// with the query's name.
    conflicts: Vec<RepeatError<Grade>>,
    /// Added to the piece's positions to make them the input's.
    offset: u64,
    /// The piece does not fit 32-bit offsets.
    too_large: bool,
}

impl QrelsPart {
    /// Packs a finished store: its lists one after the other with no room
    /// between them (repeats dropped when finishing leave some), the query
    /// ids as plain text, no hash table.
    fn packed(store: ListStore<Grade>, conflicts: Vec<RepeatError<Grade>>) -> Self {
        let ListStore {
            queries,
            lists,
            mut bytes,
            mut ends,
            values: mut grades,
            origins: all_origins,
        } = store;
        let mut names = Vec::with_capacity(queries.byte_len());
        let mut name_ends = Vec::with_capacity(lists.len());
        let mut starts = Vec::with_capacity(lists.len() + 1);
        let mut byte_starts = Vec::with_capacity(lists.len() + 1);
        // Lists with no repeat dropped leave no room between them: then
        // the columns stay where they are (the usual case).
        let list_bytes = |l: &List| {
            if l.len == 0 {
                0
            } else {
                ends[l.start + l.len - 1] as usize
            }
        };
        let dense = lists
            .first()
            .is_none_or(|l| l.start == 0 && l.byte_start == 0)
            && lists.windows(2).all(|w| {
                w[1].start == w[0].start + w[0].len
                    && w[1].byte_start == w[0].byte_start + list_bytes(&w[0])
            });
        let mut origins = if dense {
            Origins::default()
        } else {
            Origins::with_capacity(grades.len())
        };
        let (mut write, mut write_byte) = (0usize, 0usize);
        let mut too_large = false;
        let mut narrow = |n: usize| {
            u32::try_from(n).unwrap_or_else(|_| {
                too_large = true;
                0
            })
        };
        // Finished lists are in query order and in entry order.
        for list in &lists {
            names.extend_from_slice(queries.resolve(list.query));
            name_ends.push(narrow(names.len()));
            starts.push(narrow(write));
            byte_starts.push(narrow(write_byte));
            let list_bytes = if list.len == 0 {
                0
            } else {
                ends[list.start + list.len - 1] as usize
            };
            if !dense {
                bytes.copy_within(list.byte_start..list.byte_start + list_bytes, write_byte);
                ends.copy_within(list.start..list.start + list.len, write);
                grades.copy_within(list.start..list.start + list.len, write);
                for i in list.start..list.start + list.len {
                    origins.push(all_origins.get(i));
                }
            }
            write += list.len;
            write_byte += list_bytes;
        }
        starts.push(narrow(write));
        byte_starts.push(narrow(write_byte));
        if dense {
            origins = all_origins;
        }
        // The builder's room for more is given back: the pieces are all
        // held until they are joined.
        bytes.truncate(write_byte);
        bytes.shrink_to_fit();
        ends.truncate(write);
        ends.shrink_to_fit();
        grades.truncate(write);
        grades.shrink_to_fit();
        Self {
            names,
            name_ends,
            starts,
            byte_starts,
            bytes,
            ends,
            grades,
            origins,
            conflicts,
            offset: 0,
            too_large,
        }
    }

    /// Number of lists (queries) in the piece.
    fn num_lists(&self) -> usize {
        self.starts.len() - 1
    }

    /// The query id of list `i`.
    fn name(&self, i: usize) -> &[u8] {
        let start = if i == 0 {
            0
        } else {
            self.name_ends[i - 1] as usize
        };
        &self.names[start..self.name_ends[i] as usize]
    }

    /// The entries of list `i`.
    fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.starts[i] as usize..self.starts[i + 1] as usize
    }

    /// The bytes of list `i`'s document ids.
    fn byte_range(&self, i: usize) -> std::ops::Range<usize> {
        self.byte_starts[i] as usize..self.byte_starts[i + 1] as usize
    }

    /// The document id of entry `e` of list `i`.
    fn doc(&self, i: usize, e: usize) -> &[u8] {
        let base = self.byte_starts[i] as usize;
        let first = self.starts[i] as usize;
        let start = if e == first {
            0
        } else {
            self.ends[e - 1] as usize
        };
        &self.bytes[base + start..base + self.ends[e] as usize]
    }
}

/// Qrels read in pieces, in input order, each finished on its own: the
/// pieces are copied into the flat store one after the other, and a query
/// whose judgements continue from one piece into another is joined from
/// them. The result, and the error for conflicting grades, are the same as
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
        if self.parts.iter().any(|p| p.too_large) {
            return Err(QrelsError::TooLarge);
        }
        // First pass: the query ids, the size of each query's judgements,
        // and which queries are judged in more than one piece.
        let mut queries = Interner::with_capacity(
            self.parts.iter().map(QrelsPart::num_lists).sum(),
            self.parts.iter().map(|p| p.names.len()).sum(),
        );
        // Entries and bytes per query, made starts below.
        let mut starts: Vec<u32> = Vec::with_capacity(queries.capacity() + 1);
        let mut byte_starts: Vec<u32> = Vec::with_capacity(queries.capacity() + 1);
        let mut spanning = Bits::default();
        // Per piece, the query of each list that is not the query's first
        // appearance (rare): the names are freed after this pass.
        let mut repeats: Vec<Vec<(u32, u32)>> = Vec::with_capacity(self.parts.len());
        let mut any_spanning = false;
        let mut parts = self.parts;
        for part in &mut parts {
            let mut repeated = Vec::new();
            for i in 0..part.num_lists() {
                let known = queries.len();
                let q = queries.intern(part.name(i));
                if q as usize == known {
                    starts.push(part.range(i).len() as u32);
                    byte_starts.push(part.byte_range(i).len() as u32);
                } else {
                    // Judged in another piece too: joined on the side.
                    spanning.set(q as usize);
                    any_spanning = true;
                    starts[q as usize] = 0;
                    byte_starts[q as usize] = 0;
                    repeated.push((i as u32, q));
                }
            }
            part.names = Vec::new();
            part.name_ends = Vec::new();
            repeats.push(repeated);
        }
        let mut total: u64 = 0;
        for count in starts.iter_mut() {
            let len = u64::from(*count);
            *count = u32::try_from(total).map_err(|_| QrelsError::TooLarge)?;
            total += len;
        }
        starts.push(u32::try_from(total).map_err(|_| QrelsError::TooLarge)?);
        let mut total_bytes: u64 = 0;
        for count in byte_starts.iter_mut() {
            let len = u64::from(*count);
            *count = u32::try_from(total_bytes).map_err(|_| QrelsError::TooLarge)?;
            total_bytes += len;
        }
        byte_starts.push(u32::try_from(total_bytes).map_err(|_| QrelsError::TooLarge)?);
        let entries = total as usize;
        // Second pass: each piece copied and freed.
        let mut bytes = Vec::with_capacity(total_bytes as usize);
        let mut ends = Vec::with_capacity(entries);
        let mut grades = Vec::with_capacity(entries);
        let mut gather: ListStore<Grade> = ListStore::default();
        let mut first_conflict: Option<RepeatError<Grade>> = None;
        let mut keep_first = |mut conflict: RepeatError<Grade>, offset: u64| {
            conflict.first.1 = conflict.first.1.saturating_add(offset);
            conflict.second.1 = conflict.second.1.saturating_add(offset);
            if first_conflict
                .as_ref()
                .is_none_or(|f| conflict.second.1 < f.second.1)
            {
                first_conflict = Some(conflict);
            }
        };
        let mut next = 0u32;
        for (part, repeated) in parts.into_iter().zip(repeats) {
            let mut repeated = repeated.into_iter().peekable();
            for i in 0..part.num_lists() {
                let q = match repeated.next_if(|&(list, _)| list as usize == i) {
                    Some((_, q)) => q,
                    None => {
                        next += 1;
                        next - 1
                    }
                };
                if !spanning.get(q as usize) {
                    bytes.extend_from_slice(&part.bytes[part.byte_range(i)]);
                    ends.extend_from_slice(&part.ends[part.range(i)]);
                    grades.extend_from_slice(&part.grades[part.range(i)]);
                    continue;
                }
                for e in part.range(i) {
                    let pushed = gather.push(
                        queries.resolve(q),
                        part.doc(i, e),
                        part.grades[e],
                        part.origins.get(e).saturating_add(part.offset),
                        false,
                    );
                    debug_assert!(pushed.is_ok(), "these entries were pushed once already");
                }
            }
            // Conflicts of joined queries are looked for again, over all
            // pieces.
            for conflict in part.conflicts {
                let q = queries.get(conflict.query_name.as_bytes());
                if q.is_some_and(|q| !spanning.get(q as usize)) {
                    keep_first(conflict, part.offset);
                }
            }
        }
        let mut joined_lists = Vec::new();
        let mut joined: ListStore<Grade> = ListStore::default();
        if any_spanning {
            // Each joined query's judgements in input order, so that
            // repeats resolve as in one builder.
            let mut entries: Vec<(u32, u64, u32, usize)> = Vec::with_capacity(gather.num_entries());
            for (b, block) in gather.lists.iter().enumerate() {
                let q = queries
                    .get(gather.queries.resolve(block.query))
                    .unwrap_or(u32::MAX);
                entries.extend(
                    (0..block.len).map(|i| (q, gather.origins.get(block.start + i), b as u32, i)),
                );
            }
            entries.sort_unstable();
            for &(_, origin, b, i) in &entries {
                let block = gather.lists[b as usize];
                let pushed = joined.push(
                    gather.queries.resolve(block.query),
                    gather.doc(&block, i),
                    gather.values[block.start + i],
                    origin,
                    false,
                );
                debug_assert!(pushed.is_ok(), "these entries were pushed once already");
            }
            drop(entries);
            drop(gather);
            let conflicts = match joined.finish_in_place(&QrelsRules) {
                Ok(conflicts) => conflicts,
                Err(FinishError::Repeat(e)) => vec![e],
                Err(FinishError::MixedOrdering { .. }) => {
                    unreachable!("qrels entries are never pushed as ranked")
                }
            };
            for mut conflict in conflicts {
                conflict.query_name = joined.query_name(conflict.query);
                keep_first(conflict, 0);
            }
            for (l, list) in joined.lists.iter().enumerate() {
                if let Some(q) = queries.get(joined.queries.resolve(list.query)) {
                    joined_lists.push((q, l as u32));
                }
            }
            joined_lists.sort_unstable();
            joined.origins = Origins::default();
            joined.queries = Interner::new();
        }
        if let Some(conflict) = first_conflict {
            return Err(conflict_error(conflict));
        }
        Ok(Qrels {
            queries,
            starts,
            byte_starts,
            bytes,
            ends,
            grades,
            spanning: joined_lists,
            joined,
        })
    }
}

/// A growable set of small integers.
#[derive(Debug, Default)]
struct Bits(Vec<u64>);

impl Bits {
    fn set(&mut self, i: usize) {
        let word = i / 64;
        if word >= self.0.len() {
            self.0.resize(word + 1, 0);
        }
        self.0[word] |= 1 << (i % 64);
    }

    fn get(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
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

    /// Judgements are put in ideal order (equal grades keep their input
    /// order), so that the grade column is also the ideal grades.
    fn sorts(&self, _list: &List) -> bool {
        true
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
        self.starts.len() - 1
    }

    /// Number of judgements.
    pub fn num_judgements(&self) -> usize {
        self.grades.len()
            + self
                .spanning
                .iter()
                .map(|&(_, l)| self.joined.lists[l as usize].len)
                .sum::<usize>()
    }

    /// The query ids, in order of first appearance.
    pub fn queries(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.num_queries() as u32).map(|q| self.query_name(q))
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

    /// The judgements of query `index`.
    #[inline]
    pub(crate) fn judged(&self, index: u32) -> Judged<'_> {
        let q = index as usize;
        let (start, end) = (self.starts[q] as usize, self.starts[q + 1] as usize);
        if start == end
            && let Ok(at) = self.spanning.binary_search_by_key(&index, |&(q, _)| q)
        {
            let list: List = self.joined.lists[self.spanning[at].1 as usize];
            let range = list.start..list.start + list.len;
            return Judged {
                bytes: &self.joined.bytes[list.byte_start..],
                ends: &self.joined.ends[range.clone()],
                grades: &self.joined.values[range],
            };
        }
        Judged {
            bytes: &self.bytes[self.byte_starts[q] as usize..],
            ends: &self.ends[start..end],
            grades: &self.grades[start..end],
        }
    }

    /// Every grade judged for the query `index`, in descending order.
    pub fn ideal_grades(&self, index: u32) -> &[Grade] {
        self.judged(index).grades
    }

    /// The grade of `doc` for query `index`, if it is judged: a scan of the
    /// query's judgements (the engine judges whole lists another way).
    pub fn grade(&self, index: u32, doc: &[u8]) -> Option<Grade> {
        let judged = self.judged(index);
        (0..judged.len())
            .find(|&i| judged.doc(i) == doc)
            .map(|i| judged.grades[i])
    }

    /// The judged documents of query `index` with their grades, in ideal
    /// order: grade descending, equal grades in input order (for inputs
    /// that are pairs, as training interactions, whose use is order-free).
    pub fn judgements(&self, index: u32) -> impl ExactSizeIterator<Item = (&[u8], Grade)> + '_ {
        let judged = self.judged(index);
        (0..judged.len()).map(move |i| (judged.doc(i), judged.grades[i]))
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
    fn judgements_are_kept_in_ideal_order_and_still_found() {
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
