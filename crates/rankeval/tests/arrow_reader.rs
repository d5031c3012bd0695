//! Parquet and Arrow IPC inputs: long tables and list columns, every id
//! type, row groups read in parallel, errors naming file, row and column;
//! and the same data as TREC, CSV, JSON Lines, Parquet and Arrow IPC giving
//! the same per-query values, bit for bit. The files are written here with
//! the arrow crates.

use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, UInt8Type};
use arrow_array::{
    ArrayRef, DictionaryArray, Float32Array, Float64Array, Int8Array, Int16Array, Int32Array,
    Int64Array, LargeStringArray, ListArray, RecordBatch, StringArray, StringViewArray, UInt8Array,
    UInt16Array, UInt32Array, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use rankeval::{
    CsvOptions, Evaluation, Format, Input, Options, Qrels, ReadOptions, Run, evaluate,
    evaluate_batches, parse_metric, qrels_from_batches, read_qrels, read_run, run_from_batches,
};

/// A batch of these columns, each nullable (so that a later batch with a
/// null can be written to the same file).
fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter_with_nullable(columns.into_iter().map(|(n, c)| (n, c, true)))
        .unwrap()
}

fn strings(values: &[&str]) -> ArrayRef {
    Arc::new(StringArray::from(values.to_vec()))
}

/// `batches` as a Parquet file in memory, `rows_per_group` rows per row
/// group, snappy-compressed.
fn parquet(batches: &[RecordBatch], rows_per_group: usize) -> Vec<u8> {
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(rows_per_group))
        .set_compression(parquet::basic::Compression::SNAPPY)
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batches[0].schema(), Some(properties)).unwrap();
    for b in batches {
        writer.write(b).unwrap();
    }
    writer.close().unwrap();
    out
}

/// `batches` as an Arrow IPC file (Feather v2).
fn ipc_file(batches: &[RecordBatch]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer =
        arrow_ipc::writer::FileWriter::try_new(&mut out, &batches[0].schema()).unwrap();
    for b in batches {
        writer.write(b).unwrap();
    }
    writer.finish().unwrap();
    drop(writer);
    out
}

/// `batches` as an Arrow IPC stream.
fn ipc_stream(batches: &[RecordBatch]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer =
        arrow_ipc::writer::StreamWriter::try_new(&mut out, &batches[0].schema()).unwrap();
    for b in batches {
        writer.write(b).unwrap();
    }
    writer.finish().unwrap();
    drop(writer);
    out
}

fn run_of(input: &Input) -> Result<Run, String> {
    read_run(input, ReadOptions::default()).map_err(|e| e.to_string())
}

fn qrels_of(input: &Input) -> Result<Qrels, String> {
    read_qrels(input).map_err(|e| e.to_string())
}

fn docs(run: &Run, query: &str) -> Vec<String> {
    run.list(query)
        .unwrap_or_else(|| panic!("no list for {query}"))
        .docs()
        .map(|d| String::from_utf8_lossy(d).into_owned())
        .collect()
}

fn metrics() -> Vec<Box<dyn rankeval::core::Metric>> {
    ["map", "ndcg@10", "p@10", "recall@100", "rr"]
        .into_iter()
        .map(|m| parse_metric(m).unwrap())
        .collect()
}

fn values(qrels: &Qrels, run: &Run) -> Vec<(String, Vec<u64>)> {
    bits(&evaluate(qrels, run, &metrics(), &Options::default()))
}

/// Each query's values, as bits.
fn bits(evaluation: &Evaluation) -> Vec<(String, Vec<u64>)> {
    let metrics = evaluation.metrics().len();
    evaluation
        .queries()
        .iter()
        .enumerate()
        .map(|(q, id)| {
            let row = (0..metrics)
                .map(|m| evaluation.value(q, m).to_bits())
                .collect();
            (id.clone(), row)
        })
        .collect()
}

/// One data set in every layout: judgements (query, doc, grade) and a run
/// (query, doc, score) with many tied scores.
struct Data {
    judged: Vec<(String, String, i64)>,
    scored: Vec<(String, String, f64)>,
}

fn data() -> Data {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut data = Data {
        judged: Vec::new(),
        scored: Vec::new(),
    };
    for q in 0..300 {
        for d in 0..30 {
            if next() % 3 == 0 {
                data.judged
                    .push((format!("u{q}"), format!("i{d}"), (next() % 4) as i64));
            }
        }
        for d in 0..50 {
            let score = (next() % 20) as f64 / 4.0 - 1.3;
            data.scored.push((format!("u{q}"), format!("i{d}"), score));
        }
    }
    data
}

impl Data {
    fn trec(&self) -> (String, String) {
        let qrels = self
            .judged
            .iter()
            .map(|(q, d, g)| format!("{q} 0 {d} {g}\n"))
            .collect();
        let run = self
            .scored
            .iter()
            .enumerate()
            .map(|(i, (q, d, s))| format!("{q} Q0 {d} {i} {s} t\n"))
            .collect();
        (qrels, run)
    }

