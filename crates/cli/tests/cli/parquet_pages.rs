//! Damaged Parquet data pages: every Parquet input (a run, qrels, a groups
//! file, `report`'s per-query results; from a file, a pipe or a FIFO)
//! verifies the page checksums a writer stored, and refuses a file whose
//! page was overwritten, naming it, where the values alone would have read
//! as numbers. The fixtures in `tests/data/parquet_crc` were written by
//! pyarrow with page checksums, uncompressed and without dictionaries
//! (`scripts/data/parquet-crc.py`); each test damages its copy itself.

use std::path::{Path, PathBuf};
use std::process::Command;

use parquet::file::reader::{FileReader, SerializedFileReader};

use super::{run_in, scratch, workspace};

/// The fixture `name`.
fn fixture(name: &str) -> PathBuf {
    workspace()
        .join("crates/cli/tests/data/parquet_crc")
        .join(name)
}

/// The bytes of fixture `name` with 100 bytes overwritten inside the data
/// page of `column` (its values, after the page header), as a disk or a
/// transfer might damage them.
fn damaged(name: &str, column: &str) -> Vec<u8> {
    let path = fixture(name);
    let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
    let chunk = reader
        .metadata()
        .row_group(0)
        .columns()
        .iter()
        .find(|c| c.column_path().string() == column)
        .unwrap_or_else(|| panic!("{name} has a column {column}"))
        .clone();
    let start = usize::try_from(chunk.data_page_offset()).unwrap();
    let end = start + usize::try_from(chunk.compressed_size()).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(end - start > 200, "the page holds more than the damage");
    for byte in &mut bytes[end - 108..end - 8] {
        *byte = 0x41;
    }
    bytes
}

/// A scratch directory with the four fixtures, and `damaged-X.parquet`
/// for each, its page of `column` damaged.
fn inputs() -> tempfile::TempDir {
    let dir = scratch(&[]);
    for (name, column) in [
        ("run.parquet", "score"),
        ("qrels.parquet", "grade"),
        ("groups.parquet", "segment"),
        ("results.parquet", "ap"),
    ] {
        std::fs::copy(fixture(name), dir.path().join(name)).unwrap();
        std::fs::write(
            dir.path().join(format!("damaged-{name}")),
            damaged(name, column),
        )
        .unwrap();
    }
    dir
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// Asserts that `rankeval args` refused the damaged file `file` for its
/// checksum: exit code 2, the file named, nothing on stdout.
fn refused(dir: &Path, args: &[&str], file: &str) {
    let (code, stdout, stderr) = run_in(dir, args);
    assert_eq!(code, 2, "{args:?}: {stdout}{stderr}");
    assert_eq!(stdout, "", "{args:?}");
    assert!(stderr.contains(file), "{args:?}: {stderr}");
    assert!(
        stderr.contains("CRC checksum mismatch"),
        "{args:?}: {stderr}"
    );
}

const EVAL: [&str; 7] = ["eval", "-m", "ap", "-m", "ndcg@10", "--format", "json"];

#[test]
fn a_damaged_page_of_a_run_qrels_or_groups_file_is_refused_naming_it() {
    let dir = inputs();
    let eval = |qrels: &str, run: &str, groups: Option<&str>| -> Vec<String> {
        let mut args: Vec<&str> = EVAL.to_vec();
        args.extend(["--qrels", qrels, "--run", run]);
        if let Some(groups) = groups {
            args.extend(["--groups", groups]);
        }
        args.into_iter().map(str::to_owned).collect()
    };
    // Undamaged, with their checksums, they read.
    let args = eval("qrels.parquet", "run.parquet", Some("groups.parquet"));
    let (code, out, stderr) = run_in(dir.path(), &strs(&args));
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["runs"][0]["num_queries"], 20, "{out}");
    let segments = &report["runs"][0]["groups"]["segment"];
    assert_eq!(segments["segment-head"]["num_queries"], 10, "{out}");
    assert_eq!(segments["segment-tail"]["num_queries"], 10, "{out}");
    for (args, file) in [
        (
            eval("qrels.parquet", "damaged-run.parquet", None),
            "damaged-run.parquet",
        ),
        (
            eval("damaged-qrels.parquet", "run.parquet", None),
            "damaged-qrels.parquet",
        ),
        (
            eval(
                "qrels.parquet",
                "run.parquet",
                Some("damaged-groups.parquet"),
            ),
            "damaged-groups.parquet",
        ),
    ] {
        refused(dir.path(), &strs(&args), file);
    }
}

