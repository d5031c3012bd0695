//! Metrics written in Python: a function of one query's judged ranking,
//! registered by name and used in the metric syntax next to the built-ins
//! (`"my_kpi@10"`).
//!
//! The function is called once per evaluated query, from the engine's
//! worker threads, each taking the GIL for the call, with three arguments:
//! the grades by rank (NumPy `float64`, ranks 1..k or the whole list; 0 for a
//! document the qrels do not mention), the number of relevant documents
//! (grade at least the relevance level), and every judged grade of the
//! query in descending order (the ideal ranking, NumPy `float64`). It returns
//! a number. The first exception it raises stops the evaluation and is
//! raised from `evaluate`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankeval_core::syntax::{Spec, expand_cutoffs};
use rankeval_core::{
    Cutoff, JudgedRanking, Metric, ParamValue, RequestedMetric, parse_requested, registry,
};
use serde::{Deserialize, Serialize};

use crate::errors::{MetricError, located, metric_error};

/// The registered Python metrics, by lowercase name.
static REGISTERED: Mutex<Option<HashMap<String, Arc<Py<PyAny>>>>> = Mutex::new(None);

fn registered() -> MutexGuard<'static, Option<HashMap<String, Arc<Py<PyAny>>>>> {
    REGISTERED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Registers `function` as the metric `name` (replacing a Python metric of
/// that name; a built-in name is refused).
#[pyfunction]
pub fn register_metric(name: &str, function: Py<PyAny>, py: Python<'_>) -> PyResult<()> {
    let mut chars = name.chars();
    let snake = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !snake {
        return Err(PyValueError::new_err(format!(
            "metric name {name:?}: use lowercase letters, digits and _, starting with a letter or _"
        )));
    }
    if registry::find::<dyn Metric>(name).is_ok() {
        return Err(PyValueError::new_err(format!(
            "metric name {name:?} is a built-in metric (or its alias); choose another name"
        )));
    }
    if !function.bind(py).is_callable() {
        return Err(PyValueError::new_err(format!(
            "metric {name:?}: expected a function (grades, num_relevant, ideal_grades) -> float"
        )));
    }
    registered()
        .get_or_insert_with(HashMap::new)
        .insert(name.to_owned(), Arc::new(function));
    Ok(())
}

/// Forgets the Python metric `name`; returns whether it was registered.
#[pyfunction]
pub fn unregister_metric(name: &str) -> bool {
    registered()
        .as_mut()
        .is_some_and(|m| m.remove(&name.to_ascii_lowercase()).is_some())
}

/// The names of the registered Python metrics, sorted.
#[pyfunction]
pub fn python_metrics() -> Vec<String> {
    let mut names: Vec<String> = registered()
        .as_ref()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    names.sort();
    names
}

/// Metrics built for one evaluation, with a handle on each Python metric's
/// first error.
#[derive(Default)]
pub struct Metrics {
    /// The metrics, in the order given (unique by canonical name).
    pub metrics: Vec<Box<dyn Metric>>,
    /// The Python metrics' calls, by canonical name.
    calls: Vec<(String, Arc<PythonCall>)>,
    /// What a name as typed may mean to its reader and does not here
    /// (`MAP@10` is trec_eval's, not Kaggle's): the command line's notes,
    /// from the same `metric_note`.
    pub notes: Vec<String>,
}

impl Metrics {
    /// Whether every metric is a built-in (none is a Python function), as
    /// a process without the user's registrations (a Spark worker) needs.
    pub fn is_builtin(&self) -> bool {
        self.calls.is_empty()
    }

    /// Builds each spec: a registered Python metric (with an optional `@k`),
    /// else a built-in through the registry, as the command line does. A
    /// metric given twice (same canonical name) is kept once, as there.
    pub fn build(specs: &[String]) -> PyResult<Metrics> {
        let mut built = Metrics::default();
        // Every spec that does not build is named, one per line, as the
        // command line reports every bad `-m` at once.
        let mut bad: Vec<PyErr> = Vec::new();
        for spec in specs {
            let (metric, call) = match build_metric(spec) {
                Ok(built) => built,
                Err(error) => {
                    bad.push(error);
                    continue;
                }
            };
            if let Some(note) = rankeval::experiment::metric_note(spec, metric.as_ref())
                && !built.notes.contains(&note)
            {
                built.notes.push(note);
            }
            let name = metric.name();
            if built.metrics.iter().any(|m| m.name() == name) {
                continue;
            }
            if let Some(call) = call {
                built.calls.push((name, call));
            }
            built.metrics.push(metric);
        }
        match bad.len() {
            0 => Ok(built),
            1 => Err(bad.remove(0)),
            _ => Python::attach(|py| {
                let lines: Vec<String> = bad.iter().map(|e| e.value(py).to_string()).collect();
                Err(located::<MetricError>(None, None, &lines.join("\n")))
            }),
        }
    }

    /// Builds each spec as the spec's metrics take it, `(spec, metric)`: a
    /// registered Python metric (with an optional `@k`), else a per-query
    /// or corpus metric through the registry, as `-m` is read. The
    /// returned `Metrics` holds the Python metrics' handles only; the
    /// experiment dedups and renames the metrics.
    pub fn requested(specs: &[String]) -> PyResult<(Vec<(String, RequestedMetric)>, Metrics)> {
        let mut handles = Metrics::default();
        let mut requested = Vec::with_capacity(specs.len());
        let mut bad: Vec<PyErr> = Vec::new();
        // `ndcg@1,3` is one metric per cutoff, as for -m (Python metrics too).
        for spec in specs.iter().flat_map(|s| expand_cutoffs(s)) {
            let spec = &spec;
            match python_function(spec) {
                Ok(Some(_)) => match build_metric(spec) {
                    Ok((metric, call)) => {
                        if let Some(call) = call {
                            handles.calls.push((metric.name(), call));
                        }
                        requested.push((spec.clone(), RequestedMetric::Query(metric)));
                    }
                    Err(error) => bad.push(error),
                },
                Ok(None) => match parse_requested(spec) {
                    Ok(metric) => requested.push((spec.clone(), metric)),
                    Err(error) => bad.push(metric_error(spec, &error)),
                },
                Err(error) => bad.push(error),
            }
        }
        match bad.len() {
            0 => Ok((requested, handles)),
            1 => Err(bad.remove(0)),
            _ => Python::attach(|py| {
                let lines: Vec<String> = bad.iter().map(|e| e.value(py).to_string()).collect();
                Err(located::<MetricError>(None, None, &lines.join("\n")))
            }),
        }
    }

    /// Refuses bounds on a Python metric (`bounds=True`): it has no
    /// completions, the built-in metrics do.
    pub fn refuse_bounds(&self) -> PyResult<()> {
        match self.calls.first() {
            Some((name, _)) => Err(located::<MetricError>(
                None,
                None,
                &format!(
                    "bounds=True: `{name}` is a Python metric; bounds are computed for the built-in metrics"
                ),
            )),
            None => Ok(()),
        }
    }

    /// The first exception a Python metric raised, as a `MetricError`
    /// naming the metric, with the exception as its cause.
    pub fn take_error(&self, py: Python<'_>) -> Option<PyErr> {
        self.calls.iter().find_map(|(name, call)| {
            let raised = call
                .error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take()?;
            let error = located::<MetricError>(
                None,
                None,
                &format!("Python metric `{name}` raised {}", raised.value(py)),
            );
            error.set_cause(py, Some(raised));
            Some(error)
        })
    }
}

/// A built metric, and its call if it is a Python metric.
type Built = (Box<dyn Metric>, Option<Arc<PythonCall>>);

/// The registered Python function `spec` names, if it names one.
fn python_function(spec: &str) -> PyResult<Option<Arc<Py<PyAny>>>> {
    let parsed = Spec::parse(spec).map_err(|e| metric_error(spec, &e.into()))?;
    Ok(registered()
        .as_ref()
        .and_then(|m| m.get(&parsed.name.to_ascii_lowercase()).cloned()))
}

fn build_metric(spec: &str) -> PyResult<Built> {
    let parsed = Spec::parse(spec).map_err(|e| metric_error(spec, &e.into()))?;
    let function = registered()
        .as_ref()
        .and_then(|m| m.get(&parsed.name.to_ascii_lowercase()).cloned());
    let Some(function) = function else {
        let metric = registry::parse_metric(spec).map_err(|e| metric_error(spec, &e))?;
        return Ok((metric, None));
    };
    let mut k = None;
    for (param, value) in &parsed.params {
        match (param.as_str(), value) {
            ("k", ParamValue::Integer(n)) if *n > 0 => {
                k = usize::try_from(*n).ok().and_then(Cutoff::new);
            }
            _ => {
                return Err(located::<MetricError>(
                    None,
                    None,
                    &format!(
                        "metric `{spec}`: a Python metric takes only a cutoff `@k` (k >= 1), not `{param}`"
                    ),
                ));
            }
        }
    }
    let call = Arc::new(PythonCall {
        function,
        error: Mutex::new(None),
    });
    let metric = PythonMetric {
        name: parsed.name.to_ascii_lowercase(),
        k,
        call: Some(Arc::clone(&call)),
    };
    Ok((Box::new(metric), Some(call)))
}

/// A function and the first error it raised.
#[derive(Debug)]
struct PythonCall {
    function: Arc<Py<PyAny>>,
    error: Mutex<Option<PyErr>>,
}

/// A metric computed by a Python function (see the module docs).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PythonMetric {
    name: String,
    #[serde(default)]
    k: Option<Cutoff>,
    #[serde(skip)]
    call: Option<Arc<PythonCall>>,
}

