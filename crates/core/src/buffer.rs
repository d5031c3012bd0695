//! One query's scored entries, collected while a run is read and judged in
//! place, again and again, with no allocation once the buffers have grown.
//!
//! A reader that evaluates a run grouped by query pushes each query's lines
//! here; when the next query starts, [`Judge::judge_buffer`] resolves
//! repeated documents, orders the list and looks up every grade in one pass,
//! with the same results as [`RunBuilder::finish`] followed by
//! [`Judge::judge`].
//!
//! [`Judge::judge_buffer`]: crate::Judge::judge_buffer
//! [`Judge::judge`]: crate::Judge::judge

use crate::error::RunError;
use crate::lists::same_bytes;
use crate::run::{RunBuilder, refuse_nan};

/// A score written as a plain decimal: `mantissa / 10^places`, with the
/// sign apart so that `-0` stays `-0.0`. Readers that parse decimals
/// themselves give scores so, which spares a division per line: a list
/// whose scores all have the same number of places is ordered by the
/// integers, which order exactly as the `f64` values do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decimal {
    mantissa: u64,
    places: u8,
    negative: bool,
}

/// Powers of ten that are exact in an `f64`.
const POWERS_OF_TEN: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// The largest mantissa a [`Decimal`] holds: 15 digits.
const MAX_MANTISSA: u64 = 999_999_999_999_999;

impl Decimal {
    /// `±mantissa / 10^places`, if the mantissa has at most 15 digits and
    /// `places <= 15`: then [`value`](Self::value) is exact arithmetic.
    #[inline]
    pub fn new(negative: bool, mantissa: u64, places: u8) -> Option<Self> {
        (mantissa <= MAX_MANTISSA && places <= 15).then_some(Self {
            mantissa,
            places,
            negative,
        })
    }

    /// The `f64` nearest the decimal, as any correct parser gives it
    /// (Clinger's fast path: the mantissa and the power of ten are exact
    /// in an `f64`, so one division rounds correctly).
    #[inline]
    pub fn value(self) -> f64 {
        let value = self.mantissa as f64 / POWERS_OF_TEN[usize::from(self.places)];
        if self.negative { -value } else { value }
    }

    /// The signed mantissa: decimals with the same places order as these.
    #[inline]
    fn key(self) -> i64 {
        // At most 15 digits: no overflow.
        let magnitude = self.mantissa as i64;
        if self.negative { -magnitude } else { magnitude }
    }
}

/// One query's entries, in input order. See the module docs.
#[derive(Clone, Default)]
pub struct ListBuffer {
    query: Vec<u8>,
    /// Document ids, one after the other.
    bytes: Vec<u8>,
    /// End of each entry's document id in `bytes`.
    ends: Vec<u32>,
    /// The scores, once they are not all decimals with the same places.
    scores: Vec<f64>,
    /// While every score is a decimal with `places` places: the signed
    /// mantissas.
    fixed: Vec<i64>,
    /// `Some(places)` while the scores are kept in `fixed`.
    places: Option<u8>,
    /// Each entry's position (line number). Plain 64-bit values: the buffer
    /// holds one query at a time, so compact [`Origins`](crate::origins::Origins) would save nothing
    /// and cost a branch per pushed line.
    lines: Vec<u64>,
}

/// A buffer's scores, as [`ListBuffer::keys`] gives them.
pub(crate) enum Keys<'a> {
    /// Signed mantissas of decimals with the same places.
    Fixed(&'a [i64]),
    /// The scores.
    Float(&'a [f64]),
}

impl std::fmt::Debug for ListBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListBuffer")
            .field("query", &String::from_utf8_lossy(&self.query))
            .field("entries", &self.len())
            .finish_non_exhaustive()
    }
}

