//! `--score-threshold` and TOML `score_threshold`: entries scored at or
//! below the threshold are not retrieved. Checked against torchmetrics'
//! own test (all predictions 0: MAP, MRR, precision and recall are 0) and
//! against what its code gives on mixed signs (worked out below), the same
//! whether the run's queries are grouped or not, in `explain`, and the
//! errors.

use super::{run_in, scratch, transcript};

/// q1 is torchmetrics' `test_*_all_zero_predictions_returns_zero`
/// (retrieval/test_map.py, test_mrr.py, test_precision.py,
/// test_recall.py): preds `[0, 0, 0]`, target `[1, 0, 1]`. q2 has mixed
/// signs: preds `[0.5, -0.2, 0.1, 0]` for `a b c d`, target `[0, 1, 1, 1]`.
const QRELS: &str = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 a 0\nq2 0 b 1\nq2 0 c 1\nq2 0 d 1\n";
const RUN: &str = "q1 Q0 d1 1 0.0 t\nq1 Q0 d2 2 0.0 t\nq1 Q0 d3 3 0.0 t\n\
                   q2 Q0 a 1 0.5 t\nq2 Q0 b 2 -0.2 t\nq2 Q0 c 3 0.1 t\nq2 Q0 d 4 0 t\n";
/// The same lines, queries interleaved: read whole, not streamed.
const RUN_UNGROUPED: &str = "q2 Q0 a 1 0.5 t\nq1 Q0 d1 1 0.0 t\nq2 Q0 b 2 -0.2 t\n\
                             q1 Q0 d2 2 0.0 t\nq2 Q0 c 3 0.1 t\nq1 Q0 d3 3 0.0 t\nq2 Q0 d 4 0 t\n";

/// torchmetrics' AP is the mean precision at the relevant documents it
/// finds (rankeval's `ap(norm=hits)`); its precision with no `top_k`
/// divides by every entry, kept or not (`p@4` here: q2 has 4 entries).
const METRICS: [&str; 12] = [
    "-m",
    "ap(norm=hits)",
    "-m",
    "rr",
    "-m",
    "p@2",
    "-m",
    "p@4",
    "-m",
    "recall",
    "-m",
    "ap",
];

/// `rankeval eval` on `run`, CSV per query, with `extra` flags.
fn eval(run: &str, extra: &[&str]) -> (i32, String, String) {
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("run.trec", RUN),
        ("ungrouped.trec", RUN_UNGROUPED),
    ]);
    let named = format!("run={run}");
    let mut args = vec!["eval", "--qrels", "qrels.txt", "--run", &named];
    args.extend_from_slice(&METRICS);
    args.extend_from_slice(&["--per-query", "--format", "csv"]);
    args.extend_from_slice(extra);
    let result = run_in(dir.path(), &args);
    assert!(!result.2.contains("panicked"), "{}", result.2);
    result
}

/// The per-query values of the CSV report: `query -> [values]`.
fn per_query(csv: &str, query: &str) -> Vec<f64> {
    let line = csv
        .lines()
        .find(|l| l.starts_with(&format!("run,{query},,")))
        .unwrap_or_else(|| panic!("no row for {query} in\n{csv}"));
    line.split(',')
        .skip(3)
        .map(|v| v.parse().unwrap())
        .collect()
}

#[test]
fn matches_torchmetrics_on_zero_and_negative_scores() {
    let (code, stdout, stderr) = eval("run.trec", &["--score-threshold", "0"]);
    assert_eq!(code, 0, "{stderr}");
    // torchmetrics' published test: all four are 0.
    assert_eq!(per_query(&stdout, "q1"), [0.0; 6]);
    // From torchmetrics' code (`torch.where(preds > 0, target, 0)`): only
    // a (0.5, not relevant) and c (0.1, relevant) are retrieved, c at rank
    // 2: AP = 1/2, RR = 1/2, P@2 = 1/2, P@4 = 1/4, recall = 1/3; trec_eval's
    // AP divides by |R| = 3: 1/6.
    let q2 = per_query(&stdout, "q2");
    assert_eq!(q2, [0.5, 0.5, 0.5, 0.25, 1.0 / 3.0, 0.5 / 3.0]);
    // Without the threshold every entry counts: the test can fail.
    let (_, all, _) = eval("run.trec", &[]);
    assert_ne!(per_query(&all, "q1"), [0.0; 6]);
    assert_eq!(per_query(&all, "q2")[4], 1.0);
}

#[test]
fn grouped_or_not_and_explain_agree() {
    let args = ["--score-threshold", "0"];
    assert_eq!(eval("run.trec", &args).1, eval("ungrouped.trec", &args).1);
    // A threshold below every score changes nothing.
    assert_eq!(
        eval("run.trec", &["--score-threshold", "-1"]).1,
        eval("run.trec", &[]).1
    );
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let args = [
        "explain",
        "--qrels",
        "qrels.txt",
        "--run",
        "run.trec",
        "--query",
        "q2",
        "-m",
        "rr",
        "-m",
        "recall",
        "--score-threshold",
        "0",
    ];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 0, "{}", result.2);
    insta::assert_snapshot!("score_threshold_explain", transcript(&args, result));
}

#[test]
fn toml_score_threshold() {
    let toml = "qrels = \"qrels.txt\"\nscore_threshold = 0\n\
                [[runs]]\nname = \"run\"\npath = \"run.trec\"\n\
                [[metrics]]\ntype = \"recall\"\n";
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("run.trec", RUN),
        ("experiment.toml", toml),
    ]);
    let result = run_in(dir.path(), &["run", "experiment.toml", "--per-query"]);
    assert_eq!(result.0, 0, "{}", result.2);
    insta::assert_snapshot!(
        "score_threshold_toml",
        transcript(&["run", "experiment.toml", "--per-query"], result)
    );
}

#[test]
fn errors_name_the_flag_or_key() {
    let msmarco = "q2\ta\t1\nq2\tc\t2\n";
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("run.trec", RUN),
        ("run.msmarco.tsv", msmarco),
        (
            "nan.toml",
            "qrels = \"qrels.txt\"\nscore_threshold = nan\n[[runs]]\npath = \"run.trec\"\n",
        ),
        (
            "msmarco.toml",
            "qrels = \"qrels.txt\"\nscore_threshold = 0\n\
             [[runs]]\npath = \"run.msmarco.tsv\"\nformat = \"msmarco\"\n",
        ),
    ]);
    let cases: [(&str, &[&str]); 4] = [
        (
            "score_threshold_error_nan",
            &[
                "eval",
                "--qrels",
                "qrels.txt",
                "--run",
                "run.trec",
                "--score-threshold",
                "nan",
            ],
        ),
        (
            "score_threshold_error_msmarco",
            &[
                "eval",
                "--qrels",
                "qrels.txt",
                "--run",
                "run.msmarco.tsv",
                "--input-format",
                "msmarco",
                "--score-threshold",
                "0",
            ],
        ),
        ("score_threshold_error_toml_nan", &["run", "nan.toml"]),
        (
            "score_threshold_error_toml_msmarco",
            &["run", "msmarco.toml"],
        ),
    ];
    for (name, args) in cases {
        let result = run_in(dir.path(), args);
        assert_eq!(result.0, 2, "{name}: {}", result.2);
        insta::assert_snapshot!(name, transcript(args, result));
    }
}
