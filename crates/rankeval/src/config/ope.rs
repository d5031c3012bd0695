//! The `[ope]` table of a TOML file (`rankeval ope --config FILE`): its keys
//! are the command line's flags in snake case, mapped onto the library's
//! [`OpeSpec`](crate::spec::OpeSpec) with each value's key and line and
//! its paths made relative to the file, and checked by
//! [`resolve_ope`](crate::spec::resolve_ope) with the other front ends'
//! values. Nothing here reads the log.
//!
//! ```toml
//! [ope]
//! log = "log.csv"
//! policies = [{ name = "prod", path = "prod.trec" }, { path = "new.trec" }]
//! estimators = ["ips", "snips"]
//! min_ess = 50
//! gates = ["snips:non_inferior(margin=0.01)"]
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::{ConfigError, read_config};
use crate::spec::{Given, OpeRequest, OpeSpec, Origin, PolicyRequest, resolve_ope};

/// The file: one `[ope]` table, and optionally `[record]` (a results
/// history, as an experiment file's).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOpeFile {
    ope: Spanned<RawOpe>,
    record: Option<Spanned<super::raw::RawRecord>>,
}

/// The `[ope]` table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOpe {
    log: Option<Spanned<String>>,
    log_columns: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
    form: Option<Spanned<String>>,
    examination: Option<Spanned<String>>,
    reward_per: Option<Spanned<String>>,
    reward_range: Option<Spanned<Vec<f64>>>,
    layout: Option<Spanned<String>>,
    policies: Option<Vec<Spanned<RawPolicy>>>,
    plackett_luce: Option<Spanned<f64>>,
    target_column: Option<Spanned<String>>,
    reward_model: Option<Spanned<String>>,
    estimators: Option<Vec<Spanned<String>>>,
    interval: Option<Spanned<String>>,
    level: Option<Spanned<f64>>,
    resamples: Option<Spanned<u64>>,
    samples: Option<Spanned<u64>>,
    seed: Option<Spanned<u64>>,
    correction: Option<Spanned<String>>,
    min_n: Option<Spanned<u64>>,
    min_ess: Option<Spanned<f64>>,
    min_support: Option<Spanned<f64>>,
    gates: Option<Vec<Spanned<String>>>,
    allow_low_support: Option<Spanned<bool>>,
    groups: Option<Spanned<String>>,
    groups_in_family: Option<Spanned<bool>>,
}

/// A policy: its run's path and, optionally, its name.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    path: String,
    name: Option<String>,
}

/// Whether the TOML `text` is an off-policy evaluation (a top-level `ope`
/// table), so that `rankeval run` can hand it on.
pub fn is_ope(text: &str) -> bool {
    toml::from_str::<toml::Table>(text).is_ok_and(|t| t.contains_key("ope"))
}

/// Loads the `[ope]` file at `path` and resolves it.
pub fn load_ope(path: &Path) -> Result<OpeRequest, ConfigError> {
    load_ope_bytes(path, read_config(path)?)
}

