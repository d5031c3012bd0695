//! The terminal table: metrics as rows, runs as columns, numbers aligned on
//! the right; with per-query values, one more table per run.

use super::{RenderOptions, Report, group_rows, per_query_rows, summary_rows};

pub(super) fn render(report: &Report, options: RenderOptions) -> String {
    let mut out = aligned(&summary_rows(report));
    for group in report.group_table() {
        out.push('\n');
        out.push_str(&aligned(&group_rows(report, &group)));
    }
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
/// Widths are terminal columns, so wide (CJK) characters count as two.
pub(super) fn aligned(rows: &[Vec<String>]) -> String {
    crate::text::aligned(rows, &[true])
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
    fn wide_characters_take_two_columns() {
        let mut report = sample(&["mean"]);
        report.runs[0].queries = vec!["검색어".into(), "q2".into()];
        report.runs[1].name = "모델".into();
        let text = render(&report, RenderOptions { per_query: true });
        let widths = |text: &str| -> Vec<usize> {
            text.lines()
                .take_while(|l| !l.is_empty())
                .map(unicode_width::UnicodeWidthStr::width)
                .collect()
        };
        let summary = widths(&text);
        assert!(summary.windows(2).all(|w| w[0] == w[1]), "{text}");
        let per_query = widths(text.split("(per query)\n").nth(1).unwrap());
        assert!(per_query.windows(2).all(|w| w[0] == w[1]), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn several_aggregators_label_their_rows() {
        let report = sample(&["mean", "min"]);
        insta::assert_snapshot!(render(&report, RenderOptions::default()));
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
        let text = render(
            &super::super::tests::sample_with_corpus(&["mean", "median"]),
            RenderOptions::default(),
        );
        insta::assert_snapshot!(text);
    }
}
