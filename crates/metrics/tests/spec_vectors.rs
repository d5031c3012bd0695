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

// The worked examples of docs/metrics.md for the graded, set and count
// metrics, on the spec's cases (relevant documents judged 1, nothing else
// judged).

#[test]
fn dcg_and_ndcg_case_a() {
    let dcg = 1.0 / 3f64.log2() + 1.0 / 5f64.log2();
    assert_eq!(score("dcg@5", CASE_A.0, CASE_A.1), dcg);
    assert_eq!(score("dcg(gain=exponential)@5", CASE_A.0, CASE_A.1), dcg);
    // Z is never retrieved but is in the ideal: 1, 1, 1.
    let ideal = 1.0 / 2f64.log2() + 1.0 / 3f64.log2() + 1.0 / 4f64.log2();
    let ndcg = score("ndcg@5", CASE_A.0, CASE_A.1);
    assert_eq!(ndcg, dcg / ideal);
    assert!((ndcg - 0.498189).abs() < 1e-6);
}

#[test]
fn r_precision_cases_c_and_i() {
    assert_eq!(score("rprec", CASE_C.0, CASE_C.1), 2.0 / 4.0);
    assert_eq!(
        score_pattern("r_precision", 10, &[1, 3, 6, 9, 10]),
        2.0 / 5.0
    );
}

#[test]
fn bpref_case_a_with_nothing_judged_non_relevant() {
    // A, C, E are unjudged: nothing judged non-relevant is above B or D.
    assert_eq!(score("bpref", CASE_A.0, CASE_A.1), (1.0 + 1.0) / 3.0);
}

#[test]
fn f1_case_c() {
    let (p, r) = (2.0 / 5.0, 2.0 / 4.0);
    let f1 = score("f1@5", CASE_C.0, CASE_C.1);
    assert_eq!(f1, 2.0 * p * r / (p + r));
    assert!((f1 - 0.444444).abs() < 1e-6);
}

#[test]
fn rbp_and_err_case_f() {
    let p: f64 = 0.8;
    let rbp = score_pattern("rbp", 10, CASE_F);
    assert!(
        (rbp - (1.0 - p) * (1.0 + p + p * p + p * p * p * p + p.powi(6) + p.powi(9))).abs() < 1e-12
    );
    assert!((rbp - 0.649192).abs() < 1e-6);
    assert!((score_pattern("rbp(p=0.9)", 10, CASE_F) - 0.428496).abs() < 1e-6);
    assert!((score_pattern("err(max_grade=1)", 10, CASE_F) - 0.685193).abs() < 1e-6);
    assert!((score_pattern("err", 10, CASE_F) - 0.131830).abs() < 1e-6);
}

#[test]
fn counts_case_c() {
    assert_eq!(score("num_ret", CASE_C.0, CASE_C.1), 8.0);
    assert_eq!(score("num_rel", CASE_C.0, CASE_C.1), 4.0);
    assert_eq!(score("num_rel_ret", CASE_C.0, CASE_C.1), 3.0);
    assert_eq!(score("num_rel_ret@5", CASE_C.0, CASE_C.1), 2.0);
}

#[test]
fn hit_rate_case_d() {
    assert_eq!(score("hit_rate@3", CASE_D.0, CASE_D.1), 0.0);
    assert_eq!(score("hit_rate@5", CASE_D.0, CASE_D.1), 1.0);
}

#[test]
fn aggregators_over_cases_a_and_b() {
    let a = score("ap(norm=truncated)@5", CASE_A.0, CASE_A.1);
    let b = score("ap(norm=truncated)@5", CASE_B.0, CASE_B.1);
    let aggregate = |spec: &str| parse_aggregator(spec).unwrap().aggregate(&[a, b]);
    assert!((aggregate("std") - 0.082496).abs() < 1e-6);
    assert!((aggregate("std(ddof=0)") - 0.058333).abs() < 1e-6);
    assert_eq!(aggregate("median"), (a + b) / 2.0);
    assert_eq!(aggregate("min"), b);
    assert_eq!(aggregate("max"), a);
    assert_eq!(aggregate("sum"), a + b);
    assert_eq!(
        aggregate("gmean"),
        libm::exp((libm::log(a) + libm::log(b)) / 2.0)
    );
}
