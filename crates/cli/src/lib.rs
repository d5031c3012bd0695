//! The `rankeval` command line: `eval` (flags), `run` (a TOML experiment)
//! and `metrics` (the registry). [`main`] is all a binary needs, so a crate
//! that adds its own metrics runs the full CLI with them in two lines.
//!
//! Exit codes: 0 success (every gate passed, or there is none); 1 a gate
//! failed (unless `--no-fail`); 2 usage, configuration or data error, or a
//! gate that cannot be decided.

mod agree;
mod benchmarks;
mod eval;
mod expected;
mod explain;
mod history;
mod judge_inputs;
mod list;
mod ope;
mod output;
mod overlap;
mod ppi;
mod progress;
mod results;
mod run_names;
pub mod signals;
mod spans;
pub mod trec_eval;

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use rankeval_core::{PluginError, RegistryError};

use rankeval::config::ConfigError;
use rankeval::experiment::Experiment;
use rankeval::front::Describe;
use rankeval::outcome::{Results, Wanted};
use rankeval::read::ReadError;
use rankeval_report::{OutputFormat, RenderOptions};

/// Evaluate ranked lists (search results, recommendations, RAG retrieval)
/// against relevance judgements.
#[derive(Debug, Parser)]
#[command(
    name = "rankeval",
    version = rankeval::version(),
    max_term_width = 100,
    after_help = "Examples:\n  \
        rankeval eval --qrels qrels.txt --run bm25.trec -m ndcg@10 -m map\n  \
        rankeval eval --run predictions.jsonl -m \"ap(norm=truncated)@10\" --per-query\n  \
        rankeval run experiment.toml --format markdown\n  \
        rankeval explain --qrels qrels.txt --run bm25.trec --query 301 -m ap -m \"ap@5\"\n  \
        rankeval metrics"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Evaluate runs against qrels given on the command line.
    Eval(Box<eval::EvalArgs>),
    /// Run a TOML experiment: qrels, named runs, metrics and aggregators.
    Run(RunArgs),
    /// List every registered metric and aggregator with its parameters.
    Metrics(list::MetricsArgs),
    /// The benchmarks rankeval scores as they are reported (the benchmark
    /// card): each one's official measures and conventions; one in full
    /// with its sources.
    Benchmarks(benchmarks::BenchmarksArgs),
    /// Show how each metric gets its value for one query: the ranked list,
    /// the per-rank terms and the formula with the numbers put in.
    Explain(Box<explain::ExplainArgs>),
    /// A model's judgements for every query, people's for some: each
    /// metric's prediction-powered mean (PPI++) with its interval,
    /// comparisons with a baseline and gates decided on them.
    Ppi(Box<ppi::PpiArgs>),
    /// How far two sets of judgements agree (an LLM's and people's): Cohen's
    /// kappa of their labels, and Kendall's tau, top-k agreement and mean
    /// differences of the runs evaluated under each.
    Agree(Box<agree::AgreeArgs>),
    /// How far two runs agree, without judgements: rank-biased overlap
    /// (with Corsi and Urbano's tie treatments), top-k overlap and
    /// Kendall's tau per query, with a mean and an interval over them.
    Overlap(Box<overlap::OverlapArgs>),
    /// Judgements as label distributions (probabilities of each grade, as
    /// an LLM judge gives): each metric's expected value, exact where it
    /// can be and by seeded Monte Carlo with its standard error otherwise.
    Expected(Box<expected::ExpectedArgs>),
    /// A report from per-query results alone (a per-query Parquet table,
    /// as a Spark job writes it, or a JSON report with per-query values):
    /// aggregates, comparisons and gates in every format, no runs or
    /// judgements read.
    Report(Box<results::ReportArgs>),
    /// A results history written by `--record`: records, trends of means,
    /// the accepted baseline, diffs and exports.
    ///
    /// `rankeval history DB` lists the records and each metric's trend of
    /// means with their intervals; `--accept ID` marks the baseline;
    /// `history diff DB A B` lists the queries that moved most; `history
    /// export DB --format csv|jsonl|parquet` writes every per-query value
    /// (docs/history.md).
    History(Box<history::HistoryArgs>),
    /// Retrieval for RAG judged on text spans: span qrels and runs of
    /// chunks (character offsets); every metric at chunk level under an
    /// overlap rule, and precision, recall and IoU of the retrieved text.
    Spans(Box<spans::SpansArgs>),
    /// Off-policy evaluation: what rankings never shipped would have earned,
    /// from an impression log and its propensities; refused (exit 2) where
    /// the log cannot support them.
    Ope(Box<ope::OpeArgs>),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    ///
    /// Install it where the shell looks: `rankeval completions bash >
    /// ~/.local/share/bash-completion/completions/rankeval`; zsh: a file
    /// `_rankeval` in a directory of `$fpath`; fish:
    /// `~/.config/fish/completions/rankeval.fish`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// trec_eval 10's command line and output (`rankeval trec_eval -h`).
    #[command(name = "trec_eval", disable_help_flag = true)]
    TrecEval {
        /// trec_eval's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
}

