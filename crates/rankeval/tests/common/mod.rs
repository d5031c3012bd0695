//! Helpers shared by the integration tests.

use std::path::PathBuf;

/// A file of the test data the command line's tests keep
/// (`crates/cli/tests/data`): trec_eval's own test suite is kept there once,
/// where the `rankeval trec_eval` command's tests and snapshots name it, and
/// the library's values are checked against the same files.
pub fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../cli/tests/data")
        .join(path)
}
pub mod compare_runs;