/// Resolves the `[ope]` file at `path`, already read as `bytes`.
pub fn load_ope_bytes(path: &Path, bytes: Vec<u8>) -> Result<OpeRequest, ConfigError> {
    let name = path.display().to_string();
    let text = String::from_utf8(bytes).map_err(|e| {
        let before = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        ConfigError::NotUtf8 {
            path: name.clone(),
            line: 1 + memchr::memchr_iter(b'\n', before).count() as u64,
        }
    })?;
    let text_bytes = text.as_bytes();
    let raw: RawOpeFile = toml::from_str(&text).map_err(|source| ConfigError::Toml {
        path: name.clone(),
        source,
    })?;
    let newlines: Vec<usize> = memchr::memchr_iter(b'\n', text.as_bytes()).collect();
    let base = path.parent().unwrap_or(Path::new(""));
    let at = |span: std::ops::Range<usize>, key: &str| {
        let line = newlines.partition_point(|&n| n < span.start) + 1;
        Origin::key(&name, line, format!("ope.{key}"))
    };
    let given = |value: &Spanned<String>, key: &str| {
        Given::new(value.get_ref().clone(), at(value.span(), key))
    };
    let table = raw.ope.get_ref();
    let table_line = newlines.partition_point(|&n| n < raw.ope.span().start) + 1;
    let mut spec = OpeSpec::new(Origin::key(&name, table_line, "ope"));
    spec.log = table
        .log
        .as_ref()
        .map(|p| Given::new(base.join(p.get_ref()), at(p.span(), "log")));
    spec.log_columns = table
        .log_columns
        .iter()
        .flatten()
        .map(|(key, value)| {
            Given::new(
                (key.get_ref().clone(), value.get_ref().clone()),
                at(key.span(), &format!("log_columns.{}", key.get_ref())),
            )
        })
        .collect();
    spec.form = table.form.as_ref().map(|v| given(v, "form"));
    spec.examination = table.examination.as_ref().map(|v| given(v, "examination"));
    spec.reward_per = table.reward_per.as_ref().map(|v| given(v, "reward_per"));
    spec.layout = table.layout.as_ref().map(|v| given(v, "layout"));
    spec.interval = table.interval.as_ref().map(|v| given(v, "interval"));
    spec.correction = table.correction.as_ref().map(|v| given(v, "correction"));
    spec.target_column = table
        .target_column
        .as_ref()
        .map(|v| given(v, "target_column"));
    if let Some(range) = &table.reward_range {
        let from = at(range.span(), "reward_range");
        match range.get_ref().as_slice() {
            &[lo, hi] => spec.reward_range = Some(Given::new((lo, hi), from)),
            _ => {
                return Err(ConfigError::from(crate::spec::SpecError::Invalid {
                    from,
                    reason: "expected [LO, HI], two numbers".to_owned(),
                }));
            }
        }
    }
    spec.policies = table
        .policies
        .iter()
        .flatten()
        .enumerate()
        .map(|(index, policy)| PolicyRequest {
            name: policy.get_ref().name.clone(),
            path: base.join(&policy.get_ref().path),
            from: at(policy.span(), &format!("policies[{}]", index + 1)),
        })
        .collect();
    spec.plackett_luce = table
        .plackett_luce
        .as_ref()
        .map(|v| Given::new(*v.get_ref(), at(v.span(), "plackett_luce")));
    spec.groups = table
        .groups
        .as_ref()
        .map(|p| Given::new(base.join(p.get_ref()), at(p.span(), "groups")));
    spec.reward_model = table
        .reward_model
        .as_ref()
        .map(|p| Given::new(base.join(p.get_ref()), at(p.span(), "reward_model")));
    spec.estimators = table
        .estimators
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, v)| given(v, &format!("estimators[{}]", i + 1)))
        .collect();
    spec.gates = table
        .gates
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, v)| given(v, &format!("gates[{}]", i + 1)))
        .collect();
    let number = |v: &Option<Spanned<f64>>, key: &str| {
        v.as_ref()
            .map(|v| Given::new(*v.get_ref(), at(v.span(), key)))
    };
    spec.level = number(&table.level, "level");
    spec.min_ess = number(&table.min_ess, "min_ess");
    spec.min_support = number(&table.min_support, "min_support");
    spec.min_n = table
        .min_n
        .as_ref()
        .map(|v| Given::new(*v.get_ref(), at(v.span(), "min_n")));
    let count = |v: &Option<Spanned<u64>>, key: &str| {
        v.as_ref()
            .map(|v| Given::new(*v.get_ref(), at(v.span(), key)))
    };
    spec.resamples = count(&table.resamples, "resamples");
    spec.samples = count(&table.samples, "samples");
    spec.seed = count(&table.seed, "seed");
    spec.allow_low_support = table
        .allow_low_support
        .as_ref()
        .map(|v| Given::new(*v.get_ref(), at(v.span(), "allow_low_support")));
    spec.groups_in_family = table
        .groups_in_family
        .as_ref()
        .map(|v| Given::new(*v.get_ref(), at(v.span(), "groups_in_family")));
    if let Some(record) = &raw.record {
        let r = record.get_ref();
        let key = |span: std::ops::Range<usize>, key: &str| {
            let line = newlines.partition_point(|&n| n < span.start) + 1;
            Origin::key(&name, line, format!("record.{key}"))
        };
        let text = |v: &Option<Spanned<String>>, k: &str| {
            v.as_ref()
                .map(|v| Given::new(v.get_ref().clone(), key(v.span(), k)))
        };
        spec.record = crate::spec::RecordRequest {
            db: Some(Given::new(
                base.join(r.db.get_ref()),
                key(r.db.span(), "db"),
            )),
            label: text(&r.label, "label"),
            commit: text(&r.commit, "commit"),
            experiment_hash: Some(rankeval_history::fingerprint::bytes_hash(text_bytes)),
        };
    }
    resolve_ope(spec).map_err(ConfigError::from)
}
