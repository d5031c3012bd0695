//! `--bounds` and TOML `bounds`: each metric's completions beside it, the
//! hole rate, the warning when it passes 0.2, and the refusal beside a
//! comparison.

use super::judged_only::{QRELS, RUN, eval};
use super::{run_in, scratch, transcript};

#[test]
fn bounds_per_query_and_mean() {
    let args = ["-m", "p@2", "-m", "recall", "--bounds", "--per-query"];
    let result = eval(&args);
    assert_eq!(result.0, 0, "{}", result.2);
    // q1, P@2 of [d5 -, d1 1]: 1/2; d5 relevant: 1. Recall: 2/2 either way
    // but completed relevant: (2 + 3) / (2 + 3) = 1 (d5, d4, d6 join |R|).
    // q2: P@2 0 .. 1, recall 0 .. 2/3 (d9, d8 relevant beside d1).
    // The hole rate at 2: q1 1/2, q2 1: mean 0.75, warned.
    let mut shown = vec!["eval", "--qrels", "qrels.txt", "--run", "run=run.trec"];
    shown.extend_from_slice(&args);
    insta::assert_snapshot!("bounds_table", transcript(&shown, result));
}

#[test]
fn bounds_in_json_and_toml_agree() {
    let (code, json, stderr) = eval(&["-m", "ndcg@5", "--bounds", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    for name in [
        "\"ndcg@5\"",
        "\"ndcg(unjudged=nonrelevant)@5\"",
        "\"ndcg(unjudged=relevant)@5\"",
        "\"unjudged@5\"",
        "\"kind\": \"holes\"",
    ] {
        assert!(json.contains(name), "{name} not in {json}");
    }
    let toml = "qrels = \"qrels.txt\"\nbounds = true\n\
                [[runs]]\nname = \"run\"\npath = \"run.trec\"\n\
                [[metrics]]\ntype = \"ndcg\"\nk = 5\n";
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("run.trec", RUN),
        ("experiment.toml", toml),
    ]);
    let (code, from_toml, stderr) =
        run_in(dir.path(), &["run", "experiment.toml", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let values = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.contains("\"mean\""))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(values(&json), values(&from_toml));
    assert!(!values(&json).is_empty(), "{json}");
}

#[test]
fn without_holes_no_warning_and_collapsed_bounds() {
    let qrels = "q1 0 a 1\nq1 0 b 0\n";
    let run = "q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n";
    let dir = scratch(&[("qrels.txt", qrels), ("run.trec", run)]);
    let (code, csv, stderr) = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "ap",
            "--bounds",
            "--format",
            "csv",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("unjudged"), "{stderr}");
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    assert!(
        header.ends_with("ap,ap(unjudged=nonrelevant),ap(unjudged=relevant),unjudged"),
        "{csv}"
    );
    let means = lines.find(|l| l.contains(",mean,")).unwrap();
    assert!(means.ends_with(",1,1,1,0"), "{csv}");
}

#[test]
fn refused_beside_a_comparison() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN), ("b.trec", RUN)]);
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "a=run.trec",
        "--run",
        "b=b.trec",
        "--baseline",
        "a",
        "-m",
        "p@2",
        "--bounds",
    ];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 2, "{}", result.2);
    insta::assert_snapshot!("bounds_with_comparison", transcript(&args, result));
}

/// `--bounds` with `--judged-only` (or a metric's own `judged_only=true`)
/// printed the judged-only values without bounds or hole rate, and without
/// a word: refused with the reason on the command line and in TOML.
#[test]
fn bounds_with_judged_only_scores_are_refused_with_the_reason() {
    for args in [
        &["-m", "p@2", "--bounds", "--judged-only"][..],
        &["-m", "p@2", "-m", "ap(judged_only=true)", "--bounds"][..],
    ] {
        let (code, stdout, stderr) = eval(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        assert!(stderr.contains("--bounds"), "{stderr}");
        assert!(
            stderr.contains("is scored on judged documents only"),
            "{stderr}"
        );
    }
    let toml = "qrels = \"qrels.txt\"\nbounds = true\njudged_only = true\n\
                [[runs]]\nname = \"run\"\npath = \"run.trec\"\n\
                [[metrics]]\ntype = \"ndcg\"\nk = 5\n";
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("run.trec", RUN),
        ("experiment.toml", toml),
    ]);
    let (code, _, stderr) = run_in(dir.path(), &["run", "experiment.toml"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("experiment.toml:2: bounds"), "{stderr}");
    assert!(
        stderr.contains("is scored on judged documents only"),
        "{stderr}"
    );
}
