//! Names the commit the crates are built from, for `rankeval::version()`
//! (`0.1.0+1a2b3c4d5e`: `rankeval --version` and the Python package's
//! `__version__`): `RANKEVAL_COMMIT`, empty where the sources are not a
//! git checkout of rankeval (a crate from crates.io, an sdist unpacked by
//! pip). The commit is named only where git tracks this build script, so
//! that sources unpacked inside another repository (a home directory kept
//! in git, say) do not take its commit. The build is redone when the
//! checkout's HEAD moves.
//!
//! Cargo reruns a build script on every build while a path it declared with
//! `rerun-if-changed` is missing, and then rebuilds this crate and all that
//! depends on it: so only paths that exist are declared ([`watched`]). A
//! checkout without `.git/packed-refs` (the usual case until `git gc` packs
//! the refs) once rebuilt everything on every `cargo build`;
//! `scripts/ci/check-build-script.sh` checks that it no longer does.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `git ARGS`' output, trimmed; `None` where git or a checkout is missing.
fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
        .filter(|text| !text.is_empty())
}

/// The paths whose modification means HEAD may name another commit, each
/// one existing (a directory is watched with everything under it):
///
/// * the worktree's `HEAD` (a checkout, a detached commit);
/// * with the reftable backend, the `reftable` directory, which holds every
///   ref;
/// * otherwise, for a branch: its loose ref file, which every commit
///   rewrites; while the branch has none (its ref packed, or no commit yet)
///   the directory where the next commit will create it and `packed-refs`
///   if it exists. Once the loose file exists the next run watches it
///   alone, so commits on other branches do not rerun this script.
fn watched(git_dir: &Path, common: &Path, branch: Option<&str>) -> Vec<PathBuf> {
    let mut paths = vec![git_dir.join("HEAD")];
    let reftable = common.join("reftable");
    if reftable.is_dir() {
        paths.push(reftable);
    } else if let Some(branch) = branch {
        let loose = common.join(branch);
        if loose.is_file() {
            paths.push(loose);
        } else {
            if let Some(parent) = loose
                .ancestors()
                .skip(1)
                .take_while(|dir| dir.starts_with(common) && *dir != common)
                .find(|dir| dir.is_dir())
            {
                paths.push(parent.to_path_buf());
            }
            paths.push(common.join("packed-refs"));
        }
    }
    paths.retain(|path| path.exists());
    paths
}

fn main() {
    // Build scripts run in their package's directory: this file is tracked
    // by the checkout that holds it, or the sources are not rankeval's
    // checkout.
    let tracked = git(&["ls-files", "--full-name", "build.rs"]).is_some();
    let commit = tracked
        .then(|| git(&["rev-parse", "--short=10", "HEAD"]))
        .flatten()
        .unwrap_or_default();
    println!("cargo:rustc-env=RANKEVAL_COMMIT={commit}");
    if let (true, Some(git_dir), Some(common)) = (
        tracked,
        git(&["rev-parse", "--git-dir"]),
        git(&["rev-parse", "--git-common-dir"]),
    ) {
        let branch = git(&["symbolic-ref", "-q", "HEAD"]);
        for path in watched(Path::new(&git_dir), Path::new(&common), branch.as_deref()) {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
