//! `rankeval ppi` on examples/judgements (an LLM's labels for 40 queries,
//! people's for 15): the report, and its numbers recomputed from `rankeval
//! eval`'s per-query values under each set of judgements (λ = 0: people's
//! mean alone; λ = 1: plain PPI, the model's mean on the unlabelled queries
//! plus the labelled queries' mean correction).

use crate::rankeval_snapshot;

const DIR: &str = "examples/judgements";

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "ppi",
        "--qrels",
        "examples/judgements/llm.qrels",
        "--human",
        "examples/judgements/human.qrels",
        "--run",
        "examples/judgements/bm25.trec",
        "--run",
        "examples/judgements/dense.trec",
        "-m",
        "ndcg@5",
        "-m",
        "p@5",
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn table_with_a_baseline_and_gates() {
    rankeval_snapshot!(
        "ppi_table",
        &args(&[
            "--baseline",
            "bm25",
            "--gate",
            "ndcg@5:superior",
            "--gate",
            "p@5:at_least(0.9)",
            "--no-fail",
        ])
    );
}

#[test]
fn a_failed_gate_exits_1() {
    let (code, _, stderr) = super::run(&args(&["--gate", "p@5:at_least(0.99)"]));
    assert_eq!(code, 1, "{stderr}");
}

/// `query -> value` of one run and metric, from `rankeval eval`'s JSON.
fn per_query(qrels: &str, run: &str, metric: &str) -> Vec<(String, f64)> {
    let (code, json, stderr) = super::run(&[
        "eval",
        "--qrels",
        &format!("{DIR}/{qrels}"),
        "--run",
        &format!("{DIR}/{run}.trec"),
        "-m",
        metric,
        "--per-query",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let document: serde_json::Value = serde_json::from_str(&json).unwrap();
    document["runs"][0]["per_query"][metric]
        .as_object()
        .unwrap()
        .iter()
        .map(|(q, v)| (q.clone(), v.as_f64().unwrap()))
        .collect()
}

fn ppi_json(extra: &[&str]) -> serde_json::Value {
    let (code, json, stderr) = super::run(&args(&[&["--format", "json"], extra].concat()));
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&json).unwrap()
}

fn mean(values: &[f64]) -> f64 {
    rankeval::core::exact_sum::fmean(values)
}

#[test]
fn estimates_equal_the_per_query_values_of_eval() {
    for (r, run) in ["bm25", "dense"].into_iter().enumerate() {
        for (m, metric) in ["ndcg@5", "p@5"].into_iter().enumerate() {
            let model = per_query("llm.qrels", run, metric);
            let human: std::collections::HashMap<String, f64> =
                per_query("human.qrels", run, metric).into_iter().collect();
            assert_eq!((model.len(), human.len()), (40, 15));
            let unlabelled: Vec<f64> = model
                .iter()
                .filter(|(q, _)| !human.contains_key(q))
                .map(|(_, v)| *v)
                .collect();
            let correction: Vec<f64> = model
                .iter()
                .filter_map(|(q, f)| human.get(q).map(|y| y - f))
                .collect();
            let people: Vec<f64> = human.values().copied().collect();
            let plain = ppi_json(&["--lambda", "1"]);
            let got = plain["runs"][r]["metrics"][m]["mean"]["estimate"]
                .as_f64()
                .unwrap();
            assert_eq!(got, mean(&unlabelled) + mean(&correction), "{run} {metric}");
            let alone = ppi_json(&["--lambda", "0"]);
            let got = alone["runs"][r]["metrics"][m]["mean"]["estimate"]
                .as_f64()
                .unwrap();
            let want = mean(&people);
            assert!(
                (got - want).abs() < 1e-15,
                "{run} {metric}: {got} != {want}"
            );
            let classical = alone["runs"][r]["metrics"][m]["mean"]["classical"]["mean"]
                .as_f64()
                .unwrap();
            assert_eq!(classical, got);
        }
    }
}

#[test]
fn errors_name_the_flag() {
    let (code, _, stderr) = super::run(&args(&["--lambda", "often"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("--lambda often"), "{stderr}");
    let (code, _, stderr) = super::run(&args(&["--baseline", "nope"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("baseline `nope`"), "{stderr}");
    let (code, _, stderr) = super::run(&args(&["--gate", "ap:superior"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("`ap` is not evaluated"), "{stderr}");
}

#[test]
fn markdown_is_one_table_then_the_summary() {
    let (code, text, stderr) = super::run(&args(&["--format", "markdown"]));
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("| metric | run | PPI mean [interval] |"),
        "{text}"
    );
    assert!(lines[1].starts_with("| --- | --- |"), "{text}");
    // Two metrics of two runs, then a blank line and the summary.
    assert!(lines[2..6].iter().all(|l| l.starts_with("| ")), "{text}");
    assert_eq!(lines[6], "");
    assert!(
        lines[7].starts_with("bm25: 40 queries judged by the model"),
        "{text}"
    );
}

/// `(query, doc) -> grade` of a TREC qrels file of examples/judgements.
fn grades(file: &str) -> std::collections::BTreeMap<(String, String), i64> {
    std::fs::read_to_string(super::workspace().join(DIR).join(file))
        .unwrap()
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            ((f[0].to_owned(), f[2].to_owned()), f[3].parse().unwrap())
        })
        .collect()
}

/// llm.qrels and human.qrels as one table with a column per judge, empty
/// (CSV), null (JSON Lines, Parquet) where a judge gave no grade: written
/// in `dir` as judges.csv, judges.jsonl and judges.parquet.
pub(super) fn judge_tables(dir: &std::path::Path) {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema};

    let (llm, human) = (grades("llm.qrels"), grades("human.qrels"));
    let mut keys: Vec<&(String, String)> = llm.keys().chain(human.keys()).collect();
    keys.sort();
    keys.dedup();
    let cell = |g: Option<&i64>| g.map_or(String::new(), i64::to_string);
    let json = |g: Option<&i64>| g.map_or("null".to_owned(), i64::to_string);
    let mut csv = "user,item,llm,human\n".to_owned();
    let mut jsonl = String::new();
    for key in &keys {
        let (l, h) = (llm.get(*key), human.get(*key));
        csv.push_str(&format!("{},{},{},{}\n", key.0, key.1, cell(l), cell(h)));
        jsonl.push_str(&format!(
            "{{\"user\": \"{}\", \"item\": \"{}\", \"llm\": {}, \"human\": {}}}\n",
            key.0,
            key.1,
            json(l),
            json(h)
        ));
    }
    std::fs::write(dir.join("judges.csv"), csv).unwrap();
    std::fs::write(dir.join("judges.jsonl"), jsonl).unwrap();
    let column = |grades: &std::collections::BTreeMap<(String, String), i64>| -> ArrayRef {
        Arc::new(Int64Array::from(
            keys.iter()
                .map(|k| grades.get(*k).copied())
                .collect::<Vec<_>>(),
        ))
    };
    let schema = Arc::new(Schema::new(vec![
        Field::new("user", DataType::Utf8, false),
        Field::new("item", DataType::Utf8, false),
        Field::new("llm", DataType::Int64, true),
        Field::new("human", DataType::Int64, true),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(StringArray::from_iter_values(keys.iter().map(|k| &k.0))),
            Arc::new(StringArray::from_iter_values(keys.iter().map(|k| &k.1))),
            column(&llm),
            column(&human),
        ],
    )
    .unwrap();
    let file = std::fs::File::create(dir.join("judges.parquet")).unwrap();
    // Row groups of 100 rows: the first null of `human` is in a later one.
    let properties = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(100))
        .build();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, schema, Some(properties)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// One table with a column per judge, empty or null where a judge gave no
/// grade (as `ppi --help` shows it), gives the numbers of the two qrels
/// files, in CSV, JSON Lines and Parquet; the rows left out are counted
/// on standard error. Before, every empty cell was an error.
#[test]
fn one_table_with_empty_cells_is_read_as_the_two_files() {
    let dir = tempfile::tempdir().unwrap();
    judge_tables(dir.path());
    let workspace = super::workspace();
    let path = |f: &str| workspace.join(DIR).join(f).to_str().unwrap().to_owned();
    let (bm25, dense) = (path("bm25.trec"), path("dense.trec"));
    let common = |qrels: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = ["ppi"].iter().chain(qrels).map(|s| s.to_string()).collect();
        for extra in [
            "--run",
            &bm25,
            "--run",
            &dense,
            "-m",
            "ndcg@5",
            "-m",
            "p@5",
            "--baseline",
            "bm25",
            "--format",
            "json",
        ] {
            args.push(extra.to_owned());
        }
        args
    };
    let run = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        super::run_in(dir.path(), &args)
    };
    let (llm, human) = (path("llm.qrels"), path("human.qrels"));
    let (code, want, stderr) = run(common(&["--qrels", &llm, "--human", &human]));
    assert_eq!((code, stderr.as_str()), (0, ""));
    for (table, first) in [
        ("judges.csv", "line 182"),
        ("judges.jsonl", "line 181"),
        ("judges.parquet", "row 181"),
    ] {
        let (code, got, stderr) = run(common(&[
            "--qrels",
            table,
            "--grade",
            "llm",
            "--human",
            table,
            "--human-grade",
            "human",
        ]));
        assert_eq!(code, 0, "{table}: {stderr}");
        assert_eq!(got, want, "{table}");
        assert_eq!(
            stderr,
            format!(
                "note: {table}: 300 rows have no grade in `human` (empty or null): read as not \
                 judged by people (the first at {first})\n"
            ),
            "{table}"
        );
    }
}

/// A run without a list for some judged queries: they are counted in the
/// summary (which said before that the run had every judged query),
/// warned about with a few of their ids, and scored 0 with
/// `--missing zero`.
#[test]
fn judged_queries_missing_from_a_run_are_counted_and_warned_about() {
    let bm25 = std::fs::read_to_string(super::workspace().join(DIR).join("bm25.trec")).unwrap();
    let short: String = bm25
        .lines()
        .filter(|l| {
            !["q14 ", "q15 ", "q16 ", "q17 "]
                .iter()
                .any(|q| l.starts_with(q))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let dir = super::scratch(&[("short.trec", &short)]);
    let workspace = super::workspace();
    let path = |f: &str| workspace.join(DIR).join(f).to_str().unwrap().to_owned();
    let (llm, human, dense) = (path("llm.qrels"), path("human.qrels"), path("dense.trec"));
    let args = |extra: &[&'static str]| -> Vec<String> {
        let mut args: Vec<String> = [
            "ppi",
            "--qrels",
            &llm,
            "--human",
            &human,
            "--run",
            "short.trec",
            "--run",
            &dense,
            "-m",
            "p@5",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let run = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        super::run_in(dir.path(), &args)
    };
    let (code, text, stderr) = run(args(&[]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr,
        "warning: run `short`: 4 queries judged by the model have no list in the run and were \
         left out (to score them 0, use --missing zero), 2 of them judged by people: `q14`, \
         `q15`, `q16`, `q17`\n"
    );
    assert!(
        text.contains(
            "short: 36 of the 40 queries judged by the model evaluated, 13 of them judged by \
             people too; 4 have no list in the run and were left out (2 of them judged by people)\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("dense: 40 queries judged by the model, 15 of them by people too\n"),
        "{text}"
    );
    let (code, json, stderr) = run(args(&["--format", "json"]));
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let short = &report["runs"][0];
    assert_eq!(
        (&short["judged"], &short["queries"], &short["labelled"]),
        (&40.into(), &36.into(), &13.into())
    );
    assert_eq!(short["missing"]["count"], 4);
    assert_eq!(short["missing_labelled"], 2);
    assert_eq!(report["missing"], "skip");

    let (code, text, stderr) = run(args(&["--missing", "zero"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.starts_with(
            "warning: run `short`: 4 queries judged by the model have no list in the run and \
             scored 0, 2 of them judged by people: `q14`"
        ),
        "{stderr}"
    );
    assert!(
        text.contains(
            "short: 40 queries judged by the model, 15 of them by people too; 4 have no list in \
             the run and scored 0 (2 of them judged by people)\n"
        ),
        "{text}"
    );
}

/// The one table of both judges from a FIFO, named by both flags (as `ppi
/// --help` shows a table named twice): read once. Read twice, the second
/// read waited for a writer for ever.
#[cfg(unix)]
#[test]
fn one_table_from_a_fifo_named_twice_is_read_once() {
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    judge_tables(dir.path());
    let workspace = super::workspace();
    let bm25 = workspace.join(DIR).join("bm25.trec");
    let bm25 = bm25.to_str().unwrap();
    let args = |table: &'static str| {
        vec![
            "ppi",
            "--qrels",
            table,
            "--grade",
            "llm",
            "--human",
            table,
            "--human-grade",
            "human",
            "--run",
            bm25,
            "-m",
            "p@5",
        ]
    };
    let (code, want, stderr) = super::run_in(dir.path(), &args("judges.csv"));
    assert_eq!(code, 0, "{stderr}");
    let fifo = dir.path().join("fifo.csv");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let text = std::fs::read(dir.path().join("judges.csv")).unwrap();
    let writer = std::thread::spawn(move || std::fs::write(&fifo, text).unwrap());
    let mut child = Command::new(env!("CARGO_BIN_EXE_rankeval"))
        .args(args("fifo.csv"))
        .current_dir(dir.path())
        .env_clear()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    super::wait_or_fail(&mut child, "rankeval ppi hangs on a FIFO named twice");
    writer.join().unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), want);
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        stderr.replace("judges.csv", "fifo.csv")
    );
}
