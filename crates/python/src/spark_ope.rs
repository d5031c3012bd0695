//! Off-policy evaluation on Spark (`rankeval_rs.spark.ope`): each
//! partition's impressions, handed over as Arrow IPC bytes and read by the
//! command line's reader (`rankeval_readers::impressions`, every check),
//! give each policy's state under each estimator
//! ([`spark_ope_states`], `rankeval::ope::ope_states`) as bytes
//! (`rankeval_ope::wire`); the driver merges them and finishes them into
//! the estimates; two more passes give the paired comparisons
//! ([`spark_ope_paired`], `rankeval::ope::merged`), and the driver renders
//! the report with its gates ([`spark_ope_report`]): the bits of `rankeval
//! ope` on the whole log, for any partitioning. Every call takes the
//! request as `rankeval_rs.ope` does (policies and keywords, read by
//! `crate::ope::ope_spec`) and resolves it by the one spec
//! (`rankeval::spec::resolve_ope_parts`, [`request`]): this module holds
//! no rule of the request.

use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use rankeval::ope::estimators::State;
use rankeval::ope::{
    Candidate, LogSummary, OpeEstimator, OpePlan, RewardModel, TargetPolicy, ope_states,
};
use rankeval::read::impressions::{RewardPer, parse_impressions};
use rankeval::read::{Input, ReadOptions};
use rankeval::spec::{OpePartsRequest, resolve_ope_parts};
use rankeval_core::exact_sum::FullSum;

use crate::errors::InputError;
use crate::keywords::spec_error;
use crate::ope::{NEVER_LOGGED_HINT, ope_spec};

/// A partition's impressions and what to estimate on them, from the
/// keywords every task of `rankeval_rs.spark.ope` is given.
struct Part {
    log: rankeval::ope::ImpressionLog,
    candidates: Vec<Candidate>,
    plan: OpePlan,
}

/// The request of `rankeval_rs.spark.ope`'s `policies` and keywords
/// `options`: the keywords read as `rankeval_rs.ope` reads them
/// ([`ope_spec`]) and checked by the one spec, its log in parts
/// ([`resolve_ope_parts`]): every rule and message is the spec's.
fn request(
    policies: Vec<(Option<String>, PathBuf)>,
    options: &Bound<'_, PyDict>,
) -> PyResult<OpePartsRequest> {
    resolve_ope_parts(ope_spec(policies, options)?).map_err(|e| spec_error(&e))
}

/// A partition's log (Arrow IPC bytes named `name`) read as `request`
/// says, its policies' runs and reward model read, and the plan. The
/// plan allows unlogged items on the partition: whether a ranking shows
/// only items the whole log shows is checked across the partitions
/// before the states are made ([`spark_ope_unlogged`], which the driver
/// runs whenever [`spark_ope_check`] says it is needed).
fn part(log: &[u8], name: &str, request: OpePartsRequest) -> PyResult<Part> {
    let mut part = read_part(log, name, request)?;
    part.plan.allow_unlogged = true;
    Ok(part)
}

/// [`part`] with the plan as the request gives it.
fn read_part(log: &[u8], name: &str, request: OpePartsRequest) -> PyResult<Part> {
    let OpePartsRequest {
        read,
        policies,
        plackett_luce,
        target_column,
        reward_model,
        mut plan,
        examination,
    } = request;
    let mut log = parse_impressions(log, name, &read)
        .map_err(|e| InputError::new_err(format!("spark: {e}")))?;
    if let Some(examination) = &examination {
        examination
            .fill(&mut log, name)
            .map_err(|e| InputError::new_err(format!("spark: {e}")))?;
    }
    let read_run = |path: &PathBuf| {
        rankeval::read_run(&Input::file(path), ReadOptions::default())
            .map_err(|e| InputError::new_err(format!("spark: {}: {e}", path.display())))
    };
    let mut candidates = Vec::new();
    for policy in &policies {
        let run = read_run(&policy.path)?;
        candidates.push(Candidate {
            name: policy.name.clone(),
            policy: match plackett_luce {
                Some(temperature) => TargetPolicy::PlackettLuce { run, temperature },
                None => TargetPolicy::Ranking(run),
            },
        });
    }
    if let Some(policy) = target_column {
        candidates.push(Candidate {
            name: policy,
            policy: TargetPolicy::LogColumn,
        });
    }
    if let Some(path) = &reward_model {
        plan.model = Some(
            RewardModel::from_run(&read_run(path)?, path)
                .map_err(|e| InputError::new_err(format!("spark: {e}")))?,
        );
    }
    Ok(Part {
        log,
        candidates,
        plan,
    })
}

