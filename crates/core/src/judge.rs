//! The judged ranking: the one per-query view that every metric reads.
//!
//! The engine builds it once per query, by looking up the grade of each
//! ranked document down to the deepest rank any metric needs, and hands the
//! same view to every metric. Metrics never see document ids.

use crate::hash::hash_bytes;
use crate::params::{Cutoff, RelevanceLevel};
use crate::qrels::Qrels;
use crate::run::RankedList;

/// A relevance grade, as in the qrels. Grades may be negative (trec_eval's
/// "in the pool but not judged"); those are never relevant.
pub type Grade = i32;

/// What the qrels say of the document at one rank: a grade, or nothing.
///
/// A document the qrels do not mention has grade 0 for every metric; only
/// bpref tells it apart from a judged non-relevant one.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Judgement(Grade);

impl Judgement {
    /// The document is not in the qrels.
    pub const UNJUDGED: Judgement = Judgement(Grade::MIN);

    /// The document is judged with `grade` (`Grade::MIN` is reserved).
    #[inline]
    pub const fn judged(grade: Grade) -> Self {
        debug_assert!(grade != Grade::MIN);
        Judgement(grade)
    }

    /// Whether the qrels mention the document.
    #[inline]
    pub const fn is_judged(self) -> bool {
        self.0 != Grade::MIN
    }

    /// The grade, 0 for an unjudged document.
    #[inline]
    pub const fn grade(self) -> Grade {
        if self.is_judged() { self.0 } else { 0 }
    }

    /// Whether the document is relevant at `level` (grade >= level >= 1).
    #[inline]
    pub const fn is_relevant(self, level: Grade) -> bool {
        self.0 >= level
    }

    /// Whether the document is judged non-relevant at `level`: a grade from
    /// 0 to `level - 1` (negative grades are not "judged" here, as in
    /// trec_eval's bpref).
    #[inline]
    pub const fn is_judged_nonrelevant(self, level: Grade) -> bool {
        self.0 >= 0 && self.0 < level
    }

    /// The grade floored at 0: the gain of graded metrics.
    #[inline]
    pub const fn gain(self) -> Grade {
        if self.0 > 0 { self.0 } else { 0 }
    }
}

impl std::fmt::Debug for Judgement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_judged() {
            write!(f, "{}", self.0)
        } else {
            f.write_str("unjudged")
        }
    }
}

/// One query's ranked list, judged: what every metric reads.
///
/// - `ranked()`: the judgement at ranks 1, 2, ... down to the deepest rank
///   the experiment's metrics need (or the whole list);
/// - `retrieved()`: the full length `n` of the list;
/// - `ideal_grades()`: every grade the qrels give for this query, in
///   descending order (the ideal ranking, and `|R|` at any level);
/// - `default_level()`: the relevance level of the experiment (1 unless set),
///   which a metric uses when it has no `rel` of its own.
#[derive(Clone, Copy, Debug)]
pub struct JudgedRanking<'a> {
    ranked: &'a [Judgement],
    retrieved: usize,
    ideal: &'a [Grade],
    default_level: RelevanceLevel,
}

impl<'a> JudgedRanking<'a> {
    /// A judged ranking from its parts (the engine builds these; tests and
    /// plugin authors may too).
    ///
    /// `ranked` may be shorter than `retrieved` when the ranking was cut at
    /// the depth the metrics need; `ideal` must be in descending order.
    pub fn new(
        ranked: &'a [Judgement],
        retrieved: usize,
        ideal: &'a [Grade],
        default_level: RelevanceLevel,
    ) -> Self {
        debug_assert!(ranked.len() <= retrieved);
        debug_assert!(ideal.windows(2).all(|w| w[0] >= w[1]));
        Self {
            ranked,
            retrieved,
            ideal,
            default_level,
        }
    }

    /// Judgements at ranks 1.. down to the judged depth.
    #[inline]
    pub fn ranked(&self) -> &'a [Judgement] {
        self.ranked
    }

    /// Judgements at ranks 1..=k (fewer if the list is shorter).
    #[inline]
    pub fn top(&self, k: Option<Cutoff>) -> &'a [Judgement] {
        match k {
            Some(k) => &self.ranked[..k.get().min(self.ranked.len())],
            None => self.ranked,
        }
    }

    /// The length `n` of the whole list.
    #[inline]
    pub fn retrieved(&self) -> usize {
        self.retrieved
    }

    /// Every judged grade of the query, descending.
    #[inline]
    pub fn ideal_grades(&self) -> &'a [Grade] {
        self.ideal
    }

    /// The experiment's relevance level.
    #[inline]
    pub fn default_level(&self) -> RelevanceLevel {
        self.default_level
    }

    /// `rel` if the metric sets it, else the experiment's level, as a grade.
    #[inline]
    pub fn level(&self, rel: Option<RelevanceLevel>) -> Grade {
        rel.unwrap_or(self.default_level).get()
    }

    /// `|R|`: the number of documents with a grade of at least `level`.
    #[inline]
    pub fn num_relevant(&self, level: Grade) -> usize {
        self.ideal.partition_point(|&g| g >= level)
    }

    /// The number of judged non-relevant documents at `level` (grades
    /// 0 to `level - 1`), bpref's `|N|`.
    #[inline]
    pub fn num_judged_nonrelevant(&self, level: Grade) -> usize {
        self.ideal.partition_point(|&g| g >= 0) - self.num_relevant(level)
    }
}

