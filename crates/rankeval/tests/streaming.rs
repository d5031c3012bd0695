//! Evaluating a run while reading it gives the same bits as reading it
//! whole and evaluating: grouped runs with queries spanning many parse
//! pieces, ungrouped runs (read whole instead), duplicates under both
//! policies with exact line numbers, missing and run-only queries, CSV,
//! Parquet (row groups as pieces; lists).

use rankeval::{
    Duplicates, Evaluation, Format, Input, Missing, Options, Qrels, ReadOptions, evaluate,
    evaluate_grouped, evaluate_input, parse_metric, read_qrels, read_run,
};

const METRICS: &[&str] = &[
    "map",
    "ap(norm=truncated)@10",
    "p@10",
    "rr",
    "ndcg@10",
    "bpref",
    "num_ret",
];

/// A xorshift generator, so that inputs are the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Qrels for queries 0..queries, and a grouped TREC run: `docs(q)` documents
/// for query q, scores on a coarse grid (ties), in file order by score.
fn generate(queries: u64, docs: impl Fn(u64) -> u64) -> (String, String) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut qrels = String::new();
    let mut run = String::new();
    for q in 0..queries {
        let n = docs(q);
        for d in 0..n.min(200) {
            if rng.next(4) == 0 {
                qrels.push_str(&format!("q{q} 0 doc{} {}\n", d * 3, rng.next(4) as i64 - 1));
            }
        }
        let mut score = 100.0;
        for d in 0..n {
            if rng.next(5) != 0 {
                score -= rng.next(3) as f64 * 0.25;
            }
            run.push_str(&format!(
                "q{q} Q0 doc{} {d} {score} t\n",
                d * 3 + rng.next(3)
            ));
        }
    }
    (qrels, run)
}

fn metrics() -> Vec<Box<dyn rankeval::Metric>> {
    METRICS.iter().map(|m| parse_metric(m).unwrap()).collect()
}

fn qrels_of(text: &str) -> Qrels {
    read_qrels(&Input::bytes("qrels.txt", text, Format::Trec)).unwrap()
}

fn whole(
    qrels: &Qrels,
    input: &Input,
    read: ReadOptions,
    options: &Options,
) -> Result<Evaluation, String> {
    let run = read_run(input, read).map_err(|e| e.to_string())?;
    Ok(evaluate(qrels, &run, &metrics(), options))
}

fn streamed(
    qrels: &Qrels,
    input: &Input,
    read: ReadOptions,
    options: &Options,
) -> Result<Evaluation, String> {
    evaluate_input(qrels, input, read, &metrics(), options, &|_| {}).map_err(|e| e.to_string())
}

/// Everything an evaluation holds, values as bits.
fn bits(e: &Evaluation) -> (Vec<String>, Vec<Vec<u64>>, rankeval::Coverage) {
    let values = (0..e.metrics().len())
        .map(|m| e.column(m).into_iter().map(f64::to_bits).collect())
        .collect();
    (e.queries().to_vec(), values, e.coverage().clone())
}

/// Whether the run in `input` is evaluated while read (not read whole).
fn streams(qrels: &Qrels, input: &Input, read: ReadOptions, options: &Options) -> bool {
    evaluate_grouped(qrels, input, read, &metrics(), options, &|_| {})
        .unwrap()
        .is_some()
}

fn same(qrels_text: &str, run_text: &str, read: ReadOptions, options: Options) {
    let qrels = qrels_of(qrels_text);
    let input = Input::bytes("run.trec", run_text, Format::Trec);
    let expected = whole(&qrels, &input, read, &options).unwrap();
    let got = streamed(&qrels, &input, read, &options).unwrap();
    assert_eq!(bits(&got), bits(&expected));
}

fn same_and_streamed(qrels_text: &str, run_text: &str, read: ReadOptions, options: Options) {
    same(qrels_text, run_text, read, options);
    let input = Input::bytes("run.trec", run_text, Format::Trec);
    assert!(
        streams(&qrels_of(qrels_text), &input, read, &options),
        "a grouped run must stream"
    );
}

#[test]
fn grouped_runs_with_queries_across_pieces_give_the_same_bits() {
    // Some lists much longer than a parse piece (1 MiB), most short.
    let (qrels, run) = generate(600, |q| if q % 97 == 5 { 40_000 } else { 20 + q % 150 });
    assert!(run.len() > 8 << 20, "the run must span many pieces");
    same_and_streamed(&qrels, &run, ReadOptions::default(), Options::default());
}

