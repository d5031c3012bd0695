//! The checks every estimator applies to its inputs, one place each.

use crate::error::{OpeError, Policy};

/// A logging propensity must be in `(0, 1]`: 0 would divide by zero (the
/// logged action could not have been logged), above 1 is no probability.
pub(crate) fn logging(index: usize, position: Option<usize>, p: f64) -> Result<f64, OpeError> {
    if p > 0.0 && p <= 1.0 {
        Ok(p)
    } else {
        Err(OpeError::Probability {
            index,
            position,
            policy: Policy::Logging,
            value: p,
        })
    }
}

/// A target probability must be in `[0, 1]`.
pub(crate) fn target(index: usize, position: Option<usize>, p: f64) -> Result<f64, OpeError> {
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(OpeError::Probability {
            index,
            position,
            policy: Policy::Target,
            value: p,
        })
    }
}

/// A reward or a model's prediction must be finite.
pub(crate) fn finite(
    index: usize,
    position: Option<usize>,
    what: &'static str,
    value: f64,
) -> Result<f64, OpeError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(OpeError::NotFinite {
            index,
            position,
            what,
            value,
        })
    }
}
