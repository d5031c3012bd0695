//! The peers' variants, checked on the values the peers publish in their
//! own test suites: the same data built as qrels and a run, evaluated
//! through the short syntax, the judge and the metric.
//!
//! Each test names the file its data and expected values come from.
//! RecTools' reco tables give ranks with gaps (user 3 has ranks 1, 3, 5...):
//! a missing rank is an unjudged filler document, which every metric here
//! treats as RecTools treats the empty position (not relevant, but counted
//! in `k`).

use rankeval_core::registry::parse_metric;
use rankeval_core::{Duplicates, Judge, QrelsBuilder, RelevanceLevel, RunBuilder, Ties};

/// One user: the recommended items as `(item, rank)` and the relevant items.
struct User {
    reco: &'static [(u32, usize)],
    relevant: &'static [u32],
}

/// Scores `spec` on one user: the reco items at their ranks (fillers in
/// the gaps), the relevant items judged 1.
fn score(spec: &str, user: &User) -> f64 {
    let metric = parse_metric(spec).unwrap();
    let mut qrels = QrelsBuilder::new();
    for item in user.relevant {
        qrels.push("u", item.to_string(), 1).unwrap();
    }
    let qrels = qrels.finish().unwrap();
    let depth = user.reco.iter().map(|&(_, rank)| rank).max().unwrap_or(0);
    let ranked: Vec<String> = (1..=depth)
        .map(|rank| match user.reco.iter().find(|&&(_, r)| r == rank) {
            Some((item, _)) => item.to_string(),
            None => format!("filler{rank}"),
        })
        .collect();
    let mut run = RunBuilder::new();
    run.push_list("u", &ranked).unwrap();
    let run = run.finish(Duplicates::Error).unwrap();
    let query = qrels.query_index(b"u").unwrap();
    let mut judge = Judge::new(metric.depth().map(|k| k.get()), RelevanceLevel::DEFAULT);
    metric.score(&judge.judge(&qrels, query, run.list("u")))
}

fn scores(spec: &str, users: &[User]) -> Vec<f64> {
    users.iter().map(|u| score(spec, u)).collect()
}

fn assert_close(got: &[f64], expected: &[f64]) {
    assert_eq!(got.len(), expected.len());
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        assert!(
            (g - e).abs() < 1e-12,
            "user {}: got {g}, expected {e}",
            i + 1
        );
    }
}

/// RecTools tests/metrics/test_ranking.py, `TestMAP.test_calc`: users 1 to
/// 8 (user 6 has no recommendations; user 9 has no interactions and is
/// left out by RecTools).
const RECTOOLS_MAP: [User; 8] = [
    User {
        reco: &[(1, 9), (3, 1)],
        relevant: &[1, 2],
    },
    User {
        reco: &[(1, 3)],
        relevant: &[1],
    },
    User {
        reco: &[(1, 1), (2, 3), (3, 5), (4, 7), (5, 9)],
        relevant: &[1, 2, 3, 4, 5, 6],
    },
    User {
        reco: &[(1, 1)],
        relevant: &[1],
    },
    User {
        reco: &[(1, 1), (2, 2), (3, 3)],
        relevant: &[1, 2, 3],
    },
    User {
        reco: &[],
        relevant: &[1],
    },
    User {
        reco: &[(1, 2)],
        relevant: &[1],
    },
    User {
        reco: &[(2, 1)],
        relevant: &[1],
    },
];

#[test]
fn rectools_map_divided_by_k() {
    // (1, True, [0, 0, 1, 1, 1, 0, 0, 0])
    assert_close(
        &scores("ap(norm=k)@1", &RECTOOLS_MAP),
        &[0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0],
    );
    // (3, True, [0, 1/9, 1/3 * (1/1 + 2/3), 1/3, 1, 0, 1/3 * (1/2), 0])
    assert_close(
        &scores("ap(norm=k)@3", &RECTOOLS_MAP),
        &[
            0.0,
            1.0 / 9.0,
            1.0 / 3.0 * (1.0 / 1.0 + 2.0 / 3.0),
            1.0 / 3.0,
            1.0,
            0.0,
            1.0 / 3.0 * (1.0 / 2.0),
            0.0,
        ],
    );
    // divide_by_k=False is trec_eval's AP@k (divided by |R|):
    // (3, False, [0, 1/3, 1/6 * (1/1 + 2/3), 1, 1, 0, 1 * (1/2), 0])
    assert_close(
        &scores("ap@3", &RECTOOLS_MAP),
        &[
            0.0,
            1.0 / 3.0,
            1.0 / 6.0 * (1.0 / 1.0 + 2.0 / 3.0),
            1.0,
            1.0,
            0.0,
            1.0 * (1.0 / 2.0),
            0.0,
        ],
    );
}

