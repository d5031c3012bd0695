//! How far two runs agree, without judgements: per query, the rank-biased
//! overlap of their lists (RBO, with Corsi and Urbano's tie treatments),
//! their top-k overlap and Kendall's tau over the documents both put in
//! their top k; over the queries, each statistic aggregated as a metric is
//! (a mean and its confidence interval by default: the registry's
//! aggregators, `ci` included).
//!
//! A query is compared when both runs list it; the queries only one run
//! lists, and those where a run's list is empty, are counted and named
//! ([`OverlapReport::first_only`], [`OverlapReport::second_only`],
//! [`OverlapReport::empty`]), never silently dropped. Tied scores form the
//! tie groups RBO treats; a run without scores (ranks as given) has none.

use rankeval_core::{Aggregator, RankedList, Run};
use rankeval_stats::CompareError;
use rankeval_stats::agreement::{kendall_tau, top_k_overlap};
use rankeval_stats::rbo::{Rbo, RboTies, TiedRanking, rbo};
use serde::Serialize;

use crate::engine::QuerySample;

/// The default persistence of RBO: 0.9, the top 10 ranks weigh 86 % of the
/// score (Webber et al.'s usual choice for web search).
pub const DEFAULT_P: f64 = 0.9;

/// The default `k` of top-k overlap and of Kendall's tau.
pub const DEFAULT_K: usize = 10;

/// What the statistics are computed with.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct OverlapOptions {
    /// RBO's persistence, strictly between 0 and 1.
    pub p: f64,
    /// RBO's treatment of tied scores.
    pub ties: RboTies,
    /// The depth of top-k overlap and of Kendall's tau, at least 1.
    pub k: usize,
}

impl Default for OverlapOptions {
    fn default() -> Self {
        Self {
            p: DEFAULT_P,
            ties: RboTies::default(),
            k: DEFAULT_K,
        }
    }
}

/// Why two runs could not be compared.
#[derive(Debug, thiserror::Error)]
pub enum OverlapError {
    /// An option is out of range.
    #[error("{0}")]
    Options(CompareError),
    /// No query has a non-empty list in both runs.
    #[error("no query has a non-empty list in both {first} and {second}")]
    NothingShared {
        /// The first run's name.
        first: String,
        /// The second run's name.
        second: String,
    },
    /// A statistic refused one query's lists.
    #[error("query `{query}`: {source}")]
    Query {
        /// The query, as messages show ids.
        query: String,
        /// Why.
        source: CompareError,
    },
}

/// The statistics of one query.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueryOverlap {
    /// The query id.
    pub query: String,
    /// The lengths of the two lists.
    pub lengths: [usize; 2],
    /// The four RBO scores of the two lists.
    pub rbo: Rbo,
    /// The share of the top k documents both lists hold.
    pub top_k: f64,
    /// Kendall's tau-b between the two lists' ranks (tied scores sharing a
    /// rank) over the documents both hold in their top k; `None` when
    /// fewer than two are shared or one list ties them all.
    pub tau: Option<f64>,
    /// How many documents both lists hold in their top k.
    pub shared_top_k: usize,
}

/// The statistics' names, in the order of [`StatisticSummary`]s: the four
/// RBO scores, top-k overlap and Kendall's tau.
pub fn statistic_names(k: usize) -> [String; 6] {
    [
        "rbo_ext".to_owned(),
        "rbo_min".to_owned(),
        "rbo_max".to_owned(),
        "rbo_res".to_owned(),
        format!("overlap@{k}"),
        format!("tau@{k}"),
    ]
}

/// One aggregator's value over the queries.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AggregateValue {
    /// The aggregator's canonical name (`mean`, `ci`).
    pub aggregator: String,
    /// Its value.
    pub value: f64,
    /// Its interval's bounds, for one that gives an interval (`ci`).
    pub interval: Option<[f64; 2]>,
    /// Why the interval could not be computed (one query, ...).
    pub interval_error: Option<String>,
}

