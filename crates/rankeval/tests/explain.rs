//! Explain (`rankeval::explain`, what `rankeval explain` prints) gives, for
//! every metric, the value `eval` reports for the query, bit for bit: on trec_eval's test data, and on a small set with
//! tied scores, graded and negative judgements, and repeated documents.
//! Every built-in metric explains itself (more than `name = value`), and
//! its per-rank terms add up to its value.

use rankeval::core::registry;
use rankeval::core::{Duplicates, Explanation, Metric, Qrels, Run};
use rankeval::explain::explain;
use rankeval::{
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
    "f1(beta=2)@5",
    "fallout@5",
    "fallout(negatives=judged)",
    "auc",
    "auc(negatives=judged)@5",
    "judged@5",
    "unjudged@5",
    "ncrr@3",
    "relative_p@5",
    "rprec_mult(mult=0.5)",
    "rprec_mult(mult=1.4)",
    "iprec_at_recall(recall=0)",
    "iprec_at_recall(recall=0.5)",
    "iprec_at_recall(recall=1)",
    "eleven_point_average",
    "utility(a=3,b=-2,c=-1,d=1,collection=100)",
    "rbp_resid(p=0.5)",
    "weighted",
    "weighted(gain=exponential,discount=reciprocal,norm=none)@5",
    "weighted(gain=binary,discount=geometric,p=0.5,norm=unbounded)",
    "weighted(gain=binary,discount=none,norm=weights)@3",
    "ndcg_gain_map(gains=\"0=1,1=3,2=9\")",
];

/// Metrics registered by this test binary, not built in (`plugin.rs`):
/// they keep the default explanation.
const NOT_BUILT_IN: &[&str] = &["judged_share"];

