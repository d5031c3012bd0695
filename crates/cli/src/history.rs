//! The results history on the command line: `--record DB` and `--label`
//! on `eval` and `run` (mapped onto the spec's
//! [`RecordRequest`](rankeval::spec::RecordRequest)), and `rankeval history
//! DB`: the records and each metric's trend, `--accept ID`, `history diff`
//! and `history export` (docs/history.md).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use rankeval::history::{ExportFormat, History, HistoryError, Mode, diff, trend};
use rankeval::spec::{Given, Origin, RecordRequest};
use rankeval_report::history::{HistoryFormat, render_diff, render_history};

use super::{CliError, Verdict, output};

/// Recording the results in a results history.
#[derive(Debug, Args)]
#[command(next_help_heading = "Results history")]
pub(super) struct RecordArgs {
    /// Record the results in the SQLite database DB (created if missing):
    /// one record per run with its per-query values (for `ope`, per policy
    /// with its estimates), the metrics' definitions, the judgements' (or
    /// log's) fingerprint, the options and inputs' hashes. Several jobs may record into one file at once. See
    /// `rankeval history`.
    #[arg(long, value_name = "DB")]
    record: Option<PathBuf>,
    /// A label for the records (a branch, a model name).
    #[arg(long, value_name = "TEXT", requires = "record")]
    label: Option<String>,
    /// The commit under test [default: the CI's, from GITHUB_SHA,
    /// CI_COMMIT_SHA, BUILDKITE_COMMIT, CIRCLE_SHA1, TRAVIS_COMMIT,
    /// BITBUCKET_COMMIT, DRONE_COMMIT_SHA or GIT_COMMIT].
    #[arg(long, value_name = "SHA", requires = "record")]
    commit: Option<String>,
}

impl RecordArgs {
    /// Whether a database was given.
    pub(super) fn given(&self) -> bool {
        self.record.is_some()
    }

    /// The spec's record request.
    pub(super) fn request(&self) -> RecordRequest {
        RecordRequest {
            db: self
                .record
                .as_ref()
                .map(|p| Given::new(p.clone(), Origin::flag("--record", p.display()))),
            label: self
                .label
                .as_ref()
                .map(|l| Given::new(l.clone(), Origin::flag("--label", l))),
            commit: self
                .commit
                .as_ref()
                .map(|c| Given::new(c.clone(), Origin::flag("--commit", c))),
            experiment_hash: None,
        }
    }
}

/// Arguments of `rankeval history`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(super) struct HistoryArgs {
    #[command(subcommand)]
    action: Option<HistoryAction>,
    /// The history: an SQLite database written by `--record`.
    #[arg(value_name = "DB", required = true)]
    db: Option<PathBuf>,
    /// Mark record ID accepted: the baseline later runs are compared with
    /// (the last accepted record of a run).
    #[arg(long, value_name = "ID")]
    accept: Option<i64>,
    /// Only the records of this run.
    #[arg(long, value_name = "NAME")]
    run: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ShowFormat::Table)]
    format: ShowFormat,
    /// Write to FILE (whole or not at all) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// What `rankeval history` does besides listing.
#[derive(Debug, Subcommand)]
enum HistoryAction {
    /// The queries whose values moved most between records A and B.
    Diff {
        /// The history.
        #[arg(value_name = "DB")]
        db: PathBuf,
        /// The first record's id.
        a: i64,
        /// The second record's id.
        b: i64,
        /// How many (metric, query) pairs to list, largest change first.
        #[arg(long, default_value_t = 10)]
        top: usize,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ShowFormat::Table)]
        format: ShowFormat,
        /// Write to FILE instead of stdout.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Every record's per-query values: CSV or Parquet (one row per record,
    /// metric and query: for DuckDB, pandas, polars), or JSON Lines (one
    /// record per line with its means: for MLflow or W&B).
    Export {
        /// The history.
        #[arg(value_name = "DB")]
        db: PathBuf,
        /// The format.
        #[arg(long, value_enum)]
        format: ExportArg,
        /// Write to FILE (whole or not at all) instead of stdout; Parquet
        /// needs one.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

/// `rankeval history`'s formats.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ShowFormat {
    /// Aligned tables for a terminal.
    Table,
    /// One JSON document.
    Json,
    /// Markdown tables (a pull request, a CI job's summary).
    Markdown,
    /// One self-contained HTML page: a chart of each metric's trend (its
    /// means and intervals by record) and the records (not for `diff`).
    Html,
}

