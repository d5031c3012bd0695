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

/// Runs `rankeval args` in `dir`; asserts it refused its input (exit code
/// 2, nothing printed) with an error holding `needle`; returns stderr.
fn refused(dir: &std::path::Path, args: &[&str], needle: &str) -> String {
    let (code, stdout, stderr) = super::run_in(dir, args);
    assert_eq!(code, 2, "{args:?}: {stdout}{stderr}");
    assert_eq!(stdout, "", "{args:?}");
    assert!(stderr.contains(needle), "{args:?}: {needle}\n{stderr}");
    stderr
}

/// A per-query Parquet table of `columns` (strings for `query` and `run`,
/// floats for the others), one row per entry of `rows`.
fn parquet_table(path: &std::path::Path, columns: &[&str], rows: &[(&str, &str, f64)]) {
    let fields: Vec<Field> = columns
        .iter()
        .map(|&c| match c {
            "query" | "run" => Field::new(c, DataType::Utf8, true),
            _ => Field::new(c, DataType::Float64, true),
        })
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let arrays: Vec<ArrayRef> = columns
        .iter()
        .map(|&c| -> ArrayRef {
            match c {
                "query" => Arc::new(rows.iter().map(|r| Some(r.0)).collect::<StringArray>()),
                "run" => Arc::new(rows.iter().map(|r| Some(r.1)).collect::<StringArray>()),
                _ => Arc::new(rows.iter().map(|r| Some(r.2)).collect::<Float64Array>()),
            }
        })
        .collect();
    let batch = RecordBatch::try_new(schema.clone(), arrays).unwrap();
    let mut writer =
        ArrowWriter::try_new(std::fs::File::create(path).unwrap(), schema, None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

#[test]
fn a_query_or_a_run_name_given_twice_is_refused_naming_the_file() {
    let dir = super::scratch(&[
        (
            "twice.json",
            r#"{"runs": [{"name": "a", "per_query": {"ap": {"q1": 0.5, "q2": 1, "q1": 0.25}}},
                         {"name": "b", "per_query": {"ap": {"q1": 0.5, "q2": 1}}}]}"#,
        ),
        (
            "same.json",
            r#"{"runs": [{"name": "a", "per_query": {"ap": {"q1": 0.5}}},
                         {"name": "a", "per_query": {"ap": {"q1": 1}}}]}"#,
        ),
    ]);
    refused(
        dir.path(),
        &["report", "twice.json"],
        "error: results file twice.json: run `a`, metric `ap`: query `q1` is given twice",
    );
    for extra in [&[][..], &["--all-pairs"][..], &["--baseline", "a"][..]] {
        refused(
            dir.path(),
            &[&["report", "same.json"][..], extra].concat(),
            "error: results file same.json: runs 1 and 2 of `runs` are both named `a`",
        );
    }
    // As eval's baseline, the same file is a baseline.
    let qrels = super::workspace().join("examples/judgements/llm.qrels");
    let run = super::workspace().join("examples/judgements/bm25.trec");
    refused(
        dir.path(),
        &[
            "eval",
            "--qrels",
            qrels.to_str().unwrap(),
            "--run",
            run.to_str().unwrap(),
            "-m",
            "ap",
            "--baseline",
            "twice.json",
            "--baseline-run",
            "a",
        ],
        "error: baseline twice.json: run `a`, metric `ap`: query `q1` is given twice",
    );
}

#[test]
fn a_table_without_a_metric_column_is_refused_naming_its_columns() {
    let dir = super::scratch(&[(
        "empty.json",
        r#"{"runs": [{"name": "a", "per_query": {}}]}"#,
    )]);
    parquet_table(
        &dir.path().join("ids.parquet"),
        &["query", "run"],
        &[("q1", "a", 0.0)],
    );
    refused(
        dir.path(),
        &["report", "ids.parquet"],
        "error: results file ids.parquet: no metric column: the table has only `query`, `run`",
    );
    refused(
        dir.path(),
        &["report", "empty.json"],
        "error: results file empty.json: run `a` has no metric in `per_query`",
    );
}

