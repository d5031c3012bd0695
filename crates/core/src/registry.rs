//! The plugin registry: one descriptor per metric and aggregator, collected
//! with `inventory` from every crate linked into the binary.
//!
//! Descriptors hold only `&'static` data and `fn` pointers, so a crate
//! registers one at compile time with the attribute
//! [`#[metric(...)]`](macro@crate::metric) on its `impl Metric` (or
//! [`register_metric!`](crate::register_metric), the lower-level form). Listings are sorted by name (inventory's order is
//! unspecified). Building a plugin by name goes through one path for the
//! short syntax and TOML: find the descriptor (by name or alias), map
//! parameter aliases to full names, then deserialize through typetag.

use std::fmt;

use serde::de::value::MapDeserializer;
use serde::de::{self, Deserialize};

use crate::aggregate::Aggregator;
use crate::completion::{Completed, Completion};
use crate::corpus::CorpusMetric;
use crate::error::{PluginError, PluginKind, RegistryError};
use crate::judged_only::JudgedOnly;
use crate::metric::Metric;
use crate::params::ParamValue;
use crate::syntax::Spec;
use crate::tied::Tied;
use crate::ties_setting::Ties;

pub use crate::location::Location;

/// One parameter of a plugin, as `rankeval metrics` and the docs show it.
#[derive(Clone, Copy, Debug)]
pub struct ParamDoc {
    /// The full name, as in TOML and the short syntax.
    pub name: &'static str,
    /// A shorter name accepted as well (and used in canonical names).
    pub alias: Option<&'static str>,
    /// The default, as text ("none" when unset means something).
    pub default: &'static str,
    /// One line: what it does and the values it takes.
    pub doc: &'static str,
}

/// The parameter `k`, shared by every metric with a cutoff.
pub const PARAM_K: ParamDoc = ParamDoc {
    name: "k",
    alias: None,
    default: "none",
    doc: "cutoff rank: only the top k documents count (a positive integer; none = the whole list)",
};

/// The parameter `rel`, shared by every metric with a relevance threshold.
pub const PARAM_REL: ParamDoc = ParamDoc {
    name: "rel",
    alias: None,
    default: "unset",
    doc: "relevance level: a grade of at least rel is relevant (trec_eval -l); a positive number, decimals too (3.5); unset = the experiment's level (--rel, TOML rel; 1 unless set)",
};

/// The parameter `ties`, which every metric takes (the registry handles
/// it, wrapping the metric in a [`Tied`](crate::Tied)).
pub const PARAM_TIES: ParamDoc = ParamDoc {
    name: "ties",
    alias: None,
    default: "unset",
    doc: "tied scores: docid (ranked by document id, trec_eval), input (in the run's order) or average (the expected value over every order of the ties); unset = the experiment's (--ties, TOML ties; docid unless set)",
};

/// The parameter `judged_only`, which every metric takes (the registry
/// handles it, wrapping the metric in a [`JudgedOnly`](crate::JudgedOnly)).
pub const PARAM_JUDGED_ONLY: ParamDoc = ParamDoc {
    name: crate::judged_only::JUDGED_ONLY,
    alias: None,
    default: "false",
    doc: "true: unjudged documents (not in the qrels, or a negative grade) are removed from the ranking before scoring, the condensed list (trec_eval -J, ir_measures judged_only); the experiment's --judged-only (TOML judged_only = true) sets it on every metric",
};

/// The parameter `unjudged`, which every metric takes (the registry
/// handles it, wrapping the metric in a [`Completed`](crate::completion::Completed)).
pub const PARAM_UNJUDGED: ParamDoc = ParamDoc {
    name: crate::completion::UNJUDGED,
    alias: None,
    default: "unset",
    doc: "a grade for every unjudged document the run retrieved (not in the qrels, or a negative grade), added to the query's judgements: nonrelevant (0), relevant (the query's top grade, at least the relevance level) or a grade; the two bounds of --bounds; unset = unjudged documents as the metric treats them",
};

