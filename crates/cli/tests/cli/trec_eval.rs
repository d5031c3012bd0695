//! The binary's `--format trec` output on trec_eval's own test files: every
//! line it prints for a measure trec_eval also has equals trec_eval's line.

use std::collections::BTreeMap;

fn lines(text: &str) -> BTreeMap<(String, String), String> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            (fields.len() == 3).then(|| {
                (
                    (fields[0].trim().to_owned(), fields[1].trim().to_owned()),
                    fields[2].trim().to_owned(),
                )
            })
        })
        .collect()
}

fn check(args: &[&str], expected: &str) {
    let mut all = vec![
        "eval",
        "--format",
        "trec",
        "--per-query",
        "-a",
        "mean",
        "-a",
        "gmean",
    ];
    all.extend_from_slice(args);
    let metrics = [
        "map",
        "p@5",
        "p@1000",
        "recall@100",
        "ap@30",
        "mrr",
        "success@5",
        "ndcg",
        "ndcg@10",
        "rprec",
        "bpref",
        "num_ret",
        "num_rel",
        "num_rel_ret",
    ];
    for m in metrics {
        all.extend_from_slice(&["-m", m]);
    }
    let (code, stdout, stderr) = super::run_in(&crate::common::data("trec_eval"), &all);
    assert_eq!(code, 0, "{stderr}");
    let expected = lines(
        &std::fs::read_to_string(crate::common::data(&format!("trec_eval/{expected}"))).unwrap(),
    );
    let got = lines(&stdout);
    let mut compared = 0;
    for (key, value) in &got {
        if key.0 == "runid" {
            continue;
        }
        // trec_eval prints a geometric mean only for map and bpref.
        if key.0.starts_with("gm_") && !expected.contains_key(key) {
            continue;
        }
        assert_eq!(Some(value), expected.get(key), "{key:?}");
        compared += 1;
    }
    // num_q, each measure for 3 queries and all, gm_map and gm_bpref.
    assert_eq!(compared, 1 + metrics.len() * 4 + 2);
}

#[test]
fn trec_output_matches_out_test_aq() {
    check(
        &["--qrels", "qrels.test", "--run", "results.test"],
        "out.test.aq",
    );
}

#[test]
fn missing_zero_matches_out_test_aqc() {
    check(
        &[
            "--qrels",
            "qrels.test",
            "--run",
            "results.trunc",
            "--missing",
            "zero",
        ],
        "out.test.aqc",
    );
}

#[test]
fn rel_two_matches_out_test_aql() {
    check(
        &[
            "--qrels",
            "qrels.rel_level",
            "--run",
            "results.test",
            "--rel",
            "2",
        ],
        "out.test.aql",
    );
}

/// The values trec_eval gives for `measure`, per query and `all`.
fn measure(expected: &str, measure: &str) -> BTreeMap<String, String> {
    let text =
        std::fs::read_to_string(crate::common::data(&format!("trec_eval/{expected}"))).unwrap();
    lines(&text)
        .into_iter()
        .filter(|((m, _), _)| m == measure)
        .map(|((_, query), value)| (query, value))
        .collect()
}

/// `rankeval`'s `--format trec` lines for `measure`, per query and `all`.
fn printed(stdout: &str, measure: &str) -> BTreeMap<String, String> {
    lines(stdout)
        .into_iter()
        .filter(|((m, _), _)| m == measure)
        .map(|((_, query), value)| (query, value))
        .collect()
}

#[test]
fn the_experiment_level_rel_key_is_trec_evals_l() {
    let data = crate::common::data("trec_eval");
    let toml = format!(
        "qrels = {:?}\nrel = 2\n\n[[runs]]\nname = \"test\"\npath = {:?}\n\n\
         [[metrics]]\ntype = \"average_precision\"\n\n\
         [[metrics]]\ntype = \"precision\"\nk = 10\n\n\
         [[metrics]]\ntype = \"bpref\"\n",
        data.join("qrels.rel_level").display().to_string(),
        data.join("results.test").display().to_string(),
    );
    let dir = super::scratch(&[("experiment.toml", &toml)]);
    let (code, stdout, stderr) = super::run_in(
        dir.path(),
        &["run", "experiment.toml", "--format", "trec", "--per-query"],
    );
    assert_eq!(code, 0, "{stderr}");
    for name in ["map", "P_10", "bpref"] {
        let expected = measure("out.test.aql", name);
        assert_eq!(expected.len(), 4, "{name}: three queries and all");
        assert_eq!(printed(&stdout, name), expected, "{name}");
    }
}

#[test]
fn a_metrics_own_rel_overrides_the_experiment_level() {
    let args = [
        "eval",
        "--qrels",
        "qrels.rel_level",
        "--run",
        "results.test",
        "--rel",
        "2",
        "-m",
        "p(rel=1)@10",
        "--format",
        "trec",
        "--per-query",
    ];
    let (code, stdout, stderr) = super::run_in(&crate::common::data("trec_eval"), &args);
    assert_eq!(code, 0, "{stderr}");
    // Its level differs from the experiment's, so it is not trec_eval's
    // `P_10` at `-l2` and keeps its own name; its values are those of
    // `p@10` at level 1, which differ from level 2's.
    assert!(printed(&stdout, "P_10").is_empty());
    let graded_at_one = printed(&stdout, "p(rel=1)@10");
    assert_eq!(graded_at_one.len(), 4);
    assert_ne!(graded_at_one, measure("out.test.aql", "P_10"));
    let (code, plain, stderr) = super::run_in(
        &crate::common::data("trec_eval"),
        &[
            "eval",
            "--qrels",
            "qrels.rel_level",
            "--run",
            "results.test",
            "-m",
            "p@10",
            "--format",
            "trec",
            "--per-query",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(graded_at_one, printed(&plain, "P_10"));
}
