//! Off-policy evaluation on Spark (`rankeval_rs.spark.ope`): each
//! partition's impressions, handed over as Arrow IPC bytes and read by the
//! command line's reader (`rankeval_readers::impressions`, every check),
//! give each policy's state under each estimator
//! ([`spark_ope_states`], `rankeval::ope::ope_states`) as bytes
//! (`rankeval_ope::wire`); the driver merges them and finishes them into
//! the estimates ([`spark_ope_estimates`]): the bits of `rankeval ope` on
//! the whole log, for any partitioning.

use std::collections::HashMap;
use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rankeval::ope::estimators::{Floors, IntervalKind, Options, State};
use rankeval::ope::{
    Candidate, MarginalSampling, OpeEstimator, OpePlan, RewardModel, TargetPolicy, estimates_of,
    ope_states,
};
use rankeval::read::impressions::{
    ImpressionColumns, ImpressionOptions, Layout, PropensityForm, RewardPer, parse_impressions,
};
use rankeval::read::{Input, ReadOptions};

use crate::errors::InputError;

/// One partition's states: `log` is the partition's impressions as an
/// Arrow IPC stream (named `name` in messages), the rest as `rankeval
/// ope`'s flags (`samples` and `seed`: `--samples` and `--seed`, the
/// Plackett-Luce marginals by seeded Monte Carlo, whose draws depend on
/// the impression id, not the partition). Returns the impressions read, the slate length, and one
/// `(policy, estimator, state bytes)` per policy and estimator.
#[pyfunction]
#[pyo3(signature = (log, name, estimators, policies, target_column=None, plackett_luce=None, form="action", reward_per="impression", reward_range=None, columns=None, reward_model=None, allow_low_support=false, samples=None, seed=42))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn spark_ope_states<'py>(
    py: Python<'py>,
    log: &[u8],
    name: &str,
    estimators: Vec<String>,
    policies: Vec<(String, PathBuf)>,
    target_column: Option<String>,
    plackett_luce: Option<f64>,
    form: &str,
    reward_per: &str,
    reward_range: Option<(f64, f64)>,
    columns: Option<HashMap<String, String>>,
    reward_model: Option<PathBuf>,
    allow_low_support: bool,
    samples: Option<u64>,
    seed: u64,
) -> PyResult<(u64, usize, Vec<(String, String, Bound<'py, PyBytes>)>)> {
    let value = |e: String| PyValueError::new_err(e);
    let form = PropensityForm::from_name(form).ok_or_else(|| {
        value(format!(
            "form `{form}`: one of action, slate, marginal, cascade"
        ))
    })?;
    let reward = match reward_per {
        "impression" => RewardPer::Impression,
        "position" => RewardPer::Position,
        other => {
            return Err(value(format!(
                "reward_per `{other}`: impression or position"
            )));
        }
    };
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
        ..ImpressionOptions::default()
    };
    let log = parse_impressions(log, name, &options)
        .map_err(|e| InputError::new_err(format!("spark: {e}")))?;
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
        // Finished on the driver ([`spark_ope_estimates`]).
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
        gates: Vec::new(),
        // Normal intervals, finished on the driver; comparisons are not
        // made on Spark.
        resampling: None,
        correction: None,
    };
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

/// The estimates of the partitions' states `parts` (`(policy, estimator,
/// bytes)`, in any order), merged per policy and estimator and finished
/// under the interval and the floors: a JSON list of each policy's
/// estimates (in the order of `policies`, each estimator in the order of
/// `estimators`), as `rankeval ope --format json` prints them under
/// `policies`.
#[pyfunction]
#[pyo3(signature = (policies, estimators, parts, interval="normal", level=0.95, min_n=Floors::DEFAULT_MIN_N, min_ess=Floors::DEFAULT_MIN_ESS, min_support=Floors::DEFAULT_MIN_SUPPORT))]
#[allow(clippy::too_many_arguments)]
pub fn spark_ope_estimates(
    policies: Vec<String>,
    estimators: Vec<String>,
    parts: Vec<(String, String, Vec<u8>)>,
    interval: &str,
    level: f64,
    min_n: u64,
    min_ess: f64,
    min_support: f64,
) -> PyResult<String> {
    let value = |e: String| PyValueError::new_err(e);
    let names: Vec<String> = parse_estimators(&estimators)?
        .iter()
        .map(OpeEstimator::name)
        .collect();
    let interval = match interval {
        "normal" => IntervalKind::Normal,
        "t" => IntervalKind::T,
        other => return Err(value(format!("interval `{other}`: normal or t"))),
    };
    let mut merged: Vec<Vec<Option<State>>> = vec![vec![None; names.len()]; policies.len()];
    for (policy, estimator, bytes) in &parts {
        let p = policies
            .iter()
            .position(|x| x == policy)
            .ok_or_else(|| value(format!("a state of an unknown policy `{policy}`")))?;
        let e = names
            .iter()
            .position(|x| x == estimator)
            .ok_or_else(|| value(format!("a state of an unknown estimator `{estimator}`")))?;
        let state = State::from_bytes(bytes)
            .map_err(|err| value(format!("policy `{policy}`, {estimator}: {err}")))?;
        match &mut merged[p][e] {
            slot @ None => *slot = Some(state),
            Some(sum) => sum
                .merge(&state)
                .map_err(|err| value(format!("policy `{policy}`: {err}")))?,
        }
    }
    let states: Vec<Vec<State>> = merged
        .into_iter()
        .zip(&policies)
        .map(|(row, policy)| {
            row.into_iter()
                .zip(&names)
                .map(|(s, e)| s.ok_or_else(|| value(format!("no state of policy `{policy}`, {e}"))))
                .collect()
        })
        .collect::<PyResult<_>>()?;
    let options = Options {
        interval,
        level,
        floors: Floors {
            min_n,
            min_ess,
            min_support,
        },
    };
    let estimates = estimates_of(&policies, &states, &options).map_err(|e| value(e.to_string()))?;
    serde_json::to_string(&estimates).map_err(|e| value(e.to_string()))
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
