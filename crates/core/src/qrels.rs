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

use hashbrown::HashTable;

use crate::error::{QrelsError, shorten_id};
use crate::grade::{Grade, check_grade};
use crate::grades::{Grades, GradesRef};
use crate::hash::hash_bytes;
use crate::id::Id;
use crate::interner::Interner;
use crate::lists::{FinishError, List, ListRules, ListStore, PushError, Repeat, RepeatError};
use crate::origins::Origins;

/// Judgements per query; built with a [`QrelsBuilder`], or from pieces
/// read in parallel with [`QrelsParts`].
#[derive(Clone, Debug)]
pub struct Qrels {
    /// The query ids, in order of first appearance.
    queries: Interner,
    /// Query `q`'s judgements are entries `starts[q]..starts[q + 1]` of the
    /// columns below (one more start than there are queries).
    starts: Vec<u32>,
    /// The document ids, one after the other.
    docs: Vec<u8>,
    /// The end of each judgement's document id in `docs`; it starts where
    /// the one before ends.
    doc_ends: Vec<u32>,
    /// The grade of each judgement.
    grades: Grades,
    /// The subtopic judgements of the same queries, when given (the
    /// diversity metrics read them through the judge).
    subtopics: Option<std::sync::Arc<crate::subtopics::SubtopicQrels>>,
    /// The document groups, when given (the group-fairness metrics'
    /// input).
    doc_groups: Option<std::sync::Arc<crate::doc_groups::DocumentGroups>>,
    /// Per-document facts some metric requires (label propensities, the
    /// documents judged for any query), read through the judge.
    documents: Option<std::sync::Arc<crate::context::DocumentContext>>,
}

/// One query's judgements, in input order: a view into the qrels.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Judged<'a> {
    /// Every document id of the qrels.
    bytes: &'a [u8],
    /// Where the first judgement's document id starts in `bytes`.
    first: usize,
    /// The end of each judgement's document id in `bytes`.
    ends: &'a [u32],
    /// The grades.
    grades: GradesRef<'a>,
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
        let start = if i == 0 {
            self.first
        } else {
            self.ends[i - 1] as usize
        };
        &self.bytes[start..self.ends[i] as usize]
    }

    /// The grade of judgement `i`.
    #[inline]
    pub(crate) fn grade(&self, i: usize) -> Grade {
        self.grades.get(i)
    }

    /// The document ids, in input order.
    #[inline]
    pub(crate) fn docs(self) -> impl ExactSizeIterator<Item = &'a [u8]> + 'a {
        let mut start = self.first;
        self.ends.iter().map(move |&end| {
            let doc = &self.bytes[start..end as usize];
            start = end as usize;
            doc
        })
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

    /// Checks for conflicting grades and lays the judgements out flat.
    pub fn finish(self) -> Result<Qrels, QrelsError> {
        let mut parts = QrelsParts::new();
        parts.push(self.finish_part(), 0);
        parts.finish()
    }

    /// Finishes these judgements as one piece of larger qrels (a block of
    /// lines of a file read in parallel), right where they were read: each
    /// query's judgements are grouped and checked for repeats now, and
    /// [`QrelsParts`] copies the piece into the qrels' columns, checking
    /// again only the queries that continue from one piece into another.
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
        // Packed here, in the task that parsed the piece: joining it is
        // then a copy of whole columns.
        let mut packed = QrelsParts::new();
        packed.push_store(store, conflicts);
        QrelsPart { packed, offset: 0 }
    }
}

/// One piece of qrels, finished on its own and packed in the columns of
/// [`Qrels`]; see [`QrelsBuilder::finish_part`].
#[derive(Debug)]
pub struct QrelsPart {
    /// The piece's judgements, with their positions within the piece.
    packed: QrelsParts,
    /// Added to the piece's positions to make them the input's.
    offset: u64,
}

