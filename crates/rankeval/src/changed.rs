//! The queries two runs share, paired by id, those whose value moved most,
//! and their explanations from the lists an evaluation kept: what the HTML
//! page charts and shows as "the queries that changed most". Nothing here
//! reads an input: the lists are those [`Experiment::run`] read once.
//!
//! [`Experiment::run`]: crate::experiment::Experiment::run

use std::collections::HashMap;

use rankeval_core::{Metric, Qrels, Run};

use crate::engine::Options;
use crate::explain::{QueryExplanation, explain};
use crate::report::Report;

/// How many queries "the queries that changed most" lists per metric and run.
pub const CHANGED: usize = 10;

/// One query's values in the baseline and another run.
pub struct Paired<'a> {
    /// The query.
    pub query: &'a str,
    /// Its value in the baseline.
    pub baseline: f64,
    /// Its value in the other run.
    pub other: f64,
}

impl Paired<'_> {
    /// The other run's value less the baseline's.
    pub fn difference(&self) -> f64 {
        self.other - self.baseline
    }
}

/// Queries evaluated in both `baseline` and run `r`, with metric `m`'s
/// values (finite ones only), and how many queries were not in both.
pub fn paired<'a>(
    report: &'a Report,
    baseline: usize,
    m: usize,
    r: usize,
) -> (Vec<Paired<'a>>, usize) {
    let base = &report.runs[baseline];
    let other = &report.runs[r];
    let index: HashMap<&str, usize> = base
        .queries
        .iter()
        .enumerate()
        .map(|(i, q)| (q.as_str(), i))
        .collect();
    let mut pairs = Vec::with_capacity(other.queries.len());
    let mut both = 0;
    for (j, query) in other.queries.iter().enumerate() {
        if let Some(&i) = index.get(query.as_str()) {
            both += 1;
            let (b, o) = (base.per_query[m][i], other.per_query[m][j]);
            if b.is_finite() && o.is_finite() {
                pairs.push(Paired {
                    query,
                    baseline: b,
                    other: o,
                });
            }
        }
    }
    let only_one = base.queries.len() + other.queries.len() - 2 * both;
    let not_a_number = both - pairs.len();
    (pairs, only_one + not_a_number)
}

/// The [`CHANGED`] queries whose metric `m` moved most from `baseline` to
/// run `other`, by absolute difference (ties by query id; unchanged
/// queries left out), with their values.
pub fn changed<'a>(report: &'a Report, baseline: usize, m: usize, other: usize) -> Vec<Paired<'a>> {
    let (mut pairs, _) = paired(report, baseline, m, other);
    pairs.retain(|p| p.difference() != 0.0);
    pairs.sort_by(|a, b| {
        b.difference()
            .abs()
            .total_cmp(&a.difference().abs())
            .then_with(|| a.query.cmp(b.query))
    });
    pairs.truncate(CHANGED);
    pairs
}

/// The ids of the queries [`changed`] lists: what the report explains.
pub fn changed_queries(report: &Report, baseline: usize, m: usize, other: usize) -> Vec<String> {
    changed(report, baseline, m, other)
        .iter()
        .map(|p| p.query.to_owned())
        .collect()
}

/// The inputs an evaluation read, kept in memory for what needs the lists
/// after every value is known (the changed queries' explanations).
#[derive(Debug, Default)]
pub struct KeptLists {
    /// The shared qrels and their name.
    pub qrels: Option<(Qrels, String)>,
    /// Per run of the experiment, in its order.
    pub runs: Vec<KeptRun>,
}

/// One run's lists, kept.
#[derive(Debug)]
pub struct KeptRun {
    /// The run's name in the report.
    pub name: String,
    /// Its lists.
    pub run: Run,
    /// The judgements it holds itself (JSON Lines), with the input's name.
    pub own: Option<(Qrels, String)>,
}

/// The explanations the report's "queries that changed most" shows.
#[derive(Clone, Debug, Default)]
pub struct ChangedExplanations {
    /// The report's metric they explain (the headline: the first).
    pub metric: usize,
    /// Per (run index in the report, query): the explanation, or why there
    /// is none.
    pub tables: HashMap<(usize, String), Result<QueryExplanation, String>>,
    /// Why no query could be explained, if so.
    pub unavailable: Option<String>,
}

impl ChangedExplanations {
    /// The explanation of `query` in run `run`, if one was made.
    pub fn get(&self, run: usize, query: &str) -> Option<&Result<QueryExplanation, String>> {
        self.tables.get(&(run, query.to_owned()))
    }
}

/// Explains, for the report's first metric (the first of `metrics`, as
/// the experiment built them), the queries that changed most between
/// `baseline` and every other run, in both runs, from the lists `kept`.
pub fn explain_changed(
    kept: &KeptLists,
    metrics: &[Box<dyn Metric>],
    options: &Options,
    report: &Report,
    baseline: usize,
) -> ChangedExplanations {
    let mut explained = ChangedExplanations::default();
    if report.runs.len() < 2 || report.metrics.is_empty() || metrics.is_empty() {
        return explained;
    }
    let metric = &metrics[..1];
    for other in (0..report.runs.len()).filter(|&r| r != baseline) {
        let queries = changed_queries(report, baseline, 0, other);
        for r in [baseline, other] {
            let name = &report.runs[r].name;
            // A baseline read from a results file is a run of the report
            // but not of the experiment, and has no lists.
            let lists = kept.runs.iter().find(|kept| &kept.name == name);
            for query in &queries {
                let key = (r, query.clone());
                if explained.tables.contains_key(&key) {
                    continue;
                }
                let table = match lists {
                    None => Err(format!(
                        "{name} comes from a results file, which holds values, not ranked lists"
                    )),
                    Some(KeptRun { run, own, .. }) => match kept.qrels.as_ref().or(own.as_ref()) {
                        Some((qrels, qrels_name)) => {
                            explain_one(qrels, qrels_name, run, name, query, metric, options)
                        }
                        None => Err("no judgements for this run".to_owned()),
                    },
                };
                explained.tables.insert(key, table);
            }
        }
    }
    explained
}

/// One query of one run explained, or why it cannot be.
fn explain_one(
    qrels: &Qrels,
    qrels_name: &str,
    run: &Run,
    name: &str,
    query: &str,
    metric: &[Box<dyn Metric>],
    options: &Options,
) -> Result<QueryExplanation, String> {
    explain(qrels, qrels_name, run, name, query, metric, options).map_err(|e| e.to_string())
}
