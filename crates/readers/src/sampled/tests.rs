//! The sampled runs' reader: TREC lines with a sample column, CSV/TSV,
//! JSON Lines, Parquet and Arrow IPC, gzip, and the errors it gives (file,
//! line or row, column, problem), on any bytes too.

use super::*;
use crate::Format;
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

/// Every query's samples in full, queries in byte order: each sample's id
/// and its documents with their scores' bits, in the run's order.
type Full = Vec<(String, Vec<(String, Vec<(String, u64)>)>)>;

fn full(run: &SampledRun) -> Full {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    run.query_ids()
        .into_iter()
        .map(|q| {
            let samples = run
                .samples(q)
                .unwrap()
                .iter()
                .map(|&i| {
                    let list = run.run().list_at(i);
                    let docs = (0..list.len())
                        .map(|k| (text(list.doc(k)), list.score(k).unwrap().to_bits()))
                        .collect();
                    (text(run.sample_id(i).unwrap()), docs)
                })
                .collect();
            (text(q), samples)
        })
        .collect()
}

/// A sampled run's rows, in no order (queries and samples interleaved):
/// `(query, sample, doc, score)`. Each sample's scores are distinct, so
/// that its ranks are the order of its scores; ids hold a comma, a quote
/// and a letter past ASCII, scores the extremes of `f64`.
const ROWS: &[(&str, i64, &str, f64)] = &[
    ("q1", 0, "d1", 3.5),
    ("\u{e9}7", 0, "d9", 0.0),
    ("q1", 0, "d,2", 1e-300),
    ("q1", 1, "d3", 1e300),
    ("\u{e9}7", 2, "d1", 7.0),
    ("q1", 0, "d3", -2.25),
    ("\u{e9}7", 0, "d1", -0.5),
    ("q1", 1, "d1", 0.1),
    ("\u{e9}7", 0, "d\"q", 0.3),
    ("q10", 5, "d1", 1.0),
    ("q1", 1, "d,2", -1e300),
    ("\u{e9}7", 2, "d\"q", 6.5),
];

/// The rank of each row of [`ROWS`] in its sample (1 the highest score).
fn ranks() -> Vec<u64> {
    ROWS.iter()
        .map(|&(q, s, _, score)| {
            1 + ROWS
                .iter()
                .filter(|&&(q2, s2, _, other)| q2 == q && s2 == s && other > score)
                .count() as u64
        })
        .collect()
}

/// What orders the rows in a table: a score, a rank, or both (a rank that
/// disagrees with the score, which must be ignored).
#[derive(Clone, Copy, Debug, PartialEq)]
enum By {
    Score,
    Rank,
    Both,
}

/// A CSV field, quoted as RFC 4180 quotes.
fn quoted(field: &str) -> String {
    format!("\"{}\"", field.replace('"', "\"\""))
}

/// [`ROWS`] as a CSV (`,`) or TSV (`\t`) table with an extra column, the
/// columns in another order.
fn delimited(delimiter: char, by: By) -> String {
    let d = delimiter;
    let last = match by {
        By::Score => "score".to_owned(),
        By::Rank => "rank".to_owned(),
        By::Both => format!("rank{d}score"),
    };
    let mut text = format!("doc{d}extra{d}{last}{d}query{d}sample\n");
    for (&(q, s, doc, score), rank) in ROWS.iter().zip(ranks()) {
        let value = match by {
            By::Score => format!("{score:?}"),
            By::Rank => rank.to_string(),
            // A rank that reverses the order: the score must win.
            By::Both => format!("{}{d}{score:?}", 100 - rank),
        };
        text.push_str(&format!(
            "{}{d}x{d}{value}{d}{}{d}{s}\n",
            quoted(doc),
            quoted(q)
        ));
    }
    text
}

