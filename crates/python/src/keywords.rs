//! Python's keyword arguments as the library's experiment spec
//! (`rankeval::spec`): each value a [`Given`] with its keyword as origin
//! (`rel=0`), checked by `rankeval::spec::resolve` and
//! `resolve_comparison` with every other front end's values. This module
//! only reads Python's spellings (`"skip"`, `"holm"`) into values and
//! raises the spec's errors as Python exceptions; it holds no rule.

use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rankeval::compare::Family;
use rankeval::spec::{
    BaselineRequest, CompareRequest, GateRequest, Given, HISTORY_PREFIX, IntervalKind, Origin,
    SpecError,
};
use rankeval_stats::{BootstrapMethod, Correction, Test};
use serde::de::DeserializeOwned;

use crate::errors::{CompareError, InputError, MetricError, located};

/// `value` from the keyword `name`, shown in messages as `shown`.
pub fn keyword<T>(value: T, name: &str, shown: impl std::fmt::Display) -> Given<T> {
    Given::new(value, Origin::keyword(name, shown))
}

/// A text as Python users write it in a message: `"docid"`.
pub fn quoted(text: &str) -> String {
    format!("{text:?}")
}

/// A value of a lowercase serde enum (`"bootstrap"`, `"holm"`) by name.
pub fn named<T: DeserializeOwned>(value: &str, option: &str, expected: &str) -> PyResult<T> {
    serde_json::from_value(serde_json::Value::String(value.to_owned())).map_err(|_| {
        PyValueError::new_err(format!("{option}={value:?}: expected one of {expected}"))
    })
}

/// The keywords whose bad values raise `MetricError` (the metrics as
/// built), `InputError` (the inputs) and `CompareError` (the comparison);
/// any other raises `ValueError`.
const METRIC_KEYWORDS: &[&str] = &["metrics", "bounds", "judged_only"];
const INPUT_KEYWORDS: &[&str] = &[
    "qrels",
    "run_or_runs",
    "catalog",
    "train",
    "item_features",
    "subtopic_qrels",
    "doc_groups",
    "group_targets",
    "samples",
    "label_counts",
    "train_instances",
    "inverse_propensities",
    "groups",
    "record",
    "log",
    "policies",
    "reward_model",
];
const COMPARE_KEYWORDS: &[&str] = &[
    "baseline",
    "baseline_file",
    "baseline_run",
    "gates",
    "test",
    "level",
    "resamples",
    "seed",
    "bootstrap",
    "correction",
    "family",
    "alpha",
    "groups_in_family",
    "interval",
    "jackknife_groups",
    "allow_changed_qrels",
    "allow_changed_options",
];

/// The spec's error as the Python exception for the keyword at fault, its
/// text the spec's (`rel=0: ...`); a gate is named as one, `` gate `…` ``.
pub fn spec_error(error: &SpecError) -> PyErr {
    let keyword = match error.origin() {
        Some(Origin::Keyword { name, .. }) => Some(name.as_str()),
        _ => None,
    };
    let message = match error {
        SpecError::Invalid {
            from: Origin::Keyword { name, value },
            reason,
        } if name == "gates" => format!("gate `{value}`: {reason}"),
        _ => error.to_string(),
    };
    match (error, keyword) {
        (SpecError::Plugin { .. }, _) => located::<MetricError>(None, None, &message),
        (SpecError::File { path, problem, .. }, _) => {
            let file = path.display().to_string();
            located::<InputError>(Some(&file), None, &problem.to_string())
        }
        (_, Some(name)) if METRIC_KEYWORDS.contains(&name) => {
            located::<MetricError>(None, None, &message)
        }
        (_, Some(name)) if INPUT_KEYWORDS.contains(&name) => {
            located::<InputError>(None, None, &message)
        }
        (_, Some(name)) if COMPARE_KEYWORDS.contains(&name) => {
            located::<CompareError>(None, None, &message)
        }
        _ => PyValueError::new_err(message),
    }
}

/// `compare`'s keyword arguments, as Python gives them.
#[derive(Default)]
pub struct CompareKeywords {
    /// A run by name.
    pub baseline: Option<String>,
    /// A results file and the run in it.
    pub baseline_file: Option<(PathBuf, Option<String>)>,
    /// Gates in the command line's syntax.
    pub gates: Vec<String>,
    /// The settings by name, each `None` when not given.
    pub test: Option<String>,
    pub level: Option<f64>,
    pub resamples: Option<i128>,
    pub seed: Option<i128>,
    pub bootstrap: Option<String>,
    pub correction: Option<String>,
    pub family: Option<String>,
    pub alpha: Option<f64>,
    pub groups_in_family: Option<bool>,
    pub interval: Option<String>,
    pub jackknife_groups: Option<i128>,
    /// A `db:` baseline compared although its judgements or definitions
    /// differ.
    pub allow_changed_qrels: Option<bool>,
    /// A `db:` baseline compared although its options differ.
    pub allow_changed_options: Option<bool>,
}