impl ListBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// The query of the entries, if there are any.
    pub fn query(&self) -> Option<&[u8]> {
        (!self.is_empty()).then_some(&self.query[..])
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The entries' document ids, in input order.
    pub fn docs(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let doc = &self.bytes[start..end as usize];
            start = end as usize;
            doc
        })
    }

    /// Whether the buffer holds entries of a query other than `query`.
    #[inline]
    pub fn holds_other_query(&self, query: &[u8]) -> bool {
        !self.is_empty() && !same_bytes(&self.query, query)
    }

    /// Adds `doc` with `score` at position `at`; every entry must be for the
    /// same query (see [`holds_other_query`](Self::holds_other_query)).
    #[inline]
    pub fn push_scored_at(
        &mut self,
        query: &[u8],
        doc: &[u8],
        score: f64,
        at: u64,
    ) -> Result<(), RunError> {
        refuse_nan(query, doc, score, at)?;
        self.start(query, at, None)?;
        self.keep_floats();
        self.scores.push(score);
        self.push_doc(doc, at)
    }

    /// [`push_scored_at`](Self::push_scored_at) for a score read as a
    /// plain decimal.
    #[inline]
    pub fn push_decimal_at(
        &mut self,
        query: &[u8],
        doc: &[u8],
        score: Decimal,
        at: u64,
    ) -> Result<(), RunError> {
        self.start(query, at, Some(score.places))?;
        if self.places == Some(score.places) {
            self.fixed.push(score.key());
        } else {
            self.keep_floats();
            self.scores.push(score.value());
        }
        self.push_doc(doc, at)
    }

    /// Adds consecutive entries of one query at once, as a table column
    /// holds them: `docs` is their document ids one after the other,
    /// `ends[i]` where id `i` ends in `docs`, `scores[i]` its score, and
    /// entry `i` is at position `first_at + i`. The same entries as one
    /// [`push_scored_at`](Self::push_scored_at) per entry, without a call
    /// and a copy per entry.
    ///
    /// # Panics
    ///
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
        if scores.is_empty() {
            return Ok(());
        }
        if let Some(i) = scores.iter().position(|s| s.is_nan()) {
            return Err(RunError::NanScore {
                query: crate::shorten_id(query),
                doc: String::new(),
                at: first_at.saturating_add(i as u64),
            });
        }
        self.start(query, first_at, None)?;
        self.keep_floats();
        let base = self.bytes.len();
        let too_large = || RunError::ListTooLarge { at: first_at };
        u32::try_from(base.saturating_add(docs.len())).map_err(|_| too_large())?;
        self.bytes.extend_from_slice(docs);
        // Within u32: every end is at most `docs.len()`, checked above.
        self.ends.extend(ends.map(|end| (base + end) as u32));
        self.scores.extend_from_slice(scores);
        self.lines
            .extend((0..scores.len() as u64).map(|i| first_at.saturating_add(i)));
        Ok(())
    }

    /// Takes `query` as the buffer's query if the buffer is empty, keeping
    /// scores as decimals of `places` places if given.
    #[inline]
    fn start(&mut self, query: &[u8], at: u64, places: Option<u8>) -> Result<(), RunError> {
        if self.is_empty() {
            if std::str::from_utf8(query).is_err() {
                return Err(RunError::QueryNotUtf8 { at });
            }
            self.query.clear();
            self.query.extend_from_slice(query);
            self.places = places;
        }
        debug_assert_eq!(self.query, query);
        Ok(())
    }

    /// Keeps the scores as `f64` from now on (a score of `-0` may become
    /// `0.0`, which orders the same).
    #[inline]
    fn keep_floats(&mut self) {
        if let Some(places) = self.places.take() {
            let power = POWERS_OF_TEN[usize::from(places)];
            self.scores.clear();
            self.scores.extend(self.fixed.iter().map(|&key| {
                let value = key.unsigned_abs() as f64 / power;
                if key < 0 { -value } else { value }
            }));
            self.fixed.clear();
        }
    }

    #[inline]
    fn push_doc(&mut self, doc: &[u8], at: u64) -> Result<(), RunError> {
        self.bytes.extend_from_slice(doc);
        let end = u32::try_from(self.bytes.len()).map_err(|_| RunError::ListTooLarge { at })?;
        self.ends.push(end);
        self.lines.push(at);
        Ok(())
    }

    /// Empties the buffer, keeping its memory.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
        self.scores.clear();
        self.fixed.clear();
        self.places = None;
        self.lines.clear();
    }

    /// Moves the entries out, as a builder (to join a query that continues
    /// in another chunk), leaving the buffer empty.
    pub fn take_builder(&mut self) -> RunBuilder {
        self.keep_floats();
        let mut builder = RunBuilder::with_capacity(self.len(), self.bytes.len());
        for i in 0..self.len() {
            // The entries were checked when pushed: this cannot fail.
            let _ = builder.push_scored_at(&self.query, self.doc(i), self.scores[i], self.lines[i]);
        }
        self.clear();
        builder
    }

    /// The document id of entry `i`.
    #[inline]
    pub(crate) fn doc(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }

    /// The scores, in the form they are kept.
    #[inline]
    pub(crate) fn keys(&self) -> Keys<'_> {
        match self.places {
            Some(_) => Keys::Fixed(&self.fixed),
            None => Keys::Float(&self.scores),
        }
    }

    /// The position of entry `i`.
    #[inline]
    pub(crate) fn line(&self, i: usize) -> u64 {
        self.lines[i]
    }

    /// The query id, whatever the entries.
    pub(crate) fn query_bytes(&self) -> &[u8] {
        &self.query
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything a buffer holds, entry by entry.
    fn entries(buffer: &ListBuffer) -> Vec<(Vec<u8>, f64, u64)> {
        let Keys::Float(scores) = buffer.keys() else {
            panic!("scores pushed as f64 are kept as f64");
        };
        (0..buffer.len())
            .map(|i| (buffer.doc(i).to_vec(), scores[i], buffer.line(i)))
            .collect()
    }

    #[test]
    fn pushing_contiguous_entries_is_pushing_them_one_by_one() {
        let docs = ["d3", "doc-10", "x", "d3", "long-document-id"];
        let scores = [0.5, -0.0, 2.25, 0.5, 1e-300];
        let mut one_by_one = ListBuffer::new();
        for (i, (doc, score)) in docs.iter().zip(scores).enumerate() {
            one_by_one
                .push_scored_at(b"q1", doc.as_bytes(), score, 7 + i as u64)
                .unwrap();
        }
        // In two pieces, as two runs of rows of one query in a table.
        let mut at_once = ListBuffer::new();
        for (from, to) in [(0, 2), (2, 5)] {
            let bytes: Vec<u8> = docs[from..to].concat().into_bytes();
            let ends = docs[from..to].iter().scan(0, |end, doc| {
                *end += doc.len();
                Some(*end)
            });
            let ends: Vec<usize> = ends.collect();
            at_once
                .push_scored_contiguous(
                    b"q1",
                    &bytes,
                    ends.into_iter(),
                    &scores[from..to],
                    7 + from as u64,
                )
                .unwrap();
        }
        assert_eq!(at_once.query(), Some(&b"q1"[..]));
        assert_eq!(entries(&at_once), entries(&one_by_one));
        assert_eq!(entries(&at_once)[1].1.to_bits(), (-0.0f64).to_bits());
        // Nothing to push leaves an empty buffer empty.
        let mut empty = ListBuffer::new();
        empty
            .push_scored_contiguous(b"q1", b"", std::iter::empty(), &[], 1)
            .unwrap();
        assert!(empty.is_empty() && empty.query().is_none());
    }

    #[test]
    fn a_contiguous_nan_score_is_refused_at_its_position() {
        let mut buffer = ListBuffer::new();
        let error = buffer
            .push_scored_contiguous(b"q1", b"ab", [1, 2].into_iter(), &[1.0, f64::NAN], 40)
            .unwrap_err();
        assert!(
            matches!(&error, RunError::NanScore { at: 41, query, .. } if query == "q1"),
            "{error:?}"
        );
        assert!(buffer.is_empty(), "nothing is kept of a refused push");
    }
}
