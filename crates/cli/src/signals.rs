//! What happens on a signal: temporary files are removed on INT, TERM and
//! HUP before the process ends as the signal asks; a fault in a mapped input
//! file (SIGBUS: another process truncated it while it was read) ends the
//! process with an error naming the file (exit code 2) instead of a bare
//! crash.
//!
//! The handlers are installed by the `rankeval` command ([`install`]); a
//! program using the library decides on its own signal handling. The
//! registry of temporary files (`rankeval_readers::temporary`) and of
//! mapped files is kept either way. One of the places rankeval uses `unsafe`: installing a
//! handler, and the async-signal-safe calls in it.

#![allow(unsafe_code)]

use std::sync::Once;

use signal_hook::consts::{SIGBUS, SIGHUP, SIGINT, SIGTERM};

/// Installs the handlers (once; later calls do nothing): a thread that, on
/// INT, TERM or HUP, removes the registered temporary files and then ends
/// the process as the signal's default action does; and the SIGBUS handler
/// for mapped inputs.
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            let _ = std::thread::Builder::new()
                .name("rankeval-signals".into())
                .spawn(move || {
                    if let Some(signal) = signals.forever().next() {
                        rankeval_readers::temporary::remove_all();
                        let _ = signal_hook::low_level::emulate_default_handler(signal);
                        std::process::exit(128 + signal);
                    }
                });
        }
        // SAFETY: the action only reads atomics (`mapped::name_at`), calls
        // write(2) and _exit(2), which are async-signal-safe, or restores
        // the default action and raises the signal again.
        let _ = unsafe {
            signal_hook_registry::register_sigaction(SIGBUS, |info| {
                let address = info.si_addr() as usize;
                match rankeval_readers::mapped_name_at(address) {
                    Some(name) => {
                        write_stderr(b"error: ");
                        write_stderr(name);
                        write_stderr(
                            b": cannot read: the file changed (truncated by another process?) while it was read\n",
                        );
                        libc::_exit(2);
                    }
                    None => {
                        let _ = signal_hook::low_level::emulate_default_handler(SIGBUS);
                    }
                }
            })
        };
    });
}

/// write(2) to standard error, from a signal handler.
fn write_stderr(bytes: &[u8]) {
    let mut rest = bytes;
    while !rest.is_empty() {
        // SAFETY: a plain write of a valid buffer; async-signal-safe.
        let n = unsafe { libc::write(2, rest.as_ptr().cast(), rest.len()) };
        if n <= 0 {
            return;
        }
        rest = &rest[n as usize..];
    }
}

#[cfg(test)]
mod tests {
    use std::process::Command;
    use std::sync::atomic::{AtomicBool, Ordering};

    use rankeval_readers::{Input, ReadOptions, read_run_with};

    const CHILD: &str = "RANKEVAL_TEST_TRUNCATE_WHILE_READ";
    const SIGNALLED: &str = "RANKEVAL_TEST_SIGNALLED";

    /// In a child process: registers a temporary file, then is sent each
    /// of INT, TERM and HUP; the file must be gone and the process ended by
    /// the signal.
    #[cfg(unix)]
    #[test]
    fn a_signal_removes_registered_temporary_files() {
        use std::os::unix::process::ExitStatusExt;
        if let (Some(path), Ok(signal)) = (std::env::var_os(SIGNALLED), std::env::var("SIGNAL")) {
            super::install();
            rankeval_readers::temporary::register(std::path::Path::new(&path));
            let signal: i32 = signal.parse().unwrap();
            let _ = signal_hook::low_level::raise(signal);
            std::thread::sleep(std::time::Duration::from_secs(30));
            std::process::exit(0);
        }
        for signal in [super::SIGINT, super::SIGTERM, super::SIGHUP] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(".tmpREPORT");
            std::fs::write(&path, "partial").unwrap();
            let output = Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "signals::tests::a_signal_removes_registered_temporary_files",
                    "--test-threads=1",
                ])
                .env(SIGNALLED, &path)
                .env("SIGNAL", signal.to_string())
                .output()
                .unwrap();
            assert_eq!(output.status.signal(), Some(signal), "{output:?}");
            assert!(!path.exists(), "the temporary file is removed");
        }
    }

    /// In a child process (the fault ends it): maps a run file, and after
    /// the first block is parsed truncates it, as another process might.
    #[test]
    fn a_file_truncated_while_read_is_an_error_naming_it() {
        if let Some(path) = std::env::var_os(CHILD) {
            super::install();
            let truncated = AtomicBool::new(false);
            let input = Input::file(&path).with_name("run.trec");
            let _ = read_run_with(&input, ReadOptions::default(), &|_| {
                if !truncated.swap(true, Ordering::SeqCst) {
                    let file = std::fs::File::options().write(true).open(&path).unwrap();
                    file.set_len(0).unwrap();
                }
            });
            // Not reached when the fault is handled.
            std::process::exit(0);
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.trec");
        let line = "q1 Q0 d0000001 1 0.5 t\n";
        // More than one of the reader's 32 MiB blocks (4 MiB only in the
        // readers crate's own tests), so that the file is truncated while
        // a block remains to be read.
        let lines = (40 << 20) / line.len();
        let text: String = (0..lines)
            .map(|i| format!("q{} Q0 d{:07} 1 0.5 t\n", i / 100, i % 100))
            .collect();
        std::fs::write(&path, text).unwrap();
        let output = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "signals::tests::a_file_truncated_while_read_is_an_error_naming_it",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, &path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(
                "error: run.trec: cannot read: the file changed (truncated by another process?) while it was read\n"
            ),
            "{stderr}"
        );
        assert_eq!(output.status.code(), Some(2), "{stderr}");
    }
}
