//! How far two sets of judgements agree (an LLM's and people's, two
//! assessors'): on the labels of the documents both judged, and on what
//! they make of the runs (the systems' order, each metric's mean).

use std::collections::HashMap;

use rankeval_core::exact_sum::fmean;
use rankeval_core::{Metric, Qrels, Run};
use rankeval_stats::CompareError;
use rankeval_stats::agreement::{
    Kappa, KappaWeights, KendallTau, cohen_kappa, kendall_tau, top_k_agreement,
};
use serde::Serialize;

use crate::engine::{Missing, Options, QuerySample, evaluate};

/// Why an agreement report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum AgreementError {
    /// No document is judged by both sets.
    #[error("no document is judged by both {first} and {second}")]
    NothingShared {
        /// The first set's name.
        first: String,
        /// The second set's name.
        second: String,
    },
    /// The shared queries' judgements could not be gathered again.
    #[error("the queries both judge: {0}")]
    Qrels(#[from] rankeval_core::QrelsError),
    /// A statistic refused its input.
    #[error("{what}: {source}")]
    Statistics {
        /// Which statistic, on what.
        what: String,
        /// Why.
        source: CompareError,
    },
}

/// One metric's agreement over the runs.
#[derive(Clone, Debug, Serialize)]
pub struct MetricAgreement {
    /// The metric's canonical name.
    pub metric: String,
    /// Each run's mean under the first set, in the runs' order.
    pub first: Vec<f64>,
    /// Each run's mean under the second set.
    pub second: Vec<f64>,
    /// Each run's mean per-query difference, second minus first.
    pub difference: Vec<f64>,
    /// Kendall's tau-b between the runs' means under each set (scipy's
    /// `kendalltau`); `None` with fewer than 2 runs.
    pub tau: Option<KendallTau>,
    /// The share of the top k runs both sets agree on; `None` with fewer
    /// runs than k.
    pub top_k: Option<f64>,
}

/// The agreement of two sets of judgements.
#[derive(Clone, Debug, Serialize)]
pub struct AgreementReport {
    /// The first set's name.
    pub first: String,
    /// The second set's name.
    pub second: String,
    /// Documents judged by both sets (query and document alike).
    pub shared: usize,
    /// Documents judged by the first set only.
    pub first_only: usize,
    /// Documents judged by the second set only.
    pub second_only: usize,
    /// Cohen's kappa of the grades both gave (scikit-learn's
    /// `cohen_kappa_score`), with per-label agreement and the confusion
    /// matrix.
    pub kappa: Kappa,
    /// The runs, in the order given.
    pub runs: Vec<String>,
    /// Queries both sets judge, on which the runs are evaluated.
    pub queries: usize,
    /// Per run (in the runs' order), the queries both sets judge that it
    /// has no list for: left out of its means, counted, with the first few
    /// ids.
    pub missing: Vec<QuerySample>,
    /// The k of top-k agreement.
    pub k: usize,
    /// One entry per metric.
    pub metrics: Vec<MetricAgreement>,
}

/// A named set of judgements.
#[derive(Clone, Copy, Debug)]
pub struct JudgementSet<'a> {
    /// How reports name it (`llm`, `human`).
    pub name: &'a str,
    /// The judgements.
    pub qrels: &'a Qrels,
}

