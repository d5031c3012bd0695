//! Subtopic judgements: which documents are relevant to which subtopic
//! (intent, aspect, nugget) of a query, the input of the diversity metrics
//! (alpha-nDCG, ERR-IA, NRBP, ... as the TREC Web track's `ndeval`
//! computes them).
//!
//! A line of subtopic qrels is `query subtopic document grade` (ndeval's
//! qrels). They are kept beside the ordinary qrels ([`Qrels::with_subtopics`](crate::Qrels::with_subtopics)),
//! and the judge looks each ranked document up in its query's subtopic
//! judgements ([`SubtopicRanking`]), so every path that judges a list
//! (whole runs, `explain`) hands them to the metrics that read them.
//!
//! Order matters for the last bits of the metrics' sums, so it is fixed:
//! a query's subtopics are in order of first appearance in the input (as
//! pyndeval numbers them), its documents in byte order of their ids (as
//! ndeval sorts them, `strcmp`).

use std::collections::HashMap;

use crate::error::QrelsError;
use crate::grade::{Grade, check_grade};

/// Every query's subtopic judgements.
#[derive(Clone, Debug, Default)]
pub struct SubtopicQrels {
    queries: HashMap<Box<[u8]>, QuerySubtopics>,
    judgements: usize,
    repeats: usize,
}

impl SubtopicQrels {
    /// `query`'s subtopic judgements, if the qrels have any.
    pub fn query(&self, query: &[u8]) -> Option<&QuerySubtopics> {
        self.queries.get(query)
    }

    /// The number of queries.
    pub fn num_queries(&self) -> usize {
        self.queries.len()
    }

    /// The number of judgements kept (a repeated one counts once).
    pub fn num_judgements(&self) -> usize {
        self.judgements
    }

    /// How many judgements repeated an earlier one with the same grade
    /// (kept once, counted here so that nothing is left out silently).
    pub fn repeats(&self) -> usize {
        self.repeats
    }

    /// The query ids, in byte order.
    pub fn query_ids(&self) -> Vec<&[u8]> {
        let mut ids: Vec<&[u8]> = self.queries.keys().map(|q| &**q).collect();
        ids.sort_unstable();
        ids
    }

    /// Qrels of documents, for an experiment given subtopic judgements
    /// alone: each judged document with its highest grade over the
    /// subtopics (relevant to the query when relevant to any subtopic, as
    /// ndeval's non-intent-aware MAP counts it); queries and documents in
    /// byte order.
    pub fn document_qrels(&self) -> Result<crate::Qrels, QrelsError> {
        let mut builder = crate::QrelsBuilder::new();
        let mut at = 0u64;
        for query in self.query_ids() {
            let Some(judged) = self.query(query) else {
                continue;
            };
            for d in 0..judged.num_docs() as u32 {
                let grade = judged
                    .judgements(d)
                    .iter()
                    .map(|&(_, g)| g)
                    .fold(f64::NEG_INFINITY, f64::max);
                at += 1;
                if let Some(doc) = judged.doc_id(d) {
                    builder.push_at(query, doc, grade, at)?;
                }
            }
        }
        builder.finish()
    }
}

/// One query's subtopic judgements.
#[derive(Clone, Debug, Default)]
pub struct QuerySubtopics {
    /// The subtopic ids, in order of first appearance in the input.
    subtopics: Vec<Box<[u8]>>,
    /// The judged documents, in byte order of their ids.
    docs: Vec<Box<[u8]>>,
    /// A document's place in `docs`.
    index: HashMap<Box<[u8]>, u32>,
    /// Document `d`'s judgements are `judgements[starts[d]..starts[d + 1]]`.
    starts: Vec<u32>,
    /// `(subtopic, grade)`, each document's by subtopic.
    judgements: Vec<(u32, Grade)>,
}

impl QuerySubtopics {
    /// The number of subtopics named in the query's judgements (some may
    /// have no relevant document).
    pub fn num_subtopics(&self) -> usize {
        self.subtopics.len()
    }

    /// Subtopic `s`'s id.
    pub fn subtopic_id(&self, s: u32) -> Option<&[u8]> {
        self.subtopics.get(s as usize).map(|s| &**s)
    }

    /// The number of judged documents.
    pub fn num_docs(&self) -> usize {
        self.docs.len()
    }

