//! The `ci` aggregator (issue 26): every mean with its confidence interval,
//! in every format, from the command line and TOML; the bounds are those
//! of `rankeval_stats`'s interval functions (checked against scipy in
//! that crate's tests) on the run's own per-query values; an interval that
//! cannot be computed is a warning, never a panic or a silent gap.

use rankeval_stats::{bca_interval, t_interval};

use super::{run, run_in, scratch, transcript};
use crate::rankeval_snapshot;

const QRELS: &str = "examples/quickstart/qrels.txt";
const BASELINE: &str = "examples/quickstart/runs/baseline.trec";
const V2: &str = "examples/quickstart/runs/v2.jsonl";

/// A float read back from JSON: serde_json may round its last bit.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 4.0 * f64::EPSILON * a.abs().max(b.abs())
}

#[test]
fn table_shows_each_mean_with_its_bounds() {
    rankeval_snapshot!(
        "intervals_table",
        &[
            "eval",
            "--qrels",
            QRELS,
            "--run",
            BASELINE,
            "--run",
            V2,
            "-m",
            "ap",
            "-m",
            "ndcg@10",
            "-a",
            "mean",
            "-a",
            "ci",
            "-a",
            "ci(level=0.9,method=bca,seed=7)",
        ]
    );
}

#[test]
fn markdown_and_csv_carry_the_bounds() {
    rankeval_snapshot!(
        "intervals_markdown",
        &[
            "eval", "--qrels", QRELS, "--run", V2, "-m", "ap", "-m", "p@5", "-a", "ci", "--format",
            "markdown",
        ]
    );
    rankeval_snapshot!(
        "intervals_csv",
        &[
            "eval", "--qrels", QRELS, "--run", V2, "-m", "ap", "-m", "p@5", "-a", "mean", "-a",
            "ci", "--format", "csv",
        ]
    );
}

#[test]
fn json_bounds_are_the_interval_functions_on_the_per_query_values() {
    let args = [
        "eval",
        "--qrels",
        QRELS,
        "--run",
        BASELINE,
        "--run",
        V2,
        "-m",
        "ap",
        "-m",
        "ndcg@10",
        "-m",
        "rr",
        "-a",
        "ci(level=0.9)",
        "-a",
        "ci(method=bca,resamples=3000,seed=11)",
        "--format",
        "json",
        "--per-query",
    ];
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    let document: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
    let mut checked = 0;
    for run in document["runs"].as_array().expect("runs") {
        for metric in ["ap", "ndcg@10", "rr"] {
            let values: Vec<f64> = run["per_query"][metric]
                .as_object()
                .expect("per-query values")
                .values()
                .map(|v| v.as_f64().expect("a number"))
                .collect();
            assert_eq!(values.len(), 6);
            let shown = &run["metrics"][metric];
            let t = t_interval(&values, 0.9).expect("six values");
            let bca = bca_interval(&values, 0.95, 3000, 11).expect("six values");
            let mean = values.iter().sum::<f64>() / 6.0;
            for (key, expected) in [
                ("ci(level=0.9)", mean),
                ("ci(level=0.9).lower", t.lower),
                ("ci(level=0.9).upper", t.upper),
                ("ci(method=bca,resamples=3000,seed=11)", mean),
                (
                    "ci(method=bca,resamples=3000,seed=11).lower",
                    bca.interval.lower,
                ),
                (
                    "ci(method=bca,resamples=3000,seed=11).upper",
                    bca.interval.upper,
                ),
            ] {
                let got = shown[key].as_f64().unwrap_or(f64::NAN);
                assert!(close(got, expected), "{metric} {key}: {got} != {expected}");
                checked += 1;
            }
            // v2 ranks a relevant document first everywhere: rr is 1 on every
            // query, and its interval is [1, 1].
            assert!(shown["ci(level=0.9).lower"].as_f64() <= shown["ci(level=0.9)"].as_f64());
        }
    }
    assert_eq!(checked, 2 * 3 * 6);
}

#[test]
fn toml_takes_ci_in_the_short_syntax_and_as_a_table() {
    let dir = scratch(&[(
        "exp.toml",
        "qrels = \"qrels.txt\"\nmetrics = [\"ap\", \"ndcg@10\"]\n\
         aggregators = [\"mean\", \"ci(level=0.9)\"]\n\n[[runs]]\npath = \"v2.jsonl\"\n",
    )]);
    let root = super::workspace();
    std::fs::copy(root.join(QRELS), dir.path().join("qrels.txt")).expect("copy qrels");
    std::fs::copy(root.join(V2), dir.path().join("v2.jsonl")).expect("copy run");
    let (code, toml_out, stderr) = run_in(dir.path(), &["run", "exp.toml", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let (_, cli_out, _) = run(&[
        "eval",
        "--qrels",
        QRELS,
        "--run",
        V2,
        "-m",
        "ap",
        "-m",
        "ndcg@10",
        "-a",
        "mean",
        "-a",
        "ci(level=0.9)",
        "--format",
        "json",
    ]);
    let metrics = |text: &str| {
        let document: serde_json::Value = serde_json::from_str(text).expect("JSON");
        document["runs"][0]["metrics"].clone()
    };
    assert_eq!(metrics(&toml_out), metrics(&cli_out));
    assert!(metrics(&toml_out)["ap"]["ci(level=0.9).upper"].is_number());

    std::fs::write(
        dir.path().join("table.toml"),
        "qrels = \"qrels.txt\"\nmetrics = [\"ap\", \"ndcg@10\"]\n\n[[aggregators]]\n\
         type = \"mean\"\n\n[[aggregators]]\ntype = \"ci\"\nlevel = 0.9\n\n\
         [[runs]]\npath = \"v2.jsonl\"\n",
    )
    .expect("write");
    let (code, table_out, stderr) = run_in(dir.path(), &["run", "table.toml", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(metrics(&table_out), metrics(&cli_out));
}

#[test]
fn one_query_has_no_interval_and_says_why() {
    let dir = scratch(&[
        ("qrels.txt", "1 0 a 1\n1 0 b 0\n"),
        ("run.trec", "1 Q0 a 1 0.9 t\n1 Q0 b 2 0.5 t\n"),
    ]);
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "run.trec",
        "-m",
        "ap",
        "-m",
        "p@1",
        "-a",
        "ci",
    ];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 0);
    insta::assert_snapshot!("intervals_one_query", transcript(&args, result));
}

#[test]
fn bad_parameters_are_errors_naming_the_parameter() {
    for (spec, expected) in [
        ("ci(level=95)", "level must be strictly between 0 and 1"),
        ("ci(method=normal)", "method"),
        ("ci(seed=3)", "need method=bca"),
        ("ci(method=bca,resamples=0)", "resamples must be at least 1"),
    ] {
        let (code, _, stderr) = run(&["eval", "--qrels", QRELS, "--run", V2, "-a", spec]);
        assert_eq!(code, 2, "{spec}: {stderr}");
        assert!(stderr.contains(expected), "{spec}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