    fn csv(&self) -> (String, String) {
        let mut qrels = String::from("user,item,grade\n");
        for (q, d, g) in &self.judged {
            qrels.push_str(&format!("{q},{d},{g}\n"));
        }
        let mut run = String::from("user,item,score\n");
        for (q, d, s) in &self.scored {
            run.push_str(&format!("{q},{d},{s}\n"));
        }
        (qrels, run)
    }

    /// One JSON line per query with `predicted`, `scores` and `relevant`.
    fn jsonl(&self) -> String {
        let mut out = String::new();
        let queries: Vec<&String> = {
            let mut seen = Vec::new();
            for (q, _, _) in &self.scored {
                if seen.last() != Some(&q) {
                    seen.push(q);
                }
            }
            seen
        };
        for q in queries {
            let predicted: Vec<&str> = self
                .scored
                .iter()
                .filter(|r| &r.0 == q)
                .map(|r| r.1.as_str())
                .collect();
            let scores: Vec<f64> = self
                .scored
                .iter()
                .filter(|r| &r.0 == q)
                .map(|r| r.2)
                .collect();
            let relevant: serde_json::Map<String, serde_json::Value> = self
                .judged
                .iter()
                .filter(|r| &r.0 == q)
                .map(|r| (r.1.clone(), r.2.into()))
                .collect();
            let mut line =
                serde_json::json!({"query": q, "predicted": predicted, "scores": scores});
            if !relevant.is_empty() {
                line["relevant"] = relevant.into();
            }
            out.push_str(&line.to_string());
            out.push('\n');
        }
        out
    }

    /// JSON Lines with one row per line: (qrels, run).
    fn json_rows(&self) -> (String, String) {
        let qrels = self
            .judged
            .iter()
            .map(|(q, d, g)| {
                serde_json::json!({"user": q, "item": d, "grade": g}).to_string() + "\n"
            })
            .collect();
        let run = self
            .scored
            .iter()
            .map(|(q, d, s)| {
                serde_json::json!({"user": q, "item": d, "score": s}).to_string() + "\n"
            })
            .collect();
        (qrels, run)
    }

    /// Dicts of dicts, as ranx saves them: (qrels, run).
    fn dicts(&self) -> (String, String) {
        let mut qrels = serde_json::Map::new();
        for (q, d, g) in &self.judged {
            let entry = qrels
                .entry(q.clone())
                .or_insert_with(|| serde_json::json!({}));
            entry[d] = (*g).into();
        }
        let mut run = serde_json::Map::new();
        for (q, d, s) in &self.scored {
            let entry = run
                .entry(q.clone())
                .or_insert_with(|| serde_json::json!({}));
            entry[d] = (*s).into();
        }
        (
            serde_json::Value::Object(qrels).to_string(),
            serde_json::Value::Object(run).to_string(),
        )
    }

    /// Long tables, split into batches of `rows` rows.
    fn long(&self, rows: usize) -> (Vec<RecordBatch>, Vec<RecordBatch>) {
        let qrels = self
            .judged
            .chunks(rows)
            .map(|chunk| {
                batch(vec![
                    (
                        "user",
                        strings(&chunk.iter().map(|r| r.0.as_str()).collect::<Vec<_>>()),
                    ),
                    (
                        "item",
                        strings(&chunk.iter().map(|r| r.1.as_str()).collect::<Vec<_>>()),
                    ),
                    (
                        "grade",
                        Arc::new(Int64Array::from_iter_values(chunk.iter().map(|r| r.2))),
                    ),
                ])
            })
            .collect();
        let run = self
            .scored
            .chunks(rows)
            .map(|chunk| {
                batch(vec![
                    (
                        "user",
                        strings(&chunk.iter().map(|r| r.0.as_str()).collect::<Vec<_>>()),
                    ),
                    (
                        "item",
                        strings(&chunk.iter().map(|r| r.1.as_str()).collect::<Vec<_>>()),
                    ),
                    (
                        "score",
                        Arc::new(Float64Array::from_iter_values(chunk.iter().map(|r| r.2))),
                    ),
                ])
            })
            .collect();
        (qrels, run)
    }

    /// A run with list columns: `user, items: list<string>, scores:
    /// list<double>`, one row per query.
    fn lists(&self) -> RecordBatch {
        let mut users = Vec::new();
        let mut items = ListBuilder::new(StringBuilder::new());
        let mut scores: Vec<Option<Vec<Option<f64>>>> = Vec::new();
        let mut at = 0;
        while at < self.scored.len() {
            let q = &self.scored[at].0;
            let end = at + self.scored[at..].iter().take_while(|r| &r.0 == q).count();
            users.push(q.as_str());
            for r in &self.scored[at..end] {
                items.values().append_value(&r.1);
            }
            items.append(true);
            scores.push(Some(
                self.scored[at..end].iter().map(|r| Some(r.2)).collect(),
            ));
            at = end;
        }
        batch(vec![
            ("user", strings(&users)),
            ("items", Arc::new(items.finish())),
            (
                "scores",
                Arc::new(ListArray::from_iter_primitive::<
                    arrow_array::types::Float64Type,
                    _,
                    _,
                >(scores)),
            ),
        ])
    }
}

