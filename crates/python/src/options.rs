//! The evaluation options of `rankeval_rs.spark`'s evaluator (its
//! `ties`, `missing`, `rel`, `score_threshold`), with the command line's
//! messages. `evaluate` and `compare` give theirs to the library's spec
//! instead (`crate::keywords`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankeval::engine::{ScoreThreshold, check_ties};
use rankeval::{Missing, Options, RelevanceLevel};
use rankeval_core::{Metric, Ties};

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

/// The evaluation options from `evaluate`'s arguments, checked with the
/// command line's messages (`--missing`, `--rel`, `--score-threshold`).
pub fn evaluation(
    missing: &str,
    rel: f64,
    ties: Ties,
    threshold: Option<f64>,
    allow_empty_run: bool,
) -> PyResult<Options> {
    Ok(Options {
        missing: match missing {
            "skip" => Missing::Skip,
            "zero" => Missing::Zero,
            other => {
                return Err(PyValueError::new_err(format!(
                    "missing={other:?}: expected \"skip\" or \"zero\""
                )));
            }
        },
        level: RelevanceLevel::new(rel).ok_or_else(|| {
            // The command line's messages for `--rel`.
            PyValueError::new_err(if rel > 0.0 {
                format!(
                    "rel={rel}: the relevance level is too large: the largest grade is 2147483647"
                )
            } else {
                format!(
                    "rel={rel}: the relevance level must be a positive grade (grades of 0 and below are never relevant)"
                )
            })
        })?,
        ties,
        score_threshold: score_threshold(threshold)?,
        allow_empty_run,
    })
}
