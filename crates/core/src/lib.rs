//! # rankeval-core
//!
//! The contract of rankeval: the data model, the [`Metric`] and
//! [`Aggregator`] traits, the plugin registry and the errors. No I/O, no
//! command line, no built-in metrics.
//!
//! Who depends on it:
//! - `rankeval-metrics`, the built-in metrics, registered exactly as yours;
//! - `rankeval-readers`, which reads files into this model, and `rankeval`,
//!   which evaluates in parallel (the `rankeval` command and the renderers
//!   of reports are built on it);
//! - your own plugin crate, which implements [`Metric`] and registers it with
//!   the attribute [`macro@metric`] on that impl.
//!
//! ## Data flow
//!
//! ```text
//! read ──> QrelsBuilder / RunBuilder ──finish──> Qrels, Run
//!          (columnar, no allocation per entry;    (each query's list grouped,
//!           query ids interned once)               ordered, duplicates resolved)
//! judge ─> Judge::judge(qrels, query, list) ──> JudgedRanking (once per query)
//! score ─> every Metric::score(&JudgedRanking) ──> f64
//! aggregate ─> every Aggregator::aggregate(per-query column) ──> f64
//! ```
//!
//! Query ids are interned to dense integers once per run and per qrels; the
//! engine matches the two once per query. Document ids stay bytes in one
//! arena per run: a run's document is only ever compared within its own
//! query (duplicates, ties) and looked up once in its query's judgements when
//! judged, so a global table of every document id (millions of strings for a
//! web-scale run) would cost memory and cache misses for nothing.
//!
//! ## Writing a metric
//!
//! ```
//! use rankeval_core::{CanonicalName, Cutoff, JudgedRanking, Metric, RelevanceLevel};
//! use rankeval_core::registry::{PARAM_K, PARAM_REL};
//! use serde::{Deserialize, Serialize};
//!
//! /// 1 if a relevant document is in the top k.
//! #[derive(Debug, Default, Serialize, Deserialize)]
//! #[serde(deny_unknown_fields)]
//! pub struct AnyHit {
//!     #[serde(default, skip_serializing_if = "Option::is_none")]
//!     k: Option<Cutoff>,
//!     #[serde(default, skip_serializing_if = "Option::is_none")]
//!     rel: Option<RelevanceLevel>,
//! }
//!
//! // The name, written once, is the TOML `type` and the registry's key.
//! #[rankeval_core::metric(
//!     name = "any_hit",
//!     summary = "1 if a relevant document is in the top k, else 0",
//!     params = &[PARAM_K, PARAM_REL],
//!     example = AnyHit { k: Cutoff::new(10), rel: None },
//! )]
//! impl Metric for AnyHit {
//!     fn name(&self) -> String {
//!         CanonicalName::new("any_hit").param_if_set("rel", self.rel).cutoff(self.k)
//!     }
//!     fn depth(&self) -> Option<Cutoff> {
//!         self.k
//!     }
//!     fn score(&self, q: &JudgedRanking<'_>) -> f64 {
//!         let level = q.level(self.rel);
//!         f64::from(u8::from(q.top(self.k).iter().any(|j| j.is_relevant(level))))
//!     }
//! }
//!
//! let metric = rankeval_core::registry::parse_metric("any_hit@3").unwrap();
//! assert_eq!(metric.name(), "any_hit@3");
//! ```

#![warn(clippy::unwrap_used, clippy::expect_used)]

mod aggregate;
pub mod aggregate_state;
mod buffer;
pub mod completion;
pub mod context;
pub mod corpus;
pub mod doc_groups;
pub mod error;
pub mod exact_sum;
pub mod explain;
mod grade;
mod grades;
pub mod group_targets;
mod hash;
mod id;
mod interner;
pub mod ir_measures;
pub mod judge;
pub mod judged_only;
mod lists;
mod location;
mod macros;
mod metric;
mod origins;
pub mod params;
pub mod propensity;
mod qrels;
pub mod registry;
mod requested;
mod run;
pub mod sampled;
pub mod subtopics;
pub mod syntax;
#[cfg(feature = "testing")]
pub mod testing;
mod tied;
pub mod ties;
mod ties_setting;

pub use aggregate::{Aggregator, Bounds};
pub use aggregate_state::{AggregateState, AggregateStateError};
pub use buffer::{Decimal, ListBuffer};
pub use context::{DocumentContext, DocumentView, QrelsMean, Requirement, WholeQrels};
pub use corpus::{
    Catalog, CorpusInputs, CorpusMetric, CorpusState, ItemFeatures, Requires, Training,
};
pub use doc_groups::{DocGroupsError, DocumentGroups, DocumentGroupsBuilder, GroupRanking};
pub use error::{
    PluginError, PluginKind, QrelsError, RegistryError, RunError, SyntaxError, shorten_id,
};
pub use explain::Explanation;
pub use grade::{Grade, GradeError, MAX_GRADE, check_grade};
pub use group_targets::GroupTargets;
pub use id::{BadId, Id, check_id};
pub use interner::Interner;
pub use judge::{Judge, JudgedRanking, Judgement};
pub use judged_only::JudgedOnly;
pub use metric::{Metric, TrecAll, TrecEvalMeasure};
pub use params::{CanonicalName, Cutoff, ParamValue, RelevanceLevel};
pub use propensity::{JainModel, LabelPropensities};
pub use qrels::{Qrels, QrelsBuilder, QrelsPart, QrelsParts};
pub use rankeval_macros::{aggregator, corpus_metric, metric};
pub use requested::{RequestedMetric, build_requested, parse_requested, parse_requested_each};
pub use run::{Duplicates, RankedList, Run, RunBuilder, compare_scored};
pub use sampled::{SampledRun, SampledRunBuilder, Samples};
pub use subtopics::{QuerySubtopics, SubtopicQrels, SubtopicQrelsBuilder, SubtopicRanking};
pub use tied::Tied;
pub use ties_setting::{TieGroups, Ties};

#[doc(hidden)]
pub mod __private {
    pub use inventory;
    pub use typetag;
}