#[test]
fn every_format_gives_the_same_values_bit_for_bit() {
    let data = data();
    let (trec_qrels, trec_run) = data.trec();
    let qrels = read_qrels(&Input::bytes("qrels", trec_qrels, Format::Trec)).unwrap();
    let run = read_run(
        &Input::bytes("run", trec_run, Format::Trec),
        ReadOptions::default(),
    )
    .unwrap();
    let expected = values(&qrels, &run);
    assert_eq!(expected.len(), 300);

    let mut seen = Vec::new();
    let mut check = |what: &str, qrels: Qrels, run: Run| {
        assert_eq!(values(&qrels, &run), expected, "{what}");
        seen.push(what.to_owned());
    };

    let (csv_qrels, csv_run) = data.csv();
    check(
        "csv",
        qrels_of(&Input::bytes("q.csv", csv_qrels, Format::Csv)).unwrap(),
        run_of(&Input::bytes("r.csv", csv_run, Format::Csv)).unwrap(),
    );

    let jsonl = Input::bytes("both.jsonl", data.jsonl(), Format::Jsonl);
    check("jsonl", qrels_of(&jsonl).unwrap(), run_of(&jsonl).unwrap());

    let (rows_qrels, rows_run) = data.json_rows();
    check(
        "jsonl rows",
        qrels_of(&Input::bytes("q.jsonl", rows_qrels, Format::Jsonl)).unwrap(),
        run_of(&Input::bytes("r.jsonl", rows_run, Format::Jsonl)).unwrap(),
    );
    let (dict_qrels, dict_run) = data.dicts();
    check(
        "dict of dicts",
        qrels_of(&Input::bytes("q.json", dict_qrels, Format::Jsonl)).unwrap(),
        run_of(&Input::bytes("r.json", dict_run, Format::Jsonl)).unwrap(),
    );

    let (long_qrels, long_run) = data.long(1000);
    let pq = |b: &[RecordBatch], name: &str| Input::bytes(name, parquet(b, 700), Format::Parquet);
    check(
        "parquet long",
        qrels_of(&pq(&long_qrels, "q.parquet")).unwrap(),
        run_of(&pq(&long_run, "r.parquet")).unwrap(),
    );
    let lists = data.lists();
    check(
        "parquet lists",
        qrels_of(&pq(&long_qrels, "q.parquet")).unwrap(),
        run_of(&pq(std::slice::from_ref(&lists), "r.parquet")).unwrap(),
    );
    let arrow = |bytes: Vec<u8>| Input::bytes("x.arrow", bytes, Format::Arrow);
    check(
        "arrow file",
        qrels_of(&arrow(ipc_file(&long_qrels))).unwrap(),
        run_of(&arrow(ipc_file(&long_run))).unwrap(),
    );
    check(
        "arrow stream, lists",
        qrels_of(&arrow(ipc_stream(&long_qrels))).unwrap(),
        run_of(&arrow(ipc_stream(std::slice::from_ref(&lists)))).unwrap(),
    );
    let columns = CsvOptions::default();
    check(
        "record batches",
        qrels_from_batches("qrels", &long_qrels, &columns).unwrap(),
        run_from_batches("run", &long_run, &columns, ReadOptions::default()).unwrap(),
    );
    assert_eq!(seen.len(), 9);
}

/// `batch` with its string columns rebuilt by `layout` from their values.
fn restrung(batch: &RecordBatch, layout: &dyn Fn(Vec<&str>) -> ArrayRef) -> RecordBatch {
    let schema = batch.schema();
    let columns = schema.fields().iter().zip(batch.columns()).map(|(f, c)| {
        let c = match c.data_type() {
            DataType::Utf8 => layout(c.as_string::<i32>().iter().map(Option::unwrap).collect()),
            _ => c.clone(),
        };
        (f.name().as_str(), c, true)
    });
    RecordBatch::try_from_iter_with_nullable(columns).unwrap()
}

/// Builds an id column in one Arrow string layout.
type Layout = Box<dyn Fn(Vec<&str>) -> ArrayRef>;

