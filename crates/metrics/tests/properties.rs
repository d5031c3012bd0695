//! Properties every built-in metric keeps on random judged rankings (graded,
//! unjudged and negative grades): values in range, depth honoured, nDCG of
//! an ideal ranking, the order of the AP normalizations, and indifference to
//! non-relevant documents appended past the cutoff.

use proptest::prelude::*;
use rankeval_core::registry::{self, parse_metric};
use rankeval_core::testing::{self, OwnedJudged};
use rankeval_core::{Cutoff, GroupRanking, JudgedRanking, Metric, SubtopicRanking};
use rankeval_metrics::average_precision::{ApNormalization, average_precision};

/// Specs beyond the registered examples: every variant, with and without
/// cutoffs, so each code path meets the random rankings.
pub(crate) const SPECS: &[&str] = &[
    "p@5",
    "p",
    "p(denominator=retrieved)@5",
    "r@5",
    "r",
    "rr",
    "rr@3",
    "ap",
    "ap@5",
    "ap(norm=truncated)@5",
    "ap(norm=truncated)",
    "ap(norm=hits)@5",
    "hit_rate@3",
    "hit_rate",
    "dcg",
    "dcg@5",
    "dcg(gain=exponential)@5",
    "ndcg",
    "ndcg@5",
    "ndcg(gain=exponential)@3",
    "rprec",
    "rprec(rel=2)",
    "bpref",
    "bpref@5",
    "bpref(rel=2)",
    "f1",
    "f1@5",
    "rbp",
    "rbp(p=0.5)@5",
    "rbp(p=0.9,gain=graded)",
    "err",
    "err(max_grade=2)@5",
    "num_ret",
    "num_ret@5",
    "num_rel",
    "num_rel(rel=2)",
    "num_rel_ret",
    "num_rel_ret@5",
    "ap(norm=k)@5",
    "p(denominator=truncated)@5",
    "rprec@3",
    "f1(beta=2)@5",
    "ndcg(ideal=k)@5",
    "ndcg(ideal=k)",
    "judged@5",
    "fallout@5",
    "fallout(negatives=judged)",
    "auc",
    "auc@5",
    "ncrr@5",
    "weighted",
    "weighted(gain=binary,discount=reciprocal,norm=ideal)@5",
    "weighted(gain=binary,discount=geometric,norm=unbounded)",
    "weighted(gain=exponential,discount=none,norm=weights)@5",
    "iprec_at_recall(recall=0)",
    "iprec_at_recall(recall=0.5)",
    "iprec_at_recall(recall=1)",
    "eleven_point_average",
    "infap",
    "rprec_mult(mult=0.2)",
    "rprec_mult(mult=2)",
    "utility",
    "relative_p@5",
    "relative_p",
    "set_map",
    "g",
    "bin_g",
    "ndcg_rel",
    "rndcg",
    "unjudged@5",
    "unjudged",
    "num_nonrel_judged_ret",
    "rbp_resid",
];

/// Every registered metric's example, then the specs above.
pub(crate) fn metrics() -> Vec<Box<dyn Metric>> {
    registry::metrics()
        .iter()
        .map(|d| (d.example)())
        .chain(SPECS.iter().map(|s| parse_metric(s).unwrap()))
        .collect()
}

/// The registered name (`type`) of a metric.
fn type_of(metric: &dyn Metric) -> String {
    let json = serde_json::to_value(metric).unwrap();
    json["type"].as_str().unwrap().to_owned()
}

/// The same metric with cutoff `k`, if it takes one.
fn with_cutoff(metric: &dyn Metric, k: usize) -> Option<Box<dyn Metric>> {
    let mut json = serde_json::to_value(metric).unwrap();
    let name = type_of(metric);
    let takes_k = registry::find::<dyn Metric>(&name)
        .unwrap()
        .params
        .iter()
        .any(|p| p.name == "k");
    takes_k.then(|| {
        json["k"] = k.into();
        serde_json::from_value(json).unwrap()
    })
}

/// What values a metric may take.
enum Range {
    /// A ratio in [0, 1].
    Unit,
    /// Any non-negative number (DCG).
    NonNegative,
    /// A non-negative integer.
    Count,
    /// Any finite number (utility's weights may be negative).
    Finite,
    /// A correlation in [-1, 1] (Matthews').
    Correlation,
}

fn range_of(metric: &dyn Metric) -> Range {
    match type_of(metric).as_str() {
        // weighted's gains and normalizations need not stay below 1.
        "dcg" | "weighted" => Range::NonNegative,
        "utility" => Range::Finite,
        "mcc" => Range::Correlation,
        name if name.starts_with("num_") => Range::Count,
        _ => Range::Unit,
    }
}

/// A ranked list as a `testing::judged` pattern: judged grades 0 to 4,
/// `-` for grade -1, `.` for a document the qrels do not mention.
fn pattern(max_len: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!['.', '-', '0', '0', '1', '1', '2', '3', '4']),
        0..=max_len,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

/// Grades of judged documents that the ranking does not hold.
fn unretrieved() -> impl Strategy<Value = Vec<i32>> {
    prop::collection::vec(-1..=4, 0..8)
}

/// A random query: ranking, unretrieved judgements and relevance level.
fn query() -> impl Strategy<Value = OwnedJudged> {
    (pattern(25), unretrieved(), 1..=3).prop_map(|(pattern, unretrieved, level)| {
        testing::judged(&pattern, &unretrieved).with_level(level)
    })
}

/// The grades a pattern gives its judged documents.
fn judged_grades(pattern: &str) -> Vec<i32> {
    let q = testing::judged(pattern, &[]);
    q.view()
        .ranked()
        .iter()
        .filter(|j| j.is_judged())
        .map(|j| j.grade() as i32)
        .collect()
}