/// Builds judged rankings, reusing its buffers; one per thread.
///
/// For each query it hashes that query's judged documents into a small
/// table (it fits in the CPU cache), then looks up each ranked document
/// down to the judged depth.
#[derive(Debug)]
pub struct Judge {
    ranked: Vec<Judgement>,
    /// Open addressing: `fingerprint << 32 | (entry + 1)`, 0 = empty.
    table: Vec<u64>,
    depth: Option<usize>,
    default_level: RelevanceLevel,
}

impl Judge {
    /// A judge that looks up grades down to `depth` (`None`: the whole list)
    /// and gives metrics `default_level`.
    pub fn new(depth: Option<usize>, default_level: RelevanceLevel) -> Self {
        Self {
            ranked: Vec::new(),
            table: Vec::new(),
            depth,
            default_level,
        }
    }

    /// Judges `list` (or an empty ranking, for a query missing from the run)
    /// against query `query` of `qrels`.
    pub fn judge<'s>(
        &'s mut self,
        qrels: &'s Qrels,
        query: u32,
        list: Option<RankedList<'_>>,
    ) -> JudgedRanking<'s> {
        self.ranked.clear();
        let retrieved = list.map_or(0, |l| l.len());
        let depth = self.depth.map_or(retrieved, |d| d.min(retrieved));
        if let Some(list) = list
            && depth > 0
        {
            let judged = &qrels.store.lists[query as usize];
            let store = &qrels.store;
            let capacity = (2 * judged.len).next_power_of_two().max(2);
            let mask = capacity - 1;
            self.table.clear();
            self.table.resize(capacity, 0);
            for (j, doc) in store.docs(judged).enumerate() {
                let hash = hash_bytes(doc);
                let mut slot = hash as usize & mask;
                while self.table[slot] != 0 {
                    slot = (slot + 1) & mask;
                }
                self.table[slot] = ((hash >> 32) << 32) | (j as u64 + 1);
            }
            let grades = &store.values[judged.start..judged.start + judged.len];
            let table = &self.table;
            // One independent lookup per rank, so that the CPU overlaps them.
            self.ranked.extend(list.docs().take(depth).map(|doc| {
                let hash = hash_bytes(doc);
                let fingerprint = hash >> 32;
                let mut slot = hash as usize & mask;
                loop {
                    let occupant = table[slot];
                    if occupant == 0 {
                        return Judgement::UNJUDGED;
                    }
                    let j = (occupant & 0xFFFF_FFFF) as usize - 1;
                    if occupant >> 32 == fingerprint && store.doc(judged, j) == doc {
                        return Judgement::judged(grades[j]);
                    }
                    slot = (slot + 1) & mask;
                }
            }));
        }
        JudgedRanking::new(
            &self.ranked,
            retrieved,
            qrels.ideal_grades(query),
            self.default_level,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Duplicates, QrelsBuilder, RunBuilder};

    #[test]
    fn judgement_semantics() {
        let unjudged = Judgement::UNJUDGED;
        assert!(!unjudged.is_judged());
        assert_eq!(unjudged.grade(), 0);
        assert!(!unjudged.is_relevant(1));
        assert!(!unjudged.is_judged_nonrelevant(1));
        let negative = Judgement::judged(-1);
        assert!(!negative.is_relevant(1));
        assert!(!negative.is_judged_nonrelevant(1));
        assert_eq!(negative.gain(), 0);
        let two = Judgement::judged(2);
        assert!(two.is_relevant(2));
        assert!(!two.is_relevant(3));
        assert!(two.is_judged_nonrelevant(3));
        assert_eq!(two.gain(), 2);
    }

    #[test]
    fn judge_looks_up_grades_to_depth_and_counts_levels() {
        let mut qrels = QrelsBuilder::new();
        for (doc, grade) in [("a", 2), ("b", 0), ("c", 1), ("z", 3), ("n", -1)] {
            qrels.push("q", doc, grade).unwrap();
        }
        let qrels = qrels.finish().unwrap();
        let mut run = RunBuilder::new();
        run.push_list("q", ["x", "a", "b", "c"]).unwrap();
        let run = run.finish(Duplicates::Error).unwrap();
        let q = qrels.query_index(b"q").unwrap();

        let mut judge = Judge::new(Some(3), RelevanceLevel::DEFAULT);
        let judged = judge.judge(&qrels, q, run.list("q"));
        assert_eq!(
            judged.ranked(),
            [
                Judgement::UNJUDGED,
                Judgement::judged(2),
                Judgement::judged(0)
            ]
        );
        assert_eq!(judged.retrieved(), 4);
        assert_eq!(judged.ideal_grades(), [3, 2, 1, 0, -1]);
        assert_eq!(judged.num_relevant(1), 3);
        assert_eq!(judged.num_relevant(2), 2);
        assert_eq!(judged.num_judged_nonrelevant(1), 1);
        assert_eq!(judged.num_judged_nonrelevant(2), 2);
        assert_eq!(judged.top(Cutoff::new(2)).len(), 2);
        assert_eq!(judged.top(Cutoff::new(10)).len(), 3);

        let missing = judge.judge(&qrels, q, None);
        assert_eq!(missing.retrieved(), 0);
        assert!(missing.ranked().is_empty());
        assert_eq!(missing.num_relevant(1), 3);
    }
}
