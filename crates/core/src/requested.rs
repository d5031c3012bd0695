//! A metric as a user requests it (`-m`, TOML `[[metrics]]`): one name
//! space for per-query metrics and corpus metrics, so `-m ndcg@10 -m
//! coverage@10` asks for both kinds the same way.

use crate::corpus::CorpusMetric;
use crate::error::PluginError;
use crate::metric::Metric;
use crate::params::ParamValue;
use crate::registry::{self, Location, Plugin};

/// A requested metric: one value per query, or one value per run.
#[derive(Debug)]
pub enum RequestedMetric {
    /// A per-query metric (aggregated over queries).
    Query(Box<dyn Metric>),
    /// A corpus metric (one value for the whole run).
    Corpus(Box<dyn CorpusMetric>),
}

impl RequestedMetric {
    /// The canonical name.
    pub fn name(&self) -> String {
        match self {
            RequestedMetric::Query(m) => m.name(),
            RequestedMetric::Corpus(m) => m.name(),
        }
    }
}

/// Parses the short syntax (`ndcg@10`, `coverage(normalize=false)@10`)
/// into a per-query metric or, if no per-query metric has the name, a
/// corpus metric. An unknown name is an error whose suggestions come from
/// both kinds.
pub fn parse_requested(spec: &str) -> Result<RequestedMetric, PluginError> {
    either(registry::parse_metric(spec), || {
        registry::parse_corpus_metric(spec)
    })
}

/// Every metric `spec` stands for, each as its own text and its metric or
/// error: `ndcg@1,3` is `ndcg@1` and `ndcg@3`
/// ([`crate::syntax::expand_cutoffs`]); any other spec is one. Every front
/// end (`-m`, TOML `metrics`, Python `metrics`) reads its list through
/// this, so the rule is in one place.
pub fn parse_requested_each(spec: &str) -> Vec<(String, Result<RequestedMetric, PluginError>)> {
    crate::syntax::expand_cutoffs(spec)
        .into_iter()
        .map(|text| {
            let metric = parse_requested(&text);
            (text, metric)
        })
        .collect()
}

/// Builds a metric from its name and parameters (a TOML table), as
/// [`parse_requested`].
pub fn build_requested(
    name: &str,
    params: Vec<(String, ParamValue)>,
) -> Result<RequestedMetric, PluginError> {
    // A table's `type` spelled as ir_measures spells a measure reads as -m
    // reads it.
    let crate::syntax::Spec { name, params } =
        crate::ir_measures::translate(crate::syntax::Spec {
            name: name.to_owned(),
            params,
        })?;
    let name = name.as_str();
    // Both kinds have the name's parameters checked only once it is found.
    if registry::find::<dyn Metric>(name).is_err()
        && registry::find::<dyn CorpusMetric>(name).is_ok()
    {
        return registry::build::<dyn CorpusMetric>(name, params).map(RequestedMetric::Corpus);
    }
    registry::build::<dyn Metric>(name, params).map(RequestedMetric::Query)
}

fn either(
    query: Result<Box<dyn Metric>, PluginError>,
    corpus: impl FnOnce() -> Result<Box<dyn CorpusMetric>, PluginError>,
) -> Result<RequestedMetric, PluginError> {
    match query {
        Ok(metric) => Ok(RequestedMetric::Query(metric)),
        Err(PluginError::Unknown {
            kind,
            name,
            mut suggestions,
        }) => match corpus() {
            Ok(metric) => Ok(RequestedMetric::Corpus(metric)),
            Err(PluginError::Unknown {
                suggestions: more, ..
            }) => {
                for s in more {
                    if !suggestions.contains(&s) {
                        suggestions.push(s);
                    }
                }
                suggestions.truncate(3);
                Err(PluginError::Unknown {
                    kind,
                    name,
                    suggestions,
                })
            }
            Err(other) => Err(other),
        },
        Err(other) => Err(other),
    }
}

/// A name (or alias) of both a per-query metric and a corpus metric, with
/// both registrations: `-m` could not tell which is meant.
pub(crate) fn shared_name() -> Option<(&'static str, Location, Location)> {
    let corpus: Vec<(&'static str, Location)> = <dyn CorpusMetric as Plugin>::registered()
        .iter()
        .flat_map(|d| {
            std::iter::once(d.name)
                .chain(d.aliases.iter().copied())
                .map(move |n| (n, d.defined_at))
        })
        .collect();
    <dyn Metric as Plugin>::registered().iter().find_map(|d| {
        std::iter::once(d.name)
            .chain(d.aliases.iter().copied())
            .find_map(|n| {
                corpus
                    .iter()
                    .find(|(c, _)| *c == n)
                    .map(|&(_, at)| (n, d.defined_at, at))
            })
    })
}
