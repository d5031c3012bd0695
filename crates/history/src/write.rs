//! Writing records: each call one immediate transaction, so a record is
//! either wholly in the database or absent (a process killed in the middle
//! leaves nothing of it: SQLite's WAL rolls the partial transaction back).
//! The record is checked and its means computed before the transaction
//! starts; a set of query ids repeated across records is stored once.

use std::collections::HashSet;

use rankeval_core::exact_sum::fmean;
use rusqlite::{OptionalExtension, TransactionBehavior, params};

use crate::codec::{encode_ids, encode_values};
use crate::fingerprint::bytes_hash;
use crate::record::RecordData;
use crate::{History, HistoryError, LEVEL};

/// A record checked and made ready to insert.
struct Prepared<'a> {
    /// The record.
    data: &'a RecordData,
    /// Its query ids as a blob.
    ids: Vec<u8>,
    /// The blob's SHA-256.
    digest: String,
    /// Its definitions' fingerprint.
    definitions: String,
    /// Per metric (or estimate): what its row holds.
    metrics: Vec<PreparedMetric<'a>>,
}

/// A row of `metrics`, ready to insert.
struct PreparedMetric<'a> {
    /// The metric's or estimator's canonical name.
    name: &'a str,
    /// Its definition's version.
    definition_version: u32,
    /// The queries (or an estimate's impressions).
    n: u64,
    /// The per-query values as a blob (or an estimate's four numbers).
    vals: Vec<u8>,
    /// The mean (or the estimate).
    mean: f64,
    /// Its interval, when it exists.
    interval: Option<(f64, f64)>,
    /// An estimate's standard error.
    standard_error: Option<f64>,
    /// Why an estimate is refused.
    refused: Option<&'a str>,
}

impl History {
    /// Records `records` (the runs of one evaluation) in one transaction;
    /// returns their ids in order. Nothing is written when one of them does
    /// not hold together ([`HistoryError::InvalidRecord`]).
    pub fn record(&mut self, records: &[RecordData]) -> Result<Vec<i64>, HistoryError> {
        let prepared = records
            .iter()
            .map(|r| prepare(self, r))
            .collect::<Result<Vec<_>, _>>()?;
        let now = self.retrying(|h| {
            let tx = h
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            let mut ids = Vec::with_capacity(prepared.len());
            for p in &prepared {
                ids.push(insert(&tx, p)?);
            }
            tx.commit()?;
            Ok(ids)
        })?;
        Ok(now)
    }
}

/// Checks `data` and computes what is stored beside its values.
fn prepare<'a>(history: &History, data: &'a RecordData) -> Result<Prepared<'a>, HistoryError> {
    let invalid = |detail: String| HistoryError::InvalidRecord {
        path: history.path.clone(),
        run: data.run.clone(),
        detail,
    };
    if data.run.is_empty() {
        return Err(invalid("the run's name is empty".into()));
    }
    let mut seen = HashSet::with_capacity(data.queries.len());
    for query in &data.queries {
        if !seen.insert(query.as_str()) {
            return Err(invalid(format!(
                "query `{}` is given twice",
                rankeval_core::shorten_id(query.as_bytes())
            )));
        }
    }
    let holds_values = !data.metrics.is_empty() || !data.queries.is_empty();
    if !data.estimates.is_empty() && holds_values {
        return Err(invalid(
            "an off-policy record holds estimates, not queries nor metric columns".into(),
        ));
    }
    let mut names = HashSet::new();
    for estimate in &data.estimates {
        if estimate.name.is_empty() || !names.insert(estimate.name.as_str()) {
            return Err(invalid(format!(
                "estimate `{}` is empty or given twice",
                estimate.name
            )));
        }
    }
    let mut metrics: Vec<PreparedMetric<'a>> = data
        .estimates
        .iter()
        .map(|e| PreparedMetric {
            name: &e.name,
            definition_version: e.definition_version,
            n: e.n,
            vals: encode_values(&[e.value, e.standard_error, e.interval.0, e.interval.1]),
            mean: e.value,
            interval: Some(e.interval),
            standard_error: Some(e.standard_error),
            refused: e.refused.as_deref(),
        })
        .collect();
    for metric in &data.metrics {
        if metric.name.is_empty() || !names.insert(metric.name.as_str()) {
            return Err(invalid(format!(
                "metric `{}` is empty or given twice",
                metric.name
            )));
        }
        if metric.values.len() != data.queries.len() {
            return Err(invalid(format!(
                "metric `{}` has {} values for {} queries",
                metric.name,
                metric.values.len(),
                data.queries.len()
            )));
        }
        let mean = fmean(&metric.values);
        let interval = rankeval_stats::t_interval(&metric.values, LEVEL)
            .ok()
            .map(|i| (i.lower, i.upper));
        metrics.push(PreparedMetric {
            name: &metric.name,
            definition_version: metric.definition_version,
            n: metric.values.len() as u64,
            vals: encode_values(&metric.values),
            mean,
            interval,
            standard_error: None,
            refused: None,
        });
    }
    let ids = encode_ids(data.queries.iter().map(String::as_str))
        .ok_or_else(|| invalid("a query id is longer than 4 GiB".into()))?;
    Ok(Prepared {
        digest: bytes_hash(&ids),
        ids,
        definitions: data.definitions_fingerprint(),
        data,
        metrics,
    })
}

