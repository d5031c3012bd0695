//! The declarative `weighted` metric gives the built-ins it overlaps with
//! bit for bit, on many judged rankings (graded, unjudged and negative
//! grades, lists shorter and longer than k, queries with nothing
//! relevant).

use rankeval_core::registry::parse_metric;
use rankeval_core::testing::{OwnedJudged, judged};

/// Deterministic judged rankings: a small linear congruential generator
/// picks the length, each rank's grade (or unjudged) and the grades of
/// judged documents not retrieved.
fn rankings() -> Vec<OwnedJudged> {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |bound: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % bound
    };
    let symbols = ['0', '1', '2', '3', '.', '-', '0', '.'];
    (0..3000)
        .map(|_| {
            let len = next(14) as usize;
            let pattern: String = (0..len).map(|_| symbols[next(8) as usize]).collect();
            let unretrieved: Vec<i32> = (0..next(4)).map(|_| next(5) as i32 - 1).collect();
            judged(&pattern, &unretrieved)
        })
        .collect()
}

/// Asserts that `a` and `b` give the same bits on every ranking, at the
/// experiment's levels 1 and 2.
fn same_bits(a: &str, b: &str) {
    let (ma, mb) = (parse_metric(a).unwrap(), parse_metric(b).unwrap());
    for (i, q) in rankings().into_iter().enumerate() {
        for level in [1, 2] {
            let q = q.clone().with_level(level);
            let (x, y) = (q.score(ma.as_ref()), q.score(mb.as_ref()));
            assert_eq!(
                x.to_bits(),
                y.to_bits(),
                "{a} = {x}, {b} = {y} on ranking {i} {q:?}"
            );
        }
    }
}

#[test]
fn reproduces_dcg_and_ndcg() {
    for k in ["", "@1", "@3", "@10"] {
        same_bits(&format!("weighted(norm=none){k}"), &format!("dcg{k}"));
        same_bits(
            &format!("weighted(gain=exponential,norm=none){k}"),
            &format!("dcg(gain=exponential){k}"),
        );
        same_bits(&format!("weighted{k}"), &format!("ndcg{k}"));
        same_bits(
            &format!("weighted(gain=exponential){k}"),
            &format!("ndcg(gain=exponential){k}"),
        );
        // Binary gain: at the experiment's level (1 and 2), and at its own.
        same_bits(
            &format!("weighted(gain=binary,norm=none){k}"),
            &format!("dcg(gain=binary){k}"),
        );
        same_bits(
            &format!("weighted(gain=binary){k}"),
            &format!("ndcg(gain=binary){k}"),
        );
        same_bits(
            &format!("weighted(gain=binary,rel=3){k}"),
            &format!("ndcg(gain=binary,rel=3){k}"),
        );
        // A map that lists grades as themselves is linear gain.
        same_bits(
            &format!("weighted(gain=map,gains=\"1=1,2=2,3=3\"){k}"),
            &format!("ndcg{k}"),
        );
    }
}

#[test]
fn reproduces_precision_and_rbp() {
    for k in ["", "@1", "@3", "@10"] {
        same_bits(
            &format!("weighted(gain=binary,discount=none,norm=weights){k}"),
            &format!("precision{k}"),
        );
        same_bits(
            &format!("weighted(rel=2,gain=binary,discount=none,norm=weights){k}"),
            &format!("precision(rel=2){k}"),
        );
        for p in ["0.8", "0.5", "0.95"] {
            same_bits(
                &format!("weighted(gain=binary,discount=geometric,p={p},norm=unbounded){k}"),
                &format!("rbp(p={p}){k}"),
            );
        }
    }
}

#[test]
fn a_gain_map_orders_the_ideal_by_gain() {
    // Grade 1 is worth more than grade 2 here: the ideal puts the 1 first.
    let m = parse_metric("weighted(gain=map,gains=\"1=5,2=1\",discount=reciprocal)").unwrap();
    let q = judged("2 1", &[]);
    let dcg = 1.0 / 1.0 + 5.0 / 2.0;
    let ideal = 5.0 / 1.0 + 1.0 / 2.0;
    assert_eq!(q.score(m.as_ref()), dcg / ideal);
    // Unlisted grades are their own gain (trec_eval): grade 3 gains 3.
    let q = judged("3 0", &[2]);
    let dcg = 3.0 / 1.0;
    let ideal = 3.0 / 1.0 + 1.0 / 2.0;
    assert_eq!(q.score(m.as_ref()), dcg / ideal);
}
