//! The document groups' reader: lines, CSV/TSV, JSON Lines, Parquet and
//! Arrow IPC, gzip, and the errors it gives (file, line or row, column,
//! problem), on any bytes too.

use super::*;
use rankeval_core::DocumentGroups;

/// Every membership as `(doc, group, weight)`, sorted.
fn memberships(groups: &DocumentGroups, docs: &[&str]) -> Vec<(String, String, f64)> {
    let mut out = Vec::new();
    for doc in docs {
        for &(g, w) in groups.of(doc.as_bytes()) {
            let group = String::from_utf8_lossy(groups.group_id(g).unwrap()).into_owned();
            out.push(((*doc).to_owned(), group, w));
        }
    }
    out.sort_by(|a, b| a.partial_cmp(b).unwrap());
    out
}

fn m(d: &str, g: &str, w: f64) -> (String, String, f64) {
    (d.to_owned(), g.to_owned(), w)
}

const DOCS: &[&str] = &["d1", "d2", "d3", "7", "8", "9"];

fn expected() -> Vec<(String, String, f64)> {
    vec![
        m("d1", "a", 1.0),
        m("d1", "b", 0.5),
        m("d2", "b", 2.0),
        m("d3", "a", 1.0),
    ]
}

fn parse(text: &str, name: &str) -> Result<Vec<(String, String, f64)>, DocGroupsFileError> {
    parse_doc_groups(text.as_bytes(), name).map(|g| memberships(&g, DOCS))
}

#[test]
fn lines_tables_and_json_lines_give_the_same_memberships() {
    let lines = "d1 a\nd1 b 0.5\n\nd2\tb  2\r\nd3 a 1";
    assert_eq!(parse(lines, "g.txt").unwrap(), expected());
    let csv = "weight,group,note,doc\n1,a,x,d1\n0.5,b,x,d1\n2,b,\"a, b\",d2\n1,a,x,d3\n";
    assert_eq!(parse(csv, "g.csv").unwrap(), expected());
    let tsv = "\u{feff}doc\tgroup\tweight\nd1\ta\t1\nd1\tb\t0.5\nd2\tb\t2\nd3\ta\t1\n";
    assert_eq!(parse(tsv, "g.tsv").unwrap(), expected());
    let jsonl = concat!(
        "{\"doc\": \"d1\", \"group\": \"a\"}\n",
        "{\"doc\": \"d1\", \"group\": \"b\", \"weight\": 0.5}\n",
        "{\"doc\": \"d2\", \"group\": \"b\", \"weight\": 2}\n",
        "{\"doc\": \"d3\", \"group\": \"a\", \"weight\": 1, \"x\": []}\n",
    );
    assert_eq!(parse(jsonl, "g.jsonl").unwrap(), expected());
    // Without a weight column, every weight is 1.
    let csv = "doc,group\nd1,a\nd2,b\n";
    assert_eq!(
        parse(csv, "g.csv").unwrap(),
        vec![m("d1", "a", 1.0), m("d2", "b", 1.0)]
    );
    // Groups numbered in order of first appearance.
    let g = parse_doc_groups(b"d9 z\nd1 a\n", "g.txt").unwrap();
    assert_eq!(g.group_id(0), Some(&b"z"[..]));
    assert_eq!(g.num_groups(), 2);
}

#[test]
fn a_repeat_is_kept_once_and_counted_a_conflict_names_both_lines() {
    let g = parse_doc_groups(b"d1 a\nd1 a 1\n", "g.txt").unwrap();
    assert_eq!(g.num_memberships(), 1);
    assert_eq!(g.repeats(), 1);
    let e = parse("d1 a 1\n\nd1 a 2\n", "g.txt").unwrap_err();
    let m = e.to_string();
    assert!(m.starts_with("g.txt, line 3: "), "{m}");
    assert!(m.contains("line 1") && m.contains("group `a`"), "{m}");
}

#[test]
fn bad_input_is_named_by_file_line_and_column() {
    let cases: &[(&str, &str, &str)] = &[
        ("g.txt", "d1\n", "g.txt, line 1: 1 fields"),
        (
            "g.txt",
            "d1 a\nd1 a 1 x\n",
            "g.txt, line 2: more than 3 fields",
        ),
        (
            "g.txt",
            "d1 a x\n",
            "g.txt, line 1: field 3 (weight) `x`: not a number",
        ),
        (
            "g.txt",
            "d1 a nan\n",
            "g.txt, line 1: column `weight`: weight NaN",
        ),
        (
            "g.txt",
            "d1 a 1e400\n",
            "g.txt, line 1: column `weight`: weight inf",
        ),
        (
            "g.txt",
            "d1 a -1\n",
            "g.txt, line 1: column `weight`: weight -1",
        ),
        ("g.txt", "d\x1b1 a\n", "g.txt, line 1: field 1 (doc)"),
        (
            "g.csv",
            "doc,weight\nd1,1\n",
            "g.csv, line 1: no column `group`",
        ),
        (
            "g.csv",
            "doc,group,group\nd1,a,b\n",
            "g.csv, line 1: column `group` appears twice",
        ),
        (
            "g.csv",
            "doc,group,weight,weight\nd1,a,1,1\n",
            "g.csv, line 1: column `weight` appears twice",
        ),
        (
            "g.csv",
            "doc,group\n,a\n",
            "g.csv, line 2: column `doc` is empty",
        ),
        (
            "g.csv",
            "doc,group,weight\nd1,a\n",
            "g.csv, line 2: 2 fields, the header has 3",
        ),
        (
            "g.jsonl",
            "{\"doc\": \"d\"}\n",
            "g.jsonl, line 1: no key `group`",
        ),
        (
            "g.jsonl",
            "{\"doc\": \"d\", \"group\": []}\n",
            "g.jsonl, line 1: key `group` (an array)",
        ),
        (
            "g.jsonl",
            "{\"doc\": \"d\", \"group\": 1, \"weight\": \"x\"}\n",
            "g.jsonl, line 1: key `weight` \"x\": not a number",
        ),
        ("g.txt", "", "g.txt: no row"),
        ("g.txt", "\n  \n", "g.txt: no row"),
    ];
    for (name, text, start) in cases {
        let m = parse(text, name).unwrap_err().to_string();
        assert!(m.starts_with(start), "{text:?}: {m}");
    }
}

