//! `--ties` and a metric's own `ties` through the binary: the three
//! treatments on one list with tied scores, the same values whether the run
//! is read grouped (streamed) or not, TOML `ties`, `explain` showing the tie
//! groups, and the errors for a metric with no exact average or an order
//! its experiment does not give.

use super::{run_in, scratch, transcript};

/// q1: `a` (1) and `c` (2) are relevant; `a`, `b`, `c` tie at 2.0. q2: a
/// relevant `e` ties with `f` at the top.
const QRELS: &str = "q1 0 a 1\nq1 0 c 2\nq1 0 b 0\nq2 0 e 1\n";
const RUN: &str = "q1 Q0 z 1 3.0 t\nq1 Q0 a 2 2.0 t\nq1 Q0 b 3 2.0 t\nq1 Q0 c 4 2.0 t\nq1 Q0 d 5 1.0 t\n\
                   q2 Q0 e 1 0.5 t\nq2 Q0 f 2 0.5 t\n";
/// The same lines, queries interleaved: read whole, not streamed.
const RUN_UNGROUPED: &str = "q1 Q0 z 1 3.0 t\nq2 Q0 e 1 0.5 t\nq1 Q0 a 2 2.0 t\nq1 Q0 b 3 2.0 t\n\
                             q2 Q0 f 2 0.5 t\nq1 Q0 c 4 2.0 t\nq1 Q0 d 5 1.0 t\n";

const METRICS: [&str; 8] = ["-m", "rr", "-m", "p@2", "-m", "ndcg@3", "-m", "ap"];

fn eval(run: &str, extra: &[&str]) -> (i32, String, String) {
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("run.trec", RUN),
        ("ungrouped.trec", RUN_UNGROUPED),
    ]);
    // Named `run` whatever the file, so that outputs compare.
    let named = format!("run={run}");
    let mut args = vec!["eval", "--qrels", "qrels.txt", "--run", &named];
    args.extend_from_slice(&METRICS);
    args.extend_from_slice(extra);
    let result = run_in(dir.path(), &args);
    assert!(!result.2.contains("panicked"), "{}", result.2);
    result
}

#[test]
fn docid_input_and_average_on_one_list() {
    for ties in ["docid", "input", "average"] {
        let args = ["--ties", ties, "--per-query"];
        let result = eval("run.trec", &args);
        assert_eq!(result.0, 0, "{}", result.2);
        let mut shown = vec!["eval", "--qrels", "qrels.txt", "--run", "run=run.trec"];
        shown.extend_from_slice(&METRICS);
        shown.extend_from_slice(&args);
        insta::assert_snapshot!(format!("ties_{ties}"), transcript(&shown, result.clone()));
        // Read whole (queries interleaved) or streamed: the same bits.
        let ungrouped = eval("ungrouped.trec", &args);
        assert_eq!(ungrouped.1, result.1, "--ties {ties}");
    }
    // docid is the default, bit for bit.
    assert_eq!(
        eval("run.trec", &["--per-query"]).1,
        eval("run.trec", &["--ties", "docid", "--per-query"]).1
    );
}

#[test]
fn a_metric_of_its_own_averages_alone() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "run.trec",
        "-m",
        "rr",
        "-m",
        "rr(ties=average)",
        "-m",
        "ndcg(ties=average)@3",
        "--per-query",
        "--format",
        "csv",
    ];
    let result = run_in(dir.path(), &args);
    insta::assert_snapshot!("ties_per_metric", transcript(&args, result));
}

#[test]
fn errors_name_the_metric() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    for (name, args) in [
        (
            "ties_error_no_average",
            &[
                "eval",
                "--qrels",
                "qrels.txt",
                "--run",
                "run.trec",
                "-m",
                "err@3",
                "--ties",
                "average",
            ][..],
        ),
        (
            "ties_error_metric_no_average",
            &[
                "eval",
                "--qrels",
                "qrels.txt",
                "--run",
                "run.trec",
                "-m",
                "bpref(ties=average)",
            ][..],
        ),
        (
            "ties_error_order",
            &[
                "eval",
                "--qrels",
                "qrels.txt",
                "--run",
                "run.trec",
                "-m",
                "rr(ties=input)",
            ][..],
        ),
        (
            "ties_error_value",
            &[
                "eval",
                "--qrels",
                "qrels.txt",
                "--run",
                "run.trec",
                "-m",
                "rr",
                "--ties",
                "random",
            ][..],
        ),
    ] {
        let result = run_in(dir.path(), args);
        assert_eq!(result.0, 2, "{name}: {}", result.2);
        insta::assert_snapshot!(name, transcript(args, result));
    }
}

