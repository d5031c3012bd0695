//! Reports with a comparison: each format shows the means with, for every
//! run compared with the baseline, the difference, its confidence interval
//! and a significance mark; then every comparison's numbers, where they
//! come from (test, correction, resamples, seed), how queries were paired,
//! and the gates.
//!
//! * table and markdown: the summary with the comparison in each cell, a
//!   table of the comparisons, the provenance, the pairing notes and the
//!   gate checklist (markdown: `- [x]` items to paste in a pull request);
//! * json: the usual document plus a `comparison` object, the
//!   [`ComparisonReport`] as it is;
//! * csv: one row per comparison with every number and the provenance;
//! * latex: a booktabs table, runs as rows and metrics as columns, each
//!   value with superscripts naming the runs it is significantly better
//!   than (as ranx prints it), the best value of each metric in bold;
//! * html: the page's [`Comparison`](super::html::Comparison) filled in.

use std::fmt::Write as _;

use super::html::{self, GateResult, HtmlExtras, SummaryColumn};
use super::{
    OutputFormat, Render, RenderOptions, Report, csv, fixed, json, markdown, per_query_rows, table,
};
use rankeval::compare::{
    BaselineSource, Compared, ComparisonCell, ComparisonReport, GateCheck, quantity_name,
};
use rankeval_stats::{Correction, IntervalMethod, Relation};

/// The report in `format` with its comparison. `--format trec` has no
/// place for one: it prints the report alone (the caller warns).
pub fn render_compared(
    compared: &Compared,
    format: OutputFormat,
    options: RenderOptions,
) -> String {
    match format {
        OutputFormat::Table => text(compared, options, false),
        OutputFormat::Markdown => text(compared, options, true),
        OutputFormat::Json => json::render_with(
            &compared.report,
            options,
            serde_json::to_value(&compared.comparison).ok(),
        ),
        OutputFormat::Csv => csv_rows(&compared.comparison),
        OutputFormat::Latex => latex(
            &compared.report,
            Some((&compared.comparison, compared.baseline)),
        ),
        OutputFormat::Trec => compared.report.render(format, options),
        OutputFormat::Html => html::render(
            &compared.report,
            options,
            HtmlExtras {
                comparison: Some(&html_comparison(compared)),
                ..HtmlExtras::default()
            },
        ),
    }
}

/// A signed value with 4 decimals; NaN is "NaN".
fn signed(value: f64) -> String {
    if value.is_nan() {
        "NaN".to_owned()
    } else {
        format!("{value:+.4}")
    }
}

