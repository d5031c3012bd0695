//! `rankeval spans` on examples/spans (three queries, span qrels, two runs
//! of chunks chunked differently): the report, RAGAS's context precision
//! through the command, and errors that name the file and line.

use crate::rankeval_snapshot;

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "spans",
        "--qrels",
        "examples/spans/spans.tsv",
        "--run",
        "fixed=examples/spans/fixed.tsv",
        "--run",
        "examples/spans/sentences.jsonl",
        "-m",
        "ap(norm=hits)@3",
        "-m",
        "hit_rate@3",
        "-m",
        "rr@3",
        "-m",
        "recall@3",
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn table_per_query() {
    rankeval_snapshot!(
        "spans_table",
        &args(&["--overlap", "coverage>=0.5", "--per-query"])
    );
}

#[test]
fn json_at_a_character_cutoff() {
    rankeval_snapshot!("spans_json", &args(&["--char-k", "2", "--format", "json"]));
}

/// RAGAS's context precision@K: sum over k <= K of P@k v_k, divided by the
/// number of relevant chunks in the top K (0 without one).
fn ragas(v: &[u8]) -> f64 {
    let (mut hits, mut sum) = (0.0, 0.0);
    for (i, &r) in v.iter().enumerate() {
        if r == 1 {
            hits += 1.0;
            sum += hits / (i as f64 + 1.0);
        }
    }
    if hits == 0.0 { 0.0 } else { sum / hits }
}

#[test]
fn ragas_context_precision_is_ap_norm_hits() {
    // One query per relevance pattern of three chunks (each its own 10
    // characters of doc d, ranked in order), a relevant span under each
    // relevant chunk and one more never retrieved.
    let patterns: [&[u8]; 5] = [&[1, 0, 1], &[0, 1, 1], &[0, 0, 0], &[1, 1, 1], &[0, 0, 1]];
    let mut spans = String::from("query,doc,start,end,grade\n");
    let mut run = String::from("query,doc,start,end,score\n");
    for (q, v) in patterns.iter().enumerate() {
        for (i, &r) in v.iter().enumerate() {
            let start = 10 * i;
            run.push_str(&format!("q{q},d,{start},{},{}\n", start + 10, 3 - i));
            if r == 1 {
                spans.push_str(&format!("q{q},d,{start},{},1\n", start + 10));
            }
        }
        spans.push_str(&format!("q{q},d,500,510,1\n"));
    }
    let dir = super::scratch(&[("spans.csv", &spans), ("run.csv", &run)]);
    let (code, json, stderr) = super::run_in(
        dir.path(),
        &[
            "spans",
            "--qrels",
            "spans.csv",
            "--run",
            "run.csv",
            "-m",
            "ap(norm=hits)@3",
            "--per-query",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let document: serde_json::Value = serde_json::from_str(&json).unwrap();
    let per_query = document["runs"][0]["per_query"].as_array().unwrap();
    assert_eq!(per_query.len(), patterns.len());
    for (q, v) in patterns.iter().enumerate() {
        let row = &per_query[q];
        assert_eq!(row["query"], format!("q{q}"));
        let got = row["chunk"][0].as_f64().unwrap();
        let want = ragas(v);
        assert!((got - want).abs() < 1e-12, "{v:?}: {got} != {want}");
    }
    // The hand-computed values of the formula.
    assert!((ragas(&[1, 0, 1]) - (1.0 + 2.0 / 3.0) / 2.0).abs() < 1e-15);
    assert!((ragas(&[0, 1, 1]) - (0.5 + 2.0 / 3.0) / 2.0).abs() < 1e-15);
    assert_eq!(ragas(&[0, 0, 0]), 0.0);
}

#[test]
fn errors_name_the_file_and_line() {
    let dir = super::scratch(&[
        (
            "bad.tsv",
            "query\tdoc\tstart\tend\tgrade\nq\td\t0\t5\t1\nq\td\t9\t3\t1\n",
        ),
        ("nocol.csv", "query,doc,begin,end,grade\nq,d,0,5,1\n"),
        ("run.csv", "query,doc,start,end,score\nq,d,0,5,x\n"),
        ("good.csv", "query,doc,start,end,grade\nq,d,0,5,1\n"),
    ]);
    let spans = |qrels: &str, run: &str| {
        super::run_in(
            dir.path(),
            &["spans", "--qrels", qrels, "--run", run, "-m", "p@1"],
        )
    };
    let (code, _, stderr) = spans("bad.tsv", "run.csv");
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: bad.tsv, line 3: end 3 <= start 9: a span is [start, end), end after start\n"
    );
    let (code, _, stderr) = spans("nocol.csv", "run.csv");
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: nocol.csv, line 1: no column `start`"),
        "{stderr}"
    );
    let (code, _, stderr) = spans("good.csv", "run.csv");
    assert_eq!(code, 2);
    assert_eq!(stderr, "error: run.csv, line 2: score `x`: not a number\n");
    let (code, _, stderr) = spans("missing.csv", "run.csv");
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: cannot read missing.csv"),
        "{stderr}"
    );
    let (code, _, stderr) = super::run_in(
        dir.path(),
        &[
            "spans",
            "--qrels",
            "good.csv",
            "--run",
            "run.csv",
            "--overlap",
            "iou>0.5",
        ],
    );
    assert_eq!(code, 2);
    assert!(stderr.starts_with("error: --overlap `iou>0.5`"), "{stderr}");
}

