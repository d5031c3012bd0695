//! The judged ranking: the one per-query view that every metric reads.
//!
//! The engine builds it once per query, by looking up the grade of each
//! ranked document down to the deepest rank any metric needs, and hands the
//! same view to every metric. Metrics never see document ids.

use std::cmp::Ordering;

use crate::buffer::{Keys, ListBuffer};
use crate::context::{DocumentContext, DocumentView};
use crate::doc_groups::GroupRanking;
use crate::error::RunError;
use crate::hash::hash_bytes;
use crate::lists::same_bytes;
use crate::params::{Cutoff, RelevanceLevel};
use crate::qrels::Qrels;
use crate::run::{Duplicates, RankedList};
use crate::subtopics::SubtopicRanking;
use crate::ties_setting::{TieGroups, Ties};

// The grade and its check, under this module's path too (their home is
// `grade`, which the qrels share without depending on the judged ranking).
pub use crate::grade::{Grade, GradeError, MAX_GRADE, check_grade};

/// What the qrels say of the document at one rank: a grade, or nothing.
///
/// A document the qrels do not mention has grade 0 for every metric; only
/// bpref tells it apart from a judged non-relevant one. The unjudged
/// sentinel is NaN, which no grade can be (readers refuse it): every
/// comparison with it is false, so "relevant" and "judged non-relevant"
/// need no extra branch.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Judgement(Grade);

impl PartialEq for Judgement {
    /// Bitwise: two unjudged documents are equal.
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for Judgement {}

impl std::hash::Hash for Judgement {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

impl Judgement {
    /// The document is not in the qrels.
    pub const UNJUDGED: Judgement = Judgement(Grade::NAN);

    /// The document is judged with `grade` (a finite grade, see
    /// [`check_grade`]).
    #[inline]
    pub const fn judged(grade: Grade) -> Self {
        debug_assert!(grade.is_finite());
        Judgement(grade)
    }

    /// Whether the qrels mention the document.
    #[inline]
    pub const fn is_judged(self) -> bool {
        !self.0.is_nan()
    }

    /// The grade, 0 for an unjudged document.
    #[inline]
    pub const fn grade(self) -> Grade {
        if self.is_judged() { self.0 } else { 0.0 }
    }

    /// Whether the document is relevant at `level` (grade >= level > 0).
    #[inline]
    pub const fn is_relevant(self, level: Grade) -> bool {
        self.0 >= level
    }

    /// Whether the document is judged non-relevant at `level`: a grade
    /// from 0 up to, not including, `level` (negative grades are not
    /// "judged" here, as in trec_eval's bpref).
    #[inline]
    pub const fn is_judged_nonrelevant(self, level: Grade) -> bool {
        self.0 >= 0.0 && self.0 < level
    }

    /// The grade floored at 0: the gain of graded metrics.
    #[inline]
    pub const fn gain(self) -> Grade {
        if self.0 > 0.0 { self.0 } else { 0.0 }
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
    /// End of each group of tied scores in `ranked` (empty: not computed).
    tie_ends: &'a [u32],
    /// The ranked documents in the query's subtopic judgements, when the
    /// qrels have some.
    subtopics: Option<SubtopicRanking<'a>>,
    /// The ranked documents' groups, when the qrels have document groups.
    groups: Option<GroupRanking<'a>>,
    /// The ranked documents seen through the qrels' per-document facts,
    /// when a metric requires them.
    documents: Option<DocumentView<'a>>,
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
            tie_ends: &[],
            subtopics: None,
            groups: None,
            documents: None,
        }
    }

    /// With the ranked documents' groups: `groups` must see the same ranks
    /// as `ranked`.
    pub fn with_groups(mut self, groups: GroupRanking<'a>) -> Self {
        debug_assert_eq!(groups.ranked().len(), self.ranked.len());
        self.groups = Some(groups);
        self
    }

    /// The ranked documents seen through the document groups (the
    /// group-fairness metrics' input): `None` when the experiment has no
    /// document groups.
    #[inline]
    pub fn groups(&self) -> Option<GroupRanking<'a>> {
        self.groups
    }

    /// With the ranked documents' per-document facts ([`crate::context`]):
    /// `documents` must see the same ranks as `ranked`.
    pub fn with_documents(mut self, documents: DocumentView<'a>) -> Self {
        self.documents = Some(documents);
        self
    }

