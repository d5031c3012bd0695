//! Document groups: which group (provider, region, gender of the subject,
//! ...) each document belongs to, and how much (its alignment weight), the
//! input of the group-fairness metrics (group exposure, AWRF: TREC Fair
//! Ranking 2021-2022).
//!
//! A row is `document, group[, weight]`; a document may belong to several
//! groups (TREC Fair 2021's pages have several geographic locations), each
//! with its weight (1 when not given). Groups are numbered in order of
//! first appearance in the input, so every sum over groups runs in one
//! fixed order; a document's groups are in that order too.

use std::collections::HashMap;

/// Why a row of document groups was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DocGroupsError {
    /// A weight that is not a finite number of at least 0.
    #[error("weight {weight} is not a weight: a weight must be a finite number >= 0 (at {at})")]
    InvalidWeight {
        /// The weight read.
        weight: f64,
        /// Where it was read (line or row).
        at: u64,
    },
    /// The same document and group given twice with different weights.
    #[error(
        "document `{doc}` is in group `{group}` twice with different weights: {first_weight} (at {first}) and {second_weight} (at {second})"
    )]
    ConflictingWeights {
        /// The document id (shortened).
        doc: String,
        /// The group id (shortened).
        group: String,
        /// The first weight.
        first_weight: f64,
        /// Where the first was given.
        first: u64,
        /// The second weight.
        second_weight: f64,
        /// Where the second was given.
        second: u64,
    },
    /// More groups or memberships than 32-bit positions hold.
    #[error("too many document groups (more than 2^32 - 1 groups or memberships)")]
    TooLarge,
}

/// Every document's groups: for each document, `(group, weight)` in the
/// groups' order of first appearance.
#[derive(Clone, Debug, Default)]
pub struct DocumentGroups {
    /// The group ids, in order of first appearance.
    groups: Vec<Box<[u8]>>,
    /// A document's place in `starts`.
    index: HashMap<Box<[u8]>, u32>,
    /// Document `d`'s memberships are `members[starts[d]..starts[d + 1]]`.
    starts: Vec<u32>,
    /// `(group, weight)`, each document's in group order.
    members: Vec<(u32, f64)>,
    repeats: usize,
    /// Each query's given target over the groups (AWRF's `target =
    /// given`), `(group, share)`, when given ([`Self::with_targets`]).
    targets: HashMap<Box<[u8]>, Vec<(u32, f64)>>,
}

impl DocumentGroups {
    /// The number of groups.
    pub fn num_groups(&self) -> usize {
        self.groups.len()
    }

    /// Group `g`'s id.
    pub fn group_id(&self, g: u32) -> Option<&[u8]> {
        self.groups.get(g as usize).map(|g| &**g)
    }

    /// The number of documents with a group.
    pub fn num_docs(&self) -> usize {
        self.index.len()
    }

    /// The number of memberships kept (a repeated row counts once).
    pub fn num_memberships(&self) -> usize {
        self.members.len()
    }

    /// How many rows repeated an earlier one with the same weight (kept
    /// once, counted here so that nothing is left out silently).
    pub fn repeats(&self) -> usize {
        self.repeats
    }

    /// Whether there are memberships and every one has weight 0: then no
    /// document counts in any group, and the group-fairness metrics have
    /// no exposure to compare (a file that is almost surely a mistake,
    /// said in a warning rather than scored 0 in silence).
    pub fn weightless(&self) -> bool {
        !self.members.is_empty() && self.members.iter().all(|&(_, weight)| weight == 0.0)
    }

    /// These groups with each query's given target over them
    /// ([`GroupTargets`](crate::GroupTargets)): a group of the targets in
    /// no document's groups is added, with no member (its exposure is 0).
    pub fn with_targets(mut self, targets: &crate::GroupTargets) -> Result<Self, DocGroupsError> {
        let mut ids: HashMap<Box<[u8]>, u32> = self
            .groups
            .iter()
            .enumerate()
            .map(|(g, id)| (id.clone(), g as u32))
            .collect();
        for query in targets.query_ids() {
            let mut resolved = Vec::new();
            for (group, share) in targets.query(query).unwrap_or(&[]) {
                let g = match ids.get(group) {
                    Some(&g) => g,
                    None => {
                        let g = u32::try_from(self.groups.len())
                            .map_err(|_| DocGroupsError::TooLarge)?;
                        self.groups.push(group.clone());
                        ids.insert(group.clone(), g);
                        g
                    }
                };
                resolved.push((g, *share));
            }
            self.targets.insert(query.into(), resolved);
        }
        Ok(self)
    }

