//! The queries two runs share, paired by id, and those whose value moved
//! most: what the HTML page charts and what `html_explain` explains (apart
//! from both, so that neither module needs the other).

use std::collections::HashMap;

use super::Report;

/// How many queries "the queries that changed most" lists per metric and run.
pub const CHANGED: usize = 10;

/// One query's values in the baseline and another run.
pub(crate) struct Paired<'a> {
    pub(crate) query: &'a str,
    pub(crate) baseline: f64,
    pub(crate) other: f64,
}

impl Paired<'_> {
    pub(crate) fn difference(&self) -> f64 {
        self.other - self.baseline
    }
}

/// Queries evaluated in both `baseline` and run `r`, with metric `m`'s
/// values (finite ones only), and how many queries were not in both.
pub(crate) fn paired<'a>(
    report: &'a Report,
    baseline: usize,
    m: usize,
    r: usize,
) -> (Vec<Paired<'a>>, usize) {
    let base = &report.runs[baseline];
    let other = &report.runs[r];
    let index: HashMap<&str, usize> = base
        .queries
        .iter()
        .enumerate()
        .map(|(i, q)| (q.as_str(), i))
        .collect();
    let mut pairs = Vec::with_capacity(other.queries.len());
    let mut both = 0;
    for (j, query) in other.queries.iter().enumerate() {
        if let Some(&i) = index.get(query.as_str()) {
            both += 1;
            let (b, o) = (base.per_query[m][i], other.per_query[m][j]);
            if b.is_finite() && o.is_finite() {
                pairs.push(Paired {
                    query,
                    baseline: b,
                    other: o,
                });
            }
        }
    }
    let only_one = base.queries.len() + other.queries.len() - 2 * both;
    let not_a_number = both - pairs.len();
    (pairs, only_one + not_a_number)
}

/// The [`CHANGED`] queries whose metric `m` moved most from `baseline` to
/// run `other`, by absolute difference (ties by query id; unchanged
/// queries left out), with their values.
pub(crate) fn changed<'a>(
    report: &'a Report,
    baseline: usize,
    m: usize,
    other: usize,
) -> Vec<Paired<'a>> {
    let (mut pairs, _) = paired(report, baseline, m, other);
    pairs.retain(|p| p.difference() != 0.0);
    pairs.sort_by(|a, b| {
        b.difference()
            .abs()
            .total_cmp(&a.difference().abs())
            .then_with(|| a.query.cmp(b.query))
    });
    pairs.truncate(CHANGED);
    pairs
}

/// The ids of the queries [`changed`] lists: what the report explains.
pub fn changed_queries(report: &Report, baseline: usize, m: usize, other: usize) -> Vec<String> {
    changed(report, baseline, m, other)
        .iter()
        .map(|p| p.query.to_owned())
        .collect()
}
