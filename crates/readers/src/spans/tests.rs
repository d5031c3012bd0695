//! The span files' reader: tables, JSON Lines, gzip, Parquet and Arrow
//! IPC, and the errors it gives (file, line or row, problem), on any bytes
//! too.

use super::*;

/// A read table's rows with their ids as text, in input order.
type Rows = Vec<(String, String, u64, u64, f64)>;

fn rows(table: &SpanTable) -> Rows {
    table
        .rows
        .iter()
        .map(|r| {
            (
                table.text(r.query),
                table.text(r.doc),
                r.start,
                r.end,
                r.value,
            )
        })
        .collect()
}

/// One row, as [`rows`] gives it.
fn row(
    query: &str,
    doc: &str,
    start: u64,
    end: u64,
    value: f64,
) -> (String, String, u64, u64, f64) {
    (query.to_owned(), doc.to_owned(), start, end, value)
}

/// Span qrels read from `text`, as rows.
fn spans(text: &str, name: &str) -> Result<Rows, SpanFileError> {
    parse_span_qrels(text.as_bytes(), name).map(|t| rows(&t))
}

/// A run of chunks read from `text`, as rows.
fn chunks(text: &str, name: &str) -> Result<Rows, SpanFileError> {
    parse_chunk_run(text.as_bytes(), name).map(|t| rows(&t))
}

/// Span qrels read from the file `path`, as rows.
fn read_spans(path: &Path) -> Result<Rows, SpanFileError> {
    read_span_qrels(path).map(|t| rows(&t))
}

#[test]
fn reading_tables_and_json_lines() {
    let tsv = "query\tdoc\tstart\tend\tgrade\nq1\td1\t0\t10\t2\n\nq1\td2\t5\t9\t1\n";
    let spans = spans(tsv, "s.tsv").unwrap();
    assert_eq!(spans[1], row("q1", "d2", 5, 9, 1.0));
    let csv = "doc,query,score,start,end\nd1,q1,0.5,0,10\n";
    assert_eq!(
        chunks(csv, "c.csv").unwrap(),
        vec![row("q1", "d1", 0, 10, 0.5)]
    );
    let jsonl = "{\"query\": 7, \"doc\": \"d\", \"start\": 1, \"end\": 4, \"score\": 2}\n";
    assert_eq!(
        chunks(jsonl, "c.jsonl").unwrap(),
        vec![row("7", "d", 1, 4, 2.0)]
    );
}

#[test]
fn reading_errors_name_file_and_line() {
    let message = |r: Result<Rows, SpanFileError>| r.unwrap_err().to_string();
    let m = message(spans("query,doc,start,end,grade\nq,d,5,5,1\n", "s.csv"));
    assert_eq!(
        m,
        "s.csv, line 2: end 5 <= start 5: a span is [start, end), end after start"
    );
    let m = message(spans("query,doc,start,end,grade\nq,d,x,5,1\n", "s.csv"));
    assert!(m.starts_with("s.csv, line 2: start `x`"), "{m}");
    let m = message(spans("query,doc,start,end\nq,d,0,5\n", "s.csv"));
    assert!(m.starts_with("s.csv, line 1: no column `grade`"), "{m}");
    let m = message(spans("query,doc,start,end,grade\nq,d,0,5\n", "s.csv"));
    assert!(m.contains("line 2: 4 fields, the header has 5"), "{m}");
    let m = message(spans(
        "{\"query\":\"q\",\"doc\":\"d\",\"start\":0,\"end\":5,\"grade\":1}\n{\"query\":\"q\"}\n",
        "s.jsonl",
    ));
    assert!(m.starts_with("s.jsonl, line 2: no key"), "{m}");
    let m = message(spans("", "s.csv"));
    assert!(m.starts_with("s.csv: empty"), "{m}");
    let m = chunks("query,doc,start,end,score\nq,d,0,5,1\nq,d,0,5,2\n", "c.csv")
        .unwrap_err()
        .to_string();
    assert!(
        m.starts_with("c.csv, line 3: query `q` retrieves the chunk d#0-5 twice"),
        "{m}"
    );
}