#[test]
fn missing_and_run_only_queries_are_counted_the_same() {
    let (mut qrels, run) = generate(300, |q| 10 + q % 40);
    qrels.push_str("judged_only 0 x 1\n");
    let run = run.replace("q7 ", "unjudged7 ");
    for missing in [Missing::Skip, Missing::Zero] {
        let options = Options {
            missing,
            ..Options::default()
        };
        same_and_streamed(&qrels, &run, ReadOptions::default(), options);
    }
}

#[test]
fn ungrouped_runs_are_read_whole_with_the_same_result() {
    let (qrels, run) = generate(400, |q| 10 + q % 60);
    // Interleave two halves: queries come back after others.
    let lines: Vec<&str> = run.lines().collect();
    let (a, b) = lines.split_at(lines.len() / 2);
    let interleaved: String = a
        .iter()
        .zip(b)
        .flat_map(|(x, y)| [*x, *y])
        .map(|l| format!("{l}\n"))
        .collect();
    same(
        &qrels,
        &interleaved,
        ReadOptions::default(),
        Options::default(),
    );
    let input = Input::bytes("run.trec", interleaved.as_str(), Format::Trec);
    let options = Options::default();
    assert!(!streams(
        &qrels_of(&qrels),
        &input,
        ReadOptions::default(),
        &options
    ));
}

#[test]
fn duplicates_are_refused_with_exact_lines_or_the_first_kept() {
    let (qrels, run) = generate(500, |q| if q == 250 { 60_000 } else { 30 });
    let lines: Vec<String> = run.lines().map(str::to_owned).collect();
    // A repeat inside a short query, and one across piece boundaries inside
    // the long query (its first and last lines).
    let short_first = lines.iter().position(|l| l.starts_with("q3 ")).unwrap();
    let long_first = lines.iter().position(|l| l.starts_with("q250 ")).unwrap();
    let long_last = lines.iter().rposition(|l| l.starts_with("q250 ")).unwrap();
    for (first, second) in [(short_first, short_first + 5), (long_first, long_last)] {
        let mut edited = lines.clone();
        let doc = edited[first].split(' ').nth(2).unwrap().to_owned();
        let fields: Vec<String> = edited[second].split(' ').map(str::to_owned).collect();
        edited[second] = format!("{} Q0 {doc} {} {} t", fields[0], fields[3], fields[4]);
        // Keep the repeated document unique otherwise.
        let text: String = edited.iter().map(|l| format!("{l}\n")).collect();
        let qrels_parsed = qrels_of(&qrels);
        let input = Input::bytes("run.trec", text.as_str(), Format::Trec);
        let error = streamed(
            &qrels_parsed,
            &input,
            ReadOptions::default(),
            &Options::default(),
        )
        .unwrap_err();
        let whole_error = whole(
            &qrels_parsed,
            &input,
            ReadOptions::default(),
            &Options::default(),
        )
        .unwrap_err();
        assert_eq!(error, whole_error);
        let expected_start = format!("run.trec:{}: document `{doc}` appears twice", second + 1);
        assert!(error.starts_with(&expected_start), "{error}");
        assert!(
            error.contains(&format!("(first on line {})", first + 1)),
            "{error}"
        );
        let first_kept = ReadOptions {
            duplicates: Duplicates::First,
            ..ReadOptions::default()
        };
        same_and_streamed(&qrels, &text, first_kept, Options::default());
        let kept = streamed(&qrels_parsed, &input, first_kept, &Options::default()).unwrap();
        assert_eq!(kept.coverage().duplicates_dropped, 1);
        assert!(
            kept.warnings()
                .contains(&rankeval::Warning::DuplicatesDropped { count: 1 })
        );
    }
}

