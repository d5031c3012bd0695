//! Markdown tables to paste into a pull request or an issue.

use super::{RenderOptions, Report, group_rows, per_query_rows, summary_rows};

pub(super) fn render(report: &Report, options: RenderOptions) -> String {
    let mut out = table(&summary_rows(report));
    for group in report.group_table() {
        out.push('\n');
        out.push_str(&table(&group_rows(report, &group)));
    }
    if options.per_query {
        for run in &report.runs {
            out.push_str(&format!("\n#### {} (per query)\n\n", escape(&run.name)));
            out.push_str(&table(&per_query_rows(report, run)));
        }
    }
    out
}

pub(super) fn table(rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    for (r, row) in rows.iter().enumerate() {
        let cells: Vec<String> = row.iter().map(|c| escape(c)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
        if r == 0 {
            let rule: Vec<&str> = (0..row.len())
                .map(|c| if c == 0 { "---" } else { "---:" })
                .collect();
            out.push_str(&format!("| {} |\n", rule.join(" | ")));
        }
    }
    out
}

/// Keeps a cell inside its column: `|` would end it.
pub(super) fn escape(cell: &str) -> String {
    cell.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;

    #[test]
    fn summary_and_per_query() {
        insta::assert_snapshot!(render(
            &sample(&["mean"]),
            RenderOptions { per_query: true }
        ));
    }

    #[test]
    fn intervals_follow_their_means() {
        insta::assert_snapshot!(render(
            &super::super::tests::sample_with_intervals(),
            RenderOptions::default()
        ));
    }

    #[test]
    fn each_group_is_a_table_after_the_summary() {
        insta::assert_snapshot!(render(
            &super::super::tests::sample_with_groups(),
            RenderOptions::default()
        ));
    }

    #[test]
    fn corpus_metrics_are_one_row_each() {
        insta::assert_snapshot!(render(
            &super::super::tests::sample_with_corpus(&["mean"]),
            RenderOptions::default()
        ));
    }
}
