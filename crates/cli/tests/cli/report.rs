//! `rankeval report`: a report from per-query results alone. On a JSON
//! report written by `eval --per-query` and on a per-query Parquet table
//! (the layout a Spark job writes), its aggregates, comparisons and gates
//! are `eval`'s on the same values; the table, its errors.

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;

/// The evaluation every test starts from: two runs, three metrics.
const EVAL: [&str; 13] = [
    "eval",
    "--qrels",
    "examples/judgements/llm.qrels",
    "--run",
    "examples/judgements/bm25.trec",
    "--run",
    "examples/judgements/dense.trec",
    "-m",
    "ndcg@5",
    "-m",
    "ap",
    "-m",
    "p@10",
];

fn with(base: &[&str], extra: &[&str]) -> Vec<String> {
    base.iter().chain(extra).map(|s| (*s).to_owned()).collect()
}

fn json_of(args: &[String], dir: Option<&std::path::Path>) -> (i32, serde_json::Value) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, stderr) = match dir {
        Some(dir) => super::run_in(dir, &args),
        None => super::run(&args),
    };
    assert!(code == 0 || code == 1, "{stderr}");
    (
        code,
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}")),
    )
}

/// Each run's aggregates, by name.
fn aggregates(report: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap().to_owned(), r["metrics"].clone()))
        .collect()
}

/// Writes the evaluation's results as JSON (`--per-query`) in a scratch
/// directory; returns it.
fn json_results() -> tempfile::TempDir {
    let dir = super::scratch(&[]);
    let target = dir.path().join("results.json");
    let target = target.to_str().unwrap();
    let args = with(&EVAL, &["--format", "json", "--per-query", "-o", target]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, stderr) = super::run(&args);
    assert_eq!(code, 0, "{stderr}");
    dir
}

#[test]
fn a_json_results_file_gives_evals_aggregates_comparisons_and_gates() {
    let dir = json_results();
    let results = dir.path().join("results.json");
    let results = results.to_str().unwrap();
    for extra in [
        &["-a", "mean", "-a", "median", "-a", "ci", "-a", "gmean"][..],
        &[
            "--baseline",
            "bm25",
            "--test",
            "bootstrap-keyed",
            "--resamples",
            "300",
            "--gate",
            "ap:non_inferior(margin=0.01)",
            "--gate",
            "ndcg@5:at_least(0.99)",
        ][..],
        &[
            "--all-pairs",
            "--test",
            "randomization-keyed",
            "--resamples",
            "200",
            "-a",
            "ci",
        ][..],
        &[
            "--baseline",
            "dense",
            "--interval",
            "jackknife",
            "--correction",
            "none",
        ][..],
    ] {
        let (eval_code, eval) =
            json_of(&with(&EVAL, &[extra, &["--format", "json"]].concat()), None);
        let (code, report) = json_of(
            &with(
                &["report", results],
                &[extra, &["--format", "json"]].concat(),
            ),
            None,
        );
        assert_eq!(code, eval_code, "{extra:?}");
        assert_eq!(aggregates(&report), aggregates(&eval), "{extra:?}");
        assert_eq!(report["comparison"], eval["comparison"], "{extra:?}");
    }
    // A gate fails as in eval: exit code 1, 0 with --no-fail.
    let failing = [
        "report",
        results,
        "--baseline",
        "bm25",
        "--gate",
        "ap:at_least(0.99)",
    ];
    assert_eq!(super::run(&failing).0, 1);
    let mut passing = failing.to_vec();
    passing.push("--no-fail");
    assert_eq!(super::run(&passing).0, 0);
}

