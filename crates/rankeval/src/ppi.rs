//! Evaluation when a model judged every query and people judged some:
//! prediction-powered inference (Angelopoulos et al., Science 2023; PPI++,
//! Angelopoulos, Duchi and Zrnic 2023; Boyeau et al. 2024 for IR).
//!
//! Each run is evaluated twice: with the model's judgements (every query
//! they judge) and with the people's (the queries they judge). Per metric,
//! the model's per-query values are the predictions and the people's the
//! labels; [`rankeval_stats::ppi`] turns them into an estimate of the
//! metric's mean under the people's judgements, with a confidence interval
//! that holds whatever the model's bias, and the paired difference of two
//! runs with its p-value. Gates decide on those numbers.

use std::collections::HashMap;

use rankeval_core::{Metric, Qrels, Run};
use rankeval_stats::ppi::{PpiColumns, PpiComparison, PpiMean, PpiOptions, ppi_mean, ppi_paired};
use rankeval_stats::{CompareError, GateOutcome};
use serde::Serialize;

use crate::compare::GateSpec;
use crate::engine::{Missing, Options, QuerySample, evaluate};

/// Why a PPI report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PpiError {
    /// The statistics refused a run's columns of one metric.
    #[error("run `{run}`, {metric}: {source}")]
    Statistics {
        /// The run.
        run: String,
        /// The metric.
        metric: String,
        /// Why.
        source: CompareError,
    },
    /// The baseline named is not one of the runs.
    #[error("baseline `{baseline}` is not one of the runs ({runs})")]
    UnknownBaseline {
        /// The name given.
        baseline: String,
        /// The runs, comma-separated.
        runs: String,
    },
    /// A gate names a metric not evaluated, or a run not evaluated.
    #[error("gate {gate}: {reason}")]
    Gate {
        /// The gate as written.
        gate: String,
        /// Why.
        reason: String,
    },
}

/// One metric of one run: its PPI mean, and its comparison with the
/// baseline.
#[derive(Clone, Debug, Serialize)]
pub struct PpiMetric {
    /// The metric's canonical name.
    pub metric: String,
    /// The prediction-powered mean, with the human-only and model-only
    /// means beside it.
    pub mean: PpiMean,
    /// The paired difference with the baseline (`None` for the baseline,
    /// or without one).
    pub comparison: Option<PpiComparison>,
}

/// One run's results.
#[derive(Clone, Debug, Serialize)]
pub struct PpiRun {
    /// The run's name.
    pub name: String,
    /// Queries the model judged.
    pub judged: usize,
    /// Of those, the queries the run was evaluated on: all of them with
    /// `missing = zero`, those with a list in the run with `skip`.
    pub queries: usize,
    /// Of the queries evaluated, those people judged too.
    pub labelled: usize,
    /// Queries the model judged that have no list in the run: left out of
    /// `queries` (`skip`) or scored on an empty list (`zero`), as
    /// [`PpiReport::missing`] says; counted, with the first few ids.
    pub missing: QuerySample,
    /// Of [`missing`](Self::missing), the queries people judged too.
    pub missing_labelled: usize,
    /// One entry per metric, in the order asked.
    pub metrics: Vec<PpiMetric>,
}

/// A gate's outcome on one run.
#[derive(Clone, Debug, Serialize)]
pub struct PpiGateResult {
    /// The gate, as written.
    pub gate: String,
    /// The run it was checked on.
    pub run: String,
    /// Pass or fail, and the number that decided it.
    pub outcome: GateOutcome,
}

/// Every run's prediction-powered results.
#[derive(Clone, Debug, Serialize)]
pub struct PpiReport {
    /// The metrics' canonical names.
    pub metrics: Vec<String>,
    /// The runs, in the order given.
    pub runs: Vec<PpiRun>,
    /// The baseline's name, if one was given.
    pub baseline: Option<String>,
    /// The interval's confidence level.
    pub level: f64,
    /// What was done with a judged query a run has no list for.
    pub missing: Missing,
    /// Queries people judged that the model did not (left out: PPI needs
    /// the model's value beside each label).
    pub labelled_without_model: usize,
    /// Each gate's outcome, per run.
    pub gates: Vec<PpiGateResult>,
}

