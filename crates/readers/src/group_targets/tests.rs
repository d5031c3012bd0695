//! The table of per-query group targets in every format, and its errors
//! by file, line or row, and column.

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{Field, Schema};

use super::*;

fn parse(text: &str) -> Result<GroupTargets, String> {
    parse_group_targets(text.as_bytes(), "t.csv").map_err(|e| e.to_string())
}

fn shares(targets: &GroupTargets, query: &str) -> Vec<(String, u64)> {
    targets
        .query(query.as_bytes())
        .unwrap_or_else(|| panic!("no target for {query}"))
        .iter()
        .map(|(g, s)| (String::from_utf8(g.to_vec()).unwrap(), s.to_bits()))
        .collect()
}

/// The rows `q1 north 0.25`, `q1 south 0.75`, `7 north 1` as a table
/// (the query an integer column when `integer_queries`).
fn batch(integer_queries: bool) -> RecordBatch {
    let queries: ArrayRef = if integer_queries {
        Arc::new(Int64Array::from(vec![1, 1, 7]))
    } else {
        Arc::new(StringArray::from(vec!["q1", "q1", "7"]))
    };
    let schema = Schema::new(vec![
        Field::new("share", arrow_schema::DataType::Float64, false),
        Field::new("query", queries.data_type().clone(), false),
        Field::new("group", arrow_schema::DataType::Utf8, false),
    ]);
    RecordBatch::try_new(
        Arc::new(schema),
        vec![
            Arc::new(Float64Array::from(vec![0.25, 0.75, 1.0])),
            queries,
            Arc::new(StringArray::from(vec!["north", "south", "north"])),
        ],
    )
    .unwrap()
}

fn parquet(batch: &RecordBatch) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer = parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), None).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
    out
}

fn arrow_ipc(batch: &RecordBatch) -> Vec<u8> {
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
fn every_table_format_gives_the_same_targets() {
    let dir = tempfile::tempdir().unwrap();
    let csv =
        "\u{feff}share,query,group,other\r\n0.25,q1,north,x\n\n0.75,q1,south,y\n1,7,north,z\n";
    let jsonl = "{\"query\": \"q1\", \"group\": \"north\", \"share\": 0.25}\n\
                 {\"query\": \"q1\", \"group\": \"south\", \"share\": 0.75}\n\
                 {\"query\": 7, \"group\": \"north\", \"share\": 1}\n";
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("t.csv", csv.as_bytes().to_vec()),
        ("t.tsv", csv.replace(',', "\t").into_bytes()),
        ("t.csv.gz", gzip(csv.as_bytes())),
        ("t.jsonl", jsonl.as_bytes().to_vec()),
        ("t.jsonl.gz", gzip(jsonl.as_bytes())),
        ("t.parquet", parquet(&batch(false))),
        ("t.arrow", arrow_ipc(&batch(false))),
        ("t.parquet.gz", gzip(&parquet(&batch(false)))),
        ("t.data", parquet(&batch(false))),
    ];
    for (name, bytes) in &files {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let targets = read_group_targets(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(targets.num_queries(), 2, "{name}");
        assert_eq!(targets.query_ids(), vec![&b"7"[..], b"q1"], "{name}");
        assert_eq!(
            shares(&targets, "q1"),
            vec![
                ("north".to_owned(), 0.25f64.to_bits()),
                ("south".to_owned(), 0.75f64.to_bits())
            ],
            "{name}"
        );
        assert_eq!(
            shares(&targets, "7"),
            vec![("north".to_owned(), 1f64.to_bits())],
            "{name}"
        );
        assert!(targets.query(b"q2").is_none());
    }
    // Integer query ids read as their decimal text.
    let path = dir.path().join("int.parquet");
    std::fs::write(&path, parquet(&batch(true))).unwrap();
    let targets = read_group_targets(&path).unwrap();
    assert_eq!(targets.query_ids(), vec![&b"1"[..], b"7"]);
}

#[test]
fn bad_rows_name_the_file_line_and_column() {
    for (text, problem) in [
        (
            "query,group,share\nq,a,-1\n",
            "t.csv:2: column `share`: `-1` is not",
        ),
        (
            "query,group,share\nq,a,NaN\n",
            "t.csv:2: column `share`: `NaN` is not",
        ),
        (
            "query,group,share\nq,a,inf\n",
            "t.csv:2: column `share`: `inf` is not",
        ),
        (
            "query,group,share\nq,a,1e400\n",
            "t.csv:2: column `share`: `1e400` is not",
        ),
        (
            "query,group,share\nq,a,x\n",
            "t.csv:2: column `share`: `x` is not",
        ),
        (
            "query,group,share\n,a,1\n",
            "t.csv:2: column `query`: the query is empty",
        ),
        (
            "query,group,share\nq,,1\n",
            "t.csv:2: column `group`: the group is empty",
        ),
        (
            "query,group,share\nq\u{1}x,a,1\n",
            "t.csv:2: column `query`",
        ),
        (
            "query,group,share\nq,a,1\nr,a,1\nq,a,2\n",
            "t.csv:4: column `group`: query `q` gives group `a` again (first on line 2)",
        ),
        (
            "query,group,share\nr,a,1\nq,a,0\nq,b,0\n",
            "t.csv:3: column `share`: every share of query `q` is 0",
        ),
        (
            "query,group,share\nq,a\n",
            "t.csv:2: 2 fields, the header has 3",
        ),
        ("query,group,weight\nq,a,1\n", "no column `share`"),
        ("query,group,share\n", "empty"),
        ("", "empty"),
        (
            "{\"query\": \"q\", \"group\": \"a\", \"share\": 1e400}\n",
            "t.csv:1: not JSON: number out of range",
        ),
        (
            "{\"query\": \"q\", \"group\": \"a\", \"share\": \"1\"}\n",
            "t.csv:1: key `share` \"1\": not a number",
        ),
        (
            "{\"query\": \"q\", \"group\": null, \"share\": 1}\n",
            "key `group` null: not a string or a number",
        ),
        (
            "{\"query\": \"q\", \"share\": 1}\n",
            "t.csv:1: no key `group`",
        ),
    ] {
        let error = parse(text).unwrap_err();
        assert!(error.contains("t.csv"), "{text:?}: {error}");
        assert!(error.contains(problem), "{text:?}: {error}");
    }
    // A huge id is cut in the message.
    let huge = "q".repeat(10_000);
    let error = parse(&format!("query,group,share\n{huge},a,1\n{huge},a,1\n")).unwrap_err();
    assert!(error.len() < 1_000, "{} bytes", error.len());
}

#[test]
fn bad_rows_of_a_parquet_table_name_the_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.parquet");
    for (shares, problem) in [
        (
            vec![0.5, f64::NAN, 1.0],
            "bad.parquet: row 2: column `share`: `NaN` is not",
        ),
        (
            vec![f64::INFINITY, 1.0, 1.0],
            "bad.parquet: row 1: column `share`: `inf` is not",
        ),
        (vec![0.5, -0.5, 1.0], "bad.parquet: row 2: column `share`"),
    ] {
        let b = batch(false);
        let b = RecordBatch::try_new(
            b.schema(),
            vec![
                Arc::new(Float64Array::from(shares)),
                b.column(1).clone(),
                b.column(2).clone(),
            ],
        )
        .unwrap();
        std::fs::write(&path, parquet(&b)).unwrap();
        let error = read_group_targets(&path).unwrap_err().to_string();
        assert!(error.contains(problem), "{error}");
    }
}