/// Arguments of `rankeval run`.
#[derive(Debug, Args)]
struct RunArgs {
    /// The experiment file; paths in it are relative to it. Several files
    /// (a suite of datasets) give one combined report, one section per
    /// file, and one exit code; every file is checked before any is run.
    #[arg(value_name = "EXPERIMENT.toml", required = true, num_args = 1..)]
    experiments: Vec<PathBuf>,
    /// With several files (a suite of datasets): `macro` adds each run's
    /// macro average over the datasets (each dataset weighs the same), with
    /// a stratified bootstrap interval, and compares every run with the
    /// experiments' common baseline across the suite, paired by (dataset,
    /// query). Every file needs the same metrics and runs.
    #[arg(long, value_enum, value_name = "HOW")]
    aggregate: Option<AggregateArg>,
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    record: history::RecordArgs,
}

/// How a suite of experiment files is aggregated.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum AggregateArg {
    /// The macro average over the datasets, with its interval.
    Macro,
}

/// How and where to print the report.
#[derive(Debug, Args)]
#[command(next_help_heading = "Output")]
struct OutputArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    format: FormatArg,
    /// Also print every query's value.
    #[arg(long)]
    per_query: bool,
    /// Write the report to FILE (whole or not at all) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Report failed gates without failing: exit code 0 rather than 1.
    #[arg(long, visible_alias = "report-only")]
    no_fail: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FormatArg {
    /// Aligned table for a terminal.
    Table,
    /// One JSON document.
    Json,
    /// CSV: one row per run (and per query with --per-query).
    Csv,
    /// Markdown table for a pull request.
    Markdown,
    /// trec_eval's layout: measure, query or `all`, value.
    Trec,
    /// One self-contained HTML page with charts (use with -o report.html).
    Html,
    /// A LaTeX table (booktabs); with a comparison, significance superscripts.
    Latex,
}

