//! What a per-query metric needs beyond the qrels and the run: the one
//! mechanism by which a metric asks for more data, and by which that data
//! reaches it.
//!
//! A metric declares its needs in [`Metric::requires`](crate::Metric::requires)
//! (a list of [`Requirement`]s); `rankeval::spec::resolve` checks them once
//! for every front end (a missing input is an error naming the metric and
//! the flag, TOML key or keyword that gives it). The data then rides with
//! the qrels, which hand it to the judge, which hands each query's view to
//! the metrics: subtopic judgements ([`Qrels::with_subtopics`]) and, for
//! the per-document facts below, a [`DocumentContext`]
//! ([`Qrels::with_documents`]), seen by a metric as
//! [`JudgedRanking::documents`](crate::JudgedRanking::documents). Without a
//! metric that requires one, nothing of this is built and the judge's path
//! is the same as before.
//!
//! [`Qrels::with_subtopics`]: crate::Qrels::with_subtopics
//! [`Qrels::with_documents`]: crate::Qrels::with_documents

use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, RwLock};

use crate::exact_sum::FullSum;
use crate::grade::Grade;
use crate::propensity::LabelPropensities;
use crate::qrels::Qrels;

/// One input a per-query metric needs besides the qrels and the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Requirement {
    /// Subtopic judgements (`query subtopic document grade`): the
    /// diversity metrics (alpha-nDCG, ERR-IA, ...).
    Subtopics,
    /// Label propensities, from training label frequencies or given
    /// inverse propensities: the propensity-scored metrics (PSP@k,
    /// PSnDCG@k).
    Propensities,
    /// Whether a document is judged for any query of the qrels (BEIR's
    /// "annotated corpus"): Hole@k. Made from the qrels; nothing to give.
    JudgedAnywhere,
    /// Groups of documents with weights (`document group weight`, a
    /// groups file): the group-fairness metrics (expected exposure's
    /// ee_d/ee_r/ee_l, AWRF, TREC Fair 2021's score). The judge hands them
    /// on as [`JudgedRanking::groups`](crate::JudgedRanking::groups).
    DocumentGroups,
    /// A target distribution over the document groups per query (a table
    /// `query, group, share`): AWRF's `target = given`, handed on as
    /// [`GroupRanking::target`](crate::GroupRanking::target).
    GroupTargets,
}

impl Requirement {
    /// Every requirement, in the order messages and listings give them.
    pub const ALL: [Requirement; 5] = [
        Requirement::Subtopics,
        Requirement::Propensities,
        Requirement::JudgedAnywhere,
        Requirement::DocumentGroups,
        Requirement::GroupTargets,
    ];

    /// Whether an input must be given for it (else it is made from the
    /// qrels).
    pub fn needs_input(self) -> bool {
        !matches!(self, Requirement::JudgedAnywhere)
    }

    /// What it is, in words, for messages.
    pub fn what(self) -> &'static str {
        match self {
            Requirement::Subtopics => "subtopic judgements",
            Requirement::Propensities => {
                "label propensities (a label-frequency table or inverse propensities)"
            }
            Requirement::JudgedAnywhere => "the documents judged for any query",
            Requirement::DocumentGroups => "document groups",
            Requirement::GroupTargets => "per-query target distributions over the document groups",
        }
    }
}

/// Whether any of `metrics` requires `requirement`.
pub fn any_requires(metrics: &[Box<dyn crate::Metric>], requirement: Requirement) -> bool {
    metrics.iter().any(|m| m.requires().contains(&requirement))
}

/// Per-document facts of a whole qrels, built once when a metric requires
/// them and attached to the qrels ([`Qrels::with_documents`]): each label's
/// propensity, and the set of documents judged for any query.
pub struct DocumentContext {
    propensities: Option<PropensityJudgements>,
    judged_anywhere: Option<Arc<HashSet<Box<[u8]>>>>,
}