/// One partition's states: `log` is the partition's impressions as an
/// Arrow IPC stream (named `name` in messages), `policies` and `options`
/// the request as `rankeval_rs.ope` takes it (`(name or None, run file)`
/// and its keywords; [`request`]: the Plackett-Luce marginals' Monte
/// Carlo draws depend on the impression id, not the partition). Returns
/// the impressions read, the slate length, and one `(policy, estimator,
/// state bytes)` per policy and estimator.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn spark_ope_states<'py>(
    py: Python<'py>,
    log: &[u8],
    name: &str,
    policies: Vec<(Option<String>, PathBuf)>,
    options: &Bound<'py, PyDict>,
) -> PyResult<(u64, usize, Vec<(String, String, Bound<'py, PyBytes>)>)> {
    let Part {
        log,
        candidates,
        plan,
    } = part(log, name, request(policies, options)?)?;
    let states = ope_states(&log, name, &candidates, &plan)
        .map_err(|e| InputError::new_err(format!("spark: {e}")))?;
    let mut out = Vec::new();
    for (candidate, row) in candidates.iter().zip(&states) {
        for state in row {
            out.push((
                candidate.name.clone(),
                state.name().to_owned(),
                PyBytes::new(py, &state.to_bytes()),
            ));
        }
    }
    Ok((log.impressions.len() as u64, log.slate_len, out))
}

/// One partition's sums for the paired comparisons of every candidate
/// with the first policy (`rankeval::ope::merged`): the same arguments as
/// [`spark_ope_states`], with `merged` the whole log's states
/// ([`spark_ope_merge`]'s). Without `centres`, per candidate after the
/// first and estimator the exact sum of the paired differences of the
/// linearised contributions `d_i`; with `centres` (the whole log's means of
/// `d`, [`spark_ope_centres`]), of `(d_i - m)^2`. Returns one `(candidate,
/// estimator, sum bytes)` each.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn spark_ope_paired<'py>(
    py: Python<'py>,
    log: &[u8],
    name: &str,
    merged: Vec<(String, String, Vec<u8>)>,
    centres: Option<Vec<Vec<f64>>>,
    policies: Vec<(Option<String>, PathBuf)>,
    options: &Bound<'py, PyDict>,
) -> PyResult<Vec<(String, String, Bound<'py, PyBytes>)>> {
    let Part {
        log,
        candidates,
        plan,
    } = part(log, name, request(policies, options)?)?;
    let names: Vec<String> = plan.estimators.iter().map(OpeEstimator::name).collect();
    let policy_names: Vec<String> = candidates.iter().map(|c| c.name.clone()).collect();
    let whole = merge_states(&policy_names, &names, &merged)?;
    let linear = rankeval::ope::merged::linearised_part(&log, name, &candidates, &plan, &whole)
        .map_err(|e| InputError::new_err(format!("spark: {e}")))?;
    let sums = rankeval::ope::merged::paired_sums(&linear, centres.as_deref());
    let mut out = Vec::new();
    for (candidate, row) in candidates.iter().skip(1).zip(&sums) {
        for (estimator, sum) in names.iter().zip(row) {
            let mut bytes = Vec::new();
            sum.write(&mut bytes);
            out.push((
                candidate.name.clone(),
                estimator.clone(),
                PyBytes::new(py, &bytes),
            ));
        }
    }
    Ok(out)
}

/// The partitions' states `parts` (`(policy, estimator, bytes)`, in any
/// order) merged per policy and estimator: one `(policy, estimator,
/// bytes)` each, in the order of `policies` and `estimators`, for the
/// tasks of the paired sums ([`spark_ope_paired`]).
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn spark_ope_merge<'py>(
    py: Python<'py>,
    policies: Vec<String>,
    estimators: Vec<String>,
    parts: Vec<(String, String, Vec<u8>)>,
) -> PyResult<Vec<(String, String, Bound<'py, PyBytes>)>> {
    let names: Vec<String> = parse_estimators(&estimators)?
        .iter()
        .map(OpeEstimator::name)
        .collect();
    let states = merge_states(&policies, &names, &parts)?;
    let mut out = Vec::new();
    for (policy, row) in policies.iter().zip(&states) {
        for state in row {
            out.push((
                policy.clone(),
                state.name().to_owned(),
                PyBytes::new(py, &state.to_bytes()),
            ));
        }
    }
    Ok(out)
}

