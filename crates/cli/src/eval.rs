//! `rankeval eval`: an experiment from command-line flags.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use rankeval_core::registry;
use rankeval_core::{
    Aggregator, Duplicates, RelevanceLevel, RequestedMetric, Ties, parse_requested,
};

use super::{CliError, OutputArgs};
use rankeval::compare::{CompareRunError, Family, Settings, check_gates, parse_gate};
use rankeval::core::completion::with_bounds;
use rankeval::core::judged_only::judged_only;
use rankeval::corpus::CorpusSources;
use rankeval::engine::{Missing, Options, ScoreThreshold, check_ties, has_scores, unscored_run};
use rankeval::experiment::BOUNDS_WITH_COMPARISON;
use rankeval::experiment::{
    BaselineRef, ComparisonPlan, DEFAULT_METRICS, Experiment, NamedRun, SystemSpec, input_problem,
    metric_note, run_names, split_requested, unique_by_name, unique_notes,
};
use rankeval::read::{CsvOptions, Format, Input, ReadOptions};
use rankeval_compare::{BootstrapMethod, Correction, Test};

/// Arguments of `rankeval eval`.
#[derive(Debug, Args)]
pub(super) struct EvalArgs {
    /// Qrels file (TREC `query iteration document grade`, JSON Lines with
    /// `relevant`, CSV `user,item[,grade]`, or a Parquet/Arrow table of
    /// those columns). Optional when every run is JSON Lines with `relevant`.
    /// `-` reads standard input.
    #[arg(long, value_name = "FILE")]
    qrels: Option<PathBuf>,
    /// Run file (TREC `query Q0 document rank score tag`, JSON Lines, CSV
    /// `user,item,score` / `user,item,rank`, or Parquet/Arrow with those
    /// columns or list columns `user, items, scores`); repeat for several
    /// runs. Text formats plain or gzip. `NAME=FILE` names the run in
    /// reports (when no file is called `NAME=FILE`); `-` reads standard
    /// input (named `stdin`; its format from --run-format, else TREC).
    #[arg(
        long = "run",
        value_name = "[NAME=]FILE",
        required_unless_present = "systems"
    )]
    runs: Vec<PathBuf>,
    /// A system of several runs (training seeds, folds): `NAME=FILES`,
    /// FILES comma-separated paths or glob patterns (quote them:
    /// --system "v2=runs/v2-seed*.trec"). Each file is a run named
    /// NAME/FILE-STEM; reports add each system's mean over queries and
    /// runs, its interval and the spread over runs, and compare each system
    /// with the first counting the run variance. Repeat for several.
    #[arg(long = "system", value_name = "NAME=FILES")]
    systems: Vec<String>,
    /// Metric in the short syntax `name(param=value,...)@k`, e.g. `ndcg@10`,
    /// `"ap(norm=truncated)@10"`, `mrr`, or a corpus metric (one value per
    /// run) such as `coverage@10`, `novelty@10`; repeat for several.
    /// Default: ap, rr, p@10, recall@100, ndcg@10. `rankeval metrics` lists
    /// them all.
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
    /// Tied scores: ranked by document id (docid, trec_eval's rule), in the
    /// run's order (input), or each metric's expected value over every
    /// order of the ties (average). A metric's own `ties` wins.
    #[arg(long, value_enum, default_value_t = TiesArg::Docid)]
    ties: TiesArg,
    /// Entries scored at or below T are not retrieved: each list is cut
    /// there before any metric sees it (T = 0 gives torchmetrics' lists,
    /// which count only scores > 0). Default: every entry counts.
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    score_threshold: Option<f64>,
    /// Evaluate a run that never ran on the qrels (it shares no query with
    /// them, or every list of a judged query is empty) instead of refusing
    /// it: it then scores 0 (--missing zero) or evaluates nothing.
    #[arg(long)]
    allow_empty_run: bool,
    /// Score every metric on judged documents only: unjudged documents
    /// (not in the qrels, or a negative grade) are removed from each ranking
    /// before scoring, the condensed list (trec_eval -J). Each metric's name
    /// then says so: ndcg(judged_only=true)@10, as the metric's own
    /// judged_only=true does.
    #[arg(long)]
    judged_only: bool,
    /// Bounds under incomplete judgements: after each metric, its value with
    /// every unjudged document the run retrieved judged non-relevant
    /// (metric(unjudged=nonrelevant)) and relevant at the query's top grade
    /// (metric(unjudged=relevant)), per query and for the mean; and the
    /// hole rate, unjudged@k at the deepest cutoff. A run whose hole rate
    /// passes 0.2 is warned about.
    #[arg(long)]
    bounds: bool,
    /// Groups of queries (slices): a CSV (TSV for a .tsv name, Parquet for
    /// .parquet) with a header, the query id first, then one column per
    /// grouping (segment, language, conversation, turn ...); or JSON Lines
    /// (.jsonl), an object per query with its id under `query`. Every
    /// report adds each group's results; gates can name a group:
    /// `ndcg@10[segment=tail]:superior`.
    #[arg(long, value_name = "FILE")]
    groups: Option<PathBuf>,
    /// Conversational queries: each query id is CONVERSATION, SEP, TURN
    /// (TREC CAsT's and iKAT's 31_4 with SEP `_`; split at the last SEP).
    /// Every report adds the results per turn position and per
    /// conversation, as groups `turn` and `conversation` (gates can name
    /// them: `ndcg@10[turn=1]:superior`).
    #[arg(long, value_name = "SEP")]
    turns: Option<String>,
    /// The unit of every mean, comparison and gate is the conversation,
    /// each valued at the mean of its turns (comparisons paired by
    /// conversation); the report's queries are the conversations. The
    /// conversations come from the query ids with --turns, or from the
    /// `conversation` column of a --groups file (no other groups are
    /// reported then).
    #[arg(long)]
    per_conversation: bool,
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
    #[command(flatten)]
    inputs: InputArgs,
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    csv: CsvArgs,
    #[command(flatten)]
    compare: CompareArgs,
    #[command(flatten)]
    output: OutputArgs,
}