#[test]
fn offsets_past_2_53_are_refused_naming_the_line() {
    let at_bound = format!("query,doc,start,end,grade\nq,d,0,{MAX_OFFSET},1\n");
    assert_eq!(spans(&at_bound, "s.csv").unwrap()[0].3, MAX_OFFSET);
    for end in [
        (MAX_OFFSET + 1).to_string(),
        u64::MAX.to_string(),
        "99999999999999999999999".to_owned(),
    ] {
        let text = format!("query,doc,start,end,grade\nq,d,0,{end},1\n");
        let m = spans(&text, "s.csv").unwrap_err().to_string();
        assert!(
            m.starts_with(&format!(
                "s.csv, line 2: end `{end}`: larger than 9007199254740992 (2^53)"
            )),
            "{m}"
        );
        let json =
            format!("{{\"query\":\"q\",\"doc\":\"d\",\"start\":0,\"end\":{end},\"score\":1}}\n");
        let m = chunks(&json, "c.jsonl").unwrap_err().to_string();
        assert!(m.starts_with("c.jsonl, line 1: end "), "{m}");
    }
}

#[test]
fn quoted_csv_is_read_as_csv() {
    let quoted = "\"query\",\"doc\",\"start\",\"end\",\"score\",\"note\"\n\
                  \"q1\",\"d,1\",\"0\",\"10\",\"0.5\",\"a \"\"quoted\"\" note, with a comma\"\n";
    assert_eq!(
        chunks(quoted, "c.csv").unwrap(),
        vec![row("q1", "d,1", 0, 10, 0.5)]
    );
    let open = "query,doc,start,end,score\n\"q1,d,0,10,1\n";
    let m = chunks(open, "c.csv").unwrap_err().to_string();
    assert!(m.starts_with("c.csv, line 2: field 1 opens a quote"), "{m}");
}

#[test]
fn ids_follow_the_id_rule_and_messages_stay_short() {
    let cases: [(&[u8], &str); 5] = [
        (
            b"q 1,d,0,5,1",
            "column `query`: the id `q 1` contains U+0020",
        ),
        (
            b"q,\x1b[31m,0,5,1",
            "column `doc`: the id `\\u{1b}[31m` contains U+001B",
        ),
        (b",d,0,5,1", "column `query` is empty"),
        (
            b"q,\xff\xfe,0,5,1",
            "column `doc`: the id `\u{fffd}\u{fffd}` is not UTF-8",
        ),
        (b"q,d,0,5,1e12", "grade `1e12`: a grade must be between"),
    ];
    for (line, want) in cases {
        let mut text = b"query,doc,start,end,grade\n".to_vec();
        text.extend_from_slice(line);
        let m = parse_span_qrels(&text, "s.csv").unwrap_err().to_string();
        assert!(m.starts_with(&format!("s.csv, line 2: {want}")), "{m}");
    }
    // A huge id, a huge header: the message is short.
    let long = format!(
        "query,doc,start,end,grade\nq{}x,d,0,5,1\n",
        " ".repeat(1 << 20)
    );
    let m = spans(&long, "s.csv").unwrap_err().to_string();
    assert!(m.len() < 300, "{}", m.len());
    let mut header = vec![0u8; 10 << 20];
    header.extend_from_slice(b",x\n");
    let m = parse_span_qrels(&header, "s.csv").unwrap_err().to_string();
    assert!(m.starts_with("s.csv, line 1: no column `query`"), "{m}");
    assert!(m.len() < 500, "{}", m.len());
    let many = format!("{}\n", "a,".repeat(1 << 20));
    let m = parse_span_qrels(many.as_bytes(), "s.csv")
        .unwrap_err()
        .to_string();
    assert!(m.contains("... (1048577 columns)"), "{m}");
    assert!(m.len() < 500, "{}", m.len());
    let m = parse_span_qrels(b"query,doc,query,start,end,grade\n", "s.csv")
        .unwrap_err()
        .to_string();
    assert_eq!(
        m,
        "s.csv, line 1: column `query` appears twice in the header (fields 1 and 3)"
    );
    let json = format!(
        "{{\"query\":[{}],\"doc\":\"d\"}}\n",
        "1,".repeat(1 << 16) + "1"
    );
    let m = parse_span_qrels(json.as_bytes(), "s.jsonl")
        .unwrap_err()
        .to_string();
    assert_eq!(
        m,
        "s.jsonl, line 1: query (an array): not a string or a number"
    );
}

