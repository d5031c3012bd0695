//! `rankeval explain`'s output: an aligned table per metric for a terminal,
//! the same as Markdown, or one JSON document (per-rank terms as arrays).

use rankeval_core::Explanation;
use rankeval_core::explain::number;

use rankeval::explain::QueryExplanation;

use crate::text::{self, escape};

/// How `rankeval explain` prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExplainFormat {
    /// Aligned tables for a terminal.
    #[default]
    Table,
    /// Markdown tables.
    Markdown,
    /// One JSON document.
    Json,
}

/// Several runs' explanations of one query, side by side: per metric, one
/// table with a group of columns per run (the rank column once), each
/// run's formula, and each metric's values with the differences from the
/// first run. One run renders as [`render`]; JSON is
/// `{query, runs: [explanation, ...], values: [{metric, values, differences}]}`.
pub fn render_runs(explanations: &[QueryExplanation], format: ExplainFormat) -> String {
    match explanations {
        [] => String::new(),
        [one] => render(one, format),
        several => match format {
            ExplainFormat::Table => side_by_side(several, false),
            ExplainFormat::Markdown => side_by_side(several, true),
            ExplainFormat::Json => {
                let document = serde_json::json!({
                    "query": several[0].query,
                    "runs": several,
                    "values": value_rows(several)
                        .into_iter()
                        .map(|(metric, values)| {
                            let first = values[0];
                            serde_json::json!({
                                "metric": metric,
                                "values": values,
                                "differences": values.iter().map(|v| v - first).collect::<Vec<_>>(),
                            })
                        })
                        .collect::<Vec<_>>(),
                });
                let mut json = serde_json::to_string_pretty(&document)
                    .unwrap_or_else(|error| format!("{{\"error\": \"{error}\"}}"));
                json.push('\n');
                json
            }
        },
    }
}

/// Each metric's name and its value in every run (the runs explain the
/// same metrics, in the same order).
fn value_rows(runs: &[QueryExplanation]) -> Vec<(String, Vec<f64>)> {
    runs[0]
        .metrics
        .iter()
        .enumerate()
        .map(|(m, metric)| {
            let values = runs.iter().map(|run| run.metrics[m].value).collect();
            (metric.metric.clone(), values)
        })
        .collect()
}

/// The text or Markdown of several runs side by side.
fn side_by_side(runs: &[QueryExplanation], markdown: bool) -> String {
    let mut out = String::new();
    for run in runs {
        out.push_str(&if markdown {
            format!("{}\n", escape(&header(run)))
        } else {
            format!("{}\n", header(run))
        });
    }
    for (m, metric) in runs[0].metrics.iter().enumerate() {
        if !markdown || !out.ends_with("\n\n") {
            out.push('\n');
        }
        let title = match metric.level {
            Some(level) => format!("{} (relevant: grade >= {level})", metric.metric),
            None => metric.metric.clone(),
        };
        if markdown {
            out.push_str(&format!("#### `{title}`\n\n"));
        } else {
            out.push_str(&format!("{title}\n"));
        }
        let (table, left) = joined_rows(runs, m);
        if table.len() > 2 {
            out.push_str(&if markdown {
                // Markdown has one header row: each group's first column
                // name carries its run's name.
                let mut rows = table[1..].to_vec();
                for (c, run) in table[0].iter().enumerate() {
                    if !run.is_empty() {
                        rows[0][c] = format!("{run}: {}", rows[0][c]);
                    }
                }
                text::markdown_table(&rows, &left)
            } else {
                text::aligned(&table, &left)
            });
            if markdown {
                out.push('\n');
            }
        }
        for run in runs {
            let explained = &run.metrics[m];
            let mut text = format!("{}: ", run.run);
            if !explained.quantities.is_empty() {
                let quantities: Vec<String> = explained
                    .quantities
                    .iter()
                    .map(|q| format!("{} = {}", q.name, number(q.value)))
                    .collect();
                text.push_str(&quantities.join(", "));
                text.push_str("; ");
            }
            text.push_str(&explained.formula);
            out.push_str(&line(&text, markdown));
        }
    }
    if !markdown {
        out.push('\n');
    }
    let first = &runs[0].run;
    for (metric, values) in value_rows(runs) {
        let mut parts: Vec<String> = runs
            .iter()
            .zip(&values)
            .map(|(run, value)| format!("{} = {value}", run.run))
            .collect();
        parts.extend(
            runs.iter()
                .zip(&values)
                .skip(1)
                .map(|(run, value)| format!("{} - {first} = {}", run.run, value - values[0])),
        );
        out.push_str(&line(&format!("{metric}: {}", parts.join(", ")), markdown));
    }
    out
}

