//! Systems of several runs (`[[systems]]`) after a report: a table of each
//! system's grand mean with its two-way bootstrap interval and the spread
//! over its runs, and one of each system compared with the first, counting
//! the run variance (with the p-value that ignores it beside it); in JSON
//! a `systems` object, in CSV rows of their own (with their own header).

use rankeval::systems::Systems;

use super::{OutputFormat, csv, fixed};
use crate::comparison::p_value;

/// `text` (a report in `format`) with the systems added; formats without a
/// place for them (trec, html, latex) are returned as they are.
pub fn with_systems(format: OutputFormat, text: String, systems: &Systems) -> String {
    super::with_section(
        format,
        text,
        super::Section {
            key: "systems",
            value: serde_json::to_value(systems).unwrap_or(serde_json::Value::Null),
            title: title(systems),
            tables: vec![summary(systems), comparisons(systems)],
            csv: csv_rows(systems),
            latex: None,
        },
    )
}

fn title(systems: &Systems) -> String {
    let s = &systems.settings;
    format!(
        "systems: mean over queries and runs [{}% two-way bootstrap interval, queries and runs \
         resampled, {} resamples, seed {}], sd over runs",
        s.level * 100.0,
        s.resamples,
        s.seed
    )
}

fn summary(systems: &Systems) -> Vec<Vec<String>> {
    let mut header = vec!["system".to_owned(), "runs".to_owned(), "queries".to_owned()];
    header.extend(systems.metrics.iter().cloned());
    let mut rows = vec![header];
    for system in &systems.systems {
        let mut row = vec![
            system.name.clone(),
            system.runs.len().to_string(),
            system.queries.to_string(),
        ];
        for (m, summary) in system.metrics.iter().enumerate() {
            row.push(match summary {
                Some(s) => format!(
                    "{} [{}, {}] sd {}",
                    fixed(s.mean),
                    fixed(s.interval.lower),
                    fixed(s.interval.upper),
                    fixed(s.seed_sd)
                ),
                None => format!(
                    "NaN ({})",
                    system.errors[m].as_deref().unwrap_or("no value")
                ),
            });
        }
        rows.push(row);
    }
    rows
}

fn comparisons(systems: &Systems) -> Vec<Vec<String>> {
    let level = format!("{}% CI", systems.settings.level * 100.0);
    let mut rows = vec![
        [
            "metric",
            "system",
            "vs",
            "difference",
            &level,
            "p (runs counted)",
            "p (runs ignored)",
        ]
        .map(str::to_owned)
        .to_vec(),
    ];
    for c in &systems.comparisons {
        let mut row = vec![c.metric.clone(), c.system.clone(), c.baseline.clone()];
        match &c.result {
            Some(r) => row.extend([
                format!("{:+.4}", r.difference),
                format!("[{:+.4}, {:+.4}]", r.interval.lower, r.interval.upper),
                p_value(r.p_value),
                p_value(r.seed_blind_p_value),
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

fn csv_rows(systems: &Systems) -> String {
    let mut out = String::new();
    csv::line(
        &mut out,
        &[
            "system",
            "metric",
            "runs",
            "queries",
            "mean",
            "lower",
            "upper",
            "run_sd",
            "baseline",
            "difference",
            "p_value",
            "seed_blind_p_value",
        ]
        .map(str::to_owned),
    );
    for system in &systems.systems {
        for (m, metric) in systems.metrics.iter().enumerate() {
            let mut row = vec![
                system.name.clone(),
                metric.clone(),
                system.runs.len().to_string(),
                system.queries.to_string(),
            ];
            match &system.metrics[m] {
                Some(s) => row.extend([
                    csv::number(s.mean),
                    csv::number(s.interval.lower),
                    csv::number(s.interval.upper),
                    csv::number(s.seed_sd),
                ]),
                None => row.extend((0..4).map(|_| String::new())),
            }
            row.extend((0..4).map(|_| String::new()));
            csv::line(&mut out, &row);
        }
    }
    for c in &systems.comparisons {
        let mut row = vec![
            c.system.clone(),
            c.metric.clone(),
            String::new(),
            c.queries.to_string(),
        ];
        match &c.result {
            Some(r) => row.extend([
                String::new(),
                csv::number(r.interval.lower),
                csv::number(r.interval.upper),
                String::new(),
                c.baseline.clone(),
                csv::number(r.difference),
                csv::number(r.p_value),
                csv::number(r.seed_blind_p_value),
            ]),
            None => {
                row.extend((0..4).map(|_| String::new()));
                row.push(c.baseline.clone());
                row.extend((0..3).map(|_| String::new()));
            }
        }
        csv::line(&mut out, &row);
    }
    out
}
