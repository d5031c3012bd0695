//! The report model: one plain struct holding everything an evaluation
//! produced, and the warnings it carries. The renderers (one per output
//! format) are the `rankeval-report` crate's; they read this model and
//! nothing here knows of them.
//!
//! The model always keeps every per-query value (the spec says they are
//! always available); whether a format prints them is a rendering option.

use std::collections::HashMap;
use std::fmt;

use rankeval_core::{Aggregator, Bounds, Metric, RelevanceLevel, TrecEvalMeasure};
use serde::Serialize;

use crate::engine::Warning;
use crate::front::{Describe, FrontEnd};
use crate::read::QrelsNote;
use crate::read::ir_metadata::IrMetadata;

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
    /// `intervals[m][a]`: the confidence interval of `aggregates[m][a]`
    /// when aggregator `a` gives one (`ci`), with NaN ends where it could
    /// not be computed (the report warns why); `None` for the aggregators
    /// that give none. Empty, or shorter than `aggregates`, means none.
    pub intervals: Vec<Vec<Option<Bounds>>>,
    /// `corpus[c]`: corpus metric `c` over every list of the run.
    pub corpus: Vec<f64>,
    /// The run's results on each group of queries (`--groups`): every
    /// group column in the groups file's order, its groups in byte order of
    /// their values; empty without groups.
    pub groups: Vec<GroupResult>,
    /// The ir_metadata block heading the run file (TIREx, repro_eval): its
    /// tag and fields, shown in JSON as the run's `ir_metadata` and kept in
    /// a results history; `None` without one (docs/benchmarks.md).
    pub ir_metadata: Option<IrMetadata>,
}

/// A run's results on one group of queries: the queries whose value in a
/// group column of the groups file is `value`.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupResult {
    /// The group column, e.g. `segment`.
    pub column: String,
    /// The group, e.g. `tail`.
    pub value: String,
    /// The evaluated queries in the group, in report order.
    pub queries: Vec<String>,
    /// `aggregates[m][a]`, as [`RunResult::aggregates`], over the group's
    /// queries.
    pub aggregates: Vec<Vec<f64>>,
    /// `intervals[m][a]`, as [`RunResult::intervals`].
    pub intervals: Vec<Vec<Option<Bounds>>>,
}

impl GroupResult {
    /// The label reports give the group: `segment=tail`.
    pub fn label(&self) -> String {
        format!("{}={}", self.column, self.value)
    }

    /// The interval of aggregate `a` of metric `m`, if its aggregator gives
    /// one.
    pub fn interval(&self, m: usize, a: usize) -> Option<Bounds> {
        interval_at(&self.intervals, m, a)
    }
}

impl RunResult {
    /// The interval of aggregate `a` of metric `m`, if its aggregator gives
    /// one.
    pub fn interval(&self, m: usize, a: usize) -> Option<Bounds> {
        interval_at(&self.intervals, m, a)
    }
}

impl Report {
    /// Whether aggregator `a` gives intervals (in any run): the renderers'
    /// bounds columns.
    pub fn has_interval(&self, a: usize) -> bool {
        self.runs
            .iter()
            .any(|run| (0..self.metrics.len()).any(|m| run.interval(m, a).is_some()))
    }

    /// Whether any aggregator gives intervals.
    pub fn has_intervals(&self) -> bool {
        (0..self.aggregators.len()).any(|a| self.has_interval(a))
    }

    /// Every group of queries of any run, as `(column, value)`: columns in
    /// the order the first run that has them gives, values in byte order.
    /// Reports show a row (or object) per group and run; a run without
    /// queries in a group shows 0 queries there.
    pub fn groups(&self) -> Vec<(String, String)> {
        let mut columns: Vec<&str> = Vec::new();
        for run in &self.runs {
            for group in &run.groups {
                if !columns.contains(&group.column.as_str()) {
                    columns.push(&group.column);
                }
            }
        }
        let mut keys = Vec::new();
        for column in columns {
            let mut values = crate::groups::group_order(
                self.runs
                    .iter()
                    .flat_map(|run| run.groups.iter())
                    .filter(|g| g.column == column)
                    .map(|g| g.value.as_str()),
            );
            values.dedup();
            keys.extend(
                values
                    .into_iter()
                    .map(|v| (column.to_owned(), v.to_owned())),
            );
        }
        keys
    }
}

