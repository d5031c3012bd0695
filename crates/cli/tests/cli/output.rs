//! Where the report goes: a failed write to stdout is an error (a closed
//! pipe is not), and `-o FILE` replaces the file whole, keeping its
//! permissions, naming only it in errors.

use std::fs;
use std::process::{Command, Stdio};

use super::{run_in, scratch, workspace};

const EXPERIMENT: &str = "examples/quickstart/experiment.toml";
const QRELS: &str = "q1 0 a 1\nq2 0 c 2\n";
const RUN: &str = "q1 Q0 a 1 0.9 t\nq2 Q0 c 1 0.7 t\n";

/// `rankeval <args>` from the workspace root with stdout going to `stdout`;
/// the exit code and stderr.
fn with_stdout(args: &[&str], stdout: impl Into<Stdio>) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_rankeval"))
        .args(args)
        .current_dir(workspace())
        .env_clear()
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .expect("the rankeval binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_stdout_is_an_error_naming_stdout() {
    for args in [&["run", EXPERIMENT][..], &["metrics"], &["--help"]] {
        let full = fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full opens");
        let (code, stderr) = with_stdout(args, full);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: cannot write <stdout>: "),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let (code, stderr) = with_stdout(&["run", EXPERIMENT], writer);
    assert_eq!((code, stderr.as_str()), (0, ""));
}

#[test]
fn a_failed_write_names_the_target_only() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "run.trec",
        "-o",
        "no/such/dir/report.txt",
    ];
    let (code, _, stderr) = run_in(dir.path(), &args);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: cannot write no/such/dir/report.txt: "),
        "{stderr}"
    );
    assert!(!stderr.contains(".tmp"), "{stderr}");
    assert!(!stderr.contains("at path"), "{stderr}");
    let (code, _, stderr) = run_in(dir.path(), &["metrics", "-o", "."]);
    assert_eq!(code, 2, "{stderr}");
}

#[cfg(unix)]
mod unix {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};

    use super::*;

    fn mode(path: &std::path::Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    /// `rankeval eval ... -o report.txt` under `umask`, in `dir`.
    fn report_under_umask(dir: &std::path::Path, umask: &str) {
        let status = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "umask {umask} && exec \"$0\" eval --qrels qrels.txt --run run.trec -o report.txt"
            ))
            .arg(env!("CARGO_BIN_EXE_rankeval"))
            .current_dir(dir)
            .env_clear()
            .status()
            .expect("sh runs");
        assert!(status.success());
    }

    #[test]
    fn a_new_report_gets_the_usual_permissions() {
        let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
        report_under_umask(dir.path(), "022");
        assert_eq!(mode(&dir.path().join("report.txt")), 0o644);
        fs::remove_file(dir.path().join("report.txt")).unwrap();
        report_under_umask(dir.path(), "027");
        assert_eq!(mode(&dir.path().join("report.txt")), 0o640);
    }

    #[test]
    fn a_replaced_report_keeps_its_permissions() {
        let dir = scratch(&[
            ("qrels.txt", QRELS),
            ("run.trec", RUN),
            ("report.txt", "old"),
        ]);
        let report = dir.path().join("report.txt");
        for wanted in [0o644, 0o664, 0o600] {
            fs::set_permissions(&report, fs::Permissions::from_mode(wanted)).unwrap();
            report_under_umask(dir.path(), "077");
            assert_eq!(mode(&report), wanted);
            assert!(fs::read_to_string(&report).unwrap().starts_with("metric"));
        }
    }

    #[test]
    fn a_fifo_is_written_not_replaced() {
        let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
        let fifo = dir.path().join("out.fifo");
        let made = Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: mkfifo is not available");
            return;
        }
        let path = fifo.clone();
        // Left behind, not joined, if the FIFO were replaced (it would
        // block forever on open).
        let reader = std::thread::spawn(move || fs::read_to_string(path));
        let (code, _, stderr) = run_in(
            dir.path(),
            &[
                "eval",
                "--qrels",
                "qrels.txt",
                "--run",
                "run.trec",
                "-o",
                "out.fifo",
            ],
        );
        assert_eq!(code, 0, "{stderr}");
        assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert!(reader.join().unwrap().unwrap().starts_with("metric"));
    }
}
