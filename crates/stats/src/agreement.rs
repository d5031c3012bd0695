//! Agreement between two sets of relevance judgements, e.g. an LLM judge's
//! and human assessors': how far the grades agree item by item, and how far
//! the system rankings they induce agree.
//!
//! * [`cohen_kappa`]: Cohen's kappa of the grades, unweighted or weighted
//!   (linear, quadratic), equal to scikit-learn's `cohen_kappa_score`, with
//!   the confusion matrix, the observed and expected agreement and a kappa
//!   per label (that label against the rest).
//! * [`kendall_tau`]: Kendall's tau-b of two score vectors (e.g. each
//!   system's mean metric under either judge set) and its p-value, equal to
//!   `scipy.stats.kendalltau` with its defaults.
//! * [`top_k_agreement`]: the share of the top k systems the two score
//!   vectors have in common.
//! * [`top_k_overlap`]: the share of the first k items two rankings (two
//!   runs' lists of one query) have in common.
//! * [`mean_difference`]: the mean of the per-item differences `b - a`
//!   (e.g. of a metric's per-query values), from the exact sum.
//!
//! Every function takes two columns of the same length, one value per item
//! in the same item order, every value finite; anything else is a
//! [`CompareError`] ([`CompareError::AgreementLengths`],
//! [`CompareError::NoItems`], [`CompareError::NotFiniteJudgement`]), never a
//! panic. Statistics that scikit-learn or scipy leave undefined (NaN) are NaN
//! here as well, in the same cases, so that results compare equal to theirs;
//! each function's documentation says when.

use serde::Serialize;

use crate::error::{CompareError, JudgeSet};
use crate::wilcoxon::standard_normal_sf;

/// The most distinct labels [`cohen_kappa`] accepts (in both columns
/// together). Its confusion matrix has `labels x labels` cells; grades have
/// a handful of labels, and a thousand distinct values are scores, for
/// which [`kendall_tau`] is the statistic.
pub const MAX_KAPPA_LABELS: usize = 1024;

/// Checks the two columns of an agreement statistic: equal lengths, at
/// least one item, every value finite.
fn validate(a: &[f64], b: &[f64]) -> Result<(), CompareError> {
    if a.len() != b.len() {
        return Err(CompareError::AgreementLengths {
            first: a.len(),
            second: b.len(),
        });
    }
    if a.is_empty() {
        return Err(CompareError::NoItems);
    }
    for (set, column) in [(JudgeSet::First, a), (JudgeSet::Second, b)] {
        if let Some(index) = column.iter().position(|v| !v.is_finite()) {
            return Err(CompareError::NotFiniteJudgement {
                set,
                index,
                value: column[index],
            });
        }
    }
    Ok(())
}

/// The weighting of Cohen's kappa: how much a disagreement between two
/// labels counts, as scikit-learn's `cohen_kappa_score(weights=...)`
/// defines it.
///
/// The weights are functions of the labels' *positions* `i`, `j` in the
/// sorted list of distinct labels, not of their values: with labels `0, 1,
/// 5, 10`, grades 1 and 5 are one step apart and 5 and 10 one step as well.
/// That is scikit-learn's definition, kept so that the kappas are equal to
/// its; for evenly spaced grades (0, 1, 2, 3 or 0, 0.5, ..., 3.5 with every
/// grade used) positions and values agree up to a scale, which kappa
/// ignores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KappaWeights {
    /// Unweighted (Cohen's original kappa): any two different labels
    /// disagree fully, `w(i, j) = [i != j]` (`weights=None`).
    #[default]
    None,
    /// `w(i, j) = |i - j|` (`weights="linear"`): a grade off by two counts
    /// twice a grade off by one.
    Linear,
    /// `w(i, j) = (i - j)^2` (`weights="quadratic"`): large disagreements
    /// count more than in proportion.
    Quadratic,
}

impl KappaWeights {
    /// The disagreement weight of labels at positions `i` and `j`.
    fn weight(self, i: usize, j: usize) -> u128 {
        let d = i.abs_diff(j) as u128;
        match self {
            KappaWeights::None => u128::from(d != 0),
            KappaWeights::Linear => d,
            KappaWeights::Quadratic => d * d,
        }
    }
}

