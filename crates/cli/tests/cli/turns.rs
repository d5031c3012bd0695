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
    // It needs --turns or --groups.
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

/// The same conversations with opaque query ids: conversation and turn as
/// keys of a JSON Lines groups file.
const OPAQUE: [(&str, &str, &str); 5] = [
    (
        "c7_1",
        "q-a",
        "{\"query\": \"q-a\", \"conversation\": \"c7\", \"turn\": 1}",
    ),
    (
        "c7_2",
        "q-b",
        "{\"query\": \"q-b\", \"conversation\": \"c7\", \"turn\": 2}",
    ),
    (
        "c7_10",
        "q-c",
        "{\"query\": \"q-c\", \"turn\": 10, \"conversation\": \"c7\"}",
    ),
    (
        "c12_1",
        "q-d",
        "{\"query\": \"q-d\", \"conversation\": \"c12\", \"turn\": 1}",
    ),
    (
        "c12_2",
        "q-e",
        "{\"query\": \"q-e\", \"conversation\": \"c12\", \"turn\": 2}",
    ),
];

fn opaque(text: &str) -> String {
    text.lines()
        .map(|line| {
            let (id, rest) = line.split_once(' ').unwrap();
            let new = OPAQUE.iter().find(|(old, _, _)| *old == id).unwrap().1;
            format!("{new} {rest}\n")
        })
        .collect()
}

#[test]
fn conversation_and_turn_from_a_json_lines_groups_file() {
    let groups: String = OPAQUE
        .iter()
        .map(|(_, _, json)| format!("{json}\n"))
        .collect();
    let dir = scratch(&[
        ("qrels.txt", &opaque(QRELS)),
        ("run.trec", &opaque(RUN)),
        ("groups.jsonl", &groups),
    ]);
    let eval = |extra: &[&str]| {
        let mut args = vec![
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run=run.trec",
            "-m",
            "rr",
            "--groups",
            "groups.jsonl",
        ];
        args.extend_from_slice(extra);
        run_in(dir.path(), &args)
    };
    // Turn groups, in number order, gated as with --turns.
    let (code, _, stderr) = eval(&["--gate", "rr[turn=1]:at_least(1)"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = eval(&["--gate", "rr[turn=2]:at_least(0.9)"]);
    assert_eq!(code, 1, "{stderr}");
    let (code, table, stderr) = eval(&[]);
    assert_eq!(code, 0, "{stderr}");
    let turn_2 = table.find("turn=2").unwrap_or_else(|| panic!("{table}"));
    let turn_10 = table.find("turn=10").unwrap_or_else(|| panic!("{table}"));
    assert!(turn_2 < turn_10, "{table}");
    // Per conversation: the same values as from the ids with --turns.
    let (code, csv, stderr) = eval(&["--per-conversation", "--per-query", "--format", "csv"]);
    assert_eq!(code, 0, "{stderr}");
    let from_ids = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let (code, want, stderr) = run_in(
        from_ids.path(),
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
    // Conversations come in the order of their first turn, which the ids
    // set: the same lines, in another order.
    let sorted = |text: &str| {
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        lines.sort();
        lines
    };
    assert_eq!(sorted(&csv), sorted(&want));
    assert!(csv.contains("run,c7,,"), "{csv}");
}

#[test]
fn per_conversation_needs_one_source_of_conversations() {
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("run.trec", RUN),
        ("segments.csv", "query,segment\nc7_1,head\n"),
        (
            "groups.jsonl",
            "{\"query\": \"c7_1\", \"conversation\": \"c7\"}\n",
        ),
    ]);
    let eval = |extra: &[&str]| {
        let mut args = vec![
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "rr",
        ];
        args.extend_from_slice(extra);
        run_in(dir.path(), &args)
    };
    let (code, _, stderr) = eval(&["--per-conversation", "--groups", "segments.csv"]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("segments.csv") && stderr.contains("`conversation` column"),
        "{stderr}"
    );
    let (code, _, stderr) = eval(&[
        "--per-conversation",
        "--groups",
        "groups.jsonl",
        "--turns",
        "_",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("by one of them"), "{stderr}");
}

/// The worked example of docs/judgements.md: examples/judgements's 40
/// queries as 10 conversations of 4 turns, from a JSON Lines groups file;
/// conversations the unit, dense compared with bm25.
#[test]
fn the_worked_conversation_example() {
    crate::rankeval_snapshot!(
        "conversations_example",
        &[
            "eval",
            "--qrels",
            "examples/judgements/llm.qrels",
            "--run",
            "examples/judgements/bm25.trec",
            "--run",
            "examples/judgements/dense.trec",
            "-m",
            "ndcg@5",
            "--groups",
            "examples/judgements/conversations.jsonl",
            "--per-conversation",
            "--baseline",
            "bm25",
        ]
    );
}

/// Under `--per-conversation --turns _`, a query id without the separator
/// is a conversation of its own, counted in a warning naming it (as the
/// docs say); one named as another conversation would merge with it, and
/// is refused.
#[test]
fn per_conversation_warns_of_ids_without_the_separator() {
    let dir = scratch(&[
        ("qrels.txt", &format!("{QRELS}plain 0 a 1\n")),
        ("run.trec", &format!("{RUN}plain Q0 a 1 3 r\n")),
        ("clash-qrels.txt", &format!("{QRELS}c7 0 a 1\n")),
        ("clash.trec", &format!("{RUN}c7 Q0 a 1 3 r\n")),
    ]);
    let eval = |qrels: &str, run: &str| {
        run_in(
            dir.path(),
            &[
                "eval",
                "--qrels",
                qrels,
                "--run",
                &format!("run={run}"),
                "-m",
                "rr",
                "--turns",
                "_",
                "--per-conversation",
                "--format",
                "json",
            ],
        )
    };
    let (code, stdout, stderr) = eval("qrels.txt", "run.trec");
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(
            "warning: run `run`: 1 evaluated query names no conversation (no `_` in the id; \
             e.g. `plain`): each is a conversation of its own"
        ),
        "{stderr}"
    );
    let document: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let warning = document["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .find(|w| w["kind"] == "queries_without_conversation")
        .expect("the warning in JSON");
    assert_eq!(warning["count"], 1);
    assert_eq!(document["runs"][0]["num_queries"], 3, "c7, c12 and plain");
    let (code, _, stderr) = eval("clash-qrels.txt", "clash.trec");
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("query `c7` names no conversation and so is a conversation of its own"),
        "{stderr}"
    );
}
