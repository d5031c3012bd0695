//! The guard against a run that never ran on these qrels: one that shares
//! no query with them, or whose every judged query has an empty list. Such
//! a run scores 0 everywhere under `missing = "zero"` (and evaluates
//! nothing under `skip`), and compared with a baseline it looks like a
//! significant loss: almost always a wrong file, ids that differ in form
//! (`301` and `q301`), or a system that crashed, not a result. It is an
//! error unless the user asks for it (`allow_empty_run`).

use std::fmt;

use super::{Evaluation, Options};
use crate::front::{Describe, FrontEnd};

/// Ids a message shows at most.
const EXAMPLES: usize = 5;

/// A run that never ran on the qrels it is evaluated against.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe(FrontEnd::CommandLine))]
pub struct NeverRan {
    /// The run's name.
    pub run: String,
    /// Its file (or the name of its data), as the user gave it.
    pub input: String,
    /// Why it counts as never ran.
    pub why: NeverRanWhy,
}

/// Why a run counts as never ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NeverRanWhy {
    /// No query of the run is judged.
    NoSharedQuery {
        /// How many queries the run lists, and the first few.
        run_queries: usize,
        /// Examples of the run's queries.
        run_examples: Vec<String>,
        /// How many judged queries have no list, and the first few.
        judged_queries: usize,
        /// Examples of the judged queries.
        judged_examples: Vec<String>,
    },
    /// The run lists judged queries, but every one of those lists is empty.
    EmptyLists {
        /// How many judged queries the run lists.
        shared: usize,
    },
}

/// An error if the evaluation's run never ran on its qrels (and
/// `options.allow_empty_run` does not allow it). An evaluation without
/// metrics (corpus metrics alone) reads no judgement and is never refused.
pub fn never_ran(
    run: &str,
    input: &str,
    evaluation: &Evaluation,
    options: &Options,
) -> Result<(), NeverRan> {
    let coverage = evaluation.coverage();
    if options.allow_empty_run || evaluation.metrics().is_empty() || coverage.ranked > 0 {
        return Ok(());
    }
    let shared = coverage.evaluated - coverage.missing_scored_zero.count;
    let why = if shared == 0 {
        let judged = if coverage.missing_scored_zero.is_empty() {
            &coverage.missing_skipped
        } else {
            &coverage.missing_scored_zero
        };
        NeverRanWhy::NoSharedQuery {
            run_queries: coverage.run_only.len(),
            run_examples: coverage.run_only.iter().take(EXAMPLES).cloned().collect(),
            judged_queries: judged.count,
            judged_examples: judged.first.clone(),
        }
    } else {
        NeverRanWhy::EmptyLists { shared }
    };
    Err(NeverRan {
        run: run.to_owned(),
        input: input.to_owned(),
        why,
    })
}

/// `count` and the first ids, e.g. "3 (`a`, `b`, `c`)", each cut as
/// messages cut ids (a run's 1 MB id is not echoed whole).
fn counted(count: usize, examples: &[String]) -> String {
    if examples.is_empty() {
        return count.to_string();
    }
    let mut shown: Vec<String> = examples
        .iter()
        .map(|id| format!("`{}`", rankeval_core::shorten_id(id.as_bytes())))
        .collect();
    if count > examples.len() {
        shown.push("...".to_owned());
    }
    format!("{count}: {}", shown.join(", "))
}

impl Describe for NeverRan {
    fn write_for(&self, f: &mut dyn fmt::Write, front: FrontEnd) -> fmt::Result {
        write!(f, "run `{}` ", self.run)?;
        if self.input != self.run {
            write!(f, "({}) ", self.input)?;
        }
        f.write_str("never ran on these qrels: ")?;
        match &self.why {
            NeverRanWhy::NoSharedQuery {
                run_queries,
                run_examples,
                judged_queries,
                judged_examples,
            } => write!(
                f,
                "it shares no query with them (run queries {}; judged queries {}); are they \
                 of the same topics, with ids written the same way?",
                counted(*run_queries, run_examples),
                counted(*judged_queries, judged_examples),
            )?,
            NeverRanWhy::EmptyLists { shared } => write!(
                f,
                "its lists for the {shared} judged {} it holds are all empty.",
                if *shared == 1 { "query" } else { "queries" }
            )?,
        }
        let allow = match front {
            FrontEnd::CommandLine => "--allow-empty-run (TOML: allow_empty_run = true)",
            FrontEnd::Python => "allow_empty_run=True",
        };
        write!(
            f,
            " Every metric would be 0 (or no query evaluated), and a comparison could call the \
             loss significant; to evaluate it all the same, use {allow}"
        )
    }
}