impl From<FormatArg> for OutputFormat {
    fn from(format: FormatArg) -> Self {
        match format {
            FormatArg::Table => OutputFormat::Table,
            FormatArg::Json => OutputFormat::Json,
            FormatArg::Csv => OutputFormat::Csv,
            FormatArg::Markdown => OutputFormat::Markdown,
            FormatArg::Trec => OutputFormat::Trec,
            FormatArg::Html => OutputFormat::Html,
            FormatArg::Latex => OutputFormat::Latex,
        }
    }
}

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// A flag's value is wrong.
    #[error("{0}")]
    Usage(String),
    /// A `-m` or `-a` value names no plugin, or a bad parameter.
    #[error("{flag} {value}: {}", rankeval::config::plugin_message(source))]
    Plugin {
        /// The flag, e.g. `-m`.
        flag: &'static str,
        /// The value as given.
        value: String,
        /// Why.
        source: Box<PluginError>,
    },
    /// The experiment file is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// An input could not be read (a missing column says which flag names
    /// it).
    #[error("{}", .0.describe(rankeval::front::FrontEnd::CommandLine))]
    Read(#[from] ReadError),
    /// A run never ran on the qrels (no shared query, or empty lists).
    #[error(transparent)]
    NeverRan(#[from] rankeval::engine::NeverRan),
    /// The report could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The output file, or `<stdout>`.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// Two plugins share a name.
    #[error("the metric registry is inconsistent: {0}")]
    Registry(#[from] RegistryError),
    /// The comparison cannot be made (its baseline file cannot be read).
    #[error(transparent)]
    Compare(#[from] rankeval::compare::CompareRunError),
    /// The results history cannot be opened, written or read.
    #[error(transparent)]
    History(#[from] rankeval::history::HistoryError),
    /// Several errors found at once (every bad `-m` and `-a`, not the
    /// first only): one per line, each after its own `error: `.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\nerror: "))]
    Several(Vec<CliError>),
}

impl From<rankeval::outcome::RunError> for CliError {
    fn from(error: rankeval::outcome::RunError) -> Self {
        match error {
            rankeval::outcome::RunError::Execute(e) => e.into(),
            rankeval::outcome::RunError::Compare { source, .. } => CliError::Compare(source),
            rankeval::outcome::RunError::Record { source, .. } => CliError::History(source),
        }
    }
}

impl From<rankeval::experiment::ExecuteError> for CliError {
    fn from(error: rankeval::experiment::ExecuteError) -> Self {
        match error {
            rankeval::experiment::ExecuteError::Read(e) => CliError::Read(e),
            rankeval::experiment::ExecuteError::NeverRan(e) => CliError::NeverRan(e),
        }
    }
}

impl CliError {
    /// `errors` as one error: the only one, or [`CliError::Several`].
    pub(crate) fn all(mut errors: Vec<CliError>) -> CliError {
        if errors.len() == 1 {
            errors.remove(0)
        } else {
            CliError::Several(errors)
        }
    }
}

/// What a command that succeeded says about its gates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    /// No gate failed (or there is none).
    #[default]
    Passed,
    /// A gate failed, and `--no-fail` was not given.
    Failed,
    /// A gate cannot be decided (a data problem).
    Undecided,
}

impl Verdict {
    fn code(self) -> ExitCode {
        match self {
            Verdict::Passed => ExitCode::SUCCESS,
            Verdict::Failed => ExitCode::from(1),
            Verdict::Undecided => ExitCode::from(2),
        }
    }
}

/// Tells the command line that standard output was closed when the process
/// started (see `main.rs`): writing the report there is then an error.
pub fn stdout_was_closed() {
    output::note_stdout_closed();
}

/// Runs the command line with the process's arguments; the `rankeval`
/// binary's whole `main`.
pub fn main() -> ExitCode {
    // First: the signal handlers' pipe may take a closed stdout's number.
    output::check_stdout();
    crate::signals::install();
    main_from(std::env::args_os())
}

/// Runs the command line with `args` (the first is the program name).
pub fn main_from(args: impl IntoIterator<Item = impl Into<OsString> + Clone>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // Under the name `trec_eval` (a symlink), or `rankeval trec_eval ...`.
    if args.first().is_some_and(trec_eval::is_trec_eval_name) {
        return trec_eval::main_from(&args[1..]);
    }
    if args.get(1).is_some_and(|a| a == "trec_eval") {
        return trec_eval::main_from(&args[2..]);
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(error) if error.kind() == clap::error::ErrorKind::InvalidUtf8 => {
            let _ = writeln!(std::io::stderr(), "error: {}", invalid_utf8(&args));
            return ExitCode::from(2);
        }
        Err(error) => {
            let printed = error.print();
            if error.use_stderr() {
                return ExitCode::from(2);
            }
            // `--help` and `--version` go to stdout, which may fail too.
            if let Some(error) = output::stdout_closed() {
                let _ = writeln!(std::io::stderr(), "error: {error}");
                return ExitCode::from(2);
            }
            return match printed {
                Err(source) if source.kind() != std::io::ErrorKind::BrokenPipe => {
                    let error = CliError::Write {
                        path: output::STDOUT.to_owned(),
                        source,
                    };
                    let _ = writeln!(std::io::stderr(), "error: {error}");
                    ExitCode::from(2)
                }
                _ => ExitCode::SUCCESS,
            };
        }
    };
    match run(cli) {
        Ok(verdict) => verdict.code(),
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "error: {error}");
            ExitCode::from(2)
        }
    }
}

/// Names the first argument that is not UTF-8 (clap's message names none),
/// with the flag it belongs to; invalid bytes shown as U+FFFD.
fn invalid_utf8(args: &[OsString]) -> String {
    let at = args
        .iter()
        .skip(1)
        .position(|a| a.to_str().is_none())
        .map(|i| i + 1);
    match at {
        Some(i) => {
            let arg = args[i].to_string_lossy();
            let flag = args[i - 1].to_str().filter(|f| f.starts_with('-') && i > 1);
            match flag {
                Some(flag) if !arg.starts_with('-') => {
                    format!("{flag} {arg}: the value is not valid UTF-8")
                }
                _ => format!("argument {i} (`{arg}`) is not valid UTF-8"),
            }
        }
        None => "an argument is not valid UTF-8".to_owned(),
    }
}

fn run(cli: Cli) -> Result<Verdict, CliError> {
    rankeval_core::registry::check()?;
    match cli.command {
        Command::Eval(args) => {
            let (experiment, output) = args.into_experiment()?;
            report(experiment, &output, None)
        }
        Command::Run(args) => match args.experiments.as_slice() {
            [one] => {
                // A suite file lists experiment files of its own. Read once:
                // a FIFO or `<(...)` cannot be read again.
                let experiment = match rankeval::config::load_file(one)? {
                    rankeval::config::ConfigFile::Suite(suite_file) => {
                        return suite(
                            &suite_file.experiments,
                            &args.output,
                            suite_file.macro_average || args.aggregate.is_some(),
                        );
                    }
                    rankeval::config::ConfigFile::Experiment(experiment) => *experiment,
                    rankeval::config::ConfigFile::Ope(request) => {
                        let mut request = *request;
                        if args.record.given() {
                            // As for an experiment: the flags take the
                            // place of the file's `[record]`.
                            ope::override_record(&mut request, args.record.request(), one)?;
                        }
                        return ope_file(&request, &args.output, args.aggregate.is_some());
                    }
                };
                let mut experiment = experiment;
                if args.record.given() {
                    // The flags take the place of the file's `[record]`; the
                    // file's hash comes with them.
                    let mut request = args.record.request();
                    request.experiment_hash = experiment
                        .record
                        .as_ref()
                        .and_then(|r| r.experiment_hash.clone())
                        .or_else(|| {
                            std::fs::read(one)
                                .ok()
                                .map(|b| rankeval::history::fingerprint::bytes_hash(&b))
                        });
                    experiment.record =
                        rankeval::spec::resolve_record(request).map_err(eval::spec_error)?;
                }
                if args.aggregate.is_some() {
                    return Err(CliError::Usage(
                        "--aggregate macro: a suite needs at least 2 experiment files".to_owned(),
                    ));
                }
                report(experiment, &args.output, Some(one))
            }
            several => {
                if args.record.given() {
                    return Err(CliError::Usage(
                        "--record: one experiment file at a time (give each its `[record]`, \
                         or run them one by one)"
                            .to_owned(),
                    ));
                }
                suite(several, &args.output, args.aggregate.is_some())
            }
        },
        Command::Metrics(args) => {
            let listing = list::listing(&args).map_err(CliError::Usage)?;
            output::write(&listing, None).map(|()| Verdict::Passed)
        }
        Command::Benchmarks(args) => {
            let listing = benchmarks::listing(&args).map_err(CliError::Usage)?;
            output::write(&listing, None).map(|()| Verdict::Passed)
        }
        Command::Explain(args) => explain::run(*args).map(|()| Verdict::Passed),
        Command::Ppi(args) => ppi::run(*args),
        Command::Agree(args) => agree::run(*args),
        Command::Overlap(args) => overlap::run(*args),
        Command::Expected(args) => expected::run(*args),
        Command::Report(args) => results::run(*args),
        Command::History(args) => history::run(*args),
        Command::Spans(args) => spans::run(*args).map(|()| Verdict::Passed),
        Command::Ope(args) => ope::run(*args),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "rankeval", &mut script);
            output::write(&String::from_utf8_lossy(&script), None).map(|()| Verdict::Passed)
        }
        // Handled before parsing, in `main_from`.
        Command::TrecEval { .. } => Err(CliError::Usage(
            "trec_eval: run as `rankeval trec_eval ...`".to_owned(),
        )),
    }
}

