//! Reading records back: whole ([`History::get`], every value with its
//! bits), as summaries ([`History::summaries`]: means and intervals without
//! the per-query columns), the last accepted one, and the trend of each
//! metric's mean. Whatever a damaged or hand-edited database holds ends in
//! [`HistoryError::Corrupt`] naming the record, never a panic.

use std::collections::BTreeMap;

use rusqlite::{OptionalExtension, Row};

use crate::codec::{decode_ids, decode_values};
use crate::record::{
    MetricColumn, MetricMean, Record, RecordData, RecordKind, RecordSummary, StoredEstimate,
};

/// A row of `metrics` as `get` reads it: name, definition version, n,
/// values, refusal.
type MetricRow = (String, u32, i64, Vec<u8>, Option<String>);
use crate::{History, HistoryError};

/// The columns of `records` a summary reads, in this order.
const RECORD_COLUMNS: &str = "r.id, r.time_ms, r.run, r.label, r.commit_id, r.rankeval_version, \
     r.qrels_fingerprint, r.definitions_fingerprint, r.run_hash, r.experiment_hash, \
     r.query_set, (SELECT count(*) > 0 FROM acceptances a WHERE a.record = r.id), \
     (SELECT count FROM query_sets s WHERE s.id = r.query_set), r.kind, \
     (SELECT value FROM options o WHERE o.record = r.id AND o.key = 'ope.level')";

/// One row of `records` as read.
struct Row0 {
    summary: RecordSummary,
    run_hash: Option<String>,
    experiment_hash: Option<String>,
    query_set: i64,
    kind: String,
}

/// A row of [`RECORD_COLUMNS`].
fn record_row(r: &Row<'_>) -> rusqlite::Result<Row0> {
    let kind = RecordKind::from_name(&r.get::<_, String>(13)?).unwrap_or(RecordKind::Eval);
    let level = match kind {
        RecordKind::Eval => crate::LEVEL,
        RecordKind::Ope => r
            .get::<_, Option<String>>(14)?
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(f64::NAN),
    };
    Ok(Row0 {
        summary: RecordSummary {
            id: r.get(0)?,
            time_ms: r.get(1)?,
            run: r.get(2)?,
            label: r.get(3)?,
            commit: r.get(4)?,
            rankeval_version: r.get(5)?,
            qrels_fingerprint: r.get(6)?,
            definitions_fingerprint: r.get(7)?,
            accepted: r.get(11)?,
            // An unknown kind (a hand-edited row) reads as what version 1
            // recorded; `get` refuses it as damaged.
            kind,
            num_queries: r.get::<_, Option<i64>>(12)?.unwrap_or(0).max(0) as u64,
            level,
            means: Vec::new(),
        },
        run_hash: r.get(8)?,
        experiment_hash: r.get(9)?,
        query_set: r.get(10)?,
        kind: r.get(13)?,
    })
}

/// A row of `metrics` without its values.
fn mean_row(r: &Row<'_>) -> rusqlite::Result<(i64, MetricMean)> {
    let lower: Option<f64> = r.get(5)?;
    let upper: Option<f64> = r.get(6)?;
    Ok((
        r.get(0)?,
        MetricMean {
            name: r.get(1)?,
            definition_version: r.get(2)?,
            n: r.get::<_, i64>(3)?.max(0) as u64,
            mean: r.get::<_, Option<f64>>(4)?.unwrap_or(f64::NAN),
            interval: lower.zip(upper),
            standard_error: r.get(7)?,
            refused: r.get(8)?,
        },
    ))
}

impl History {
    /// Every record's summary, in order of id.
    pub fn summaries(&mut self) -> Result<Vec<RecordSummary>, HistoryError> {
        self.retrying(|h| {
            let mut records: Vec<RecordSummary> = h
                .conn
                .prepare(&format!(
                    "SELECT {RECORD_COLUMNS} FROM records r ORDER BY r.id"
                ))?
                .query_map([], record_row)?
                .map(|r| r.map(|r| r.summary))
                .collect::<rusqlite::Result<_>>()?;
            let mut statement = h.conn.prepare(
                "SELECT record, name, definition_version, n, mean, lower, upper, standard_error, \
                 refused FROM metrics ORDER BY record, position",
            )?;
            let mut index: BTreeMap<i64, usize> = BTreeMap::new();
            for (i, r) in records.iter().enumerate() {
                index.insert(r.id, i);
            }
            for row in statement.query_map([], mean_row)? {
                let (record, mean) = row?;
                if let Some(r) = index.get(&record).and_then(|&i| records.get_mut(i)) {
                    r.means.push(mean);
                }
            }
            Ok(records)
        })
    }

    /// Every record's id, in order: what an export walks, one record
    /// read at a time.
    pub fn ids(&mut self) -> Result<Vec<i64>, HistoryError> {
        self.retrying(|h| {
            h.conn
                .prepare("SELECT id FROM records ORDER BY id")?
                .query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()
        })
    }

