//! Any bytes as a groups file (`--groups`), in CSV, TSV and JSON Lines:
//! groups or an error naming the file, never a panic.

#![no_main]

use std::sync::OnceLock;

fn dir() -> &'static tempfile::TempDir {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("a temporary directory"))
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    for name in ["groups.csv", "groups.tsv", "groups.jsonl"] {
        let path = dir().path().join(name);
        std::fs::write(&path, data).expect("write the groups file");
        match rankeval::read::read_groups(&path) {
            Ok(groups) => {
                // What a report reads of them.
                for query in groups.queries() {
                    for column in 0..groups.columns().len() {
                        let _ = groups.value(query, column);
                    }
                }
            }
            Err(error) => {
                let text = error.to_string();
                assert!(text.starts_with(&path.display().to_string()), "{text}");
            }
        }
    }
});