/// Qrels read in pieces, in input order, each finished on its own.
///
/// Each piece is copied into the qrels' flat columns as soon as it is
/// given, and freed: the pieces of a large file are never all held at
/// once. A query that continues from one piece into the next (a piece
/// boundary inside its lines) is checked for repeats as it is continued;
/// a query whose lines come back after other queries' (a file not grouped
/// by query) is joined when the qrels are finished. The result, and the
/// error for conflicting grades, are the same as pushing every judgement
/// into one [`QrelsBuilder`].
#[derive(Debug, Default)]
pub struct QrelsParts {
    /// The query id of each list, one after the other: a list is a query's
    /// judgements from one or more consecutive pieces.
    names: Vec<u8>,
    /// The end of each list's query id in `names`.
    name_ends: Vec<u32>,
    /// Where each list's judgements start in the columns (a list ends
    /// where the next starts).
    starts: Vec<u32>,
    /// The columns of [`Qrels`].
    docs: Vec<u8>,
    doc_ends: Vec<u32>,
    grades: Grades,
    /// Where each judgement came from, for errors.
    origins: Origins,
    /// Conflicting grades found so far, each with its list.
    conflicts: Vec<(u32, RepeatError<Grade>)>,
    /// The judgements of the last list by document id (entry indices), once
    /// a piece continued it.
    open: HashTable<u32>,
    /// Whether `open` holds the last list's judgements.
    open_is_last: bool,
    /// Whether a column passed 2^32 entries or bytes.
    too_large: bool,
}

impl QrelsParts {
    /// No pieces yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether no judgement or query was added.
    pub fn is_empty(&self) -> bool {
        self.name_ends.is_empty()
    }

    /// Adds the next piece, whose positions are `position_offset` less
    /// than the input's: its columns are appended, and the piece freed.
    pub fn push(&mut self, part: QrelsPart, position_offset: u64) {
        let QrelsPart { packed, offset } = part;
        let offset = offset.saturating_add(position_offset);
        self.too_large |= packed.too_large;
        let num_lists = packed.name_ends.len();
        let entries = packed.doc_ends.len();
        // The end of list `l` of the piece.
        let list_end = |l: usize| {
            packed
                .starts
                .get(l + 1)
                .map_or(entries, |&start| start as usize)
        };
        let continued = num_lists > 0 && self.last_name() == Some(packed.name(0));
        if continued {
            let name = String::from_utf8_lossy(packed.name(0)).into_owned();
            let judgements = (0..list_end(0)).map(|e| {
                (
                    packed.doc(e),
                    packed.grades.get(e),
                    packed.origins.get(e).saturating_add(offset),
                )
            });
            self.continue_last(judgements, name);
        }
        let first = usize::from(continued);
        let list_base = self.name_ends.len() - first;
        if first < num_lists {
            self.open_is_last = false;
            // Whole columns from the first list not continued.
            let e0 = packed.starts[first] as usize;
            let b0 = if e0 == 0 {
                0
            } else {
                packed.doc_ends[e0 - 1] as usize
            };
            let n0 = if first == 0 {
                0
            } else {
                packed.name_ends[first - 1] as usize
            };
            let (entry_base, byte_base, name_base) =
                (self.doc_ends.len(), self.docs.len(), self.names.len());
            self.names.extend_from_slice(&packed.names[n0..]);
            let name_shift = self.narrow(name_base).wrapping_sub(n0 as u32);
            self.name_ends.extend(
                packed.name_ends[first..]
                    .iter()
                    .map(|&end| end.wrapping_add(name_shift)),
            );
            let entry_shift = self.narrow(entry_base).wrapping_sub(e0 as u32);
            self.starts.extend(
                packed.starts[first..]
                    .iter()
                    .map(|&start| start.wrapping_add(entry_shift)),
            );
            self.docs.extend_from_slice(&packed.docs[b0..]);
            let byte_shift = self.narrow(byte_base).wrapping_sub(b0 as u32);
            self.doc_ends.extend(
                packed.doc_ends[e0..]
                    .iter()
                    .map(|&end| end.wrapping_add(byte_shift)),
            );
            self.grades.append(&packed.grades, e0..entries);
            self.origins
                .append_range(&packed.origins, e0..entries, offset);
            // Past 4 GiB or 2^32 entries, the shifts above wrapped.
            self.narrow(self.docs.len());
            self.narrow(self.names.len());
            self.narrow(self.doc_ends.len());
        }
        // A continued list's conflicts were looked for again, over all of it.
        for (list, mut conflict) in packed.conflicts {
            if continued && list == 0 {
                continue;
            }
            conflict.first.1 = conflict.first.1.saturating_add(offset);
            conflict.second.1 = conflict.second.1.saturating_add(offset);
            self.conflicts
                .push(((list_base + list as usize) as u32, conflict));
        }
    }