/// One metric's table for every run: a first row naming each run above
/// its group of columns, the column names, then one row per rank (the
/// rank once, then each run's columns; blank past a shorter list). The
/// second value says which columns hold documents (left-aligned).
fn joined_rows(runs: &[QueryExplanation], m: usize) -> (Vec<Vec<String>>, Vec<bool>) {
    let tables: Vec<Vec<Vec<String>>> = runs.iter().map(|r| rows(r, &r.metrics[m])).collect();
    let height = tables.iter().map(Vec::len).max().unwrap_or(0);
    let mut names = vec![String::new()];
    let mut left = vec![false];
    for (run, table) in runs.iter().zip(&tables) {
        let width = table.first().map_or(0, |h| h.len().saturating_sub(1));
        for c in 0..width {
            names.push(if c == 0 {
                run.run.clone()
            } else {
                String::new()
            });
            left.push(c == 0);
        }
    }
    let mut joined = vec![names];
    for r in 0..height {
        let mut row = vec![if r == 0 {
            if runs.iter().any(|run| !run.samples.is_empty()) {
                "#".to_owned()
            } else {
                "rank".to_owned()
            }
        } else {
            r.to_string()
        }];
        for table in &tables {
            let width = table.first().map_or(0, |h| h.len().saturating_sub(1));
            match table.get(r) {
                Some(cells) => row.extend(cells.iter().skip(1).cloned()),
                None => row.extend(std::iter::repeat_n(String::new(), width)),
            }
        }
        joined.push(row);
    }
    (joined, left)
}

/// `explanation` in `format`.
pub fn render(explanation: &QueryExplanation, format: ExplainFormat) -> String {
    match format {
        ExplainFormat::Table => text(explanation, false),
        ExplainFormat::Markdown => text(explanation, true),
        ExplainFormat::Json => {
            let mut json = serde_json::to_string_pretty(explanation)
                .unwrap_or_else(|error| format!("{{\"error\": \"{error}\"}}"));
            json.push('\n');
            json
        }
    }
}

/// The header line about the query and its list.
fn header(e: &QueryExplanation) -> String {
    if !e.samples.is_empty() {
        return sampled_header(e);
    }
    let grades: Vec<String> = e
        .ranking
        .ideal_grades
        .iter()
        .map(|g| g.to_string())
        .collect();
    format!(
        "query {} in run {}: {} ranked {}; the qrels judge {} {} (grades {})",
        e.query,
        e.run,
        e.ranking.documents.len(),
        if e.ranking.documents.len() == 1 {
            "document"
        } else {
            "documents"
        },
        grades.len(),
        if grades.len() == 1 {
            "document"
        } else {
            "documents"
        },
        if grades.is_empty() {
            "none".to_owned()
        } else {
            grades.join(" ")
        }
    )
}

/// The header line of a sampled run's query: its samples and the
/// documents they rank.
fn sampled_header(e: &QueryExplanation) -> String {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let samples: Vec<&str> = e.samples.iter().map(|s| s.sample.as_str()).collect();
    let grades: Vec<String> = e
        .ranking
        .ideal_grades
        .iter()
        .map(|g| g.to_string())
        .collect();
    format!(
        "query {} in run {}: {} ({}) ranking {}; the qrels judge {} (grades {})",
        e.query,
        e.run,
        plural(samples.len(), "sample", "samples"),
        samples.join(", "),
        plural(e.ranking.documents.len(), "document", "documents"),
        plural(grades.len(), "document", "documents"),
        if grades.is_empty() {
            "none".to_owned()
        } else {
            grades.join(" ")
        }
    )
}

fn text(e: &QueryExplanation, markdown: bool) -> String {
    let mut out = String::new();
    if markdown {
        out.push_str(&format!("{}\n", escape(&header(e))));
    } else {
        out.push_str(&header(e));
        out.push('\n');
    }
    for metric in &e.metrics {
        if !markdown || !out.ends_with("\n\n") {
            out.push('\n');
        }
        let title = match metric.level {
            Some(level) => format!("{} (relevant: grade >= {level})", metric.metric),
            None => metric.metric.clone(),
        };
        if markdown {
            out.push_str(&format!("#### `{}`\n\n", title));
        } else {
            out.push_str(&format!("{title}\n"));
        }
        let rows = rows(e, metric);
        if rows.len() > 1 {
            out.push_str(&if markdown {
                markdown_table(&rows)
            } else {
                aligned(&rows)
            });
            if markdown {
                out.push('\n');
            }
        }
        if !metric.quantities.is_empty() {
            let quantities: Vec<String> = metric
                .quantities
                .iter()
                .map(|q| format!("{} = {}", q.name, number(q.value)))
                .collect();
            out.push_str(&line(&quantities.join(", "), markdown));
        }
        out.push_str(&line(&metric.formula, markdown));
    }
    if e.metrics.len() > 1 {
        if !markdown {
            out.push('\n');
        }
        let values: Vec<String> = e
            .metrics
            .iter()
            .map(|m| format!("{} = {}", m.metric, m.value))
            .collect();
        out.push_str(&line(&format!("values: {}", values.join(", ")), markdown));
    }
    if let Some(differences) = &e.differences {
        out.push_str(&line(differences, markdown));
    }
    out
}

