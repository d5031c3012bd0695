//! The experiment's `ties` setting (how tied scores are treated) and the
//! groups of tied scores of a judged ranking; see [`crate::ties`]. It
//! depends on nothing else of the crate, so the run, the judged ranking and
//! the metric trait can all read it.

use std::fmt;
use std::ops::Range;

use serde::{Deserialize, Serialize};

/// How tied scores are treated. See the [module docs](crate::ties).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ties {
    /// Ties by document id, descending in byte order (trec_eval 10).
    #[default]
    Docid,
    /// Ties in the run's own order (file or given order).
    Input,
    /// The expected value over every order of each group of tied scores.
    Average,
}

impl Ties {
    /// Every value, in the order `--help` lists them.
    pub const ALL: [Ties; 3] = [Ties::Docid, Ties::Input, Ties::Average];

    /// The value's name, as in TOML and the short syntax.
    pub fn as_str(self) -> &'static str {
        match self {
            Ties::Docid => "docid",
            Ties::Input => "input",
            Ties::Average => "average",
        }
    }

    /// Whether tied documents are put in document id order (`docid`, and
    /// `average`, whose value does not depend on the order) rather than
    /// the input order.
    pub fn orders_by_doc(self) -> bool {
        self != Ties::Input
    }
}

impl fmt::Display for Ties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The groups of tied scores of a judged ranking, as half-open ranges of
/// ranks (0-based), best first; see
/// [`JudgedRanking::tie_groups`](crate::JudgedRanking::tie_groups).
#[derive(Clone, Debug)]
pub struct TieGroups<'a> {
    ends: &'a [u32],
    len: usize,
    next: usize,
    start: usize,
}

impl<'a> TieGroups<'a> {
    /// Groups ending at `ends` (exclusive, increasing, the last one
    /// `len`); with no ends, each of the `len` ranks is a group of its own.
    pub(crate) fn new(ends: &'a [u32], len: usize) -> Self {
        debug_assert!(ends.is_empty() || ends.last().map(|&e| e as usize) == Some(len));
        Self {
            ends,
            len,
            next: 0,
            start: 0,
        }
    }
}

impl Iterator for TieGroups<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        if self.start >= self.len {
            return None;
        }
        let end = if self.ends.is_empty() {
            self.start + 1
        } else {
            let end = self.ends[self.next] as usize;
            self.next += 1;
            end
        };
        let group = self.start..end;
        self.start = end;
        Some(group)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_without_ends_are_single_ranks() {
        assert_eq!(
            TieGroups::new(&[], 3).collect::<Vec<_>>(),
            [0..1, 1..2, 2..3]
        );
        assert_eq!(TieGroups::new(&[2, 5], 5).collect::<Vec<_>>(), [0..2, 2..5]);
        assert_eq!(TieGroups::new(&[], 0).count(), 0);
    }
}
