//! The seeded percentile bootstrap of off-policy estimates, resampling
//! impressions (Efron & Tibshirani, *An Introduction to the Bootstrap*,
//! 1993, chapters 6 and 13; obp's `estimate_interval` resamples the same
//! unit, with an unseeded generator by default).
//!
//! Resample `r` draws `n` impression positions uniformly with replacement;
//! every estimate on the log (each policy, each estimator) is made again
//! from the drawn impressions' contributions, added to a fresh [`State`]
//! of its estimator in draw order, so a self-normalised estimator's
//! denominator is resampled with its numerator. Every estimate shares the
//! draws, so a paired difference is resampled by impression too.
//!
//! The draws are the project's bootstrap's (`rankeval_stats::bootstrap`):
//! resamples cut into chunks of [`CHUNK`](rankeval_stats::bootstrap::CHUNK),
//! chunk `k` drawing from stream `k` of ChaCha20 seeded with
//! `seed_from_u64(seed)` ([`RNG_NAME`](rankeval_stats::RNG_NAME)),
//! positions by Lemire's unbiased method. The chunks run on rayon's
//! threads (`RAYON_NUM_THREADS`), each from its own stream, and their
//! values are put back by chunk index; within a resample each state adds
//! its drawn contributions in draw order. So the values are the same bits
//! for any number of threads. The interval is the percentile
//! interval (numpy's linear percentile of the resampled values), the
//! p-value of a difference the shifted bootstrap's `(b + 1) / (B + 1)`,
//! `b = #{ |d*_r - d| >= |d| }`. The same seed gives the same bits on any
//! machine.

use rayon::prelude::*;

use rankeval_stats::Interval;
use rankeval_stats::bootstrap::{CHUNK, percentile};
use rankeval_stats::rng::{below, chunk_rng};

use crate::error::OpeError;
use crate::state::{Contribution, State};

/// How many resamples and from which seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Resampling {
    /// Resamples `B` (checked by the front ends: at least the percentile
    /// interval's minimum at the level, at most
    /// [`MAX_RESAMPLES`](rankeval_stats::MAX_RESAMPLES)).
    pub resamples: u64,
    /// The generator's seed.
    pub seed: u64,
}

/// The resampled values of each estimate: `sets[k]` is an estimator's
/// state on the whole log (its name and form) and its contributions, one
/// per impression, every set over the same impressions in the same order.
/// `out[k][r]` is set `k`'s value on resample `r`. Errors: sets of
/// different lengths, more than `u32::MAX` impressions.
pub fn resampled_values(
    sets: &[(&State, &[Contribution])],
    resampling: Resampling,
) -> Result<Vec<Vec<f64>>, OpeError> {
    let n = sets.first().map_or(0, |(_, c)| c.len());
    if let Some((_, c)) = sets.iter().find(|(_, c)| c.len() != n) {
        return Err(OpeError::Length {
            index: c.len().min(n),
            what: "contributions resampled together",
            expected: n,
            found: c.len(),
        });
    }
    let bound = u32::try_from(n).map_err(|_| OpeError::Length {
        index: u32::MAX as usize,
        what: "impressions resampled (at most 2^32 - 1)",
        expected: u32::MAX as usize,
        found: n,
    })?;
    if n == 0 {
        return Ok(sets
            .iter()
            .map(|_| vec![f64::NAN; resampling.resamples as usize])
            .collect());
    }
    // per_chunk[chunk][k]: set k's values on that chunk's resamples.
    let per_chunk: Vec<Result<Vec<Vec<f64>>, OpeError>> = (0..resampling.resamples.div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let size = (resampling.resamples - chunk * CHUNK).min(CHUNK);
            resample_chunk(sets, bound, resampling.seed, chunk, size)
        })
        .collect();
    let mut out: Vec<Vec<f64>> = sets
        .iter()
        .map(|_| Vec::with_capacity(resampling.resamples as usize))
        .collect();
    // In chunk order: the values by chunk index, the first chunk's error.
    for chunk in per_chunk {
        for (values, chunk_values) in out.iter_mut().zip(chunk?) {
            values.extend(chunk_values);
        }
    }
    Ok(out)
}

