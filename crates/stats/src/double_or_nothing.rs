//! The double-or-nothing bootstrap of the mean difference: the bootstrap
//! for large query sets.
//!
//! Each resample weights every query independently by 0 or 2, each with
//! probability 1/2, and its statistic is the weighted mean of the
//! differences, `sum w_i d_i / sum w_i`: the mean of the queries whose
//! weight is 2 (a random subset of about half the queries). The weights
//! have mean 1 and variance 1, like the multinomial bootstrap's counts
//! (asymptotically Poisson(1)) and the Poisson bootstrap's, so the resampled
//! means have the same variance to first order, `sum (d_i - mean)^2 / n^2`
//! (exactly, about `1 + 3 / n` times it: the mean of a random subset), and
//! the percentile interval the same coverage (Owen & Eckles 2012,
//! "Bootstrapping data arrays of arbitrary order", on this and other
//! weighted bootstraps for large data). What the 0/2 weights lose is the
//! third moment (`E[(w - 1)^3]` is 0, 1 for Poisson): the resampled means
//! are less skewed than the multinomial bootstrap's by `O(1 / sqrt(n))`, a
//! shift of the percentile bounds far below the Monte Carlo error of 10,000
//! resamples from a few thousand queries on, which is why
//! [`crate::bootstrap::BootstrapMethod::Auto`] uses it only above
//! [`crate::bootstrap::MULTINOMIAL_UP_TO`] queries.
//!
//! Why not the Poisson bootstrap: a weight is one random bit here, and 8
//! queries' weights are one random byte that indexes a 256-entry table of
//! the subset sums of their (centred) differences, so a resample costs
//! `n / 8` look-ups and `n / 8` random bytes, shared by every column of the
//! same queries. Poisson(1) weights take about 1.9 bits of entropy each, 32
//! with a table look-up on a `u32` draw, and a multiply-add per query and
//! column: on 1,000,000 queries and 10,000 resamples that is 40 GB of
//! generator output alone, more than the evaluation (see docs/compare.md).
//!
//! A resample whose weights are all 0 (probability `2^-n`) has no mean; its
//! value is taken as the observed mean.
//!
//! # Random streams (part of the definition of the results)
//!
//! Resamples are cut into chunks of [`CHUNK`] and queries into slabs of
//! [`SLAB`], each slab into groups of 64 queries. Chunk `k` draws from
//! ChaCha8 stream `k` ([`crate::rng::fast_chunk_rng`]: the random bits are
//! most of this bootstrap's cost); slab `s` of chunk `k`
//! starts at word `s * CHUNK * SLAB / 8 / 4` of that stream (a fixed
//! stride, whatever the chunk's size), and its groups take the next
//! `2 * size` words each: bytes `8 r .. 8 r + 8`, read as a little-endian
//! `u64`, are the weights of the group's 64 queries in resample `r` (bit
//! `i` set: query `i` of the group has weight 2). Each (chunk, slab) is one
//! task (rayon). A resample's sum over a group adds the 8 look-ups
//! pairwise in a fixed order; groups are added in order within a slab, and
//! slabs in slab order, so the results are the same bits for any thread
//! count on any machine.

use rand_core::Rng;
use rayon::prelude::*;

use crate::bootstrap::{Bootstrap, BootstrapMethod, summarize, validate_resampling};
use crate::error::CompareError;
use crate::paired::mean;
use crate::rng::fast_chunk_rng;

/// Resamples per chunk (per random stream).
pub const CHUNK: u64 = 2048;

/// Queries per slab (per task and seek point in the stream).
pub const SLAB: usize = 8192;

/// Queries per random byte and look-up table.
const BLOCK: usize = 8;

/// Queries per random 64-bit word (8 blocks): one resample's weights of a
/// group of 64 queries, read from 8 consecutive bytes of the stream.
const GROUP: usize = 64;

/// Words (32-bit) of the stream reserved for one slab of one chunk.
const SLAB_WORDS: u128 = (CHUNK as u128) * (SLAB / BLOCK) as u128 / 4;

