//! Shared by the targets: read `data` as a run and as qrels in `format`,
//! and check that every error names the input.

use rankeval::{Format, Input, ReadError, ReadOptions, read_qrels, read_run};

/// Reads `data` both ways; panics only on a broken promise (an error that
/// does not name the input), never on the data.
pub fn read_both(data: &[u8], format: Format) {
    let input = Input::bytes("fuzz.input", data.to_vec(), format);
    check(read_run(&input, ReadOptions::default()).map(|_| ()));
    check(read_qrels(&input).map(|_| ()));
}

fn check(result: Result<(), ReadError>) {
    if let Err(error) = result {
        assert_eq!(error.path, "fuzz.input");
        let text = error.to_string();
        assert!(text.starts_with("fuzz.input"), "{text}");
    }
}
