//! Helpers shared by the integration tests.

use std::path::PathBuf;

/// A file of `tests/data`.
pub fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path)
}
