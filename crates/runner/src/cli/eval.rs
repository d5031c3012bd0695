//! `rankeval eval`: an experiment from command-line flags.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use rankeval_core::registry;
use rankeval_core::{Aggregator, Duplicates, Metric, RelevanceLevel};

use super::{CliError, OutputArgs};
use crate::engine::{Missing, Options};
use crate::experiment::{
    DEFAULT_METRICS, Experiment, NamedRun, input_problem, run_names, unique_by_name,
};
use crate::read::{CsvOptions, Format, Input, ReadOptions};

/// Arguments of `rankeval eval`.
#[derive(Debug, Args)]
pub(super) struct EvalArgs {
    /// Qrels file (TREC `query iteration document grade`, JSON Lines with
    /// `relevant`, or CSV `user,item[,grade]`). Optional when every run is
    /// JSON Lines with `relevant`.
    #[arg(long, value_name = "FILE")]
    qrels: Option<PathBuf>,
    /// Run file (TREC `query Q0 document rank score tag`, JSON Lines, or CSV
    /// `user,item,score` / `user,item,rank`); repeat for several runs. Plain
    /// or gzip.
    #[arg(long = "run", value_name = "FILE", required = true)]
    runs: Vec<PathBuf>,
    /// Metric in the short syntax `name(param=value,...)@k`, e.g. `ndcg@10`,
    /// `"ap(norm=truncated)@10"`, `mrr`; repeat for several. Default:
    /// ap, rr, p@10, recall@100, ndcg@10. `rankeval metrics` lists them all.
    #[arg(short = 'm', long = "metric", value_name = "METRIC")]
    metrics: Vec<String>,
    /// Aggregator over queries (mean, median, ...); repeat for several.
    /// Default: mean.
    #[arg(short = 'a', long = "aggregate", value_name = "AGGREGATOR")]
    aggregators: Vec<String>,
    /// Judged queries missing from a run: left out (skip) or scored 0 (zero,
    /// like trec_eval -c).
    #[arg(long, value_enum, default_value_t = MissingArg::Skip)]
    missing: MissingArg,
    /// A document repeated in one query's list: an error, or keep its
    /// best-ranked occurrence.
    #[arg(long, value_enum, default_value_t = DuplicatesArg::Error)]
    duplicates: DuplicatesArg,
    /// Default relevance level: grades of at least N are relevant (like
    /// trec_eval -l); N may be a decimal (3.5) and must be above 0. A
    /// metric's own `rel` wins; metrics that use grades as gains (ndcg,
    /// dcg, err, rbp with gain=graded) do not use it.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1.0,
        allow_negative_numbers = true
    )]
    rel: f64,
    /// Read every input as this format, whatever its name says.
    #[arg(long, value_enum, value_name = "FORMAT")]
    input_format: Option<InputFormatArg>,
    #[command(flatten)]
    csv: CsvArgs,
    #[command(flatten)]
    output: OutputArgs,
}

/// Column names and delimiter of CSV/TSV inputs (`.csv`, `.tsv`).
#[derive(Debug, Args)]
#[command(next_help_heading = "CSV input")]
struct CsvArgs {
    /// Column with the query (user) id.
    #[arg(long = "csv-query", value_name = "COLUMN", default_value = "user")]
    query: String,
    /// Column with the document (item) id.
    #[arg(long = "csv-doc", value_name = "COLUMN", default_value = "item")]
    doc: String,
    /// Column with a run's scores (higher is better).
    #[arg(long = "csv-score", value_name = "COLUMN", default_value = "score")]
    score: String,
    /// Column with a run's ranks (1 is best), used when there is no score column.
    #[arg(long = "csv-rank", value_name = "COLUMN", default_value = "rank")]
    rank: String,
    /// Column with the grades of ground truth (grade 1 when the column is absent).
    #[arg(long = "csv-grade", value_name = "COLUMN", default_value = "grade")]
    grade: String,
    /// Field delimiter: one character, or `tab` [default: tab for .tsv, else comma].
    #[arg(long = "csv-delimiter", value_name = "CHAR")]
    delimiter: Option<String>,
}

