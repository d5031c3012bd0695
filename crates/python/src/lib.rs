//! Python bindings of rankeval: the native module `rankeval_rs._native`.
//!
//! This layer only converts and maps errors: inputs become the core's
//! `Qrels` and `Run` (files through the readers, dicts and table
//! columns through the builders), metrics come from the registry (or are
//! Python functions, see [`python_metric`]), and every number is computed
//! by the engine with the GIL released. The Python package
//! (`python/rankeval_rs`) dispatches on input types and shapes the results.

mod arrow;
mod columns;
mod compare;
mod errors;
mod evaluate;
mod fingerprint;
mod groups;
mod inputs;
mod interval;
mod keywords;
mod ope;
mod options;
mod python_metric;
mod report;
mod spark;
mod spark_ope;

use pyo3::prelude::*;

/// The native module; `rankeval_rs/__init__.py` wraps it.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // The package's version is the workspace's with the commit, as
    // `rankeval --version` prints it.
    m.add("__version__", rankeval::version())?;
    m.add("RankevalError", py.get_type::<errors::RankevalError>())?;
    m.add("InputError", py.get_type::<errors::InputError>())?;
    m.add("MetricError", py.get_type::<errors::MetricError>())?;
    m.add("ConfigError", py.get_type::<errors::ConfigError>())?;
    m.add("CompareError", py.get_type::<errors::CompareError>())?;
    m.add_class::<report::PyReport>()?;
    m.add_function(wrap_pyfunction!(report::run_experiment, m)?)?;
    m.add_function(wrap_pyfunction!(report::macro_suite, m)?)?;
    m.add_function(wrap_pyfunction!(report::load_suite, m)?)?;
    m.add_function(wrap_pyfunction!(compare::compare, m)?)?;
    m.add_function(wrap_pyfunction!(compare::systems, m)?)?;
    m.add_class::<inputs::PyQrels>()?;
    m.add_class::<inputs::PyRun>()?;
    m.add_function(wrap_pyfunction!(inputs::qrels_from_file, m)?)?;
    m.add_function(wrap_pyfunction!(inputs::run_from_file, m)?)?;
    m.add_function(wrap_pyfunction!(inputs::qrels_from_dict, m)?)?;
    m.add_function(wrap_pyfunction!(inputs::run_from_dict, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::qrels_from_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::run_from_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(inputs::qrels_from_columns, m)?)?;
    m.add_function(wrap_pyfunction!(inputs::run_from_columns, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate::evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate::report, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate::benchmark_parts, m)?)?;
    m.add_function(wrap_pyfunction!(interval::interval, m)?)?;
    m.add_function(wrap_pyfunction!(ope::ope, m)?)?;
    m.add_function(wrap_pyfunction!(groups::group_slices, m)?)?;
    m.add_function(wrap_pyfunction!(python_metric::register_metric, m)?)?;
    m.add_function(wrap_pyfunction!(python_metric::unregister_metric, m)?)?;
    m.add_function(wrap_pyfunction!(python_metric::python_metrics, m)?)?;
    m.add_function(wrap_pyfunction!(metric_names, m)?)?;
    m.add_class::<spark::SparkEvaluator>()?;
    m.add_class::<spark::SparkAggregates>()?;
    m.add_function(wrap_pyfunction!(spark::spark_aggregators, m)?)?;
    m.add_function(wrap_pyfunction!(spark::spark_aggregate_values, m)?)?;
    m.add_function(wrap_pyfunction!(spark::spark_corpus_names, m)?)?;
    m.add_function(wrap_pyfunction!(spark::spark_corpus_values, m)?)?;
    m.add_function(wrap_pyfunction!(spark::spark_merge_qrels_facts, m)?)?;
    m.add_function(wrap_pyfunction!(spark::keyed_states, m)?)?;
    m.add_function(wrap_pyfunction!(spark_ope::spark_ope_states, m)?)?;
    m.add_function(wrap_pyfunction!(spark_ope::spark_ope_check, m)?)?;
    m.add_function(wrap_pyfunction!(spark_ope::spark_ope_paired, m)?)?;
    m.add_function(wrap_pyfunction!(spark_ope::spark_ope_merge, m)?)?;
    m.add_function(wrap_pyfunction!(spark_ope::spark_ope_centres, m)?)?;
    m.add_function(wrap_pyfunction!(spark_ope::spark_ope_report, m)?)?;
    m.add_function(wrap_pyfunction!(spark::keyed_squares, m)?)?;
    m.add_function(wrap_pyfunction!(spark::keyed_mean, m)?)?;
    m.add_function(wrap_pyfunction!(spark::keyed_result, m)?)?;
    m.add_function(wrap_pyfunction!(spark::keyed_tukey_state, m)?)?;
    m.add_function(wrap_pyfunction!(spark::keyed_tukey_result, m)?)?;
    m.add_function(wrap_pyfunction!(canonical_names, m)?)?;
    m.add_function(wrap_pyfunction!(run_names, m)?)?;
    Ok(())
}

/// Every built-in metric's name, sorted (as `rankeval metrics` lists them).
#[pyfunction]
fn metric_names() -> Vec<&'static str> {
    rankeval::core::registry::metrics()
        .iter()
        .map(|d| d.name)
        .collect()
}

/// The report name of each run file of `paths` given without a name: the
/// one naming rule of every command (`rankeval::naming::run_names`).
#[pyfunction]
fn run_names(paths: Vec<std::path::PathBuf>) -> Vec<String> {
    rankeval::naming::run_names(&paths)
}

/// The canonical names of the metrics `specs`, as the results name their
/// columns (a metric given twice is named once); an error names every
/// spec that does not build.
#[pyfunction]
fn canonical_names(specs: Vec<String>) -> PyResult<Vec<String>> {
    Ok(python_metric::Metrics::build(&specs)?
        .metrics
        .iter()
        .map(|m| m.name())
        .collect())
}
