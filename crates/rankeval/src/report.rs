//! The report model: one plain struct holding everything an evaluation
//! produced, and the warnings it carries. The renderers (one per output
//! format) are the `rankeval-report` crate's; they read this model and
//! nothing here knows of them.
//!
//! The model always keeps every per-query value (the spec says they are
//! always available); whether a format prints them is a rendering option.

use std::fmt;

use rankeval_core::{Metric, RelevanceLevel, TrecEvalMeasure};
use serde::Serialize;

use crate::engine::Warning;
use crate::front::{Describe, FrontEnd};
use crate::read::QrelsNote;

/// Everything an evaluation of one or more runs produced.
#[derive(Clone, Debug)]
pub struct Report {
    /// The metrics, in the order of every `values` vector below.
    pub metrics: Vec<MetricColumn>,
    /// The aggregators' canonical names, in the order of `aggregates`.
    pub aggregators: Vec<String>,
    /// The corpus metrics' canonical names (one value per run each, not
    /// aggregated), in the order of every run's `corpus`.
    pub corpus: Vec<String>,
    /// One result per run, in the order given.
    pub runs: Vec<RunResult>,
    /// What the user should know, per run.
    pub warnings: Vec<RunWarning>,
}

/// A metric as reports show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetricColumn {
    /// The canonical name: the key in every format.
    pub name: String,
    /// Its trec_eval measure, for `--format trec`.
    pub trec: Option<TrecEvalMeasure>,
}

impl MetricColumn {
    /// The column of `metric`.
    pub fn of(metric: &dyn Metric) -> Self {
        Self {
            name: metric.name(),
            trec: metric.trec_eval(),
        }
    }
}

/// The results of one run.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// The run's name.
    pub name: String,
    /// The evaluated queries, in report order.
    pub queries: Vec<String>,
    /// `per_query[m][q]`: metric `m` on query `q`.
    pub per_query: Vec<Vec<f64>>,
    /// `aggregates[m][a]`: aggregator `a` of metric `m`.
    pub aggregates: Vec<Vec<f64>>,
    /// `corpus[c]`: corpus metric `c` over every list of the run.
    pub corpus: Vec<f64>,
}

/// A warning about one run, or about the whole experiment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunWarning {
    /// The run it is about; empty for a warning about the whole experiment
    /// (then printed without a run, and without `run` in JSON).
    pub run: String,
    /// What happened.
    pub warning: ReportWarning,
}

/// What a report warns about: the engine's warnings on which queries
/// counted, and those on how the inputs were used. In JSON, an object with
/// `kind` (snake_case) and the fields of the variant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ReportWarning {
    /// A JSON Lines run holds judgements of its own (`relevant`), which
    /// were not used because qrels were given.
    RunJudgementsIgnored {
        /// How many of the run's queries have judgements.
        count: usize,
        /// The qrels used instead, as named by the user.
        qrels: String,
    },
    /// A relevance level was set for the experiment (`--rel`, TOML `rel`),
    /// but no metric reads it: each uses grades as gains, ignores grades,
    /// or sets a `rel` of its own.
    LevelUnused {
        /// The level set.
        level: RelevanceLevel,
    },
    /// The qrels are a table of rows (CSV, JSON Lines rows, a long Parquet
    /// or Arrow table) without a grade column: every listed pair counts as
    /// relevant with grade 1.
    QrelsWithoutGrades {
        /// The qrels, as named by the user.
        qrels: String,
        /// The grade column looked for.
        grade: String,
        /// The columns the qrels have.
        columns: Vec<String>,
    },
    /// A catalog was given, but recommended items are not in it: coverage
    /// counts them (it may pass 1) and Gini adds them to the items.
    ItemsOutsideCatalog {
        /// How many distinct items.
        count: usize,
        /// The first few, in byte order.
        examples: Vec<String>,
    },
    /// Item features were given, but recommended items have none: their
    /// pairs are left out of intra-list diversity.
    ItemsWithoutFeatures {
        /// How many distinct items.
        count: usize,
        /// The first few, in byte order.
        examples: Vec<String>,
    },
    /// A corpus metric input was given but no metric reads it.
    CorpusInputUnused {
        /// The flag that gives it, e.g. `--train`.
        flag: &'static str,
        /// The TOML key that gives it, e.g. `training`.
        key: &'static str,
    },
    /// Which queries were evaluated, and which were not.
    #[serde(untagged)]
    Coverage(Warning),
}

