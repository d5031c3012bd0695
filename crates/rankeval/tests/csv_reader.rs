//! The CSV/TSV reader: runs by score or by rank, ground truth with or
//! without grades, configurable columns and delimiter, quoting, and for each
//! kind of bad input an error naming the file, the line and the problem.
//! A CSV run and ground truth evaluate exactly like the same data as TREC.

use std::io::Write;
use std::path::PathBuf;

use rankeval::{
    CsvOptions, Duplicates, Format, Input, Options, Qrels, ReadOptions, Run, evaluate,
    parse_metric, read_qrels, read_run,
};

fn csv(name: &str, text: impl Into<Vec<u8>>) -> Input {
    Input::bytes(name, text, Format::Csv)
}

fn run_of(input: &Input) -> Result<Run, String> {
    read_run(input, ReadOptions::default()).map_err(|e| e.to_string())
}

fn qrels_of(input: &Input) -> Result<Qrels, String> {
    read_qrels(input).map_err(|e| e.to_string())
}

fn run_error(text: &str) -> String {
    run_of(&csv("run.csv", text)).unwrap_err()
}

fn qrels_error(text: &str) -> String {
    qrels_of(&csv("truth.csv", text)).unwrap_err()
}

fn docs(run: &Run, query: &str) -> Vec<String> {
    run.list(query)
        .unwrap_or_else(|| panic!("no list for {query}"))
        .docs()
        .map(|d| String::from_utf8_lossy(d).into_owned())
        .collect()
}

/// A file under the test target's scratch directory.
fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("csv_reader");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

#[test]
fn a_score_column_orders_like_a_trec_run() {
    let text = "item,score,user,extra\nd10,1.5,q1,x\nd9,1.5,q1,y\na,2,q1,z\nb,0.5,q2,\n";
    let run = run_of(&csv("run.csv", text)).unwrap();
    // Score descending, ties by item id descending in byte order.
    assert_eq!(docs(&run, "q1"), ["a", "d9", "d10"]);
    assert_eq!(docs(&run, "q2"), ["b"]);
    assert_eq!(run.list("q1").unwrap().score(0), Some(2.0));
    assert_eq!(run.queries().collect::<Vec<_>>(), ["q1", "q2"]);
}

#[test]
fn a_rank_column_orders_by_rank_ascending_with_ties_like_scores() {
    let text = "user,item,rank\nu1,c,3\nu1,a,1\nu1,d9,2\nu1,d10,2\nu2,x,1\n";
    let run = run_of(&csv("run.csv", text)).unwrap();
    assert_eq!(docs(&run, "u1"), ["a", "d9", "d10", "c"]);
    // The rank is kept as the score -rank.
    assert_eq!(run.list("u1").unwrap().score(0), Some(-1.0));
    assert_eq!(run.list("u1").unwrap().score(3), Some(-3.0));
}

#[test]
fn a_score_column_wins_over_a_rank_column() {
    let text = "user,item,rank,score\nu1,a,1,0.1\nu1,b,2,0.9\n";
    let run = run_of(&csv("run.csv", text)).unwrap();
    assert_eq!(docs(&run, "u1"), ["b", "a"]);
}

#[test]
fn ground_truth_with_and_without_grades() {
    let graded = qrels_of(&csv(
        "truth.csv",
        "user,item,grade,when\nu1,a,2,monday\nu1,b,0,\nu2,a,-1,\nu2,c,3.0,\n",
    ))
    .unwrap();
    assert_eq!(graded.grade_of("u1", "a"), Some(2.0));
    assert_eq!(graded.grade_of("u1", "b"), Some(0.0));
    assert_eq!(graded.grade_of("u2", "a"), Some(-1.0));
    assert_eq!(graded.grade_of("u2", "c"), Some(3.0));
    assert_eq!(graded.num_judgements(), 4);

    let binary = qrels_of(&csv("truth.csv", "item,user\na,u1\nb,u1\na,u2\na,u1\n")).unwrap();
    assert_eq!(binary.grade_of("u1", "a"), Some(1.0));
    assert_eq!(binary.grade_of("u1", "b"), Some(1.0));
    assert_eq!(binary.grade_of("u2", "a"), Some(1.0));
    // The same pair twice is one judgement.
    assert_eq!(binary.num_judgements(), 3);
}