#[test]
fn repeats_left_out_are_counted_in_every_query_on_both_paths() {
    // q1 is judged, q9 only in the run: each repeats a document twice.
    let qrels = "q1 0 a 1\nq1 0 b 0\n";
    let run = "q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 a 3 1 t\nq1 Q0 a 4 0.5 t\n\
               q9 Q0 x 1 2 t\nq9 Q0 x 2 1 t\nq9 Q0 x 3 0 t\n";
    let first_kept = ReadOptions {
        duplicates: Duplicates::First,
        ..ReadOptions::default()
    };
    same(qrels, run, first_kept, Options::default());
    let evaluation = streamed(
        &qrels_of(qrels),
        &Input::bytes("run.trec", run, Format::Trec),
        first_kept,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(evaluation.coverage().duplicates_dropped, 4);
    let warning = rankeval::Warning::DuplicatesDropped { count: 4 };
    assert!(evaluation.warnings().contains(&warning));
    assert_eq!(
        warning.to_string(),
        "4 entries of the run repeated a document already in their query's list and were left out (duplicates = first keeps the best-ranked occurrence)"
    );
}

#[test]
fn csv_runs_stream_like_trec() {
    let (qrels, run) = generate(300, |q| if q == 10 { 50_000 } else { 25 });
    let csv: String = std::iter::once("user,item,score\n".to_owned())
        .chain(run.lines().map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            format!("{},{},{}\n", f[0], f[2], f[4])
        }))
        .collect();
    let qrels = qrels_of(&qrels);
    let trec = Input::bytes("run.trec", run.as_str(), Format::Trec);
    let csv = Input::bytes("run.csv", csv.as_str(), Format::Csv);
    let options = Options::default();
    let expected = whole(&qrels, &trec, ReadOptions::default(), &options).unwrap();
    let got = streamed(&qrels, &csv, ReadOptions::default(), &options).unwrap();
    assert_eq!(bits(&got), bits(&expected));
    assert!(streams(&qrels, &csv, ReadOptions::default(), &options));
}

/// A TREC run's lines (`query Q0 doc rank score tag`) in this order as one
/// Arrow record batch, `user, item, score`.
fn trec_batch(lines: &[&str]) -> arrow_array::RecordBatch {
    use std::sync::Arc;
    let field =
        |i: usize| -> Vec<&str> { lines.iter().map(|l| l.split(' ').nth(i).unwrap()).collect() };
    let scores: Vec<f64> = field(4).iter().map(|s| s.parse().unwrap()).collect();
    arrow_array::RecordBatch::try_from_iter([
        (
            "user",
            Arc::new(arrow_array::StringArray::from(field(0))) as arrow_array::ArrayRef,
        ),
        (
            "item",
            Arc::new(arrow_array::StringArray::from(field(2))) as _,
        ),
        (
            "score",
            Arc::new(arrow_array::Float64Array::from(scores)) as _,
        ),
    ])
    .unwrap()
}

/// A TREC run's lines (`query Q0 doc rank score tag`) in this order as a
/// long Parquet table `user, item, score` in a temporary file, with
/// `rows_per_group` rows per row group.
fn parquet_run(lines: &[&str], rows_per_group: usize) -> (tempfile::TempDir, Input) {
    let batch = trec_batch(lines);
    let properties = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(rows_per_group))
        .build();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.parquet");
    let file = std::fs::File::create(&path).unwrap();
    let mut writer =
        parquet::arrow::ArrowWriter::try_new(file, batch.schema(), Some(properties)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    (dir, Input::file(&path))
}

#[test]
fn parquet_runs_stream_by_row_group_with_the_same_bits() {
    // A query far longer than a row group, many shorter than one, and
    // queries across row-group boundaries.
    let (qrels_text, run) = generate(400, |q| if q == 100 { 5_000 } else { 23 });
    let qrels = qrels_of(&qrels_text);
    let lines: Vec<&str> = run.lines().collect();
    let options = Options::default();
    let trec = Input::bytes("run.trec", run.as_str(), Format::Trec);
    let reference = whole(&qrels, &trec, ReadOptions::default(), &options).unwrap();
    for rows_per_group in [97, 1_000, 100_000] {
        let (_dir, input) = parquet_run(&lines, rows_per_group);
        assert!(streams(&qrels, &input, ReadOptions::default(), &options));
        let got = streamed(&qrels, &input, ReadOptions::default(), &options).unwrap();
        assert_eq!(
            bits(&got),
            bits(&reference),
            "{rows_per_group} rows a group"
        );
        let single = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| streamed(&qrels, &input, ReadOptions::default(), &options).unwrap());
        assert_eq!(bits(&single), bits(&reference));
    }
    // Not grouped by query (a query's rows in two places): read whole.
    let mut ungrouped = lines.clone();
    let moved = ungrouped.remove(3);
    ungrouped.push(moved);
    let (_dir, input) = parquet_run(&ungrouped, 500);
    assert!(!streams(&qrels, &input, ReadOptions::default(), &options));
    let got = streamed(&qrels, &input, ReadOptions::default(), &options).unwrap();
    assert_eq!(bits(&got), bits(&reference));
}

