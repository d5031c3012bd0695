//! Any bytes read as a table of label distributions (`rankeval expected`:
//! probability columns `p0`, `p1`) and as one judge's qrels of a table
//! several judges share (`rankeval ppi` and `agree`: grade columns `llm`
//! and `human`, empty or null where a judge gave none), in CSV, TSV, JSON
//! Lines rows and Parquet: values or an error naming the input, never a
//! panic.

#![no_main]

use rankeval::expected::read_labels;
use rankeval::read::{CsvOptions, Format, Input, read_judge_qrels};

const NAME: &str = "fuzz.input";

fn check(error: Option<String>) {
    if let Some(text) = error {
        assert!(text.starts_with(NAME), "{text}");
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    for (format, delimiter) in [
        (Format::Csv, None),
        (Format::Csv, Some('\t')),
        (Format::JsonlRows, None),
        (Format::Parquet, None),
    ] {
        let columns = CsvOptions {
            query: "query".to_owned(),
            doc: "doc".to_owned(),
            delimiter,
            ..CsvOptions::default()
        };
        let input = Input::bytes(NAME, data.to_vec(), format).with_columns(columns.clone());
        let labels = [("p0".to_owned(), 0.0), ("p1".to_owned(), 1.0)];
        check(read_labels(&input, &labels).err().map(|e| e.to_string()));
        for grade in ["llm", "human"] {
            let judge = input.clone().with_columns(CsvOptions {
                grade: grade.to_owned(),
                ..columns.clone()
            });
            check(
                read_judge_qrels(&judge, &|_| {})
                    .err()
                    .map(|e| e.to_string()),
            );
        }
    }
});