/// `rankeval run` on a file with an `[ope]` table: its report in table or
/// JSON; the flags of an evaluation's report that it has no use for are
/// refused rather than ignored.
fn ope_file(
    request: &rankeval::spec::OpeRequest,
    output: &OutputArgs,
    aggregate: bool,
) -> Result<Verdict, CliError> {
    let format = match output.format {
        FormatArg::Table => rankeval_report::ope::OpeFormat::Table,
        FormatArg::Json => rankeval_report::ope::OpeFormat::Json,
        other => {
            return Err(CliError::Usage(format!(
                "--format {}: an off-policy evaluation's report is `table` or `json`",
                other
                    .to_possible_value()
                    .map(|v| v.get_name().to_owned())
                    .unwrap_or_default()
            )));
        }
    };
    let unused = [
        (output.per_query, "--per-query"),
        (output.no_fail, "--no-fail"),
        (aggregate, "--aggregate"),
    ];
    if let Some((_, flag)) = unused.iter().find(|(given, _)| *given) {
        return Err(CliError::Usage(format!(
            "{flag}: not read for an off-policy evaluation (an `[ope]` table)"
        )));
    }
    ope::report(request, format, output.output.as_deref())
}

fn report(
    experiment: Experiment,
    output: &OutputArgs,
    config: Option<&std::path::Path>,
) -> Result<Verdict, CliError> {
    let (text, verdict, _) = produce(experiment, output, config)?;
    output::write(&text, output.output.as_deref())?;
    Ok(verdict)
}

