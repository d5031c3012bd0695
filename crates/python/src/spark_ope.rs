//! Off-policy evaluation on Spark (`rankeval_rs.spark.ope`): each
//! partition's impressions, handed over as Arrow IPC bytes and read by the
//! command line's reader (`rankeval_readers::impressions`, every check),
//! give each policy's state under each estimator
//! ([`spark_ope_states`], `rankeval::ope::ope_states`) as bytes
//! (`rankeval_ope::wire`); the driver merges them and finishes them into
//! the estimates (with groups of contexts, each partition cut by the
//! groups file and every state and sum keyed by its group:
//! `rankeval::ope::merged::group_slices`); two more passes give the paired comparisons
//! ([`spark_ope_paired`], `rankeval::ope::merged`), and the driver renders
//! the report with its gates ([`spark_ope_report`]): the bits of `rankeval
//! ope` on the whole log, for any partitioning. Every call takes the
//! request as `rankeval_rs.ope` does (policies and keywords, read by
//! `crate::ope::ope_spec`) and resolves it by the one spec
//! (`rankeval::spec::resolve_ope_parts`, [`request`]): this module holds
//! no rule of the request.

use std::borrow::Cow;
use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use rankeval::ope::estimators::State;
use rankeval::ope::{
    Candidate, ImpressionLog, LogSummary, OpeEstimator, OpePlan, RewardModel, TargetPolicy,
    ope_states,
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
    groups: Option<rankeval::read::QueryGroups>,
}

/// A group of contexts, `(column, value)` of the groups file; `None` the
/// whole log. Every state and sum the tasks send is keyed by one.
type GroupKey = (Option<String>, Option<String>);

/// A keyed row the tasks send: the group, the policy, the estimator and
/// bytes (a state or an exact sum).
type Keyed = (Option<String>, Option<String>, String, String, Vec<u8>);

/// A [`Keyed`] state as Python bytes: what a task or the driver hands
/// back to Spark.
type KeyedBytes<'py> = (
    Option<String>,
    Option<String>,
    String,
    String,
    Bound<'py, PyBytes>,
);

/// A group's states (one row per policy, one per estimator) and paired
/// squares (per candidate after the first and estimator), merged.
type MergedGroup = (Vec<Vec<State>>, Vec<Vec<f64>>);

/// A partition cut by the groups: each slice with its group, and the
/// contexts in no group as `(column, context)`.
type Slices<'a> = (
    Vec<(GroupKey, Cow<'a, ImpressionLog>)>,
    Vec<(String, String)>,
);

/// The partition `log` and, with the groups file, each group of each of
/// its columns (`rankeval::ope::merged::group_slices`), keyed; and the
/// contexts of the partition in no group, as `(column, context)`.
fn slices(part: &Part) -> Slices<'_> {
    let mut out = vec![((None, None), Cow::Borrowed(&part.log))];
    let mut ungrouped = Vec::new();
    if let Some(groups) = &part.groups {
        for column in rankeval::ope::merged::group_slices(&part.log, groups) {
            ungrouped.extend(
                column
                    .without
                    .iter()
                    .map(|&id| (column.column.clone(), part.log.text(id))),
            );
            for (value, sub) in column.groups {
                out.push(((Some(column.column.clone()), Some(value)), Cow::Owned(sub)));
            }
        }
    }
    (out, ungrouped)
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
    // The tasks make states and sums; the driver decides the gates.
    part.plan.gates.clear();
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
        groups,
        groups_in_family: _,
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
    let groups = match &groups {
        Some(path) => Some(
            rankeval::read::read_groups(path)
                .map_err(|e| InputError::new_err(format!("spark: {}: {e}", path.display())))?,
        ),
        None => None,
    };
    Ok(Part {
        log,
        candidates,
        plan,
        groups,
    })
}