    /// The ranked documents seen through the qrels' per-document facts
    /// (label propensities, judged for any query): `None` unless a metric
    /// of the experiment [requires](crate::Metric::requires) them.
    #[inline]
    pub fn documents(&self) -> Option<DocumentView<'a>> {
        self.documents
    }

    /// With the query's subtopic judgements: `subtopics` must see the same
    /// ranks as `ranked`.
    pub fn with_subtopics(mut self, subtopics: SubtopicRanking<'a>) -> Self {
        debug_assert_eq!(subtopics.ranked().len(), self.ranked.len());
        self.subtopics = Some(subtopics);
        self
    }

    /// The ranked documents seen through the query's subtopic judgements
    /// (the diversity metrics' input): `None` when the experiment has no
    /// subtopic qrels or the query none in them.
    #[inline]
    pub fn subtopics(&self) -> Option<SubtopicRanking<'a>> {
        self.subtopics
    }

    /// With the groups of tied scores: `ends` are the end (exclusive) of
    /// each group of `ranked`, increasing, the last one `ranked.len()`.
    /// The judge sets them when a metric averages over ties, and judges a
    /// group that the judged depth would cut down to its end.
    ///
    /// # Panics
    /// If `ends` is not empty and does not end at `ranked.len()`.
    pub fn with_tie_groups(mut self, ends: &'a [u32]) -> Self {
        assert!(
            ends.is_empty() || ends.last().map(|&e| e as usize) == Some(self.ranked.len()),
            "tie groups must cover the judged ranks"
        );
        debug_assert!(ends.windows(2).all(|w| w[0] < w[1]));
        self.tie_ends = ends;
        self
    }

    /// The groups of tied scores of [`ranked`](Self::ranked), as ranges of
    /// 0-based ranks, best first; without them (a list given already
    /// ranked, or none computed), each rank is a group of its own.
    #[inline]
    pub fn tie_groups(&self) -> TieGroups<'a> {
        TieGroups::new(self.tie_ends, self.ranked.len())
    }

    /// The ends of the groups of tied scores, as set by
    /// [`with_tie_groups`](Self::with_tie_groups) (empty: none computed).
    #[inline]
    pub(crate) fn tie_ends(&self) -> &'a [u32] {
        self.tie_ends
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
    /// from 0 up to `level`, not included), bpref's `|N|`.
    #[inline]
    pub fn num_judged_nonrelevant(&self, level: Grade) -> usize {
        self.ideal.partition_point(|&g| g >= 0.0) - self.num_relevant(level)
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
    /// Open addressing: `fingerprint << 32 | (entry + 1)`, 0 = empty; in
    /// [`judge_buffer`](Self::judge_buffer), [`RUN_ENTRY`] marks a run entry.
    table: Vec<u64>,
    /// `judge_buffer`: per judged document, the run entry that found it, plus 1.
    seen: Vec<u32>,
    /// `judge_buffer`: per run entry, its judgement (in input order).
    judgements: Vec<Judgement>,
    /// `judge_buffer`: the run entries kept, in ranked order.
    order: Vec<u32>,
    /// `judge_buffer`: scratch space to order the entries by score.
    keyed: Vec<(u64, u32)>,
    /// `judge_buffer`: the sort key of each entry kept, in `order`'s order.
    keys: Vec<u64>,
    /// `judge_buffer`: per run entry, whether a better-ranked occurrence of
    /// its document replaced it (empty unless one did).
    replaced: Vec<bool>,
    /// `judge_buffer`: the repeats the last call left out.
    dropped: usize,
    /// The judged query's grades in descending order (its ideal ranking).
    ideal: Vec<Grade>,
    /// Scratch space for ordering `ideal`.
    counts: Vec<u32>,
    depth: Option<usize>,
    default_level: RelevanceLevel,
    /// How tied scores are ordered (`judge_buffer`) and whether their
    /// groups are found (`Ties::Average`).
    ties: JudgeTies,
    /// The end of each group of tied scores, when they are found.
    tie_ends: Vec<u32>,
    /// Per judged rank, the document's place in its query's subtopic
    /// judgements (when the qrels have some).
    subtopic_ranked: Vec<u32>,
    /// The ranked documents' per-document views, when a metric requires
    /// them ([`crate::context`]).
    context: ContextViews,
}

/// What the judge looks up for each ranked document when a metric requires
/// more than the qrels' grades ([`crate::context`]): the per-document facts
/// and the document groups. Built in one place ([`ContextViews::attach`])
/// for both judging paths; untouched when the qrels carry neither.
#[derive(Debug, Default)]
struct ContextViews {
    /// Per judged rank, the document's label value (with per-document
    /// facts).
    doc_labels: Vec<f64>,
    /// Per judged rank, whether the document is judged for any query.
    doc_anywhere: Vec<bool>,
    /// Per judged rank, the document's place among the documents with a
    /// group (when the qrels have document groups).
    group_ranked: Vec<u32>,
    /// The query's judged documents' places among the documents with a
    /// group, and their grades.
    group_judged: Vec<(u32, Grade)>,
}

