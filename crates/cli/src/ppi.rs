//! `rankeval ppi`: a model's judgements for every query, people's for some;
//! each metric's prediction-powered mean with its interval, comparisons with
//! a baseline and gates decided on them (docs/judgements.md).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use rankeval::RelevanceLevel;
use rankeval::compare::parse_gate;
use rankeval::core::registry;
use rankeval::engine::{Missing, Options};
use rankeval::ppi::{Judges, PpiPlan, PpiRun, ppi_report};
use rankeval_report::ppi::{PpiFormat, render};
use rankeval_stats::ppi::{Lambda, PpiOptions};

use super::judge_inputs::JudgeFile;
use super::{CliError, Verdict, judge_inputs, output};

/// `rankeval ppi`'s arguments.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  \
    rankeval ppi --qrels llm.qrels --human human.qrels --run bm25=bm25.trec --run dense=dense.trec \\\n      \
    -m ndcg@10 --baseline bm25 --gate \"ndcg@10:non_inferior(margin=0.01)\"\n\n\
    One table with the model's labels in a column `llm` and people's in `human` (empty where\n\
    nobody judged): --qrels judgements.csv --grade llm --human judgements.csv --human-grade human")]
pub struct PpiArgs {
    /// The model's judgements (an LLM's): every query to evaluate. Any
    /// qrels format.
    #[arg(long, value_name = "FILE")]
    qrels: PathBuf,
    /// People's judgements of some of the queries: the labels that correct
    /// the model's bias.
    #[arg(long, value_name = "FILE")]
    human: PathBuf,
    /// The grade column of --qrels, for a table (CSV, Parquet, ...).
    #[arg(long, value_name = "COLUMN")]
    grade: Option<String>,
    /// The grade column of --human, for a table.
    #[arg(long, value_name = "COLUMN")]
    human_grade: Option<String>,
    /// A run, `NAME=FILE` or `FILE` (named by its stem); repeat for several.
    #[arg(long = "run", value_name = "[NAME=]FILE", required = true)]
    runs: Vec<String>,
    /// A metric in the short syntax; repeat for several.
    #[arg(short = 'm', long = "metric", value_name = "METRIC", required = true)]
    metrics: Vec<String>,
    /// The run every other run is compared with (its name).
    #[arg(long, value_name = "RUN")]
    baseline: Option<String>,
    /// A gate decided on the PPI estimates, `METRIC:RULE`:
    /// `ndcg@10:at_least(0.4)`, `ndcg@10:non_inferior(margin=0.01)`,
    /// `ndcg@10:superior(alpha=0.05)`.
    #[arg(long = "gate", value_name = "METRIC:RULE")]
    gates: Vec<String>,
    /// The intervals' confidence level.
    #[arg(long, default_value_t = 0.95, value_name = "LEVEL")]
    confidence: f64,
    /// PPI++'s weight of the model's values: `tuned` (the variance-
    /// minimising weight, clipped to [0, 1]) or a number (1: plain PPI; 0:
    /// people's labels alone).
    #[arg(long, default_value = "tuned", value_name = "tuned|W")]
    lambda: String,
    /// Judged queries missing from a run: left out (skip) or scored 0.
    #[arg(long, value_enum, default_value_t = MissingArg::Skip)]
    missing: MissingArg,
    /// The relevance level metrics use unless they set `rel`.
    #[arg(long, value_name = "GRADE")]
    rel: Option<f64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = PpiFormatArg::Table)]
    format: PpiFormatArg,
    /// Write the report to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Report failed gates without failing: exit code 0 rather than 1.
    #[arg(long)]
    no_fail: bool,
}

/// Judged queries missing from a run.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum MissingArg {
    /// Left out.
    Skip,
    /// Scored 0.
    Zero,
}

/// The report's format.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum PpiFormatArg {
    /// Aligned text.
    Table,
    /// One JSON document.
    Json,
    /// Markdown tables.
    Markdown,
}

