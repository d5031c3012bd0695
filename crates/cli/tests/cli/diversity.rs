//! The diversity metrics from the command line and TOML: subtopic
//! judgements given with --subtopic-qrels (TOML `subtopic_qrels`), the
//! qrels made from them when --qrels is not given, `explain`'s terms, and
//! the errors and warnings about the input.

use super::{run_in, scratch, transcript};
use crate::rankeval_snapshot;

const DATA: &str = "crates/rankeval/tests/data/ndeval";

#[test]
fn ndeval_measures_on_the_fixture() {
    let subtopics = format!("{DATA}/subtopics.txt");
    let run = format!("{DATA}/run.trec");
    let mut args = vec!["eval", "--subtopic-qrels", &subtopics, "--run", &run];
    for metric in [
        "alpha_ndcg@20",
        "alpha_dcg@20",
        "err_ia@20",
        "nerr_ia@20",
        "nrbp",
        "nnrbp",
        "map_ia",
        "p_ia@10",
        "strec@10",
        "alpha_ndcg(alpha=0.3)@10",
        "nrbp(rel=2,beta=0.8)",
        "ap",
    ] {
        args.extend(["-m", metric]);
    }
    rankeval_snapshot!("diversity_fixture", &args);
}

#[test]
fn explain_shows_each_ranks_subtopics_and_gain() {
    let subtopics = format!("{DATA}/subtopics.txt");
    let run = format!("{DATA}/run.trec");
    rankeval_snapshot!(
        "diversity_explain",
        &[
            "explain",
            "--subtopic-qrels",
            &subtopics,
            "--run",
            &run,
            "--query",
            "0",
            "-m",
            "alpha_ndcg@5",
            "-m",
            "strec@5",
        ]
    );
}

const FILES: &[(&str, &str)] = &[
    ("sub.txt", "q1 a d1 1\nq1 b d2 1\nq1 b d3 1\nq2 a d1 0\n"),
    (
        "repeats.txt",
        "q1 a d1 1\nq1 a d1 1\nq1 b d2 1\nq1 b d2 1\n",
    ),
    ("qrels.txt", "q1 0 d1 1\nq1 0 d2 1\nq2 0 d1 1\n"),
    (
        "run.trec",
        "q1 Q0 d1 1 3 t\nq1 Q0 d3 2 2 t\nq1 Q0 d2 3 1 t\nq2 Q0 d1 1 1 t\n",
    ),
    (
        "bad.csv",
        "query,subtopic,doc,grade\nq1,a,d1,1\nq1,a,d1,2\n",
    ),
    ("nan.txt", "q1 a d1 1\nq1 a d2 nan\n"),
    (
        "exp.toml",
        "qrels = \"qrels.txt\"\nsubtopic_qrels = \"sub.txt\"\n[[runs]]\npath = \"run.trec\"\n\
         [[metrics]]\ntype = \"alpha_ndcg\"\nk = 2\n[[metrics]]\ntype = \"ap\"\n",
    ),
    (
        "missing.toml",
        "qrels = \"qrels.txt\"\n[[runs]]\npath = \"run.trec\"\n\
         [[metrics]]\ntype = \"err_ia\"\nk = 2\n",
    ),
];

fn in_scratch(name: &str, args: &[&str]) {
    let dir = scratch(FILES);
    let out = run_in(dir.path(), args);
    insta::assert_snapshot!(name, transcript(args, out));
}

#[test]
fn given_qrels_the_queries_are_theirs_and_toml_reads_the_key() {
    in_scratch(
        "diversity_with_qrels",
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--subtopic-qrels",
            "sub.txt",
            "--run",
            "run.trec",
            "-m",
            "alpha_ndcg@2",
            "-m",
            "ap",
            "--per-query",
        ],
    );
    in_scratch("diversity_toml", &["run", "exp.toml", "--per-query"]);
}

#[test]
fn errors_and_warnings_name_the_input() {
    in_scratch(
        "diversity_needs_subtopics",
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "alpha_ndcg@2",
        ],
    );
    in_scratch("diversity_needs_subtopics_toml", &["run", "missing.toml"]);
    in_scratch(
        "diversity_conflicting_grades",
        &[
            "eval",
            "--subtopic-qrels",
            "bad.csv",
            "--run",
            "run.trec",
            "-m",
            "strec@2",
        ],
    );
    in_scratch(
        "diversity_nan_grade",
        &[
            "eval",
            "--subtopic-qrels",
            "nan.txt",
            "--run",
            "run.trec",
            "-m",
            "strec@2",
        ],
    );
    in_scratch(
        "diversity_repeats_counted",
        &[
            "eval",
            "--subtopic-qrels",
            "repeats.txt",
            "--run",
            "run.trec",
            "-m",
            "strec@2",
        ],
    );
    in_scratch(
        "diversity_unused",
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--subtopic-qrels",
            "sub.txt",
            "--run",
            "run.trec",
            "-m",
            "ap",
        ],
    );
    in_scratch(
        "diversity_judged_only_refused",
        &[
            "eval",
            "--subtopic-qrels",
            "sub.txt",
            "--run",
            "run.trec",
            "-m",
            "alpha_ndcg(judged_only=true)@2",
        ],
    );
    in_scratch(
        "diversity_judged_only_flag_refused",
        &[
            "eval",
            "--subtopic-qrels",
            "sub.txt",
            "--run",
            "run.trec",
            "-m",
            "strec@2",
            "--judged-only",
        ],
    );
}
