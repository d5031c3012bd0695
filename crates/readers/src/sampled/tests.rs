//! The sampled runs' reader: TREC lines with a sample column, CSV/TSV,
//! JSON Lines, Parquet and Arrow IPC, gzip, and the errors it gives (file,
//! line or row, column, problem), on any bytes too.

use super::*;
use rankeval_core::SampledRun;

/// Each query with its samples' document ids.
type Lists = Vec<(String, Vec<Vec<String>>)>;

/// Every query's samples as lists of document ids, queries in byte order.
fn lists(run: &SampledRun) -> Lists {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    run.query_ids()
        .into_iter()
        .map(|q| {
            let samples = run
                .samples(q)
                .unwrap()
                .iter()
                .map(|&i| run.run().list_at(i).docs().map(text).collect())
                .collect();
            (text(q), samples)
        })
        .collect()
}

fn expected() -> Lists {
    let s = |docs: &[&str]| docs.iter().map(|d| (*d).to_owned()).collect::<Vec<_>>();
    vec![
        (
            "1".to_owned(),
            vec![s(&["d1", "d2", "d3"]), s(&["d2", "d1", "d3"])],
        ),
        ("2".to_owned(), vec![s(&["d9"])]),
    ]
}

fn parse(text: &str, name: &str) -> Result<Lists, SampledRunError> {
    parse_sampled_run(text.as_bytes(), name, ReadOptions::default()).map(|r| lists(&r))
}

#[test]
fn run_lines_tables_and_json_lines_give_the_same_samples() {
    let trec = "1 a d1 1 3 t\n1 a d2 2 2 t\n1 a d3 3 1 t\n\n1 b d2 1 3 t\r\n1 b d1 2 2\n1 b d3 3 1 t\n2 a d9 1 1 t\n";
    assert_eq!(parse(trec, "r.trec").unwrap(), expected());
    let csv = "sample,doc,score,query\na,d1,3,1\na,d2,2,1\na,d3,1,1\nb,d2,3,1\nb,d1,2,1\nb,d3,1,1\na,d9,1,2\n";
    assert_eq!(parse(csv, "r.csv").unwrap(), expected());
    let tsv = "query\tsample\tdoc\trank\n1\ta\td3\t3\n1\ta\td1\t1\n1\ta\td2\t2\n1\tb\td2\t1\n1\tb\td1\t2\n1\tb\td3\t3\n2\ta\td9\t1\n";
    assert_eq!(parse(tsv, "r.tsv").unwrap(), expected());
    let jsonl = concat!(
        "{\"query\": 1, \"sample\": \"a\", \"doc\": \"d1\", \"score\": 3}\n",
        "{\"query\": 1, \"sample\": \"a\", \"doc\": \"d2\", \"score\": 2}\n",
        "{\"query\": 1, \"sample\": \"a\", \"doc\": \"d3\", \"score\": 1}\n",
        "{\"query\": 1, \"sample\": \"b\", \"doc\": \"d2\", \"rank\": 1}\n",
        "{\"query\": 1, \"sample\": \"b\", \"doc\": \"d1\", \"rank\": 2}\n",
        "{\"query\": 1, \"sample\": \"b\", \"doc\": \"d3\", \"rank\": 3}\n",
        "{\"query\": \"2\", \"sample\": \"a\", \"doc\": \"d9\", \"score\": 0.5}\n",
    );
    assert_eq!(parse(jsonl, "r.jsonl").unwrap(), expected());
}

