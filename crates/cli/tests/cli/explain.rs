//! `rankeval explain` on the spec's worked examples (the seed posts' vectors
//! a-j, `examples/seed-vectors`): the tables the posts draw by hand, made by
//! the tool. Also Markdown, JSON, a TOML experiment, and the errors.

use crate::rankeval_snapshot;

const VECTORS: &str = "examples/seed-vectors/vectors.jsonl";

/// `rankeval explain --run vectors.jsonl --query <case> -m ...`.
fn case(name: &str, query: &str, metrics: &[&str]) {
    let mut args = vec!["explain", "--run", VECTORS, "--query", query];
    for m in metrics {
        args.extend(["-m", m]);
    }
    rankeval_snapshot!(name, &args);
}

#[test]
fn seed_vector_a() {
    case(
        "explain_vector_a",
        "a",
        &["ap", "ap(norm=truncated)@5", "ap(norm=hits)@5"],
    );
}

#[test]
fn seed_vector_b() {
    case("explain_vector_b", "b", &["ap(norm=truncated)@5"]);
}

#[test]
fn seed_vector_c() {
    case("explain_vector_c", "c", &["p@5", "p@3"]);
}

#[test]
fn seed_vector_d() {
    case("explain_vector_d", "d", &["p@3", "rr"]);
}

#[test]
fn seed_vector_e() {
    case("explain_vector_e", "e", &["rr@5", "rr"]);
}

#[test]
fn seed_vector_f() {
    case(
        "explain_vector_f",
        "f",
        &[
            "ap(norm=hits)@5",
            "ap(norm=hits)@7",
            "ap(norm=hits)@9",
            "ap(norm=hits)@10",
            "p@10",
            "p@3",
            "p@5",
            "p@7",
        ],
    );
}

#[test]
fn seed_vector_g() {
    case("explain_vector_g", "g", &["ap(norm=hits)@5"]);
}

#[test]
fn seed_vector_h() {
    case("explain_vector_h", "h", &["ap(norm=hits)@5"]);
}

#[test]
fn seed_vector_i() {
    case("explain_vector_i", "i", &["ap@10"]);
}

#[test]
fn seed_vector_j() {
    case("explain_vector_j", "j", &["ap@10"]);
}

#[test]
fn graded_metrics_on_the_quickstart() {
    rankeval_snapshot!(
        "explain_graded_quickstart",
        &[
            "explain",
            "--qrels",
            "examples/quickstart/qrels.txt",
            "--run",
            "examples/quickstart/runs/baseline.trec",
            "--query",
            "q2",
            "-m",
            "ndcg@5",
            "-m",
            "err@5",
            "-m",
            "rbp(p=0.9,gain=graded)@5",
            "-m",
            "bpref",
        ]
    );
}

#[test]
fn markdown() {
    case_format("explain_markdown", "markdown");
}

#[test]
fn json() {
    case_format("explain_json", "json");
}

fn case_format(name: &str, format: &str) {
    rankeval_snapshot!(
        name,
        &[
            "explain", "--run", VECTORS, "--query", "a", "-m", "ap", "-m", "ndcg@3", "--format",
            format,
        ]
    );
}

#[test]
fn from_a_toml_experiment() {
    rankeval_snapshot!(
        "explain_from_toml",
        &[
            "explain",
            "examples/seed-vectors/experiment.toml",
            "--query",
            "j"
        ]
    );
}

#[test]
fn a_query_without_judgements_is_an_error() {
    rankeval_snapshot!(
        "explain_error_unjudged_query",
        &["explain", "--run", VECTORS, "--query", "A", "-m", "ap"]
    );
}

#[test]
fn an_experiment_with_several_runs_needs_a_run_name() {
    rankeval_snapshot!(
        "explain_error_several_runs",
        &[
            "explain",
            "examples/quickstart/experiment.toml",
            "--query",
            "q1"
        ]
    );
}

#[test]
fn a_query_missing_from_the_run_is_an_error_unless_scored_zero() {
    rankeval_snapshot!(
        "explain_error_query_not_in_run",
        &[
            "explain",
            "--qrels",
            "crates/cli/tests/data/trec_eval/qrels.test",
            "--run",
            "crates/cli/tests/data/trec_eval/results.trunc",
            "--query",
            "302",
            "-m",
            "ap"
        ]
    );
}