#[test]
fn custom_column_names_and_tsv() {
    let options = CsvOptions {
        query: "user_id".into(),
        doc: "item_id".into(),
        score: "prediction".into(),
        grade: "rating".into(),
        ..CsvOptions::default()
    };
    // Tab from the `.tsv` name, for bytes and for files (also gzipped).
    let run_text = "user_id\titem_id\tprediction\nu1\ta,b\t0.2\nu1\tc\t0.7\n";
    let run = run_of(&csv("run.tsv", run_text).with_csv(options.clone())).unwrap();
    assert_eq!(docs(&run, "u1"), ["c", "a,b"]);
    let path = scratch("custom.tsv", run_text.as_bytes());
    let input = Input::file(&path).with_csv(options.clone());
    assert_eq!(input.format(), Format::Csv);
    assert_eq!(docs(&run_of(&input).unwrap(), "u1"), ["c", "a,b"]);
    let path = scratch("custom.TSV.gz", &gzip(run_text.as_bytes()));
    let input = Input::file(&path).with_csv(options.clone());
    assert_eq!(docs(&run_of(&input).unwrap(), "u1"), ["c", "a,b"]);

    let truth_text = "timestamp;rating;item_id;user_id\n1;5;x;u1\n2;0;y;u1\n";
    let semicolon = CsvOptions {
        delimiter: Some(';'),
        ..options.clone()
    };
    let qrels = qrels_of(&csv("truth.tsv", truth_text).with_csv(semicolon)).unwrap();
    assert_eq!(qrels.grade_of("u1", "x"), Some(5.0));
    assert_eq!(qrels.grade_of("u1", "y"), Some(0.0));

    // An explicit comma wins over the `.tsv` name.
    let comma = CsvOptions {
        delimiter: Some(','),
        ..options
    };
    let qrels =
        qrels_of(&csv("truth.tsv", "user_id,item_id,rating\nu1,x,3\n").with_csv(comma.clone()))
            .unwrap();
    assert_eq!(qrels.grade_of("u1", "x"), Some(3.0));
    // The grade column is named (`rating`): a file without it is an error,
    // not grade 1 for every pair.
    let error = qrels_of(&csv("truth.tsv", "user_id,item_id\nu1,x\n").with_csv(comma)).unwrap_err();
    assert_eq!(
        error,
        "truth.tsv:1: no column `rating` in the header (columns: user_id, item_id); set the CSV \
         option `grade` to the name of the column that holds the grades"
    );
}

#[test]
fn quoted_fields_follow_rfc_4180_within_a_line() {
    let text = concat!(
        "\"user\",\"item\",\"score\"\n",
        "\"u,1\",\"say\"\"hi\"\"\",\"0.5\"\n",
        "\"u,1\",plain,0.7\n",
        "\"u,1\",\"\",0.1\n",
        "u2,55\"TV,1\n",
    );
    let error = run_of(&csv("run.csv", text)).unwrap_err();
    // An empty quoted id is still empty.
    assert_eq!(error, "run.csv:4: column `item` is empty");
    let text = text.replace("\"u,1\",\"\",0.1\n", "");
    let run = run_of(&csv("run.csv", text)).unwrap();
    // (Ids hold no spaces: they are refused as in TREC files.)
    assert_eq!(docs(&run, "u,1"), ["plain", "say\"hi\""]);
    assert_eq!(docs(&run, "u2"), ["55\"TV"]);
}

#[test]
fn byte_order_mark_crlf_and_blank_lines() {
    let text = "\u{feff}user,item,grade\r\nu1,a,1\r\n\r\nu1,b,2\r\n";
    let qrels = qrels_of(&csv("truth.csv", text)).unwrap();
    assert_eq!(qrels.grade_of("u1", "a"), Some(1.0));
    assert_eq!(qrels.grade_of("u1", "b"), Some(2.0));
    // Blank lines before the header count in line numbers.
    assert_eq!(
        qrels_error("\u{feff}\n\nuser,item,grade\nu1,a,1\n\nu1,a,x\n"),
        "truth.csv:6: column `grade`: `x` is not a grade (an integer or a decimal such as 3.5)"
    );
}

