//! `ties = average`: every metric that offers it gives, to 1e-12, the mean
//! of its value over every order of each group of tied scores, enumerated
//! one by one on small random lists (proptest); the others are refused by
//! name; the registry's `ties` parameter names and parses back.

use proptest::prelude::*;
use rankeval_core::registry::parse_metric;
use rankeval_core::ties::supports_tie_average;
use rankeval_core::{Grade, JudgedRanking, Judgement, Metric, RelevanceLevel};

use crate::properties::metrics;

/// Every order of `items`, by Heap's algorithm.
fn permutations(items: &[Judgement]) -> Vec<Vec<Judgement>> {
    fn heap(k: usize, items: &mut Vec<Judgement>, out: &mut Vec<Vec<Judgement>>) {
        if k <= 1 {
            out.push(items.clone());
            return;
        }
        heap(k - 1, items, out);
        for i in 0..k - 1 {
            if k.is_multiple_of(2) {
                items.swap(i, k - 1);
            } else {
                items.swap(0, k - 1);
            }
            heap(k - 1, items, out);
        }
    }
    let mut out = Vec::new();
    heap(items.len(), &mut items.to_vec(), &mut out);
    out
}

/// Every ranking the ties allow: the product of each group's orders.
fn every_order(ranked: &[Judgement], ends: &[u32]) -> Vec<Vec<Judgement>> {
    let mut rankings = vec![Vec::new()];
    let mut start = 0;
    for &end in ends {
        let orders = permutations(&ranked[start..end as usize]);
        rankings = rankings
            .iter()
            .flat_map(|prefix| {
                orders.iter().map(move |order| {
                    let mut ranking = prefix.clone();
                    ranking.extend_from_slice(order);
                    ranking
                })
            })
            .collect();
        start = end as usize;
    }
    rankings
}

/// A scored list: (score, grade or unjudged), and unretrieved grades.
fn list() -> impl Strategy<Value = (Vec<(u8, Option<i8>)>, Vec<i8>)> {
    (
        prop::collection::vec((0u8..3, prop::option::of(-1i8..=3)), 0..=7),
        prop::collection::vec(-1i8..=3, 0..3),
    )
}

/// The list ranked by score (ties as given), its tie-group ends, and the
/// ideal grades.
fn judged(
    entries: &[(u8, Option<i8>)],
    unretrieved: &[i8],
) -> (Vec<Judgement>, Vec<u32>, Vec<Grade>) {
    let mut entries = entries.to_vec();
    entries.sort_by_key(|e| std::cmp::Reverse(e.0));
    let ranked: Vec<Judgement> = entries
        .iter()
        .map(|(_, g)| g.map_or(Judgement::UNJUDGED, |g| Judgement::judged(g.into())))
        .collect();
    let mut ends: Vec<u32> = (1..entries.len())
        .filter(|&i| entries[i].0 != entries[i - 1].0)
        .map(|i| i as u32)
        .collect();
    if !entries.is_empty() {
        ends.push(entries.len() as u32);
    }
    let mut ideal: Vec<Grade> = entries
        .iter()
        .filter_map(|(_, g)| g.map(Grade::from))
        .chain(unretrieved.iter().map(|&g| g.into()))
        .collect();
    ideal.sort_by(|a, b| b.total_cmp(a));
    (ranked, ends, ideal)
}

/// The mean of `metric` over every order of the ties.
fn brute_force(
    metric: &dyn Metric,
    ranked: &[Judgement],
    ends: &[u32],
    ideal: &[Grade],
    level: RelevanceLevel,
) -> f64 {
    let orders = every_order(ranked, ends);
    let sum: f64 = orders
        .iter()
        .map(|order| metric.score(&JudgedRanking::new(order, order.len(), ideal, level)))
        .sum();
    sum / orders.len() as f64
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn average_is_the_mean_over_every_order((entries, unretrieved) in list(), level in 1u8..=2) {
        let (ranked, ends, ideal) = judged(&entries, &unretrieved);
        let level = RelevanceLevel::new(level).unwrap();
        let q = JudgedRanking::new(&ranked, ranked.len(), &ideal, level).with_tie_groups(&ends);
        for metric in metrics() {
            let Some(average) = metric.score_tie_average(&q) else { continue };
            let expected = brute_force(metric.as_ref(), &ranked, &ends, &ideal, level);
            prop_assert!(
                (average - expected).abs() <= 1e-12 * expected.abs().max(1.0),
                "{}: {average} != {expected} on {entries:?} {unretrieved:?}",
                metric.name()
            );
        }
    }

    #[test]
    fn without_ties_average_is_the_score((entries, unretrieved) in list()) {
        let (ranked, _, ideal) = judged(&entries, &unretrieved);
        // No ends: every rank is a group of its own.
        let q = JudgedRanking::new(&ranked, ranked.len(), &ideal, RelevanceLevel::DEFAULT);
        for metric in metrics() {
            if let Some(average) = metric.score_tie_average(&q) {
                let score = metric.score(&q);
                prop_assert!((average - score).abs() <= 1e-12, "{}: {average} != {score}", metric.name());
            }
        }
    }
}

