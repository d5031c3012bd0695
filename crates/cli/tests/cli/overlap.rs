//! `rankeval overlap`: two runs compared without judgements (RBO with
//! Corsi and Urbano's tie treatments, top-k overlap, Kendall's tau); the
//! report, its values recomputed from the statistics of rankeval-stats
//! (which are checked against Corsi and Urbano's own values there), the
//! queries left out, and the errors.

use rankeval_stats::rbo::{RboTies, TiedRanking, rbo};

use crate::rankeval_snapshot;

#[test]
fn table_of_the_example_runs() {
    rankeval_snapshot!(
        "overlap_table",
        &[
            "overlap",
            "examples/judgements/bm25.trec",
            "examples/judgements/dense.trec",
            "-p",
            "0.8",
            "--top",
            "5",
            "-a",
            "mean",
            "-a",
            "ci(level=0.9)",
        ]
    );
}

/// Two runs with ties, a query only in each, an empty list in neither:
/// every query listed, what was left out said on stderr.
const A: &str = "q1 Q0 a 1 3 x\nq1 Q0 b 2 2 x\nq1 Q0 c 3 2 x\nq1 Q0 d 4 1 x\n\
                 q2 Q0 a 1 1 x\nq2 Q0 b 2 1 x\nq3 Q0 z 1 1 x\n";
const B: &str = "q1 Q0 c 1 9 y\nq1 Q0 a 2 8 y\nq1 Q0 e 3 7 y\n\
                 q2 Q0 b 1 2 y\nq2 Q0 a 2 1 y\nq2 Q0 f 3 0 y\nq4 Q0 w 1 1 y\n";

#[test]
fn ties_per_query_and_left_out_queries() {
    let dir = super::scratch(&[("a.trec", A), ("b.trec", B)]);
    let args = [
        "overlap",
        "a.trec",
        "new=b.trec",
        "--ties",
        "b",
        "--top",
        "3",
        "--per-query",
    ];
    let transcript = super::transcript(&args, super::run_in(dir.path(), &args));
    insta::assert_snapshot!("overlap_ties_per_query", transcript);
}

#[test]
fn json_values_are_the_statistics_of_each_query() {
    let dir = super::scratch(&[("a.trec", A), ("b.trec", B)]);
    for (flag, ties) in [("a", RboTies::A), ("b", RboTies::B), ("w", RboTies::W)] {
        let (code, json, stderr) = super::run_in(
            dir.path(),
            &[
                "overlap", "a.trec", "b.trec", "--ties", flag, "-p", "0.95", "--format", "json",
            ],
        );
        assert_eq!(code, 0, "{stderr}");
        let report: serde_json::Value = serde_json::from_str(&json).unwrap();
        // q1: a (b c) d against c a e (the run orders tied b and c by id,
        // descending: c b); q2: (b a) against b a f.
        let cases = [
            (
                TiedRanking::from_groups([vec!["a"], vec!["c", "b"], vec!["d"]]),
                TiedRanking::untied(vec!["c", "a", "e"]),
            ),
            (
                TiedRanking::from_groups([vec!["b", "a"]]),
                TiedRanking::untied(vec!["b", "a", "f"]),
            ),
        ];
        for (i, (x, y)) in cases.iter().enumerate() {
            let want = rbo(x, y, 0.95, ties).unwrap();
            let got = &report["queries"][i]["rbo"];
            // serde_json's parser (without its float_roundtrip feature) may
            // land one ulp off the shortest decimal the report writes.
            let close = |key: &str, want: f64| {
                let got = got[key].as_f64().unwrap();
                assert!(
                    (got - want).abs() <= 1e-15,
                    "{flag} q{} {key}: {got} {want}",
                    i + 1
                );
            };
            close("ext", want.ext);
            close("min", want.min);
            close("max", want.max);
            close("res", want.res);
        }
        assert_eq!(report["first_only"]["first"][0], "q3");
        assert_eq!(report["second_only"]["first"][0], "q4");
        assert!(
            stderr.contains("1 query only in `a` was left out: `q3`"),
            "{stderr}"
        );
    }
}

#[test]
fn a_run_with_itself() {
    // RBO^b and RBO^w of a list with itself are 1 (ext), whatever its ties;
    // top-k overlap is 1, tau 1 (tau-b: the ties are the same on both sides).
    let dir = super::scratch(&[("a.trec", A)]);
    for ties in ["b", "w"] {
        let (code, json, stderr) = super::run_in(
            dir.path(),
            &[
                "overlap", "x=a.trec", "y=a.trec", "--ties", ties, "--format", "json",
            ],
        );
        assert_eq!(code, 0, "{stderr}");
        let report: serde_json::Value = serde_json::from_str(&json).unwrap();
        for q in report["queries"].as_array().unwrap() {
            assert!(
                (q["rbo"]["ext"].as_f64().unwrap() - 1.0).abs() < 1e-15,
                "{q}"
            );
            let length = q["lengths"][0].as_f64().unwrap();
            assert_eq!(q["top_k"].as_f64().unwrap(), length / 10.0);
        }
        assert_eq!(report["queries"][0]["tau"].as_f64().unwrap(), 1.0);
    }
}

#[test]
fn errors_name_the_option() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["overlap", "examples/judgements/bm25.trec"],
            "2 values required",
        ),
        (
            &[
                "overlap",
                "examples/judgements/bm25.trec",
                "examples/judgements/dense.trec",
                "-p",
                "1",
            ],
            "--persistence 1: give a p strictly between 0 and 1",
        ),
        (
            &[
                "overlap",
                "examples/judgements/bm25.trec",
                "examples/judgements/dense.trec",
                "-p",
                "NaN",
            ],
            "--persistence NaN",
        ),
        (
            &[
                "overlap",
                "examples/judgements/bm25.trec",
                "examples/judgements/dense.trec",
                "--top",
                "0",
            ],
            "--top 0: give at least 1",
        ),
        (
            &[
                "overlap",
                "examples/judgements/bm25.trec",
                "examples/judgements/dense.trec",
                "--top",
                "18446744073709551616",
            ],
            "--top",
        ),
        (
            &[
                "overlap",
                "examples/judgements/bm25.trec",
                "examples/judgements/dense.trec",
                "-a",
                "nope",
            ],
            "-a nope",
        ),
        (
            &[
                "overlap",
                "examples/judgements/bm25.trec",
                "examples/judgements/bm25.trec",
            ],
            "bm25",
        ),
    ];
    for (args, want) in cases {
        let (code, _, stderr) = super::run(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
    // No query in common.
    let dir = super::scratch(&[("a.trec", "q1 Q0 a 1 1 x\n"), ("b.trec", "q2 Q0 a 1 1 x\n")]);
    let (code, _, stderr) = super::run_in(dir.path(), &["overlap", "a.trec", "b.trec"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("no query has a non-empty list in both a and b"),
        "{stderr}"
    );
}

#[test]
fn huge_k_and_extreme_persistence() {
    let dir = super::scratch(&[("a.trec", A), ("b.trec", B)]);
    for args in [
        [
            "overlap",
            "a.trec",
            "b.trec",
            "--top",
            "18446744073709551615",
            "-p",
            "0.5",
        ],
        ["overlap", "a.trec", "b.trec", "--top", "1", "-p", "5e-324"],
        [
            "overlap",
            "a.trec",
            "b.trec",
            "--top",
            "1",
            "-p",
            "0.9999999999999999",
        ],
    ] {
        let (code, out, stderr) = super::run_in(dir.path(), &args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert!(
            !out.contains("NaN") && !out.contains("inf"),
            "{args:?}: {out}"
        );
    }
}
