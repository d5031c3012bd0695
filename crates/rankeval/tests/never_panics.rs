//! Property tests: any bytes given to a reader (TREC run and qrels, JSON
//! Lines with one query per line, JSON Lines rows, JSON dict of dicts, CSV,
//! Parquet, Arrow IPC; tables of label distributions and of several
//! judges' grades), any text as a TOML experiment and any text in the
//! metric syntax give values or an error naming the input (and a line that
//! exists, when it names one), never a panic. The fuzz targets in `fuzz/`
//! search the same surfaces far longer; these run in every `cargo test`.
//!
//! Two kinds of input per surface: arbitrary bytes, and inputs assembled
//! from pieces of the format (ids, numbers, separators, quotes, braces, a
//! byte order mark, control bytes), which reach far deeper into a parser
//! than random bytes do.

use proptest::prelude::*;
use rankeval::expected::{ReadLabelsError, read_labels};
use rankeval::read::{CsvOptions, read_judge_qrels};
use rankeval::{
    Format, Input, ReadError, ReadOptions, parse_aggregator, parse_metric, read_qrels, read_run,
};

const NAME: &str = "input.data";

/// Pieces the readers' grammars are made of, with faults mixed in.
const PIECES: &[&str] = &[
    "q1",
    "q2",
    "Q0",
    "d1",
    "d2",
    "0",
    "1",
    "2",
    "-1",
    "3.5",
    "0.25",
    "1e308",
    "1e999",
    "NaN",
    "inf",
    "-0",
    "99999999999999999999",
    " ",
    " ",
    "\t",
    "\n",
    "\n",
    "\r\n",
    ",",
    ";",
    "\"",
    "\"\"",
    "{",
    "}",
    "[",
    "]",
    ":",
    "\\",
    "\\u0000",
    "\\ud800",
    "\u{feff}",
    "\0",
    "\x01",
    "\x1f",
    "\x7f",
    "\u{e9}",
    "\u{ff}",
    "null",
    "true",
    "user",
    "item",
    "score",
    "rank",
    "grade",
    "query",
    "predicted",
    "relevant",
    "scores",
    "tag",
];

/// Text assembled from [`PIECES`] (and a few arbitrary bytes).
fn pieces() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            8 => prop::sample::select(PIECES).prop_map(|p| p.as_bytes().to_vec()),
            1 => any::<u8>().prop_map(|b| vec![b]),
        ],
        0..80,
    )
    .prop_map(|parts| parts.concat())
}

/// Lines that look like TREC runs or qrels, with faults mixed in.
fn trec_like() -> impl Strategy<Value = Vec<u8>> {
    let field = prop::sample::select(&PIECES[..20]);
    let line = prop::collection::vec(field, 0..8).prop_map(|fields| fields.join(" ") + "\n");
    prop::collection::vec(line, 0..12).prop_map(|lines| lines.concat().into_bytes())
}

/// JSON Lines in each of the three shapes, with faults mixed in.
fn json_like() -> impl Strategy<Value = Vec<u8>> {
    let key = prop::sample::select(vec![
        "query",
        "predicted",
        "relevant",
        "scores",
        "user",
        "item",
        "score",
        "grade",
        "q1",
        "extra",
    ]);
    let scalar = prop::sample::select(vec![
        "\"q1\"",
        "\"d1\"",
        "\"d2\"",
        "1",
        "2.5",
        "-1",
        "1e999",
        "null",
        "true",
        "\"\"",
        "\"a\\u0000\"",
    ]);
    let value = prop_oneof![
        scalar.clone().prop_map(str::to_owned),
        prop::collection::vec(scalar.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(","))),
        prop::collection::vec((key.clone(), scalar.clone()), 0..4).prop_map(|v| {
            let entries: Vec<String> = v.iter().map(|(k, s)| format!("\"{k}\":{s}")).collect();
            format!("{{{}}}", entries.join(","))
        }),
    ];
    let object = prop::collection::vec((key, value), 0..5).prop_map(|v| {
        let entries: Vec<String> = v.iter().map(|(k, s)| format!("\"{k}\":{s}")).collect();
        format!("{{{}}}", entries.join(","))
    });
    prop::collection::vec(
        (
            object,
            prop::sample::select(vec!["\n", "", "\n\n", " ", "x\n"]),
        ),
        0..6,
    )
    .prop_map(|lines| {
        lines
            .into_iter()
            .map(|(o, end)| o + end)
            .collect::<String>()
            .into_bytes()
    })
}

