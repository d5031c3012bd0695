//! Off-policy evaluation of a log read in parts (a Spark job's partitions,
//! each part whole impressions; docs/spark.md): the report of
//! [`ope_report`](super::ope_report) on the whole log, paired comparisons
//! and gates included, to the bit, from what the parts send.
//!
//! The estimates come from the parts' states ([`ope_states`](super::ope_states)),
//! merged. A paired comparison needs each impression's difference `d_i` of
//! the two policies' linearised contributions, whose linearisation reads
//! the whole log's means, and its standard error the squared deviations
//! `Σ (d_i - m)^2` around the whole log's mean `m` of `d`, each square
//! rounded and summed exactly as [`paired_difference`] sums them. So the
//! parts are read three times: (1) each part's states, merged into the
//! whole log's (their means); (2) each part's exact sum of `d_i`
//! ([`paired_sums`] without centres), linearised with the merged means,
//! merged into `m`; (3) each part's exact sum of `(d_i - m)^2`
//! ([`paired_sums`] with the centres), merged into the squares that
//! [`merged_report`] finishes with [`paired_of_squares`]. Every sum is an
//! exact sum ([`FullSum`]), so any partitioning gives the bits of one pass.
//!
//! [`paired_difference`]: rankeval_ope::paired_difference

use rankeval_core::exact_sum::FullSum;
use rankeval_ope::{State, linearised_with, paired_of_squares};

use super::{
    Candidate, ImpressionLog, LogSummary, OpeComparison, OpePlan, OpeReport, OpeRunError,
    PolicyEstimates, SAMPLING_RNG_NAME, SamplingReport, TargetPolicy, check_plan, contributions,
    correct_comparisons, decide_gates, estimates_of, estimator_error, policy_inputs,
};
use crate::read::impressions::PropensityForm;
use rankeval_core::shorten_id;

/// What a part of a log cannot be checked for, refused: a ranking on a
/// log that is not a click log unless unlogged items are allowed
/// (whether it shows only items the log shows needs the whole log: the
/// caller checks it across the parts with [`unlogged_part`] and then
/// allows unlogged items on each part; a click log's target adds no
/// weight for what the log never showed, so it has no such check), and
/// the bootstrap (it resamples the whole log's impressions). Also every
/// check of the plan on the part.
pub(super) fn check_part(
    log: &ImpressionLog,
    candidates: &[Candidate],
    plan: &OpePlan,
) -> Result<(), OpeRunError> {
    check_plan(log, candidates, plan)?;
    if !plan.allow_unlogged
        && log.form != PropensityForm::Examination
        && let Some(c) = candidates
            .iter()
            .find(|c| matches!(c.policy, TargetPolicy::Ranking(_)))
    {
        return Err(OpeRunError::Unfit(format!(
            "policy `{}`: whether a ranking shows only items the log shows needs the whole log, \
             which a part of it cannot tell: allow unlogged items (allow_low_support)",
            c.name
        )));
    }
    if plan.resampling.is_some() {
        return Err(OpeRunError::Unfit(
            "the bootstrap resamples every impression of the whole log, which a part of it \
             cannot: a normal or t interval (the states carry no impressions)"
                .into(),
        ));
    }
    Ok(())
}

/// An item a ranking shows for a context that this part of the log does
/// not show in that context ([`unlogged_part`]): unlogged in the whole
/// log unless another part logs the pair.
#[derive(Clone, Debug, PartialEq)]
pub struct Unlogged {
    /// The candidate's index among the candidates.
    pub policy: usize,
    /// The context's id.
    pub context: Vec<u8>,
    /// The item's id.
    pub item: Vec<u8>,
    /// Its position (from 1) in the ranking's slate.
    pub position: usize,
    /// The index in the part of the context's first impression.
    pub impression: usize,
    /// The whole log's error if no part logs the pair: the words of
    /// [`OpeRunError::NeverLogged`], as the command line says them.
    pub message: String,
}