/// [`ROWS`] as JSON Lines: samples as numbers, queries as strings.
fn json_lines(by: By) -> String {
    ROWS.iter()
        .zip(ranks())
        .map(|(&(q, s, doc, score), rank)| {
            let mut row = serde_json::json!({"query": q, "sample": s, "doc": doc, "other": [1]});
            match by {
                By::Score => row["score"] = serde_json::json!(score),
                By::Rank => row["rank"] = serde_json::json!(rank),
                By::Both => {
                    row["score"] = serde_json::json!(score);
                    row["rank"] = serde_json::json!(100 - rank);
                }
            }
            format!("{row}\n")
        })
        .collect()
}

/// [`ROWS`] as TREC run lines, the sample in the second field.
fn run_lines() -> String {
    ROWS.iter()
        .zip(ranks())
        .map(|(&(q, s, doc, score), rank)| format!("{q} {s} {doc} {rank} {score:?} t\n"))
        .collect()
}

/// [`ROWS`] as a batch: queries as strings, samples as integers, documents
/// a dictionary of strings (or string views), an ignored column, and the
/// score as floats, the rank as unsigned integers, or both.
fn rows_batch(by: By, views: bool) -> arrow_array::RecordBatch {
    use arrow_array::types::Int32Type;
    use arrow_array::{
        ArrayRef, BooleanArray, DictionaryArray, Float64Array, Int64Array, StringArray,
        StringViewArray, UInt64Array,
    };
    use std::sync::Arc;
    let docs: ArrayRef = if views {
        Arc::new(ROWS.iter().map(|r| Some(r.2)).collect::<StringViewArray>())
    } else {
        Arc::new(
            ROWS.iter()
                .map(|r| r.2)
                .collect::<DictionaryArray<Int32Type>>(),
        )
    };
    let mut columns: Vec<(&str, ArrayRef)> = vec![
        (
            "other",
            Arc::new(BooleanArray::from(vec![true; ROWS.len()])),
        ),
        ("doc", docs),
        (
            "query",
            Arc::new(ROWS.iter().map(|r| Some(r.0)).collect::<StringArray>()),
        ),
        (
            "sample",
            Arc::new(ROWS.iter().map(|r| r.1).collect::<Int64Array>()),
        ),
    ];
    let ranks = ranks();
    if by != By::Score {
        let rank: Vec<u64> = match by {
            By::Both => ranks.iter().map(|r| 100 - r).collect(),
            _ => ranks,
        };
        columns.push(("rank", Arc::new(UInt64Array::from(rank))));
    }
    if by != By::Rank {
        columns.push((
            "score",
            Arc::new(ROWS.iter().map(|r| r.3).collect::<Float64Array>()),
        ));
    }
    arrow_array::RecordBatch::try_from_iter(columns).unwrap()
}

fn parquet_with(
    batch: &arrow_array::RecordBatch,
    compression: parquet::basic::Compression,
) -> Vec<u8> {
    let mut out = Vec::new();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(5))
        .set_compression(compression)
        .build();
    let mut writer =
        parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
    out
}

/// An Arrow IPC file with zstd-compressed buffers, written in two batches.
fn arrow_zstd(batch: &arrow_array::RecordBatch) -> Vec<u8> {
    let options = arrow_ipc::writer::IpcWriteOptions::default()
        .try_with_compression(Some(arrow_ipc::CompressionType::ZSTD))
        .unwrap();
    let mut out = Vec::new();
    let mut writer =
        arrow_ipc::writer::FileWriter::try_new_with_options(&mut out, &batch.schema(), options)
            .unwrap();
    writer.write(&batch.slice(0, 4)).unwrap();
    writer.write(&batch.slice(4, batch.num_rows() - 4)).unwrap();
    writer.finish().unwrap();
    out
}

/// An Arrow IPC stream.
fn arrow_stream(batch: &arrow_array::RecordBatch) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer = arrow_ipc::writer::StreamWriter::try_new(&mut out, &batch.schema()).unwrap();
    writer.write(batch).unwrap();
    writer.finish().unwrap();
    out
}

