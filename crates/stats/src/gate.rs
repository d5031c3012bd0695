//! Quality gates: rules a run must satisfy to ship, as pure functions of a
//! mean or a [`Comparison`]. Each evaluation returns pass or fail *and* the
//! number that decided it, with the threshold it was held against, so a
//! report can print "the deciding bound".
//!
//! * `at_least`: the candidate's mean is at least a fixed floor
//!   (`mean >= floor`).
//! * `non_inferior`: the lower bound of the confidence interval of the
//!   difference (candidate - baseline) is above `-margin`
//!   (`lower > -margin`); the margin is absolute, or relative to the
//!   baseline's mean (`margin = fraction * |baseline mean|`).
//! * `superior`: the corrected p-value (the p-value if no correction was
//!   applied) is below `alpha` and the difference is positive.

use serde::{Deserialize, Serialize};

use crate::compare::Comparison;
use crate::error::CompareError;

/// The margin of a non-inferiority rule.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Margin {
    /// A margin in the metric's own units, e.g. 0.01 nDCG.
    Absolute(f64),
    /// A fraction of the baseline's mean, e.g. 0.02 for 2 %.
    Relative(f64),
}

/// A gate rule.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Gate {
    /// `mean >= floor`.
    AtLeast {
        /// The lowest acceptable mean.
        floor: f64,
    },
    /// `lower CI bound of the difference > -margin`.
    NonInferior {
        /// How much worse than the baseline is still acceptable.
        margin: Margin,
    },
    /// `corrected p < alpha` and `difference > 0`.
    Superior {
        /// The significance level, e.g. 0.05.
        alpha: f64,
    },
}

/// Which number decided a gate, so reports can name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Quantity {
    /// The candidate's mean.
    Mean,
    /// The lower bound of the confidence interval of the difference.
    LowerBound,
    /// The corrected p-value (or the p-value, without correction).
    CorrectedPValue,
    /// The difference of means (candidate - baseline).
    Difference,
}

/// How the deciding number is compared with the threshold to pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Relation {
    /// `value >= threshold`.
    #[serde(rename = ">=")]
    AtLeast,
    /// `value > threshold`.
    #[serde(rename = ">")]
    Above,
    /// `value < threshold`.
    #[serde(rename = "<")]
    Below,
}

/// The outcome of one gate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct GateOutcome {
    /// Whether the rule holds.
    pub passed: bool,
    /// The number that decided it.
    pub quantity: Quantity,
    /// Its value.
    pub value: f64,
    /// What the value must be to pass: `value relation threshold`.
    pub relation: Relation,
    /// The threshold (the floor, `-margin` in absolute units, alpha, or 0).
    pub threshold: f64,
}

impl GateOutcome {
    fn check(quantity: Quantity, value: f64, relation: Relation, threshold: f64) -> Self {
        let passed = match relation {
            Relation::AtLeast => value >= threshold,
            Relation::Above => value > threshold,
            Relation::Below => value < threshold,
        };
        Self {
            passed,
            quantity,
            value,
            relation,
            threshold,
        }
    }
}

