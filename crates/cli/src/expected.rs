//! `rankeval expected`: each metric's expected value when the judgements
//! are label distributions (probabilities of each grade per document, as
//! an LLM judge's label probabilities), with how it was computed and the
//! value at the most likely labels beside it (docs/judgements.md).

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use rankeval::core::{Grade, Qrels};
use rankeval::engine::{Missing, Options};
use rankeval::expected::{
    ExpectedMetric, ExpectedReport, ExpectedSettings, LabelDistributions, Method, expected,
};
use rankeval::read::{CsvOptions, Input};
use rankeval::read_qrels;
use rankeval_report::text::aligned;

use super::eval::with_columns;
use super::{CliError, Verdict, judge_inputs, output};

/// `rankeval expected`'s arguments.
#[derive(Debug, Args)]
#[command(
    after_help = "Example (a table with the columns query, doc, p0, p1, p2, p3):\n  \
    rankeval expected --qrels labels.tsv --qrels-columns query=query,doc=doc \\\n      \
    --label p0=0,p1=1,p2=2,p3=3 \\\n      \
    --run bm25.trec --run dense.trec -m ndcg@10 -m p@10"
)]
pub struct ExpectedArgs {
    /// The label distributions: a table (TSV, CSV, Parquet, JSON Lines)
    /// with a query and a document column and one column of probabilities
    /// per grade (each row's probabilities sum to 1).
    #[arg(long, value_name = "FILE")]
    qrels: PathBuf,
    /// The table's query and document columns, as eval's
    /// `key=value,...` (`query=query,doc=doc`; default user, item).
    #[arg(long, value_name = "KEY=VALUE,...")]
    qrels_columns: Option<String>,
    /// A probability column and the grade it is the probability of,
    /// `COLUMN=GRADE`; repeat, or give several separated by commas
    /// (`p0=0,p1=1,p2=2`).
    #[arg(
        long = "label",
        value_name = "COLUMN=GRADE",
        required = true,
        value_delimiter = ','
    )]
    labels: Vec<String>,
    /// A run, `[NAME=]FILE`; repeat for several.
    #[arg(long = "run", value_name = "[NAME=]FILE", required = true)]
    runs: Vec<String>,
    /// A metric; repeat for several.
    #[arg(short = 'm', long = "metric", value_name = "METRIC", required = true)]
    metrics: Vec<String>,
    /// Monte Carlo draws per query, for a metric that is not additive on a
    /// query with more labellings than --exact-up-to.
    #[arg(long, default_value_t = ExpectedSettings::default().samples, value_name = "N")]
    samples: usize,
    /// The seed of the draws (printed in the report).
    #[arg(long, default_value_t = ExpectedSettings::default().seed, value_name = "SEED")]
    seed: u64,
    /// Enumerate every labelling of a query exactly when there are at most
    /// N of them.
    #[arg(long = "exact-up-to", default_value_t = ExpectedSettings::default().enumeration_limit, value_name = "N")]
    exact_up_to: usize,
    /// Labelled queries the run lacks: skipped, or scored on an empty list.
    #[arg(long, value_enum, default_value_t = MissingArg::Skip)]
    missing: MissingArg,
    /// Also print each query's values.
    #[arg(long)]
    per_query: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExpectedFormat::Table)]
    format: ExpectedFormat,
    /// Write the report to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// Queries the run lacks.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum MissingArg {
    /// Left out.
    Skip,
    /// Scored on an empty list.
    Zero,
}

/// The report's format.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ExpectedFormat {
    /// Aligned text.
    Table,
    /// One JSON document.
    Json,
}

/// `COLUMN=GRADE` pairs, each grade a finite number.
fn label_columns(given: &[String]) -> Result<Vec<(String, Grade)>, CliError> {
    let mut columns: Vec<(String, Grade)> = Vec::with_capacity(given.len());
    for text in given {
        let bad = |why: &str| CliError::Usage(format!("--label {text}: {why}"));
        let (column, grade) = text
            .split_once('=')
            .ok_or_else(|| bad("give COLUMN=GRADE, e.g. p2=2"))?;
        let grade: Grade = grade
            .trim()
            .parse()
            .ok()
            .filter(|g: &f64| g.is_finite())
            .ok_or_else(|| bad("the grade is not a number"))?;
        let column = column.trim();
        if column.is_empty() {
            return Err(bad("no column name"));
        }
        if columns.iter().any(|(c, _)| c == column) {
            return Err(bad("the column is given twice"));
        }
        columns.push((column.to_owned(), grade));
    }
    if columns.len() < 2 {
        return Err(CliError::Usage(
            "--label: give a column for each grade, two at least (p0=0,p1=1)".to_owned(),
        ));
    }
    Ok(columns)
}

