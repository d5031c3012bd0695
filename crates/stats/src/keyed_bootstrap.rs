//! The double-or-nothing bootstrap of a mean difference with each query's
//! weights keyed by its id: the same interval and p-value whether the
//! per-query differences are one column (the command line) or spread over
//! the partitions of a Spark job in any order.
//!
//! The bootstrap is [`crate::double_or_nothing`]'s: each resample weights
//! every query by 0 or 2, each with probability 1/2, its statistic is the
//! mean of the queries of weight 2, the interval is the percentile
//! interval of the resampled means and the p-value the shifted
//! bootstrap's (see [`crate::bootstrap`]). What differs is where the
//! weights come from: query `q`'s weight in resample `r` is bit `r` of its
//! own keystream ([`KEYED_BOOTSTRAP_RNG_NAME`]), fixed by `(seed,
//! hash(q), r)`, so a state that adds the queries in any order and merges
//! with the states of other queries in any grouping ends with the same
//! exact sums. Its resamples are not those of
//! [`crate::double_or_nothing`], which draws weights by position.
//!
//! The keystream is the keyed sign flip's ([`crate::keyed::KEYED_RNG_NAME`],
//! the same seed and stream) read from 32-bit word
//! [`KEYED_BOOTSTRAP_WORD_OFFSET`] on, so a query's bootstrap weights and
//! its signs are different bits even under one seed.

use rand_core::Rng;
use rankeval_core::exact_sum::ExactSum;

use crate::bootstrap::{Bootstrap, BootstrapMethod, allowance_of, summarize_means};
use crate::error::CompareError;
use crate::keyed::{Kind, Reader, Writer, check_value, invalid, query_stream, same_settings};
use crate::paired::validate_level;

/// Where in a query's keystream the bootstrap's bits start: 32-bit word
/// 2^40 (the sign flip reads from word 0, one bit per resample, so the two
/// overlap only beyond 2^45 resamples).
pub const KEYED_BOOTSTRAP_WORD_OFFSET: u128 = 1 << 40;

/// The generator of [`KeyedBootstrap`], as printed in reports' provenance.
/// Its definition: query `q` has weight 2 in resample `r` when bit `r` of
/// the keystream of ChaCha8 (`rand_chacha` 0.10's `ChaCha8Rng`) seeded with
/// `seed_from_u64(seed)` on stream `spark_xxhash64(q) as u64`, read from
/// 32-bit word 2^40 on, is 1 (bit `r % 64` of the `r / 64`-th `u64` read
/// with `next_u64` from there), weight 0 when it is 0.
pub const KEYED_BOOTSTRAP_RNG_NAME: &str = "ChaCha8 (rand_chacha 0.10, seed_from_u64(seed), stream = Spark xxhash64 of the query, from word 2^40; bit r of the keystream = weight 2 in resample r)";

/// The keyed double-or-nothing bootstrap of a column of per-query
/// differences `d`, as a mergeable state (see the [module](self)).
///
/// The state keeps `n`, the exact `Σ d_q`, the largest `|d_q|` (for the
/// p-value's rounding allowance) and, for each of the `B` resamples, the
/// number `c_r` of queries of weight 2 and the exact sum `S_r` of their
/// differences. Resample `r`'s mean is `S_r / c_r` (each rounded once), or
/// the observed mean when `c_r = 0` (probability `2^-n`). Then, as every
/// bootstrap of the crate: the percentile interval of the `B` means
/// (numpy's linear percentile), the shifted-bootstrap p-value `(1 +
/// #{r : |m_r - m| >= |m| - 4 (n + 2) eps max|d|}) / (B + 1)`, and the
/// standard deviation of the means as the standard error.
///
/// Cost: `B / 64` generator words and about `B / 2` exact additions per
/// query (the sign flip's cost), and `B` sums and counts in the state.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyedBootstrap {
    /// The number of resamples `B`.
    resamples: u64,
    /// The seed of the generator.
    seed: u64,
    /// The number of differences added.
    n: u64,
    /// Their exact sum.
    observed: ExactSum,
    /// The largest magnitude among them (0 when there is none).
    largest: f64,
    /// `chosen[r]`: how many queries have weight 2 in resample `r`.
    chosen: Vec<u64>,
    /// `sums[r]`: the exact sum of their differences.
    sums: Vec<ExactSum>,
}

