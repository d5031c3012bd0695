//! `rankeval ope`'s report ([`rankeval::ope::OpeReport`]): the log, one
//! row per policy and estimator (estimate, standard error, interval and
//! the diagnostics), the refusals, and each candidate against the first
//! policy paired by impression; as aligned text or one JSON document. A
//! refused estimate's value, error and interval are withheld (`refused`,
//! JSON `null`) unless the report allows low support, when they are shown
//! marked `*`.

use std::fmt::Write as _;

use rankeval::ope::OpeReport;
use rankeval::ope::estimators::{Estimate, IntervalKind};

use crate::text;

/// How `rankeval ope` prints its report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OpeFormat {
    /// Aligned text for a terminal.
    #[default]
    Table,
    /// One JSON document (the report's own fields).
    Json,
}

/// `report` in `format`.
pub fn render(report: &OpeReport, format: OpeFormat) -> String {
    match format {
        OpeFormat::Table => {
            let mut out = table(report);
            for g in &report.groups {
                let _ = write!(out, "\ngroup {}={}: ", g.column, g.value);
                out.push_str(&table(&g.report));
            }
            out
        }
        OpeFormat::Json => crate::json::document_text(&withheld(report)),
    }
}

/// `report` with every refused estimate's value, error and interval NaN
/// (JSON `null`), and its comparisons', unless it allows low support.
fn withheld(report: &OpeReport) -> OpeReport {
    let mut out = report.clone();
    if report.allow_low_support {
        return out;
    }
    for policy in &mut out.policies {
        for e in &mut policy.estimates {
            if e.is_refused() {
                e.value = f64::NAN;
                e.standard_error = f64::NAN;
                e.interval.lower = f64::NAN;
                e.interval.upper = f64::NAN;
            }
        }
    }
    for g in &mut out.groups {
        g.report = withheld(&g.report);
    }
    for c in &mut out.comparisons {
        if c.refused {
            c.paired.difference = f64::NAN;
            c.paired.standard_error = f64::NAN;
            c.paired.interval.lower = f64::NAN;
            c.paired.interval.upper = f64::NAN;
            c.paired.p_value = f64::NAN;
        }
    }
    out
}

/// A number with 4 decimals (`-` when not a number).
fn num(x: f64) -> String {
    if x.is_nan() {
        "-".into()
    } else {
        format!("{x:.4}")
    }
}

/// The interval's name: `95% normal` or `95% t`.
fn interval_name(report: &OpeReport) -> String {
    let kind = match report.interval {
        IntervalKind::Normal => "normal",
        IntervalKind::T => "t",
        IntervalKind::Bootstrap => "bootstrap",
    };
    format!("{}% {kind}", report.level * 100.0)
}