impl From<ShowFormat> for HistoryFormat {
    fn from(format: ShowFormat) -> Self {
        match format {
            ShowFormat::Table => HistoryFormat::Table,
            ShowFormat::Json => HistoryFormat::Json,
            ShowFormat::Markdown => HistoryFormat::Markdown,
            ShowFormat::Html => HistoryFormat::Html,
        }
    }
}

/// Export formats.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ExportArg {
    /// CSV, one row per record, metric and query.
    Csv,
    /// JSON Lines, one record per line.
    Jsonl,
    /// Parquet, one row per record, metric and query.
    Parquet,
}

/// A history error as the command line reports it.
fn failed(error: HistoryError) -> CliError {
    CliError::History(error)
}

/// Runs `rankeval history`.
pub(super) fn run(args: HistoryArgs) -> Result<Verdict, CliError> {
    match args.action {
        Some(HistoryAction::Diff {
            db,
            a,
            b,
            top,
            format,
            output,
        }) => {
            if let ShowFormat::Html = format {
                return Err(CliError::Usage(
                    "history diff --format html: the page is the records' and trends' \
                     (`rankeval history DB --format html`); a diff is table, json or markdown"
                        .to_owned(),
                ));
            }
            let mut history = History::open(&db, Mode::Existing).map_err(failed)?;
            let (a, b) = (
                history.get(a).map_err(failed)?,
                history.get(b).map_err(failed)?,
            );
            // An off-policy record holds estimates, not per-query values:
            // nothing to pair query by query, said rather than an empty diff.
            if let Some(r) = [&a, &b]
                .into_iter()
                .find(|r| r.data.kind() == rankeval::history::RecordKind::Ope)
            {
                return Err(CliError::Usage(format!(
                    "history diff: record {} is an off-policy record (rankeval ope): it holds \
                     policy `{}`'s estimates, not per-query values, so no query moved; its \
                     estimates' trend is `rankeval history {} --run {}`",
                    r.id,
                    r.data.run,
                    db.display(),
                    r.data.run
                )));
            }
            let text = render_diff(&diff(&a, &b), top, format.into());
            output::write(&text, output.as_deref())?;
        }
        Some(HistoryAction::Export { db, format, output }) => {
            let format = match format {
                ExportArg::Csv => ExportFormat::Csv,
                ExportArg::Jsonl => ExportFormat::Jsonl,
                ExportArg::Parquet => ExportFormat::Parquet,
            };
            if format == ExportFormat::Parquet && output.is_none() {
                return Err(CliError::Usage(
                    "history export --format parquet: give the file with -o FILE".to_owned(),
                ));
            }
            let mut history = History::open(&db, Mode::Existing).map_err(failed)?;
            // Written as read: the history is never held whole.
            output::stream(output.as_deref(), |out| history.export(format, out))?
                .map_err(failed)?;
        }
        None => {
            let Some(db) = args.db else {
                return Err(CliError::Usage("history: give the database DB".to_owned()));
            };
            let mut history = History::open(&db, Mode::Existing).map_err(failed)?;
            if let Some(id) = args.accept {
                history
                    .accept(id, rankeval::record::now_ms())
                    .map_err(failed)?;
                let _ = writeln!(
                    std::io::stderr(),
                    "accepted record {id} of {}",
                    db.display()
                );
            }
            let mut records = history.summaries().map_err(failed)?;
            if let Some(run) = &args.run {
                records.retain(|r| &r.run == run);
            }
            let text = render_history(&records, &trend(&records), args.format.into());
            output::write(&text, args.output.as_deref())?;
        }
    }
    Ok(Verdict::Passed)
}
