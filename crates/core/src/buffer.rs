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
