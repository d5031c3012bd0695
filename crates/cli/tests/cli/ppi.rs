//! `rankeval ppi` on examples/judgements (an LLM's labels for 40 queries,
//! people's for 15): the report, and its numbers recomputed from `rankeval
//! eval`'s per-query values under each set of judgements (λ = 0: people's
//! mean alone; λ = 1: plain PPI, the model's mean on the unlabelled queries
//! plus the labelled queries' mean correction).

use crate::rankeval_snapshot;

const DIR: &str = "examples/judgements";

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "ppi",
        "--qrels",
        "examples/judgements/llm.qrels",
        "--human",
        "examples/judgements/human.qrels",
        "--run",
        "examples/judgements/bm25.trec",
        "--run",
        "examples/judgements/dense.trec",
        "-m",
        "ndcg@5",
        "-m",
        "p@5",
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn table_with_a_baseline_and_gates() {
    rankeval_snapshot!(
        "ppi_table",
        &args(&[
            "--baseline",
            "bm25",
            "--gate",
            "ndcg@5:superior",
            "--gate",
            "p@5:at_least(0.9)",
            "--no-fail",
        ])
    );
}

#[test]
fn a_failed_gate_exits_1() {
    let (code, _, stderr) = super::run(&args(&["--gate", "p@5:at_least(0.99)"]));
    assert_eq!(code, 1, "{stderr}");
}

/// `query -> value` of one run and metric, from `rankeval eval`'s JSON.
fn per_query(qrels: &str, run: &str, metric: &str) -> Vec<(String, f64)> {
    let (code, json, stderr) = super::run(&[
        "eval",
        "--qrels",
        &format!("{DIR}/{qrels}"),
        "--run",
        &format!("{DIR}/{run}.trec"),
        "-m",
        metric,
        "--per-query",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let document: serde_json::Value = serde_json::from_str(&json).unwrap();
    document["runs"][0]["per_query"][metric]
        .as_object()
        .unwrap()
        .iter()
        .map(|(q, v)| (q.clone(), v.as_f64().unwrap()))
        .collect()
}

fn ppi_json(extra: &[&str]) -> serde_json::Value {
    let (code, json, stderr) = super::run(&args(&[&["--format", "json"], extra].concat()));
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&json).unwrap()
}

fn mean(values: &[f64]) -> f64 {
    rankeval::core::exact_sum::fmean(values)
}

#[test]
fn estimates_equal_the_per_query_values_of_eval() {
    for (r, run) in ["bm25", "dense"].into_iter().enumerate() {
        for (m, metric) in ["ndcg@5", "p@5"].into_iter().enumerate() {
            let model = per_query("llm.qrels", run, metric);
            let human: std::collections::HashMap<String, f64> =
                per_query("human.qrels", run, metric).into_iter().collect();
            assert_eq!((model.len(), human.len()), (40, 15));
            let unlabelled: Vec<f64> = model
                .iter()
                .filter(|(q, _)| !human.contains_key(q))
                .map(|(_, v)| *v)
                .collect();
            let correction: Vec<f64> = model
                .iter()
                .filter_map(|(q, f)| human.get(q).map(|y| y - f))
                .collect();
            let people: Vec<f64> = human.values().copied().collect();
            let plain = ppi_json(&["--lambda", "1"]);
            let got = plain["runs"][r]["metrics"][m]["mean"]["estimate"]
                .as_f64()
                .unwrap();
            assert_eq!(got, mean(&unlabelled) + mean(&correction), "{run} {metric}");
            let alone = ppi_json(&["--lambda", "0"]);
            let got = alone["runs"][r]["metrics"][m]["mean"]["estimate"]
                .as_f64()
                .unwrap();
            let want = mean(&people);
            assert!(
                (got - want).abs() < 1e-15,
                "{run} {metric}: {got} != {want}"
            );
            let classical = alone["runs"][r]["metrics"][m]["mean"]["classical"]["mean"]
                .as_f64()
                .unwrap();
            assert_eq!(classical, got);
        }
    }
}

#[test]
fn errors_name_the_flag() {
    let (code, _, stderr) = super::run(&args(&["--lambda", "often"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("--lambda often"), "{stderr}");
    let (code, _, stderr) = super::run(&args(&["--baseline", "nope"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("baseline `nope`"), "{stderr}");
    let (code, _, stderr) = super::run(&args(&["--gate", "ap:superior"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("`ap` is not evaluated"), "{stderr}");
}

#[test]
fn markdown_is_one_table_then_the_summary() {
    let (code, text, stderr) = super::run(&args(&["--format", "markdown"]));
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("| metric | run | PPI mean [interval] |"),
        "{text}"
    );
    assert!(lines[1].starts_with("| --- | --- |"), "{text}");
    // Two metrics of two runs, then a blank line and the summary.
    assert!(lines[2..6].iter().all(|l| l.starts_with("| ")), "{text}");
    assert_eq!(lines[6], "");
    assert!(
        lines[7].starts_with("bm25: 40 queries judged by the model"),
        "{text}"
    );
}
