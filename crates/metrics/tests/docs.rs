//! `docs/metrics.md` is checked against the registry: every registered
//! metric and aggregator has a section, its aliases and its parameter table
//! (names, aliases, defaults, in declaration order) match the descriptor,
//! and the doc documents nothing that is not registered.
//!
//! The doc's shape: a chapter `## Metrics` and a chapter `## Aggregators`;
//! in each, one section per plugin headed ``### `name` ``, holding a line
//! `Aliases: `a`, `b`.` (or `Aliases: none.`) and either a table headed
//! `| parameter | alias | default | ... |`, one row per parameter, or a line
//! `Parameters: none.`

use rankeval_core::registry::{self, Descriptor, Plugin};
use rankeval_core::{Aggregator, Metric};

const DOC_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/metrics.md");

/// The doc, read when the test runs (so an edit needs no rebuild).
fn doc() -> String {
    std::fs::read_to_string(DOC_PATH).unwrap_or_else(|e| panic!("cannot read {DOC_PATH}: {e}"))
}

/// The lines of the chapter headed `## {title}`, up to the next chapter.
fn chapter<'a>(doc: &'a str, title: &str) -> Vec<&'a str> {
    let heading = format!("## {title}");
    let lines: Vec<&str> = doc.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_end() == heading)
        .unwrap_or_else(|| panic!("docs/metrics.md has no chapter `{heading}`"));
    lines[start + 1..]
        .iter()
        .take_while(|l| !l.starts_with("## "))
        .copied()
        .collect()
}

/// The sections of a chapter: (name in the heading, its lines).
fn sections<'a>(chapter: &[&'a str]) -> Vec<(String, Vec<&'a str>)> {
    let mut out: Vec<(String, Vec<&str>)> = Vec::new();
    for line in chapter {
        if let Some(rest) = line.strip_prefix("### ") {
            let name = rest.trim().trim_matches('`').to_owned();
            out.push((name, Vec::new()));
        } else if let Some((_, lines)) = out.last_mut() {
            lines.push(line);
        }
    }
    out
}

/// The backticked words of `text`.
fn backticked(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// One documented parameter: name, alias, default.
type DocParam = (String, Option<String>, String);

/// The rows of the section's table headed `| parameter | alias | default |`.
fn documented_params(lines: &[&str]) -> Vec<DocParam> {
    lines
        .iter()
        .skip_while(|l| !l.starts_with("| parameter | alias | default |"))
        .skip(2) // the header and the `|---|` line
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l
                .trim()
                .trim_matches('|')
                .split('|')
                .map(str::trim)
                .collect();
            assert!(cells.len() >= 3, "parameter row `{l}` has too few cells");
            let alias = cells[1].trim_matches('`');
            (
                cells[0].trim_matches('`').to_owned(),
                (!alias.is_empty()).then(|| alias.to_owned()),
                cells[2].trim_matches('`').to_owned(),
            )
        })
        .collect()
}

/// Every difference between the chapter `title` and the registry of `T`.
fn check<T: Plugin + ?Sized>(title: &str) -> Vec<String> {
    let doc = doc();
    let documented = sections(&chapter(&doc, title));
    let registered: Vec<&Descriptor<T>> = registry::descriptors::<T>();
    let mut problems = Vec::new();
    for (name, _) in &documented {
        if !registered.iter().any(|d| d.name == name) {
            problems.push(format!(
                "`{name}` is documented under {title} but not registered"
            ));
        }
    }
    for d in registered {
        let Some((_, lines)) = documented.iter().find(|(name, _)| name == d.name) else {
            problems.push(format!(
                "{title}: `{}` has no section `### `{}``",
                d.name, d.name
            ));
            continue;
        };
        let aliases: Vec<String> = lines
            .iter()
            .find_map(|l| l.strip_prefix("Aliases:"))
            .map(backticked)
            .unwrap_or_else(|| {
                problems.push(format!("`{}`: no `Aliases:` line", d.name));
                Vec::new()
            });
        let expected: Vec<String> = d.aliases.iter().map(|a| (*a).to_owned()).collect();
        if aliases != expected {
            problems.push(format!(
                "`{}`: doc aliases {aliases:?}, registry {expected:?}",
                d.name
            ));
        }
        let params = documented_params(lines);
        let expected: Vec<DocParam> = d
            .params
            .iter()
            .map(|p| {
                (
                    p.name.to_owned(),
                    p.alias.map(str::to_owned),
                    p.default.to_owned(),
                )
            })
            .collect();
        if params != expected {
            problems.push(format!(
                "`{}`: doc parameters {params:?}, registry {expected:?}",
                d.name
            ));
        }
        if expected.is_empty() && !lines.iter().any(|l| l.trim() == "Parameters: none.") {
            problems.push(format!(
                "`{}`: no parameters, but no `Parameters: none.` line",
                d.name
            ));
        }
    }
    problems
}

#[test]
fn every_metric_is_documented_with_its_parameters() {
    let problems = check::<dyn Metric>("Metrics");
    assert!(
        problems.is_empty(),
        "docs/metrics.md:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_aggregator_is_documented_with_its_parameters() {
    let problems = check::<dyn Aggregator>("Aggregators");
    assert!(
        problems.is_empty(),
        "docs/metrics.md:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_parser_reads_a_section() {
    let lines = [
        "Aliases: `p`, `prec`.",
        "| parameter | alias | default | meaning |",
        "|---|---|---|---|",
        "| `k` | | none | cutoff |",
        "| `normalization` | `norm` | `relevant` | divisor |",
    ];
    assert_eq!(backticked(lines[0]), ["p", "prec"]);
    assert_eq!(
        documented_params(&lines),
        [
            ("k".to_owned(), None, "none".to_owned()),
            (
                "normalization".to_owned(),
                Some("norm".to_owned()),
                "relevant".to_owned()
            ),
        ]
    );
}