/// The parameters every metric takes, which the registry handles by
/// wrapping the metric it builds.
pub const WRAPPING_PARAMS: [ParamDoc; 3] = [PARAM_TIES, PARAM_UNJUDGED, PARAM_JUDGED_ONLY];

/// The wrapping parameters given to one metric ([`WRAPPING_PARAMS`]).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Wrapping {
    ties: Option<Ties>,
    unjudged: Option<Completion>,
    judged_only: Option<bool>,
}

impl Wrapping {
    /// Takes `value` for the parameter `name`: `Err(None)` if given before,
    /// `Err(Some(reason))` if not a value of it.
    fn take(&mut self, name: &str, value: &ParamValue) -> Result<(), Option<String>> {
        let text = match value {
            ParamValue::String(text) => Some(text.to_ascii_lowercase()),
            ParamValue::Bool(yes) => Some(yes.to_string()),
            ParamValue::Integer(n) => Some(n.to_string()),
            ParamValue::Float(x) => Some(x.to_string()),
            ParamValue::BigInteger(_) => None,
        };
        let repeated = match name {
            "ties" => {
                let ties = text
                    .and_then(|t| Ties::ALL.into_iter().find(|ties| ties.as_str() == t))
                    .ok_or_else(|| {
                        Some(format!("expected docid, input or average, found {value}"))
                    })?;
                self.ties.replace(ties).is_some()
            }
            "judged_only" => {
                let yes = match text.as_deref() {
                    Some("true") => true,
                    Some("false") => false,
                    _ => return Err(Some(format!("expected true or false, found {value}"))),
                };
                self.judged_only.replace(yes).is_some()
            }
            _ => {
                let completion = match &text {
                    Some(t) => Completion::parse(t).map_err(Some)?,
                    None => {
                        return Err(Some(format!(
                            "expected nonrelevant, relevant or a grade, found {value}"
                        )));
                    }
                };
                self.unjudged.replace(completion).is_some()
            }
        };
        if repeated { Err(None) } else { Ok(()) }
    }

    /// `metric` wrapped: in its `ties`, then its completion, then the
    /// condensed list. `judged_only` with `unjudged` is refused: a
    /// condensed list has no unjudged document to complete.
    fn apply(self, metric: Box<dyn Metric>) -> Result<Box<dyn Metric>, String> {
        if self.judged_only == Some(true) && self.unjudged.is_some() {
            return Err(
                "takes judged_only=true or unjudged, not both: the condensed list has no unjudged document"
                    .to_owned(),
            );
        }
        if let Some(needs) = metric.requires().first()
            && (self.judged_only == Some(true) || self.unjudged.is_some())
        {
            return Err(format!(
                "reads {}, which judged_only and unjudged do not apply to",
                needs.what()
            ));
        }
        if metric.joint_over_samples()
            && (self.judged_only == Some(true) || self.unjudged.is_some())
        {
            return Err(
                "reads each ranking whole (its documents' exposure), which judged_only and \
                 unjudged do not apply to"
                    .to_owned(),
            );
        }
        let mut metric = metric;
        if let Some(ties) = self.ties {
            metric = Box::new(Tied::new(metric, ties)?);
        }
        if let Some(completion) = self.unjudged {
            metric = Box::new(Completed::new(metric, completion));
        }
        if self.judged_only == Some(true) {
            metric = Box::new(JudgedOnly::new(metric));
        }
        Ok(metric)
    }

    /// `plugin` as it is, if no wrapping parameter was given (a kind that
    /// takes none).
    fn refuse_for<P: ?Sized>(self, plugin: Box<P>) -> Result<Box<P>, String> {
        match (self.ties, self.unjudged, self.judged_only) {
            (None, None, None) => Ok(plugin),
            _ => Err("takes no `ties`, `unjudged` or `judged_only`".to_owned()),
        }
    }
}

