//! Corpus metrics from the command line and TOML: asked for with `-m` and
//! `[[metrics]]` like the others, fed by --catalog, --train,
//! --item-features (TOML catalog, training, item_features), shown in every
//! report format; and the errors and warnings about their inputs.

use super::{run, run_in, scratch, transcript};
use crate::rankeval_snapshot;

const EXPERIMENT: &str = "examples/recommender/experiment.toml";

#[test]
fn the_recommender_example_in_every_format() {
    for format in ["table", "json", "csv", "markdown", "trec"] {
        rankeval_snapshot!(
            format!("recommender_{format}"),
            &["run", EXPERIMENT, "--format", format]
        );
    }
}

#[test]
fn the_html_summary_has_the_corpus_metrics() {
    let (code, html, stderr) = run(&["run", EXPERIMENT, "--format", "html"]);
    assert_eq!(code, 0, "{stderr}");
    for name in [
        "catalog_coverage@3",
        "gini@3",
        "novelty@3",
        "ild@3",
        "long_tail_share@3",
    ] {
        assert!(html.contains(&format!("<td>{name}</td>")), "{name}");
    }
}

#[test]
fn flags_give_the_same_values_as_the_experiment_file() {
    let dir = "examples/recommender";
    let args = [
        "eval",
        "--qrels",
        &format!("{dir}/truth.csv"),
        "--run",
        &format!("{dir}/runs/popular.csv"),
        "--run",
        &format!("{dir}/runs/diverse.csv"),
        "--catalog",
        &format!("{dir}/catalog.txt"),
        "--train",
        &format!("{dir}/train.csv"),
        "--item-features",
        &format!("{dir}/item_features.csv"),
        "-m",
        "ndcg@3",
        "-m",
        "recall@3",
        "-m",
        "coverage@3",
        "-m",
        "gini@3",
        "-m",
        "entropy@3",
        "-m",
        "avg_popularity@3",
        "-m",
        "novelty@3",
        "-m",
        "long_tail_share@3",
        "-m",
        "ild@3",
        "--format",
        "json",
    ]
    .map(String::from);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, from_flags, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    let (_, from_file, _) = run(&["run", EXPERIMENT, "--format", "json"]);
    assert_eq!(from_flags, from_file);
}

/// The corpus metrics of the recommender example with `extra` arguments
/// (the qrels, or not), as JSON.
fn corpus_only(extra: &[&str]) -> (i32, String, String) {
    let dir = "examples/recommender";
    let mut args: Vec<String> = [
        "eval",
        "--run",
        &format!("{dir}/runs/popular.csv"),
        "--run",
        &format!("{dir}/runs/diverse.csv"),
        "--catalog",
        &format!("{dir}/catalog.txt"),
        "--train",
        &format!("{dir}/train.csv"),
        "--item-features",
        &format!("{dir}/item_features.csv"),
        "-m",
        "coverage@3",
        "-m",
        "gini@3",
        "-m",
        "novelty@3",
        "-m",
        "ild@3",
        "--format",
        "json",
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&args)
}

#[test]
fn corpus_metrics_alone_need_no_qrels() {
    // Every user of the example has judgements, so every list counts
    // either way: the same report, qrels or not.
    let (code, without, stderr) = corpus_only(&[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    let (_, with, _) = corpus_only(&["--qrels", "examples/recommender/truth.csv"]);
    assert_eq!(without, with);
    assert!(without.contains("\"num_queries\": 6"), "{without}");
    // A per-query metric still needs judgements.
    let (code, _, stderr) = corpus_only(&["-m", "ndcg@3"]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: --qrels is required: examples/recommender/runs/popular.csv is not JSON Lines, so it holds no judgements\n"
    );
    // An experiment file without `qrels`: the same, and the same refusal.
    let toml = "catalog = \"catalog.txt\"\n[[runs]]\npath = \"run.csv\"\n\
                [[metrics]]\ntype = \"catalog_coverage\"\nk = 2\n";
    let dir = scratch(&[
        ("catalog.txt", "A\nB\nC\nD\n"),
        (
            "run.csv",
            "user,item,score\nu1,A,2\nu1,B,1\nu2,A,1\nu2,C,0.5\nu3,A,1\n",
        ),
        ("corpus.toml", toml),
        (
            "mixed.toml",
            &format!("{toml}[[metrics]]\ntype = \"recall\"\n"),
        ),
    ]);
    let args = ["run", "corpus.toml"];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 0, "{}", result.2);
    insta::assert_snapshot!("corpus_without_qrels_toml", transcript(&args, result));
    let args = ["run", "mixed.toml"];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 2, "{}", result.2);
    insta::assert_snapshot!(
        "corpus_without_qrels_toml_per_query",
        transcript(&args, result)
    );
}