/// A p-value: 4 decimals, or 2 significant digits below 0.0001.
pub(crate) fn p_value(p: f64) -> String {
    if p > 0.0 && p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

fn interval(cell: &ComparisonCell) -> String {
    match &cell.result {
        Some(r) => format!(
            "[{}, {}]",
            signed(r.interval.lower),
            signed(r.interval.upper)
        ),
        None => String::new(),
    }
}

/// The row of each metric's comparison: the `mean` aggregate's, else the
/// first aggregator's.
fn comparison_row(report: &Report) -> usize {
    report
        .aggregators
        .iter()
        .position(|a| a == "mean")
        .unwrap_or(0)
}

/// The summary rows with, in each compared run's cell of the comparison
/// row, the difference, the interval and the mark.
fn summary(compared: &Compared, alpha: f64) -> Vec<Vec<String>> {
    let report = &compared.report;
    let mut rows = super::summary_rows(report);
    let Some(baseline) = compared.baseline else {
        return rows;
    };
    let row = comparison_row(report);
    for (m, metric) in report.metrics.iter().enumerate() {
        let cells = &mut rows[2 + m * report.aggregators.len() + row];
        for (r, run) in report.runs.iter().enumerate() {
            if r == baseline {
                continue;
            }
            if let Some(cell) = compared.comparison.cell(&run.name, &metric.name) {
                let text = &mut cells[1 + r];
                match &cell.result {
                    Some(result) => {
                        let _ = write!(
                            text,
                            " {} {}{}",
                            signed(result.summary.difference),
                            interval(cell),
                            if cell.significant(alpha) { " *" } else { "" }
                        );
                    }
                    None => text.push_str(" (not compared)"),
                }
            }
        }
    }
    rows
}

/// One row per comparison: metric, run, baseline, difference, interval,
/// p, corrected p, effect size, wins / ties / losses.
fn details(c: &ComparisonReport) -> Vec<Vec<String>> {
    details_of(c, &c.comparisons)
}

/// The comparison table of `cells` (the whole run's, or a group's), with
/// the provenance of `c`.
fn details_of(c: &ComparisonReport, cells: &[ComparisonCell]) -> Vec<Vec<String>> {
    let level = format!("{}% CI", c.provenance.level * 100.0);
    let corrected = if c.baseline.is_none() {
        "p (adjusted)".to_owned()
    } else {
        format!("p ({})", c.provenance.correction.name())
    };
    let mut rows = vec![
        [
            "metric",
            "run",
            "vs",
            "difference",
            &level,
            "p",
            &corrected,
            "d_z",
            "W/T/L",
        ]
        .map(str::to_owned)
        .to_vec(),
    ];
    for cell in cells {
        let mut row = vec![cell.metric.clone(), cell.run.clone(), cell.baseline.clone()];
        match &cell.result {
            Some(r) => {
                let mark = if cell.significant(c.provenance.alpha) {
                    " *"
                } else {
                    ""
                };
                row.extend([
                    signed(r.summary.difference),
                    interval(cell),
                    p_value(r.p_value),
                    format!("{}{mark}", p_value(r.corrected_p_value)),
                    r.summary
                        .effect_size
                        .map_or_else(|| "-".to_owned(), |d| format!("{d:+.2}")),
                    format!(
                        "{}/{}/{}",
                        r.summary.outcomes.wins, r.summary.outcomes.ties, r.summary.outcomes.losses
                    ),
                ]);
            }
            None => row.push(format!(
                "not compared: {}",
                cell.error.as_deref().unwrap_or("no numbers")
            )),
        }
        rows.push(row);
    }
    rows
}

/// What the numbers are, in a sentence or two.
fn provenance(c: &ComparisonReport) -> Vec<String> {
    let p = &c.provenance;
    let mut lines = Vec::new();
    let baseline = match &c.baseline {
        None => "none: every pair of runs".to_owned(),
        Some(b) => match &b.source {
            BaselineSource::Run { .. } => format!("{} (a run)", b.name),
            BaselineSource::Results { path } => format!("{} (results file {path})", b.name),
        },
    };
    lines.push(format!("baseline: {baseline}"));
    let test = match p.test {
        "t" => "Student's paired t-test",
        "randomization" => "paired randomization (sign-flip) test",
        "bootstrap" => "paired bootstrap (shifted-bootstrap p-value)",
        "wilcoxon" => "Wilcoxon signed-rank test",
        "randomization_keyed" => "paired randomization (sign-flip) test, signs keyed by query id",
        "bootstrap_keyed" => {
            "paired bootstrap, double-or-nothing weights keyed by query id (shifted-bootstrap p-value)"
        }
        "randomized_tukey_hsd_keyed" => {
            "randomized Tukey HSD, permutations keyed by query id (p-values adjusted over each metric's pairs)"
        }
        _ => "randomized Tukey HSD (p-values adjusted over each metric's pairs)",
    };
    let jackknife;
    let interval = match p.interval_method {
        IntervalMethod::StudentT => "t interval",
        IntervalMethod::BootstrapPercentile => "bootstrap percentile interval",
        IntervalMethod::Jackknife => {
            jackknife = format!(
                "delete-a-group jackknife interval ({} groups of queries by id hash)",
                p.jackknife_groups
                    .unwrap_or(rankeval_stats::keyed::DEFAULT_GROUPS)
            );
            jackknife.as_str()
        }
    };
    let mut line = format!(
        "test: {test}; {}% {interval}; {}",
        p.level * 100.0,
        if p.correction == Correction::None {
            "no correction".to_owned()
        } else {
            format!(
                "{} correction over {} ({} {}, largest {})",
                p.correction.name(),
                p.family.name(),
                p.families,
                if p.families == 1 {
                    "family"
                } else {
                    "families"
                },
                p.family_size
            )
        }
    );
    let _ = write!(line, "; * corrected p < {}", p.alpha);
    lines.push(line);
    if !c.groups.is_empty() {
        lines.push(format!(
            "groups: {} groups of queries, each compared on its own queries and {}",
            c.groups.len(),
            if p.groups_in_family {
                "corrected together with the whole runs' comparisons (in the families above)"
            } else {
                "corrected as families of its own (the same test and family)"
            }
        ));
    }
    if let (Some(resamples), Some(seed)) = (p.resamples, p.seed) {
        lines.push(format!(
            "resamples: {resamples}, seed {seed}, generator {}{}",
            p.rng.unwrap_or(""),
            match (p.exact_up_to, p.bootstrap, p.multinomial_up_to) {
                (Some(n), _, _) => format!("; exact enumeration up to {n} queries"),
                (None, Some(_), Some(n)) => format!(
                    "; bootstrap auto: multinomial up to {n} queries, double-or-nothing above"
                ),
                (None, Some(method), None) => format!("; bootstrap {}", method.name()),
                (None, None, _) => String::new(),
            }
        ));
    }
    let mut seen = Vec::new();
    for cell in &c.comparisons {
        let pairing = &cell.pairing;
        if pairing.unmatched == 0 || seen.contains(&(&cell.baseline, &cell.run)) {
            continue;
        }
        seen.push((&cell.baseline, &cell.run));
        lines.push(format!(
            "pairing: {} vs {}: {} {} not in both, {} (missing = {}): {}{}",
            cell.run,
            cell.baseline,
            pairing.unmatched,
            if pairing.unmatched == 1 {
                "query"
            } else {
                "queries"
            },
            match pairing.missing {
                rankeval::engine::Missing::Skip => "left out",
                rankeval::engine::Missing::Zero => "scored 0 where absent",
            },
            match pairing.missing {
                rankeval::engine::Missing::Skip => "skip",
                rankeval::engine::Missing::Zero => "zero",
            },
            pairing.unmatched_examples.join(", "),
            if pairing.unmatched > pairing.unmatched_examples.len() {
                ", ..."
            } else {
                ""
            }
        ));
    }
    lines.push(format!("rankeval {}", p.rankeval_version));
    lines
}

/// Why a gate passed or failed: the deciding number against its threshold.
pub fn gate_detail(gate: &GateCheck) -> String {
    match (&gate.outcome, &gate.error) {
        (_, Some(error)) => format!("cannot be decided: {error}"),
        (Some(o), None) => {
            let relation = match (o.relation, o.passed) {
                (Relation::AtLeast, true) => ">=",
                (Relation::AtLeast, false) => "<",
                (Relation::Above, true) => ">",
                (Relation::Above, false) => "<=",
                (Relation::Below, true) => "<",
                (Relation::Below, false) => ">=",
            };
            let number = |v: f64| {
                if o.quantity == rankeval_stats::Quantity::CorrectedPValue {
                    p_value(v)
                } else {
                    format!("{v:.4}")
                }
            };
            format!(
                "{} {} {relation} {}",
                quantity_name(o.quantity),
                number(o.value),
                number(o.threshold)
            )
        }
        (None, None) => String::new(),
    }
}

fn verdict(gate: &GateCheck) -> &'static str {
    match (gate.passed, gate.error.is_some()) {
        (true, _) => "PASS",
        (false, false) => "FAIL",
        (false, true) => "UNDECIDED",
    }
}

