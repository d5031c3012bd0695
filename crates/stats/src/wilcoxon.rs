//! The Wilcoxon signed-rank test, matching `scipy.stats.wilcoxon(candidate,
//! baseline)` with its defaults (scipy 1.17: `zero_method="wilcox"`,
//! `correction=False`, `alternative="two-sided"`, `method="auto"`):
//!
//! * zero differences are dropped before ranking; tied `|d|` get average
//!   ranks; `r+` / `r-` are the rank sums of the positive / negative
//!   differences; the reported statistic is `min(r+, r-)`;
//! * the method, as scipy's `"auto"` chooses it, from `n` = all queries
//!   (zeros included):
//!   - `n > 50`: normal approximation;
//!   - otherwise, no ties and no zeros: the exact null distribution,
//!     `p = 2 min(P(R+ <= r+), P(R+ >= r+))`, at most 1;
//!   - otherwise, `n <= 13`: every sign vector enumerated (scipy's
//!     `PermutationMethod`, which is exhaustive there), same formula;
//!   - otherwise: normal approximation;
//! * normal approximation: `z = (r+ - m (m + 1) / 4) / sqrt((m (m + 1)
//!   (2m + 1) - sum(t^3 - t) / 2) / 24)` with `m` the non-zero count and `t`
//!   the sizes of the tie groups, no continuity correction, `p = 2 Phi(-|z|)`.
//!
//! One deliberate difference: when every difference is 0, scipy returns NaN
//! for `n > 13`; here `p = 1` (no evidence of any difference).

use serde::Serialize;

use crate::error::CompareError;
use crate::paired::validate_differences;

/// How the p-value was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WilcoxonMethod {
    /// The exact null distribution of `R+` (no ties, no zeros, `n <= 50`).
    Exact,
    /// Every sign vector enumerated (ties or zeros, `n <= 13`).
    Enumeration,
    /// The normal approximation with the tie correction.
    Normal,
}

/// The outcome of the signed-rank test.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Wilcoxon {
    /// `min(r+, r-)`, scipy's two-sided statistic.
    pub statistic: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// How `p_value` was computed.
    pub method: WilcoxonMethod,
    /// Number of zero differences (dropped).
    pub zeros: usize,
}

/// The signed-rank test of the per-query differences (at least two finite
/// values).
pub fn wilcoxon(differences: &[f64]) -> Result<Wilcoxon, CompareError> {
    validate_differences(&[differences])?;
    let n = differences.len();
    let nonzero: Vec<f64> = differences.iter().copied().filter(|d| *d != 0.0).collect();
    let zeros = n - nonzero.len();
    let m = nonzero.len();
    // Doubled ranks (integers) so half ranks stay exact.
    let ranks2 = doubled_average_ranks(&nonzero);
    let r_plus2: u64 = nonzero
        .iter()
        .zip(&ranks2)
        .filter(|(d, _)| **d > 0.0)
        .map(|(_, r)| *r)
        .sum();
    let total2 = (m * (m + 1)) as u64;
    let r_minus2 = total2 - r_plus2;
    let statistic = r_plus2.min(r_minus2) as f64 / 2.0;
    let (ties, tie_correction) = tie_groups(&nonzero);
    if m == 0 {
        return Ok(Wilcoxon {
            statistic,
            p_value: 1.0,
            method: if n <= 13 {
                WilcoxonMethod::Enumeration
            } else {
                WilcoxonMethod::Normal
            },
            zeros,
        });
    }
    let (method, p_value) = if n > 50 {
        (WilcoxonMethod::Normal, normal_p(r_plus2, m, tie_correction))
    } else if !ties && zeros == 0 {
        (WilcoxonMethod::Exact, exact_p(r_plus2 / 2, m))
    } else if n <= 13 {
        (
            WilcoxonMethod::Enumeration,
            enumerated_p(&nonzero, &ranks2, r_plus2),
        )
    } else {
        (WilcoxonMethod::Normal, normal_p(r_plus2, m, tie_correction))
    };
    Ok(Wilcoxon {
        statistic,
        p_value,
        method,
        zeros,
    })
}