#[test]
fn ids_with_control_characters_are_refused_never_printed() {
    let long = format!("q{}\\n", "x".repeat(1 << 20));
    let dir = super::scratch(&[
        (
            "escape.json",
            r#"{"runs": [{"name": "a", "per_query": {"ap": {"q1": 0.5, "q\u001b[2J": 1}}}]}"#,
        ),
        (
            "newline.json",
            r#"{"runs": [{"name": "a", "per_query": {"ap": {"q\n2": 1}}}]}"#,
        ),
        (
            "nul.json",
            r#"{"runs": [{"name": "a\u0000", "per_query": {"ap": {"q1": 1}}}]}"#,
        ),
        (
            "long.json",
            &format!(r#"{{"runs": [{{"name": "a", "per_query": {{"ap": {{"{long}": 1}}}}}}]}}"#),
        ),
    ]);
    parquet_table(
        &dir.path().join("escape.parquet"),
        &["query", "run", "ap"],
        &[("q1", "a", 0.5), ("q2", "b\u{1b}[2J", 0.25)],
    );
    for format in ["table", "trec", "csv"] {
        for (file, needle) in [
            (
                "escape.json",
                "results file escape.json: run `a`, metric `ap`: query id: the id `q\\u{1b}[2J` \
                 contains U+001B",
            ),
            (
                "newline.json",
                "results file newline.json: run `a`, metric `ap`: query id: the id `q\\n2` \
                 contains U+000A",
            ),
            (
                "nul.json",
                "results file nul.json: run 1 of `runs`, its `name`: the id `a\\0` contains U+0000",
            ),
            (
                "escape.parquet",
                "results file escape.parquet: row 2, column `run`: the id `b\\u{1b}[2J` contains \
                 U+001B",
            ),
            ("long.json", "… (1048578 bytes)` contains U+000A"),
        ] {
            let stderr = refused(dir.path(), &["report", file, "--format", format], needle);
            assert!(!stderr.contains('\u{1b}'), "{stderr}");
            assert!(stderr.len() < 1000, "{} bytes of stderr", stderr.len());
        }
    }
}

#[test]
fn csv_per_query_with_a_comparison_warns_as_eval_does() {
    let dir = json_results();
    for format in ["csv", "trec"] {
        let flags = ["--baseline", "bm25", "--per-query", "--format", format];
        let eval = with(&EVAL, &flags);
        let eval: Vec<&str> = eval.iter().map(String::as_str).collect();
        let (code, _, eval_stderr) = super::run(&eval);
        assert_eq!(code, 0, "{eval_stderr}");
        assert!(eval_stderr.contains("warning: --format"), "{eval_stderr}");
        let (code, _, stderr) = super::run_in(
            dir.path(),
            &[&["report", "results.json"][..], &flags].concat(),
        );
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(stderr, eval_stderr, "{format}");
    }
}

#[cfg(unix)]
#[test]
fn dev_zero_and_fifos_without_end_end_in_an_error_naming_them() {
    use std::io::Write as _;
    let dir = json_results();
    let started = std::time::Instant::now();
    refused(
        dir.path(),
        &["report", "/dev/zero"],
        "error: results file /dev/zero: line 1: the line is longer than 64 MiB",
    );
    // A FIFO that never ends: as JSON (no newline) and named as Parquet.
    for (name, needle) in [
        ("endless.json", "line 1: the line is longer than 64 MiB"),
        (
            "endless.parquet",
            "not a Parquet file: Parquet files start with the bytes PAR1",
        ),
    ] {
        let fifo = dir.path().join(name);
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let writer = std::thread::spawn(move || {
            // Opening blocks until rankeval opens the other end; writing
            // fails once it has closed it.
            let mut pipe = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            let block = vec![b'x'; 1 << 16];
            while pipe.write_all(&block).is_ok() {}
        });
        refused(
            dir.path(),
            &["report", name],
            &format!("error: results file {name}: {needle}"),
        );
        writer.join().unwrap();
    }
    // A FIFO with a report reads as the file does.
    let fifo = dir.path().join("results.fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let text = std::fs::read(dir.path().join("results.json")).unwrap();
    let writer = std::thread::spawn(move || std::fs::write(&fifo, text).unwrap());
    let from_fifo = super::run_in(dir.path(), &["report", "results.fifo", "-a", "ci"]);
    writer.join().unwrap();
    let from_file = super::run_in(dir.path(), &["report", "results.json", "-a", "ci"]);
    assert_eq!(from_fifo, from_file);
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
}

#[test]
fn values_near_the_largest_f64_are_aggregated_without_overflow() {
    let dir = super::scratch(&[(
        "big.json",
        r#"{"runs": [{"name": "a", "per_query": {"ap": {"q1": 1.7e308, "q2": 1.7e308,
            "q3": -1.7e308, "q4": 1.7e308}}}]}"#,
    )]);
    let args = [
        "report", "big.json", "-a", "mean", "-a", "median", "-a", "sum", "-a", "std", "--format",
        "json",
    ];
    let (code, out, stderr) = super::run_in(dir.path(), &args);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ap = &report["runs"][0]["metrics"]["ap"];
    // Exact: the sum is 2 x 1.7e308 (beyond the largest f64), the mean half
    // of 1.7e308; the middle two are both 1.7e308.
    assert_eq!(ap["mean"], 1.7e308 / 2.0, "{out}");
    assert_eq!(ap["median"], 1.7e308, "{out}");
    assert!(ap["std"].as_f64().is_some_and(f64::is_finite), "{out}");
    // The sum has no f64 value: null, and a warning says why.
    assert_eq!(ap["sum"], serde_json::Value::Null, "{out}");
    assert!(
        stderr.contains(
            "warning: run `a`: sum of ap is infinite though every per-query value is finite"
        ),
        "{stderr}"
    );
    assert_eq!(report["warnings"][0]["kind"], "aggregate_overflow", "{out}");
}