/// A registered plugin: a metric (`Descriptor<dyn Metric>`) or an
/// aggregator (`Descriptor<dyn Aggregator>`).
pub struct Descriptor<T: ?Sized + 'static> {
    /// The TOML `type`, snake_case; the same string as the typetag name.
    pub name: &'static str,
    /// Other names accepted on the command line and in TOML.
    pub aliases: &'static [&'static str],
    /// One line of 79 columns or less.
    pub summary: &'static str,
    /// Every parameter, in declaration order.
    pub params: &'static [ParamDoc],
    /// An instance with typical, non-default parameters.
    pub example: fn() -> Box<T>,
    /// Where it is registered (filled in by the registration macros).
    pub defined_at: Location,
}

impl<T: ?Sized> fmt::Debug for Descriptor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Descriptor")
            .field("name", &self.name)
            .field("aliases", &self.aliases)
            .field("defined_at", &self.defined_at)
            .finish_non_exhaustive()
    }
}

/// A metric's descriptor.
pub type MetricDescriptor = Descriptor<dyn Metric>;
/// An aggregator's descriptor.
pub type AggregatorDescriptor = Descriptor<dyn Aggregator>;
/// A corpus metric's descriptor.
pub type CorpusMetricDescriptor = Descriptor<dyn CorpusMetric>;

inventory::collect!(MetricDescriptor);
inventory::collect!(AggregatorDescriptor);
inventory::collect!(CorpusMetricDescriptor);

/// The trait objects that have a registry: `dyn Metric` and
/// `dyn Aggregator`. Not for implementing outside this crate.
pub trait Plugin: sealed::Sealed + 'static {
    /// Metric or aggregator.
    const KIND: PluginKind;
    /// Every registered descriptor, in no particular order.
    fn registered() -> Vec<&'static Descriptor<Self>>;
    /// Deserializes through typetag from `type` and parameter pairs.
    #[doc(hidden)]
    fn deserialize_pairs(pairs: Vec<(String, ParamValue)>) -> Result<Box<Self>, de::value::Error>;
    /// Runs the plugin's own cross-parameter checks.
    #[doc(hidden)]
    fn check(plugin: &Self) -> Result<(), String>;
    /// The plugin wrapped as the parameters every metric takes ask
    /// (`ties`, `unjudged`, `judged_only`); an error for a kind without
    /// them, or for a combination refused.
    #[doc(hidden)]
    fn wrap(plugin: Box<Self>, wrapping: Wrapping) -> Result<Box<Self>, String>;
    /// The plugin's canonical name.
    #[doc(hidden)]
    fn canonical_name(plugin: &Self) -> String;
    /// The registered plugin that computes trec_eval's measure `name`.
    #[doc(hidden)]
    fn trec_eval_match(name: &str) -> Option<TrecEvalEquivalent>;
    /// The typetag name the plugin serializes with (its `type`), if it
    /// serializes.
    #[doc(hidden)]
    fn type_tag(plugin: &Self) -> Option<String>;
}

/// The `type` of a plugin serialized through typetag.
fn serialized_type(value: Result<serde_json::Value, serde_json::Error>) -> Option<String> {
    value.ok()?.get("type")?.as_str().map(str::to_owned)
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for dyn super::Metric {}
    impl Sealed for dyn super::Aggregator {}
    impl Sealed for dyn super::CorpusMetric {}
}

impl Plugin for dyn CorpusMetric {
    fn type_tag(plugin: &Self) -> Option<String> {
        serialized_type(serde_json::to_value(plugin))
    }
    const KIND: PluginKind = PluginKind::CorpusMetric;
    fn registered() -> Vec<&'static Descriptor<Self>> {
        inventory::iter::<CorpusMetricDescriptor>
            .into_iter()
            .collect()
    }
    fn deserialize_pairs(pairs: Vec<(String, ParamValue)>) -> Result<Box<Self>, de::value::Error> {
        Box::<dyn CorpusMetric>::deserialize(MapDeserializer::new(pairs.into_iter()))
    }
    fn check(plugin: &Self) -> Result<(), String> {
        plugin.validate()
    }
    fn wrap(plugin: Box<Self>, wrapping: Wrapping) -> Result<Box<Self>, String> {
        wrapping.refuse_for(plugin)
    }
    fn canonical_name(plugin: &Self) -> String {
        plugin.name()
    }
    fn trec_eval_match(_name: &str) -> Option<TrecEvalEquivalent> {
        None
    }
}

