//! The readers: what they accept, and for each kind of bad input an error
//! that names the file, the line and what was expected.

use std::io::Write;

use rankeval_core::Duplicates;
use rankeval_readers::{
    Format, Input, ReadErrorKind, ReadOptions, read_qrels, read_run, read_run_with,
};

fn qrels_error(text: &str) -> String {
    read_qrels(&Input::bytes("qrels.txt", text, Format::Trec))
        .unwrap_err()
        .to_string()
}

fn run_error(text: &str) -> String {
    read_run(
        &Input::bytes("run.trec", text, Format::Trec),
        ReadOptions::default(),
    )
    .unwrap_err()
    .to_string()
}

fn docs(run: &rankeval_core::Run, query: &str) -> Vec<String> {
    run.list(query)
        .unwrap()
        .docs()
        .map(|d| String::from_utf8_lossy(d).into_owned())
        .collect()
}

#[test]
fn trec_run_is_ordered_by_score_then_doc_id_and_ignores_rank_and_extra_fields() {
    let text =
        "q1 Q0 d10 1 1.5 tag\nq1\tQ0\td9\t2\t  1.5\ttag trailing junk\n\nq1 Q0 a 3 2 tag\r\n";
    let run = read_run(
        &Input::bytes("run.trec", text, Format::Trec),
        ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(docs(&run, "q1"), ["a", "d9", "d10"]);
}

#[test]
fn malformed_lines_name_file_line_and_shape() {
    assert_eq!(
        qrels_error("q1 0 d1 1\nq1 0 d2\n"),
        "qrels.txt:2: expected 4 fields: query iteration document grade, found 3 fields"
    );
    assert_eq!(
        qrels_error("q1 0 d1 1 extra\n"),
        "qrels.txt:1: expected 4 fields: query iteration document grade, found 5 fields"
    );
    assert_eq!(
        run_error("q1 Q0 d1 1 0.5 t\n\nq1 Q0 d2 2\n"),
        "run.trec:3: expected 6 fields: query Q0 document rank score tag, found 4 fields"
    );
}

#[test]
fn bad_numbers_are_named() {
    assert_eq!(
        qrels_error("q1 0 d1 high\n"),
        "qrels.txt:1: grade `high` is not a grade (an integer or a decimal such as 3.5)"
    );
    for text in ["nan", "NaN", "inf", "-infinity", "1e999"] {
        assert_eq!(
            qrels_error(&format!("q1 0 d1 1\nq1 0 d2 {text}\n")),
            format!("qrels.txt:2: grade `{text}` is not a finite grade")
        );
    }
    assert_eq!(
        qrels_error("q1 0 d1 99999999999\n"),
        "qrels.txt:1: grade `99999999999` is not a grade between -2147483647 and 2147483647"
    );
    assert_eq!(
        run_error("q1 Q0 d1 1 0,5 t\n"),
        "run.trec:1: score `0,5` is not a number"
    );
    assert_eq!(
        run_error("q1 Q0 d1 1 nan t\n"),
        "run.trec:1: score `nan` is not a number that can be ordered"
    );
}

#[test]
fn duplicate_documents_are_refused_unless_first_is_kept() {
    let text = "q1 Q0 a 1 3 t\nq2 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 a 3 1 t\n";
    assert_eq!(
        run_error(text),
        "run.trec:4: document `a` appears twice in the list of query `q1` (first on line 1); \
         to keep the best-ranked occurrence, use --duplicates first (TOML: duplicates = \"first\")"
    );
    let options = ReadOptions {
        duplicates: Duplicates::First,
        ..ReadOptions::default()
    };
    let run = read_run(&Input::bytes("run.trec", text, Format::Trec), options).unwrap();
    assert_eq!(docs(&run, "q1"), ["a", "b"]);
    assert_eq!(run.list("q1").unwrap().score(0), Some(3.0));
}

#[test]
fn a_judgement_with_two_grades_is_refused_and_a_repeat_is_kept_once() {
    assert_eq!(
        qrels_error("q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 2\n"),
        "qrels.txt:3: document `d1` of query `q1` is judged 2 here but 1 on line 1"
    );
    let qrels = read_qrels(&Input::bytes(
        "qrels.txt",
        "q1 0 d1 1\nq1 0 d1 1\n",
        Format::Trec,
    ))
    .unwrap();
    assert_eq!(qrels.num_judgements(), 1);
}

#[test]
fn empty_files_are_refused() {
    assert_eq!(
        qrels_error(""),
        "qrels.txt: the file is empty: expected 4 fields: query iteration document grade"
    );
    assert_eq!(
        run_error("\n  \n"),
        "run.trec: the file is empty: expected 6 fields: query Q0 document rank score tag"
    );
}

#[test]
fn missing_files_are_named() {
    let error = read_qrels(&Input::file("no/such/qrels.txt")).unwrap_err();
    assert_eq!(error.path, "no/such/qrels.txt");
    assert!(matches!(error.kind, ReadErrorKind::Io(_)));
    assert!(
        error
            .to_string()
            .starts_with("no/such/qrels.txt: cannot read: "),
        "{error}"
    );
}

#[test]
fn gzip_is_read_transparently() {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder
        .write_all(b"q1 Q0 a 1 1 t\nq1 Q0 b 2 2 t\n")
        .unwrap();
    let gz = encoder.finish().unwrap();
    let run = read_run(
        &Input::bytes("run.trec.gz", gz, Format::Trec),
        ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(docs(&run, "q1"), ["b", "a"]);
}

#[test]
fn formats_follow_the_file_name() {
    assert_eq!(Input::file("a/run.jsonl").format(), Format::Jsonl);
    assert_eq!(Input::file("a/run.JSONL.gz").format(), Format::Jsonl);
    assert_eq!(Input::file("a/run.trec.gz").format(), Format::Trec);
    assert_eq!(Input::file("a/qrels").format(), Format::Trec);
}

fn jsonl(text: &str) -> Result<(rankeval_core::Run, Option<rankeval_core::Qrels>), String> {
    read_run_with(
        &Input::bytes("data.jsonl", text, Format::Jsonl),
        ReadOptions::default(),
        &|_| {},
    )
    .map_err(|e| e.to_string())
}

#[test]
fn jsonl_serves_as_run_and_qrels() {
    let text = concat!(
        r#"{"query": "u1", "predicted": ["A", "B", "C"], "relevant": {"B": 1, "D": 2.0}}"#,
        "\n",
        r#"{"query": 7, "predicted": [3, 1], "scores": [0.1, 0.9], "relevant": ["3"]}"#,
        "\n",
        r#"{"query": "u3", "predicted": [], "relevant": {}}"#,
        "\n",
    );
    let (run, qrels) = jsonl(text).unwrap();
    let qrels = qrels.unwrap();
    assert_eq!(docs(&run, "u1"), ["A", "B", "C"]);
    assert_eq!(docs(&run, "7"), ["1", "3"]);
    assert!(run.list("u3").unwrap().is_empty());
    assert_eq!(qrels.grade_of("u1", "D"), Some(2.0));
    assert_eq!(qrels.grade_of("7", "3"), Some(1.0));
    assert_eq!(qrels.num_queries(), 3);
}

#[test]
fn jsonl_errors_name_the_line() {
    let line1 = r#"{"query": "u1", "predicted": ["A"]}"#;
    assert_eq!(
        jsonl(&format!(
            "{line1}\n{{\"query\": \"u2\", \"predicted\": [\"A\"\n"
        ))
        .unwrap_err(),
        "data.jsonl:2: invalid JSON line: EOF while parsing a list at column 33"
    );
    assert_eq!(
        jsonl(&format!("{line1}\n{line1}\n")).unwrap_err(),
        "data.jsonl:2: query `u1` appears again (first on line 1); give each query one line"
    );
    assert_eq!(
        jsonl(r#"{"query": "u1", "predicted": ["A", "B"], "scores": [1]}"#).unwrap_err(),
        "data.jsonl:1: `scores` has 1 value but `predicted` has 2 documents"
    );
    // Other keys are ignored (a JSON Lines file as it comes: `model`,
    // `timestamp`, features...).
    assert!(
        jsonl(r#"{"query": "u1", "model": {"v": 2}, "predicted": ["A"], "score": [1]}"#).is_ok()
    );
    assert!(
        jsonl(r#"{"query": "u1", "predicted": ["A"], "relevant": {"A": 1e10}}"#)
            .unwrap_err()
            .starts_with(
                "data.jsonl:1: invalid JSON line: grade 10000000000 is not a grade between -2147483647 and 2147483647"
            ),
    );
    assert!(
        jsonl(r#"{"query": "u1", "predicted": ["A"], "relevant": {"A": "high"}}"#)
            .unwrap_err()
            .contains("expected a grade (an integer or a decimal such as 3.5)"),
    );
    assert_eq!(
        jsonl(r#"{"query": "u1", "predicted": ["A", "B", "A"]}"#).unwrap_err(),
        "data.jsonl:1: document `A` appears twice in the list of query `u1` (first on line 1); \
         to keep the best-ranked occurrence, use --duplicates first (TOML: duplicates = \"first\")"
    );
    assert_eq!(
        jsonl(r#"{"query": "u1", "relevant": {"A": 1}}"#).unwrap_err(),
        "data.jsonl: no line has `predicted`, so the file holds no run"
    );
    assert_eq!(
        jsonl(r#"{"query": "u1"}"#).unwrap_err(),
        "data.jsonl:1: the line has neither `predicted` nor `relevant`"
    );
}

#[test]
fn jsonl_line_numbers_stay_exact_across_pieces() {
    let line = |q: usize| format!(r#"{{"query": "q{q}", "predicted": ["a", "b", "c", "d"]}}"#);
    let lines = |repeat_at: usize, repeated: usize| -> String {
        (1..=40_000)
            .map(|n| if n == repeat_at { line(repeated) } else { line(n) } + "\n")
            .collect()
    };
    let text = lines(35_000, 30_000);
    assert!(
        text.len() > 2 << 20,
        "the input must span several parse pieces"
    );
    // Both occurrences far from the first piece.
    assert_eq!(
        jsonl(&text).unwrap_err(),
        "data.jsonl:35000: query `q30000` appears again (first on line 30000); give each query one line"
    );
    // The first occurrence in the first piece, the repeat in a later one.
    assert_eq!(
        jsonl(&lines(39_000, 3)).unwrap_err(),
        "data.jsonl:39000: query `q3` appears again (first on line 3); give each query one line"
    );
}

/// Qrels of many pieces (queries cut at piece boundaries, and one query
/// judged again far from its other lines) as the TREC reader reads them in
/// parallel, and as one builder holds them.
fn large_qrels(conflict: bool) -> (String, rankeval_core::QrelsBuilder) {
    let mut text = String::new();
    let mut builder = rankeval_core::QrelsBuilder::new();
    let mut line = 0;
    let mut push = |text: &mut String, q: usize, d: usize, g: i64| {
        text.push_str(&format!("query-{q:05} 0 document-{d:06} {g}\n"));
        line += 1;
        builder
            .push_at(
                format!("query-{q:05}").as_bytes(),
                format!("document-{d:06}").as_bytes(),
                g as f64,
                line,
            )
            .unwrap();
    };
    for q in 0..4_000 {
        for d in 0..40 {
            push(&mut text, q, d * 7 + q % 5, ((q + d) % 5) as i64 - 1);
        }
    }
    // Query 3 again, at the end: joined with its first lines.
    push(&mut text, 3, 999_999, 2);
    push(&mut text, 3, 3, if conflict { 3 } else { 2 });
    (text, builder)
}

#[test]
fn qrels_read_in_pieces_are_those_of_one_builder() {
    let (text, builder) = large_qrels(false);
    assert!(text.len() > 3 << 20, "the qrels must span several pieces");
    let read = read_qrels(&Input::bytes("qrels.txt", text, Format::Trec)).unwrap();
    let built = builder.finish().unwrap();
    assert_eq!(read.num_queries(), built.num_queries());
    assert_eq!(read.num_judgements(), built.num_judgements());
    for (q, name) in built.queries().enumerate() {
        let r = read.query_index(name.as_bytes()).unwrap();
        assert_eq!(read.query_name(r), name);
        assert_eq!(read.ideal_grades(r), built.ideal_grades(q as u32), "{name}");
        for d in [0, 3, 10, 200, 999_999] {
            let doc = format!("document-{d:06}");
            assert_eq!(
                read.grade(r, doc.as_bytes()),
                built.grade(q as u32, doc.as_bytes()),
                "{name} {doc}"
            );
        }
    }
    assert_eq!(
        read.queries().collect::<Vec<_>>(),
        built.queries().collect::<Vec<_>>()
    );
}

#[test]
fn a_conflict_across_pieces_names_both_lines() {
    let (text, _) = large_qrels(true);
    let lines = text.lines().count();
    let message = read_qrels(&Input::bytes("qrels.txt", text, Format::Trec))
        .unwrap_err()
        .to_string();
    // Query 3's first line (121) judged document-000003 with grade 2; the
    // last line judges it 3, some hundred pieces later.
    assert_eq!(
        message,
        format!(
            "qrels.txt:{lines}: document `document-000003` of query `query-00003` is judged \
             3 here but 2 on line 121"
        )
    );
}

/// A line of nothing but bytes up to 0x20, some of them control bytes
/// other than whitespace, is an error naming the line in every text format
/// (whichever byte comes first); a line of spaces, tabs and a `\r` is a
/// blank line, skipped.
#[test]
fn a_line_of_control_bytes_only_is_an_error_naming_the_line() {
    let expected = "the line holds only control bytes";
    for (format, name, good) in [
        (Format::Trec, "run.trec", "q1 Q0 a 1 0.9 t\n"),
        (Format::Csv, "run.csv", "user,item,score\nq1,a,0.9\n"),
        (
            Format::Jsonl,
            "run.jsonl",
            "{\"query\": \"q1\", \"predicted\": [\"a\"]}\n",
        ),
    ] {
        for bad in ["\x01", " \x00", "\x1f\t", "\x00\x00\x00\r"] {
            let text = format!("{good}{bad}\n");
            let error =
                read_run(&Input::bytes(name, text, format), ReadOptions::default()).unwrap_err();
            let line = good.lines().count() as u64 + 1;
            assert_eq!(error.line, Some(line), "{name} {bad:?}: {error}");
            assert!(error.to_string().contains(expected), "{error}");
        }
        let blank = format!("{good} \t\r\n\n");
        assert!(
            read_run(&Input::bytes(name, blank, format), ReadOptions::default()).is_ok(),
            "{name}"
        );
    }
    // A CSV header line of control bytes only, too.
    let error = read_run(
        &Input::bytes("run.csv", "\x01\nuser,item,score\nq1,a,0.9\n", Format::Csv),
        ReadOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "run.csv:1: the line holds only control bytes (0x01) and no field; a blank line may \
         hold only spaces, tabs and a carriage return"
    );
    let error = qrels_error("q1 0 a 1\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\n");
    assert_eq!(
        error,
        "qrels.txt:2: the line holds only control bytes (0x00 0x00 0x00 0x00 0x00 0x00 0x00 \
         0x00 … 10 in all) and no field; a blank line may hold only spaces, tabs and a \
         carriage return"
    );
}