/// Each file of [`ROWS`] in every format ordered `by` (run lines only by
/// score).
fn every_format(by: By) -> Vec<(String, Vec<u8>)> {
    use parquet::basic::{Compression, ZstdLevel};
    let (table, views) = (rows_batch(by, false), rows_batch(by, true));
    let mut files = vec![
        ("r.csv", delimited(',', by).into_bytes()),
        ("r.tsv", delimited('\t', by).into_bytes()),
        // A table's text is read by its content, whatever its name.
        ("r.txt", delimited(',', by).into_bytes()),
        ("r.jsonl", json_lines(by).into_bytes()),
        ("r.csv.gz", gzip(delimited(',', by).as_bytes())),
        ("r.jsonl.gz", gzip(json_lines(by).as_bytes())),
        ("r.parquet", parquet_with(&table, Compression::UNCOMPRESSED)),
        ("r.pq", parquet_with(&views, Compression::SNAPPY)),
        (
            "zstd.parquet",
            parquet_with(&table, Compression::ZSTD(ZstdLevel::default())),
        ),
        (
            "r.parquet.gz",
            gzip(&parquet_with(&table, Compression::SNAPPY)),
        ),
        ("r.arrow", arrow_ipc(&table)),
        ("r.feather", arrow_zstd(&views)),
        ("r.arrows", arrow_stream(&table)),
        ("r.arrow.gz", gzip(&arrow_ipc(&views))),
    ];
    if by == By::Score {
        files.push(("r.trec", run_lines().into_bytes()));
        files.push(("r.trec.gz", gzip(run_lines().as_bytes())));
    }
    files
        .into_iter()
        .map(|(name, bytes)| (name.to_owned(), bytes))
        .collect()
}

