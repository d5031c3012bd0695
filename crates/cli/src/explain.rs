//! `rankeval explain`: one query's ranked list and each metric's terms and
//! formula, from flags or from a TOML experiment.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use rankeval_core::registry;
use rankeval_core::{Duplicates, Metric, RelevanceLevel};

use super::CliError;
use super::eval::{CsvArgs, DuplicatesArg, InputArgs, MissingArg, TiesArg};
use rankeval::engine::{Missing, Options, ScoreThreshold, check_ties, has_scores, unscored_run};
use rankeval::experiment::{DEFAULT_METRICS, input_problem, run_names};
use rankeval::explain::explain;
use rankeval::read::{CsvOptions, ReadOptions, read_qrels, read_run_with};
use rankeval_report::explain::{ExplainFormat, render};

/// Arguments of `rankeval explain`.
#[derive(Debug, Args)]
pub(super) struct ExplainArgs {
    /// A TOML experiment: its qrels, runs, metrics and options (flags given
    /// here override them).
    #[arg(value_name = "EXPERIMENT.toml")]
    experiment: Option<PathBuf>,
    /// Qrels file. Optional for a JSON Lines run with `relevant`, and with
    /// an experiment.
    #[arg(long, value_name = "FILE")]
    qrels: Option<PathBuf>,
    /// Run file; with an experiment, the name of one of its runs (needed
    /// when it has several).
    #[arg(long, value_name = "FILE|NAME")]
    run: Option<String>,
    /// The query to explain.
    #[arg(long, value_name = "ID")]
    query: String,
    /// Metric in the short syntax, e.g. `ap`, `"ap(norm=truncated)@5"`;
    /// repeat to see variants side by side. Default: the experiment's, or
    /// ap, rr, p@10, recall@100, ndcg@10.
    #[arg(short = 'm', long = "metric", value_name = "METRIC")]
    metrics: Vec<String>,
    /// Default relevance level (grades of at least N are relevant) [default:
    /// the experiment's, or 1].
    #[arg(long, value_name = "N")]
    rel: Option<i32>,
    /// A document repeated in the list: an error, or keep the first
    /// [default: the experiment's, or error].
    #[arg(long, value_enum)]
    duplicates: Option<DuplicatesArg>,
    /// A judged query missing from the run: an error (skip, as eval leaves
    /// it out) or an empty list scored as eval's --missing zero does
    /// [default: the experiment's, or skip].
    #[arg(long, value_enum)]
    missing: Option<MissingArg>,
    /// Tied scores: by document id, in the run's order, or each metric's
    /// expected value over every order of the ties (the table then shows
    /// each rank's tie group) [default: the experiment's, or docid].
    #[arg(long, value_enum)]
    ties: Option<TiesArg>,
    /// Entries scored at or below T are not retrieved, as eval's
    /// --score-threshold [default: the experiment's, or none].
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    score_threshold: Option<f64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExplainFormatArg::Table)]
    format: ExplainFormatArg,
    /// Write to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    inputs: InputArgs,
    #[command(flatten)]
    csv: CsvArgs,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ExplainFormatArg {
    /// Aligned tables for a terminal.
    Table,
    /// Markdown tables.
    Markdown,
    /// One JSON document; per-rank terms as arrays.
    Json,
}

