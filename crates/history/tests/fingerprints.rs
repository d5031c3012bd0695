//! Fingerprints change when and only when the judgements or a metric's
//! definition change.

use rankeval_history::fingerprint::{JudgementsFingerprint, definitions};

/// The fingerprint of `queries`: (query, [(doc, grade)]).
fn judgements(queries: &[(&str, &[(&str, f64)])]) -> String {
    let mut f = JudgementsFingerprint::new();
    for (query, docs) in queries {
        f.query(
            query.as_bytes(),
            docs.iter().map(|(d, g)| (d.as_bytes(), *g)),
        );
    }
    f.finish()
}

#[test]
fn judgements_fingerprint_ignores_order_and_zero_sign() {
    let base = judgements(&[("q1", &[("d1", 1.0), ("d2", 0.0)]), ("q2", &[("d3", 2.0)])]);
    assert_eq!(base.len(), 64);
    // Queries and documents in another order, a grade of -0 for 0.
    assert_eq!(
        base,
        judgements(&[("q2", &[("d3", 2.0)]), ("q1", &[("d2", -0.0), ("d1", 1.0)])])
    );
}

#[test]
fn judgements_fingerprint_changes_with_the_judgements() {
    let base = judgements(&[("q1", &[("d1", 1.0), ("d2", 0.0)]), ("q2", &[("d3", 2.0)])]);
    let changed = [
        // A grade changed.
        judgements(&[("q1", &[("d1", 2.0), ("d2", 0.0)]), ("q2", &[("d3", 2.0)])]),
        // A judgement removed.
        judgements(&[("q1", &[("d1", 1.0)]), ("q2", &[("d3", 2.0)])]),
        // A judgement added.
        judgements(&[
            ("q1", &[("d1", 1.0), ("d2", 0.0), ("d4", 0.0)]),
            ("q2", &[("d3", 2.0)]),
        ]),
        // A query with no judgement added.
        judgements(&[
            ("q1", &[("d1", 1.0), ("d2", 0.0)]),
            ("q2", &[("d3", 2.0)]),
            ("q3", &[]),
        ]),
        // A judgement moved to another query.
        judgements(&[("q1", &[("d1", 1.0)]), ("q2", &[("d3", 2.0), ("d2", 0.0)])]),
        // Ids whose concatenation is the same.
        judgements(&[("q1", &[("d1", 1.0), ("d2", 0.0)]), ("q", &[("2d3", 2.0)])]),
        // A grade a hair away.
        judgements(&[
            ("q1", &[("d1", 1.0 + f64::EPSILON), ("d2", 0.0)]),
            ("q2", &[("d3", 2.0)]),
        ]),
    ];
    for (i, c) in changed.iter().enumerate() {
        assert_ne!(&base, c, "change {i}");
    }
    let mut all = changed.to_vec();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), changed.len());
}

#[test]
fn definitions_fingerprint_changes_with_a_definition_only() {
    let base = definitions([("ndcg@10", 1), ("ap", 1)]);
    assert_eq!(base, definitions([("ap", 1), ("ndcg@10", 1)]));
    assert_ne!(base, definitions([("ap", 2), ("ndcg@10", 1)]));
    assert_ne!(base, definitions([("ap", 1), ("ndcg@20", 1)]));
    assert_ne!(base, definitions([("ap", 1)]));
    // A record's fingerprint is its columns' (values do not count).
    let mut a = crate::common::record("r", 1, 5, 2);
    let b = crate::common::record("r", 2, 5, 2);
    assert_eq!(a.definitions_fingerprint(), b.definitions_fingerprint());
    a.metrics[0].definition_version = 2;
    assert_ne!(a.definitions_fingerprint(), b.definitions_fingerprint());
}
