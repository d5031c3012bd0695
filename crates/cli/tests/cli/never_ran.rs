//! The guard against a run that never ran on the qrels (issue 26): a run
//! that shares no query with them, or whose judged queries all have empty
//! lists, is an error (exit 2) naming the run, under `--missing zero` and
//! in a comparison too, on every path a run is evaluated by; and
//! `--allow-empty-run` (TOML `allow_empty_run`) evaluates it as before.

use super::{run_in, scratch, transcript};

const QRELS: &str = "301 0 a 1\n301 0 b 0\n302 0 c 2\n303 0 d 1\n";
/// The same system, run on the same topics: shares every query.
const GOOD: &str = "301 Q0 a 1 0.9 t\n301 Q0 b 2 0.5 t\n302 Q0 c 1 0.8 t\n303 Q0 x 1 0.3 t\n";
/// Run on topics written another way (`q301`): shares no query.
const OTHER_IDS: &str = "q301 Q0 a 1 0.9 t\nq302 Q0 c 1 0.8 t\nq303 Q0 d 1 0.7 t\n";
/// A JSON Lines run whose judged queries have empty lists.
const EMPTY_LISTS: &str = "{\"query\": \"301\", \"predicted\": []}\n\
                           {\"query\": \"302\", \"predicted\": []}\n\
                           {\"query\": \"999\", \"predicted\": [\"a\"]}\n";

fn files() -> tempfile::TempDir {
    scratch(&[
        ("qrels.txt", QRELS),
        ("good.trec", GOOD),
        ("other.trec", OTHER_IDS),
        ("empty.jsonl", EMPTY_LISTS),
        (
            "exp.toml",
            "qrels = \"qrels.txt\"\nmissing = \"zero\"\nbaseline = \"good\"\n\n\
             [[runs]]\npath = \"good.trec\"\n\n[[runs]]\npath = \"other.trec\"\n",
        ),
        (
            "allowed.toml",
            "qrels = \"qrels.txt\"\nmissing = \"zero\"\nallow_empty_run = true\n\n\
             [[runs]]\npath = \"other.trec\"\n",
        ),
    ])
}

fn snapshot(name: &str, args: &[&str]) -> i32 {
    let dir = files();
    let result = run_in(dir.path(), args);
    assert!(!result.2.contains("panicked"), "{}", result.2);
    let code = result.0;
    insta::assert_snapshot!(name, transcript(args, result));
    code
}

#[test]
fn a_run_that_shares_no_query_is_refused_even_scored_zero_against_a_baseline() {
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "good.trec",
        "--run",
        "other.trec",
        "--missing",
        "zero",
        "--baseline",
        "good",
        "-m",
        "ap",
    ];
    assert_eq!(snapshot("never_ran_no_shared_query", &args), 2);
    // What it did before, when asked for.
    let allowed = [&args[..], &["--allow-empty-run"]].concat();
    let dir = files();
    let (code, stdout, stderr) = run_in(dir.path(), &allowed);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("other"), "{stdout}");
}

#[test]
fn empty_lists_for_every_judged_query_are_refused() {
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "empty.jsonl",
        "-m",
        "ap",
    ];
    assert_eq!(snapshot("never_ran_empty_lists", &args), 2);
}

#[test]
fn every_path_refuses_it() {
    let dir = files();
    for args in [
        // Read whole (a score threshold), and while read (grouped TREC).
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "other.trec",
            "--score-threshold",
            "0",
        ][..],
        &["eval", "--qrels", "qrels.txt", "--run", "other.trec"],
        // A TOML experiment.
        &["run", "exp.toml"],
    ] {
        let (code, _, stderr) = run_in(dir.path(), args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains("run `other` (other.trec) never ran on these qrels"),
            "{args:?}: {stderr}"
        );
        assert!(
            stderr.contains("`q301`") && stderr.contains("`301`"),
            "{stderr}"
        );
    }
    let (code, _, stderr) = run_in(dir.path(), &["run", "allowed.toml"]);
    assert_eq!(code, 0, "{stderr}");
    // A run that shares one query is evaluated as before.
    let (code, _, stderr) = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "good.trec",
            "--missing",
            "zero",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
}

/// Document ids written differently on the two sides (`7` against `007`)
/// gave 0 on every metric without a word, where query ids written
/// differently are an error: now a warning names a query and a few ids of
/// each side, the same on every path a run is read by (a grouped TREC
/// file evaluated while read, an ungrouped one read whole, CSV).
#[test]
fn document_ids_written_differently_are_warned_of_with_ids_of_each_side() {
    let qrels = "q1 0 007 1\nq1 0 008 0\nq2 0 012 1\nq3 0 013 1\n";
    let grouped = "q2 Q0 12 1 1 t\nq1 Q0 7 1 2 t\nq1 Q0 8 2 1 t\nq3 Q0 13 1 1 t\n";
    let ungrouped = "q1 Q0 7 1 2 t\nq2 Q0 12 1 1 t\nq1 Q0 8 2 1 t\nq3 Q0 13 1 1 t\n";
    let csv = "user,item,score\nq1,7,2\nq1,8,1\nq2,12,1\nq3,13,1\n";
    let dir = scratch(&[
        ("qrels.txt", qrels),
        ("grouped.trec", grouped),
        ("ungrouped.trec", ungrouped),
        ("run.csv", csv),
        ("matched.trec", "q1 Q0 7 1 2 t\nq2 Q0 012 1 1 t\n"),
    ]);
    let expected = "none of the documents the run ranks for its 3 judged queries is in the \
                    qrels (in the ranks the metrics read), so every metric is 0: are document \
                    ids written the same way on both sides? (query `q1`: the run ranks `7`, \
                    `8`; the qrels judge `007`, `008`)";
    for run in ["grouped.trec", "ungrouped.trec", "run.csv"] {
        let (code, stdout, stderr) = run_in(
            dir.path(),
            &[
                "eval",
                "--qrels",
                "qrels.txt",
                "--run",
                run,
                "-m",
                "ndcg@10",
            ],
        );
        assert_eq!(code, 0, "{run}: {stderr}");
        assert!(stdout.contains("0.0000"), "{stdout}");
        assert!(stderr.contains(expected), "{run}: {stderr}");
    }
    // One judged document retrieved anywhere: no such warning.
    let (code, _, stderr) = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "matched.trec",
            "-m",
            "ndcg@10",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("written the same way"), "{stderr}");
}
