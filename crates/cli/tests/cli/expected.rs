//! `rankeval expected` on examples/judgements/labels.tsv (the LLM's label
//! distributions): the report; precision@5 recomputed here from the files
//! (an additive metric: the sum of each top-5 document's probability of
//! being relevant, over 5); the values at the most likely grades equal
//! `rankeval eval` on the argmax qrels; a JSON Lines copy of the table gives
//! the same numbers; errors name the file, query and document. The three
//! methods themselves are checked against each other in
//! `rankeval::expected`.

use std::collections::HashMap;

use crate::rankeval_snapshot;

const LABELS: &str = "examples/judgements/labels.tsv";

fn args<'a>(labels: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "expected",
        "--qrels",
        labels,
        "--qrels-columns",
        "query=query,doc=doc",
        "--label",
        "p0=0,p1=1,p2=2,p3=3",
        "--run",
        "examples/judgements/bm25.trec",
        "--run",
        "examples/judgements/dense.trec",
        "-m",
        "p@5",
        "-m",
        "ndcg@5",
        "-m",
        "rr",
        "--samples",
        "2000",
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn table() {
    rankeval_snapshot!("expected_table", &args(LABELS, &[]));
}

/// `(query, doc) -> [p0, p1, p2, p3]` of labels.tsv.
fn labels() -> HashMap<(String, String), [f64; 4]> {
    std::fs::read_to_string(super::workspace().join(LABELS))
        .unwrap()
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            let p = [f[2], f[3], f[4], f[5]].map(|x| x.parse::<f64>().unwrap());
            ((f[0].to_owned(), f[1].to_owned()), p)
        })
        .collect()
}

/// Each query's ranked documents of a TREC run (already in rank order).
fn ranked(path: &str) -> Vec<(String, Vec<String>)> {
    let mut lists: Vec<(String, Vec<String>)> = Vec::new();
    for line in std::fs::read_to_string(super::workspace().join(path))
        .unwrap()
        .lines()
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        match lists.last_mut() {
            Some((q, docs)) if q == f[0] => docs.push(f[2].to_owned()),
            _ => lists.push((f[0].to_owned(), vec![f[2].to_owned()])),
        }
    }
    lists
}

fn report(extra: &[&str]) -> serde_json::Value {
    let mut args = args(LABELS, extra);
    args.extend_from_slice(&["--format", "json"]);
    let (code, json, stderr) = super::run(&args);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&json).unwrap()
}

#[test]
fn precision_is_the_mean_probability_of_relevance() {
    let labels = labels();
    let report = report(&["--per-query"]);
    for (r, run) in ["bm25", "dense"].iter().enumerate() {
        let lists = ranked(&format!("examples/judgements/{run}.trec"));
        let mut sum = 0.0;
        for (query, docs) in &lists {
            let relevant: f64 = docs
                .iter()
                .take(5)
                .map(|d| {
                    let p = labels[&(query.clone(), d.clone())];
                    p[1] + p[2] + p[3]
                })
                .sum();
            let want = relevant / 5.0;
            let got = report["runs"][r]["queries"]
                .as_array()
                .unwrap()
                .iter()
                .find(|q| q["query"] == query.as_str())
                .unwrap()["values"][0]["expected"]
                .as_f64()
                .unwrap();
            assert!((got - want).abs() < 1e-12, "{run} {query}: {got} vs {want}");
            sum += want;
        }
        let mean = report["runs"][r]["metrics"][0]["expected"]
            .as_f64()
            .unwrap();
        assert!((mean - sum / lists.len() as f64).abs() < 1e-12);
        assert_eq!(report["runs"][r]["metrics"][0]["additive"], lists.len());
        // nDCG and RR are not additive: sampled (4^12 labellings a query),
        // with a positive standard error.
        assert_eq!(report["runs"][r]["metrics"][1]["sampled"], lists.len());
        assert!(
            report["runs"][r]["metrics"][1]["standard_error"]
                .as_f64()
                .unwrap()
                > 0.0
        );
    }
}

