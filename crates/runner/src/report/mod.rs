//! The report model and its renderers: one plain struct holding everything
//! an evaluation produced, and one module per output format.
//!
//! The model always keeps every per-query value (the spec says they are
//! always available); whether a format prints them is a rendering option.

mod comparison;
mod csv;
pub mod html;
pub mod html_curves;
pub mod html_explain;
mod html_svg;
mod json;
mod markdown;
mod table;
mod trec;

use std::fmt;

use rankeval_core::{Metric, RelevanceLevel, TrecEvalMeasure};
use serde::{Deserialize, Serialize};

use crate::engine::Warning;
use crate::read::QrelsNote;

pub use comparison::{gate_detail, html_comparison, render_compared};

/// Everything an evaluation of one or more runs produced.
#[derive(Clone, Debug)]
pub struct Report {
    /// The metrics, in the order of every `values` vector below.
    pub metrics: Vec<MetricColumn>,
    /// The aggregators' canonical names, in the order of `aggregates`.
    pub aggregators: Vec<String>,
    /// The corpus metrics' canonical names (one value per run each, not
    /// aggregated), in the order of every run's `corpus`.
    pub corpus: Vec<String>,
    /// One result per run, in the order given.
    pub runs: Vec<RunResult>,
    /// What the user should know, per run.
    pub warnings: Vec<RunWarning>,
}

/// A metric as reports show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetricColumn {
    /// The canonical name: the key in every format.
    pub name: String,
    /// Its trec_eval measure, for `--format trec`.
    pub trec: Option<TrecEvalMeasure>,
}

impl MetricColumn {
    /// The column of `metric`.
    pub fn of(metric: &dyn Metric) -> Self {
        Self {
            name: metric.name(),
            trec: metric.trec_eval(),
        }
    }
}

/// The results of one run.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// The run's name.
    pub name: String,
    /// The evaluated queries, in report order.
    pub queries: Vec<String>,
    /// `per_query[m][q]`: metric `m` on query `q`.
    pub per_query: Vec<Vec<f64>>,
    /// `aggregates[m][a]`: aggregator `a` of metric `m`.
    pub aggregates: Vec<Vec<f64>>,
    /// `corpus[c]`: corpus metric `c` over every list of the run.
    pub corpus: Vec<f64>,
}

/// A warning about one run, or about the whole experiment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunWarning {
    /// The run it is about; empty for a warning about the whole experiment
    /// (then printed without a run, and without `run` in JSON).
    pub run: String,
    /// What happened.
    pub warning: ReportWarning,
}

/// What a report warns about: the engine's warnings on which queries
/// counted, and those on how the inputs were used. In JSON, an object with
/// `kind` (snake_case) and the fields of the variant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ReportWarning {
    /// A JSON Lines run holds judgements of its own (`relevant`), which
    /// were not used because qrels were given.
    RunJudgementsIgnored {
        /// How many of the run's queries have judgements.
        count: usize,
        /// The qrels used instead, as named by the user.
        qrels: String,
    },
    /// A relevance level was set for the experiment (`--rel`, TOML `rel`),
    /// but no metric reads it: each uses grades as gains, ignores grades,
    /// or sets a `rel` of its own.
    LevelUnused {
        /// The level set.
        level: RelevanceLevel,
    },
    /// The qrels are a table of rows (CSV, JSON Lines rows, a long Parquet
    /// or Arrow table) without a grade column: every listed pair counts as
    /// relevant with grade 1.
    QrelsWithoutGrades {
        /// The qrels, as named by the user.
        qrels: String,
        /// The grade column looked for.
        grade: String,
        /// The columns the qrels have.
        columns: Vec<String>,
    },
    /// A catalog was given, but recommended items are not in it: coverage
    /// counts them (it may pass 1) and Gini adds them to the items.
    ItemsOutsideCatalog {
        /// How many distinct items.
        count: usize,
        /// The first few, in byte order.
        examples: Vec<String>,
    },
    /// Item features were given, but recommended items have none: their
    /// pairs are left out of intra-list diversity.
    ItemsWithoutFeatures {
        /// How many distinct items.
        count: usize,
        /// The first few, in byte order.
        examples: Vec<String>,
    },
    /// A corpus metric input was given but no metric reads it.
    CorpusInputUnused {
        /// The flag that gives it, e.g. `--train`.
        flag: &'static str,
        /// The TOML key that gives it, e.g. `training`.
        key: &'static str,
    },
    /// Which queries were evaluated, and which were not.
    #[serde(untagged)]
    Coverage(Warning),
}

