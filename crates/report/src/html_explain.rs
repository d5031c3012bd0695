//! The explain tables of the HTML report's "queries that changed most":
//! for the headline metric (the report's first), each changed query's
//! ranked list and terms in the baseline and in the other run, as
//! `rankeval explain` prints them, so a reader sees why the value moved.
//!
//! The explanations come made (`rankeval::changed::explain_changed`, from
//! the lists the evaluation kept): this module renders them and reads
//! nothing.

use std::fmt::Write as _;

use rankeval_core::explain::number;

use super::html_svg::escape;
use crate::explain::rows as table_rows;
use rankeval::explain::QueryExplanation;

/// At most this many ranks of a list are shown in an explain table (the
/// formula still covers every rank the metric reads).
pub const EXPLAIN_RANKS: usize = 50;

/// One run's explain table of one query: the ranked list with the metric's
/// terms, its quantities and its formula with the numbers put in.
pub fn explain_table(e: &QueryExplanation) -> String {
    let mut out = String::new();
    let Some(metric) = e.metrics.first() else {
        return out;
    };
    let rows = table_rows(e, metric);
    let shown = rows.len().saturating_sub(1);
    let _ = write!(
        out,
        "<div class=\"explain\"><h4>{} <span class=\"num\">{}</span></h4>",
        escape(&e.run),
        escape(&number(metric.value))
    );
    out.push_str("<table class=\"explain\">");
    for (i, row) in rows.iter().take(EXPLAIN_RANKS + 1).enumerate() {
        let cell = if i == 0 { "th" } else { "td" };
        out.push_str("<tr>");
        for (c, text) in row.iter().enumerate() {
            let class = if c == 1 { "" } else { " class=\"num\"" };
            let _ = write!(out, "<{cell}{class}>{}</{cell}>", escape(text));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
    if shown > EXPLAIN_RANKS {
        let _ = write!(
            out,
            "<p class=\"note\">The first {EXPLAIN_RANKS} of the {shown} ranks the metric reads; \
             the formula covers them all (rankeval explain --query {} prints every rank).</p>",
            escape(&e.query)
        );
    } else if shown == 0 {
        out.push_str("<p class=\"note\">An empty list.</p>");
    }
    if !metric.quantities.is_empty() {
        let quantities: Vec<String> = metric
            .quantities
            .iter()
            .map(|q| format!("{} = {}", q.name, number(q.value)))
            .collect();
        let _ = write!(
            out,
            "<p class=\"quantities\">{}</p>",
            escape(&quantities.join(", "))
        );
    }
    let _ = write!(
        out,
        "<p class=\"formula\"><code>{}</code></p></div>",
        escape(&metric.formula)
    );
    out
}
