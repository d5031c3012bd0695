//! Comparing two runs on many groups of queries (each conversation and
//! each turn of `--turns _`): the cost should grow with the groups'
//! queries, linearly. It once grew with their square (each group's report
//! looked up every query of each run again, and `eval --turns _ --baseline
//! a` on 200,000 queries did not finish).
//!
//! ```text
//! cargo bench -p rankeval --bench compare_groups              # 500 and 4,000 conversations
//! cargo bench -p rankeval --bench compare_groups -- --sizes 1000,8000,64000
//! ```
//!
//! Prints, for each size, the shortest of three comparisons and its ratio
//! to the smallest size's against the ratio of their sizes (linear: the
//! two ratios agree). Nothing is written; the reports are generated.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::Instant;

use rankeval::compare::{Baseline, Settings, compare};
use rankeval::groups::{conversation_groups, group_results};
use rankeval::parse_aggregator;
use rankeval::report::{MetricColumn, Report, RunResult, aggregate_run};

/// Two runs on `count` conversations of 4 turns (`c7_3`), with the groups
/// `--turns _` gives them.
fn conversations(count: usize) -> Report {
    let queries: Vec<String> = (0..count * 4)
        .map(|q| format!("c{}_{}", q / 4, q % 4 + 1))
        .collect();
    let groups = conversation_groups(&queries, "_", None).expect("groups");
    let metrics = vec![MetricColumn {
        name: "ap".into(),
        trec: None,
    }];
    let aggregators = vec![parse_aggregator("mean").expect("mean")];
    let runs = ["a", "b"]
        .iter()
        .enumerate()
        .map(|(r, name)| {
            let values: Vec<f64> = (0..queries.len())
                .map(|q| ((q * 7 + r * 3) % 11) as f64 / 10.0)
                .collect();
            let per_query = vec![values];
            let (groups, _) = group_results(
                name,
                &queries,
                &per_query,
                &metrics,
                &aggregators,
                &groups,
                "the query ids",
            );
            let whole = aggregate_run(name, &metrics, &per_query, &aggregators);
            RunResult {
                name: (*name).to_owned(),
                queries: queries.clone(),
                per_query,
                aggregates: whole.values,
                intervals: whole.intervals,
                corpus: Vec::new(),
                groups,
                ir_metadata: None,
            }
        })
        .collect();
    Report {
        metrics,
        aggregators: vec!["mean".into()],
        corpus: Vec::new(),
        runs,
        warnings: Vec::new(),
    }
}

/// The shortest of three comparisons of `report` with run `a`, in seconds.
fn seconds(report: &Report) -> f64 {
    let baseline = Baseline::Run("a".into());
    (0..3)
        .map(|_| {
            let start = Instant::now();
            let compared =
                compare(report, Some(&baseline), &Settings::default(), &[]).expect("compared");
            black_box(compared);
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sizes: Vec<usize> = args
        .iter()
        .position(|a| a == "--sizes")
        .and_then(|i| args.get(i + 1))
        .map(|s| {
            s.split(',')
                .map(|n| n.parse().expect("--sizes N,N,..."))
                .collect()
        })
        .unwrap_or_else(|| vec![500, 4000]);
    let mut first: Option<(usize, f64)> = None;
    for &size in &sizes {
        let report = conversations(size);
        let time = seconds(&report);
        let (base_size, base_time) = *first.get_or_insert((size, time));
        println!(
            "{size:>8} conversations: {time:8.4} s; {:6.1}x the time of {base_size} for {:6.1}x the conversations",
            time / base_time,
            size as f64 / base_size as f64
        );
    }
}
