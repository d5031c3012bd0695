//! The binary's `--format trec` output on trec_eval's own test files: every
//! line it prints for a measure trec_eval also has equals trec_eval's line.

use std::collections::BTreeMap;

fn lines(text: &str) -> BTreeMap<(String, String), String> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            (fields.len() == 3).then(|| {
                (
                    (fields[0].trim().to_owned(), fields[1].trim().to_owned()),
                    fields[2].trim().to_owned(),
                )
            })
        })
        .collect()
}

fn check(args: &[&str], expected: &str) {
    let mut all = vec![
        "eval",
        "--format",
        "trec",
        "--per-query",
        "-a",
        "mean",
        "-a",
        "gmean",
    ];
    all.extend_from_slice(args);
    let metrics = [
        "map",
        "p@5",
        "p@1000",
        "recall@100",
        "ap@30",
        "mrr",
        "success@5",
        "ndcg",
        "ndcg@10",
        "rprec",
        "bpref",
        "num_ret",
        "num_rel",
        "num_rel_ret",
    ];
    for m in metrics {
        all.extend_from_slice(&["-m", m]);
    }
    let (code, stdout, stderr) = super::run_in(&crate::common::data("trec_eval"), &all);
    assert_eq!(code, 0, "{stderr}");
    let expected = lines(
        &std::fs::read_to_string(crate::common::data(&format!("trec_eval/{expected}"))).unwrap(),
    );
    let got = lines(&stdout);
    let mut compared = 0;
    for (key, value) in &got {
        if key.0 == "runid" {
            continue;
        }
        // trec_eval prints a geometric mean only for map and bpref.
        if key.0.starts_with("gm_") && !expected.contains_key(key) {
            continue;
        }
        assert_eq!(Some(value), expected.get(key), "{key:?}");
        compared += 1;
    }
    // num_q, each measure for 3 queries and all, gm_map and gm_bpref.
    assert_eq!(compared, 1 + metrics.len() * 4 + 2);
}

#[test]
fn trec_output_matches_out_test_aq() {
    check(
        &["--qrels", "qrels.test", "--run", "results.test"],
        "out.test.aq",
    );
}

#[test]
fn missing_zero_matches_out_test_aqc() {
    check(
        &[
            "--qrels",
            "qrels.test",
            "--run",
            "results.trunc",
            "--missing",
            "zero",
        ],
        "out.test.aqc",
    );
}

#[test]
fn rel_two_matches_out_test_aql() {
    check(
        &[
            "--qrels",
            "qrels.rel_level",
            "--run",
            "results.test",
            "--rel",
            "2",
        ],
        "out.test.aql",
    );
}
