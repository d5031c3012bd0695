//! The subtopic qrels' reader: ndeval's lines, CSV/TSV, JSON Lines,
//! Parquet and Arrow IPC, gzip, and the errors it gives (file, line or
//! row, column, problem), on any bytes too.

use super::*;
use rankeval_core::SubtopicQrels;

/// Every judgement as `(query, subtopic, doc, grade)`, sorted.
fn judgements(qrels: &SubtopicQrels) -> Vec<(String, String, String, f64)> {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let mut out = Vec::new();
    for query in qrels.query_ids() {
        let q = qrels.query(query).unwrap();
        for d in 0..q.num_docs() as u32 {
            for &(s, grade) in q.judgements(d) {
                out.push((
                    text(query),
                    text(q.subtopic_id(s).unwrap()),
                    text(q.doc_id(d).unwrap()),
                    grade,
                ));
            }
        }
    }
    out.sort_by(|a, b| a.partial_cmp(b).unwrap());
    out
}

fn j(q: &str, s: &str, d: &str, g: f64) -> (String, String, String, f64) {
    (q.to_owned(), s.to_owned(), d.to_owned(), g)
}

fn expected() -> Vec<(String, String, String, f64)> {
    vec![
        j("1", "1", "d1", 1.0),
        j("1", "2", "d1", 0.0),
        j("1", "2", "d2", 2.0),
        j("2", "1", "d3", 1.0),
    ]
}

fn parse(text: &str, name: &str) -> Result<Vec<(String, String, String, f64)>, SubtopicFileError> {
    parse_subtopic_qrels(text.as_bytes(), name).map(|q| judgements(&q))
}

#[test]
fn ndeval_lines_tables_and_json_lines_give_the_same_judgements() {
    let ndeval = "1 1 d1 1\n1 2 d1 0\n\n1\t2  d2 2\r\n2 1 d3 1";
    assert_eq!(parse(ndeval, "q.txt").unwrap(), expected());
    let csv =
        "doc,grade,query,subtopic,note\nd1,1,1,1,x\nd1,0,1,2,x\nd2,2,1,2,\"a, b\"\nd3,1,2,1,x\n";
    assert_eq!(parse(csv, "q.csv").unwrap(), expected());
    let tsv =
        "\u{feff}query\tsubtopic\tdoc\tgrade\n1\t1\td1\t1\n1\t2\td1\t0\n1\t2\td2\t2\n2\t1\td3\t1\n";
    assert_eq!(parse(tsv, "q.tsv").unwrap(), expected());
    let jsonl = concat!(
        "{\"query\": 1, \"subtopic\": \"1\", \"doc\": \"d1\", \"grade\": 1}\n",
        "{\"query\": \"1\", \"subtopic\": 2, \"doc\": \"d1\", \"grade\": 0}\n",
        "{\"query\": \"1\", \"subtopic\": \"2\", \"doc\": \"d2\", \"grade\": 2.0}\n",
        "{\"query\": \"2\", \"subtopic\": \"1\", \"doc\": \"d3\", \"grade\": 1, \"x\": []}\n",
    );
    assert_eq!(parse(jsonl, "q.jsonl").unwrap(), expected());
}

#[test]
fn a_repeat_is_kept_once_and_counted_a_conflict_names_both_lines() {
    let q = parse_subtopic_qrels(b"1 1 d1 1\n1 1 d1 1\n", "q.txt").unwrap();
    assert_eq!(q.num_judgements(), 1);
    assert_eq!(q.repeats(), 1);
    let e = parse("1 1 d1 1\n\n1 1 d1 2\n", "q.txt").unwrap_err();
    let m = e.to_string();
    assert!(m.starts_with("q.txt, line 3: "), "{m}");
    assert!(m.contains("line 1") && m.contains("subtopic `1`"), "{m}");
}

#[test]
fn bad_input_is_named_by_file_line_and_column() {
    let cases: &[(&str, &str, &str)] = &[
        ("q.txt", "1 1 d1\n", "q.txt, line 1: 3 fields"),
        (
            "q.txt",
            "1 1 d1 1\n1 1 d1 1 x\n",
            "q.txt, line 2: more than 4 fields",
        ),
        (
            "q.txt",
            "1 1 d1 x\n",
            "q.txt, line 1: field 4 (grade) `x`: not a number",
        ),
        (
            "q.txt",
            "1 1 d1 nan\n",
            "q.txt, line 1: column `grade`: grade NaN",
        ),
        (
            "q.txt",
            "1 1 d1 1e400\n",
            "q.txt, line 1: column `grade`: grade inf",
        ),
        ("q.txt", "1 1 d\x1b1 1\n", "q.txt, line 1: field 3 (doc)"),
        (
            "q.csv",
            "query,subtopic,doc\n1,1,d1\n",
            "q.csv, line 1: no column `grade`",
        ),
        (
            "q.csv",
            "query,subtopic,doc,grade\n1,1,,1\n",
            "q.csv, line 2: column `doc` is empty",
        ),
        (
            "q.csv",
            "query,subtopic,doc,grade\n1,1,d1\n",
            "q.csv, line 2: 3 fields, the header has 4",
        ),
        (
            "q.jsonl",
            "{\"query\": 1, \"doc\": \"d\", \"grade\": 1}\n",
            "q.jsonl, line 1: no key `subtopic`",
        ),
        (
            "q.jsonl",
            "{\"query\": 1, \"subtopic\": [], \"doc\": \"d\", \"grade\": 1}\n",
            "q.jsonl, line 1: key `subtopic` (an array)",
        ),
        ("q.txt", "", "q.txt: no judgement"),
        ("q.txt", "\n  \n", "q.txt: no judgement"),
    ];
    for (name, text, start) in cases {
        let m = parse(text, name).unwrap_err().to_string();
        assert!(m.starts_with(start), "{text:?}: {m}");
    }
}

