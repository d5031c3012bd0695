//! `rankeval expected`: each metric's expected value when the judgements
//! are label distributions (probabilities of each grade per document, as
//! an LLM judge's label probabilities), with how it was computed and the
//! value at the most likely labels beside it (docs/judgements.md).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use rankeval::core::Grade;
use rankeval::engine::{Missing, Options};
use rankeval::expected::{
    ExpectedRun, ExpectedSettings, MAX_ENUMERATION_LIMIT, MAX_SAMPLES, ReadLabelsError,
    SettingsError, expected, read_labels,
};
use rankeval::read::{CsvOptions, Format, Input};
use rankeval_report::RenderOptions;
use rankeval_report::expected::{ExpectedFormat, render};

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
    /// The label distributions: a table (TSV, CSV, Parquet, Arrow, JSON Lines)
    /// with a query and a document column and one column of probabilities
    /// per grade (each row's probabilities sum to 1).
    #[arg(long, value_name = "FILE")]
    qrels: PathBuf,
    /// The table's format, when its name does not say it (a pipe, a FIFO,
    /// a name without one of the suffixes .csv, .tsv, .jsonl, .parquet,
    /// .arrow): jsonl is JSON Lines rows.
    #[arg(long, value_enum, value_name = "FORMAT")]
    qrels_format: Option<TableFormat>,
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
    /// query with more labellings than --exact-up-to (2 to 10000000).
    #[arg(long, default_value_t = ExpectedSettings::default().samples, value_name = "N")]
    samples: usize,
    /// The seed of the draws (printed in the report).
    #[arg(long, default_value_t = ExpectedSettings::default().seed, value_name = "SEED")]
    seed: u64,
    /// Enumerate every labelling of a query exactly when there are at most
    /// N of them (N at most 1048576; a query with more is sampled).
    #[arg(long = "exact-up-to", default_value_t = ExpectedSettings::default().enumeration_limit, value_name = "N")]
    exact_up_to: usize,
    /// Labelled queries the run lacks: skipped, or scored on an empty list.
    #[arg(long, value_enum, default_value_t = MissingArg::Skip)]
    missing: MissingArg,
    /// Also print each query's values.
    #[arg(long)]
    per_query: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExpectedFormatArg::Table)]
    format: ExpectedFormatArg,
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

/// The label table's format (`--qrels-format`): the table formats of
/// `eval`'s `--qrels-format`, and TSV.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum TableFormat {
    /// CSV with a header line (comma, or the delimiter of --qrels-columns).
    Csv,
    /// TSV with a header line.
    Tsv,
    /// JSON Lines, one row per line and document.
    Jsonl,
    /// Parquet.
    Parquet,
    /// Arrow IPC (Feather v2 file, or stream).
    Arrow,
}

/// The report's format.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ExpectedFormatArg {
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

/// The label table at `path`: read as `format`, else as its name says
/// (an error if it names no table format) with `columns`.
fn labels_input(
    path: &std::path::Path,
    format: Option<TableFormat>,
    mut columns: CsvOptions,
) -> Result<Input, CliError> {
    let format = match format {
        Some(TableFormat::Csv) => Format::Csv,
        Some(TableFormat::Tsv) => {
            columns.delimiter.get_or_insert('\t');
            Format::Csv
        }
        Some(TableFormat::Jsonl) => Format::JsonlRows,
        Some(TableFormat::Parquet) => Format::Parquet,
        Some(TableFormat::Arrow) => Format::Arrow,
        None => match Format::from_path(path) {
            // Anything without a table's suffix: a FIFO, `/dev/stdin`, a
            // name without a suffix. Read as TREC, it could only fail.
            Format::Trec => {
                return Err(CliError::Usage(format!(
                    "{}: its name does not say which table format it is: give --qrels-format \
                     csv, tsv, jsonl, parquet or arrow, or name the file with a suffix .csv, .tsv, \
                     .jsonl, .parquet or .arrow (.gz after it for gzip)",
                    path.display()
                )));
            }
            format => format,
        },
    };
    Ok(Input::file(path).with_format(format).with_columns(columns))
}

/// Runs `rankeval expected`.
pub(crate) fn run(args: ExpectedArgs) -> Result<Verdict, CliError> {
    let columns = label_columns(&args.labels)?;
    let settings = ExpectedSettings {
        samples: args.samples,
        seed: args.seed,
        enumeration_limit: args.exact_up_to,
    };
    // Bounds first, before anything is read: no query enumerates or draws
    // without end.
    settings.check().map_err(|e| {
        CliError::Usage(match e {
            SettingsError::EnumerationLimit { limit } => format!(
                "--exact-up-to {limit}: at most {MAX_ENUMERATION_LIMIT} (a query with more \
                 labellings is estimated with --samples draws)"
            ),
            SettingsError::Samples { samples } => format!(
                "--samples {samples}: from 2 (the standard error needs two draws) to {MAX_SAMPLES}"
            ),
        })
    })?;
    judge_inputs::refuse_output_over(
        args.output.as_deref(),
        &[("the label distributions", args.qrels.as_path())],
        &args.runs,
    )?;
    let base = with_columns(
        &CsvOptions::default(),
        args.qrels_columns.as_deref(),
        "--qrels-columns",
    )?;
    let input = labels_input(&args.qrels, args.qrels_format, base)?;
    let labels = read_labels(&input, &columns).map_err(|e| match e {
        ReadLabelsError::Read(e) => CliError::Read(e),
        other => CliError::Usage(other.to_string()),
    })?;
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
    let report = expected(&labels, &borrowed, &metrics, &options, &settings)
        .map_err(|e| CliError::Usage(format!("{}: {e}", args.qrels.display())))?;
    let format = match args.format {
        ExpectedFormatArg::Table => ExpectedFormat::Table,
        ExpectedFormatArg::Json => ExpectedFormat::Json,
    };
    let text = render(
        &report,
        format,
        RenderOptions {
            per_query: args.per_query,
        },
    );
    output::write(&text, args.output.as_deref())?;
    for run in &report.runs {
        if let Some(warning) = missing_warning(run, options.missing) {
            eprintln!("warning: {warning}");
        }
    }
    Ok(Verdict::Passed)
}

/// The warning for a run without a list for some labelled queries: how
/// many, what was done with them, the first few ids (cut as every message
/// cuts ids).
fn missing_warning(run: &ExpectedRun, missing: Missing) -> Option<String> {
    let sample = &run.missing;
    if sample.is_empty() {
        return None;
    }
    let one = sample.count == 1;
    Some(format!(
        "run `{}`: {} labelled {} no list in the run and {}: {}",
        run.name,
        sample.count,
        if one { "query has" } else { "queries have" },
        match missing {
            Missing::Skip => format!(
                "{} left out (to score {} on an empty list, use --missing zero)",
                if one { "was" } else { "were" },
                if one { "it" } else { "them" }
            ),
            Missing::Zero => "scored on an empty list".to_owned(),
        },
        judge_inputs::examples(sample)
    ))
}