#[typetag::serde(name = "python_metric")]
impl Metric for PythonMetric {
    fn name(&self) -> String {
        match self.k {
            Some(k) => format!("{}@{k}", self.name),
            None => self.name.clone(),
        }
    }

    fn depth(&self) -> Option<Cutoff> {
        self.k
    }

    fn score(&self, query: &JudgedRanking<'_>) -> f64 {
        let Some(call) = &self.call else {
            return f64::NAN;
        };
        Python::attach(|py| {
            // The lock is held only while no Python code runs: the function
            // may let the GIL go (the interpreter switches threads, or it
            // sleeps), and another engine thread, holding the GIL, must not
            // then wait for this lock.
            let failed = |call: &PythonCall| {
                call.error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .is_some()
            };
            if failed(call) {
                return f64::NAN;
            }
            let grades: Vec<f64> = query.top(self.k).iter().map(|j| j.grade()).collect();
            let grades = PyArray1::from_vec(py, grades);
            let ideal = PyArray1::from_slice(py, query.ideal_grades());
            let relevant = query.num_relevant(query.level(None));
            let value = call
                .function
                .call1(py, (grades, relevant, ideal))
                .and_then(|v| v.extract::<f64>(py));
            match value {
                Ok(value) => value,
                Err(raised) => {
                    let mut error = call.error.lock().unwrap_or_else(|p| p.into_inner());
                    if error.is_none() {
                        *error = Some(raised);
                    }
                    f64::NAN
                }
            }
        })
    }
}
