//! The TOML file exactly as written: every table refuses unknown keys, and
//! spans are kept so that errors can name the line.

use std::collections::BTreeMap;

use rankeval_core::{Duplicates, RelevanceLevel};
use serde::Deserialize;
use toml::Spanned;

use crate::engine::Missing;
use crate::read::{CsvOptions, Format};

/// A `[[metrics]]` or `[[aggregators]]` table: `type` and parameters.
pub(crate) type RawPlugin = BTreeMap<Spanned<String>, Spanned<toml::Value>>;

/// The whole experiment file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawExperiment {
    /// A label for the experiment (documentation only).
    #[allow(dead_code)]
    pub(crate) name: Option<String>,
    /// The qrels file, relative to the experiment file.
    pub(crate) qrels: Option<Spanned<String>>,
    /// The qrels' format, when its name does not say.
    pub(crate) qrels_format: Option<Format>,
    /// Queries judged but missing from a run: skip or zero.
    pub(crate) missing: Option<Missing>,
    /// A document repeated in one query's list: error or first.
    pub(crate) duplicates: Option<Duplicates>,
    /// The default relevance level of every metric.
    pub(crate) rel: Option<RelevanceLevel>,
    /// Column names and delimiter of every CSV input.
    pub(crate) csv: Option<Spanned<CsvOptions>>,
    /// The runs to evaluate.
    #[serde(default)]
    pub(crate) runs: Vec<Spanned<RawRun>>,
    /// The metrics.
    #[serde(default)]
    pub(crate) metrics: Vec<Spanned<RawPlugin>>,
    /// The aggregators.
    #[serde(default)]
    pub(crate) aggregators: Vec<Spanned<RawPlugin>>,
}

/// One `[[runs]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRun {
    /// The name in reports; the file name without extension by default.
    pub(crate) name: Option<Spanned<String>>,
    /// The run file, relative to the experiment file.
    pub(crate) path: Spanned<String>,
    /// The run's format, when its name does not say.
    pub(crate) format: Option<Format>,
}
