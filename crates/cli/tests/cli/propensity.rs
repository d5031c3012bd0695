//! The propensity-scored metrics (psp, psndcg) and Hole@k from the command
//! line and TOML: label frequencies given with --label-counts and
//! --train-instances (TOML `label_counts`, `train_instances`) or inverse
//! propensities with --inverse-propensities, `explain`'s terms, and the
//! errors naming the metric, the option, the file, line and column.

use super::{run_in, scratch, transcript};

/// q1 judges a, c, d relevant; q2 judges b relevant and e not; training:
/// N = 100, a 50 times, b 10, c once, d never (the hand-worked case of
/// `rankeval_metrics::propensity_scored`'s tests).
const FILES: &[(&str, &str)] = &[
    (
        "qrels.txt",
        "q1 0 a 1\nq1 0 c 1\nq1 0 d 1\nq2 0 b 1\nq2 0 e 0\n",
    ),
    (
        "run.trec",
        "q1 Q0 c 1 3 t\nq1 Q0 x 2 2 t\nq1 Q0 a 3 1 t\nq2 Q0 x 1 2 t\nq2 Q0 b 2 1 t\n",
    ),
    ("counts.csv", "label,count\na,50\nb,10\nc,1\ne,7\n"),
    (
        "inverse.tsv",
        "label\tinverse_propensity\na\t1\nb\t2\nc\t4\nd\t8\ne\t1\n",
    ),
    ("bad_count.csv", "label,count\na,50\nb,-3\n"),
    (
        "bad_inverse.tsv",
        "label\tinverse_propensity\na\t1\nb\tNaN\n",
    ),
    ("short_inverse.tsv", "label\tinverse_propensity\na\t1\n"),
    (
        "exp.toml",
        "qrels = \"qrels.txt\"\nlabel_counts = \"counts.csv\"\ntrain_instances = 100\n\
         [[runs]]\npath = \"run.trec\"\n[[metrics]]\ntype = \"psp\"\nk = 2\n\
         [[metrics]]\ntype = \"psndcg\"\nk = 2\nfamily = \"amazon\"\n",
    ),
    (
        "missing.toml",
        "qrels = \"qrels.txt\"\n[[runs]]\npath = \"run.trec\"\n\
         [[metrics]]\ntype = \"psndcg\"\nk = 2\n",
    ),
];

fn in_scratch(name: &str, args: &[&str]) {
    let dir = scratch(FILES);
    let out = run_in(dir.path(), args);
    insta::assert_snapshot!(name, transcript(args, out));
}

const BASE: &[&str] = &["eval", "--qrels", "qrels.txt", "--run", "run.trec"];

fn with(extra: &[&'static str]) -> Vec<&'static str> {
    BASE.iter().chain(extra).copied().collect()
}

#[test]
fn from_label_counts_inverse_propensities_and_toml() {
    in_scratch(
        "propensity_counts",
        &with(&[
            "--label-counts",
            "counts.csv",
            "--train-instances",
            "100",
            "-m",
            "psp@2",
            "-m",
            "psndcg@2",
            "-m",
            "psp(family=wikipedia)@2",
            "-m",
            "psp(a=0)@2",
            "-m",
            "psp(b=1e9)@2",
            "-m",
            "hole@3",
            "-m",
            "unjudged@3",
            "--per-query",
        ]),
    );
    in_scratch(
        "propensity_inverse",
        &with(&[
            "--inverse-propensities",
            "inverse.tsv",
            "-m",
            "psp@2",
            "-m",
            "psndcg@2",
            "--per-query",
        ]),
    );
    in_scratch("propensity_toml", &["run", "exp.toml", "--per-query"]);
    in_scratch(
        "propensity_explain",
        &[
            "explain",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "--query",
            "q1",
            "--label-counts",
            "counts.csv",
            "--train-instances",
            "100",
            "-m",
            "psp@2",
            "-m",
            "hole@3",
        ],
    );
}

#[test]
fn errors_name_the_metric_the_option_and_the_file() {
    in_scratch("propensity_needs_input", &with(&["-m", "psp@2"]));
    in_scratch("propensity_needs_input_toml", &["run", "missing.toml"]);
    in_scratch(
        "propensity_needs_instances",
        &with(&["-m", "psp@2", "--label-counts", "counts.csv"]),
    );
    in_scratch(
        "propensity_instances_alone",
        &with(&["-m", "psp@2", "--train-instances", "100"]),
    );
    in_scratch(
        "propensity_zero_instances",
        &with(&[
            "-m",
            "psp@2",
            "--label-counts",
            "counts.csv",
            "--train-instances",
            "0",
        ]),
    );
    in_scratch(
        "propensity_bad_count",
        &with(&[
            "-m",
            "psp@2",
            "--label-counts",
            "bad_count.csv",
            "--train-instances",
            "100",
        ]),
    );
    in_scratch(
        "propensity_bad_inverse",
        &with(&["-m", "psp@2", "--inverse-propensities", "bad_inverse.tsv"]),
    );
    in_scratch(
        "propensity_inverse_misses_a_label",
        &with(&["-m", "psp@2", "--inverse-propensities", "short_inverse.tsv"]),
    );
    in_scratch(
        "propensity_bad_parameters",
        &with(&[
            "-m",
            "psp(b=0)@2",
            "--label-counts",
            "counts.csv",
            "--train-instances",
            "100",
        ]),
    );
    in_scratch(
        "propensity_k_zero",
        &with(&[
            "-m",
            "psp@0",
            "--label-counts",
            "counts.csv",
            "--train-instances",
            "100",
        ]),
    );
    in_scratch(
        "propensity_unused",
        &with(&[
            "-m",
            "ap",
            "--label-counts",
            "counts.csv",
            "--train-instances",
            "100",
        ]),
    );
    in_scratch(
        "propensity_judged_only",
        &with(&[
            "-m",
            "psp@2",
            "--judged-only",
            "--label-counts",
            "counts.csv",
            "--train-instances",
            "100",
        ]),
    );
}