/// The whole log's mean of each candidate's paired differences (after the
/// first policy, per estimator) from the partitions' exact sums `parts`
/// ([`spark_ope_paired`] without centres) over `impressions`: the centres
/// of the second pass.
#[pyfunction]
pub fn spark_ope_centres(
    candidates: Vec<String>,
    estimators: Vec<String>,
    parts: Vec<(String, String, Vec<u8>)>,
    impressions: u64,
) -> PyResult<Vec<Vec<f64>>> {
    let names: Vec<String> = parse_estimators(&estimators)?
        .iter()
        .map(OpeEstimator::name)
        .collect();
    Ok(merge_sums(&candidates, &names, &parts)?
        .iter()
        .map(|row| row.iter().map(|s| s.mean(impressions)).collect())
        .collect())
}

/// The report of the whole log from the partitions' states `parts` and
/// the partitions' squared deviations of the paired differences `squares`
/// ([`spark_ope_paired`] with centres), for the request `policies` and
/// `options` ([`request`]): `rankeval ope --format json`'s document (the
/// estimates, the comparisons of each later policy with the first, paired
/// by impression, corrected, and the gates decided on them), the log named
/// `log_name`.
#[pyfunction]
#[pyo3(signature = (policies, options, parts, squares, impressions, slate_len, log_name="spark"))]
#[allow(clippy::too_many_arguments)]
pub fn spark_ope_report(
    policies: Vec<(Option<String>, PathBuf)>,
    options: &Bound<'_, PyDict>,
    parts: Vec<(String, String, Vec<u8>)>,
    squares: Vec<(String, String, Vec<u8>)>,
    impressions: u64,
    slate_len: usize,
    log_name: &str,
) -> PyResult<String> {
    let request = request(policies, options)?;
    let policies = request.names();
    let plan = &request.plan;
    let names: Vec<String> = plan.estimators.iter().map(OpeEstimator::name).collect();
    let states = merge_states(&policies, &names, &parts)?;
    let squares: Vec<Vec<f64>> = merge_sums(policies.get(1..).unwrap_or(&[]), &names, &squares)?
        .iter()
        .map(|row| row.iter().map(FullSum::value).collect())
        .collect();
    let summary = LogSummary {
        name: log_name.to_owned(),
        impressions,
        slate_len,
        form: request.read.form.name(),
        reward: match request.read.reward {
            RewardPer::Impression => "impression",
            RewardPer::Position => "position",
        },
    };
    // The spec draws the marginals only for a Plackett-Luce policy on a
    // log of marginal propensities.
    let sampled = plan.sampling.is_some();
    let report =
        rankeval::ope::merged::merged_report(summary, &policies, plan, &states, &squares, sampled)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(rankeval_report::ope::render(
        &report,
        rankeval_report::ope::OpeFormat::Json,
    ))
}

/// One partition's share of the check that a ranking shows only items
/// the log shows in a context (`rankeval::ope::merged::unlogged_part`):
/// the same arguments as [`spark_ope_states`]. Returns the pairs
/// `(context, item)` the partition logs, and each ranking's item that
/// the partition does not log for a context of it, as `(policy index,
/// context, item, position, the context's first impression in the
/// partition, `rankeval_rs.ope`'s error if no partition logs the pair:
/// the command line's words with the keyword that allows it)`. The
/// driver keeps the unlogged pairs no partition logs (an anti-join) and
/// raises the first by policy, partition, impression and position: the
/// error `rankeval_rs.ope` and `rankeval ope` give on the whole log.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn spark_ope_unlogged<'py>(
    py: Python<'py>,
    log: &[u8],
    name: &str,
    policies: Vec<(Option<String>, PathBuf)>,
    options: &Bound<'py, PyDict>,
) -> PyResult<(
    Vec<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)>,
    Vec<(
        usize,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        usize,
        usize,
        String,
    )>,
)> {
    let Part {
        log,
        candidates,
        plan,
    } = read_part(log, name, request(policies, options)?)?;
    let (logged, unlogged) = rankeval::ope::merged::unlogged_part(&log, name, &candidates, &plan)
        .map_err(|e| InputError::new_err(format!("spark: {e}")))?;
    Ok((
        logged
            .iter()
            .map(|(c, i)| (PyBytes::new(py, c), PyBytes::new(py, i)))
            .collect(),
        unlogged
            .into_iter()
            .map(|u| {
                (
                    u.policy,
                    PyBytes::new(py, &u.context),
                    PyBytes::new(py, &u.item),
                    u.position,
                    u.impression,
                    format!("{} {NEVER_LOGGED_HINT}", u.message),
                )
            })
            .collect(),
    ))
}

