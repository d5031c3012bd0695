//! Listings and help texts.

use crate::rankeval_snapshot;

#[test]
fn metrics_listing() {
    rankeval_snapshot!("metrics", &["metrics"]);
}

#[test]
fn help() {
    rankeval_snapshot!("help", &["--help"]);
}

#[test]
fn eval_help() {
    rankeval_snapshot!("eval_help", &["eval", "--help"]);
}

#[test]
fn run_help() {
    rankeval_snapshot!("run_help", &["run", "--help"]);
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, stderr) = super::run(&["eval", "--qrels", "x"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--run <[NAME=]FILE>"), "{stderr}");
}
