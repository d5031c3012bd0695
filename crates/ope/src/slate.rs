//! Slate estimators: a ranked slate of `L` items logged per impression,
//! with a reward per position (or one per slate) and the logging policy's
//! propensities in one of three forms.
//!
//! Notation: impression `i` showed the slate `s_i = (a_1, ..., a_L)` in
//! context `x_i` and earned `r_l` at position `l`. The forms of
//! probability ([`Probabilities`]), for the logging policy `π0` and the
//! target `π` alike:
//!
//! * the slate's: `π(s_i|x_i)`;
//! * per position, marginal: `π(a_l at l | x_i)`, whatever is shown
//!   elsewhere (the item-position model);
//! * per position, conditional on the items above (the cascade):
//!   `π(a_l | x_i, a_1, ..., a_{l-1})`; their product over `l <= k` is
//!   the probability of the top `k`, over every `l` the slate's.
//!
//! Weights: `w = π(s|x) / π0(s|x)` (the slate's), `w_l` the ratio of the
//! marginals at `l`, and `w_{1:l} = Π_{k <= l} π(a_k|x, a_{<k}) /
//! π0(a_k|x, a_{<k})`, the ratio of the top `l`'s probabilities, with
//! `w_{1:0} = 1`. Definitions as in Open Bandit Pipeline's
//! `obp/ope/estimators_slate.py` (`SlateStandardIPS`, `SlateIndependentIPS`,
//! `SlateRewardInteractionIPS`, `SlateCascadeDoublyRobust`) and Vowpal
//! Wabbit's estimators library (`estimators/slates/pseudo_inverse.py`).

use crate::check;
use crate::error::{OpeError, Policy};
use crate::estimate::{Estimate, Options};
use crate::state::{Contribution, Form, State};

/// One policy's probabilities of a logged slate, in the forms the log has.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Probabilities<'a> {
    /// The slate's probability.
    pub slate: Option<f64>,
    /// Per position, marginal (`L` values).
    pub marginal: Option<&'a [f64]>,
    /// Per position, conditional on the positions above (`L` values).
    pub cascade: Option<&'a [f64]>,
}

/// A reward model's predictions for one slate (Cascade-DR), per position:
/// as obp's `SlateCascadeDoublyRobust` and Kiyohara et al. (2022) define
/// them, `q̂_l` the predicted reward from position `l` on given the top
/// `l` (the cascade's Q function; any model keeps the estimator unbiased
/// when the propensities are right).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CascadeModel<'a> {
    /// `q̂_l(x, a_1, ..., a_l)` for the logged slate (`L` values).
    pub logged: &'a [f64],
    /// `Σ_a π(a|x, a_{<l}) q̂_l(x, a_1, ..., a_{l-1}, a)`: the target's
    /// expected prediction at `l` given the logged items above (`L` values).
    pub target: &'a [f64],
}

/// One logged slate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Record<'a> {
    /// `r_l` per position (`L` values), or one reward for the whole slate
    /// (one value: read by the slate IPS and pseudo-inverse estimators
    /// only, which use the slate's total).
    pub rewards: &'a [f64],
    /// The logging policy's probabilities (the propensities).
    pub logging: Probabilities<'a>,
    /// The target policy's probabilities.
    pub target: Probabilities<'a>,
    /// The reward model's predictions, for Cascade-DR.
    pub model: Option<CascadeModel<'a>>,
}

/// A slate estimator, under its published name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Estimator {
    /// The standard slate IPS (obp's `SlateStandardIPS`): `mean(w Σ_l
    /// r_l)`, `w` the slate's weight (from the slates' probabilities, or
    /// the cascades' products). Unbiased for any reward; its variance grows
    /// with the number of slates.
    SlateIps,
    /// Independent IPS (Li et al., "Offline evaluation of ranking
    /// policies with click models", KDD 2018; obp's `SlateIndependentIPS`):
    /// `mean(Σ_l w_l r_l)` with the marginal weights. Unbiased when the
    /// reward at a position depends on that position's item only.
    IndependentIps,
    /// Reward-interaction IPS (McInerney et al., "Counterfactual
    /// evaluation of slate recommendations with sequential reward
    /// interactions", KDD 2020; obp's `SlateRewardInteractionIPS`):
    /// `mean(Σ_l w_{1:l} r_l)`. Unbiased when the reward at a position
    /// depends on the items at and above it (the cascade).
    RewardInteractionIps,
    /// Cascade doubly robust (Kiyohara et al., "Doubly robust off-policy
    /// evaluation for ranking policies under the cascade behavior model",
    /// WSDM 2022; obp's `SlateCascadeDoublyRobust`): `mean(Σ_l [w_{1:l}
    /// (r_l - q̂_l) + w_{1:l-1} E_π q̂_l])`. With a zero model, RIPS.
    CascadeDr,
    /// The pseudo-inverse estimator for slot-additive rewards (Swaminathan
    /// et al., "Off-policy evaluation for slate recommendation", NeurIPS
    /// 2017, example 4: a logging policy that is a product over slots),
    /// as VW's `pseudo_inverse.py`: `mean(R Γ)`, `R = Σ_l r_l`, `Γ = Σ_l
    /// w_l - (L - 1)` with the marginal weights. With one slot, IPS.
    PseudoInverse,
    /// The self-normalised pseudo-inverse estimator (Swaminathan et al.,
    /// 2017, the weighted PI, wPI): `Σ R Γ / Σ Γ`. With one slot, SNIPS.
    SelfNormalizedPseudoInverse,
}