    /// Record `id` whole: every per-query value with the bits it was
    /// recorded with.
    pub fn get(&mut self, id: i64) -> Result<Record, HistoryError> {
        let path = self.path.clone();
        let corrupt = |detail: String| HistoryError::Corrupt {
            path: path.clone(),
            detail: format!("record {id}: {detail}"),
        };
        type Raw = (
            Option<Row0>,
            Option<Vec<u8>>,
            Vec<(String, String)>,
            Vec<(String, String)>,
            Vec<MetricRow>,
        );
        let raw: Raw = self.retrying(|h| {
            let tx = h.conn.transaction()?;
            let row = tx
                .query_row(
                    &format!("SELECT {RECORD_COLUMNS} FROM records r WHERE r.id = ?1"),
                    [id],
                    record_row,
                )
                .optional()?;
            let Some(row) = row else {
                return Ok((None, None, Vec::new(), Vec::new(), Vec::new()));
            };
            let ids = tx
                .query_row(
                    "SELECT ids FROM query_sets WHERE id = ?1",
                    [row.query_set],
                    |r| r.get(0),
                )
                .optional()?;
            let pairs = |table: &str| -> rusqlite::Result<Vec<(String, String)>> {
                tx.prepare(&format!(
                    "SELECT key, value FROM {table} WHERE record = ?1 ORDER BY key"
                ))?
                .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect()
            };
            let options = pairs("options")?;
            let metadata = pairs("metadata")?;
            let metrics = tx
                .prepare(
                    "SELECT name, definition_version, n, vals, refused FROM metrics \
                     WHERE record = ?1 ORDER BY position",
                )?
                .query_map([id], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok((Some(row), ids, options, metadata, metrics))
        })?;
        let (row, ids, options, metadata, metrics) = raw;
        let Some(row) = row else {
            return Err(HistoryError::NoRecord {
                path: self.path.clone(),
                id,
            });
        };
        let queries = ids
            .as_deref()
            .and_then(decode_ids)
            .ok_or_else(|| corrupt("its query ids are missing or damaged".into()))?;
        let kind = RecordKind::from_name(&row.kind)
            .ok_or_else(|| corrupt(format!("unknown kind `{}`", row.kind)))?;
        let mut columns = Vec::with_capacity(metrics.len());
        let mut estimates = Vec::new();
        for (name, definition_version, n, vals, refused) in metrics {
            if kind == RecordKind::Ope {
                let numbers = decode_values(&vals)
                    .filter(|v| v.len() == 4 && queries.is_empty())
                    .ok_or_else(|| {
                        corrupt(format!(
                            "estimate `{name}`: {} bytes where an estimate, its standard \
                             error and interval take 32",
                            vals.len()
                        ))
                    })?;
                let [value, standard_error, lower, upper] = numbers[..] else {
                    continue;
                };
                estimates.push(StoredEstimate {
                    name,
                    definition_version,
                    n: u64::try_from(n).unwrap_or(0),
                    value,
                    standard_error,
                    interval: (lower, upper),
                    refused,
                });
                continue;
            }
            let values = decode_values(&vals)
                .filter(|v| v.len() == queries.len())
                .ok_or_else(|| {
                    corrupt(format!(
                        "metric `{name}`: {} bytes of values for {} queries",
                        vals.len(),
                        queries.len()
                    ))
                })?;
            columns.push(MetricColumn {
                name,
                definition_version,
                values,
            });
        }
        let s = row.summary;
        Ok(Record {
            id: s.id,
            accepted: s.accepted,
            definitions_fingerprint: s.definitions_fingerprint,
            data: RecordData {
                run: s.run,
                label: s.label,
                commit: s.commit,
                rankeval_version: s.rankeval_version,
                time_ms: s.time_ms,
                qrels_fingerprint: s.qrels_fingerprint,
                run_hash: row.run_hash,
                experiment_hash: row.experiment_hash,
                options: options.into_iter().collect(),
                metadata: metadata.into_iter().collect(),
                queries,
                metrics: columns,
                estimates,
            },
        })
    }

    /// The id of the record accepted last, if any; of run `run` only when
    /// given.
    pub fn last_accepted_id(&mut self, run: Option<&str>) -> Result<Option<i64>, HistoryError> {
        self.retrying(|h| {
            h.conn
                .query_row(
                    "SELECT a.record FROM acceptances a JOIN records r ON r.id = a.record \
                     WHERE ?1 IS NULL OR r.run = ?1 ORDER BY a.seq DESC LIMIT 1",
                    [run],
                    |r| r.get(0),
                )
                .optional()
        })
    }

    /// The id of the record of kind `kind` accepted last, if any: an
    /// evaluation's baseline is the last accepted evaluation, whatever
    /// off-policy records were accepted since (and the other way round).
    pub fn last_accepted_of_kind(&mut self, kind: RecordKind) -> Result<Option<i64>, HistoryError> {
        self.retrying(|h| {
            h.conn
                .query_row(
                    "SELECT a.record FROM acceptances a JOIN records r ON r.id = a.record \
                     WHERE r.kind = ?1 ORDER BY a.seq DESC LIMIT 1",
                    [kind.as_str()],
                    |r| r.get(0),
                )
                .optional()
        })
    }

    /// The record accepted last (of run `run` only when given), whole.
    pub fn last_accepted(&mut self, run: Option<&str>) -> Result<Record, HistoryError> {
        match self.last_accepted_id(run)? {
            Some(id) => self.get(id),
            None => Err(HistoryError::NoneAccepted {
                path: self.path.clone(),
            }),
        }
    }
}
