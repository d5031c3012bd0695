//! `rankeval report`: a report from per-query results alone, no runs or
//! judgements read: a per-query Parquet table (what a Spark job's
//! `write_parquet` leaves, a file or a directory of part files) or a JSON
//! report written with `--format json --per-query`. Aggregates,
//! comparisons and gates as `rankeval eval` computes them from the same
//! per-query values, in every output format.

use std::io::Write as _;
use std::path::PathBuf;

use clap::Args;
use clap::ValueEnum;
use rankeval::compare::{BaselineResults, read_all_results};
use rankeval::engine::Missing;
use rankeval::experiment::unique_by_name;
use rankeval::report::{MetricColumn, Report, RunResult, aggregate_run};
use rankeval_core::{Aggregator, registry, shorten_id};
use rankeval_report::{OutputFormat, Render, RenderOptions};

use super::eval::{CompareArgs, aggregators_of};
use super::{
    CliError, OutputArgs, Verdict, comparison_format_warnings, gate_verdict, output,
    trec_aggregators_warning,
};

/// `rankeval report`'s arguments.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    rankeval report per_query/ --format markdown\n  \
    rankeval report per_query/ -a mean -a ci --baseline bm25 --gate \"ap:superior\"\n  \
    rankeval report results.json --all-pairs --test randomization-keyed --format html -o report.html")]
pub struct ReportArgs {
    /// The per-query results: a Parquet table (`query`, `run`, one float
    /// column per metric; a file, or a directory of part files, as
    /// `rankeval_rs.spark` writes it) or a JSON report written with
    /// `--format json --per-query`.
    #[arg(value_name = "RESULTS")]
    results: PathBuf,
    /// Only this run of the results (repeat for several, in the order
    /// wanted) [default: every run: in byte order of their names for
    /// Parquet, in the file's order for JSON].
    #[arg(long = "run", value_name = "NAME")]
    runs: Vec<String>,
    /// An aggregator of each metric's per-query values (`mean`, `median`,
    /// `ci`, `gmean`...); repeat for several [default: mean].
    #[arg(short = 'a', long = "aggregate", value_name = "AGGREGATOR")]
    aggregators: Vec<String>,
    /// A query that not every compared run has, as the evaluation that
    /// wrote the results treated it.
    #[arg(long, value_enum, default_value_t = PairingArg::Skip)]
    missing: PairingArg,
    #[command(flatten)]
    compare: CompareArgs,
    #[command(flatten)]
    output: OutputArgs,
}

/// How `rankeval report` pairs a query that not every compared run has.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum PairingArg {
    /// Leave it out of the comparison.
    Skip,
    /// Keep it, scored 0 where it is absent.
    Zero,
}

/// Runs `rankeval report`.
pub fn run(args: ReportArgs) -> Result<Verdict, CliError> {
    let ReportArgs {
        results,
        runs,
        aggregators,
        missing,
        compare,
        output,
    } = args;
    let aggregators = parse_aggregators(aggregators)?;
    if let Some(target) = &output.output {
        output::refuse_an_input(target, [("the results", results.as_path())].into_iter())?;
    }
    let all = read_all_results(&results)?;
    let chosen = choose(all, &runs, &results)?;
    let missing = match missing {
        PairingArg::Skip => Missing::Skip,
        PairingArg::Zero => Missing::Zero,
    };
    let run_names: Vec<String> = chosen.iter().map(|r| r.name.clone()).collect();
    let metric_names = chosen
        .first()
        .map(|r| r.metrics.clone())
        .unwrap_or_default();
    let plan = rankeval::spec::resolve_comparison(
        compare.request(),
        &run_names,
        &metric_names,
        missing,
        false,
    )
    .map_err(crate::eval::spec_error)?;
    let report = report_of(chosen, &aggregators);
    let mut stderr = std::io::stderr().lock();
    for warning in &report.warnings {
        let _ = writeln!(stderr, "warning: {warning}");
    }
    let format: OutputFormat = output.format.into();
    if format == OutputFormat::Trec
        && let Some(warning) = trec_aggregators_warning(&report.aggregators)
    {
        let _ = writeln!(stderr, "warning: {warning}");
    }
    let options = RenderOptions {
        per_query: output.per_query,
    };
    let (text, verdict) = match plan {
        None => (report.render(format, options), Verdict::Passed),
        Some(plan) => {
            let compared = rankeval::compare::run_plan(&plan, report, &aggregators)?;
            for warning in compared.comparison.group_warnings() {
                let _ = writeln!(stderr, "warning: {warning}");
            }
            let verdict = gate_verdict(&compared, &output, &mut stderr);
            comparison_format_warnings(format, output.per_query, &mut stderr);
            (
                rankeval_report::render_compared(&compared, format, options),
                verdict,
            )
        }
    };
    drop(stderr);
    output::write(&text, output.output.as_deref())?;
    Ok(verdict)
}