/// The kappa of one label against the rest: the binary problem "is the
/// grade `label`?" judged by both columns.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LabelAgreement {
    /// The label (grade).
    pub label: f64,
    /// Cohen's kappa of `a == label` against `b == label`, equal to
    /// scikit-learn's `cohen_kappa_score(a == label, b == label)` (with two
    /// classes the three weightings are the same). NaN when every item has
    /// this label in both columns (no disagreement is possible; scikit-learn
    /// returns NaN there).
    pub kappa: f64,
    /// Items the first column gives this label.
    pub first: usize,
    /// Items the second column gives this label.
    pub second: usize,
    /// Items both columns give this label.
    pub both: usize,
}

/// Cohen's kappa of two columns of grades, and what a report shows with
/// it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Kappa {
    /// The kappa: `1 - sum(w * O) / sum(w * E)` with `O` the confusion
    /// matrix, `E` its expected counts under independence (`E[i][j] = r_i c_j
    /// / n`, the product of the two columns' label frequencies) and `w` the
    /// [`KappaWeights`]. 1 is perfect agreement, 0 the agreement of chance,
    /// negative less than chance. NaN when `sum(w * E)` is 0, i.e. when
    /// there is a single label (both columns give every item the same
    /// grade, or there is one item): chance then agrees perfectly and kappa
    /// is 0 / 0. scikit-learn returns NaN there too (with a warning).
    pub kappa: f64,
    /// The weighting used.
    pub weights: KappaWeights,
    /// The observed agreement `p_o = 1 - sum(w * O) / (n w_max)`, with
    /// `w_max` the largest weight: the weighted share of items the columns
    /// agree on, which for unweighted kappa is the share of equal grades.
    /// 1 when there is a single label.
    pub observed_agreement: f64,
    /// The agreement expected by chance, `p_e = 1 - sum(w * E) / (n
    /// w_max)`. `kappa = (p_o - p_e) / (1 - p_e)`, up to rounding (`kappa`
    /// itself is computed from the integer sums, rounded once).
    pub expected_agreement: f64,
    /// The number of items (rated by both columns).
    pub n: usize,
    /// The labels, the sorted distinct values of both columns together
    /// (scikit-learn's labels with `labels=None`); `-0.0` counts as `0.0`.
    /// Their number is `labels.len()`.
    pub labels: Vec<f64>,
    /// The confusion matrix, `labels.len() x labels.len()`:
    /// `confusion[i][j]` items have grade `labels[i]` in the first column
    /// and `labels[j]` in the second (scikit-learn's `confusion_matrix(a,
    /// b)`).
    pub confusion: Vec<Vec<usize>>,
    /// The kappa of each label against the rest, in the order of `labels`:
    /// the "kappa per label" of a report, which says on which grades the
    /// judges disagree.
    pub per_label: Vec<LabelAgreement>,
}

impl Kappa {
    /// The number of distinct labels (grades) in both columns.
    pub fn label_count(&self) -> usize {
        self.labels.len()
    }
}

