//! `rankeval history`'s reports: the records of a results history and the
//! trend of each metric's mean with its interval (table, JSON, Markdown),
//! and the queries that moved most between two records (`history diff`).
//! Data in, text out: the command reads the database.

use rankeval::history::{RecordDiff, RecordSummary, TrendSeries, rfc3339};
use serde_json::{Value, json};

use crate::text::{aligned, escape, markdown_table};

/// A format of `rankeval history`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HistoryFormat {
    /// Aligned tables for a terminal.
    Table,
    /// One JSON document.
    Json,
    /// Markdown tables for a pull request or a CI summary.
    Markdown,
    /// One self-contained HTML page with a chart of each metric's trend
    /// ([`crate::history_html`]); [`render_diff`] writes the aligned table
    /// for it (the command line offers no HTML diff).
    Html,
}

/// The digits of a mean or value.
fn value(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_owned()
    } else {
        format!("{x:.4}")
    }
}

/// A fingerprint cut to its first 12 hex digits (as git shortens commits).
fn short(fingerprint: &str) -> &str {
    fingerprint.get(..12).unwrap_or(fingerprint)
}

/// The list of `records` and the trend of each run's metrics (`series`).
pub fn render_history(
    records: &[RecordSummary],
    series: &[TrendSeries],
    format: HistoryFormat,
) -> String {
    match format {
        HistoryFormat::Json => {
            let mut text =
                serde_json::to_string_pretty(&history_json(records, series)).unwrap_or_default();
            text.push('\n');
            text
        }
        HistoryFormat::Html => crate::history_html::render_history_html(records, series),
        HistoryFormat::Table | HistoryFormat::Markdown => {
            let table = |rows: &[Vec<String>], left: &[bool]| match format {
                HistoryFormat::Markdown => markdown_table(rows, left),
                _ => aligned(rows, left),
            };
            let heading = |text: &str| match format {
                HistoryFormat::Markdown => format!("## {}\n\n", escape(text)),
                _ => format!("{text}\n"),
            };
            let mut out = heading("Records");
            if records.is_empty() {
                out.push_str("(no record yet)\n");
                return out;
            }
            let mut rows = vec![
                [
                    "id",
                    "time",
                    "run",
                    "label",
                    "commit",
                    "accepted",
                    "queries",
                    "qrels",
                    "definitions",
                ]
                .map(String::from)
                .to_vec(),
            ];
            for r in records {
                rows.push(vec![
                    r.id.to_string(),
                    rfc3339(r.time_ms),
                    r.run.clone(),
                    r.label.clone().unwrap_or_default(),
                    r.commit
                        .as_deref()
                        .map(short)
                        .unwrap_or_default()
                        .to_owned(),
                    if r.accepted { "yes" } else { "" }.to_owned(),
                    r.num_queries.to_string(),
                    short(&r.qrels_fingerprint).to_owned(),
                    short(&r.definitions_fingerprint).to_owned(),
                ]);
            }
            out.push_str(&table(
                &rows,
                &[false, true, true, true, true, true, false, true, true],
            ));
            for s in series {
                out.push('\n');
                let ope = s.kind == rankeval::history::RecordKind::Ope;
                out.push_str(&heading(&if ope {
                    format!(
                        "{} {}: estimate and interval (at the recorded level)",
                        s.run, s.metric
                    )
                } else {
                    format!(
                        "{} {}: mean and {:.0}% interval",
                        s.run,
                        s.metric,
                        rankeval::history::LEVEL * 100.0
                    )
                }));
                let mut rows = vec![
                    [
                        "id",
                        "label",
                        if ope { "estimate" } else { "mean" },
                        "interval",
                        "change",
                        "note",
                    ]
                    .map(String::from)
                    .to_vec(),
                ];
                let mut previous: Option<&rankeval::history::TrendPoint> = None;
                for p in &s.points {
                    let mut notes = Vec::new();
                    if p.accepted {
                        notes.push("accepted");
                    }
                    if p.refused.is_some() {
                        notes.push("refused");
                    }
                    if let Some(prev) = previous {
                        if prev.qrels_fingerprint != p.qrels_fingerprint {
                            notes.push(if ope { "other log" } else { "other judgements" });
                        }
                        if prev.definition_version != p.definition_version {
                            notes.push("other definition");
                        }
                    }
                    rows.push(vec![
                        p.id.to_string(),
                        p.label.clone().unwrap_or_default(),
                        value(p.mean),
                        p.interval.map_or_else(String::new, |(l, u)| {
                            format!("[{}, {}]", value(l), value(u))
                        }),
                        previous
                            .map_or_else(String::new, |prev| format!("{:+.4}", p.mean - prev.mean)),
                        notes.join(", "),
                    ]);
                    previous = Some(p);
                }
                out.push_str(&table(&rows, &[false, true, false, false, false, true]));
            }
            out
        }
    }
}

