//! `--judged-only`, TOML `judged_only` and a metric's own `judged_only`:
//! unjudged documents are removed from each ranking before scoring, every
//! metric's name says so, gates name the metric as written, and `explain`
//! puts the condensed list's terms at the documents' ranks.

use super::{run_in, scratch, transcript};

/// q1: d5 and d6 are unjudged, d4 has a negative grade (in the pool, not
/// judged); the condensed list is d1 d2 d3. q2 retrieves nothing judged (a
/// relevant d1 it misses). Shared with `bounds`.
pub(super) const QRELS: &str = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq1 0 d4 -1\nq2 0 d1 2\n";
pub(super) const RUN: &str = "q1 Q0 d5 1 0.9 t\nq1 Q0 d1 2 0.8 t\nq1 Q0 d4 3 0.7 t\n\
                   q1 Q0 d6 4 0.6 t\nq1 Q0 d2 5 0.5 t\nq1 Q0 d3 6 0.4 t\n\
                   q2 Q0 d9 1 0.5 t\nq2 Q0 d8 2 0.4 t\n";

/// `rankeval eval` on [`QRELS`] and [`RUN`] (named `run`), with `args`
/// after the inputs.
pub(super) fn eval(args: &[&str]) -> (i32, String, String) {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let mut all = vec!["eval", "--qrels", "qrels.txt", "--run", "run=run.trec"];
    all.extend_from_slice(args);
    let result = run_in(dir.path(), &all);
    assert!(!result.2.contains("panicked"), "{}", result.2);
    result
}

/// The values of `query`'s row in a per-query CSV report.
fn row(csv: &str, query: &str) -> Vec<f64> {
    let line = csv
        .lines()
        .find(|l| l.starts_with(&format!("run,{query},,")))
        .unwrap_or_else(|| panic!("no row for {query} in\n{csv}"));
    line.split(',')
        .skip(3)
        .map(|v| v.parse().unwrap())
        .collect()
}

const METRICS: [&str; 6] = ["-m", "p@2", "-m", "ap", "-m", "rr"];

#[test]
fn the_flag_scores_the_condensed_list() {
    let mut args = METRICS.to_vec();
    args.extend_from_slice(&["--per-query", "--format", "csv", "--judged-only"]);
    let (code, csv, stderr) = eval(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        csv.lines()
            .next()
            .unwrap()
            .ends_with("p(judged_only=true)@2,ap(judged_only=true),rr(judged_only=true)"),
        "{csv}"
    );
    // Condensed: d1 (rel) d2 (non-rel) d3 (rel): P@2 = 1/2, AP = (1/1 +
    // 2/3) / 2, RR = 1. q2: nothing judged retrieved, 0.
    assert_eq!(row(&csv, "q1"), [0.5, (1.0 + 2.0 / 3.0) / 2.0, 1.0]);
    assert_eq!(row(&csv, "q2"), [0.0, 0.0, 0.0]);
    // Without it: d1 at rank 2, d3 at rank 6.
    let mut args = METRICS.to_vec();
    args.extend_from_slice(&["--per-query", "--format", "csv"]);
    let (_, plain, _) = eval(&args);
    assert_eq!(row(&plain, "q1"), [0.5, (0.5 + 2.0 / 6.0) / 2.0, 0.5]);
    // A metric's own parameter gives the same values, side by side with the
    // plain metric.
    let (code, both, stderr) = eval(&[
        "-m",
        "ap(judged_only=true)",
        "-m",
        "ap",
        "--per-query",
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        row(&both, "q1"),
        [(1.0 + 2.0 / 3.0) / 2.0, (0.5 + 2.0 / 6.0) / 2.0]
    );
}

#[test]
fn table_report() {
    let mut args = METRICS.to_vec();
    args.push("--judged-only");
    let result = eval(&args);
    assert_eq!(result.0, 0, "{}", result.2);
    let mut shown = vec!["eval", "--qrels", "qrels.txt", "--run", "run=run.trec"];
    shown.extend_from_slice(&args);
    insta::assert_snapshot!("judged_only_table", transcript(&shown, result));
}

#[test]
fn gates_name_the_metric_as_written() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN), ("base.trec", RUN)]);
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "run=run.trec",
        "--run",
        "base=base.trec",
        "--baseline",
        "base",
        "-m",
        "rr",
        "--judged-only",
        "--gate",
        "rr:at_least(0.4)",
        "--format",
        "json",
    ];
    let (code, json, stderr) = run_in(dir.path(), &args);
    assert_eq!(code, 0, "{stderr}");
    assert!(json.contains("\"rr(judged_only=true)\""), "{json}");
    let toml = "qrels = \"qrels.txt\"\njudged_only = true\nbaseline = \"base\"\n\
                [[runs]]\nname = \"run\"\npath = \"run.trec\"\n\
                [[runs]]\nname = \"base\"\npath = \"base.trec\"\n\
                [[metrics]]\ntype = \"rr\"\n\
                [[gates]]\nmetric = \"rr\"\nrule = \"at_least\"\nfloor = 0.4\n";
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("run.trec", RUN),
        ("base.trec", RUN),
        ("experiment.toml", toml),
    ]);
    let (code, text, stderr) = run_in(dir.path(), &["run", "experiment.toml", "--per-query"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(text.contains("rr(judged_only=true)"), "{text}");
}

#[test]
fn explain_shows_the_removed_documents() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let args = [
        "explain",
        "--qrels",
        "qrels.txt",
        "--run",
        "run.trec",
        "--query",
        "q1",
        "-m",
        "ap(judged_only=true)",
    ];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 0, "{}", result.2);
    insta::assert_snapshot!("judged_only_explain", transcript(&args, result));
}
