//! `rankeval spans` on examples/spans (three queries, span qrels, two runs
//! of chunks chunked differently): the report, RAGAS's context precision
//! through the command, and errors that name the file and line.

use crate::rankeval_snapshot;

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "spans",
        "--qrels",
        "examples/spans/spans.tsv",
        "--run",
        "fixed=examples/spans/fixed.tsv",
        "--run",
        "examples/spans/sentences.jsonl",
        "-m",
        "ap(norm=hits)@3",
        "-m",
        "hit_rate@3",
        "-m",
        "rr@3",
        "-m",
        "recall@3",
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn table_per_query() {
    rankeval_snapshot!(
        "spans_table",
        &args(&["--overlap", "coverage>=0.5", "--per-query"])
    );
}

#[test]
fn json_at_a_character_cutoff() {
    rankeval_snapshot!("spans_json", &args(&["--char-k", "2", "--format", "json"]));
}

/// RAGAS's context precision@K: sum over k <= K of P@k v_k, divided by the
/// number of relevant chunks in the top K (0 without one).
fn ragas(v: &[u8]) -> f64 {
    let (mut hits, mut sum) = (0.0, 0.0);
    for (i, &r) in v.iter().enumerate() {
        if r == 1 {
            hits += 1.0;
            sum += hits / (i as f64 + 1.0);
        }
    }
    if hits == 0.0 { 0.0 } else { sum / hits }
}

#[test]
fn ragas_context_precision_is_ap_norm_hits() {
    // One query per relevance pattern of three chunks (each its own 10
    // characters of doc d, ranked in order), a relevant span under each
    // relevant chunk and one more never retrieved.
    let patterns: [&[u8]; 5] = [&[1, 0, 1], &[0, 1, 1], &[0, 0, 0], &[1, 1, 1], &[0, 0, 1]];
    let mut spans = String::from("query,doc,start,end,grade\n");
    let mut run = String::from("query,doc,start,end,score\n");
    for (q, v) in patterns.iter().enumerate() {
        for (i, &r) in v.iter().enumerate() {
            let start = 10 * i;
            run.push_str(&format!("q{q},d,{start},{},{}\n", start + 10, 3 - i));
            if r == 1 {
                spans.push_str(&format!("q{q},d,{start},{},1\n", start + 10));
            }
        }
        spans.push_str(&format!("q{q},d,500,510,1\n"));
    }
    let dir = super::scratch(&[("spans.csv", &spans), ("run.csv", &run)]);
    let (code, json, stderr) = super::run_in(
        dir.path(),
        &[
            "spans",
            "--qrels",
            "spans.csv",
            "--run",
            "run.csv",
            "-m",
            "ap(norm=hits)@3",
            "--per-query",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let document: serde_json::Value = serde_json::from_str(&json).unwrap();
    let per_query = document["runs"][0]["per_query"].as_array().unwrap();
    assert_eq!(per_query.len(), patterns.len());
    for (q, v) in patterns.iter().enumerate() {
        let row = &per_query[q];
        assert_eq!(row["query"], format!("q{q}"));
        let got = row["chunk"][0].as_f64().unwrap();
        let want = ragas(v);
        assert!((got - want).abs() < 1e-12, "{v:?}: {got} != {want}");
    }
    // The hand-computed values of the formula.
    assert!((ragas(&[1, 0, 1]) - (1.0 + 2.0 / 3.0) / 2.0).abs() < 1e-15);
    assert!((ragas(&[0, 1, 1]) - (0.5 + 2.0 / 3.0) / 2.0).abs() < 1e-15);
    assert_eq!(ragas(&[0, 0, 0]), 0.0);
}

#[test]
fn errors_name_the_file_and_line() {
    let dir = super::scratch(&[
        (
            "bad.tsv",
            "query\tdoc\tstart\tend\tgrade\nq\td\t0\t5\t1\nq\td\t9\t3\t1\n",
        ),
        ("nocol.csv", "query,doc,begin,end,grade\nq,d,0,5,1\n"),
        ("run.csv", "query,doc,start,end,score\nq,d,0,5,x\n"),
        ("good.csv", "query,doc,start,end,grade\nq,d,0,5,1\n"),
    ]);
    let spans = |qrels: &str, run: &str| {
        super::run_in(
            dir.path(),
            &["spans", "--qrels", qrels, "--run", run, "-m", "p@1"],
        )
    };
    let (code, _, stderr) = spans("bad.tsv", "run.csv");
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: bad.tsv, line 3: end 3 <= start 9: a span is [start, end), end after start\n"
    );
    let (code, _, stderr) = spans("nocol.csv", "run.csv");
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: nocol.csv, line 1: no column `start`"),
        "{stderr}"
    );
    let (code, _, stderr) = spans("good.csv", "run.csv");
    assert_eq!(code, 2);
    assert_eq!(stderr, "error: run.csv, line 2: score `x`: not a number\n");
    let (code, _, stderr) = spans("missing.csv", "run.csv");
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: cannot read missing.csv"),
        "{stderr}"
    );
    let (code, _, stderr) = super::run_in(
        dir.path(),
        &[
            "spans",
            "--qrels",
            "good.csv",
            "--run",
            "run.csv",
            "--overlap",
            "iou>0.5",
        ],
    );
    assert_eq!(code, 2);
    assert!(stderr.starts_with("error: --overlap `iou>0.5`"), "{stderr}");
}
