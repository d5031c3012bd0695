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

/// What a part of a log cannot be checked for, refused: a ranking on a
/// log that is not a click log unless unlogged items are allowed
/// (whether it shows only items the log shows needs the whole log; a
/// click log's target adds no weight for what the log never showed, so
/// it has no such check), and the bootstrap (it resamples the whole
/// log's impressions). Also every check of the plan on the part.
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
/// no groups). What [`merged_report`] checks, for a caller that checks
/// before reading the parts.
pub fn check_gates(names: &[String], plan: &OpePlan) -> Result<(), OpeRunError> {
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
