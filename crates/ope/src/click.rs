//! Click logs: IPS-weighted rank metrics under the position-based model.
//!
//! Joachims, Swaminathan and Schnabel, "Unbiased learning-to-rank with
//! biased feedback" (WSDM 2017), section 4: a user examines the document
//! at logged rank `k` with probability `p_k` (the propensity), and clicks
//! an examined document when it is relevant. For a metric that adds a
//! weight `λ(rank)` per relevant document of a ranking `y`, `Δ(y) =
//! Σ_{d relevant} λ(rank_y(d))`, the estimate from one impression is
//!
//! ```text
//! Δ̂_IPS(y) = Σ_{d clicked} λ(rank_y(d)) / p_{logged rank of d}
//! ```
//!
//! unbiased for `Δ(y)` when every relevant document was shown at a rank
//! with `p_k > 0` (eq. 7); a clicked document the target does not rank
//! adds 0. The estimate of the target is the mean over impressions.
//! Propensities are given per click, or per rank (`p_k = (1/k)^η`, the
//! power law the paper estimates, [`power_law`]).

use crate::check;
use crate::error::OpeError;
use crate::estimate::{Estimate, Options};
use crate::state::{Contribution, Form, State};

/// The weight a rank metric gives a relevant document at a rank.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RankWeight {
    /// DCG with binary gain: `1 / log2(rank + 1)` down to rank `k`
    /// (`None`: every rank).
    Dcg {
        /// The cutoff.
        k: Option<usize>,
    },
    /// Rank-biased precision (Moffat and Zobel, 2008): `(1 - p) p^(rank -
    /// 1)`.
    Rbp {
        /// The persistence, in `(0, 1)`.
        p: f64,
    },
    /// Precision at `k`: `1 / k` down to rank `k`.
    Precision {
        /// The cutoff, at least 1.
        k: usize,
    },
}

impl RankWeight {
    /// `λ(rank)`, `rank` 1-based.
    pub fn at(&self, rank: usize) -> f64 {
        match *self {
            RankWeight::Dcg { k } if k.is_none_or(|k| rank <= k) => {
                1.0 / libm::log2(rank as f64 + 1.0)
            }
            RankWeight::Rbp { p } => (1.0 - p) * libm::pow(p, rank as f64 - 1.0),
            RankWeight::Precision { k } if rank <= k => 1.0 / k as f64,
            _ => 0.0,
        }
    }

    /// The metric's name: `dcg@10`, `dcg`, `rbp(p=0.8)`, `p@5`.
    pub fn name(&self) -> String {
        match self {
            RankWeight::Dcg { k: Some(k) } => format!("dcg@{k}"),
            RankWeight::Dcg { k: None } => "dcg".into(),
            RankWeight::Rbp { p } => format!("rbp(p={p})"),
            RankWeight::Precision { k } => format!("p@{k}"),
        }
    }

    fn validate(&self) -> Result<(), OpeError> {
        let bad = |parameter, value, reason| {
            Err(OpeError::Parameter {
                estimator: "click_ips",
                parameter,
                value,
                reason,
            })
        };
        match *self {
            RankWeight::Dcg { k: Some(0) } => bad("k", 0.0, "must be at least 1"),
            RankWeight::Precision { k: 0 } => bad("k", 0.0, "must be at least 1"),
            RankWeight::Rbp { p } if !(p > 0.0 && p < 1.0) => {
                bad("p", p, "must be strictly between 0 and 1")
            }
            _ => Ok(()),
        }
    }
}

/// The examination propensity of rank `k` under the power law `p_k =
/// (1/k)^η` (Joachims et al., 2017, section 6).
pub fn power_law(rank: usize, eta: f64) -> f64 {
    libm::pow(rank as f64, -eta)
}

/// One click of an impression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Click {
    /// The clicked document's rank in the target ranking (1-based), `None`
    /// when the target does not rank it.
    pub target_rank: Option<usize>,
    /// The propensity of its logged rank, in `(0, 1]`.
    pub propensity: f64,
}

/// One logged impression of a ranking, as the target sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Record<'a> {
    /// The clicks.
    pub clicks: &'a [Click],
    /// The target's ranks of the documents the log showed, clicked or not
    /// (those the target ranks): what the log can tell about the target.
    pub shown: &'a [usize],
    /// How many documents the target ranks for this impression.
    pub target_len: usize,
}

/// The IPS-weighted rank metric of a target ranking from click logs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClickIps {
    /// The metric.
    pub metric: RankWeight,
    /// Clip each inverse propensity at this weight (Joachims et al.,
    /// 2017, section 5.2; `None`: no clipping).
    pub max_weight: Option<f64>,
}

impl ClickIps {
    /// The name reports print: `ips_dcg@10`, `ips_rbp(p=0.8)`, with
    /// `(max_weight=M)` when clipped.
    pub fn name(&self) -> String {
        match self.max_weight {
            None => format!("ips_{}", self.metric.name()),
            Some(m) => format!("ips_{}(max_weight={m})", self.metric.name()),
        }
    }

    /// Checks the metric's parameters and the clip (`> 0`).
    pub fn validate(&self) -> Result<(), OpeError> {
        self.metric.validate()?;
        match self.max_weight {
            Some(m) if m.is_nan() || m <= 0.0 => Err(OpeError::Parameter {
                estimator: "click_ips",
                parameter: "max_weight",
                value: m,
                reason: "must be greater than 0",
            }),
            _ => Ok(()),
        }
    }

    /// An empty state.
    pub fn state(&self) -> State {
        State::new(self.name(), Form::Mean)
    }

    /// Impression `index`'s contribution: `Σ_{clicks} λ(target rank) /
    /// p`; its weight the sum of its clicks' inverse propensities, its
    /// support the share of the target's `λ` mass on documents the log
    /// showed (1 when the target ranks nothing). Errors: a propensity
    /// outside `(0, 1]` (the click's 1-based number is the position).
    pub fn contribution(&self, index: usize, r: &Record<'_>) -> Result<Contribution, OpeError> {
        let mut value = 0.0;
        let mut weight = 0.0;
        let mut clipped = false;
        for (c, click) in r.clicks.iter().enumerate() {
            let p = check::logging(index, Some(c + 1), click.propensity)?;
            let inverse = 1.0 / p;
            weight += inverse;
            let used = match self.max_weight {
                Some(m) if inverse > m => {
                    clipped = true;
                    m
                }
                _ => inverse,
            };
            if let Some(rank) = click.target_rank {
                value += self.metric.at(rank) * used;
            }
        }
        let total: f64 = (1..=r.target_len).map(|k| self.metric.at(k)).sum();
        let seen: f64 = r.shown.iter().map(|&k| self.metric.at(k)).sum();
        let support = if total > 0.0 { seen / total } else { 1.0 };
        Ok(Contribution {
            columns: [value, 0.0, 0.0],
            weight,
            support,
            clipped,
        })
    }
}

/// The state of `estimator` over `records`.
pub fn state(estimator: &ClickIps, records: &[Record<'_>]) -> Result<State, OpeError> {
    estimator.validate()?;
    let mut state = estimator.state();
    for (index, record) in records.iter().enumerate() {
        state.add(index, &estimator.contribution(index, record)?)?;
    }
    Ok(state)
}

/// The estimate of `estimator` over `records` under `options`.
pub fn estimate(
    estimator: &ClickIps,
    records: &[Record<'_>],
    options: &Options,
) -> Result<Estimate, OpeError> {
    state(estimator, records)?.estimate(options)
}