/// Compares the judgements `first` and `second`: their labels with kappa
/// (`weights`), and, for each metric, what they make of `runs` (each run
/// evaluated under each set on the queries both judge): Kendall's tau
/// between the runs' means, top-`k` agreement, and each run's mean
/// difference.
pub fn agreement(
    first: JudgementSet<'_>,
    second: JudgementSet<'_>,
    weights: KappaWeights,
    runs: &[(String, &Run)],
    metrics: &[Box<dyn Metric>],
    options: &Options,
    k: usize,
) -> Result<AgreementReport, AgreementError> {
    let names = (first.name, second.name);
    let (first, second) = (first.qrels, second.qrels);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut first_only = 0;
    let mut shared_queries: Vec<String> = Vec::new();
    for q in 0..first.num_queries() as u32 {
        let name = first.query_name(q);
        let Some(other) = second.query_index(name.as_bytes()) else {
            first_only += first.judgements(q).len();
            continue;
        };
        shared_queries.push(name.to_owned());
        let theirs: HashMap<&[u8], f64> = second.judgements(other).collect();
        for (doc, grade) in first.judgements(q) {
            match theirs.get(doc) {
                Some(&g) => {
                    a.push(grade);
                    b.push(g);
                }
                None => first_only += 1,
            }
        }
    }
    let second_only = second.num_judgements() - a.len();
    if a.is_empty() {
        return Err(AgreementError::NothingShared {
            first: names.0.to_owned(),
            second: names.1.to_owned(),
        });
    }
    let kappa = cohen_kappa(&a, &b, weights).map_err(|source| AgreementError::Statistics {
        what: "kappa".to_owned(),
        source,
    })?;
    // The queries judged by one set only are left out of the runs'
    // evaluation: each set's judgements of the shared queries.
    let restrict = |qrels: &Qrels| -> Result<Qrels, AgreementError> {
        let mut builder = rankeval_core::QrelsBuilder::new();
        for query in &shared_queries {
            if let Some(q) = qrels.query_index(query.as_bytes()) {
                for (doc, grade) in qrels.judgements(q) {
                    builder.push(query.as_bytes(), doc, grade)?;
                }
            }
        }
        Ok(builder.finish()?)
    };
    let (first_shared, second_shared) = (restrict(first)?, restrict(second)?);
    let mut per_metric: Vec<MetricAgreement> = metrics
        .iter()
        .map(|m| MetricAgreement {
            metric: m.name(),
            first: Vec::new(),
            second: Vec::new(),
            difference: Vec::new(),
            tau: None,
            top_k: None,
        })
        .collect();
    let mut missing = Vec::with_capacity(runs.len());
    for (_, run) in runs {
        let by_first = evaluate(&first_shared, run, metrics, options);
        let by_second = evaluate(&second_shared, run, metrics, options);
        let coverage = by_first.coverage();
        missing.push(match options.missing {
            Missing::Skip => coverage.missing_skipped.clone(),
            Missing::Zero => coverage.missing_scored_zero.clone(),
        });
        let at: HashMap<&str, usize> = by_second
            .queries()
            .iter()
            .enumerate()
            .map(|(i, q)| (q.as_str(), i))
            .collect();
        for (m, entry) in per_metric.iter_mut().enumerate() {
            entry.first.push(fmean(&by_first.column(m)));
            entry.second.push(fmean(&by_second.column(m)));
            let differences: Vec<f64> = by_first
                .queries()
                .iter()
                .enumerate()
                .filter_map(|(i, q)| {
                    at.get(q.as_str())
                        .map(|&j| by_second.value(j, m) - by_first.value(i, m))
                })
                .collect();
            entry.difference.push(fmean(&differences));
        }
    }
    for entry in &mut per_metric {
        if runs.len() >= 2 {
            entry.tau = Some(kendall_tau(&entry.first, &entry.second).map_err(|source| {
                AgreementError::Statistics {
                    what: format!("Kendall's tau of {}", entry.metric),
                    source,
                }
            })?);
        }
        if k >= 1 && runs.len() >= k {
            entry.top_k = Some(top_k_agreement(&entry.first, &entry.second, k).map_err(
                |source| AgreementError::Statistics {
                    what: format!("top-{k} agreement of {}", entry.metric),
                    source,
                },
            )?);
        }
    }
    Ok(AgreementReport {
        first: names.0.to_owned(),
        second: names.1.to_owned(),
        shared: a.len(),
        first_only,
        second_only,
        kappa,
        runs: runs.iter().map(|(n, _)| n.clone()).collect(),
        queries: shared_queries.len(),
        missing,
        k,
        metrics: per_metric,
    })
}