/// Cohen's kappa of two columns of grades, `a[i]` and `b[i]` the grades of
/// item `i` (a query-document pair) by either judge set, equal to
/// `sklearn.metrics.cohen_kappa_score(a, b, weights=...)`.
///
/// Grades may be any finite numbers (0-3, 0-4, 0.5 steps); the labels are
/// their sorted distinct values and the weights are functions of the
/// labels' positions ([`KappaWeights`]). scikit-learn itself refuses
/// non-integer floats ("continuous"); for those the result equals its kappa
/// of the grades' positions in the label list, which is the same
/// definition.
///
/// The sums are exact (integers) and the kappa is rounded once, so it may
/// differ from scikit-learn's, which divides and sums in floating point, by
/// a few units in the last place. NaN in the degenerate case scikit-learn
/// returns NaN for ([`Kappa::kappa`]). Errors: columns of different lengths,
/// empty, a value that is not finite, more than [`MAX_KAPPA_LABELS`]
/// labels.
///
/// ```
/// use rankeval_stats::agreement::{KappaWeights, cohen_kappa};
/// let k = cohen_kappa(&[0.0, 1.0, 2.0, 2.0], &[0.0, 1.0, 2.0, 1.0], KappaWeights::None).unwrap();
/// assert_eq!(k.confusion, vec![vec![1, 0, 0], vec![0, 1, 0], vec![0, 1, 1]]);
/// assert_eq!(k.observed_agreement, 0.75);
/// assert_eq!(k.expected_agreement, 0.3125);
/// assert!((k.kappa - 0.6363636363636364).abs() < 1e-15);
/// ```
pub fn cohen_kappa(a: &[f64], b: &[f64], weights: KappaWeights) -> Result<Kappa, CompareError> {
    validate(a, b)?;
    let mut labels: Vec<f64> = a.iter().chain(b).map(|v| v + 0.0).collect();
    labels.sort_by(f64::total_cmp);
    labels.dedup();
    if labels.len() > MAX_KAPPA_LABELS {
        return Err(CompareError::TooManyLabels {
            labels: labels.len(),
            max: MAX_KAPPA_LABELS,
        });
    }
    let count = labels.len();
    let position = |v: f64| labels.partition_point(|label| *label < v);
    let mut confusion = vec![vec![0usize; count]; count];
    for (x, y) in a.iter().zip(b) {
        confusion[position(*x)][position(*y)] += 1;
    }
    let rows: Vec<usize> = confusion.iter().map(|row| row.iter().sum()).collect();
    let columns: Vec<usize> = (0..count)
        .map(|j| confusion.iter().map(|row| row[j]).sum())
        .collect();
    let n = a.len();
    // Integer sums: with at most 1024 labels a weight is below 2^20, and
    // n^2 w_max < 2^128 for any n that fits in memory.
    let mut observed: u128 = 0;
    let mut expected_n: u128 = 0; // n * sum(w * E)
    for i in 0..count {
        for j in 0..count {
            let w = weights.weight(i, j);
            observed += w * confusion[i][j] as u128;
            expected_n += w * rows[i] as u128 * columns[j] as u128;
        }
    }
    let nf = n as f64;
    let kappa = disagreement_kappa(n as u128, observed, expected_n);
    let w_max = weights.weight(0, count - 1) as f64;
    let (observed_agreement, expected_agreement) = if w_max == 0.0 {
        (1.0, 1.0)
    } else {
        (
            1.0 - observed as f64 / (nf * w_max),
            1.0 - expected_n as f64 / (nf * nf * w_max),
        )
    };
    let per_label = labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let (first, second, both) = (rows[i], columns[i], confusion[i][i]);
            // The 2 x 2 problem "label or not": disagreements are the items
            // one column gives the label and the other does not; expected
            // ones (times n) r (n - c) + (n - r) c.
            let disagree = (first - both + second - both) as u128;
            let (r, c, n) = (first as u128, second as u128, n as u128);
            let expected = r * (n - c) + (n - r) * c;
            LabelAgreement {
                label: *label,
                kappa: disagreement_kappa(n, disagree, expected),
                first,
                second,
                both,
            }
        })
        .collect();
    Ok(Kappa {
        kappa,
        weights,
        observed_agreement,
        expected_agreement,
        n,
        labels,
        confusion,
        per_label,
    })
}

/// `1 - observed / (expected_n / n)` from the integer sums of weighted
/// disagreements, `observed = sum(w * O)` and `expected_n = n sum(w * E)`;
/// NaN when `expected_n` is 0 (as scikit-learn).
fn disagreement_kappa(n: u128, observed: u128, expected_n: u128) -> f64 {
    if expected_n == 0 {
        return f64::NAN;
    }
    1.0 - (n * observed) as f64 / expected_n as f64
}

/// How [`kendall_tau`]'s p-value was computed, as scipy's `method="auto"`
/// chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KendallMethod {
    /// The exact null distribution of the number of concordant pairs
    /// (no ties, and `n <= 33` or at most one pair concordant or
    /// discordant).
    Exact,
    /// The normal approximation with the tie-corrected variance.
    Asymptotic,
    /// Tau is undefined: one of the columns ties every pair (it is
    /// constant, or there is one item). Tau and the p-value are NaN.
    Undefined,
}