#[test]
fn a_missing_input_is_named_before_any_data_is_read() {
    let dir = "examples/recommender";
    let qrels = format!("{dir}/truth.csv");
    let run_file = format!("{dir}/runs/popular.csv");
    for (name, metric) in [
        ("needs_train", "novelty@10"),
        ("needs_catalog", "gini@10"),
        ("needs_features", "ild@10"),
    ] {
        rankeval_snapshot!(
            format!("corpus_{name}"),
            &[
                "eval", "--qrels", &qrels, "--run", &run_file, "-m", "ndcg@10", "-m", metric
            ]
        );
    }
    rankeval_snapshot!(
        "corpus_unknown_name",
        &[
            "eval",
            "--qrels",
            &qrels,
            "--run",
            &run_file,
            "-m",
            "novelti@10"
        ]
    );
}

#[test]
fn toml_errors_name_the_key_and_line() {
    let files = [
        ("truth.csv", "user,item\nu1,a\n"),
        ("run.csv", "user,item,rank\nu1,a,1\nu1,b,2\n"),
        (
            "no_training.toml",
            "qrels = \"truth.csv\"\n[[runs]]\npath = \"run.csv\"\n[[metrics]]\ntype = \"ndcg\"\n\
             [[metrics]]\ntype = \"novelty\"\nk = 10\n",
        ),
        (
            "missing_catalog.toml",
            "qrels = \"truth.csv\"\ncatalog = \"nope.txt\"\n[[runs]]\npath = \"run.csv\"\n",
        ),
        (
            "bad_head.toml",
            "qrels = \"truth.csv\"\ntraining = \"truth.csv\"\n[[runs]]\npath = \"run.csv\"\n\
             [[metrics]]\ntype = \"long_tail_share\"\nhead_share = 1.5\n",
        ),
    ];
    let dir = scratch(&files);
    for name in ["no_training", "missing_catalog", "bad_head"] {
        let args = ["run", &format!("{name}.toml")];
        insta::assert_snapshot!(
            format!("corpus_toml_{name}"),
            transcript(&args, run_in(dir.path(), &args))
        );
    }
}

#[test]
fn bad_input_files_name_the_file_and_line() {
    let dir = scratch(&[
        ("truth.csv", "user,item\nu1,a\n"),
        ("run.csv", "user,item,rank\nu1,a,1\nu1,b,2\n"),
        ("features.csv", "item,x,y\na,1,0\nb,1,zero\n"),
        ("catalog.txt", "a\nb\na\n"),
    ]);
    for (name, flags) in [
        ("features", ["--item-features", "features.csv", "-m", "ild"]),
        ("catalog", ["--catalog", "catalog.txt", "-m", "coverage"]),
    ] {
        let mut args = vec!["eval", "--qrels", "truth.csv", "--run", "run.csv"];
        args.extend(flags);
        insta::assert_snapshot!(
            format!("corpus_bad_{name}"),
            transcript(&args, run_in(dir.path(), &args))
        );
    }
}

#[test]
fn warnings_for_unused_inputs_and_unknown_items() {
    let dir = scratch(&[
        ("truth.csv", "user,item\nu1,a\n"),
        ("run.csv", "user,item,rank\nu1,a,1\nu1,b,2\nu1,c,3\n"),
        ("features.csv", "item,x,y\na,1,0\nb,1,1\n"),
        ("catalog.txt", "a\nb\n"),
        ("train.csv", "user,item\nt1,a\n"),
    ]);
    let args = [
        "eval",
        "--qrels",
        "truth.csv",
        "--run",
        "run.csv",
        "--catalog",
        "catalog.txt",
        "--item-features",
        "features.csv",
        "--train",
        "train.csv",
        "-m",
        "coverage",
        "-m",
        "ild",
    ];
    insta::assert_snapshot!(
        "corpus_warnings",
        transcript(&args, run_in(dir.path(), &args))
    );
}

#[test]
fn explain_says_a_corpus_metric_has_no_per_query_value() {
    rankeval_snapshot!(
        "corpus_explain",
        &[
            "explain",
            "--qrels",
            "examples/recommender/truth.csv",
            "--run",
            "examples/recommender/runs/popular.csv",
            "--query",
            "u1",
            "-m",
            "coverage@3"
        ]
    );
}
