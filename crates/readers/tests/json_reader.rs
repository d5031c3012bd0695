//! JSON as it comes: JSON Lines with other keys and renamed keys, rows per
//! line (pandas `orient="records", lines=True`), and dicts of dicts (ranx,
//! pytrec_eval); how the shapes are told apart; errors.

use rankeval_core::{Qrels, Run};
use rankeval_readers::{CsvOptions, Format, Input, ReadOptions, read_qrels, read_run};

fn input(name: &str, text: &str, format: Format) -> Input {
    Input::bytes(name, text, format)
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

#[test]
fn json_lines_keys_can_be_renamed_and_others_are_ignored() {
    let text = concat!(
        r#"{"user_id": 5, "model": "v2", "items": ["b", "a"], "ts": [1, 2], "ground_truth": {"a": 2}}"#,
        "\n",
        r#"{"ground_truth": ["c"], "items": ["c", "d"], "user_id": "u6", "extra": null}"#,
        "\n",
    );
    let columns = CsvOptions {
        query: "user_id".into(),
        predicted: "items".into(),
        relevant: "ground_truth".into(),
        ..CsvOptions::default()
    };
    let data = input("log.jsonl", text, Format::Jsonl).with_columns(columns);
    let run = run_of(&data).unwrap();
    assert_eq!(docs(&run, "5"), ["b", "a"]);
    assert_eq!(docs(&run, "u6"), ["c", "d"]);
    let qrels = qrels_of(&data).unwrap();
    assert_eq!(qrels.grade_of("5", "a"), Some(2.0));
    assert_eq!(qrels.grade_of("u6", "c"), Some(1.0));
    // Without the mapping, the keys are not found.
    assert_eq!(
        run_of(&input("log.jsonl", text, Format::Jsonl)).unwrap_err(),
        "log.jsonl:1: invalid JSON line: missing field `query` at column 90"
    );
}

#[test]
fn rows_read_like_csv() {
    // As pandas writes a data frame: ids may be numbers.
    let text = concat!(
        r#"{"user":1,"item":"i7","score":0.9,"model":"m"}"#,
        "\n",
        r#"{"user":1,"item":"i3","score":0.95}"#,
        "\n\n",
        r#"{"user":2,"item":12,"score":0.1}"#,
        "\n",
    );
    for format in [Format::Jsonl, Format::JsonlRows] {
        let run = run_of(&input("recs.jsonl", text, format)).unwrap();
        assert_eq!(docs(&run, "1"), ["i3", "i7"]);
        assert_eq!(docs(&run, "2"), ["12"]);
    }
    // By rank, with renamed columns.
    let text = concat!(
        r#"{"uid":"a","iid":"x","pos":2}"#,
        "\n",
        r#"{"uid":"a","iid":"y","pos":1}"#,
        "\n"
    );
    let columns = CsvOptions {
        query: "uid".into(),
        doc: "iid".into(),
        rank: "pos".into(),
        ..CsvOptions::default()
    };
    let run = run_of(&input("r.jsonl", text, Format::Jsonl).with_columns(columns)).unwrap();
    assert_eq!(docs(&run, "a"), ["y", "x"]);
    // Ground truth rows, with and without grades.
    let truth = concat!(
        r#"{"user":"u","item":"a","grade":2}"#,
        "\n",
        r#"{"user":"u","item":"b","grade":0.0}"#,
        "\n"
    );
    let qrels = qrels_of(&input("t.jsonl", truth, Format::Jsonl)).unwrap();
    assert_eq!(qrels.grade_of("u", "a"), Some(2.0));
    assert_eq!(qrels.grade_of("u", "b"), Some(0.0));
    let qrels = qrels_of(&input(
        "t.jsonl",
        r#"{"query":"u","doc":"a"}"#,
        Format::Jsonl,
    ))
    .unwrap();
    assert_eq!(qrels.grade_of("u", "a"), Some(1.0));
}

#[test]
fn dicts_of_dicts_as_ranx_and_pytrec_eval_write_them() {
    let run_text = r#"{"q1": {"d1": 12.5, "d2": 9.1, "d3": 12.5}, "q2": {"d9": 1}, "q3": {}}"#;
    for format in [Format::Jsonl, Format::Json] {
        let run = run_of(&input("run.json", run_text, format)).unwrap();
        // Ties by document id descending, as for TREC runs.
        assert_eq!(docs(&run, "q1"), ["d3", "d1", "d2"]);
        assert_eq!(docs(&run, "q2"), ["d9"]);
        assert_eq!(docs(&run, "q3"), Vec::<String>::new());
    }
    // Pretty-printed, as json.dump(indent=2) writes.
    let qrels_text =
        "{\n  \"q1\": {\n    \"d1\": 1,\n    \"d2\": 0\n  },\n  \"q2\": {\"d9\": 2.0}\n}\n";
    let qrels = qrels_of(&input("qrels.json", qrels_text, Format::Jsonl)).unwrap();
    assert_eq!(qrels.grade_of("q1", "d1"), Some(1.0));
    assert_eq!(qrels.grade_of("q1", "d2"), Some(0.0));
    assert_eq!(qrels.grade_of("q2", "d9"), Some(2.0));
}

#[test]
fn errors_name_the_file_and_the_line_or_the_entry() {
    let mut messages = Vec::new();
    let mut case = |what: &str, message: String| messages.push(format!("{what}:\n  {message}"));
    let run = |text: &str, format: Format| run_of(&input("in.json", text, format)).unwrap_err();
    let qrels = |text: &str| qrels_of(&input("in.json", text, Format::Json)).unwrap_err();
    case(
        "row without a document",
        run(
            "{\"user\":1,\"score\":1}\n{\"user\":1,\"item\":\"a\",\"score\":1}\n",
            Format::JsonlRows,
        ),
    );
    case(
        "row without a score on line 2",
        run(
            "{\"user\":1,\"item\":\"b\",\"score\":1}\n{\"user\":1,\"item\":\"a\"}\n",
            Format::JsonlRows,
        ),
    );
    case(
        "rows with no order",
        run("{\"user\":1,\"item\":\"a\",\"t\":3}\n", Format::Jsonl),
    );
    case(
        "row score not a number",
        run(
            "{\"user\":1,\"item\":\"a\",\"score\":\"high\"}\n",
            Format::JsonlRows,
        ),
    );
    case(
        "row id with a space",
        run(
            "{\"user\":\"u 1\",\"item\":\"a\",\"score\":1}\n",
            Format::JsonlRows,
        ),
    );
    case(
        "dict score not a number",
        run(r#"{"q1": {"d1": "x"}}"#, Format::Json),
    );
    case("dict of lists", run(r#"{"q1": ["d1"]}"#, Format::Json));
    case(
        "dict id with a tab",
        run("{\"q1\": {\"d\\t1\": 1}}", Format::Json),
    );
    case("dict grade out of range", qrels(r#"{"q1": {"d1": 1e12}}"#));
    case("dict truncated", run(r#"{"q1": {"d1": 1"#, Format::Json));
    case("dict empty", run("{}", Format::Json));
    case(
        "query line without a query",
        run(r#"{"predicted": ["a"]}"#, Format::Jsonl),
    );
    insta::assert_snapshot!(messages.join("\n"));
}

/// Scores of 17 significant digits, as numpy and many writers print them,
/// whose nearest doubles serde_json's default (fast, not correctly
/// rounded) parser misses by one unit in the last place: a JSON run must
/// read the same doubles as the same run in TREC text (correctly rounded),
/// or its ties and so its order and metrics differ silently.
const SCORES: [&str; 6] = [
    "0.73575876580499574",
    "0.36705911238380268",
    "0.85233071271705465",
    "0.44392119048899982",
    "0.77946897817735677",
    "7.2385106312786398e28",
];

#[test]
fn json_scores_read_as_the_nearest_doubles_as_in_trec_text() {
    let mut trec = String::new();
    let mut rows = String::new();
    for (i, score) in SCORES.iter().enumerate() {
        trec.push_str(&format!("q Q0 d{i} 0 {score} t\n"));
        rows.push_str(&format!(r#"{{"query":"q","doc":"d{i}","score":{score}}}"#));
        rows.push('\n');
    }
    let docs: Vec<String> = (0..SCORES.len()).map(|i| format!("\"d{i}\"")).collect();
    let line = format!(
        r#"{{"query":"q","predicted":[{}],"scores":[{}]}}"#,
        docs.join(","),
        SCORES.join(",")
    );
    let from_trec = run_of(&input("run.trec", &trec, Format::Trec)).unwrap();
    for (name, text, format) in [
        ("rows.jsonl", rows.as_str(), Format::Jsonl),
        ("list.jsonl", line.as_str(), Format::Jsonl),
    ] {
        let run = run_of(&input(name, text, format)).unwrap();
        let (a, b) = (from_trec.list("q").unwrap(), run.list("q").unwrap());
        assert_eq!(docs_of(&run), docs_of(&from_trec), "{name}");
        for i in 0..SCORES.len() {
            let (x, y) = (a.score(i).unwrap(), b.score(i).unwrap());
            assert_eq!(
                x.to_bits(),
                y.to_bits(),
                "{name}: rank {i}: {x:e} against {y:e}"
            );
        }
    }
    // Two spellings of one double tie in both, as they must.
    let tied = concat!(
        r#"{"query":"q","doc":"a","score":0.36705911238380268}"#,
        "\n",
        r#"{"query":"q","doc":"b","score":0.3670591123838027}"#,
        "\n"
    );
    let run = run_of(&input("tied.jsonl", tied, Format::Jsonl)).unwrap();
    let list = run.list("q").unwrap();
    assert_eq!(list.score(0), list.score(1));
}

fn docs_of(run: &Run) -> Vec<String> {
    docs(run, "q")
}