impl Estimator {
    /// The name reports print: `slate_ips`, `iips`, `rips`, `cascade_dr`,
    /// `pi`, `snpi`.
    pub fn name(&self) -> &'static str {
        match self {
            Estimator::SlateIps => "slate_ips",
            Estimator::IndependentIps => "iips",
            Estimator::RewardInteractionIps => "rips",
            Estimator::CascadeDr => "cascade_dr",
            Estimator::PseudoInverse => "pi",
            Estimator::SelfNormalizedPseudoInverse => "snpi",
        }
    }

    /// How the estimate is made from the columns.
    pub fn form(&self) -> Form {
        match self {
            Estimator::SelfNormalizedPseudoInverse => Form::Ratio,
            _ => Form::Mean,
        }
    }

    /// An empty state of this estimator.
    pub fn state(&self) -> State {
        State::new(self.name(), self.form())
    }

    /// Impression `index`'s contribution. Errors: a form of propensity
    /// the estimator needs and the record lacks, arrays of different
    /// lengths, a probability out of range, a reward or prediction not
    /// finite, no model for Cascade-DR.
    pub fn contribution(&self, index: usize, r: &Record<'_>) -> Result<Contribution, OpeError> {
        for (l, &x) in r.rewards.iter().enumerate() {
            check::finite(index, Some(l + 1), "reward", x)?;
        }
        let total: f64 = r.rewards.iter().sum();
        match self {
            Estimator::SlateIps => {
                let w = self.slate_weight(index, r)?;
                Ok(plain(w * total, w))
            }
            Estimator::IndependentIps => {
                let w = self.weights(index, r, false)?;
                let rewards = per_position(index, r.rewards, w.len())?;
                let value = w.iter().zip(rewards).map(|(w, r)| w * r).sum();
                let mean_weight = w.iter().sum::<f64>() / w.len().max(1) as f64;
                Ok(plain(value, mean_weight))
            }
            Estimator::RewardInteractionIps | Estimator::CascadeDr => {
                let w = self.weights(index, r, true)?;
                let rewards = per_position(index, r.rewards, w.len())?;
                let mut value = 0.0;
                match self {
                    Estimator::CascadeDr => {
                        let model = r.model.ok_or(OpeError::MissingRewardModel {
                            index,
                            estimator: self.name(),
                        })?;
                        let logged = per_position_named(
                            index,
                            model.logged,
                            w.len(),
                            "model's logged predictions",
                        )?;
                        let target = per_position_named(
                            index,
                            model.target,
                            w.len(),
                            "model's target predictions",
                        )?;
                        let mut above = 1.0;
                        for l in 0..w.len() {
                            let q =
                                check::finite(index, Some(l + 1), "predicted reward", logged[l])?;
                            let e =
                                check::finite(index, Some(l + 1), "predicted reward", target[l])?;
                            value += w[l] * (rewards[l] - q) + above * e;
                            above = w[l];
                        }
                    }
                    _ => {
                        for l in 0..w.len() {
                            value += w[l] * rewards[l];
                        }
                    }
                }
                let last = w.last().copied().unwrap_or(1.0);
                Ok(plain(value, last))
            }
            Estimator::PseudoInverse | Estimator::SelfNormalizedPseudoInverse => {
                let w = self.weights(index, r, false)?;
                let gamma = w.iter().sum::<f64>() - (w.len() as f64 - 1.0);
                let columns = match self {
                    Estimator::PseudoInverse => [total * gamma, 0.0, 0.0],
                    _ => [total * gamma, gamma, 0.0],
                };
                Ok(Contribution {
                    columns,
                    weight: gamma,
                    support: gamma,
                    clipped: false,
                })
            }
        }
    }

    /// The slate's weight: from the slates' probabilities, else from the
    /// products of the cascades'.
    fn slate_weight(&self, index: usize, r: &Record<'_>) -> Result<f64, OpeError> {
        let logging = match (r.logging.slate, r.logging.cascade) {
            (Some(p), _) => check::logging(index, None, p)?,
            (None, Some(c)) => product(index, c, Policy::Logging)?,
            (None, None) => {
                return Err(self.missing(index, Policy::Logging, "slate or cascade probabilities"));
            }
        };
        let target = match (r.target.slate, r.target.cascade) {
            (Some(p), _) => check::target(index, None, p)?,
            (None, Some(c)) => product(index, c, Policy::Target)?,
            (None, None) => {
                return Err(self.missing(index, Policy::Target, "slate or cascade probabilities"));
            }
        };
        Ok(target / logging)
    }

    /// The per-position weights: `w_l` from the marginals, or with
    /// `cascade` the cumulative `w_{1:l}` from the conditionals.
    fn weights(&self, index: usize, r: &Record<'_>, cascade: bool) -> Result<Vec<f64>, OpeError> {
        let (form, logging, target) = if cascade {
            (
                "per-position cascade probabilities",
                r.logging.cascade,
                r.target.cascade,
            )
        } else {
            (
                "per-position marginal probabilities",
                r.logging.marginal,
                r.target.marginal,
            )
        };
        let logging = logging.ok_or_else(|| self.missing(index, Policy::Logging, form))?;
        let target = target.ok_or_else(|| self.missing(index, Policy::Target, form))?;
        if target.len() != logging.len() {
            return Err(OpeError::Length {
                index,
                what: "target probabilities",
                expected: logging.len(),
                found: target.len(),
            });
        }
        let mut weights = Vec::with_capacity(logging.len());
        let mut running = 1.0;
        for (l, (&p0, &p)) in logging.iter().zip(target).enumerate() {
            let ratio =
                check::target(index, Some(l + 1), p)? / check::logging(index, Some(l + 1), p0)?;
            if cascade {
                running *= ratio;
                weights.push(running);
            } else {
                weights.push(ratio);
            }
        }
        Ok(weights)
    }

    fn missing(&self, index: usize, policy: Policy, form: &'static str) -> OpeError {
        OpeError::MissingPropensity {
            index,
            estimator: self.name(),
            policy,
            form,
        }
    }
}

