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
