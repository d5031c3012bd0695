//! `Metric::is_additive` tells the truth: a metric that says it is additive
//! in the grades has no interaction between two documents' grades. Changing
//! document i's grade and then document j's moves the value by the sum of
//! the two moves alone, on random rankings (proptest), for every registered
//! metric and the wrappers that pass the claim on. `rankeval expected`
//! computes such a metric's expected value from one change at a time, so a
//! false claim would give a wrong expectation.
//!
//! The check can fail: on the metrics listed in `NOT_ADDITIVE` it finds an
//! interaction.

use proptest::prelude::*;
use rankeval_core::registry::parse_metric;
use rankeval_core::{Grade, JudgedRanking, Judgement, Metric, RelevanceLevel};

use crate::properties::metrics;

/// Wrapped metrics: `ties` passes `is_additive` on; `judged_only` and
/// `unjudged` do not (below).
const WRAPPED: &[&str] = &["dcg(ties=average)@5", "p(ties=average)@5"];

/// Metrics that are not additive, each with the interaction the check finds.
const NOT_ADDITIVE: &[&str] = &[
    "ndcg@5",
    "ap",
    "recall@5",
    "rr",
    "success@5",
    "p(denominator=truncated)@5",
    "rbp(p=0.8,gain=graded)",
    "weighted(gain=exponential,discount=log2,normalization=ideal)@5",
    // A negative grade takes a document out of the condensed list.
    "rbp(p=0.8,judged_only=true)",
    // Unjudged documents get the query's top grade.
    "dcg(unjudged=relevant)@5",
];

/// A query: which judged document (if any) sits at each rank, and how many
/// judged documents there are (those not ranked are judged, not retrieved).
#[derive(Clone, Debug)]
struct Query {
    ranks: Vec<Option<usize>>,
    judged: usize,
}

fn query() -> impl Strategy<Value = (Query, Vec<i8>)> {
    (2usize..7, prop::collection::vec(any::<bool>(), 0..10)).prop_flat_map(|(judged, gaps)| {
        // Documents 0..judged, shuffled into the list with unjudged gaps;
        // the first `judged / 2` are never ranked.
        let retrieved: Vec<usize> = (judged / 2..judged).collect();
        let grades = prop::collection::vec(-1i8..=3, judged);
        (Just(retrieved).prop_shuffle(), Just(gaps), grades).prop_map(
            move |(retrieved, gaps, grades)| {
                let mut ranks: Vec<Option<usize>> = retrieved.into_iter().map(Some).collect();
                for (i, gap) in gaps.into_iter().enumerate() {
                    if gap {
                        ranks.insert(i.min(ranks.len()), None);
                    }
                }
                (Query { ranks, judged }, grades)
            },
        )
    })
}

/// The metric's value when the judged documents have `grades`.
fn value(metric: &dyn Metric, query: &Query, grades: &[Grade]) -> f64 {
    let ranked: Vec<Judgement> = query
        .ranks
        .iter()
        .map(|d| d.map_or(Judgement::UNJUDGED, |d| Judgement::judged(grades[d])))
        .collect();
    let mut ideal = grades.to_vec();
    ideal.sort_by(|a, b| b.total_cmp(a));
    let q = JudgedRanking::new(&ranked, ranked.len(), &ideal, RelevanceLevel::DEFAULT);
    // `ties = average` wrappers answer through score(); plain metrics too.
    metric.score(&q)
}

/// `f(a) - f(a[i:=g]) - f(a[j:=h]) + f(a[i:=g, j:=h])`, and the largest
/// magnitude among the four (for a relative tolerance).
fn interaction(
    metric: &dyn Metric,
    query: &Query,
    grades: &[Grade],
    (i, g): (usize, Grade),
    (j, h): (usize, Grade),
) -> (f64, f64) {
    let mut gi = grades.to_vec();
    gi[i] = g;
    let mut gj = grades.to_vec();
    gj[j] = h;
    let mut both = gi.clone();
    both[j] = h;
    let values = [
        value(metric, query, grades),
        value(metric, query, &gi),
        value(metric, query, &gj),
        value(metric, query, &both),
    ];
    let scale = values.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    (values[0] - values[1] - values[2] + values[3], scale)
}

fn all_metrics() -> Vec<Box<dyn Metric>> {
    metrics()
        .into_iter()
        .chain(WRAPPED.iter().map(|s| parse_metric(s).unwrap()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn additive_metrics_have_no_interaction(
        (query, grades) in query(),
        pick in (any::<prop::sample::Index>(), any::<prop::sample::Index>(), -1i8..=3, -1i8..=3),
    ) {
        let grades: Vec<Grade> = grades.iter().map(|&g| Grade::from(g)).collect();
        let (i, j) = (pick.0.index(query.judged), pick.1.index(query.judged));
        prop_assume!(i != j);
        for metric in all_metrics().iter().filter(|m| m.is_additive()) {
            let (x, scale) = interaction(
                metric.as_ref(), &query, &grades,
                (i, Grade::from(pick.2)), (j, Grade::from(pick.3)),
            );
            prop_assert!(x.abs() <= 1e-12 * scale, "{}: interaction {x}", metric.name());
        }
    }
}

/// The check finds an interaction in every metric of `NOT_ADDITIVE` (so it
/// can fail), and none of them claims to be additive.
#[test]
fn the_check_finds_non_additive_metrics() {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        // SplitMix64: a fixed sequence of cases, the same on every machine.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    };
    for spec in NOT_ADDITIVE {
        let metric = parse_metric(spec).unwrap();
        assert!(!metric.is_additive(), "{spec} claims to be additive");
        let found = (0..2000).any(|_| {
            let judged = 2 + next(5);
            let mut ranks: Vec<Option<usize>> = (0..judged).map(Some).collect();
            ranks.insert(next(ranks.len() + 1), None);
            let query = Query { ranks, judged };
            let grades: Vec<Grade> = (0..judged).map(|_| next(5) as Grade - 1.0).collect();
            let (i, j) = (next(judged), next(judged));
            let (g, h) = (next(5) as Grade - 1.0, next(5) as Grade - 1.0);
            i != j && {
                let (x, scale) = interaction(metric.as_ref(), &query, &grades, (i, g), (j, h));
                x.abs() > 1e-12 * scale
            }
        });
        assert!(found, "{spec}: no interaction found");
    }
}

/// The additive metrics the registry's examples and the property specs hold
/// (so that the property above is not vacuous).
#[test]
fn some_metrics_are_additive() {
    let additive: Vec<String> = all_metrics()
        .iter()
        .filter(|m| m.is_additive())
        .map(|m| m.name())
        .collect();
    for expected in ["dcg", "num_rel", "num_rel_ret", "num_ret", "utility"] {
        assert!(
            additive.iter().any(|n| n.starts_with(expected)),
            "{expected} is not among the additive metrics: {additive:?}"
        );
    }
    assert!(
        additive
            .iter()
            .any(|n| n.starts_with("p@") || n.starts_with("p("))
    );
    assert!(additive.iter().any(|n| n.starts_with("rbp")));
}
