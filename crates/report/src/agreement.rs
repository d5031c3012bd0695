//! `rankeval agree`'s report ([`rankeval::agreement::AgreementReport`]):
//! the documents both sets judge, Cohen's kappa with its confusion matrix
//! and each label's kappa, and the runs' means under each set with
//! Kendall's tau and top-k agreement, as aligned text; or the report as
//! one JSON document.

use std::fmt::Write as _;

use rankeval::agreement::AgreementReport;
use rankeval_stats::agreement::{KappaWeights, KendallMethod};

/// How `rankeval agree` prints its report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AgreementFormat {
    /// Aligned text for a terminal.
    #[default]
    Table,
    /// One JSON document (the report's own fields).
    Json,
}

/// `report` in `format`.
pub fn render(report: &AgreementReport, format: AgreementFormat) -> String {
    match format {
        AgreementFormat::Table => table(report),
        AgreementFormat::Json => crate::json::document_text(report),
    }
}

/// A number with 4 decimals, `nan` as such.
fn number(value: f64) -> String {
    format!("{value:.4}")
}

/// The aligned-text report.
fn table(report: &AgreementReport) -> String {
    let mut out = String::new();
    let k = &report.kappa;
    let _ = writeln!(
        out,
        "{} and {}: {} documents judged by both ({} by {} only, {} by {} only)",
        report.first,
        report.second,
        report.shared,
        report.first_only,
        report.first,
        report.second_only,
        report.second
    );
    let _ = writeln!(
        out,
        "Cohen's kappa ({} weights) {}: observed agreement {}, by chance {}",
        match k.weights {
            KappaWeights::None => "no",
            KappaWeights::Linear => "linear",
            KappaWeights::Quadratic => "quadratic",
        },
        number(k.kappa),
        number(k.observed_agreement),
        number(k.expected_agreement)
    );
    let width = k
        .labels
        .iter()
        .map(|l| l.to_string().len())
        .chain(k.confusion.iter().flatten().map(|c| c.to_string().len()))
        .max()
        .unwrap_or(1)
        .max(6);
    let _ = writeln!(
        out,
        "\nlabels ({} down, {} across; kappa: each label against the rest, unweighted)",
        report.first, report.second
    );
    let _ = write!(out, "{:>width$}", "");
    for label in &k.labels {
        let _ = write!(out, "  {:>width$}", label.to_string());
    }
    let _ = writeln!(out, "  {:>width$}", "kappa");
    for (i, label) in k.labels.iter().enumerate() {
        let _ = write!(out, "{:>width$}", label.to_string());
        for count in &k.confusion[i] {
            let _ = write!(out, "  {count:>width$}");
        }
        let _ = writeln!(out, "  {:>width$}", number(k.per_label[i].kappa));
    }
    if !report.metrics.is_empty() {
        let _ = writeln!(
            out,
            "\nruns on the {} queries both judge: mean under {} / {} (difference)",
            report.queries, report.first, report.second
        );
        for metric in &report.metrics {
            let _ = writeln!(out, "{}", metric.metric);
            for (r, run) in report.runs.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "  {run:<16} {} / {} ({:+.4})",
                    number(metric.first[r]),
                    number(metric.second[r]),
                    metric.difference[r]
                );
            }
            match &metric.tau {
                Some(tau) => {
                    let _ = writeln!(
                        out,
                        "  Kendall's tau {} (p = {}, {})",
                        number(tau.tau),
                        number(tau.p_value),
                        match tau.method {
                            KendallMethod::Exact => "exact",
                            KendallMethod::Asymptotic => "asymptotic",
                            KendallMethod::Undefined => "undefined",
                        }
                    );
                }
                None => out.push_str("  Kendall's tau: needs 2 runs or more\n"),
            }
            match metric.top_k {
                Some(share) => {
                    let _ = writeln!(out, "  top-{} agreement {}", report.k, number(share));
                }
                None => {
                    let _ = writeln!(
                        out,
                        "  top-{} agreement: needs {} runs or more",
                        report.k, report.k
                    );
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use rankeval::agreement::MetricAgreement;
    use rankeval::engine::QuerySample;
    use rankeval_stats::agreement::{cohen_kappa, kendall_tau};

    use super::*;

    /// `llm` and `human` on six documents (grades 0 to 2, one
    /// disagreement), with `metrics` over `runs`.
    fn report(runs: &[&str], metrics: Vec<MetricAgreement>) -> AgreementReport {
        let llm = [0.0, 1.0, 2.0, 2.0, 1.0, 0.0];
        let human = [0.0, 1.0, 2.0, 1.0, 1.0, 0.0];
        AgreementReport {
            first: "llm".into(),
            second: "human".into(),
            shared: 6,
            first_only: 1,
            second_only: 0,
            kappa: cohen_kappa(&llm, &human, KappaWeights::Quadratic).unwrap(),
            runs: runs.iter().map(|r| (*r).to_owned()).collect(),
            queries: 3,
            missing: vec![QuerySample::default(); runs.len()],
            k: 2,
            metrics,
        }
    }

    #[test]
    fn table_shows_kappa_the_confusion_matrix_and_the_runs_under_each_set() {
        let first = [0.5, 0.625, 0.25];
        let second = [0.5, 0.75, 0.125];
        let metric = MetricAgreement {
            metric: "ndcg@10".into(),
            first: first.to_vec(),
            second: second.to_vec(),
            difference: first.iter().zip(&second).map(|(a, b)| b - a).collect(),
            tau: Some(kendall_tau(&first, &second).unwrap()),
            top_k: Some(1.0),
        };
        insta::assert_snapshot!(render(
            &report(&["bm25", "dense", "splade"], vec![metric]),
            AgreementFormat::Table
        ));
    }

    #[test]
    fn one_run_has_no_tau_and_too_few_runs_no_top_k() {
        let metric = MetricAgreement {
            metric: "p@5".into(),
            first: vec![0.4],
            second: vec![0.3],
            difference: vec![-0.1],
            tau: None,
            top_k: None,
        };
        insta::assert_snapshot!(render(
            &report(&["bm25"], vec![metric]),
            AgreementFormat::Table
        ));
    }

    #[test]
    fn without_runs_the_table_stops_after_the_labels() {
        let table = render(&report(&[], Vec::new()), AgreementFormat::Table);
        assert!(!table.contains("runs on the"), "{table}");
        insta::assert_snapshot!(table);
    }

    #[test]
    fn json_is_the_report_with_a_final_newline() {
        let json = render(&report(&[], Vec::new()), AgreementFormat::Json);
        assert!(json.ends_with("}\n"), "{json}");
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["first"], "llm");
        assert_eq!(value["kappa"]["weights"], "quadratic");
    }
}
