//! `rankeval expected`'s report ([`rankeval::expected::ExpectedReport`]):
//! each run's and metric's expected value under the label distributions,
//! its standard error where it was sampled, the value at the most likely
//! labels and how many queries each way computed it (and with
//! `per_query`, the same per query), as aligned text; or the report as one
//! JSON document (every query's values always in it).

use std::fmt::Write as _;

use rankeval::expected::{ExpectedMetric, ExpectedReport, Method};

use crate::RenderOptions;
use crate::text::aligned;

/// How `rankeval expected` prints its report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExpectedFormat {
    /// Aligned text for a terminal.
    #[default]
    Table,
    /// One JSON document (the report's own fields).
    Json,
}

/// `report` in `format`; `options.per_query` adds the table of each
/// query's values to the aligned text (JSON always has them).
pub fn render(report: &ExpectedReport, format: ExpectedFormat, options: RenderOptions) -> String {
    match format {
        ExpectedFormat::Table => table(report, options.per_query),
        ExpectedFormat::Json => crate::json::document_text(report),
    }
}

fn number(value: f64) -> String {
    format!("{value:.4}")
}

/// How a metric's mean was computed, in words.
fn methods(metric: &ExpectedMetric) -> String {
    let parts: Vec<String> = [
        (metric.additive, "additive"),
        (metric.enumerated, "enumerated"),
        (metric.sampled, "sampled"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{what} {n}"))
    .collect();
    if parts.is_empty() {
        "no queries".to_owned()
    } else {
        parts.join(", ")
    }
}

/// The aligned-text report.
fn table(report: &ExpectedReport, per_query: bool) -> String {
    let mut out = String::new();
    let grades: Vec<String> = report.grades.iter().map(|g| g.to_string()).collect();
    let _ = writeln!(
        out,
        "Expected values under label distributions (grades {}): {} labelled queries, {} documents \
         with an uncertain grade",
        grades.join(", "),
        report.labelled_queries,
        report.uncertain_documents
    );
    let sampled = report
        .runs
        .iter()
        .flat_map(|r| &r.metrics)
        .any(|m| m.sampled > 0);
    if sampled {
        let _ = writeln!(
            out,
            "Monte Carlo where needed: {} draws per query, seed {}; generator {}",
            report.settings.samples, report.settings.seed, report.rng
        );
    }
    out.push('\n');
    let mut rows = vec![
        [
            "run",
            "metric",
            "expected",
            "± s.e.",
            "most likely",
            "queries: method",
        ]
        .map(str::to_owned)
        .to_vec(),
    ];
    for run in &report.runs {
        for metric in &run.metrics {
            rows.push(vec![
                run.name.clone(),
                metric.metric.clone(),
                number(metric.expected),
                if metric.sampled > 0 {
                    number(metric.standard_error)
                } else {
                    "exact".to_owned()
                },
                number(metric.most_likely),
                methods(metric),
            ]);
        }
    }
    out.push_str(&aligned(&rows, &[true, true, false, false, false, true]));
    out.push_str(
        "\nexpected: the mean over queries of each query's expected value; most likely: the \
         value at each document's most likely grade.\n",
    );
    if per_query {
        let mut rows = vec![
            [
                "run",
                "query",
                "metric",
                "expected",
                "± s.e.",
                "most likely",
                "method",
            ]
            .map(str::to_owned)
            .to_vec(),
        ];
        for run in &report.runs {
            for query in &run.queries {
                for (name, value) in report.metrics.iter().zip(&query.values) {
                    rows.push(vec![
                        run.name.clone(),
                        query.query.clone(),
                        name.clone(),
                        number(value.expected),
                        match value.method {
                            Method::Sampled => number(value.standard_error),
                            _ => "exact".to_owned(),
                        },
                        number(value.most_likely),
                        match value.method {
                            Method::Additive => "additive",
                            Method::Enumerated => "enumerated",
                            Method::Sampled => "sampled",
                        }
                        .to_owned(),
                    ]);
                }
            }
        }
        out.push('\n');
        out.push_str(&aligned(
            &rows,
            &[true, true, true, false, false, false, true],
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use rankeval::engine::QuerySample;
    use rankeval::expected::{ExpectedQuery, ExpectedRun, ExpectedSettings, QueryExpectation};

    use super::*;

    /// One query's value of one metric.
    fn value(expected: f64, most_likely: f64, method: Method) -> QueryExpectation {
        QueryExpectation {
            expected,
            standard_error: if method == Method::Sampled {
                0.0125
            } else {
                0.0
            },
            most_likely,
            method,
        }
    }

    /// One run, two metrics on two queries: `p@2` additive on both,
    /// `ndcg@2` enumerated on `q1` and, with `sampled`, sampled on `q2`.
    fn report(sampled: bool) -> ExpectedReport {
        let ndcg_q2 = if sampled {
            Method::Sampled
        } else {
            Method::Enumerated
        };
        let queries = vec![
            ExpectedQuery {
                query: "q1".into(),
                values: vec![
                    value(0.75, 1.0, Method::Additive),
                    value(0.8125, 1.0, Method::Enumerated),
                ],
            },
            ExpectedQuery {
                query: "q2".into(),
                values: vec![
                    value(0.25, 0.0, Method::Additive),
                    value(0.375, 0.5, ndcg_q2),
                ],
            },
        ];
        let metric = |metric: &str, expected: f64, most_likely: f64, additive, enumerated| {
            let sampled = 2 - additive - enumerated;
            ExpectedMetric {
                metric: metric.into(),
                expected,
                standard_error: if sampled > 0 { 0.00625 } else { 0.0 },
                most_likely,
                additive,
                enumerated,
                sampled,
            }
        };
        ExpectedReport {
            metrics: vec!["p@2".into(), "ndcg@2".into()],
            grades: vec![0.0, 1.0, 2.5],
            labelled_queries: 2,
            uncertain_documents: 3,
            settings: ExpectedSettings::default(),
            rng: "test-rng",
            runs: vec![ExpectedRun {
                name: "bm25".into(),
                metrics: vec![
                    metric("p@2", 0.5, 0.5, 2, 0),
                    metric("ndcg@2", 0.59375, 0.75, 0, if sampled { 1 } else { 2 }),
                ],
                queries,
                missing: QuerySample::default(),
            }],
        }
    }

    #[test]
    fn exact_values_say_exact_and_name_no_generator() {
        insta::assert_snapshot!(render(
            &report(false),
            ExpectedFormat::Table,
            RenderOptions::default()
        ));
    }

    #[test]
    fn sampled_values_show_their_error_and_the_draws_and_per_query_adds_a_table() {
        insta::assert_snapshot!(render(
            &report(true),
            ExpectedFormat::Table,
            RenderOptions { per_query: true }
        ));
    }

    #[test]
    fn json_has_every_query_whatever_per_query_says() {
        let json = render(
            &report(true),
            ExpectedFormat::Json,
            RenderOptions::default(),
        );
        assert!(json.ends_with("}\n"), "{json}");
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            value["runs"][0]["queries"][1]["values"][1]["method"],
            "sampled"
        );
        assert_eq!(value["rng"], "test-rng");
    }
}