/// Runs `rankeval expected`.
pub(crate) fn run(args: ExpectedArgs) -> Result<Verdict, CliError> {
    let columns = label_columns(&args.labels)?;
    if args.samples < 2 {
        return Err(CliError::Usage(
            "--samples: at least 2 (the standard error needs two draws)".to_owned(),
        ));
    }
    let base = with_columns(
        &CsvOptions::default(),
        args.qrels_columns.as_deref(),
        "--qrels-columns",
    )?;
    let tables: Vec<(Grade, Qrels)> = columns
        .iter()
        .map(|(column, grade)| {
            let csv = CsvOptions {
                grade: column.clone(),
                ..base.clone()
            };
            let qrels = read_qrels(&Input::file(&args.qrels).with_columns(csv))?;
            Ok((*grade, qrels))
        })
        .collect::<Result<_, CliError>>()?;
    let borrowed: Vec<(Grade, &Qrels)> = tables.iter().map(|(g, q)| (*g, q)).collect();
    let labels = LabelDistributions::from_columns(&borrowed)
        .map_err(|e| CliError::Usage(format!("{}: {e}", args.qrels.display())))?;
    let metrics = judge_inputs::metrics(&args.metrics)?;
    let runs = judge_inputs::runs(&args.runs)?;
    let borrowed: Vec<(String, &rankeval::core::Run)> =
        runs.iter().map(|(n, r)| (n.clone(), r)).collect();
    let options = Options {
        missing: match args.missing {
            MissingArg::Skip => Missing::Skip,
            MissingArg::Zero => Missing::Zero,
        },
        ..Options::default()
    };
    let settings = ExpectedSettings {
        samples: args.samples,
        seed: args.seed,
        enumeration_limit: args.exact_up_to,
    };
    let report = expected(&labels, &borrowed, &metrics, &options, &settings)
        .map_err(|e| CliError::Usage(format!("{}: {e}", args.qrels.display())))?;
    let text = match args.format {
        ExpectedFormat::Table => table(&report, args.per_query),
        ExpectedFormat::Json => judge_inputs::json_report(&report)?,
    };
    output::write(&text, args.output.as_deref())?;
    Ok(Verdict::Passed)
}

fn number(value: f64) -> String {
    format!("{value:.4}")
}

/// How a metric's mean was computed, in words.
fn methods(metric: &ExpectedMetric) -> String {
    let parts: Vec<String> = [
        (metric.additive, "additive"),
        (metric.enumerated, "enumerated"),
        (metric.sampled, "sampled"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{what} {n}"))
    .collect();
    if parts.is_empty() {
        "no queries".to_owned()
    } else {
        parts.join(", ")
    }
}

/// The aligned-text report.
fn table(report: &ExpectedReport, per_query: bool) -> String {
    let mut out = String::new();
    let grades: Vec<String> = report.grades.iter().map(|g| g.to_string()).collect();
    let _ = writeln!(
        out,
        "Expected values under label distributions (grades {}): {} labelled queries, {} documents \
         with an uncertain grade",
        grades.join(", "),
        report.labelled_queries,
        report.uncertain_documents
    );
    let sampled = report
        .runs
        .iter()
        .flat_map(|r| &r.metrics)
        .any(|m| m.sampled > 0);
    if sampled {
        let _ = writeln!(
            out,
            "Monte Carlo where needed: {} draws per query, seed {}; generator {}",
            report.settings.samples, report.settings.seed, report.rng
        );
    }
    out.push('\n');
    let mut rows = vec![
        [
            "run",
            "metric",
            "expected",
            "± s.e.",
            "most likely",
            "queries: method",
        ]
        .map(str::to_owned)
        .to_vec(),
    ];
    for run in &report.runs {
        for metric in &run.metrics {
            rows.push(vec![
                run.name.clone(),
                metric.metric.clone(),
                number(metric.expected),
                if metric.sampled > 0 {
                    number(metric.standard_error)
                } else {
                    "exact".to_owned()
                },
                number(metric.most_likely),
                methods(metric),
            ]);
        }
    }
    out.push_str(&aligned(&rows, &[true, true, false, false, false, true]));
    out.push_str(
        "\nexpected: the mean over queries of each query's expected value; most likely: the \
         value at each document's most likely grade.\n",
    );
    if per_query {
        let mut rows = vec![
            [
                "run",
                "query",
                "metric",
                "expected",
                "± s.e.",
                "most likely",
                "method",
            ]
            .map(str::to_owned)
            .to_vec(),
        ];
        for run in &report.runs {
            for query in &run.queries {
                for (name, value) in report.metrics.iter().zip(&query.values) {
                    rows.push(vec![
                        run.name.clone(),
                        query.query.clone(),
                        name.clone(),
                        number(value.expected),
                        match value.method {
                            Method::Sampled => number(value.standard_error),
                            _ => "exact".to_owned(),
                        },
                        number(value.most_likely),
                        match value.method {
                            Method::Additive => "additive",
                            Method::Enumerated => "enumerated",
                            Method::Sampled => "sampled",
                        }
                        .to_owned(),
                    ]);
                }
            }
        }
        out.push('\n');
        out.push_str(&aligned(
            &rows,
            &[true, true, true, false, false, false, true],
        ));
    }
    out
}