/// Evaluates and compares an experiment; its report's text, verdict and
/// the report itself (with a baseline read from a results file as its first
/// run).
fn produce(
    mut experiment: Experiment,
    output: &OutputArgs,
    config: Option<&std::path::Path>,
) -> Result<(String, Verdict, rankeval_report::Report), CliError> {
    if let Some(target) = &output.output {
        let inputs = experiment
            .qrels
            .iter()
            .filter_map(|q| Some(("the qrels", q.path()?)))
            .chain(
                experiment
                    .runs
                    .iter()
                    .filter_map(|r| Some(("a run", r.input.path()?))),
            )
            .chain(experiment.corpus_inputs.paths())
            .chain(config.map(|c| ("the experiment file", c)));
        output::refuse_an_input(target, inputs)?;
    }
    for note in &experiment.notes {
        let _ = writeln!(std::io::stderr(), "note: {note}");
    }
    let html = matches!(output.format, FormatArg::Html);
    let bar = progress::display(&experiment, std::io::stderr().is_terminal());
    let outcome = experiment.run(
        Wanted {
            curves_and_changes: html,
        },
        &|bytes| bar.inc(bytes),
    );
    bar.finish_and_clear();
    // The evaluation's warnings are said before a comparison's error too.
    if let Err(
        rankeval::outcome::RunError::Compare { warnings, .. }
        | rankeval::outcome::RunError::Record { warnings, .. },
    ) = &outcome
    {
        let mut stderr = std::io::stderr().lock();
        for warning in warnings {
            let _ = writeln!(stderr, "warning: {warning}");
        }
    }
    let outcome = outcome?;
    let results = &outcome.results;
    let mut stderr = std::io::stderr().lock();
    if let Some(recorded) = &outcome.recorded {
        for (run, id) in &recorded.ids {
            let _ = writeln!(
                stderr,
                "recorded: run `{run}` as record {id} of {}",
                recorded.db.display()
            );
        }
    }
    for warning in &results.report().warnings {
        let _ = writeln!(stderr, "warning: {warning}");
    }
    if let FormatArg::Trec = output.format
        && let Some(warning) = trec_aggregators_warning(&results.report().aggregators)
    {
        let _ = writeln!(stderr, "warning: {warning}");
    }
    let verdict = match results {
        Results::Compared(compared) => {
            for warning in compared.comparison.group_warnings() {
                let _ = writeln!(stderr, "warning: {warning}");
            }
            gate_verdict(compared, output, &mut stderr)
        }
        Results::Plain(_) => Verdict::Passed,
    };
    let format: OutputFormat = output.format.into();
    if matches!(results, Results::Compared(_)) && format != OutputFormat::Html {
        comparison_format_warnings(format, output.per_query, &mut stderr);
    }
    if outcome.systems.is_some()
        && matches!(
            format,
            OutputFormat::Trec | OutputFormat::Html | OutputFormat::Latex
        )
    {
        let _ = writeln!(
            stderr,
            "warning: the systems' results are shown in table, markdown, json and csv"
        );
    }
    let options = RenderOptions {
        per_query: output.per_query,
    };
    let text = rankeval_report::outcome::render(&outcome, format, options);
    Ok((text, verdict, outcome.results.into_report()))
}