/// Runs `rankeval ppi`.
pub(crate) fn run(args: PpiArgs) -> Result<Verdict, CliError> {
    let usage = |text: String| CliError::Usage(text);
    if !(args.confidence > 0.0 && args.confidence < 1.0) {
        return Err(usage(format!(
            "--confidence {}: must be strictly between 0 and 1, e.g. 0.95",
            args.confidence
        )));
    }
    let lambda = match args.lambda.as_str() {
        "tuned" => Lambda::Tuned,
        text => match text.parse::<f64>() {
            Ok(w) if w.is_finite() => Lambda::Fixed(w),
            _ => {
                return Err(usage(format!(
                    "--lambda {text}: `tuned` or a finite number (1: plain PPI; 0: people's labels alone)"
                )));
            }
        },
    };
    let ppi = PpiOptions {
        level: args.confidence,
        lambda,
    };
    judge_inputs::refuse_output_over(
        args.output.as_deref(),
        &[
            ("the model's qrels", args.qrels.as_path()),
            ("the people's qrels", args.human.as_path()),
        ],
        &args.runs,
    )?;
    let metrics = judge_inputs::metrics(&args.metrics)?;
    let alpha = 0.05;
    let mut gates = Vec::new();
    for text in &args.gates {
        let spec = parse_gate(text, alpha, |metric| {
            registry::parse_metric(metric)
                .map(|m| m.name())
                .map_err(|e| rankeval::config::plugin_message(&e))
        })
        .map_err(|reason| usage(format!("--gate {text}: {reason}")))?;
        gates.push(spec);
    }
    let level = match args.rel {
        None => RelevanceLevel::DEFAULT,
        Some(rel) => RelevanceLevel::new(rel).ok_or_else(|| {
            usage(format!(
                "--rel {rel}: the relevance level must be a positive grade"
            ))
        })?,
    };
    let options = Options {
        missing: match args.missing {
            MissingArg::Skip => Missing::Skip,
            MissingArg::Zero => Missing::Zero,
        },
        level,
        ..Options::default()
    };
    let (model, human) = judge_inputs::two_qrels(
        JudgeFile {
            path: &args.qrels,
            grade: args.grade.as_deref(),
            judge: "the model",
        },
        JudgeFile {
            path: &args.human,
            grade: args.human_grade.as_deref(),
            judge: "people",
        },
    )?;
    let runs = judge_inputs::runs(&args.runs)?;
    let borrowed: Vec<(String, &rankeval::core::Run)> =
        runs.iter().map(|(n, r)| (n.clone(), r)).collect();
    let report = ppi_report(
        Judges {
            model: &model,
            human: &human,
        },
        &borrowed,
        &metrics,
        &options,
        &ppi,
        PpiPlan {
            baseline: args.baseline.as_deref(),
            gates: &gates,
        },
    )
    .map_err(|e| usage(e.to_string()))?;
    let format = match args.format {
        PpiFormatArg::Table => PpiFormat::Table,
        PpiFormatArg::Json => PpiFormat::Json,
        PpiFormatArg::Markdown => PpiFormat::Markdown,
    };
    let text = render(&report, format);
    output::write(&text, args.output.as_deref())?;
    for run in &report.runs {
        if let Some(warning) = missing_warning(run, report.missing) {
            eprintln!("warning: {warning}");
        }
    }
    if report.labelled_without_model > 0 {
        eprintln!(
            "warning: {} queries judged by people have no judgement of the model in {}: left out (PPI needs the model's value beside each label)",
            report.labelled_without_model,
            args.qrels.display()
        );
    }
    Ok(if report.passed() || args.no_fail {
        Verdict::Passed
    } else {
        Verdict::Failed
    })
}

/// The warning for a run without a list for some judged queries: how many,
/// what was done with them, the first few ids (cut as every message cuts
/// ids).
fn missing_warning(run: &PpiRun, missing: Missing) -> Option<String> {
    let sample = &run.missing;
    if sample.is_empty() {
        return None;
    }
    let (count, one) = (sample.count, sample.count == 1);
    let have = if one { "has" } else { "have" };
    let queries = if one { "query" } else { "queries" };
    let done = match missing {
        Missing::Skip => format!(
            "{} left out (to score {} 0, use --missing zero)",
            if one { "was" } else { "were" },
            if one { "it" } else { "them" }
        ),
        Missing::Zero => "scored 0".to_owned(),
    };
    Some(format!(
        "run `{}`: {count} {queries} judged by the model {have} no list in the run and {done}, \
         {} of them judged by people: {}",
        run.name,
        run.missing_labelled,
        judge_inputs::examples(sample)
    ))
}
