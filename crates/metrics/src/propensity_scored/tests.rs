//! Hand-worked cases of PSP@k and PSnDCG@k.

use std::collections::HashMap;
use std::sync::Arc;

use rankeval_core::{
    Cutoff, DocumentContext, Duplicates, Judge, LabelPropensities, Metric, Qrels, QrelsBuilder,
    RelevanceLevel, Requirement, Run, RunBuilder,
};

use super::*;

/// q1 judges a, c, d relevant; q2 judges b relevant and e not. Training:
/// N = 100, a 50 times, b 10, c once, d never.
fn data() -> (Qrels, Run, LabelPropensities) {
    let mut qrels = QrelsBuilder::new();
    for (q, d, g) in [
        ("q1", "a", 1),
        ("q1", "c", 1),
        ("q1", "d", 1),
        ("q2", "b", 1),
        ("q2", "e", 0),
    ] {
        qrels.push(q, d, g).unwrap();
    }
    let mut run = RunBuilder::new();
    for (q, d, s) in [
        ("q1", "c", 3.0),
        ("q1", "x", 2.0),
        ("q1", "a", 1.0),
        ("q2", "x", 2.0),
        ("q2", "b", 1.0),
    ] {
        run.push_scored(q, d, s).unwrap();
    }
    let counts: HashMap<Box<[u8]>, u64> = [("a", 50), ("b", 10), ("c", 1), ("e", 7)]
        .into_iter()
        .map(|(l, c)| (Box::from(l.as_bytes()), c))
        .collect();
    (
        qrels.finish().unwrap(),
        run.finish(Duplicates::Error).unwrap(),
        LabelPropensities::Counts {
            counts,
            instances: 100,
        },
    )
}

/// The weight of a label seen `n` times among 100, general family.
fn w(n: f64) -> f64 {
    1.0 + (100f64.ln() - 1.0) * (2.5f64).powf(0.55) * (n + 1.5).powf(-0.55)
}

