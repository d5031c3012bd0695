//! `rankeval agree`: how far two sets of judgements agree (an LLM's and
//! people's, two assessors'): Cohen's kappa of their labels, and what they
//! make of the runs (docs/judgements.md).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use rankeval::agreement::{JudgementSet, agreement};
use rankeval::engine::Options;
use rankeval_report::agreement::{AgreementFormat, render};
use rankeval_stats::agreement::KappaWeights;

use super::judge_inputs::JudgeFile;
use super::{CliError, Verdict, judge_inputs, output};

/// `rankeval agree`'s arguments.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  \
    rankeval agree --qrels llm=llm.qrels --qrels human=human.qrels --weights quadratic \\\n      \
    --run bm25.trec --run dense.trec --run splade.trec -m ndcg@10 --top 2")]
pub struct AgreeArgs {
    /// The two sets of judgements, `[NAME=]FILE` each (named by the file's
    /// stem). A table's grade column is chosen with --grade.
    #[arg(
        long = "qrels",
        value_name = "[NAME=]FILE",
        num_args = 1,
        required = true
    )]
    qrels: Vec<String>,
    /// The grade column of each --qrels table, in the same order (`llm`,
    /// `human`): one table with both columns can be given twice.
    #[arg(long = "grade", value_name = "COLUMN")]
    grades: Vec<String>,
    /// Kappa's weights: none (labels agree or not), linear or quadratic
    /// (by the labels' positions in their sorted list, as scikit-learn).
    #[arg(long, value_enum, default_value_t = WeightsArg::None)]
    weights: WeightsArg,
    /// A run, `[NAME=]FILE`: with several, the systems' order under each
    /// set is compared (Kendall's tau, top-k agreement).
    #[arg(long = "run", value_name = "[NAME=]FILE")]
    runs: Vec<String>,
    /// A metric the runs are evaluated with; repeat for several.
    #[arg(short = 'm', long = "metric", value_name = "METRIC")]
    metrics: Vec<String>,
    /// The k of top-k agreement: the share of the k best runs both sets
    /// agree on.
    #[arg(long = "top", default_value_t = 3, value_name = "K")]
    k: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = AgreeFormat::Table)]
    format: AgreeFormat,
    /// Write the report to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// Kappa's weights.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum WeightsArg {
    /// Unweighted.
    None,
    /// |i - j|.
    Linear,
    /// (i - j)^2.
    Quadratic,
}

/// The report's format.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum AgreeFormat {
    /// Aligned text.
    Table,
    /// One JSON document.
    Json,
}

/// Runs `rankeval agree`.
pub(crate) fn run(args: AgreeArgs) -> Result<Verdict, CliError> {
    let usage = |text: String| CliError::Usage(text);
    let [first, second] = args.qrels.as_slice() else {
        return Err(usage(format!(
            "--qrels: give two sets of judgements, not {}",
            args.qrels.len()
        )));
    };
    if !args.grades.is_empty() && args.grades.len() != 2 {
        return Err(usage(format!(
            "--grade: one column per --qrels (2), not {}",
            args.grades.len()
        )));
    }
    if args.metrics.is_empty() != args.runs.is_empty() {
        return Err(usage(
            "--run and -m go together: the runs are evaluated with the metrics".to_owned(),
        ));
    }
    if args.k == 0 {
        return Err(usage("--top 0: give at least 1".to_owned()));
    }
    // `[NAME=]FILE`, as a run is named.
    let (first_name, first_path) = judge_inputs::run_name(first)?;
    let (mut second_name, second_path) = judge_inputs::run_name(second)?;
    if second_name == first_name {
        second_name.push_str(" (2)");
    }
    judge_inputs::refuse_output_over(
        args.output.as_deref(),
        &[
            ("the qrels", first_path.as_path()),
            ("the qrels", second_path.as_path()),
        ],
        &args.runs,
    )?;
    let grade = |i: usize| args.grades.get(i).map(String::as_str);
    let (first_qrels, second_qrels) = judge_inputs::two_qrels(
        JudgeFile {
            path: &first_path,
            grade: grade(0),
            judge: &first_name,
        },
        JudgeFile {
            path: &second_path,
            grade: grade(1),
            judge: &second_name,
        },
    )?;
    let metrics = judge_inputs::metrics(&args.metrics)?;
    let runs = judge_inputs::runs(&args.runs)?;
    let borrowed: Vec<(String, &rankeval::core::Run)> =
        runs.iter().map(|(n, r)| (n.clone(), r)).collect();
    let weights = match args.weights {
        WeightsArg::None => KappaWeights::None,
        WeightsArg::Linear => KappaWeights::Linear,
        WeightsArg::Quadratic => KappaWeights::Quadratic,
    };
    let report = agreement(
        JudgementSet {
            name: &first_name,
            qrels: &first_qrels,
        },
        JudgementSet {
            name: &second_name,
            qrels: &second_qrels,
        },
        weights,
        &borrowed,
        &metrics,
        &Options::default(),
        args.k,
    )
    .map_err(|e| usage(e.to_string()))?;
    let format = match args.format {
        AgreeFormat::Table => AgreementFormat::Table,
        AgreeFormat::Json => AgreementFormat::Json,
    };
    let text = render(&report, format);
    output::write(&text, args.output.as_deref())?;
    for (run, sample) in report.runs.iter().zip(&report.missing) {
        if sample.is_empty() {
            continue;
        }
        let one = sample.count == 1;
        eprintln!(
            "warning: run `{run}`: {} {} both sets judge {} no list in the run and {} left out \
             of its means: {}",
            sample.count,
            if one { "query" } else { "queries" },
            if one { "has" } else { "have" },
            if one { "was" } else { "were" },
            judge_inputs::examples(sample)
        );
    }
    Ok(Verdict::Passed)
}