/// The check that a ranking shows only items the log shows in a context
/// (the command line's [`OpeRunError::NeverLogged`]) on a log read in
/// parts, one part's share: the pairs `(context, item)` this part logs,
/// each once, and for each ranking candidate and each context of the
/// part (at its first impression) every item of the ranking's slate that
/// this part does not log for that context ([`Unlogged`]). Across the
/// parts, an [`Unlogged`] whose pair no part logs is never logged (a
/// Spark job's anti-join); the first of them by (policy, the part's
/// place in the log, impression, position) is the error the command
/// line gives on the whole log, which checks the candidates in order and
/// each context at its first impression in the log. Nothing for a click
/// log (its target adds no weight for what the log never showed) nor
/// when unlogged items are allowed. A context the ranking has no list
/// for, or a list shorter than the slates, is the error the estimates
/// give.
#[allow(clippy::type_complexity)]
pub fn unlogged_part(
    log: &ImpressionLog,
    log_name: &str,
    candidates: &[Candidate],
    plan: &OpePlan,
) -> Result<(Vec<(Vec<u8>, Vec<u8>)>, Vec<Unlogged>), OpeRunError> {
    if plan.allow_unlogged || log.form == PropensityForm::Examination {
        return Ok((Vec::new(), Vec::new()));
    }
    let pairs: std::collections::HashSet<(u32, u32)> = log
        .impressions
        .iter()
        .flat_map(|imp| imp.items.iter().map(move |&item| (imp.context, item)))
        .collect();
    let mut logged: Vec<(u32, u32)> = pairs.iter().copied().collect();
    logged.sort_unstable();
    let logged = logged
        .into_iter()
        .map(|(c, i)| (log.ids.resolve(c).to_vec(), log.ids.resolve(i).to_vec()))
        .collect();
    let len = log.slate_len;
    let mut unlogged = Vec::new();
    for (p, candidate) in candidates.iter().enumerate() {
        let TargetPolicy::Ranking(run) = &candidate.policy else {
            continue;
        };
        let mut seen = std::collections::HashSet::new();
        for (i, imp) in log.impressions.iter().enumerate() {
            if !seen.insert(imp.context) {
                continue;
            }
            let context = log.ids.resolve(imp.context);
            let list = run.list(context).ok_or_else(|| OpeRunError::NoRanking {
                log: log_name.to_owned(),
                at: imp.at.to_string(),
                policy: candidate.name.clone(),
                context: shorten_id(context),
            })?;
            if list.len() < len {
                return Err(OpeRunError::ShortRanking {
                    log: log_name.to_owned(),
                    at: imp.at.to_string(),
                    policy: candidate.name.clone(),
                    context: shorten_id(context),
                    len: list.len(),
                    slate_len: len,
                });
            }
            for position in 0..len {
                let item = list.doc(position);
                let known = log
                    .ids
                    .get(item)
                    .is_some_and(|id| pairs.contains(&(imp.context, id)));
                if !known {
                    unlogged.push(Unlogged {
                        policy: p,
                        context: context.to_vec(),
                        item: item.to_vec(),
                        position: position + 1,
                        impression: i,
                        message: OpeRunError::NeverLogged {
                            policy: candidate.name.clone(),
                            context: shorten_id(context),
                            item: shorten_id(item),
                            position: position + 1,
                        }
                        .to_string(),
                    });
                }
            }
        }
    }
    Ok((logged, unlogged))
}