#[test]
fn every_string_layout_gives_the_same_values_bit_for_bit() {
    // polars hands its strings over as views; pyarrow as `string` or
    // `large_string`; categoricals as dictionaries.
    let layouts: Vec<(&str, Layout)> = vec![
        (
            "large_utf8",
            Box::new(|ids| Arc::new(LargeStringArray::from(ids))),
        ),
        (
            "utf8_view",
            Box::new(|ids| Arc::new(StringViewArray::from(ids))),
        ),
        (
            "dictionary",
            Box::new(|ids| Arc::new(DictionaryArray::<Int32Type>::from_iter(ids))),
        ),
        (
            "dictionary of views",
            Box::new(|ids| {
                let mut distinct = ids.clone();
                distinct.sort_unstable();
                distinct.dedup();
                let keys = ids
                    .iter()
                    .map(|id| distinct.binary_search(id).unwrap() as i32);
                Arc::new(DictionaryArray::<Int32Type>::new(
                    Int32Array::from_iter_values(keys),
                    Arc::new(StringViewArray::from(distinct)),
                ))
            }),
        ),
    ];
    let short = data();
    // Ids of more than 12 bytes, which a view points at in its buffers.
    let long = Data {
        judged: (short.judged.iter())
            .map(|(q, d, g)| {
                (
                    format!("query-{q}-long-id"),
                    format!("document-{d}-long-id"),
                    *g,
                )
            })
            .collect(),
        scored: (short.scored.iter())
            .map(|(q, d, s)| {
                (
                    format!("query-{q}-long-id"),
                    format!("document-{d}-long-id"),
                    *s,
                )
            })
            .collect(),
    };
    let columns = CsvOptions::default();
    let read = ReadOptions::default();
    for (ids, data) in [("short ids", short), ("long ids", long)] {
        // Batches of 1000 rows, then slices of them at odd places, as the
        // Python package cuts a table's chunks.
        let (qrels, run) = data.long(1000);
        let sliced = |batches: &[RecordBatch]| -> Vec<RecordBatch> {
            (batches.iter())
                .flat_map(|b| {
                    let cut = b.num_rows().min(333);
                    [b.slice(0, cut), b.slice(cut, b.num_rows() - cut)]
                })
                .collect()
        };
        let (qrels, run) = (sliced(&qrels), sliced(&run));
        let judged = qrels_from_batches("qrels", &qrels, &columns).unwrap();
        let expected = values(
            &judged,
            &run_from_batches("run", &run, &columns, read).unwrap(),
        );
        assert_eq!(expected.len(), 300);
        for (layout, make) in &layouts {
            let what = format!("{layout}, {ids}");
            let qrels: Vec<RecordBatch> = qrels.iter().map(|b| restrung(b, make)).collect();
            let run: Vec<RecordBatch> = run.iter().map(|b| restrung(b, make)).collect();
            assert_ne!(run[0].column(0).data_type(), &DataType::Utf8, "{what}");
            let judged = qrels_from_batches("qrels", &qrels, &columns).unwrap();
            let whole = run_from_batches("run", &run, &columns, read).unwrap();
            assert_eq!(values(&judged, &whole), expected, "{what}, read whole");
            let streamed = evaluate_batches(
                &judged,
                "run",
                &run,
                &columns,
                read,
                &metrics(),
                &Options::default(),
            )
            .unwrap();
            assert_eq!(bits(&streamed), expected, "{what}, evaluated while read");
        }
    }
}

#[test]
fn files_are_found_by_extension_and_read_by_row_group() {
    let data = data();
    let (long_qrels, long_run) = data.long(512);
    let dir = tempfile::tempdir().unwrap();
    let run_path = dir.path().join("run.parquet");
    // Many small row groups: read in parallel, joined in order.
    std::fs::write(&run_path, parquet(&long_run, 97)).unwrap();
    let qrels_path = dir.path().join("qrels.feather");
    std::fs::write(&qrels_path, ipc_file(&long_qrels)).unwrap();
    assert_eq!(Input::file(&run_path).format(), Format::Parquet);
    assert_eq!(Input::file(&qrels_path).format(), Format::Arrow);
    let run = run_of(&Input::file(&run_path)).unwrap();
    let qrels = qrels_of(&Input::file(&qrels_path)).unwrap();
    let one_group = run_of(&Input::bytes(
        "r.parquet",
        parquet(&long_run, 1 << 20),
        Format::Parquet,
    ))
    .unwrap();
    assert_eq!(values(&qrels, &run), values(&qrels, &one_group));
    for q in ["u0", "u7", "u299"] {
        assert_eq!(docs(&run, q), docs(&one_group, q));
    }
    // One thread and several: the same bits.
    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| run_of(&Input::file(&run_path)).unwrap());
    assert_eq!(values(&qrels, &run), values(&qrels, &single));
}

#[test]
fn gzip_parquet_and_decimal_grades_are_read() {
    use std::io::Write;
    let b = batch(vec![
        ("user", strings(&["u1", "u1"])),
        ("item", strings(&["a", "b"])),
        ("grade", Arc::new(Float64Array::from(vec![3.5, 0.5]))),
    ]);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&parquet(&[b], 10)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("truth.parquet.gz");
    std::fs::write(&path, gz.finish().unwrap()).unwrap();
    let qrels = qrels_of(&Input::file(&path)).unwrap();
    assert_eq!(qrels.grade_of("u1", "a"), Some(3.5));
    assert_eq!(qrels.grade_of("u1", "b"), Some(0.5));
}