/// A float for SQLite's REAL: `None` (NULL) for NaN, which SQLite cannot
/// hold; the per-query blobs keep every bit.
fn real(x: f64) -> Option<f64> {
    (!x.is_nan()).then_some(x)
}

/// Inserts one prepared record in the open transaction; returns its id.
fn insert(tx: &rusqlite::Transaction<'_>, p: &Prepared<'_>) -> rusqlite::Result<i64> {
    let d = p.data;
    tx.execute(
        "INSERT OR IGNORE INTO query_sets (digest, count, ids) VALUES (?1, ?2, ?3)",
        params![p.digest, d.queries.len() as i64, p.ids],
    )?;
    let set: i64 = tx.query_row(
        "SELECT id FROM query_sets WHERE digest = ?1",
        [&p.digest],
        |r| r.get(0),
    )?;
    tx.execute(
        "INSERT INTO records (time_ms, run, label, commit_id, rankeval_version, \
         qrels_fingerprint, definitions_fingerprint, run_hash, experiment_hash, query_set, kind) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            d.time_ms,
            d.run,
            d.label,
            d.commit,
            d.rankeval_version,
            d.qrels_fingerprint,
            p.definitions,
            d.run_hash,
            d.experiment_hash,
            set,
            d.kind().as_str()
        ],
    )?;
    let id = tx.last_insert_rowid();
    for (table, map) in [("options", &d.options), ("metadata", &d.metadata)] {
        let mut statement = tx.prepare_cached(&format!(
            "INSERT INTO {table} (record, key, value) VALUES (?1, ?2, ?3)"
        ))?;
        for (key, value) in map {
            statement.execute(params![id, key, value])?;
        }
    }
    let mut statement = tx.prepare_cached(
        "INSERT INTO metrics (record, position, name, definition_version, n, mean, lower, \
         upper, vals, standard_error, refused) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?;
    for (position, m) in p.metrics.iter().enumerate() {
        statement.execute(params![
            id,
            position as i64,
            m.name,
            m.definition_version,
            i64::try_from(m.n).unwrap_or(i64::MAX),
            real(m.mean),
            m.interval.and_then(|i| real(i.0)),
            m.interval.and_then(|i| real(i.1)),
            m.vals,
            m.standard_error.and_then(real),
            m.refused
        ])?;
    }
    Ok(id)
}

impl History {
    /// Marks record `id` accepted: the baseline that
    /// [`last_accepted`](History::last_accepted) gives until another is
    /// accepted. Accepting is kept as a log (a record accepted again
    /// becomes the last accepted).
    pub fn accept(&mut self, id: i64, time_ms: i64) -> Result<(), HistoryError> {
        let exists = self.retrying(|h| {
            let tx = h
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            let exists = tx
                .query_row("SELECT 1 FROM records WHERE id = ?1", [id], |_| Ok(()))
                .optional()?
                .is_some();
            if exists {
                tx.execute(
                    "INSERT INTO acceptances (record, time_ms) VALUES (?1, ?2)",
                    params![id, time_ms],
                )?;
            }
            tx.commit()?;
            Ok(exists)
        })?;
        if exists {
            Ok(())
        } else {
            Err(HistoryError::NoRecord {
                path: self.path.clone(),
                id,
            })
        }
    }
}