/// What a part of the qrels (the queries of one Spark chunk) takes from
/// the whole qrels, gathered over every part beforehand: the normalisers
/// the metrics compute over every query ([`QrelsMean`], by their key) and
/// the documents judged for any query. [`DocumentContext::build_part`]
/// uses them in place of what it would compute over its part alone.
#[derive(Clone, Debug, Default)]
pub struct WholeQrels {
    /// Each [`QrelsMean`]'s value over every query of the qrels, by key.
    pub normalisers: Option<Arc<[(NormaliserKey, f64)]>>,
    /// The documents judged for any query of the qrels.
    pub judged_anywhere: Option<Arc<HashSet<Box<[u8]>>>>,
}

impl fmt::Debug for DocumentContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DocumentContext")
            .field("propensities", &self.propensities.is_some())
            .field(
                "judged_anywhere",
                &self.judged_anywhere.as_ref().map(|set| set.len()),
            )
            .finish()
    }
}

/// A relevant-looking judged document whose propensity is not given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "document {doc} of query {query} is judged but has no inverse propensity (every judged label needs one)"
)]
pub struct MissingPropensity {
    /// The query, shortened for messages.
    pub query: String,
    /// The document, shortened for messages.
    pub doc: String,
}

impl DocumentContext {
    /// The facts `requirements` ask for, over `qrels`: `propensities` when
    /// [`Requirement::Propensities`] is among them, the set of judged
    /// documents when [`Requirement::JudgedAnywhere`] is. Refuses given
    /// inverse propensities that miss a judged document (counts do not:
    /// a label never seen in training has count 0).
    pub fn build(
        qrels: &Qrels,
        requirements: &[Requirement],
        propensities: Option<Arc<LabelPropensities>>,
    ) -> Result<Self, MissingPropensity> {
        let propensities = match propensities {
            Some(table) if requirements.contains(&Requirement::Propensities) => {
                Some(PropensityJudgements::build(qrels, table)?)
            }
            _ => None,
        };
        let judged_anywhere = requirements
            .contains(&Requirement::JudgedAnywhere)
            .then(|| Arc::new(judged_documents(qrels)));
        Ok(DocumentContext {
            propensities,
            judged_anywhere,
        })
    }

    /// The facts `requirements` ask for over `qrels`, a part of the whole
    /// qrels (a Spark chunk's queries): each query's judgements from
    /// `qrels` (numbered as `qrels` numbers its queries, as the judge
    /// looks them up), the normalisers and the documents judged for any
    /// query from `whole`. A normaliser `whole` does not give is NaN
    /// (never computed over the part: it would be another number); the
    /// set of judged documents is empty when `whole` has none.
    pub fn build_part(
        qrels: &Qrels,
        requirements: &[Requirement],
        propensities: Option<Arc<LabelPropensities>>,
        whole: &WholeQrels,
    ) -> Result<Self, MissingPropensity> {
        let propensities = match propensities {
            Some(table) if requirements.contains(&Requirement::Propensities) => {
                let mut judgements = PropensityJudgements::build(qrels, table)?;
                judgements.given = Some(whole.normalisers.clone().unwrap_or_else(|| Arc::new([])));
                Some(judgements)
            }
            _ => None,
        };
        let judged_anywhere = requirements
            .contains(&Requirement::JudgedAnywhere)
            .then(|| whole.judged_anywhere.clone().unwrap_or_default());
        Ok(DocumentContext {
            propensities,
            judged_anywhere,
        })
    }

    /// Whether anything is built (the judge then looks each ranked
    /// document up).
    pub fn is_empty(&self) -> bool {
        self.propensities.is_none() && self.judged_anywhere.is_none()
    }

    /// The propensity of `doc`'s label as the judge hands it on (see
    /// [`DocumentView::label`]); NaN without propensities.
    #[inline]
    pub fn label_value(&self, doc: &[u8]) -> f64 {
        self.propensities
            .as_ref()
            .map_or(f64::NAN, |p| p.table.value(doc))
    }

    /// Whether `doc` is judged for some query; `false` when the set is not
    /// built.
    #[inline]
    pub fn is_judged_anywhere(&self, doc: &[u8]) -> bool {
        self.judged_anywhere
            .as_ref()
            .is_some_and(|set| set.contains(doc))
    }

    /// The label propensities, if built.
    pub fn propensities(&self) -> Option<&PropensityJudgements> {
        self.propensities.as_ref()
    }
}

