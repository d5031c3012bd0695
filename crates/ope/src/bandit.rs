//! Single-item (contextual bandit) estimators: one action logged per
//! impression, with the logging policy's probability of it.
//!
//! Notation: impression `i` logged action `a_i` in context `x_i` with
//! probability `π0(a_i|x_i)` (the propensity) and earned reward `r_i`; the
//! target policy `π` would have chosen it with probability `π(a_i|x_i)`;
//! `w_i = π(a_i|x_i) / π0(a_i|x_i)` is its importance weight. A reward
//! model, when given, predicts `q̂(x_i, a_i)` for the logged action and
//! `q̂(x_i, π) = Σ_a π(a|x_i) q̂(x_i, a)` for the target. Definitions as in
//! Su, Dimakopoulou, Krishnamurthy and Dudík, "Doubly robust off-policy
//! evaluation with shrinkage" (ICML 2020), section 2, and as Open Bandit
//! Pipeline's `obp/ope/estimators.py` computes them (Saito et al., 2021),
//! which is what the docs and tests check.

use crate::check;
use crate::error::OpeError;
use crate::estimate::{Estimate, Options};
use crate::state::{Contribution, Form, State};

/// A reward model's predictions for one impression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// `q̂(x_i, a_i)`: the predicted reward of the logged action.
    pub logged: f64,
    /// `q̂(x_i, π) = Σ_a π(a|x_i) q̂(x_i, a)`: the predicted reward of
    /// the target policy in this context.
    pub target: f64,
}

/// One logged impression of a single action.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Record {
    /// `r_i`.
    pub reward: f64,
    /// `π0(a_i|x_i)`, in `(0, 1]`.
    pub logging: f64,
    /// `π(a_i|x_i)`, in `[0, 1]`.
    pub target: f64,
    /// The reward model's predictions, for DM and the doubly robust family.
    pub model: Option<Prediction>,
}

/// A single-item estimator, under its published name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Estimator {
    /// Inverse propensity scoring (Horvitz and Thompson, 1952): `mean(w r)`.
    /// Unbiased when the logging policy supports the target.
    Ips,
    /// IPS with every weight clipped at `max_weight` (Ionides, 2008;
    /// obp's `InverseProbabilityWeighting(lambda_)`): `mean(min(w, M) r)`.
    /// Less variance, biased down for non-negative rewards.
    ClippedIps {
        /// `M > 0`.
        max_weight: f64,
    },
    /// Self-normalised IPS (Swaminathan and Joachims, 2015):
    /// `Σ w r / Σ w`. Biased, consistent; invariant to a constant added to
    /// every reward.
    Snips,
    /// The direct method: `mean(q̂(x_i, π))`, the reward model alone.
    /// Biased as the model is.
    Dm,
    /// Doubly robust (Dudík, Langford and Li, 2011):
    /// `mean(q̂(x_i, π) + w (r - q̂(x_i, a_i)))`. Unbiased when the weights
    /// are right, whatever the model.
    Dr,
    /// Self-normalised DR (obp's `SelfNormalizedDoublyRobust`):
    /// `mean(q̂(x_i, π)) + Σ w (r - q̂(x_i, a_i)) / Σ w`.
    Sndr,
    /// Switch-DR (Wang, Agarwal and Dudík, 2017), as obp's
    /// `SwitchDoublyRobust`: `mean(q̂(x_i, π) + 1{w <= τ} w (r -
    /// q̂(x_i, a_i)))`, the direct method where the weight exceeds `τ`.
    SwitchDr {
        /// `τ >= 0` (infinite: DR).
        tau: f64,
    },
    /// DR with optimistic shrinkage (Su et al., 2020, eq. 10; obp's
    /// `DoublyRobustWithShrinkage`): the weight shrunk to `λ w / (w² + λ)`,
    /// `mean(q̂(x_i, π) + ŵ (r - q̂(x_i, a_i)))`.
    DrOs {
        /// `λ >= 0` (0: DM; infinite: DR).
        lambda: f64,
    },
}

impl Estimator {
    /// The name reports print: `ips`, `clipped_ips(max_weight=10)`,
    /// `snips`, `dm`, `dr`, `sndr`, `switch_dr(tau=5)`, `dr_os(lambda=1)`.
    pub fn name(&self) -> String {
        match self {
            Estimator::Ips => "ips".into(),
            Estimator::ClippedIps { max_weight } => format!("clipped_ips(max_weight={max_weight})"),
            Estimator::Snips => "snips".into(),
            Estimator::Dm => "dm".into(),
            Estimator::Dr => "dr".into(),
            Estimator::Sndr => "sndr".into(),
            Estimator::SwitchDr { tau } => format!("switch_dr(tau={tau})"),
            Estimator::DrOs { lambda } => format!("dr_os(lambda={lambda})"),
        }
    }