/// Reads `bytes` as the file `name`, as bytes in memory (as from standard
/// input, of the format the name gives), and as bytes told by their magic;
/// all three must agree.
fn read_three_ways(dir: &Path, name: &str, bytes: &[u8]) -> Full {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let from_file =
        read_sampled_run(&path, ReadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let input = Input::bytes(name, bytes.to_vec(), Format::from_path(&path));
    let from_input = read_sampled_input(&input, ReadOptions::default())
        .unwrap_or_else(|e| panic!("{name} in memory: {e}"));
    assert_eq!(full(&from_file), full(&from_input), "{name} in memory");
    if !name.ends_with(".gz") {
        let parsed = parse_sampled_run(bytes, name, ReadOptions::default())
            .unwrap_or_else(|e| panic!("{name} parsed: {e}"));
        assert_eq!(full(&from_file), full(&parsed), "{name} parsed");
    }
    full(&from_file)
}

#[test]
fn every_table_format_gives_the_run_lines_sampled_run() {
    let dir = tempfile::tempdir().unwrap();
    let expected = read_three_ways(dir.path(), "lines.trec", run_lines().as_bytes());
    // Three queries, five samples, twelve rows, each in score order.
    assert_eq!(expected.len(), 3);
    assert_eq!(expected[0].0, "q1");
    assert_eq!(
        expected[0].1[0],
        (
            "0".to_owned(),
            vec![
                ("d1".to_owned(), 3.5f64.to_bits()),
                ("d,2".to_owned(), 1e-300f64.to_bits()),
                ("d3".to_owned(), (-2.25f64).to_bits()),
            ]
        )
    );
    for by in [By::Score, By::Both] {
        for (name, bytes) in every_format(by) {
            assert_eq!(
                read_three_ways(dir.path(), &name, &bytes),
                expected,
                "{name} by {by:?}"
            );
        }
    }
}

#[test]
fn every_table_format_reads_ranks_lower_first() {
    let dir = tempfile::tempdir().unwrap();
    let by_score = lists(
        &read_sampled_run(
            &{
                let path = dir.path().join("lines.trec");
                std::fs::write(&path, run_lines()).unwrap();
                path
            },
            ReadOptions::default(),
        )
        .unwrap(),
    );
    let mut first: Option<Full> = None;
    for (name, bytes) in every_format(By::Rank) {
        let run = read_three_ways(dir.path(), &name, &bytes);
        let path = dir.path().join(&name);
        let ordered = lists(&read_sampled_run(&path, ReadOptions::default()).unwrap());
        assert_eq!(ordered, by_score, "{name}");
        // A rank r is ordered as the score -r.
        assert!(
            run.iter().flat_map(|(_, s)| s).all(|(_, docs)| docs
                .iter()
                .enumerate()
                .all(|(i, (_, bits))| f64::from_bits(*bits) == -((i + 1) as f64))),
            "{name}: {run:?}"
        );
        match &first {
            None => first = Some(run),
            Some(first) => assert_eq!(&run, first, "{name}"),
        }
    }
}

/// Writes `batch` as a Parquet file in memory (uncompressed).
fn parquet_of(batch: &arrow_array::RecordBatch) -> Vec<u8> {
    parquet_with(batch, parquet::basic::Compression::UNCOMPRESSED)
}

/// A batch of the named columns.
fn table_of(columns: Vec<(&str, arrow_array::ArrayRef)>) -> arrow_array::RecordBatch {
    arrow_array::RecordBatch::try_from_iter(columns).unwrap()
}

/// Ids as a string column.
fn strings(ids: &[&str]) -> arrow_array::ArrayRef {
    std::sync::Arc::new(arrow_array::StringArray::from(ids.to_vec()))
}

/// Hostile values in well-formed files of every format: empty files and
/// header-only tables, NaN, infinite and overflowing scores and ranks,
/// ranks of 2^53 and more, repeated (query, sample, doc), control bytes
/// in ids, a 1 MiB id, ids that are not UTF-8, a column missing, twice or
/// of the wrong type, nulls. Each is refused naming the file, the line or
/// row and the column or key, in a short message without a control byte.
#[test]
fn hostile_values_are_named_by_file_row_and_column() {
    use arrow_array::{ArrayRef, Float64Array, UInt64Array};
    use std::sync::Arc;
    let header = "query,sample,doc,score\n";
    let rank_header = "query,sample,doc,rank\n";
    let long_id = format!("{}\x1b", "d".repeat(1 << 20));
    let ids = || -> Vec<(&str, ArrayRef)> {
        vec![
            ("query", strings(&["q", "q"])),
            ("sample", strings(&["s", "s"])),
            ("doc", strings(&["a", "b"])),
        ]
    };
    let with = |column: (&'static str, ArrayRef)| {
        let mut columns = ids();
        columns.push(column);
        parquet_of(&table_of(columns))
    };
    let empty_table = parquet_of(&table_of(vec![
        ("query", strings(&[])),
        ("sample", strings(&[])),
        ("doc", strings(&[])),
        ("score", Arc::new(Float64Array::from(Vec::<f64>::new()))),
    ]));
    let cases: Vec<(&str, Vec<u8>, String)> = vec![
        ("e.trec", vec![], "e.trec: no row".into()),
        ("e.csv", b"\n  \n".to_vec(), "e.csv: no row".into()),
        ("h.csv", header.into(), "h.csv: no row".into()),
        (
            "h.tsv",
            b"query\tsample\tdoc\trank\n\n".to_vec(),
            "h.tsv: no row".into(),
        ),
        ("h.parquet", empty_table, "h.parquet: no row".into()),
        (
            "n.csv",
            format!("{header}q,s,d,NaN\n").into(),
            "n.csv, line 2: the score of document `d` in query `q` sample `s` is NaN".into(),
        ),
        (
            "n.parquet",
            with(("score", Arc::new(Float64Array::from(vec![1.0, f64::NAN])))),
            "n.parquet, row 2: the score of document `b` in query `q` sample `s` is NaN".into(),
        ),
        (
            "n.csv",
            format!("{rank_header}q,s,d,NaN\n").into(),
            "n.csv, line 2: column `rank`: NaN is not a rank".into(),
        ),
        (
            "i.csv",
            format!("{rank_header}q,s,d,1\nq,s,e,1e400\n").into(),
            "i.csv, line 3: column `rank`: inf is not a rank".into(),
        ),
        (
            "i.csv",
            format!("{rank_header}q,s,d,-inf\n").into(),
            "i.csv, line 2: column `rank`: -inf is not a rank".into(),
        ),
        (
            "b.csv",
            format!("{rank_header}q,s,d,18446744073709551616\n").into(),
            "b.csv, line 2: column `rank`: 18446744073709551616 is 2^53 or more in size".into(),
        ),
        (
            "b.csv",
            format!("{rank_header}q,s,d,9007199254740993\n").into(),
            "b.csv, line 2: column `rank`: 9007199254740993 is 2^53 or more in size".into(),
        ),
        (
            "b.parquet",
            with(("rank", Arc::new(UInt64Array::from(vec![1, u64::MAX])))),
            "b.parquet, row 2: column `rank`: 18446744073709551615 is 2^53 or more in size".into(),
        ),
        (
            "b.jsonl",
            b"{\"query\": \"q\", \"sample\": \"s\", \"doc\": \"d\", \"rank\": -9007199254740992}\n"
                .to_vec(),
            "b.jsonl, line 1: key `rank`: -9007199254740992 is 2^53 or more in size".into(),
        ),
        (
            "o.jsonl",
            b"{\"query\": \"q\", \"sample\": \"s\", \"doc\": \"d\", \"rank\": 1e400}\n".to_vec(),
            "o.jsonl, line 1: not JSON".into(),
        ),
        (
            "x.csv",
            format!("{rank_header}q,s,d,first\n").into(),
            "x.csv, line 2: column `rank` `first`: not a number".into(),
        ),
        (
            "x.jsonl",
            b"{\"query\": \"q\", \"sample\": \"s\", \"doc\": \"d\", \"score\": \"1\"}\n".to_vec(),
            "x.jsonl, line 1: key `score` \"1\": not a number".into(),
        ),
        (
            "d.csv",
            format!("{header}q,s,d,1\nq,t,d,1\nq,s,d,2\n").into(),
            "d.csv, line 4: document `d` appears twice in the list of query `q` sample `s` \
             (line 2 and 4)"
                .into(),
        ),
        (
            "d.parquet",
            parquet_of(&table_of(vec![
                ("query", strings(&["q", "q"])),
                ("sample", strings(&["s", "s"])),
                ("doc", strings(&["a", "a"])),
                ("score", Arc::new(Float64Array::from(vec![1.0, 2.0]))),
            ])),
            "d.parquet, row 2: document `a` appears twice in the list of query `q` sample `s` \
             (row 1 and 2)"
                .into(),
        ),
        (
            "c.csv",
            format!("{header}q,s,d\x1b[31m,1\n").into(),
            "c.csv, line 2: column `doc`:".into(),
        ),
        (
            "c.jsonl",
            b"{\"query\": \"q\", \"sample\": \"s\\u0000\", \"doc\": \"d\", \"score\": 1}\n"
                .to_vec(),
            "c.jsonl, line 1: key `sample`:".into(),
        ),
        (
            "c.parquet",
            parquet_of(&table_of(vec![
                ("query", strings(&["q\x1b[31m"])),
                ("sample", strings(&["s"])),
                ("doc", strings(&["d"])),
                ("score", Arc::new(Float64Array::from(vec![1.0]))),
            ])),
            "c.parquet, row 1: column `query`:".into(),
        ),
        (
            "l.csv",
            format!("{header}q,s,{long_id},1\n").into(),
            "l.csv, line 2: column `doc`:".into(),
        ),
        (
            "u.csv",
            [header.as_bytes(), b"q,s\xff\xfe,d,1\n"].concat(),
            "u.csv, line 2: column `sample`: the id `s\u{fffd}\u{fffd}` is not UTF-8 text".into(),
        ),
        (
            "m.csv",
            b"query,sample,doc,weight\nq,s,d,1\n".to_vec(),
            "m.csv, line 1: no column `score` (or `rank`) in the header (it has: query, \
             sample, doc, weight); the columns are query, sample, doc, score (or rank)"
                .into(),
        ),
        (
            "m.jsonl",
            b"{\"query\": \"q\", \"sample\": \"s\", \"doc\": \"d\", \"weight\": 1}\n".to_vec(),
            "m.jsonl, line 1: no key `score` (or `rank`)".into(),
        ),
        (
            "m.parquet",
            with(("weight", Arc::new(Float64Array::from(vec![1.0, 2.0])))),
            "m.parquet: no column `score` (or `rank`) in the table (it has: query, sample, \
             doc, weight); the columns are query, sample, doc, score (or rank)"
                .into(),
        ),
        (
            "t.csv",
            b"query,sample,doc,rank,rank\nq,s,d,1,2\n".to_vec(),
            "t.csv, line 1: column `rank` appears twice in the header (fields 4 and 5)".into(),
        ),
        (
            "w.parquet",
            with(("score", strings(&["1", "2"]))),
            "w.parquet: column `score` is Utf8, not numbers".into(),
        ),
        (
            "z.parquet",
            with((
                "rank",
                Arc::new(UInt64Array::from(vec![Some(1), None])) as ArrayRef,
            )),
            "z.parquet, row 2: column `rank`: the value is null".into(),
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (name, bytes, wanted) in &cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let message = match read_sampled_run(&path, ReadOptions::default()) {
            Ok(_) => "read".to_owned(),
            Err(e) => e.to_string(),
        };
        let shown = message.replace(&format!("{}/", dir.path().display()), "");
        if !shown.starts_with(wanted.as_str())
            || shown.len() > 2000
            || shown.contains(['\u{1b}', '\0'])
        {
            failures.push(format!("{name}: {shown:?}\n  wanted {wanted:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What is not an error: rank 0 and negative ranks order as numbers, an
/// infinite score (inf, 1e400, -inf) orders first or last, and with
/// `--duplicates first` a repeated document is dropped and counted.
#[test]
fn extreme_values_that_are_read_are_ordered_and_counted() {
    let ranks = parse(
        "query,sample,doc,rank\nq,s,a,1\nq,s,b,0\nq,s,c,-3\nq,s,d,9007199254740991\n",
        "r.csv",
    )
    .unwrap();
    let docs = |names: &[&str]| names.iter().map(|d| (*d).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        ranks,
        vec![("q".to_owned(), vec![docs(&["c", "b", "a", "d"])])]
    );
    let scores = parse("q s a 1 1e400 t\nq s b 2 -inf t\nq s c 3 5 t\n", "r.trec").unwrap();
    assert_eq!(scores, vec![("q".to_owned(), vec![docs(&["a", "c", "b"])])]);
    let options = ReadOptions {
        duplicates: rankeval_core::Duplicates::First,
        ..ReadOptions::default()
    };
    let run = parse_sampled_run(
        b"query,sample,doc,score\nq,s,a,1\nq,s,a,2\nq,t,a,1\n",
        "r.csv",
        options,
    )
    .unwrap();
    assert_eq!(run.run().duplicates_dropped(), 1);
    assert_eq!(
        lists(&run),
        vec![("q".to_owned(), vec![docs(&["a"]), docs(&["a"])])]
    );
}

/// `/dev/zero` is refused naming it; a FIFO of a table, text or Parquet,
/// is read whole through the shared limits, as the file would be.
#[cfg(unix)]
#[test]
fn dev_zero_is_refused_and_a_fifo_is_read() {
    let zero = read_sampled_run(Path::new("/dev/zero"), ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(zero.starts_with("/dev/zero"), "{zero}");
    assert!(zero.len() < 300, "{zero}");
    let dir = tempfile::tempdir().unwrap();
    let expected = read_three_ways(dir.path(), "lines.trec", run_lines().as_bytes());
    for (name, bytes) in [
        ("fifo.csv", delimited(',', By::Score).into_bytes()),
        ("fifo.parquet", parquet_of(&rows_batch(By::Score, false))),
        ("fifo.arrow", arrow_ipc(&rows_batch(By::Score, false))),
    ] {
        let path = dir.path().join(name);
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || std::fs::write(path, bytes).unwrap())
        };
        let run = read_sampled_run(&path, ReadOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        writer.join().unwrap();
        assert_eq!(full(&run), expected, "{name}");
    }
}