fn line(text: &str, markdown: bool) -> String {
    if markdown {
        format!("`{}`\n\n", text.replace('`', "'"))
    } else {
        format!("{text}\n")
    }
}

/// The table of one metric: rank, document, score, grade, (relevant,
/// hits), and the metric's per-rank terms, for the ranks it reads.
pub(crate) fn rows(e: &QueryExplanation, metric: &Explanation) -> Vec<Vec<String>> {
    if !e.samples.is_empty() {
        return sampled_rows(e, metric);
    }
    let ranks = metric.depth.map_or(e.ranking.documents.len(), |k| {
        k.min(e.ranking.documents.len())
    });
    let mut header: Vec<String> = ["rank", "document", "score", "grade"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    if metric.level.is_some() {
        header.push("relevant".into());
        header.push("hits".into());
    }
    header.extend(metric.columns.iter().map(|c| c.name.clone()));
    let mut rows = vec![header];
    let mut hits = 0usize;
    for i in 0..ranks {
        let grade = e.ranking.grades[i];
        let mut row = vec![
            (i + 1).to_string(),
            e.ranking.documents[i].clone(),
            e.ranking.scores[i].map_or_else(|| "-".to_owned(), |s| s.to_string()),
            grade.map_or_else(|| "-".to_owned(), |g| g.to_string()),
        ];
        if let Some(level) = metric.level {
            let relevant = grade.is_some_and(|g| g >= level);
            hits += usize::from(relevant);
            row.push(if relevant { "yes" } else { "no" }.to_owned());
            row.push(hits.to_string());
        }
        row.extend(metric.columns.iter().map(|c| {
            c.values
                .get(i)
                .copied()
                .flatten()
                .map_or_else(String::new, number)
        }));
        rows.push(row);
    }
    rows
}

/// The table of one metric over a sampled run's query: one row per
/// document of the samples (numbered in order of first appearance), its
/// rank in each sample (`-`: not retrieved there), its grade, and the
/// metric's per-document terms.
fn sampled_rows(e: &QueryExplanation, metric: &Explanation) -> Vec<Vec<String>> {
    let mut header: Vec<String> = vec!["#".into(), "document".into()];
    header.extend(e.samples.iter().map(|s| format!("rank in {}", s.sample)));
    header.push("grade".into());
    if metric.level.is_some() {
        header.push("relevant".into());
    }
    header.extend(metric.columns.iter().map(|c| c.name.clone()));
    let mut rows = vec![header];
    for (i, document) in e.ranking.documents.iter().enumerate() {
        let grade = e.ranking.grades.get(i).copied().flatten();
        let mut row = vec![(i + 1).to_string(), document.clone()];
        row.extend(e.samples.iter().map(|s| {
            s.ranks
                .get(i)
                .copied()
                .flatten()
                .map_or_else(|| "-".to_owned(), |r| r.to_string())
        }));
        row.push(grade.map_or_else(|| "-".to_owned(), |g| g.to_string()));
        if let Some(level) = metric.level {
            let relevant = grade.is_some_and(|g| g >= level);
            row.push(if relevant { "yes" } else { "no" }.to_owned());
        }
        row.extend(metric.columns.iter().map(|c| {
            c.values
                .get(i)
                .copied()
                .flatten()
                .map_or_else(String::new, number)
        }));
        rows.push(row);
    }
    rows
}

/// Rows aligned for a terminal: the document column on the left, the
/// others on the right; widths in terminal columns.
fn aligned(rows: &[Vec<String>]) -> String {
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    let left: Vec<bool> = (0..width).map(|c| c == 1).collect();
    text::aligned(rows, &left)
}

fn markdown_table(rows: &[Vec<String>]) -> String {
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    let left: Vec<bool> = (0..width).map(|c| c == 1).collect();
    text::markdown_table(rows, &left)
}