/// A batch of document groups: documents as strings (`None`: null), groups
/// as integers, weights as floats (a column only when `weights`).
fn batch(rows: &[(Option<&str>, i64, f64)], weights: bool) -> arrow_array::RecordBatch {
    use arrow_array::{ArrayRef, Float64Array, Int64Array, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;
    let mut fields = vec![
        Field::new("note", DataType::Utf8, true),
        Field::new("group", DataType::Int64, false),
        Field::new("doc", DataType::Utf8, true),
    ];
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(rows.iter().map(|_| Some("x")).collect::<StringArray>()),
        Arc::new(rows.iter().map(|r| r.1).collect::<Int64Array>()),
        Arc::new(rows.iter().map(|r| r.0).collect::<StringArray>()),
    ];
    if weights {
        fields.insert(0, Field::new("weight", DataType::Float64, false));
        columns.insert(
            0,
            Arc::new(rows.iter().map(|r| r.2).collect::<Float64Array>()),
        );
    }
    arrow_array::RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
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
    let rows = [
        (Some("7"), 1, 1.0),
        (Some("7"), 2, 0.5),
        (Some("8"), 2, 2.0),
        (Some("9"), 1, 1.0),
    ];
    let good = batch(&rows, true);
    let want = vec![
        m("7", "1", 1.0),
        m("7", "2", 0.5),
        m("8", "2", 2.0),
        m("9", "1", 1.0),
    ];
    let files = [
        ("g.parquet", parquet(&good)),
        ("g.arrow", arrow_ipc(&good)),
        ("g.parquet.gz", gzip(&parquet(&good))),
        ("g.data", parquet(&good)),
        ("g.txt.gz", gzip(b"7 1\n7 2 0.5\n8 2 2\n9 1\n")),
    ];
    for (name, bytes) in &files {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        assert_eq!(
            memberships(&read_doc_groups(&path).unwrap(), DOCS),
            want,
            "{name}"
        );
    }
    // No weight column: every weight 1.
    let path = dir.path().join("unweighted.parquet");
    std::fs::write(&path, parquet(&batch(&rows, false))).unwrap();
    let ones: Vec<_> = want.iter().map(|(d, g, _)| m(d, g, 1.0)).collect();
    assert_eq!(memberships(&read_doc_groups(&path).unwrap(), DOCS), ones);
    let bad = batch(&[(Some("7"), 1, 1.0), (None, 1, 1.0)], true);
    let path = dir.path().join("bad.parquet");
    std::fs::write(&path, parquet(&bad)).unwrap();
    let m = read_doc_groups(&path).unwrap_err().to_string();
    assert!(
        m.ends_with("bad.parquet, row 2: column `doc`: the value is null"),
        "{m}"
    );
    let nan = batch(&[(Some("7"), 1, f64::NAN)], true);
    std::fs::write(&path, parquet(&nan)).unwrap();
    let m = read_doc_groups(&path).unwrap_err().to_string();
    assert!(m.contains("bad.parquet, row 1: column `weight`"), "{m}");
    let missing = dir.path().join("none.txt");
    assert!(matches!(
        read_doc_groups(&missing),
        Err(DocGroupsFileError::Io { .. })
    ));
}

const PIECES: &[&str] = &[
    "1",
    "d",
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
    "doc",
    "group",
    "weight",
    "\"doc\":",
    "\"group\":",
    "\"weight\":",
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
    fn any_bytes_as_doc_groups_never_panic(bytes in text()) {
        if let Err(e) = parse_doc_groups(&bytes, "g.in") {
            let m = e.to_string();
            proptest::prop_assert!(m.starts_with("g.in"), "{}", m);
            proptest::prop_assert!(m.len() < 2000, "{}", m);
            if let DocGroupsFileError::At { at: RowAt::Line(line), .. } = e {
                let lines = bytes.split(|&b| b == b'\n').count() as u64;
                proptest::prop_assert!(line >= 1 && line <= lines, "{}", m);
            }
        }
    }
}