/// Every built-in metric: each registered one's example and bare form.
fn built_in() -> Vec<Box<dyn Metric>> {
    registry::metrics()
        .iter()
        .filter(|d| !NOT_BUILT_IN.contains(&d.name))
        .flat_map(|d| {
            let required = d.params.iter().any(|p| p.default == "required");
            let bare = (!required).then(|| parse_metric(d.name).unwrap());
            std::iter::once((d.example)()).chain(bare)
        })
        .collect()
}

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
    let metrics = built_in();
    assert!(metrics.len() > 60, "{} built-in forms", metrics.len());
    let e = explain(
        &qrels,
        "qrels",
        &run,
        "run",
        &query,
        &metrics,
        &Options::default(),
    )
    .unwrap();
    for e in &e.metrics {
        assert_ne!(
            e.formula,
            format!(
                "{} = {}",
                e.metric,
                rankeval::core::explain::number(e.value)
            ),
            "{} has only the default explanation",
            e.metric
        );
        assert!(
            e.formula.starts_with(&format!("{} = ", e.metric)),
            "{}: {}",
            e.metric,
            e.formula
        );
        let n = e.columns.first().map_or(0, |c| c.values.len());
        assert!(
            e.columns.iter().all(|c| c.values.len() == n),
            "{}: a column of another length",
            e.metric
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

/// The sum of a column's terms (its name, or its name and a note in
/// parentheses).
fn column_sum(e: &Explanation, name: &str) -> f64 {
    let noted = format!("{name} (");
    let column = e
        .columns
        .iter()
        .find(|c| c.name == name || c.name.starts_with(&noted));
    let column = column.unwrap_or_else(|| panic!("{}: no column {name}", e.metric));
    column.values.iter().flatten().fold(0.0, |a, b| a + b)
}

/// A named quantity.
fn quantity(e: &Explanation, name: &str) -> f64 {
    let q = e.quantities.iter().find(|q| q.name == name);
    q.unwrap_or_else(|| panic!("{}: no quantity {name}", e.metric))
        .value
}

/// `a / b`, 0 when `b` is 0.
fn over(a: f64, b: f64) -> f64 {
    if b == 0.0 { 0.0 } else { a / b }
}

/// The value the trec_eval measures' and NCRR's and weighted's per-rank
/// terms and quantities give, recomputed from the explanation alone.
fn from_terms(spec: &str, e: &Explanation) -> f64 {
    match spec {
        "g" => over(
            column_sum(e, "gain / log2(2 + cost - gained)"),
            quantity(e, "ideal total gain"),
        ),
        "bin_g" | "infap" => {
            let column = if spec == "bin_g" {
                "1 / log2(2 + above)"
            } else {
                "1/i + (i-1)/i x pool/(i-1) x (rel+eps)/(judged+2eps)"
            };
            over(column_sum(e, column), quantity(e, "|R|"))
        }
        "ncrr@5" => over(column_sum(e, "rel(i) / i"), quantity(e, "ICRR")),
        "ndcg_gain_map(gains=\"1=3,2=9\")" => over(column_sum(e, "DCG term"), quantity(e, "IDCG")),
        "weighted@5" => over(column_sum(e, "term"), quantity(e, "Z")),
        "rbp_resid" => {
            let unjudged = &e
                .columns
                .iter()
                .find(|c| c.name == "unjudged")
                .unwrap()
                .values;
            let weights = &e
                .columns
                .iter()
                .find(|c| c.name == "p^(i-1)")
                .unwrap()
                .values;
            let sum = unjudged
                .iter()
                .zip(weights)
                .filter(|(u, _)| **u == Some(1.0))
                .fold(0.0, |a, (_, w)| a + w.unwrap());
            if sum == 0.0 {
                0.0
            } else {
                quantity(e, "p^n") + 0.1 * sum
            }
        }
        "rndcg" => {
            let points = quantity(e, "points");
            // Points past the list's end are in the formula only; with
            // every point on a rank, the column gives the value.
            over(column_sum(e, "DCG / IDCG at a point"), points)
        }
        "auc" => {
            let pairs = quantity(e, "positives") * quantity(e, "negatives");
            over(column_sum(e, "relevant above this negative"), pairs)
        }
        "fallout" => over(column_sum(e, "negative"), quantity(e, "|N|")),
        "judged@5" => over(
            column_sum(e, "judged"),
            5f64.min(e.columns[0].values.len() as f64),
        ),
        "iprec_at_recall(recall=0)" => {
            let column = &e
                .columns
                .iter()
                .find(|c| c.name == "max P@j, j >= i")
                .unwrap();
            column.values.first().copied().flatten().unwrap_or(0.0)
        }
        other => unreachable!("{other}"),
    }
}

/// The new measures' per-rank terms and quantities give their value: on
/// trec_eval's graded test data and on the small set with ties, negative
/// grades and a repeated document.
#[test]
fn trec_measures_terms_give_the_value() {
    let specs = [
        "g",
        "bin_g",
        "infap",
        "ncrr@5",
        "ndcg_gain_map(gains=\"1=3,2=9\")",
        "weighted@5",
        "rbp_resid",
        "auc",
        "fallout",
        "judged@5",
        "iprec_at_recall(recall=0)",
    ];
    let metrics: Vec<_> = specs.iter().map(|m| parse_metric(m).unwrap()).collect();
    let rndcg = vec![parse_metric("rndcg").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("qrels.txt"), QRELS).unwrap();
    std::fs::write(dir.path().join("run.trec"), RUN).unwrap();
    let sets = [
        (
            data("trec_eval/qrels.rel_level"),
            data("trec_eval/results.test"),
        ),
        (dir.path().join("qrels.txt"), dir.path().join("run.trec")),
    ];
    let (mut checked, mut rndcg_checked) = (0, 0);
    for (qrels, run) in sets {
        let qrels = read_qrels(&Input::file(qrels)).unwrap();
        let run = read_run(
            &Input::file(run),
            ReadOptions {
                duplicates: Duplicates::First,
                ..ReadOptions::default()
            },
        )
        .unwrap();
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
            for (spec, m) in specs.iter().zip(&e.metrics) {
                let value = from_terms(spec, m);
                assert!(
                    (value - m.value).abs() < 1e-12,
                    "{spec} on {query}: terms give {value}, value {}",
                    m.value
                );
                checked += 1;
            }
            let e = explain(
                &qrels,
                "qrels",
                &run,
                "run",
                query,
                &rndcg,
                &Options::default(),
            )
            .unwrap();
            let m = &e.metrics[0];
            // Where every point lies on a rank of the list, the column
            // holds them all; points past the end are in the formula only.
            let on_ranks = m.columns[4].values.iter().flatten().count() as f64;
            if on_ranks == quantity(m, "points") {
                let value = from_terms("rndcg", m);
                assert!((value - m.value).abs() < 1e-12, "rndcg on {query}");
                rndcg_checked += 1;
            }
        }
    }
    // trec_eval's 3 queries and the small set's 3 with a list.
    assert_eq!(checked, 6 * specs.len());
    assert!(rndcg_checked > 0);
}
