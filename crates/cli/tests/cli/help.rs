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
fn report_help() {
    rankeval_snapshot!("report_help", &["report", "--help"]);
}

#[test]
fn run_help() {
    rankeval_snapshot!("run_help", &["run", "--help"]);
}

#[test]
fn history_help() {
    rankeval_snapshot!("history_help", &["history", "--help"]);
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

/// `rankeval metrics NAME...` lists only the plugins a name, an alias or
/// part of a name picks, sections without one left out.
#[test]
fn metrics_filtered_by_name() {
    crate::rankeval_snapshot!("metrics_filtered", &["metrics", "map", "gini", "median"]);
    let (code, stdout, _) = super::run(&["metrics", "ndcg"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("\n  ndcg\n") && stdout.contains("\n  ndcg_gain_map"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("Aggregators") && !stdout.contains("Short syntax"),
        "{stdout}"
    );
    let (code, stdout, stderr) = super::run(&["metrics", "ndcg", "nope"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(
        stderr.starts_with("error: no metric, aggregator or corpus metric is called `nope`"),
        "{stderr}"
    );
    let (code, _, stderr) = super::run(&["metrics", "P_10"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("trec_eval's name for `p@10`"), "{stderr}");
}

/// `rankeval metrics --format json` is the registry for scripts: every
/// plugin of the text listing, with its parameters and an example that
/// builds.
#[test]
fn metrics_as_json_for_scripts() {
    let (code, stdout, stderr) = super::run(&["metrics", "--format", "json"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    let document: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
    let (_, text, _) = super::run(&["metrics"]);
    for kind in ["metrics", "aggregators", "corpus_metrics"] {
        let entries = document[kind].as_array().expect(kind);
        assert!(!entries.is_empty(), "{kind}");
        for entry in entries {
            let name = entry["name"].as_str().unwrap();
            assert!(
                text.contains(&format!("\n  {name}")),
                "{name} is in the text listing"
            );
            assert!(
                entry["summary"].as_str().is_some_and(|s| !s.is_empty()),
                "{name}"
            );
            assert!(
                entry["params"].is_array() && entry["aliases"].is_array(),
                "{name}"
            );
        }
    }
    let ap = document["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "average_precision")
        .expect("ap is listed");
    assert!(ap["aliases"].as_array().unwrap().iter().any(|a| a == "map"));
    assert!(
        ap["params"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "k")
    );
    let (code, filtered, _) = super::run(&["metrics", "--format", "json", "rr"]);
    assert_eq!(code, 0);
    let filtered: serde_json::Value = serde_json::from_str(&filtered).unwrap();
    assert!(filtered["aggregators"].as_array().unwrap().is_empty());
    assert!(
        filtered["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["name"] == "reciprocal_rank")
    );
}

/// `--version` names the package's version and, built from a checkout, the
/// commit (the one checked out when the binary was built) as build
/// metadata: `rankeval 0.1.0+1a2b3c4d5e`.
#[test]
fn version_names_the_commit() {
    let (code, stdout, stderr) = super::run(&["--version"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    let version = format!("rankeval {}", env!("CARGO_PKG_VERSION"));
    let rest = stdout
        .strip_prefix(&version)
        .unwrap_or_else(|| panic!("{stdout}"));
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=10", "HEAD"])
        .current_dir(super::workspace())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    match head {
        Some(commit) => assert_eq!(rest, format!("+{commit}\n")),
        None => assert_eq!(rest, "\n"),
    }
}
