//! The explain tables of the HTML report's "queries that changed most":
//! for the headline metric (the report's first), each changed query's
//! ranked list and terms in the baseline and in the other run, as
//! `rankeval explain` prints them, so a reader sees why the value moved.
//!
//! [`explain_changed`] reads the qrels and the two runs again (the report
//! keeps values, not lists) and explains only the listed queries.

use std::collections::HashMap;
use std::fmt::Write as _;

use rankeval_core::explain::number;
use rankeval_core::{Qrels, Run};

use super::Report;
use super::html_pairs::changed_queries;
use super::html_svg::escape;
use crate::explain::rows as table_rows;
use rankeval::experiment::Experiment;
use rankeval::explain::{QueryExplanation, explain};
use rankeval::read::{read_qrels, read_run_with};

/// At most this many ranks of a list are shown in an explain table (the
/// formula still covers every rank the metric reads).
pub const EXPLAIN_RANKS: usize = 50;

/// The explanations the report's "queries that changed most" shows.
#[derive(Clone, Debug, Default)]
pub struct ChangedExplanations {
    /// The report's metric they explain (the headline: the first).
    pub metric: usize,
    /// Per (run index, query): the explanation, or why there is none.
    pub tables: HashMap<(usize, String), Result<QueryExplanation, String>>,
    /// Why no query could be explained, if so.
    pub unavailable: Option<String>,
}

impl ChangedExplanations {
    /// The explanation of `query` in run `run`, if one was made.
    pub fn get(&self, run: usize, query: &str) -> Option<&Result<QueryExplanation, String>> {
        self.tables.get(&(run, query.to_owned()))
    }
}

/// One run read again, with the judgements it holds (JSON Lines), if any.
struct Loaded {
    run: Run,
    own: Option<(Qrels, String)>,
}

/// Explains, for the report's first metric, the queries that changed most
/// between `baseline` and every other run, in both runs.
pub fn explain_changed(
    experiment: &Experiment,
    report: &Report,
    baseline: usize,
) -> ChangedExplanations {
    let mut explained = ChangedExplanations::default();
    if report.runs.len() < 2 || report.metrics.is_empty() || experiment.metrics.is_empty() {
        return explained;
    }
    let shared = match &experiment.qrels {
        Some(input) => match read_qrels(input) {
            Ok(qrels) => Some((qrels, input.name().to_owned())),
            Err(error) => {
                explained.unavailable = Some(format!("the qrels could not be read again: {error}"));
                return explained;
            }
        },
        None => None,
    };
    let mut loaded: HashMap<usize, Result<Loaded, String>> = HashMap::new();
    // The report's runs by name: a baseline read from a results file is a
    // run of the report but not of the experiment, and has no lists.
    let load = |r: usize| -> Result<Loaded, String> {
        let name = &report.runs[r].name;
        let named = experiment
            .runs
            .iter()
            .find(|run| &run.name == name)
            .ok_or_else(|| {
                format!("{name} comes from a results file, which holds values, not ranked lists")
            })?;
        let (run, own) = read_run_with(&named.input, experiment.read, &|_| {})
            .map_err(|error| format!("the run could not be read again: {error}"))?;
        Ok(Loaded {
            run,
            own: own.map(|qrels| (qrels, named.input.name().to_owned())),
        })
    };
    let metric = std::slice::from_ref(&experiment.metrics[0]);
    for other in (0..report.runs.len()).filter(|&r| r != baseline) {
        let queries = changed_queries(report, baseline, 0, other);
        for r in [baseline, other] {
            loaded.entry(r).or_insert_with(|| load(r));
            let name = &report.runs[r].name;
            for query in &queries {
                let key = (r, query.clone());
                if explained.tables.contains_key(&key) {
                    continue;
                }
                let table = match &loaded[&r] {
                    Ok(l) => match shared.as_ref().or(l.own.as_ref()) {
                        Some((qrels, qrels_name)) => explain(
                            qrels,
                            qrels_name,
                            &l.run,
                            name,
                            query,
                            metric,
                            &experiment.options,
                        )
                        .map_err(|error| error.to_string()),
                        None => Err("no judgements for this run".to_owned()),
                    },
                    Err(why) => Err(why.clone()),
                };
                explained.tables.insert(key, table);
            }
        }
    }
    explained
}

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