#[test]
fn parquet_duplicates_are_the_same_error_streamed_or_whole() {
    let (qrels_text, run) = generate(50, |_| 30);
    let qrels = qrels_of(&qrels_text);
    let mut lines: Vec<String> = run.lines().map(str::to_owned).collect();
    // Row 40 (query q1, rows 31-60) repeats the document of row 35: with
    // 37 rows a group, q1 spans two groups and is finished after reading;
    // with 100, it is complete inside the first one and scored there.
    let doc = lines[34].split(' ').nth(2).unwrap().to_owned();
    let f: Vec<String> = lines[39].split(' ').map(str::to_owned).collect();
    lines[39] = format!("{} Q0 {doc} {} {} t", f[0], f[3], f[4]);
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    for rows_per_group in [37, 100] {
        let (_dir, input) = parquet_run(&lines, rows_per_group);
        let options = Options::default();
        let error = streamed(&qrels, &input, ReadOptions::default(), &options).unwrap_err();
        let whole_error = whole(&qrels, &input, ReadOptions::default(), &options).unwrap_err();
        assert_eq!(error, whole_error);
        assert!(error.contains("row 40"), "{error}");
        assert!(error.contains("first on row 35"), "{error}");
        let first_kept = ReadOptions {
            duplicates: Duplicates::First,
            ..ReadOptions::default()
        };
        let kept = streamed(&qrels, &input, first_kept, &options).unwrap();
        let kept_whole = whole(&qrels, &input, first_kept, &options).unwrap();
        assert_eq!(bits(&kept), bits(&kept_whole));
        assert_eq!(kept.coverage().duplicates_dropped, 1);
    }
}

#[test]
fn parquet_lists_stream_unless_a_list_is_empty_or_unscored() {
    use arrow_array::builder::{Float64Builder, ListBuilder, StringBuilder};
    use std::sync::Arc;
    let qrels = qrels_of("u1 0 a 1\nu2 0 z 1\nu3 0 c 2\n");
    let write = |lists: &[(&str, &[(&str, f64)])], scored: bool| {
        let mut users = StringBuilder::new();
        let mut items = ListBuilder::new(StringBuilder::new());
        let mut scores = ListBuilder::new(Float64Builder::new());
        for (user, list) in lists {
            users.append_value(user);
            for (item, score) in *list {
                items.values().append_value(item);
                scores.values().append_value(*score);
            }
            items.append(true);
            scores.append(true);
        }
        let mut columns: Vec<(&str, arrow_array::ArrayRef)> = vec![
            ("user", Arc::new(users.finish())),
            ("items", Arc::new(items.finish())),
        ];
        if scored {
            columns.push(("scores", Arc::new(scores.finish())));
        }
        let batch = arrow_array::RecordBatch::try_from_iter(columns).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lists.parquet");
        let file = std::fs::File::create(&path).unwrap();
        let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        (dir, Input::file(&path))
    };
    let options = Options::default();
    let read = ReadOptions::default();
    let full: &[(&str, &[(&str, f64)])] = &[
        ("u1", &[("b", 0.5), ("a", 0.9)]),
        ("u2", &[("z", 0.1)]),
        ("u3", &[("c", 0.3), ("d", 0.3)]),
    ];
    let with_empty: &[(&str, &[(&str, f64)])] = &[
        ("u1", &[("b", 0.5), ("a", 0.9)]),
        ("u2", &[]),
        ("u3", &[("c", 0.3)]),
    ];
    for (lists, scored, streamed_expected) in [
        (full, true, true),
        (with_empty, true, false),
        (full, false, false),
    ] {
        let (_dir, input) = write(lists, scored);
        assert_eq!(streams(&qrels, &input, read, &options), streamed_expected);
        let got = streamed(&qrels, &input, read, &options).unwrap();
        let expected = whole(&qrels, &input, read, &options).unwrap();
        assert_eq!(bits(&got), bits(&expected));
    }
    // The empty list counts: u2 was run and scored 0, not left out.
    let (_dir, input) = write(with_empty, true);
    let got = streamed(&qrels, &input, read, &options).unwrap();
    assert_eq!(got.queries(), ["u1", "u2", "u3"]);
}

/// The run in `lines` (TREC) as one Arrow record batch, `user, item,
/// score`, cut into zero-copy slices of `rows` rows, as the Python package
/// hands a table over.
fn arrow_batches(lines: &[&str], rows: usize) -> Vec<arrow_array::RecordBatch> {
    let batch = trec_batch(lines);
    (0..batch.num_rows())
        .step_by(rows)
        .map(|start| batch.slice(start, rows.min(batch.num_rows() - start)))
        .collect()
}