/// One partition's states: `log` is the partition's impressions as an
/// Arrow IPC stream (named `name` in messages), `policies` and `options`
/// the request as `rankeval_rs.ope` takes it (`(name or None, run file)`
/// and its keywords; [`request`]: the Plackett-Luce marginals' Monte
/// Carlo draws depend on the impression id, not the partition). Returns
/// the impressions read, the slate length, one `(column, value, policy,
/// estimator, state bytes, impressions)` per group (`(None, None)`: the
/// whole partition; with `groups`, each group of each column the
/// partition has impressions of), policy and estimator, and the
/// partition's contexts in no group as `(column, context)`.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn spark_ope_states<'py>(
    py: Python<'py>,
    log: &[u8],
    name: &str,
    policies: Vec<(Option<String>, PathBuf)>,
    options: &Bound<'py, PyDict>,
) -> PyResult<(
    u64,
    usize,
    Vec<(
        Option<String>,
        Option<String>,
        String,
        String,
        Bound<'py, PyBytes>,
        u64,
    )>,
    Vec<(String, String)>,
)> {
    let part = part(log, name, request(policies, options)?)?;
    let (slices, ungrouped) = slices(&part);
    let mut out = Vec::new();
    for ((column, value), log) in &slices {
        let states = ope_states(log, name, &part.candidates, &part.plan)
            .map_err(|e| InputError::new_err(format!("spark: {e}")))?;
        for (candidate, row) in part.candidates.iter().zip(&states) {
            for state in row {
                out.push((
                    column.clone(),
                    value.clone(),
                    candidate.name.clone(),
                    state.name().to_owned(),
                    PyBytes::new(py, &state.to_bytes()),
                    log.impressions.len() as u64,
                ));
            }
        }
    }
    Ok((
        part.log.impressions.len() as u64,
        part.log.slate_len,
        out,
        ungrouped,
    ))
}

/// One partition's sums for the paired comparisons of every candidate
/// with the first policy (`rankeval::ope::merged`), per group
/// ([`spark_ope_states`]' keys): the same arguments as
/// [`spark_ope_states`], with `merged` the whole log's states of each
/// group ([`spark_ope_merge`]'s). Without `centres`, per group, candidate
/// after the first and estimator the exact sum of the paired differences
/// of the linearised contributions `d_i`; with `centres` (each group's
/// means of `d` over the whole log, [`spark_ope_centres`]), of `(d_i -
/// m)^2`. Returns one `(column, value, candidate, estimator, sum bytes)`
/// each.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn spark_ope_paired<'py>(
    py: Python<'py>,
    log: &[u8],
    name: &str,
    merged: Vec<Keyed>,
    centres: Option<Vec<(Option<String>, Option<String>, Vec<Vec<f64>>)>>,
    policies: Vec<(Option<String>, PathBuf)>,
    options: &Bound<'py, PyDict>,
) -> PyResult<Vec<KeyedBytes<'py>>> {
    let part = part(log, name, request(policies, options)?)?;
    let names: Vec<String> = part
        .plan
        .estimators
        .iter()
        .map(OpeEstimator::name)
        .collect();
    let policy_names: Vec<String> = part.candidates.iter().map(|c| c.name.clone()).collect();
    let (slices, _) = slices(&part);
    let mut out = Vec::new();
    for (key, log) in &slices {
        let whole = merge_states(&policy_names, &names, &of_group(&merged, key))?;
        let linear =
            rankeval::ope::merged::linearised_part(log, name, &part.candidates, &part.plan, &whole)
                .map_err(|e| InputError::new_err(format!("spark: {e}")))?;
        let group_centres = match &centres {
            None => None,
            Some(all) => Some(
                all.iter()
                    .find(|(c, v, _)| (c, v) == (&key.0, &key.1))
                    .map(|(_, _, m)| m.clone())
                    .ok_or_else(|| {
                        PyValueError::new_err(format!("no centres of {}", shown(key)))
                    })?,
            ),
        };
        let sums = rankeval::ope::merged::paired_sums(&linear, group_centres.as_deref());
        for (candidate, row) in part.candidates.iter().skip(1).zip(&sums) {
            for (estimator, sum) in names.iter().zip(row) {
                let mut bytes = Vec::new();
                sum.write(&mut bytes);
                out.push((
                    key.0.clone(),
                    key.1.clone(),
                    candidate.name.clone(),
                    estimator.clone(),
                    PyBytes::new(py, &bytes),
                ));
            }
        }
    }
    Ok(out)
}