    /// Appends the finished lists of `store` (one piece, the first given),
    /// with `conflicts` (by query of the store).
    fn push_store(&mut self, mut store: ListStore<Grade>, conflicts: Vec<RepeatError<Grade>>) {
        debug_assert!(self.is_empty());
        self.conflicts.extend(
            conflicts
                .into_iter()
                .map(|conflict| (conflict.query, conflict)),
        );
        if is_packed(&store) {
            // No repeat was dropped: the columns are taken as they are,
            // each list's ends made absolute in place.
            self.names.reserve_exact(store.queries.byte_len());
            self.name_ends.reserve_exact(store.lists.len());
            self.starts.reserve_exact(store.lists.len());
            for list in &store.lists {
                self.names
                    .extend_from_slice(store.queries.resolve(list.query));
                let name_end = self.narrow(self.names.len());
                self.name_ends.push(name_end);
                let start = self.narrow(list.start);
                self.starts.push(start);
                let base = self.narrow(list.byte_start);
                for end in &mut store.ends[list.start..list.start + list.len] {
                    *end = end.wrapping_add(base);
                }
            }
            self.narrow(store.bytes.len());
            self.docs = std::mem::take(&mut store.bytes);
            self.doc_ends = std::mem::take(&mut store.ends);
            self.grades.extend_from_slice(&store.values);
            self.origins = std::mem::take(&mut store.origins);
            return;
        }
        // Exact room: the columns never grow (and are never copied).
        let entries = store.lists.iter().map(|l| l.len).sum();
        self.names.reserve_exact(store.queries.byte_len());
        self.name_ends.reserve_exact(store.lists.len());
        self.starts.reserve_exact(store.lists.len());
        self.docs.reserve_exact(store.bytes.len());
        self.doc_ends.reserve_exact(entries);
        self.grades.reserve_exact(entries);
        self.origins = Origins::with_capacity(entries);
        // Finished lists are in the piece's query order.
        for list in &store.lists {
            self.names
                .extend_from_slice(store.queries.resolve(list.query));
            let name_end = self.narrow(self.names.len());
            self.name_ends.push(name_end);
            let start = self.narrow(self.doc_ends.len());
            self.starts.push(start);
            self.copy_list(&store, list, 0);
        }
    }

    /// The query id of list `l`.
    fn name(&self, l: usize) -> &[u8] {
        let start = if l == 0 {
            0
        } else {
            self.name_ends[l - 1] as usize
        };
        &self.names[start..self.name_ends[l] as usize]
    }

    /// The query id of the last list.
    fn last_name(&self) -> Option<&[u8]> {
        let last = self.name_ends.len().checked_sub(1)?;
        let start = match last {
            0 => 0,
            _ => self.name_ends[last - 1] as usize,
        };
        Some(&self.names[start..self.name_ends[last] as usize])
    }

    /// `n` as a 32-bit offset, noting when it does not fit.
    fn narrow(&mut self, n: usize) -> u32 {
        u32::try_from(n).unwrap_or_else(|_| {
            self.too_large = true;
            0
        })
    }