/// A batch of subtopic qrels: queries as strings (`None`: null),
/// subtopics and documents as integers, grades as floats.
fn batch(rows: &[(Option<&str>, i64, i64, f64)]) -> arrow_array::RecordBatch {
    use arrow_array::{Float64Array, Int64Array, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;
    let schema = Arc::new(Schema::new(vec![
        Field::new("query", DataType::Utf8, true),
        Field::new("note", DataType::Utf8, true),
        Field::new("doc", DataType::Int64, false),
        Field::new("subtopic", DataType::Int64, false),
        Field::new("grade", DataType::Float64, false),
    ]));
    arrow_array::RecordBatch::try_new(
        schema,
        vec![
            Arc::new(rows.iter().map(|r| r.0).collect::<StringArray>()),
            Arc::new(rows.iter().map(|_| Some("x")).collect::<StringArray>()),
            Arc::new(rows.iter().map(|r| r.2).collect::<Int64Array>()),
            Arc::new(rows.iter().map(|r| r.1).collect::<Int64Array>()),
            Arc::new(rows.iter().map(|r| r.3).collect::<Float64Array>()),
        ],
    )
    .unwrap()
}

fn parquet(batch: &arrow_array::RecordBatch) -> Vec<u8> {
    let mut out = Vec::new();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(2))
        .build();
    let mut writer =
        parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
    out
}

fn arrow_ipc(batch: &arrow_array::RecordBatch) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer = arrow_ipc::writer::FileWriter::try_new(&mut out, &batch.schema()).unwrap();
    writer.write(batch).unwrap();
    writer.finish().unwrap();
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

#[test]
fn parquet_arrow_and_gzip_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let good = batch(&[
        (Some("1"), 1, 7, 1.0),
        (Some("1"), 2, 7, 0.0),
        (Some("1"), 2, 8, 2.0),
        (Some("2"), 1, 9, 1.0),
    ]);
    let want = vec![
        j("1", "1", "7", 1.0),
        j("1", "2", "7", 0.0),
        j("1", "2", "8", 2.0),
        j("2", "1", "9", 1.0),
    ];
    let files = [
        ("s.parquet", parquet(&good)),
        ("s.arrow", arrow_ipc(&good)),
        ("s.parquet.gz", gzip(&parquet(&good))),
        ("s.data", parquet(&good)),
        ("s.txt.gz", gzip(b"1 1 7 1\n1 2 7 0\n1 2 8 2\n2 1 9 1\n")),
    ];
    for (name, bytes) in &files {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        assert_eq!(
            judgements(&read_subtopic_qrels(&path).unwrap()),
            want,
            "{name}"
        );
    }
    let bad = batch(&[(Some("1"), 1, 7, 1.0), (None, 1, 8, 1.0)]);
    let path = dir.path().join("bad.parquet");
    std::fs::write(&path, parquet(&bad)).unwrap();
    let m = read_subtopic_qrels(&path).unwrap_err().to_string();
    assert!(
        m.ends_with("bad.parquet, row 2: column `query`: the value is null"),
        "{m}"
    );
    let nan = batch(&[(Some("1"), 1, 7, f64::NAN)]);
    std::fs::write(&path, parquet(&nan)).unwrap();
    let m = read_subtopic_qrels(&path).unwrap_err().to_string();
    assert!(m.contains("bad.parquet, row 1: column `grade`"), "{m}");
    let missing = dir.path().join("none.txt");
    assert!(matches!(
        read_subtopic_qrels(&missing),
        Err(SubtopicFileError::Io { .. })
    ));
}

const PIECES: &[&str] = &[
    "1",
    "q",
    " ",
    "\t",
    "\n",
    "\r\n",
    ",",
    "\"",
    "{",
    "}",
    ":",
    "[",
    "]",
    "-1",
    "1e400",
    "nan",
    "query",
    "subtopic",
    "doc",
    "grade",
    "\"query\":",
    "\"subtopic\":",
    "\"doc\":",
    "\"grade\":",
    "\u{feff}",
    "\0",
    "\x1b",
    "\u{e9}",
    "null",
    "PAR1",
    "ARROW1",
];

fn text() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..256),
        prop::collection::vec(prop::sample::select(PIECES), 0..80)
            .prop_map(|pieces| pieces.concat().into_bytes()),
    ]
}

proptest::proptest! {
    #[test]
    fn any_bytes_as_subtopic_qrels_never_panic(bytes in text()) {
        if let Err(e) = parse_subtopic_qrels(&bytes, "s.in") {
            let m = e.to_string();
            proptest::prop_assert!(m.starts_with("s.in"), "{}", m);
            proptest::prop_assert!(m.len() < 2000, "{}", m);
            if let SubtopicFileError::At { at: RowAt::Line(line), .. } = e {
                let lines = bytes.split(|&b| b == b'\n').count() as u64;
                proptest::prop_assert!(line >= 1 && line <= lines, "{}", m);
            }
        }
    }
}
