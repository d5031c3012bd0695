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
use crate::run::RunBuilder;

/// One query's entries, in input order. See the module docs.
#[derive(Clone, Default)]
pub struct ListBuffer {
    query: Vec<u8>,
    /// Document ids, one after the other.
    bytes: Vec<u8>,
    /// End of each entry's document id in `bytes`.
    ends: Vec<u32>,
    scores: Vec<f64>,
    /// Each entry's position (line number).
    lines: Vec<u32>,
}

impl std::fmt::Debug for ListBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListBuffer")
            .field("query", &String::from_utf8_lossy(&self.query))
            .field("entries", &self.scores.len())
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
        (!self.scores.is_empty()).then_some(&self.query[..])
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.scores.len()
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    /// Whether the buffer holds entries of a query other than `query`.
    #[inline]
    pub fn holds_other_query(&self, query: &[u8]) -> bool {
        !self.scores.is_empty() && !same_bytes(&self.query, query)
    }

    /// Adds `doc` with `score` at position `at`; every entry must be for the
    /// same query (see [`holds_other_query`](Self::holds_other_query)).
    #[inline]
    pub fn push_scored_at(
        &mut self,
        query: &[u8],
        doc: &[u8],
        score: f64,
        at: u32,
    ) -> Result<(), RunError> {
        if score.is_nan() {
            return Err(RunError::NanScore {
                query: String::from_utf8_lossy(query).into_owned(),
                doc: String::from_utf8_lossy(doc).into_owned(),
                at,
            });
        }
        if self.scores.is_empty() {
            if std::str::from_utf8(query).is_err() {
                return Err(RunError::QueryNotUtf8 { at });
            }
            self.query.clear();
            self.query.extend_from_slice(query);
        }
        debug_assert_eq!(self.query, query);
        self.bytes.extend_from_slice(doc);
        let end = u32::try_from(self.bytes.len()).map_err(|_| RunError::ListTooLarge { at })?;
        self.ends.push(end);
        self.scores.push(score);
        self.lines.push(at);
        Ok(())
    }

    /// Empties the buffer, keeping its memory.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
        self.scores.clear();
        self.lines.clear();
    }

    /// Moves the entries out, as a builder (to join a query that continues
    /// in another chunk), leaving the buffer empty.
    pub fn take_builder(&mut self) -> RunBuilder {
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

    /// The score of entry `i`.
    #[inline]
    pub(crate) fn score(&self, i: usize) -> f64 {
        self.scores[i]
    }

    /// The position of entry `i`.
    #[inline]
    pub(crate) fn line(&self, i: usize) -> u32 {
        self.lines[i]
    }

    /// The query id, whatever the entries.
    pub(crate) fn query_bytes(&self) -> &[u8] {
        &self.query
    }
}