fn text(compared: &Compared, options: RenderOptions, markdown: bool) -> String {
    let c = &compared.comparison;
    let render_table = |rows: &[Vec<String>]| {
        if markdown {
            markdown::table(rows)
        } else {
            table::aligned(rows)
        }
    };
    let mut out = render_table(&summary(compared, c.provenance.alpha));
    out.push('\n');
    if markdown {
        out.push_str("#### Comparisons\n\n");
    }
    out.push_str(&render_table(&details(c)));
    out.push('\n');
    let table = compared.report.group_table();
    let rows: std::collections::HashMap<(&str, &str), &rankeval::report::GroupRow<'_>> = table
        .iter()
        .map(|row| ((row.column.as_str(), row.value.as_str()), row))
        .collect();
    for group in &c.groups {
        if markdown {
            let _ = writeln!(
                out,
                "#### {}\n",
                markdown::escape(&format!("{}={}", group.column, group.value))
            );
        }
        if let Some(row) = rows.get(&(group.column.as_str(), group.value.as_str())) {
            out.push_str(&render_table(&super::group_rows(&compared.report, row)));
        }
        out.push('\n');
        out.push_str(&render_table(&details_of(c, &group.comparisons)));
        out.push('\n');
    }
    for line in provenance(c) {
        if markdown {
            let _ = writeln!(out, "- {}", markdown::escape(&line));
        } else {
            out.push_str(&line);
            out.push('\n');
        }
    }
    if !c.gates.is_empty() {
        let failed = c.gates.iter().filter(|g| !g.passed).count();
        let summary = format!("gates: {} passed, {failed} failed", c.gates.len() - failed);
        if markdown {
            let _ = writeln!(
                out,
                "\n#### Gates: {} of {} passed\n",
                c.gates.len() - failed,
                c.gates.len()
            );
            for gate in &c.gates {
                let _ = writeln!(
                    out,
                    "- [{}] **{}** `{}` `{}`: {}",
                    if gate.passed { "x" } else { " " },
                    verdict(gate),
                    markdown::escape(&gate.run),
                    gate.gate,
                    markdown::escape(&gate_detail(gate))
                );
            }
        } else {
            let _ = writeln!(out, "\n{summary}");
            let rows: Vec<Vec<String>> = c
                .gates
                .iter()
                .map(|g| {
                    vec![
                        verdict(g).to_owned(),
                        g.run.clone(),
                        g.gate.clone(),
                        gate_detail(g),
                    ]
                })
                .collect();
            out.push_str(&left_aligned(&rows));
        }
    }
    if options.per_query {
        for run in &compared.report.runs {
            if markdown {
                let _ = write!(
                    out,
                    "\n#### {} (per query)\n\n",
                    markdown::escape(&run.name)
                );
            } else {
                let _ = writeln!(out, "\n{} (per query)", run.name);
            }
            out.push_str(&render_table(&per_query_rows(&compared.report, run)));
        }
    }
    out
}

