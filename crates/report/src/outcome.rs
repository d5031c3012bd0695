//! What [`Experiment::run`](rankeval::experiment::Experiment) returned, as
//! one text in one format: the results or the comparison, with the curves
//! and the changed queries on the HTML page, and the systems where the
//! format has a place for them. For a program that runs an experiment and
//! wants what `rankeval eval` would print (the Python package's
//! `report`).

use rankeval::curves::RunCurves;
use rankeval::outcome::{Outcome, Results};

use crate::html::{self, HtmlExtras};
use crate::{OutputFormat, Render, RenderOptions, html_comparison, render_compared};

/// `outcome` in `format`.
pub fn render(outcome: &Outcome, format: OutputFormat, options: RenderOptions) -> String {
    let text = match (&outcome.results, &outcome.curves) {
        (Results::Compared(compared), Some(curves)) if format == OutputFormat::Html => {
            let comparison = html_comparison(compared);
            // A baseline read from a results file is the report's first run
            // and has no curves (its lists were not read): an empty series
            // keeps every other run's curves under its own name.
            let mut curves = curves.clone();
            if compared.report.runs.len() == curves.runs.len() + 1 {
                curves.runs.insert(
                    0,
                    RunCurves {
                        at_k: Vec::new(),
                        precision_recall: Vec::new(),
                    },
                );
            }
            html::render(
                &compared.report,
                options,
                HtmlExtras {
                    curves: Some(&curves),
                    comparison: Some(&comparison),
                    explanations: outcome.changes.as_ref(),
                    title: outcome.title.as_deref(),
                },
            )
        }
        (Results::Compared(compared), _) => render_compared(compared, format, options),
        (Results::Plain(plain), Some(curves)) if format == OutputFormat::Html => html::render(
            plain,
            options,
            HtmlExtras {
                curves: Some(curves),
                comparison: None,
                explanations: outcome.changes.as_ref(),
                title: outcome.title.as_deref(),
            },
        ),
        (Results::Plain(plain), _) => match &outcome.parts {
            Some(parts) => crate::parts::summary(format, plain, options, parts),
            None => plain.render(format, options),
        },
    };
    let text = match &outcome.parts {
        None => text,
        Some(parts) => crate::parts::with_parts(format, text, parts),
    };
    match &outcome.systems {
        None => text,
        Some(systems) => crate::systems::with_systems(format, text, systems),
    }
}