proptest! {
    #[test]
    fn every_metric_stays_in_range(q in query()) {
        for metric in metrics() {
            let value = q.score(&*metric);
            let name = metric.name();
            prop_assert!(value.is_finite(), "{name} = {value}");
            prop_assert!(!(value == 0.0 && value.is_sign_negative()), "{name} = -0.0");
            match range_of(&*metric) {
                Range::Unit => prop_assert!((0.0..=1.0).contains(&value), "{name} = {value}"),
                Range::NonNegative => prop_assert!(value >= 0.0, "{name} = {value}"),
                Range::Finite => {}
                Range::Correlation => prop_assert!((-1.0..=1.0).contains(&value), "{name} = {value}"),
                Range::Count => prop_assert!(
                    value >= 0.0 && value.fract() == 0.0,
                    "{name} = {value} is not a count"
                ),
            }
        }
    }

    #[test]
    fn no_metric_reads_below_its_depth(q in query()) {
        let view = q.view();
        for metric in metrics() {
            let Some(depth) = metric.depth() else { continue };
            let ranked = &view.ranked()[..depth.get().min(view.ranked().len())];
            let cut = JudgedRanking::new(
                ranked,
                view.retrieved(),
                view.ideal_grades(),
                view.default_level(),
            );
            // The subtopic judgements of the same ranks, for the metrics
            // that read them.
            let cut = match view.subtopics() {
                Some(s) => cut.with_subtopics(SubtopicRanking::new(s.query(), &s.ranked()[..ranked.len()])),
                None => cut,
            };
            // And the document groups of the same ranks.
            let cut = match view.groups() {
                Some(g) => cut.with_groups(GroupRanking::new(g.groups(), &g.ranked()[..ranked.len()], g.judged())),
                None => cut,
            };
            // And their per-document facts (propensities, judged anywhere).
            let cut = match view.documents() {
                Some(d) => cut.with_documents(d.cut(ranked.len())),
                None => cut,
            };
            let (full, judged_to_depth) = (metric.score(&view), metric.score(&cut));
            prop_assert_eq!(full.to_bits(), judged_to_depth.to_bits(), "{}", metric.name());
        }
    }

    #[test]
    fn ndcg_of_an_ideal_ranking_is_one(
        grades in prop::collection::vec(-1..=4i32, 1..20),
        top in 1..=4i32,
        extra in prop::collection::vec(-1..=0i32, 0..5),
        k in prop::option::of(1..=25usize),
        level in 1..=3,
    ) {
        // At least one positive grade; the list is every grade, best first.
        let mut grades = grades;
        grades.push(top);
        grades.sort_unstable_by(|a, b| b.cmp(a));
        let pattern: String = grades
            .iter()
            .map(|&g| if g < 0 { '-' } else { char::from(b'0' + g as u8) })
            .collect();
        let q = testing::judged(&pattern, &extra).with_level(level);
        let cutoff = k.map(|k| format!("@{k}")).unwrap_or_default();
        for gain in ["linear", "exponential"] {
            let spec = format!("ndcg(gain={gain}){cutoff}");
            let value = q.score(&*parse_metric(&spec).unwrap());
            prop_assert!((value - 1.0).abs() < 1e-12, "{spec} = {value} on {pattern}");
        }
    }

    #[test]
    fn ap_normalizations_are_ordered(q in query(), k in prop::option::of(1..=30usize)) {
        let view = q.view();
        let k = k.and_then(Cutoff::new);
        let level = view.default_level().get();
        let ap = |n| average_precision(&view, k, level, n);
        let (hits, truncated, relevant) = (
            ap(ApNormalization::Hits),
            ap(ApNormalization::Truncated),
            ap(ApNormalization::Relevant),
        );
        prop_assert!(hits >= truncated, "hits {hits} < truncated {truncated}");
        prop_assert!(truncated >= relevant, "truncated {truncated} < relevant {relevant}");
    }

    #[test]
    fn non_relevant_documents_past_k_change_nothing(
        (head, k) in pattern(25)
            .prop_filter("a cutoff needs a ranked document", |p| !p.is_empty())
            .prop_flat_map(|p| { let n = p.len(); (Just(p), 1..=n) }),
        tail in prop::collection::vec(prop::sample::select(vec!['.', '0', '-']), 1..10),
        unretrieved in unretrieved(),
        level in 1..=3,
    ) {
        // The same qrels either way: the judged documents of the tail are
        // unretrieved judgements of the shorter ranking.
        let tail: String = tail.into_iter().collect();
        let mut short_unretrieved = unretrieved.clone();
        short_unretrieved.extend(judged_grades(&tail));
        let short = testing::judged(&head, &short_unretrieved).with_level(level);
        let long = testing::judged(&format!("{head}{tail}"), &unretrieved).with_level(level);
        prop_assert_eq!(short.view().ideal_grades(), long.view().ideal_grades());
        for metric in metrics() {
            let Some(metric) = with_cutoff(&*metric, k) else { continue };
            // A metric that declares it reads the whole list whatever its
            // cutoff (fall-out over the list's negatives) is not "at k".
            if metric.depth().is_none() { continue }
            let (before, after) = (short.score(&*metric), long.score(&*metric));
            prop_assert_eq!(before.to_bits(), after.to_bits(), "{} on {}|{}", metric.name(), head, tail);
        }
    }
}

#[test]
fn every_registered_metric_takes_part() {
    let names: Vec<String> = metrics().iter().map(|m| type_of(&**m)).collect();
    for d in registry::metrics() {
        assert!(
            names.iter().any(|n| n == d.name),
            "{} is not tested",
            d.name
        );
    }
}