#[test]
fn header_only_span_qrels_are_refused_and_a_header_only_run_is_read() {
    let m = spans("query,doc,start,end,grade\n\n", "s.csv")
        .unwrap_err()
        .to_string();
    assert!(m.starts_with("s.csv: a header and no span"), "{m}");
    assert!(
        parse_chunk_run(b"query,doc,start,end,score\n", "c.csv")
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_byte_order_mark_crlf_and_gzip_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let text = "\u{feff}query\tdoc\tstart\tend\tgrade\r\nq\td\t0\t5\t1\r\n";
    let mut gz = flate2_like_gzip(text.as_bytes());
    let path = dir.path().join("s.tsv.gz");
    std::fs::write(&path, &mut gz).unwrap();
    assert_eq!(read_spans(&path).unwrap(), vec![row("q", "d", 0, 5, 1.0)]);
    // A directory is an error naming it, not a panic or a read.
    let m = read_spans(dir.path()).unwrap_err().to_string();
    assert!(m.starts_with("cannot read "), "{m}");
}

/// `bytes` as a gzip member with stored (uncompressed) deflate blocks.
fn flate2_like_gzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    let chunks: Vec<&[u8]> = bytes.chunks(65535).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        out.push(u8::from(i + 1 == chunks.len()));
        let len = chunk.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&crc32(bytes).to_le_bytes());
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Pieces of span files, faults mixed in.
const PIECES: &[&str] = &[
    "query",
    "doc",
    "start",
    "end",
    "grade",
    "score",
    "q",
    "r",
    "d",
    "e",
    "0",
    "1",
    "5",
    "10",
    "2.5",
    "-1",
    "1e999",
    "NaN",
    "9007199254740992",
    "9007199254740993",
    "18446744073709551615",
    "2147483648",
    ",",
    ",",
    "\t",
    "\n",
    "\n",
    "\r\n",
    " ",
    "\"",
    "\"\"",
    "{",
    "}",
    ":",
    "[",
    "]",
    "\"query\":",
    "\"doc\":",
    "\"start\":",
    "\"end\":",
    "\"grade\":",
    "\"score\":",
    "\u{feff}",
    "\0",
    "\x1b",
    "\u{e9}",
    "null",
];

fn text() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..256),
        prop::collection::vec(prop::sample::select(PIECES), 0..80)
            .prop_map(|pieces| pieces.concat().into_bytes()),
    ]
}

/// Checks what a parse gave: values, or an error naming the file and a
/// line that exists.
fn check_error<T>(result: &Result<T, SpanFileError>, text: &[u8], name: &str) {
    if let Err(e) = result {
        let m = e.to_string();
        assert!(m.starts_with(name), "{m}");
        assert!(m.len() < 1000, "{m}");
        if let SpanFileError::At {
            at: RowAt::Line(line),
            ..
        } = e
        {
            let lines = text.split(|&b| b == b'\n').count() as u64;
            assert!(*line >= 1 && *line <= lines, "{m}: {lines} lines");
        }
    }
}

