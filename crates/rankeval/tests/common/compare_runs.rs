//! Made-up runs for comparison tests, shared by `rankeval`'s `compare`
//! tests and `rankeval-report`'s (which include this file by path), so that
//! both compare the same numbers.

use rankeval::compare::stats;
use rankeval::report::{MetricColumn, Report, RunResult};

pub fn column(n: usize, salt: u64, shift: f64) -> Vec<f64> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ salt.wrapping_mul(0x2545_F491_4F6C_DD1D);
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state % 1000) as f64 / 999.0 + shift).clamp(0.0, 1.0)
        })
        .collect()
}

pub fn run(name: &str, queries: &[String], salt: u64, shift: f64, metrics: usize) -> RunResult {
    let per_query: Vec<Vec<f64>> = (0..metrics)
        .map(|m| column(queries.len(), salt * 10 + m as u64, shift))
        .collect();
    RunResult {
        name: name.into(),
        queries: queries.to_vec(),
        aggregates: per_query
            .iter()
            .map(|c| vec![stats::paired::mean(c)])
            .collect(),
        per_query,
        intervals: Vec::new(),
        groups: Vec::new(),
        ir_metadata: None,
        corpus: Vec::new(),
    }
}

pub fn queries(n: usize) -> Vec<String> {
    let mut q: Vec<String> = (0..n).map(|i| format!("q{i:03}")).collect();
    q.sort();
    q
}

/// Three runs (`bm25`, `dense` a little better, `hybrid` much better) on
/// `n` queries and two metrics.
pub fn report(n: usize) -> Report {
    let q = queries(n);
    Report {
        metrics: vec![
            MetricColumn {
                name: "ndcg@10".into(),
                trec: None,
            },
            MetricColumn {
                name: "ap".into(),
                trec: None,
            },
        ],
        aggregators: vec!["mean".into()],
        corpus: Vec::new(),
        runs: vec![
            run("bm25", &q, 1, 0.0, 2),
            run("dense", &q, 2, 0.02, 2),
            run("hybrid", &q, 3, 0.3, 2),
        ],
        warnings: Vec::new(),
    }
}