impl CompareKeywords {
    /// The keywords in `dict` (`compare`'s names; absent or `None` is not
    /// given).
    pub fn from_dict(dict: &Bound<'_, PyDict>) -> PyResult<CompareKeywords> {
        fn get<'py, T: FromPyObjectOwned<'py>>(
            dict: &Bound<'py, PyDict>,
            key: &str,
        ) -> PyResult<Option<T>> {
            match dict.get_item(key)? {
                Some(value) if !value.is_none() => value.extract().map(Some).map_err(Into::into),
                _ => Ok(None),
            }
        }
        let known = COMPARE_KEYWORDS;
        for key in dict.keys() {
            let key: String = key.extract()?;
            if !known.contains(&key.as_str()) {
                return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "unexpected keyword argument {key:?} (the comparison's are {})",
                    known.join(", ")
                )));
            }
        }
        let file: Option<PathBuf> = get(dict, "baseline_file")?;
        let run: Option<String> = get(dict, "baseline_run")?;
        Ok(CompareKeywords {
            baseline: get(dict, "baseline")?,
            baseline_file: file.map(|f| (f, run)),
            gates: get(dict, "gates")?.unwrap_or_default(),
            test: get(dict, "test")?,
            level: get(dict, "level")?,
            resamples: get(dict, "resamples")?,
            seed: get(dict, "seed")?,
            bootstrap: get(dict, "bootstrap")?,
            correction: get(dict, "correction")?,
            family: get(dict, "family")?,
            alpha: get(dict, "alpha")?,
            groups_in_family: get(dict, "groups_in_family")?,
            interval: get(dict, "interval")?,
            jackknife_groups: get(dict, "jackknife_groups")?,
            allow_changed_qrels: get(dict, "allow_changed_qrels")?,
            allow_changed_options: get(dict, "allow_changed_options")?,
        })
    }

    /// The comparison as the spec's request: names read, every rule left
    /// to `resolve_comparison`.
    pub fn request(self) -> PyResult<CompareRequest> {
        let baseline = match (self.baseline, self.baseline_file) {
            (Some(_), Some(_)) => {
                return Err(PyValueError::new_err(
                    "give the baseline as a run name or as a results file, not both",
                ));
            }
            (Some(text), None) if text.starts_with(HISTORY_PREFIX) => Some(keyword(
                BaselineRequest::History {
                    text: text.clone(),
                    relative_to: PathBuf::new(),
                },
                "baseline",
                quoted(&text),
            )),
            (Some(name), None) => Some(keyword(
                BaselineRequest::Run(name.clone()),
                "baseline",
                &name,
            )),
            (None, Some((path, run))) => Some(keyword(
                BaselineRequest::Results {
                    path: path.clone(),
                    run: run.map(|run| keyword(run.clone(), "baseline_run", quoted(&run))),
                },
                "baseline_file",
                path.display(),
            )),
            (None, None) => None,
        };
        fn enumerated<T: DeserializeOwned>(
            value: Option<String>,
            name: &str,
            expected: &str,
        ) -> PyResult<Option<Given<T>>> {
            value
                .map(|v| named(&v, name, expected).map(|parsed| keyword(parsed, name, quoted(&v))))
                .transpose()
        }
        let test: Option<Given<Test>> = enumerated(
            self.test,
            "test",
            "t, randomization, bootstrap, wilcoxon, randomization_keyed, bootstrap_keyed",
        )?;
        let bootstrap: Option<Given<BootstrapMethod>> = enumerated(
            self.bootstrap,
            "bootstrap",
            "auto, multinomial, double_or_nothing",
        )?;
        let correction: Option<Given<Correction>> = enumerated(
            self.correction,
            "correction",
            "holm, bonferroni, benjamini_hochberg (bh), none",
        )?;
        let family: Option<Given<Family>> =
            enumerated(self.family, "family", "runs_x_metrics, per_metric, per_run")?;
        let interval = match self.interval.as_deref() {
            None => None,
            Some("test") => Some(IntervalKind::Test),
            Some("jackknife") => Some(IntervalKind::Jackknife),
            Some(other) => {
                return Err(PyValueError::new_err(format!(
                    "interval={other:?}: \"test\" (the test's own) or \"jackknife\""
                )));
            }
        }
        .zip(self.interval.as_deref())
        .map(|(value, text)| keyword(value, "interval", quoted(text)));
        // Without a baseline, every pair of runs is compared.
        let all_pairs = baseline
            .is_none()
            .then(|| keyword(true, "baseline", "None"));
        let allow = |value: Option<bool>, name: &str| {
            value.filter(|a| *a).map(|a| keyword(a, name, "True"))
        };
        Ok(CompareRequest {
            allow_changed_qrels: allow(self.allow_changed_qrels, "allow_changed_qrels"),
            allow_changed_options: allow(self.allow_changed_options, "allow_changed_options"),
            table: None,
            baseline,
            all_pairs,
            test,
            bootstrap,
            correction,
            family,
            groups_in_family: self
                .groups_in_family
                .filter(|g| *g)
                .map(|g| keyword(g, "groups_in_family", "True")),
            interval,
            jackknife_groups: self
                .jackknife_groups
                .map(|g| keyword(g, "jackknife_groups", g)),
            resamples: self.resamples.map(|r| keyword(r, "resamples", r)),
            seed: self.seed.map(|s| keyword(s, "seed", s)),
            alpha: self.alpha.map(|a| keyword(a, "alpha", a)),
            confidence: self.level.map(|l| keyword(l, "level", l)),
            gates: self
                .gates
                .into_iter()
                .map(|text| {
                    let from = Origin::keyword("gates", &text);
                    GateRequest::Text(Given::new(text, from))
                })
                .collect(),
        })
    }
}