proptest::proptest! {
    #[test]
    fn any_bytes_as_span_files_never_panic(spans in text(), run in text()) {
        let qrels = parse_span_qrels(&spans, "s.in");
        check_error(&qrels, &spans, "s.in");
        let chunks = parse_chunk_run(&run, "c.in");
        check_error(&chunks, &run, "c.in");
    }
}

/// A row laid out as a table: query (`None`: null), document, start
/// (`None`: null), end, last column.
type TableRow<'a> = (Option<&'a str>, i64, Option<i64>, u32, f64);

/// A batch of span rows: query ids as strings, document ids as integers
/// (both id types a table may hold), offsets as `u32`, the last column
/// `last` as floats; `None` is a null.
fn batch(last: &str, rows: &[TableRow<'_>]) -> arrow_array::RecordBatch {
    use arrow_array::{Float64Array, Int64Array, StringArray, UInt32Array};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;
    let schema = Arc::new(Schema::new(vec![
        Field::new("note", DataType::Utf8, true),
        Field::new("query", DataType::Utf8, true),
        Field::new("doc", DataType::Int64, false),
        Field::new("start", DataType::Int64, true),
        Field::new("end", DataType::UInt32, false),
        Field::new(last, DataType::Float64, false),
    ]));
    arrow_array::RecordBatch::try_new(
        schema,
        vec![
            Arc::new(rows.iter().map(|_| Some("x")).collect::<StringArray>()),
            Arc::new(rows.iter().map(|r| r.0).collect::<StringArray>()),
            Arc::new(rows.iter().map(|r| r.1).collect::<Int64Array>()),
            Arc::new(rows.iter().map(|r| r.2).collect::<Int64Array>()),
            Arc::new(rows.iter().map(|r| r.3).collect::<UInt32Array>()),
            Arc::new(rows.iter().map(|r| r.4).collect::<Float64Array>()),
        ],
    )
    .unwrap()
}

/// `batch` as the bytes of a Parquet file, in row groups of two rows.
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

/// `batch` as an Arrow IPC file (`stream: false`) or stream.
fn arrow_ipc(batch: &arrow_array::RecordBatch, stream: bool) -> Vec<u8> {
    let mut out = Vec::new();
    if stream {
        let mut writer =
            arrow_ipc::writer::StreamWriter::try_new(&mut out, &batch.schema()).unwrap();
        writer.write(batch).unwrap();
        writer.finish().unwrap();
    } else {
        let mut writer = arrow_ipc::writer::FileWriter::try_new(&mut out, &batch.schema()).unwrap();
        writer.write(batch).unwrap();
        writer.finish().unwrap();
    }
    out
}

/// `bytes` gzipped.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

const GOOD: &[TableRow<'static>] = &[
    (Some("q1"), 7, Some(0), 10, 2.0),
    (Some("q1"), 8, Some(5), 9, 1.0),
    (Some("q2"), 7, Some(20), 40, 0.0),
];

fn good_rows() -> Rows {
    vec![
        row("q1", "7", 0, 10, 2.0),
        row("q1", "8", 5, 9, 1.0),
        row("q2", "7", 20, 40, 0.0),
    ]
}

#[test]
fn parquet_and_arrow_span_files_are_read_as_tables() {
    let dir = tempfile::tempdir().unwrap();
    let table = batch("grade", GOOD);
    let files = [
        ("s.parquet", parquet(&table)),
        ("s.parquet.gz", gzip(&parquet(&table))),
        ("s.arrow", arrow_ipc(&table, false)),
        ("s.arrows", arrow_ipc(&table, true)),
        ("s.feather.gz", gzip(&arrow_ipc(&table, false))),
    ];
    for (name, bytes) in &files {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        assert_eq!(read_spans(&path).unwrap(), good_rows(), "{name}");
        // In memory, told by the magic bytes (gzip is read through by
        // `read_whole`, not here).
        if !name.ends_with(".gz") {
            let parsed = parse_span_qrels(bytes, name).unwrap();
            assert_eq!(rows(&parsed), good_rows(), "{name}");
        }
    }
    // A Parquet file of any name is told by its first bytes.
    let path = dir.path().join("spans.data");
    std::fs::write(&path, parquet(&table)).unwrap();
    assert_eq!(read_spans(&path).unwrap(), good_rows());
    // A run of chunks.
    let run = dir.path().join("run.parquet");
    std::fs::write(&run, parquet(&batch("score", GOOD))).unwrap();
    assert_eq!(rows(&read_chunk_run(&run).unwrap()), good_rows());
}

#[test]
fn a_gzipped_text_span_file_is_read_as_its_content() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.csv.gz");
    let text = "query,doc,start,end,score\n\"q1\",\"d,1\",0,10,0.5\nq2,d2,3,4,1\n";
    std::fs::write(&path, gzip(text.as_bytes())).unwrap();
    assert_eq!(
        rows(&read_chunk_run(&path).unwrap()),
        vec![row("q1", "d,1", 0, 10, 0.5), row("q2", "d2", 3, 4, 1.0)]
    );
}