/// The per-query values of the evaluation, from its CSV output (Rust's
/// float parsing is exact): `(run, query, [ndcg@5, ap, p@10])`.
fn per_query_rows() -> Vec<(String, String, Vec<f64>)> {
    let args = with(&EVAL, &["--format", "csv", "--per-query"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, csv, stderr) = super::run(&args);
    assert_eq!(code, 0, "{stderr}");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (run, query) = (at("run"), at("query"));
    let metrics = [at("ndcg@5"), at("ap"), at("p@10")];
    lines
        .map(|line| line.split(',').collect::<Vec<&str>>())
        .filter(|f| !f[query].is_empty())
        .map(|f| {
            (
                f[run].to_owned(),
                f[query].to_owned(),
                metrics.iter().map(|&m| f[m].parse().unwrap()).collect(),
            )
        })
        .collect()
}

/// The per-query table as a Spark job writes it: a directory of part
/// files (rows shuffled across two parts, dense's rows first) and
/// Spark's `_SUCCESS` marker.
fn parquet_results(dir: &std::path::Path) {
    let rows = per_query_rows();
    assert_eq!(rows.len(), 80);
    let schema = Arc::new(Schema::new(vec![
        Field::new("query", DataType::Utf8, true),
        Field::new("run", DataType::Utf8, true),
        Field::new("ndcg@5", DataType::Float64, true),
        Field::new("ap", DataType::Float64, true),
        Field::new("p@10", DataType::Float64, true),
    ]));
    let table = dir.join("per_query");
    std::fs::create_dir_all(&table).unwrap();
    std::fs::write(table.join("_SUCCESS"), "").unwrap();
    let mut order: Vec<usize> = (0..rows.len()).rev().collect();
    order.rotate_left(17);
    for (part, chunk) in order.chunks(45).enumerate() {
        let ids = |run: bool| -> ArrayRef {
            Arc::new(
                chunk
                    .iter()
                    .map(|&i| Some(if run { &rows[i].0 } else { &rows[i].1 }))
                    .collect::<StringArray>(),
            )
        };
        let value = |m: usize| -> ArrayRef {
            Arc::new(
                chunk
                    .iter()
                    .map(|&i| Some(rows[i].2[m]))
                    .collect::<Float64Array>(),
            )
        };
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![ids(false), ids(true), value(0), value(1), value(2)],
        )
        .unwrap();
        let file = std::fs::File::create(table.join(format!("part-{part:05}.parquet"))).unwrap();
        let mut writer = ArrowWriter::try_new(file, schema.clone(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
    }
}

#[test]
fn a_per_query_parquet_table_gives_evals_numbers() {
    let dir = super::scratch(&[]);
    parquet_results(dir.path());
    let table = dir.path().join("per_query");
    let table = table.to_str().unwrap();
    for extra in [
        &["-a", "mean", "-a", "std", "-a", "ci"][..],
        &[
            "--baseline",
            "bm25",
            "--test",
            "randomization-keyed",
            "--resamples",
            "300",
        ][..],
        &["--all-pairs", "--resamples", "300"][..],
    ] {
        let (_, eval) = json_of(&with(&EVAL, &[extra, &["--format", "json"]].concat()), None);
        let (_, report) = json_of(
            &with(&["report", table], &[extra, &["--format", "json"]].concat()),
            None,
        );
        assert_eq!(aggregates(&report), aggregates(&eval), "{extra:?}");
        assert_eq!(report["comparison"], eval["comparison"], "{extra:?}");
    }
    // --run picks and orders the runs.
    let (_, one) = json_of(
        &with(&["report", table], &["--run", "dense", "--format", "json"]),
        None,
    );
    assert_eq!(aggregates(&one).len(), 1);
    assert_eq!(aggregates(&one)[0].0, "dense");
}

#[test]
fn the_table_of_a_report() {
    let dir = json_results();
    let args = [
        "report",
        "results.json",
        "--baseline",
        "bm25",
        "-a",
        "mean",
        "-a",
        "median",
    ];
    let got = super::run_in(dir.path(), &args);
    insta::assert_snapshot!("report_table", super::transcript(&args, got));
}

#[test]
fn bad_results_runs_and_aggregators_are_named() {
    let dir = json_results();
    for (args, needle) in [
        (
            &["report", "results.json", "--run", "nope"][..],
            "--run nope: results.json has no run of that name (it has `bm25`, `dense`)",
        ),
        (
            &["report", "results.json", "--run", "bm25", "--run", "bm25"][..],
            "is given twice",
        ),
        (&["report", "absent.json"][..], "absent.json"),
        (&["report", "results.json", "-a", "bogus"][..], "bogus"),
        (
            &["report", "results.json", "--baseline", "nope"][..],
            "--baseline nope: no run has that name (the runs are `bm25`, `dense`)",
        ),
        (
            &["report", "results.json", "--gate", "recall@9:at_least(0.1)"][..],
            "--gate",
        ),
    ] {
        let (code, _, stderr) = super::run_in(dir.path(), args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
    // A file that is not a report.
    let other = super::scratch(&[("qrels.json", "{\"q\": 1}")]);
    let (code, _, stderr) = super::run_in(other.path(), &["report", "qrels.json"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not a rankeval JSON report"), "{stderr}");
}