/// A contribution of one column whose weight is also its support.
fn plain(value: f64, weight: f64) -> Contribution {
    Contribution {
        columns: [value, 0.0, 0.0],
        weight,
        support: weight,
        clipped: false,
    }
}

/// The product of a cascade's conditional probabilities: the slate's.
fn product(index: usize, conditional: &[f64], policy: Policy) -> Result<f64, OpeError> {
    let mut p = 1.0;
    for (l, &x) in conditional.iter().enumerate() {
        p *= match policy {
            Policy::Logging => check::logging(index, Some(l + 1), x)?,
            Policy::Target => check::target(index, Some(l + 1), x)?,
        };
    }
    Ok(p)
}

fn per_position(index: usize, rewards: &[f64], len: usize) -> Result<&[f64], OpeError> {
    per_position_named(index, rewards, len, "rewards")
}

fn per_position_named<'a>(
    index: usize,
    values: &'a [f64],
    len: usize,
    what: &'static str,
) -> Result<&'a [f64], OpeError> {
    if values.len() == len {
        Ok(values)
    } else {
        Err(OpeError::Length {
            index,
            what,
            expected: len,
            found: values.len(),
        })
    }
}

/// The state of `estimator` over `records`.
pub fn state(estimator: &Estimator, records: &[Record<'_>]) -> Result<State, OpeError> {
    let mut state = estimator.state();
    for (index, record) in records.iter().enumerate() {
        state.add(index, &estimator.contribution(index, record)?)?;
    }
    Ok(state)
}

/// The estimate of `estimator` over `records` under `options`.
pub fn estimate(
    estimator: &Estimator,
    records: &[Record<'_>],
    options: &Options,
) -> Result<Estimate, OpeError> {
    state(estimator, records)?.estimate(options)
}