#[test]
fn quoted_fields_in_a_tsv_hold_tabs_quotes_and_names() {
    let tsv = "\"query\"\t\"doc\"\tstart\tend\t\"grade\"\n\
               \"q\"\"1\"\t\"d\tx\"\t0\t\"5\"\t1\n";
    // A quote inside an id is not whitespace: the id rule keeps it; a tab
    // inside a quoted id is refused by the id rule, naming the line.
    let m = spans(tsv, "s.tsv").unwrap_err().to_string();
    assert!(
        m.starts_with("s.tsv, line 2: column `doc`: the id `d\\tx` contains U+0009"),
        "{m}"
    );
    let tsv = "\"query\"\t\"doc\"\tstart\tend\t\"grade\"\n\"q\"\"1\"\t\"d x\"\t0\t\"5\"\t1\n";
    let m = spans(tsv, "s.tsv").unwrap_err().to_string();
    assert!(m.contains("line 2: column `doc`: the id `d x`"), "{m}");
    let tsv = "\"query\"\t\"doc\"\tstart\tend\t\"grade\"\n\"q\"\"1\"\t\"d1\"\t0\t\"5\"\t1\n";
    assert_eq!(
        spans(tsv, "s.tsv").unwrap(),
        vec![row("q\"1", "d1", 0, 5, 1.0)]
    );
}

#[test]
fn table_errors_name_the_file_row_and_column() {
    let error = |last: &str, rows: &[TableRow<'_>]| {
        let bytes = parquet(&batch(last, rows));
        let read = if last == "grade" {
            parse_span_qrels(&bytes, "t.parquet").map(|_| ())
        } else {
            parse_chunk_run(&bytes, "t.parquet").map(|_| ())
        };
        read.unwrap_err().to_string()
    };
    let ok = (Some("q"), 1, Some(0), 5, 1.0);
    let cases: [(&str, Vec<_>, &str); 8] = [
        (
            "grade",
            vec![ok, ok, (None, 1, Some(0), 5, 1.0)],
            "t.parquet, row 3: column `query`: the value is null",
        ),
        (
            "grade",
            vec![ok, (Some("q"), 1, None, 5, 1.0)],
            "t.parquet, row 2: column `start`: the value is null",
        ),
        (
            "grade",
            vec![(Some("q"), 1, Some(-1), 5, 1.0)],
            "t.parquet, row 1: start `-1`: not a non-negative integer",
        ),
        (
            "grade",
            vec![(Some("q"), 1, Some(1 << 54), 5, 1.0)],
            "t.parquet, row 1: start `18014398509481984`: larger than 9007199254740992 (2^53)",
        ),
        (
            "grade",
            vec![ok, (Some("q"), 1, Some(9), 3, 1.0)],
            "t.parquet, row 2: end 3 <= start 9: a span is [start, end), end after start",
        ),
        (
            "grade",
            vec![(Some("q\u{1b}[31m"), 1, Some(0), 5, 1.0)],
            "t.parquet, row 1: column `query`: the id `q\\u{1b}[31m` contains U+001B",
        ),
        (
            "grade",
            vec![(Some("q"), 1, Some(0), 5, 1e12)],
            "t.parquet, row 1: grade `1000000000000`: a grade must be between",
        ),
        (
            "score",
            vec![ok, (Some("r"), 1, Some(0), 5, 1.0), ok],
            "t.parquet, row 3: query `q` retrieves the chunk 1#0-5 twice (first at row 1)",
        ),
    ];
    for (last, rows, want) in cases {
        let m = error(last, &rows);
        assert!(m.starts_with(want), "{want}\n{m}");
    }
    // Score NaN or infinite.
    let m = error("score", &[(Some("q"), 1, Some(0), 5, f64::NAN)]);
    assert_eq!(m, "t.parquet, row 1: score `NaN`: not a finite number");
    // Span qrels without a row.
    let m = error("grade", &[]);
    assert!(m.starts_with("t.parquet: a header and no span"), "{m}");
}