/// What a comparison rendered in `format` leaves out, said on stderr (by
/// `eval`, `run` and `report` alike): trec prints the means only, and csv
/// one row per comparison without the per-query values `--per-query` asked
/// for.
fn comparison_format_warnings(format: OutputFormat, per_query: bool, stderr: &mut impl Write) {
    if format == OutputFormat::Trec {
        let _ = writeln!(
            stderr,
            "warning: --format trec has no place for the comparison: it prints the \
             means only (the other formats show it)"
        );
    }
    if format == OutputFormat::Csv && per_query {
        let _ = writeln!(
            stderr,
            "warning: --format csv with a comparison prints one row per comparison, \
             without per-query values (--format json has both)"
        );
    }
}

/// Several experiment files: each checked, then each run, their reports
/// combined into one (a section per file; JSON: `{"experiments": [...]}`;
/// CSV: an `experiment` column) and the worst verdict returned.
fn suite(files: &[PathBuf], output: &OutputArgs, macro_average: bool) -> Result<Verdict, CliError> {
    let format: OutputFormat = output.format.into();
    if matches!(format, OutputFormat::Html | OutputFormat::Trec) {
        return Err(CliError::Usage(format!(
            "--format {}: one experiment file at a time (several files are combined in \
             table, markdown, json, csv or latex)",
            if format == OutputFormat::Html {
                "html"
            } else {
                "trec"
            }
        )));
    }
    rankeval::suite::distinct_files(files).map_err(|e| CliError::Usage(e.to_string()))?;
    let experiments = files
        .iter()
        .map(|file| rankeval::config::load(file))
        .collect::<Result<Vec<_>, _>>()?;
    // The suite's comparisons: the experiments' common baseline run, their
    // common [compare] level, resamples and seed.
    let plans: Vec<Option<&rankeval::compare::ComparisonPlan>> =
        experiments.iter().map(|e| e.comparison.as_ref()).collect();
    let baseline = common(&plans, |p| match &p.baseline {
        Some(rankeval::compare::BaselineRef::Run(name)) => Some(name.clone()),
        _ => None,
    });
    let settings = rankeval::suite::SuiteSettings {
        level: common(&plans, |p| Some(p.settings.level)).unwrap_or(0.95),
        resamples: common(&plans, |p| Some(p.settings.resamples)).unwrap_or(10_000),
        seed: common(&plans, |p| Some(p.settings.seed)).unwrap_or(rankeval_stats::DEFAULT_SEED),
    };
    let mut verdict = Verdict::Passed;
    let mut sections = Vec::with_capacity(files.len());
    let mut reports = Vec::with_capacity(files.len());
    for (file, experiment) in files.iter().zip(experiments) {
        let (text, v, report) = produce(experiment, output, Some(file))?;
        verdict = verdict.max(v);
        sections.push((file.display().to_string(), text));
        reports.push((file.display().to_string(), report));
    }
    let mut text = combine(format, &sections);
    if macro_average {
        let named: Vec<(String, &rankeval_report::Report)> =
            reports.iter().map(|(file, r)| (file.clone(), r)).collect();
        let suite = rankeval::suite::macro_suite(&named, baseline.as_deref(), settings)
            .map_err(|e| CliError::Usage(format!("--aggregate macro: {e}")))?;
        text = rankeval_report::suite::with_suite(format, text, &suite);
    }
    output::write(&text, output.output.as_deref())?;
    Ok(verdict)
}

