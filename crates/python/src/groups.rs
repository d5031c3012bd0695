//! `group_slices`: an evaluation's results per group of queries, for
//! `evaluate(..., groups=...)`: the groups read as the command line reads
//! `--groups` (a CSV/TSV or Parquet file) or given as a dict, and each
//! group's means computed as the command line computes them.

use std::path::PathBuf;

use numpy::{PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankeval::core::registry::parse_aggregator;
use rankeval::groups::{group_results, unevaluated_warnings};
use rankeval::read::{QueryGroups, read_groups};
use rankeval::report::MetricColumn;

use crate::errors::read_error;

/// Where the groups come from: a file, or `{query: {column: value}}`.
#[derive(FromPyObject)]
pub enum GroupsSource {
    /// A groups file, as `--groups` reads it.
    File(PathBuf),
    /// `{query: {column: value}}`; a missing or empty value is no group.
    Dict(Vec<(String, Vec<(String, String)>)>),
}

/// One group: `(column, value, rows, means)`, `rows` the group's rows of
/// `values` in order, `means` one per metric.
type Slice = (String, String, Vec<usize>, Vec<f64>);

/// The groups of an evaluation's queries and each group's means, with the
/// warnings the command line gives (queries in no group of a column, listed
/// queries not evaluated, groups left without any).
#[pyfunction]
pub fn group_slices(
    py: Python<'_>,
    run: &str,
    values: PyReadonlyArray2<'_, f64>,
    queries: Vec<String>,
    metrics: Vec<String>,
    groups: GroupsSource,
) -> PyResult<(Vec<Slice>, Vec<String>)> {
    let (groups, file) = match groups {
        GroupsSource::File(path) => (
            read_groups(&path).map_err(|e| read_error(&e))?,
            path.display().to_string(),
        ),
        GroupsSource::Dict(rows) => {
            let mut columns: Vec<String> = Vec::new();
            for (_, row) in &rows {
                for (column, _) in row {
                    if !columns.contains(column) {
                        columns.push(column.clone());
                    }
                }
            }
            let rows: Vec<(String, Vec<String>)> = rows
                .into_iter()
                .map(|(query, row)| {
                    let values = columns
                        .iter()
                        .map(|c| {
                            row.iter()
                                .find(|(k, _)| k == c)
                                .map_or_else(String::new, |(_, v)| v.trim().to_owned())
                        })
                        .collect();
                    (query, values)
                })
                .collect();
            (
                QueryGroups::from_rows("query", columns, rows).map_err(PyValueError::new_err)?,
                "the groups given".to_owned(),
            )
        }
    };
    let shape = values.shape();
    if shape != [queries.len(), metrics.len()] {
        return Err(PyValueError::new_err(format!(
            "{} x {} values for {} queries x {} metrics",
            shape[0],
            shape[1],
            queries.len(),
            metrics.len()
        )));
    }
    let array = values.as_array();
    let per_query: Vec<Vec<f64>> = array.columns().into_iter().map(|c| c.to_vec()).collect();
    let columns: Vec<MetricColumn> = metrics
        .iter()
        .map(|name| MetricColumn {
            name: name.clone(),
            trec: None,
        })
        .collect();
    let mean = parse_aggregator("mean").map_err(|e| PyValueError::new_err(e.to_string()))?;
    let aggregators = vec![mean];
    let (results, warnings) = py.detach(|| {
        let (results, mut warnings) = group_results(
            run,
            &queries,
            &per_query,
            &columns,
            &aggregators,
            &groups,
            &file,
        );
        // Listed queries not evaluated, and the groups they leave empty, as
        // the command line warns of them.
        warnings.extend(unevaluated_warnings(run, &queries, &groups, &file));
        (results, warnings)
    });
    let index: std::collections::HashMap<&str, usize> = queries
        .iter()
        .enumerate()
        .map(|(i, q)| (q.as_str(), i))
        .collect();
    let slices = results
        .into_iter()
        .map(|group| {
            let rows = group
                .queries
                .iter()
                .filter_map(|q| index.get(q.as_str()).copied())
                .collect();
            let means = group.aggregates.iter().map(|row| row[0]).collect();
            (group.column, group.value, rows, means)
        })
        .collect();
    Ok((slices, warnings.iter().map(ToString::to_string).collect()))
}