/// How the inputs of `eval` and `explain` are read: their formats and
/// their own columns (one set of options for every subcommand that reads
/// files; the shared `--csv-*`/`--json-*` columns are [`CsvArgs`]).
#[derive(Debug, Args)]
pub(super) struct InputArgs {
    /// Read every input as this format, whatever its name says.
    #[arg(long, value_enum, value_name = "FORMAT")]
    input_format: Option<InputFormatArg>,
    /// Read the qrels as this format (over --input-format).
    #[arg(long, value_enum, value_name = "FORMAT")]
    qrels_format: Option<InputFormatArg>,
    /// Read every run as this format (over --input-format).
    #[arg(long, value_enum, value_name = "FORMAT")]
    run_format: Option<InputFormatArg>,
    /// The qrels' own column settings over the --csv-*/--json-* flags,
    /// `key=value,...` with keys query, doc, score, rank, grade, delimiter,
    /// predicted, scores, relevant (e.g. `query=user_id,doc=item_id`).
    #[arg(long, value_name = "KEY=VALUE,...")]
    qrels_columns: Option<String>,
    /// The runs' own column settings, as --qrels-columns.
    #[arg(long, value_name = "KEY=VALUE,...")]
    run_columns: Option<String>,
}

/// [`InputArgs`] and [`CsvArgs`] resolved: how to read the qrels and the
/// runs named on the command line.
pub(super) struct InputSettings {
    input_format: Option<InputFormatArg>,
    qrels_format: Option<InputFormatArg>,
    run_format: Option<InputFormatArg>,
    /// The `--csv-*`/`--json-*` columns, for inputs without their own.
    csv: CsvOptions,
    qrels_columns: CsvOptions,
    run_columns: CsvOptions,
}

impl InputArgs {
    /// The settings, with the shared columns of `csv`; a bad
    /// `key=value` is an error naming the flag.
    pub(super) fn settings(&self, csv: &CsvArgs) -> Result<InputSettings, CliError> {
        let csv = csv.options()?;
        Ok(InputSettings {
            input_format: self.input_format,
            qrels_format: self.qrels_format,
            run_format: self.run_format,
            qrels_columns: with_columns(&csv, self.qrels_columns.as_deref(), "--qrels-columns")?,
            run_columns: with_columns(&csv, self.run_columns.as_deref(), "--run-columns")?,
            csv,
        })
    }

    /// The first of these flags given, if any (for a subcommand that takes
    /// its inputs from an experiment file, where they have no place).
    pub(super) fn given(&self) -> Option<&'static str> {
        [
            (self.input_format.is_some(), "--input-format"),
            (self.qrels_format.is_some(), "--qrels-format"),
            (self.run_format.is_some(), "--run-format"),
            (self.qrels_columns.is_some(), "--qrels-columns"),
            (self.run_columns.is_some(), "--run-columns"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }
}

impl InputSettings {
    /// The qrels file at `path`.
    pub(super) fn qrels(&self, path: &Path) -> Input {
        self.input(path, self.qrels_format, &self.qrels_columns)
    }

    /// The run file at `path`.
    pub(super) fn run(&self, path: &Path) -> Input {
        self.input(path, self.run_format, &self.run_columns)
    }

