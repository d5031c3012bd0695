//! Qrels: the graded judgements of documents, per query.
//!
//! Each query's judgements are stored in ideal order (grade descending;
//! equal grades in input order), so that the ideal grades nDCG needs and the
//! relevant count `|R|` at any threshold are read off one contiguous slice.
//! The engine's [`Judge`](crate::Judge) finds grades through a small hash
//! table per query, which stays in the CPU cache.

use std::cmp::Ordering;

use crate::error::QrelsError;
use crate::id::Id;
use crate::judge::Grade;
use crate::lists::{FinishError, List, ListRules, ListStore, PushError, Repeat};

/// Judgements per query; built with a [`QrelsBuilder`].
#[derive(Clone, Debug)]
pub struct Qrels {
    pub(crate) store: ListStore<Grade>,
}

/// Collects judgements in any order; [`finish`](QrelsBuilder::finish) checks
/// and indexes them.
///
/// The same judgement given twice is kept once; the same document judged
/// twice for one query with two grades is an error.
#[derive(Clone, Debug, Default)]
pub struct QrelsBuilder {
    store: ListStore<Grade>,
    pushed: u32,
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

    /// Judges `doc` with `grade` for `query`.
    pub fn push(&mut self, query: impl Id, doc: impl Id, grade: i64) -> Result<(), QrelsError> {
        self.pushed = self.pushed.saturating_add(1);
        let at = self.pushed;
        query.with_bytes(|q| doc.with_bytes(|d| self.push_at(q, d, grade, at)))
    }

    /// Gives `query` a place in the qrels even with no judgement: the query
    /// counts, with no relevant document. `at` is the position errors name.
    pub fn declare_query(&mut self, query: &[u8], at: u32) -> Result<(), QrelsError> {
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
        grade: i64,
        at: u32,
    ) -> Result<(), QrelsError> {
        let grade = match Grade::try_from(grade) {
            Ok(g) if g != Grade::MIN => g,
            _ => return Err(QrelsError::GradeOutOfRange { grade, at }),
        };
        self.store
            .push(query, doc, grade, at, false)
            .map_err(|e| push_error(e, at))
    }

    /// Moves `other`'s judgements after this builder's, adding
    /// `position_offset` to their positions.
    pub fn append(&mut self, other: QrelsBuilder, position_offset: u32) {
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

    /// Checks for conflicting grades and puts each query's judgements in
    /// ideal order.
    pub fn finish(self) -> Result<Qrels, QrelsError> {
        let store = self.store.finish(&QrelsRules).map_err(|e| match e {
            FinishError::Repeat(e) => QrelsError::ConflictingGrades {
                query: e.query_name,
                doc: String::from_utf8_lossy(&e.doc).into_owned(),
                first_grade: e.first.0,
                first: e.first.1,
                second_grade: e.second.0,
                second: e.second.1,
            },
            FinishError::MixedOrdering { .. } => {
                unreachable!("qrels entries are never pushed as ranked")
            }
        })?;
        Ok(Qrels { store })
    }
}

fn push_error(error: PushError, at: u32) -> QrelsError {
    match error {
        PushError::QueryNotUtf8 => QrelsError::QueryNotUtf8 { at },
        PushError::ListTooLarge => QrelsError::ListTooLarge { at },
    }
}

struct QrelsRules;

impl ListRules<Grade> for QrelsRules {
    fn on_repeat(&self, first: Grade, second: Grade) -> Repeat {
        if first == second {
            Repeat::DropSecond
        } else {
            Repeat::Fail
        }
    }

    fn sorts(&self, _list: &List) -> bool {
        true
    }

    fn compare_values(&self, a: Grade, b: Grade) -> Ordering {
        b.cmp(&a)
    }

    fn compare_docs(&self, a: &[u8], b: &[u8]) -> Ordering {
        a.cmp(b)
    }

    const TIES_BY_DOC: bool = false;
}

impl Qrels {
    /// Number of queries with at least one judgement.
    pub fn num_queries(&self) -> usize {
        self.store.lists.len()
    }

    /// Number of judgements.
    pub fn num_judgements(&self) -> usize {
        self.store.lists.iter().map(|l| l.len).sum()
    }

    /// The query ids, in order of first appearance.
    pub fn queries(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.store.lists.len() as u32).map(|q| self.query_name(q))
    }

    /// The dense index of `query` (position in [`queries`](Self::queries)).
    pub fn query_index(&self, query: &[u8]) -> Option<u32> {
        self.store.queries.get(query)
    }

    /// The id of the query with dense index `index`.
    pub fn query_name(&self, index: u32) -> &str {
        std::str::from_utf8(self.store.queries.resolve(index)).unwrap_or("\u{fffd}")
    }

    /// Every grade judged for the query `index`, in descending order.
    pub fn ideal_grades(&self, index: u32) -> &[Grade] {
        let list = &self.store.lists[index as usize];
        &self.store.values[list.start..list.start + list.len]
    }

    /// The grade of `doc` for query `index`, if it is judged: a scan of the
    /// query's judgements (the engine judges whole lists another way).
    pub fn grade(&self, index: u32, doc: &[u8]) -> Option<Grade> {
        let list = &self.store.lists[index as usize];
        (0..list.len)
            .find(|&i| self.store.doc(list, i) == doc)
            .map(|i| self.store.values[list.start + i])
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
        assert_eq!(qrels.grade_of("q1", "a"), Some(1));
        assert_eq!(qrels.grade_of("q2", "a"), Some(3));
        assert_eq!(qrels.grade_of("q1", "c"), Some(-1));
        assert_eq!(qrels.grade_of("q2", "b"), None);
        assert_eq!(qrels.grade_of("q3", "a"), None);
        let q1 = qrels.query_index(b"q1").unwrap();
        assert_eq!(qrels.ideal_grades(q1), [2, 1, 0, -1]);
    }

    #[test]
    fn grade_lookups_agree_with_a_map() {
        let mut expected = std::collections::HashMap::new();
        let mut b = QrelsBuilder::new();
        for i in 0..500u64 {
            let (query, doc, grade) = (
                i % 7,
                format!("doc{}", i * 37 % 211),
                (i * 13 % 9) as i64 - 2,
            );
            if expected.insert((query, doc.clone()), grade).is_none() {
                b.push(query, &doc, grade).unwrap();
            }
        }
        let qrels = b.finish().unwrap();
        for query in 0..8u64 {
            for d in 0..220 {
                let doc = format!("doc{d}");
                let want = expected.get(&(query, doc.clone())).map(|&g| g as i32);
                assert_eq!(qrels.grade_of(query, &doc), want, "{query} {doc}");
            }
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
                first_grade: 1,
                first: 1,
                second_grade: 2,
                second: 2
            }
        );
    }

    #[test]
    fn grades_outside_i32_are_refused() {
        let mut b = QrelsBuilder::new();
        assert!(matches!(
            b.push("q", "d", i64::from(i32::MAX) + 1),
            Err(QrelsError::GradeOutOfRange { .. })
        ));
        assert!(matches!(
            b.push("q", "d", i64::from(i32::MIN)),
            Err(QrelsError::GradeOutOfRange { .. })
        ));
    }
}