/// One statistic over the queries.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StatisticSummary {
    /// The statistic (`rbo_ext`, `overlap@10`, `tau@10`).
    pub statistic: String,
    /// The queries it is defined on (for tau, those with two or more
    /// shared documents that neither list ties all).
    pub queries: usize,
    /// Each aggregator's value, in the order given.
    pub aggregates: Vec<AggregateValue>,
}

/// The agreement of two runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OverlapReport {
    /// The first run's name.
    pub first: String,
    /// The second run's name.
    pub second: String,
    /// The options.
    pub options: OverlapOptions,
    /// Per query compared, in query id order.
    pub queries: Vec<QueryOverlap>,
    /// Each statistic over the queries, in [`statistic_names`]' order.
    pub summary: Vec<StatisticSummary>,
    /// Queries only the first run lists: left out.
    pub first_only: QuerySample,
    /// Queries only the second run lists: left out.
    pub second_only: QuerySample,
    /// Queries both list, with an empty list in one of them (RBO is
    /// undefined for an empty ranking): left out.
    pub empty: QuerySample,
}

/// A list as a ranking for RBO: its documents in the run's order, adjacent
/// equal scores tied.
fn ranking<'a>(list: &RankedList<'a>) -> TiedRanking<&'a [u8]> {
    let docs: Vec<&[u8]> = list.docs().collect();
    let scores: Vec<f64> = (0..list.len()).map_while(|i| list.score(i)).collect();
    TiedRanking::from_ordered_keys(docs, &scores)
}

/// Each document's rank in a ranking, tied documents sharing their group's
/// top rank (1-based).
fn ranks<'a>(list: &RankedList<'a>) -> Vec<(&'a [u8], usize)> {
    let mut out = Vec::with_capacity(list.len());
    let mut top = 1;
    for i in 0..list.len() {
        let tied =
            i > 0 && matches!((list.score(i - 1), list.score(i)), (Some(a), Some(b)) if a == b);
        if !tied {
            top = i + 1;
        }
        out.push((list.doc(i), top));
    }
    out
}

/// The statistics of one query's two lists.
fn query_overlap(
    query: &str,
    a: &RankedList<'_>,
    b: &RankedList<'_>,
    options: &OverlapOptions,
) -> Result<QueryOverlap, CompareError> {
    let scores = rbo(&ranking(a), &ranking(b), options.p, options.ties)?;
    let k = options.k;
    let (top_a, top_b) = (
        a.docs().take(k).collect::<Vec<_>>(),
        b.docs().take(k).collect::<Vec<_>>(),
    );
    let top_k = top_k_overlap(&top_a, &top_b, k)?;
    let ranks_b: std::collections::HashMap<&[u8], usize> = ranks(b).into_iter().take(k).collect();
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for (doc, rank) in ranks(a).into_iter().take(k) {
        if let Some(&other) = ranks_b.get(doc) {
            x.push(-(rank as f64));
            y.push(-(other as f64));
        }
    }
    let tau = if x.len() >= 2 {
        Some(kendall_tau(&x, &y)?.tau).filter(|t| !t.is_nan())
    } else {
        None
    };
    Ok(QueryOverlap {
        query: query.to_owned(),
        lengths: [a.len(), b.len()],
        rbo: scores,
        top_k,
        tau,
        shared_top_k: x.len(),
    })
}