impl ContextViews {
    /// `judged` with the views of query `query`'s ranked documents that
    /// `qrels` carry: `docs()` gives the ranked documents to the judged
    /// depth (called once per view). `judged` itself when the qrels carry
    /// neither per-document facts nor document groups.
    fn attach<'a, 'd, I>(
        &'a mut self,
        judged: JudgedRanking<'a>,
        qrels: &'a Qrels,
        query: u32,
        docs: impl Fn() -> I,
    ) -> JudgedRanking<'a>
    where
        I: Iterator<Item = &'d [u8]>,
    {
        let ContextViews {
            doc_labels,
            doc_anywhere,
            group_ranked,
            group_judged,
        } = self;
        let judged = match qrels.documents() {
            Some(context) => {
                look_up_documents(context, docs(), doc_labels, doc_anywhere);
                judged.with_documents(DocumentView::new(
                    context,
                    Some(query),
                    doc_labels,
                    doc_anywhere,
                ))
            }
            None => judged,
        };
        match qrels.doc_groups() {
            Some(groups) => {
                group_ranked.clear();
                group_ranked
                    .extend(docs().map(|doc| groups.position(doc).unwrap_or(GroupRanking::NONE)));
                qrels.judged_groups_into(query, groups, group_judged);
                judged.with_groups(
                    GroupRanking::new(groups, group_ranked, group_judged)
                        .with_target(groups.target(qrels.query_bytes(query))),
                )
            }
            None => judged,
        }
    }
}

/// Fills `labels` and `anywhere` with each of `docs`'s facts in `context`.
fn look_up_documents<'d>(
    context: &DocumentContext,
    docs: impl Iterator<Item = &'d [u8]>,
    labels: &mut Vec<f64>,
    anywhere: &mut Vec<bool>,
) {
    labels.clear();
    anywhere.clear();
    for doc in docs {
        labels.push(context.label_value(doc));
        anywhere.push(context.is_judged_anywhere(doc));
    }
}

/// What a [`Judge`] does with tied scores.
#[derive(Clone, Copy, Debug, Default)]
struct JudgeTies {
    /// Order ties by document id (else input order), in `judge_buffer`.
    by_doc: bool,
    /// Find the groups of tied scores.
    groups: bool,
}

/// In [`Judge::judge_buffer`]'s table, the bit that marks a run entry (the
/// others are judged documents).
const RUN_ENTRY: u64 = 1 << 31;
/// The entry bits of a table slot.
const ENTRY: u64 = RUN_ENTRY - 1;

impl Judge {
    /// A judge that looks up grades down to `depth` (`None`: the whole list)
    /// and gives metrics `default_level`.
    pub fn new(depth: Option<usize>, default_level: RelevanceLevel) -> Self {
        Self {
            ranked: Vec::new(),
            table: Vec::new(),
            seen: Vec::new(),
            judgements: Vec::new(),
            order: Vec::new(),
            keyed: Vec::new(),
            keys: Vec::new(),
            replaced: Vec::new(),
            dropped: 0,
            ideal: Vec::new(),
            counts: Vec::new(),
            depth,
            default_level,
            ties: JudgeTies {
                by_doc: true,
                groups: false,
            },
            tie_ends: Vec::new(),
            subtopic_ranked: Vec::new(),
            context: ContextViews::default(),
        }
    }

