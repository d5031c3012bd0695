//! What a comparison ([`ComparisonReport`]) adds to the HTML page, as its
//! [`Comparison`] hook: the baseline, three columns of the summary table
//! (the difference of means with a significance mark, its confidence
//! interval, the corrected p-value) on each metric's mean row, and the
//! gates with the number that decided each.

use rankeval_core::explain::number;

use super::Report;
use super::html::{Comparison, GateResult, SummaryColumn};
use crate::compare::{BaselineSource, ComparisonReport, quantity_name};

/// The page's view of `compared`, a comparison of `report`'s runs. Without
/// a baseline (every pair compared) the summary gets no columns, only the
/// gates; a baseline read from a results file is not one of the page's
/// runs, so the page's per-query charts keep the first run as theirs.
pub fn comparison(report: &Report, compared: &ComparisonReport) -> Comparison {
    let baseline_run = compared.baseline.as_ref().and_then(|b| match b.source {
        BaselineSource::Run { index } => Some(index),
        BaselineSource::Results { .. } => None,
    });
    let alpha = compared.provenance.alpha;
    let level = compared.provenance.level;
    let mut columns = Vec::new();
    if let Some(info) = &compared.baseline {
        let titles = [
            format!("Δ vs {} (* corrected p < {})", info.name, number(alpha)),
            format!("{}% CI of Δ", number(level * 100.0)),
            "p (corrected)".to_owned(),
        ];
        for (c, title) in titles.into_iter().enumerate() {
            columns.push(SummaryColumn {
                title,
                cells: rows(report, |m, r| {
                    if Some(r) == baseline_run {
                        return if c == 0 {
                            "baseline".to_owned()
                        } else {
                            String::new()
                        };
                    }
                    let run = &report.runs[r].name;
                    let Some(cell) = compared.cell(run, &report.metrics[m].name) else {
                        return String::new();
                    };
                    let Some(result) = &cell.result else {
                        return if c == 0 {
                            cell.error.clone().unwrap_or_default()
                        } else {
                            String::new()
                        };
                    };
                    match c {
                        0 => format!(
                            "{}{:.4}{}",
                            if result.summary.difference > 0.0 {
                                "+"
                            } else {
                                ""
                            },
                            result.summary.difference,
                            if cell.significant(alpha) { "*" } else { "" }
                        ),
                        1 => format!(
                            "[{:.4}, {:.4}]",
                            result.interval.lower, result.interval.upper
                        ),
                        _ => p_value(result.corrected_p_value),
                    }
                }),
            });
        }
    }
    let gates = compared
        .gates
        .iter()
        .map(|g| GateResult {
            name: format!("{} ({})", g.gate, g.run),
            passed: g.passed,
            detail: match (&g.outcome, &g.error) {
                (_, Some(error)) => format!("undecided: {error}"),
                (Some(o), None) => format!(
                    "{} = {} {} {}",
                    quantity_name(o.quantity),
                    number(o.value),
                    relation(o.relation),
                    number(o.threshold)
                ),
                (None, None) => String::new(),
            },
        })
        .collect();
    Comparison {
        baseline: baseline_run.unwrap_or(0),
        columns,
        gates,
    }
}

/// One cell per summary row (each metric's aggregators, then the corpus
/// metrics) and run: `cell(m, r)` on each metric's mean row, empty on the
/// others (the comparison is of means).
fn rows(report: &Report, cell: impl Fn(usize, usize) -> String) -> Vec<Vec<String>> {
    let mean = report.aggregators.iter().position(|a| a == "mean");
    let mut rows = Vec::new();
    for m in 0..report.metrics.len() {
        for a in 0..report.aggregators.len() {
            rows.push(
                (0..report.runs.len())
                    .map(|r| {
                        if Some(a) == mean {
                            cell(m, r)
                        } else {
                            String::new()
                        }
                    })
                    .collect(),
            );
        }
    }
    rows.extend(
        report
            .corpus
            .iter()
            .map(|_| vec![String::new(); report.runs.len()]),
    );
    rows
}

/// A p-value with 3 decimals, `< 0.001` below that.
fn p_value(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".to_owned()
    } else {
        format!("{p:.3}")
    }
}

/// A gate's relation as a symbol.
fn relation(relation: rankeval_compare::Relation) -> &'static str {
    match relation {
        rankeval_compare::Relation::AtLeast => ">=",
        rankeval_compare::Relation::Above => ">",
        rankeval_compare::Relation::Below => "<",
    }
}