/// The request `policies` and `options` checked on the driver before any
/// job reads the log, by the spec ([`request`]: the same rules and words
/// as `rankeval_rs.ope`, each gate's estimator and policy included). Returns the
/// policies' names in report order, the estimators' names, the log's
/// impression column, and whether the whole log must be checked for
/// items a ranking shows and the log never shows ([`spark_ope_unlogged`]:
/// a ranking policy on a log that is not a click log, unlogged items not
/// allowed).
#[pyfunction]
pub fn spark_ope_check(
    policies: Vec<(Option<String>, PathBuf)>,
    options: &Bound<'_, PyDict>,
) -> PyResult<(Vec<String>, Vec<String>, String, bool)> {
    let request = request(policies, options)?;
    let names = request.names();
    let unlogged = !request.plan.allow_unlogged
        && request.read.form != rankeval::read::impressions::PropensityForm::Examination
        && request.plackett_luce.is_none()
        && !request.policies.is_empty();
    Ok((
        names,
        request
            .plan
            .estimators
            .iter()
            .map(OpeEstimator::name)
            .collect(),
        request.read.columns.impression.clone(),
        unlogged,
    ))
}

/// The states `parts` (`(policy, estimator, bytes)`, in any order) merged
/// per policy (`policies`) and estimator (`names`, as reports name them).
fn merge_states(
    policies: &[String],
    names: &[String],
    parts: &[(String, String, Vec<u8>)],
) -> PyResult<Vec<Vec<State>>> {
    let value = |e: String| PyValueError::new_err(e);
    let mut merged: Vec<Vec<Option<State>>> = vec![vec![None; names.len()]; policies.len()];
    for (policy, estimator, bytes) in parts {
        let (p, e) = slot(policies, names, policy, estimator)?;
        let state = State::from_bytes(bytes)
            .map_err(|err| value(format!("policy `{policy}`, {estimator}: {err}")))?;
        match &mut merged[p][e] {
            slot @ None => *slot = Some(state),
            Some(sum) => sum
                .merge(&state)
                .map_err(|err| value(format!("policy `{policy}`: {err}")))?,
        }
    }
    merged
        .into_iter()
        .zip(policies)
        .map(|(row, policy)| {
            row.into_iter()
                .zip(names)
                .map(|(s, e)| s.ok_or_else(|| value(format!("no state of policy `{policy}`, {e}"))))
                .collect()
        })
        .collect()
}

/// The exact sums `parts` (`(candidate, estimator, bytes)`, in any order)
/// merged per candidate and estimator; a candidate and estimator without
/// a part sums nothing (a log whose partitions are all empty).
fn merge_sums(
    candidates: &[String],
    names: &[String],
    parts: &[(String, String, Vec<u8>)],
) -> PyResult<Vec<Vec<FullSum>>> {
    let value = |e: String| PyValueError::new_err(e);
    let mut merged = vec![vec![FullSum::new(); names.len()]; candidates.len()];
    for (candidate, estimator, bytes) in parts {
        let (c, e) = slot(candidates, names, candidate, estimator)?;
        let sum = match FullSum::read(bytes) {
            Some((sum, used)) if used == bytes.len() => sum,
            _ => {
                return Err(value(format!(
                    "policy `{candidate}`, {estimator}: the paired sums' bytes are not an exact sum"
                )));
            }
        };
        merged[c][e].merge(&sum);
    }
    Ok(merged)
}

/// The place of `policy` among `policies` and of `estimator` among `names`.
fn slot(
    policies: &[String],
    names: &[String],
    policy: &str,
    estimator: &str,
) -> PyResult<(usize, usize)> {
    let value = |e: String| PyValueError::new_err(e);
    let p = policies
        .iter()
        .position(|x| x == policy)
        .ok_or_else(|| value(format!("a state of an unknown policy `{policy}`")))?;
    let e = names
        .iter()
        .position(|x| x == estimator)
        .ok_or_else(|| value(format!("a state of an unknown estimator `{estimator}`")))?;
    Ok((p, e))
}

/// The estimators named `specs` (the names [`spark_ope_check`] gives, for
/// the driver's merges), as `-e` reads them.
fn parse_estimators(specs: &[String]) -> PyResult<Vec<OpeEstimator>> {
    if specs.is_empty() {
        return Err(PyValueError::new_err("no estimator"));
    }
    specs
        .iter()
        .map(|s| {
            OpeEstimator::parse(s).map_err(|m| PyValueError::new_err(format!("estimator {m}")))
        })
        .collect()
}