    /// The target of `query` given by [`Self::with_targets`], `(group,
    /// share)`; `None` without one.
    pub fn target(&self, query: &[u8]) -> Option<&[(u32, f64)]> {
        self.targets.get(query).map(Vec::as_slice)
    }

    /// Whether per-query targets are given.
    pub fn has_targets(&self) -> bool {
        !self.targets.is_empty()
    }

    /// Document `doc`'s groups, `(group, weight)` in group order; empty for
    /// a document with no group.
    pub fn of(&self, doc: &[u8]) -> &[(u32, f64)] {
        match self.position(doc) {
            Some(d) => self.memberships(d),
            None => &[],
        }
    }

    /// Where document `doc` is among the documents with a group
    /// ([`memberships`](Self::memberships) takes it).
    pub fn position(&self, doc: &[u8]) -> Option<u32> {
        self.index.get(doc).copied()
    }

    /// The groups of the document at `d` ([`position`](Self::position)),
    /// `(group, weight)` in group order; empty for
    /// [`GroupRanking::NONE`] or a position past the documents.
    pub fn memberships(&self, d: u32) -> &[(u32, f64)] {
        let d = d as usize;
        match (self.starts.get(d), self.starts.get(d + 1)) {
            (Some(&start), Some(&end)) => self
                .members
                .get(start as usize..end as usize)
                .unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// One query's ranked list seen through the document groups: for each
/// judged rank, the document's place among the documents with a group
/// ([`DocumentGroups::position`], or [`GroupRanking::NONE`]); and for each
/// document the query's qrels judge, its place and grade (the
/// group-fairness metrics' targets are made from the relevant ones).
#[derive(Clone, Copy, Debug)]
pub struct GroupRanking<'a> {
    groups: &'a DocumentGroups,
    ranked: &'a [u32],
    judged: &'a [(u32, crate::Grade)],
    target: Option<&'a [(u32, f64)]>,
}

impl<'a> GroupRanking<'a> {
    /// A document with no group.
    pub const NONE: u32 = u32::MAX;

    /// The view of `ranked` (document places, best first) and of the
    /// query's judged documents `judged` (place, grade) on `groups`.
    pub fn new(
        groups: &'a DocumentGroups,
        ranked: &'a [u32],
        judged: &'a [(u32, crate::Grade)],
    ) -> Self {
        GroupRanking {
            groups,
            ranked,
            judged,
            target: None,
        }
    }

    /// With the query's given target over the groups
    /// ([`DocumentGroups::target`]).
    pub fn with_target(mut self, target: Option<&'a [(u32, f64)]>) -> Self {
        self.target = target;
        self
    }

    /// The query's given target, `(group, share)`; `None` when the
    /// targets do not give one.
    pub fn target(&self) -> Option<&'a [(u32, f64)]> {
        self.target
    }

    /// The document groups.
    pub fn groups(&self) -> &'a DocumentGroups {
        self.groups
    }

    /// Each judged rank's document place (or [`Self::NONE`]).
    pub fn ranked(&self) -> &'a [u32] {
        self.ranked
    }

    /// The groups of the document at rank `i` (from 0); empty past the
    /// ranks or for a document with no group.
    pub fn at_rank(&self, i: usize) -> &'a [(u32, f64)] {
        match self.ranked.get(i) {
            Some(&d) => self.groups.memberships(d),
            None => &[],
        }
    }

    /// The query's judged documents: each one's place among the documents
    /// with a group (or [`Self::NONE`]) and its grade, in the qrels' order.
    pub fn judged(&self) -> &'a [(u32, crate::Grade)] {
        self.judged
    }
}

/// A membership while built: group, weight, where it was given.
type Membership = (u32, f64, u64);

/// Builds [`DocumentGroups`] from `(document, group, weight)` rows, each
/// with its position (line or row) for messages.
#[derive(Debug, Default)]
pub struct DocumentGroupsBuilder {
    group_order: HashMap<Box<[u8]>, u32>,
    groups: Vec<Box<[u8]>>,
    /// Per document: per group, the weight and where it was given.
    docs: HashMap<Box<[u8]>, Vec<Membership>>,
    memberships: usize,
    repeats: usize,
}

