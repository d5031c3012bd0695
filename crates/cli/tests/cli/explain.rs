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

/// The peers' definitions of issue 40 show their terms: the overlap with
/// the ideal ranking, C/W/L's gain, C(i) and W(i), the score groups, the
/// confusion matrix over the catalogue.
#[test]
fn the_peers_definitions_on_the_quickstart() {
    rankeval_snapshot!(
        "explain_peers_quickstart",
        &[
            "explain",
            "--qrels",
            "examples/quickstart/qrels.txt",
            "--run",
            "examples/quickstart/runs/baseline.trec",
            "--query",
            "q2",
            "-m",
            "compatibility(p=0.8)",
            "-m",
            "INST(T=2,max_rel=3)",
            "-m",
            "nerr8(max_rel=3)@5",
            "-m",
            "lrap",
            "-m",
            "average_precision_score",
            "-m",
            "mcc(catalog=100)@5",
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

/// `explain` takes `eval`'s input options (formats, `--csv-*`,
/// `--qrels-columns`, `--run-columns`) and gives eval's value for the
/// query with them; with an experiment file, which says how its inputs are
/// read, they are refused with a reason.
#[test]
fn explain_takes_evals_input_options() {
    let dir = super::scratch(&[
        ("truth.csv", "qid,docno,rating\nq1,a,0\nq1,b,4\nq2,c,1\n"),
        (
            "run.tsv",
            "qid\tdocno\tprob\nq1\ta\t0.9\nq1\tb\t0.5\nq2\tc\t0.7\n",
        ),
        ("run.trec", "q1 Q0 a 1 0.9 t\n"),
        ("qrels.txt", "q1 0 a 1\n"),
        (
            "exp.toml",
            "qrels = \"qrels.txt\"\n\n[[runs]]\npath = \"run.trec\"\n",
        ),
    ]);
    let flags = [
        "--csv-query",
        "qid",
        "--csv-doc",
        "docno",
        "--qrels-columns",
        "grade=rating",
        "--run-columns",
        "score=prob",
    ];
    let inputs = ["--qrels", "truth.csv", "--run", "run.tsv", "-m", "ap"];
    let (code, eval, stderr) = super::run_in(
        dir.path(),
        &[
            &["eval", "--per-query", "--format", "json"][..],
            &inputs,
            &flags,
        ]
        .concat(),
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    let eval: serde_json::Value = serde_json::from_str(&eval).unwrap();
    let (code, explained, stderr) = super::run_in(
        dir.path(),
        &[
            &["explain", "--query", "q1", "--format", "json"][..],
            &inputs,
            &flags,
        ]
        .concat(),
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    let explained: serde_json::Value = serde_json::from_str(&explained).unwrap();
    // b (rating 4) at rank 2 is q1's one relevant document: AP 1/2.
    assert_eq!(explained["metrics"][0]["value"], 0.5);
    assert_eq!(
        explained["metrics"][0]["value"],
        eval["runs"][0]["per_query"]["ap"]["q1"]
    );
    for flag in [&["--csv-grade", "rating"][..], &["--run-format", "trec"]] {
        let (code, _, stderr) = super::run_in(
            dir.path(),
            &[&["explain", "exp.toml", "--query", "q1"][..], flag].concat(),
        );
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("exp.toml sets how its inputs are read"),
            "{stderr}"
        );
    }
}

/// Two runs side by side: one table per metric with a group of columns per
/// run, each run's formula, and the values with their difference; each
/// run's values are the ones `explain` gives it alone. JSON holds each
/// run's explanation and the differences.
#[test]
fn two_runs_side_by_side() {
    let inputs = [
        "explain",
        "--qrels",
        "examples/quickstart/qrels.txt",
        "--run",
        "examples/quickstart/runs/baseline.trec",
        "--run",
        "examples/quickstart/runs/v2.jsonl",
        "--query",
        "q1",
        "-m",
        "ap",
        "-m",
        "ndcg@5",
    ];
    rankeval_snapshot!("explain_two_runs", &inputs);
    rankeval_snapshot!(
        "explain_two_runs_from_toml_markdown",
        &[
            "explain",
            "examples/quickstart/experiment.toml",
            "--run",
            "baseline",
            "--run",
            "v2",
            "--query",
            "q1",
            "-m",
            "p@3",
            "--format",
            "markdown"
        ]
    );
    let json = |args: &[&str]| -> serde_json::Value {
        let (code, stdout, stderr) = super::run(&[args, &["--format", "json"]].concat());
        assert_eq!(code, 0, "{stderr}");
        serde_json::from_str(&stdout).expect("JSON")
    };
    let both = json(&inputs);
    assert_eq!(both["query"], "q1");
    for (i, run) in ["baseline.trec", "v2.jsonl"].iter().enumerate() {
        let path = format!("examples/quickstart/runs/{run}");
        let mut alone = inputs.to_vec();
        alone.retain(|a| !a.ends_with(".trec") && !a.ends_with(".jsonl"));
        alone.retain(|a| *a != "--run");
        alone.extend(["--run", &path]);
        let alone = json(&alone);
        assert_eq!(both["runs"][i], alone, "{run}");
    }
    let values = &both["values"][0];
    assert_eq!(values["metric"], "ap");
    let (a, b) = (
        values["values"][0].as_f64().unwrap(),
        values["values"][1].as_f64().unwrap(),
    );
    // (serde_json's default parser may be an ulp off: compared within 1e-15.)
    let difference = values["differences"][1].as_f64().unwrap();
    assert!((difference - (b - a)).abs() < 1e-15, "{difference} {a} {b}");
    assert_eq!(values["differences"][0].as_f64().unwrap(), 0.0);
    // One run twice is refused.
    let (code, _, stderr) = super::run(&[
        "explain",
        "examples/quickstart/experiment.toml",
        "--run",
        "v2",
        "--run",
        "v2",
        "--query",
        "q1",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--run v2 is given twice"), "{stderr}");
}