impl KeyedBootstrap {
    /// An empty state with `resamples` resamples (at least 1) drawn with
    /// `seed`.
    pub fn new(resamples: u64, seed: u64) -> Result<Self, CompareError> {
        crate::paired::check_resamples(resamples)?;
        let size = usize::try_from(resamples).map_err(|_| CompareError::NoResamples)?;
        Ok(Self {
            resamples,
            seed,
            n: 0,
            observed: ExactSum::new(),
            largest: 0.0,
            chosen: vec![0; size],
            sums: vec![ExactSum::new(); size],
        })
    }

    /// The number of resamples `B`.
    pub fn resamples(&self) -> u64 {
        self.resamples
    }

    /// The seed of the generator.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The number of differences added.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Adds the difference `d` of query `query` (its key, as
    /// [`crate::keyed`] defines it) to the resamples where its weight is 2.
    /// Error: `d` is NaN or infinite.
    pub fn add(&mut self, query: &[u8], d: f64) -> Result<(), CompareError> {
        check_value(query, d)?;
        let mut rng = query_stream(self.seed, query, KEYED_BOOTSTRAP_WORD_OFFSET);
        for (sums, chosen) in self.sums.chunks_mut(64).zip(self.chosen.chunks_mut(64)) {
            let word = rng.next_u64();
            for (bit, (sum, count)) in sums.iter_mut().zip(chosen.iter_mut()).enumerate() {
                if (word >> bit) & 1 == 1 {
                    sum.add(d);
                    *count += 1;
                }
            }
        }
        self.observed.add(d);
        self.largest = self.largest.max(d.abs());
        self.n += 1;
        Ok(())
    }

    /// Adds the differences of `other` (other queries). Error: `other` has
    /// a different number of resamples or seed.
    pub fn merge(&mut self, other: &KeyedBootstrap) -> Result<(), CompareError> {
        same_settings(&[
            ("resamples", self.resamples, other.resamples),
            ("seed", self.seed, other.seed),
        ])?;
        self.n += other.n;
        self.observed.merge(&other.observed);
        self.largest = self.largest.max(other.largest);
        for (count, more) in self.chosen.iter_mut().zip(&other.chosen) {
            *count += more;
        }
        for (sum, more) in self.sums.iter_mut().zip(&other.sums) {
            sum.merge(more);
        }
        Ok(())
    }