/// Kendall's tau-b of two score vectors and its two-sided p-value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct KendallTau {
    /// Tau-b: `(P - Q) / sqrt((P + Q + T) (P + Q + U))` with `P` the
    /// concordant pairs, `Q` the discordant pairs, `T` the pairs tied in `x`
    /// only and `U` in `y` only; clamped to `[-1, 1]`. NaN when one column
    /// ties every pair ([`KendallMethod::Undefined`]).
    pub tau: f64,
    /// The two-sided p-value of "no association" (tau = 0). NaN when tau
    /// is.
    pub p_value: f64,
    /// How `p_value` was computed.
    pub method: KendallMethod,
    /// The number of items (systems).
    pub n: usize,
    /// Pairs ordered the same way by both columns (`P`).
    pub concordant: u64,
    /// Pairs ordered oppositely (`Q`).
    pub discordant: u64,
    /// Pairs tied in `x` (including those tied in both).
    pub ties_x: u64,
    /// Pairs tied in `y` (including those tied in both).
    pub ties_y: u64,
    /// Pairs tied in both columns.
    pub ties_both: u64,
}

/// Kendall's tau-b between two score vectors over the same items (e.g. each
/// system's mean metric under judge set `x` and `y`: how far the two
/// judgements rank the systems alike), equal to `scipy.stats.kendalltau(x,
/// y)` with its defaults (scipy 1.17: `variant="b"`, `method="auto"`,
/// two-sided):
///
/// * the p-value is exact when neither column has ties and `n <= 33`, or
///   when at most one pair is concordant or at most one is discordant (for
///   `n >= 171` scipy's exact p-value is then 0); otherwise it is the
///   normal approximation of `P - Q`, whose variance is corrected for ties
///   (`(n(n-1)(2n+5) - sum t(t-1)(2t+5) - sum u(u-1)(2u+5)) / 18 + 2 T' U'
///   / (n(n-1)) + sum t(t-1)(t-2) sum u(u-1)(u-2) / (9 n(n-1)(n-2))`, `t`
///   and `u` the sizes of the tie groups, `T'`, `U'` the tied pairs in
///   either column);
/// * tau and the p-value are NaN when a column ties every pair (a constant
///   column, or one item), as scipy's.
///
/// Pairs are counted in `O(n log n)` (a merge sort counts the discordant
/// pairs). Exact p-values for `n <= 33` follow scipy's recurrence in
/// floating point (relative differences of about 1e-15); the asymptotic
/// ones use `libm`'s erfc where scipy uses cephes' `ndtr` (a few ulps).
/// Errors: columns of different lengths, empty, a value that is not
/// finite.
///
/// ```
/// use rankeval_stats::agreement::kendall_tau;
/// let t = kendall_tau(&[1.0, 2.0, 3.0, 4.0], &[4.0, 3.0, 2.0, 1.0]).unwrap();
/// assert_eq!(t.tau, -1.0);
/// assert_eq!(t.p_value, 1.0 / 12.0); // 2 of 4! orders are as extreme
/// ```
pub fn kendall_tau(x: &[f64], y: &[f64]) -> Result<KendallTau, CompareError> {
    validate(x, y)?;
    let n = x.len();
    let (rx, ry) = (dense_ranks(x), dense_ranks(y));
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by_key(|&i| (rx[i], ry[i]));
    let ties_both = run_sizes(order.iter().map(|&i| (rx[i], ry[i])));
    let (tx, ty) = (tie_groups(&rx), tie_groups(&ry));
    let mut ys: Vec<usize> = order.iter().map(|&i| ry[i]).collect();
    let discordant = inversions(&mut ys);
    let total = n as u128 * (n as u128 - 1) / 2;
    // total = P + Q + (T' - B) + (U' - B) + B, with T', U' the pairs tied in
    // x, in y and B those tied in both.
    let concordant = total + ties_both.pairs - tx.pairs - ty.pairs - discordant;
    let undefined = KendallTau {
        tau: f64::NAN,
        p_value: f64::NAN,
        method: KendallMethod::Undefined,
        n,
        concordant: concordant as u64,
        discordant: discordant as u64,
        ties_x: tx.pairs as u64,
        ties_y: ty.pairs as u64,
        ties_both: ties_both.pairs as u64,
    };
    if tx.pairs == total || ty.pairs == total {
        return Ok(undefined);
    }
    let difference = concordant as i128 - discordant as i128;
    let tau = (difference as f64
        / ((total - tx.pairs) as f64).sqrt()
        / ((total - ty.pairs) as f64).sqrt())
    .clamp(-1.0, 1.0);
    let (method, p_value) =
        if tx.pairs == 0 && ty.pairs == 0 && (n <= 33 || discordant.min(total - discordant) <= 1) {
            (
                KendallMethod::Exact,
                kendall_p_exact(n as u128, total - discordant),
            )
        } else {
            let nf = n as f64;
            let m = nf * (nf - 1.0);
            let tie_products = match tx.cubes.checked_mul(ty.cubes) {
                Some(0) => 0.0,
                Some(product) => product as f64 / (9.0 * m * (nf - 2.0)),
                None => tx.cubes as f64 * ty.cubes as f64 / (9.0 * m * (nf - 2.0)),
            };
            let variance = (m * (2.0 * nf + 5.0) - tx.variance as f64 - ty.variance as f64) / 18.0
                + (2 * tx.pairs * ty.pairs) as f64 / m
                + tie_products;
            let z = difference as f64 / variance.sqrt();
            (KendallMethod::Asymptotic, 2.0 * standard_normal_sf(z.abs()))
        };
    Ok(KendallTau {
        tau,
        p_value,
        method,
        ..undefined
    })
}

