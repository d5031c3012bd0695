//! The trec_eval entry point through the binary: `rankeval trec_eval` and
//! the binary under the name `trec_eval` (a symlink) give trec_eval's bytes;
//! `-h` and every refused flag are snapshots.

use std::process::Command;

use crate::cli::{run, transcript, workspace};
use crate::rankeval_snapshot;

const DATA: &str = "crates/runner/tests/data/trec_eval";

#[test]
fn subcommand_gives_trec_evals_bytes() {
    let args = [
        "trec_eval",
        "-m",
        "all_trec",
        "-q",
        "crates/runner/tests/data/trec_eval/qrels.test",
        "crates/runner/tests/data/trec_eval/results.test",
    ];
    let (code, stdout, stderr) = run(&args);
    assert_eq!((code, stderr.as_str()), (0, ""));
    let want = std::fs::read_to_string(workspace().join(DATA).join("out.test.aq")).unwrap();
    assert_eq!(stdout, want);
}

#[cfg(unix)]
#[test]
fn a_symlink_named_trec_eval_takes_trec_evals_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("trec_eval");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_rankeval"), &link).unwrap();
    let output = Command::new(&link)
        .args(["qrels.test", "results.test"])
        .current_dir(workspace().join(DATA))
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let want = std::fs::read(workspace().join(DATA).join("out.test")).unwrap();
    assert_eq!(output.stdout, want);
}

#[test]
fn help() {
    rankeval_snapshot!("trec_eval_help", &["trec_eval", "-h"]);
}

#[test]
fn refused_flags_and_bad_values() {
    let q = "crates/runner/tests/data/trec_eval/qrels.test";
    let r = "crates/runner/tests/data/trec_eval/results.test";
    let cases: Vec<Vec<&str>> = vec![
        vec!["trec_eval", "-Z", "zscores.txt", q, r],
        vec!["trec_eval", "-R", "qrels_jg", q, r],
        vec!["trec_eval", "-T", "trec_results", q, r],
        vec!["trec_eval", "-D1", q, r],
        vec!["trec_eval", "-x", q, r],
        vec!["trec_eval", "--bogus", q, r],
        vec!["trec_eval", "-l", "two", q, r],
        vec!["trec_eval", "-l0", q, r],
        vec!["trec_eval", "-M0", q, r],
        vec!["trec_eval", "-m", "yaap", q, r],
        vec!["trec_eval", "-m", "nonsense", q, r],
        vec!["trec_eval", "-m", "P.0", q, r],
        vec!["trec_eval", "-m", "G.1=2", q, r],
        vec!["trec_eval", q],
        vec!["trec_eval", q, "missing.run"],
    ];
    let mut text = String::new();
    for args in cases {
        let result = run(&args);
        assert_eq!(result.0, 2, "{args:?}");
        text.push_str(&transcript(&args, result));
        text.push('\n');
    }
    insta::assert_snapshot!("trec_eval_refusals", text);
}

#[test]
fn rankeval_metrics_in_trec_evals_m() {
    let args = [
        "trec_eval",
        "-m",
        "P.10",
        "-m",
        "ap(norm=truncated)@10",
        "-m",
        "rbp",
        "-m",
        "rbp(p=0.8)",
        "crates/runner/tests/data/trec_eval/qrels.test",
        "crates/runner/tests/data/trec_eval/results.test",
    ];
    rankeval_snapshot!("trec_eval_rankeval_metrics", &args);
}

#[test]
fn f32_scores_turn_near_ties_into_ties() {
    // A's score exceeds B's only past f32 precision: as f64, A ranks first
    // (P_1 = 1, A is relevant); as f32 they tie, and the tie goes to the
    // higher document id, B (P_1 = 0).
    let dir = crate::cli::scratch(&[
        ("qrels", "q1 0 A 1\nq1 0 B 0\n"),
        ("run", "q1 Q0 A 1 0.300000001 tag\nq1 Q0 B 2 0.3 tag\n"),
    ]);
    let p1 = |extra: &[&str]| {
        let mut args = vec!["trec_eval", "-m", "P.1"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["qrels", "run"]);
        crate::cli::run_in(dir.path(), &args).1
    };
    assert_eq!(p1(&[]), "P_1                   \tall\t1.0000\n");
    assert_eq!(p1(&["--f32"]), "P_1                   \tall\t0.0000\n");
}