/// CSV files: a header of known and unknown columns, then rows.
fn csv_like() -> impl Strategy<Value = Vec<u8>> {
    let column = prop::sample::select(vec![
        "user", "item", "score", "rank", "grade", "x", "\"user\"", "",
    ]);
    let header = prop::collection::vec(column, 0..5).prop_map(|c| c.join(","));
    let field = prop::sample::select(&PIECES[..34]);
    let row = prop::collection::vec(field, 0..6).prop_map(|f| f.join(","));
    (header, prop::collection::vec(row, 0..8))
        .prop_map(|(header, rows)| format!("{header}\n{}", rows.join("\n")).into_bytes())
}

/// An error must name the input, and a line of it when it names one.
fn check(data: &[u8], result: Result<(), ReadError>) -> Result<(), TestCaseError> {
    if let Err(error) = result {
        let text = error.to_string();
        prop_assert_eq!(&error.path, NAME);
        prop_assert!(text.starts_with(NAME), "{}", text);
        if let Some(line) = error.line {
            let lines = data.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
            prop_assert!(
                line >= 1 && line <= lines,
                "line {} of {}: {}",
                line,
                lines,
                text
            );
        }
    }
    Ok(())
}

/// Reads `data` as a run and as qrels in `format`.
fn read_both(data: &[u8], format: Format) -> Result<(), TestCaseError> {
    let input = Input::bytes(NAME, data.to_vec(), format);
    check(data, read_run(&input, ReadOptions::default()).map(|_| ()))?;
    check(data, read_qrels(&input).map(|_| ()))
}

/// Tables of label distributions and of several judges' grades: a header
/// of their columns (and others), then rows of ids, probabilities, grades
/// and empty fields.
fn judge_table_like() -> impl Strategy<Value = Vec<u8>> {
    let column = prop::sample::select(vec![
        "query", "doc", "p0", "p1", "llm", "human", "user", "item", "x", "",
    ]);
    let header = prop::collection::vec(column, 0..7).prop_map(|c| c.join(","));
    let field = prop::sample::select(vec![
        "q1", "q2", "d1", "d2", "0", "1", "0.5", "0.25", "0.75", "1.5", "-0.5", "NaN", "1e999", "",
        "", " ", "\"\"", "null", "\0", "\u{e9}",
    ]);
    let row = prop::collection::vec(field, 0..7).prop_map(|f| f.join(","));
    (header, prop::collection::vec(row, 0..8))
        .prop_map(|(header, rows)| format!("{header}\n{}", rows.join("\n")).into_bytes())
}

/// JSON Lines rows of label distributions and judges' grades, nulls and
/// faults mixed in.
fn judge_rows_like() -> impl Strategy<Value = Vec<u8>> {
    let key = prop::sample::select(vec!["query", "doc", "p0", "p1", "llm", "human", "x"]);
    let value = prop::sample::select(vec![
        "\"q1\"", "\"d1\"", "\"d2\"", "7", "0.5", "1", "0", "null", "\"\"", "1e999", "-1", "true",
        "[]", "{}", "\"a b\"",
    ]);
    let object = prop::collection::vec((key, value), 0..7).prop_map(|v| {
        let entries: Vec<String> = v.iter().map(|(k, s)| format!("\"{k}\":{s}")).collect();
        format!("{{{}}}", entries.join(","))
    });
    prop::collection::vec(object, 0..8).prop_map(|lines| (lines.join("\n") + "\n").into_bytes())
}

/// Reads `data` as `rankeval expected`'s table of label distributions
/// (columns `p0`, `p1`) and as the `llm` and `human` judges' qrels of a
/// shared table (empty or null grades: pairs not judged), in `format`.
fn read_judge_tables(data: &[u8], format: Format) -> Result<(), TestCaseError> {
    let columns = CsvOptions {
        query: "query".to_owned(),
        doc: "doc".to_owned(),
        ..CsvOptions::default()
    };
    let input = Input::bytes(NAME, data.to_vec(), format).with_columns(columns.clone());
    let labels = [("p0".to_owned(), 0.0), ("p1".to_owned(), 1.0)];
    match read_labels(&input, &labels) {
        Err(ReadLabelsError::Read(error)) => check(data, Err(error))?,
        Err(other) => {
            let text = other.to_string();
            prop_assert!(text.starts_with(NAME), "{}", text);
        }
        Ok(_) => {}
    }
    for grade in ["llm", "human"] {
        let judge = input.clone().with_columns(CsvOptions {
            grade: grade.to_owned(),
            ..columns.clone()
        });
        check(data, read_judge_qrels(&judge, &|_| {}).map(|_| ()))?;
    }
    Ok(())
}