/// One group of queries of a report with each run's results on it, as
/// [`Report::group_table`] gives them.
#[derive(Clone, Debug)]
pub struct GroupRow<'a> {
    /// The group column, e.g. `segment`.
    pub column: String,
    /// The group, e.g. `tail`.
    pub value: String,
    /// `runs[r]`: run `r`'s results on the group, `None` when it has no
    /// queries there.
    pub runs: Vec<Option<&'a GroupResult>>,
}

impl Report {
    /// Every group of [`groups`](Self::groups), in its order, with each
    /// run's results on it: found through one index per run, so that a
    /// report of many groups (a conversation each, `--turns`) is rendered
    /// and compared in time linear in its groups, where a
    /// [`RunResult::group`] per group and run would be quadratic.
    pub fn group_table(&self) -> Vec<GroupRow<'_>> {
        let index: Vec<HashMap<(&str, &str), &GroupResult>> = self
            .runs
            .iter()
            .map(|run| {
                run.groups
                    .iter()
                    .rev() // The first of a repeated group wins, as in `group`.
                    .map(|g| ((g.column.as_str(), g.value.as_str()), g))
                    .collect()
            })
            .collect();
        self.groups()
            .into_iter()
            .map(|(column, value)| {
                let runs = index
                    .iter()
                    .map(|groups| groups.get(&(column.as_str(), value.as_str())).copied())
                    .collect();
                GroupRow {
                    column,
                    value,
                    runs,
                }
            })
            .collect()
    }
}

impl RunResult {
    /// The run's results on group `value` of `column`, if it has queries
    /// there. A search through the run's groups: to visit every group, use
    /// [`Report::group_table`].
    pub fn group(&self, column: &str, value: &str) -> Option<&GroupResult> {
        self.groups
            .iter()
            .find(|g| g.column == column && g.value == value)
    }
}

/// One run's aggregates: every aggregator of every metric's per-query
/// values, the intervals of those that give one, and the warnings for the
/// intervals that could not be computed.
#[derive(Clone, Debug)]
pub struct Aggregates {
    /// `values[m][a]`, as [`RunResult::aggregates`].
    pub values: Vec<Vec<f64>>,
    /// `intervals[m][a]`, as [`RunResult::intervals`].
    pub intervals: Vec<Vec<Option<Bounds>>>,
    /// One warning per aggregator and reason, naming the metrics.
    pub warnings: Vec<RunWarning>,
}

/// Aggregates the per-query columns of run `run` (`per_query[m]` the
/// values of `metrics[m]`) with every aggregator: one shared path for the
/// evaluation, a baseline read from a results file, and the Python
/// package's comparisons.
pub fn aggregate_run(
    run: &str,
    metrics: &[MetricColumn],
    per_query: &[Vec<f64>],
    aggregators: &[Box<dyn Aggregator>],
) -> Aggregates {
    let mut values = Vec::with_capacity(per_query.len());
    let mut intervals = Vec::with_capacity(per_query.len());
    // (aggregator, reason) -> metrics, in first-seen order.
    let mut undefined: Vec<(usize, String, Vec<String>)> = Vec::new();
    // aggregator -> metrics whose aggregate overflowed, in first-seen order.
    let mut overflowed: Vec<(usize, Vec<String>)> = Vec::new();
    for (m, column) in per_query.iter().enumerate() {
        let row: Vec<f64> = aggregators.iter().map(|a| a.aggregate(column)).collect();
        if row.iter().any(|v| v.is_infinite()) && column.iter().all(|v| v.is_finite()) {
            let metric = metrics.get(m).map_or_else(String::new, |c| c.name.clone());
            for (a, _) in row.iter().enumerate().filter(|(_, v)| v.is_infinite()) {
                match overflowed.iter_mut().find(|(i, _)| *i == a) {
                    Some((_, names)) => names.push(metric.clone()),
                    None => overflowed.push((a, vec![metric.clone()])),
                }
            }
        }
        values.push(row);
        let mut row = Vec::with_capacity(aggregators.len());
        for (a, aggregator) in aggregators.iter().enumerate() {
            row.push(match aggregator.interval(column) {
                None => None,
                Some(Ok(bounds)) => Some(bounds),
                Some(Err(reason)) => {
                    let metric = metrics.get(m).map_or_else(String::new, |c| c.name.clone());
                    match undefined
                        .iter_mut()
                        .find(|(i, r, _)| *i == a && *r == reason)
                    {
                        Some((_, _, names)) => names.push(metric),
                        None => undefined.push((a, reason, vec![metric])),
                    }
                    Some(Bounds::UNDEFINED)
                }
            });
        }
        intervals.push(row);
    }
    let warnings = overflowed
        .into_iter()
        .map(|(a, metrics)| RunWarning {
            run: run.to_owned(),
            warning: ReportWarning::AggregateOverflow {
                aggregator: aggregators[a].name(),
                metrics,
            },
        })
        .chain(
            undefined
                .into_iter()
                .map(|(a, reason, metrics)| RunWarning {
                    run: run.to_owned(),
                    warning: ReportWarning::IntervalUndefined {
                        aggregator: aggregators[a].name(),
                        metrics,
                        reason,
                    },
                }),
        )
        .collect();
    Aggregates {
        values,
        intervals,
        warnings,
    }
}