#[test]
fn a_damaged_page_of_per_query_results_is_refused_naming_them() {
    let dir = inputs();
    let (code, out, stderr) = run_in(
        dir.path(),
        &["report", "results.parquet", "--format", "json"],
    );
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    // Run `a`: ap = (q mod 8) / 8 for q = 0..29, whose sum is 99 / 8.
    assert_eq!(
        report["runs"][0]["metrics"]["ap"]["mean"],
        99.0 / 8.0 / 30.0
    );
    refused(
        dir.path(),
        &["report", "damaged-results.parquet"],
        "results file damaged-results.parquet",
    );
    // As a baseline of eval, and as a part of a Spark job's directory.
    refused(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.parquet",
            "--run",
            "run.parquet",
            "-m",
            "ap",
            "--baseline",
            "damaged-results.parquet",
            "--baseline-run",
            "a",
        ],
        "baseline damaged-results.parquet",
    );
    std::fs::create_dir(dir.path().join("table")).unwrap();
    std::fs::copy(
        dir.path().join("damaged-results.parquet"),
        dir.path().join("table/part-00000.parquet"),
    )
    .unwrap();
    refused(dir.path(), &["report", "table"], "table/part-00000.parquet");
}

/// `rankeval args` in `dir` with `stdin` piped in (temporary files there).
fn with_stdin(dir: &Path, args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    super::faults::with_stdin(dir, dir, args, stdin)
}

#[cfg(unix)]
#[test]
fn a_damaged_page_read_from_a_pipe_or_a_fifo_is_refused() {
    let dir = inputs();
    let run = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    // A run from standard input.
    let args = [
        "eval",
        "--qrels",
        "qrels.parquet",
        "--run-format",
        "parquet",
        "--run",
        "-",
        "-m",
        "ap",
    ];
    let (code, _, stderr) = with_stdin(dir.path(), &args, &run("run.parquet"));
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = with_stdin(dir.path(), &args, &run("damaged-run.parquet"));
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("stdin"), "{stderr}");
    assert!(stderr.contains("CRC checksum mismatch"), "{stderr}");
    // Per-query results from /dev/stdin, and from a FIFO.
    let report = ["report", "/dev/stdin"];
    let (code, pristine, stderr) = with_stdin(dir.path(), &report, &run("results.parquet"));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        pristine,
        run_in(dir.path(), &["report", "results.parquet"]).1
    );
    let (code, _, stderr) = with_stdin(dir.path(), &report, &run("damaged-results.parquet"));
    assert_eq!(code, 2);
    assert!(stderr.contains("results file /dev/stdin"), "{stderr}");
    assert!(stderr.contains("CRC checksum mismatch"), "{stderr}");
    let fifo = dir.path().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let bytes = run("damaged-results.parquet");
    let writer = std::thread::spawn(move || {
        // Opening blocks until rankeval opens the other end.
        let _ = std::fs::write(&fifo, bytes);
    });
    let (code, _, stderr) = run_in(dir.path(), &["report", "fifo"]);
    writer.join().unwrap();
    assert_eq!(code, 2);
    assert!(stderr.contains("results file fifo"), "{stderr}");
    assert!(stderr.contains("CRC checksum mismatch"), "{stderr}");
}