/// The aggregators asked for (`mean` when none), each once; every bad one
/// reported.
fn parse_aggregators(specs: Vec<String>) -> Result<Vec<Box<dyn Aggregator>>, CliError> {
    let mut bad = Vec::new();
    let aggregators = aggregators_of(specs, &mut bad);
    if bad.is_empty() {
        Ok(unique_by_name(aggregators))
    } else {
        Err(CliError::all(bad))
    }
}

/// The runs named by `--run` (in that order), or every run; an unknown or
/// repeated name is an error naming the runs the file has.
fn choose(
    all: Vec<BaselineResults>,
    wanted: &[String],
    path: &std::path::Path,
) -> Result<Vec<BaselineResults>, CliError> {
    let shown = |name: &str| shorten_id(name.as_bytes());
    let listed = || {
        all.iter()
            .map(|r| format!("`{}`", shown(&r.name)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(first) = all.first()
        && let Some(other) = all.iter().find(|r| r.metrics != first.metrics)
    {
        let metrics = |run: &BaselineResults| {
            run.metrics
                .iter()
                .map(|m| format!("`{}`", shown(m)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(CliError::Usage(format!(
            "results file {}: run `{}` has the metrics {}, run `{}` {}: a report needs the same \
             metrics for every run",
            path.display(),
            shown(&other.name),
            metrics(other),
            shown(&first.name),
            metrics(first)
        )));
    }
    if wanted.is_empty() {
        return Ok(all);
    }
    let mut chosen = Vec::with_capacity(wanted.len());
    for (i, name) in wanted.iter().enumerate() {
        if wanted[..i].contains(name) {
            return Err(CliError::Usage(format!(
                "--run {name} is given twice; give each run once"
            )));
        }
        match all.iter().find(|r| &r.name == name) {
            Some(run) => chosen.push(run.clone()),
            None => {
                return Err(CliError::Usage(format!(
                    "--run {}: {} has no run of that name (it has {})",
                    shown(name),
                    path.display(),
                    listed()
                )));
            }
        }
    }
    Ok(chosen)
}

/// The report of `runs`' per-query values: each run aggregated as an
/// evaluation's would be; a metric named as the registry names it keeps
/// its trec_eval measure (for `--format trec`).
fn report_of(runs: Vec<BaselineResults>, aggregators: &[Box<dyn Aggregator>]) -> Report {
    let names = runs.first().map(|r| r.metrics.clone()).unwrap_or_default();
    let metrics: Vec<MetricColumn> = names
        .iter()
        .map(|name| MetricColumn {
            name: name.clone(),
            trec: registry::parse_metric(name)
                .ok()
                .filter(|m| m.name() == *name)
                .and_then(|m| m.trec_eval()),
        })
        .collect();
    let mut report = Report {
        metrics,
        aggregators: aggregators.iter().map(|a| a.name()).collect(),
        corpus: Vec::new(),
        runs: Vec::with_capacity(runs.len()),
        warnings: Vec::new(),
    };
    for run in runs {
        let aggregates = aggregate_run(&run.name, &report.metrics, &run.per_query, aggregators);
        report.warnings.extend(aggregates.warnings);
        report.runs.push(RunResult {
            name: run.name,
            queries: run.queries,
            per_query: run.per_query,
            aggregates: aggregates.values,
            intervals: aggregates.intervals,
            corpus: Vec::new(),
            groups: Vec::new(),
            ir_metadata: None,
        });
    }
    report
}