/// Each value's rank among the distinct values (0-based; equal values, `0.0`
/// and `-0.0` included, share a rank).
fn dense_ranks(values: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    let mut ranks = vec![0; values.len()];
    let mut rank = 0;
    for (k, &i) in order.iter().enumerate() {
        if k > 0 && values[i] != values[order[k - 1]] {
            rank += 1;
        }
        ranks[i] = rank;
    }
    ranks
}

/// The tie statistics of a column: over its groups of `t` equal values,
/// `sum t(t-1)/2` (tied pairs), `sum t(t-1)(t-2)` and `sum t(t-1)(2t+5)`.
#[derive(Clone, Copy, Debug, Default)]
struct Ties {
    pairs: u128,
    cubes: u128,
    variance: u128,
}

impl Ties {
    fn add(&mut self, t: u128) {
        if t > 1 {
            self.pairs += t * (t - 1) / 2;
            self.cubes += t * (t - 1) * (t - 2);
            self.variance += t * (t - 1) * (2 * t + 5);
        }
    }
}

/// The tie statistics of a column of dense ranks.
fn tie_groups(ranks: &[usize]) -> Ties {
    let mut sizes = vec![0u128; ranks.iter().max().map_or(0, |m| m + 1)];
    for &r in ranks {
        sizes[r] += 1;
    }
    let mut ties = Ties::default();
    for t in sizes {
        ties.add(t);
    }
    ties
}

/// The tie statistics of the runs of equal items of a sorted sequence.
fn run_sizes<T: PartialEq>(items: impl Iterator<Item = T>) -> Ties {
    let mut ties = Ties::default();
    let mut previous: Option<T> = None;
    let mut run = 0u128;
    for item in items {
        if previous.as_ref() == Some(&item) {
            run += 1;
        } else {
            ties.add(run);
            run = 1;
            previous = Some(item);
        }
    }
    ties.add(run);
    ties
}

