//! CSV for a spreadsheet: columns `run,query,aggregate,<metric>...`, then
//! one column per corpus metric; one row per run and aggregator (query
//! empty), and with per-query values one row per run and query (aggregate
//! empty). A corpus metric has one value per run, not aggregated: it is in
//! every aggregate row of its run (so a filter on one aggregator keeps it)
//! and empty in per-query rows. When an aggregator gives intervals (`ci`),
//! two last columns per metric, `<metric>.lower` and `<metric>.upper`,
//! hold its bounds in its rows (empty in the other rows). With groups of
//! queries (`--groups`), a last column `group` (`segment=tail`) and one row
//! per run, group and aggregator after the run's own (`group` empty there).
//! Values at full precision.

use super::{RenderOptions, Report};

pub(super) fn render(report: &Report, options: RenderOptions) -> String {
    let mut out = String::new();
    let mut header = vec!["run".to_owned(), "query".to_owned(), "aggregate".to_owned()];
    header.extend(report.metrics.iter().map(|m| m.name.clone()));
    header.extend(report.corpus.iter().cloned());
    let bounds = report.has_intervals();
    if bounds {
        for metric in &report.metrics {
            header.push(format!("{}.lower", metric.name));
            header.push(format!("{}.upper", metric.name));
        }
    }
    let grouped = report.runs.iter().any(|r| !r.groups.is_empty());
    if grouped {
        header.push("group".to_owned());
    }
    line(&mut out, &header);
    for run in &report.runs {
        for (a, aggregator) in report.aggregators.iter().enumerate() {
            let mut row = vec![run.name.clone(), String::new(), aggregator.clone()];
            row.extend(run.aggregates.iter().map(|values| number(values[a])));
            row.extend(run.corpus.iter().map(|&value| number(value)));
            if bounds {
                for m in 0..report.metrics.len() {
                    let interval = run.interval(m, a);
                    row.push(interval.map_or_else(String::new, |b| number(b.lower)));
                    row.push(interval.map_or_else(String::new, |b| number(b.upper)));
                }
            }
            if grouped {
                row.push(String::new());
            }
            line(&mut out, &row);
        }
        for group in &run.groups {
            for (a, aggregator) in report.aggregators.iter().enumerate() {
                let mut row = vec![run.name.clone(), String::new(), aggregator.clone()];
                row.extend(group.aggregates.iter().map(|values| number(values[a])));
                row.extend(run.corpus.iter().map(|_| String::new()));
                if bounds {
                    for m in 0..report.metrics.len() {
                        let interval = group.interval(m, a);
                        row.push(interval.map_or_else(String::new, |b| number(b.lower)));
                        row.push(interval.map_or_else(String::new, |b| number(b.upper)));
                    }
                }
                row.push(group.label());
                line(&mut out, &row);
            }
        }
        if options.per_query {
            for (q, query) in run.queries.iter().enumerate() {
                let mut row = vec![run.name.clone(), query.clone(), String::new()];
                row.extend(run.per_query.iter().map(|column| number(column[q])));
                row.extend(run.corpus.iter().map(|_| String::new()));
                if bounds {
                    row.extend((0..2 * report.metrics.len()).map(|_| String::new()));
                }
                if grouped {
                    row.push(String::new());
                }
                line(&mut out, &row);
            }
        }
    }
    out
}

/// Shortest text that reads back as the same f64; NaN is an empty cell.
pub(super) fn number(value: f64) -> String {
    if value.is_nan() {
        String::new()
    } else {
        value.to_string()
    }
}

pub(super) fn line(out: &mut String, cells: &[String]) {
    let quoted: Vec<String> = cells.iter().map(|c| quote(c)).collect();
    out.push_str(&quoted.join(","));
    out.push('\n');
}

/// RFC 4180: quote a cell holding a comma, quote or line break.
fn quote(cell: &str) -> String {
    if cell.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;

    #[test]
    fn summary_and_per_query() {
        insta::assert_snapshot!(render(
            &sample(&["mean"]),
            RenderOptions { per_query: true }
        ));
    }

    #[test]
    fn intervals_are_two_columns_per_metric_in_their_aggregators_rows() {
        insta::assert_snapshot!(render(
            &super::super::tests::sample_with_intervals(),
            RenderOptions { per_query: true }
        ));
    }

    #[test]
    fn groups_are_rows_with_a_group_column() {
        insta::assert_snapshot!(render(
            &super::super::tests::sample_with_groups(),
            RenderOptions { per_query: true }
        ));
    }

    #[test]
    fn corpus_metrics_are_columns_of_the_aggregate_rows() {
        insta::assert_snapshot!(render(
            &super::super::tests::sample_with_corpus(&["mean", "median"]),
            RenderOptions { per_query: true }
        ));
    }
}
