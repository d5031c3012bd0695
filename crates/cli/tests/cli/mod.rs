//! Tests of the `rankeval` binary: snapshots of every output format, of the
//! listings and help, and of the error for each kind of bad input; values
//! checked against trec_eval through the binary.
//!
//! Every run clears the environment and starts from the workspace root or a
//! temporary directory, with relative paths, so snapshots hold neither
//! absolute paths nor timings.

mod agree;
mod benchmarks;
mod bounds;
mod compare;
mod corpus;
mod csv;
mod diversity;
mod errors;
mod expected;
mod explain;
mod fairness;
mod faults;
mod grades;
mod groups;
mod help;
mod history;
mod hostile;
mod html;
mod inputs;
mod intervals;
mod ir_metadata;
mod judged_only;
mod metric_names;
mod msmarco;
mod naming;
mod never_ran;
mod ope;
mod ope_clicks;
mod ope_front;
mod ope_group_gates;
mod ope_record;
mod output;
mod overlap;
mod parquet_pages;
mod per_input;
mod ppi;
mod propensity;
mod quickstart;
mod report;
mod score_threshold;
mod spans;
mod suite;
mod systems;
mod ties;
mod trec_eval;
mod trec_eval_command;
mod turns;
mod unicode;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root, where `examples/` is.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `rankeval` with `args` from `dir`; returns the exit code, stdout and stderr.
pub fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_rankeval"))
        .args(args)
        .current_dir(dir)
        .env_clear()
        .output()
        .expect("the rankeval binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Runs `rankeval` from the workspace root.
pub fn run(args: &[&str]) -> (i32, String, String) {
    run_in(&workspace(), args)
}

/// The text a snapshot holds: the command, the exit code, stdout and stderr.
pub fn transcript(args: &[&str], (code, stdout, stderr): (i32, String, String)) -> String {
    format!(
        "$ rankeval {}\nexit_code: {code}\n----- stdout -----\n{stdout}----- stderr -----\n{stderr}",
        args.join(" ")
    )
}

/// Snapshots `rankeval <args>` run from the workspace root.
#[macro_export]
macro_rules! rankeval_snapshot {
    ($name:expr, $args:expr) => {{
        let args: &[&str] = $args;
        insta::assert_snapshot!($name, $crate::cli::transcript(args, $crate::cli::run(args)));
    }};
}

/// A scratch directory with `files` written in it.
pub fn scratch(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, text) in files {
        let path = dir.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::fs::write(path, text).expect("write a scratch file");
    }
    dir
}

/// Waits for `child`, killing it and failing the test as `what` when it
/// has not ended within a minute (a read that waits forever on a FIFO).
pub fn wait_or_fail(child: &mut std::process::Child, what: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().expect("wait").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Runs `command` with `bytes` of address space: a reader that allocates
/// what a few hostile bytes claim fails instead of growing.
#[cfg(target_os = "linux")]
pub fn limit_address_space(command: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit is async-signal-safe and touches no memory of the
    // parent; it only lowers the child's own limit.
    #[allow(unsafe_code)]
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}
