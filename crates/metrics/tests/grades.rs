//! Grades as `f64`: integer grades give the very bits the integer formulas
//! gave (before grades became decimal), decimal grades are used as they
//! are, and a metric that says it does not read the experiment's relevance
//! level really does not.

use proptest::prelude::*;
use rankeval_core::registry::{self, parse_metric};
use rankeval_core::testing::{self, OwnedJudged};
use rankeval_core::{Cutoff, Metric};
use rankeval_metrics::dcg::{Gain, dcg};
use rankeval_metrics::err::err;
use rankeval_metrics::ndcg::ndcg;
use rankeval_metrics::rbp::{Persistence, RbpGain, rbp};

/// The integer formulas as they were written for `i32` grades: the
/// reference the `f64` code must match bit for bit on integer grades.
mod integer {
    /// `Gain::of` for an `i32` grade.
    pub fn gain(grade: i32, exponential: bool) -> f64 {
        let g = f64::from(grade.max(0));
        if exponential { g.exp2() - 1.0 } else { g }
    }

    /// `discounted_sum` over `i32` grades.
    pub fn discounted_sum(grades: &[i32], exponential: bool) -> f64 {
        grades
            .iter()
            .enumerate()
            .map(|(i, &g)| (i, gain(g, exponential)))
            .filter(|&(_, x)| x != 0.0)
            .fold(0.0, |sum, (i, x)| sum + x / ((i + 2) as f64).log2())
    }

    /// nDCG@k: `ranked` (unjudged as 0) against `ideal` (descending).
    pub fn ndcg(ranked: &[i32], ideal: &[i32], exponential: bool) -> f64 {
        let ideal_dcg = discounted_sum(ideal, exponential);
        if ideal_dcg > 0.0 {
            discounted_sum(ranked, exponential) / ideal_dcg
        } else {
            0.0
        }
    }

    /// ERR with `max_grade`.
    pub fn err(ranked: &[i32], max_grade: i32) -> f64 {
        let max_grade = max_grade.clamp(1, 64);
        let scale = f64::from(max_grade).exp2();
        let mut not_yet_satisfied = 1.0;
        let mut sum = 0.0;
        for (i, &g) in ranked.iter().enumerate() {
            let grade = g.max(0).min(max_grade);
            if grade == 0 {
                continue;
            }
            let satisfied = (f64::from(grade).exp2() - 1.0) / scale;
            sum += not_yet_satisfied * satisfied / (i + 1) as f64;
            not_yet_satisfied *= 1.0 - satisfied;
        }
        sum
    }

    /// RBP with graded gain (grade / the query's highest grade).
    pub fn rbp_graded(ranked: &[i32], top: i32, p: f64) -> f64 {
        let max_grade = f64::from(top.max(0));
        let mut weight = 1.0;
        let mut sum = 0.0;
        for &g in ranked {
            let utility = if g > 0 { f64::from(g) / max_grade } else { 0.0 };
            sum += utility * weight;
            weight *= p;
        }
        (1.0 - p) * sum
    }
}

/// A ranking of integer grades (`None`: unjudged), and the grades of judged
/// documents it misses.
fn integer_query() -> impl Strategy<Value = (Vec<Option<i32>>, Vec<i32>)> {
    (
        prop::collection::vec(prop::option::weighted(0.7, -1..=7), 0..30),
        prop::collection::vec(-1..=7, 0..10),
    )
}

/// The judged ranking of integer grades, built from `f64` grades.
fn as_f64(ranked: &[Option<i32>], unretrieved: &[i32]) -> OwnedJudged {
    let ranked: Vec<Option<f64>> = ranked.iter().map(|g| g.map(f64::from)).collect();
    let unretrieved: Vec<f64> = unretrieved.iter().map(|&g| f64::from(g)).collect();
    testing::graded(&ranked, &unretrieved)
}

proptest! {
    #[test]
    fn integer_grades_give_the_bits_of_the_integer_formulas(
        (ranked, unretrieved) in integer_query(),
        k in 1..40usize,
        max_grade in 1..=6i32,
    ) {
        let q = as_f64(&ranked, &unretrieved);
        let view = q.view();
        let cutoff = Cutoff::new(k);
        let top: Vec<i32> = ranked.iter().take(k).map(|g| g.unwrap_or(0)).collect();
        let mut ideal: Vec<i32> = ranked.iter().flatten().copied().chain(unretrieved.iter().copied()).collect();
        ideal.sort_unstable_by(|a, b| b.cmp(a));
        let ideal_top = &ideal[..k.min(ideal.len())];
        for (gain, exponential) in [(Gain::Linear, false), (Gain::Exponential, true)] {
            prop_assert_eq!(
                dcg(&view, cutoff, gain).to_bits(),
                integer::discounted_sum(&top, exponential).to_bits()
            );
            prop_assert_eq!(
                ndcg(&view, cutoff, gain).to_bits(),
                integer::ndcg(&top, ideal_top, exponential).to_bits()
            );
        }
        prop_assert_eq!(
            err(&view, cutoff, max_grade).to_bits(),
            integer::err(&top, max_grade).to_bits()
        );
        let p = Persistence::new(0.8).unwrap();
        prop_assert_eq!(
            rbp(&view, cutoff, p, RbpGain::Graded, 1.0).to_bits(),
            integer::rbp_graded(&top, ideal.first().copied().unwrap_or(0), 0.8).to_bits()
        );
    }

    #[test]
    fn integer_grades_are_relevant_as_integer_comparisons_say(
        (ranked, unretrieved) in integer_query(),
        level in 1..=7i32,
    ) {
        let q = as_f64(&ranked, &unretrieved).with_level(level);
        let view = q.view();
        for (judgement, grade) in view.ranked().iter().zip(&ranked) {
            prop_assert_eq!(judgement.is_relevant(view.level(None)), grade.is_some_and(|g| g >= level));
            prop_assert_eq!(
                judgement.is_judged_nonrelevant(view.level(None)),
                grade.is_some_and(|g| (0..level).contains(&g))
            );
        }
        let relevant = ranked.iter().flatten().chain(&unretrieved).filter(|&&g| g >= level).count();
        prop_assert_eq!(view.num_relevant(view.level(None)), relevant);
    }
}