/// The values of every set on chunk `chunk`'s `size` resamples of the
/// `bound` impressions (`bound >= 1`), drawn from that chunk's own stream:
/// `out[k][r]` is set `k`'s value on the chunk's resample `r`.
fn resample_chunk(
    sets: &[(&State, &[Contribution])],
    bound: u32,
    seed: u64,
    chunk: u64,
    size: u64,
) -> Result<Vec<Vec<f64>>, OpeError> {
    let mut rng = chunk_rng(seed, chunk);
    let mut drawn = vec![0u32; bound as usize];
    let mut out: Vec<Vec<f64>> = sets
        .iter()
        .map(|_| Vec::with_capacity(size as usize))
        .collect();
    for _ in 0..size {
        for slot in &mut drawn {
            *slot = below(&mut rng, bound);
        }
        for ((state, contributions), values) in sets.iter().zip(&mut out) {
            let mut resampled = State::new(state.name(), state.form());
            for (index, &i) in drawn.iter().enumerate() {
                if let Some(c) = contributions.get(i as usize) {
                    resampled.add(index, c)?;
                }
            }
            values.push(resampled.value_and_error().0);
        }
    }
    Ok(out)
}

/// The percentile interval at `level` of resampled `values` (NaN bounds
/// when a resample has no value, e.g. a self-normalised estimate whose
/// drawn weights are all 0: no interval is better than one that leaves
/// such resamples out).
pub fn percentile_interval(values: &[f64], level: f64) -> Interval {
    if values.is_empty() || values.iter().any(|v| v.is_nan()) {
        return Interval {
            lower: f64::NAN,
            upper: f64::NAN,
            level,
        };
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let tail = (1.0 - level) / 2.0;
    Interval {
        lower: percentile(&sorted, tail),
        upper: percentile(&sorted, 1.0 - tail),
        level,
    }
}

/// A paired difference's percentile interval and shifted-bootstrap
/// p-value from the two estimates' resampled values (drawn together) and
/// the observed `difference`.
pub fn paired_interval(
    candidate: &[f64],
    baseline: &[f64],
    difference: f64,
    level: f64,
) -> (Interval, f64) {
    let resampled: Vec<f64> = candidate.iter().zip(baseline).map(|(a, b)| a - b).collect();
    let interval = percentile_interval(&resampled, level);
    if interval.lower.is_nan() || difference.is_nan() {
        return (interval, f64::NAN);
    }
    let far = resampled
        .iter()
        .filter(|d| (*d - difference).abs() >= difference.abs())
        .count();
    let p = (far as f64 + 1.0) / (resampled.len() as f64 + 1.0);
    (interval, p.min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Form;

    fn contributions(values: &[(f64, f64)]) -> Vec<Contribution> {
        values
            .iter()
            .map(|&(x, w)| Contribution {
                columns: [x, w, 0.0],
                weight: w,
                support: w,
                clipped: false,
            })
            .collect()
    }

    #[test]
    fn a_constant_log_resamples_to_its_constant() {
        let c = contributions(&[(2.0, 1.0); 10]);
        let state = State::new("ips", Form::Mean);
        let values = resampled_values(
            &[(&state, &c)],
            Resampling {
                resamples: 300,
                seed: 7,
            },
        )
        .unwrap();
        assert_eq!(values[0].len(), 300);
        assert!(values[0].iter().all(|&v| v == 2.0));
        let interval = percentile_interval(&values[0], 0.95);
        assert_eq!((interval.lower, interval.upper), (2.0, 2.0));
    }

    #[test]
    fn the_seed_fixes_the_draws_and_another_seed_changes_them() {
        let c = contributions(&[(1.0, 1.0), (0.0, 1.0), (3.0, 2.0), (0.5, 0.5), (2.0, 1.5)]);
        let state = State::new("snips", Form::Ratio);
        let run = |seed| {
            resampled_values(
                &[(&state, &c)],
                Resampling {
                    resamples: 600,
                    seed,
                },
            )
            .unwrap()
        };
        assert_eq!(run(1), run(1));
        assert_ne!(run(1), run(2));
        // Each resampled SNIPS is a ratio of the drawn sums.
        let values = &run(1)[0];
        let lo = 0.0;
        let hi = 3.0 / 2.0;
        assert!(values.iter().all(|v| (lo..=hi).contains(v)), "{values:?}");
    }

    #[test]
    fn paired_sets_share_their_draws() {
        let a = contributions(&[(1.0, 1.0), (0.0, 1.0), (3.0, 1.0), (0.5, 1.0)]);
        // b is a shifted by 1 on every impression: every resampled
        // difference is exactly 1, so the interval is [1, 1].
        let b = contributions(&[(2.0, 1.0), (1.0, 1.0), (4.0, 1.0), (1.5, 1.0)]);
        let state = State::new("ips", Form::Mean);
        let values = resampled_values(
            &[(&state, &a), (&state, &b)],
            Resampling {
                resamples: 100,
                seed: 3,
            },
        )
        .unwrap();
        let (interval, p) = paired_interval(&values[1], &values[0], 1.0, 0.9);
        assert_eq!((interval.lower, interval.upper), (1.0, 1.0));
        assert_eq!(p, 1.0 / 101.0);
        let err = resampled_values(
            &[(&state, &a), (&state, &b[..3])],
            Resampling {
                resamples: 1,
                seed: 0,
            },
        );
        assert!(err.is_err());
    }

    /// The one-thread loop the chunks replaced: chunk after chunk, each
    /// resample drawing from its chunk's stream after the chunk's earlier
    /// resamples, every set's values appended in resample order.
    fn one_thread(sets: &[(&State, &[Contribution])], resampling: Resampling) -> Vec<Vec<f64>> {
        let n = sets[0].1.len();
        let mut out = vec![Vec::new(); sets.len()];
        let mut drawn = vec![0u32; n];
        for chunk in 0..resampling.resamples.div_ceil(CHUNK) {
            let mut rng = chunk_rng(resampling.seed, chunk);
            for _ in 0..(resampling.resamples - chunk * CHUNK).min(CHUNK) {
                for slot in &mut drawn {
                    *slot = below(&mut rng, n as u32);
                }
                for ((state, contributions), values) in sets.iter().zip(&mut out) {
                    let mut resampled = State::new(state.name(), state.form());
                    for (index, &i) in drawn.iter().enumerate() {
                        resampled.add(index, &contributions[i as usize]).unwrap();
                    }
                    values.push(resampled.value_and_error().0);
                }
            }
        }
        out
    }

    #[test]
    fn chunks_land_by_index_on_any_number_of_threads() {
        let values: Vec<(f64, f64)> = (0..37u32)
            .map(|i| (f64::from(i * 7 % 11), 0.5 + f64::from(i % 4)))
            .collect();
        let c = contributions(&values);
        let ips = State::new("ips", Form::Mean);
        let snips = State::new("snips", Form::Ratio);
        let sets = [(&ips, c.as_slice()), (&snips, c.as_slice())];
        // Three full chunks and a partial one.
        let resampling = Resampling {
            resamples: 3 * CHUNK + 5,
            seed: 11,
        };
        let expected = one_thread(&sets, resampling);
        let chunk = CHUNK as usize;
        // Each chunk's values are its own: one put in another's place shows.
        for set in &expected {
            assert_ne!(set[..chunk], set[chunk..2 * chunk]);
            assert_ne!(set[..5], set[3 * chunk..]);
        }
        let bits = |v: &[Vec<f64>]| -> Vec<Vec<u64>> {
            v.iter()
                .map(|set| set.iter().map(|x| x.to_bits()).collect())
                .collect()
        };
        for threads in [1, 2, 7] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let values = pool
                .install(|| resampled_values(&sets, resampling))
                .unwrap();
            assert_eq!(bits(&values), bits(&expected), "{threads} threads");
        }
    }

    #[test]
    fn a_resample_without_a_value_leaves_no_interval() {
        assert!(percentile_interval(&[1.0, f64::NAN], 0.95).lower.is_nan());
        assert!(percentile_interval(&[], 0.95).upper.is_nan());
    }
}
