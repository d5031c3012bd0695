//! `ope`: off-policy evaluation from Python (`rankeval_rs.ope`). The
//! keywords fill the library's request (`rankeval::spec::OpeSpec`), each
//! value with its keyword as origin (`min_ess=-1`), checked by
//! `rankeval::spec::resolve_ope` with the command line's and the TOML
//! file's values; this module holds no rule. The report comes back as its
//! JSON document (the command line's `--format json`, refused values
//! `null`) and its table, which the Python layer shapes.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use rankeval::ope::OpeRunError;
use rankeval::spec::{Given, OpeSpec, Origin, PolicyRequest, resolve_ope};
use rankeval_report::ope::{OpeFormat, render};

use crate::errors::{InputError, RankevalError, located, read_error};
use crate::keywords::{keyword, spec_error};

/// What `ope` returns: the report as a JSON document and as a table.
type Rendered = (String, String);

/// The keywords `ope` reads from `options` (absent or `None`: not given).
const OPE_KEYWORDS: &[&str] = &[
    "log_columns",
    "form",
    "examination",
    "reward_per",
    "reward_range",
    "layout",
    "plackett_luce",
    "target_column",
    "reward_model",
    "estimators",
    "interval",
    "level",
    "resamples",
    "samples",
    "seed",
    "correction",
    "min_n",
    "min_ess",
    "min_support",
    "gates",
    "allow_low_support",
    "groups",
    "groups_in_family",
    "record",
    "label",
];

/// Estimates the target `policies` (`(name or None, run file)`, the first
/// the baseline) on the impression `log`, with `options` by keyword (the
/// command line's flags in snake case); returns the report's JSON and
/// table. A bad keyword value raises the spec's error (`min_ess=-1: ...`),
/// a bad log or run `InputError`.
#[pyfunction]
pub fn ope(
    py: Python<'_>,
    log: PathBuf,
    policies: Vec<(Option<String>, PathBuf)>,
    options: &Bound<'_, PyDict>,
) -> PyResult<Rendered> {
    let mut spec = ope_spec(policies, options)?;
    spec.log = Some(keyword(
        log.clone(),
        "log",
        format!("{:?}", log.display().to_string()),
    ));
    let request = resolve_ope(spec).map_err(|e| spec_error(&e))?;
    let report = py
        .detach(|| rankeval::ope::run_request(&request))
        .map_err(|e| match e {
            OpeRunError::Read(error) => read_error(&error),
            OpeRunError::Log(error) => located::<InputError>(None, None, &error.to_string()),
            OpeRunError::NeverLogged { .. } => {
                located::<RankevalError>(None, None, &format!("{e} {NEVER_LOGGED_HINT}"))
            }
            e => located::<RankevalError>(None, None, &e.to_string()),
        })?;
    if let Some(recorded) = py.detach(|| rankeval::ope_record::write(&request, &report)) {
        recorded.map_err(|e| located::<RankevalError>(None, None, &e.to_string()))?;
    }
    Ok((
        render(&report, OpeFormat::Json),
        render(&report, OpeFormat::Table),
    ))
}

/// What `rankeval_rs.ope` (and `rankeval_rs.spark.ope`) adds to the
/// error of an item a ranking shows and the log never shows: the keyword
/// that estimates it anyway.
pub const NEVER_LOGGED_HINT: &str =
    "(allow_low_support=True estimates it anyway, its weight 0 where the log never shows it)";