#[test]
fn most_likely_values_are_eval_on_the_argmax_qrels() {
    let mut argmax: Vec<((String, String), usize)> = labels()
        .into_iter()
        .map(|(key, p)| {
            // The lower of two equally likely grades.
            let best = (0..4).fold(0, |b, g| if p[g] > p[b] { g } else { b });
            (key, best)
        })
        .collect();
    argmax.sort();
    let qrels: String = argmax
        .iter()
        .map(|((q, d), g)| format!("{q} 0 {d} {g}\n"))
        .collect();
    let dir = super::scratch(&[("argmax.qrels", &qrels)]);
    let qrels_path = dir.path().join("argmax.qrels");
    let report = report(&[]);
    for (r, run) in ["bm25", "dense"].iter().enumerate() {
        let run_path = super::workspace().join(format!("examples/judgements/{run}.trec"));
        let (code, json, stderr) = super::run(&[
            "eval",
            "--qrels",
            qrels_path.to_str().unwrap(),
            "--run",
            run_path.to_str().unwrap(),
            "-m",
            "p@5",
            "-m",
            "ndcg@5",
            "-m",
            "rr",
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{stderr}");
        let eval: serde_json::Value = serde_json::from_str(&json).unwrap();
        for (m, name) in ["p@5", "ndcg@5", "rr"].iter().enumerate() {
            let want = eval["runs"][0]["metrics"][name]["mean"].as_f64().unwrap();
            let got = report["runs"][r]["metrics"][m]["most_likely"]
                .as_f64()
                .unwrap();
            assert!((got - want).abs() < 1e-12, "{run} {name}: {got} vs {want}");
        }
    }
}

/// The same distributions as JSON Lines: the same report, bit for bit.
#[test]
fn json_lines_give_the_same_numbers() {
    let mut jsonl = String::new();
    let mut rows: Vec<_> = labels().into_iter().collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    for ((q, d), p) in rows {
        jsonl.push_str(&format!(
            "{{\"query\": \"{q}\", \"doc\": \"{d}\", \"p0\": {}, \"p1\": {}, \"p2\": {}, \"p3\": {}}}\n",
            p[0], p[1], p[2], p[3]
        ));
    }
    let dir = super::scratch(&[("labels.jsonl", &jsonl)]);
    let path = dir.path().join("labels.jsonl");
    let args = args(path.to_str().unwrap(), &["--format", "json"]);
    let (code, json, stderr) = super::run(&args);
    assert_eq!(code, 0, "{stderr}");
    let from_jsonl: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(from_jsonl["runs"], report(&[])["runs"]);
}

#[test]
fn errors_name_the_problem() {
    let dir = super::scratch(&[(
        "bad.tsv",
        "query\tdoc\tp0\tp1\nq1\td1\t0.5\t0.5\nq1\td2\t0.5\t0.6\n",
    )]);
    let bad = dir.path().join("bad.tsv");
    let bad = bad.to_str().unwrap();
    let run = super::workspace().join("examples/judgements/bm25.trec");
    let run = run.to_str().unwrap();
    let base = |labels: &'static str| {
        vec![
            "expected",
            "--qrels",
            bad,
            "--qrels-columns",
            "query=query,doc=doc",
            "--label",
            labels,
            "--run",
            run,
            "-m",
            "p@5",
        ]
    };
    let (code, _, stderr) = super::run(&base("p0=0,p1=1"));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("bad.tsv: query `q1`, document `d2`: the probabilities sum to 1.1, not 1"),
        "{stderr}"
    );
    let (code, _, stderr) = super::run(&base("p0=0,p9=1"));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("p9"), "{stderr}");
    let (code, _, stderr) = super::run(&base("p0=0"));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("two at least"), "{stderr}");
    let (code, _, stderr) = super::run(&base("p0=0,p1=one"));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--label p1=one: the grade is not a number"),
        "{stderr}"
    );
}