/// The number of pairs `i < j` with `values[i] > values[j]` (equal values
/// are not counted), by a bottom-up merge sort; sorts `values`.
fn inversions(values: &mut [usize]) -> u128 {
    let n = values.len();
    let mut buffer = vec![0; n];
    let mut count = 0u128;
    let mut width = 1;
    while width < n {
        for start in (0..n).step_by(2 * width) {
            let middle = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j, mut k) = (start, middle, start);
            while i < middle && j < end {
                if values[j] < values[i] {
                    // values[j] is below every remaining left value.
                    count += (middle - i) as u128;
                    buffer[k] = values[j];
                    j += 1;
                } else {
                    buffer[k] = values[i];
                    i += 1;
                }
                k += 1;
            }
            buffer[k..k + middle - i].copy_from_slice(&values[i..middle]);
            k += middle - i;
            buffer[k..k + end - j].copy_from_slice(&values[j..end]);
        }
        values.copy_from_slice(&buffer);
        width *= 2;
    }
    count
}

/// `n!` as a float: exact then rounded once up to `34!` (which fits in
/// 128 bits, as Python's exact factorial converted to a float), a running
/// product beyond (a relative error below `n` ulps).
fn factorial(n: u128) -> f64 {
    if n <= 34 {
        (1..=n).product::<u128>() as f64
    } else {
        (1..=n).fold(1.0, |acc, k| acc * k as f64)
    }
}

/// The exact two-sided p-value of `c` concordant pairs among `n` items
/// without ties: scipy's `_mstats_basic._kendall_p_exact(n, c)`, the same
/// cases and the same recurrence (the count of permutations with at most
/// `c` inversions, in floating point, for `n < 171`).
fn kendall_p_exact(n: u128, c: u128) -> f64 {
    let total = n * (n - 1) / 2;
    let c = c.min(total - c);
    let p = if n <= 2 {
        1.0
    } else if c == 0 {
        if n < 171 { 2.0 / factorial(n) } else { 0.0 }
    } else if c == 1 {
        if n < 172 { 2.0 / factorial(n - 1) } else { 0.0 }
    } else if 4 * c == n * (n - 1) {
        1.0
    } else {
        let c = c as usize;
        let mut counts = vec![0.0f64; c + 1];
        counts[0] = 1.0;
        counts[1] = 1.0;
        let normalized = n >= 171;
        for j in 3..=n as usize {
            let mut running = 0.0;
            for value in &mut counts {
                running += *value;
                *value = running;
            }
            if normalized {
                for value in &mut counts {
                    *value /= j as f64;
                }
            }
            if j <= c {
                // counts[j..] -= counts[..c + 1 - j], reading values not yet
                // lowered (numpy buffers the overlapping operands).
                for k in (0..=c - j).rev() {
                    counts[j + k] -= counts[k];
                }
            }
        }
        let sum = rankeval_core::exact_sum::fsum(counts.iter().copied());
        if normalized {
            sum
        } else {
            2.0 * sum / factorial(n)
        }
    };
    p.clamp(0.0, 1.0)
}

/// The share of the top `k` items (systems) that two score vectors have in
/// common, `|top_k(a) ∩ top_k(b)| / k`, with `a[i]` and `b[i]` system `i`'s
/// scores under either judge set: 1 when both judgements pick the same
/// best `k` systems (in any order), 0 when they pick disjoint ones.
///
/// Top k is by descending score. Ties are broken by position: of equal
/// scores, the system listed first ranks higher. So the top k is always
/// exactly `k` systems, and when systems tie across the boundary the one
/// with the lower index is in. (Give the systems in a fixed order, e.g. by
/// name, so the rule is reproducible.) `-0.0` and `0.0` are equal scores.
///
/// Errors: columns of different lengths, empty, a value that is not
/// finite, `k` of 0 or more than the number of systems.
///
/// ```
/// use rankeval_stats::agreement::top_k_agreement;
/// let a = [0.50, 0.40, 0.30, 0.20];
/// let b = [0.45, 0.20, 0.35, 0.40];
/// assert_eq!(top_k_agreement(&a, &b, 2).unwrap(), 0.5); // {0, 1} and {0, 3}
/// ```
pub fn top_k_agreement(a: &[f64], b: &[f64], k: usize) -> Result<f64, CompareError> {
    validate(a, b)?;
    if k == 0 || k > a.len() {
        return Err(CompareError::InvalidTopK {
            k,
            systems: a.len(),
        });
    }
    let mut in_a = vec![false; a.len()];
    for i in top_k(a, k) {
        in_a[i] = true;
    }
    let common = top_k(b, k).into_iter().filter(|&i| in_a[i]).count();
    Ok(common as f64 / k as f64)
}