impl Gate {
    /// The rule's name: `at_least`, `non_inferior` or `superior`.
    pub fn name(&self) -> &'static str {
        match self {
            Gate::AtLeast { .. } => "at_least",
            Gate::NonInferior { .. } => "non_inferior",
            Gate::Superior { .. } => "superior",
        }
    }

    /// Whether the rule needs a baseline (every rule but `at_least`).
    pub fn needs_baseline(&self) -> bool {
        !matches!(self, Gate::AtLeast { .. })
    }

    /// Checks the parameters: finite numbers, a non-negative margin, `alpha`
    /// in `(0, 1]`. Run this when the configuration is read, before any data.
    pub fn validate(&self) -> Result<(), CompareError> {
        let problem = match *self {
            Gate::AtLeast { floor } if !floor.is_finite() => {
                Some(format!("the floor must be a finite number, got {floor}"))
            }
            Gate::NonInferior {
                margin: Margin::Absolute(m) | Margin::Relative(m),
            } if !(m.is_finite() && m >= 0.0) => {
                Some(format!("the margin must be a finite number >= 0, got {m}"))
            }
            Gate::Superior { alpha } if !(alpha > 0.0 && alpha <= 1.0) => {
                Some(format!("alpha must be in (0, 1], got {alpha}"))
            }
            _ => None,
        };
        match problem {
            Some(message) => Err(CompareError::InvalidGate {
                rule: self.name(),
                message,
            }),
            None => Ok(()),
        }
    }

    /// Evaluates the rule for a candidate with mean `mean` and, when there is
    /// a baseline, its comparison with it.
    pub fn evaluate(
        &self,
        mean: f64,
        comparison: Option<&Comparison>,
    ) -> Result<GateOutcome, CompareError> {
        self.validate()?;
        Ok(match *self {
            Gate::AtLeast { floor } => {
                GateOutcome::check(Quantity::Mean, mean, Relation::AtLeast, floor)
            }
            Gate::NonInferior { margin } => {
                let comparison = self.baseline(comparison)?;
                let absolute = match margin {
                    Margin::Absolute(m) => m,
                    Margin::Relative(f) => f * comparison.summary.baseline_mean.abs(),
                };
                GateOutcome::check(
                    Quantity::LowerBound,
                    comparison.interval.lower,
                    Relation::Above,
                    -absolute,
                )
            }
            Gate::Superior { alpha } => {
                let comparison = self.baseline(comparison)?;
                let difference = comparison.summary.difference;
                if difference > 0.0 {
                    let p = comparison.corrected_p_value.unwrap_or(comparison.p_value);
                    GateOutcome::check(Quantity::CorrectedPValue, p, Relation::Below, alpha)
                } else {
                    GateOutcome::check(Quantity::Difference, difference, Relation::Above, 0.0)
                }
            }
        })
    }

    /// The gate decided on any estimate (`estimate`, e.g. an off-policy
    /// estimate of a policy's value) and, for the rules that compare with a
    /// baseline, its paired difference with the baseline's (`versus`): the
    /// same rules as [`evaluate`](Self::evaluate), `at_least` on the
    /// estimate, `non_inferior` on the difference's lower bound,
    /// `superior` on its p-value when the difference is positive.
    pub fn evaluate_estimate(
        &self,
        estimate: f64,
        versus: Option<&Versus>,
    ) -> Result<GateOutcome, CompareError> {
        self.validate()?;
        let with_baseline = || {
            versus.ok_or_else(|| CompareError::InvalidGate {
                rule: self.name(),
                message: "the rule compares with a baseline, and there is none".to_owned(),
            })
        };
        Ok(match *self {
            Gate::AtLeast { floor } => {
                GateOutcome::check(Quantity::Mean, estimate, Relation::AtLeast, floor)
            }
            Gate::NonInferior { margin } => {
                let v = with_baseline()?;
                let absolute = match margin {
                    Margin::Absolute(m) => m,
                    Margin::Relative(f) => f * v.baseline.abs(),
                };
                GateOutcome::check(Quantity::LowerBound, v.lower, Relation::Above, -absolute)
            }
            Gate::Superior { alpha } => {
                let v = with_baseline()?;
                if v.difference > 0.0 {
                    GateOutcome::check(Quantity::CorrectedPValue, v.p_value, Relation::Below, alpha)
                } else {
                    GateOutcome::check(Quantity::Difference, v.difference, Relation::Above, 0.0)
                }
            }
        })
    }

    /// Evaluates the rule on prediction-powered estimates ([`crate::ppi`]):
    /// `at_least` holds the PPI estimate of the candidate's mean against
    /// the floor, `non_inferior` the lower bound of the PPI interval of the
    /// difference against `-margin` (a relative margin of the baseline's
    /// PPI estimate), `superior` the difference's normal p-value against
    /// `alpha` (no correction).
    pub fn evaluate_ppi(
        &self,
        mean: &crate::ppi::PpiMean,
        comparison: Option<&crate::ppi::PpiComparison>,
    ) -> Result<GateOutcome, CompareError> {
        self.validate()?;
        let with_baseline = || {
            comparison.ok_or_else(|| CompareError::InvalidGate {
                rule: self.name(),
                message: "the rule compares with a baseline, and there is none".to_owned(),
            })
        };
        Ok(match *self {
            Gate::AtLeast { floor } => {
                GateOutcome::check(Quantity::Mean, mean.estimate, Relation::AtLeast, floor)
            }
            Gate::NonInferior { margin } => {
                let comparison = with_baseline()?;
                let absolute = match margin {
                    Margin::Absolute(m) => m,
                    Margin::Relative(f) => f * comparison.baseline.estimate.abs(),
                };
                GateOutcome::check(
                    Quantity::LowerBound,
                    comparison.difference.interval.lower,
                    Relation::Above,
                    -absolute,
                )
            }
            Gate::Superior { alpha } => {
                let comparison = with_baseline()?;
                let difference = comparison.difference.estimate;
                if difference > 0.0 {
                    GateOutcome::check(
                        Quantity::CorrectedPValue,
                        comparison.p_value,
                        Relation::Below,
                        alpha,
                    )
                } else {
                    GateOutcome::check(Quantity::Difference, difference, Relation::Above, 0.0)
                }
            }
        })
    }

    fn baseline<'c>(
        &self,
        comparison: Option<&'c Comparison>,
    ) -> Result<&'c Comparison, CompareError> {
        comparison.ok_or_else(|| CompareError::InvalidGate {
            rule: self.name(),
            message: "the rule compares with a baseline, and there is none".to_owned(),
        })
    }
}

/// An estimate's paired comparison with a baseline's, as
/// [`Gate::evaluate_estimate`] reads it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Versus {
    /// The baseline's estimate (a relative margin's base).
    pub baseline: f64,
    /// The estimate less the baseline's.
    pub difference: f64,
    /// The lower bound of the difference's interval.
    pub lower: f64,
    /// The difference's p-value (corrected, if a correction applies).
    pub p_value: f64,
}
