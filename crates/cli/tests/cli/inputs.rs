//! Inputs that are not regular files: a pipe as `/dev/stdin` (as a shell's
//! `<(...)` gives `/dev/fd/63`) is read like a file, from flags and from an
//! experiment file; a directory is refused as one.

use std::io::Write;
use std::process::{Command, Stdio};

use super::{run_in, scratch, transcript};

const QRELS: &str = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n";
const RUN: &str = "q1 Q0 a 1 0.9 t\nq1 Q0 b 2 0.5 t\nq2 Q0 c 1 0.7 t\n";

/// `rankeval <args>` in `dir` with `stdin` piped in; exit code, stdout, stderr.
fn with_stdin(dir: &std::path::Path, args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rankeval"))
        .args(args)
        .current_dir(dir)
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the rankeval binary runs");
    let mut pipe = child.stdin.take().expect("a stdin pipe");
    // rankeval may refuse the input before reading it: a closed pipe then.
    let _ = pipe.write_all(stdin.as_bytes());
    drop(pipe);
    let output = child.wait_with_output().expect("rankeval finishes");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[cfg(unix)]
#[test]
fn a_run_from_a_pipe() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "-m",
        "p@1",
        "--format",
        "csv",
    ];
    let from_file = run_in(dir.path(), &[&args[..], &["--run", "run.trec"]].concat());
    let (code, stdout, stderr) = with_stdin(
        dir.path(),
        &[&args[..], &["--run", "/dev/stdin"]].concat(),
        RUN,
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(from_file.0, 0);
    assert_eq!(
        stdout,
        from_file.1.replace("\nrun,", "\nstdin,"),
        "the same values under the name `stdin`"
    );
}

/// `-` is standard input, for a run (named `stdin`, or as `NAME=-`
/// names it) or the qrels, read as `/dev/stdin` is; given to two inputs,
/// an error before anything is read.
#[cfg(unix)]
#[test]
fn a_dash_reads_standard_input() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let args = ["eval", "-m", "p@1", "--format", "csv"];
    let from_file = run_in(
        dir.path(),
        &[&args[..], &["--qrels", "qrels.txt", "--run", "run.trec"]].concat(),
    );
    assert_eq!(from_file.0, 0, "{from_file:?}");
    let run = with_stdin(
        dir.path(),
        &[&args[..], &["--qrels", "qrels.txt", "--run", "-"]].concat(),
        RUN,
    );
    assert_eq!(
        run,
        (0, from_file.1.replace("\nrun,", "\nstdin,"), String::new())
    );
    let named = with_stdin(
        dir.path(),
        &[&args[..], &["--qrels", "qrels.txt", "--run", "bm25=-"]].concat(),
        RUN,
    );
    assert_eq!(
        named,
        (0, from_file.1.replace("\nrun,", "\nbm25,"), String::new())
    );
    let qrels = with_stdin(
        dir.path(),
        &[&args[..], &["--qrels", "-", "--run", "run.trec"]].concat(),
        QRELS,
    );
    assert_eq!(qrels, (0, from_file.1.clone(), String::new()));
    let twice = with_stdin(
        dir.path(),
        &[&args[..], &["--qrels", "-", "--run", "-"]].concat(),
        QRELS,
    );
    assert_eq!(
        (twice.0, twice.2.as_str()),
        (
            2,
            "error: `-` (standard input) is given to more than one input; it can be read once\n"
        )
    );
}

#[cfg(unix)]
#[test]
fn qrels_from_a_pipe() {
    let dir = scratch(&[("run.trec", RUN)]);
    let args = [
        "eval",
        "--qrels",
        "/dev/stdin",
        "--run",
        "run.trec",
        "-m",
        "p@1",
        "--format",
        "csv",
    ];
    let (code, stdout, stderr) = with_stdin(dir.path(), &args, QRELS);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(stdout, "run,query,aggregate,p@1\nrun,,mean,1\n");
}

#[cfg(unix)]
#[test]
fn an_experiment_run_from_a_pipe() {
    let toml = "qrels = \"qrels.txt\"\n\n[[runs]]\nname = \"piped\"\npath = \"/dev/stdin\"\n\n[[metrics]]\ntype = \"p\"\nk = 1\n";
    let dir = scratch(&[("qrels.txt", QRELS), ("exp.toml", toml)]);
    let (code, stdout, stderr) =
        with_stdin(dir.path(), &["run", "exp.toml", "--format", "csv"], RUN);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(stdout, "run,query,aggregate,p@1\npiped,,mean,1\n");
}

#[test]
fn a_directory_is_not_an_input() {
    let dir = scratch(&[("qrels.txt", QRELS), ("runs/run.trec", RUN)]);
    let args = ["eval", "--qrels", "qrels.txt", "--run", "runs"];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 2);
    insta::assert_snapshot!("error_run_is_a_directory", transcript(&args, result));
    let toml = "qrels = \"qrels.txt\"\n\n[[runs]]\npath = \"runs\"\n";
    std::fs::write(dir.path().join("exp.toml"), toml).unwrap();
    let args = ["run", "exp.toml"];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 2);
    insta::assert_snapshot!("config_run_is_a_directory", transcript(&args, result));
}
