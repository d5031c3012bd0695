//! Results per group of queries (slices, `--groups`): each run's
//! aggregates over the queries of every group of every group column of a
//! groups file ([`QueryGroups`]), computed as the whole run's are (the
//! same aggregators, intervals included), so that a group's mean is the
//! mean of its queries' values in report order.

use std::collections::BTreeMap;

use rankeval_core::Aggregator;

use crate::read::QueryGroups;
use crate::report::{GroupResult, MetricColumn, ReportWarning, RunWarning, aggregate_run};

/// How many queries a warning names.
const EXAMPLES: usize = 5;

/// Run `run`'s results on every group of `groups` (read from the file
/// called `file`): `queries` and `per_query[m]` as [`crate::report::RunResult`]
/// holds them. Groups of a column come in byte order of their values;
/// evaluated queries in no group of a column are counted in a warning, as
/// are groups whose intervals could not be computed.
pub fn group_results(
    run: &str,
    queries: &[String],
    per_query: &[Vec<f64>],
    metrics: &[MetricColumn],
    aggregators: &[Box<dyn Aggregator>],
    groups: &QueryGroups,
    file: &str,
) -> (Vec<GroupResult>, Vec<RunWarning>) {
    let mut results = Vec::new();
    let mut warnings = Vec::new();
    for (c, column) in groups.columns().iter().enumerate() {
        let mut members: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        let mut without = Vec::new();
        for (q, query) in queries.iter().enumerate() {
            match groups.value(query, c) {
                Some(value) => members.entry(value).or_default().push(q),
                None => without.push(q),
            }
        }
        if !without.is_empty() {
            warnings.push(RunWarning {
                run: run.to_owned(),
                warning: ReportWarning::QueriesWithoutGroup {
                    groups: file.to_owned(),
                    column: column.clone(),
                    count: without.len(),
                    examples: without
                        .iter()
                        .take(EXAMPLES)
                        .map(|&q| queries[q].clone())
                        .collect(),
                },
            });
        }
        for (value, rows) in members {
            let columns: Vec<Vec<f64>> = per_query
                .iter()
                .map(|values| rows.iter().map(|&q| values[q]).collect())
                .collect();
            let label = format!("{run} [{column}={value}]");
            let aggregates = aggregate_run(&label, metrics, &columns, aggregators);
            warnings.extend(aggregates.warnings);
            results.push(GroupResult {
                column: column.clone(),
                value: value.to_owned(),
                queries: rows.iter().map(|&q| queries[q].clone()).collect(),
                aggregates: aggregates.values,
                intervals: aggregates.intervals,
            });
        }
    }
    (results, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::registry::parse_aggregator;

    #[test]
    fn each_group_aggregates_its_own_queries_in_report_order() {
        let groups = QueryGroups::from_rows(
            "query",
            vec!["segment".into()],
            [
                ("q1".to_owned(), vec!["tail".to_owned()]),
                ("q2".to_owned(), vec!["head".to_owned()]),
                ("q3".to_owned(), vec!["tail".to_owned()]),
                ("q4".to_owned(), vec![String::new()]),
            ],
        )
        .expect("groups");
        let queries: Vec<String> = ["q1", "q2", "q3", "q4", "q5"].map(String::from).to_vec();
        let per_query = vec![vec![0.1, 0.2, 0.7, 0.4, 0.5]];
        let metrics = vec![MetricColumn {
            name: "ap".into(),
            trec: None,
        }];
        let aggregators = vec![parse_aggregator("mean").expect("mean")];
        let (results, warnings) = group_results(
            "run",
            &queries,
            &per_query,
            &metrics,
            &aggregators,
            &groups,
            "groups.csv",
        );
        let labels: Vec<String> = results.iter().map(GroupResult::label).collect();
        assert_eq!(labels, ["segment=head", "segment=tail"]);
        assert_eq!(results[0].aggregates, vec![vec![0.2]]);
        assert_eq!(results[1].queries, ["q1", "q3"]);
        assert_eq!(
            results[1].aggregates[0][0].to_bits(),
            ((0.1 + 0.7) / 2.0f64).to_bits()
        );
        let [warning] = warnings.as_slice() else {
            panic!("one warning: {warnings:?}");
        };
        assert_eq!(
            warning.to_string(),
            "run `run`: 2 evaluated queries have no group in column `segment` of groups.csv \
             (e.g. `q4`, `q5`): they count in the run's results, in no group's"
        );
    }
}