impl Plugin for dyn Metric {
    fn type_tag(plugin: &Self) -> Option<String> {
        serialized_type(serde_json::to_value(plugin))
    }
    const KIND: PluginKind = PluginKind::Metric;
    fn registered() -> Vec<&'static Descriptor<Self>> {
        inventory::iter::<MetricDescriptor>.into_iter().collect()
    }
    fn deserialize_pairs(pairs: Vec<(String, ParamValue)>) -> Result<Box<Self>, de::value::Error> {
        Box::<dyn Metric>::deserialize(MapDeserializer::new(pairs.into_iter()))
    }
    fn check(plugin: &Self) -> Result<(), String> {
        plugin.validate()
    }
    fn wrap(plugin: Box<Self>, wrapping: Wrapping) -> Result<Box<Self>, String> {
        wrapping.apply(plugin)
    }
    fn canonical_name(plugin: &Self) -> String {
        plugin.name()
    }
    fn trec_eval_match(name: &str) -> Option<TrecEvalEquivalent> {
        trec_eval_equivalent(name)
    }
}

impl Plugin for dyn Aggregator {
    fn type_tag(plugin: &Self) -> Option<String> {
        serialized_type(serde_json::to_value(plugin))
    }
    const KIND: PluginKind = PluginKind::Aggregator;
    fn registered() -> Vec<&'static Descriptor<Self>> {
        inventory::iter::<AggregatorDescriptor>
            .into_iter()
            .collect()
    }
    fn deserialize_pairs(pairs: Vec<(String, ParamValue)>) -> Result<Box<Self>, de::value::Error> {
        Box::<dyn Aggregator>::deserialize(MapDeserializer::new(pairs.into_iter()))
    }
    fn check(plugin: &Self) -> Result<(), String> {
        plugin.validate()
    }
    fn wrap(plugin: Box<Self>, wrapping: Wrapping) -> Result<Box<Self>, String> {
        wrapping.refuse_for(plugin)
    }
    fn canonical_name(plugin: &Self) -> String {
        plugin.name()
    }
    fn trec_eval_match(_name: &str) -> Option<TrecEvalEquivalent> {
        None
    }
}

/// The metric that computes one of trec_eval's measures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrecEvalEquivalent {
    /// The metric's registered name, its TOML `type` (`precision`).
    pub plugin: &'static str,
    /// The cutoff, when the measure has one (`P_10`: 10).
    pub k: Option<u64>,
    /// The metric's canonical name, for `-m` (`p@10`).
    pub canonical: String,
}