impl ReportWarning {
    /// The warning for what reading the qrels called `qrels` noted about
    /// them (the command line's and the Python package's alike).
    pub fn of_qrels(qrels: &str, note: QrelsNote) -> Self {
        match note {
            QrelsNote::NoGradeColumn { grade, columns } => ReportWarning::QrelsWithoutGrades {
                qrels: qrels.to_owned(),
                grade,
                columns,
            },
        }
    }
}

impl From<Warning> for ReportWarning {
    fn from(warning: Warning) -> Self {
        ReportWarning::Coverage(warning)
    }
}

impl fmt::Display for ReportWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_for(f, FrontEnd::CommandLine)
    }
}

impl Describe for ReportWarning {
    fn write_for(&self, f: &mut dyn fmt::Write, front: FrontEnd) -> fmt::Result {
        match self {
            ReportWarning::RunJudgementsIgnored { count, qrels } => write!(
                f,
                "the run's own judgements (`relevant`, on {count} {}) were ignored: the qrels \
                 of {qrels} were used (to use the run's own, {})",
                if *count == 1 { "query" } else { "queries" },
                match front {
                    FrontEnd::CommandLine => "leave out --qrels; TOML: the `qrels` key",
                    FrontEnd::Python => "give None as the qrels",
                }
            ),
            ReportWarning::LevelUnused { level } => write!(
                f,
                "the relevance level {level} ({}) changes nothing: no metric \
                 reads it (nDCG, DCG, ERR and graded RBP use grades as gains, num_ret ignores \
                 grades, and a metric's own `rel` wins; see `rankeval metrics`)",
                front.option("rel", None)
            ),
            ReportWarning::QrelsWithoutGrades {
                qrels,
                grade,
                columns,
            } => write!(
                f,
                "the qrels of {qrels} have no `{grade}` column (columns: {}): every listed pair \
                 counts as relevant, with grade 1 (if a column holds the grades, name it with \
                 {})",
                columns.join(", "),
                front.option("grade", Some("--csv-grade"))
            ),
            ReportWarning::ItemsOutsideCatalog { count, examples } => write!(
                f,
                "{count} recommended {} not in the catalog (e.g. {}): catalog coverage counts \
                 {}, and the Gini index adds {} to the catalog's items",
                if *count == 1 { "item is" } else { "items are" },
                examples.join(", "),
                if *count == 1 { "it" } else { "them" },
                if *count == 1 { "it" } else { "them" },
            ),
            ReportWarning::ItemsWithoutFeatures { count, examples } => write!(
                f,
                "{count} recommended {} no features (e.g. {}): {} pairs are left out of \
                 intra-list diversity",
                if *count == 1 {
                    "item has"
                } else {
                    "items have"
                },
                examples.join(", "),
                if *count == 1 { "its" } else { "their" },
            ),
            ReportWarning::CorpusInputUnused { flag, key } => write!(
                f,
                "{flag} (TOML `{key}`) is not read: no metric asked for needs it (see \
                 `rankeval metrics`, corpus metrics)"
            ),
            ReportWarning::Coverage(warning) => warning.write_for(f, front),
        }
    }
}

impl fmt::Display for RunWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_for(f, FrontEnd::CommandLine)
    }
}

impl Describe for RunWarning {
    /// The warning after its run's name (none for the whole experiment's).
    fn write_for(&self, f: &mut dyn fmt::Write, front: FrontEnd) -> fmt::Result {
        if !self.run.is_empty() {
            write!(f, "run `{}`: ", self.run)?;
        }
        self.warning.write_for(f, front)
    }
}
