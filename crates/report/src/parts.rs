//! A benchmark reported as the mean of its parts (CQADupStack's 12
//! forums) after its report, whose rows are the parts and whose mean is
//! the benchmark's value: each part's own numbers, the queries it was
//! evaluated on and each run's mean of each metric there. In the table and
//! Markdown a table, in JSON a `parts` object, in CSV rows of their own
//! (with their own header); trec, LaTeX and HTML have no place for it.
//!
//! The benchmark's own summary counts what its rows are: in the table and
//! Markdown a row `forums` (the parts) and a row `queries` (the queries
//! they hold, summed), where a report of queries has `queries` alone; in
//! JSON each run's `num_forums` and `num_queries` (the same sum), where
//! `num_queries` would otherwise count the forums ([`summary`]).

use rankeval::benchmarks::parts::PartResults;
use rankeval::core::exact_sum::fmean;
use serde_json::{Map, Value, json};

use super::{OutputFormat, Render, RenderOptions, csv, fixed, markdown, table};

/// The benchmark's report (whose rows are its parts) in `format`, its
/// counts saying what they count: `forums` and the `queries` the forums
/// hold, instead of a `queries` row that would count the forums.
pub fn summary(
    format: OutputFormat,
    report: &rankeval::report::Report,
    options: RenderOptions,
    parts: &PartResults,
) -> String {
    let text = report.render(format, options);
    let queries = queries_per_run(report, parts);
    match format {
        OutputFormat::Table | OutputFormat::Markdown => {
            let rows = super::summary_rows(report);
            let (plain, counted) = if format == OutputFormat::Table {
                (
                    table::aligned(&rows),
                    table::aligned(&counted_rows(rows, &queries)),
                )
            } else {
                (
                    markdown::table(&rows),
                    markdown::table(&counted_rows(rows, &queries)),
                )
            };
            // The renderers begin with the summary; what follows (per-query
            // tables) is kept as they write it.
            match text.strip_prefix(&plain) {
                Some(rest) => counted + rest,
                None => text,
            }
        }
        OutputFormat::Json => {
            let Ok(mut document) = serde_json::from_str::<Value>(&text) else {
                return text;
            };
            if let Some(runs) = document.get_mut("runs").and_then(Value::as_array_mut) {
                for (run, total) in runs.iter_mut().zip(&queries) {
                    if let Some(run) = run.as_object_mut() {
                        run.insert("num_forums".into(), json!(parts.reports.len()));
                        run.insert("num_queries".into(), json!(total));
                    }
                }
            }
            let mut out = serde_json::to_string_pretty(&document).unwrap_or(text);
            out.push('\n');
            out
        }
        OutputFormat::Csv | OutputFormat::Trec | OutputFormat::Html | OutputFormat::Latex => text,
    }
}

/// Each run's queries over every part: the sum of the queries each part's
/// report evaluated for it.
fn queries_per_run(report: &rankeval::report::Report, parts: &PartResults) -> Vec<usize> {
    (0..report.runs.len())
        .map(|r| {
            parts
                .reports
                .iter()
                .map(|(_, _, part)| part.runs.get(r).map_or(0, |run| run.queries.len()))
                .sum()
        })
        .collect()
}

/// The summary's rows with its count row labelled `forums` and a row of
/// the queries they hold after it.
fn counted_rows(mut rows: Vec<Vec<String>>, queries: &[usize]) -> Vec<Vec<String>> {
    if let Some(first) = rows.get_mut(1).and_then(|row| row.first_mut()) {
        *first = "forums".to_owned();
    }
    let mut row = vec!["queries".to_owned()];
    row.extend(queries.iter().map(ToString::to_string));
    rows.insert(2.min(rows.len()), row);
    rows
}

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
         it): the rows above are its forums (`forums` counts them, `queries` the queries they \
         hold; per query is per forum); each forum, evaluated on its own qrels:",
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
