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
    let mean = |j: usize| -> f64 {
        let column: Vec<f64> = contributions.iter().map(|c| c.columns[j]).collect();
        fmean(&column)
    };
    let means = match form {
        Form::Mean => [0.0; 3],
        Form::Ratio => [mean(0), mean(1), 0.0],
        Form::MeanPlusRatio => [mean(0), mean(1), mean(2)],
    };
    contributions
        .iter()
        .map(|c| linearised_with(form, &means, c))
        .collect()
}

/// One impression's linearised contribution ([`linearised`]) given the
/// means of the whole log's columns (`means[j]` the mean of column `j`,
/// as `fmean` gives it and [`State::mean`](crate::State::mean) of the
/// whole log's state): for a log in parts, each part linearises its
/// impressions with the merged state's means, and gets the bits
/// [`linearised`] gives on the whole log.
pub fn linearised_with(form: Form, means: &[f64; 3], c: &Contribution) -> f64 {
    match form {
        Form::Mean => c.columns[0],
        Form::Ratio => {
            let (ma, mb) = (means[0], means[1]);
            let v = ma / mb;
            let (a, b) = (c.columns[0], c.columns[1]);
            v + (a - v * b) / mb
        }
        Form::MeanPlusRatio => {
            let (md, ma, mb) = (means[0], means[1], means[2]);
            let r = ma / mb;
            let v = md + r;
            let (d, a, b) = (c.columns[0], c.columns[1], c.columns[2]);
            v + (d - md) + (a - r * b) / mb
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
    let squares = if n < 2 {
        f64::NAN
    } else {
        let m = fmean(&d);
        fsum(d.iter().map(|x| (x - m) * (x - m)))
    };
    paired_of_squares(n as u64, squares, candidate_value - baseline_value, options)
}

/// The paired comparison of `n` impressions whose per-impression
/// differences `d_i` (the candidate's linearised contribution less the
/// baseline's) have the squared deviations `squares = Σ (d_i - m)^2`, `m =
/// fmean(d)`, each square rounded and the squares summed exactly (as
/// [`paired_difference`] sums them), and whose estimates differ by
/// `difference`: the same bits as [`paired_difference`] on the columns.
/// For a log in parts (a Spark job's partitions): `m` from the parts'
/// exact sums of `d_i`, merged, then `squares` from the parts' exact sums
/// of `(d_i - m)^2`, merged (`rankeval::ope::merged`). Errors: a level not
/// strictly between 0 and 1.
pub fn paired_of_squares(
    n: u64,
    squares: f64,
    difference: f64,
    options: &Options,
) -> Result<PairedDifference, OpeError> {
    let level = options.level;
    if !(level > 0.0 && level < 1.0) {
        return Err(OpeError::Level(level));
    }
    let standard_error = if n < 2 {
        f64::NAN
    } else {
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
        n,
    })
}