    /// Appends one judgement to the columns.
    #[inline]
    fn push_entry(&mut self, doc: &[u8], grade: Grade, origin: u64) {
        self.docs.extend_from_slice(doc);
        let end = self.narrow(self.docs.len());
        self.doc_ends.push(end);
        self.grades.push(grade);
        self.origins.push(origin);
    }

    /// Appends every judgement of `list` of `store`, a column at a time.
    fn copy_list(&mut self, store: &ListStore<Grade>, list: &List, offset: u64) {
        let entries = list.start..list.start + list.len;
        let bytes = match list.len {
            0 => 0,
            n => store.ends[list.start + n - 1] as usize,
        };
        let base = self.docs.len();
        self.docs
            .extend_from_slice(&store.bytes[list.byte_start..list.byte_start + bytes]);
        let base = self.narrow(base);
        self.narrow(self.docs.len());
        self.doc_ends.extend(
            store.ends[entries.clone()]
                .iter()
                .map(|&end| base.wrapping_add(end)),
        );
        self.grades
            .extend_from_slice(&store.values[entries.clone()]);
        self.origins.append_range(&store.origins, entries, offset);
    }

    /// The document id of entry `e` of the columns.
    #[inline]
    fn doc(&self, e: usize) -> &[u8] {
        let start = if e == 0 {
            0
        } else {
            self.doc_ends[e - 1] as usize
        };
        &self.docs[start..self.doc_ends[e] as usize]
    }

    /// Appends `list` of `store` to the last list (the same query, continued
    /// in this piece), as one builder would: a document judged again with
    /// the same grade is kept once, with another grade it is a conflict.
    fn continue_last<'a>(
        &mut self,
        judgements: impl Iterator<Item = (&'a [u8], Grade, u64)>,
        query_name: String,
    ) {
        let Some(&start) = self.starts.last() else {
            unreachable!("there is a last list")
        };
        if !self.open_is_last {
            // The first occurrence of each document, in input order.
            self.open.clear();
            for e in start as usize..self.doc_ends.len() {
                let doc = self.doc(e);
                let hash = hash_bytes(doc);
                if self
                    .open
                    .find(hash, |&other| self.doc(other as usize) == doc)
                    .is_none()
                {
                    let Self {
                        open,
                        docs,
                        doc_ends,
                        ..
                    } = self;
                    open.insert_unique(hash, e as u32, |&other| {
                        hash_bytes(doc_at(docs, doc_ends, other as usize))
                    });
                }
            }
            self.open_is_last = true;
        }
        let list_index = (self.name_ends.len() - 1) as u32;
        let mut conflict = None;
        for (doc, grade, origin) in judgements {
            let hash = hash_bytes(doc);
            let first = self
                .open
                .find(hash, |&other| self.doc(other as usize) == doc)
                .copied();
            match first {
                Some(first) => {
                    let first = first as usize;
                    let first_grade = self.grades.get(first);
                    if first_grade.to_bits() == grade.to_bits() {
                        continue;
                    }
                    if conflict.is_none() {
                        conflict = Some(RepeatError {
                            query: list_index,
                            query_name: String::new(),
                            doc: doc.to_vec(),
                            first: (first_grade, self.origins.get(first)),
                            second: (grade, origin),
                        });
                    }
                    // Kept as pushed: the qrels are refused anyway.
                    self.push_entry(doc, grade, origin);
                }
                None => {
                    let e = self.doc_ends.len() as u32;
                    self.push_entry(doc, grade, origin);
                    let Self {
                        open,
                        docs,
                        doc_ends,
                        ..
                    } = self;
                    open.insert_unique(hash, e, |&other| {
                        hash_bytes(doc_at(docs, doc_ends, other as usize))
                    });
                }
            }
        }
        if let Some(mut conflict) = conflict {
            conflict.query_name = query_name;
            self.conflicts.push((list_index, conflict));
        }
    }