    /// Orders tied scores as `order` says in
    /// [`judge_buffer`](Self::judge_buffer) (`input`: in input order; else
    /// by document id; a stored run is in the order it was finished in),
    /// and, if `groups`, finds the groups of tied scores
    /// ([`JudgedRanking::tie_groups`]), judging a group that the depth
    /// would cut down to its end.
    pub fn with_ties(mut self, order: Ties, groups: bool) -> Self {
        self.ties = JudgeTies {
            by_doc: order.orders_by_doc(),
            groups,
        };
        self
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
        let mut depth = self.depth.map_or(retrieved, |d| d.min(retrieved));
        self.tie_ends.clear();
        if self.ties.groups
            && let Some(list) = list
            && !list.is_ranked_as_given()
        {
            let score = |i: usize| list.score(i).unwrap_or(f64::NAN);
            depth = find_tie_groups(&mut self.tie_ends, retrieved, depth, |a, b| {
                score(a) == score(b)
            });
        }
        if let Some(list) = list
            && depth > 0
        {
            let judged = qrels.judged(query);
            let capacity = (2 * judged.len()).next_power_of_two().max(2);
            let mask = capacity - 1;
            self.table.clear();
            self.table.resize(capacity, 0);
            for (j, doc) in judged.docs().enumerate() {
                let hash = hash_bytes(doc);
                let mut slot = hash as usize & mask;
                while self.table[slot] != 0 {
                    slot = (slot + 1) & mask;
                }
                self.table[slot] = ((hash >> 32) << 32) | (j as u64 + 1);
            }
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
                    if occupant >> 32 == fingerprint && same_bytes(judged.doc(j), doc) {
                        return Judgement::judged(judged.grade(j));
                    }
                    slot = (slot + 1) & mask;
                }
            }));
        }
        qrels.ideal_grades_into(query, &mut self.ideal, &mut self.counts);
        let subtopics = qrels
            .subtopics()
            .and_then(|s| s.query(qrels.query_bytes(query)));
        let judged = JudgedRanking::new(&self.ranked, retrieved, &self.ideal, self.default_level)
            .with_tie_groups(&self.tie_ends);
        let judged = match (subtopics, list) {
            (Some(subtopics), Some(list)) => {
                self.subtopic_ranked.clear();
                self.subtopic_ranked.extend(
                    list.docs()
                        .take(self.ranked.len())
                        .map(|doc| subtopics.position(doc).unwrap_or(SubtopicRanking::UNJUDGED)),
                );
                judged.with_subtopics(SubtopicRanking::new(subtopics, &self.subtopic_ranked))
            }
            (Some(subtopics), None) => judged.with_subtopics(SubtopicRanking::new(subtopics, &[])),
            (None, _) => judged,
        };
        if qrels.documents().is_none() && qrels.doc_groups().is_none() {
            return judged;
        }
        let depth = self.ranked.len();
        match list {
            Some(list) => self
                .context
                .attach(judged, qrels, query, || list.docs().take(depth)),
            None => self.context.attach(judged, qrels, query, std::iter::empty),
        }
    }

    /// How many repeated documents the last [`judge_buffer`](Self::judge_buffer)
    /// left out (with [`Duplicates::First`]).
    pub fn repeats_dropped(&self) -> usize {
        self.dropped
    }

    /// Finishes and judges the scored entries in `buffer` in one pass: the
    /// same judged ranking as [`RunBuilder::finish`](crate::RunBuilder::finish)
    /// with `duplicates` followed by [`judge`](Self::judge), and the same
    /// error for a repeated document.
    ///
    /// `query` is the buffer's query in `qrels`; for a query the qrels do not
    /// judge (`None`), the entries are only checked for repeats and `None` is
    /// returned.
    pub fn judge_buffer<'s>(
        &'s mut self,
        qrels: &'s Qrels,
        query: Option<u32>,
        buffer: &ListBuffer,
        duplicates: Duplicates,
    ) -> Result<Option<JudgedRanking<'s>>, RunError> {
        let n = buffer.len();
        let judged = query.map(|q| qrels.judged(q));
        let num_judged = judged.map_or(0, |j| j.len());
        let capacity = (4 * (n + num_judged)).next_power_of_two();
        let mask = capacity - 1;
        self.table.clear();
        self.table.resize(capacity, 0);
        self.seen.clear();
        self.seen.resize(num_judged, 0);
        self.judgements.clear();
        if let Some(judged) = judged {
            for (j, doc) in judged.docs().enumerate() {
                let hash = hash_bytes(doc);
                let mut slot = hash as usize & mask;
                while self.table[slot] != 0 {
                    slot = (slot + 1) & mask;
                }
                self.table[slot] = ((hash >> 32) << 32) | (j as u64 + 1);
            }
        }
        self.order.clear();
        // With `Duplicates::First`, the best-ranked occurrence of a
        // document is kept: a later entry with a higher score takes the
        // place of the one kept so far (equal scores: the same document at
        // the same rank, so either is the one kept).
        let keys = buffer.keys();
        let ranks_higher = |a: usize, b: usize| match keys {
            Keys::Fixed(keys) => keys[a] > keys[b],
            Keys::Float(scores) => scores[a] > scores[b],
        };
        // Entries kept, then replaced by a better-ranked occurrence.
        let mut replaced = 0;
        self.replaced.clear();
        for i in 0..n {
            let doc = buffer.doc(i);
            let hash = hash_bytes(doc);
            let fingerprint = hash >> 32;
            let mut slot = hash as usize & mask;
            // The judgement of entry i, or `None` for a repeat to drop.
            let judgement = loop {
                let occupant = self.table[slot];
                if occupant == 0 {
                    self.table[slot] = (fingerprint << 32) | RUN_ENTRY | (i as u64 + 1);
                    break Some(Judgement::UNJUDGED);
                }
                if occupant >> 32 == fingerprint {
                    let entry = (occupant & ENTRY) as usize - 1;
                    // The earlier occurrence kept, and where it is recorded.
                    let first = if occupant & RUN_ENTRY != 0 {
                        same_bytes(buffer.doc(entry), doc).then_some((entry, None))
                    } else if let Some(judged) = &judged
                        && same_bytes(judged.doc(entry), doc)
                    {
                        match self.seen[entry] {
                            0 => {
                                self.seen[entry] = i as u32 + 1;
                                break Some(Judgement::judged(judged.grade(entry)));
                            }
                            seen => Some((seen as usize - 1, Some(entry))),
                        }
                    } else {
                        None
                    };
                    if let Some((first, judged_entry)) = first {
                        match duplicates {
                            Duplicates::Error => {
                                return Err(RunError::DuplicateDoc {
                                    query: crate::shorten_id(buffer.query_bytes()),
                                    doc: crate::shorten_id(doc),
                                    first: buffer.line(first),
                                    second: buffer.line(i),
                                });
                            }
                            Duplicates::First if ranks_higher(i, first) => {
                                match judged_entry {
                                    Some(entry) => self.seen[entry] = i as u32 + 1,
                                    None => {
                                        self.table[slot] =
                                            (fingerprint << 32) | RUN_ENTRY | (i as u64 + 1);
                                    }
                                }
                                if self.replaced.is_empty() {
                                    self.replaced.resize(n, false);
                                }
                                self.replaced[first] = true;
                                replaced += 1;
                                break Some(self.judgements[first]);
                            }
                            Duplicates::First => break None,
                        }
                    }
                }
                slot = (slot + 1) & mask;
            };
            match judgement {
                Some(judgement) => {
                    self.judgements.push(judgement);
                    self.order.push(i as u32);
                }
                None => self.judgements.push(Judgement::UNJUDGED),
            }
        }
        if replaced > 0 {
            let replaced = &self.replaced;
            self.order.retain(|&i| !replaced[i as usize]);
        }
        self.dropped = n - self.order.len();
        let Some(query) = query else {
            return Ok(None);
        };
        let retrieved = self.order.len();
        // Whether the entries are in score order already, when known.
        let mut sorted = None;
        let subtopics = qrels
            .subtopics()
            .and_then(|s| s.query(qrels.query_bytes(query)));
        // The judged-only ranking knows no unjudged document's id, which
        // the subtopic judgements need.
        if self.ties.by_doc
            && !self.ties.groups
            && subtopics.is_none()
            && qrels.documents().is_none()
            && qrels.doc_groups().is_none()
        {
            match self.rank_judged_only(buffer, retrieved) {
                Ranked::Judged { depth } => {
                    qrels.ideal_grades_into(query, &mut self.ideal, &mut self.counts);
                    return Ok(Some(JudgedRanking::new(
                        &self.ranked[..depth],
                        retrieved,
                        &self.ideal,
                        self.default_level,
                    )));
                }
                Ranked::Not { sorted: known } => sorted = Some(known),
            }
        }
        if self.ties.by_doc {
            order_entries(&mut self.order, buffer, &mut self.keyed, sorted);
        } else {
            order_entries_as_input(&mut self.order, buffer);
        }
        let mut depth = self.depth.map_or(retrieved, |d| d.min(retrieved));
        self.tie_ends.clear();
        if self.ties.groups {
            let order = &self.order;
            depth = match buffer.keys() {
                Keys::Fixed(keys) => {
                    find_tie_groups(&mut self.tie_ends, retrieved, depth, |a, b| {
                        keys[order[a] as usize] == keys[order[b] as usize]
                    })
                }
                Keys::Float(scores) => {
                    find_tie_groups(&mut self.tie_ends, retrieved, depth, |a, b| {
                        scores[order[a] as usize] == scores[order[b] as usize]
                    })
                }
            };
        }
        self.ranked.clear();
        let judgements = &self.judgements;
        self.ranked
            .extend(self.order[..depth].iter().map(|&i| judgements[i as usize]));
        qrels.ideal_grades_into(query, &mut self.ideal, &mut self.counts);
        let judged = JudgedRanking::new(&self.ranked, retrieved, &self.ideal, self.default_level)
            .with_tie_groups(&self.tie_ends);
        let judged = match subtopics {
            Some(subtopics) => {
                self.subtopic_ranked.clear();
                self.subtopic_ranked
                    .extend(self.order[..depth].iter().map(|&i| {
                        subtopics
                            .position(buffer.doc(i as usize))
                            .unwrap_or(SubtopicRanking::UNJUDGED)
                    }));
                judged.with_subtopics(SubtopicRanking::new(subtopics, &self.subtopic_ranked))
            }
            None => judged,
        };
        if qrels.documents().is_none() && qrels.doc_groups().is_none() {
            return Ok(Some(judged));
        }
        let order = &self.order[..depth];
        Ok(Some(self.context.attach(judged, qrels, query, || {
            order.iter().map(|&i| buffer.doc(i as usize))
        })))
    }
}

