//! `rankeval explain`'s output: an aligned table per metric for a terminal,
//! the same as Markdown, or one JSON document (per-rank terms as arrays).

use rankeval_core::Explanation;
use rankeval_core::explain::number;
use unicode_width::UnicodeWidthStr;

use rankeval::explain::QueryExplanation;

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

/// Rows aligned for a terminal: the document column on the left, the
/// others on the right; widths in terminal columns.
fn aligned(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|cell| cell.width())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let padding = " ".repeat(widths[c].saturating_sub(cell.width()));
            if c > 0 {
                line.push_str("  ");
            }
            if c == 1 {
                line.push_str(cell);
                line.push_str(&padding);
            } else {
                line.push_str(&padding);
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn markdown_table(rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    for (r, row) in rows.iter().enumerate() {
        let cells: Vec<String> = row.iter().map(|c| escape(c)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
        if r == 0 {
            let rule: Vec<&str> = (0..row.len())
                .map(|c| if c == 1 { "---" } else { "---:" })
                .collect();
            out.push_str(&format!("| {} |\n", rule.join(" | ")));
        }
    }
    out
}

/// Keeps Markdown cells and text literal.
fn escape(text: &str) -> String {
    text.replace('|', "\\|")
}