    /// Joins the pieces into qrels; fails on the first conflicting grades
    /// in input order.
    pub fn finish(mut self) -> Result<Qrels, QrelsError> {
        self.open = HashTable::new();
        let entries = self.doc_ends.len();
        let end = self.narrow(entries);
        if self.too_large {
            return Err(QrelsError::TooLarge);
        }
        let names = std::mem::take(&mut self.names);
        let name_ends = std::mem::take(&mut self.name_ends);
        match Interner::from_distinct(names, name_ends) {
            Ok(queries) => {
                if let Some(conflict) = first_conflict(self.conflicts) {
                    return Err(conflict_error(conflict));
                }
                self.starts.push(end);
                Ok(Qrels::new(
                    queries,
                    self.starts,
                    self.docs,
                    self.doc_ends,
                    self.grades,
                ))
            }
            Err((names, name_ends)) => self.regroup(&names, &name_ends),
        }
    }

    /// Finishes qrels in which a query's lines come back after another
    /// query's: each query's lists joined in input order, repeats checked
    /// over all of them.
    fn regroup(self, names: &[u8], name_ends: &[u32]) -> Result<Qrels, QrelsError> {
        let num_lists = name_ends.len();
        let name = |l: usize| {
            let start = if l == 0 { 0 } else { name_ends[l - 1] as usize };
            &names[start..name_ends[l] as usize]
        };
        let range = |l: usize| {
            let end = self
                .starts
                .get(l + 1)
                .map_or(self.doc_ends.len(), |&e| e as usize);
            self.starts[l] as usize..end
        };
        let mut queries = Interner::new();
        // Per query its first list; per list the next list of its query.
        let mut first_list: Vec<u32> = Vec::new();
        let mut last_list: Vec<u32> = Vec::new();
        let mut next_list = vec![u32::MAX; num_lists];
        let mut query_of = Vec::with_capacity(num_lists);
        for l in 0..num_lists {
            let known = queries.len();
            let q = queries.intern(name(l));
            if q as usize == known {
                first_list.push(l as u32);
                last_list.push(l as u32);
            } else {
                next_list[last_list[q as usize] as usize] = l as u32;
                last_list[q as usize] = l as u32;
            }
            query_of.push(q);
        }
        let joined = |l: u32| {
            let q = query_of[l as usize] as usize;
            first_list[q] != last_list[q]
        };
        let mut conflicts: Vec<(u32, RepeatError<Grade>)> = self
            .conflicts
            .into_iter()
            .filter(|(l, _)| !joined(*l))
            .collect();
        let mut flat = QrelsParts::default();
        let mut seen: HashTable<u32> = HashTable::new();
        let doc = |e: usize| doc_at(&self.docs, &self.doc_ends, e);
        for (q, &first) in first_list.iter().enumerate() {
            let start = flat.doc_ends.len();
            flat.starts.push(start as u32);
            let mut l = first;
            if !joined(first) {
                for e in range(l as usize) {
                    flat.push_entry(doc(e), self.grades.get(e), 0);
                }
                continue;
            }
            seen.clear();
            let mut conflict = None;
            while l != u32::MAX {
                for e in range(l as usize) {
                    let (d, grade, origin) = (doc(e), self.grades.get(e), self.origins.get(e));
                    let hash = hash_bytes(d);
                    match seen
                        .find(hash, |&other| flat.doc(other as usize) == d)
                        .copied()
                    {
                        Some(other) => {
                            let other = other as usize;
                            let first_grade = flat.grades.get(other);
                            if first_grade.to_bits() != grade.to_bits() && conflict.is_none() {
                                conflict = Some(RepeatError {
                                    query: q as u32,
                                    query_name: String::from_utf8_lossy(queries.resolve(q as u32))
                                        .into_owned(),
                                    doc: d.to_vec(),
                                    first: (first_grade, flat.origins.get(other)),
                                    second: (grade, origin),
                                });
                            }
                        }
                        None => {
                            let at = flat.doc_ends.len() as u32;
                            flat.push_entry(d, grade, origin);
                            let QrelsParts { docs, doc_ends, .. } = &flat;
                            seen.insert_unique(hash, at, |&other| {
                                hash_bytes(doc_at(docs, doc_ends, other as usize))
                            });
                        }
                    }
                }
                l = next_list[l as usize];
            }
            if let Some(conflict) = conflict {
                conflicts.push((first, conflict));
            }
        }
        if let Some(conflict) = first_conflict(conflicts) {
            return Err(conflict_error(conflict));
        }
        let end = flat.narrow(flat.doc_ends.len());
        if flat.too_large {
            return Err(QrelsError::TooLarge);
        }
        flat.starts.push(end);
        Ok(Qrels::new(
            queries,
            flat.starts,
            flat.docs,
            flat.doc_ends,
            flat.grades,
        ))
    }
}