#[test]
fn list_columns_without_scores_are_ranked_and_empty_lists_count() {
    let mut items = ListBuilder::new(StringBuilder::new());
    for list in [&["c", "a", "b"][..], &[], &["z"]] {
        for item in list {
            items.values().append_value(item);
        }
        items.append(true);
    }
    let b = batch(vec![
        (
            "user",
            Arc::new(Int32Array::from(vec![1, 2, 3])) as ArrayRef,
        ),
        ("items", Arc::new(items.finish())),
    ]);
    let run = run_of(&Input::bytes(
        "r.parquet",
        parquet(&[b], 2),
        Format::Parquet,
    ))
    .unwrap();
    assert_eq!(docs(&run, "1"), ["c", "a", "b"]);
    assert_eq!(docs(&run, "2"), Vec::<String>::new());
    assert_eq!(docs(&run, "3"), ["z"]);

    // Qrels as lists: each listed item has grade 1.
    let mut items = ListBuilder::new(StringBuilder::new());
    items.values().append_value("a");
    items.values().append_value("b");
    items.append(true);
    let b = batch(vec![
        ("user", strings(&["u1"])),
        ("items", Arc::new(items.finish())),
    ]);
    let qrels = qrels_from_batches("truth", &[b], &CsvOptions::default()).unwrap();
    assert_eq!(qrels.grade_of("u1", "b"), Some(1.0));
    assert_eq!(qrels.num_judgements(), 2);
}

#[test]
fn a_rank_column_orders_like_csv_and_columns_can_be_renamed() {
    let b = batch(vec![
        (
            "user_id",
            Arc::new(Int64Array::from(vec![7, 7, 7])) as ArrayRef,
        ),
        ("item_id", strings(&["x", "y", "z"])),
        ("pos", Arc::new(UInt32Array::from(vec![3, 1, 2]))),
        ("rank", Arc::new(UInt32Array::from(vec![1, 2, 3]))),
    ]);
    let columns = CsvOptions {
        query: "user_id".into(),
        doc: "item_id".into(),
        rank: "pos".into(),
        ..CsvOptions::default()
    };
    let input = Input::bytes("r.arrow", ipc_file(&[b]), Format::Arrow).with_columns(columns);
    let run = run_of(&input).unwrap();
    assert_eq!(docs(&run, "7"), ["y", "z", "x"]);
    assert_eq!(run.list("7").unwrap().score(0), Some(-1.0));
}

#[test]
fn every_id_type_reads_as_its_text() {
    let signed = ["-3", "4"];
    let unsigned = ["3", "4"];
    let text = ["a", "b"];
    let ids: Vec<(&str, ArrayRef, [&str; 2])> = vec![
        ("int8", Arc::new(Int8Array::from(vec![-3, 4])), signed),
        ("int16", Arc::new(Int16Array::from(vec![-3, 4])), signed),
        ("int32", Arc::new(Int32Array::from(vec![-3, 4])), signed),
        ("int64", Arc::new(Int64Array::from(vec![-3, 4])), signed),
        ("uint8", Arc::new(UInt8Array::from(vec![3, 4])), unsigned),
        ("uint16", Arc::new(UInt16Array::from(vec![3, 4])), unsigned),
        ("uint32", Arc::new(UInt32Array::from(vec![3, 4])), unsigned),
        (
            "uint64",
            Arc::new(UInt64Array::from(vec![3, u64::MAX])),
            ["3", "18446744073709551615"],
        ),
        ("utf8", strings(&text), text),
        (
            "large_utf8",
            Arc::new(LargeStringArray::from(vec!["a", "b"])),
            text,
        ),
        (
            "utf8_view",
            Arc::new(StringViewArray::from(vec!["a", "b"])),
            text,
        ),
        (
            "dictionary",
            Arc::new(DictionaryArray::<Int32Type>::from_iter(["a", "b"])),
            text,
        ),
        (
            "dictionary of views",
            Arc::new(DictionaryArray::<UInt8Type>::new(
                UInt8Array::from(vec![1, 0]),
                Arc::new(StringViewArray::from(vec!["b", "a"])),
            )),
            text,
        ),
        (
            "dictionary of ints",
            Arc::new(DictionaryArray::<UInt8Type>::new(
                UInt8Array::from(vec![1, 0]),
                Arc::new(Int64Array::from(vec![4, -3])),
            )),
            signed,
        ),
    ];
    for (what, column, expected) in ids {
        // The same column as queries and as documents.
        let b = batch(vec![
            ("user", column.clone()),
            ("item", column.clone()),
            ("score", Arc::new(Float32Array::from(vec![0.5, 0.25]))),
        ]);
        let check = |run: Run, how: &str| {
            let mut queries: Vec<String> = run.queries().map(str::to_owned).collect();
            queries.sort();
            let mut want: Vec<String> = expected.iter().map(|s| (*s).to_owned()).collect();
            want.sort();
            assert_eq!(queries, want, "{what} {how}");
            for id in expected {
                assert_eq!(docs(&run, id), [id], "{what} {how}");
            }
        };
        let options = ReadOptions::default();
        let columns = CsvOptions::default();
        check(
            run_from_batches("run", std::slice::from_ref(&b), &columns, options)
                .unwrap_or_else(|e| panic!("{what}: {e}")),
            "batches",
        );
        // Through a Parquet file and an IPC stream too (their types may come
        // back as another string type or a dictionary).
        // (The parquet crate cannot write a dictionary of views.)
        if what != "dictionary of views" {
            let input = Input::bytes(
                "r.parquet",
                parquet(std::slice::from_ref(&b), 10),
                Format::Parquet,
            );
            check(
                run_of(&input).unwrap_or_else(|e| panic!("{what}: {e}")),
                "parquet",
            );
        }
        let input = Input::bytes("r.arrows", ipc_stream(&[b]), Format::Arrow);
        check(
            run_of(&input).unwrap_or_else(|e| panic!("{what}: {e}")),
            "arrow",
        );
    }
}

