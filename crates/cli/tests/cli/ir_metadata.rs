//! A TREC run's ir_metadata block (TIREx, repro_eval) in the JSON report
//! (the run's `ir_metadata`) and in a results history (the record's
//! `metadata`); a block that cannot be read (outside the YAML subset, a
//! repeated key, control bytes, not UTF-8, no end within 1 MiB, huge) is a
//! warning naming the file and line, and the run is evaluated as trec_eval
//! evaluates it, skipping the block as comments.

use std::io::Write;
use std::process::{Command, Stdio};

use super::{run_in, scratch, transcript};

const QRELS: &str = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\nq2 0 d 1\n";
const RUN: &str = "q1 Q0 b 1 2 bm25\nq1 Q0 a 2 1 bm25\nq2 Q0 d 1 2 bm25\nq2 Q0 c 2 1 bm25\n";

/// A block as repro_eval's `write_metadata` writes it (`# LINE `).
const BLOCK: &str = "# ir_metadata.start\n\
                     # tag: bm25-rm3 \n\
                     # actor: \n\
                     #   team: irc \n\
                     # research goal: \n\
                     #   evaluation: \n\
                     #     baseline: \n\
                     #     - bm25 \n\
                     #     - 'qld' \n\
                     # ir_metadata.end\n";

const EVAL: &[&str] = &[
    "eval",
    "--qrels",
    "qrels.txt",
    "--run",
    "run.trec",
    "-m",
    "ap",
    "-m",
    "ndcg@10",
    "--format",
    "json",
];

#[test]
fn the_block_is_the_runs_ir_metadata_in_json() {
    let run = format!("{BLOCK}{RUN}");
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", &run)]);
    insta::assert_snapshot!(
        "ir_metadata_json",
        transcript(EVAL, run_in(dir.path(), EVAL))
    );
    // The same values as the run without its block, and no `ir_metadata`.
    let plain = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let (code, without, stderr) = run_in(plain.path(), EVAL);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert!(!without.contains("ir_metadata"), "{without}");
    let (_, with, _) = run_in(dir.path(), EVAL);
    let values = |text: &str| {
        let json: serde_json::Value = serde_json::from_str(text).unwrap();
        json["runs"][0]["metrics"].clone()
    };
    assert_eq!(values(&with), values(&without));
}

/// A run read from a pipe: its block is read from the spill file the pipe
/// was copied to while it was streamed.
#[test]
fn a_piped_run_keeps_its_block() {
    let dir = scratch(&[("qrels.txt", QRELS)]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_rankeval"))
        .args([
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "piped=/dev/stdin",
            "-m",
            "ap",
            "--format",
            "json",
        ])
        .current_dir(dir.path())
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(format!("{BLOCK}{RUN}").as_bytes()).unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let metadata = &json["runs"][0]["ir_metadata"];
    assert_eq!(metadata["tag"], "bm25-rm3");
    assert_eq!(
        metadata["fields"]["research goal.evaluation.baseline[1]"],
        "qld"
    );
}

/// The record of a run with a block holds its fields (`metadata` in the
/// history's export).
#[test]
fn the_history_record_holds_the_fields() {
    let run = format!("{BLOCK}{RUN}");
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", &run)]);
    let (code, _, stderr) = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "ap",
            "--record",
            "h.sqlite",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = run_in(
        dir.path(),
        &["history", "export", "h.sqlite", "--format", "jsonl"],
    );
    assert_eq!(code, 0, "{stderr}");
    let record: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(
        record["metadata"],
        serde_json::json!({
            "tag": "bm25-rm3",
            "actor.team": "irc",
            "research goal.evaluation.baseline[0]": "bm25",
            "research goal.evaluation.baseline[1]": "qld",
        })
    );
}

/// Each hostile block: the run is still evaluated (the values of the run
/// without the block), with one warning naming the file, the line and the
/// problem, and no `ir_metadata`.
#[test]
fn a_block_that_cannot_be_read_is_a_warning_and_the_run_counts() {
    let plain = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let (_, expected, _) = run_in(plain.path(), EVAL);
    let expected: serde_json::Value = serde_json::from_str(&expected).unwrap();
    let huge_line = format!("# ir_metadata.start\n# tag: {}\n", "a".repeat(3 << 20));
    let many_lines = format!("# ir_metadata.start\n{}", "# a: b\n".repeat(20_000));
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "a YAML block scalar",
            b"# ir_metadata.start\n# tag: x\n# description: |\n#   two\n# ir_metadata.end\n"
                .to_vec(),
            "run.trec:4: ir_metadata block: expected `key: value`",
        ),
        (
            "a repeated key",
            b"# ir_metadata.start\n# tag: x\n# tag: y\n# ir_metadata.end\n".to_vec(),
            "run.trec:3: ir_metadata block: `tag` is given twice",
        ),
        (
            "a control byte",
            b"# ir_metadata.start\n# tag: x\x1by\n# ir_metadata.end\n".to_vec(),
            "run.trec:2: ir_metadata block: a control character (\\u{1b})",
        ),
        (
            "not UTF-8",
            b"# ir_metadata.start\n# tag: \xff\xfe\n# ir_metadata.end\n".to_vec(),
            "run.trec:2: ir_metadata block: a line that is not UTF-8 text",
        ),
        (
            "no end",
            b"# ir_metadata.start\n# tag: x\n".to_vec(),
            "run.trec:3: ir_metadata block: a line that is not a comment",
        ),
        (
            "a 3 MiB line",
            huge_line.into_bytes(),
            "run.trec:1: ir_metadata block: no `# ir_metadata.end` within the first 1 MiB",
        ),
        (
            "20 000 lines",
            many_lines.into_bytes(),
            "run.trec:10001: ir_metadata block: more than 10000 lines",
        ),
    ];
    for (what, block, message) in cases {
        let mut run = block;
        run.extend_from_slice(RUN.as_bytes());
        let dir = scratch(&[("qrels.txt", QRELS)]);
        std::fs::write(dir.path().join("run.trec"), &run).unwrap();
        let (code, stdout, stderr) = run_in(dir.path(), EVAL);
        assert_eq!(code, 0, "{what}: {stderr}");
        let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(
            json["runs"][0]["metrics"], expected["runs"][0]["metrics"],
            "{what}"
        );
        assert!(json["runs"][0].get("ir_metadata").is_none(), "{what}");
        let warnings = json["warnings"].as_array().unwrap();
        assert_eq!(warnings.len(), 1, "{what}: {warnings:?}");
        assert_eq!(warnings[0]["kind"], "ir_metadata_unread", "{what}");
        let shown = warnings[0]["message"].as_str().unwrap();
        assert!(shown.starts_with(message), "{what}: {shown}");
        assert!(
            shown.ends_with("the run was evaluated without its ir_metadata"),
            "{what}: {shown}"
        );
        assert!(stderr.contains(message), "{what}: {stderr}");
        assert!(stderr.len() < 400, "{what}: {stderr}");
    }
}