/// RecTools tests/metrics/test_classification.py, `RECO` and
/// `INTERACTIONS`: users 1, 3, 4 and 5 (user 2 has no interactions; user 5
/// no recommendations).
const RECTOOLS_CLASSIFICATION: [User; 4] = [
    User {
        reco: &[(1, 1), (2, 2), (3, 3)],
        relevant: &[4, 2, 3],
    },
    User {
        reco: &[(1, 1)],
        relevant: &[1],
    },
    User {
        reco: &[(1, 1)],
        relevant: &[2],
    },
    User {
        reco: &[],
        relevant: &[2],
    },
];

#[test]
fn rectools_precision_and_r_precision() {
    // Precision(k=2): [0.5, 0.5, 0.0, 0.0]
    assert_close(
        &scores("p@2", &RECTOOLS_CLASSIFICATION),
        &[0.5, 0.5, 0.0, 0.0],
    );
    // Precision(k=2, r_precision=True): [0.5, 1, 0.0, 0.0]
    assert_close(
        &scores("p(denominator=truncated)@2", &RECTOOLS_CLASSIFICATION),
        &[0.5, 1.0, 0.0, 0.0],
    );
    // F1Beta(k=2, beta=2 ** (1 / 2)): [0.375, 0.75, 0, 0]
    let beta = 2f64.powf(0.5);
    assert_close(
        &scores(&format!("f_beta(beta={beta})@2"), &RECTOOLS_CLASSIFICATION),
        &[0.375, 0.75, 0.0, 0.0],
    );
}

/// RecTools tests/metrics/test_classification.py, `TestAccuracy` and
/// `TestMCC` (k = 2, `CATALOG = list(range(10))`): users 1, 3, 4 and 5
/// (user 5 has no recommendations: its two slots are false positives).
#[test]
fn rectools_accuracy_and_mcc_over_the_catalogue() {
    // Accuracy(k=2): [0.7, 0.9, 0.7, 0.7]
    assert_close(
        &scores("accuracy(catalog=10)@2", &RECTOOLS_CLASSIFICATION),
        &[0.7, 0.9, 0.7, 0.7],
    );
    // MCC(k=2): [1 / (21 ** (1 / 2)), 2 / 3, -1 / 6, -1 / 6]
    assert_close(
        &scores("mcc(catalog=10)@2", &RECTOOLS_CLASSIFICATION),
        &[1.0 / 21f64.powf(0.5), 2.0 / 3.0, -1.0 / 6.0, -1.0 / 6.0],
    );
}

/// RecTools tests/metrics/test_ranking.py, `TestNDCG.test_calc`: users 1
/// to 5 (user 6 has no interactions).
const RECTOOLS_NDCG: [User; 5] = [
    User {
        reco: &[(1, 9)],
        relevant: &[1],
    },
    User {
        reco: &[(2, 1)],
        relevant: &[1],
    },
    User {
        reco: &[(1, 1), (2, 2), (3, 3)],
        relevant: &[1, 2, 3],
    },
    User {
        reco: &[(1, 1)],
        relevant: &[1],
    },
    User {
        reco: &[(1, 3), (2, 7), (3, 9), (5, 1)],
        relevant: &[1, 2, 3, 4],
    },
];

#[test]
fn rectools_ndcg_with_the_ideal_of_k_relevant_items() {
    let idcg_at_3 = 1.0 / 2f64.log2() + 1.0 / 3f64.log2() + 1.0 / 4f64.log2();
    // (1, [0, 0, 1, 1, 0])
    assert_close(
        &scores("ndcg(ideal=k)@1", &RECTOOLS_NDCG),
        &[0.0, 0.0, 1.0, 1.0, 0.0],
    );
    // (3, [0, 0, 1, 1 / _idcg_at_3, 0.5 / _idcg_at_3])
    assert_close(
        &scores("ndcg(ideal=k)@3", &RECTOOLS_NDCG),
        &[0.0, 0.0, 1.0, 1.0 / idcg_at_3, 0.5 / idcg_at_3],
    );
}

