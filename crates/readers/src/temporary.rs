//! The registry of temporary files that a signal ending the process should
//! not leave behind (spill files of streamed runs, a report before its
//! rename). The registry is kept whether or not a handler is installed: the
//! `rankeval` command's handler ([`remove_all`] on INT, TERM or HUP) lives
//! with the command line, and a program using the library decides on its
//! own signal handling.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Temporary files to remove if a signal ends the process.
static TEMPORARY: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes `path` if the process is ended by a signal (with the command
/// line's handler) before [`unregister`] is called.
pub fn register(path: &Path) {
    if let Ok(mut paths) = TEMPORARY.lock() {
        paths.push(path.to_owned());
    }
}

/// `path` is no longer temporary (removed, or renamed into place).
pub fn unregister(path: &Path) {
    if let Ok(mut paths) = TEMPORARY.lock()
        && let Some(at) = paths.iter().rposition(|p| p == path)
    {
        paths.swap_remove(at);
    }
}

/// Removes every registered temporary file (what a signal handler calls
/// before the process ends).
pub fn remove_all() {
    let paths = match TEMPORARY.lock() {
        Ok(mut paths) => std::mem::take(&mut *paths),
        Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
    };
    for path in paths {
        let _ = std::fs::remove_file(path);
    }
}
