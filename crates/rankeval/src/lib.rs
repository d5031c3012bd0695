//! # rankeval
//!
//! Evaluates ranked lists (search results, recommendations, RAG retrieval)
//! against graded judgements: the crate a Rust user depends on. It holds
//! the parallel engine (whole runs, runs evaluated while read, Arrow
//! batches), TOML experiments, corpus metrics, explain, comparisons of
//! evaluations and the report model (the plain data every renderer of
//! `rankeval-report` prints). It re-exports the readers of
//! [`rankeval_readers`] as [`read`], and links the built-in metrics of
//! [`rankeval_metrics`], re-exported as [`metrics`], so the registry knows
//! them by name. The command line is the `rankeval-cli` crate.
//!
//! ## In memory
//!
//! Build qrels and a run from Rust values (ids as strings or integers, lists
//! ranked or with scores), pick metrics by value or by the short syntax, and
//! get per-query values and means:
//!
//! ```
//! use rankeval::metrics::{Precision, ReciprocalRank};
//! use rankeval::{Duplicates, Options, QrelsBuilder, RunBuilder, evaluate, parse_metric};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut qrels = QrelsBuilder::new();
//! for (query, doc, grade) in [("u1", "B", 1), ("u1", "D", 1), ("u1", "Z", 1), ("u2", "E", 1), ("u2", "B", 2)] {
//!     qrels.push(query, doc, grade)?;
//! }
//! let qrels = qrels.finish()?;
//!
//! let mut run = RunBuilder::new();
//! run.push_list("u1", ["A", "B", "C", "D", "E"])?; // already ranked, best first
//! for (doc, score) in [(7, 0.1), (3, 0.9), (9, 0.5)] {
//!     run.push_scored("u2", doc, score)?; // ordered by score when finished
//! }
//! let run = run.finish(Duplicates::Error)?;
//!
//! let metrics = vec![
//!     parse_metric("ap(normalization=truncated)@5")?,
//!     Box::new(Precision::at(3).expect("3 is a cutoff")) as _,
//!     Box::new(ReciprocalRank::default()) as _,
//! ];
//! let evaluation = evaluate(&qrels, &run, &metrics, &Options::default());
//!
//! assert_eq!(evaluation.metrics(), ["ap(norm=truncated)@5", "p@3", "rr"]);
//! let ap: Vec<(&str, f64)> = evaluation.per_query("ap(norm=truncated)@5").unwrap().collect();
//! assert_eq!(ap, [("u1", (1.0 / 2.0 + 2.0 / 4.0) / 3.0), ("u2", 0.0)]);
//! assert_eq!(evaluation.mean("rr"), Some((1.0 / 2.0 + 0.0) / 2.0));
//! # Ok(())
//! # }
//! ```
//!
//! ## From files
//!
//! ```no_run
//! use rankeval::{Input, Options, ReadOptions, evaluate, parse_metric, read_qrels, read_run};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let qrels = read_qrels(&Input::file("qrels.txt"))?;
//! let run = read_run(&Input::file("run.trec.gz"), ReadOptions::default())?;
//! let metrics = vec![parse_metric("ndcg@10")?, parse_metric("map")?];
//! let evaluation = evaluate(&qrels, &run, &metrics, &Options::default());
//! for warning in evaluation.warnings() {
//!     eprintln!("warning: {warning}");
//! }
//! # Ok(())
//! # }
//! ```

#![warn(clippy::unwrap_used, clippy::expect_used)]

pub mod agreement;
pub mod benchmarks;
pub mod changed;
pub mod compare;
pub mod config;
pub mod corpus;
pub mod curves;
pub mod engine;
pub mod expected;
pub mod experiment;
pub mod explain;
pub mod files;
pub mod front;
pub mod groups;
pub mod naming;
pub mod ope;
pub mod ope_record;
pub mod outcome;
pub mod overlap;
pub mod ppi;
pub mod read_advice;
pub mod record;
pub mod report;
pub mod spans;
pub mod spec;
pub mod suite;
pub mod systems;

/// The version of rankeval: the package's, with the commit it was built
/// from as build metadata where the sources were a git checkout
/// (`0.1.0+1a2b3c4d5e`, valid SemVer and PEP 440, so that `rankeval
/// --version` and the Python package's `__version__` print the same and a
/// report can be traced to its code; changes not committed are not told);
/// the package's alone otherwise (`0.1.0`, a crate from crates.io).
pub fn version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        let commit = env!("RANKEVAL_COMMIT");
        if commit.is_empty() {
            env!("CARGO_PKG_VERSION").to_owned()
        } else {
            format!("{}+{commit}", env!("CARGO_PKG_VERSION"))
        }
    })
}

pub use rankeval_core as core;
/// The results history (`--record`, `rankeval history`): SQLite records of
/// evaluations, read back, accepted, trended and exported.
pub use rankeval_history as history;
pub use rankeval_metrics as metrics;
pub use rankeval_readers as read;

pub use engine::{
    Coverage, Evaluation, Missing, Options, QuerySample, ScoreThreshold, Warning, check_ties,
    evaluate,
};
pub use engine::{
    evaluate_batches, evaluate_corpus, evaluate_corpus_with, evaluate_grouped,
    evaluate_grouped_batches, evaluate_input,
};
pub use rankeval_core::registry::{parse_aggregator, parse_metric};
pub use rankeval_core::{
    Aggregator, Duplicates, Metric, PluginError, Qrels, QrelsBuilder, RelevanceLevel, Run,
    RunBuilder,
};
pub use read::{
    CsvOptions, Format, Input, ReadError, ReadErrorKind, ReadOptions, qrels_from_batches,
    read_qrels, read_run, run_from_batches,
};
