//! `interval`: one column's aggregate with its confidence interval, by an
//! aggregator that gives one (`ci`, in the command line's syntax), for
//! `Evaluation.interval`.

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankeval::core::registry::parse_aggregator;

use crate::errors::MetricError;

/// What `interval` returns: the aggregate, its bounds (None when there are
/// none), why there are none, and the aggregator's canonical name.
type Aggregated = (f64, Option<(f64, f64)>, Option<String>, String);

/// The aggregate of `values` by `aggregator` (e.g. `ci(level=0.9)`), its
/// bounds, why there are none when the values have no interval (too few,
/// not finite), and the aggregator's canonical name (with the resamples and
/// seed of a bootstrap). An aggregator that gives no interval (`mean`) is a
/// `ValueError`; a spec that does not parse, a `MetricError`.
#[pyfunction]
pub fn interval(
    py: Python<'_>,
    values: PyReadonlyArray1<'_, f64>,
    aggregator: &str,
) -> PyResult<Aggregated> {
    let parsed = parse_aggregator(aggregator).map_err(|e| {
        MetricError::new_err(format!(
            "aggregator `{aggregator}`: {}",
            rankeval::config::plugin_message(&e)
        ))
    })?;
    let values = values.as_slice()?.to_vec();
    let (value, interval) = py.detach(|| (parsed.aggregate(&values), parsed.interval(&values)));
    match interval {
        None => Err(PyValueError::new_err(format!(
            "aggregator `{aggregator}` gives no interval (ci does: ci(level=0.95, method=t|bca))"
        ))),
        Some(Ok(bounds)) => Ok((
            value,
            Some((bounds.lower, bounds.upper)),
            None,
            parsed.name(),
        )),
        Some(Err(reason)) => Ok((value, None, Some(reason), parsed.name())),
    }
}