/// The share of the first `k` items two rankings have in common,
/// `|x[..k] ∩ y[..k]| / k` (a ranking shorter than `k` counts what it has,
/// the denominator stays `k`): top-k overlap between two runs' lists of one
/// query, where [`top_k_agreement`] compares two score vectors over the
/// same items. Each ranking is taken in its own order (a run's tied
/// scores in the order it lists them); an item listed twice counts once.
///
/// Errors: `k` of 0 ([`CompareError::ZeroTopK`]).
///
/// ```
/// use rankeval_stats::agreement::top_k_overlap;
/// assert_eq!(top_k_overlap(&["a", "b", "c"], &["c", "a", "d"], 2).unwrap(), 0.5);
/// assert_eq!(top_k_overlap(&["a"], &["a", "b"], 4).unwrap(), 0.25);
/// ```
pub fn top_k_overlap<T: Eq + std::hash::Hash>(
    x: &[T],
    y: &[T],
    k: usize,
) -> Result<f64, CompareError> {
    if k == 0 {
        return Err(CompareError::ZeroTopK);
    }
    let first: std::collections::HashSet<&T> = x.iter().take(k).collect();
    let second: std::collections::HashSet<&T> = y.iter().take(k).collect();
    let common = first.intersection(&second).count();
    Ok(common as f64 / k as f64)
}

/// The positions of the `k` highest scores, ties broken by position.
fn top_k(scores: &[f64], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    // Finite values: `partial_cmp` is total, and -0.0 equals 0.0.
    order.sort_by(|&i, &j| {
        scores[j]
            .partial_cmp(&scores[i])
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(i.cmp(&j))
    });
    order.truncate(k);
    order
}

/// The mean of the per-item differences `b[i] - a[i]` (e.g. of a metric's
/// per-query values under judge sets `a` and `b`: how much `b` scores
/// higher on average), each difference rounded and their sum exact
/// ([`rankeval_core::exact_sum::fmean`], Python's `statistics.fmean`): the
/// same bits in any item order, as the paired comparisons' differences
/// ([`crate::paired`]).
///
/// Errors: columns of different lengths, empty, a value that is not
/// finite.
///
/// ```
/// use rankeval_stats::agreement::mean_difference;
/// assert_eq!(mean_difference(&[0.5, 0.25], &[0.75, 0.5]).unwrap(), 0.25);
/// ```
pub fn mean_difference(a: &[f64], b: &[f64]) -> Result<f64, CompareError> {
    validate(a, b)?;
    Ok(crate::paired::mean(&crate::paired::differences(a, b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inversions_match_a_quadratic_count() {
        let mut state = 12345u64;
        for n in [0, 1, 2, 3, 7, 8, 9, 33, 100] {
            let values: Vec<usize> = (0..n)
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                    (state >> 60) as usize
                })
                .collect();
            let mut quadratic = 0u128;
            for i in 0..n {
                for j in i + 1..n {
                    quadratic += u128::from(values[i] > values[j]);
                }
            }
            let mut sorted = values.clone();
            assert_eq!(inversions(&mut sorted), quadratic, "{values:?}");
            assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
        }
    }

    #[test]
    fn exact_p_sums_to_one_over_the_distribution() {
        // n = 5: Mahonian numbers 1 4 9 15 20 22 20 15 9 4 1 (120 orders).
        let counts = [1.0, 4.0, 9.0, 15.0, 20.0];
        let mut below = 0.0;
        for (c, count) in counts.iter().enumerate() {
            below += count;
            let want = (2.0 * below / 120.0f64).min(1.0);
            assert!(
                (kendall_p_exact(5, c as u128) - want).abs() < 1e-15,
                "c {c}"
            );
            // Symmetric: c and 10 - c concordant pairs.
            assert_eq!(
                kendall_p_exact(5, c as u128),
                kendall_p_exact(5, 10 - c as u128)
            );
        }
    }
}
