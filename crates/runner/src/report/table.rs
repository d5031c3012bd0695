//! The terminal table: metrics as rows, runs as columns, numbers aligned on
//! the right; with per-query values, one more table per run.

use super::{RenderOptions, Report, per_query_rows, summary_rows};

pub(super) fn render(report: &Report, options: RenderOptions) -> String {
    let mut out = aligned(&summary_rows(report));
    if options.per_query {
        for run in &report.runs {
            out.push('\n');
            out.push_str(&format!("{} (per query)\n", run.name));
            out.push_str(&aligned(&per_query_rows(report, run)));
        }
    }
    out
}

/// Rows as text: the first column on the left, the others on the right.
fn aligned(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c == 0 {
                line.push_str(&format!("{cell:<width$}", width = widths[c]));
            } else {
                line.push_str(&format!("  {cell:>width$}", width = widths[c]));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;

    #[test]
    fn summary_and_per_query() {
        let report = sample(&["mean"]);
        insta::assert_snapshot!(render(&report, RenderOptions { per_query: true }));
    }

    #[test]
    fn several_aggregators_label_their_rows() {
        let report = sample(&["mean", "min"]);
        insta::assert_snapshot!(render(&report, RenderOptions::default()));
    }
}