impl ReportWarning {
    /// The warning for what reading the qrels called `qrels` noted about
    /// them (the command line's and the Python package's alike).
    pub fn of_qrels(qrels: &str, note: QrelsNote) -> Self {
        match note {
            QrelsNote::NoGradeColumn { grade, columns } => ReportWarning::QrelsWithoutGrades {
                qrels: qrels.to_owned(),
                grade,
                columns,
            },
        }
    }
}

impl From<Warning> for ReportWarning {
    fn from(warning: Warning) -> Self {
        ReportWarning::Coverage(warning)
    }
}

impl fmt::Display for ReportWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportWarning::RunJudgementsIgnored { count, qrels } => write!(
                f,
                "the run's own judgements (`relevant`, on {count} {}) were ignored: the qrels \
                 of {qrels} were used (to use the run's own, leave out --qrels; TOML: the \
                 `qrels` key)",
                if *count == 1 { "query" } else { "queries" }
            ),
            ReportWarning::LevelUnused { level } => write!(
                f,
                "the relevance level {level} (--rel, TOML `rel`) changes nothing: no metric \
                 reads it (nDCG, DCG, ERR and graded RBP use grades as gains, num_ret ignores \
                 grades, and a metric's own `rel` wins; see `rankeval metrics`)"
            ),
            ReportWarning::QrelsWithoutGrades {
                qrels,
                grade,
                columns,
            } => write!(
                f,
                "the qrels of {qrels} have no `{grade}` column (columns: {}): every listed pair \
                 counts as relevant, with grade 1 (if a column holds the grades, name it with \
                 --csv-grade, TOML `grade`)",
                columns.join(", ")
            ),
            ReportWarning::ItemsOutsideCatalog { count, examples } => write!(
                f,
                "{count} recommended {} not in the catalog (e.g. {}): catalog coverage counts \
                 {}, and the Gini index adds {} to the catalog's items",
                if *count == 1 { "item is" } else { "items are" },
                examples.join(", "),
                if *count == 1 { "it" } else { "them" },
                if *count == 1 { "it" } else { "them" },
            ),
            ReportWarning::ItemsWithoutFeatures { count, examples } => write!(
                f,
                "{count} recommended {} no features (e.g. {}): {} pairs are left out of \
                 intra-list diversity",
                if *count == 1 {
                    "item has"
                } else {
                    "items have"
                },
                examples.join(", "),
                if *count == 1 { "its" } else { "their" },
            ),
            ReportWarning::CorpusInputUnused { flag, key } => write!(
                f,
                "{flag} (TOML `{key}`) is not read: no metric asked for needs it (see \
                 `rankeval metrics`, corpus metrics)"
            ),
            ReportWarning::Coverage(warning) => warning.fmt(f),
        }
    }
}

impl fmt::Display for RunWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.run.is_empty() {
            self.warning.fmt(f)
        } else {
            write!(f, "run `{}`: {}", self.run, self.warning)
        }
    }
}

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

impl Report {
    /// The report in `format`.
    pub fn render(&self, format: OutputFormat, options: RenderOptions) -> String {
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

    /// Label of the aggregate `a` of metric `m` where one column holds both.
    fn row_label(&self, m: usize, a: usize) -> String {
        if self.aggregators.len() == 1 && self.aggregators[0] == "mean" {
            self.metrics[m].name.clone()
        } else {
            format!("{} [{}]", self.metrics[m].name, self.aggregators[a])
        }
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
            let mut row = vec![report.row_label(m, a)];
            row.extend(report.runs.iter().map(|r| fixed(r.aggregates[m][a])));
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
    use super::*;
    use crate::engine::Warning;

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

    /// [`sample`] with two corpus metrics, one value per run each.
    pub(crate) fn sample_with_corpus(aggregators: &[&str]) -> Report {
        let mut report = sample(aggregators);
        report.corpus = vec!["catalog_coverage@10".into(), "novelty@10".into()];
        report.runs[0].corpus = vec![0.25, 3.5];
        report.runs[1].corpus = vec![0.5, f64::NAN];
        report
    }
}