/// The JSON document of [`render_history`]: `records` and `trends`, every
/// number as computed (NaN as null).
fn history_json(records: &[RecordSummary], series: &[TrendSeries]) -> Value {
    let records: Vec<Value> = records
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "time": rfc3339(r.time_ms),
                "run": r.run,
                "label": r.label,
                "commit": r.commit,
                "rankeval_version": r.rankeval_version,
                "accepted": r.accepted,
                "kind": r.kind.as_str(),
                "queries": r.num_queries,
                "qrels_fingerprint": r.qrels_fingerprint,
                "definitions_fingerprint": r.definitions_fingerprint,
                "means": r.means.iter().map(|m| (m.name.clone(), json!(m.mean))).collect::<serde_json::Map<_, _>>(),
            })
        })
        .collect();
    let trends: Vec<Value> = series
        .iter()
        .map(|s| {
            json!({
                "run": s.run,
                "metric": s.metric,
                "kind": s.kind.as_str(),
                // The points' level when they share one (an off-policy
                // estimate's is its record's `ope.level`); each point has
                // its own.
                "level": s.points.first().map(|p| p.level).filter(|l| {
                    l.is_finite() && s.points.iter().all(|p| p.level.to_bits() == l.to_bits())
                }),
                "points": s.points.iter().map(|p| json!({
                    "id": p.id,
                    "time": rfc3339(p.time_ms),
                    "label": p.label,
                    "commit": p.commit,
                    "accepted": p.accepted,
                    "n": p.n,
                    "mean": p.mean,
                    "lower": p.interval.map(|i| i.0),
                    "upper": p.interval.map(|i| i.1),
                    "level": p.level.is_finite().then_some(p.level),
                    "standard_error": p.standard_error,
                    "refused": p.refused,
                    "definition_version": p.definition_version,
                    "qrels_fingerprint": p.qrels_fingerprint,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "records": records, "trends": trends })
}

/// The `top` queries that moved most between two records.
pub fn render_diff(diff: &RecordDiff, top: usize, format: HistoryFormat) -> String {
    let moves = diff.moves.iter().take(top);
    match format {
        HistoryFormat::Json => {
            let document = json!({
                "a": diff.a,
                "b": diff.b,
                "same_judgements": diff.same_judgements,
                "same_definitions": diff.same_definitions,
                "metrics": diff.metrics,
                "common_queries": diff.common_queries,
                "only_a": diff.only_a,
                "only_b": diff.only_b,
                "changed": diff.moves.len(),
                "moves": moves.map(|m| json!({
                    "metric": m.metric, "query": m.query, "a": m.a, "b": m.b, "delta": m.delta,
                })).collect::<Vec<_>>(),
            });
            let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
            text.push('\n');
            text
        }
        HistoryFormat::Table | HistoryFormat::Markdown | HistoryFormat::Html => {
            let markdown = format == HistoryFormat::Markdown;
            let mut out = String::new();
            let line = |out: &mut String, text: String| {
                out.push_str(&text);
                out.push_str(if markdown { "\n\n" } else { "\n" });
            };
            line(
                &mut out,
                format!(
                    "record {} -> record {}: {} queries in both ({} only in {}, {} only in {}); \
                     {} (metric, query) values changed",
                    diff.a,
                    diff.b,
                    diff.common_queries,
                    diff.only_a,
                    diff.a,
                    diff.only_b,
                    diff.b,
                    diff.moves.len()
                ),
            );
            if !diff.same_judgements {
                line(
                    &mut out,
                    "note: the records were evaluated on different judgements (their \
                     fingerprints differ)"
                        .to_owned(),
                );
            }
            if !diff.same_definitions {
                line(
                    &mut out,
                    "note: the records' metric definitions differ".to_owned(),
                );
            }
            let mut rows = vec![
                ["metric", "query", "a", "b", "change"]
                    .map(String::from)
                    .to_vec(),
            ];
            for m in moves {
                rows.push(vec![
                    m.metric.clone(),
                    rankeval::core::shorten_id(m.query.as_bytes()).to_string(),
                    value(m.a),
                    value(m.b),
                    if m.delta.is_nan() {
                        "NaN".to_owned()
                    } else {
                        format!("{:+.4}", m.delta)
                    },
                ]);
            }
            let left = [true, true, false, false, false];
            out.push_str(&if markdown {
                markdown_table(&rows, &left)
            } else {
                aligned(&rows, &left)
            });
            out
        }
    }
}
