//! Bounds under incomplete judgements (`unjudged=nonrelevant|relevant`,
//! `--bounds`), for every metric on random lists (proptest):
//!
//! - with nothing unjudged in the list, both completions give the value
//!   itself, bit for bit;
//! - every metric that counts an unjudged document as a judged non-relevant
//!   one gives the value itself under `unjudged=nonrelevant`, so the two
//!   completions contain it; the metrics that tell the two apart (bpref,
//!   infAP, judged/unjudged shares, ...) are listed, and each is shown to
//!   differ on some list, so the list is exact;
//! - a metric monotone in relevance (precision, recall, reciprocal rank,
//!   hit rate, ...) is at most its `unjudged=relevant` value; recall@k is
//!   not (an unjudged document below k made relevant lowers it).

use proptest::prelude::*;
use rankeval_core::completion::{Completed, Completion};
use rankeval_core::{Grade, JudgedRanking, Judgement, Metric, RelevanceLevel};

use crate::properties::metrics;

/// Metrics whose value reads whether a document is judged, not only its
/// grade: their value is not their `unjudged=nonrelevant` completion.
const READ_JUDGEDNESS: &[&str] = &[
    "bpref",
    "infap",
    "judged",
    "unjudged",
    "num_nonrel_judged_ret",
    "rbp_resid",
    "fallout",
    "roc_auc",
];

/// Metrics whose value can only grow when a document becomes relevant
/// (and plain precision, `p@k`, below). Not recall@k nor precision divided
/// by min(k, |R|): an unjudged document below k made relevant grows `|R|`
/// and lowers them (the completions still contain the value: it is the
/// other one).
const MONOTONE: &[&str] = &[
    "reciprocal_rank",
    "hit_rate",
    "num_rel_ret",
    "num_ret",
    "num_rel",
];

/// A ranked list (grade or unjudged; -1 is a pooled, unjudged document)
/// and the grades of judged documents not retrieved.
fn list() -> impl Strategy<Value = (Vec<Option<i8>>, Vec<i8>)> {
    (
        prop::collection::vec(prop::option::of(-1i8..=3), 0..=12),
        prop::collection::vec(-1i8..=3, 0..4),
    )
}

/// The ranking and the query's ideal grades (every judged grade, retrieved
/// or not, descending).
fn judged(ranked: &[Option<i8>], unretrieved: &[i8]) -> (Vec<Judgement>, Vec<Grade>) {
    let ranking = ranked
        .iter()
        .map(|g| g.map_or(Judgement::UNJUDGED, |g| Judgement::judged(g.into())))
        .collect();
    let mut ideal: Vec<Grade> = ranked
        .iter()
        .flatten()
        .chain(unretrieved)
        .map(|&g| Grade::from(g))
        .collect();
    ideal.sort_by(|a, b| b.total_cmp(a));
    (ranking, ideal)
}

/// The registered `type` of a metric.
fn type_of(metric: &dyn Metric) -> String {
    serde_json::to_value(metric).unwrap()["type"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The metric's value, its two completions' values.
fn three(metric: Box<dyn Metric>, ranking: &[Judgement], ideal: &[Grade]) -> [f64; 3] {
    let q = JudgedRanking::new(ranking, ranking.len(), ideal, RelevanceLevel::DEFAULT);
    let json = serde_json::to_value(metric.as_ref()).unwrap();
    let copy = || -> Box<dyn Metric> { serde_json::from_value(json.clone()).unwrap() };
    [
        metric.score(&q),
        Completed::new(copy(), Completion::Nonrelevant).score(&q),
        Completed::new(copy(), Completion::Relevant).score(&q),
    ]
}

/// Equal bits, or both NaN.
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn bounds_collapse_and_contain_the_value((ranked, unretrieved) in list()) {
        let (ranking, ideal) = judged(&ranked, &unretrieved);
        let holes = ranking.iter().any(|j| !j.is_judged() || j.grade() < 0.0);
        for metric in metrics() {
            let name = metric.name();
            let kind = type_of(metric.as_ref());
            let [value, low, high] = three(metric, &ranking, &ideal);
            if !holes {
                prop_assert!(same(value, low) && same(value, high), "{name}: {value} {low} {high}");
            }
            if !READ_JUDGEDNESS.contains(&kind.as_str()) {
                prop_assert!(same(value, low), "{name}: value {value}, unjudged=nonrelevant {low}");
            }
            let plain_precision = name == "p" || name.strip_prefix("p@").is_some_and(|k| k.parse::<u32>().is_ok());
            if MONOTONE.contains(&kind.as_str()) || plain_precision {
                prop_assert!(value <= high, "{name}: value {value} > unjudged=relevant {high}");
            }
        }
    }
}

#[test]
fn the_metrics_reading_judgedness_are_exactly_those_listed() {
    // A list with an unjudged document above a relevant one, judged
    // non-relevant documents and a pooled (-1) one.
    let ranked = [None, Some(1), Some(0), Some(-1), None, Some(2), Some(0)];
    let (ranking, ideal) = judged(&ranked, &[1, 0, 0]);
    let mut differing: Vec<String> = metrics()
        .into_iter()
        .filter_map(|metric| {
            let kind = type_of(metric.as_ref());
            let [value, low, _] = three(metric, &ranking, &ideal);
            (!same(value, low)).then_some(kind)
        })
        .collect();
    differing.sort();
    differing.dedup();
    let mut listed: Vec<String> = READ_JUDGEDNESS.iter().map(|s| (*s).to_owned()).collect();
    listed.sort();
    assert_eq!(differing, listed);
}

#[test]
fn completions_on_a_worked_example() {
    // P@3 of [-, 1, -]: 1/3; every unjudged relevant: 3/3. Recall: |R| = 2
    // (a relevant document not retrieved), 1 of 2; completed relevant, 3 of
    // 4 (the two unjudged join the relevant ones).
    let (ranking, ideal) = judged(&[None, Some(1), None], &[1]);
    let p3 = rankeval_core::registry::parse_metric("p@3").unwrap();
    assert_eq!(three(p3, &ranking, &ideal), [1.0 / 3.0, 1.0 / 3.0, 1.0]);
    let recall = rankeval_core::registry::parse_metric("recall").unwrap();
    assert_eq!(three(recall, &ranking, &ideal), [0.5, 0.5, 0.75]);
    let named = rankeval_core::registry::parse_metric("p(unjudged=relevant)@3").unwrap();
    assert_eq!(named.name(), "p(unjudged=relevant)@3");
    let graded = rankeval_core::registry::parse_metric("ndcg(unjudged=3)@3").unwrap();
    assert_eq!(graded.name(), "ndcg(unjudged=3)@3");
    assert!(
        rankeval_core::registry::parse_metric("p(unjudged=relevant,judged_only=true)@3").is_err()
    );
}