/// The double-or-nothing bootstrap of several columns of the same length
/// (at least 2 finite values each; `resamples >= 1`; `0 < level < 1`),
/// sharing the random weights: each result equals that of the column alone.
pub fn double_or_nothing_columns(
    columns: &[&[f64]],
    level: f64,
    resamples: u64,
    seed: u64,
) -> Result<Vec<Bootstrap>, CompareError> {
    validate_resampling(columns, level, resamples)?;
    let Some(first) = columns.first() else {
        return Ok(Vec::new());
    };
    let n = first.len();
    let observed: Vec<f64> = columns.iter().map(|c| mean(c)).collect();
    let centred: Vec<Vec<f64>> = columns
        .iter()
        .zip(&observed)
        .map(|(column, m)| column.iter().map(|d| d - m).collect())
        .collect();
    let centred: Vec<&[f64]> = centred.iter().map(Vec::as_slice).collect();
    let chunks = resamples.div_ceil(CHUNK);
    let slabs = n.div_ceil(SLAB);
    // means[chunk][column * size + r]
    let per_chunk: Vec<Vec<f64>> = (0..chunks)
        .into_par_iter()
        .map(|chunk| {
            let size = (resamples - chunk * CHUNK).min(CHUNK) as usize;
            let partials: Vec<Partial> = (0..slabs)
                .into_par_iter()
                .map(|slab| slab_sums(&centred, seed, chunk, slab, size))
                .collect();
            chunk_means(&partials, &observed, size)
        })
        .collect();
    Ok(columns
        .iter()
        .enumerate()
        .map(|(c, column)| {
            let mut means = Vec::with_capacity(resamples as usize);
            for chunk in &per_chunk {
                let size = chunk.len() / columns.len();
                means.extend_from_slice(&chunk[c * size..(c + 1) * size]);
            }
            summarize(column, means, level, BootstrapMethod::DoubleOrNothing)
        })
        .collect())
}

/// One slab's contribution to a chunk's resamples.
struct Partial {
    /// `sums[column * size + r]`: sum of the slab's centred differences of
    /// weight 2 in resample `r`.
    sums: Vec<f64>,
    /// `counts[r]`: how many of the slab's queries have weight 2.
    counts: Vec<u32>,
}

/// The weights of the slab's queries in the chunk's resamples, applied to
/// every column.
fn slab_sums(columns: &[&[f64]], seed: u64, chunk: u64, slab: usize, size: usize) -> Partial {
    let mut rng = fast_chunk_rng(seed, chunk);
    rng.set_word_pos(slab as u128 * SLAB_WORDS);
    let n = columns.first().map_or(0, |c| c.len());
    let start = slab * SLAB;
    let end = (start + SLAB).min(n);
    let mut sums = vec![0.0f64; columns.len() * size];
    let mut counts = vec![0u32; size];
    let mut bytes = vec![0u8; size * GROUP / BLOCK];
    let mut words = vec![0u64; size];
    let mut tables = vec![[0.0f64; 256]; GROUP / BLOCK];
    let pairs = columns.len() / 2;
    let mut pair_sums = vec![[0.0f64; 2]; pairs * size];
    let mut pair_tables = vec![[[0.0f64; 2]; 256]; GROUP / BLOCK];
    let mut scratch = [0.0f64; 256];
    for group_start in (start..end).step_by(GROUP) {
        let group_end = (group_start + GROUP).min(end);
        rng.fill_bytes(&mut bytes);
        for (word, eight) in words.iter_mut().zip(bytes.chunks_exact(8)) {
            let mut le = [0u8; 8];
            le.copy_from_slice(eight);
            *word = u64::from_le_bytes(le);
        }
        let len = group_end - group_start;
        let mask = if len == GROUP {
            u64::MAX
        } else {
            (1u64 << len) - 1
        };
        for (count, word) in counts.iter_mut().zip(&words) {
            *count += (word & mask).count_ones();
        }
        // Two columns at a time: one look-up index, one 16-byte load and one
        // two-lane addition serve both (the same operations, in the same
        // order, as a column alone).
        for (pair, acc) in pair_sums.chunks_mut(size).enumerate() {
            for (b, table) in pair_tables.iter_mut().enumerate() {
                for (lane, column) in columns[2 * pair..2 * pair + 2].iter().enumerate() {
                    let values = &column[group_start..group_end];
                    let from = (b * BLOCK).min(values.len());
                    let to = ((b + 1) * BLOCK).min(values.len());
                    subset_sums(&values[from..to], &mut scratch);
                    for (entry, value) in table.iter_mut().zip(&scratch) {
                        entry[lane] = *value;
                    }
                }
            }
            add_group_pair(acc, &words, &pair_tables);
        }
        if let Some(column) = columns.get(2 * pairs) {
            let values = &column[group_start..group_end];
            for (b, table) in tables.iter_mut().enumerate() {
                let from = (b * BLOCK).min(values.len());
                let to = ((b + 1) * BLOCK).min(values.len());
                subset_sums(&values[from..to], table);
            }
            add_group(&mut sums[2 * pairs * size..], &words, &tables);
        }
    }
    for (pair, acc) in pair_sums.chunks(size).enumerate() {
        for (r, two) in acc.iter().enumerate() {
            sums[2 * pair * size + r] = two[0];
            sums[(2 * pair + 1) * size + r] = two[1];
        }
    }
    Partial { sums, counts }
}

