//! `rankeval overlap`: how far two runs agree without judgements: per
//! query, rank-biased overlap (extrapolated, lower and upper bounds,
//! residual; Corsi and Urbano's tie treatments), top-k overlap and
//! Kendall's tau; aggregated over the queries with the registry's
//! aggregators, a mean and its interval by default (docs/overlap.md).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use rankeval::overlap::{DEFAULT_K, DEFAULT_P, OverlapOptions, overlap};
use rankeval_report::overlap::{OverlapFormat, render};
use rankeval_stats::rbo::RboTies;

use super::{CliError, Verdict, judge_inputs, output};

/// `rankeval overlap`'s arguments.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    rankeval overlap bm25.trec dense.trec\n  \
    rankeval overlap old=run-v1.trec new=run-v2.trec -p 0.98 --ties b --top 20 --per-query\n  \
    rankeval overlap a.trec b.trec -a \"ci(method=bca,seed=7)\" --format json")]
pub struct OverlapArgs {
    /// The two runs, `[NAME=]FILE` each (named by the file's stem); any
    /// run format `eval` reads.
    #[arg(value_name = "[NAME=]RUN", num_args = 2, required = true)]
    runs: Vec<String>,
    /// RBO's persistence p, strictly between 0 and 1: the expected depth a
    /// reader looks at is 1 / (1 - p) (0.9: the top 10 ranks weigh 86 %).
    #[arg(short = 'p', long = "persistence", default_value_t = DEFAULT_P, value_name = "P")]
    p: f64,
    /// How RBO treats tied scores (Corsi and Urbano, SIGIR 2024): a = the
    /// expected RBO over the orders of the tied documents; b = a corrected
    /// for the information ties lose (a list's RBO with itself is 1); w =
    /// tied documents share their rank.
    #[arg(long, value_enum, default_value_t = TiesArg::A)]
    ties: TiesArg,
    /// The k of top-k overlap (the share of the first k documents both
    /// runs hold) and of Kendall's tau (over the documents both hold in
    /// their top k).
    #[arg(short = 'k', long = "top", default_value_t = DEFAULT_K, value_name = "K")]
    k: usize,
    /// An aggregator of each statistic over the queries, as `eval -a`
    /// (`mean`, `median`, `ci(level=0.9)`); repeat for several. Default:
    /// `ci`, the mean with its t interval.
    #[arg(short = 'a', long = "aggregate", value_name = "AGGREGATOR")]
    aggregators: Vec<String>,
    /// Also list every query's values (the JSON report always holds them).
    #[arg(long)]
    per_query: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Write the report to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// RBO's treatment of ties.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum TiesArg {
    /// RBO^a: the expected RBO over the orders of tied documents.
    A,
    /// RBO^b: RBO^a corrected for the information ties lose.
    B,
    /// RBO^w: tied documents share their rank.
    W,
}

/// The report's format.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Format {
    /// Aligned text.
    Table,
    /// One JSON document.
    Json,
}

/// Runs `rankeval overlap`.
pub(crate) fn run(args: OverlapArgs) -> Result<Verdict, CliError> {
    let usage = |text: String| CliError::Usage(text);
    if !(args.p > 0.0 && args.p < 1.0) {
        return Err(usage(format!(
            "--persistence {}: give a p strictly between 0 and 1 (0.9: the top 10 ranks weigh 86 %)",
            args.p
        )));
    }
    if args.k == 0 {
        return Err(usage("--top 0: give at least 1".to_owned()));
    }
    let specs = if args.aggregators.is_empty() {
        vec!["ci".to_owned()]
    } else {
        args.aggregators
    };
    let mut bad = Vec::new();
    let aggregators = super::eval::aggregators_of(specs, &mut bad);
    if let Some(error) = bad.into_iter().next() {
        return Err(error);
    }
    judge_inputs::refuse_output_over(args.output.as_deref(), &[], &args.runs)?;
    let runs = judge_inputs::runs(&args.runs)?;
    let [(first_name, first), (second_name, second)] = runs.as_slice() else {
        return Err(usage(format!("give two runs, not {}", runs.len())));
    };
    let options = OverlapOptions {
        p: args.p,
        ties: match args.ties {
            TiesArg::A => RboTies::A,
            TiesArg::B => RboTies::B,
            TiesArg::W => RboTies::W,
        },
        k: args.k,
    };
    let report = overlap(
        (first_name, first),
        (second_name, second),
        &options,
        &aggregators,
    )
    .map_err(|e| usage(e.to_string()))?;
    let format = match args.format {
        Format::Table => OverlapFormat::Table,
        Format::Json => OverlapFormat::Json,
    };
    output::write(
        &render(&report, format, args.per_query),
        args.output.as_deref(),
    )?;
    let left_out = [
        (&report.first_only, format!("only in `{first_name}`")),
        (&report.second_only, format!("only in `{second_name}`")),
        (&report.empty, "with an empty list in one run".to_owned()),
    ];
    for (sample, what) in left_out {
        if sample.is_empty() {
            continue;
        }
        let one = sample.count == 1;
        eprintln!(
            "warning: {} {} {what} {} left out: {}",
            sample.count,
            if one { "query" } else { "queries" },
            if one { "was" } else { "were" },
            judge_inputs::examples(sample)
        );
    }
    Ok(Verdict::Passed)
}
