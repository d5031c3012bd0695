//! `rankeval explain` gives, for every metric, the value `eval` reports for
//! the query, bit for bit: on trec_eval's test data, and on a small set with
//! tied scores, graded and negative judgements, and repeated documents.
//! Every built-in metric explains itself (more than `name = value`), and
//! its per-rank terms add up to its value.

use rankeval_runner::core::registry;
use rankeval_runner::core::{Duplicates, Metric, Qrels, Run};
use rankeval_runner::explain::explain;
use rankeval_runner::{
    Input, Missing, Options, ReadOptions, RelevanceLevel, evaluate, parse_metric, read_qrels,
    read_run,
};

use crate::common::data;

/// Variants beside every registered metric's example and defaults.
const VARIANTS: &[&str] = &[
    "ap",
    "ap@5",
    "ap(norm=truncated)@5",
    "ap(norm=hits)@5",
    "ap(norm=truncated)",
    "ap(rel=2)@10",
    "p@1",
    "p@5",
    "p(denominator=retrieved)@20",
    "recall@5",
    "rr",
    "rr@3",
    "hit_rate@3",
    "dcg@5",
    "dcg(gain=exponential)@10",
    "ndcg",
    "ndcg@3",
    "ndcg(gain=exponential)@10",
    "rprec",
    "bpref",
    "bpref@5",
    "f1@5",
    "rbp",
    "rbp(p=0.9,gain=graded)",
    "rbp(p=0.5)@3",
    "err",
    "err(max_grade=2)@5",
    "num_ret@5",
    "num_rel",
    "num_rel_ret@10",
];

/// The built-in metrics, which must explain themselves beyond the default.
const BUILT_IN: &[&str] = &[
    "precision",
    "recall",
    "reciprocal_rank",
    "average_precision",
    "hit_rate",
    "dcg",
    "ndcg",
    "r_precision",
    "bpref",
    "f1",
    "rbp",
    "err",
    "num_ret",
    "num_rel",
    "num_rel_ret",
];

fn metrics() -> Vec<Box<dyn Metric>> {
    let mut metrics: Vec<Box<dyn Metric>> = registry::metrics()
        .iter()
        .flat_map(|d| {
            // A metric with a required parameter has no bare form; every
            // other metric must parse by its name alone.
            let required = d.params.iter().any(|p| p.default == "required");
            let bare = (!required).then(|| parse_metric(d.name).unwrap());
            std::iter::once((d.example)()).chain(bare)
        })
        .collect();
    metrics.extend(VARIANTS.iter().map(|m| parse_metric(m).unwrap()));
    metrics
}

/// Explains every evaluated query with every metric and compares the bits
/// with `evaluate`'s; returns how many values were compared.
fn check(qrels: &Qrels, run: &Run, options: &Options) -> usize {
    let metrics = metrics();
    let evaluation = evaluate(qrels, run, &metrics, options);
    let mut compared = 0;
    for (q, query) in evaluation.queries().iter().enumerate() {
        let explained = explain(qrels, "qrels", run, "run", query, &metrics, options).unwrap();
        for (m, e) in explained.metrics.iter().enumerate() {
            let want = evaluation.value(q, m);
            assert_eq!(
                e.value.to_bits(),
                want.to_bits(),
                "{} on {query}: explain {} != eval {want}",
                e.metric,
                e.value
            );
            assert_eq!(e.metric, metrics[m].name());
            compared += 1;
        }
    }
    compared
}

#[test]
fn explain_equals_eval_on_trec_eval_test_data() {
    let qrels = read_qrels(&Input::file(data("trec_eval/qrels.test"))).unwrap();
    let run = read_run(
        &Input::file(data("trec_eval/results.test")),
        ReadOptions::default(),
    )
    .unwrap();
    assert!(check(&qrels, &run, &Options::default()) > 0);
    let qrels = read_qrels(&Input::file(data("trec_eval/qrels.rel_level"))).unwrap();
    let level_two = Options {
        level: RelevanceLevel::new(2).unwrap(),
        ..Options::default()
    };
    assert!(check(&qrels, &run, &level_two) > 0);
}