fn table(report: &OpeReport) -> String {
    let log = &report.log;
    let mut out = format!(
        "log: {} ({} impressions, {} item{} each, propensities of the form `{}`, one reward per {})\n\n",
        log.name,
        log.impressions,
        log.slate_len,
        if log.slate_len == 1 { "" } else { "s" },
        log.form,
        log.reward
    );
    if let Some(r) = &report.resampling {
        out.push_str(&format!(
            "intervals: percentile bootstrap of the impressions, {} resamples, seed {} ({})\n\n",
            r.resamples, r.seed, r.generator
        ));
    }
    if let Some(m) = &report.sampling {
        // The Monte Carlo's seed printed: the run can be repeated.
        out.pop();
        let _ = writeln!(
            out,
            "Plackett-Luce marginals: {} orderings drawn per impression, seed {} ({})\n",
            m.samples, m.seed, m.generator
        );
    }
    let header = [
        "policy",
        "estimator",
        "estimate",
        "std.err",
        &format!("{} interval", interval_name(report)),
        "n",
        "ess",
        "max weight",
        "support",
        "clipped",
    ]
    .map(str::to_owned)
    .to_vec();
    let mut rows = vec![header];
    let shown = |e: &Estimate| !e.is_refused() || report.allow_low_support;
    for policy in &report.policies {
        for e in &policy.estimates {
            let d = &e.diagnostics;
            let (value, error, interval) = if shown(e) {
                let mark = if e.is_refused() { "*" } else { "" };
                (
                    format!("{}{mark}", num(e.value)),
                    num(e.standard_error),
                    format!("[{}, {}]", num(e.interval.lower), num(e.interval.upper)),
                )
            } else {
                ("refused".into(), "-".into(), "-".into())
            };
            rows.push(vec![
                policy.name.clone(),
                e.estimator.clone(),
                value,
                error,
                interval,
                d.n.to_string(),
                format!("{:.1}", d.ess),
                format!("{:.3}", d.max_weight),
                format!("{:.3}", d.support),
                d.clipped.to_string(),
            ]);
        }
    }
    out.push_str(&text::aligned(&rows, &[true, true, false, false, true]));
    let refused: Vec<(&str, &Estimate)> = report
        .policies
        .iter()
        .flat_map(|p| p.estimates.iter().map(move |e| (p.name.as_str(), e)))
        .filter(|(_, e)| e.is_refused())
        .collect();
    if !refused.is_empty() {
        let _ = writeln!(
            out,
            "\n{}; floors: n >= {}, effective sample size >= {}, support >= {}:",
            if report.allow_low_support {
                "low support (shown with *, as allowed)"
            } else {
                "refused"
            },
            report.floors.min_n,
            report.floors.min_ess,
            report.floors.min_support
        );
        for (policy, e) in refused {
            for r in &e.refusals {
                let _ = writeln!(out, "  {policy} {}: {r}", e.estimator);
            }
        }
    }
    if !report.comparisons.is_empty() {
        let base = &report.comparisons[0].baseline;
        let _ = writeln!(out, "\npaired by impression, against `{base}`:");
        if let (true, Some(name)) = (report.groups_in_family, report.correction) {
            let _ = writeln!(
                out,
                "p ({name}): corrected over each estimator's comparisons on the whole log and on \
                 every group"
            );
        }
        let mut header = [
            "candidate",
            "estimator",
            "difference",
            "std.err",
            &format!("{} interval", interval_name(report)),
            "p-value",
        ]
        .map(str::to_owned)
        .to_vec();
        if let Some(name) = report.correction {
            header.push(format!("p ({name})"));
        }
        let mut rows = vec![header];
        let p_text = |p: f64| {
            if p < 1e-4 {
                "<0.0001".to_owned()
            } else {
                num(p)
            }
        };
        for c in &report.comparisons {
            let p = &c.paired;
            if c.refused && !report.allow_low_support {
                let mut row = vec![
                    c.candidate.clone(),
                    c.estimator.clone(),
                    "refused".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                ];
                if report.correction.is_some() {
                    row.push("-".into());
                }
                rows.push(row);
            } else {
                let mut row = vec![
                    c.candidate.clone(),
                    c.estimator.clone(),
                    format!("{}{}", num(p.difference), if c.refused { "*" } else { "" }),
                    num(p.standard_error),
                    format!("[{}, {}]", num(p.interval.lower), num(p.interval.upper)),
                    p_text(p.p_value),
                ];
                if report.correction.is_some() {
                    row.push(c.corrected_p_value.map_or_else(|| "-".to_owned(), p_text));
                }
                rows.push(row);
            }
        }
        out.push_str(&text::aligned(
            &rows,
            &[true, true, false, false, true, false, false],
        ));
    }
    if !report.gates.is_empty() {
        out.push_str("\ngates:\n");
        for g in &report.gates {
            let line = match (&g.outcome, &g.undecided) {
                (Some(o), _) => format!(
                    "{} {} on `{}`: {} {} (needs {} {})",
                    if o.passed { "PASS" } else { "FAIL" },
                    g.gate,
                    g.policy,
                    match o.quantity {
                        rankeval_stats::Quantity::Mean => "estimate",
                        rankeval_stats::Quantity::LowerBound => "the difference's lower bound",
                        rankeval_stats::Quantity::CorrectedPValue => "p-value",
                        rankeval_stats::Quantity::Difference => "difference",
                    },
                    num(o.value),
                    match o.relation {
                        rankeval_stats::Relation::AtLeast => ">=",
                        rankeval_stats::Relation::Above => ">",
                        rankeval_stats::Relation::Below => "<",
                    },
                    num(o.threshold)
                ),
                (None, why) => format!(
                    "UNDECIDED {} on `{}`: {}",
                    g.gate,
                    g.policy,
                    why.as_deref().unwrap_or("")
                ),
            };
            let _ = writeln!(out, "  {line}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use rankeval::core::{Duplicates, Interner, RunBuilder};
    use rankeval::ope::estimators::{Floors, Options};
    use rankeval::ope::{
        Candidate, Impression, ImpressionLog, OpeEstimator, OpePlan, RowAt, TargetPolicy,
        ope_report,
    };

    use super::*;

    /// Eight impressions of one context, items `a` (p = 0.5) and `b`; a
    /// target that shows `a`, another that shows `b`.
    fn report(allow_low_support: bool) -> OpeReport {
        let mut log = ImpressionLog {
            ids: Interner::new(),
            slate_len: 1,
            ..ImpressionLog::default()
        };
        let context = log.ids.intern(b"q");
        for n in 0..8u64 {
            let item = log.ids.intern(if n % 2 == 0 { b"a" } else { b"b" });
            let id = log.ids.intern(n.to_string().as_bytes());
            log.impressions.push(Impression {
                context,
                id,
                items: vec![item],
                rewards: vec![f64::from(u8::from(n % 3 == 0))],
                propensities: vec![0.5],
                target: None,
                at: RowAt::Line(n + 2),
            });
        }
        let run = |first: &str, second: &str| {
            let mut b = RunBuilder::new();
            b.push_scored("q", first, 2.0).unwrap();
            b.push_scored("q", second, 1.0).unwrap();
            TargetPolicy::Ranking(b.finish(Duplicates::Error).unwrap())
        };
        let candidates = [
            Candidate {
                name: "a_first".into(),
                policy: run("a", "b"),
            },
            Candidate {
                name: "b_first".into(),
                policy: run("b", "a"),
            },
        ];
        let plan = OpePlan {
            estimators: vec![
                OpeEstimator::parse("ips").unwrap(),
                OpeEstimator::parse("snips").unwrap(),
            ],
            options: Options {
                floors: Floors {
                    min_n: 5,
                    min_ess: 3.0,
                    min_support: 0.5,
                },
                ..Options::default()
            },
            allow_unlogged: false,
            allow_low_support,
            model: None,
            sampling: None,
            gates: Vec::new(),
            resampling: None,
            correction: None,
        };
        let mut report = ope_report(&log, "log.csv", &candidates, &plan).unwrap();
        // Refuse the second policy's SNIPS by a floor of its own, to show
        // both kinds of row.
        let floors = Floors {
            min_n: 10,
            ..plan.options.floors
        };
        let e = &mut report.policies[1].estimates[1];
        e.refusals = e.diagnostics.refusals(&floors);
        report.comparisons[1].refused = true;
        report
    }

    #[test]
    fn table_withholds_a_refused_estimate() {
        insta::assert_snapshot!(render(&report(false), OpeFormat::Table));
    }

    #[test]
    fn table_marks_a_refused_estimate_when_allowed() {
        insta::assert_snapshot!(render(&report(true), OpeFormat::Table));
    }

    #[test]
    fn json_nulls_a_refused_estimate() {
        let text = render(&report(false), OpeFormat::Json);
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let refused = &doc["policies"][1]["estimates"][1];
        assert!(refused["value"].is_null() && refused["interval"]["lower"].is_null());
        assert!(doc["policies"][0]["estimates"][0]["value"].is_number());
        assert!(doc["comparisons"][1]["paired"]["difference"].is_null());
        insta::assert_snapshot!(text);
    }
}