#[test]
fn a_missing_column_is_named_with_the_header_columns() {
    let error = qrels_of(&csv("ratings.csv", "user_id,item_id,rating\n1,10,4\n")).unwrap_err();
    assert_eq!(
        error,
        "ratings.csv:1: no column `user` in the header (columns: user_id, item_id, rating); \
         set the CSV option `query` to the name of the column that holds the query (user) ids"
    );
    assert_eq!(
        run_error("user,product,score\nu1,a,1\n"),
        "run.csv:1: no column `item` in the header (columns: user, product, score); \
         set the CSV option `doc` to the name of the column that holds the document (item) ids"
    );
    assert_eq!(
        run_error("user,item,prediction\nu1,a,1\n"),
        "run.csv:1: no column `score` or `rank` in the header (columns: user, item, prediction); \
         set the CSV option `score` or `rank` to the name of the column that holds the scores \
         or ranks that order the lists"
    );
    // A TSV read with commas has one column: the message says so, and
    // shows the tabs (control characters are escaped in every message).
    assert_eq!(
        run_error("user\titem\tscore\nu1\ta\t1\n"),
        "run.csv:1: no column `user` in the header (columns: user\\titem\\tscore); \
         set the CSV option `query` to the name of the column that holds the query (user) ids; \
         the header has one column: is the delimiter `,` right? \
         (the CSV option `delimiter` sets it)"
    );
    assert_eq!(
        run_error("user,item,score,user\nu1,a,1,u2\n"),
        "run.csv:1: column `user` appears twice in the header (fields 1 and 4)"
    );
}

#[test]
fn malformed_lines_and_bad_values_name_line_column_and_text() {
    assert_eq!(
        run_error("user,item,score\nu1,a,1\nu1,b\n"),
        "run.csv:3: expected 3 fields as in the header, found 2"
    );
    assert_eq!(
        run_error("user,item,score\nu1,a,1,extra\n"),
        "run.csv:2: expected 3 fields as in the header, found 4"
    );
    assert_eq!(
        run_error("user,item,score\nu1,a,0,5\n"),
        "run.csv:2: expected 3 fields as in the header, found 4"
    );
    assert_eq!(
        run_error("user,item,score\nu1,a,1\nu1,b,high\n"),
        "run.csv:3: column `score`: `high` is not a number"
    );
    assert_eq!(
        run_error("user,item,score\nu1,a,NaN\n"),
        "run.csv:2: column `score`: `NaN` is not a number that can be ordered"
    );
    assert_eq!(
        run_error("user,item,score\nu1,a,\n"),
        "run.csv:2: column `score` is empty"
    );
    assert_eq!(
        run_error("user,item,rank\nu1,a,first\n"),
        "run.csv:2: column `rank`: `first` is not a number"
    );
    let rating = CsvOptions {
        grade: "rating".into(),
        ..CsvOptions::default()
    };
    assert_eq!(
        qrels_of(&csv("truth.csv", "user,item,rating\nu1,a,inf\n").with_csv(rating.clone()))
            .unwrap_err(),
        "truth.csv:2: column `rating`: `inf` is not a finite grade"
    );
    assert_eq!(
        qrels_of(&csv("truth.csv", "user,item,rating\nu1,a,3000000000\n").with_csv(rating))
            .unwrap_err(),
        "truth.csv:2: column `rating`: `3000000000` is not a grade between -2147483647 and 2147483647"
    );
    assert_eq!(
        qrels_error("user,item\n,a\n"),
        "truth.csv:2: column `user` is empty"
    );
}

