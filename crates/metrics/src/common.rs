//! Small counts that several metrics share.

use rankeval_core::{Grade, Judgement};

/// `hits`: how many of `top` are relevant at `level`.
#[inline]
pub(crate) fn hits(top: &[Judgement], level: Grade) -> usize {
    top.iter().filter(|j| j.is_relevant(level)).count()
}

/// `a / b` as f64, 0 when `b` is 0 (the spec's rule for empty denominators).
#[inline]
pub(crate) fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// Serde's `skip_serializing_if` for `Option` parameters.
pub(crate) fn is_none<T>(value: &Option<T>) -> bool {
    value.is_none()
}
