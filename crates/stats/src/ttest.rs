//! Student's paired t-test and its confidence interval, as
//! `scipy.stats.ttest_rel(candidate, baseline)` and its
//! `confidence_interval(level)` compute them.

use serde::Serialize;

use crate::error::CompareError;
use crate::paired::{mean, sample_sd, validate_differences, validate_level};
use crate::student;

/// A two-sided confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// Confidence level, e.g. 0.95.
    pub level: f64,
}

/// The paired t-test on the per-query differences.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TTest {
    /// The t statistic `mean / (sd / sqrt(n))`; infinite when every
    /// difference is the same non-zero value, 0 when all are 0.
    pub t: f64,
    /// Degrees of freedom, `n - 1`.
    pub df: f64,
    /// Standard error of the mean difference, `sd / sqrt(n)`.
    pub standard_error: f64,
    /// Two-sided p-value `2 P(T > |t|)`. It is 0 only when the differences
    /// are one constant non-zero value (scipy gives 0 as well), or when it
    /// underflows; 1 when every difference is 0.
    pub p_value: f64,
    /// `mean ± q * standard_error`, `q` the `(1 + level) / 2` quantile of
    /// Student's t with `df` degrees of freedom.
    pub interval: Interval,
}

/// The paired t-test of `differences` (at least two finite values) with a
/// two-sided interval at `level` (strictly between 0 and 1).
pub fn paired_t(differences: &[f64], level: f64) -> Result<TTest, CompareError> {
    validate_differences(&[differences])?;
    validate_level(level)?;
    let n = differences.len() as f64;
    let df = n - 1.0;
    let m = mean(differences);
    let sd = sample_sd(differences, m);
    let se = sd / n.sqrt();
    if se == 0.0 {
        // Every query moved by the same amount: the interval is that amount.
        let (t, p) = if m == 0.0 {
            (0.0, 1.0)
        } else {
            (m.signum() * f64::INFINITY, 0.0)
        };
        return Ok(TTest {
            t,
            df,
            standard_error: 0.0,
            p_value: p,
            interval: student_interval(m, 0.0, df, level),
        });
    }
    let t = m / se;
    let p = t_two_sided_p(t, df);
    Ok(TTest {
        t,
        df,
        standard_error: se,
        p_value: p,
        interval: student_interval(m, se, df, level),
    })
}

/// The Student t interval `mean ± q * standard_error`, `q` the
/// `(1 + level) / 2` quantile of Student's t with `df >= 1` degrees of
/// freedom, computed as scipy's `t.interval(level, df, loc=mean,
/// scale=standard_error)` does: `(-/+ q) * standard_error + mean`. A zero
/// standard error (every value the same) gives `[mean, mean]`, where scipy
/// gives NaN (it requires a positive scale). Both the paired t-test's
/// interval and [`crate::interval::t_interval`] are this one.
pub(crate) fn student_interval(mean: f64, standard_error: f64, df: f64, level: f64) -> Interval {
    if standard_error == 0.0 {
        return Interval {
            lower: mean,
            upper: mean,
            level,
        };
    }
    let q = t_quantile_upper(df, (1.0 - level) / 2.0);
    Interval {
        lower: -q * standard_error + mean,
        upper: q * standard_error + mean,
        level,
    }
}

/// The two-sided p-value `2 P(T > |t|)` of Student's t with `df` degrees
/// of freedom ([`student::sf`]); a df below 1 is taken as 1.
pub(crate) fn t_two_sided_p(t: f64, df: f64) -> f64 {
    (2.0 * student::sf(t.abs(), df.max(1.0))).min(1.0)
}

/// The value `q > 0` with `P(T > q) = tail` for Student's t with `df` degrees
/// of freedom ([`student::upper_quantile`]: Hill's approximation polished by
/// Newton steps on the survival function, from the `libm` crate alone, the
/// same bits on every platform); a df below 1 is taken as 1.
pub fn t_quantile_upper(df: f64, tail: f64) -> f64 {
    student::upper_quantile(df.max(1.0), tail)
}