/// The request of `policies` (`(name or None, run file)`) and the
/// keywords `options` (absent or `None`: not given), each value with its
/// keyword as origin, the log left to the caller: what `rankeval_rs.ope`
/// and `rankeval_rs.spark.ope` (whose log comes in parts) both fill, so
/// that a keyword gets the same reading and the spec the same rules.
pub fn ope_spec(
    policies: Vec<(Option<String>, PathBuf)>,
    options: &Bound<'_, PyDict>,
) -> PyResult<OpeSpec> {
    for key in options.keys() {
        let key: String = key.extract()?;
        if !OPE_KEYWORDS.contains(&key.as_str()) {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "ope() got an unexpected keyword argument {key:?}"
            )));
        }
    }
    fn get<'py, T: FromPyObjectOwned<'py>>(
        dict: &Bound<'py, PyDict>,
        key: &str,
    ) -> PyResult<Option<T>> {
        match dict.get_item(key)? {
            Some(value) if !value.is_none() => value.extract().map(Some).map_err(Into::into),
            _ => Ok(None),
        }
    }
    let mut spec = OpeSpec::new(Origin::keyword("ope", ""));
    spec.policies = policies
        .into_iter()
        .map(|(name, path)| {
            let shown = match &name {
                Some(name) => format!("{{{name:?}: {:?}}}", path.display().to_string()),
                None => format!("{:?}", path.display().to_string()),
            };
            PolicyRequest {
                name,
                path,
                from: Origin::keyword("policies", shown),
            }
        })
        .collect();
    if let Some(columns) = get::<Vec<(String, String)>>(options, "log_columns")? {
        spec.log_columns = columns
            .into_iter()
            .map(|(key, name)| {
                let shown = format!("{{{key:?}: {name:?}}}");
                keyword((key, name), "log_columns", shown)
            })
            .collect();
    }
    let text = |key: &str| -> PyResult<Option<Given<String>>> {
        Ok(get::<String>(options, key)?.map(|v| {
            let shown = format!("{v:?}");
            keyword(v, key, shown)
        }))
    };
    spec.form = text("form")?;
    // A rule's text, or the probabilities per rank as a list.
    if let Some(value) = options.get_item("examination")?.filter(|v| !v.is_none()) {
        let written = match value.extract::<String>() {
            Ok(text) => text,
            Err(_) => value
                .extract::<Vec<f64>>()?
                .iter()
                .map(f64::to_string)
                .collect::<Vec<_>>()
                .join(","),
        };
        let shown = format!("{written:?}");
        spec.examination = Some(keyword(written, "examination", shown));
    }
    spec.reward_per = text("reward_per")?;
    spec.layout = text("layout")?;
    spec.interval = text("interval")?;
    spec.correction = text("correction")?;
    spec.target_column = text("target_column")?;
    let number = |key: &str| -> PyResult<Option<Given<f64>>> {
        Ok(get::<f64>(options, key)?.map(|v| keyword(v, key, v)))
    };
    spec.level = number("level")?;
    spec.min_ess = number("min_ess")?;
    spec.min_support = number("min_support")?;
    spec.plackett_luce = number("plackett_luce")?;
    if let Some(n) = get::<i128>(options, "min_n")? {
        let Ok(value) = u64::try_from(n) else {
            return Err(spec_error(&rankeval::spec::SpecError::Invalid {
                from: Origin::keyword("min_n", n),
                reason: "a number of impressions, from 0 to 2^64 - 1".to_owned(),
            }));
        };
        spec.min_n = Some(keyword(value, "min_n", n));
    }
    for (key, what) in [
        ("resamples", "a number of resamples"),
        ("samples", "a number of orderings"),
        ("seed", "a seed"),
    ] {
        if let Some(n) = get::<i128>(options, key)? {
            let Ok(value) = u64::try_from(n) else {
                return Err(spec_error(&rankeval::spec::SpecError::Invalid {
                    from: Origin::keyword(key, n),
                    reason: format!("{what}, from 0 to 2^64 - 1"),
                }));
            };
            let given = Some(keyword(value, key, n));
            match key {
                "seed" => spec.seed = given,
                "samples" => spec.samples = given,
                _ => spec.resamples = given,
            }
        }
    }
    if let Some((lo, hi)) = get::<(f64, f64)>(options, "reward_range")? {
        spec.reward_range = Some(keyword((lo, hi), "reward_range", format!("({lo}, {hi})")));
    }
    if let Some(path) = get::<PathBuf>(options, "groups")? {
        let shown = format!("{:?}", path.display().to_string());
        spec.groups = Some(keyword(path, "groups", shown));
    }
    if let Some(path) = get::<PathBuf>(options, "reward_model")? {
        let shown = format!("{:?}", path.display().to_string());
        spec.reward_model = Some(keyword(path, "reward_model", shown));
    }
    let list = |key: &str| -> PyResult<Vec<Given<String>>> {
        Ok(get::<Vec<String>>(options, key)?
            .unwrap_or_default()
            .into_iter()
            .map(|v| {
                let shown = v.clone();
                keyword(v, key, shown)
            })
            .collect())
    };
    spec.estimators = list("estimators")?;
    spec.gates = list("gates")?;
    spec.allow_low_support = get::<bool>(options, "allow_low_support")?
        .map(|v| keyword(v, "allow_low_support", if v { "True" } else { "False" }));
    spec.groups_in_family = get::<bool>(options, "groups_in_family")?
        .map(|v| keyword(v, "groups_in_family", if v { "True" } else { "False" }));
    // The results history: the one request, checked by `resolve_ope`'s
    // `resolve_record` (the commit from the CI's variables).
    spec.record = rankeval::spec::RecordRequest {
        db: get::<PathBuf>(options, "record")?.map(|path| {
            let shown = format!("{:?}", path.display().to_string());
            keyword(path, "record", shown)
        }),
        label: text("label")?,
        commit: None,
        experiment_hash: None,
    };
    Ok(spec)
}