#[test]
fn quotes_must_close_on_their_line() {
    assert_eq!(
        run_error("user,item,score\nu1,\"a\nb\",1\n"),
        "run.csv:2: field 2 opens a quote that is not closed on this line \
         (fields spanning several lines are not supported)"
    );
    assert_eq!(
        run_error("user,item,score\nu1,\"a\"b,1\n"),
        "run.csv:2: field 2 has text after its closing quote: `b,1`"
    );
    assert_eq!(
        run_error("user,\"item,score\nu1,a,1\n"),
        "run.csv:1: field 2 opens a quote that is not closed on this line \
         (fields spanning several lines are not supported)"
    );
}

#[test]
fn duplicate_items_are_refused_unless_first_is_kept() {
    let text = "user,item,score\nu1,a,3\nu2,a,3\nu1,b,2\nu1,a,1\n";
    assert_eq!(
        run_error(text),
        "run.csv:5: document `a` appears twice in the list of query `u1` (first on line 2); \
         to keep the best-ranked occurrence, use --duplicates first (TOML: duplicates = \"first\")"
    );
    let options = ReadOptions {
        duplicates: Duplicates::First,
        ..ReadOptions::default()
    };
    let run = read_run(&csv("run.csv", text), options).unwrap();
    assert_eq!(docs(&run, "u1"), ["a", "b"]);
    assert_eq!(run.list("u1").unwrap().score(0), Some(3.0));
}

#[test]
fn a_judgement_with_two_grades_is_refused() {
    assert_eq!(
        qrels_error("user,item,grade\nu1,a,1\nu1,b,0\nu1,a,2\n"),
        "truth.csv:4: document `a` of query `u1` is judged 2 here but 1 on line 2"
    );
}

#[test]
fn empty_files_and_header_only_files_are_refused() {
    let empty = "the file is empty: expected a header line naming the columns, \
                 then one line per query and document";
    assert_eq!(run_error(""), format!("run.csv: {empty}"));
    assert_eq!(qrels_error("\n \r\n"), format!("truth.csv: {empty}"));
    assert_eq!(
        run_error("user,item,score\n"),
        "run.csv: the file has a header (line 1) but no data line"
    );
    assert_eq!(
        qrels_error("\nuser,item\n\n\n"),
        "truth.csv: the file has a header (line 2) but no data line"
    );
}

#[test]
fn a_bad_delimiter_is_refused() {
    let options = CsvOptions {
        delimiter: Some('"'),
        ..CsvOptions::default()
    };
    assert!(options.check().is_err());
    assert_eq!(
        run_of(&csv("run.csv", "user\"item\"score\nu\"a\"1\n").with_csv(options)).unwrap_err(),
        "run.csv: the CSV option `delimiter` is '\"'; it must be one ASCII character \
         other than a double quote, \\r and \\n"
    );
}

#[test]
fn gzip_is_read_transparently() {
    let text = b"user,item,score\nu1,a,1\nu1,b,2\n";
    let run = run_of(&csv("run.csv.gz", gzip(text))).unwrap();
    assert_eq!(docs(&run, "u1"), ["b", "a"]);
    let path = scratch("run.csv.gz", &gzip(text));
    let input = Input::file(&path);
    assert_eq!(input.format(), Format::Csv);
    assert_eq!(docs(&run_of(&input).unwrap(), "u1"), ["b", "a"]);
}