impl CsvArgs {
    fn options(&self) -> Result<CsvOptions, CliError> {
        let delimiter = match self.delimiter.as_deref() {
            None => None,
            Some("tab" | "\\t") => Some('\t'),
            Some(text) => {
                let mut chars = text.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Some(c),
                    _ => {
                        return Err(CliError::Usage(format!(
                            "--csv-delimiter {text}: give one character, or `tab`"
                        )));
                    }
                }
            }
        };
        let options = CsvOptions {
            query: self.query.clone(),
            doc: self.doc.clone(),
            score: self.score.clone(),
            rank: self.rank.clone(),
            grade: self.grade.clone(),
            delimiter,
        };
        options
            .check()
            .map_err(|reason| CliError::Usage(format!("--csv-delimiter: {reason}")))?;
        Ok(options)
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum MissingArg {
    /// Leave the query out (trec_eval's default).
    Skip,
    /// Score it 0 on an empty ranking (trec_eval -c).
    Zero,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum DuplicatesArg {
    /// Refuse the run, naming both lines.
    Error,
    /// Keep the best-ranked occurrence (highest score; for a list given
    /// ranked, the first given), not the first line.
    First,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum InputFormatArg {
    /// TREC qrels and runs.
    Trec,
    /// JSON Lines, one query per line.
    Jsonl,
    /// CSV or TSV with a header line.
    Csv,
}

impl EvalArgs {
    /// Builds the experiment, checking every flag before any data is read;
    /// returns it with the output flags.
    pub(super) fn into_experiment(self) -> Result<(Experiment, OutputArgs), CliError> {
        let level = RelevanceLevel::new(self.rel).ok_or_else(|| {
            CliError::Usage(if self.rel > 0.0 {
                format!(
                    "--rel {}: the relevance level is too large: the largest grade is 2147483647",
                    self.rel
                )
            } else {
                format!(
                    "--rel {}: the relevance level must be a positive grade (grades of 0 and below are never relevant)",
                    self.rel
                )
            })
        })?;
        let csv = self.csv.options()?;
        let input = |path: &PathBuf| {
            let input = Input::file(path);
            let input = match self.input_format {
                Some(InputFormatArg::Trec) => input.with_format(Format::Trec),
                Some(InputFormatArg::Jsonl) => input.with_format(Format::Jsonl),
                Some(InputFormatArg::Csv) => input.with_format(Format::Csv),
                None => input,
            };
            if input.format() == Format::Csv {
                input.with_csv(csv.clone())
            } else {
                input
            }
        };
        for path in self.qrels.iter().chain(&self.runs) {
            if let Some(problem) = input_problem(path) {
                return Err(CliError::Usage(format!("{}: {problem}", path.display())));
            }
        }
        // One identity per path, looked up in a map: linear in the runs.
        let mut seen = std::collections::HashMap::with_capacity(self.runs.len());
        for path in &self.runs {
            if let Some(first) = seen.insert(file_identity(path), path) {
                return Err(CliError::Usage(if first == path {
                    format!(
                        "--run {} is given twice; give each run once",
                        path.display()
                    )
                } else {
                    format!(
                        "--run {} is the same file as --run {}; give each run once",
                        path.display(),
                        first.display()
                    )
                }));
            }
        }
        let runs: Vec<NamedRun> = run_names(&self.runs)
            .into_iter()
            .zip(&self.runs)
            .map(|(name, path)| NamedRun {
                name,
                input: input(path),
            })
            .collect();
        if self.qrels.is_none()
            && let Some(run) = runs.iter().find(|r| r.input.format() != Format::Jsonl)
        {
            return Err(CliError::Usage(format!(
                "--qrels is required: {} is not JSON Lines, so it holds no judgements",
                run.input.name()
            )));
        }
        let metric_specs: Vec<String> = if self.metrics.is_empty() {
            DEFAULT_METRICS.iter().map(|s| (*s).to_owned()).collect()
        } else {
            self.metrics
        };
        let metrics = metric_specs
            .into_iter()
            .map(|spec| {
                registry::parse_metric(&spec).map_err(|source| CliError::Plugin {
                    flag: "-m",
                    value: spec,
                    source: Box::new(source),
                })
            })
            .collect::<Result<Vec<Box<dyn Metric>>, _>>()?;
        let aggregator_specs = if self.aggregators.is_empty() {
            vec!["mean".to_owned()]
        } else {
            self.aggregators
        };
        let aggregators = aggregator_specs
            .into_iter()
            .map(|spec| {
                registry::parse_aggregator(&spec).map_err(|source| CliError::Plugin {
                    flag: "-a",
                    value: spec,
                    source: Box::new(source),
                })
            })
            .collect::<Result<Vec<Box<dyn Aggregator>>, _>>()?;
        let experiment = Experiment {
            qrels: self.qrels.as_ref().map(input),
            runs,
            metrics: unique_by_name(metrics),
            aggregators: unique_by_name(aggregators),
            options: Options {
                missing: match self.missing {
                    MissingArg::Skip => Missing::Skip,
                    MissingArg::Zero => Missing::Zero,
                },
                level,
            },
            read: ReadOptions {
                duplicates: match self.duplicates {
                    DuplicatesArg::Error => Duplicates::Error,
                    DuplicatesArg::First => Duplicates::First,
                },
            },
        };
        Ok((experiment, self.output))
    }
}

/// Whether two paths name one file (both exist: checked before).
fn file_identity(path: &Path) -> FileIdentity {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(metadata) = std::fs::metadata(path) {
            return FileIdentity::Inode(metadata.dev(), metadata.ino());
        }
    }
    match path.canonicalize() {
        Ok(canonical) => FileIdentity::Path(canonical),
        Err(_) => FileIdentity::Path(path.to_owned()),
    }
}

/// What makes two paths the same file: device and inode where there are
/// such, else the canonical path (or the path as given, if it has none).
#[derive(PartialEq, Eq, Hash)]
enum FileIdentity {
    #[cfg(unix)]
    Inode(u64, u64),
    Path(std::path::PathBuf),
}