/// Each candidate's linearised contributions under each estimator (in the
/// plan's order), one per impression of the part `log`, linearised with
/// the means of the whole log's states `merged` (one row per candidate,
/// one state per estimator: the parts' [`ope_states`](super::ope_states)
/// merged): the values [`ope_report`](super::ope_report) pairs on the
/// whole log, for this part's impressions.
pub fn linearised_part(
    log: &ImpressionLog,
    log_name: &str,
    candidates: &[Candidate],
    plan: &OpePlan,
    merged: &[Vec<State>],
) -> Result<Vec<Vec<Vec<f64>>>, OpeRunError> {
    check_part(log, candidates, plan)?;
    if merged.len() != candidates.len()
        || merged.iter().any(|row| row.len() != plan.estimators.len())
    {
        return Err(OpeRunError::Unfit(format!(
            "the merged states are not one per policy ({}) and estimator ({})",
            candidates.len(),
            plan.estimators.len()
        )));
    }
    let logged = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(candidates.len());
    for (candidate, row) in candidates.iter().zip(merged) {
        let inputs = policy_inputs(log, log_name, candidate, plan, &logged)?;
        let mut columns = Vec::with_capacity(plan.estimators.len());
        for (e, whole) in plan.estimators.iter().zip(row) {
            let fail = estimator_error(log, log_name, candidate, e);
            let (state, contributions) = contributions(log, &inputs, e).map_err(&fail)?;
            let means = [whole.mean(0), whole.mean(1), whole.mean(2)];
            columns.push(
                contributions
                    .iter()
                    .map(|c| linearised_with(state.form(), &means, c))
                    .collect(),
            );
        }
        out.push(columns);
    }
    Ok(out)
}

/// For each candidate after the first and each estimator, the exact sum
/// over the part's impressions of the paired difference `d_i` (the
/// candidate's linearised contribution less the first policy's, from
/// [`linearised_part`]), or with `centres` (per candidate after the first
/// and estimator, the whole log's mean `m` of `d`) of `(d_i - m)^2`, each
/// square rounded as [`paired_difference`](rankeval_ope::paired_difference)
/// rounds it.
pub fn paired_sums(linear: &[Vec<Vec<f64>>], centres: Option<&[Vec<f64>]>) -> Vec<Vec<FullSum>> {
    let Some((base, rest)) = linear.split_first() else {
        return Vec::new();
    };
    rest.iter()
        .enumerate()
        .map(|(i, columns)| {
            columns
                .iter()
                .zip(base)
                .enumerate()
                .map(|(k, (a, b))| {
                    let centre = centres.and_then(|c| c.get(i)).and_then(|row| row.get(k));
                    let mut sum = FullSum::new();
                    for (x, y) in a.iter().zip(b) {
                        let d = x - y;
                        sum.add(match centre {
                            Some(m) => (d - m) * (d - m),
                            None => d,
                        });
                    }
                    sum
                })
                .collect()
        })
        .collect()
}

/// Each gate of `plan` names one of its estimators and, with `run=`, one
/// of the policies `names`; a gate on a group is refused (the parts send
/// no groups). The spec checks a front end's gates before any part is
/// read (`spec::resolve_ope_parts`); this guards a plan built by a program.
fn check_gates(names: &[String], plan: &OpePlan) -> Result<(), OpeRunError> {
    super::check_gates(|name| names.iter().any(|n| n == name), plan)
}