/// The value every experiment's comparison plan gives, if they all have
/// one and it is the same.
fn common<T: PartialEq>(
    plans: &[Option<&rankeval::compare::ComparisonPlan>],
    value: impl Fn(&rankeval::compare::ComparisonPlan) -> Option<T>,
) -> Option<T> {
    let mut values = plans.iter().map(|p| p.and_then(&value));
    let first = values.next()??;
    values.all(|v| v.as_ref() == Some(&first)).then_some(first)
}

/// The reports of several experiment files as one.
fn combine(format: OutputFormat, sections: &[(String, String)]) -> String {
    let mut out = String::new();
    match format {
        OutputFormat::Json => {
            let experiments: Vec<serde_json::Value> = sections
                .iter()
                .map(|(file, text)| {
                    let mut value: serde_json::Value =
                        serde_json::from_str(text).unwrap_or(serde_json::Value::Null);
                    if let Some(object) = value.as_object_mut() {
                        object.insert("experiment".into(), file.clone().into());
                    }
                    value
                })
                .collect();
            out = serde_json::to_string_pretty(&serde_json::json!({ "experiments": experiments }))
                .unwrap_or_default();
            out.push('\n');
        }
        OutputFormat::Csv => {
            let mut header: Option<&str> = None;
            for (file, text) in sections {
                let mut lines = text.lines();
                if let Some(first) = lines.next()
                    && header != Some(first)
                {
                    out.push_str("experiment,");
                    out.push_str(first);
                    out.push('\n');
                    header = Some(first);
                }
                let quoted = if file.contains([',', '"', '\n', '\r']) {
                    format!("\"{}\"", file.replace('"', "\"\""))
                } else {
                    file.clone()
                };
                for line in lines {
                    out.push_str(&quoted);
                    out.push(',');
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        OutputFormat::Markdown => {
            for (i, (file, text)) in sections.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(&format!("### {file}\n\n{text}"));
            }
        }
        OutputFormat::Latex => {
            for (file, text) in sections {
                out.push_str(&format!("% {file}\n{text}"));
            }
        }
        _ => {
            for (i, (file, text)) in sections.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(&format!("== {file} ==\n{text}"));
            }
        }
    }
    out
}

/// The verdict of the gates, each failed one told on stderr.
fn gate_verdict(
    compared: &rankeval::compare::Compared,
    output: &OutputArgs,
    stderr: &mut impl Write,
) -> Verdict {
    let gates = &compared.comparison.gates;
    for gate in gates.iter().filter(|g| !g.passed) {
        let _ = writeln!(
            stderr,
            "{}: gate {} for run `{}`: {}",
            if gate.error.is_some() {
                "error"
            } else {
                "gate failed"
            },
            gate.gate,
            gate.run,
            rankeval_report::gate_detail(gate)
        );
    }
    if compared.comparison.undecided() {
        Verdict::Undecided
    } else if !compared.comparison.passed() && !output.no_fail {
        Verdict::Failed
    } else {
        Verdict::Passed
    }
}

/// `--format trec` prints means (and, for gmean, trec_eval's `gm_map` and
/// `gm_bpref`), as trec_eval does: say so when other aggregators were asked
/// for, rather than leave them out without a word.
fn trec_aggregators_warning(aggregators: &[String]) -> Option<String> {
    let left_out: Vec<String> = aggregators
        .iter()
        .filter(|a| !matches!(a.as_str(), "mean" | "gmean"))
        .map(|a| format!("`{a}`"))
        .collect();
    (!left_out.is_empty()).then(|| {
        format!(
            "--format trec prints means only, as trec_eval does (and gm_map, gm_bpref for gmean); \
             not shown: {}; the other formats show every aggregator",
            left_out.join(", ")
        )
    })
}
