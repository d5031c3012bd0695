//! The TOML file exactly as written: every table refuses unknown keys, and
//! spans are kept so that errors can name the line.

use std::collections::BTreeMap;

use rankeval_core::{Duplicates, RelevanceLevel, Ties};
use serde::Deserialize;
use toml::Spanned;

use crate::engine::{Missing, ScoreThreshold};
use crate::read::{CsvOptions, Format};

/// A `[[metrics]]` or `[[aggregators]]` table: `type` and parameters.
pub(crate) type RawPlugin = BTreeMap<Spanned<String>, Spanned<RawValue>>;

/// One entry of `metrics` or `aggregators`: a table (`{ type = "ap", k =
/// 10 }`, or a `[[metrics]]` header) or a string in the short syntax that
/// `-m` and `-a` take (`"ap(norm=truncated)@10"`), so that
/// `metrics = ["ndcg@10", "map"]` works as it reads.
#[derive(Debug)]
pub(crate) enum RawPluginEntry {
    /// The short syntax.
    Short(String),
    /// `type` and parameters.
    Table(RawPlugin),
}

impl<'de> Deserialize<'de> for RawPluginEntry {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntryVisitor;
        impl<'de> serde::de::Visitor<'de> for EntryVisitor {
            type Value = RawPluginEntry;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "a string in the short syntax (\"ndcg@10\") or a table with `type` \
                     ({ type = \"ndcg\", k = 10 })",
                )
            }
            fn visit_str<E>(self, v: &str) -> Result<RawPluginEntry, E> {
                Ok(RawPluginEntry::Short(v.to_owned()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<RawPluginEntry, A::Error> {
                RawPlugin::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(RawPluginEntry::Table)
            }
        }
        deserializer.deserialize_any(EntryVisitor)
    }
}

/// A parameter's value as written: any TOML value, or an integer beyond
/// `i64` that `toml::Value` cannot hold (`k = 99999999999999999999`), kept
/// so that the parameter can say it is too large, as the short syntax does.
#[derive(Debug)]
pub(crate) enum RawValue {
    /// A value `toml::Value` holds.
    Toml(toml::Value),
    /// An integer past `i64` (saturated past `i128`).
    BigInteger(i128),
}