#[test]
fn the_closed_forms_cover_the_usual_metrics() {
    for spec in [
        "p@5",
        "p(denominator=retrieved)@5",
        "p(denominator=truncated)@5",
        "r@5",
        "rr",
        "rr@3",
        "ap",
        "ap@5",
        "ap(norm=truncated)@5",
        "ap(norm=k)@5",
        "ap(norm=hits)",
        "dcg@5",
        "dcg(gain=exponential)",
        "ndcg",
        "ndcg@5",
        "ndcg(gain=exponential)@3",
        "ndcg(ideal=k)@5",
        "hit_rate@3",
        "rprec",
        "rprec@3",
        "f1@5",
        "f1(beta=2)",
        "num_ret@5",
        "num_rel",
        "num_rel_ret@5",
    ] {
        assert!(
            supports_tie_average(parse_metric(spec).unwrap().as_ref()),
            "{spec}"
        );
        let tied = parse_metric(&with_ties(spec, "average")).unwrap();
        assert_eq!(
            tied.name(),
            with_ties(&parse_metric(spec).unwrap().name(), "average")
        );
    }
}

/// `spec` with `ties=value` as its last parameter.
fn with_ties(spec: &str, value: &str) -> String {
    let (base, cutoff) = spec
        .split_once('@')
        .map_or((spec, String::new()), |(b, k)| (b, format!("@{k}")));
    match base.strip_suffix(')') {
        Some(open) => format!("{open},ties={value}){cutoff}"),
        None => format!("{base}(ties={value}){cutoff}"),
    }
}

#[test]
fn a_metric_without_a_closed_form_is_refused_by_name() {
    for spec in ["err@5", "bpref", "ap(norm=hits)@5", "rbp"] {
        let error = parse_metric(&with_ties(spec, "average"))
            .unwrap_err()
            .to_string();
        let name = parse_metric(spec).unwrap().name();
        assert!(
            error.contains(&format!("`{name}`")) && error.contains("ties = average"),
            "{error}"
        );
    }
}

#[test]
fn every_metric_takes_docid_and_input_and_parses_back() {
    for metric in metrics() {
        for ties in ["docid", "input"] {
            let spec = with_ties(&metric.name(), ties);
            let tied = parse_metric(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
            assert_eq!(tied.name(), spec);
            assert_eq!(parse_metric(&tied.name()).unwrap().name(), spec);
        }
    }
    let error = parse_metric("ndcg(ties=random)@10")
        .unwrap_err()
        .to_string();
    assert!(error.contains("docid, input or average"), "{error}");
    let error = parse_metric("ndcg(ties=average,ties=docid)@10")
        .unwrap_err()
        .to_string();
    assert!(error.contains("ties"), "{error}");
}

#[test]
fn a_tie_group_of_three_by_hand() {
    // Scores 2, 1, 1, 1 with grades 0 | 1 0 0: the relevant document is at
    // rank 2, 3 or 4, each a third of the time.
    let ranked = [0.0, 1.0, 0.0, 0.0].map(Judgement::judged);
    let ideal = [1.0, 0.0, 0.0, 0.0];
    let q =
        JudgedRanking::new(&ranked, 4, &ideal, RelevanceLevel::DEFAULT).with_tie_groups(&[1, 4]);
    let rr = parse_metric("rr(ties=average)").unwrap();
    assert_eq!(rr.score(&q), (1.0 / 2.0 + 1.0 / 3.0 + 1.0 / 4.0) / 3.0);
    let p2 = parse_metric("p(ties=average)@2").unwrap();
    assert_eq!(p2.score(&q), (1.0 / 3.0) / 2.0);
}

/// One case of `data/sklearn_ndcg_ties.json`.
#[derive(serde::Deserialize)]
struct SklearnCase {
    grades: Vec<u8>,
    scores: Vec<f64>,
    k: Option<usize>,
    ndcg: f64,
}

/// scikit-learn's `ndcg_score(ignore_ties=False)` on random lists with ties
/// (`scripts/data/sklearn-ndcg-ties.py` wrote the fixture): `ndcg(ties=average)`
/// gives its values to 1e-12.
#[test]
fn ndcg_average_matches_scikit_learn() {
    #[derive(serde::Deserialize)]
    struct Fixture {
        cases: Vec<SklearnCase>,
    }
    let text = include_str!("data/sklearn_ndcg_ties.json");
    let fixture: Fixture = serde_json::from_str(text).unwrap();
    assert_eq!(fixture.cases.len(), 300);
    let mut tied = 0;
    for case in &fixture.cases {
        let mut order: Vec<usize> = (0..case.grades.len()).collect();
        order.sort_by(|&a, &b| case.scores[b].total_cmp(&case.scores[a]));
        let ranked: Vec<Judgement> = order
            .iter()
            .map(|&i| Judgement::judged(case.grades[i].into()))
            .collect();
        let mut ends: Vec<u32> = (1..order.len())
            .filter(|&i| case.scores[order[i]] != case.scores[order[i - 1]])
            .map(|i| i as u32)
            .collect();
        ends.push(order.len() as u32);
        tied += usize::from(ends.len() < order.len());
        let mut ideal: Vec<Grade> = case.grades.iter().map(|&g| g.into()).collect();
        ideal.sort_by(|a, b| b.total_cmp(a));
        let q = JudgedRanking::new(&ranked, ranked.len(), &ideal, RelevanceLevel::DEFAULT)
            .with_tie_groups(&ends);
        let spec = match case.k {
            Some(k) => format!("ndcg(ties=average)@{k}"),
            None => "ndcg(ties=average)".to_owned(),
        };
        let value = parse_metric(&spec).unwrap().score(&q);
        assert!(
            (value - case.ndcg).abs() <= 1e-12,
            "{spec} on {:?} {:?}: {value} != scikit-learn's {}",
            case.grades,
            case.scores,
            case.ndcg
        );
    }
    assert!(tied > 200, "{tied}");
}
