//! Metric names as people write them elsewhere: a list of cutoffs for one
//! family (`ndcg@1,3,5`, BEIR's twenty measures in four flags) and
//! ir_measures' names (`nDCG@10`, `RR(rel=2)@10`, `NumRet`, `IPrec@0.2`),
//! each read once, in rankeval-core, by -m, TOML and Python alike.

use super::{run, run_in, scratch, workspace};

const QRELS: &str = "crates/cli/tests/data/trec_eval/qrels.test";
const RESULTS: &str = "crates/cli/tests/data/trec_eval/results.test";

/// `rankeval eval` on trec_eval's test data with `metrics`, per query, as
/// CSV.
fn eval(metrics: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "eval",
        "--qrels",
        QRELS,
        "--run",
        RESULTS,
        "--per-query",
        "--format",
        "csv",
    ];
    for m in metrics {
        args.extend(["-m", m]);
    }
    run(&args)
}

/// The values of a CSV report, without its header (the metrics' names).
fn values(csv: &str) -> Vec<String> {
    csv.lines().skip(1).map(str::to_owned).collect()
}

#[test]
fn a_list_of_cutoffs_is_one_metric_per_cutoff_in_flags_and_toml() {
    let (code, listed, stderr) = eval(&["ndcg@1,3,5,10,100", "p(rel=2)@5, 10"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    let (code, one_by_one, stderr) = eval(&[
        "ndcg@1",
        "ndcg@3",
        "ndcg@5",
        "ndcg@10",
        "ndcg@100",
        "p(rel=2)@5",
        "p(rel=2)@10",
    ]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(listed, one_by_one);
    assert!(listed.starts_with(
        "run,query,aggregate,ndcg@1,ndcg@3,ndcg@5,ndcg@10,ndcg@100,p(rel=2)@5,p(rel=2)@10\n"
    ));

    let data = workspace().join("crates/cli/tests/data/trec_eval");
    let read = |name: &str| std::fs::read_to_string(data.join(name)).unwrap();
    let toml = "qrels = \"qrels.test\"\n\
                metrics = [\"ndcg@1,3,5,10,100\", \"p(rel=2)@5, 10\"]\n\
                [[runs]]\nname = \"results\"\npath = \"results.test\"\n";
    let dir = scratch(&[
        ("qrels.test", &read("qrels.test")),
        ("results.test", &read("results.test")),
        ("experiment.toml", toml),
    ]);
    let (code, from_toml, stderr) = run_in(
        dir.path(),
        &["run", "experiment.toml", "--per-query", "--format", "csv"],
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(from_toml, one_by_one);
}

/// Commas after a cutoff list cutoffs only; each cutoff of a list is
/// checked as the metric it stands for (k = 0, k = 2^64), and a recall
/// level past 1 is refused.
#[test]
fn commas_never_separate_metrics() {
    insta::assert_snapshot!(
        "metric_names_commas",
        super::transcript(
            &[
                "eval",
                "...",
                "-m",
                "ndcg@10,ap",
                "-m",
                "ndcg@10,",
                "-m",
                "p@0,18446744073709551616,5",
                "-m",
                "IPrec@1.5"
            ],
            eval(&[
                "ndcg@10,ap",
                "ndcg@10,",
                "p@0,18446744073709551616,5",
                "IPrec@1.5"
            ])
        )
    );
}

/// ir_measures' names read as the rankeval metrics that give ir_measures'
/// values (scripts/cross-check/ir-measures.py compares them with
/// ir_measures itself).
#[test]
fn ir_measures_names_are_rankeval_metrics() {
    let pairs = [
        ("nDCG@10", "ndcg@10"),
        ("RR(rel=2)@10", "rr(rel=2)@10"),
        ("AP(rel=2)", "ap(rel=2)"),
        ("Success@5", "hit_rate@5"),
        ("Judged@10", "judged@10"),
        ("R@1000", "recall@1000"),
        ("P(rel=2)@10", "precision(rel=2)@10"),
        ("nDCG(dcg='exp-log2')@10", "ndcg(gain=exponential)@10"),
        ("NumRet", "num_ret"),
        ("NumRet(rel=1)", "num_rel_ret(rel=1)"),
        ("SetP", "precision"),
        ("SetF(beta=2.0)", "f1(beta2=2)"),
        ("IPrec@0.2", "iprec_at_recall(recall=0.2)"),
        ("ERR@20", "err@20"),
    ];
    let (code, theirs, stderr) = eval(&pairs.map(|(ir, _)| ir));
    assert_eq!((code, stderr.as_str()), (0, ""));
    let (code, ours, stderr) = eval(&pairs.map(|(_, rankeval)| rankeval));
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(values(&theirs), values(&ours));
    insta::assert_snapshot!(
        "metric_names_ir_measures_header",
        theirs.lines().next().unwrap()
    );
}

#[test]
fn ir_measures_names_without_an_equivalent_are_refused_with_the_reason() {
    insta::assert_snapshot!(
        "metric_names_ir_measures_refused",
        super::transcript(
            &[
                "eval",
                "...",
                "-m",
                "NumQ",
                "-m",
                "alpha_nDCG@10",
                "-m",
                "nDCG(gains=x)@10",
                "-m",
                "RBP"
            ],
            eval(&["NumQ", "alpha_nDCG@10", "nDCG(gains=x)@10", "RBP"])
        )
    );
}

/// A list of 20,000 cutoffs in one -m is 20,000 metrics in bounded memory:
/// each metric's origin is its own cutoff (as its errors name it), not the
/// whole 108 kB list copied for each, which took 2 GB.
#[test]
fn a_list_of_many_cutoffs_runs_in_bounded_memory() {
    let dir = scratch(&[("qrels.txt", "q1 0 a 1\n"), ("run.trec", "q1 Q0 a 1 1 t\n")]);
    let cutoffs: Vec<String> = (1..=20_000).map(|k| k.to_string()).collect();
    let list = format!("p@{}", cutoffs.join(","));
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_rankeval"));
    command
        .args(["eval", "--qrels", "qrels.txt", "--run", "run.trec"])
        .args(["-m", &list, "--format", "csv"])
        .current_dir(dir.path())
        .env_clear();
    super::limit_address_space(&mut command, 1 << 30);
    let output = command.output().expect("the rankeval binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let header = stdout.lines().next().unwrap_or_default();
    assert!(header.ends_with(",p@19999,p@20000"), "{}", header.len());
    assert_eq!(header.matches(",p@").count(), 20_000);
}
