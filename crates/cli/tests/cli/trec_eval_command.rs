//! The trec_eval entry point through the binary: `rankeval trec_eval` and
//! the binary under the name `trec_eval` (a symlink) give trec_eval's bytes;
//! `-h` and every refused flag are snapshots.

use std::process::Command;

use crate::cli::{run, transcript, workspace};
use crate::rankeval_snapshot;

const DATA: &str = "crates/cli/tests/data/trec_eval";

#[test]
fn subcommand_gives_trec_evals_bytes() {
    let args = [
        "trec_eval",
        "-m",
        "all_trec",
        "-q",
        "crates/cli/tests/data/trec_eval/qrels.test",
        "crates/cli/tests/data/trec_eval/results.test",
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
    let q = "crates/cli/tests/data/trec_eval/qrels.test";
    let r = "crates/cli/tests/data/trec_eval/results.test";
    let cases: Vec<Vec<&str>> = vec![
        vec!["trec_eval", "-Z", "zscores.txt", q, r],
        vec!["trec_eval", "-R", "qrels_jg", q, r],
        vec!["trec_eval", "-T", "other", q, r],
        vec!["trec_eval", "--Re", "qrels", q, r],
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
        "crates/cli/tests/data/trec_eval/qrels.test",
        "crates/cli/tests/data/trec_eval/results.test",
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

/// trec_eval 10's quirks, as its binary printed them on this input: under
/// `-c` a query the run lacks is scored on one unjudged document (removed
/// by `-J`, so interpolated precision divides 0 by 0 and prints `-nan`
/// where the recall level needs 0 documents), its relstring is cleared,
/// and `num_rel` on the `all` line counts every judgement above 0, whatever
/// `-l`.
#[test]
fn trec_evals_quirks_under_c_and_j() {
    let dir = crate::cli::scratch(&[
        ("qrels", "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"),
        ("run", "q1 Q0 x1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n"),
    ]);
    let args = [
        "trec_eval",
        "-q",
        "-c",
        "-l2",
        "-J",
        "-m",
        "iprec_at_recall.0,0.5",
        "-m",
        "11pt_avg",
        "-m",
        "num_rel",
        "-m",
        "relstring",
        "-m",
        "num_ret",
        "qrels",
        "run",
    ];
    let (code, stdout, _) = crate::cli::run_in(dir.path(), &args);
    assert_eq!(code, 0);
    let want = "\
num_ret               \tq1\t1
num_rel               \tq1\t0
iprec_at_recall_0.00  \tq1\t0.0000
iprec_at_recall_0.50  \tq1\t0.0000
relstring             \tq1\t'0'
11pt_avg              \tq1\t0.0000
num_ret               \tq2\t0
num_rel               \tq2\t1
iprec_at_recall_0.00  \tq2\t  -nan
iprec_at_recall_0.50  \tq2\t0.0000
relstring             \tq2\t''
11pt_avg              \tq2\t  -nan
num_ret               \tall\t1
num_rel               \tall\t2
iprec_at_recall_0.00  \tall\t  -nan
iprec_at_recall_0.50  \tall\t0.0000
11pt_avg              \tall\t  -nan
";
    assert_eq!(stdout, want);
}

#[test]
fn a_qrels_query_without_results_is_left_out_with_a_warning() {
    let dir = crate::cli::scratch(&[
        ("qrels", "q1 0 d1 1\nq2 0 d3 1\n"),
        ("run", "q1 Q0 d1 1 2.0 t\n"),
    ]);
    let (code, stdout, stderr) =
        crate::cli::run_in(dir.path(), &["trec_eval", "-m", "num_q", "qrels", "run"]);
    assert_eq!(code, 0);
    assert_eq!(stdout, "num_q                 \tall\t1\n");
    assert!(stderr.contains("1 qrels query has no results"), "{stderr}");
}

/// `set_F.x` takes trec_eval's parameter, `x = beta^2` ("the relative
/// importance of R to P"): `(x + 1) P R / (x P + R)` per query, named
/// `set_F_x` as given; the same as rankeval's `f1(beta2=x)` and, up to
/// rounding, `f1(beta=sqrt(x))`. trec_eval 10 accepts it; it was refused.
#[test]
fn set_f_takes_trec_evals_parameter_beta_squared() {
    let qrels = format!("{DATA}/qrels.test");
    let results = format!("{DATA}/results.test");
    let lines = |measure: &str| -> Vec<(String, String, f64)> {
        let (code, stdout, stderr) = run(&["trec_eval", "-q", "-m", measure, &qrels, &results]);
        assert_eq!((code, stderr.as_str()), (0, ""), "{measure}");
        stdout
            .lines()
            .map(|line| {
                let fields: Vec<&str> = line.split('\t').collect();
                (
                    fields[0].trim().to_owned(),
                    fields[1].to_owned(),
                    fields[2].parse().unwrap(),
                )
            })
            .collect()
    };
    let weighted = lines("set_F.0.5");
    let p = lines("set_P");
    let r = lines("set_recall");
    assert!(weighted.iter().all(|(name, _, _)| name == "set_F_0.5"));
    assert_eq!(weighted.len(), p.len());
    for ((_, query, f), ((_, _, p), (_, _, r))) in weighted.iter().zip(p.iter().zip(&r)) {
        if query == "all" {
            continue; // the mean of the queries' values
        }
        // From the printed (4-decimal) P and R: within their rounding.
        let expected = if p + r > 0.0 {
            1.5 * p * r / (0.5 * p + r)
        } else {
            0.0
        };
        assert!((f - expected).abs() < 2e-4, "{query}: {f} vs {expected}");
    }
    // x = 1 is set_F itself, value for value.
    let one: Vec<f64> = lines("set_F.1").iter().map(|l| l.2).collect();
    let plain: Vec<f64> = lines("set_F").iter().map(|l| l.2).collect();
    assert_eq!(one, plain);
    // And through eval: f1(beta2=0.5) against f1(beta=sqrt(0.5)).
    let (code, stdout, stderr) = run(&[
        "eval",
        "--qrels",
        &qrels,
        "--run",
        &results,
        "-m",
        "f1(beta2=0.5)",
        "-m",
        "f1(beta=0.7071067811865476)",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let means = &report["runs"][0]["metrics"];
    let (a, b) = (
        means["f1(beta2=0.5)"]["mean"].as_f64().unwrap(),
        means["f1(beta=0.7071067811865476)"]["mean"]
            .as_f64()
            .unwrap(),
    );
    assert!((a - b).abs() < 1e-12, "{a} {b}");
    let (code, _, stderr) = run(&[
        "eval",
        "--qrels",
        &qrels,
        "--run",
        &results,
        "-m",
        "f1(beta=2,beta2=4)",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("give beta or beta2, not both"), "{stderr}");
}

/// trec_eval 10 skips comment lines (`#` first) in qrels and runs; an
/// ir_metadata block heads runs from TIREx and repro_eval. Both commands
/// refused such files at line 1: now `rankeval trec_eval` gives trec_eval's
/// bytes for the files with comments (those of the files without), and
/// `eval` the same values, on the general and the fast line paths alike.
/// The qrels here hold comments trec_eval 10 itself refuses (two in a row,
/// one after spaces, one last: docs/trec_eval.md), which rankeval skips;
/// `scripts/cross-check/trec-eval.py --comments` compares the bytes with
/// trec_eval 10 on the comments it skips.
#[test]
fn comment_lines_are_skipped_as_trec_eval_10_skips_them() {
    let data = workspace().join(DATA);
    let read = |name: &str| std::fs::read_to_string(data.join(name)).unwrap();
    let with_comments = |text: &str, header: &str| {
        let mut lines: Vec<&str> = text.lines().collect();
        let middle = lines.len() / 2;
        // A comment shaped like a data line, and one after blanks.
        lines.insert(middle, "# 0 not-a-doc 1");
        lines.insert(middle, "   # a comment after spaces");
        format!("{header}{}\n# the end\n", lines.join("\n"))
    };
    let header = "# ir_metadata.start\n# tag: bm25\n# ir_metadata.end\n";
    let dir = super::scratch(&[
        (
            "qrels.test",
            &with_comments(&read("qrels.test"), "# judged by NIST\n"),
        ),
        (
            "results.test",
            &with_comments(&read("results.test"), header),
        ),
    ]);
    let (code, stdout, stderr) = super::run_in(
        dir.path(),
        &[
            "trec_eval",
            "-m",
            "all_trec",
            "-q",
            "qrels.test",
            "results.test",
        ],
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(stdout, read("out.test.aq"));
    let eval = |dir: &std::path::Path| {
        let (code, stdout, stderr) = super::run_in(
            dir,
            &[
                "eval",
                "--qrels",
                "qrels.test",
                "--run",
                "r=results.test",
                "-m",
                "ap",
                "-m",
                "ndcg@10",
                "--per-query",
                "--format",
                "csv",
            ],
        );
        assert_eq!(code, 0, "{stderr}");
        stdout
    };
    assert_eq!(eval(dir.path()), eval(&data));
}