impl PpiReport {
    /// Whether every gate passed.
    pub fn passed(&self) -> bool {
        self.gates.iter().all(|g| g.outcome.passed)
    }
}

/// One run's per-query values under both judgement sets, per metric.
struct Columns {
    /// The queries the model's evaluation holds, in its order.
    queries: Vec<String>,
    /// The model's judged queries without a list in the run.
    missing: QuerySample,
    /// Per metric, the value under the model's judgements of each query.
    model: Vec<Vec<f64>>,
    /// Per metric, the value under people's judgements, for the queries
    /// they judged.
    human: Vec<Vec<Option<f64>>>,
}

fn columns(
    model: &Qrels,
    human: &Qrels,
    run: &Run,
    metrics: &[Box<dyn Metric>],
    options: &Options,
) -> Columns {
    let by_model = evaluate(model, run, metrics, options);
    let by_human = evaluate(human, run, metrics, options);
    let labelled: HashMap<&str, usize> = by_human
        .queries()
        .iter()
        .enumerate()
        .map(|(i, q)| (q.as_str(), i))
        .collect();
    let queries = by_model.queries().to_vec();
    let model_columns = (0..metrics.len()).map(|m| by_model.column(m)).collect();
    let human_columns = (0..metrics.len())
        .map(|m| {
            queries
                .iter()
                .map(|q| labelled.get(q.as_str()).map(|&i| by_human.value(i, m)))
                .collect()
        })
        .collect();
    let coverage = by_model.coverage();
    let missing = match options.missing {
        Missing::Skip => coverage.missing_skipped.clone(),
        Missing::Zero => coverage.missing_scored_zero.clone(),
    };
    Columns {
        queries,
        missing,
        model: model_columns,
        human: human_columns,
    }
}

/// The two sets of judgements PPI reads.
#[derive(Clone, Copy, Debug)]
pub struct Judges<'a> {
    /// The model's: every query to evaluate.
    pub model: &'a Qrels,
    /// People's: some of the queries.
    pub human: &'a Qrels,
}

/// What the runs are held against: a baseline run and gates.
#[derive(Clone, Copy, Debug, Default)]
pub struct PpiPlan<'a> {
    /// The run every other run is compared with.
    pub baseline: Option<&'a str>,
    /// The gates, decided on the PPI estimates.
    pub gates: &'a [GateSpec],
}

