//! A benchmark reported as the mean of its parts (CQADupStack's 12
//! forums) after its report, whose rows are the parts and whose mean is
//! the benchmark's value: each part's own numbers, the queries it was
//! evaluated on and each run's mean of each metric there. In the table and
//! Markdown a table, in JSON a `parts` object, in CSV rows of their own
//! (with their own header); trec, LaTeX and HTML have no place for it.

use rankeval::benchmarks::parts::PartResults;
use rankeval::core::exact_sum::fmean;
use serde_json::{Map, Value, json};

use super::{OutputFormat, csv, fixed};

/// `text` (the benchmark's report in `format`) with each part's numbers
/// added.
pub fn with_parts(format: OutputFormat, text: String, parts: &PartResults) -> String {
    super::with_section(
        format,
        text,
        super::Section {
            key: "parts",
            value: value(parts),
            title: title(parts),
            tables: vec![table(parts)],
            csv: csv_rows(parts),
            latex: None,
        },
    )
}

/// What the parts' table holds, in a line.
fn title(parts: &PartResults) -> String {
    format!(
        "{} is the mean of its {} forums' means (each forum weighs the same, as BEIR reports \
         it): the rows above are its forums (`queries` counts them, per query is per forum); \
         each forum, evaluated on its own qrels:",
        parts.benchmark,
        parts.reports.len()
    )
}

/// Run `r`'s mean of metric `m` in `report` (NaN when it has none).
fn mean(report: &rankeval::report::Report, r: usize, m: usize) -> f64 {
    report
        .runs
        .get(r)
        .and_then(|run| run.per_query.get(m))
        .map_or(f64::NAN, |column| fmean(column))
}

/// The run names and metric names, as the first part has them.
fn columns(parts: &PartResults) -> (Vec<String>, Vec<String>) {
    parts
        .reports
        .first()
        .map(|(_, _, report)| {
            (
                report.runs.iter().map(|r| r.name.clone()).collect(),
                report.metrics.iter().map(|m| m.name.clone()).collect(),
            )
        })
        .unwrap_or_default()
}

fn table(parts: &PartResults) -> Vec<Vec<String>> {
    let (runs, metrics) = columns(parts);
    let several = runs.len() > 1;
    let mut header = vec!["forum".to_owned()];
    for run in &runs {
        header.push(if several {
            format!("queries [{run}]")
        } else {
            "queries".to_owned()
        });
    }
    for metric in &metrics {
        for run in &runs {
            header.push(if several {
                format!("{metric} [{run}]")
            } else {
                metric.clone()
            });
        }
    }
    let mut rows = vec![header];
    for (name, _, report) in &parts.reports {
        let mut row = vec![name.clone()];
        for r in 0..runs.len() {
            row.push(
                report
                    .runs
                    .get(r)
                    .map_or_else(String::new, |run| run.queries.len().to_string()),
            );
        }
        for m in 0..metrics.len() {
            for r in 0..runs.len() {
                row.push(fixed(mean(report, r, m)));
            }
        }
        rows.push(row);
    }
    rows
}

fn value(parts: &PartResults) -> Value {
    let (runs, metrics) = columns(parts);
    let forums: Vec<Value> = parts
        .reports
        .iter()
        .map(|(name, id, report)| {
            let runs: Vec<Value> = runs
                .iter()
                .enumerate()
                .map(|(r, run)| {
                    let means: Map<String, Value> = metrics
                        .iter()
                        .enumerate()
                        .map(|(m, metric)| (metric.clone(), json!(mean(report, r, m))))
                        .collect();
                    json!({
                        "run": run,
                        "queries": report.runs.get(r).map_or(0, |run| run.queries.len()),
                        "means": means,
                    })
                })
                .collect();
            json!({ "forum": name, "id": id, "runs": runs })
        })
        .collect();
    json!({
        "benchmark": parts.benchmark,
        "value": "the mean of the forums' means",
        "forums": forums,
    })
}

fn csv_rows(parts: &PartResults) -> String {
    let (runs, metrics) = columns(parts);
    let mut out = String::new();
    csv::line(
        &mut out,
        &["forum", "id", "run", "queries", "metric", "mean"].map(str::to_owned),
    );
    for (name, id, report) in &parts.reports {
        for (r, run) in runs.iter().enumerate() {
            let queries = report
                .runs
                .get(r)
                .map_or_else(String::new, |run| run.queries.len().to_string());
            for (m, metric) in metrics.iter().enumerate() {
                csv::line(
                    &mut out,
                    &[
                        name.clone(),
                        id.clone(),
                        run.clone(),
                        queries.clone(),
                        metric.clone(),
                        csv::number(mean(report, r, m)),
                    ],
                );
            }
        }
    }
    out
}
