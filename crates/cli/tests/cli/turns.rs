//! `--turns SEP` and TOML `turns`: conversational query ids (`31_4`) give
//! each run's results per conversation and per turn position (turns in
//! number order), gates on a turn, and the same report from TOML.

use super::{run_in, scratch, transcript};

/// Two conversations: c7 of three turns, c12 of two; the run finds the
/// relevant document at rank 1 on the first turns and later after.
const QRELS: &str = "c7_1 0 a 1\nc7_2 0 a 1\nc7_10 0 a 1\nc12_1 0 a 1\nc12_2 0 a 1\n";
const RUN: &str = "c7_1 Q0 a 1 3 r\nc7_1 Q0 b 2 2 r\n\
                   c7_2 Q0 b 1 3 r\nc7_2 Q0 a 2 2 r\n\
                   c7_10 Q0 b 1 3 r\nc7_10 Q0 c 2 2 r\nc7_10 Q0 a 3 1 r\n\
                   c12_1 Q0 a 1 3 r\n\
                   c12_2 Q0 b 1 3 r\nc12_2 Q0 a 2 2 r\n";

#[test]
fn results_per_conversation_and_turn() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "run.trec",
        "-m",
        "rr",
        "--turns",
        "_",
        "--gate",
        "rr[turn=1]:at_least(1)",
    ];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 0, "{}", result.2);
    // Turn 1: RR 1 and 1; turn 2: 1/2 and 1/2; turn 10: 1/3. Conversation
    // c7: (1 + 1/2 + 1/3) / 3; c12: (1 + 1/2) / 2.
    insta::assert_snapshot!("turns_table", transcript(&args, result));
    let toml = "qrels = \"qrels.txt\"\nturns = \"_\"\n\
                [[runs]]\nname = \"run\"\npath = \"run.trec\"\n\
                [[metrics]]\ntype = \"rr\"\n";
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("run.trec", RUN),
        ("experiment.toml", toml),
    ]);
    let from_toml = run_in(dir.path(), &["run", "experiment.toml"]);
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let from_flags = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run=run.trec",
            "-m",
            "rr",
            "--turns",
            "_",
        ],
    );
    assert_eq!(from_toml.0, 0, "{}", from_toml.2);
    assert_eq!(from_toml.1, from_flags.1);
}

#[test]
fn a_failed_turn_gate_and_an_empty_separator() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let (code, _, stderr) = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "rr",
            "--turns",
            "_",
            "--gate",
            "rr[turn=2]:at_least(0.9)",
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("rr[turn=2]"), "{stderr}");
    let (code, _, stderr) = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "rr",
            "--turns",
            "",
        ],
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("--turns"), "{stderr}");
}

#[test]
fn per_conversation_the_unit_is_the_conversation() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let (code, csv, stderr) = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run=run.trec",
            "-m",
            "rr",
            "--turns",
            "_",
            "--per-conversation",
            "--per-query",
            "--format",
            "csv",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let value = |key: &str| -> f64 {
        let line = csv
            .lines()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("no {key} in\n{csv}"));
        line.rsplit(',').next().unwrap().parse().unwrap()
    };
    let c7 = rankeval::core::exact_sum::fmean(&[1.0, 0.5, 1.0 / 3.0]);
    let c12 = rankeval::core::exact_sum::fmean(&[1.0, 0.5]);
    assert_eq!(value("run,c7,,"), c7);
    assert_eq!(value("run,c12,,"), c12);
    // The mean over conversations, not over the five turns (2/3).
    assert_eq!(
        value("run,,mean,"),
        rankeval::core::exact_sum::fmean(&[c12, c7])
    );
    assert!(!csv.contains("c7_1"), "{csv}");
    // It needs --turns, and refuses --groups.
    let (code, _, stderr) = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "rr",
            "--per-conversation",
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--turns"), "{stderr}");
}