#[test]
fn bad_input_is_named_by_file_line_and_column() {
    let cases: &[(&str, &str, &str)] = &[
        ("r.trec", "1 a d1 1\n", "r.trec, line 1: 4 fields"),
        (
            "r.trec",
            "1 a d1 1 2 t x\n",
            "r.trec, line 1: more than 6 fields",
        ),
        (
            "r.trec",
            "1 a d1 x 2 t\n",
            "r.trec, line 1: field 4 (rank) `x`: not a number",
        ),
        (
            "r.trec",
            "1 a d1 1 nan t\n",
            "r.trec, line 1: the score of document `d1` in query `1` sample `a` is NaN",
        ),
        (
            "r.trec",
            "1 a d1 1 1 t\n1 a d1 2 2 t\n",
            "r.trec, line 2: document `d1` appears twice in the list of query `1` sample `a` (line 1 and 2)",
        ),
        (
            "r.trec",
            "1 a d\x1b1 1 2 t\n",
            "r.trec, line 1: field 3 (doc)",
        ),
        (
            "r.csv",
            "query,sample,doc\n1,a,d\n",
            "r.csv, line 1: no column `score`",
        ),
        (
            "r.csv",
            "query,doc,score\n1,d,1\n",
            "r.csv, line 1: no column `sample`",
        ),
        (
            "r.csv",
            "query,sample,doc,score\n1,,d,1\n",
            "r.csv, line 2: column `sample` is empty",
        ),
        (
            "r.csv",
            "query,sample,doc,rank\n1,a,d,inf\n",
            "r.csv, line 2: column `rank`: inf is not a rank",
        ),
        (
            "r.jsonl",
            "{\"query\": 1, \"doc\": \"d\", \"score\": 1}\n",
            "r.jsonl, line 1: no key `sample`",
        ),
        (
            "r.jsonl",
            "{\"query\": 1, \"sample\": 1, \"doc\": \"d\"}\n",
            "r.jsonl, line 1: no key `score` (or `rank`)",
        ),
        ("r.trec", "", "r.trec: no row"),
    ];
    for (name, text, start) in cases {
        let m = parse(text, name).unwrap_err().to_string();
        assert!(m.starts_with(start), "{text:?}: {m}");
    }
}

/// A batch of a sampled run: queries as strings (`None`: null), samples
/// as integers, documents as strings, scores as floats.
fn batch(rows: &[(Option<&str>, i64, &str, f64)]) -> arrow_array::RecordBatch {
    use arrow_array::{Float64Array, Int64Array, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;
    let schema = Arc::new(Schema::new(vec![
        Field::new("score", DataType::Float64, false),
        Field::new("query", DataType::Utf8, true),
        Field::new("doc", DataType::Utf8, false),
        Field::new("sample", DataType::Int64, false),
    ]));
    arrow_array::RecordBatch::try_new(
        schema,
        vec![
            Arc::new(rows.iter().map(|r| r.3).collect::<Float64Array>()),
            Arc::new(rows.iter().map(|r| r.0).collect::<StringArray>()),
            Arc::new(rows.iter().map(|r| Some(r.2)).collect::<StringArray>()),
            Arc::new(rows.iter().map(|r| r.1).collect::<Int64Array>()),
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
        (Some("1"), 7, "d1", 3.0),
        (Some("1"), 7, "d2", 2.0),
        (Some("1"), 7, "d3", 1.0),
        (Some("1"), 8, "d2", 3.0),
        (Some("1"), 8, "d1", 2.0),
        (Some("1"), 8, "d3", 1.0),
        (Some("2"), 7, "d9", 1.0),
    ]);
    let files = [
        ("r.parquet", parquet(&good)),
        ("r.arrow", arrow_ipc(&good)),
        ("r.parquet.gz", gzip(&parquet(&good))),
        ("r.trec.gz", gzip(b"1 7 d1 1 3 t\n1 7 d2 2 2 t\n1 7 d3 3 1 t\n1 8 d2 1 3 t\n1 8 d1 2 2 t\n1 8 d3 3 1 t\n2 7 d9 1 1 t\n")),
    ];
    for (name, bytes) in &files {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let run = read_sampled_run(&path, ReadOptions::default()).unwrap();
        assert_eq!(lists(&run), expected(), "{name}");
    }
    let bad = batch(&[(Some("1"), 7, "d1", 1.0), (None, 7, "d2", 1.0)]);
    let path = dir.path().join("bad.parquet");
    std::fs::write(&path, parquet(&bad)).unwrap();
    let m = read_sampled_run(&path, ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        m.ends_with("bad.parquet, row 2: column `query`: the value is null"),
        "{m}"
    );
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
    "sample",
    "doc",
    "score",
    "rank",
    "\"query\":",
    "\"sample\":",
    "\"doc\":",
    "\"score\":",
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
    fn any_bytes_as_a_sampled_run_never_panic(bytes in text()) {
        if let Err(e) = parse_sampled_run(&bytes, "r.in", ReadOptions::default()) {
            let m = e.to_string();
            proptest::prop_assert!(m.starts_with("r.in"), "{}", m);
            proptest::prop_assert!(m.len() < 2000, "{}", m);
            if let SampledRunError::At { at: RowAt::Line(line), .. } = e {
                let lines = bytes.split(|&b| b == b'\n').count() as u64;
                proptest::prop_assert!(line >= 1 && line <= lines, "{}", m);
            }
        }
    }
}
