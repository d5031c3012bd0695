//! # rankeval-report
//!
//! The renderers of rankeval's report model ([`rankeval::report`]): an
//! aligned table for a terminal, JSON, CSV, Markdown, trec_eval's layout,
//! LaTeX (booktabs) and one self-contained HTML page with SVG charts; the
//! comparisons and gates of [`rankeval::compare`] in each of those; and
//! `rankeval explain`'s text, Markdown and JSON; and the reports of
//! `rankeval ppi`, `agree`, `overlap`, `expected` and `spans` ([`ppi`],
//! [`agreement`], [`overlap`], [`expected`], [`spans`]). Each format is one module that reads the
//! model; the model knows nothing of them. A renderer receives data and
//! returns text: it reads no input and judges nothing.

pub mod agreement;
mod comparison;
mod csv;
pub mod expected;
pub mod explain;
pub mod history;
pub mod history_html;
pub mod html;
pub mod html_explain;
mod html_svg;
mod json;
mod markdown;
pub mod ope;
pub mod outcome;
pub mod overlap;
pub mod parts;
pub mod ppi;
pub mod spans;
pub mod suite;
pub mod systems;
mod table;
pub mod text;
mod trec;

pub use comparison::{gate_detail, html_comparison, render_compared};
/// The model the renderers read, re-exported so that a renderer's caller
/// needs one import.
pub use rankeval::report::{MetricColumn, Report, ReportWarning, RunResult, RunWarning};
use serde::{Deserialize, Serialize};

/// An output format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputFormat {
    /// An aligned table for a terminal.
    #[default]
    Table,
    /// One JSON document.
    Json,
    /// CSV for a spreadsheet: one row per run (and per query).
    Csv,
    /// A Markdown table to paste into a pull request.
    Markdown,
    /// trec_eval's layout: `measure<TAB>query|all<TAB>value`.
    Trec,
    /// One self-contained HTML page with charts (see [`html`]); rendered
    /// here without curves, which [`html::render`] takes from the engine.
    Html,
    /// A LaTeX table (booktabs): runs as rows, metrics as columns; with a
    /// comparison, significance superscripts.
    Latex,
}

/// How to render a report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// Print every query's value, not only the aggregates.
    pub per_query: bool,
}

/// Rendering a [`Report`] in any [`OutputFormat`]: a trait, so that
/// `report.render(format, options)` reads as it did when the renderers and
/// the model were one crate.
pub trait Render {
    /// The report in `format`.
    fn render(&self, format: OutputFormat, options: RenderOptions) -> String;
}

impl Render for Report {
    fn render(&self, format: OutputFormat, options: RenderOptions) -> String {
        match format {
            OutputFormat::Table => table::render(self, options),
            OutputFormat::Json => json::render(self, options),
            OutputFormat::Csv => csv::render(self, options),
            OutputFormat::Markdown => markdown::render(self, options),
            OutputFormat::Trec => trec::render(self, options),
            OutputFormat::Html => html::render(self, options, html::HtmlExtras::default()),
            OutputFormat::Latex => comparison::latex(self, None),
        }
    }
}

/// A section added after a report (a suite's macro average, systems).
pub(crate) struct Section<'a> {
    /// The JSON key it goes under.
    pub key: &'a str,
    /// Its JSON value.
    pub value: serde_json::Value,
    /// Its title line (table, Markdown).
    pub title: String,
    /// Its tables (table, Markdown); a table of a header only is left out.
    pub tables: Vec<Vec<Vec<String>>>,
    /// Its CSV rows, with their own header.
    pub csv: String,
    /// Its LaTeX, if it has one.
    pub latex: Option<String>,
}