    fn short(&self) -> &'static str {
        match self {
            Estimator::Ips => "ips",
            Estimator::ClippedIps { .. } => "clipped_ips",
            Estimator::Snips => "snips",
            Estimator::Dm => "dm",
            Estimator::Dr => "dr",
            Estimator::Sndr => "sndr",
            Estimator::SwitchDr { .. } => "switch_dr",
            Estimator::DrOs { .. } => "dr_os",
        }
    }

    /// How the estimate is made from the columns.
    pub fn form(&self) -> Form {
        match self {
            Estimator::Snips => Form::Ratio,
            Estimator::Sndr => Form::MeanPlusRatio,
            _ => Form::Mean,
        }
    }

    /// Whether the estimator reads a reward model.
    pub fn needs_model(&self) -> bool {
        matches!(
            self,
            Estimator::Dm
                | Estimator::Dr
                | Estimator::Sndr
                | Estimator::SwitchDr { .. }
                | Estimator::DrOs { .. }
        )
    }

    /// Checks the parameters: `max_weight > 0`, `tau >= 0`, `lambda >= 0`
    /// (none NaN).
    pub fn validate(&self) -> Result<(), OpeError> {
        let (parameter, value, ok, reason) = match *self {
            Estimator::ClippedIps { max_weight } => (
                "max_weight",
                max_weight,
                max_weight > 0.0,
                "must be greater than 0",
            ),
            Estimator::SwitchDr { tau } => ("tau", tau, tau >= 0.0, "must be at least 0"),
            Estimator::DrOs { lambda } => ("lambda", lambda, lambda >= 0.0, "must be at least 0"),
            _ => return Ok(()),
        };
        if ok {
            Ok(())
        } else {
            Err(OpeError::Parameter {
                estimator: self.short(),
                parameter,
                value,
                reason,
            })
        }
    }

    /// An empty state of this estimator.
    pub fn state(&self) -> State {
        State::new(self.name(), self.form())
    }

    /// Impression `index`'s contribution. Errors: a propensity outside
    /// `(0, 1]`, a target probability outside `[0, 1]`, a reward or
    /// prediction not finite, no reward model where one is needed.
    pub fn contribution(&self, index: usize, r: &Record) -> Result<Contribution, OpeError> {
        let logging = check::logging(index, None, r.logging)?;
        let target = check::target(index, None, r.target)?;
        let reward = check::finite(index, None, "reward", r.reward)?;
        let w = target / logging;
        let model = match (self.needs_model(), r.model) {
            (false, _) => None,
            (true, None) => {
                return Err(OpeError::MissingRewardModel {
                    index,
                    estimator: self.short(),
                });
            }
            (true, Some(p)) => Some((
                check::finite(
                    index,
                    None,
                    "predicted reward of the logged action",
                    p.logged,
                )?,
                check::finite(index, None, "predicted reward of the target", p.target)?,
            )),
        };
        let (q_logged, q_target) = model.unwrap_or((0.0, 0.0));
        let residual = reward - q_logged;
        let mut clipped = false;
        let columns = match *self {
            Estimator::Ips => [w * reward, 0.0, 0.0],
            Estimator::ClippedIps { max_weight } => {
                clipped = w > max_weight;
                [w.min(max_weight) * reward, 0.0, 0.0]
            }
            Estimator::Snips => [w * reward, w, 0.0],
            Estimator::Dm => [q_target, 0.0, 0.0],
            Estimator::Dr => [q_target + w * residual, 0.0, 0.0],
            Estimator::Sndr => [q_target, w * residual, w],
            Estimator::SwitchDr { tau } => {
                clipped = w > tau;
                let kept = if clipped { 0.0 } else { w };
                [q_target + kept * residual, 0.0, 0.0]
            }
            Estimator::DrOs { lambda } => [q_target + shrunk(w, lambda) * residual, 0.0, 0.0],
        };
        Ok(Contribution {
            columns,
            weight: w,
            support: w,
            clipped,
        })
    }
}

/// The optimistic shrinkage of a weight, `λ w / (w² + λ)` (Su et al.,
/// 2020): `w` for an infinite `λ`, 0 for `w = 0` (whatever `λ`) and for
/// `λ = 0`.
pub fn shrunk(w: f64, lambda: f64) -> f64 {
    if lambda == f64::INFINITY {
        w
    } else if w == 0.0 || lambda == 0.0 {
        0.0
    } else {
        lambda * w / (w * w + lambda)
    }
}

/// The state of `estimator` over `records`, impression `i` the `i`-th
/// record.
pub fn state(estimator: &Estimator, records: &[Record]) -> Result<State, OpeError> {
    estimator.validate()?;
    let mut state = estimator.state();
    for (index, record) in records.iter().enumerate() {
        state.add(index, &estimator.contribution(index, record)?)?;
    }
    Ok(state)
}

/// The estimate of `estimator` over `records` under `options`.
pub fn estimate(
    estimator: &Estimator,
    records: &[Record],
    options: &Options,
) -> Result<Estimate, OpeError> {
    state(estimator, records)?.estimate(options)
}
