//! `rankeval eval`: an experiment from command-line flags.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use rankeval_core::registry;
use rankeval_core::{Aggregator, Duplicates, Ties, parse_requested_each};

use super::{CliError, OutputArgs};
use crate::run_names::{is_stdin, standard_input};
use rankeval::compare::Family;
use rankeval::engine::Missing;
use rankeval::experiment::Experiment;
use rankeval::naming::split_named;
use rankeval::read::{CsvOptions, Format, Input};
use rankeval::spec::{
    BaselineRequest, BenchmarkRequest, CompareRequest, CorpusRequest, ExperimentSpec, GateRequest,
    Given, IntervalKind, MetricRequest, Origin, RunRequest, SpecError, SystemRequest, resolve,
};
use rankeval_stats::{BootstrapMethod, Correction, Test};

/// Arguments of `rankeval eval`.
#[derive(Debug, Args)]
pub(super) struct EvalArgs {
    /// Qrels file (TREC `query iteration document grade`, JSON Lines with
    /// `relevant`, CSV `user,item[,grade]`, or a Parquet/Arrow table of
    /// those columns). Optional when every run is JSON Lines with `relevant`.
    /// `-` reads standard input. `irds:<id>` reads the qrels of an
    /// ir_datasets id from ir_datasets' cache (`rankeval benchmarks` lists
    /// the ids; docs/benchmarks.md); `irds:beir/cqadupstack` reads its 12
    /// forums' qrels, and each --run is then a run per forum.
    #[arg(long, value_name = "FILE")]
    qrels: Option<PathBuf>,
    /// Subtopic judgements for the diversity metrics (alpha_ndcg, err_ia,
    /// nrbp, p_ia, strec, map_ia...): ndeval's lines `query subtopic doc
    /// grade`, or a CSV/TSV, JSON Lines, Parquet or Arrow table with those
    /// columns. Without --qrels, each document is judged with its highest
    /// grade over the subtopics.
    #[arg(long, value_name = "FILE")]
    subtopic_qrels: Option<PathBuf>,
    /// Document groups for the group-fairness metrics (awrf, trec_fair):
    /// lines `doc group [weight]` (weight 1 when left out), or a CSV/TSV,
    /// JSON Lines, Parquet or Arrow table with columns doc, group and
    /// optionally weight. A document may be in several groups.
    #[arg(long, value_name = "FILE")]
    doc_groups: Option<PathBuf>,
    /// Each query's target distribution over the document groups, for
    /// awrf(target=given) and trec_fair(target=given): a CSV/TSV, JSON
    /// Lines, Parquet or Arrow table with columns query, group and share
    /// (shares normalised per query; every judged query needs a target).
    #[arg(long, value_name = "FILE")]
    group_targets: Option<PathBuf>,
    /// Every run is a sampled run, several rankings per query (a
    /// stochastic ranking policy): the TREC run's second column (Q0) names
    /// the sample, as expeval reads it (`query sample doc rank score tag`);
    /// a CSV/TSV, Parquet or Arrow run has a `sample` column. Expected
    /// exposure (ee_d, ee_r, ee_l) sums each document's exposure over the
    /// samples; every other metric is its mean over them.
    #[arg(long)]
    samples: bool,
    /// Training label frequencies for the propensity-scored metrics (psp,
    /// psndcg): a table with columns `label` and `count` (training
    /// instances each label is relevant to; a label not listed has count
    /// 0): CSV/TSV with a header, JSON Lines, Parquet or Arrow. Needs
    /// --train-instances.
    #[arg(long, value_name = "FILE", conflicts_with = "inverse_propensities")]
    label_counts: Option<PathBuf>,
    /// The number of training instances N that --label-counts counts out of
    /// (the propensity model's N).
    #[arg(long, value_name = "N")]
    train_instances: Option<u64>,
    /// Inverse propensities for psp and psndcg, computed elsewhere: a
    /// table with columns `label` and `inverse_propensity` (CSV/TSV with a
    /// header, JSON Lines, Parquet or Arrow; every judged document needs
    /// one).
    #[arg(long, value_name = "FILE")]
    inverse_propensities: Option<PathBuf>,
    /// With --qrels irds:<id>: when ir_datasets' cache lacks the qrels, run
    /// ir_datasets (the Python package) to fill it.
    #[arg(long)]
    fetch: bool,
    /// Drop a retrieved document whose id is its query's id before judging
    /// (BEIR's convention, beir-cellar/beir PR #91); the count is reported.
    #[arg(long)]
    drop_identical_ids: bool,
    /// Evaluate the benchmark's official measures under its conventions,
    /// each reported under the benchmark's name for it: the benchmark of
    /// --qrels irds:<id>, or the ID given (with a qrels file of your own).
    /// `rankeval benchmarks` lists them; -m adds measures of your own.
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "")]
    official: Option<String>,
    /// Run file (TREC `query Q0 document rank score tag`, JSON Lines, CSV
    /// `user,item,score` / `user,item,rank`, or Parquet/Arrow with those
    /// columns or list columns `user, items, scores`); repeat for several
    /// runs. Text formats plain or gzip. `NAME=FILE` names the run in
    /// reports (when no file is called `NAME=FILE`); `-` reads standard
    /// input (named `stdin`; its format from --run-format, else TREC).
    /// With --qrels irds:beir/cqadupstack, a run per forum: a pattern with
    /// {forum} (`runs/bm25-{forum}.trec`) or a folder of files named by
    /// forum (`runs/bm25/android.trec`...); the report's value is the mean
    /// of the forums' means, as BEIR reports it.
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
    /// `ndcg@1,3,5` is one metric per cutoff (commas never separate
    /// metrics); ir_measures' names (`nDCG@10`, `"RR(rel=2)@10"`, `NumRet`)
    /// are read as ir_measures defines them (docs/metrics.md).
    /// Default: ap, rr, p@10, recall@100, ndcg@10. `rankeval metrics` lists
    /// them all.
    #[arg(short = 'm', long = "metric", value_name = "METRIC")]
    metrics: Vec<String>,
    /// Aggregator over queries (mean, median, ...); repeat for several.
    /// Default: mean.
    #[arg(short = 'a', long = "aggregate", value_name = "AGGREGATOR")]
    aggregators: Vec<String>,
    /// Judged queries missing from a run: left out (skip) or scored 0 (zero,
    /// like trec_eval -c) [default: skip; with --official, the benchmark's].
    #[arg(long, value_enum)]
    missing: Option<MissingArg>,
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
    /// The report's title: the HTML page's title and heading [default:
    /// rankeval report].
    #[arg(long, value_name = "TEXT")]
    title: Option<String>,
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
    #[command(flatten)]
    record: crate::history::RecordArgs,
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

    /// The format runs are read as, when given (`--run-format`, else
    /// `--input-format`).
    fn run_format(&self) -> Option<Format> {
        self.run_format
            .or(self.input_format)
            .map(InputFormatArg::format)
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
    /// With --baseline db:DB (a results history's last accepted record,
    /// or db:DB#ID): compare even when the record's judgements or metric
    /// definitions differ from this evaluation's (else refused); the report
    /// says so.
    #[arg(long, requires = "baseline")]
    allow_changed_qrels: bool,
    /// With --baseline db:DB: compare even when the options that change
    /// numbers (--rel, --ties, --missing, --duplicates, --judged-only,
    /// --score-threshold, --turns) differ from those the record was
    /// evaluated with (else refused, naming each); the report says so.
    #[arg(long, requires = "baseline")]
    allow_changed_options: bool,
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
    /// The comparison flags as the spec's comparison (checked by
    /// `rankeval::spec::resolve_comparison`).
    pub(super) fn request(self) -> CompareRequest {
        fn given<T>(value: T, flag: &str, shown: impl std::fmt::Display) -> Given<T> {
            Given::new(value, Origin::flag(flag, shown))
        }
        CompareRequest {
            allow_changed_qrels: self
                .allow_changed_qrels
                .then(|| given(true, "--allow-changed-qrels", "")),
            allow_changed_options: self
                .allow_changed_options
                .then(|| given(true, "--allow-changed-options", "")),
            table: None,
            baseline: self.baseline.map(|text| {
                Given::new(
                    BaselineRequest::RunOrFile {
                        text: text.clone(),
                        run: self
                            .baseline_run
                            .map(|run| Given::new(run, Origin::bare_flag("--baseline-run"))),
                    },
                    Origin::flag("--baseline", &text),
                )
            }),
            all_pairs: self
                .all_pairs
                .then(|| Given::new(true, Origin::bare_flag("--all-pairs"))),
            test: self.test.map(|test| {
                let value = match test {
                    TestArg::T => Test::T,
                    TestArg::Randomization => Test::Randomization,
                    TestArg::Bootstrap => Test::Bootstrap,
                    TestArg::Wilcoxon => Test::Wilcoxon,
                    TestArg::RandomizationKeyed => Test::RandomizationKeyed,
                    TestArg::BootstrapKeyed => Test::BootstrapKeyed,
                };
                Given::new(value, Origin::bare_flag("--test"))
            }),
            bootstrap: self.bootstrap.map(|bootstrap| {
                let value = match bootstrap {
                    BootstrapArg::Auto => BootstrapMethod::Auto,
                    BootstrapArg::Multinomial => BootstrapMethod::Multinomial,
                    BootstrapArg::DoubleOrNothing => BootstrapMethod::DoubleOrNothing,
                };
                Given::new(value, Origin::bare_flag("--bootstrap"))
            }),
            correction: self.correction.map(|correction| {
                let value = match correction {
                    CorrectionArg::Holm => Correction::Holm,
                    CorrectionArg::Bonferroni => Correction::Bonferroni,
                    CorrectionArg::BenjaminiHochberg => Correction::BenjaminiHochberg,
                    CorrectionArg::None => Correction::None,
                };
                Given::new(value, Origin::bare_flag("--correction"))
            }),
            family: self.family.map(|family| {
                let value = match family {
                    FamilyArg::RunsXMetrics => Family::RunsXMetrics,
                    FamilyArg::PerMetric => Family::PerMetric,
                    FamilyArg::PerRun => Family::PerRun,
                };
                Given::new(value, Origin::bare_flag("--family"))
            }),
            groups_in_family: self
                .groups_in_family
                .then(|| Given::new(true, Origin::bare_flag("--groups-in-family"))),
            interval: self.interval.map(|interval| {
                let (value, shown) = match interval {
                    IntervalArg::Test => (IntervalKind::Test, "test"),
                    IntervalArg::Jackknife => (IntervalKind::Jackknife, "jackknife"),
                };
                given(value, "--interval", shown)
            }),
            jackknife_groups: self
                .jackknife_groups
                .map(|g| given(i128::from(g), "--jackknife-groups", g)),
            resamples: self
                .resamples
                .map(|r| given(i128::from(r), "--resamples", r)),
            seed: self
                .seed
                .map(|seed| given(i128::from(seed), "--seed", seed)),
            alpha: self.alpha.map(|alpha| given(alpha, "--alpha", alpha)),
            confidence: self
                .confidence
                .map(|level| given(level, "--confidence", level)),
            gates: self
                .gates
                .into_iter()
                .map(|text| {
                    let from = Origin::flag("--gate", &text);
                    GateRequest::Text(Given::new(text, from))
                })
                .collect(),
        }
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
    /// returns it with the output flags. The flags fill one
    /// [`ExperimentSpec`], which `rankeval::spec::resolve` checks as it
    /// checks a TOML file's.
    pub(super) fn into_experiment(self) -> Result<(Experiment, OutputArgs), CliError> {
        let (spec, output) = self.spec()?;
        let experiment = resolve(spec).map_err(spec_error)?;
        Ok((experiment, output))
    }

    /// The flags as a spec: each value parsed (a flag's syntax is the
    /// command line's to read), every rule left to `resolve`.
    fn spec(self) -> Result<(ExperimentSpec, OutputArgs), CliError> {
        let inputs = self.inputs.settings(&self.csv)?;
        let train_columns = with_columns(
            &inputs.csv,
            self.corpus.train_columns.as_deref(),
            "--train-columns",
        )?;
        let from_stdin = self
            .qrels
            .iter()
            .chain(&self.runs)
            .filter(|path| is_stdin(&split_named(path).path))
            .count();
        if from_stdin > 1 {
            return Err(CliError::Usage(
                "`-` (standard input) is given to more than one input; it can be read once"
                    .to_owned(),
            ));
        }
        let runs = crate::run_names::given_runs(&self.runs)
            .into_iter()
            .zip(&self.runs)
            .map(|(given, text)| RunRequest {
                input: inputs.run(&given.path),
                from: Origin::flag("--run", text.display()),
                name: given
                    .name
                    .map(|name| Given::new(name, Origin::flag("--run", text.display()))),
                written: given.path,
            })
            .collect();
        let mut systems = Vec::with_capacity(self.systems.len());
        for given in &self.systems {
            let from = Origin::flag("--system", given);
            let Some((name, files)) = given.split_once('=') else {
                return Err(CliError::Usage(format!(
                    "{from}: expected NAME=FILES (e.g. --system \"v2=runs/v2-seed*.trec\")"
                )));
            };
            let patterns: Vec<String> = files
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(str::to_owned)
                .collect();
            systems.push(SystemRequest {
                name: Given::new(name.to_owned(), from.clone()),
                patterns: Given::new(patterns, from),
                base: PathBuf::new(),
                columns: inputs.run_columns.clone(),
                format: inputs.run_format(),
            });
        }
        // Every bad -m and -a is reported at once, in the order given.
        let mut bad: Vec<CliError> = Vec::new();
        let metrics = if self.metrics.is_empty() {
            None
        } else {
            let mut requested = Vec::with_capacity(self.metrics.len());
            for given in self.metrics {
                // `ndcg@1,3` is one metric per cutoff, each typed as itself.
                for (spec, metric) in parse_requested_each(&given) {
                    match metric {
                        Ok(metric) => requested.push(MetricRequest {
                            // Each cutoff of a list as itself, as its errors
                            // name it: a list of n cutoffs is not copied n times.
                            from: Origin::flag("-m", &spec),
                            typed: Some(spec),
                            metric,
                        }),
                        Err(source) => bad.push(CliError::Plugin {
                            flag: "-m",
                            value: spec,
                            source: Box::new(source),
                        }),
                    }
                }
            }
            Some(Given::new(requested, Origin::bare_flag("-m")))
        };
        let aggregators = aggregators_of(self.aggregators, &mut bad);
        if !bad.is_empty() {
            return Err(CliError::all(bad));
        }
        let flag = |name: &str| Origin::bare_flag(name);
        let spec = ExperimentSpec {
            whole: flag("--run"),
            qrels: self.qrels.as_ref().map(|path| {
                Given::new(
                    inputs.qrels(&standard_input(path)),
                    Origin::flag("--qrels", path.display()),
                )
            }),
            runs,
            systems,
            metrics,
            aggregators: Some(Given::new(aggregators, flag("-a"))),
            corpus: CorpusRequest {
                catalog: self
                    .corpus
                    .catalog
                    .clone()
                    .map(|p| Given::new(p, flag("--catalog"))),
                training: self.corpus.train.as_ref().map(|path| {
                    Given::new(
                        inputs.input(path, self.corpus.train_format, &train_columns),
                        flag("--train"),
                    )
                }),
                features: self
                    .corpus
                    .item_features
                    .clone()
                    .map(|p| Given::new(p, flag("--item-features"))),
                subtopics: self
                    .subtopic_qrels
                    .clone()
                    .map(|p| Given::new(p, flag("--subtopic-qrels"))),
                doc_groups: self
                    .doc_groups
                    .clone()
                    .map(|p| Given::new(p, flag("--doc-groups"))),
                group_targets: self
                    .group_targets
                    .clone()
                    .map(|p| Given::new(p, flag("--group-targets"))),
                label_counts: self.label_counts.clone().map(|p| {
                    let from = Origin::flag("--label-counts", p.display());
                    Given::new(p, from)
                }),
                train_instances: self
                    .train_instances
                    .map(|n| Given::new(n, Origin::flag("--train-instances", n))),
                inverse_propensities: self.inverse_propensities.clone().map(|p| {
                    let from = Origin::flag("--inverse-propensities", p.display());
                    Given::new(p, from)
                }),
            },
            groups: self.groups.map(|p| Given::new(p, flag("--groups"))),
            turns: self.turns.map(|sep| Given::new(sep, flag("--turns"))),
            per_conversation: self
                .per_conversation
                .then(|| Given::new(true, flag("--per-conversation"))),
            missing: self.missing.map(|missing| {
                Given::new(
                    match missing {
                        MissingArg::Skip => Missing::Skip,
                        MissingArg::Zero => Missing::Zero,
                    },
                    flag("--missing"),
                )
            }),
            rel: Some(Given::new(self.rel, Origin::flag("--rel", self.rel))),
            ties: Some(Given::new(
                self.ties.ties(),
                Origin::flag("--ties", self.ties.ties()),
            )),
            score_threshold: self
                .score_threshold
                .map(|value| Given::new(value, Origin::flag("--score-threshold", value))),
            judged_only: self
                .judged_only
                .then(|| Given::new(true, flag("--judged-only"))),
            bounds: self.bounds.then(|| Given::new(true, flag("--bounds"))),
            duplicates: Some(Given::new(
                match self.duplicates {
                    DuplicatesArg::Error => Duplicates::Error,
                    DuplicatesArg::First => Duplicates::First,
                },
                flag("--duplicates"),
            )),
            samples: self.samples.then(|| Given::new(true, flag("--samples"))),
            allow_empty_run: self
                .allow_empty_run
                .then(|| Given::new(true, flag("--allow-empty-run"))),
            compare: self.compare.request(),
            title: self
                .title
                .map(|t| Given::new(t.clone(), Origin::flag("--title", t))),
            record: self.record.request(),
            benchmark: BenchmarkRequest {
                fetch: self.fetch.then(|| Given::new(true, flag("--fetch"))),
                drop_identical_ids: self
                    .drop_identical_ids
                    .then(|| Given::new(true, flag("--drop-identical-ids"))),
                official: self.official.map(|id| match id.as_str() {
                    "" => Given::new(None, flag("--official")),
                    _ => Given::new(Some(id.clone()), Origin::flag("--official", &id)),
                }),
                qrels_benchmark: None,
            },
        };
        Ok((spec, self.output))
    }
}

/// A spec's error as the command line reports it (a usage error: exit
/// code 2).
pub(super) fn spec_error(error: SpecError) -> CliError {
    CliError::Usage(error.to_string())
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
