//! The spec's test vectors (spec/metrics.md, from the seed posts), one test
//! per case, expected values written as the arithmetic of the definition.

use rankeval_core::registry::{parse_aggregator, parse_metric};
use rankeval_core::{Duplicates, Judge, QrelsBuilder, RelevanceLevel, RunBuilder};

/// Scores the metric `spec` on one query: `ranked` best first, `relevant`
/// judged 1, every other retrieved document judged 0.
fn score(spec: &str, ranked: &[&str], relevant: &[&str]) -> f64 {
    let metric = parse_metric(spec).unwrap();
    let mut qrels = QrelsBuilder::new();
    for doc in relevant {
        qrels.push("q", doc, 1).unwrap();
    }
    let qrels = qrels.finish().unwrap();
    let mut run = RunBuilder::new();
    run.push_list("q", ranked).unwrap();
    let run = run.finish(Duplicates::Error).unwrap();
    let query = qrels.query_index(b"q").unwrap();
    let mut judge = Judge::new(metric.depth().map(|k| k.get()), RelevanceLevel::DEFAULT);
    metric.score(&judge.judge(&qrels, query, run.list("q")))
}

/// Ranks 1..=len with the relevant ones at `ranks`, as document ids.
fn pattern(len: usize, ranks: &[usize]) -> (Vec<String>, Vec<String>) {
    let ranked: Vec<String> = (1..=len).map(|i| format!("d{i}")).collect();
    let relevant = ranks.iter().map(|i| format!("d{i}")).collect();
    (ranked, relevant)
}

fn score_pattern(spec: &str, len: usize, ranks: &[usize]) -> f64 {
    let (ranked, relevant) = pattern(len, ranks);
    let ranked: Vec<&str> = ranked.iter().map(String::as_str).collect();
    let relevant: Vec<&str> = relevant.iter().map(String::as_str).collect();
    score(spec, &ranked, &relevant)
}

fn mean(values: &[f64]) -> f64 {
    parse_aggregator("mean").unwrap().aggregate(values)
}

const CASE_A: (&[&str], &[&str]) = (&["A", "B", "C", "D", "E"], &["B", "D", "Z"]);
const CASE_B: (&[&str], &[&str]) = (&["A", "C", "E", "B", "D"], &["B", "D", "Z"]);
const CASE_C: (&[&str], &[&str]) = (
    &["A", "B", "C", "L", "Y", "U", "F", "Z"],
    &["A", "K", "B", "Z"],
);
const CASE_D: (&[&str], &[&str]) = (&["N", "X", "Y", "B", "M"], &["E", "B"]);
const CASE_E: (&[&str], &[&str]) = (
    &["A", "B", "C", "L", "Y", "U", "F", "Z"],
    &["C", "K", "B", "Z"],
);

#[test]
fn ap_truncated_case_a() {
    let ap = score("ap(norm=truncated)@5", CASE_A.0, CASE_A.1);
    assert_eq!(ap, (1.0 / 2.0 + 2.0 / 4.0) / 3.0);
}

#[test]
fn ap_truncated_case_b_and_map_over_a_b() {
    let b = score(
        "average_precision(normalization=truncated)@5",
        CASE_B.0,
        CASE_B.1,
    );
    assert_eq!(b, (1.0 / 4.0 + 2.0 / 5.0) / 3.0);
    let a = score("ap(norm=truncated)@5", CASE_A.0, CASE_A.1);
    let map = mean(&[a, b]);
    assert_eq!(
        map,
        ((1.0 / 2.0 + 2.0 / 4.0) / 3.0 + (1.0 / 4.0 + 2.0 / 5.0) / 3.0) / 2.0
    );
    assert!((map - 0.275).abs() < 1e-12);
}

#[test]
fn precision_case_c() {
    assert_eq!(score("precision@5", CASE_C.0, CASE_C.1), 2.0 / 5.0);
    assert_eq!(score("p@3", CASE_C.0, CASE_C.1), 2.0 / 3.0);
}

#[test]
fn precision_and_rr_case_d() {
    assert_eq!(score("p@3", CASE_D.0, CASE_D.1), 0.0 / 3.0);
    let mean_p3 = mean(&[
        score("p@3", CASE_C.0, CASE_C.1),
        score("p@3", CASE_D.0, CASE_D.1),
    ]);
    assert_eq!(mean_p3, (2.0 / 3.0 + 0.0) / 2.0);
    assert_eq!(score("reciprocal_rank", CASE_D.0, CASE_D.1), 1.0 / 4.0);
}