/// Runs `rankeval explain`.
pub(super) fn run(args: ExplainArgs) -> Result<(), CliError> {
    let (qrels_input, run_name, run_input, mut metrics, mut options, mut read) =
        match &args.experiment {
            Some(path) => {
                // The experiment file says how each of its inputs is read.
                let columns_given = args.csv.options()? != CsvOptions::default();
                if let Some(flag) = args
                    .inputs
                    .given()
                    .or(columns_given.then_some("--csv-*/--json-*"))
                {
                    return Err(CliError::Usage(format!(
                        "{flag}: {} sets how its inputs are read (`format` and the column keys \
                         of `[qrels]` and `[[runs]]`); give the flag with --qrels and --run files",
                        path.display()
                    )));
                }
                let experiment = rankeval::config::load(path)?;
                let names: Vec<&str> = experiment.runs.iter().map(|r| r.name.as_str()).collect();
                let chosen = match &args.run {
                    Some(name) => experiment
                        .runs
                        .iter()
                        .find(|r| &r.name == name)
                        .ok_or_else(|| {
                            CliError::Usage(format!(
                                "--run {name}: {} has no run of that name (its runs: {})",
                                path.display(),
                                names.join(", ")
                            ))
                        })?,
                    None if experiment.runs.len() == 1 => &experiment.runs[0],
                    None => {
                        return Err(CliError::Usage(format!(
                            "{} has {} runs ({}): choose one with --run NAME",
                            path.display(),
                            names.len(),
                            names.join(", ")
                        )));
                    }
                };
                (
                    experiment.qrels.clone(),
                    chosen.name.clone(),
                    chosen.input.clone(),
                    experiment.metrics,
                    experiment.options,
                    experiment.read,
                )
            }
            None => {
                let Some(run) = &args.run else {
                    return Err(CliError::Usage(
                        "--run FILE is required (or give an experiment file)".into(),
                    ));
                };
                let run = PathBuf::from(run);
                for path in args.qrels.iter().chain([&run]) {
                    if let Some(problem) = input_problem(path) {
                        return Err(CliError::Usage(format!("{}: {problem}", path.display())));
                    }
                }
                let name = run_names(std::slice::from_ref(&run))
                    .pop()
                    .unwrap_or_default();
                let defaults = DEFAULT_METRICS
                    .iter()
                    .map(|m| registry::parse_metric(m))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|source| CliError::Plugin {
                        flag: "-m",
                        value: DEFAULT_METRICS.join(" "),
                        source: Box::new(source),
                    })?;
                let inputs = args.inputs.settings(&args.csv)?;
                (
                    args.qrels.as_deref().map(|path| inputs.qrels(path)),
                    name,
                    inputs.run(&run),
                    defaults,
                    Options::default(),
                    ReadOptions::default(),
                )
            }
        };
    if !args.metrics.is_empty() {
        // Every bad -m is reported at once, as `eval` reports them.
        let (built, bad): (Vec<_>, Vec<_>) = args
            .metrics
            .iter()
            .map(|spec| {
                registry::parse_metric(spec).map_err(|source| {
                    match registry::parse_corpus_metric(spec) {
                        Ok(corpus) => CliError::Usage(format!(
                            "-m {spec}: {} is a corpus metric (one value for the whole run): \
                             explain shows one query; use `rankeval eval`",
                            corpus.name()
                        )),
                        Err(_) => CliError::Plugin {
                            flag: "-m",
                            value: spec.clone(),
                            source: Box::new(source),
                        },
                    }
                })
            })
            .partition(Result::is_ok);
        if !bad.is_empty() {
            return Err(CliError::all(
                bad.into_iter().filter_map(Result::err).collect(),
            ));
        }
        metrics = built
            .into_iter()
            .filter_map(Result::ok)
            .collect::<Vec<Box<dyn Metric>>>();
    }
    if let Some(rel) = args.rel {
        options.level = RelevanceLevel::new(rel).ok_or_else(|| {
            CliError::Usage(format!(
                "--rel {rel}: the relevance level must be at least 1 (grades of 0 and below are never relevant)"
            ))
        })?;
    }
    if let Some(missing) = args.missing {
        options.missing = match missing {
            MissingArg::Skip => Missing::Skip,
            MissingArg::Zero => Missing::Zero,
        };
    }
    if let Some(duplicates) = args.duplicates {
        read.duplicates = match duplicates {
            DuplicatesArg::Error => Duplicates::Error,
            DuplicatesArg::First => Duplicates::First,
        };
    }
    if let Some(ties) = args.ties {
        options.ties = ties.ties();
        read.ties = ties.ties();
    }
    check_ties(&metrics, options.ties)
        .map_err(|reason| CliError::Usage(format!("--ties {}: {reason}", options.ties)))?;
    if let Some(value) = args.score_threshold {
        let usage =
            |reason: String| CliError::Usage(format!("--score-threshold {value}: {reason}"));
        options.score_threshold = Some(ScoreThreshold::try_from(value).map_err(usage)?);
    }
    if options.score_threshold.is_some() && !has_scores(run_input.format()) {
        return Err(CliError::Usage(format!(
            "--score-threshold: {}",
            unscored_run(run_input.name())
        )));
    }
    let (run, own_qrels) = read_run_with(&run_input, read, &|_| {})?;
    let (qrels, qrels_name) = match &qrels_input {
        Some(input) => (read_qrels(input)?, input.name().to_owned()),
        None => match own_qrels {
            Some(own) => (own, run_input.name().to_owned()),
            None => {
                return Err(CliError::Usage(format!(
                    "--qrels is required: {} holds no judgements (`relevant`)",
                    run_input.name()
                )));
            }
        },
    };
    let explanation = explain(
        &qrels,
        &qrels_name,
        &run,
        &run_name,
        &args.query,
        &metrics,
        &options,
    )
    .map_err(|error| CliError::Usage(error.to_string()))?;
    let format = match args.format {
        ExplainFormatArg::Table => ExplainFormat::Table,
        ExplainFormatArg::Markdown => ExplainFormat::Markdown,
        ExplainFormatArg::Json => ExplainFormat::Json,
    };
    super::output::write(&render(&explanation, format), args.output.as_deref())
}