fn error_of(input: &Input) -> String {
    run_of(input).unwrap_err()
}

#[test]
fn errors_name_the_file_the_row_and_the_column() {
    let float = |v: Vec<f64>| Arc::new(Float64Array::from(v)) as ArrayRef;
    let mut messages = Vec::new();
    let mut case = |what: &str, message: String| messages.push(format!("{what}:\n  {message}"));

    // A null query in the second row group: the row counts from the start.
    let good = batch(vec![
        ("user", strings(&["u1", "u1"])),
        ("item", strings(&["a", "b"])),
        ("score", float(vec![1.0, 2.0])),
    ]);
    let null = batch(vec![
        (
            "user",
            Arc::new(StringArray::from(vec![Some("u2"), None])) as ArrayRef,
        ),
        ("item", strings(&["a", "b"])),
        ("score", float(vec![1.0, 2.0])),
    ]);
    case(
        "null query",
        error_of(&Input::bytes(
            "run.parquet",
            parquet(&[good.clone(), null], 2),
            Format::Parquet,
        )),
    );
    let b = batch(vec![
        ("user", strings(&["u1"])),
        ("item", strings(&["a b"])),
        ("score", float(vec![1.0])),
    ]);
    case(
        "space in an id",
        error_of(&Input::bytes("run.arrow", ipc_file(&[b]), Format::Arrow)),
    );
    let b = batch(vec![
        ("user", strings(&["u1", ""])),
        ("item", strings(&["a", "b"])),
        ("score", float(vec![1.0, 2.0])),
    ]);
    case(
        "empty id",
        error_of(&Input::bytes("run.arrow", ipc_file(&[b]), Format::Arrow)),
    );
    let b = batch(vec![
        ("user", strings(&["u1", "u1"])),
        ("item", strings(&["a", "b"])),
        ("score", float(vec![1.0, f64::NAN])),
    ]);
    case(
        "NaN score",
        error_of(&Input::bytes(
            "run.parquet",
            parquet(&[b], 5),
            Format::Parquet,
        )),
    );
    case(
        "missing column",
        error_of(&Input::bytes(
            "run.parquet",
            parquet(
                &[batch(vec![
                    ("who", strings(&["u1"])),
                    ("item", strings(&["a"])),
                ])],
                5,
            ),
            Format::Parquet,
        )),
    );
    case(
        "no order",
        error_of(&Input::bytes(
            "run.parquet",
            parquet(
                &[batch(vec![
                    ("user", strings(&["u1"])),
                    ("item", strings(&["a"])),
                ])],
                5,
            ),
            Format::Parquet,
        )),
    );
    let b = batch(vec![
        ("user", strings(&["u1"])),
        ("item", strings(&["a"])),
        ("score", strings(&["high"])),
    ]);
    case(
        "wrong type",
        error_of(&Input::bytes(
            "run.parquet",
            parquet(&[b], 5),
            Format::Parquet,
        )),
    );
    let b = batch(vec![
        ("user", strings(&["u1", "u1", "u1"])),
        ("item", strings(&["a", "b", "a"])),
        ("score", float(vec![1.0, 2.0, 3.0])),
    ]);
    case(
        "repeated document",
        error_of(&Input::bytes(
            "run.parquet",
            parquet(&[b], 2),
            Format::Parquet,
        )),
    );
    let mut items = ListBuilder::new(StringBuilder::new());
    items.values().append_value("a");
    items.values().append_value("b");
    items.append(true);
    let b = batch(vec![
        ("user", strings(&["u1"])),
        ("items", Arc::new(items.finish())),
        (
            "scores",
            Arc::new(ListArray::from_iter_primitive::<
                arrow_array::types::Float64Type,
                _,
                _,
            >(vec![Some(vec![Some(1.0)])])),
        ),
    ]);
    case(
        "list lengths",
        error_of(&Input::bytes(
            "run.parquet",
            parquet(&[b], 5),
            Format::Parquet,
        )),
    );
    let b = batch(vec![
        ("user", strings(&["u1", "u1"])),
        ("item", strings(&["a", "a"])),
        ("grade", float(vec![1.0, 3e9])),
    ]);
    case(
        "grade out of range",
        qrels_of(&Input::bytes(
            "truth.parquet",
            parquet(&[b], 5),
            Format::Parquet,
        ))
        .unwrap_err(),
    );
    let b = batch(vec![
        ("user", strings(&["u1", "u1"])),
        ("item", strings(&["a", "a"])),
        ("grade", float(vec![1.0, 2.0])),
    ]);
    case(
        "conflicting grades",
        qrels_of(&Input::bytes(
            "truth.parquet",
            parquet(&[b], 5),
            Format::Parquet,
        ))
        .unwrap_err(),
    );
    case(
        "not Parquet",
        error_of(&Input::bytes(
            "run.parquet",
            "u1 Q0 a 1 1 t\n",
            Format::Parquet,
        )),
    );
    case(
        "gzip",
        error_of(&Input::bytes(
            "run.parquet",
            vec![0x1f, 0x8b, 8, 0],
            Format::Parquet,
        )),
    );
    case(
        "not Arrow",
        error_of(&Input::bytes("run.arrow", "u1 Q0 a 1 1 t\n", Format::Arrow)),
    );
    case(
        "no rows",
        error_of(&Input::bytes(
            "run.parquet",
            parquet(&[good.slice(0, 0)], 5),
            Format::Parquet,
        )),
    );
    case(
        "no batches",
        run_from_batches("frame", &[], &CsvOptions::default(), ReadOptions::default())
            .unwrap_err()
            .to_string(),
    );
    insta::assert_snapshot!(messages.join("\n"));
}