/// `--exact-up-to` and `--samples` past their bounds are refused before
/// anything is read (here the table does not even exist), naming the
/// bound: 2^64 - 1 labellings would never end.
#[test]
fn exact_up_to_and_samples_are_bounded_before_anything_is_read() {
    let with = |flag: &'static str, value: &'static str| {
        super::run(&[
            "expected",
            "--qrels",
            "nowhere.tsv",
            "--label",
            "p0=0,p1=1",
            "--run",
            "examples/judgements/bm25.trec",
            "-m",
            "ndcg@5",
            flag,
            value,
        ])
    };
    let (code, _, stderr) = with("--exact-up-to", "18446744073709551615");
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        stderr,
        "error: --exact-up-to 18446744073709551615: at most 1048576 (a query with more \
         labellings is estimated with --samples draws)\n"
    );
    let (code, _, stderr) = with("--samples", "18446744073709551615");
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--samples 18446744073709551615: from 2 (the standard error needs two draws) to 10000000"),
        "{stderr}"
    );
    // At the bounds: read and computed (p@5 is additive: no labelling is
    // enumerated or drawn).
    let (code, _, stderr) = super::run(&[
        "expected",
        "--qrels",
        LABELS,
        "--qrels-columns",
        "query=query,doc=doc",
        "--label",
        "p0=0,p1=1,p2=2,p3=3",
        "--run",
        "examples/judgements/bm25.trec",
        "-m",
        "p@5",
        "--exact-up-to",
        "1048576",
        "--samples",
        "10000000",
    ]);
    assert_eq!(code, 0, "{stderr}");
}

/// labels.tsv copied to `name` in a scratch directory, with the run beside.
fn copied_to(name: &str) -> tempfile::TempDir {
    let text = std::fs::read_to_string(super::workspace().join(LABELS)).unwrap();
    let bm25 =
        std::fs::read_to_string(super::workspace().join("examples/judgements/bm25.trec")).unwrap();
    super::scratch(&[(name, &text), ("bm25.trec", &bm25)])
}

fn in_dir<'a>(labels: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "expected",
        "--qrels",
        labels,
        "--qrels-columns",
        "query=query,doc=doc",
        "--label",
        "p0=0,p1=1,p2=2,p3=3",
        "--run",
        "bm25.trec",
        "-m",
        "p@5",
        "-m",
        "rr",
        "--samples",
        "200",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    args
}

