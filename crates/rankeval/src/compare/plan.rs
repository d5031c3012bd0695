//! Carrying out a [`ComparisonPlan`] on an evaluated report: read the
//! baseline's results file if there is one, compare, and make the report
//! the renderers show (with the file's baseline as its first run).

use rankeval_core::Aggregator;

use super::{Baseline, CompareRunError, ComparisonReport, compare, read_results};
use crate::report::{GroupResult, Report, RunResult, aggregate_run};

/// What to compare and check once the runs are evaluated: resolved, every
/// name and number checked, nothing read yet.
#[derive(Clone, Debug, PartialEq)]
pub struct ComparisonPlan {
    /// The baseline; `None` to compare every pair of runs.
    pub baseline: Option<BaselineRef>,
    /// Test, resamples, seed, correction, family, alpha, level, `missing`.
    pub settings: super::Settings,
    /// The gates, metrics by canonical name.
    pub gates: Vec<super::GateSpec>,
}

/// A baseline before it is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BaselineRef {
    /// A run of the experiment, by name.
    Run(String),
    /// A results file (`--format json --per-query`) and the run in it
    /// (needed when it holds several).
    Results {
        /// The file.
        path: std::path::PathBuf,
        /// The run's name in it.
        run: Option<String>,
    },
    /// A record of a results history (`db:DB`, `db:DB#ID`): record `id`,
    /// or the last accepted one. `Experiment::run` checks its judgements'
    /// fingerprint and metric definitions against the evaluation's and
    /// fixes the id before it is read.
    History {
        /// The database.
        db: std::path::PathBuf,
        /// The record; `None` for the last accepted.
        id: Option<i64>,
        /// Compared even when its judgements or definitions differ.
        allow_changed: bool,
        /// Compared even when the options that change numbers differ.
        allow_changed_options: bool,
        /// Where the baseline was asked for: how a message names the
        /// options and overrides (`--rel`, `` `rel` ``, `rel=`).
        from: crate::spec::Origin,
    },
}

/// A report with its comparison, ready to render.
#[derive(Clone, Debug)]
pub struct Compared {
    /// The runs' results; a baseline read from a results file is its first
    /// run (named `NAME (baseline)` if a run of the experiment has its name).
    pub report: Report,
    /// Every comparison and gate.
    pub comparison: ComparisonReport,
    /// The baseline's index in `report.runs`; `None` for all pairs.
    pub baseline: Option<usize>,
}

/// Reads the baseline (a results file is read here), compares and checks
/// the gates; `aggregators` aggregate a results file's values for display.
pub fn run_plan(
    plan: &ComparisonPlan,
    mut report: Report,
    aggregators: &[Box<dyn Aggregator>],
) -> Result<Compared, CompareRunError> {
    let baseline = match &plan.baseline {
        None => None,
        Some(BaselineRef::Run(name)) => Some(Baseline::Run(name.clone())),
        Some(BaselineRef::Results { path, run }) => {
            Some(Baseline::Results(read_results(path, run.as_deref())?))
        }
        Some(BaselineRef::History { db, id, .. }) => {
            Some(Baseline::Results(super::baseline::read_record(db, *id)?.1))
        }
    };
    let comparison = compare(&report, baseline.as_ref(), &plan.settings, &plan.gates)?;
    let index = match &baseline {
        None => None,
        Some(Baseline::Run(name)) => report.runs.iter().position(|r| &r.name == name),
        Some(Baseline::Results(results)) => {
            let mut name = results.name.clone();
            if report.runs.iter().any(|r| r.name == name) {
                name.push_str(" (baseline)");
            }
            let per_query: Vec<Vec<f64>> = report
                .metrics
                .iter()
                .map(|m| {
                    results
                        .column(&m.name)
                        .map_or_else(|| vec![f64::NAN; results.queries.len()], <[f64]>::to_vec)
                })
                .collect();
            let aggregates = aggregate_run(&name, &report.metrics, &per_query, aggregators);
            report.warnings.extend(aggregates.warnings);
            let groups = baseline_groups(&report, &name, &results.queries, &per_query, aggregators);
            report.runs.insert(
                0,
                RunResult {
                    name,
                    queries: results.queries.clone(),
                    per_query,
                    aggregates: aggregates.values,
                    intervals: aggregates.intervals,
                    // A results file keeps no corpus metric values.
                    corpus: vec![f64::NAN; report.corpus.len()],
                    groups,
                    ir_metadata: None,
                },
            );
            Some(0)
        }
    };
    Ok(Compared {
        report,
        comparison,
        baseline: index,
    })
}

/// The groups of a baseline read from a results file, which keeps no
/// groups: a query of the file is in a group when an evaluated run has it
/// there (the groups file puts each query in one group per column).
fn baseline_groups(
    report: &Report,
    name: &str,
    queries: &[String],
    per_query: &[Vec<f64>],
    aggregators: &[Box<dyn Aggregator>],
) -> Vec<GroupResult> {
    let mut groups = Vec::new();
    // Built once: each group then costs its own queries, not the file's.
    let index: std::collections::HashMap<&str, usize> = queries
        .iter()
        .enumerate()
        .map(|(q, id)| (id.as_str(), q))
        .collect();
    for row in report.group_table() {
        let mut rows: Vec<usize> = row
            .runs
            .iter()
            .flatten()
            .flat_map(|group| group.queries.iter())
            .filter_map(|q| index.get(q.as_str()).copied())
            .collect();
        rows.sort_unstable();
        rows.dedup();
        if rows.is_empty() {
            continue;
        }
        let (column, value) = (row.column, row.value);
        let columns: Vec<Vec<f64>> = per_query
            .iter()
            .map(|values| rows.iter().map(|&q| values[q]).collect())
            .collect();
        let aggregates = aggregate_run(name, &report.metrics, &columns, aggregators);
        groups.push(GroupResult {
            column,
            value,
            queries: rows.iter().map(|&q| queries[q].clone()).collect(),
            aggregates: aggregates.values,
            intervals: aggregates.intervals,
        });
    }
    groups
}