    /// The file at `path`, read as `format` (else `--input-format`, else
    /// as its name says) with `columns`.
    fn input(&self, path: &Path, format: Option<InputFormatArg>, columns: &CsvOptions) -> Input {
        let input = Input::file(path);
        let input = match format.or(self.input_format) {
            Some(format) => input.with_format(format.format()),
            None => input,
        };
        input.with_columns(columns.clone())
    }
}

/// Comparisons with a baseline, and quality gates (docs/compare.md).
#[derive(Debug, Args)]
#[command(next_help_heading = "Comparison and gates (docs/compare.md)")]
pub(super) struct CompareArgs {
    /// Compare every run with this baseline, query by query: a run's name,
    /// or a results file written by `--format json --per-query -o FILE`
    /// (or a per-query Parquet table, file or directory, as
    /// `rankeval_rs.spark` writes it).
    #[arg(long, value_name = "RUN|FILE")]
    baseline: Option<String>,
    /// The run of the --baseline results file, when it holds several.
    #[arg(long, value_name = "NAME", requires = "baseline")]
    baseline_run: Option<String>,
    /// Without a baseline, compare every pair of runs (randomized Tukey
    /// HSD). Implied by any other comparison flag without --baseline.
    #[arg(long, conflicts_with = "baseline")]
    all_pairs: bool,
    /// The paired test [default: t].
    #[arg(long, value_enum)]
    test: Option<TestArg>,
    /// Random resamples of the randomization test, the bootstrap and the
    /// Tukey HSD [default: 10000].
    #[arg(long, value_name = "N")]
    resamples: Option<u64>,
    /// Seed of their ChaCha generators (ChaCha8 for the double-or-nothing
    /// bootstrap), printed in every report [default: 42].
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// The bootstrap's variant [default: auto: multinomial up to 10,000
    /// queries, double-or-nothing above].
    #[arg(long, value_enum, value_name = "VARIANT")]
    bootstrap: Option<BootstrapArg>,
    /// Multiple-testing correction [default: holm].
    #[arg(long, value_enum)]
    correction: Option<CorrectionArg>,
    /// Which comparisons are corrected together [default: runs-x-metrics].
    #[arg(long, value_enum)]
    family: Option<FamilyArg>,
    /// With --groups: correct each group's comparisons together with the
    /// whole runs' (in the same families), instead of each group as
    /// families of its own.
    #[arg(long)]
    groups_in_family: bool,
    /// Significance level of the marks and of `superior` gates [default: 0.05].
    #[arg(long, value_name = "P")]
    alpha: Option<f64>,
    /// Confidence level of the intervals [default: 0.95].
    #[arg(long, value_name = "LEVEL")]
    confidence: Option<f64>,
    /// The interval of each difference [default: the test's own: t, or the
    /// bootstrap's percentile interval]. `jackknife`: delete-a-group
    /// jackknife over groups of queries by a hash of their id, what a Spark
    /// job's `keyed_compare` gives on the same queries.
    #[arg(long, value_enum)]
    interval: Option<IntervalArg>,
    /// With --interval jackknife: the number of groups [default: 20].
    #[arg(long, value_name = "G", requires = "interval")]
    jackknife_groups: Option<u32>,
    /// A quality gate, `METRIC:RULE(PARAMS)`: `ndcg@10:at_least(0.4)`,
    /// `ndcg@10:non_inferior(margin=0.01)` (or `margin=2%` of the
    /// baseline's mean), `ap:superior` (or `superior(alpha=0.01)`); add
    /// `run=NAME` to check one run only. Repeat for several. A failed gate
    /// makes the exit code 1.
    #[arg(long = "gate", value_name = "METRIC:RULE")]
    gates: Vec<String>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum TestArg {
    /// Student's paired t-test; t interval.
    #[value(alias = "t-test", alias = "ttest")]
    T,
    /// Paired randomization (sign-flip) test, exact up to 20 queries.
    #[value(alias = "permutation")]
    Randomization,
    /// Paired bootstrap: percentile interval, shifted-bootstrap p-value.
    Bootstrap,
    /// Wilcoxon signed-rank test (scipy's defaults).
    Wilcoxon,
    /// Sign-flip test with each query's signs keyed by its id (as on Spark).
    /// Without --baseline: the randomized Tukey HSD, permutations keyed the same way.
    #[value(alias = "randomization_keyed")]
    RandomizationKeyed,
    /// Double-or-nothing bootstrap with each query's weights keyed by its id
    /// (as on Spark); percentile interval.
    #[value(alias = "bootstrap_keyed")]
    BootstrapKeyed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum IntervalArg {
    /// The test's own interval.
    Test,
    /// Delete-a-group jackknife, queries grouped by Spark's xxhash64 of their id.
    Jackknife,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum BootstrapArg {
    /// Multinomial up to 10,000 queries, double-or-nothing above.
    Auto,
    /// Efron's bootstrap: n queries drawn with replacement (as scipy).
    Multinomial,
    /// Each query weighted 0 or 2: fast on large query sets.
    #[value(alias = "double_or_nothing")]
    DoubleOrNothing,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum CorrectionArg {
    /// Holm's step-down (family-wise error).
    Holm,
    /// Bonferroni (family-wise error).
    Bonferroni,
    /// Benjamini-Hochberg (false discovery rate).
    #[value(alias = "bh", alias = "fdr_bh", alias = "benjamini_hochberg")]
    BenjaminiHochberg,
    /// No correction.
    None,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FamilyArg {
    /// Every comparison: runs x metrics.
    #[value(alias = "runs_x_metrics", alias = "all")]
    RunsXMetrics,
    /// Each metric's comparisons.
    #[value(alias = "per_metric")]
    PerMetric,
    /// Each run's comparisons.
    #[value(alias = "per_run")]
    PerRun,
}

impl CompareArgs {
    /// Whether any comparison flag was given.
    fn asked(&self) -> bool {
        self.baseline.is_some()
            || self.all_pairs
            || self.test.is_some()
            || self.resamples.is_some()
            || self.seed.is_some()
            || self.bootstrap.is_some()
            || self.correction.is_some()
            || self.family.is_some()
            || self.groups_in_family
            || self.alpha.is_some()
            || self.confidence.is_some()
            || self.interval.is_some()
            || !self.gates.is_empty()
    }

    /// The comparison asked for of the runs `run_names` and the metrics
    /// `metric_names`, every flag checked, nothing read.
    pub(super) fn plan(
        self,
        run_names: &[String],
        metric_names: &[String],
        missing: Missing,
        all_judged_only: bool,
    ) -> Result<Option<ComparisonPlan>, CliError> {
        if !self.asked() {
            return Ok(None);
        }
        let mut settings = Settings {
            missing,
            ..Settings::default()
        };
        if let Some(test) = self.test {
            settings.test = match test {
                TestArg::T => Test::T,
                TestArg::Randomization => Test::Randomization,
                TestArg::Bootstrap => Test::Bootstrap,
                TestArg::Wilcoxon => Test::Wilcoxon,
                TestArg::RandomizationKeyed => Test::RandomizationKeyed,
                TestArg::BootstrapKeyed => Test::BootstrapKeyed,
            };
        }
        if let Some(bootstrap) = self.bootstrap {
            settings.bootstrap = match bootstrap {
                BootstrapArg::Auto => BootstrapMethod::Auto,
                BootstrapArg::Multinomial => BootstrapMethod::Multinomial,
                BootstrapArg::DoubleOrNothing => BootstrapMethod::DoubleOrNothing,
            };
        }
        if let Some(correction) = self.correction {
            settings.correction = match correction {
                CorrectionArg::Holm => Correction::Holm,
                CorrectionArg::Bonferroni => Correction::Bonferroni,
                CorrectionArg::BenjaminiHochberg => Correction::BenjaminiHochberg,
                CorrectionArg::None => Correction::None,
            };
        }
        if let Some(family) = self.family {
            settings.family = match family {
                FamilyArg::RunsXMetrics => Family::RunsXMetrics,
                FamilyArg::PerMetric => Family::PerMetric,
                FamilyArg::PerRun => Family::PerRun,
            };
        }
        settings.groups_in_family = self.groups_in_family;
        match (self.interval, self.jackknife_groups) {
            (Some(IntervalArg::Jackknife), groups) => {
                let groups = groups.unwrap_or(rankeval_compare::keyed::DEFAULT_GROUPS);
                if groups < 2 {
                    return Err(CliError::Usage(format!(
                        "--jackknife-groups {groups}: give at least 2"
                    )));
                }
                if self.baseline.is_none() {
                    return Err(CliError::Usage(
                        "--interval jackknife: the interval of differences with a --baseline"
                            .to_owned(),
                    ));
                }
                settings.jackknife_groups = Some(groups);
            }
            (_, Some(_)) => {
                return Err(CliError::Usage(
                    "--jackknife-groups goes with --interval jackknife".to_owned(),
                ));
            }
            _ => {}
        }
        if let Some(resamples) = self.resamples {
            if resamples == 0 {
                return Err(CliError::Usage("--resamples 0: give at least 1".into()));
            }
            rankeval_compare::check_resamples(resamples)
                .map_err(|error| CliError::Usage(format!("--resamples {resamples}: {error}")))?;
            settings.resamples = resamples;
        }
        if settings.test == Test::BootstrapKeyed
            && settings.bootstrap == BootstrapMethod::Multinomial
        {
            return Err(CliError::Usage(format!(
                "--bootstrap multinomial with --test bootstrap-keyed: {}",
                rankeval::compare::KEYED_BOOTSTRAP_VARIANT
            )));
        }
        if let Some(seed) = self.seed {
            settings.seed = seed;
        }
        if let Some(alpha) = self.alpha {
            if !(alpha > 0.0 && alpha <= 1.0) {
                return Err(CliError::Usage(format!(
                    "--alpha {alpha}: must be in (0, 1], e.g. 0.05"
                )));
            }
            settings.alpha = alpha;
        }
        if let Some(level) = self.confidence {
            if !(level > 0.0 && level < 1.0) {
                return Err(CliError::Usage(format!(
                    "--confidence {level}: must be strictly between 0 and 1, e.g. 0.95"
                )));
            }
            settings.level = level;
        }
        if matches!(settings.test, Test::Bootstrap | Test::BootstrapKeyed) {
            rankeval_compare::check_percentile_resamples(settings.resamples, settings.level)
                .map_err(|error| {
                    CliError::Usage(format!("--resamples {}: {error}", settings.resamples))
                })?;
        }
        settings.validate().map_err(|error| match error {
            CompareRunError::Settings(reason) => CliError::Usage(reason),
            other => CliError::Usage(other.to_string()),
        })?;
        let run_names: Vec<&str> = run_names.iter().map(String::as_str).collect();
        let baseline = match self.baseline {
            None => None,
            Some(name) if run_names.contains(&name.as_str()) => {
                if self.baseline_run.is_some() {
                    return Err(CliError::Usage(format!(
                        "--baseline-run: `{name}` is a run of this evaluation, not a results file"
                    )));
                }
                Some(BaselineRef::Run(name))
            }
            Some(file) => {
                let path = PathBuf::from(&file);
                // A directory is a per-query Parquet table's part files.
                if let Some(problem) = input_problem(&path).filter(|_| !path.is_dir()) {
                    return Err(CliError::Usage(format!(
                        "--baseline {file}: no run has that name (the runs are {}), and as a results file: {problem}",
                        run_names
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
                Some(BaselineRef::Results {
                    path,
                    run: self.baseline_run,
                })
            }
        };
        let label = match &baseline {
            None => None,
            Some(BaselineRef::Run(name)) => Some(name.as_str()),
            Some(BaselineRef::Results { .. }) => Some("\u{0}"),
        };
        let metric_refs: Vec<&str> = metric_names.iter().map(String::as_str).collect();
        let mut gates = Vec::with_capacity(self.gates.len());
        for text in &self.gates {
            let spec = parse_gate(text, settings.alpha, |metric| {
                registry::parse_metric(metric)
                    .map(|m| match all_judged_only {
                        true => judged_only(m).name(),
                        false => m.name(),
                    })
                    .map_err(|e| rankeval::config::plugin_message(&e))
            })
            .map_err(|reason| CliError::Usage(format!("--gate {text}: {reason}")))?;
            check_gates(std::slice::from_ref(&spec), &run_names, &metric_refs, label).map_err(
                |error| {
                    let reason = match error {
                        CompareRunError::Gate { reason, .. } => reason,
                        other => other.to_string(),
                    };
                    CliError::Usage(format!("--gate {text}: {reason}"))
                },
            )?;
            gates.push(spec);
        }
        Ok(Some(ComparisonPlan {
            baseline,
            settings,
            gates,
        }))
    }
}

/// The inputs of corpus metrics (see docs/corpus-metrics.md).
#[derive(Debug, Args)]
#[command(next_help_heading = "Corpus metric inputs (coverage, gini, novelty, ild...)")]
struct CorpusArgs {
    /// The catalog: one item id per line (plain or gzip). Needed by
    /// catalog_coverage and gini.
    #[arg(long, value_name = "FILE")]
    catalog: Option<PathBuf>,
    /// Training interactions: `user, item` pairs in any qrels format (CSV
    /// `user,item`, TREC qrels, Parquet, ...; grades are not used). Needed
    /// by avg_popularity, novelty and long_tail_share.
    #[arg(long, alias = "training", value_name = "FILE")]
    train: Option<PathBuf>,
    /// Read the training interactions as this format (over --input-format).
    #[arg(long, value_enum, value_name = "FORMAT")]
    train_format: Option<InputFormatArg>,
    /// The training interactions' own column settings, as --qrels-columns.
    #[arg(long, value_name = "KEY=VALUE,...")]
    train_columns: Option<String>,
    /// Item features or embeddings: a CSV (TSV for a .tsv name) with a
    /// header, the item id first, then one number per column. Needed by
    /// ild.
    #[arg(long, value_name = "FILE")]
    item_features: Option<PathBuf>,
}

/// Column names of CSV/TSV, Parquet and Arrow inputs, and the CSV delimiter.
#[derive(Debug, Args)]
#[command(next_help_heading = "Columns and keys (CSV, JSON, Parquet, Arrow input)")]
pub(super) struct CsvArgs {
    /// Column with the query (user) id; in JSON Lines with one query per
    /// line, the key of the query (there `query` unless set).
    #[arg(
        id = "csv_query",
        long = "csv-query",
        value_name = "COLUMN",
        default_value = "user"
    )]
    query: String,
    /// Column with the document (item) id.
    #[arg(
        id = "csv_doc",
        long = "csv-doc",
        value_name = "COLUMN",
        default_value = "item"
    )]
    doc: String,
    /// Column with a run's scores (higher is better).
    #[arg(
        id = "csv_score",
        long = "csv-score",
        value_name = "COLUMN",
        default_value = "score"
    )]
    score: String,
    /// Column with a run's ranks (1 is best), used when there is no score column.
    #[arg(
        id = "csv_rank",
        long = "csv-rank",
        value_name = "COLUMN",
        default_value = "rank"
    )]
    rank: String,
    /// Column with the grades of ground truth (grade 1 when the column is absent).
    #[arg(
        id = "csv_grade",
        long = "csv-grade",
        value_name = "COLUMN",
        default_value = "grade"
    )]
    grade: String,
    /// Field delimiter: one character, or `tab` [default: tab for .tsv, else comma].
    #[arg(id = "csv_delimiter", long = "csv-delimiter", value_name = "CHAR")]
    delimiter: Option<String>,
    /// JSON Lines with one query per line: the key of the ranked list.
    #[arg(
        id = "json_predicted",
        long = "json-predicted",
        value_name = "KEY",
        default_value = "predicted"
    )]
    predicted: String,
    /// JSON Lines with one query per line: the key of the list's scores.
    #[arg(
        id = "json_scores",
        long = "json-scores",
        value_name = "KEY",
        default_value = "scores"
    )]
    scores: String,
    /// JSON Lines with one query per line: the key of the judgements.
    #[arg(
        id = "json_relevant",
        long = "json-relevant",
        value_name = "KEY",
        default_value = "relevant"
    )]
    relevant: String,
}