/// A name that says no table format (read as TREC, it could only fail,
/// asking for `query iteration document grade`) is refused with the
/// formats taken and how to give one; `--qrels-format tsv` reads it as
/// labels.tsv is read.
#[test]
fn a_name_without_a_table_suffix_needs_qrels_format() {
    let dir = copied_to("labels");
    let (code, _, stderr) = super::run_in(dir.path(), &in_dir("labels", &[]));
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        stderr,
        "error: labels: its name does not say which table format it is: give --qrels-format csv, \
         tsv, jsonl, parquet or arrow, or name the file with a suffix .csv, .tsv, .jsonl, \
         .parquet or .arrow (.gz after it for gzip)\n"
    );
    let (code, named, stderr) =
        super::run_in(dir.path(), &in_dir("labels", &["--qrels-format", "tsv"]));
    assert_eq!(code, 0, "{stderr}");
    let tsv = copied_to("labels.tsv");
    let (code, want, stderr) = super::run_in(tsv.path(), &in_dir("labels.tsv", &[]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(named, want);
    // A suffix that is a table's is taken at its word (CSV here: no tab
    // splits the header, so the columns are missing).
    let csv = copied_to("labels.csv");
    let (code, _, stderr) = super::run_in(csv.path(), &in_dir("labels.csv", &[]));
    assert_eq!(code, 2, "{stderr}");
    let (code, from_csv, stderr) = super::run_in(
        csv.path(),
        &in_dir("labels.csv", &["--qrels-format", "tsv"]),
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(from_csv, want);
}

/// The table from a FIFO is read once (it is read once per label column
/// otherwise, and the second read would wait for a writer forever), in
/// the format --qrels-format gives.
#[cfg(unix)]
#[test]
fn a_table_from_a_fifo_is_read_once() {
    use std::process::{Command, Stdio};
    let dir = copied_to("labels.tsv");
    let (code, want, stderr) = super::run_in(dir.path(), &in_dir("labels.tsv", &[]));
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read(dir.path().join("labels.tsv")).unwrap();
    for (fifo, format) in [("fifo", Some("tsv")), ("fifo.tsv", None)] {
        let path = dir.path().join(fifo);
        assert!(
            Command::new("mkfifo")
                .arg(&path)
                .status()
                .unwrap()
                .success()
        );
        let bytes = text.clone();
        let writer = std::thread::spawn(move || {
            // Opening blocks until rankeval opens the other end.
            std::fs::write(&path, bytes).unwrap();
        });
        let mut args = in_dir(fifo, &[]);
        if let Some(format) = format {
            args.extend(["--qrels-format", format]);
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_rankeval"))
            .args(&args)
            .current_dir(dir.path())
            .env_clear()
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        super::wait_or_fail(&mut child, &format!("rankeval hangs on a FIFO ({fifo})"));
        writer.join().unwrap();
        let output = child.wait_with_output().unwrap();
        assert_eq!(String::from_utf8_lossy(&output.stderr), "", "{fifo}");
        assert_eq!(String::from_utf8_lossy(&output.stdout), want, "{fifo}");
    }
}

/// `/dev/zero` named as a Parquet table ends at once in an error naming
/// it (it is not read whole, let alone once per column).
#[cfg(unix)]
#[test]
fn dev_zero_named_parquet_is_refused_at_once() {
    let dir = copied_to("labels.tsv");
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.parquet")).unwrap();
    let started = std::time::Instant::now();
    let (code, _, stderr) = super::run_in(dir.path(), &in_dir("zero.parquet", &[]));
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        stderr,
        "error: zero.parquet: not a Parquet file: Parquet files start with the bytes PAR1\n"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

/// An id of a megabyte is cut in the message, with its length; the
/// message stays short.
#[test]
fn a_long_id_is_cut_in_errors() {
    let long = "d".repeat(1 << 20);
    let table = format!("query\tdoc\tp0\tp1\nq1\t{long}\t0.5\t0.6\n");
    let dir = super::scratch(&[("labels.tsv", &table)]);
    let bm25 = super::workspace().join("examples/judgements/bm25.trec");
    let (code, _, stderr) = super::run_in(
        dir.path(),
        &[
            "expected",
            "--qrels",
            "labels.tsv",
            "--qrels-columns",
            "query=query,doc=doc",
            "--label",
            "p0=0,p1=1",
            "--run",
            bm25.to_str().unwrap(),
            "-m",
            "p@5",
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.len() < 400,
        "{} bytes: {}",
        stderr.len(),
        &stderr[..400]
    );
    assert!(
        stderr.contains(&format!("document `{}… (1048576 bytes)`", "d".repeat(64))),
        "{stderr}"
    );
}

/// Labelled queries a run has no list for are warned about, with a few of
/// their ids, and counted in the JSON report (they were left out without a
/// word before).
#[test]
fn labelled_queries_missing_from_a_run_are_warned_about() {
    let dir = copied_to("labels.tsv");
    let bm25 = std::fs::read_to_string(dir.path().join("bm25.trec")).unwrap();
    let short: String = bm25
        .lines()
        .filter(|l| {
            !["q14 ", "q15 ", "q16 ", "q17 "]
                .iter()
                .any(|q| l.starts_with(q))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.path().join("bm25.trec"), short).unwrap();
    let (code, json, stderr) = super::run_in(dir.path(), &in_dir("labels.tsv", &[]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr,
        "warning: run `bm25`: 4 labelled queries have no list in the run and were left out (to \
         score them on an empty list, use --missing zero): `q14`, `q15`, `q16`, `q17`\n"
    );
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["runs"][0]["missing"]["count"], 4);
    assert_eq!(report["runs"][0]["queries"].as_array().unwrap().len(), 36);
    let (code, json, stderr) =
        super::run_in(dir.path(), &in_dir("labels.tsv", &["--missing", "zero"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.starts_with(
            "warning: run `bm25`: 4 labelled queries have no list in the run and scored on an \
             empty list: `q14`"
        ),
        "{stderr}"
    );
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["runs"][0]["queries"].as_array().unwrap().len(), 40);
}