/// Microsoft recommenders tests/unit/recommenders/evaluation/conftest.py:
/// `rating_true` (every rated item is relevant) and `rating_pred` ranked by
/// prediction, users 1 to 3.
const RECOMMENDERS: [User; 3] = [
    User {
        reco: &[(3, 1), (10, 2), (12, 3)],
        relevant: &[3, 1, 2],
    },
    User {
        reco: &[(10, 1), (3, 2), (5, 3), (11, 4), (13, 5)],
        relevant: &[1, 4, 5, 6, 7],
    },
    User {
        reco: &[
            (4, 1),
            (10, 2),
            (7, 3),
            (13, 4),
            (1, 5),
            (3, 6),
            (5, 7),
            (2, 8),
            (11, 9),
            (14, 10),
        ],
        relevant: &[2, 5, 6, 8, 9, 10, 11, 12, 13, 14],
    },
];

#[test]
fn recommenders_r_precision_at_k() {
    // test_python_evaluation.py, test_python_r_precision: 0.21111 at k = 3,
    // 0.24444 at k = 5, 0.37777 at k = 10 (pytest.approx, TOL = 0.0001).
    let mean = |spec: &str| scores(spec, &RECOMMENDERS).iter().sum::<f64>() / 3.0;
    for (k, published, exact) in [
        (3, 0.21111, (1.0 / 3.0 + 1.0 / 5.0 + 1.0 / 10.0) / 3.0),
        (5, 0.24444, (1.0 / 3.0 + 1.0 / 5.0 + 2.0 / 10.0) / 3.0),
        (10, 0.37777, (1.0 / 3.0 + 1.0 / 5.0 + 6.0 / 10.0) / 3.0),
    ] {
        let got = mean(&format!("rprec@{k}"));
        assert!((got - published).abs() < 1e-4, "k = {k}: {got}");
        assert!((got - exact).abs() < 1e-12, "k = {k}: {got}");
    }
}

/// cornac tests/cornac/metrics/test_ranking.py: `test_ncrr` and `test_auc`,
/// items 0 to 2 (or 3) with the recommended order given.
#[test]
fn cornac_ncrr_and_auc() {
    let ncrr = |reco: &'static [(u32, usize)], relevant: &'static [u32], spec: &str| {
        score(spec, &User { reco, relevant })
    };
    assert_eq!(ncrr(&[(0, 1)], &[0], "ncrr"), 1.0);
    assert_eq!(ncrr(&[(0, 1), (2, 2), (1, 3)], &[0, 2], "ncrr"), 1.0);
    assert_eq!(
        ncrr(&[(1, 1), (2, 2), (0, 3)], &[0, 2], "ncrr"),
        (1.0 / 3.0 + 1.0 / 2.0) / (1.0 + 1.0 / 2.0)
    );
    assert_eq!(ncrr(&[(1, 1), (2, 2), (0, 3)], &[2], "ncrr@2"), 0.5);
    // AUC, scores [0.1, 0.4, 0.35, 0.8]: the order 3, 1, 2, 0.
    let order: &[(u32, usize)] = &[(3, 1), (1, 2), (2, 3), (0, 4)];
    assert_eq!(
        score(
            "auc",
            &User {
                reco: order,
                relevant: &[2, 3]
            }
        ),
        0.75
    );
    assert_eq!(
        score(
            "auc",
            &User {
                reco: order,
                relevant: &[1, 3]
            }
        ),
        1.0
    );
}

