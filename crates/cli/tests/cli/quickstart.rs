//! The quickstart example in every output format.

use crate::rankeval_snapshot;

const EXPERIMENT: &str = "examples/quickstart/experiment.toml";

#[test]
fn table() {
    rankeval_snapshot!("quickstart_table", &["run", EXPERIMENT]);
}

#[test]
fn table_per_query() {
    rankeval_snapshot!(
        "quickstart_table_per_query",
        &["run", EXPERIMENT, "--per-query"]
    );
}

#[test]
fn json() {
    rankeval_snapshot!("quickstart_json", &["run", EXPERIMENT, "--format", "json"]);
}

#[test]
fn json_per_query_is_one_document() {
    let (code, stdout, _) = super::run(&["run", EXPERIMENT, "--format", "json", "--per-query"]);
    assert_eq!(code, 0);
    let document: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
    let runs = document["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["name"], "baseline");
    assert_eq!(runs[0]["num_queries"], 6);
    assert_eq!(runs[0]["per_query"]["ap"].as_object().unwrap().len(), 6);
    assert!(document["warnings"].as_array().unwrap().is_empty());
}

#[test]
fn csv() {
    rankeval_snapshot!(
        "quickstart_csv",
        &["run", EXPERIMENT, "--format", "csv", "--per-query"]
    );
}

#[test]
fn markdown() {
    rankeval_snapshot!(
        "quickstart_markdown",
        &["run", EXPERIMENT, "--format", "markdown"]
    );
}

#[test]
fn trec() {
    rankeval_snapshot!("quickstart_trec", &["run", EXPERIMENT, "--format", "trec"]);
}

#[test]
fn eval_flags_match_the_experiment_file() {
    let from_toml = super::run(&["run", EXPERIMENT, "--format", "json", "--per-query"]);
    let from_flags = super::run(&[
        "eval",
        "--qrels",
        "examples/quickstart/qrels.txt",
        "--run",
        "examples/quickstart/runs/baseline.trec",
        "--run",
        "examples/quickstart/runs/v2.jsonl",
        "-m",
        "map",
        "-m",
        "average_precision(normalization=truncated)@10",
        "-m",
        "ndcg@10",
        "-m",
        "precision@5",
        "-m",
        "recall@10",
        "-m",
        "mrr",
        "--format",
        "json",
        "--per-query",
    ]);
    assert_eq!(from_toml.0, 0);
    assert_eq!(from_toml, from_flags);
}

#[test]
fn output_file_is_written_whole() {
    let dir = super::scratch(&[]);
    let target = dir.path().join("report.json");
    let experiment = super::workspace().join(EXPERIMENT);
    let (code, stdout, stderr) = super::run_in(
        dir.path(),
        &[
            "run",
            experiment.to_str().unwrap(),
            "--format",
            "json",
            "-o",
            "report.json",
        ],
    );
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (0, "", ""));
    let written = std::fs::read_to_string(target).unwrap();
    let expected = super::run(&["run", EXPERIMENT, "--format", "json"]).1;
    assert_eq!(written, expected);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
}

#[test]
fn readme_shows_what_the_main_command_prints() {
    let readme = std::fs::read_to_string(super::workspace().join("README.md")).unwrap();
    let quoted = readme
        .split("The first prints:\n\n```text\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("README quotes the quickstart's output after \"The first prints:\"");
    let (code, stdout, _) = super::run(&["run", EXPERIMENT]);
    assert_eq!(code, 0);
    assert_eq!(
        quoted, stdout,
        "README.md quotes an outdated quickstart output"
    );
}

/// `metrics` and `aggregators` as strings in the short syntax that `-m`
/// and `-a` take (and mixed with tables) give the same report, byte for
/// byte, as the quickstart's `[[metrics]]` tables.
#[test]
fn metrics_as_short_syntax_strings_equal_the_tables() {
    let examples = super::workspace().join("examples/quickstart");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("short.toml"),
        format!(
            "name = \"quickstart\"\nqrels = \"{q}\"\n\
             metrics = [\"map\", \"ap(norm=truncated)@10\", {{ type = \"ndcg\", k = 10 }}, \"p@5\", \"recall@10\", \"rr\"]\n\
             aggregators = [\"mean\"]\n\n\
             [[runs]]\nname = \"baseline\"\npath = \"{b}\"\n\n[[runs]]\nname = \"v2\"\npath = \"{v}\"\n",
            q = examples.join("qrels.txt").display(),
            b = examples.join("runs/baseline.trec").display(),
            v = examples.join("runs/v2.jsonl").display(),
        ),
    )
    .unwrap();
    let tables = super::run(&["run", EXPERIMENT, "--format", "json", "--per-query"]);
    let short = super::run_in(
        dir.path(),
        &["run", "short.toml", "--format", "json", "--per-query"],
    );
    assert_eq!(tables.0, 0, "{tables:?}");
    assert_eq!(short, tables);
}
