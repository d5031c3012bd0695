//! One JSON document:
//! `{"runs": [{"name", "num_queries", "ir_metadata", "metrics": {metric: {aggregator: x}},
//! "corpus": {metric: x}, "per_query": {metric: {query: x}}}], "warnings":
//! [...]}`, `corpus` (corpus metrics, one value per run) only when there
//! are some, `per_query` only when asked for. An aggregator with an
//! interval (`ci`) has its bounds beside it: `{"ci": x, "ci.lower": lo,
//! "ci.upper": hi}`. With groups of queries (`--groups`), each run has
//! `"groups": {column: {value: {"num_queries": n, "metrics": {...}}}}`
//! after its `corpus`. A run whose file opens with an ir_metadata block has
//! `"ir_metadata": {"tag": t, "fields": {path: text}}` after `num_queries`.
//! NaN is `null`. Keys keep the report's order.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

use super::{RenderOptions, Report, RunResult};

pub(super) fn render(report: &Report, options: RenderOptions) -> String {
    render_with(report, options, None)
}

/// The document with a `comparison` object after the runs, when given.
pub(super) fn render_with(
    report: &Report,
    options: RenderOptions,
    comparison: Option<Value>,
) -> String {
    let document = Document {
        comparison,
        runs: report
            .runs
            .iter()
            .map(|run| JsonRun {
                name: &run.name,
                num_queries: run.queries.len(),
                ir_metadata: run.ir_metadata.as_ref().map(|m| JsonIrMetadata {
                    tag: m.tag.as_deref(),
                    fields: Ordered(
                        m.fields
                            .iter()
                            .map(|(k, v)| (k.as_str(), v.as_str()))
                            .collect(),
                    ),
                }),
                metrics: Ordered(
                    report
                        .metrics
                        .iter()
                        .zip(&run.aggregates)
                        .enumerate()
                        .map(|(m, (metric, values))| {
                            (metric.name.as_str(), aggregates(report, run, m, values))
                        })
                        .collect(),
                ),
                corpus: (!report.corpus.is_empty()).then(|| {
                    Ordered(
                        report
                            .corpus
                            .iter()
                            .map(String::as_str)
                            .zip(run.corpus.iter().copied())
                            .collect(),
                    )
                }),
                groups: (!run.groups.is_empty()).then(|| json_groups(report, run)),
                per_query: options.per_query.then(|| {
                    Ordered(
                        report
                            .metrics
                            .iter()
                            .zip(&run.per_query)
                            .map(|(m, column)| {
                                (
                                    m.name.as_str(),
                                    Ordered(
                                        run.queries
                                            .iter()
                                            .map(String::as_str)
                                            .zip(column.iter().copied())
                                            .collect(),
                                    ),
                                )
                            })
                            .collect(),
                    )
                }),
            })
            .collect(),
        warnings: report
            .warnings
            .iter()
            .map(|w| {
                let mut fields = match serde_json::to_value(&w.warning) {
                    Ok(Value::Object(fields)) => fields,
                    _ => serde_json::Map::new(),
                };
                if !w.run.is_empty() {
                    fields.insert("run".into(), Value::String(w.run.clone()));
                }
                fields.insert("message".into(), Value::String(w.warning.to_string()));
                Value::Object(fields)
            })
            .collect(),
    };
    document_text(&document)
}

/// `document` as pretty JSON with a final newline: the JSON of every report
/// here, and the whole of the reports that are their own serde model
/// (`ppi`, `agree`, `expected`, `spans`).
pub(crate) fn document_text(document: &impl Serialize) -> String {
    let mut text = serde_json::to_string_pretty(document).unwrap_or_else(|e| {
        // Serializing plain strings and numbers cannot fail; say so if it does.
        format!("{{\"error\": \"cannot serialize the report: {e}\"}}")
    });
    text.push('\n');
    text
}

/// Metric `m`'s aggregates in `run`: `{aggregator: x}`, and for an
/// aggregator with an interval `aggregator.lower` and `aggregator.upper`
/// after it.
fn aggregates(report: &Report, run: &RunResult, m: usize, values: &[f64]) -> Ordered<String, f64> {
    let mut entries = Vec::with_capacity(values.len());
    for (a, (name, &value)) in report.aggregators.iter().zip(values).enumerate() {
        entries.push((name.clone(), value));
        if let Some(bounds) = run.interval(m, a) {
            entries.push((format!("{name}.lower"), bounds.lower));
            entries.push((format!("{name}.upper"), bounds.upper));
        }
    }
    Ordered(entries)
}

