//! Each input with its own format and columns: a `[qrels]` table and
//! `[[runs]]` tables in TOML, `--qrels-format`, `--run-format`,
//! `--qrels-columns`, `--run-columns` and `--run NAME=FILE` on the command
//! line; every mistake refused before data is read, naming the key or flag.

use super::{run_in, scratch, transcript};

/// Ground truth keyed `user_id,item_id,rating`, a CSV run keyed `user,item`
/// and a JSON Lines run with its own keys: the same data as `TRUTH_TREC`
/// and `RUN_TREC`.
const TRUTH: &str = "user_id;item_id;rating\nu1;i1;2\nu1;i2;1\nu2;i9;1\n";
const RUN: &str = "user,item,score\nu1,i3,0.9\nu1,i1,0.8\nu1,i2,0.1\nu2,i9,0.5\n";
const RUN_JSONL: &str = "{\"uid\": \"u1\", \"recs\": [\"i3\", \"i1\", \"i2\"], \"model\": \"m\"}\n{\"uid\": \"u2\", \"recs\": [\"i9\"]}\n";
const TRUTH_TREC: &str = "u1 0 i1 2\nu1 0 i2 1\nu2 0 i9 1\n";
const RUN_TREC: &str = "u1 Q0 i3 1 0.9 t\nu1 Q0 i1 2 0.8 t\nu1 Q0 i2 3 0.1 t\nu2 Q0 i9 1 0.5 t\n";

fn files() -> tempfile::TempDir {
    scratch(&[
        ("truth.data", TRUTH),
        ("run.csv", RUN),
        ("model.jsonl", RUN_JSONL),
        ("truth.txt", TRUTH_TREC),
        ("run.trec", RUN_TREC),
        ("same.trec", RUN_TREC),
    ])
}

fn report(dir: &std::path::Path, args: &[&str]) -> String {
    let (code, stdout, stderr) = run_in(dir, args);
    assert_eq!(code, 0, "{stderr}");
    stdout
}

const METRICS: &[&str] = &[
    "-m",
    "map",
    "-m",
    "ndcg@3",
    "--format",
    "csv",
    "--per-query",
];

#[test]
fn inputs_with_their_own_formats_and_columns_give_the_trec_values() {
    let dir = files();
    let toml = r#"
[qrels]
path = "truth.data"
format = "csv"
query = "user_id"
doc = "item_id"
grade = "rating"
delimiter = ";"

[[runs]]
name = "a"
path = "run.csv"

[[runs]]
name = "b"
path = "model.jsonl"
query = "uid"
predicted = "recs"

[[metrics]]
type = "map"

[[metrics]]
type = "ndcg"
k = 3
"#;
    std::fs::write(dir.path().join("exp.toml"), toml).unwrap();
    let from_toml = report(
        dir.path(),
        &["run", "exp.toml", "--format", "csv", "--per-query"],
    );
    let from_flags = report(
        dir.path(),
        &[
            &[
                "eval",
                "--qrels",
                "truth.data",
                "--qrels-format",
                "csv",
                "--qrels-columns",
                "query=user_id,doc=item_id,grade=rating,delimiter=;",
                "--run",
                "a=run.csv",
                "--run",
                "b=same.trec",
            ][..],
            METRICS,
        ]
        .concat(),
    );
    let trec = report(
        dir.path(),
        &[
            &[
                "eval",
                "--qrels",
                "truth.txt",
                "--run",
                "a=run.trec",
                "--run",
                "b=same.trec",
            ][..],
            METRICS,
        ]
        .concat(),
    );
    assert_eq!(from_flags, trec);
    assert_eq!(from_toml, trec);
    // A JSON Lines run with its keys renamed on the command line.
    let jsonl = report(
        dir.path(),
        &[
            &[
                "eval",
                "--qrels",
                "truth.txt",
                "--run",
                "b=model.jsonl",
                "--run-columns",
                "query=uid,predicted=recs",
            ][..],
            METRICS,
        ]
        .concat(),
    );
    let one = report(
        dir.path(),
        &[
            &["eval", "--qrels", "truth.txt", "--run", "b=same.trec"][..],
            METRICS,
        ]
        .concat(),
    );
    assert_eq!(jsonl, one);
}

#[test]
fn a_run_named_on_the_command_line_keeps_its_name() {
    let dir = files();
    let out = report(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "truth.txt",
            "--run",
            "bm25=run.trec",
            "-m",
            "map",
            "--format",
            "csv",
        ],
    );
    insta::assert_snapshot!(out);
}

#[test]
fn mistakes_are_refused_before_reading() {
    let dir = files();
    let mut out = String::new();
    for args in [
        &[
            "eval",
            "--qrels",
            "truth.txt",
            "--run",
            "run.trec",
            "--run-columns",
            "user=x",
        ][..],
        &[
            "eval",
            "--qrels",
            "truth.txt",
            "--run",
            "run.trec",
            "--qrels-columns",
            "query",
        ],
        &[
            "eval",
            "--qrels",
            "truth.txt",
            "--run",
            "run.trec",
            "--run-columns",
            "delimiter=ab",
        ],
        &[
            "eval",
            "--qrels",
            "truth.txt",
            "--run",
            "x=run.trec",
            "--run",
            "x=same.trec",
        ],
        &["eval", "--qrels", "truth.txt", "--run", " =run.trec"],
        &["eval", "--qrels", "truth.txt", "--run", "nope=missing.trec"],
    ] {
        out.push_str(&transcript(args, run_in(dir.path(), args)));
    }
    for (name, toml) in [
        (
            "unknown key",
            "[qrels]\npath = \"truth.txt\"\nuser = \"u\"\n\n[[runs]]\npath = \"run.trec\"\n",
        ),
        (
            "empty column",
            "qrels = \"truth.txt\"\n\n[[runs]]\npath = \"run.csv\"\nquery = \"\"\n",
        ),
        (
            "bad delimiter",
            "qrels = \"truth.txt\"\n\n[[runs]]\npath = \"run.csv\"\n\ndelimiter = \"ab\"\n",
        ),
        (
            "two formats",
            "qrels_format = \"trec\"\n\n[qrels]\npath = \"truth.txt\"\n\n[[runs]]\npath = \"run.trec\"\n",
        ),
        (
            "missing qrels file",
            "[qrels]\npath = \"nope.txt\"\n\n[[runs]]\npath = \"run.trec\"\n",
        ),
    ] {
        std::fs::write(dir.path().join("exp.toml"), toml).unwrap();
        out.push_str(&format!("# {name}\n"));
        out.push_str(&transcript(
            &["run", "exp.toml"],
            run_in(dir.path(), &["run", "exp.toml"]),
        ));
    }
    insta::assert_snapshot!(out);
}
