//! Gates on a group of contexts (`--gate "snips[segment=tail]:non_inferior(margin=0.01)"`,
//! the grammar of `eval`'s gates on groups of queries, docs/compare.md):
//! each decided on its group's report (`--groups`), the group's estimates
//! and paired comparisons, under the rules of the gates on the whole log;
//! its results join the whole report's gates, so a failed one exits 1 and
//! an undecided one (a refused estimate of the group) 2. A gate on a
//! group no context of the log is in, or without the groups, is an error
//! that lists the groups there are.
//!
//! By default each report's comparisons (the whole log's, each group's)
//! are corrected as families of their own, per estimator, as `eval`'s
//! groups are; with `--groups-in-family` ([`correct_together`]) an
//! estimator's family is its comparisons on the whole log and on every
//! group, so that a search over the slices pays for each slice looked at.

use rankeval_stats::Correction;

use crate::compare::GateSpec;

use super::{OpeGroup, OpePlan, OpeReport, OpeRunError, correct_comparisons, decide_gates};

/// Decides `gates` (each on a group) on `report`'s groups, read from
/// `groups` (none given: an error for any gate), and adds their results
/// to the report's gates.
pub(super) fn decide(
    report: &mut OpeReport,
    plan: &OpePlan,
    gates: &[GateSpec],
    groups: Option<&std::path::Path>,
) -> Result<(), OpeRunError> {
    for spec in gates {
        let Some((column, value)) = &spec.group else {
            continue;
        };
        let Some(group) = report
            .groups
            .iter()
            .find(|g| &g.column == column && &g.value == value)
        else {
            return Err(unknown_group(spec, &report.groups, groups));
        };
        let plain = GateSpec {
            group: None,
            ..spec.clone()
        };
        let mut results = decide_gates(
            std::slice::from_ref(&plain),
            plan,
            &group.report.policies,
            &group.report.comparisons,
        );
        for result in &mut results {
            result.gate = spec.to_string();
        }
        report.gates.extend(results);
    }
    Ok(())
}

/// Why a gate names a group there is not.
fn unknown_group(
    spec: &GateSpec,
    groups: &[OpeGroup],
    path: Option<&std::path::Path>,
) -> OpeRunError {
    let Some(path) = path else {
        return OpeRunError::Unfit(format!(
            "gate `{spec}`: a gate on a group needs the groups of contexts (--groups FILE, TOML \
             `groups`)"
        ));
    };
    let known: Vec<String> = groups
        .iter()
        .take(20)
        .map(|g| format!("{}={}", g.column, g.value))
        .collect();
    let more = groups.len().saturating_sub(known.len());
    OpeRunError::Unfit(format!(
        "gate `{spec}`: no context of the log is in that group of {} (the groups are {}{})",
        path.display(),
        if known.is_empty() {
            "none".to_owned()
        } else {
            known.join(", ")
        },
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    ))
}

/// Corrects each estimator's comparisons of the whole log and of every
/// group of `report` as one family, and decides the whole log's gates
/// again on the corrected p-values (the groups' gates are decided after).
pub(super) fn correct_together(report: &mut OpeReport, plan: &OpePlan, correction: Correction) {
    let mut all = std::mem::take(&mut report.comparisons);
    let whole = all.len();
    let mut lengths = Vec::with_capacity(report.groups.len());
    for group in &mut report.groups {
        lengths.push(group.report.comparisons.len());
        all.append(&mut group.report.comparisons);
    }
    correct_comparisons(&mut all, &plan.estimators, correction);
    let mut rest = all.split_off(whole);
    report.comparisons = all;
    for (group, length) in report.groups.iter_mut().zip(lengths) {
        let tail = rest.split_off(length.min(rest.len()));
        group.report.comparisons = rest;
        group.report.groups_in_family = true;
        rest = tail;
    }
    report.groups_in_family = true;
    report.gates = decide_gates(&plan.gates, plan, &report.policies, &report.comparisons);
}