impl Judge {
    /// For a list out of score order with few judged entries: places each
    /// judged entry kept in `order` at its rank (the number of kept entries
    /// before it in the run order: score descending, ties by document
    /// descending) in `ranked`, unjudged entries everywhere else, instead of
    /// ordering every entry; unjudged entries are all alike, so the ranking
    /// is the same. Does nothing when the list is in score order already
    /// (ordering it is cheap) or has too many judged entries for this to
    /// pay.
    fn rank_judged_only(&mut self, buffer: &ListBuffer, retrieved: usize) -> Ranked {
        fn keys_of(order: &[u32], keys: &mut Vec<u64>, key: impl Fn(u32) -> u64) -> bool {
            keys.clear();
            keys.extend(order.iter().map(|&i| key(i)));
            keys.windows(2).all(|pair| pair[0] <= pair[1])
        }
        let sorted = match buffer.keys() {
            Keys::Fixed(k) => keys_of(&self.order, &mut self.keys, |i| {
                descending_fixed(k[i as usize])
            }),
            Keys::Float(s) => keys_of(&self.order, &mut self.keys, |i| {
                descending_float(s[i as usize])
            }),
        };
        if sorted {
            return Ranked::Not { sorted };
        }
        // Counting costs (judged x retrieved) steps, ordering about
        // retrieved x log2(retrieved), each dearer.
        let judged = self
            .order
            .iter()
            .filter(|&&i| self.judgements[i as usize].is_judged())
            .count();
        let log2 = usize::BITS - retrieved.leading_zeros();
        if judged > 8 * log2 as usize {
            return Ranked::Not { sorted };
        }
        let depth = self.depth.map_or(retrieved, |d| d.min(retrieved));
        self.ranked.clear();
        self.ranked.resize(depth, Judgement::UNJUDGED);
        let keys = &self.keys;
        for (at, &entry) in self.order.iter().enumerate() {
            let judgement = self.judgements[entry as usize];
            if !judgement.is_judged() {
                continue;
            }
            let key = keys[at];
            let (before, equal) = keys.iter().fold((0usize, 0usize), |(b, e), &k| {
                (b + usize::from(k < key), e + usize::from(k == key))
            });
            let mut rank = before;
            if equal > 1 {
                let doc = buffer.doc(entry as usize);
                rank += self
                    .order
                    .iter()
                    .zip(keys)
                    .filter(|&(&other, &k)| k == key && buffer.doc(other as usize) > doc)
                    .count();
            }
            if rank < depth {
                self.ranked[rank] = judgement;
            }
        }
        Ranked::Judged { depth }
    }
}