/// The rows of `rows` of the group `key`, as `(policy, estimator, bytes)`.
fn of_group(rows: &[Keyed], key: &GroupKey) -> Vec<(String, String, Vec<u8>)> {
    rows.iter()
        .filter(|(c, v, ..)| (c, v) == (&key.0, &key.1))
        .map(|(_, _, p, e, b)| (p.clone(), e.clone(), b.clone()))
        .collect()
}

/// The groups of `rows`, each once, in the order they first come.
fn keys_of(rows: &[Keyed]) -> Vec<GroupKey> {
    let mut keys: Vec<GroupKey> = Vec::new();
    for (c, v, ..) in rows {
        if !keys.iter().any(|(kc, kv)| (kc, kv) == (c, v)) {
            keys.push((c.clone(), v.clone()));
        }
    }
    keys
}

/// A group as messages name it.
fn shown(key: &GroupKey) -> String {
    match key {
        (Some(c), Some(v)) => format!("the group {c}={v}"),
        _ => "the whole log".to_owned(),
    }
}

/// The partitions' states `parts` (keyed by group, [`spark_ope_states`]'
/// rows, in any order) merged per group, policy and estimator: one
/// `(column, value, policy, estimator, bytes)` each, each group's in the
/// order of `policies` and `estimators`, for the tasks of the paired sums
/// ([`spark_ope_paired`]).
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn spark_ope_merge<'py>(
    py: Python<'py>,
    policies: Vec<String>,
    estimators: Vec<String>,
    parts: Vec<Keyed>,
) -> PyResult<Vec<KeyedBytes<'py>>> {
    let names: Vec<String> = parse_estimators(&estimators)?
        .iter()
        .map(OpeEstimator::name)
        .collect();
    let mut out = Vec::new();
    // The whole log's states always: none sent is an error.
    let mut keys = keys_of(&parts);
    if !keys.contains(&(None, None)) {
        keys.insert(0, (None, None));
    }
    for key in keys {
        let states = merge_states(&policies, &names, &of_group(&parts, &key))?;
        for (policy, row) in policies.iter().zip(&states) {
            for state in row {
                out.push((
                    key.0.clone(),
                    key.1.clone(),
                    policy.clone(),
                    state.name().to_owned(),
                    PyBytes::new(py, &state.to_bytes()),
                ));
            }
        }
    }
    Ok(out)
}

/// Each group's mean over the whole log of each candidate's paired
/// differences (after the first policy, per estimator) from the
/// partitions' exact sums `parts` ([`spark_ope_paired`] without centres)
/// over the group's `impressions` (`(column, value, impressions)`): the
/// centres of the second pass, `(column, value, means)` per group.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn spark_ope_centres(
    candidates: Vec<String>,
    estimators: Vec<String>,
    parts: Vec<Keyed>,
    impressions: Vec<(Option<String>, Option<String>, u64)>,
) -> PyResult<Vec<(Option<String>, Option<String>, Vec<Vec<f64>>)>> {
    let names: Vec<String> = parse_estimators(&estimators)?
        .iter()
        .map(OpeEstimator::name)
        .collect();
    let mut out = Vec::new();
    for (column, value, n) in impressions {
        let key = (column, value);
        let means = merge_sums(&candidates, &names, &of_group(&parts, &key))?
            .iter()
            .map(|row| row.iter().map(|s| s.mean(n)).collect())
            .collect();
        out.push((key.0, key.1, means));
    }
    Ok(out)
}

