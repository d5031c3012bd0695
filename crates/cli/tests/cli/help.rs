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

/// `rankeval completions SHELL` prints a completion script that knows the
/// subcommands and their flags, for each shell clap_complete supports.
#[test]
fn completions_for_each_shell() {
    for (shell, marker) in [
        ("bash", "_rankeval()"),
        ("zsh", "#compdef rankeval"),
        ("fish", "complete -c rankeval"),
        ("elvish", "rankeval"),
        ("powershell", "rankeval"),
    ] {
        let (code, stdout, stderr) = super::run(&["completions", shell]);
        assert_eq!((code, stderr.as_str()), (0, ""), "{shell}");
        assert!(stdout.contains(marker), "{shell}: {marker}");
        for word in ["eval", "explain", "metrics", "--qrels", "--per-query"] {
            assert!(stdout.contains(word), "{shell} completes {word}");
        }
    }
    let (code, _, stderr) = super::run(&["completions", "tcsh"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("invalid value 'tcsh'"), "{stderr}");
}