/// Rows of text, every column left-aligned, indented by two spaces.
fn left_aligned(rows: &[Vec<String>]) -> String {
    use unicode_width::UnicodeWidthStr;
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
        let mut line = String::from(" ");
        for (c, cell) in row.iter().enumerate() {
            line.push(' ');
            line.push_str(cell);
            line.push_str(&" ".repeat(widths[c].saturating_sub(cell.width())));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// One CSV row per comparison.
fn csv_rows(c: &ComparisonReport) -> String {
    let p = &c.provenance;
    let mut out = String::new();
    let header = [
        "metric",
        "run",
        "baseline",
        "queries",
        "baseline_mean",
        "run_mean",
        "difference",
        "ci_lower",
        "ci_upper",
        "level",
        "p_value",
        "corrected_p_value",
        "significant",
        "effect_size",
        "wins",
        "ties",
        "losses",
        "unmatched",
        "missing",
        "test",
        "correction",
        "family_size",
        "resamples",
        "seed",
        "error",
    ];
    let grouped = !c.groups.is_empty();
    let mut header: Vec<String> = header.map(str::to_owned).to_vec();
    if grouped {
        header.push("group".to_owned());
    }
    csv::line(&mut out, &header);
    let optional = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
    // The whole run's comparisons (group empty), then each group's.
    let cells = c
        .comparisons
        .iter()
        .map(|cell| (String::new(), cell))
        .chain(c.groups.iter().flat_map(|g| {
            g.comparisons
                .iter()
                .map(move |cell| (format!("{}={}", g.column, g.value), cell))
        }));
    for (group, cell) in cells {
        let mut row = vec![cell.metric.clone(), cell.run.clone(), cell.baseline.clone()];
        match &cell.result {
            Some(r) => row.extend([
                r.summary.queries.to_string(),
                csv::number(r.summary.baseline_mean),
                csv::number(r.summary.candidate_mean),
                csv::number(r.summary.difference),
                csv::number(r.interval.lower),
                csv::number(r.interval.upper),
                csv::number(r.interval.level),
                csv::number(r.p_value),
                csv::number(r.corrected_p_value),
                cell.significant(p.alpha).to_string(),
                r.summary.effect_size.map(csv::number).unwrap_or_default(),
                r.summary.outcomes.wins.to_string(),
                r.summary.outcomes.ties.to_string(),
                r.summary.outcomes.losses.to_string(),
            ]),
            None => row.extend(std::iter::repeat_n(String::new(), 14)),
        }
        row.extend([
            cell.pairing.unmatched.to_string(),
            match cell.pairing.missing {
                rankeval::engine::Missing::Skip => "skip".to_owned(),
                rankeval::engine::Missing::Zero => "zero".to_owned(),
            },
            p.test.to_owned(),
            p.correction.name().to_owned(),
            p.family_size.to_string(),
            optional(p.resamples),
            optional(p.seed),
            cell.error.clone().unwrap_or_default(),
        ]);
        if grouped {
            row.push(group);
        }
        csv::line(&mut out, &row);
    }
    out
}

/// LaTeX special characters escaped for text mode.
pub(crate) fn tex(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            _ => out.push(c),
        }
    }
    out
}