#[test]
fn a_list_column_must_be_all_lists() {
    let schema = Schema::new(vec![
        Field::new("user", DataType::Utf8, false),
        Field::new_list("items", Field::new_list_field(DataType::Utf8, true), true),
        Field::new("score", DataType::Float64, false),
    ]);
    let mut items = ListBuilder::new(StringBuilder::new());
    items.values().append_value("a");
    items.append(true);
    let b = RecordBatch::try_new(
        Arc::new(schema),
        vec![
            strings(&["u1"]),
            Arc::new(items.finish()),
            Arc::new(Float64Array::from(vec![1.0])),
        ],
    )
    .unwrap();
    let error = run_from_batches(
        "frame",
        &[b],
        &CsvOptions::default(),
        ReadOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        error,
        "frame: column `score` is Float64; expected a list of numbers, as the document column is a list"
    );
}

/// A long table of qrels without a grade column comes with the note that
/// every listed pair counts as relevant (it becomes a warning), in Parquet
/// and Arrow alike; a table with grades, and a list column without grades
/// (binary relevance as written), come without.
#[test]
fn long_qrels_without_grades_are_noted_and_lists_are_not() {
    use rankeval::read::{QrelsNote, read_qrels_noted};
    let noted = |b: RecordBatch| {
        let parquet = Input::bytes(
            "t.parquet",
            parquet(std::slice::from_ref(&b), 2),
            Format::Parquet,
        );
        let arrow = Input::bytes("t.arrow", ipc_file(&[b]), Format::Arrow);
        let (_, from_parquet) = read_qrels_noted(&parquet, &|_| {}).unwrap();
        let (_, from_arrow) = read_qrels_noted(&arrow, &|_| {}).unwrap();
        assert_eq!(from_parquet, from_arrow);
        from_parquet
    };
    let long = batch(vec![
        ("user", strings(&["u1", "u1"])),
        ("item", strings(&["a", "b"])),
        ("rating", Arc::new(Int32Array::from(vec![0, 4])) as ArrayRef),
    ]);
    let Some(QrelsNote::NoGradeColumn { grade, columns }) = noted(long) else {
        panic!("no note for a long table without grades");
    };
    assert_eq!(
        (grade.as_str(), columns),
        ("grade", vec!["user".into(), "item".into(), "rating".into()])
    );
    let graded = batch(vec![
        ("user", strings(&["u1"])),
        ("item", strings(&["a"])),
        ("grade", Arc::new(Int32Array::from(vec![2])) as ArrayRef),
    ]);
    assert_eq!(noted(graded), None);
    let mut items = ListBuilder::new(StringBuilder::new());
    items.values().append_value("a");
    items.append(true);
    let lists = batch(vec![
        ("user", strings(&["u1"])),
        ("items", Arc::new(items.finish())),
    ]);
    assert_eq!(noted(lists), None);
}

