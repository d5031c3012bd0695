//! The randomized Tukey HSD test for all pairs of systems (Carterette 2012,
//! "Multiple testing in statistical analysis of systems-based information
//! retrieval experiments", TOIS; Sakai 2014, "Statistical reform in IR?").
//!
//! Under the null hypothesis that all systems are exchangeable within each
//! query, the `k` scores of a query may be permuted across systems. Each
//! resample permutes every query's scores independently (the query pairing
//! is kept: a query's scores stay in that query) and records the largest
//! difference between two systems' means, `max mean - min mean`. The
//! p-value of a pair `(a, b)` is the share of resamples whose largest
//! difference reaches `|mean_a - mean_b|`: `p = (b + 1) / (B + 1)`. Taking
//! the maximum over all pairs controls the family-wise error rate over the
//! pairs, so these p-values need no further correction within the family.
//!
//! Always Monte Carlo (`(k!)^n` permutations are too many to enumerate).
//! Permutations are Fisher-Yates shuffles with unbiased ChaCha20 draws;
//! resamples are cut into chunks of [`CHUNK`], chunk `j` drawing from
//! stream `j`, counts added in chunk order: the same for any thread count.

use rayon::prelude::*;
use serde::Serialize;

use crate::error::CompareError;
use crate::rng::{below, chunk_rng};

/// Resamples per chunk (per random stream). Part of the definition of the
/// results.
pub const CHUNK: u64 = 256;

/// One pair of systems in a randomized Tukey HSD.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TukeyPair {
    /// 0-based index of the first system (the one subtracted).
    pub first: usize,
    /// 0-based index of the second system, `second > first`.
    pub second: usize,
    /// `mean[second] - mean[first]`.
    pub difference: f64,
    /// `(b + 1) / (B + 1)`, family-wise adjusted by construction.
    pub p_value: f64,
}

/// The randomized Tukey HSD over all pairs of systems.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TukeyHsd {
    /// Each system's mean, in input order.
    pub means: Vec<f64>,
    /// Every pair `(first, second)` with `first < second`, in lexicographic
    /// order.
    pub pairs: Vec<TukeyPair>,
    /// Number of resamples `B`.
    pub resamples: u64,
    /// Seed of the generator.
    pub seed: u64,
}

/// The randomized Tukey HSD of `systems` (one column of per-query scores
/// per system, all in the same query order).
pub fn randomized_tukey_hsd(
    systems: &[&[f64]],
    resamples: u64,
    seed: u64,
) -> Result<TukeyHsd, CompareError> {
    let k = systems.len();
    if k < 2 {
        return Err(CompareError::TooFewSystems { systems: k });
    }
    let n = systems[0].len();
    for (system, column) in systems.iter().enumerate() {
        if column.len() != n {
            return Err(CompareError::RaggedSystems {
                system,
                len: column.len(),
                expected: n,
            });
        }
        if let Some(index) = column.iter().position(|v| !v.is_finite()) {
            return Err(CompareError::NotFiniteScore {
                system,
                index,
                value: column[index],
            });
        }
    }
    if n < 2 {
        return Err(CompareError::TooFewQueries { queries: n });
    }
    crate::paired::check_resamples(resamples)?;
    if k > u32::MAX as usize {
        return Err(CompareError::TooFewSystems { systems: k });
    }
    let sums: Vec<f64> = systems.iter().map(|c| c.iter().sum()).collect();
    let magnitude = systems
        .iter()
        .map(|c| c.iter().map(|v| v.abs()).sum::<f64>())
        .fold(0.0, f64::max);
    let tolerance = 4.0 * n as f64 * f64::EPSILON * magnitude;
    let mut thresholds = Vec::with_capacity(k * (k - 1) / 2);
    for a in 0..k {
        for b in a + 1..k {
            thresholds.push((sums[b] - sums[a]).abs() - tolerance);
        }
    }
    let chunks = resamples.div_ceil(CHUNK);
    let per_chunk: Vec<Vec<u64>> = (0..chunks)
        .into_par_iter()
        .map(|chunk| {
            let size = (resamples - chunk * CHUNK).min(CHUNK);
            count_chunk(systems, &thresholds, seed, chunk, size)
        })
        .collect();
    let mut counts = vec![0u64; thresholds.len()];
    for chunk in &per_chunk {
        for (total, count) in counts.iter_mut().zip(chunk) {
            *total += count;
        }
    }
    let nf = n as f64;
    let means: Vec<f64> = sums.iter().map(|s| s / nf).collect();
    let mut pairs = Vec::with_capacity(counts.len());
    let mut index = 0;
    for a in 0..k {
        for b in a + 1..k {
            pairs.push(TukeyPair {
                first: a,
                second: b,
                difference: means[b] - means[a],
                p_value: (counts[index] + 1) as f64 / (resamples + 1) as f64,
            });
            index += 1;
        }
    }
    Ok(TukeyHsd {
        means,
        pairs,
        resamples,
        seed,
    })
}

#[allow(clippy::needless_range_loop)] // `query` indexes the column the permutation picks
fn count_chunk(
    systems: &[&[f64]],
    thresholds: &[f64],
    seed: u64,
    chunk: u64,
    size: u64,
) -> Vec<u64> {
    let k = systems.len();
    let n = systems[0].len();
    let mut rng = chunk_rng(seed, chunk);
    let mut permutation: Vec<usize> = (0..k).collect();
    let mut sums = vec![0.0; k];
    let mut counts = vec![0u64; thresholds.len()];
    for _ in 0..size {
        sums.iter_mut().for_each(|s| *s = 0.0);
        for query in 0..n {
            for i in (1..k).rev() {
                let j = below(&mut rng, (i + 1) as u32) as usize;
                permutation.swap(i, j);
            }
            for (sum, source) in sums.iter_mut().zip(&permutation) {
                *sum += systems[*source][query];
            }
        }
        let (low, high) = sums
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| {
                (lo.min(*s), hi.max(*s))
            });
        let range = high - low;
        for (count, threshold) in counts.iter_mut().zip(thresholds) {
            *count += u64::from(range >= *threshold);
        }
    }
    counts
}