/// What [`Judge::rank_judged_only`] did.
enum Ranked {
    /// The judged ranking is in `ranked`, `depth` long.
    Judged { depth: usize },
    /// Nothing: the entries are still to be ordered (`sorted`: they are in
    /// score order already).
    Not { sorted: bool },
}

/// Finds the groups of tied scores of a list of `len` entries judged to
/// `depth`, where `tied(a, b)` says whether ranks `a` and `b` have equal
/// scores: their ends go to `ends`, and the depth returned reaches the end
/// of the group that `depth` would cut.
fn find_tie_groups(
    ends: &mut Vec<u32>,
    len: usize,
    depth: usize,
    tied: impl Fn(usize, usize) -> bool,
) -> usize {
    let mut depth = depth;
    while depth > 0 && depth < len && tied(depth - 1, depth) {
        depth += 1;
    }
    for i in 1..depth {
        if !tied(i - 1, i) {
            ends.push(i as u32);
        }
    }
    if depth > 0 {
        ends.push(depth as u32);
    }
    depth
}

/// Puts the entries `order` names in score order, descending, ties in
/// input order (`ties = input`): a stable sort, as `order` is in input
/// order.
fn order_entries_as_input(order: &mut [u32], buffer: &ListBuffer) {
    match buffer.keys() {
        Keys::Fixed(keys) => order.sort_by(|&a, &b| keys[b as usize].cmp(&keys[a as usize])),
        Keys::Float(scores) => order.sort_by(|&a, &b| {
            scores[b as usize]
                .partial_cmp(&scores[a as usize])
                .unwrap_or(Ordering::Equal)
        }),
    }
}

/// Puts the entries `order` names in the run order of the spec: score
/// descending, ties by document id descending (the ids are distinct).
/// `keyed` is scratch space; `sorted` says whether the entries are in
/// score order already, when that is known.
fn order_entries(
    order: &mut [u32],
    buffer: &ListBuffer,
    keyed: &mut Vec<(u64, u32)>,
    sorted: Option<bool>,
) {
    match buffer.keys() {
        Keys::Fixed(keys) => order_by(
            order,
            |i| descending_fixed(keys[i as usize]),
            buffer,
            keyed,
            sorted,
        ),
        Keys::Float(scores) => order_by(
            order,
            |i| descending_float(scores[i as usize]),
            buffer,
            keyed,
            sorted,
        ),
    }
}

/// A key that orders as `key` does, descending, as an unsigned integer.
#[inline]
fn descending_fixed(key: i64) -> u64 {
    !((key as u64) ^ (1 << 63))
}

/// A key that orders as `score` does, descending, as an unsigned integer:
/// equal scores (`-0.0` and `0.0` too) have equal keys. `score` is not NaN
/// (refused when pushed).
#[inline]
fn descending_float(score: f64) -> u64 {
    // Adding 0.0 makes -0.0 the same bits as 0.0.
    let bits = (score + 0.0).to_bits();
    let ascending = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    !ascending
}