/// A run's groups: `{column: {value: {"num_queries": n, "metrics": {metric:
/// {aggregator: x}}}}}`, columns and values in report order.
fn json_groups<'a>(
    report: &'a Report,
    run: &'a RunResult,
) -> Ordered<&'a str, Ordered<&'a str, JsonGroup<'a>>> {
    let mut columns: Vec<(&str, Ordered<&str, JsonGroup<'_>>)> = Vec::new();
    for group in &run.groups {
        let entry = JsonGroup {
            num_queries: group.queries.len(),
            metrics: Ordered(
                report
                    .metrics
                    .iter()
                    .enumerate()
                    .map(|(m, metric)| {
                        let mut entries = Vec::with_capacity(report.aggregators.len());
                        for (a, name) in report.aggregators.iter().enumerate() {
                            entries.push((name.clone(), group.aggregates[m][a]));
                            if let Some(bounds) = group.interval(m, a) {
                                entries.push((format!("{name}.lower"), bounds.lower));
                                entries.push((format!("{name}.upper"), bounds.upper));
                            }
                        }
                        (metric.name.as_str(), Ordered(entries))
                    })
                    .collect(),
            ),
        };
        match columns.iter_mut().find(|(c, _)| *c == group.column) {
            Some((_, values)) => values.0.push((&group.value, entry)),
            None => columns.push((&group.column, Ordered(vec![(&group.value, entry)]))),
        }
    }
    Ordered(columns)
}

/// One group of a run in JSON.
#[derive(Serialize)]
struct JsonGroup<'a> {
    num_queries: usize,
    metrics: Ordered<&'a str, Ordered<String, f64>>,
}

#[derive(Serialize)]
struct Document<'a> {
    runs: Vec<JsonRun<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    comparison: Option<Value>,
    warnings: Vec<Value>,
}

#[derive(Serialize)]
struct JsonRun<'a> {
    name: &'a str,
    num_queries: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    ir_metadata: Option<JsonIrMetadata<'a>>,
    metrics: Ordered<&'a str, Ordered<String, f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    corpus: Option<Ordered<&'a str, f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    groups: Option<Ordered<&'a str, Ordered<&'a str, JsonGroup<'a>>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    per_query: Option<Ordered<&'a str, Ordered<&'a str, f64>>>,
}

/// A run's ir_metadata block: `{"tag": t, "fields": {path: text}}`, the
/// fields in the block's order (`tag` left out when the block has none).
#[derive(Serialize)]
struct JsonIrMetadata<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    tag: Option<&'a str>,
    fields: Ordered<&'a str, &'a str>,
}

/// A map that keeps its insertion order.
struct Ordered<K, V>(Vec<(K, V)>);

impl<K: Serialize, V: Serialize> Serialize for Ordered<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;

    #[test]
    fn one_document_with_per_query_values() {
        let text = render(&sample(&["mean"]), RenderOptions { per_query: true });
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            parsed["runs"][1]["metrics"]["ap"]["mean"],
            (0.75 + 0.375) / 2.0
        );
        assert_eq!(parsed["runs"][0]["per_query"]["p@10"]["q,2"], 0.1);
        assert!(parsed["runs"][0]["per_query"]["ap(norm=hits)@5"]["q,2"].is_null());
        insta::assert_snapshot!(text);
    }

    #[test]
    fn intervals_are_keys_beside_their_aggregate() {
        let text = render(
            &super::super::tests::sample_with_intervals(),
            RenderOptions::default(),
        );
        let parsed: Value = serde_json::from_str(&text).unwrap();
        let ap = &parsed["runs"][0]["metrics"]["ap"];
        assert_eq!(ap["ci"], 0.375);
        assert_eq!(ap["ci.lower"], 0.25);
        assert_eq!(ap["ci.upper"], 0.625);
        assert!(ap.get("mean.lower").is_none());
        assert!(parsed["runs"][1]["metrics"]["ap(norm=hits)@5"]["ci.lower"].is_null());
        insta::assert_snapshot!(text);
    }

    #[test]
    fn groups_are_objects_per_column_and_value() {
        let text = render(
            &super::super::tests::sample_with_groups(),
            RenderOptions::default(),
        );
        let parsed: Value = serde_json::from_str(&text).unwrap();
        let tail = &parsed["runs"][0]["groups"]["segment"]["tail"];
        assert_eq!(tail["num_queries"], 1);
        assert_eq!(tail["metrics"]["ap"]["mean"], 1.0);
        assert!(parsed["runs"][1]["groups"]["segment"].get("tail").is_none());
        let plain = render(&sample(&["mean"]), RenderOptions::default());
        assert!(!plain.contains("\"groups\""));
        insta::assert_snapshot!(text);
    }

    #[test]
    fn no_per_query_key_unless_asked() {
        let text = render(&sample(&["mean"]), RenderOptions::default());
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert!(parsed["runs"][0].get("per_query").is_none());
    }

    #[test]
    fn corpus_metrics_are_one_value_per_run() {
        let text = render(
            &super::super::tests::sample_with_corpus(&["mean"]),
            RenderOptions::default(),
        );
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["runs"][0]["corpus"]["catalog_coverage@10"], 0.25);
        assert!(parsed["runs"][1]["corpus"]["novelty@10"].is_null());
        let plain = render(&sample(&["mean"]), RenderOptions::default());
        let parsed: Value = serde_json::from_str(&plain).unwrap();
        assert!(parsed["runs"][0].get("corpus").is_none());
        insta::assert_snapshot!(text);
    }
}
