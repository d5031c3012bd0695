//! Parity with trec_eval's own test suite: for every measure trec_eval
//! shares with rankeval (the metric's `trec_eval()` name), every query's
//! value and the overall value equal `out.test.*` to 4 decimals.

use std::collections::BTreeMap;

use rankeval::core::TrecAll;
use rankeval::{
    Input, Missing, Options, ReadOptions, RelevanceLevel, evaluate, parse_metric, read_qrels,
    read_run,
};

use crate::common::data;

/// `(measure, query or "all") -> value as printed`.
fn expected(file: &str) -> BTreeMap<(String, String), String> {
    std::fs::read_to_string(data(&format!("trec_eval/{file}")))
        .unwrap()
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 3, "{line}");
            (
                (fields[0].trim().to_owned(), fields[1].trim().to_owned()),
                fields[2].trim().to_owned(),
            )
        })
        .collect()
}

/// Every metric whose trec_eval measure `-m all_trec` prints, by the short
/// syntax; the test finds each one's line by the metric's own `trec_eval()`
/// name, so the names are checked too.
const METRICS: &[&str] = &[
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "rprec",
    "bpref",
    "reciprocal_rank",
    "p@5",
    "p@10",
    "p@15",
    "p@20",
    "p@30",
    "p@100",
    "p@200",
    "p@500",
    "p@1000",
    "recall@5",
    "recall@10",
    "recall@15",
    "recall@20",
    "recall@30",
    "recall@100",
    "recall@200",
    "recall@500",
    "recall@1000",
    "ndcg",
    "ndcg@5",
    "ndcg@10",
    "ndcg@15",
    "ndcg@20",
    "ndcg@30",
    "ndcg@100",
    "ndcg@200",
    "ndcg@500",
    "ndcg@1000",
    "ap@5",
    "ap@10",
    "ap@15",
    "ap@20",
    "ap@30",
    "ap@100",
    "ap@200",
    "ap@500",
    "ap@1000",
    "success@1",
    "success@5",
    "success@10",
    "precision",
    "recall",
    "f1",
    "rbp(p=0.9,gain=graded)",
];

/// Evaluates `run` against `qrels` and checks every shared measure against
/// `expected`; returns how many values were compared.
fn check(qrels: &str, run: &str, expected_file: &str, options: Options) -> usize {
    let qrels = read_qrels(&Input::file(data(&format!("trec_eval/{qrels}")))).unwrap();
    let run = read_run(
        &Input::file(data(&format!("trec_eval/{run}"))),
        ReadOptions::default(),
    )
    .unwrap();
    let metrics: Vec<_> = METRICS.iter().map(|m| parse_metric(m).unwrap()).collect();
    let evaluation = evaluate(&qrels, &run, &metrics, &options);
    let expected = expected(expected_file);
    assert_eq!(
        expected[&("num_q".to_owned(), "all".to_owned())],
        evaluation.queries().len().to_string()
    );
    let mut compared = 0;
    let mut mismatches = Vec::new();
    for (m, metric) in metrics.iter().enumerate() {
        let trec = metric
            .trec_eval()
            .unwrap_or_else(|| panic!("{} has no trec_eval name", metric.name()));
        let column = evaluation.column(m);
        let mut values: Vec<(String, f64)> = evaluation
            .queries()
            .iter()
            .cloned()
            .zip(column.iter().copied())
            .collect();
        let all = match trec.all {
            TrecAll::Mean => rankeval::metrics::aggregators::mean::mean(&column),
            TrecAll::Sum => column.iter().sum(),
        };
        values.push(("all".to_owned(), all));
        for (query, value) in values {
            let key = (trec.name.clone(), query.clone());
            let Some(want) = expected.get(&key) else {
                panic!("{expected_file} has no line for {key:?}");
            };
            let got = match trec.all {
                TrecAll::Sum => format!("{value:.0}"),
                TrecAll::Mean => format!("{value:.4}"),
            };
            if &got != want {
                mismatches.push(format!(
                    "{} ({}) {query}: {got} != {want}",
                    trec.name,
                    metric.name()
                ));
            }
            compared += 1;
        }
    }
    let map = metrics
        .iter()
        .position(|m| m.name() == "ap")
        .expect("map is evaluated");
    let gmean = rankeval::parse_aggregator("gmean").unwrap();
    let gm_map = format!("{:.4}", evaluation.aggregate(map, gmean.as_ref()));
    let want = &expected[&("gm_map".to_owned(), "all".to_owned())];
    if &gm_map != want {
        mismatches.push(format!("gm_map all: {gm_map} != {want}"));
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    compared + 1
}

#[test]
fn all_queries_match_out_test_aq() {
    let compared = check(
        "qrels.test",
        "results.test",
        "out.test.aq",
        Options::default(),
    );
    assert_eq!(compared, METRICS.len() * 4 + 1);
}

#[test]
fn missing_queries_scored_zero_match_out_test_aqc() {
    let options = Options {
        missing: Missing::Zero,
        ..Options::default()
    };
    let compared = check("qrels.test", "results.trunc", "out.test.aqc", options);
    assert_eq!(compared, METRICS.len() * 4 + 1);
}

#[test]
fn relevance_level_two_matches_out_test_aql() {
    let options = Options {
        level: RelevanceLevel::new(2).unwrap(),
        ..Options::default()
    };
    let compared = check("qrels.rel_level", "results.test", "out.test.aql", options);
    assert_eq!(compared, METRICS.len() * 4 + 1);
}

#[test]
fn skipping_missing_queries_leaves_them_out_and_says_so() {
    let qrels = read_qrels(&Input::file(data("trec_eval/qrels.test"))).unwrap();
    let run = read_run(
        &Input::file(data("trec_eval/results.trunc")),
        ReadOptions::default(),
    )
    .unwrap();
    let metrics = vec![parse_metric("map").unwrap()];
    let evaluation = evaluate(&qrels, &run, &metrics, &Options::default());
    assert_eq!(evaluation.queries(), ["301", "303"]);
    assert_eq!(evaluation.coverage().missing_skipped.count, 1);
    assert_eq!(evaluation.coverage().missing_skipped.first, ["302"]);
    assert_eq!(
        evaluation
            .warnings()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "1 judged query has no list in the run and was left out (to score it 0, use --missing zero; TOML: missing = \"zero\"): `302`"
        ]
    );
}