/// `acc[r] += ` the sum of the 8 blocks' subset sums picked by the bytes of
/// `words[r]`, added pairwise in a fixed order.
fn add_group(acc: &mut [f64], words: &[u64], tables: &[[f64; 256]]) {
    let [t0, t1, t2, t3, t4, t5, t6, t7] = tables else {
        return;
    };
    let at = |table: &[f64; 256], word: u64, shift: u32| table[((word >> shift) & 0xFF) as usize];
    for (sum, &w) in acc.iter_mut().zip(words) {
        let low = (at(t0, w, 0) + at(t1, w, 8)) + (at(t2, w, 16) + at(t3, w, 24));
        let high = (at(t4, w, 32) + at(t5, w, 40)) + (at(t6, w, 48) + at(t7, w, 56));
        *sum += low + high;
    }
}

/// [`add_group`] for two columns at once, lane by lane.
fn add_group_pair(acc: &mut [[f64; 2]], words: &[u64], tables: &[[[f64; 2]; 256]]) {
    let [t0, t1, t2, t3, t4, t5, t6, t7] = tables else {
        return;
    };
    let at =
        |table: &[[f64; 2]; 256], word: u64, shift: u32| table[((word >> shift) & 0xFF) as usize];
    let add = |x: [f64; 2], y: [f64; 2]| [x[0] + y[0], x[1] + y[1]];
    for (sum, &w) in acc.iter_mut().zip(words) {
        let low = add(
            add(at(t0, w, 0), at(t1, w, 8)),
            add(at(t2, w, 16), at(t3, w, 24)),
        );
        let high = add(
            add(at(t4, w, 32), at(t5, w, 40)),
            add(at(t6, w, 48), at(t7, w, 56)),
        );
        *sum = add(*sum, add(low, high));
    }
}

/// `table[pattern]` = the sum of the block's values whose bit is set in
/// `pattern`. A block of fewer than 8 values ignores the high bits (its
/// entries repeat), so any byte indexes the table.
fn subset_sums(block: &[f64], table: &mut [f64; 256]) {
    let size = 1usize << block.len();
    table[0] = 0.0;
    for pattern in 1..size {
        let bit = pattern.trailing_zeros() as usize;
        table[pattern] = table[pattern & (pattern - 1)] + block[bit];
    }
    for pattern in size..256 {
        table[pattern] = table[pattern & (size - 1)];
    }
}

/// The chunk's resampled means, column-major: the slabs' sums and counts
/// added in slab order, divided, shifted back by the observed mean.
fn chunk_means(partials: &[Partial], observed: &[f64], size: usize) -> Vec<f64> {
    let mut sums = vec![0.0f64; observed.len() * size];
    let mut counts = vec![0u64; size];
    for partial in partials {
        for (total, sum) in sums.iter_mut().zip(&partial.sums) {
            *total += sum;
        }
        for (total, count) in counts.iter_mut().zip(&partial.counts) {
            *total += u64::from(*count);
        }
    }
    for (column, m) in sums.chunks_mut(size).zip(observed) {
        for (value, count) in column.iter_mut().zip(&counts) {
            *value = if *count == 0 {
                *m
            } else {
                m + *value / *count as f64
            };
        }
    }
    sums
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subset_sums_of_a_full_and_a_short_block() {
        let mut table = [f64::NAN; 256];
        subset_sums(&[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0], &mut table);
        for (pattern, value) in table.iter().enumerate() {
            assert_eq!(*value, pattern as f64);
        }
        subset_sums(&[1.0, 2.0, 4.0], &mut table);
        for (pattern, value) in table.iter().enumerate() {
            assert_eq!(*value, (pattern & 7) as f64);
        }
    }

    /// A slab's bytes are the stream's words from its fixed offset: the same
    /// as reading the stream from the start and skipping.
    #[test]
    fn a_slab_seeks_to_its_fixed_offset() {
        let size = 3;
        let column: Vec<f64> = (0..SLAB + 9).map(|i| (i % 13) as f64).collect();
        let second = slab_sums(&[&column], 7, 3, 1, size);
        let mut rng = fast_chunk_rng(7, 3);
        let mut skipped = vec![0u8; SLAB_WORDS as usize * 4];
        rng.fill_bytes(&mut skipped);
        let mut bytes = [0u8; 24];
        rng.fill_bytes(&mut bytes);
        let counts: Vec<u32> = bytes
            .chunks(8)
            .map(|w| w[0].count_ones() + (w[1] & 1).count_ones())
            .collect();
        assert_eq!(second.counts, counts);
        let sums: Vec<f64> = bytes
            .chunks(8)
            .map(|w| {
                (0..9)
                    .filter(|q| w[q / 8] >> (q % 8) & 1 == 1)
                    .map(|q| ((SLAB + q) % 13) as f64)
                    .sum()
            })
            .collect();
        assert_eq!(second.sums, sums);
    }
}