#[test]
fn a_table_without_the_columns_or_of_other_types_is_refused() {
    use arrow_array::{Float64Array, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;
    let strings = |n: &str| Field::new(n, DataType::Utf8, false);
    let table = |fields: Vec<Field>| {
        let columns: Vec<arrow_array::ArrayRef> = fields
            .iter()
            .map(|f| match f.data_type() {
                DataType::Utf8 => Arc::new(StringArray::from(vec!["1"])) as _,
                _ => Arc::new(Float64Array::from(vec![1.0])) as _,
            })
            .collect();
        let batch =
            arrow_array::RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap();
        parse_span_qrels(&parquet(&batch), "t.parquet")
            .unwrap_err()
            .to_string()
    };
    let m = table(vec![strings("query"), strings("doc"), strings("start")]);
    assert_eq!(
        m,
        "t.parquet: no column `end` in the table (it has: query, doc, start); the columns are \
         query, doc, start, end, grade"
    );
    let m = table(vec![
        strings("query"),
        strings("doc"),
        strings("start"),
        strings("end"),
        strings("grade"),
    ]);
    assert_eq!(
        m,
        "t.parquet: column `start` is Utf8, not offsets: integers"
    );
    let m = table(vec![
        strings("query"),
        Field::new("doc", DataType::Float64, false),
        strings("start"),
        strings("end"),
        strings("grade"),
    ]);
    assert!(
        m.starts_with("t.parquet: column `doc` is Float64, not ids"),
        "{m}"
    );
    // Not Parquet at all behind the name: an error naming the file.
    let dir = tempfile::tempdir().unwrap();
    for name in ["zeros.parquet", "zeros.arrow"] {
        let path = dir.path().join(name);
        std::fs::write(&path, vec![0u8; 4096]).unwrap();
        let m = read_span_qrels(&path).unwrap_err().to_string();
        assert!(m.starts_with(&path.display().to_string()), "{m}");
    }
}

proptest::proptest! {
    /// Any bytes behind Parquet's or Arrow's magic give rows or an error
    /// naming the file: never a panic.
    #[test]
    fn any_bytes_as_span_tables_never_panic(
        bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512),
    ) {
        for magic in [&b"PAR1"[..], b"ARROW1", b"\xFF\xFF\xFF\xFF"] {
            let input = [magic, &bytes, magic].concat();
            for read in [
                parse_span_qrels(&input, "t.in").map(|_| ()),
                parse_chunk_run(&input, "t.in").map(|_| ()),
            ] {
                if let Err(e) = read {
                    let m = e.to_string();
                    proptest::prop_assert!(m.starts_with("t.in"), "{}", m);
                    proptest::prop_assert!(m.len() < 1000, "{}", m);
                }
            }
        }
    }
}
