//! The paired randomization test (sign flips): under the null hypothesis
//! that baseline and candidate are exchangeable within each query, each
//! per-query difference is as likely to have either sign. The statistic is
//! `|sum of the differences|` (equivalently `|mean difference|`); the
//! p-value is the share of sign assignments whose statistic is at least the
//! observed one.
//!
//! * **Exact** when the number of queries is at most
//!   [`Resampling::exact_up_to`] (default [`EXACT_UP_TO`] = 20): all `2^n`
//!   sign vectors are enumerated, and `p = (count of vectors at least as
//!   extreme, the observed one included) / 2^n`, exactly.
//! * **Monte Carlo** otherwise: `B` random sign vectors, `b` of them at least
//!   as extreme, `p = (b + 1) / (B + 1)` (never 0; Phipson & Smyth 2010).
//!
//! "At least as extreme" allows for rounding: a resample counts when its
//! statistic is at least the observed one minus a bound on the rounding
//! error of both sums (`2 (n + 8) eps sum |d_i|`), so that sign vectors whose
//! exact statistic equals the observed one (a flipped zero, two equal
//! differences exchanged) always count.
//!
//! # How it is computed
//!
//! Queries are taken in blocks of 8. For each block, a 256-entry table holds
//! the signed sum of its 8 differences for every sign pattern, and one random
//! byte picks a pattern: a resample costs `n / 8` table look-ups instead of
//! `n` additions. Several columns (runs x metrics with the same queries)
//! share the random bytes, so a column's p-value does not depend on which
//! other columns are tested with it.
//!
//! Resamples are cut into chunks of [`CHUNK`]; chunk `k` uses ChaCha20 stream
//! `k` ([`crate::rng::chunk_rng`]) and fills its bytes block-major (block `j`,
//! then resample `r`); chunks run in parallel (rayon) and their integer
//! counts are added in chunk order. The result is the same for any thread
//! count.

use rand_core::Rng;
use rayon::prelude::*;
use serde::Serialize;

use crate::error::CompareError;
use crate::paired::validate_differences;
use crate::rng::chunk_rng;

/// Largest query count for which all sign vectors are enumerated by default.
pub const EXACT_UP_TO: usize = 20;

/// Hard limit on exact enumeration (2^30 sign vectors), whatever is asked.
pub const EXACT_LIMIT: usize = 30;

/// Default number of random resamples.
pub const DEFAULT_RESAMPLES: u64 = 10_000;

/// Resamples per chunk (per random stream). Part of the definition of the
/// results: changing it changes which random numbers each resample gets.
pub const CHUNK: u64 = 2048;

/// Queries per look-up table.
const BLOCK: usize = 8;

/// Parameters of a resampling test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Resampling {
    /// Number of random resamples `B`.
    pub resamples: u64,
    /// Seed of the ChaCha20 generator.
    pub seed: u64,
    /// Enumerate all `2^n` sign vectors when `n` is at most this (capped at
    /// [`EXACT_LIMIT`]); 0 forces Monte Carlo.
    pub exact_up_to: usize,
}

impl Default for Resampling {
    fn default() -> Self {
        Self {
            resamples: DEFAULT_RESAMPLES,
            seed: crate::rng::DEFAULT_SEED,
            exact_up_to: EXACT_UP_TO,
        }
    }
}

/// The outcome of a sign-flip test on one column of differences.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SignFlip {
    /// The two-sided p-value.
    pub p_value: f64,
    /// Whether all `2^n` sign vectors were enumerated.
    pub exact: bool,
    /// Sign vectors evaluated: `2^n` if exact, else `B`.
    pub resamples: u64,
    /// How many of them were at least as extreme as the observed statistic
    /// (the observed one included when exact).
    pub extreme: u64,
}

/// The sign-flip test of one column of per-query differences (at least 2
/// finite values; `resampling.resamples >= 1`).
pub fn sign_flip(differences: &[f64], resampling: &Resampling) -> Result<SignFlip, CompareError> {
    let mut results = sign_flip_columns(&[differences], resampling)?;
    results
        .pop()
        .ok_or(CompareError::TooFewQueries { queries: 0 })
}

