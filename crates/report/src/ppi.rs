//! `rankeval ppi`'s report ([`rankeval::ppi::PpiReport`]): one row per run
//! and metric (the prediction-powered mean and its interval, PPI++'s
//! weight, the people-only and model-only means, the difference from the
//! baseline with its p-value), then the queries, the level and each gate,
//! as aligned text or Markdown; or the report as one JSON document.

use std::fmt::Write as _;

use rankeval::engine::Missing;
use rankeval::ppi::PpiReport;
use rankeval_stats::{Quantity, Relation};

use crate::text;

/// How `rankeval ppi` prints its report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PpiFormat {
    /// Aligned text for a terminal.
    #[default]
    Table,
    /// One JSON document (the report's own fields).
    Json,
    /// Markdown tables.
    Markdown,
}

/// `report` in `format`.
pub fn render(report: &PpiReport, format: PpiFormat) -> String {
    match format {
        PpiFormat::Table => table(report),
        PpiFormat::Json => crate::json::document_text(report),
        PpiFormat::Markdown => markdown(report),
    }
}

/// A p-value with 4 decimals, or in scientific notation below 0.0001.
fn p_value(p: f64) -> String {
    if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// `value [lower, upper]` with 4 decimals.
fn with_interval(value: f64, lower: f64, upper: f64) -> String {
    format!("{value:.4} [{lower:.4}, {upper:.4}]")
}

/// One row per run and metric, as cells.
fn rows(report: &PpiReport) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let mut header = vec![
        "metric",
        "run",
        "PPI mean [interval]",
        "lambda",
        "people only",
        "model only",
    ];
    if report.baseline.is_some() {
        header.extend(["difference [interval]", "p"]);
    }
    let mut rows = Vec::new();
    for (m, metric) in report.metrics.iter().enumerate() {
        for run in &report.runs {
            let r = &run.metrics[m];
            let mut row = vec![
                metric.clone(),
                run.name.clone(),
                with_interval(
                    r.mean.estimate,
                    r.mean.interval.lower,
                    r.mean.interval.upper,
                ),
                format!("{:.3}", r.mean.lambda),
                with_interval(
                    r.mean.classical.mean,
                    r.mean.classical.interval.lower,
                    r.mean.classical.interval.upper,
                ),
                format!("{:.4}", r.mean.imputed.mean),
            ];
            if report.baseline.is_some() {
                match &r.comparison {
                    Some(c) => {
                        row.push(format!(
                            "{:+.4} [{:+.4}, {:+.4}]",
                            c.difference.estimate,
                            c.difference.interval.lower,
                            c.difference.interval.upper
                        ));
                        row.push(p_value(c.p_value));
                    }
                    None => row.extend(["baseline".to_owned(), String::new()]),
                }
            }
            rows.push(row);
        }
    }
    (header, rows)
}

/// The header and the rows as one list of rows, every column on the left
/// (the cells are intervals and names).
fn all_rows(report: &PpiReport) -> (Vec<Vec<String>>, Vec<bool>) {
    let (header, rows) = rows(report);
    let left = vec![true; header.len()];
    let header = header.into_iter().map(str::to_owned).collect();
    (std::iter::once(header).chain(rows).collect(), left)
}

/// The aligned-text report.
fn table(report: &PpiReport) -> String {
    let (rows, left) = all_rows(report);
    let mut out = text::aligned(&rows, &left);
    out.push_str(&summary(report));
    out
}

/// The Markdown report.
fn markdown(report: &PpiReport) -> String {
    let (rows, left) = all_rows(report);
    let mut out = text::markdown_table(&rows, &left);
    out.push('\n');
    out.push_str(&summary(report));
    out
}