/// RAGAS (explodinggradients/ragas), the documented examples of its
/// ID-based context metrics (`ragas.metrics.collections`,
/// `IDBasedContextPrecision` and `IDBasedContextRecall` docstrings):
/// retrieved `doc1, doc2, doc3`, reference `doc1, doc2, doc4`, both
/// "0.667". Precision is the share of the retrieved that is in the
/// reference (`p`, the whole list, divided by its length), recall the
/// share of the reference retrieved (`recall`).
#[test]
fn ragas_id_based_context_precision_and_recall() {
    let user = User {
        reco: &[(1, 1), (2, 2), (3, 3)],
        relevant: &[1, 2, 4],
    };
    assert_close(&[score("p", &user)], &[2.0 / 3.0]);
    assert_close(&[score("recall", &user)], &[2.0 / 3.0]);
    assert_eq!(format!("{:.3}", score("p", &user)), "0.667");
    assert_eq!(format!("{:.3}", score("recall", &user)), "0.667");
}

/// RAGAS's context precision (`_calculate_average_precision`): the sum of
/// precision@k at each relevant context over the number of relevant
/// contexts plus 1e-10. Its documented examples (one retrieved context,
/// judged relevant by the LLM) print 0.9999999999: `ap(norm=hits)` gives 1
/// there, and RAGAS's value is it times hits / (hits + 1e-10).
#[test]
fn ragas_context_precision_documented_example() {
    let user = User {
        reco: &[(1, 1)],
        relevant: &[1],
    };
    let ap = score("ap(norm=hits)", &user);
    assert_eq!(ap, 1.0);
    let ragas = ap * 1.0 / (1.0 + 1e-10);
    assert_eq!(format!("{ragas:.10}"), "0.9999999999");
    // [1, 0, 1] over 3 retrieved: (1 + 2/3) / 2, as RAGAS's formula gives
    // (within its 1e-10).
    let user = User {
        reco: &[(1, 1), (9, 2), (2, 3)],
        relevant: &[1, 2, 5],
    };
    let verdicts = [1.0, 0.0, 1.0];
    let mut hits = 0.0;
    let mut numerator = 0.0;
    for (i, v) in verdicts.iter().enumerate() {
        hits += v;
        numerator += hits / (i + 1) as f64 * v;
    }
    let ragas = numerator / (hits + 1e-10);
    assert!((score("ap(norm=hits)@3", &user) - ragas).abs() < 1e-9);
}

/// Scores `spec` on one query given as scikit-learn's arrays: document `i`
/// is relevant (grade 1) or not (grade 0) by `labels[i]`, scored
/// `scores[i]`; the judge finds the groups of tied scores, as the engine
/// does for a metric that reads them.
fn sklearn_score(spec: &str, labels: &[u8], scores: &[f64]) -> f64 {
    let metric = parse_metric(spec).unwrap();
    assert!(metric.reads_tie_groups());
    let mut qrels = QrelsBuilder::new();
    let mut run = RunBuilder::new();
    for (i, (&label, &score)) in labels.iter().zip(scores).enumerate() {
        qrels.push("q", format!("d{i}"), i32::from(label)).unwrap();
        run.push_scored("q", format!("d{i}"), score).unwrap();
    }
    let qrels = qrels.finish().unwrap();
    let run = run.finish(Duplicates::Error).unwrap();
    let query = qrels.query_index(b"q").unwrap();
    let mut judge = Judge::new(None, RelevanceLevel::DEFAULT).with_ties(Ties::Docid, true);
    metric.score(&judge.judge(&qrels, query, run.list("q")))
}