#[test]
fn toml_ties_is_the_flag() {
    let toml = "qrels = \"qrels.txt\"\nties = \"average\"\nmetrics = [{ type = \"rr\" }, { type = \"p\", k = 2 }, { type = \"ndcg\", k = 3 }, { type = \"ap\" }]\n\
                [[runs]]\nname = \"run\"\npath = \"run.trec\"\n";
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("run.trec", RUN),
        ("experiment.toml", toml),
    ]);
    let from_toml = run_in(dir.path(), &["run", "experiment.toml", "--per-query"]);
    assert_eq!(from_toml.0, 0, "{}", from_toml.2);
    let flags = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "rr",
            "-m",
            "p@2",
            "-m",
            "ndcg@3",
            "-m",
            "ap",
            "--ties",
            "average",
            "--per-query",
        ],
    );
    assert_eq!(from_toml.1, flags.1);
    let bad = "qrels = \"qrels.txt\"\nties = \"average\"\nmetrics = [{ type = \"err\" }]\n[[runs]]\npath = \"run.trec\"\n";
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("run.trec", RUN),
        ("experiment.toml", bad),
    ]);
    let args = ["run", "experiment.toml"];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 2);
    insta::assert_snapshot!("ties_error_toml", transcript(&args, result));
}

#[test]
fn explain_shows_the_tie_groups() {
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
        "rr",
        "-m",
        "p(ties=average)@2",
        "--ties",
        "average",
    ];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 0, "{}", result.2);
    insta::assert_snapshot!("ties_explain", transcript(&args, result));
}

/// scikit-learn's tie-averaged nDCG (the fixture of
/// `scripts/data/sklearn-ndcg-ties.py`), through the binary: each list a query
/// of a TREC run, `--ties average`, read while streamed and cut at k.
#[test]
fn ndcg_average_through_the_binary_matches_scikit_learn() {
    #[derive(serde::Deserialize)]
    struct Case {
        grades: Vec<u8>,
        scores: Vec<f64>,
        k: Option<usize>,
        ndcg: f64,
    }
    #[derive(serde::Deserialize)]
    struct Fixture {
        cases: Vec<Case>,
    }
    let text = std::fs::read_to_string(
        super::workspace().join("crates/metrics/tests/data/sklearn_ndcg_ties.json"),
    )
    .unwrap();
    let fixture: Fixture = serde_json::from_str(&text).unwrap();
    let (mut qrels, mut run) = (String::new(), String::new());
    let mut expected = std::collections::BTreeMap::new();
    for (i, case) in fixture.cases.iter().enumerate() {
        // Five cutoffs per list: one query per list.
        let query = format!("c{:03}", i / 5);
        if i % 5 == 0 {
            for (d, (grade, score)) in case.grades.iter().zip(&case.scores).enumerate() {
                qrels.push_str(&format!("{query} 0 d{d} {grade}\n"));
                run.push_str(&format!("{query} Q0 d{d} {} {score} t\n", d + 1));
            }
        }
        let metric = case.k.map_or("ndcg".to_owned(), |k| format!("ndcg@{k}"));
        expected.insert((query, metric), case.ndcg);
    }
    let dir = scratch(&[("qrels.txt", &qrels), ("run.trec", &run)]);
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "run.trec",
        "--ties",
        "average",
        "-m",
        "ndcg",
        "-m",
        "ndcg@1",
        "-m",
        "ndcg@3",
        "-m",
        "ndcg@5",
        "-m",
        "ndcg@10",
        "--per-query",
        "--format",
        "csv",
    ];
    let (code, stdout, stderr) = run_in(dir.path(), &args);
    assert_eq!(code, 0, "{stderr}");
    let mut lines = stdout.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let mut checked = 0;
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        if fields[1].is_empty() {
            continue; // the mean
        }
        for (metric, value) in header[3..].iter().zip(&fields[3..]) {
            let want = expected[&(fields[1].to_owned(), (*metric).to_owned())];
            let got: f64 = value.parse().unwrap();
            assert!(
                (got - want).abs() <= 1e-12,
                "{} {metric}: {got} != {want}",
                fields[1]
            );
            checked += 1;
        }
    }
    assert_eq!(checked, fixture.cases.len());
}
