//! `rankeval overlap`'s report ([`rankeval::overlap::OverlapReport`]): how
//! far two runs agree without judgements, each statistic (RBO's four
//! scores, top-k overlap, Kendall's tau) aggregated over the queries, and
//! optionally every query's values, as aligned text; or the report as one
//! JSON document.

use std::fmt::Write as _;

use rankeval::overlap::{OverlapReport, statistic_names};

/// How `rankeval overlap` prints its report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OverlapFormat {
    /// Aligned text for a terminal.
    #[default]
    Table,
    /// One JSON document (the report's own fields).
    Json,
}

/// `report` in `format`; the table lists every query's values when
/// `per_query` (the JSON document always holds them).
pub fn render(report: &OverlapReport, format: OverlapFormat, per_query: bool) -> String {
    match format {
        OverlapFormat::Table => table(report, per_query),
        OverlapFormat::Json => crate::json::document_text(report),
    }
}

/// A number with 4 decimals.
fn number(value: f64) -> String {
    format!("{value:.4}")
}

/// Pads `cells` into columns, the first left-aligned, the others right.
fn columns(rows: &[Vec<String>]) -> String {
    let count = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..count)
        .map(|c| {
            rows.iter()
                .filter_map(|row| row.get(c))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c == 0 {
                let _ = write!(line, "{cell:<width$}", width = widths[c]);
            } else {
                let _ = write!(line, "  {cell:>width$}", width = widths[c]);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The aligned-text report.
fn table(report: &OverlapReport, per_query: bool) -> String {
    let mut out = String::new();
    let options = &report.options;
    let _ = writeln!(
        out,
        "{} and {}: {} queries compared (RBO p = {}, ties {}; top k = {})",
        report.first,
        report.second,
        report.queries.len(),
        options.p,
        options.ties.name(),
        options.k
    );
    let left_out = [
        (&report.first_only, format!("only in {}", report.first)),
        (&report.second_only, format!("only in {}", report.second)),
        (&report.empty, "with an empty list in one run".to_owned()),
    ];
    for (sample, what) in left_out {
        if !sample.is_empty() {
            let noun = if sample.count == 1 {
                "query"
            } else {
                "queries"
            };
            let _ = writeln!(out, "left out: {} {noun} {what}", sample.count);
        }
    }
    out.push('\n');
    let aggregators: Vec<&str> = report
        .summary
        .iter()
        .find(|s| !s.aggregates.is_empty())
        .map(|s| s.aggregates.iter().map(|a| a.aggregator.as_str()).collect())
        .unwrap_or_default();
    let mut rows = vec![
        std::iter::once("statistic".to_owned())
            .chain(std::iter::once("queries".to_owned()))
            .chain(aggregators.iter().map(|a| (*a).to_owned()))
            .collect::<Vec<_>>(),
    ];
    for summary in &report.summary {
        let mut row = vec![summary.statistic.clone(), summary.queries.to_string()];
        for aggregate in &summary.aggregates {
            row.push(match aggregate.interval {
                Some([lower, upper]) => format!(
                    "{} [{}, {}]",
                    number(aggregate.value),
                    number(lower),
                    number(upper)
                ),
                None => number(aggregate.value),
            });
        }
        if summary.aggregates.is_empty() {
            row.extend(aggregators.iter().map(|_| "-".to_owned()));
        }
        rows.push(row);
    }
    out.push_str(&columns(&rows));
    if per_query {
        out.push('\n');
        let names = statistic_names(options.k);
        let mut rows = vec![
            ["query", "length", "length"]
                .iter()
                .map(|s| (*s).to_owned())
                .chain(names.iter().cloned())
                .collect::<Vec<_>>(),
        ];
        rows[0][1] = report.first.clone();
        rows[0][2] = report.second.clone();
        for q in &report.queries {
            rows.push(vec![
                rankeval::core::shorten_id(q.query.as_bytes()).to_string(),
                q.lengths[0].to_string(),
                q.lengths[1].to_string(),
                number(q.rbo.ext),
                number(q.rbo.min),
                number(q.rbo.max),
                number(q.rbo.res),
                number(q.top_k),
                q.tau.map_or_else(|| "-".to_owned(), number),
            ]);
        }
        out.push_str(&columns(&rows));
    }
    out
}

#[cfg(test)]
mod tests {
    use rankeval::core::{Duplicates, RunBuilder, registry::parse_aggregator};
    use rankeval::overlap::{OverlapOptions, overlap};
    use rankeval_stats::rbo::RboTies;

    use super::*;

    fn report() -> OverlapReport {
        let mut a = RunBuilder::new();
        let mut b = RunBuilder::new();
        for (q, d, s) in [
            ("1", "a", 3.0),
            ("1", "b", 2.0),
            ("1", "c", 2.0),
            ("2", "a", 1.0),
            ("2", "b", 0.5),
            ("3", "x", 1.0),
        ] {
            a.push_scored(q, d, s).unwrap();
        }
        for (q, d, s) in [
            ("1", "b", 3.0),
            ("1", "a", 2.0),
            ("1", "d", 1.0),
            ("2", "b", 1.0),
            ("2", "a", 0.5),
            ("2", "e", 0.25),
            ("4", "y", 1.0),
        ] {
            b.push_scored(q, d, s).unwrap();
        }
        let (a, b) = (
            a.finish(Duplicates::Error).unwrap(),
            b.finish(Duplicates::Error).unwrap(),
        );
        let options = OverlapOptions {
            p: 0.9,
            ties: RboTies::A,
            k: 2,
        };
        let aggregators = vec![
            parse_aggregator("mean").unwrap(),
            parse_aggregator("ci").unwrap(),
        ];
        overlap(("bm25", &a), ("dense", &b), &options, &aggregators).unwrap()
    }

    #[test]
    fn table_with_means_intervals_and_queries() {
        insta::assert_snapshot!(render(&report(), OverlapFormat::Table, true));
    }

    #[test]
    fn json_holds_every_query() {
        let json = render(&report(), OverlapFormat::Json, false);
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["queries"].as_array().unwrap().len(), 2);
        assert_eq!(value["options"]["ties"], "a");
        assert_eq!(value["first_only"]["count"], 1);
        assert_eq!(value["summary"][0]["statistic"], "rbo_ext");
        assert!(json.ends_with("}\n"));
    }
}