/// Every document `qrels` judge, for any query and with any grade: the
/// set Hole@k looks ranked documents up in.
pub fn judged_documents(qrels: &Qrels) -> HashSet<Box<[u8]>> {
    (0..qrels.num_queries() as u32)
        .flat_map(|q| qrels.judgements(q).map(|(doc, _)| Box::from(doc)))
        .collect()
}

/// A normaliser a metric computes over every query of the qrels: the mean
/// over the queries of `term` of each query's judged labels (`(grade,
/// label value)`, under the label propensities), cached by `key` (PSP's
/// and PSnDCG's best achievable value, pyxclib's normalisation). The
/// metric computes it with [`PropensityJudgements::mean`] and declares it
/// in [`Metric::qrels_means`](crate::Metric::qrels_means), so that a caller
/// that sees the qrels a part at a time (Spark) can sum `term` over every
/// part first ([`PropensityJudgements::sum`]) and give the mean back
/// ([`WholeQrels`]).
pub struct QrelsMean<'m> {
    /// The cache key: the metric's own (its kind, cutoff, level, model).
    pub key: NormaliserKey,
    /// A query's term, from its judged labels and the propensity table.
    pub term: Box<QueryTerm<'m>>,
}

/// A query's term of a [`QrelsMean`]: from its judged documents' `(grade,
/// label value)` and the label propensities.
pub type QueryTerm<'m> = dyn Fn(&[(Grade, f64)], &LabelPropensities) -> f64 + Send + Sync + 'm;

impl fmt::Debug for QrelsMean<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QrelsMean").field("key", &self.key).finish()
    }
}

/// The mean of `sum` over `queries` queries, as [`PropensityJudgements::mean`]
/// computes it: the sum rounded once, divided by the count; 0 without
/// queries.
pub fn mean_of(sum: &FullSum, queries: u64) -> f64 {
    if queries == 0 {
        return 0.0;
    }
    sum.value() / queries as f64
}

/// The label propensities with, per query of the qrels, each judged
/// document's grade and label value: what the best achievable ranking of
/// every query is made from (pyxclib's normalisation divides by its mean).
pub struct PropensityJudgements {
    table: Arc<LabelPropensities>,
    /// Query `q`'s judged documents are `judged[starts[q]..starts[q + 1]]`.
    starts: Vec<usize>,
    judged: Vec<(Grade, f64)>,
    /// Normalisers computed so far, by the asking metric's key.
    cache: RwLock<Vec<(NormaliserKey, f64)>>,
    /// Normalisers computed over the whole qrels, when these are a part
    /// of them ([`DocumentContext::build_part`]): used instead of the
    /// cache, never computed over the part.
    given: Option<Arc<[(NormaliserKey, f64)]>>,
}

/// What a cached normaliser was computed for: a metric's own key (its
/// kind, cutoff, level and model, as bits).
pub type NormaliserKey = [u64; 5];

impl PropensityJudgements {
    fn build(qrels: &Qrels, table: Arc<LabelPropensities>) -> Result<Self, MissingPropensity> {
        let mut starts = Vec::with_capacity(qrels.num_queries() + 1);
        let mut judged = Vec::with_capacity(qrels.num_judgements());
        starts.push(0);
        for q in 0..qrels.num_queries() as u32 {
            for (doc, grade) in qrels.judgements(q) {
                let value = table.value(doc);
                if value.is_nan() {
                    return Err(MissingPropensity {
                        query: crate::shorten_id(qrels.query_bytes(q)),
                        doc: crate::shorten_id(doc),
                    });
                }
                judged.push((grade, value));
            }
            starts.push(judged.len());
        }
        Ok(PropensityJudgements {
            table,
            starts,
            judged,
            cache: RwLock::new(Vec::new()),
            given: None,
        })
    }

    /// The table the values come from.
    pub fn table(&self) -> &LabelPropensities {
        &self.table
    }

    /// The number of queries of the qrels.
    pub fn num_queries(&self) -> usize {
        self.starts.len() - 1
    }