/// Twice the average rank of each `|d|` (1-based), in input order.
fn doubled_average_ranks(values: &[f64]) -> Vec<u64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|a, b| values[*a].abs().total_cmp(&values[*b].abs()));
    let mut ranks = vec![0u64; values.len()];
    let mut start = 0;
    while start < order.len() {
        let magnitude = values[order[start]].abs();
        let mut end = start + 1;
        while end < order.len() && values[order[end]].abs() == magnitude {
            end += 1;
        }
        // Average of ranks start+1 ..= end, doubled: (start + 1 + end).
        let doubled = (start + 1 + end) as u64;
        for i in &order[start..end] {
            ranks[*i] = doubled;
        }
        start = end;
    }
    ranks
}

/// Whether any `|d|` repeats, and `sum(t^3 - t)` over the tie groups.
fn tie_groups(values: &[f64]) -> (bool, f64) {
    let mut magnitudes: Vec<f64> = values.iter().map(|d| d.abs()).collect();
    magnitudes.sort_by(f64::total_cmp);
    let mut any = false;
    let mut correction = 0.0;
    for group in magnitudes.chunk_by(|a, b| a == b) {
        let t = group.len() as f64;
        if group.len() > 1 {
            any = true;
        }
        correction += t * t * t - t;
    }
    (any, correction)
}

fn normal_p(r_plus2: u64, m: usize, tie_correction: f64) -> f64 {
    let count = m as f64;
    let mean = count * (count + 1.0) * 0.25;
    let se = ((count * (count + 1.0) * (2.0 * count + 1.0) - tie_correction / 2.0) / 24.0).sqrt();
    let z = (r_plus2 as f64 / 2.0 - mean) / se;
    (2.0 * standard_normal_sf(z.abs())).min(1.0)
}

/// Exact two-sided p-value of an integer `r+` with `m` distinct ranks.
fn exact_p(r_plus: u64, m: usize) -> f64 {
    let max = m * (m + 1) / 2;
    // counts[s] = number of subsets of {1..m} with sum s (< 2^50, exact).
    let mut counts = vec![0u64; max + 1];
    counts[0] = 1;
    for rank in 1..=m {
        for s in (rank..=max).rev() {
            counts[s] += counts[s - rank];
        }
    }
    let r = r_plus as usize;
    let le: u64 = counts[..=r.min(max)].iter().sum();
    let ge: u64 = counts[r.min(max + 1)..].iter().sum();
    let total = libm::ldexp(1.0, m as i32);
    (2.0 * le.min(ge) as f64 / total).min(1.0)
}

/// Two-sided p-value by enumerating every sign of the non-zero differences
/// (at most 13 of them).
fn enumerated_p(nonzero: &[f64], ranks2: &[u64], r_plus2: u64) -> f64 {
    let m = nonzero.len();
    let (mut le, mut ge) = (0u64, 0u64);
    for signs in 0u64..(1u64 << m) {
        let sum: u64 = (0..m)
            .filter(|i| signs >> i & 1 == 1)
            .map(|i| ranks2[i])
            .sum();
        le += u64::from(sum <= r_plus2);
        ge += u64::from(sum >= r_plus2);
    }
    (2.0 * le.min(ge) as f64 / (1u64 << m) as f64).min(1.0)
}

/// `P(Z > x)` for a standard normal `Z`, as `erfc(x / sqrt 2) / 2` with
/// `libm`'s erfc (a port of musl's, accurate to about 1 ulp; statrs' erfc is
/// off by up to 1e-10 relative around 0.5).
pub fn standard_normal_sf(x: f64) -> f64 {
    0.5 * libm::erfc(x / std::f64::consts::SQRT_2)
}