impl DocumentGroupsBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one membership given at `at`. The same membership given twice
    /// with the same weight is kept once and counted
    /// ([`DocumentGroups::repeats`]); with another weight it is an error
    /// naming both positions.
    pub fn push(
        &mut self,
        doc: &[u8],
        group: &[u8],
        weight: f64,
        at: u64,
    ) -> Result<(), DocGroupsError> {
        if !weight.is_finite() || weight < 0.0 {
            return Err(DocGroupsError::InvalidWeight { weight, at });
        }
        // -0.0 and 0.0 are one weight.
        let weight = weight + 0.0;
        let g = match self.group_order.get(group) {
            Some(&g) => g,
            None => {
                let g = u32::try_from(self.groups.len()).map_err(|_| DocGroupsError::TooLarge)?;
                self.group_order.insert(group.into(), g);
                self.groups.push(group.into());
                g
            }
        };
        let memberships = self.docs.entry(doc.into()).or_default();
        if let Some(&(_, first_weight, first)) = memberships.iter().find(|m| m.0 == g) {
            if first_weight.to_bits() == weight.to_bits() {
                self.repeats += 1;
                return Ok(());
            }
            return Err(DocGroupsError::ConflictingWeights {
                doc: crate::shorten_id(doc),
                group: crate::shorten_id(group),
                first_weight,
                first,
                second_weight: weight,
                second: at,
            });
        }
        if self.memberships >= u32::MAX as usize {
            return Err(DocGroupsError::TooLarge);
        }
        memberships.push((g, weight, at));
        self.memberships += 1;
        Ok(())
    }

    /// The groups, each document's in group order.
    pub fn finish(self) -> Result<DocumentGroups, DocGroupsError> {
        let mut out = DocumentGroups {
            groups: self.groups,
            repeats: self.repeats,
            ..DocumentGroups::default()
        };
        let mut docs: Vec<_> = self.docs.into_iter().collect();
        docs.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (doc, mut memberships) in docs {
            memberships.sort_unstable_by_key(|m| m.0);
            let start = u32::try_from(out.members.len()).map_err(|_| DocGroupsError::TooLarge)?;
            out.index.insert(doc, out.starts.len() as u32);
            out.starts.push(start);
            out.members
                .extend(memberships.into_iter().map(|(g, w, _)| (g, w)));
        }
        let end = u32::try_from(out.members.len()).map_err(|_| DocGroupsError::TooLarge)?;
        out.starts.push(end);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_in_order_of_first_appearance_repeats_counted() {
        let mut b = DocumentGroupsBuilder::new();
        b.push(b"d2", b"south", 1.0, 1).unwrap();
        b.push(b"d1", b"north", 0.5, 2).unwrap();
        b.push(b"d1", b"south", 0.5, 3).unwrap();
        b.push(b"d1", b"north", 0.5, 4).unwrap();
        b.push(b"d3", b"east", -0.0, 5).unwrap();
        let g = b.finish().unwrap();
        assert_eq!(g.num_groups(), 3);
        assert_eq!(g.group_id(0), Some(&b"south"[..]));
        assert_eq!(g.group_id(1), Some(&b"north"[..]));
        assert_eq!(g.group_id(3), None);
        assert_eq!(g.num_docs(), 3);
        assert_eq!(g.num_memberships(), 4);
        assert_eq!(g.repeats(), 1);
        assert_eq!(g.of(b"d1"), &[(0, 0.5), (1, 0.5)]);
        assert_eq!(g.of(b"d2"), &[(0, 1.0)]);
        assert_eq!(g.of(b"d3")[0].1.to_bits(), 0.0f64.to_bits());
        assert_eq!(g.of(b"d4"), &[]);
    }

    #[test]
    fn a_conflicting_weight_and_a_bad_weight_are_errors_naming_their_positions() {
        let mut b = DocumentGroupsBuilder::new();
        b.push(b"d", b"g", 1.0, 7).unwrap();
        let e = b.push(b"d", b"g", 2.0, 9).unwrap_err().to_string();
        assert!(
            e.contains("at 7") && e.contains("at 9") && e.contains("group `g`"),
            "{e}"
        );
        for (w, at) in [(f64::NAN, 11), (f64::INFINITY, 12), (-1.0, 13)] {
            let e = b.push(b"d", b"h", w, at).unwrap_err().to_string();
            assert!(e.contains(&format!("at {at}")), "{e}");
        }
    }
}