/// `ranked` (grades, `None` unjudged) with `unretrieved` judgements.
fn graded(ranked: &[Option<f64>], unretrieved: &[f64]) -> OwnedJudged {
    testing::graded(ranked, unretrieved)
}

#[test]
fn half_star_grades_are_gains_as_they_are() {
    // Ratings 4.5, unjudged, 3.5; 5.0 judged but not retrieved.
    let q = graded(&[Some(4.5), None, Some(3.5)], &[5.0]);
    let view = q.view();
    let linear = 4.5 + 3.5 / 4f64.log2();
    assert_eq!(dcg(&view, None, Gain::Linear), linear);
    let exponential = (4.5f64.exp2() - 1.0) + (3.5f64.exp2() - 1.0) / 2.0;
    assert_eq!(dcg(&view, None, Gain::Exponential), exponential);
    let ideal = 5.0 + 4.5 / 3f64.log2() + 3.5 / 2.0;
    assert_eq!(ndcg(&view, None, Gain::Linear), linear / ideal);
    // ERR: R = (2^g - 1) / 2^max_grade, with g = 4.5 and 3.5.
    let r1 = (4.5f64.exp2() - 1.0) / 32.0;
    let r3 = (3.5f64.exp2() - 1.0) / 32.0;
    assert_eq!(err(&view, None, 5), r1 + (1.0 - r1) * r3 / 3.0);
    // RBP graded: grade / the highest grade of the query (5.0).
    let p = Persistence::new(0.5).unwrap();
    let expected = (1.0 - 0.5) * (4.5 / 5.0 + 0.0 + 3.5 / 5.0 * 0.25);
    assert_eq!(rbp(&view, None, p, RbpGain::Graded, 1.0), expected);
}

#[test]
fn decimal_levels_are_thresholds_as_they_are() {
    let q = graded(
        &[Some(3.0), Some(3.5), Some(0.5), Some(4.0), Some(0.0), None],
        &[5.0, 0.25],
    );
    let score = |spec: &str, level: f64| {
        let metric = parse_metric(spec).unwrap();
        q.clone().with_level(level).score(&*metric)
    };
    // p@5 counts grades >= rel among the top 5.
    assert_eq!(score("p@5", 3.5), 2.0 / 5.0);
    assert_eq!(score("p(rel=3.5)@5", 1.0), 2.0 / 5.0);
    assert_eq!(score("p@5", 1.0), 3.0 / 5.0);
    assert_eq!(score("p@5", 0.5), 4.0 / 5.0);
    // rel below 0.5: 0.25 counts too (it is not retrieved), 0 never does.
    assert_eq!(score("num_rel", 0.25), 6.0);
    assert_eq!(score("num_rel", 0.5), 5.0);
    assert_eq!(score("num_rel(rel=3.5)", 1.0), 3.0);
    // rr: the first grade of at least 3.5 is at rank 2.
    assert_eq!(score("rr", 3.5), 0.5);
    // nDCG does not read the level.
    assert_eq!(score("ndcg", 3.5).to_bits(), score("ndcg", 1.0).to_bits());
}

/// Every registered metric's example and variants with and without `rel`.
fn metrics() -> Vec<Box<dyn Metric>> {
    const SPECS: &[&str] = &[
        "p@5",
        "p(rel=2)@5",
        "r",
        "rr",
        "ap",
        "ap(rel=3)",
        "hit_rate@3",
        "dcg@5",
        "ndcg",
        "ndcg(gain=exponential)@3",
        "rprec",
        "bpref",
        "bpref(rel=2)",
        "f1",
        "rbp",
        "rbp(rel=2)",
        "rbp(gain=graded)",
        "err",
        "num_ret",
        "num_rel",
        "num_rel_ret",
    ];
    registry::metrics()
        .iter()
        .map(|d| (d.example)())
        .chain(SPECS.iter().map(|s| parse_metric(s).unwrap()))
        .collect()
}

#[test]
fn a_metric_that_says_it_ignores_the_level_ignores_it_and_the_others_read_it() {
    // Rankings over grades -1 to 4 in halves, with the levels 0.5 and 3.
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let queries: Vec<OwnedJudged> = (0..300)
        .map(|_| {
            let ranked: Vec<Option<f64>> = (0..next(20))
                .map(|_| (next(4) > 0).then(|| next(11) as f64 * 0.5 - 1.0))
                .collect();
            let unretrieved: Vec<f64> = (0..next(6)).map(|_| next(11) as f64 * 0.5 - 1.0).collect();
            graded(&ranked, &unretrieved)
        })
        .collect();
    for metric in metrics() {
        let differs = queries.iter().any(|q| {
            let low = q.clone().with_level(0.5).score(&*metric);
            let high = q.clone().with_level(3).score(&*metric);
            low.to_bits() != high.to_bits()
        });
        assert_eq!(
            differs,
            metric.uses_default_level(),
            "{}: uses_default_level() is {} but the experiment's level {} its values",
            metric.name(),
            metric.uses_default_level(),
            if differs {
                "changes"
            } else {
                "does not change"
            }
        );
    }
}
