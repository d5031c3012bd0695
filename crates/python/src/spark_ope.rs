//! Off-policy evaluation on Spark (`rankeval_rs.spark.ope`): each
//! partition's impressions, handed over as Arrow IPC bytes and read by the
//! command line's reader (`rankeval_readers::impressions`, every check),
//! give each policy's state under each estimator
//! ([`spark_ope_states`], `rankeval::ope::ope_states`) as bytes
//! (`rankeval_ope::wire`); the driver merges them and finishes them into
//! the estimates; two more passes give the paired comparisons
//! ([`spark_ope_paired`], `rankeval::ope::merged`), and the driver renders
//! the report with its gates ([`spark_ope_report`]): the bits of `rankeval
//! ope` on the whole log, for any partitioning.

use std::collections::HashMap;
use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rankeval::ope::click::Examination;
use rankeval::ope::estimators::{Floors, IntervalKind, Options, State};
use rankeval::ope::{
    Candidate, LogSummary, MarginalSampling, OpeEstimator, OpePlan, RewardModel, TargetPolicy,
    ope_states,
};
use rankeval::read::impressions::{
    ImpressionColumns, ImpressionOptions, Layout, PropensityForm, RewardPer, parse_impressions,
};
use rankeval::read::{Input, ReadOptions};
use rankeval_core::exact_sum::FullSum;
use rankeval_stats::Correction;

use crate::errors::InputError;

/// A partition's impressions and what to estimate on them, from the
/// keywords every task of `rankeval_rs.spark.ope` is given.
struct Part {
    log: rankeval::ope::ImpressionLog,
    candidates: Vec<Candidate>,
    plan: OpePlan,
}

/// The form of a log's propensities and its rewards, from the keywords
/// `form`, `reward_per` and `examination` (as the spec reads the flags: a
/// per-rank examination rule implies the click log's `examination` form,
/// and a click log's rewards are per position).
fn form_of(
    form: Option<&str>,
    reward_per: Option<&str>,
    examination: Option<&str>,
) -> PyResult<(PropensityForm, RewardPer, Option<Examination>)> {
    let value = |e: String| PyValueError::new_err(e);
    let form = match (form, examination) {
        (Some(name), _) => PropensityForm::from_name(name).ok_or_else(|| {
            value(format!(
                "form `{name}`: one of action, slate, marginal, cascade, examination"
            ))
        })?,
        (None, Some(_)) => PropensityForm::Examination,
        (None, None) => PropensityForm::Action,
    };
    let examination = match examination {
        None => None,
        Some(_) if form != PropensityForm::Examination => {
            return Err(value(format!(
                "examination propensities per rank are a click log's, and the log's form is `{}`: \
                 give form=\"examination\" (or no form)",
                form.name()
            )));
        }
        Some(text) => Some(
            Examination::parse(text).map_err(|e| value(format!("examination={text:?}: {e}")))?,
        ),
    };
    let reward = match (reward_per, form) {
        (None, PropensityForm::Examination) => RewardPer::Position,
        (None, _) | (Some("impression"), _) => RewardPer::Impression,
        (Some("position"), _) => RewardPer::Position,
        (Some(other), _) => {
            return Err(value(format!(
                "reward_per `{other}`: impression or position"
            )));
        }
    };
    if form == PropensityForm::Examination && reward == RewardPer::Impression {
        return Err(value(
            "a click log (form examination) has a click per position: its rewards are per position"
                .into(),
        ));
    }
    Ok((form, reward, examination))
}

