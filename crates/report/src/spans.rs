//! `rankeval spans`'s report ([`rankeval::spans::SpansReport`]): one row
//! per run (and with `per_query` one per query before it), the chunk-level
//! means then the character-level ones, and the overlap rule and query
//! counts under it, as aligned text; or the report as one JSON document,
//! every query's values in it only with `per_query`.

use std::fmt::Write as _;

use rankeval::spans::{CharText, SpansReport, SpansRun};

use crate::{RenderOptions, text};

/// How `rankeval spans` prints its report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SpansFormat {
    /// Aligned text for a terminal.
    #[default]
    Table,
    /// One JSON document (the report's own fields).
    Json,
}

/// `report` in `format`; `options.per_query` adds every query's values
/// (rows of the table, `per_query` arrays of the JSON, empty without it).
pub fn render(report: &SpansReport, format: SpansFormat, options: RenderOptions) -> String {
    match format {
        SpansFormat::Table => table(report, options.per_query),
        SpansFormat::Json if options.per_query => crate::json::document_text(report),
        SpansFormat::Json => crate::json::document_text(&without_per_query(report)),
    }
}

/// `report` with every run's `per_query` empty, the rest copied.
fn without_per_query(report: &SpansReport) -> SpansReport {
    SpansReport {
        metrics: report.metrics.clone(),
        overlap: report.overlap.clone(),
        char_k: report.char_k,
        char_text: report.char_text,
        runs: report
            .runs
            .iter()
            .map(|run| SpansRun {
                name: run.name.clone(),
                queries: run.queries,
                chunk: run.chunk.clone(),
                char_queries: run.char_queries,
                chars: run.chars,
                per_query: Vec::new(),
                warnings: run.warnings.clone(),
            })
            .collect(),
    }
}

/// A value with 4 decimals, or `-` when there is none.
fn cell(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| format!("{v:.4}"))
}

/// The aligned-text report: one row per run (and per query with
/// `per_query`), the chunk-level means then the character-level ones.
fn table(report: &SpansReport, per_query: bool) -> String {
    let at = match report.char_k {
        Some(k) => format!("@{k}"),
        None => String::new(),
    };
    let mut header = vec!["run".to_owned()];
    if per_query {
        header.push("query".to_owned());
    }
    header.extend(report.metrics.iter().cloned());
    header.extend(["char_precision", "char_recall", "char_iou"].map(|n| format!("{n}{at}")));
    let mut rows = Vec::new();
    for run in &report.runs {
        if per_query {
            for q in &run.per_query {
                let mut row = vec![run.name.clone(), q.query.clone()];
                row.extend(q.chunk.iter().map(|v| cell(*v)));
                row.extend(
                    [
                        q.chars.map(|c| c.precision),
                        q.chars.map(|c| c.recall),
                        q.chars.map(|c| c.iou),
                    ]
                    .map(cell),
                );
                rows.push(row);
            }
        }
        let mut row = vec![run.name.clone()];
        if per_query {
            row.push("all".to_owned());
        }
        row.extend(run.chunk.iter().map(|v| cell(Some(*v))));
        row.extend(
            [
                run.chars.map(|c| c.precision),
                run.chars.map(|c| c.recall),
                run.chars.map(|c| c.iou),
            ]
            .map(cell),
        );
        rows.push(row);
    }
    let left = vec![true; header.len()];
    let mut out = text::aligned(
        &std::iter::once(header).chain(rows).collect::<Vec<_>>(),
        &left,
    );
    let _ = writeln!(out, "overlap: {}", report.overlap);
    if report.char_text == CharText::Chunks {
        out.push_str("character level: the retrieved text measured as the sum of the chunks' lengths (--char-text chunks)\n");
    }
    for run in &report.runs {
        let _ = writeln!(
            out,
            "{}: {} queries at chunk level, {} with relevant text at character level",
            run.name, run.queries, run.char_queries
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use rankeval::spans::{CharScores, SpansQuery};

    use super::*;

    /// Two runs on two queries: `fixed` with character-level values,
    /// `sentences` whose second query was not evaluated at chunk level and
    /// has no relevant text; `char_k` 3, text measured as `char_text`.
    fn report(char_text: CharText) -> SpansReport {
        let scores = |precision, recall, iou| CharScores {
            precision,
            recall,
            iou,
        };
        let fixed = SpansRun {
            name: "fixed".into(),
            queries: 2,
            chunk: vec![0.75, 1.0],
            char_queries: 2,
            chars: Some(scores(0.375, 0.625, 0.25)),
            per_query: vec![
                SpansQuery {
                    query: "q1".into(),
                    chunk: vec![Some(1.0), Some(1.0)],
                    chars: Some(scores(0.5, 0.75, 0.375)),
                },
                SpansQuery {
                    query: "q2".into(),
                    chunk: vec![Some(0.5), Some(1.0)],
                    chars: Some(scores(0.25, 0.5, 0.125)),
                },
            ],
            warnings: Vec::new(),
        };
        let sentences = SpansRun {
            name: "sentences".into(),
            queries: 1,
            chunk: vec![0.5, 0.0],
            char_queries: 1,
            chars: Some(scores(0.125, 0.25, 0.0625)),
            per_query: vec![
                SpansQuery {
                    query: "q1".into(),
                    chunk: vec![Some(0.5), Some(0.0)],
                    chars: Some(scores(0.125, 0.25, 0.0625)),
                },
                SpansQuery {
                    query: "q2".into(),
                    chunk: vec![None, None],
                    chars: None,
                },
            ],
            warnings: Vec::new(),
        };
        SpansReport {
            metrics: vec!["ap(norm=hits)@3".into(), "hit_rate@3".into()],
            overlap: "coverage>=0.5".into(),
            char_k: Some(3),
            char_text,
            runs: vec![fixed, sentences],
        }
    }

    #[test]
    fn table_has_a_row_per_run_then_the_overlap_and_the_counts() {
        insta::assert_snapshot!(render(
            &report(CharText::Union),
            SpansFormat::Table,
            RenderOptions::default()
        ));
    }

    #[test]
    fn per_query_rows_come_before_their_runs_row_and_chunks_are_said() {
        insta::assert_snapshot!(render(
            &report(CharText::Chunks),
            SpansFormat::Table,
            RenderOptions { per_query: true }
        ));
    }

    #[test]
    fn without_relevant_text_the_character_level_is_a_dash() {
        let mut report = report(CharText::Union);
        report.char_k = None;
        for run in &mut report.runs {
            run.chars = None;
            run.char_queries = 0;
        }
        insta::assert_snapshot!(render(
            &report,
            SpansFormat::Table,
            RenderOptions::default()
        ));
    }

    #[test]
    fn json_has_the_queries_only_when_asked() {
        let report = report(CharText::Union);
        let parse = |options| {
            let json = render(&report, SpansFormat::Json, options);
            assert!(json.ends_with("}\n"), "{json}");
            serde_json::from_str::<serde_json::Value>(&json).unwrap()
        };
        let without = parse(RenderOptions::default());
        let with = parse(RenderOptions { per_query: true });
        assert_eq!(without["runs"][0]["per_query"], serde_json::json!([]));
        assert_eq!(with["runs"][0]["per_query"][1]["query"], "q2");
        assert_eq!(
            with["runs"][1]["per_query"][1]["chars"],
            serde_json::Value::Null
        );
        // Everything else is the same document.
        let mut emptied = with.clone();
        for run in emptied["runs"].as_array_mut().unwrap() {
            run["per_query"] = serde_json::json!([]);
        }
        assert_eq!(emptied, without);
    }
}