/// A booktabs table: runs as rows (each with a letter), metrics as columns,
/// each value with superscript letters of the runs it is significantly
/// better than; the best value of each column in bold.
pub(super) fn latex(
    report: &Report,
    comparison: Option<(&ComparisonReport, Option<usize>)>,
) -> String {
    let mut out = latex_runs(report, comparison);
    out.push_str(&latex_groups(report));
    out
}

/// A tabular's opening and header row: the columns `first` (then one
/// right-aligned column per metric), the header `names` then the metrics'.
fn latex_head(out: &mut String, report: &Report, first: &str, names: &str) {
    let _ = writeln!(
        out,
        "\\begin{{tabular}}{{{first}{}}}\n\\toprule",
        "r".repeat(report.metrics.len())
    );
    let _ = writeln!(
        out,
        "{names} & {} \\\\\n\\midrule",
        report
            .metrics
            .iter()
            .map(|m| tex(&m.name))
            .collect::<Vec<_>>()
            .join(" & ")
    );
}

/// One booktabs table per group of queries (`--groups`): each run's mean
/// over the group's queries (with its interval when `ci` is asked for),
/// runs as rows, metrics as columns.
fn latex_groups(report: &Report) -> String {
    let row = comparison_row(report);
    let bounds_row = latex_bounds_row(report, row);
    let mut out = String::new();
    for group in report.group_table() {
        let (column, value) = (&group.column, &group.value);
        out.push_str("\\begin{table}[t]\n\\centering\n");
        latex_head(&mut out, report, "lr", "Run & Queries");
        for (run, group) in report.runs.iter().zip(&group.runs) {
            let group = *group;
            let mut cells = vec![
                tex(&run.name),
                group.map_or(0, |g| g.queries.len()).to_string(),
            ];
            for m in 0..report.metrics.len() {
                cells.push(match group {
                    None => "--".to_owned(),
                    Some(g) => {
                        let mut text = fixed(g.aggregates[m][row]);
                        text.push_str(&latex_bounds(bounds_row.and_then(|a| g.interval(m, a))));
                        text
                    }
                });
            }
            let _ = writeln!(out, "{} \\\\", cells.join(" & "));
        }
        let _ = writeln!(
            out,
            "\\bottomrule\n\\end{{tabular}}\n\\caption{{The queries of group {}: means{}.}}\n\\end{{table}}",
            tex(&format!("{column}={value}")),
            if bounds_row.is_some() {
                "; in brackets, the confidence interval of the mean"
            } else {
                ""
            }
        );
    }
    out
}