fn batches_streamed(
    qrels: &Qrels,
    batches: &[arrow_array::RecordBatch],
    read: ReadOptions,
) -> Result<Evaluation, String> {
    let columns = rankeval::CsvOptions::default();
    rankeval::evaluate_batches(
        qrels,
        "run table",
        batches,
        &columns,
        read,
        &metrics(),
        &Options::default(),
    )
    .map_err(|e| e.to_string())
}

fn batches_whole(
    qrels: &Qrels,
    batches: &[arrow_array::RecordBatch],
    read: ReadOptions,
) -> Result<Evaluation, String> {
    let columns = rankeval::CsvOptions::default();
    let run = rankeval::run_from_batches("run table", batches, &columns, read)
        .map_err(|e| e.to_string())?;
    Ok(evaluate(qrels, &run, &metrics(), &Options::default()))
}

fn batches_stream(qrels: &Qrels, batches: &[arrow_array::RecordBatch], read: ReadOptions) -> bool {
    let columns = rankeval::CsvOptions::default();
    rankeval::evaluate_grouped_batches(
        qrels,
        "run table",
        batches,
        &columns,
        read,
        &metrics(),
        &Options::default(),
    )
    .unwrap()
    .is_some()
}

#[test]
fn arrow_tables_stream_by_batch_with_the_same_bits() {
    // A query far longer than a batch, many shorter than one, queries
    // across batch boundaries, a query only in the run.
    let (qrels_text, run) = generate(400, |q| if q == 100 { 5_000 } else { 23 });
    let run = run.replace("q7 ", "unjudged7 ");
    let qrels = qrels_of(&qrels_text);
    let lines: Vec<&str> = run.lines().collect();
    let trec = Input::bytes("run.trec", run.as_str(), Format::Trec);
    let reference = whole(&qrels, &trec, ReadOptions::default(), &Options::default()).unwrap();
    let read = ReadOptions::default();
    for rows in [1, 97, 1_000, 100_000] {
        let batches = arrow_batches(&lines, rows);
        assert!(
            batches_stream(&qrels, &batches, read),
            "{rows} rows a batch"
        );
        let got = batches_streamed(&qrels, &batches, read).unwrap();
        assert_eq!(bits(&got), bits(&reference), "{rows} rows a batch");
        let single = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| batches_streamed(&qrels, &batches, read).unwrap());
        assert_eq!(bits(&single), bits(&reference));
    }
    // Not grouped by query (a query's rows in two places): read whole.
    let mut ungrouped = lines.clone();
    let moved = ungrouped.remove(3);
    ungrouped.push(moved);
    let batches = arrow_batches(&ungrouped, 500);
    assert!(!batches_stream(&qrels, &batches, read));
    let got = batches_streamed(&qrels, &batches, read).unwrap();
    assert_eq!(bits(&got), bits(&reference));
}

#[test]
fn arrow_duplicates_are_the_same_error_streamed_or_whole() {
    let (qrels_text, run) = generate(50, |_| 30);
    let qrels = qrels_of(&qrels_text);
    let mut lines: Vec<String> = run.lines().map(str::to_owned).collect();
    // Row 40 (query q1, rows 31-60) repeats the document of row 35, with a
    // higher score: kept in its place with `duplicates = first`.
    let doc = lines[34].split(' ').nth(2).unwrap().to_owned();
    let f: Vec<String> = lines[39].split(' ').map(str::to_owned).collect();
    lines[39] = format!("{} Q0 {doc} {} 1000 t", f[0], f[3]);
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    // q1 across two batches (finished after reading), or inside one.
    for rows in [37, 100] {
        let batches = arrow_batches(&lines, rows);
        let read = ReadOptions::default();
        let error = batches_streamed(&qrels, &batches, read).unwrap_err();
        assert_eq!(error, batches_whole(&qrels, &batches, read).unwrap_err());
        assert!(error.contains("row 40"), "{error}");
        assert!(error.contains("first on row 35"), "{error}");
        let first_kept = ReadOptions {
            duplicates: Duplicates::First,
            ..ReadOptions::default()
        };
        assert!(batches_stream(&qrels, &batches, first_kept));
        let kept = batches_streamed(&qrels, &batches, first_kept).unwrap();
        let kept_whole = batches_whole(&qrels, &batches, first_kept).unwrap();
        assert_eq!(bits(&kept), bits(&kept_whole));
        assert_eq!(kept.coverage().duplicates_dropped, 1);
    }
}