impl<'de> Deserialize<'de> for RawValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RawVisitor;
        impl<'de> serde::de::Visitor<'de> for RawVisitor {
            type Value = RawValue;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any valid TOML value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<RawValue, E> {
                Ok(RawValue::Toml(toml::Value::Boolean(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<RawValue, E> {
                Ok(RawValue::Toml(toml::Value::Integer(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<RawValue, E> {
                Ok(match i64::try_from(v) {
                    Ok(v) => RawValue::Toml(toml::Value::Integer(v)),
                    Err(_) => RawValue::BigInteger(v.into()),
                })
            }
            fn visit_i128<E>(self, v: i128) -> Result<RawValue, E> {
                Ok(match i64::try_from(v) {
                    Ok(v) => RawValue::Toml(toml::Value::Integer(v)),
                    Err(_) => RawValue::BigInteger(v),
                })
            }
            fn visit_u128<E>(self, v: u128) -> Result<RawValue, E> {
                Ok(RawValue::BigInteger(i128::try_from(v).unwrap_or(i128::MAX)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<RawValue, E> {
                Ok(RawValue::Toml(toml::Value::Float(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<RawValue, E> {
                Ok(RawValue::Toml(toml::Value::String(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<RawValue, E> {
                Ok(RawValue::Toml(toml::Value::String(v)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<RawValue, A::Error> {
                toml::Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))
                    .map(RawValue::Toml)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<RawValue, A::Error> {
                // Tables, and dates (which toml hands over as a map).
                toml::Value::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(RawValue::Toml)
            }
        }
        deserializer.deserialize_any(RawVisitor)
    }
}

/// The whole experiment file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawExperiment {
    /// A label for the experiment (documentation only).
    #[allow(dead_code)]
    pub(crate) name: Option<String>,
    /// The report's title (the HTML page's title and heading).
    pub(crate) title: Option<Spanned<String>>,
    /// The qrels: a file relative to the experiment file, or a table with
    /// its `path`, `format` and column settings.
    pub(crate) qrels: Option<Spanned<RawQrels>>,
    /// The qrels' format, when its name does not say.
    pub(crate) qrels_format: Option<Format>,
    /// Queries judged but missing from a run: skip or zero.
    pub(crate) missing: Option<Missing>,
    /// A document repeated in one query's list: error or first.
    pub(crate) duplicates: Option<Duplicates>,
    /// The default relevance level of every metric.
    pub(crate) rel: Option<RelevanceLevel>,
    /// How tied scores are treated: docid, input or average.
    pub(crate) ties: Option<Spanned<Ties>>,
    /// Entries scored at or below it are not retrieved.
    pub(crate) score_threshold: Option<Spanned<ScoreThreshold>>,
    /// Evaluate a run that never ran on the qrels instead of refusing it.
    pub(crate) allow_empty_run: Option<bool>,
    /// Fill ir_datasets' cache for `qrels = "irds:<id>"`.
    pub(crate) fetch: Option<bool>,
    /// Drop a retrieved document whose id is its query's (BEIR).
    pub(crate) drop_identical_ids: Option<bool>,
    /// The official measures: `true` for the `irds:` qrels' benchmark, or
    /// a benchmark's id.
    pub(crate) official: Option<RawOfficial>,
    /// Score every metric on judged documents only (the condensed list).
    pub(crate) judged_only: Option<bool>,
    /// After each metric, its two completions, and the hole rate.
    pub(crate) bounds: Option<Spanned<bool>>,
    /// Column names, JSON keys and delimiter of every input (each input's
    /// own settings win).
    pub(crate) csv: Option<Spanned<CsvOptions>>,
    /// The runs to evaluate.
    #[serde(default)]
    pub(crate) runs: Vec<Spanned<RawRun>>,
    /// Systems of several runs (seeds, folds): each a name and its run
    /// files (glob patterns relative to the experiment file).
    #[serde(default)]
    pub(crate) systems: Vec<Spanned<RawSystem>>,
    /// The metrics; `None` (the key left out) for the defaults.
    pub(crate) metrics: Option<Spanned<Vec<Spanned<RawPluginEntry>>>>,
    /// The aggregators; `None` (the key left out) for the mean.
    pub(crate) aggregators: Option<Spanned<Vec<Spanned<RawPluginEntry>>>>,
    /// The catalog of corpus metrics: a file, one item id per line.
    pub(crate) catalog: Option<Spanned<String>>,
    /// Groups of queries (slices): a CSV/TSV or Parquet file, the query
    /// column then one column per grouping, or JSON Lines.
    pub(crate) groups: Option<Spanned<String>>,
    /// Conversational query ids: the separator of conversation and turn.
    pub(crate) turns: Option<Spanned<String>>,
    /// Conversations, not turns, are the unit (from `turns`, or the
    /// groups' `conversation` column).
    pub(crate) per_conversation: Option<Spanned<bool>>,
    /// Training interactions of corpus metrics: a file of `user, item`
    /// pairs read as qrels, or a table with its `path`, `format` and
    /// column settings.
    pub(crate) training: Option<Spanned<RawQrels>>,
    /// Item features of corpus metrics: a CSV/TSV file, item then numbers.
    pub(crate) item_features: Option<Spanned<String>>,
    /// Subtopic judgements of the diversity metrics: `query subtopic doc
    /// grade` lines or a table.
    pub(crate) subtopic_qrels: Option<Spanned<String>>,
    /// Document groups of the group-fairness metrics: `doc group [weight]`
    /// lines or a table.
    pub(crate) doc_groups: Option<Spanned<String>>,
    /// Each query's target over the document groups: a table `query,
    /// group, share`.
    pub(crate) group_targets: Option<Spanned<String>>,
    /// Every run is a sampled run: several rankings per query, the TREC
    /// run's second column (a table's `sample` column) naming the sample.
    pub(crate) samples: Option<Spanned<bool>>,
    /// Training label frequencies of the propensity-scored metrics: a
    /// CSV/TSV table `label,count`.
    pub(crate) label_counts: Option<Spanned<String>>,
    /// The number of training instances the label frequencies are out of.
    pub(crate) train_instances: Option<Spanned<u64>>,
    /// Given inverse propensities: a CSV/TSV table
    /// `label,inverse_propensity`.
    pub(crate) inverse_propensities: Option<Spanned<String>>,
    /// What the runs are compared with: a run's name, or a results file.
    pub(crate) baseline: Option<Spanned<RawBaseline>>,
    /// How runs are compared.
    pub(crate) compare: Option<Spanned<RawCompare>>,
    /// Quality gates.
    #[serde(default)]
    pub(crate) gates: Vec<Spanned<RawGate>>,
    /// Where to record the results: `[record]`, a results history.
    pub(crate) record: Option<Spanned<RawRecord>>,
}

/// `[record]`: `db = "history.sqlite"` (relative to the experiment file),
/// `label` and `commit` (else the CI's).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRecord {
    /// The database file.
    pub(crate) db: Spanned<String>,
    /// A label for the records.
    pub(crate) label: Option<Spanned<String>>,
    /// The commit under test.
    pub(crate) commit: Option<Spanned<String>>,
}

/// `baseline = "run"` or `baseline = { results = "file.json", run = "name" }`.
#[derive(Debug)]
pub(crate) enum RawBaseline {
    /// A run of the experiment, by name.
    Run(String),
    /// A results file.
    Results(RawBaselineResults),
}

/// `baseline = { results = "...", run = "..." }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawBaselineResults {
    /// The results file (`--format json --per-query`), relative to the
    /// experiment file.
    pub(crate) results: Spanned<String>,
    /// The run in it, when it holds several.
    pub(crate) run: Option<Spanned<String>>,
}

impl<'de> Deserialize<'de> for RawBaseline {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BaselineVisitor;
        impl<'de> serde::de::Visitor<'de> for BaselineVisitor {
            type Value = RawBaseline;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a run's name, or a table `{ results = \"file.json\" }`")
            }
            fn visit_str<E>(self, v: &str) -> Result<RawBaseline, E> {
                Ok(RawBaseline::Run(v.to_owned()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<RawBaseline, A::Error> {
                RawBaselineResults::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(RawBaseline::Results)
            }
        }
        deserializer.deserialize_any(BaselineVisitor)
    }
}

/// The `[compare]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawCompare {
    /// `t`, `randomization`, `bootstrap`, `wilcoxon`, `randomization_keyed` or
    /// `bootstrap_keyed`.
    pub(crate) test: Option<rankeval_stats::Test>,
    /// Random resamples.
    pub(crate) resamples: Option<Spanned<i64>>,
    /// Seed of the generator.
    pub(crate) seed: Option<Spanned<i64>>,
    /// The bootstrap's variant: `auto`, `multinomial` or
    /// `double_or_nothing` (`double-or-nothing`).
    pub(crate) bootstrap: Option<rankeval_stats::BootstrapMethod>,
    /// `holm`, `bonferroni`, `benjamini_hochberg` (`bh`) or `none`.
    pub(crate) correction: Option<rankeval_stats::Correction>,
    /// `runs_x_metrics`, `per_metric` or `per_run`.
    pub(crate) family: Option<crate::compare::Family>,
    /// Significance level.
    pub(crate) alpha: Option<Spanned<f64>>,
    /// Confidence level of the intervals.
    pub(crate) confidence: Option<Spanned<f64>>,
    /// Whether the groups' comparisons join the whole runs' families.
    pub(crate) groups_in_family: Option<bool>,
    /// `"test"` (the test's own) or `"jackknife"`.
    pub(crate) interval: Option<Spanned<String>>,
    /// The jackknife's groups (default 20).
    pub(crate) jackknife_groups: Option<Spanned<i64>>,
    /// A `db:` baseline is compared even when its judgements or metric
    /// definitions differ (`--allow-changed-qrels`).
    pub(crate) allow_changed_qrels: Option<Spanned<bool>>,
    /// A `db:` baseline is compared even when its options that change
    /// numbers differ (`--allow-changed-options`).
    pub(crate) allow_changed_options: Option<Spanned<bool>>,
}

/// A `[[gates]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawGate {
    /// The run checked; every run compared when left out.
    pub(crate) run: Option<Spanned<String>>,
    /// The metric, in the short syntax.
    pub(crate) metric: Spanned<String>,
    /// `at_least`, `non_inferior` or `superior` (`-` or `_`).
    pub(crate) rule: Spanned<String>,
    /// `at_least`'s floor.
    pub(crate) floor: Option<Spanned<f64>>,
    /// `non_inferior`'s margin: a number, `"2%"`, `{ absolute = x }` or
    /// `{ relative = x }`.
    pub(crate) margin: Option<Spanned<RawMargin>>,
    /// `superior`'s significance level (default: `[compare] alpha`).
    pub(crate) alpha: Option<Spanned<f64>>,
    /// The group of queries checked, `"column=value"` of the groups file;
    /// every query when left out.
    pub(crate) group: Option<Spanned<String>>,
}

/// A `[[systems]]` table: a system of several runs (training seeds,
/// folds), read as runs named `NAME/FILE-STEM`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSystem {
    /// The system's name.
    pub(crate) name: Spanned<String>,
    /// Its run files: paths or glob patterns (`runs/v2-seed*.trec`),
    /// relative to the experiment file.
    pub(crate) runs: Spanned<Vec<String>>,
}

/// A margin as written.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum RawMargin {
    /// In the metric's units.
    Number(f64),
    /// `"2%"` or `"0.01"`.
    Text(String),
    /// `{ absolute = x }` or `{ relative = x }`.
    Table(rankeval_stats::Margin),
}

/// An input table (`[[runs]]`, `[qrels]`) with the column settings every
/// input may carry (see [`CsvOptions::KEYS`](crate::read::CsvOptions::KEYS)),
/// each overriding the `[csv]` table. Written out rather than flattened, so
/// that unknown keys stay errors and spans stay known.
macro_rules! input_table {
    ($(#[$meta:meta])* struct $name:ident { $($(#[$field_meta:meta])* $field:ident: $type:ty,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub(crate) struct $name {
            $($(#[$field_meta])* pub(crate) $field: $type,)*
            /// Column with the query id (JSON Lines: the query's key).
            pub(crate) query: Option<Spanned<String>>,
            /// Column with the document id.
            pub(crate) doc: Option<Spanned<String>>,
            /// Column with scores.
            pub(crate) score: Option<Spanned<String>>,
            /// Column with ranks.
            pub(crate) rank: Option<Spanned<String>>,
            /// Column with grades.
            pub(crate) grade: Option<Spanned<String>>,
            /// CSV delimiter.
            pub(crate) delimiter: Option<Spanned<String>>,
            /// JSON Lines key of the ranked list.
            pub(crate) predicted: Option<Spanned<String>>,
            /// JSON Lines key of the scores.
            pub(crate) scores: Option<Spanned<String>>,
            /// JSON Lines key of the judgements.
            pub(crate) relevant: Option<Spanned<String>>,
        }

        impl $name {
            /// The column settings given, by key.
            pub(crate) fn columns(&self) -> impl Iterator<Item = (&'static str, &Spanned<String>)> {
                [
                    ("query", &self.query),
                    ("doc", &self.doc),
                    ("score", &self.score),
                    ("rank", &self.rank),
                    ("grade", &self.grade),
                    ("delimiter", &self.delimiter),
                    ("predicted", &self.predicted),
                    ("scores", &self.scores),
                    ("relevant", &self.relevant),
                ]
                .into_iter()
                .filter_map(|(key, value)| value.as_ref().map(|v| (key, v)))
            }
        }
    };
}

input_table! {
    /// One `[[runs]]` table.
    struct RawRun {
        /// The name in reports; by default the file name without `.gz` and
        /// its last extension.
        name: Option<Spanned<String>>,
        /// The run file, relative to the experiment file.
        path: Spanned<String>,
        /// The run's format, when its name does not say.
        format: Option<Format>,
    }
}

input_table! {
    /// A `[qrels]` table.
    struct RawQrelsTable {
        /// The qrels file, relative to the experiment file.
        path: Spanned<String>,
        /// Its format, when its name does not say.
        format: Option<Format>,
    }
}

/// `official = true` or `official = "<id>"`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum RawOfficial {
    /// On (the `irds:` qrels' benchmark) or off.
    On(bool),
    /// A benchmark's id.
    Id(String),
}

/// `qrels = "path"` or a `[qrels]` table.
#[derive(Debug)]
pub(crate) enum RawQrels {
    /// Only the path.
    Path(String),
    /// A table.
    Table(Box<RawQrelsTable>),
}

impl<'de> Deserialize<'de> for RawQrels {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct QrelsVisitor;
        impl<'de> serde::de::Visitor<'de> for QrelsVisitor {
            type Value = RawQrels;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a path, or a table with `path` (and `format`, column settings)")
            }
            fn visit_str<E>(self, v: &str) -> Result<RawQrels, E> {
                Ok(RawQrels::Path(v.to_owned()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<RawQrels, A::Error> {
                RawQrelsTable::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(|table| RawQrels::Table(Box::new(table)))
            }
        }
        deserializer.deserialize_any(QrelsVisitor)
    }
}
