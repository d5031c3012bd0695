//! CSV/TSV inputs through the binary: default and custom column names from
//! flags and from TOML, and the errors for a header without a needed column
//! and for a bad delimiter.

use super::{run_in, scratch, transcript};

const TRUTH: &str = "user,item,grade\nu1,i1,2\nu1,i2,1\nu2,i9,1\n";
const RUN: &str = "user,item,score\nu1,i3,0.9\nu1,i1,0.8\nu1,i2,0.1\nu2,i9,0.5\n";
/// The same data as TREC files.
const TRUTH_TREC: &str = "u1 0 i1 2\nu1 0 i2 1\nu2 0 i9 1\n";
const RUN_TREC: &str = "u1 Q0 i3 1 0.9 t\nu1 Q0 i1 2 0.8 t\nu1 Q0 i2 3 0.1 t\nu2 Q0 i9 1 0.5 t\n";

fn report(dir: &std::path::Path, args: &[&str]) -> String {
    let (code, stdout, stderr) = run_in(dir, args);
    assert_eq!(code, 0, "{stderr}");
    stdout
}

#[test]
fn csv_gives_the_same_report_as_trec() {
    let dir = scratch(&[
        ("truth.csv", TRUTH),
        ("run.csv", RUN),
        ("truth.txt", TRUTH_TREC),
        ("run.trec", RUN_TREC),
    ]);
    let metrics = [
        "-m",
        "map",
        "-m",
        "ndcg@3",
        "-m",
        "p@2",
        "--format",
        "csv",
        "--per-query",
    ];
    let csv = report(
        dir.path(),
        &[
            &["eval", "--qrels", "truth.csv", "--run", "run.csv"],
            &metrics[..],
        ]
        .concat(),
    );
    let trec = report(
        dir.path(),
        &[
            &["eval", "--qrels", "truth.txt", "--run", "run.trec"],
            &metrics[..],
        ]
        .concat(),
    );
    assert_eq!(csv, trec);
}

#[test]
fn custom_columns_from_flags_and_from_toml_agree() {
    let truth = "user_id\titem_id\trating\nu1\ti1\t2\nu1\ti2\t1\nu2\ti9\t1\n";
    let run = "user_id\titem_id\tposition\nu1\ti3\t1\nu1\ti1\t2\nu1\ti2\t3\nu2\ti9\t1\n";
    let toml = "qrels = \"truth.tsv\"\n\n[csv]\nquery = \"user_id\"\ndoc = \"item_id\"\nrank = \"position\"\ngrade = \"rating\"\n\n[[runs]]\nname = \"run\"\npath = \"run.tsv\"\n\n[[metrics]]\ntype = \"ndcg\"\nk = 3\n";
    let dir = scratch(&[
        ("truth.tsv", truth),
        ("run.tsv", run),
        ("exp.toml", toml),
        ("truth.txt", TRUTH_TREC),
        ("run.trec", RUN_TREC),
    ]);
    let from_flags = report(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "truth.tsv",
            "--run",
            "run.tsv",
            "-m",
            "ndcg@3",
            "--csv-query",
            "user_id",
            "--csv-doc",
            "item_id",
            "--csv-rank",
            "position",
            "--csv-grade",
            "rating",
            "--format",
            "json",
        ],
    );
    let from_toml = report(dir.path(), &["run", "exp.toml", "--format", "json"]);
    let from_trec = report(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "truth.txt",
            "--run",
            "run.trec",
            "-m",
            "ndcg@3",
            "--format",
            "json",
        ],
    );
    assert_eq!(from_flags, from_toml);
    assert_eq!(from_flags, from_trec);
}

#[test]
fn header_without_the_query_column() {
    let args = &[
        "eval",
        "--qrels",
        "truth.csv",
        "--run",
        "run.csv",
        "-m",
        "map",
    ];
    let dir = scratch(&[
        ("truth.csv", TRUTH),
        ("run.csv", "user_id,item,score\nu1,i1,0.5\n"),
    ]);
    let result = run_in(dir.path(), args);
    assert_eq!(result.0, 2);
    insta::assert_snapshot!("csv_missing_column", transcript(args, result));
}

#[test]
fn non_numeric_score_names_the_column() {
    let args = &[
        "eval",
        "--qrels",
        "truth.csv",
        "--run",
        "run.csv",
        "-m",
        "map",
    ];
    let dir = scratch(&[
        ("truth.csv", TRUTH),
        ("run.csv", "user,item,score\nu1,i1,0.5\nu1,i2,high\n"),
    ]);
    let result = run_in(dir.path(), args);
    assert_eq!(result.0, 2);
    insta::assert_snapshot!("csv_non_numeric_score", transcript(args, result));
}

#[test]
fn bad_delimiter_is_refused_before_reading() {
    let toml = "qrels = \"truth.csv\"\n\n[csv]\ndelimiter = '\"'\n\n[[runs]]\npath = \"run.csv\"\n";
    let dir = scratch(&[("truth.csv", TRUTH), ("run.csv", RUN), ("exp.toml", toml)]);
    let result = run_in(dir.path(), &["run", "exp.toml"]);
    assert_eq!(result.0, 2);
    insta::assert_snapshot!(
        "csv_bad_delimiter_config",
        transcript(&["run", "exp.toml"], result)
    );
    let args = &[
        "eval",
        "--qrels",
        "truth.csv",
        "--run",
        "run.csv",
        "--csv-delimiter",
        "ab",
    ];
    let result = run_in(dir.path(), args);
    assert_eq!(result.0, 2);
    insta::assert_snapshot!("csv_bad_delimiter_flag", transcript(args, result));
}