    /// Each query's judged documents as `(grade, label value)`, in the
    /// qrels' query order.
    pub fn queries(&self) -> impl Iterator<Item = &[(Grade, f64)]> + '_ {
        self.starts
            .windows(2)
            .map(|w| self.judged.get(w[0]..w[1]).unwrap_or(&[]))
    }

    /// The exact sum of `term` over every query of these qrels.
    pub fn sum(&self, term: &QueryTerm<'_>) -> FullSum {
        self.queries()
            .map(|judged| term(judged, &self.table))
            .collect()
    }

    /// `mean`'s value over every query of the qrels ([`mean_of`] their
    /// [`sum`](Self::sum)), cached by its key; the whole qrels' value when
    /// these are a part of them.
    pub fn mean(&self, mean: &QrelsMean<'_>) -> f64 {
        self.normaliser(mean.key, |p| {
            mean_of(&p.sum(&mean.term), p.num_queries() as u64)
        })
    }

    /// The normaliser `key` stands for: cached, else `compute(self)`, kept
    /// (the same value whichever thread computes it first). When these are
    /// a part of the qrels ([`DocumentContext::build_part`]), the whole
    /// qrels' value, NaN when it was not given.
    pub fn normaliser(&self, key: NormaliserKey, compute: impl FnOnce(&Self) -> f64) -> f64 {
        if let Some(given) = &self.given {
            return given
                .iter()
                .find(|(k, _)| *k == key)
                .map_or(f64::NAN, |&(_, value)| value);
        }
        if let Ok(cache) = self.cache.read()
            && let Some(&(_, value)) = cache.iter().find(|(k, _)| *k == key)
        {
            return value;
        }
        let value = compute(self);
        if let Ok(mut cache) = self.cache.write()
            && !cache.iter().any(|(k, _)| *k == key)
        {
            cache.push((key, value));
        }
        value
    }
}

/// One query's ranked documents seen through a [`DocumentContext`]: per
/// judged rank, the document's label value and whether it is judged for
/// any query.
#[derive(Clone, Copy, Debug)]
pub struct DocumentView<'a> {
    context: &'a DocumentContext,
    query: Option<u32>,
    labels: &'a [f64],
    judged_anywhere: &'a [bool],
}

impl<'a> DocumentView<'a> {
    /// A view of `query`'s ranked documents (`labels` and
    /// `judged_anywhere` one per judged rank).
    pub fn new(
        context: &'a DocumentContext,
        query: Option<u32>,
        labels: &'a [f64],
        judged_anywhere: &'a [bool],
    ) -> Self {
        DocumentView {
            context,
            query,
            labels,
            judged_anywhere,
        }
    }

    /// The label value of the document at `rank` (0-based): its training
    /// count or its given inverse propensity, as the table holds
    /// ([`LabelPropensities::weight`] turns it into a weight); NaN when
    /// there are no propensities or the rank is past the judged depth.
    #[inline]
    pub fn label(&self, rank: usize) -> f64 {
        self.labels.get(rank).copied().unwrap_or(f64::NAN)
    }

    /// Whether the document at `rank` (0-based) is judged for any query.
    #[inline]
    pub fn judged_anywhere(&self, rank: usize) -> bool {
        self.judged_anywhere.get(rank).copied().unwrap_or(false)
    }

    /// The same view of the first `len` ranks only (a ranking judged to a
    /// smaller depth).
    pub fn cut(self, len: usize) -> Self {
        DocumentView {
            labels: self.labels.get(..len).unwrap_or(self.labels),
            judged_anywhere: self
                .judged_anywhere
                .get(..len)
                .unwrap_or(self.judged_anywhere),
            ..self
        }
    }

    /// The whole experiment's facts.
    pub fn context(&self) -> &'a DocumentContext {
        self.context
    }

    /// This query's judged documents as `(grade, label value)`, if
    /// propensities are given.
    pub fn query_judgements(&self) -> &'a [(Grade, f64)] {
        match (self.context.propensities(), self.query) {
            (Some(p), Some(q)) => {
                let q = q as usize;
                match (p.starts.get(q), p.starts.get(q + 1)) {
                    (Some(&a), Some(&b)) => p.judged.get(a..b).unwrap_or(&[]),
                    _ => &[],
                }
            }
            _ => &[],
        }
    }
}