    /// Document `d`'s id (documents in byte order of their ids).
    pub fn doc_id(&self, d: u32) -> Option<&[u8]> {
        self.docs.get(d as usize).map(|d| &**d)
    }

    /// Where document `doc` is among the judged documents.
    pub fn position(&self, doc: &[u8]) -> Option<u32> {
        self.index.get(doc).copied()
    }

    /// Document `d`'s judgements, `(subtopic, grade)` by subtopic (empty
    /// for a position past the documents).
    pub fn judgements(&self, d: u32) -> &[(u32, Grade)] {
        let d = d as usize;
        match (self.starts.get(d), self.starts.get(d + 1)) {
            (Some(&start), Some(&end)) => self
                .judgements
                .get(start as usize..end as usize)
                .unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// One query's ranked list seen through its subtopic judgements: for each
/// judged rank, the document's place among the query's judged documents
/// ([`QuerySubtopics`]), or [`SubtopicRanking::UNJUDGED`].
#[derive(Clone, Copy, Debug)]
pub struct SubtopicRanking<'a> {
    query: &'a QuerySubtopics,
    ranked: &'a [u32],
}

impl<'a> SubtopicRanking<'a> {
    /// A ranked document with no subtopic judgement.
    pub const UNJUDGED: u32 = u32::MAX;

    /// The view of `ranked` (document places, best first) on `query`.
    pub fn new(query: &'a QuerySubtopics, ranked: &'a [u32]) -> Self {
        SubtopicRanking { query, ranked }
    }

    /// The query's subtopic judgements.
    pub fn query(&self) -> &'a QuerySubtopics {
        self.query
    }

    /// Each judged rank's document place (or [`Self::UNJUDGED`]).
    pub fn ranked(&self) -> &'a [u32] {
        self.ranked
    }
}

/// One query's judgements while built: per `(subtopic order, document)`,
/// the grade and where it was given.
type Building = HashMap<(u32, Box<[u8]>), (Grade, u64)>;

/// Builds [`SubtopicQrels`] from `(query, subtopic, document, grade)`
/// judgements, each with its position (line or row) for messages.
#[derive(Debug, Default)]
pub struct SubtopicQrelsBuilder {
    /// Every subtopic id's place in order of first appearance.
    subtopic_order: HashMap<Box<[u8]>, u32>,
    /// Per query: per `(subtopic order, document)`, the grade and where it
    /// was given.
    queries: HashMap<Box<[u8]>, Building>,
    repeats: usize,
}