/// `text` (a report in `format`) with `section` added after it: in JSON an
/// object under its key, in the table and Markdown its title and tables, in
/// CSV its rows, in LaTeX its table; trec and HTML have no place for it.
pub(crate) fn with_section(format: OutputFormat, mut text: String, section: Section<'_>) -> String {
    let Section {
        key,
        value,
        title,
        tables,
        csv,
        latex,
    } = section;
    match format {
        OutputFormat::Json => {
            let mut document: serde_json::Value =
                serde_json::from_str(&text).unwrap_or(serde_json::Value::Null);
            if let Some(object) = document.as_object_mut() {
                object.insert(key.into(), value);
            }
            let mut out = serde_json::to_string_pretty(&document).unwrap_or_default();
            out.push('\n');
            out
        }
        OutputFormat::Csv => {
            text.push_str(&csv);
            text
        }
        OutputFormat::Markdown | OutputFormat::Table => {
            let markdown = format == OutputFormat::Markdown;
            text.push('\n');
            if markdown {
                text.push_str(&format!("### {title}\n\n"));
            } else {
                text.push_str(&title);
                text.push('\n');
            }
            for (i, rows) in tables.iter().filter(|t| t.len() > 1).enumerate() {
                if i > 0 {
                    text.push('\n');
                }
                text.push_str(&if markdown {
                    markdown::table(rows)
                } else {
                    table::aligned(rows)
                });
            }
            text
        }
        OutputFormat::Latex => {
            text.push_str(latex.as_deref().unwrap_or(""));
            text
        }
        OutputFormat::Trec | OutputFormat::Html => text,
    }
}

/// Label of the aggregate `a` of metric `m` where one column holds both.
fn row_label(report: &Report, m: usize, a: usize) -> String {
    if report.aggregators.len() == 1 && report.aggregators[0] == "mean" {
        report.metrics[m].name.clone()
    } else {
        format!("{} [{}]", report.metrics[m].name, report.aggregators[a])
    }
}

/// A value with 4 decimals, as tables print it; NaN is "NaN".
fn fixed(value: f64) -> String {
    if value.is_nan() {
        "NaN".to_owned()
    } else {
        format!("{value:.4}")
    }
}

/// An aggregate with its interval, if it has one: `0.6063 [0.4912, 0.7214]`.
fn with_interval(value: f64, interval: Option<rankeval_core::Bounds>) -> String {
    match interval {
        None => fixed(value),
        Some(bounds) => format!(
            "{} [{}, {}]",
            fixed(value),
            fixed(bounds.lower),
            fixed(bounds.upper)
        ),
    }
}

/// The summary rows shared by the table and Markdown renderers: a header and
/// one row per (metric, aggregator), with a column per run.
fn summary_rows(report: &Report) -> Vec<Vec<String>> {
    let mut header = vec!["metric".to_owned()];
    header.extend(report.runs.iter().map(|r| r.name.clone()));
    let mut rows = vec![header];
    let mut queries = vec!["queries".to_owned()];
    queries.extend(report.runs.iter().map(|r| r.queries.len().to_string()));
    rows.push(queries);
    for m in 0..report.metrics.len() {
        for a in 0..report.aggregators.len() {
            let mut row = vec![row_label(report, m, a)];
            row.extend(
                report
                    .runs
                    .iter()
                    .map(|r| with_interval(r.aggregates[m][a], r.interval(m, a))),
            );
            rows.push(row);
        }
    }
    // One value per run: not aggregated, so one row whatever the aggregators.
    for (c, name) in report.corpus.iter().enumerate() {
        let mut row = vec![name.clone()];
        row.extend(report.runs.iter().map(|r| fixed(r.corpus[c])));
        rows.push(row);
    }
    rows
}

/// The rows of one group of queries (`column=value`), shared by the table,
/// Markdown and HTML renderers: a header naming the group, the query count
/// of each run, then one row per (metric, aggregator) as in the summary. A
/// run without queries in the group shows 0 queries and NaN.
fn group_rows(report: &Report, group: &rankeval::report::GroupRow<'_>) -> Vec<Vec<String>> {
    let mut header = vec![format!("{}={}", group.column, group.value)];
    header.extend(report.runs.iter().map(|r| r.name.clone()));
    let mut rows = vec![header];
    let groups = &group.runs;
    let mut queries = vec!["queries".to_owned()];
    queries.extend(
        groups
            .iter()
            .map(|g| g.map_or(0, |g| g.queries.len()).to_string()),
    );
    rows.push(queries);
    for m in 0..report.metrics.len() {
        for a in 0..report.aggregators.len() {
            let mut row = vec![row_label(report, m, a)];
            row.extend(groups.iter().map(|g| match g {
                Some(g) => with_interval(g.aggregates[m][a], g.interval(m, a)),
                None => fixed(f64::NAN),
            }));
            rows.push(row);
        }
    }
    rows
}

/// The per-query rows of one run: a header and a row per query.
fn per_query_rows(report: &Report, run: &RunResult) -> Vec<Vec<String>> {
    let mut header = vec!["query".to_owned()];
    header.extend(report.metrics.iter().map(|m| m.name.clone()));
    let mut rows = vec![header];
    for (q, query) in run.queries.iter().enumerate() {
        let mut row = vec![query.clone()];
        row.extend(run.per_query.iter().map(|column| fixed(column[q])));
        rows.push(row);
    }
    rows
}