/// The report of a log read in parts: the policies named `names`, their
/// whole-log states `states` (merged, one per estimator of `plan`), and
/// for each candidate after the first and each estimator the merged
/// squared deviations of the paired differences (`squares`, from
/// [`paired_sums`] with the centres): the estimates, the paired
/// comparisons with the first policy, the correction and the gates of
/// [`ope_report`](super::ope_report) on the whole log, to the bit.
/// `sampled`: whether the Plackett-Luce marginals were drawn (the report
/// prints the draws' samples and seed). A gate on a group is refused
/// (the parts send no groups).
pub fn merged_report(
    log: LogSummary,
    names: &[String],
    plan: &OpePlan,
    states: &[Vec<State>],
    squares: &[Vec<f64>],
    sampled: bool,
) -> Result<OpeReport, OpeRunError> {
    check_gates(names, plan)?;
    let unfit = |e: rankeval_ope::OpeError| OpeRunError::Unfit(format!("{}: {e}", log.name));
    let policies: Vec<PolicyEstimates> =
        estimates_of(names, states, &plan.options).map_err(unfit)?;
    let n = log.impressions;
    let mut comparisons = Vec::new();
    if let Some(base) = policies.first() {
        for (i, policy) in policies.iter().enumerate().skip(1) {
            for (k, e) in plan.estimators.iter().enumerate() {
                let (a, b) = (&policy.estimates[k], &base.estimates[k]);
                let squares = squares
                    .get(i - 1)
                    .and_then(|row| row.get(k))
                    .copied()
                    .ok_or_else(|| {
                        OpeRunError::Unfit(format!(
                            "no paired sums of policy `{}`, {}",
                            policy.name,
                            e.name()
                        ))
                    })?;
                comparisons.push(OpeComparison {
                    candidate: policy.name.clone(),
                    baseline: base.name.clone(),
                    estimator: e.name(),
                    paired: paired_of_squares(n, squares, a.value - b.value, &plan.options)
                        .map_err(unfit)?,
                    refused: a.is_refused() || b.is_refused(),
                    corrected_p_value: None,
                });
            }
        }
    }
    if let Some(correction) = plan.correction {
        correct_comparisons(&mut comparisons, &plan.estimators, correction);
    }
    let gates = decide_gates(&plan.gates, plan, &policies, &comparisons);
    Ok(OpeReport {
        gates,
        log,
        interval: plan.options.interval,
        level: plan.options.level,
        floors: plan.options.floors,
        policies,
        comparisons,
        allow_low_support: plan.allow_low_support,
        sampling: plan.sampling.filter(|_| sampled).map(|m| SamplingReport {
            samples: m.samples,
            seed: m.seed,
            generator: SAMPLING_RNG_NAME,
        }),
        resampling: None,
        correction: plan.correction.map(rankeval_stats::Correction::name),
        groups_in_family: false,
        groups: Vec::new(),
        notes: Vec::new(),
        log_fingerprint: None,
    })
}

/// One column of a groups file over a log: each group's impressions as a
/// log of their own (in the log's order; the groups in
/// [`group_order`](crate::groups::group_order)), and the contexts of the
/// log in no group of the column.
pub struct ColumnSlices {
    /// The groups file's column.
    pub column: String,
    /// Each group's value and impressions.
    pub groups: Vec<(String, ImpressionLog)>,
    /// The log's contexts (ids) in no group of the column.
    pub without: std::collections::HashSet<u32>,
}

/// The log `log` cut by each column of `groups` (a context is in the
/// group its query id has in the column): what `rankeval ope --groups`
/// estimates group by group, and what each part of a log in parts cuts
/// itself into (a group's parts merge into the group's whole, as the
/// log's do: a context, and so each impression, is in one group of a
/// column).
pub fn group_slices(log: &ImpressionLog, groups: &crate::read::QueryGroups) -> Vec<ColumnSlices> {
    let mut out = Vec::new();
    for (c, column) in groups.columns().iter().enumerate() {
        let mut members: std::collections::HashMap<&str, Vec<usize>> =
            std::collections::HashMap::new();
        let mut without = std::collections::HashSet::new();
        for (i, imp) in log.impressions.iter().enumerate() {
            let value = std::str::from_utf8(log.ids.resolve(imp.context))
                .ok()
                .and_then(|context| groups.value(context, c));
            match value {
                Some(value) => members.entry(value).or_default().push(i),
                None => {
                    without.insert(imp.context);
                }
            }
        }
        let groups = crate::groups::group_order(members.keys().copied())
            .into_iter()
            .map(|value| {
                let sub = ImpressionLog {
                    ids: log.ids.clone(),
                    impressions: log.impressions.select(&members[value]),
                    slate_len: log.slate_len,
                    form: log.form,
                    reward: log.reward,
                };
                (value.to_owned(), sub)
            })
            .collect();
        out.push(ColumnSlices {
            column: column.clone(),
            groups,
            without,
        });
    }
    out
}