/// [`order_entries`] with the key of entry `i` as `key(i)` (smaller first);
/// `sorted` says whether the keys ascend already, when that is known.
///
/// Lists usually come sorted by score already, with only the documents of
/// tied scores out of order: then only those runs of ties are sorted.
/// Otherwise the entries are sorted by key as pairs of integers (no look-up
/// per comparison), then the runs of ties by document.
#[inline]
fn order_by(
    order: &mut [u32],
    key: impl Fn(u32) -> u64,
    buffer: &ListBuffer,
    keyed: &mut Vec<(u64, u32)>,
    sorted: Option<bool>,
) {
    let doc = |i: u32| buffer.doc(i as usize);
    let by_score = sorted.unwrap_or_else(|| order.windows(2).all(|w| key(w[0]) <= key(w[1])));
    if !by_score {
        keyed.clear();
        keyed.extend(order.iter().map(|&i| (key(i), i)));
        // By key alone: the order within a run of equal keys is set below.
        keyed.sort_unstable_by_key(|&(key, _)| key);
        for (slot, &(_, i)) in order.iter_mut().zip(keyed.iter()) {
            *slot = i;
        }
    }
    let mut start = 0;
    while start < order.len() {
        let tie = key(order[start]);
        let mut end = start + 1;
        while end < order.len() && key(order[end]) == tie {
            end += 1;
        }
        let ties = &mut order[start..end];
        if ties.windows(2).any(|w| doc(w[0]) < doc(w[1])) {
            ties.sort_unstable_by(|&a, &b| doc(b).cmp(doc(a)));
        }
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Decimal, Duplicates, QrelsBuilder, RunBuilder};

    #[test]
    fn judgement_semantics() {
        let unjudged = Judgement::UNJUDGED;
        assert!(!unjudged.is_judged());
        assert_eq!(unjudged.grade(), 0.0);
        assert!(!unjudged.is_relevant(1.0));
        assert!(!unjudged.is_judged_nonrelevant(1.0));
        let negative = Judgement::judged(-1.0);
        assert!(!negative.is_relevant(1.0));
        assert!(!negative.is_judged_nonrelevant(1.0));
        assert_eq!(negative.gain(), 0.0);
        let two = Judgement::judged(2.0);
        assert!(two.is_relevant(2.0));
        assert!(!two.is_relevant(3.0));
        assert!(two.is_judged_nonrelevant(3.0));
        assert_eq!(two.gain(), 2.0);
    }

    #[test]
    fn sort_keys_order_as_the_scores_do_descending() {
        let scores = [
            f64::INFINITY,
            3.5,
            1e-300,
            0.0,
            -0.0,
            -1e-300,
            -2.0,
            f64::NEG_INFINITY,
        ];
        for (a, &x) in scores.iter().enumerate() {
            for &y in &scores[a..] {
                let expected = y.partial_cmp(&x).unwrap();
                assert_eq!(
                    descending_float(x).cmp(&descending_float(y)),
                    expected,
                    "{x} {y}"
                );
            }
        }
        let keys = [i64::MAX, 7, 1, 0, -1, -7, i64::MIN];
        for (a, &x) in keys.iter().enumerate() {
            for &y in &keys[a..] {
                assert_eq!(
                    descending_fixed(x).cmp(&descending_fixed(y)),
                    y.cmp(&x),
                    "{x} {y}"
                );
            }
        }
    }

    #[test]
    fn judging_a_buffer_is_finishing_then_judging() {
        use crate::ListBuffer;
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut qrels = QrelsBuilder::new();
        for d in 0..60 {
            if next(2) == 0 {
                qrels
                    // Integer and half grades.
                    .push("q", format!("d{d}"), next(9) as f64 * 0.5 - 1.0)
                    .unwrap();
            }
        }
        qrels.push("other", "d1", 1).unwrap();
        let qrels = qrels.finish().unwrap();
        let mut buffer = ListBuffer::new();
        let (mut repeats, mut sorted, mut better_later) = (0, 0, 0);
        for case in 0..600 {
            let depth = [None, Some(1), Some(5), Some(30)][case % 4];
            let duplicates = [Duplicates::Error, Duplicates::First][case / 4 % 2];
            let ties = Ties::ALL[case / 8 % 3];
            let groups = ties == Ties::Average;
            let query = if case % 10 == 9 { "unjudged" } else { "q" };
            let by_score = next(2) == 0;
            sorted += usize::from(by_score);
            let mut builder = RunBuilder::new();
            let mut pushed: Vec<(String, f64)> = Vec::new();
            buffer.clear();
            let mut score = 10.0;
            for at in 1..=next(50) {
                // Few documents, so that some repeat; coarse scores, so that
                // many tie; sometimes in score order already.
                let doc = format!("d{}", next(if case % 3 == 0 { 40 } else { 400 }));
                score = if by_score {
                    score - next(3) as f64 * 0.5
                } else {
                    next(6) as f64 - 2.0
                };
                let score = if score == 0.0 && next(2) == 0 {
                    -0.0
                } else {
                    score
                };
                if case % 5 < 3 {
                    // Read as decimals, mostly with the same places (kept as
                    // integers), now and then with others (kept as f64).
                    let places = if next(15) == 0 { 3 } else { 2 };
                    let scaled = (score.abs() * 10f64.powi(places)).round() as u64;
                    let negative = score.is_sign_negative();
                    let decimal = Decimal::new(negative, scaled, places as u8).unwrap();
                    let (q, d) = (query.as_bytes(), doc.as_bytes());
                    builder.push_scored_at(q, d, decimal.value(), at).unwrap();
                    pushed.push((doc.clone(), decimal.value()));
                    buffer.push_decimal_at(q, d, decimal, at).unwrap();
                    continue;
                }
                builder
                    .push_scored_at(query.as_bytes(), doc.as_bytes(), score, at)
                    .unwrap();
                pushed.push((doc.clone(), score));
                buffer
                    .push_scored_at(query.as_bytes(), doc.as_bytes(), score, at)
                    .unwrap();
            }
            let index = qrels.query_index(query.as_bytes());
            let groups_of = |judged: &JudgedRanking<'_>| judged.tie_groups().collect::<Vec<_>>();
            let expected = builder.finish_with(duplicates, ties).map(|run| {
                let dropped = run.duplicates_dropped();
                index.zip(run.list(query)).map(|(q, list)| {
                    let mut judge =
                        Judge::new(depth, RelevanceLevel::DEFAULT).with_ties(ties, groups);
                    let judged = judge.judge(&qrels, q, Some(list));
                    (
                        judged.ranked().to_vec(),
                        judged.retrieved(),
                        judged.ideal_grades().to_vec(),
                        groups_of(&judged),
                        dropped,
                    )
                })
            });
            let mut judge = Judge::new(depth, RelevanceLevel::DEFAULT).with_ties(ties, groups);
            let got = judge
                .judge_buffer(&qrels, index, &buffer, duplicates)
                .map(|judged| {
                    judged.map(|judged| {
                        (
                            judged.ranked().to_vec(),
                            judged.retrieved(),
                            judged.ideal_grades().to_vec(),
                            groups_of(&judged),
                            0,
                        )
                    })
                })
                .map(|judged| {
                    judged.map(|(ranked, retrieved, ideal, groups, _)| {
                        (ranked, retrieved, ideal, groups, judge.repeats_dropped())
                    })
                });
            repeats += usize::from(expected.is_err());
            // Cases where `First` keeps a later occurrence than the first
            // line, and it is judged: they tell the two rules apart.
            if duplicates == Duplicates::First && query == "q" {
                better_later += usize::from(pushed.iter().enumerate().any(|(i, (doc, score))| {
                    qrels.grade_of("q", doc.as_str()).is_some()
                        && pushed[..i].iter().any(|(d, s)| d == doc && s < score)
                }));
            }
            // An empty buffer is a query with no list at all.
            if buffer.is_empty() {
                continue;
            }
            assert_eq!(got, expected, "case {case}");
        }
        assert!(
            repeats > 30 && sorted > 200 && better_later > 20,
            "{repeats} {sorted} {better_later}"
        );
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
                Judgement::judged(2.0),
                Judgement::judged(0.0)
            ]
        );
        assert_eq!(judged.retrieved(), 4);
        assert_eq!(judged.ideal_grades(), [3.0, 2.0, 1.0, 0.0, -1.0]);
        assert_eq!(judged.num_relevant(1.0), 3);
        assert_eq!(judged.num_relevant(2.0), 2);
        assert_eq!(judged.num_judged_nonrelevant(1.0), 1);
        assert_eq!(judged.num_judged_nonrelevant(2.0), 2);
        assert_eq!(judged.top(Cutoff::new(2)).len(), 2);
        assert_eq!(judged.top(Cutoff::new(10)).len(), 3);

        let missing = judge.judge(&qrels, q, None);
        assert_eq!(missing.retrieved(), 0);
        assert!(missing.ranked().is_empty());
        assert_eq!(missing.num_relevant(1.0), 3);
    }

    #[test]
    fn tie_groups_extend_the_depth_to_the_end_of_a_group() {
        let mut qrels = QrelsBuilder::new();
        qrels.push("q", "c", 1).unwrap();
        let qrels = qrels.finish().unwrap();
        let q = qrels.query_index(b"q").unwrap();
        let mut run = RunBuilder::new();
        for (doc, score) in [("a", 3.0), ("b", 2.0), ("c", 2.0), ("d", 2.0), ("e", 1.0)] {
            run.push_scored("q", doc, score).unwrap();
        }
        let run = run.finish(Duplicates::Error).unwrap();
        let mut judge = Judge::new(Some(2), RelevanceLevel::DEFAULT).with_ties(Ties::Average, true);
        let judged = judge.judge(&qrels, q, run.list("q"));
        // Rank 2 starts a group of three: judged down to rank 4.
        assert_eq!(judged.ranked().len(), 4);
        assert_eq!(judged.tie_groups().collect::<Vec<_>>(), [0..1, 1..4]);
        let mut judge = Judge::new(Some(2), RelevanceLevel::DEFAULT);
        let judged = judge.judge(&qrels, q, run.list("q"));
        assert_eq!(judged.ranked().len(), 2);
        assert_eq!(judged.tie_groups().count(), 2);
    }

    #[test]
    fn input_order_keeps_tied_documents_as_given() {
        let mut run = RunBuilder::new();
        for (doc, score) in [("a", 1.0), ("z", 2.0), ("b", 1.0), ("c", 1.0)] {
            run.push_scored("q", doc, score).unwrap();
        }
        let docs = |ties| {
            let run = run.clone().finish_with(Duplicates::Error, ties).unwrap();
            run.list("q")
                .unwrap()
                .docs()
                .map(|d| d.to_vec())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            docs(Ties::Input),
            [b"z".to_vec(), b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]
        );
        assert_eq!(
            docs(Ties::Docid),
            [b"z".to_vec(), b"c".to_vec(), b"b".to_vec(), b"a".to_vec()]
        );
    }
}