#[cfg(test)]
pub(crate) mod tests {
    use rankeval_core::TrecEvalMeasure;

    use super::*;
    use rankeval::engine::Warning;

    /// A small report with two runs, three metrics and a warning.
    pub(crate) fn sample(aggregators: &[&str]) -> Report {
        let metrics = vec![
            MetricColumn {
                name: "ap".into(),
                trec: Some(TrecEvalMeasure::mean("map")),
            },
            MetricColumn {
                name: "p@10".into(),
                trec: Some(TrecEvalMeasure::mean("P_10")),
            },
            MetricColumn {
                name: "num_ret".into(),
                trec: Some(TrecEvalMeasure::sum("num_ret")),
            },
            MetricColumn {
                name: "ap(norm=hits)@5".into(),
                trec: None,
            },
        ];
        let run = |name: &str, base: f64| {
            let per_query = vec![
                vec![base, base / 2.0],
                vec![0.3, 0.1],
                vec![10.0, 7.0],
                vec![1.0, f64::NAN],
            ];
            let aggregates = per_query
                .iter()
                .map(|column: &Vec<f64>| {
                    aggregators
                        .iter()
                        .map(|a| match *a {
                            "mean" => (column[0] + column[1]) / 2.0,
                            _ => column[0].min(column[1]),
                        })
                        .collect()
                })
                .collect();
            RunResult {
                name: name.into(),
                queries: vec!["q1".into(), "q,2".into()],
                per_query,
                aggregates,
                intervals: Vec::new(),
                groups: Vec::new(),
                ir_metadata: None,
                corpus: Vec::new(),
            }
        };
        Report {
            metrics,
            aggregators: aggregators.iter().map(|a| (*a).to_owned()).collect(),
            corpus: Vec::new(),
            runs: vec![run("baseline", 0.5), run("v2", 0.75)],
            warnings: vec![
                RunWarning {
                    run: "v2".into(),
                    warning: ReportWarning::RunJudgementsIgnored {
                        count: 2,
                        qrels: "qrels.txt".into(),
                    },
                },
                RunWarning {
                    run: "v2".into(),
                    warning: Warning::RunOnlyQueries {
                        count: 1,
                        examples: vec!["q9".into()],
                    }
                    .into(),
                },
            ],
        }
    }

    /// [`sample`] with the aggregators `mean` and `ci`, the second with
    /// made-up bounds (one of them undefined, NaN).
    pub(crate) fn sample_with_intervals() -> Report {
        let mut report = sample(&["mean", "mean"]);
        report.aggregators[1] = "ci".into();
        for (r, run) in report.runs.iter_mut().enumerate() {
            run.intervals = (0..run.aggregates.len())
                .map(|m| {
                    let centre = run.aggregates[m][1];
                    let bounds = if r == 1 && m == 3 {
                        rankeval_core::Bounds::UNDEFINED
                    } else {
                        rankeval_core::Bounds {
                            lower: centre - 0.125,
                            upper: centre + 0.25,
                        }
                    };
                    vec![None, Some(bounds)]
                })
                .collect();
        }
        report
    }

    /// [`sample`] with the groups `segment=head` (both runs) and
    /// `segment=tail` (the first run only), made-up values.
    pub(crate) fn sample_with_groups() -> Report {
        let mut report = sample(&["mean"]);
        for (r, run) in report.runs.iter_mut().enumerate() {
            let group = |value: &str, shift: f64| rankeval::report::GroupResult {
                column: "segment".into(),
                value: value.into(),
                queries: vec!["q1".into()],
                aggregates: run.per_query.iter().map(|c| vec![c[0] + shift]).collect(),
                intervals: Vec::new(),
            };
            run.groups = if r == 0 {
                vec![group("head", 0.0), group("tail", 0.5)]
            } else {
                vec![group("head", 0.25)]
            };
        }
        report
    }

    /// [`sample`] with two corpus metrics, one value per run each.
    pub(crate) fn sample_with_corpus(aggregators: &[&str]) -> Report {
        let mut report = sample(aggregators);
        report.corpus = vec!["catalog_coverage@10".into(), "novelty@10".into()];
        report.runs[0].corpus = vec![0.25, 3.5];
        report.runs[1].corpus = vec![0.5, f64::NAN];
        report
    }
}
