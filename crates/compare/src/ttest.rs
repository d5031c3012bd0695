//! Student's paired t-test and its confidence interval, as
//! `scipy.stats.ttest_rel(candidate, baseline)` and its
//! `confidence_interval(level)` compute them.

use serde::Serialize;
use statrs::distribution::{Continuous, ContinuousCDF, StudentsT};

use crate::error::CompareError;
use crate::paired::{mean, sample_sd, validate_differences, validate_level};

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
    let dist = student(df);
    let p = (2.0 * dist.sf(t.abs())).min(1.0);
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

fn student(df: f64) -> StudentsT {
    // Callers pass df = n - 1 >= 1 (at least two queries are validated);
    // `StudentsT::new` fails only for a non-positive or NaN df.
    #[allow(clippy::expect_used)]
    StudentsT::new(0.0, 1.0, df.max(1.0)).expect("df >= 1 is a valid Student t")
}

/// The two-sided p-value `2 P(T > |t|)` of Student's t with `df` degrees
/// of freedom (at least 1).
pub(crate) fn t_two_sided_p(t: f64, df: f64) -> f64 {
    (2.0 * student(df).sf(t.abs())).min(1.0)
}

/// The value `q > 0` with `P(T > q) = tail` for Student's t with `df` degrees
/// of freedom: statrs' inverse, then Newton steps on the survival function
/// (whose relative precision is far better than the inverse's) until the
/// step is below a few ulps.
pub fn t_quantile_upper(df: f64, tail: f64) -> f64 {
    let dist = student(df);
    let mut q = dist.inverse_cdf(1.0 - tail);
    for _ in 0..8 {
        let density = dist.pdf(q);
        if density.is_nan() || density <= 0.0 || !q.is_finite() {
            break;
        }
        let step = (dist.sf(q) - tail) / density;
        q += step;
        if step.abs() <= 4.0 * f64::EPSILON * q.abs() {
            break;
        }
    }
    q
}