/// The report's note on the `count` contexts of the log in no group of
/// `column` of the groups file `path` (`smallest`: their ids in byte
/// order, at least the first three of them); none when every context is
/// in a group.
pub fn ungrouped_note(
    path: &std::path::Path,
    column: &str,
    count: usize,
    smallest: &[String],
) -> Option<String> {
    if count == 0 {
        return None;
    }
    Some(format!(
        "{}: {} context{} of the log in no group of `{column}` (e.g. {}): in no group's report",
        path.display(),
        count,
        if count == 1 { "" } else { "s" },
        smallest
            .iter()
            .take(3)
            .map(|e| format!("`{}`", shorten_id(e.as_bytes())))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// One group of contexts of a log read in parts: its states and paired
/// squares merged over the parts (as [`merged_report`] takes them for the
/// whole log) and its impressions.
pub struct MergedGroup {
    /// The groups file's column.
    pub column: String,
    /// The group's value in it.
    pub value: String,
    /// The group's impressions.
    pub impressions: u64,
    /// One row per policy, one state per estimator, merged.
    pub states: Vec<Vec<State>>,
    /// Per candidate after the first and estimator, the merged squared
    /// deviations of the paired differences.
    pub squares: Vec<Vec<f64>>,
}

/// The groups of a log read in parts, as the report takes them.
pub struct MergedGroups<'a> {
    /// The groups file (for the notes and the gates' errors).
    pub path: &'a std::path::Path,
    /// Each group, columns in the file's order and each column's groups
    /// in [`group_order`](crate::groups::group_order).
    pub groups: Vec<MergedGroup>,
    /// Per column, the number of the log's contexts in no group of it and
    /// their ids in byte order (at least the first three).
    pub ungrouped: Vec<(String, usize, Vec<String>)>,
    /// Every group's comparisons corrected in the whole log's families.
    pub in_family: bool,
}

/// [`merged_report`] with the groups of contexts: each group's report
/// (its estimates, comparisons and correction, no gate), the notes on
/// the contexts in no group, the families across the groups with
/// `in_family`, and the gates on a group decided on its report: what
/// `rankeval ope --groups` reports on the whole log, to the bit.
pub fn merged_report_with_groups(
    log: LogSummary,
    names: &[String],
    plan: &OpePlan,
    states: &[Vec<State>],
    squares: &[Vec<f64>],
    sampled: bool,
    groups: MergedGroups<'_>,
) -> Result<OpeReport, OpeRunError> {
    let mut whole_plan = plan.clone();
    let (on_groups, gates): (Vec<_>, Vec<_>) =
        whole_plan.gates.drain(..).partition(|g| g.group.is_some());
    whole_plan.gates = gates;
    let group_plan = OpePlan {
        gates: Vec::new(),
        ..whole_plan.clone()
    };
    let mut report = merged_report(log.clone(), names, &whole_plan, states, squares, sampled)?;
    for group in groups.groups {
        let summary = LogSummary {
            impressions: group.impressions,
            ..log.clone()
        };
        report.groups.push(super::OpeGroup {
            column: group.column,
            value: group.value,
            report: merged_report(
                summary,
                names,
                &group_plan,
                &group.states,
                &group.squares,
                sampled,
            )?,
        });
    }
    for (column, count, smallest) in &groups.ungrouped {
        report
            .notes
            .extend(ungrouped_note(groups.path, column, *count, smallest));
    }
    if groups.in_family
        && let Some(correction) = whole_plan.correction
    {
        super::group_gates::correct_together(&mut report, &whole_plan, correction);
    }
    super::group_gates::decide(&mut report, &whole_plan, &on_groups, Some(groups.path))?;
    Ok(report)
}