/// The aggregator whose bounds LaTeX prints beside the value of `row`: the
/// first with an interval (`ci`, whose value is the mean), when `row` is
/// it or the mean.
fn latex_bounds_row(report: &Report, row: usize) -> Option<usize> {
    (0..report.aggregators.len())
        .find(|&a| report.has_interval(a))
        .filter(|&a| a == row || report.aggregators[row] == "mean")
}

/// ` {\scriptsize [lo, hi]}` for finite bounds, else nothing.
fn latex_bounds(bounds: Option<rankeval_core::Bounds>) -> String {
    match bounds.filter(|b| b.lower.is_finite() && b.upper.is_finite()) {
        Some(b) => format!(" {{\\scriptsize [{}, {}]}}", fixed(b.lower), fixed(b.upper)),
        None => String::new(),
    }
}

/// The runs' table (see [`latex`]).
fn latex_runs(report: &Report, comparison: Option<(&ComparisonReport, Option<usize>)>) -> String {
    let row = comparison_row(report);
    let bounds_row = latex_bounds_row(report, row);
    let letter = |r: usize| {
        let mut s = String::new();
        let mut n = r;
        loop {
            s.insert(0, (b'a' + (n % 26) as u8) as char);
            if n < 26 {
                break;
            }
            n = n / 26 - 1;
        }
        s
    };
    let index = |name: &str| report.runs.iter().position(|r| r.name == name);
    // beats[m][r]: the runs run r is significantly better than on metric m.
    let mut beats = vec![vec![Vec::new(); report.runs.len()]; report.metrics.len()];
    let cells: &[ComparisonCell] = comparison.map_or(&[], |(c, _)| &c.comparisons);
    let alpha = comparison.map_or(0.0, |(c, _)| c.provenance.alpha);
    let baseline_index = |cell: &ComparisonCell| match comparison {
        Some((c, Some(b))) if c.baseline.is_some() => Some(b),
        _ => index(&cell.baseline),
    };
    for cell in cells {
        let (Some(m), Some(r), Some(b), Some(result)) = (
            report.metrics.iter().position(|m| m.name == cell.metric),
            index(&cell.run),
            baseline_index(cell),
            &cell.result,
        ) else {
            continue;
        };
        if !cell.significant(alpha) {
            continue;
        }
        if result.summary.difference > 0.0 {
            beats[m][r].push(b);
        } else if result.summary.difference < 0.0 {
            beats[m][b].push(r);
        }
    }
    let mut out = String::new();
    out.push_str("% rankeval: \\usepackage{booktabs}\n\\begin{table}[t]\n\\centering\n");
    latex_head(&mut out, report, "ll", "\\# & Run");
    for (r, run) in report.runs.iter().enumerate() {
        let mut cells = vec![letter(r), tex(&run.name)];
        for (m, _) in report.metrics.iter().enumerate() {
            let value = run.aggregates[m][row];
            let best = report
                .runs
                .iter()
                .map(|x| x.aggregates[m][row])
                .filter(|v| !v.is_nan())
                .fold(f64::NEG_INFINITY, f64::max);
            let mut text = fixed(value);
            if value == best {
                text = format!("\\textbf{{{text}}}");
            }
            let mut letters: Vec<usize> = beats[m][r].clone();
            letters.sort_unstable();
            letters.dedup();
            if !letters.is_empty() {
                let _ = write!(
                    text,
                    "$^{{{}}}$",
                    letters.iter().map(|&x| letter(x)).collect::<String>()
                );
            }
            text.push_str(&latex_bounds(bounds_row.and_then(|a| run.interval(m, a))));
            cells.push(text);
        }
        let _ = writeln!(out, "{} \\\\", cells.join(" & "));
    }
    let brackets = bounds_row.map_or_else(String::new, |a| {
        format!(
            "; in brackets, the confidence interval of the mean ({})",
            tex(&report.aggregators[a])
        )
    });
    let Some((c, _)) = comparison else {
        let _ = writeln!(
            out,
            "\\bottomrule\n\\end{{tabular}}\n\\caption{{Means{brackets}; bold: the best value \
             of each metric.}}\n\\end{{table}}"
        );
        return out;
    };
    let p = &c.provenance;
    let _ = writeln!(
        out,
        "\\bottomrule\n\\end{{tabular}}\n\\caption{{{}. Superscripts: the runs a value is \
         significantly better than ({}, {} correction, corrected $p < {}$){}; bold: the best \
         value of each metric{}.}}\n\\end{{table}}",
        match &c.baseline {
            Some(b) => format!("Compared with {}", tex(&b.name)),
            None => "Every pair of runs compared".to_owned(),
        },
        tex(p.test),
        tex(p.correction.name()),
        p.alpha,
        match (p.resamples, p.seed) {
            (Some(n), Some(seed)) => format!(", {n} resamples, seed {seed}"),
            _ => String::new(),
        },
        brackets
    );
    out
}