/// Every text format the readers take.
const TEXT_FORMATS: [Format; 5] = [
    Format::Trec,
    Format::Jsonl,
    Format::JsonlRows,
    Format::Json,
    Format::Csv,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_bytes_in_any_format_never_panic(
        data in prop::collection::vec(any::<u8>(), 0..300),
        format in prop::sample::select(vec![
            Format::Trec, Format::Jsonl, Format::JsonlRows, Format::Json, Format::Csv,
            Format::Parquet, Format::Arrow,
        ]),
    ) {
        read_both(&data, format)?;
    }

    #[test]
    fn assembled_text_in_every_text_format_never_panics(data in pieces()) {
        for format in TEXT_FORMATS {
            read_both(&data, format)?;
        }
    }

    #[test]
    fn trec_like_lines_never_panic(data in trec_like()) {
        read_both(&data, Format::Trec)?;
        read_both(&data, Format::Csv)?;
    }

    #[test]
    fn json_like_lines_never_panic(data in json_like()) {
        for format in [Format::Jsonl, Format::JsonlRows, Format::Json] {
            read_both(&data, format)?;
        }
    }

    #[test]
    fn csv_like_files_never_panic(data in csv_like()) {
        read_both(&data, Format::Csv)?;
        read_both(&data, Format::JsonlRows)?;
    }

    #[test]
    fn any_bytes_as_a_label_or_judge_table_never_panic(
        data in prop::collection::vec(any::<u8>(), 0..300),
        format in prop::sample::select(vec![
            Format::Csv, Format::JsonlRows, Format::Parquet, Format::Arrow,
        ]),
    ) {
        read_judge_tables(&data, format)?;
    }

    #[test]
    fn label_and_judge_table_like_files_never_panic(data in judge_table_like()) {
        read_judge_tables(&data, Format::Csv)?;
    }

    #[test]
    fn json_rows_as_judge_tables_never_panic(data in judge_rows_like()) {
        read_judge_tables(&data, Format::JsonlRows)?;
    }

    #[test]
    fn any_metric_text_never_panics_and_canonical_names_parse_again(
        text in prop_oneof![
            ".{0,40}",
            "[a-z_]{1,12}(\\(([a-z_]{1,6}=[-0-9a-z.]{0,6},?){0,3}\\))?(@[-0-9]{0,22})?",
        ],
    ) {
        if let Ok(metric) = parse_metric(&text) {
            let name = metric.name();
            let again = parse_metric(&name);
            prop_assert!(again.is_ok(), "canonical name `{}` of `{}` does not parse", name, text);
            prop_assert_eq!(again.map(|m| m.name()).ok(), Some(name));
        }
        let _ = parse_aggregator(&text);
    }

    #[test]
    fn any_toml_experiment_never_panics(
        text in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..200),
            prop::collection::vec(
                prop::sample::select(vec![
                    "qrels = \"qrels.txt\"\n", "[[runs]]\n", "path = \"run.trec\"\n",
                    "name = \"a\"\n", "name = \"\"\n", "[[metrics]]\n", "type = \"ndcg\"\n",
                    "k = 10\n", "k = 99999999999999999999\n", "k = -1\n", "k = 1.5\n",
                    "metrics = []\n", "[[aggregators]]\n", "type = \"mean\"\n", "rel = 2\n",
                    "rel = -1\n", "[csv]\n", "delimiter = \"\\t\"\n", "delimiter = \"ab\"\n",
                    "format = \"csv\"\n", "format = \"x\"\n", "[qrels]\n", "x = [[[[1]]]]\n",
                    "= =\n", "\u{feff}", "\0", "\u{e9}\n", "missing = \"zero\"\n",
                    "duplicates = \"first\"\n",
                ]),
                0..16,
            )
            .prop_map(|parts| parts.concat().into_bytes()),
        ],
    ) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("qrels.txt"), "q1 0 d1 1\n").unwrap();
        std::fs::write(dir.path().join("run.trec"), "q1 Q0 d1 1 1.0 t\n").unwrap();
        let path = dir.path().join("experiment.toml");
        std::fs::write(&path, &text).unwrap();
        if let Err(error) = rankeval::config::load(&path) {
            let message = error.to_string();
            prop_assert!(message.starts_with(&path.display().to_string()), "{}", message);
        }
    }
}