#[test]
fn rr_case_e_and_mrr_over_e_d() {
    assert_eq!(score("rr@5", CASE_E.0, CASE_E.1), 1.0 / 2.0);
    let mrr = mean(&[
        score("mrr", CASE_E.0, CASE_E.1),
        score("mrr", CASE_D.0, CASE_D.1),
    ]);
    assert_eq!(mrr, (1.0 / 2.0 + 1.0 / 4.0) / 2.0);
}

/// Case f: 1 1 1 0 1 0 1 0 0 1 (seed 001's car accessories).
const CASE_F: &[usize] = &[1, 2, 3, 5, 7, 10];

#[test]
fn ap_hits_case_f() {
    let ap = |k: usize| score_pattern(&format!("ap(norm=hits)@{k}"), 10, CASE_F);
    assert_eq!(ap(5), (1.0 / 1.0 + 2.0 / 2.0 + 3.0 / 3.0 + 4.0 / 5.0) / 4.0);
    assert_eq!(
        ap(7),
        (1.0 / 1.0 + 2.0 / 2.0 + 3.0 / 3.0 + 4.0 / 5.0 + 5.0 / 7.0) / 5.0
    );
    assert_eq!(
        ap(9),
        (1.0 / 1.0 + 2.0 / 2.0 + 3.0 / 3.0 + 4.0 / 5.0 + 5.0 / 7.0) / 5.0
    );
    assert_eq!(
        ap(10),
        (1.0 / 1.0 + 2.0 / 2.0 + 3.0 / 3.0 + 4.0 / 5.0 + 5.0 / 7.0 + 6.0 / 10.0) / 6.0
    );
    assert!((ap(5) - 0.95).abs() < 1e-12);
    assert!((ap(7) - 0.902857).abs() < 1e-6);
    assert!((ap(10) - 0.852381).abs() < 1e-6);
}

#[test]
fn precision_case_f() {
    let p = |k: usize| score_pattern(&format!("p@{k}"), 10, CASE_F);
    assert_eq!(p(10), 6.0 / 10.0);
    assert_eq!(p(3), 3.0 / 3.0);
    assert_eq!(p(5), 4.0 / 5.0);
    assert_eq!(p(7), 5.0 / 7.0);
}

#[test]
fn ap_hits_case_g() {
    let ap = score_pattern("ap(norm=hits)@5", 5, &[1, 3, 5]);
    assert_eq!(ap, (1.0 / 1.0 + 2.0 / 3.0 + 3.0 / 5.0) / 3.0);
    assert!((ap - 0.755556).abs() < 1e-6);
}

#[test]
fn ap_hits_case_h() {
    let ap = score_pattern("ap(norm=hits)@5", 5, &[2, 4, 5]);
    assert_eq!(ap, (1.0 / 2.0 + 2.0 / 4.0 + 3.0 / 5.0) / 3.0);
    assert!((ap - 0.533333).abs() < 1e-6);
}

#[test]
fn ap_relevant_case_i() {
    let ap = score_pattern("ap@10", 10, &[1, 3, 6, 9, 10]);
    assert_eq!(
        ap,
        (1.0 + 2.0 / 3.0 + 3.0 / 6.0 + 4.0 / 9.0 + 5.0 / 10.0) / 5.0
    );
    assert!((ap - 0.622222).abs() < 1e-6);
}

#[test]
fn ap_relevant_case_j() {
    let ap = score_pattern("map@10", 10, &[2, 5, 7]);
    assert_eq!(ap, (1.0 / 2.0 + 2.0 / 5.0 + 3.0 / 7.0) / 3.0);
    assert!((ap - 0.442857).abs() < 1e-6);
}

#[test]
fn the_three_normalizations_on_one_query() {
    // Case a's list, where only the divisor differs: |R| = 3, min(|R|, 2) = 2, hits@5 = 2.
    let sum = 1.0 / 2.0 + 2.0 / 4.0;
    assert_eq!(score("ap@5", CASE_A.0, CASE_A.1), sum / 3.0);
    assert_eq!(score("ap(norm=hits)@5", CASE_A.0, CASE_A.1), sum / 2.0);
    assert_eq!(
        score("ap(norm=truncated)@2", CASE_A.0, CASE_A.1),
        (1.0 / 2.0) / 2.0
    );
}