/// Each query's value of `metric`, judged both ways the engine judges.
fn scores(metric: &dyn Metric, table: LabelPropensities) -> Vec<f64> {
    let (qrels, run, _) = data();
    let context = DocumentContext::build(&qrels, metric.requires(), Some(Arc::new(table))).unwrap();
    let qrels = qrels.with_documents(Arc::new(context));
    let mut judge = Judge::new(metric.depth().map(Cutoff::get), RelevanceLevel::DEFAULT);
    ["q1", "q2"]
        .into_iter()
        .map(|q| {
            let index = qrels.query_index(q.as_bytes()).unwrap();
            metric.score(&judge.judge(&qrels, index, run.list(q)))
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-14 * b.abs().max(1.0)
}

#[test]
fn psp_divides_each_numerator_by_the_mean_best() {
    let (_, _, table) = data();
    let metric = PropensityScoredPrecision {
        k: Cutoff::new(2),
        ..Default::default()
    };
    let got = scores(&metric, table);
    // Best: q1 the two rarest of a, c, d (d never seen, then c), q2 b.
    let mean_best = (w(0.0) + w(1.0) + w(10.0)) / 2.0;
    let want = [w(1.0) / mean_best, w(10.0) / mean_best];
    assert!(
        close(got[0], want[0]) && close(got[1], want[1]),
        "{got:?} {want:?}"
    );
    // Their mean is pyxclib's ratio of means.
    let mean = (got[0] + got[1]) / 2.0;
    assert!(close(
        mean,
        (w(1.0) + w(10.0)) / (w(0.0) + w(1.0) + w(10.0))
    ));
}

#[test]
fn psndcg_discounts_and_divides_by_c_of_min_n_k() {
    let (_, _, table) = data();
    let metric = PropensityScoredNdcg {
        k: Cutoff::new(2),
        ..Default::default()
    };
    let got = scores(&metric, table);
    let c2 = 1.0 + 1.0 / 3f64.log2();
    // q1: c at rank 1 of n = 3 relevant; q2: b at rank 2 of n = 1.
    let num = [w(1.0) / c2, w(10.0) / 3f64.log2()];
    let best = [(w(0.0) + w(1.0) / 3f64.log2()) / c2, w(10.0)];
    let mean_best = (best[0] + best[1]) / 2.0;
    assert!(close(got[0], num[0] / mean_best), "{got:?}");
    assert!(close(got[1], num[1] / mean_best), "{got:?}");
}

#[test]
fn given_inverse_propensities_are_used_as_they_are() {
    let inverse: HashMap<Box<[u8]>, f64> =
        [("a", 1.0), ("b", 2.0), ("c", 4.0), ("d", 8.0), ("e", 1.0)]
            .into_iter()
            .map(|(l, w)| (Box::from(l.as_bytes()), w))
            .collect();
    // A and B are unused: any family gives the same values.
    let metric = PropensityScoredPrecision {
        k: Cutoff::new(2),
        family: Family::Amazon,
        ..Default::default()
    };
    let got = scores(&metric, LabelPropensities::Inverse(inverse));
    // q1: c (4); best 8 + 4. q2: b (2); best 2. Mean best 7.
    assert_eq!(got, vec![4.0 / 7.0, 2.0 / 7.0]);
}

#[test]
fn a_missing_inverse_propensity_is_refused_naming_the_document() {
    let (qrels, _, _) = data();
    let inverse: HashMap<Box<[u8]>, f64> = [("a", 1.0)]
        .into_iter()
        .map(|(l, w)| (Box::from(l.as_bytes()), w))
        .collect();
    let error = DocumentContext::build(
        &qrels,
        &[Requirement::Propensities],
        Some(Arc::new(LabelPropensities::Inverse(inverse))),
    )
    .unwrap_err();
    assert_eq!(error.doc, "c");
    assert_eq!(error.query, "q1");
}

#[test]
fn a_zero_weighs_every_label_alike_so_psp_is_precision_over_the_best() {
    let (_, _, table) = data();
    let metric = PropensityScoredPrecision {
        k: Cutoff::new(2),
        a: Some(0.0),
        ..Default::default()
    };
    let got = scores(&metric, table);
    // One hit each; best: 2 (q1) and 1 (q2), mean 1.5.
    assert!(
        close(got[0], 1.0 / 1.5) && close(got[1], 1.0 / 1.5),
        "{got:?}"
    );
}

#[test]
fn a_huge_b_gives_finite_values() {
    let (_, _, table) = data();
    let metric = PropensityScoredNdcg {
        k: Cutoff::new(2),
        b: Some(1e300),
        ..Default::default()
    };
    assert!(scores(&metric, table).iter().all(|v| v.is_finite()));
    let bad = PropensityScoredNdcg {
        b: Some(0.0),
        ..Default::default()
    };
    assert!(bad.validate().is_err());
    let bad = PropensityScoredPrecision {
        a: Some(f64::NAN),
        ..Default::default()
    };
    assert!(bad.validate().is_err());
}

#[test]
fn without_propensities_the_value_is_zero() {
    let (qrels, run, _) = data();
    let metric = PropensityScoredPrecision::default();
    let mut judge = Judge::new(None, RelevanceLevel::DEFAULT);
    let index = qrels.query_index(b"q1").unwrap();
    assert_eq!(
        metric.score(&judge.judge(&qrels, index, run.list("q1"))),
        0.0
    );
}

#[test]
fn names_carry_the_family_and_a_b() {
    let metric = PropensityScoredNdcg {
        k: Cutoff::new(5),
        rel: None,
        family: Family::Wikipedia,
        a: None,
        b: Some(0.25),
    };
    assert_eq!(metric.name(), "psndcg(family=wikipedia,b=0.25)@5");
    assert_eq!(
        PropensityScoredPrecision {
            k: Cutoff::new(3),
            ..Default::default()
        }
        .name(),
        "psp@3"
    );
}

#[test]
fn rel_raises_the_level_of_both_the_numerator_and_the_best() {
    // With rel = 2 no label of the data is relevant: every value is 0.
    let (_, _, table) = data();
    let metric = PropensityScoredPrecision {
        k: Cutoff::new(2),
        rel: RelevanceLevel::new(2.0),
        ..Default::default()
    };
    assert_eq!(scores(&metric, table), vec![0.0, 0.0]);
    assert_eq!(metric.name(), "psp(rel=2)@2");
}