#[allow(clippy::too_many_arguments)]
fn part(
    log: &[u8],
    name: &str,
    estimators: Vec<String>,
    policies: Vec<(String, PathBuf)>,
    target_column: Option<String>,
    plackett_luce: Option<f64>,
    form: Option<&str>,
    reward_per: Option<&str>,
    reward_range: Option<(f64, f64)>,
    columns: Option<HashMap<String, String>>,
    reward_model: Option<PathBuf>,
    allow_low_support: bool,
    samples: Option<u64>,
    seed: u64,
    examination: Option<&str>,
) -> PyResult<Part> {
    let value = |e: String| PyValueError::new_err(e);
    let (form, reward, examination) = form_of(form, reward_per, examination)?;
    let mut names = ImpressionColumns::default();
    for (key, column) in columns.unwrap_or_default() {
        match key.as_str() {
            "context" => names.context = column,
            "impression" => names.impression = column,
            "item" => names.item = column,
            "position" => names.position = column,
            "reward" => names.reward = column,
            "propensity" => names.propensity = column,
            "target" => names.target = Some(column),
            other => {
                return Err(value(format!(
                    "columns: unknown key `{other}` (context, impression, item, position, reward, propensity, target)"
                )));
            }
        }
    }
    if let Some(t) = plackett_luce
        && !(t > 0.0 && t.is_finite())
    {
        return Err(value(format!(
            "plackett_luce={t}: the temperature must be a positive number"
        )));
    }
    let estimators = parse_estimators(&estimators)?;
    let options = ImpressionOptions {
        columns: names,
        form,
        reward,
        reward_range,
        layout: Layout::Auto,
        propensities_by_rank: examination.is_some(),
    };
    let mut log = parse_impressions(log, name, &options)
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
    for (policy, path) in &policies {
        let run = read_run(path)?;
        candidates.push(Candidate {
            name: policy.clone(),
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
    let plan = OpePlan {
        estimators,
        // Finished on the driver ([`spark_ope_report`]).
        options: Options {
            interval: IntervalKind::Normal,
            level: 0.95,
            floors: Floors::default(),
        },
        allow_unlogged: allow_low_support,
        allow_low_support,
        model: match &reward_model {
            None => None,
            Some(path) => Some(
                RewardModel::from_run(&read_run(path)?, path)
                    .map_err(|e| InputError::new_err(format!("spark: {e}")))?,
            ),
        },
        sampling: samples.map(|samples| MarginalSampling { samples, seed }),
        // Decided on the driver ([`spark_ope_report`]).
        gates: Vec::new(),
        // Normal or t intervals, finished on the driver.
        resampling: None,
        correction: None,
    };
    Ok(Part {
        log,
        candidates,
        plan,
    })
}

/// One partition's states: `log` is the partition's impressions as an
/// Arrow IPC stream (named `name` in messages), the rest as `rankeval
/// ope`'s flags (`samples` and `seed`: `--samples` and `--seed`, the
/// Plackett-Luce marginals by seeded Monte Carlo, whose draws depend on
/// the impression id, not the partition; `examination`: a click log's
/// propensities per rank, `--examination`). Returns the impressions read,
/// the slate length, and one `(policy, estimator, state bytes)` per policy
/// and estimator.
#[pyfunction]
#[pyo3(signature = (log, name, estimators, policies, target_column=None, plackett_luce=None, form=None, reward_per=None, reward_range=None, columns=None, reward_model=None, allow_low_support=false, samples=None, seed=42, examination=None))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn spark_ope_states<'py>(
    py: Python<'py>,
    log: &[u8],
    name: &str,
    estimators: Vec<String>,
    policies: Vec<(String, PathBuf)>,
    target_column: Option<String>,
    plackett_luce: Option<f64>,
    form: Option<&str>,
    reward_per: Option<&str>,
    reward_range: Option<(f64, f64)>,
    columns: Option<HashMap<String, String>>,
    reward_model: Option<PathBuf>,
    allow_low_support: bool,
    samples: Option<u64>,
    seed: u64,
    examination: Option<&str>,
) -> PyResult<(u64, usize, Vec<(String, String, Bound<'py, PyBytes>)>)> {
    let Part {
        log,
        candidates,
        plan,
    } = part(
        log,
        name,
        estimators,
        policies,
        target_column,
        plackett_luce,
        form,
        reward_per,
        reward_range,
        columns,
        reward_model,
        allow_low_support,
        samples,
        seed,
        examination,
    )?;
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
/// with the first policy (`rankeval::ope::merged`): the same keywords as
/// [`spark_ope_states`], with `merged` the whole log's states
/// ([`spark_ope_merge`]'s). Without `centres`, per candidate after the
/// first and estimator the exact sum of the paired differences of the
/// linearised contributions `d_i`; with `centres` (the whole log's means of
/// `d`, [`spark_ope_centres`]), of `(d_i - m)^2`. Returns one `(candidate,
/// estimator, sum bytes)` each.
#[pyfunction]
#[pyo3(signature = (log, name, merged, centres, estimators, policies, target_column=None, plackett_luce=None, form=None, reward_per=None, reward_range=None, columns=None, reward_model=None, allow_low_support=false, samples=None, seed=42, examination=None))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn spark_ope_paired<'py>(
    py: Python<'py>,
    log: &[u8],
    name: &str,
    merged: Vec<(String, String, Vec<u8>)>,
    centres: Option<Vec<Vec<f64>>>,
    estimators: Vec<String>,
    policies: Vec<(String, PathBuf)>,
    target_column: Option<String>,
    plackett_luce: Option<f64>,
    form: Option<&str>,
    reward_per: Option<&str>,
    reward_range: Option<(f64, f64)>,
    columns: Option<HashMap<String, String>>,
    reward_model: Option<PathBuf>,
    allow_low_support: bool,
    samples: Option<u64>,
    seed: u64,
    examination: Option<&str>,
) -> PyResult<Vec<(String, String, Bound<'py, PyBytes>)>> {
    let names: Vec<String> = parse_estimators(&estimators)?
        .iter()
        .map(OpeEstimator::name)
        .collect();
    let Part {
        log,
        candidates,
        plan,
    } = part(
        log,
        name,
        estimators,
        policies,
        target_column,
        plackett_luce,
        form,
        reward_per,
        reward_range,
        columns,
        reward_model,
        allow_low_support,
        samples,
        seed,
        examination,
    )?;
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
/// ([`spark_ope_paired`] with centres): `rankeval ope --format json`'s
/// document (the estimates, the comparisons of each later policy with the
/// first, paired by impression, corrected with `correction`, and the
/// `gates` decided on them), the log named `log_name`.
#[pyfunction]
#[pyo3(signature = (policies, estimators, parts, squares, impressions, slate_len, form=None, reward_per=None, examination=None, interval="normal", level=0.95, min_n=Floors::DEFAULT_MIN_N, min_ess=Floors::DEFAULT_MIN_ESS, min_support=Floors::DEFAULT_MIN_SUPPORT, allow_low_support=false, gates=Vec::new(), correction=None, sampled=false, samples=None, seed=42, log_name="spark"))]
#[allow(clippy::too_many_arguments)]
pub fn spark_ope_report(
    policies: Vec<String>,
    estimators: Vec<String>,
    parts: Vec<(String, String, Vec<u8>)>,
    squares: Vec<(String, String, Vec<u8>)>,
    impressions: u64,
    slate_len: usize,
    form: Option<&str>,
    reward_per: Option<&str>,
    examination: Option<&str>,
    interval: &str,
    level: f64,
    min_n: u64,
    min_ess: f64,
    min_support: f64,
    allow_low_support: bool,
    gates: Vec<String>,
    correction: Option<String>,
    sampled: bool,
    samples: Option<u64>,
    seed: u64,
    log_name: &str,
) -> PyResult<String> {
    let (form, reward, _) = form_of(form, reward_per, examination)?;
    let plan = driver_plan(
        &estimators,
        interval,
        level,
        Floors {
            min_n,
            min_ess,
            min_support,
        },
        allow_low_support,
        &gates,
        correction,
        samples.map(|samples| MarginalSampling { samples, seed }),
    )?;
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
        form: form.name(),
        reward: match reward {
            RewardPer::Impression => "impression",
            RewardPer::Position => "position",
        },
    };
    let report = rankeval::ope::merged::merged_report(
        summary,
        &policies,
        &plan,
        &states,
        &squares,
        sampled && form == PropensityForm::Marginal,
    )
    .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(rankeval_report::ope::render(
        &report,
        rankeval_report::ope::OpeFormat::Json,
    ))
}

/// The keywords the driver finishes with, checked before any job reads
/// the log ([`spark_ope_report`] checks them again): the form, the
/// estimators, the interval and its level, the correction, and each gate
/// (an estimator among `estimators`, a policy among `policies`, no group).
#[pyfunction]
#[pyo3(signature = (policies, estimators, form=None, reward_per=None, examination=None, interval="normal", level=0.95, gates=Vec::new(), correction=None))]
#[allow(clippy::too_many_arguments)]
pub fn spark_ope_check(
    policies: Vec<String>,
    estimators: Vec<String>,
    form: Option<&str>,
    reward_per: Option<&str>,
    examination: Option<&str>,
    interval: &str,
    level: f64,
    gates: Vec<String>,
    correction: Option<String>,
) -> PyResult<()> {
    form_of(form, reward_per, examination)?;
    if !(level > 0.0 && level < 1.0) {
        return Err(PyValueError::new_err(format!(
            "level={level}: a level is strictly between 0 and 1"
        )));
    }
    let plan = driver_plan(
        &estimators,
        interval,
        level,
        Floors::default(),
        false,
        &gates,
        correction,
        None,
    )?;
    rankeval::ope::merged::check_gates(&policies, &plan)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The plan the driver finishes the merged states under: the
/// estimators, interval, level, floors, correction (by name, as
/// `--correction`) and gates (as `--gate`) of the keywords.
#[allow(clippy::too_many_arguments)]
fn driver_plan(
    estimators: &[String],
    interval: &str,
    level: f64,
    floors: Floors,
    allow_low_support: bool,
    gates: &[String],
    correction: Option<String>,
    sampling: Option<MarginalSampling>,
) -> PyResult<OpePlan> {
    let value = |e: String| PyValueError::new_err(e);
    let interval = match interval {
        "normal" => IntervalKind::Normal,
        "t" => IntervalKind::T,
        other => return Err(value(format!("interval `{other}`: normal or t"))),
    };
    let correction = match correction {
        None => None,
        Some(name) => Some(
            serde_json::from_value::<Correction>(serde_json::Value::String(name.clone()))
                .map_err(|_| {
                    value(format!(
                        "correction={name:?}: unknown correction (holm, bonferroni, benjamini_hochberg, none)"
                    ))
                })?,
        ),
    };
    let mut parsed_gates = Vec::with_capacity(gates.len());
    for gate in gates {
        parsed_gates.push(
            rankeval::compare::parse_gate(gate, 0.05, |metric| {
                let name = metric.strip_prefix("ope.").unwrap_or(metric);
                OpeEstimator::parse(name).map(|e| e.name())
            })
            .map_err(|reason| value(format!("gates={gate:?}: {reason}")))?,
        );
    }
    Ok(OpePlan {
        estimators: parse_estimators(estimators)?,
        options: Options {
            interval,
            level,
            floors,
        },
        allow_unlogged: allow_low_support,
        allow_low_support,
        model: None,
        sampling,
        gates: parsed_gates,
        resampling: None,
        correction,
    })
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

/// The estimators named `specs`, as `-e` reads them.
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