/// The sign-flip test of several columns of differences of the same length
/// (the same queries), sharing the random sign vectors: each result equals
/// [`sign_flip`] on that column alone.
pub fn sign_flip_columns(
    columns: &[&[f64]],
    resampling: &Resampling,
) -> Result<Vec<SignFlip>, CompareError> {
    validate_differences(columns)?;
    crate::paired::check_resamples(resampling.resamples)?;
    let Some(first) = columns.first() else {
        return Ok(Vec::new());
    };
    let n = first.len();
    let blocks = n.div_ceil(BLOCK);
    let thresholds: Vec<f64> = columns
        .iter()
        .map(|column| {
            let observed = observed_sum(column);
            let magnitude: f64 = column.iter().map(|d| d.abs()).sum();
            let tolerance = 2.0 * (n + BLOCK) as f64 * f64::EPSILON * magnitude;
            observed.abs() - tolerance
        })
        .collect();
    let exact = n <= resampling.exact_up_to.min(EXACT_LIMIT);
    let total = if exact {
        1u64 << n
    } else {
        resampling.resamples
    };
    let chunks = total.div_ceil(CHUNK);
    let per_chunk: Vec<Vec<u64>> = (0..chunks)
        .into_par_iter()
        .map(|chunk| {
            let start = chunk * CHUNK;
            let size = (total - start).min(CHUNK) as usize;
            let bytes = if exact {
                enumerated_bytes(start, size, blocks)
            } else {
                random_bytes(resampling.seed, chunk, size, blocks)
            };
            count_chunk(columns, &thresholds, &bytes, size)
        })
        .collect();
    let mut counts = vec![0u64; columns.len()];
    for chunk in &per_chunk {
        for (total, count) in counts.iter_mut().zip(chunk) {
            *total += count;
        }
    }
    Ok(counts
        .into_iter()
        .map(|extreme| {
            let p_value = if exact {
                extreme as f64 / total as f64
            } else {
                (extreme + 1) as f64 / (total + 1) as f64
            };
            SignFlip {
                p_value,
                exact,
                resamples: total,
                extreme,
            }
        })
        .collect())
}

/// The observed sum, computed exactly as a resample with every sign `+` is.
fn observed_sum(column: &[f64]) -> f64 {
    let mut table = [0.0; 256];
    let mut sum = 0.0;
    for block in column.chunks(BLOCK) {
        fill_table(block, &mut table);
        sum += table[255];
    }
    sum
}

/// `table[pattern]` = the sum over the block of `+d` where the pattern's bit
/// is set and `-d` where it is clear. A block of fewer than 8 queries
/// ignores the pattern's high bits (its entries repeat), so any byte indexes
/// the table without a mask or a bounds check.
fn fill_table(block: &[f64], table: &mut [f64; 256]) {
    let size = 1usize << block.len();
    table[0] = block.iter().map(|d| -d).sum();
    for pattern in 1..size {
        let bit = pattern.trailing_zeros() as usize;
        table[pattern] = table[pattern & (pattern - 1)] + 2.0 * block[bit];
    }
    for pattern in size..256 {
        table[pattern] = table[pattern & (size - 1)];
    }
}

/// Random bytes of one chunk, block-major: byte `j * size + r` is the sign
/// pattern of block `j` in resample `r`.
fn random_bytes(seed: u64, chunk: u64, size: usize, blocks: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; size * blocks];
    chunk_rng(seed, chunk).fill_bytes(&mut bytes);
    bytes
}

/// The sign vectors `start..start + size` in counting order, block-major
/// like [`random_bytes`]: bit `i` of the vector number is the sign of query
/// `i`.
fn enumerated_bytes(start: u64, size: usize, blocks: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; size * blocks];
    for block in 0..blocks {
        let row = &mut bytes[block * size..(block + 1) * size];
        for (r, byte) in row.iter_mut().enumerate() {
            *byte = ((start + r as u64) >> (8 * block)) as u8;
        }
    }
    bytes
}

/// For each column, how many of the chunk's resamples reach its threshold.
fn count_chunk(columns: &[&[f64]], thresholds: &[f64], bytes: &[u8], size: usize) -> Vec<u64> {
    let mut sums = vec![0.0f64; columns.len() * size];
    let mut table = [0.0; 256];
    let blocks = bytes.len() / size.max(1);
    for block in 0..blocks {
        let patterns = &bytes[block * size..(block + 1) * size];
        for (column, acc) in columns.iter().zip(sums.chunks_mut(size)) {
            let values = &column[block * BLOCK..((block + 1) * BLOCK).min(column.len())];
            fill_table(values, &mut table);
            for (sum, pattern) in acc.iter_mut().zip(patterns) {
                *sum += table[usize::from(*pattern)];
            }
        }
    }
    sums.chunks(size)
        .zip(thresholds)
        .map(|(acc, threshold)| acc.iter().filter(|s| s.abs() >= *threshold).count() as u64)
        .collect()
}
