//! README's library example is the crate doc's doc test (which `cargo test`
//! runs), shown without its hidden `# ` lines: the same text, so that the
//! README never shows code that no longer compiles.

use std::path::Path;

fn read(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lines of the first fenced block after the line `heading`, fences
/// opened by a line starting with `fence` and closed by one equal to `close`.
fn block<'a>(text: &'a str, heading: &str, fence: &str, close: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| l.trim_end() != heading)
        .skip_while(|l| !l.starts_with(fence))
        .skip(1)
        .take_while(|l| l.trim_end() != close)
        .collect()
}

#[test]
fn readme_library_example_is_the_doc_test() {
    let readme = read("../../README.md");
    let readme = block(&readme, "## As a library", "```rust", "```");
    let lib = read("src/lib.rs");
    let doc_test: Vec<&str> = block(&lib, "//! ## In memory", "//! ```", "//! ```")
        .into_iter()
        .map(|l| {
            l.strip_prefix("//! ")
                .unwrap_or(l.trim_start_matches("//!"))
        })
        .filter(|l| !(l.starts_with("# ") || *l == "#"))
        .collect();
    assert!(
        doc_test.len() > 10,
        "the doc test was not found: {doc_test:?}"
    );
    assert_eq!(readme, doc_test);
}