/// Evaluates each run of `runs` with the model's judgements and people's,
/// and gives each metric's prediction-powered mean (and, with a baseline,
/// each run's paired difference with it), then checks the gates.
pub fn ppi_report(
    judges: Judges<'_>,
    runs: &[(String, &Run)],
    metrics: &[Box<dyn Metric>],
    options: &Options,
    ppi: &PpiOptions,
    plan: PpiPlan<'_>,
) -> Result<PpiReport, PpiError> {
    let Judges { model, human } = judges;
    let PpiPlan { baseline, gates } = plan;
    let names: Vec<String> = metrics.iter().map(|m| m.name()).collect();
    let baseline_index = match baseline {
        None => None,
        Some(name) => Some(runs.iter().position(|(n, _)| n == name).ok_or_else(|| {
            PpiError::UnknownBaseline {
                baseline: name.to_owned(),
                runs: runs
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        })?),
    };
    let all: Vec<Columns> = runs
        .iter()
        .map(|(_, run)| columns(model, human, run, metrics, options))
        .collect();
    let statistics = |run: &str, metric: &str| {
        let (run, metric) = (run.to_owned(), metric.to_owned());
        move |source| PpiError::Statistics {
            run,
            metric,
            source,
        }
    };
    let mut results = Vec::with_capacity(runs.len());
    for (r, ((name, run), columns)) in runs.iter().zip(&all).enumerate() {
        let mut per_metric = Vec::with_capacity(metrics.len());
        for (m, metric) in names.iter().enumerate() {
            let own = PpiColumns::from_queries(&columns.model[m], &columns.human[m])
                .map_err(statistics(name, metric))?;
            let mean = ppi_mean(&own.sample(), ppi).map_err(statistics(name, metric))?;
            let comparison = match baseline_index {
                Some(b) if b != r => {
                    let (base, cand) = paired(&all[b], columns, m);
                    let base = base.map_err(statistics(name, metric))?;
                    let cand = cand.map_err(statistics(name, metric))?;
                    Some(
                        ppi_paired(&base.sample(), &cand.sample(), ppi)
                            .map_err(statistics(name, metric))?,
                    )
                }
                _ => None,
            };
            per_metric.push(PpiMetric {
                metric: metric.clone(),
                mean,
                comparison,
            });
        }
        let labelled = columns
            .human
            .first()
            .map_or(0, |c| c.iter().filter(|v| v.is_some()).count());
        // The labelled queries among the missing ones: people's judged
        // queries the run has no list for (the model judged them too).
        let missing_labelled = if columns.missing.is_empty() {
            0
        } else {
            human
                .queries()
                .filter(|q| {
                    run.query_index(q.as_bytes()).is_none()
                        && model.query_index(q.as_bytes()).is_some()
                })
                .count()
        };
        results.push(PpiRun {
            name: name.clone(),
            judged: model.num_queries(),
            queries: columns.queries.len(),
            labelled,
            missing: columns.missing.clone(),
            missing_labelled,
            metrics: per_metric,
        });
    }
    let judged_by_model: std::collections::HashSet<&str> = model.queries().collect();
    let labelled_without_model = human
        .queries()
        .filter(|q| !judged_by_model.contains(q))
        .count();
    let gate_results = check_gates(gates, &results, &names, baseline_index)?;
    Ok(PpiReport {
        metrics: names,
        runs: results,
        baseline: baseline.map(str::to_owned),
        level: ppi.level,
        missing: options.missing,
        labelled_without_model,
        gates: gate_results,
    })
}

/// The baseline's and the candidate's columns of metric `m` on the queries
/// both were evaluated on, a query labelled only if both have its label.
fn paired(
    baseline: &Columns,
    candidate: &Columns,
    m: usize,
) -> (
    Result<PpiColumns, CompareError>,
    Result<PpiColumns, CompareError>,
) {
    let at: HashMap<&str, usize> = baseline
        .queries
        .iter()
        .enumerate()
        .map(|(i, q)| (q.as_str(), i))
        .collect();
    let mut base = (Vec::new(), Vec::new());
    let mut cand = (Vec::new(), Vec::new());
    for (c, query) in candidate.queries.iter().enumerate() {
        let Some(&b) = at.get(query.as_str()) else {
            continue;
        };
        let (bl, cl) = match (baseline.human[m][b], candidate.human[m][c]) {
            (Some(bl), Some(cl)) => (Some(bl), Some(cl)),
            _ => (None, None),
        };
        base.0.push(baseline.model[m][b]);
        base.1.push(bl);
        cand.0.push(candidate.model[m][c]);
        cand.1.push(cl);
    }
    (
        PpiColumns::from_queries(&base.0, &base.1),
        PpiColumns::from_queries(&cand.0, &cand.1),
    )
}

/// Each gate on each run it applies to: its own run, or every run but the
/// baseline (every run, for `at_least` without a baseline).
fn check_gates(
    gates: &[GateSpec],
    runs: &[PpiRun],
    metrics: &[String],
    baseline: Option<usize>,
) -> Result<Vec<PpiGateResult>, PpiError> {
    let mut out = Vec::new();
    for spec in gates {
        let error = |reason: String| PpiError::Gate {
            gate: spec.to_string(),
            reason,
        };
        if spec.group.is_some() {
            return Err(error("groups of queries are not evaluated here".to_owned()));
        }
        let Some(m) = metrics.iter().position(|name| *name == spec.metric) else {
            return Err(error(format!(
                "`{}` is not evaluated (the metrics: {})",
                spec.metric,
                metrics.join(", ")
            )));
        };
        let targets: Vec<usize> = match &spec.run {
            Some(name) => match runs.iter().position(|r| r.name == *name) {
                Some(r) => vec![r],
                None => return Err(error(format!("no run is named `{name}`"))),
            },
            None => (0..runs.len()).filter(|&r| Some(r) != baseline).collect(),
        };
        for r in targets {
            let result = &runs[r].metrics[m];
            let outcome = spec
                .gate
                .evaluate_ppi(&result.mean, result.comparison.as_ref())
                .map_err(|e| error(e.to_string()))?;
            out.push(PpiGateResult {
                gate: spec.to_string(),
                run: runs[r].name.clone(),
                outcome,
            });
        }
    }
    Ok(out)
}
