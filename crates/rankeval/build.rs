//! Names the commit the crates are built from, for `rankeval::version()`
//! (`0.1.0+1a2b3c4d5e`: `rankeval --version` and the Python package's
//! `__version__`): `RANKEVAL_COMMIT`, empty where the sources are not a
//! git checkout of rankeval (a crate from crates.io, an sdist unpacked by
//! pip). The commit is named only where git tracks this build script, so
//! that sources unpacked inside another repository (a home directory kept
//! in git, say) do not take its commit. The build is redone when the
//! checkout's HEAD moves.

use std::path::PathBuf;
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
    // HEAD, and the branch file it points to (or the packed refs), change
    // when a commit is made or checked out.
    if let (true, Some(git_dir), Some(common)) = (
        tracked,
        git(&["rev-parse", "--git-dir"]),
        git(&["rev-parse", "--git-common-dir"]),
    ) {
        println!(
            "cargo:rerun-if-changed={}",
            PathBuf::from(&git_dir).join("HEAD").display()
        );
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!(
                "cargo:rerun-if-changed={}",
                PathBuf::from(&common).join(branch).display()
            );
        }
        println!(
            "cargo:rerun-if-changed={}",
            PathBuf::from(&common).join("packed-refs").display()
        );
    }
    println!("cargo:rerun-if-changed=build.rs");
}