/// Whether a finished store's lists lie one after the other, from the
/// start to the end of its columns (no repeat was dropped).
fn is_packed(store: &ListStore<Grade>) -> bool {
    let (mut entry, mut byte) = (0, 0);
    for list in &store.lists {
        if list.start != entry || list.byte_start != byte {
            return false;
        }
        entry += list.len;
        byte += match list.len {
            0 => 0,
            n => store.ends[list.start + n - 1] as usize,
        };
    }
    entry == store.values.len() && byte == store.bytes.len() && entry == store.origins.len()
}

/// The document id of entry `e` of flat columns.
#[inline]
fn doc_at<'a>(docs: &'a [u8], doc_ends: &[u32], e: usize) -> &'a [u8] {
    let start = if e == 0 { 0 } else { doc_ends[e - 1] as usize };
    &docs[start..doc_ends[e] as usize]
}

/// The conflict whose second judgement comes first in the input.
fn first_conflict(conflicts: Vec<(u32, RepeatError<Grade>)>) -> Option<RepeatError<Grade>> {
    conflicts
        .into_iter()
        .map(|(_, conflict)| conflict)
        .min_by_key(|conflict| conflict.second.1)
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
    /// Qrels from finished columns; room reserved beyond them is given back.
    fn new(
        queries: Interner,
        mut starts: Vec<u32>,
        mut docs: Vec<u8>,
        mut doc_ends: Vec<u32>,
        mut grades: Grades,
    ) -> Self {
        debug_assert_eq!(starts.len(), queries.len() + 1);
        starts.shrink_to_fit();
        docs.shrink_to_fit();
        doc_ends.shrink_to_fit();
        grades.shrink_to_fit();
        Self {
            queries,
            starts,
            docs,
            doc_ends,
            grades,
            subtopics: None,
            doc_groups: None,
            documents: None,
        }
    }

    /// These qrels with `subtopics`, the subtopic judgements of their
    /// queries: the judge then hands each query's to the metrics
    /// ([`JudgedRanking::subtopics`](crate::JudgedRanking::subtopics)).
    pub fn with_subtopics(
        mut self,
        subtopics: std::sync::Arc<crate::subtopics::SubtopicQrels>,
    ) -> Self {
        self.subtopics = Some(subtopics);
        self
    }

    /// The subtopic judgements, if given.
    pub fn subtopics(&self) -> Option<&crate::subtopics::SubtopicQrels> {
        self.subtopics.as_deref()
    }

    /// These qrels with `groups`, the groups of documents: the judge then
    /// hands each ranked document's groups to the metrics
    /// ([`JudgedRanking::groups`](crate::JudgedRanking::groups)).
    pub fn with_doc_groups(
        mut self,
        groups: std::sync::Arc<crate::doc_groups::DocumentGroups>,
    ) -> Self {
        self.doc_groups = Some(groups);
        self
    }

    /// The document groups, if given.
    pub fn doc_groups(&self) -> Option<&crate::doc_groups::DocumentGroups> {
        self.doc_groups.as_deref()
    }

    /// Query `query`'s judged documents, each as its place among the
    /// documents of `groups` ([`GroupRanking::NONE`](crate::GroupRanking::NONE)
    /// if it has no group) and its grade, in the qrels' order, into `out`.
    pub fn judged_groups_into(
        &self,
        query: u32,
        groups: &crate::doc_groups::DocumentGroups,
        out: &mut Vec<(u32, crate::Grade)>,
    ) {
        out.clear();
        let judged = self.judged(query);
        out.extend((0..judged.len()).map(|j| {
            (
                groups
                    .position(judged.doc(j))
                    .unwrap_or(crate::GroupRanking::NONE),
                judged.grade(j),
            )
        }));
    }

    /// These qrels with `documents`, per-document facts built over them
    /// ([`DocumentContext::build`](crate::DocumentContext::build)): the
    /// judge then looks each ranked document up and hands the view to the
    /// metrics ([`JudgedRanking::documents`](crate::JudgedRanking::documents)).
    /// An empty context is not attached.
    pub fn with_documents(
        mut self,
        documents: std::sync::Arc<crate::context::DocumentContext>,
    ) -> Self {
        self.documents = (!documents.is_empty()).then_some(documents);
        self
    }

    /// The per-document facts, if attached.
    #[inline]
    pub fn documents(&self) -> Option<&crate::context::DocumentContext> {
        self.documents.as_deref()
    }

    /// Number of queries with at least one judgement.
    pub fn num_queries(&self) -> usize {
        self.queries.len()
    }

    /// Number of judgements.
    pub fn num_judgements(&self) -> usize {
        self.doc_ends.len()
    }

    /// The query ids, in order of first appearance.
    pub fn queries(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.queries.len() as u32).map(|q| self.query_name(q))
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

    /// The judgements of query `index`, in input order.
    #[inline]
    pub(crate) fn judged(&self, index: u32) -> Judged<'_> {
        let start = self.starts[index as usize] as usize;
        let end = self.starts[index as usize + 1] as usize;
        Judged {
            bytes: &self.docs,
            first: if start == 0 {
                0
            } else {
                self.doc_ends[start - 1] as usize
            },
            ends: &self.doc_ends[start..end],
            grades: self.grades.slice(start, end),
        }
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
        ideal.clear();
        self.judged(index).grades.extend_into(ideal);
        sort_descending(ideal, counts);
    }

    /// The grade of `doc` for query `index`, if it is judged: a scan of the
    /// query's judgements (the engine judges whole lists another way).
    pub fn grade(&self, index: u32, doc: &[u8]) -> Option<Grade> {
        let judged = self.judged(index);
        judged
            .docs()
            .position(|d| d == doc)
            .map(|i| judged.grade(i))
    }

    /// The judged documents of query `index` with their grades, in input
    /// order (repeats left out).
    pub fn judgements(&self, index: u32) -> impl ExactSizeIterator<Item = (&[u8], Grade)> + '_ {
        let judged = self.judged(index);
        (0..judged.len()).map(move |i| (judged.doc(i), judged.grade(i)))
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
            let mut pieces = 0;
            for (i, (query, doc, grade)) in lines.iter().enumerate() {
                let line = i as u64 + 1;
                whole
                    .push_at(query.as_bytes(), doc.as_bytes(), *grade, line)
                    .unwrap();
                piece
                    .push_at(query.as_bytes(), doc.as_bytes(), *grade, line - piece_start)
                    .unwrap();
                if next(10) == 0 {
                    pieces += 1;
                    parts.push(std::mem::take(&mut piece).finish_part(), piece_start);
                    piece_start = line;
                }
            }
            parts.push(piece.finish_part(), piece_start);
            pieces += 1;
            let expected = observed(whole.finish(), &docs);
            conflicts += usize::from(expected.contains("twice"));
            joined += usize::from(pieces > 1);
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