/// Compares the runs `first` and `second` (each named) query by query
/// with `options`, and aggregates each statistic over the queries with
/// each of `aggregators` (give `ci` for a mean and its interval).
pub fn overlap(
    first: (&str, &Run),
    second: (&str, &Run),
    options: &OverlapOptions,
    aggregators: &[Box<dyn Aggregator>],
) -> Result<OverlapReport, OverlapError> {
    if !(options.p > 0.0 && options.p < 1.0) {
        return Err(OverlapError::Options(CompareError::InvalidPersistence {
            p: options.p,
        }));
    }
    if options.k == 0 {
        return Err(OverlapError::Options(CompareError::ZeroTopK));
    }
    let (run_a, run_b) = (first.1, second.1);
    let mut names: Vec<&str> = run_a.queries().collect();
    names.sort_unstable();
    let mut queries = Vec::new();
    let mut empty = Vec::new();
    let mut first_only = Vec::new();
    for name in names {
        let (Some(a), Some(b)) = (run_a.list(name), run_b.list(name)) else {
            first_only.push(name.as_bytes());
            continue;
        };
        if a.is_empty() || b.is_empty() {
            empty.push(name.as_bytes());
            continue;
        }
        queries.push(query_overlap(name, &a, &b, options).map_err(|source| {
            OverlapError::Query {
                query: rankeval_core::shorten_id(name.as_bytes()).to_string(),
                source,
            }
        })?);
    }
    let second_only: Vec<&[u8]> = run_b
        .queries()
        .filter(|name| run_a.query_index(name.as_bytes()).is_none())
        .map(str::as_bytes)
        .collect();
    if queries.is_empty() {
        return Err(OverlapError::NothingShared {
            first: first.0.to_owned(),
            second: second.0.to_owned(),
        });
    }
    let columns: [Vec<f64>; 6] = [
        queries.iter().map(|q| q.rbo.ext).collect(),
        queries.iter().map(|q| q.rbo.min).collect(),
        queries.iter().map(|q| q.rbo.max).collect(),
        queries.iter().map(|q| q.rbo.res).collect(),
        queries.iter().map(|q| q.top_k).collect(),
        queries.iter().filter_map(|q| q.tau).collect(),
    ];
    let summary = statistic_names(options.k)
        .into_iter()
        .zip(columns)
        .map(|(statistic, values)| StatisticSummary {
            statistic,
            queries: values.len(),
            aggregates: aggregate(&values, aggregators),
        })
        .collect();
    Ok(OverlapReport {
        first: first.0.to_owned(),
        second: second.0.to_owned(),
        options: *options,
        queries,
        summary,
        first_only: QuerySample::of(first_only),
        second_only: QuerySample::of(second_only),
        empty: QuerySample::of(empty),
    })
}