    /// The mean of the differences added, `Σ d / n` (NaN when none).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        self.observed.value() / self.n as f64
    }

    /// The resampled means, in resample order.
    pub fn resampled_means(&self) -> Vec<f64> {
        let observed = self.mean();
        self.sums
            .iter()
            .zip(&self.chosen)
            .map(|(sum, &count)| {
                if count == 0 {
                    observed
                } else {
                    sum.value() / count as f64
                }
            })
            .collect()
    }

    /// The bootstrap's interval at `level`, p-value and standard error (see
    /// the [type](Self)); `method` is reported as
    /// [`BootstrapMethod::DoubleOrNothing`], the weights it draws. Errors:
    /// fewer than 2 differences, a level not strictly between 0 and 1.
    pub fn result(&self, level: f64) -> Result<Bootstrap, CompareError> {
        validate_level(level)?;
        if self.n < 2 {
            return Err(CompareError::TooFewQueries {
                queries: self.n as usize,
            });
        }
        Ok(summarize_means(
            self.mean(),
            allowance_of(self.n, self.largest),
            self.resampled_means(),
            level,
            BootstrapMethod::DoubleOrNothing,
        ))
    }

    /// The state as a flat list of `f64`s (see [`crate::keyed`]'s wire
    /// format): `[5, 1, B, seed >> 32, seed & 0xFFFF_FFFF, n, largest,
    /// observed, c_0, ..., c_{B-1}, S_0, ..., S_{B-1}]`, each sum written as
    /// its number of partials followed by the partials.
    pub fn to_wire(&self) -> Vec<f64> {
        let mut wire = Writer::new(Kind::KeyedBootstrap);
        wire.count(self.resamples);
        wire.seed(self.seed);
        wire.count(self.n);
        wire.value(self.largest);
        wire.sum(&self.observed);
        for &count in &self.chosen {
            wire.count(count);
        }
        for sum in &self.sums {
            wire.sum(sum);
        }
        wire.finish()
    }

    /// The state [`to_wire`](Self::to_wire) wrote. Error
    /// ([`CompareError::InvalidWire`]): anything `to_wire` does not write.
    pub fn from_wire(wire: &[f64]) -> Result<Self, CompareError> {
        let mut reader = Reader::new(wire, Kind::KeyedBootstrap)?;
        let resamples = reader.count("the number of resamples")?;
        let seed = reader.seed()?;
        let n = reader.count("the number of differences")?;
        let largest = reader.value("the largest magnitude")?;
        if !(largest.is_finite() && largest >= 0.0) {
            return Err(invalid(format!("the largest magnitude is {largest}")));
        }
        let observed = reader.sum()?;
        // Each resample takes at least two values (its count and its sum's
        // number of partials): check the length before allocating.
        if resamples == 0 || resamples.saturating_mul(2) > reader.remaining() as u64 {
            return Err(invalid(format!(
                "{resamples} resamples, {} values left for their counts and sums",
                reader.remaining()
            )));
        }
        let mut state = Self::new(resamples, seed)?;
        state.n = n;
        state.largest = largest;
        state.observed = observed;
        for count in &mut state.chosen {
            *count = reader.count("a resample's count")?;
            if *count > n {
                return Err(invalid(format!(
                    "a resample holds {count} of {n} differences"
                )));
            }
        }
        for (r, sum) in state.sums.iter_mut().enumerate() {
            *sum = reader.sum()?;
            if state.chosen[r] == 0 && !sum.partials().is_empty() {
                return Err(invalid(format!("resample {r} holds no value but a sum")));
            }
        }
        reader.finish()?;
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(values: &[(&str, f64)], resamples: u64, seed: u64) -> KeyedBootstrap {
        let mut s = KeyedBootstrap::new(resamples, seed).unwrap();
        for (q, d) in values {
            s.add(q.as_bytes(), *d).unwrap();
        }
        s
    }

    #[test]
    fn a_query_in_a_resample_counts_once_and_about_half_the_time() {
        let s = state(&[("q1", 0.5)], 1000, 7);
        let chosen: u64 = s.chosen.iter().sum();
        assert!((400..=600).contains(&chosen), "{chosen}");
        for (sum, count) in s.sums.iter().zip(&s.chosen) {
            assert_eq!(sum.value(), 0.5 * *count as f64);
        }
    }

    #[test]
    fn weights_are_not_the_sign_flips_bits() {
        // The sign flip reads the same stream from word 0: with one seed a
        // query's weights must still differ from its signs.
        let mut flips = crate::keyed::KeyedSignFlip::new(256, 3).unwrap();
        flips.add(b"q", 1.0).unwrap();
        let boot = state(&[("q", 1.0)], 256, 3);
        let signs: Vec<bool> = flips
            .to_wire()
            .iter()
            .skip(9) // kind, version, B, seed halves, n, observed (1 partial)
            .step_by(2)
            .map(|p| *p > 0.0)
            .collect();
        assert_eq!(signs.len(), 256);
        let weights: Vec<bool> = boot.chosen.iter().map(|c| *c == 1).collect();
        assert_ne!(signs, weights);
    }

    #[test]
    fn wire_round_trips_and_rejects_junk() {
        let s = state(&[("a", 0.1), ("b", -0.3), ("c", 0.7)], 70, 1 << 40);
        let wire = s.to_wire();
        assert_eq!(KeyedBootstrap::from_wire(&wire).unwrap(), s);
        let mut longer = wire.clone();
        longer.push(0.0);
        assert!(KeyedBootstrap::from_wire(&longer).is_err());
        assert!(KeyedBootstrap::from_wire(&wire[..wire.len() - 1]).is_err());
        let mut negative = wire;
        negative[6] = -1.0;
        assert!(KeyedBootstrap::from_wire(&negative).is_err());
    }

    #[test]
    fn merge_refuses_other_settings() {
        let mut a = KeyedBootstrap::new(10, 1).unwrap();
        assert!(a.merge(&KeyedBootstrap::new(11, 1).unwrap()).is_err());
        assert!(a.merge(&KeyedBootstrap::new(10, 2).unwrap()).is_err());
    }
}