/// `intervals[m][a]`, if there is one.
fn interval_at(intervals: &[Vec<Option<Bounds>>], m: usize, a: usize) -> Option<Bounds> {
    intervals
        .get(m)
        .and_then(|row| row.get(a))
        .copied()
        .flatten()
}

/// A warning about one run, or about the whole experiment.
#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ReportWarning {
    /// The baseline is a results history's record whose judgements or
    /// metric definitions differ from this evaluation's, compared all the
    /// same (`--allow-changed-qrels`).
    BaselineChanged {
        /// The record, `db:DB#ID`.
        baseline: String,
        /// What differs.
        differences: Vec<String>,
    },
    /// The baseline is a results history's record whose options that
    /// change numbers (`rel`, `ties`...) differ from this evaluation's,
    /// compared all the same (`--allow-changed-options`).
    BaselineOptionsChanged {
        /// The record, `db:DB#ID`.
        baseline: String,
        /// Each option that differs, with both values.
        options: Vec<crate::compare::OptionDifference>,
    },
    /// The benchmark's official measures were evaluated under its
    /// conventions (`--official`): which, and where they come from.
    Official {
        /// The measures and conventions applied, in words.
        note: String,
    },
    /// A warning of one part of a benchmark reported as the mean of its
    /// parts (a forum of CQADupStack), said with the part.
    InPart {
        /// The part's name (`android`).
        part: String,
        /// The part's own warning.
        warning: Box<ReportWarning>,
    },
    /// The run file's ir_metadata block could not be read (outside the
    /// YAML subset the schema uses, a control character, not UTF-8, longer
    /// than 1 MiB...): the run was evaluated without it, as trec_eval,
    /// which skips it as comments.
    IrMetadataUnread {
        /// The run file, as named by the user.
        file: String,
        /// The line of the file, when the problem is on one.
        line: Option<u64>,
        /// What is wrong.
        problem: String,
    },
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
    /// The subtopic judgements repeat some judgements with the same grade:
    /// each is kept once.
    SubtopicJudgementsRepeated {
        /// The subtopic judgements, as named by the user.
        file: String,
        /// How many lines (rows) repeated an earlier one.
        count: usize,
    },
    /// Every membership of the document groups has weight 0: no document
    /// counts in any group, so AWRF and trec_fair are 0 on every query.
    DocGroupsWeightless {
        /// The document groups, as named by the user.
        file: String,
    },
    /// The document groups repeat some rows with the same weight: each is
    /// kept once.
    DocGroupsRepeated {
        /// The document groups, as named by the user.
        file: String,
        /// How many lines (rows) repeated an earlier one.
        count: usize,
    },
    /// A corpus metric input was given but no metric reads it.
    CorpusInputUnused {
        /// The flag that gives it, e.g. `--train`.
        flag: &'static str,
        /// The TOML key that gives it, e.g. `training`.
        key: &'static str,
    },
    /// An aggregator that gives an interval (`ci`) could not give one for
    /// these metrics' values: their bounds are empty (NaN, `null` in JSON).
    IntervalUndefined {
        /// The aggregator's canonical name.
        aggregator: String,
        /// The metrics without an interval.
        metrics: Vec<String>,
        /// Why, e.g. too few queries.
        reason: String,
    },
    /// An aggregate came out infinite though every per-query value of the
    /// metric is finite: the values are too large (near `f64::MAX`, about
    /// 1.8e308) for it in 64-bit floats, e.g. a sum beyond the largest
    /// `f64`. (Means and medians of such values are computed without
    /// overflow.)
    AggregateOverflow {
        /// The aggregator's canonical name.
        aggregator: String,
        /// The metrics whose aggregate is infinite.
        metrics: Vec<String>,
    },
    /// Evaluated queries that a groups file leaves out of a group column
    /// (not listed, or an empty value): they count in the run's results but
    /// in no group of that column.
    QueriesWithoutGroup {
        /// The groups file, as named by the user.
        groups: String,
        /// The group column.
        column: String,
        /// How many evaluated queries.
        count: usize,
        /// The first few, in report order.
        examples: Vec<String>,
    },
    /// Queries a groups file lists that the run has no values for (not
    /// evaluated): they are in no group's results.
    GroupQueriesNotEvaluated {
        /// The groups file, as named by the user.
        groups: String,
        /// How many listed queries.
        count: usize,
        /// The first few, in byte order.
        examples: Vec<String>,
    },
    /// Groups of a groups file none of whose queries the run has values
    /// for: they have no results (rather than vanishing unsaid).
    GroupsWithoutQueries {
        /// The groups file, as named by the user.
        groups: String,
        /// How many groups, over every column.
        count: usize,
        /// The first few, as `column=value`.
        examples: Vec<String>,
    },
    /// With conversations as the unit (`--per-conversation`), evaluated
    /// queries that name no conversation: each is a conversation of its
    /// own.
    QueriesWithoutConversation {
        /// Why they name none: no separator in the id, or no value in a
        /// groups file's `conversation` column.
        reason: String,
        /// How many queries.
        count: usize,
        /// The first few, in report order.
        examples: Vec<String>,
    },
    /// A run's mean hole rate (`unjudged@k`: the share of its top k the
    /// qrels do not judge) is above
    /// [`HOLE_WARNING`](rankeval_core::completion::HOLE_WARNING): its values
    /// count many unjudged documents as non-relevant.
    Holes {
        /// The hole-rate metric, e.g. `unjudged@10`.
        metric: String,
        /// Its mean over the run's queries.
        share: f64,
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
            ReportWarning::BaselineChanged {
                baseline,
                differences,
            } => write!(
                f,
                "the baseline {baseline} was compared although {} ({})",
                differences.join("; "),
                match front {
                    FrontEnd::Python => "allow_changed_qrels=True",
                    _ => "--allow-changed-qrels",
                }
            ),
            ReportWarning::BaselineOptionsChanged { baseline, options } => {
                let (name, allow): (fn(&str) -> String, _) = match front {
                    FrontEnd::Python => (|k| format!("{k}="), "allow_changed_options=True"),
                    _ => (
                        |k| format!("--{}", k.replace('_', "-")),
                        "--allow-changed-options",
                    ),
                };
                let shown = |v: &Option<String>| v.as_deref().unwrap_or("not set").to_owned();
                let listed: Vec<String> = options
                    .iter()
                    .map(|d| {
                        format!(
                            "{} is {} here, {} in the record",
                            name(&d.key),
                            shown(&d.here),
                            shown(&d.recorded)
                        )
                    })
                    .collect();
                write!(
                    f,
                    "the baseline {baseline} was compared although its options differ: {} ({allow})",
                    listed.join("; ")
                )
            }
            ReportWarning::Official { note } => f.write_str(note),
            ReportWarning::InPart { part, warning } => {
                write!(f, "forum `{part}`: ")?;
                warning.write_for(f, front)
            }
            ReportWarning::IrMetadataUnread {
                file,
                line,
                problem,
            } => write!(
                f,
                "{file}{}: {problem}; the run was evaluated without its ir_metadata",
                line.map(|l| format!(":{l}")).unwrap_or_default(),
            ),
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
            ReportWarning::DocGroupsWeightless { file } => write!(
                f,
                "{file}: every membership has weight 0, so no document counts in any group and \
                 AWRF and trec_fair are 0 on every query (a weight is a document's alignment \
                 with its group; left out, it is 1)"
            ),
            ReportWarning::DocGroupsRepeated { file, count } => write!(
                f,
                "{file}: {count} {} an earlier one with the same weight; each membership is \
                 counted once",
                if *count == 1 {
                    "row repeats"
                } else {
                    "rows repeat"
                }
            ),
            ReportWarning::SubtopicJudgementsRepeated { file, count } => write!(
                f,
                "{file}: {count} subtopic {} an earlier one with the same grade; each \
                 judgement is counted once",
                if *count == 1 {
                    "judgement repeats"
                } else {
                    "judgements repeat"
                }
            ),
            ReportWarning::CorpusInputUnused { flag, key } => write!(
                f,
                "{flag} (TOML `{key}`) is not read: no metric asked for needs it (see \
                 `rankeval metrics`, corpus metrics)"
            ),
            ReportWarning::Holes { metric, share } => write!(
                f,
                "{metric} = {share:.4}: on average {:.0}% of {} is unjudged (more than {:.0}%), \
                 and every metric counts those documents as non-relevant; the bounds ({}) show \
                 how far judging them could move each value, and {} scores judged documents only",
                share * 100.0,
                match metric.strip_prefix("unjudged@") {
                    Some(k) => format!("each top {k}"),
                    None => "each ranking".to_owned(),
                },
                rankeval_core::completion::HOLE_WARNING * 100.0,
                front.option("bounds", None),
                front.option("judged_only", None),
            ),
            ReportWarning::IntervalUndefined {
                aggregator,
                metrics,
                reason,
            } => write!(
                f,
                "{aggregator}: no interval for {}: {reason} (bounds shown as NaN)",
                metrics.join(", "),
            ),
            ReportWarning::AggregateOverflow {
                aggregator,
                metrics,
            } => write!(
                f,
                "{aggregator} of {} is infinite though every per-query value is finite: it is \
                 beyond the range of 64-bit floats (about 1.8e308)",
                metrics.join(", "),
            ),
            ReportWarning::QueriesWithoutGroup {
                groups,
                column,
                count,
                examples,
            } => write!(
                f,
                "{count} evaluated {} no group in column `{column}` of {groups} (e.g. {}): {} \
                 in the run's results, in no group's",
                if *count == 1 {
                    "query has"
                } else {
                    "queries have"
                },
                examples
                    .iter()
                    .map(|e| format!("`{e}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                if *count == 1 {
                    "it counts"
                } else {
                    "they count"
                },
            ),
            ReportWarning::GroupQueriesNotEvaluated {
                groups,
                count,
                examples,
            } => write!(
                f,
                "{count} {} of {groups} {} not evaluated (e.g. {}): {} in no group's results",
                if *count == 1 { "query" } else { "queries" },
                if *count == 1 { "is" } else { "are" },
                quoted(examples),
                if *count == 1 { "it is" } else { "they are" },
            ),
            ReportWarning::GroupsWithoutQueries {
                groups,
                count,
                examples,
            } => write!(
                f,
                "{count} {} of {groups} {} no evaluated query (e.g. {}): no results for {}",
                if *count == 1 { "group" } else { "groups" },
                if *count == 1 { "has" } else { "have" },
                quoted(examples),
                if *count == 1 { "it" } else { "them" },
            ),
            ReportWarning::QueriesWithoutConversation {
                reason,
                count,
                examples,
            } => write!(
                f,
                "{count} evaluated {} no conversation ({reason}; e.g. {}): each is a \
                 conversation of its own",
                if *count == 1 {
                    "query names"
                } else {
                    "queries name"
                },
                quoted(examples),
            ),
            ReportWarning::Coverage(warning) => warning.write_for(f, front),
        }
    }
}

/// `examples` as a list of `` `example` ``s.
fn quoted(examples: &[String]) -> String {
    examples
        .iter()
        .map(|e| format!("`{e}`"))
        .collect::<Vec<_>>()
        .join(", ")
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