impl SubtopicQrelsBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one judgement given at `at`. The same judgement given twice
    /// with the same grade is kept once and counted
    /// ([`SubtopicQrels::repeats`]); with another grade it is an error
    /// naming both positions.
    pub fn push(
        &mut self,
        query: &[u8],
        subtopic: &[u8],
        doc: &[u8],
        grade: f64,
        at: u64,
    ) -> Result<(), QrelsError> {
        let grade =
            check_grade(grade).map_err(|reason| QrelsError::InvalidGrade { grade, reason, at })?;
        if std::str::from_utf8(query).is_err() {
            return Err(QrelsError::QueryNotUtf8 { at });
        }
        let next = self.subtopic_order.len() as u32;
        let order = *self.subtopic_order.entry(subtopic.into()).or_insert(next);
        let judged = self.queries.entry(query.into()).or_default();
        match judged.entry((order, doc.into())) {
            std::collections::hash_map::Entry::Occupied(first) => {
                let &(first_grade, first_at) = first.get();
                if first_grade.to_bits() == grade.to_bits() {
                    self.repeats += 1;
                    Ok(())
                } else {
                    Err(QrelsError::ConflictingGrades {
                        query: crate::shorten_id(query),
                        doc: format!(
                            "{}` for subtopic `{}",
                            crate::shorten_id(doc),
                            crate::shorten_id(subtopic)
                        ),
                        first_grade,
                        first: first_at,
                        second_grade: grade,
                        second: at,
                    })
                }
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert((grade, at));
                Ok(())
            }
        }
    }

    /// The judgements, each query's documents and subtopics in their fixed
    /// orders (see the [module docs](self)).
    pub fn finish(self) -> Result<SubtopicQrels, QrelsError> {
        let mut judgements = 0;
        let mut queries = HashMap::with_capacity(self.queries.len());
        for (query, judged) in self.queries {
            judgements += judged.len();
            let mut entries: Vec<_> = judged.into_iter().collect();
            // By document, then by subtopic order.
            entries.sort_unstable_by(|a, b| a.0.1.cmp(&b.0.1).then(a.0.0.cmp(&b.0.0)));
            // The query's subtopics, renumbered 0.. in global order.
            let mut orders: Vec<u32> = entries.iter().map(|e| e.0.0).collect();
            orders.sort_unstable();
            orders.dedup();
            let mut names: Vec<Box<[u8]>> = Vec::with_capacity(orders.len());
            let by_order: HashMap<u32, &[u8]> = self
                .subtopic_order
                .iter()
                .filter(|(_, o)| orders.binary_search(o).is_ok())
                .map(|(name, &o)| (o, &**name))
                .collect();
            for o in &orders {
                names.push(by_order.get(o).copied().unwrap_or_default().into());
            }
            let mut one = QuerySubtopics {
                subtopics: names,
                ..QuerySubtopics::default()
            };
            for ((order, doc), (grade, _)) in entries {
                let local = orders.binary_search(&order).unwrap_or_default() as u32;
                if one.docs.last().is_none_or(|last| *last != doc) {
                    let len =
                        u32::try_from(one.judgements.len()).map_err(|_| QrelsError::TooLarge)?;
                    one.starts.push(len);
                    one.index.insert(doc.clone(), one.docs.len() as u32);
                    one.docs.push(doc);
                }
                one.judgements.push((local, grade));
            }
            let len = u32::try_from(one.judgements.len()).map_err(|_| QrelsError::TooLarge)?;
            one.starts.push(len);
            queries.insert(query, one);
        }
        Ok(SubtopicQrels {
            queries,
            judgements,
            repeats: self.repeats,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_in_byte_order_subtopics_in_order_of_first_appearance() {
        let mut b = SubtopicQrelsBuilder::new();
        b.push(b"q0", b"b", b"D", 1.0, 1).unwrap();
        b.push(b"q1", b"z", b"A", 2.0, 2).unwrap();
        b.push(b"q0", b"a", b"A", 1.0, 3).unwrap();
        b.push(b"q0", b"b", b"B", 0.0, 4).unwrap();
        b.push(b"q0", b"b", b"D", 1.0, 5).unwrap();
        let s = b.finish().unwrap();
        assert_eq!(s.num_queries(), 2);
        assert_eq!(s.num_judgements(), 4);
        assert_eq!(s.repeats(), 1);
        let q = s.query(b"q0").unwrap();
        assert_eq!(q.num_subtopics(), 2);
        // `b` came first in the input: it is subtopic 0.
        assert_eq!(q.subtopic_id(0), Some(&b"b"[..]));
        assert_eq!(q.subtopic_id(1), Some(&b"a"[..]));
        assert_eq!(q.num_docs(), 3);
        assert_eq!(q.doc_id(0), Some(&b"A"[..]));
        assert_eq!(q.position(b"D"), Some(2));
        assert_eq!(q.judgements(0), &[(1, 1.0)]);
        assert_eq!(q.judgements(1), &[(0, 0.0)]);
        assert_eq!(q.judgements(2), &[(0, 1.0)]);
        assert_eq!(q.judgements(3), &[]);
        assert_eq!(q.position(b"E"), None);
        assert!(s.query(b"q2").is_none());
        assert_eq!(s.query_ids(), vec![&b"q0"[..], &b"q1"[..]]);
    }

    #[test]
    fn a_conflicting_repeat_and_a_bad_grade_are_errors_naming_their_positions() {
        let mut b = SubtopicQrelsBuilder::new();
        b.push(b"q", b"s", b"d", 1.0, 7).unwrap();
        let e = b.push(b"q", b"s", b"d", 2.0, 9).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("at 7") && text.contains("at 9"), "{text}");
        assert!(text.contains("subtopic `s`"), "{text}");
        let e = b.push(b"q", b"s", b"e", f64::NAN, 11).unwrap_err();
        assert!(e.to_string().contains("at 11"), "{e}");
        let e = b.push(b"q", b"s", b"e", f64::INFINITY, 12).unwrap_err();
        assert!(e.to_string().contains("at 12"), "{e}");
        let e = b.push(b"\xff", b"s", b"e", 1.0, 13).unwrap_err();
        assert!(e.to_string().contains("at 13"), "{e}");
    }
}
