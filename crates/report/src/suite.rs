//! A suite's macro average (`rankeval run a.toml b.toml --aggregate
//! macro`) after the experiments' own reports: in the table and Markdown a
//! table of each run's macro average with its interval and one of the
//! comparisons with the baseline; in JSON a `macro` object; in CSV rows of
//! their own (with their own header); in LaTeX a booktabs table.

use std::fmt::Write as _;

use rankeval::suite::Suite;

use super::{OutputFormat, csv, fixed};
use crate::comparison::p_value;

/// `text` (the experiments' combined report in `format`) with the suite's
/// macro average added.
pub fn with_suite(format: OutputFormat, text: String, suite: &Suite) -> String {
    super::with_section(
        format,
        text,
        super::Section {
            key: "macro",
            value: serde_json::to_value(suite).unwrap_or(serde_json::Value::Null),
            title: title(suite),
            tables: vec![means(suite), comparisons(suite)],
            csv: csv_rows(suite),
            latex: Some(latex(suite)),
        },
    )
}

/// What the macro table holds, in a line.
fn title(suite: &Suite) -> String {
    let s = &suite.settings;
    format!(
        "macro average over {} datasets (each weighs the same): {}% stratified bootstrap \
         intervals (queries resampled within each dataset), {} resamples, seed {}",
        suite.datasets.len(),
        s.level * 100.0,
        s.resamples,
        s.seed
    )
}

/// A macro average with its interval, or the reason there is none.
fn cell(suite: &Suite, r: usize, m: usize) -> String {
    let run = &suite.runs[r];
    match (&run.macro_means[m], &run.errors[m]) {
        (Some(mean), _) => format!(
            "{} [{}, {}]",
            fixed(mean.value),
            fixed(mean.interval.lower),
            fixed(mean.interval.upper)
        ),
        (None, error) => format!("NaN ({})", error.as_deref().unwrap_or("no value")),
    }
}

fn means(suite: &Suite) -> Vec<Vec<String>> {
    let mut header = vec!["macro".to_owned()];
    header.extend(suite.runs.iter().map(|r| r.name.clone()));
    let mut rows = vec![header];
    for (m, metric) in suite.metrics.iter().enumerate() {
        let mut row = vec![metric.clone()];
        row.extend((0..suite.runs.len()).map(|r| cell(suite, r, m)));
        rows.push(row);
    }
    rows
}

fn comparisons(suite: &Suite) -> Vec<Vec<String>> {
    let level = format!("{}% CI", suite.settings.level * 100.0);
    let mut rows = vec![
        [
            "metric",
            "run",
            "vs",
            "macro difference",
            &level,
            "p (randomization)",
        ]
        .map(str::to_owned)
        .to_vec(),
    ];
    for c in &suite.comparisons {
        let mut row = vec![c.metric.clone(), c.run.clone(), c.baseline.clone()];
        match &c.result {
            Some(r) => row.extend([
                format!("{:+.4}", r.difference.value),
                format!(
                    "[{:+.4}, {:+.4}]",
                    r.difference.interval.lower, r.difference.interval.upper
                ),
                p_value(r.p_value),
            ]),
            None => row.push(format!(
                "not compared: {}",
                c.error.as_deref().unwrap_or("no numbers")
            )),
        }
        rows.push(row);
    }
    rows
}

fn csv_rows(suite: &Suite) -> String {
    let mut out = String::new();
    csv::line(
        &mut out,
        &[
            "experiment",
            "run",
            "metric",
            "macro",
            "lower",
            "upper",
            "baseline",
            "p_value",
            "datasets",
            "level",
            "resamples",
            "seed",
        ]
        .map(str::to_owned),
    );
    let settings = |out: &mut Vec<String>| {
        out.extend([
            suite.datasets.len().to_string(),
            csv::number(suite.settings.level),
            suite.settings.resamples.to_string(),
            suite.settings.seed.to_string(),
        ]);
    };
    for run in &suite.runs {
        for (m, metric) in suite.metrics.iter().enumerate() {
            let mut row = vec!["macro".to_owned(), run.name.clone(), metric.clone()];
            match &run.macro_means[m] {
                Some(mean) => row.extend([
                    csv::number(mean.value),
                    csv::number(mean.interval.lower),
                    csv::number(mean.interval.upper),
                ]),
                None => row.extend([String::new(), String::new(), String::new()]),
            }
            row.extend([String::new(), String::new()]);
            settings(&mut row);
            csv::line(&mut out, &row);
        }
    }
    for c in &suite.comparisons {
        let mut row = vec![
            "macro difference".to_owned(),
            c.run.clone(),
            c.metric.clone(),
        ];
        match &c.result {
            Some(r) => row.extend([
                csv::number(r.difference.value),
                csv::number(r.difference.interval.lower),
                csv::number(r.difference.interval.upper),
                c.baseline.clone(),
                csv::number(r.p_value),
            ]),
            None => row.extend([
                String::new(),
                String::new(),
                String::new(),
                c.baseline.clone(),
                String::new(),
            ]),
        }
        settings(&mut row);
        csv::line(&mut out, &row);
    }
    out
}

fn latex(suite: &Suite) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\\begin{{table}}[t]\n\\centering\n\\begin{{tabular}}{{l{}}}\n\\toprule",
        "r".repeat(suite.metrics.len())
    );
    let _ = writeln!(
        out,
        "Run & {} \\\\\n\\midrule",
        suite
            .metrics
            .iter()
            .map(|m| crate::comparison::tex(m))
            .collect::<Vec<_>>()
            .join(" & ")
    );
    for (r, run) in suite.runs.iter().enumerate() {
        let cells: Vec<String> = (0..suite.metrics.len())
            .map(|m| match &run.macro_means[m] {
                Some(mean) => format!(
                    "{} {{\\scriptsize [{}, {}]}}",
                    fixed(mean.value),
                    fixed(mean.interval.lower),
                    fixed(mean.interval.upper)
                ),
                None => "--".to_owned(),
            })
            .collect();
        let _ = writeln!(
            out,
            "{} & {} \\\\",
            crate::comparison::tex(&suite.runs[r].name),
            cells.join(" & ")
        );
    }
    let _ = writeln!(
        out,
        "\\bottomrule\n\\end{{tabular}}\n\\caption{{Macro averages over {} datasets (each \
         weighs the same); in brackets, {}\\% stratified bootstrap intervals ({} resamples, seed \
         {}).}}\n\\end{{table}}",
        suite.datasets.len(),
        suite.settings.level * 100.0,
        suite.settings.resamples,
        suite.settings.seed
    );
    out
}