#[test]
fn formats_and_options_follow_names_and_serde() {
    assert_eq!(Input::file("a/run.csv").format(), Format::Csv);
    assert_eq!(Input::file("a/run.TSV").format(), Format::Csv);
    assert_eq!(Input::file("a/ratings.csv.gz").format(), Format::Csv);
    assert_eq!(Input::file("a/run.tsv.gz").format(), Format::Csv);
    assert_eq!(Input::file("a/csv").format(), Format::Trec);
    assert_eq!(
        Input::file("run.trec")
            .with_csv(CsvOptions::default())
            .format(),
        Format::Csv
    );
    assert_eq!(serde_json::to_string(&Format::Csv).unwrap(), "\"csv\"");
    assert_eq!(
        serde_json::from_str::<Format>("\"csv\"").unwrap(),
        Format::Csv
    );

    let options: CsvOptions =
        serde_json::from_str(r#"{"query": "user_id", "delimiter": "\t"}"#).unwrap();
    assert_eq!(
        options,
        CsvOptions {
            query: "user_id".into(),
            delimiter: Some('\t'),
            ..CsvOptions::default()
        }
    );
    let default = CsvOptions::default();
    assert_eq!(
        (
            default.query.as_str(),
            default.doc.as_str(),
            default.score.as_str(),
            default.rank.as_str(),
            default.grade.as_str(),
            default.delimiter
        ),
        ("user", "item", "score", "rank", "grade", None)
    );
    let unknown = serde_json::from_str::<CsvOptions>(r#"{"user": "u"}"#).unwrap_err();
    assert!(
        unknown.to_string().starts_with("unknown field `user`"),
        "{unknown}"
    );
}

/// The values of a few metrics on every query, as bits.
fn values(qrels: &Qrels, run: &Run) -> Vec<(String, Vec<u64>)> {
    let metrics: Vec<_> = [
        "map",
        "ap(norm=truncated)@10",
        "p@10",
        "recall@100",
        "rr",
        "success@5",
    ]
    .into_iter()
    .map(|m| parse_metric(m).unwrap())
    .collect();
    let evaluation = evaluate(qrels, run, &metrics, &Options::default());
    evaluation
        .queries()
        .iter()
        .enumerate()
        .map(|(q, id)| {
            let row = (0..metrics.len())
                .map(|m| evaluation.value(q, m).to_bits())
                .collect();
            (id.clone(), row)
        })
        .collect()
}

fn trec(qrels: &str, run: &str) -> (Qrels, Run) {
    let qrels = read_qrels(&Input::bytes("qrels", qrels, Format::Trec)).unwrap();
    let run = read_run(
        &Input::bytes("run", run, Format::Trec),
        ReadOptions::default(),
    )
    .unwrap();
    (qrels, run)
}

#[test]
fn csv_evaluates_like_the_same_trec_files() {
    let csv_qrels = "user,item,grade\nu1,B,1\nu1,D,1\nu1,Z,1\nu2,E,1\nu2,B,2\nu2,A,0\n";
    let csv_run =
        "user,item,score\nu1,A,5\nu1,B,4\nu1,C,3\nu1,D,2\nu1,E,1\nu2,A,0.5\nu2,B,0.5\nu2,C,0.9\n";
    let trec_qrels = "u1 0 B 1\nu1 0 D 1\nu1 0 Z 1\nu2 0 E 1\nu2 0 B 2\nu2 0 A 0\n";
    let trec_run = "u1 Q0 A 1 5 t\nu1 Q0 B 2 4 t\nu1 Q0 C 3 3 t\nu1 Q0 D 4 2 t\nu1 Q0 E 5 1 t\n\
                    u2 Q0 A 1 0.5 t\nu2 Q0 B 2 0.5 t\nu2 Q0 C 3 0.9 t\n";
    let qrels = read_qrels(&csv("truth.csv", csv_qrels)).unwrap();
    let run = read_run(&csv("run.csv", csv_run), ReadOptions::default()).unwrap();
    let (trec_qrels, trec_run) = trec(trec_qrels, trec_run);
    let expected = values(&trec_qrels, &trec_run);
    assert_eq!(values(&qrels, &run), expected);
    // AP of u1 (relevant at ranks 2 and 4 of B D Z) = (1/2 + 2/4) / 3.
    assert_eq!(f64::from_bits(expected[0].1[0]), (0.5 + 0.5) / 3.0);

    // The same run given by rank (the TREC order: C, B, A for u2).
    let by_rank =
        "user,item,rank\nu1,A,1\nu1,B,2\nu1,C,3\nu1,D,4\nu1,E,5\nu2,C,1\nu2,B,2\nu2,A,3\n";
    let run = read_run(&csv("run.csv", by_rank), ReadOptions::default()).unwrap();
    assert_eq!(values(&qrels, &run), expected);
}

/// The same generated data as CSV and as TREC: ground truth, a run by
/// score, and that run's order by rank.
struct Generated {
    csv_qrels: String,
    csv_run: String,
    csv_ranks: String,
    trec_qrels: String,
    trec_run: String,
}

fn generated() -> Generated {
    let mut g = Generated {
        csv_qrels: "grade,item,user\n".into(),
        csv_run: "\u{feff}user,item,score,model\r\n".into(),
        csv_ranks: "user\titem\trank\n".into(),
        trec_qrels: String::new(),
        trec_run: String::new(),
    };
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for q in 0..4_000 {
        // Some ids need quoting in CSV.
        let (csv_user, trec_user) = if q % 97 == 0 {
            (format!("\"user,{q}\""), format!("user,{q}"))
        } else {
            (format!("user{q}"), format!("user{q}"))
        };
        for d in 0..25 {
            if next() % 3 == 0 {
                let grade = next() % 4;
                g.csv_qrels.push_str(&format!("{grade},d{d},{csv_user}\n"));
                g.trec_qrels
                    .push_str(&format!("{trec_user} 0 d{d} {grade}\n"));
            }
        }
        let mut scored = Vec::new();
        for d in 0..120 {
            // Scores on a coarse grid, so that many tie.
            let score = (next() % 40) as f64 / 8.0;
            scored.push((score, format!("d{d}")));
            g.csv_run
                .push_str(&format!("{csv_user},d{d},{score},m1\r\n"));
            g.trec_run
                .push_str(&format!("{trec_user} Q0 d{d} {d} {score} gen\n"));
        }
        // The TREC order, written as distinct ranks, in shuffled line order.
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
        let mut ranked: Vec<(usize, &String)> = scored
            .iter()
            .enumerate()
            .map(|(i, (_, d))| (i + 1, d))
            .collect();
        ranked.sort_by_key(|&(rank, _)| (rank * 7919) % 121);
        for (rank, doc) in ranked {
            g.csv_ranks
                .push_str(&format!("{trec_user}\t{doc}\t{rank}\n"));
        }
    }
    g
}

#[test]
fn a_large_csv_gives_the_same_result_as_its_trec_equivalent() {
    let g = generated();
    assert!(
        g.csv_run.len() > 8 << 20,
        "the run must span several parse pieces ({} bytes)",
        g.csv_run.len()
    );
    let (trec_qrels, trec_run) = trec(&g.trec_qrels, &g.trec_run);
    let qrels = read_qrels(&csv("truth.csv", g.csv_qrels.as_str())).unwrap();
    let run = read_run(&csv("run.csv", g.csv_run.as_str()), ReadOptions::default()).unwrap();
    assert_eq!(run.num_entries(), trec_run.num_entries());
    assert_eq!(qrels.num_judgements(), trec_qrels.num_judgements());
    let expected = values(&trec_qrels, &trec_run);
    assert_eq!(expected.len(), 4_000);
    assert_eq!(values(&qrels, &run), expected);
    for q in ["user,0", "user1", "user2", "user,97", "user3999"] {
        assert_eq!(docs(&run, q), docs(&trec_run, q), "{q}");
    }

    // By rank, from a gzipped TSV: the same lists.
    let ranks = read_run(
        &csv("ranks.tsv.gz", gzip(g.csv_ranks.as_bytes())),
        ReadOptions::default(),
    )
    .unwrap();
    for q in ["user,0", "user1", "user2", "user,97", "user3999"] {
        assert_eq!(docs(&ranks, q), docs(&trec_run, q), "{q}");
    }
    assert_eq!(values(&qrels, &ranks), expected);
}

#[test]
fn an_error_late_in_a_large_csv_names_its_exact_line() {
    let mut text = String::from("\u{feff}\nuser,item,score\n");
    for i in 0..400_000 {
        text.push_str(&format!("u{},d{i},{i}\n", i % 1000));
        if i == 350_000 {
            text.push_str("u1,\"open,1\n");
        }
    }
    assert!(text.len() > 4 << 20);
    // Line 1 blank, 2 the header, 3 the first data line: the bad line
    // follows data line 350,001.
    assert_eq!(
        run_error(&text),
        "run.csv:350004: field 2 opens a quote that is not closed on this line \
         (fields spanning several lines are not supported)"
    );
}
