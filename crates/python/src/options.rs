//! The evaluation options that are named values (`ties="input"`) or
//! numbers with a range (`score_threshold=0.5`), checked as the command
//! line checks `--ties` and `--score-threshold`, with its messages.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankeval::engine::{ScoreThreshold, check_ties};
use rankeval_core::{Metric, Ties};
use serde::de::DeserializeOwned;

/// `"docid"`, `"input"` or `"average"` (`--ties`).
pub fn ties(value: &str) -> PyResult<Ties> {
    Ties::ALL
        .into_iter()
        .find(|t| t.as_str() == value)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "ties={value:?}: expected \"docid\", \"input\" or \"average\""
            ))
        })
}

/// Checks `ties` against the metrics as `--ties` does: `average` needs
/// metrics with a closed form, and a metric's own `ties` must order the
/// lists the same way.
pub fn check_metric_ties(metrics: &[Box<dyn Metric>], ties: Ties) -> PyResult<()> {
    check_ties(metrics, ties)
        .map_err(|reason| PyValueError::new_err(format!("ties={:?}: {reason}", ties.as_str())))
}

/// A finite threshold (`--score-threshold`).
pub fn score_threshold(value: Option<f64>) -> PyResult<Option<ScoreThreshold>> {
    value
        .map(|value| {
            ScoreThreshold::try_from(value).map_err(|reason| {
                PyValueError::new_err(format!("score_threshold={value}: {reason}"))
            })
        })
        .transpose()
}

/// A value of a lowercase serde enum (`"bootstrap"`, `"holm"`) by name.
pub fn named<T: DeserializeOwned>(value: &str, option: &str, expected: &str) -> PyResult<T> {
    serde_json::from_value(serde_json::Value::String(value.to_owned())).map_err(|_| {
        PyValueError::new_err(format!("{option}={value:?}: expected one of {expected}"))
    })
}