/// A grade or score column that the user names and the table lacks is an
/// error naming it and the table's columns, in Parquet, Arrow IPC and
/// batches handed over in memory alike: not grade 1 for every row, nor
/// ranks in place of the scores asked for. Left at its default, an absent
/// grade column is grade 1 with a note (see above).
#[test]
fn a_named_column_the_table_lacks_is_an_error() {
    let qrels = batch(vec![
        ("user", strings(&["u1", "u1"])),
        ("item", strings(&["a", "b"])),
        (
            "relevance",
            Arc::new(Int32Array::from(vec![0, 4])) as ArrayRef,
        ),
    ]);
    let run = batch(vec![
        ("user", strings(&["u1", "u1"])),
        ("item", strings(&["a", "b"])),
        ("rank", Arc::new(Int32Array::from(vec![1, 2])) as ArrayRef),
    ]);
    let named = |key: &str, value: &str| {
        let mut columns = CsvOptions::default();
        columns.set(key, value).unwrap();
        columns
    };
    let labl = named("grade", "labl");
    let parquet_qrels = Input::bytes(
        "t.parquet",
        parquet(std::slice::from_ref(&qrels), 2),
        Format::Parquet,
    )
    .with_columns(labl.clone());
    let arrow_qrels = Input::bytes(
        "t.arrow",
        ipc_file(std::slice::from_ref(&qrels)),
        Format::Arrow,
    )
    .with_columns(labl.clone());
    let expected = "no column `labl` (columns: user Utf8, item Utf8, relevance Int32); set the column \
                    option `grade` to the name of the column that holds the grades";
    for input in [&parquet_qrels, &arrow_qrels] {
        let message = qrels_of(input).unwrap_err();
        assert!(message.contains(expected), "{message}");
    }
    let message = qrels_from_batches("frame", std::slice::from_ref(&qrels), &labl)
        .unwrap_err()
        .to_string();
    assert_eq!(message, format!("frame: {expected}"));
    // Named as it is, the column is read.
    let relevance = named("grade", "relevance");
    let read = qrels_from_batches("frame", std::slice::from_ref(&qrels), &relevance).unwrap();
    assert_eq!(read.num_judgements(), 2);

    // A named score column is not replaced by the ranks the user did not name...
    let message = run_from_batches(
        "frame",
        std::slice::from_ref(&run),
        &named("score", "prob"),
        ReadOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        message,
        "frame: no column `prob` (columns: user Utf8, item Utf8, rank Int32); set the column option \
         `score` to the name of the column that holds the scores"
    );
    // ... but naming both reads whichever is there, as before.
    let ranked = batch(vec![
        ("user", strings(&["u1", "u1"])),
        ("item", strings(&["a", "b"])),
        ("pos", Arc::new(Int32Array::from(vec![2, 1])) as ArrayRef),
    ]);
    let mut both = named("score", "prob");
    both.set("rank", "pos").unwrap();
    let read = run_from_batches(
        "frame",
        std::slice::from_ref(&ranked),
        &both,
        ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(docs(&read, "u1"), ["b", "a"]);
}

/// A long table of two models' rankings (a `model` column the reader does
/// not read) repeats each document in a query's list. The advice used to be
/// "keep the first occurrence", which merges the two models into one
/// number (0.333 where A scores 0 and B 0.5): it now names the unread
/// columns and says the table holds several runs, evaluated one by one.
#[test]
fn a_repeat_in_a_table_with_unread_columns_does_not_advise_merging_runs() {
    let float = |v: Vec<f64>| Arc::new(Float64Array::from(v)) as ArrayRef;
    let two_models = batch(vec![
        ("user", strings(&["u1", "u1", "u1", "u1"])),
        ("item", strings(&["a", "b", "b", "a"])),
        ("score", float(vec![2.0, 1.0, 2.0, 1.0])),
        ("model", strings(&["A", "A", "B", "B"])),
    ]);
    let message = error_of(&Input::bytes(
        "long.parquet",
        parquet(&[two_models], 10),
        Format::Parquet,
    ));
    assert!(message.contains("appears twice"), "{message}");
    assert!(
        message.contains("columns that are not read (`model`)"),
        "{message}"
    );
    assert!(message.contains("several runs"), "{message}");
    assert!(!message.contains("--duplicates first"), "{message}");
    // Without such a column the repeat is one list's: the old advice.
    let one_model = batch(vec![
        ("user", strings(&["u1", "u1"])),
        ("item", strings(&["a", "a"])),
        ("score", float(vec![2.0, 1.0])),
    ]);
    let message = error_of(&Input::bytes(
        "one.parquet",
        parquet(&[one_model], 10),
        Format::Parquet,
    ));
    assert!(message.contains("use --duplicates first"), "{message}");
}
