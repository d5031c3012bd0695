//! Two policies compared on one log, paired by impression: the difference
//! of their estimates with the standard error of the difference of their
//! per-impression linearised contributions, so that the noise both share
//! (the same impressions, the same rewards) cancels.

use rankeval_core::exact_sum::{fmean, fsum};
use rankeval_stats::Interval;
use rankeval_stats::student::{sf, upper_quantile};
use serde::Serialize;

use crate::error::OpeError;
use crate::estimate::{IntervalKind, Options};
use crate::state::{Contribution, Form};

/// Each impression's linearised contribution to an estimate of the form
/// `form`: the estimate plus the impression's influence (the delta
/// method), whose mean is the estimate and whose standard deviation over
/// `sqrt(n)` is [`State`](crate::State)'s standard error. For
/// [`Form::Mean`] the contributions themselves; for [`Form::Ratio`] `V +
/// (a - V b) / mean(b)`; for [`Form::MeanPlusRatio`] `V + (d - mean(d)) +
/// (a - R b) / mean(b)`, `R = mean(a) / mean(b)`.
pub fn linearised(form: Form, contributions: &[Contribution]) -> Vec<f64> {
    let column = |j: usize| -> Vec<f64> { contributions.iter().map(|c| c.columns[j]).collect() };
    match form {
        Form::Mean => column(0),
        Form::Ratio => {
            let (a, b) = (column(0), column(1));
            let (ma, mb) = (fmean(&a), fmean(&b));
            let v = ma / mb;
            a.iter()
                .zip(&b)
                .map(|(a, b)| v + (a - v * b) / mb)
                .collect()
        }
        Form::MeanPlusRatio => {
            let (d, a, b) = (column(0), column(1), column(2));
            let (md, ma, mb) = (fmean(&d), fmean(&a), fmean(&b));
            let r = ma / mb;
            let v = md + r;
            d.iter()
                .zip(&a)
                .zip(&b)
                .map(|((d, a), b)| v + (d - md) + (a - r * b) / mb)
                .collect()
        }
    }
}

/// A paired comparison of a candidate with a baseline under one estimator.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairedDifference {
    /// The candidate's estimate less the baseline's.
    pub difference: f64,
    /// The standard error of the difference: the standard deviation of the
    /// per-impression differences of linearised contributions over
    /// `sqrt(n)`.
    pub standard_error: f64,
    /// The interval of the difference.
    pub interval: Interval,
    /// The two-sided p-value of "no difference" (normal, or Student's t
    /// with `n - 1` degrees of freedom, as the interval).
    pub p_value: f64,
    /// Impressions.
    pub n: u64,
}

/// The paired comparison of `candidate` with `baseline` (their linearised
/// contributions on the same impressions, in the same order), whose
/// estimates are `candidate_value` and `baseline_value`. Errors: columns of
/// different lengths, a level not strictly between 0 and 1.
pub fn paired_difference(
    candidate: &[f64],
    baseline: &[f64],
    candidate_value: f64,
    baseline_value: f64,
    options: &Options,
) -> Result<PairedDifference, OpeError> {
    let level = options.level;
    if !(level > 0.0 && level < 1.0) {
        return Err(OpeError::Level(level));
    }
    if candidate.len() != baseline.len() {
        return Err(OpeError::Length {
            index: candidate.len().min(baseline.len()),
            what: "paired contributions",
            expected: baseline.len(),
            found: candidate.len(),
        });
    }
    let n = candidate.len();
    let d: Vec<f64> = candidate.iter().zip(baseline).map(|(a, b)| a - b).collect();
    let difference = candidate_value - baseline_value;
    let standard_error = if n < 2 {
        f64::NAN
    } else {
        let m = fmean(&d);
        let squares = fsum(d.iter().map(|x| (x - m) * (x - m)));
        (squares / (n - 1) as f64 / n as f64).sqrt()
    };
    let df = match options.interval {
        IntervalKind::Normal | IntervalKind::Bootstrap => f64::INFINITY,
        IntervalKind::T => n.saturating_sub(1) as f64,
    };
    let (interval, p_value) = if standard_error == 0.0 {
        let p = if difference == 0.0 { 1.0 } else { 0.0 };
        (
            Interval {
                lower: difference,
                upper: difference,
                level,
            },
            p,
        )
    } else {
        let q = upper_quantile(df, (1.0 - level) / 2.0);
        let t = difference / standard_error;
        (
            Interval {
                lower: difference - q * standard_error,
                upper: difference + q * standard_error,
                level,
            },
            (2.0 * sf(t.abs(), df.max(1.0))).min(1.0),
        )
    };
    Ok(PairedDifference {
        difference,
        standard_error,
        interval,
        p_value,
        n: n as u64,
    })
}
