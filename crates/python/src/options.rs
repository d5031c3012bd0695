//! The evaluation options of `rankeval_rs.spark`'s evaluator (its
//! `ties`, `missing`, `rel`, `score_threshold`) read from Python's
//! spellings and checked by the library's spec rules
//! (`rankeval::spec`), with the same messages as `evaluate`. This module
//! holds no rule of its own.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankeval::engine::ScoreThreshold;
use rankeval::spec::{self, Given};
use rankeval::{Missing, Options};
use rankeval_core::{Metric, Ties};

use crate::keywords::{keyword, named, quoted, spec_error};

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

/// `"skip"` or `"zero"` (`--missing`).
pub fn missing(value: &str) -> PyResult<Missing> {
    named(value, "missing", "skip, zero").map_err(|_| {
        PyValueError::new_err(format!("missing={value:?}: expected \"skip\" or \"zero\""))
    })
}

/// `ties` as the keyword it was given as.
fn given_ties(ties: Ties) -> Given<Ties> {
    keyword(ties, "ties", quoted(ties.as_str()))
}

/// Checks `ties` against the metrics (the spec's rule of `--ties`).
pub fn check_metric_ties(metrics: &[Box<dyn Metric>], ties: Ties) -> PyResult<()> {
    spec::check_metric_ties(metrics, &given_ties(ties)).map_err(|e| spec_error(&e))
}

/// A finite threshold (the spec's rule of `--score-threshold`).
pub fn score_threshold(value: Option<f64>) -> PyResult<Option<ScoreThreshold>> {
    value
        .map(|value| {
            spec::score_threshold_of(&keyword(value, "score_threshold", value))
                .map_err(|e| spec_error(&e))
        })
        .transpose()
}

/// The evaluation options from the evaluator's arguments, checked by the
/// spec's rules of `--missing`, `--rel` and `--score-threshold`.
pub fn evaluation(
    missing: &str,
    rel: f64,
    ties: Ties,
    threshold: Option<f64>,
    allow_empty_run: bool,
) -> PyResult<Options> {
    Ok(Options {
        missing: self::missing(missing)?,
        level: spec::relevance_level(&keyword(rel, "rel", rel)).map_err(|e| spec_error(&e))?,
        ties,
        score_threshold: score_threshold(threshold)?,
        allow_empty_run,
        // BEIR's convention: set by the caller that takes it
        // (`SparkEvaluator`'s `drop_identical_ids`).
        drop_identical_ids: false,
    })
}