const SPANS: &str = "query,doc,start,end,grade\nq1,d1,0,10,1\nq2,d1,20,40,2\n";

/// `spans` in `dir` with `args` after the command.
fn spans_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    super::run_in(dir, &[&["spans", "-m", "p@1"][..], args].concat())
}

#[test]
fn a_run_that_matches_nothing_is_refused_as_eval_refuses_it() {
    let dir = super::scratch(&[
        ("spans.csv", SPANS),
        // The same queries under other ids.
        (
            "other_ids.csv",
            "query,doc,start,end,score\n1,d1,0,10,1\n2,d1,20,40,1\n",
        ),
        ("header_only.csv", "query,doc,start,end,score\n"),
        (
            "partial.csv",
            "query,doc,start,end,score\nq1,d1,0,10,1\nzz,d1,0,10,1\n",
        ),
    ]);
    let (code, stdout, stderr) = spans_in(
        dir.path(),
        &["--qrels", "spans.csv", "--run", "other_ids.csv"],
    );
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stderr.starts_with(
            "error: run `other_ids` (other_ids.csv) never ran on these qrels: it shares no query \
             with them (run queries 2: `1`, `2`; judged queries 2: `q1`, `q2`)"
        ),
        "{stderr}"
    );
    // A long id is cut in the message, not echoed whole.
    let long = format!(
        "query,doc,start,end,score\nq{},d1,0,10,1\n",
        "x".repeat(1 << 20)
    );
    std::fs::write(dir.path().join("long.csv"), long).unwrap();
    let (code, _, stderr) = spans_in(dir.path(), &["--qrels", "spans.csv", "--run", "long.csv"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("(run queries 1: `qxxx"), "{stderr}");
    assert!(stderr.contains("… (1048577 bytes)`"), "{stderr}");
    assert!(stderr.len() < 1000, "{}", stderr.len());
    let (code, _, stderr) = spans_in(
        dir.path(),
        &["--qrels", "spans.csv", "--run", "header_only.csv"],
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("never ran on these qrels"), "{stderr}");
    assert!(stderr.contains("--allow-empty-run"), "{stderr}");
    // Asked for, it is evaluated (every value 0), with the warnings eval gives.
    let (code, stdout, stderr) = spans_in(
        dir.path(),
        &[
            "--qrels",
            "spans.csv",
            "--run",
            "other_ids.csv",
            "--allow-empty-run",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("other_ids  0.0000  0.0000"), "{stdout}");
    assert_eq!(
        stderr,
        "warning: run `other_ids`: 2 queries in the run have no judgements and were not \
         evaluated: `1`, `2`\n\
         warning: run `other_ids`: 2 judged queries have no list in the run and scored 0: `q1`, `q2`\n"
    );
    // A run that shares some queries is evaluated; what it leaves out is said.
    let (code, _, stderr) = spans_in(
        dir.path(),
        &["--qrels", "spans.csv", "--run", "partial.csv"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr,
        "warning: run `partial`: 1 query in the run has no judgements and was not evaluated: `zz`\n\
         warning: run `partial`: 1 judged query has no list in the run and scored 0: `q2`\n"
    );
}

#[test]
fn quoted_csv_is_read_as_csv() {
    let dir = super::scratch(&[
        ("spans.csv", SPANS),
        (
            "quoted_spans.csv",
            "\"query\",\"doc\",\"start\",\"end\",\"grade\"\n\"q1\",\"d1\",0,10,1\n\"q2\",\"d1\",\"20\",\"40\",2\n",
        ),
        (
            "run.csv",
            "query,doc,start,end,score\nq1,d1,0,10,1\nq2,d1,30,50,1\n",
        ),
        (
            "quoted.csv",
            "query,doc,start,end,score\n\"q1\",\"d1\",0,10,1\n\"q2\",d1,30,50,\"1\"\n",
        ),
    ]);
    let plain = spans_in(
        dir.path(),
        &["--qrels", "spans.csv", "--run", "run=run.csv"],
    );
    assert_eq!(plain.0, 0, "{}", plain.2);
    assert!(plain.1.contains("run  1.0000"), "{}", plain.1);
    for (qrels, run) in [
        ("quoted_spans.csv", "run=run.csv"),
        ("spans.csv", "run=quoted.csv"),
    ] {
        let quoted = spans_in(dir.path(), &["--qrels", qrels, "--run", run]);
        assert_eq!(quoted, plain, "{qrels} {run}");
    }
}

#[test]
fn bad_rows_name_the_file_line_and_problem() {
    let long_id = format!("q{}x", "\u{1}".repeat(1 << 20));
    let dir = super::scratch(&[
        ("header_only.csv", "query,doc,start,end,grade\n"),
        (
            "huge.csv",
            "query,doc,start,end,grade\nq1,d1,0,18446744073709551615,1\n",
        ),
        (
            "graded.csv",
            "query,doc,start,end,grade\nq1,d1,0,5,1\nq1,d1,5,9,3e9\n",
        ),
        (
            "ids.csv",
            &format!("query,doc,start,end,grade\n{long_id},d1,0,5,1\n"),
        ),
        ("run.csv", "query,doc,start,end,score\nq1,d1,0,10,1\n"),
    ]);
    let error = |qrels: &str| {
        let (code, stdout, stderr) = spans_in(dir.path(), &["--qrels", qrels, "--run", "run.csv"]);
        assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
        stderr
    };
    assert_eq!(
        error("header_only.csv"),
        "error: header_only.csv: a header and no span: span qrels need rows `query, doc, start, \
         end, grade`\n"
    );
    assert_eq!(
        error("huge.csv"),
        "error: huge.csv, line 2: end `18446744073709551615`: larger than 9007199254740992 \
         (2^53), the largest offset taken (so that every count of characters is exact)\n"
    );
    assert_eq!(
        error("graded.csv"),
        "error: graded.csv, line 3: grade `3e9`: a grade must be between -2147483647 and \
         2147483647\n"
    );
    let ids = error("ids.csv");
    assert!(
        ids.starts_with("error: ids.csv, line 2: column `query`: the id `q\\u{1}\\u{1}"),
        "{ids}"
    );
    assert!(ids.ends_with("(1048578 bytes)` contains U+0001; ids cannot contain whitespace or control characters (as in TREC files)\n"), "{ids}");
    assert!(ids.len() < 500, "{}", ids.len());
}

/// Inputs without end, or too large, end in an error naming the file (and
/// the line) instead of reading gigabytes.
#[cfg(target_os = "linux")]
#[test]
fn inputs_without_end_or_past_the_limits_are_refused() {
    let dir = super::scratch(&[("spans.csv", SPANS)]);
    // A sparse file past the 2 GiB limit: refused before it is read.
    let sparse = std::fs::File::create(dir.path().join("sparse.csv")).unwrap();
    sparse.set_len(3 << 30).unwrap();
    // 40 MB of NUL bytes as a header: a short message.
    let nul = std::fs::File::create(dir.path().join("nul.csv")).unwrap();
    nul.set_len(40 << 20).unwrap();
    let cases = [
        (
            "/dev/zero",
            "error: /dev/zero, line 1: the line is longer than 64 MiB, the limit for one line\n",
        ),
        (
            "sparse.csv",
            "error: sparse.csv: the input is larger than 2048 MiB, the limit for a text input read whole\n",
        ),
    ];
    for (run, want) in cases {
        let (code, _, stderr) = spans_in(dir.path(), &["--qrels", "spans.csv", "--run", run]);
        assert_eq!((code, stderr.as_str()), (2, want));
        let (code, _, stderr) = spans_in(dir.path(), &["--qrels", run, "--run", "spans.csv"]);
        assert_eq!((code, stderr.as_str()), (2, want));
    }
    let (code, _, stderr) = spans_in(dir.path(), &["--qrels", "nul.csv", "--run", "spans.csv"]);
    assert_eq!(code, 2);
    assert!(
        stderr
            .starts_with("error: nul.csv, line 1: no column `query` in the header (it has: \\0\\0"),
        "{stderr}"
    );
    assert!(stderr.contains("… (41943040 bytes)"), "{stderr}");
    assert!(stderr.len() < 500, "{}", stderr.len());
    let (code, _, stderr) = spans_in(dir.path(), &["--qrels", ".", "--run", "spans.csv"]);
    assert_eq!(code, 2);
    assert!(stderr.starts_with("error: cannot read .: "), "{stderr}");
}

#[test]
fn no_relevant_text_leaves_the_character_level_undefined_not_nan() {
    let dir = super::scratch(&[
        ("spans.csv", "query,doc,start,end,grade\nq1,d1,0,10,1\n"),
        ("run.csv", "query,doc,start,end,score\nq1,d1,0,10,1\n"),
    ]);
    let (code, stdout, stderr) = spans_in(
        dir.path(),
        &["--qrels", "spans.csv", "--run", "run.csv", "--rel", "2"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(!stdout.contains("NaN"), "{stdout}");
    assert!(
        stdout.contains("run  0.0000  -               -            -"),
        "{stdout}"
    );
    assert_eq!(
        stderr,
        "warning: no query of the span qrels has relevant text (a span of grade >= 2): the \
         character-level values are not defined (`-`)\n"
    );
}

/// The rows of a TSV span file with a header: query, doc, start, end and
/// the last column.
fn tsv_rows(text: &str) -> Vec<(String, String, i64, i64, f64)> {
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            (
                f[0].to_owned(),
                f[1].to_owned(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            )
        })
        .collect()
}

/// The rows as an Arrow batch: ids as strings, offsets as integers, the
/// last column (`last`) as floats.
fn span_batch(rows: &[(String, String, i64, i64, f64)], last: &str) -> arrow_array::RecordBatch {
    use arrow_array::{Float64Array, Int64Array, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;
    let schema = Schema::new(vec![
        Field::new("query", DataType::Utf8, false),
        Field::new("doc", DataType::Utf8, false),
        Field::new("start", DataType::Int64, false),
        Field::new("end", DataType::Int64, false),
        Field::new(last, DataType::Float64, false),
    ]);
    arrow_array::RecordBatch::try_new(
        Arc::new(schema),
        vec![
            Arc::new(StringArray::from_iter_values(
                rows.iter().map(|r| r.0.as_str()),
            )),
            Arc::new(StringArray::from_iter_values(
                rows.iter().map(|r| r.1.as_str()),
            )),
            Arc::new(rows.iter().map(|r| r.2).collect::<Int64Array>()),
            Arc::new(rows.iter().map(|r| r.3).collect::<Int64Array>()),
            Arc::new(rows.iter().map(|r| r.4).collect::<Float64Array>()),
        ],
    )
    .unwrap()
}

/// examples/spans's files as Parquet (the span qrels), Arrow IPC (a run)
/// and gzip (the other run) give the report of the text files, byte for
/// byte.
#[test]
fn parquet_arrow_and_gzipped_span_files_give_the_text_files_report() {
    use std::io::Write;
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/spans");
    let read = |name: &str| std::fs::read_to_string(examples.join(name)).unwrap();
    let dir = super::scratch(&[
        ("spans.tsv", &read("spans.tsv")),
        ("fixed.tsv", &read("fixed.tsv")),
        ("sentences.jsonl", &read("sentences.jsonl")),
    ]);
    let spans = span_batch(&tsv_rows(&read("spans.tsv")), "grade");
    let file = std::fs::File::create(dir.path().join("spans.parquet")).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, spans.schema(), None).unwrap();
    writer.write(&spans).unwrap();
    writer.close().unwrap();
    let fixed = span_batch(&tsv_rows(&read("fixed.tsv")), "score");
    let file = std::fs::File::create(dir.path().join("fixed.arrow")).unwrap();
    let mut writer = arrow_ipc::writer::FileWriter::try_new(file, &fixed.schema()).unwrap();
    writer.write(&fixed).unwrap();
    writer.finish().unwrap();
    let file = std::fs::File::create(dir.path().join("sentences.jsonl.gz")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
    gz.write_all(read("sentences.jsonl").as_bytes()).unwrap();
    gz.finish().unwrap();
    let report = |qrels: &str, fixed: &str, sentences: &str| {
        spans_in(
            dir.path(),
            &[
                "--qrels",
                qrels,
                "--run",
                &format!("fixed={fixed}"),
                "--run",
                &format!("sentences={sentences}"),
                "-m",
                "ap(norm=hits)@3",
                "--overlap",
                "coverage>=0.5",
                "--per-query",
                "--format",
                "json",
            ],
        )
    };
    let text = report("spans.tsv", "fixed.tsv", "sentences.jsonl");
    assert_eq!(text.0, 0, "{}", text.2);
    assert!(text.1.contains("\"fixed\""), "{}", text.1);
    let tables = report("spans.parquet", "fixed.arrow", "sentences.jsonl.gz");
    assert_eq!(tables, text);
    // A damaged table is an error naming the file, not a panic.
    std::fs::write(dir.path().join("bad.parquet"), b"PAR1 not a table PAR1").unwrap();
    let (code, _, stderr) = report("bad.parquet", "fixed.arrow", "sentences.jsonl.gz");
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.starts_with("error: bad.parquet: "), "{stderr}");
}
