//! The example's binary evaluates its own metric from TOML and from `-m`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_rankeval-example-custom-metric"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .env_clear()
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn means(json: &str, metric: &str) -> Vec<f64> {
    let document: serde_json::Value = serde_json::from_str(json).unwrap();
    document["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| run["metrics"][metric]["mean"].as_f64().unwrap())
        .collect()
}

#[test]
fn evaluates_its_own_metric_from_toml() {
    let (code, stdout, stderr) = run(&["run", "experiment.toml", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let attention = means(&stdout, "attention_share(decay=0.7)@5");
    let precision = means(&stdout, "p@5");
    assert_eq!(attention.len(), 2);
    for value in attention.iter().chain(&precision) {
        assert!((0.0..=1.0).contains(value), "{value}");
    }
    // Different weights give different numbers than precision on this data.
    assert_ne!(attention, precision);
}

#[test]
fn the_short_syntax_and_the_listing_know_it() {
    let (code, stdout, stderr) = run(&[
        "eval",
        "--qrels",
        "../quickstart/qrels.txt",
        "--run",
        "../quickstart/runs/baseline.trec",
        "-m",
        "attn(decay=0.7)@5",
        "-m",
        "attention_share(decay=1)@5",
        "-m",
        "p@5",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    // decay = 1 is precision@k, exactly.
    assert_eq!(
        means(&stdout, "attention_share(decay=1)@5"),
        means(&stdout, "p@5")
    );
    let (code, listing, _) = run(&["metrics"]);
    assert_eq!(code, 0);
    assert!(listing.contains("attention_share (attn)"), "{listing}");
    assert!(listing.contains("average_precision (ap, map)"), "{listing}");
}