impl fmt::Display for TrecEvalEquivalent {
    /// `p@10` (TOML: type = "precision", k = 10)
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` (TOML: type = \"{}\"", self.canonical, self.plugin)?;
        if let Some(k) = self.k {
            write!(f, ", k = {k}")?;
        }
        f.write_str(")")
    }
}

/// The registered metric that computes trec_eval's measure `name` (`P_10`,
/// `map_cut_10`, `recip_rank`, `Rprec`; case-insensitive), if one does.
///
/// Derived from the registry, not from a list: every metric is built with
/// its default parameters, and with `k = N` for a name ending in `_N`, and
/// asked for its [`trec_eval`](Metric::trec_eval) name. So a plugin crate's
/// metric that declares a trec_eval measure is found as well.
pub fn trec_eval_equivalent(name: &str) -> Option<TrecEvalEquivalent> {
    let cutoff = name
        .rsplit_once('_')
        .and_then(|(_, digits)| digits.parse::<u64>().ok())
        .filter(|&k| k > 0 && i64::try_from(k).is_ok());
    for descriptor in metrics() {
        let has_k = descriptor.params.iter().any(|p| p.name == PARAM_K.name);
        let ks = std::iter::once(None).chain(cutoff.filter(|_| has_k).map(Some));
        for k in ks {
            let mut pairs = vec![(
                "type".to_owned(),
                ParamValue::String(descriptor.name.to_owned()),
            )];
            if let Some(k) = k {
                pairs.push((PARAM_K.name.to_owned(), ParamValue::Integer(k as i64)));
            }
            let Ok(metric) = <dyn Metric as Plugin>::deserialize_pairs(pairs) else {
                continue;
            };
            if metric
                .trec_eval()
                .is_some_and(|measure| measure.name.eq_ignore_ascii_case(name))
            {
                return Some(TrecEvalEquivalent {
                    plugin: descriptor.name,
                    k,
                    canonical: metric.name(),
                });
            }
        }
    }
    None
}

/// Every registered descriptor of a kind, sorted by name.
pub fn descriptors<T: Plugin + ?Sized>() -> Vec<&'static Descriptor<T>> {
    let mut all = T::registered();
    all.sort_by_key(|d| (d.name, d.defined_at.file, d.defined_at.line));
    all
}

/// Every registered metric, sorted by name.
pub fn metrics() -> Vec<&'static MetricDescriptor> {
    descriptors::<dyn Metric>()
}

/// Every registered aggregator, sorted by name.
pub fn aggregators() -> Vec<&'static AggregatorDescriptor> {
    descriptors::<dyn Aggregator>()
}

/// The descriptor named `name` (or with `name` as an alias), case-insensitive.
pub fn find<T: Plugin + ?Sized>(name: &str) -> Result<&'static Descriptor<T>, PluginError> {
    let wanted = name.to_ascii_lowercase();
    let all = descriptors::<T>();
    if let Some(found) = all
        .iter()
        .find(|d| d.name == wanted || d.aliases.contains(&wanted.as_str()))
    {
        return Ok(found);
    }
    // A trec_eval measure (`P_10`) points at the metric that computes it,
    // not at names spelt alike; `trec_eval_equivalent` gives its parameters.
    let suggestions = match T::trec_eval_match(name) {
        Some(equivalent) => vec![equivalent.plugin],
        None => {
            let candidates = all
                .iter()
                .flat_map(|d| std::iter::once(d.name).chain(d.aliases.iter().copied()));
            close_names(&wanted, candidates)
        }
    };
    Err(PluginError::Unknown {
        kind: T::KIND,
        name: name.to_owned(),
        suggestions,
    })
}

/// Builds a plugin from its name and `(parameter, value)` pairs, as a TOML
/// table or the short syntax gives them. Parameter names may be aliases.
pub fn build<T: Plugin + ?Sized>(
    name: &str,
    params: Vec<(String, ParamValue)>,
) -> Result<Box<T>, PluginError> {
    let descriptor = find::<T>(name)?;
    let mut resolved: Vec<(&'static str, ParamValue)> = Vec::with_capacity(params.len());
    // Every metric takes the wrapping parameters (`ties`, `unjudged`,
    // `judged_only`), unless it declares a parameter of that name.
    let wrapping_params: Vec<&'static str> = match T::KIND {
        PluginKind::Metric => WRAPPING_PARAMS
            .iter()
            .map(|p| p.name)
            .filter(|name| !descriptor.params.iter().any(|p| p.name == *name))
            .collect(),
        PluginKind::Aggregator | PluginKind::CorpusMetric => Vec::new(),
    };
    let mut wrapping = Wrapping::default();
    for (key, value) in params {
        let wanted = key.to_ascii_lowercase();
        if let Some(&param) = wrapping_params.iter().find(|p| **p == wanted) {
            match wrapping.take(param, &value) {
                Ok(()) => continue,
                Err(None) => {
                    return Err(PluginError::RepeatedParam {
                        kind: T::KIND,
                        plugin: descriptor.name,
                        param,
                    });
                }
                Err(Some(reason)) => {
                    return Err(PluginError::InvalidParam {
                        kind: T::KIND,
                        plugin: descriptor.name,
                        param,
                        reason,
                    });
                }
            }
        }
        let Some(doc) = descriptor
            .params
            .iter()
            .find(|p| p.name == wanted || p.alias == Some(wanted.as_str()))
        else {
            let extra = wrapping_params.iter().copied();
            let candidates = descriptor
                .params
                .iter()
                .flat_map(|p| std::iter::once(p.name).chain(p.alias))
                .chain(extra.clone());
            return Err(PluginError::UnknownParam {
                kind: T::KIND,
                plugin: descriptor.name,
                param: key,
                suggestions: close_names(&wanted, candidates),
                known: descriptor
                    .params
                    .iter()
                    .map(|p| p.name)
                    .chain(extra)
                    .collect(),
            });
        };
        if resolved.iter().any(|(name, _)| *name == doc.name) {
            return Err(PluginError::RepeatedParam {
                kind: T::KIND,
                plugin: descriptor.name,
                param: doc.name,
            });
        }
        resolved.push((doc.name, value));
    }
    let pairs = |only: Option<usize>| {
        let mut pairs = vec![(
            "type".to_owned(),
            ParamValue::String(descriptor.name.to_owned()),
        )];
        pairs.extend(
            resolved
                .iter()
                .enumerate()
                .filter(|(i, _)| only.is_none_or(|o| o == *i))
                .map(|(_, (k, v))| ((*k).to_owned(), v.clone())),
        );
        pairs
    };
    match T::deserialize_pairs(pairs(None)) {
        Ok(plugin) => {
            let invalid = |reason| PluginError::Invalid {
                kind: T::KIND,
                plugin: descriptor.name,
                reason,
            };
            T::check(&plugin).map_err(invalid)?;
            T::wrap(plugin, wrapping).map_err(invalid)
        }
        Err(error) => {
            // Find the parameter at fault by trying each one alone.
            for (index, (param, _)) in resolved.iter().enumerate() {
                if let Err(alone) = T::deserialize_pairs(pairs(Some(index))) {
                    let reason = alone.to_string();
                    if !reason.starts_with("missing field") {
                        return Err(PluginError::InvalidParam {
                            kind: T::KIND,
                            plugin: descriptor.name,
                            param,
                            reason: reason.trim_end().to_owned(),
                        });
                    }
                }
            }
            Err(PluginError::Invalid {
                kind: T::KIND,
                plugin: descriptor.name,
                reason: error.to_string().trim_end().to_owned(),
            })
        }
    }
}

/// Parses the short syntax (`ap(norm=truncated)@10`) and builds the plugin.
pub fn parse<T: Plugin + ?Sized>(spec: &str) -> Result<Box<T>, PluginError> {
    let Spec { name, params } = Spec::parse(spec)?;
    build::<T>(&name, params)
}

/// Builds a metric from the short syntax, e.g. `ap(norm=truncated)@10`.
/// A name spelled as ir_measures spells one of its measures (`nDCG@10`,
/// `NumRet`, `IPrec@0.2`) is read through [`crate::ir_measures`].
pub fn parse_metric(spec: &str) -> Result<Box<dyn Metric>, PluginError> {
    let Spec { name, params } = crate::ir_measures::translate(Spec::parse(spec)?)?;
    build::<dyn Metric>(&name, params)
}

/// Builds an aggregator from the short syntax, e.g. `mean`.
pub fn parse_aggregator(spec: &str) -> Result<Box<dyn Aggregator>, PluginError> {
    parse::<dyn Aggregator>(spec)
}

/// Parses and builds a corpus metric from the short syntax.
pub fn parse_corpus_metric(spec: &str) -> Result<Box<dyn CorpusMetric>, PluginError> {
    parse::<dyn CorpusMetric>(spec)
}

/// Every registered corpus metric, sorted by name.
pub fn corpus_metrics() -> Vec<&'static CorpusMetricDescriptor> {
    descriptors::<dyn CorpusMetric>()
}

/// Registered names within a small edit distance of `wanted`, best first.
fn close_names<'a>(wanted: &str, candidates: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut scored: Vec<(f64, &str)> = candidates
        .filter_map(|c| {
            let similarity = strsim::normalized_damerau_levenshtein(wanted, c);
            let prefix = c.starts_with(wanted) && wanted.len() >= 2;
            (similarity >= 0.6 || prefix || strsim::damerau_levenshtein(wanted, c) <= 1)
                .then_some((if prefix { similarity + 1.0 } else { similarity }, c))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.dedup_by_key(|(_, c)| *c);
    scored.into_iter().take(3).map(|(_, c)| c).collect()
}

/// Checks the registry's invariants for every kind: names and aliases
/// unique, snake_case, summaries of one line of 79 columns or less,
/// parameter names unique, and each registered name the typetag name its
/// example serializes with (a mismatch would otherwise pass here and fail
/// at use, with an error about a missing parameter). Typetag notices duplicate names only when it
/// deserializes, so binaries and tests call this up front.
pub fn check() -> Result<(), RegistryError> {
    check_kind::<dyn Metric>()?;
    check_kind::<dyn Aggregator>()?;
    check_kind::<dyn CorpusMetric>()?;
    match crate::requested::shared_name() {
        Some((name, metric, corpus)) => Err(RegistryError::SharedName {
            name,
            metric,
            corpus,
        }),
        None => Ok(()),
    }
}

fn check_kind<T: Plugin + ?Sized>() -> Result<(), RegistryError> {
    let all = descriptors::<T>();
    let mut seen: Vec<(&'static str, Location)> = Vec::new();
    for d in &all {
        let malformed = |problem: String| RegistryError::Malformed {
            kind: T::KIND,
            name: d.name,
            at: d.defined_at,
            problem,
        };
        for name in std::iter::once(d.name).chain(d.aliases.iter().copied()) {
            if !is_snake_case(name) {
                return Err(malformed(format!("`{name}` is not snake_case")));
            }
            if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
                return Err(RegistryError::Duplicate {
                    kind: T::KIND,
                    name,
                    first: *first,
                    second: d.defined_at,
                });
            }
            seen.push((name, d.defined_at));
        }
        match T::type_tag(&*(d.example)()) {
            Some(tag) if tag == d.name => {}
            Some(typetag) => {
                return Err(RegistryError::TypetagMismatch {
                    kind: T::KIND,
                    name: d.name,
                    typetag,
                    at: d.defined_at,
                });
            }
            None => return Err(malformed("its example does not serialize".into())),
        }
        if d.summary.is_empty() || d.summary.contains('\n') || d.summary.chars().count() > 79 {
            return Err(malformed(
                "the summary must be one line of 1 to 79 columns".into(),
            ));
        }
        let mut params: Vec<&str> = Vec::new();
        for p in d.params {
            for name in std::iter::once(p.name).chain(p.alias) {
                if !is_snake_case(name) || name == "type" || params.contains(&name) {
                    return Err(malformed(format!(
                        "parameter name `{name}` is repeated, reserved or not snake_case"
                    )));
                }
                params.push(name);
            }
        }
    }
    Ok(())
}

fn is_snake_case(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_prefers_prefixes_and_small_edits() {
        let names = [
            "precision",
            "recall",
            "reciprocal_rank",
            "p",
            "average_precision",
            "ap",
        ];
        assert_eq!(close_names("precison", names.into_iter()), ["precision"]);
        assert_eq!(close_names("reci", names.into_iter())[0], "reciprocal_rank");
        assert!(close_names("zzzzzz", names.into_iter()).is_empty());
    }

    #[test]
    fn snake_case() {
        assert!(is_snake_case("hit_rate"));
        assert!(is_snake_case("p"));
        assert!(!is_snake_case("HitRate"));
        assert!(!is_snake_case("_x"));
        assert!(!is_snake_case("a-b"));
    }
}