/// The lines under the table: queries, level, gates.
fn summary(report: &PpiReport) -> String {
    let mut out = String::new();
    for run in &report.runs {
        let missing = run.missing.count;
        if missing == 0 {
            let _ = writeln!(
                out,
                "{}: {} queries judged by the model, {} of them by people too",
                run.name, run.queries, run.labelled
            );
            continue;
        }
        let _ = match report.missing {
            Missing::Skip => write!(
                out,
                "{}: {} of the {} queries judged by the model evaluated, {} of them judged by \
                 people too; {missing} {} no list in the run and {} left out",
                run.name,
                run.queries,
                run.judged,
                run.labelled,
                if missing == 1 { "has" } else { "have" },
                if missing == 1 { "was" } else { "were" },
            ),
            Missing::Zero => write!(
                out,
                "{}: {} queries judged by the model, {} of them by people too; {missing} {} no \
                 list in the run and scored 0",
                run.name,
                run.queries,
                run.labelled,
                if missing == 1 { "has" } else { "have" },
            ),
        };
        let _ = writeln!(out, " ({} of them judged by people)", run.missing_labelled);
    }
    let _ = writeln!(
        out,
        "{:.0}% intervals (normal); people only: the mean of people's labels alone; model only: the mean under the model's labels, biased as the model is",
        report.level * 100.0
    );
    for gate in &report.gates {
        let o = &gate.outcome;
        // No correction here: superior's p-value is the difference's own.
        let quantity = match o.quantity {
            Quantity::CorrectedPValue => "p-value",
            other => rankeval::compare::quantity_name(other),
        };
        let relation = match o.relation {
            Relation::AtLeast => ">=",
            Relation::Above => ">",
            Relation::Below => "<",
        };
        let _ = writeln!(
            out,
            "gate {} on {}: {} ({quantity} {} {relation} {:.4})",
            gate.gate,
            gate.run,
            if o.passed { "passed" } else { "FAILED" },
            if quantity == "p-value" {
                p_value(o.value)
            } else {
                format!("{:.4}", o.value)
            },
            o.threshold
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use rankeval::engine::QuerySample;
    use rankeval::ppi::{PpiGateResult, PpiMetric, PpiRun};
    use rankeval_stats::GateOutcome;
    use rankeval_stats::Interval;
    use rankeval_stats::ppi::{NormalMean, PpiComparison, PpiMean};

    use super::*;

    /// A normal mean `mean ∓ half` over `count` values.
    fn normal(mean: f64, half: f64, count: usize) -> NormalMean {
        NormalMean {
            mean,
            standard_error: half / 1.96,
            interval: Interval {
                lower: mean - half,
                upper: mean + half,
                level: 0.95,
            },
            count,
        }
    }

    /// A PPI mean `estimate ∓ half` with weight `lambda`, people's mean
    /// `people` and the model's `model`.
    fn mean(estimate: f64, half: f64, lambda: f64, people: f64, model: f64) -> PpiMean {
        PpiMean {
            estimate,
            standard_error: half / 1.96,
            interval: Interval {
                lower: estimate - half,
                upper: estimate + half,
                level: 0.95,
            },
            lambda,
            lambda_tuned: true,
            labelled: 4,
            unlabelled: 6,
            classical: normal(people, 0.2, 4),
            imputed: normal(model, 0.05, 10),
        }
    }

    /// Two runs on one metric, `dense` compared with the baseline `bm25`
    /// (its p-value below 0.0001, in scientific notation), one query of
    /// `dense` without a list, and two gates: a floor and `superior`.
    fn report(missing: Missing) -> PpiReport {
        let bm25 = mean(0.4125, 0.1, 0.8, 0.45, 0.38);
        let dense = mean(0.55, 0.125, 0.625, 0.6, 0.5);
        let difference = mean(0.1375, 0.0625, 0.5, 0.15, 0.12);
        let run = |name: &str, mean: PpiMean, comparison, missing: QuerySample| PpiRun {
            name: name.into(),
            judged: 10,
            queries: if missing.count == 0 { 10 } else { 9 },
            labelled: 4,
            missing_labelled: usize::from(missing.count > 0),
            missing,
            metrics: vec![PpiMetric {
                metric: "ndcg@10".into(),
                mean,
                comparison,
            }],
        };
        PpiReport {
            metrics: vec!["ndcg@10".into()],
            runs: vec![
                run("bm25", bm25, None, QuerySample::default()),
                run(
                    "dense",
                    dense,
                    Some(PpiComparison {
                        difference,
                        z: 4.4,
                        p_value: 0.0000108,
                        baseline: bm25,
                        candidate: dense,
                    }),
                    QuerySample {
                        count: 1,
                        first: vec!["q7".into()],
                    },
                ),
            ],
            baseline: Some("bm25".into()),
            level: 0.95,
            missing,
            labelled_without_model: 0,
            gates: vec![
                PpiGateResult {
                    gate: "ndcg@10:at_least(0.5)".into(),
                    run: "bm25".into(),
                    outcome: GateOutcome {
                        passed: false,
                        quantity: Quantity::Mean,
                        value: 0.4125,
                        relation: Relation::AtLeast,
                        threshold: 0.5,
                    },
                },
                PpiGateResult {
                    gate: "ndcg@10:superior(alpha=0.05)".into(),
                    run: "dense".into(),
                    outcome: GateOutcome {
                        passed: true,
                        quantity: Quantity::CorrectedPValue,
                        value: 0.0000108,
                        relation: Relation::Below,
                        threshold: 0.05,
                    },
                },
            ],
        }
    }

    #[test]
    fn table_has_a_row_per_run_and_metric_then_queries_level_and_gates() {
        insta::assert_snapshot!(render(&report(Missing::Skip), PpiFormat::Table));
    }

    #[test]
    fn markdown_is_the_table_with_the_same_lines_under_it() {
        insta::assert_snapshot!(render(&report(Missing::Zero), PpiFormat::Markdown));
    }

    #[test]
    fn without_a_baseline_there_is_no_difference_column() {
        let mut report = report(Missing::Skip);
        report.baseline = None;
        report.gates.clear();
        report.runs[1].metrics[0].comparison = None;
        insta::assert_snapshot!(render(&report, PpiFormat::Table));
    }

    #[test]
    fn json_is_the_report_with_a_final_newline() {
        let json = render(&report(Missing::Skip), PpiFormat::Json);
        assert!(json.ends_with("}\n"), "{json}");
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["baseline"], "bm25");
        assert_eq!(value["runs"][1]["missing"]["first"][0], "q7");
        assert_eq!(value["gates"][0]["outcome"]["passed"], false);
    }
}