/// Each aggregator over `values` (none when `values` is empty: tau on no
/// query).
fn aggregate(values: &[f64], aggregators: &[Box<dyn Aggregator>]) -> Vec<AggregateValue> {
    if values.is_empty() {
        return Vec::new();
    }
    aggregators
        .iter()
        .map(|aggregator| {
            let (interval, interval_error) = match aggregator.interval(values) {
                Some(Ok(bounds)) => (Some([bounds.lower, bounds.upper]), None),
                Some(Err(error)) => (None, Some(error)),
                None => (None, None),
            };
            AggregateValue {
                aggregator: aggregator.name(),
                value: aggregator.aggregate(values),
                interval,
                interval_error,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use rankeval_core::{Duplicates, RunBuilder};

    use super::*;

    fn run(rows: &[(&str, &str, f64)]) -> Run {
        let mut builder = RunBuilder::new();
        for (q, d, s) in rows {
            builder.push_scored(*q, *d, *s).unwrap();
        }
        builder.finish(Duplicates::Error).unwrap()
    }

    fn ci() -> Vec<Box<dyn Aggregator>> {
        vec![rankeval_core::registry::parse_aggregator("ci").unwrap()]
    }

    #[test]
    fn per_query_statistics_by_hand() {
        // q1: a b c against b a d, no ties; q2 only in the first run.
        let a = run(&[
            ("q1", "a", 3.0),
            ("q1", "b", 2.0),
            ("q1", "c", 1.0),
            ("q2", "x", 1.0),
        ]);
        let b = run(&[("q1", "b", 3.0), ("q1", "a", 2.0), ("q1", "d", 1.0)]);
        let options = OverlapOptions {
            p: 0.5,
            ties: RboTies::A,
            k: 2,
        };
        let report = overlap(("a", &a), ("b", &b), &options, &ci()).unwrap();
        assert_eq!(report.queries.len(), 1);
        let q = &report.queries[0];
        // Top 2: {a, b} both: overlap 1; tau over a, b: reversed, -1.
        assert_eq!(q.top_k, 1.0);
        assert_eq!(q.tau, Some(-1.0));
        assert_eq!(q.shared_top_k, 2);
        let want = rbo(
            &TiedRanking::untied(vec!["a", "b", "c"]),
            &TiedRanking::untied(vec!["b", "a", "d"]),
            0.5,
            RboTies::A,
        )
        .unwrap();
        assert_eq!(q.rbo, want);
        assert_eq!(report.first_only.count, 1);
        assert_eq!(report.first_only.first, vec!["q2".to_owned()]);
        assert_eq!(report.second_only.count, 0);
        // One query: the mean is its value, the interval undefined.
        let ext = &report.summary[0];
        assert_eq!(ext.statistic, "rbo_ext");
        assert_eq!(ext.aggregates[0].value, want.ext);
        assert!(ext.aggregates[0].interval_error.is_some());
    }

    #[test]
    fn tied_scores_are_tie_groups() {
        // The first run ties b and c: RBO^a of a (b c) against a c b.
        let a = run(&[("q", "a", 2.0), ("q", "b", 1.0), ("q", "c", 1.0)]);
        let b = run(&[("q", "a", 3.0), ("q", "c", 2.0), ("q", "b", 1.0)]);
        let options = OverlapOptions {
            p: 0.9,
            ties: RboTies::W,
            k: 3,
        };
        let report = overlap(("a", &a), ("b", &b), &options, &ci()).unwrap();
        let want = rbo(
            &TiedRanking::from_groups([vec!["a"], vec!["c", "b"]]),
            &TiedRanking::untied(vec!["a", "c", "b"]),
            0.9,
            RboTies::W,
        )
        .unwrap();
        assert_eq!(report.queries[0].rbo, want);
        // tau-b with the tie: ranks (1, 2, 2) against (1, 3, 2) for a, b, c.
        let tau = kendall_tau(&[-1.0, -2.0, -2.0], &[-1.0, -3.0, -2.0])
            .unwrap()
            .tau;
        assert_eq!(report.queries[0].tau, Some(tau));
    }

    #[test]
    fn means_and_intervals_over_queries() {
        let a = run(&[
            ("1", "a", 2.0),
            ("1", "b", 1.0),
            ("2", "a", 2.0),
            ("2", "b", 1.0),
            ("3", "a", 2.0),
        ]);
        let b = run(&[
            ("1", "a", 2.0),
            ("1", "b", 1.0),
            ("2", "b", 2.0),
            ("2", "c", 1.0),
            ("3", "z", 1.0),
        ]);
        let report = overlap(("a", &a), ("b", &b), &OverlapOptions::default(), &ci()).unwrap();
        let top: Vec<f64> = report.queries.iter().map(|q| q.top_k).collect();
        // k = 10: 2, 1 and 0 shared documents.
        assert_eq!(top, vec![0.2, 0.1, 0.0]);
        let summary = &report.summary[4];
        assert_eq!(summary.statistic, "overlap@10");
        let want = rankeval_stats::t_interval(&top, 0.95).unwrap();
        let got = summary.aggregates[0].interval.unwrap();
        assert_eq!(got, [want.lower, want.upper]);
        // Tau: only query 1 has two shared documents.
        assert_eq!(report.summary[5].queries, 1);
    }

    #[test]
    fn options_and_disjoint_query_sets_are_errors() {
        let a = run(&[("1", "a", 1.0)]);
        let b = run(&[("2", "a", 1.0)]);
        let bad_p = OverlapOptions {
            p: 1.0,
            ..OverlapOptions::default()
        };
        assert!(matches!(
            overlap(("a", &a), ("a", &a), &bad_p, &ci()),
            Err(OverlapError::Options(_))
        ));
        let bad_k = OverlapOptions {
            k: 0,
            ..OverlapOptions::default()
        };
        assert!(overlap(("a", &a), ("a", &a), &bad_k, &ci()).is_err());
        assert!(matches!(
            overlap(("a", &a), ("b", &b), &OverlapOptions::default(), &ci()),
            Err(OverlapError::NothingShared { .. })
        ));
    }
}