/// The HTML page's comparison: the baseline, the difference, interval and
/// p-value columns, the gates.
pub fn html_comparison(compared: &Compared) -> html::Comparison {
    let report = &compared.report;
    let c = &compared.comparison;
    let rows = report.metrics.len() * report.aggregators.len();
    let row = comparison_row(report);
    let column = |title: String, value: &dyn Fn(&ComparisonCell) -> String| SummaryColumn {
        title,
        cells: (0..rows)
            .map(|i| {
                let (m, a) = (i / report.aggregators.len(), i % report.aggregators.len());
                report
                    .runs
                    .iter()
                    .map(|run| {
                        if a != row {
                            return String::new();
                        }
                        c.cell(&run.name, &report.metrics[m].name)
                            .map(value)
                            .unwrap_or_default()
                    })
                    .collect()
            })
            .collect(),
    };
    let columns = if compared.baseline.is_some() {
        vec![
            column("Δ vs baseline".into(), &|cell| {
                cell.result
                    .as_ref()
                    .map(|r| signed(r.summary.difference))
                    .unwrap_or_default()
            }),
            column(format!("{}% CI", c.provenance.level * 100.0), &interval),
            column(format!("p ({})", c.provenance.correction.name()), &|cell| {
                cell.result
                    .as_ref()
                    .map(|r| {
                        format!(
                            "{}{}",
                            p_value(r.corrected_p_value),
                            if cell.significant(c.provenance.alpha) {
                                " *"
                            } else {
                                ""
                            }
                        )
                    })
                    .unwrap_or_default()
            }),
        ]
    } else {
        Vec::new()
    };
    html::Comparison {
        baseline: compared.baseline.unwrap_or(0),
        columns,
        gates: c
            .gates
            .iter()
            .map(|g| GateResult {
                name: format!("{} {}", g.run, g.gate),
                passed: g.passed,
                detail: gate_detail(g),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{sample, sample_with_intervals};
    use super::*;

    #[test]
    fn latex_has_a_table_per_group() {
        let text = latex(&super::super::tests::sample_with_groups(), None);
        assert_eq!(text.matches("\\begin{table}").count(), 3, "{text}");
        assert!(text.contains("The queries of group segment=tail"), "{text}");
        // v2 has no query in the tail group.
        assert!(text.contains("v2 & 0 & -- & -- & -- & --"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn latex_shows_the_interval_beside_the_mean() {
        let text = latex(&sample_with_intervals(), None);
        assert!(
            text.contains("0.3750 {\\scriptsize [0.2500, 0.6250]}"),
            "{text}"
        );
        assert!(text.contains("in brackets, the confidence interval of the mean (ci)"));
        insta::assert_snapshot!(text);
        let plain = latex(&sample(&["mean"]), None);
        assert!(
            !plain.contains("scriptsize") && !plain.contains("brackets"),
            "{plain}"
        );
    }
}