impl CsvArgs {
    pub(super) fn options(&self) -> Result<CsvOptions, CliError> {
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
            predicted: self.predicted.clone(),
            scores: self.scores.clone(),
            relevant: self.relevant.clone(),
        };
        options
            .check()
            .map_err(|reason| CliError::Usage(format!("--csv-delimiter: {reason}")))?;
        Ok(options)
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum MissingArg {
    /// Leave the query out (trec_eval's default).
    Skip,
    /// Score it 0 on an empty ranking (trec_eval -c).
    Zero,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum DuplicatesArg {
    /// Refuse the run, naming both lines.
    Error,
    /// Keep the best-ranked occurrence (highest score; for a list given
    /// ranked, the first given), not the first line.
    First,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum TiesArg {
    /// By document id, descending in byte order (trec_eval).
    Docid,
    /// In the run's order (its lines, or the order given).
    Input,
    /// The expected value over every order of each group of ties.
    Average,
}

impl TiesArg {
    /// The treatment of ties this value names.
    pub(super) fn ties(self) -> Ties {
        match self {
            TiesArg::Docid => Ties::Docid,
            TiesArg::Input => Ties::Input,
            TiesArg::Average => Ties::Average,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum InputFormatArg {
    /// TREC qrels and runs.
    Trec,
    /// JSON Lines: one query per line, one row per line, or a dict of
    /// dicts, told by the first line.
    Jsonl,
    /// JSON Lines with one row per line and document, read like CSV.
    JsonlRows,
    /// One JSON dict of dicts: query -> document -> score or grade.
    Json,
    /// CSV or TSV with a header line.
    Csv,
    /// Parquet, a long table or list columns.
    Parquet,
    /// Arrow IPC (Feather v2 file, or stream).
    Arrow,
    /// MS MARCO's headerless TSV: runs `qid<TAB>pid<TAB>rank`, qrels
    /// `qid 0 pid grade`.
    Msmarco,
}

impl EvalArgs {
    /// Builds the experiment, checking every flag before any data is read;
    /// returns it with the output flags.
    pub(super) fn into_experiment(mut self) -> Result<(Experiment, OutputArgs), CliError> {
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
        let inputs = self.inputs.settings(&self.csv)?;
        let train_columns = with_columns(
            &inputs.csv,
            self.corpus.train_columns.as_deref(),
            "--train-columns",
        )?;
        let (given_names, run_paths): (Vec<Option<String>>, Vec<PathBuf>) =
            self.runs.iter().map(|run| split_named(run)).unzip();
        let from_stdin = self
            .qrels
            .iter()
            .chain(&run_paths)
            .filter(|path| is_stdin(path))
            .count();
        if from_stdin > 1 {
            return Err(CliError::Usage(
                "`-` (standard input) is given to more than one input; it can be read once"
                    .to_owned(),
            ));
        }
        self.qrels = self.qrels.map(|path| standard_input(&path));
        let run_paths: Vec<PathBuf> = run_paths.iter().map(|path| standard_input(path)).collect();
        let runs_given = std::mem::replace(&mut self.runs, run_paths);
        let corpus_files = [
            &self.corpus.catalog,
            &self.corpus.train,
            &self.corpus.item_features,
        ];
        for path in self
            .qrels
            .iter()
            .chain(&self.runs)
            .chain(corpus_files.into_iter().flatten())
        {
            if let Some(problem) = input_problem(path) {
                return Err(CliError::Usage(format!("{}: {problem}", path.display())));
            }
        }
        // One identity per path, looked up in a map: linear in the runs.
        if let Some((first, path)) =
            rankeval::files::first_repeat(self.runs.iter().map(PathBuf::as_path))
        {
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
        let names = names_of_runs(&self.runs, given_names, &runs_given)?;
        let mut runs: Vec<NamedRun> = names
            .into_iter()
            .zip(&self.runs)
            .map(|(name, path)| NamedRun {
                name,
                input: inputs.run(path),
            })
            .collect();
        let mut systems = Vec::with_capacity(self.systems.len());
        for (index, given) in self.systems.iter().enumerate() {
            let usage = |reason: String| CliError::Usage(format!("--system {given}: {reason}"));
            let Some((name, files)) = given.split_once('=') else {
                return Err(usage(
                    "expected NAME=FILES (e.g. --system \"v2=runs/v2-seed*.trec\")".to_owned(),
                ));
            };
            let name = name.trim();
            if name.is_empty() || name.contains('/') || name.chars().any(char::is_control) {
                return Err(usage(
                    "a system name cannot be empty nor hold `/` or a control character".to_owned(),
                ));
            }
            if let Some(first) = systems.iter().position(|s: &SystemSpec| s.name == name) {
                return Err(usage(format!(
                    "the system name `{name}` is given twice (system {} is --system {}, this is \
                     system {}): give each system a name of its own",
                    first + 1,
                    self.systems[first],
                    index + 1
                )));
            }
            let patterns: Vec<String> = files
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(str::to_owned)
                .collect();
            let files =
                rankeval::experiment::system_files(name, std::path::Path::new(""), &patterns)
                    .map_err(usage)?;
            let stems = rankeval::experiment::run_names(&files);
            let mut members = Vec::with_capacity(files.len());
            for (file, stem) in files.iter().zip(stems) {
                let run = format!("{name}/{stem}");
                if runs.iter().any(|r| r.name == run) {
                    return Err(usage(format!("two runs are named `{run}`")));
                }
                runs.push(NamedRun {
                    name: run.clone(),
                    input: inputs.run(file),
                });
                members.push(run);
            }
            systems.push(SystemSpec {
                name: name.to_owned(),
                runs: members,
            });
        }
        let metric_specs: Vec<String> = if self.metrics.is_empty() {
            DEFAULT_METRICS.iter().map(|s| (*s).to_owned()).collect()
        } else {
            self.metrics
        };
        // Every bad -m and -a is reported at once, in the order given.
        let mut bad: Vec<CliError> = Vec::new();
        let mut requested: Vec<(String, RequestedMetric)> = Vec::with_capacity(metric_specs.len());
        for spec in metric_specs {
            match parse_requested(&spec) {
                Ok(metric) => requested.push((spec, metric)),
                Err(source) => bad.push(CliError::Plugin {
                    flag: "-m",
                    value: spec,
                    source: Box::new(source),
                }),
            }
        }
        let aggregators = aggregators_of(self.aggregators, &mut bad);
        if !bad.is_empty() {
            return Err(CliError::all(bad));
        }
        let corpus_inputs = CorpusSources {
            catalog: self.corpus.catalog.clone(),
            training: self
                .corpus
                .train
                .as_ref()
                .map(|path| inputs.input(path, self.corpus.train_format, &train_columns)),
            features: self.corpus.item_features.clone(),
        };
        for (spec, metric) in &requested {
            if let RequestedMetric::Corpus(metric) = metric
                && let Some(missing) = corpus_inputs.missing_for(metric.as_ref())
            {
                return Err(CliError::Usage(format!(
                    "-m {spec}: {} needs {} FILE: {}",
                    metric.name(),
                    missing.flag(),
                    missing.what()
                )));
            }
        }
        let notes = unique_notes(requested.iter().filter_map(|(spec, metric)| match metric {
            RequestedMetric::Query(metric) => metric_note(spec, metric.as_ref()),
            RequestedMetric::Corpus(_) => None,
        }));
        let (metrics, corpus_metrics) = split_requested(requested.into_iter().map(|(_, m)| m));
        // Corpus metrics alone need no judgements.
        if self.qrels.is_none()
            && !metrics.is_empty()
            && let Some(run) = runs.iter().find(|r| r.input.format() != Format::Jsonl)
        {
            return Err(CliError::Usage(format!(
                "--qrels is required: {} is not JSON Lines, so it holds no judgements",
                run.input.name()
            )));
        }
        let missing = match self.missing {
            MissingArg::Skip => Missing::Skip,
            MissingArg::Zero => Missing::Zero,
        };
        let metrics = if self.judged_only {
            unique_by_name(metrics.into_iter().map(judged_only).collect())
        } else {
            unique_by_name(metrics)
        };
        let metrics = if self.bounds {
            with_bounds(metrics).map_err(|e| {
                CliError::Usage(format!(
                    "--bounds: {}",
                    rankeval::config::plugin_message(&e)
                ))
            })?
        } else {
            metrics
        };
        let ties = self.ties.ties();
        check_ties(&metrics, ties)
            .map_err(|reason| CliError::Usage(format!("--ties {ties}: {reason}")))?;
        let score_threshold = match self.score_threshold {
            None => None,
            Some(value) => {
                let usage = |reason: String| {
                    CliError::Usage(format!("--score-threshold {value}: {reason}"))
                };
                let threshold = ScoreThreshold::try_from(value).map_err(usage)?;
                if let Some(run) = runs.iter().find(|r| !has_scores(r.input.format())) {
                    return Err(usage(unscored_run(&run.name)));
                }
                Some(threshold)
            }
        };
        let run_names: Vec<String> = runs.iter().map(|r| r.name.clone()).collect();
        let metric_names: Vec<String> = metrics.iter().map(|m| m.name()).collect();
        let comparison = self
            .compare
            .plan(&run_names, &metric_names, missing, self.judged_only)?;
        if self.bounds && comparison.is_some() {
            return Err(CliError::Usage(BOUNDS_WITH_COMPARISON.to_owned()));
        }
        if self.per_conversation {
            match (&self.turns, &self.groups) {
                (None, None) => {
                    return Err(CliError::Usage(
                        "--per-conversation needs --turns SEP (conversations from the query ids) \
                         or --groups FILE (a file with a `conversation` column)"
                            .to_owned(),
                    ));
                }
                (Some(_), Some(_)) => {
                    return Err(CliError::Usage(
                        "--per-conversation with --turns and --groups: the groups name queries \
                         (turns), and the unit is then the conversation; give the conversations \
                         by one of them"
                            .to_owned(),
                    ));
                }
                _ => {}
            }
        }
        let experiment = Experiment {
            qrels: self.qrels.as_ref().map(|path| inputs.qrels(path)),
            runs,
            metrics,
            aggregators: unique_by_name(aggregators),
            corpus_metrics: unique_by_name(corpus_metrics),
            corpus_inputs,
            groups: self.groups.clone(),
            turns: match &self.turns {
                Some(sep) if sep.is_empty() => {
                    return Err(CliError::Usage(
                        "--turns: the separator is empty (e.g. `_` for query ids like 31_4)"
                            .to_owned(),
                    ));
                }
                other => other.clone(),
            },
            per_conversation: self.per_conversation,
            systems,
            options: Options {
                missing,
                level,
                ties,
                score_threshold,
                allow_empty_run: self.allow_empty_run,
            },
            read: ReadOptions {
                duplicates: match self.duplicates {
                    DuplicatesArg::Error => Duplicates::Error,
                    DuplicatesArg::First => Duplicates::First,
                },
                ties,
            },
            comparison,
            notes,
        };
        Ok((experiment, self.output))
    }
}

/// The `-a` aggregators (`mean` when none is given), each spelling that
/// does not parse added to `bad`; not yet deduplicated.
pub(super) fn aggregators_of(
    specs: Vec<String>,
    bad: &mut Vec<CliError>,
) -> Vec<Box<dyn Aggregator>> {
    let specs = if specs.is_empty() {
        vec!["mean".to_owned()]
    } else {
        specs
    };
    let mut aggregators: Vec<Box<dyn Aggregator>> = Vec::with_capacity(specs.len());
    for spec in specs {
        match registry::parse_aggregator(&spec) {
            Ok(aggregator) => aggregators.push(aggregator),
            Err(source) => bad.push(CliError::Plugin {
                flag: "-a",
                value: spec,
                source: Box::new(source),
            }),
        }
    }
    aggregators
}

impl InputFormatArg {
    fn format(self) -> Format {
        match self {
            InputFormatArg::Trec => Format::Trec,
            InputFormatArg::Jsonl => Format::Jsonl,
            InputFormatArg::JsonlRows => Format::JsonlRows,
            InputFormatArg::Json => Format::Json,
            InputFormatArg::Csv => Format::Csv,
            InputFormatArg::Parquet => Format::Parquet,
            InputFormatArg::Arrow => Format::Arrow,
            InputFormatArg::Msmarco => Format::Msmarco,
        }
    }
}

/// `base` with the settings of `flag`'s value `key=value,...` over it.
pub(super) fn with_columns(
    base: &CsvOptions,
    given: Option<&str>,
    flag: &str,
) -> Result<CsvOptions, CliError> {
    let mut columns = base.clone();
    for setting in given.into_iter().flat_map(|g| g.split(',')) {
        let Some((key, value)) = setting.split_once('=') else {
            return Err(CliError::Usage(format!(
                "{flag} {}: `{setting}` is not `key=value` (keys: {})",
                given.unwrap_or_default(),
                CsvOptions::KEYS.join(", ")
            )));
        };
        columns
            .set(key.trim(), value.trim())
            .map_err(|reason| CliError::Usage(format!("{flag}: {reason}")))?;
    }
    Ok(columns)
}

/// A `--run` value as its name (if given as `NAME=FILE`) and file: a value
/// that is an existing path is a file; else `NAME=FILE` where FILE exists.
fn split_named(run: &Path) -> (Option<String>, PathBuf) {
    if run.exists() {
        return (None, run.to_owned());
    }
    match run.to_str().and_then(|text| text.split_once('=')) {
        Some((name, file))
            if !name.is_empty() && (Path::new(file).exists() || is_stdin(Path::new(file))) =>
        {
            (Some(name.to_owned()), PathBuf::from(file))
        }
        _ => (None, run.to_owned()),
    }
}

/// Whether `path` is `-`, standard input.
fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// `path`, with `-` for standard input as the file that reads it (its name
/// in reports is then `stdin`); a pipe or terminal on standard input is
/// read as any other pipe (streamed, spilled to a temporary file if it
/// must be read twice).
fn standard_input(path: &Path) -> PathBuf {
    if is_stdin(path) {
        PathBuf::from("/dev/stdin")
    } else {
        path.to_owned()
    }
}

/// The report name of each run: the one given, else from its file name;
/// names must be unique and printable in every report layout.
fn names_of_runs(
    paths: &[PathBuf],
    given: Vec<Option<String>>,
    as_given: &[PathBuf],
) -> Result<Vec<String>, CliError> {
    let defaults = run_names(paths);
    let mut names: Vec<String> = Vec::with_capacity(paths.len());
    let mut seen = std::collections::HashMap::new();
    for ((default, given), flag) in defaults.into_iter().zip(given).zip(as_given) {
        let name = match given {
            Some(name) => {
                if name.chars().any(|c| c.is_control()) || name.trim().is_empty() {
                    return Err(CliError::Usage(format!(
                        "--run {}: a run name cannot be blank nor hold a tab, newline or other \
                         control character",
                        flag.display()
                    )));
                }
                name
            }
            None => default,
        };
        if let Some(first) = seen.insert(name.clone(), flag) {
            return Err(CliError::Usage(format!(
                "--run {} and --run {} are both named `{name}`; name them with NAME=FILE",
                first.display(),
                flag.display()
            )));
        }
        names.push(name);
    }
    Ok(names)
}