/// The report of the whole log from the partitions' states `parts` and
/// the partitions' squared deviations of the paired differences `squares`
/// ([`spark_ope_paired`] with centres), both keyed by group, over each
/// group's `impressions` (`(None, None, n)` the whole log's), for the
/// request `policies` and `options` ([`request`]): `rankeval ope --format
/// json`'s document (the estimates, the comparisons of each later policy
/// with the first, paired by impression, corrected, and the gates decided
/// on them; with the groups, each group's report, the note on the
/// contexts in no group, `ungrouped`'s `(column, context)` pairs, the
/// families across the groups and the gates on a group), the log named
/// `log_name`.
#[pyfunction]
#[pyo3(signature = (policies, options, parts, squares, impressions, ungrouped, slate_len, log_name="spark"))]
#[allow(clippy::too_many_arguments)]
pub fn spark_ope_report(
    policies: Vec<(Option<String>, PathBuf)>,
    options: &Bound<'_, PyDict>,
    parts: Vec<Keyed>,
    squares: Vec<Keyed>,
    impressions: Vec<(Option<String>, Option<String>, u64)>,
    ungrouped: Vec<(String, String)>,
    slate_len: usize,
    log_name: &str,
) -> PyResult<String> {
    let request = request(policies, options)?;
    let policies = request.names();
    let plan = &request.plan;
    let names: Vec<String> = plan.estimators.iter().map(OpeEstimator::name).collect();
    let merged = |key: &GroupKey| -> PyResult<MergedGroup> {
        let states = merge_states(&policies, &names, &of_group(&parts, key))?;
        let squares: Vec<Vec<f64>> = merge_sums(
            policies.get(1..).unwrap_or(&[]),
            &names,
            &of_group(&squares, key),
        )?
        .iter()
        .map(|row| row.iter().map(FullSum::value).collect())
        .collect();
        Ok((states, squares))
    };
    let count = |key: &GroupKey| {
        impressions
            .iter()
            .find(|(c, v, _)| (c, v) == (&key.0, &key.1))
            .map(|(_, _, n)| *n)
            .ok_or_else(|| PyValueError::new_err(format!("no impressions of {}", shown(key))))
    };
    let whole: GroupKey = (None, None);
    let (states, squares_whole) = merged(&whole)?;
    let summary = LogSummary {
        name: log_name.to_owned(),
        impressions: count(&whole)?,
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
    let unfit = |e: rankeval::ope::OpeRunError| PyValueError::new_err(e.to_string());
    let report = match &request.groups {
        None => rankeval::ope::merged::merged_report(
            summary,
            &policies,
            plan,
            &states,
            &squares_whole,
            sampled,
        )
        .map_err(unfit)?,
        Some(path) => {
            let file = rankeval::read::read_groups(path)
                .map_err(|e| InputError::new_err(format!("{}: {e}", path.display())))?;
            let mut groups = Vec::new();
            let mut notes = Vec::new();
            for column in file.columns() {
                let values: Vec<&str> = impressions
                    .iter()
                    .filter(|(c, ..)| c.as_deref() == Some(column.as_str()))
                    .filter_map(|(_, v, _)| v.as_deref())
                    .collect();
                for value in rankeval::groups::group_order(values.into_iter()) {
                    let key = (Some(column.clone()), Some(value.to_owned()));
                    let (states, squares) = merged(&key)?;
                    groups.push(rankeval::ope::merged::MergedGroup {
                        column: column.clone(),
                        value: value.to_owned(),
                        impressions: count(&key)?,
                        states,
                        squares,
                    });
                }
                let mut without: Vec<&str> = ungrouped
                    .iter()
                    .filter(|(c, _)| c == column)
                    .map(|(_, context)| context.as_str())
                    .collect();
                without.sort_unstable();
                without.dedup();
                notes.push((
                    column.clone(),
                    without.len(),
                    without.iter().take(3).map(|c| (*c).to_owned()).collect(),
                ));
            }
            rankeval::ope::merged::merged_report_with_groups(
                summary,
                &policies,
                plan,
                &states,
                &squares_whole,
                sampled,
                rankeval::ope::merged::MergedGroups {
                    path,
                    groups,
                    ungrouped: notes,
                    in_family: request.groups_in_family,
                },
            )
            .map_err(unfit)?
        }
    };
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
        groups: _,
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
