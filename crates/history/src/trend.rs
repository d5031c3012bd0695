//! The trend of each metric's mean over the records of one run, and the
//! queries that moved most between two records: pure functions of what was
//! read, for the renderers.

use std::collections::HashMap;

use crate::record::{Record, RecordKind, RecordSummary};

/// One point of a trend: a record's mean of one metric.
#[derive(Clone, Debug, PartialEq)]
pub struct TrendPoint {
    /// The record's id.
    pub id: i64,
    /// When it was evaluated (milliseconds since the Unix epoch, UTC).
    pub time_ms: i64,
    /// Its label, if any.
    pub label: Option<String>,
    /// Its commit, if any.
    pub commit: Option<String>,
    /// Whether it was ever accepted.
    pub accepted: bool,
    /// The number of queries.
    pub n: u64,
    /// The mean.
    pub mean: f64,
    /// Student's t interval at [`LEVEL`](crate::LEVEL), if it exists; an
    /// off-policy estimate's own interval (at the record's `ope.level`).
    pub interval: Option<(f64, f64)>,
    /// The confidence level of `interval` (the record's
    /// [`RecordSummary::level`]).
    pub level: f64,
    /// An off-policy estimate's standard error.
    pub standard_error: Option<f64>,
    /// Why an off-policy estimate is refused, when it is.
    pub refused: Option<String>,
    /// The metric's definition version in this record.
    pub definition_version: u32,
    /// The record's judgements fingerprint: a point whose fingerprint
    /// differs from the previous one's was measured against other
    /// judgements.
    pub qrels_fingerprint: String,
}

/// The means of one metric of one run over the records, in order of id.
#[derive(Clone, Debug, PartialEq)]
pub struct TrendSeries {
    /// The run's name.
    pub run: String,
    /// The metric's canonical name.
    pub metric: String,
    /// The records' kind: an evaluation's means, or an off-policy
    /// estimator's estimates (`ope.` names only ever come from the latter).
    pub kind: RecordKind,
    /// One point per record holding the metric.
    pub points: Vec<TrendPoint>,
}

/// The trends of `records` (in order of id): one series per run and
/// metric, in order of first appearance.
pub fn trend(records: &[RecordSummary]) -> Vec<TrendSeries> {
    let mut series: Vec<TrendSeries> = Vec::new();
    let mut index: HashMap<(String, String), usize> = HashMap::new();
    for record in records {
        for mean in &record.means {
            let key = (record.run.clone(), mean.name.clone());
            let at = *index.entry(key).or_insert_with(|| {
                series.push(TrendSeries {
                    run: record.run.clone(),
                    metric: mean.name.clone(),
                    kind: record.kind,
                    points: Vec::new(),
                });
                series.len() - 1
            });
            if let Some(s) = series.get_mut(at) {
                s.points.push(TrendPoint {
                    id: record.id,
                    time_ms: record.time_ms,
                    label: record.label.clone(),
                    commit: record.commit.clone(),
                    accepted: record.accepted,
                    n: mean.n,
                    mean: mean.mean,
                    interval: mean.interval,
                    level: record.level,
                    standard_error: mean.standard_error,
                    refused: mean.refused.clone(),
                    definition_version: mean.definition_version,
                    qrels_fingerprint: record.qrels_fingerprint.clone(),
                });
            }
        }
    }
    series
}

/// A query whose value of a metric differs between two records.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryMove {
    /// The metric.
    pub metric: String,
    /// The query.
    pub query: String,
    /// Its value in the first record.
    pub a: f64,
    /// Its value in the second record.
    pub b: f64,
    /// `b - a`.
    pub delta: f64,
}

/// Two records compared query by query.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordDiff {
    /// The first record's id.
    pub a: i64,
    /// The second record's id.
    pub b: i64,
    /// Whether their judgements' fingerprints are equal.
    pub same_judgements: bool,
    /// Whether their metric definitions' fingerprints are equal.
    pub same_definitions: bool,
    /// The metrics both records hold.
    pub metrics: Vec<String>,
    /// The queries both hold.
    pub common_queries: usize,
    /// Queries of the first record only.
    pub only_a: usize,
    /// Queries of the second record only.
    pub only_b: usize,
    /// Every (metric, query) of both records whose value differs (bit for
    /// bit), largest `|b - a|` first (NaN differences last), then by metric
    /// and query.
    pub moves: Vec<QueryMove>,
}

/// Compares record `a` with record `b` on the metrics and queries both hold.
pub fn diff(a: &Record, b: &Record) -> RecordDiff {
    let position: HashMap<&str, usize> = b
        .data
        .queries
        .iter()
        .enumerate()
        .map(|(i, q)| (q.as_str(), i))
        .collect();
    let pairs: Vec<(usize, usize)> = a
        .data
        .queries
        .iter()
        .enumerate()
        .filter_map(|(i, q)| position.get(q.as_str()).map(|&j| (i, j)))
        .collect();
    let mut metrics = Vec::new();
    let mut moves = Vec::new();
    for column in &a.data.metrics {
        let Some(other) = b.data.column(&column.name) else {
            continue;
        };
        metrics.push(column.name.clone());
        for &(i, j) in &pairs {
            let (Some(&x), Some(&y), Some(query)) = (
                column.values.get(i),
                other.values.get(j),
                a.data.queries.get(i),
            ) else {
                continue;
            };
            if x.to_bits() != y.to_bits() {
                moves.push(QueryMove {
                    metric: column.name.clone(),
                    query: query.clone(),
                    a: x,
                    b: y,
                    delta: y - x,
                });
            }
        }
    }
    moves.sort_by(|m, n| {
        let size = |d: f64| {
            if d.is_nan() {
                f64::NEG_INFINITY
            } else {
                d.abs()
            }
        };
        size(n.delta)
            .total_cmp(&size(m.delta))
            .then_with(|| m.metric.cmp(&n.metric))
            .then_with(|| m.query.cmp(&n.query))
    });
    RecordDiff {
        a: a.id,
        b: b.id,
        same_judgements: a.data.qrels_fingerprint == b.data.qrels_fingerprint,
        same_definitions: a.definitions_fingerprint == b.definitions_fingerprint,
        metrics,
        common_queries: pairs.len(),
        only_a: a.data.queries.len().saturating_sub(pairs.len()),
        only_b: b.data.queries.len().saturating_sub(pairs.len()),
        moves,
    }
}