/// scikit-learn 1.9.1 sklearn/metrics/tests/test_ranking.py,
/// `check_lrap_toy`: every case, ties included (one sample each, so the
/// sample's LRAP is the query's).
#[test]
fn scikit_learn_lrap_toy_cases() {
    let cases: &[(&[u8], &[f64], f64)] = &[
        (&[0, 1], &[0.25, 0.75], 1.0),
        (&[0, 1], &[0.75, 0.25], 1.0 / 2.0),
        (&[1, 1], &[0.75, 0.25], 1.0),
        (&[0, 0, 1], &[0.25, 0.5, 0.75], 1.0),
        (&[0, 1, 0], &[0.25, 0.5, 0.75], 1.0 / 2.0),
        (&[0, 1, 1], &[0.25, 0.5, 0.75], 1.0),
        (&[1, 0, 0], &[0.25, 0.5, 0.75], 1.0 / 3.0),
        (
            &[1, 0, 1],
            &[0.25, 0.5, 0.75],
            (2.0 / 3.0 + 1.0 / 1.0) / 2.0,
        ),
        (
            &[1, 1, 0],
            &[0.25, 0.5, 0.75],
            (2.0 / 3.0 + 1.0 / 2.0) / 2.0,
        ),
        (&[0, 0, 1], &[0.75, 0.5, 0.25], 1.0 / 3.0),
        (&[0, 1, 0], &[0.75, 0.5, 0.25], 1.0 / 2.0),
        (
            &[0, 1, 1],
            &[0.75, 0.5, 0.25],
            (1.0 / 2.0 + 2.0 / 3.0) / 2.0,
        ),
        (&[1, 0, 0], &[0.75, 0.5, 0.25], 1.0),
        (&[1, 0, 1], &[0.75, 0.5, 0.25], (1.0 + 2.0 / 3.0) / 2.0),
        (&[1, 1, 0], &[0.75, 0.5, 0.25], 1.0),
        (&[1, 1, 1], &[0.75, 0.5, 0.25], 1.0),
        (&[0, 0, 1], &[0.5, 0.75, 0.25], 1.0 / 3.0),
        (&[0, 1, 0], &[0.5, 0.75, 0.25], 1.0),
        (&[0, 1, 1], &[0.5, 0.75, 0.25], (1.0 + 2.0 / 3.0) / 2.0),
        (&[1, 0, 0], &[0.5, 0.75, 0.25], 1.0 / 2.0),
        (
            &[1, 0, 1],
            &[0.5, 0.75, 0.25],
            (1.0 / 2.0 + 2.0 / 3.0) / 2.0,
        ),
        (&[1, 1, 0], &[0.5, 0.75, 0.25], 1.0),
        (&[1, 1, 1], &[0.5, 0.75, 0.25], 1.0),
        // Tie handling
        (&[1, 0], &[0.5, 0.5], 0.5),
        (&[0, 1], &[0.5, 0.5], 0.5),
        (&[1, 1], &[0.5, 0.5], 1.0),
        (&[0, 0, 1], &[0.25, 0.5, 0.5], 0.5),
        (&[0, 1, 0], &[0.25, 0.5, 0.5], 0.5),
        (&[0, 1, 1], &[0.25, 0.5, 0.5], 1.0),
        (&[1, 0, 0], &[0.25, 0.5, 0.5], 1.0 / 3.0),
        (&[1, 0, 1], &[0.25, 0.5, 0.5], (2.0 / 3.0 + 1.0 / 2.0) / 2.0),
        (&[1, 1, 0], &[0.25, 0.5, 0.5], (2.0 / 3.0 + 1.0 / 2.0) / 2.0),
        (&[1, 1, 1], &[0.25, 0.5, 0.5], 1.0),
        (&[1, 1, 0], &[0.5, 0.5, 0.5], 2.0 / 3.0),
        (&[1, 1, 1, 0], &[0.5, 0.5, 0.5, 0.5], 3.0 / 4.0),
    ];
    for (labels, scores, expected) in cases {
        let got = sklearn_score("lrap", labels, scores);
        assert!(
            (got - expected).abs() < 1e-12,
            "{labels:?} {scores:?}: {got} vs {expected}"
        );
    }
}

/// scikit-learn 1.9.1 test_ranking.py,
/// `test_average_precision_constant_values`: 25 positives in 100 documents
/// of one score give one threshold, AP = 0.25; and the docstring example of
/// `average_precision_score`, `[0, 0, 1, 1]` scored `[0.1, 0.4, 0.35,
/// 0.8]`: 0.83 (printed to 2 decimals; exactly (1 + 2/3) / 2).
#[test]
fn scikit_learn_average_precision_score_published_values() {
    let labels: Vec<u8> = (0..100).map(|i| u8::from(i % 4 == 0)).collect();
    let scores = vec![1.0; 100];
    assert_eq!(
        sklearn_score("average_precision_score", &labels, &scores),
        0.25
    );
    let got = sklearn_score(
        "average_precision_score",
        &[0, 0, 1, 1],
        &[0.1, 0.4, 0.35, 0.8],
    );
    assert_eq!(format!("{got:.2}"), "0.83");
    assert!((got - (1.0 + 2.0 / 3.0) / 2.0).abs() < 1e-15);
}