/// Ties, grades from -1 to 3, unjudged documents, a repeated document
/// (kept first), a query judged but missing from the run (scored 0), a
/// query whose judgements are all non-relevant.
const QRELS: &str = "\
q1 0 a 3\nq1 0 b 2\nq1 0 c 0\nq1 0 d -1\nq1 0 e 1\nq1 0 f 2\nq1 0 g 0\n\
q2 0 x 1\nq2 0 y 0\n\
q3 0 m 0\nq3 0 n -1\n\
q4 0 z 2\n";
const RUN: &str = "\
q1 Q0 c 1 0.9 t\nq1 Q0 a 2 0.9 t\nq1 Q0 h 3 0.8 t\nq1 Q0 b 4 0.5 t\nq1 Q0 a 5 0.4 t\n\
q1 Q0 d 6 0.5 t\nq1 Q0 f 7 0.1 t\nq1 Q0 e 8 0.1 t\nq1 Q0 i 9 0.1 t\nq1 Q0 g 10 0.05 t\n\
q2 Q0 y 1 2 t\nq2 Q0 w 2 1 t\nq2 Q0 x 3 1 t\n\
q3 Q0 n 1 1 t\nq3 Q0 m 2 1 t\nq3 Q0 o 3 1 t\n";

#[test]
fn explain_equals_eval_with_ties_grades_negatives_and_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("qrels.txt"), QRELS).unwrap();
    std::fs::write(dir.path().join("run.trec"), RUN).unwrap();
    let qrels = read_qrels(&Input::file(dir.path().join("qrels.txt"))).unwrap();
    let run = read_run(
        &Input::file(dir.path().join("run.trec")),
        ReadOptions {
            duplicates: Duplicates::First,
            ..ReadOptions::default()
        },
    )
    .unwrap();
    let zero = Options {
        missing: Missing::Zero,
        ..Options::default()
    };
    let compared = check(&qrels, &run, &zero);
    assert_eq!(
        compared,
        4 * metrics().len(),
        "q4 is scored 0 on an empty list"
    );
    let level_two = Options {
        level: RelevanceLevel::new(2).unwrap(),
        ..zero
    };
    check(&qrels, &run, &level_two);
    // The list as the metrics see it: ties by document id descending, the
    // repeated `a` kept at its first (best) place.
    let metrics = vec![parse_metric("ap").unwrap()];
    let e = explain(&qrels, "qrels", &run, "run", "q1", &metrics, &zero).unwrap();
    assert_eq!(
        e.ranking.documents,
        ["c", "a", "h", "d", "b", "i", "f", "e", "g"]
    );
    assert_eq!(e.ranking.grades[2], None);
    assert_eq!(e.ranking.grades[3], Some(-1.0));
}

#[test]
fn every_built_in_metric_explains_itself() {
    let qrels = read_qrels(&Input::file(data("trec_eval/qrels.test"))).unwrap();
    let run = read_run(
        &Input::file(data("trec_eval/results.test")),
        ReadOptions::default(),
    )
    .unwrap();
    let query = run.queries().next().unwrap().to_owned();
    for name in BUILT_IN {
        let metric = parse_metric(name).unwrap();
        let e = explain(
            &qrels,
            "qrels",
            &run,
            "run",
            &query,
            std::slice::from_ref(&metric),
            &Options::default(),
        )
        .unwrap();
        let e = &e.metrics[0];
        assert_ne!(
            e.formula,
            format!(
                "{} = {}",
                e.metric,
                rankeval_runner::core::explain::number(e.value)
            ),
            "{name} has only the default explanation"
        );
    }
}

/// The per-rank terms that are summed give the value: AP's rel(i) x P@i
/// over its divisor, DCG's terms, RBP's and ERR's.
#[test]
fn summed_terms_give_the_value() {
    let qrels = read_qrels(&Input::file(data("trec_eval/qrels.rel_level"))).unwrap();
    let run = read_run(
        &Input::file(data("trec_eval/results.test")),
        ReadOptions::default(),
    )
    .unwrap();
    let specs = [
        ("ap@10", "rel(i) x P@i"),
        ("dcg@10", "DCG term"),
        ("rbp", "utility x p^(i-1)"),
        ("err@20", "R(i) x P(reach i) / i"),
    ];
    let metrics: Vec<_> = specs
        .iter()
        .map(|(m, _)| parse_metric(m).unwrap())
        .collect();
    for query in run.queries() {
        let e = explain(
            &qrels,
            "qrels",
            &run,
            "run",
            query,
            &metrics,
            &Options::default(),
        )
        .unwrap();
        for ((spec, column), m) in specs.iter().zip(&e.metrics) {
            let terms = &m.columns.iter().find(|c| c.name == *column).unwrap().values;
            let sum = terms.iter().flatten().fold(0.0, |a, b| a + b);
            let value = match *spec {
                "ap@10" => {
                    let relevant = m.quantities.iter().find(|q| q.name == "|R|").unwrap().value;
                    if relevant == 0.0 { 0.0 } else { sum / relevant }
                }
                "rbp" => (1.0 - 0.8) * sum,
                _ => sum,
            };
            assert!(
                (value - m.value).abs() < 1e-12,
                "{spec} on {query}: terms give {value}, value {}",
                m.value
            );
        }
    }
}
