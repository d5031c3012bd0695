//! The randomized Tukey HSD over all pairs of systems with each query's
//! permutations keyed by its id: the same p-values whether the per-query
//! scores are columns on one machine or rows spread over the partitions of
//! a Spark job in any order.
//!
//! The test is [`crate::tukey`]'s (Carterette 2012): under the null
//! hypothesis the `k` systems' scores of a query are exchangeable, each
//! resample permutes every query's scores across the systems, and the
//! p-value of a pair is the share of resamples whose largest difference
//! between two systems' sums reaches the pair's observed difference. What
//! differs is where the permutations come from: query `q`'s permutation in
//! resample `r` is drawn from its own keystream ([`KEYED_TUKEY_RNG_NAME`]),
//! fixed by `(seed, hash(q), r)`, and every sum is exact ([`ExactSum`]),
//! rounded once when read. A state adds queries in any order and merges
//! with other queries' states in any grouping: its permuted sums are the
//! same, so are its p-values. They are not those of
//! [`crate::tukey::randomized_tukey_hsd`], which draws by position.
//!
//! Comparing sums instead of means is the same test (every system has the
//! same `n` queries). With exact sums rounded once no rounding allowance
//! is needed: rounding is monotone, so a resample whose exact range is at
//! least the observed difference has a rounded range at least the rounded
//! difference (the identity permutation among them).

use rankeval_core::exact_sum::ExactSum;

use crate::error::CompareError;
use crate::keyed::{Kind, MAX_WIRE_COUNT, Reader, Writer, invalid, query_stream, same_settings};
use crate::rng::below;
use crate::tukey::{TukeyHsd, TukeyPair};

/// Where in a query's keystream the permutations start: 32-bit word 2^41
/// (past the sign flip's bits from word 0 and the bootstrap's from word
/// 2^40, [`crate::keyed_bootstrap::KEYED_BOOTSTRAP_WORD_OFFSET`]).
pub const KEYED_TUKEY_WORD_OFFSET: u128 = 1 << 41;

/// The generator of [`KeyedTukey`], as printed in reports' provenance.
/// Its definition: for query `q`, ChaCha8 (`rand_chacha` 0.10's
/// `ChaCha8Rng`) seeded with `seed_from_u64(seed)` on stream
/// `spark_xxhash64(q) as u64`, positioned at 32-bit word 2^41; resample
/// after resample (`r = 0, 1, ...`), the permutation `π` of `0..k` is a
/// Fisher-Yates shuffle of the identity (`i` from `k - 1` down to 1, swap
/// `i` with `j` uniform in `0..=i` by Lemire's unbiased method on 32-bit
/// draws, [`crate::rng::below`]), and system `j` gets the score of system
/// `π[j]`.
pub const KEYED_TUKEY_RNG_NAME: &str = "ChaCha8 (rand_chacha 0.10, seed_from_u64(seed), stream = Spark xxhash64 of the query, from word 2^41; a Fisher-Yates shuffle per resample, Lemire's method on 32-bit draws)";

/// The keyed randomized Tukey HSD of `k` systems' per-query scores, as a
/// mergeable state (see the [module](self)).
///
/// The state keeps `n`, each system's exact sum `S_j`, and for each
/// resample `r` each system's exact permuted sum `P_{r,j}`. The p-value of
/// the pair `(a, b)` is `(1 + #{r : max_j P_{r,j} - min_j P_{r,j} >= |S_b -
/// S_a|}) / (B + 1)` (sums rounded once each), adjusted over all pairs by
/// construction.
///
/// Cost: `B (k - 1)` draws and `B k` exact additions per query; `B k` sums
/// in the state and on the wire.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyedTukey {
    /// The number of systems `k`.
    systems: usize,
    /// The number of resamples `B`.
    resamples: u64,
    /// The seed of the generator.
    seed: u64,
    /// The number of queries added.
    n: u64,
    /// `observed[j]`: the exact sum of system `j`'s scores.
    observed: Vec<ExactSum>,
    /// `permuted[r * k + j]`: the exact sum of the scores system `j` gets in
    /// resample `r`.
    permuted: Vec<ExactSum>,
    /// Per pair `(a, b)`, `a < b` in lexicographic order: the exact sum of
    /// the queries' differences `score_b - score_a`, each rounded as the
    /// paired tests round it, so that a pair's difference is the mean of
    /// the paired differences the command line prints, bit for bit (the
    /// difference of two rounded means is not).
    differences: Vec<ExactSum>,
}

impl KeyedTukey {
    /// An empty state for `systems` systems (at least 2) with `resamples`
    /// resamples (at least 1) drawn with `seed`.
    pub fn new(systems: usize, resamples: u64, seed: u64) -> Result<Self, CompareError> {
        if systems < 2 || systems > u32::MAX as usize {
            return Err(CompareError::TooFewSystems { systems });
        }
        crate::paired::check_resamples(resamples)?;
        let size = usize::try_from(resamples)
            .ok()
            .and_then(|b| b.checked_mul(systems))
            .ok_or(CompareError::NoResamples)?;
        Ok(Self {
            systems,
            resamples,
            seed,
            n: 0,
            observed: vec![ExactSum::new(); systems],
            permuted: vec![ExactSum::new(); size],
            differences: vec![ExactSum::new(); systems * (systems - 1) / 2],
        })
    }

    /// The number of systems `k`.
    pub fn systems(&self) -> usize {
        self.systems
    }

    /// The number of resamples `B`.
    pub fn resamples(&self) -> u64 {
        self.resamples
    }

    /// The seed of the generator.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The number of queries added.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Adds query `query` (its key, as [`crate::keyed`] defines it) with
    /// each system's score, `scores[j]` of system `j`. Errors: not `k`
    /// scores, a score NaN or infinite.
    pub fn add(&mut self, query: &[u8], scores: &[f64]) -> Result<(), CompareError> {
        if scores.len() != self.systems {
            return Err(CompareError::RaggedSystems {
                system: scores.len().min(self.systems),
                len: scores.len(),
                expected: self.systems,
            });
        }
        if let Some(system) = scores.iter().position(|v| !v.is_finite()) {
            return Err(CompareError::NotFiniteQueryValue {
                query: String::from_utf8_lossy(query).into_owned(),
                value: scores[system],
            });
        }
        let k = self.systems;
        let mut rng = query_stream(self.seed, query, KEYED_TUKEY_WORD_OFFSET);
        let mut permutation: Vec<usize> = (0..k).collect();
        for sums in self.permuted.chunks_mut(k) {
            for (j, p) in permutation.iter_mut().enumerate() {
                *p = j;
            }
            for i in (1..k).rev() {
                // `i < k <= u32::MAX`, checked in `new`.
                let j = below(&mut rng, (i + 1) as u32) as usize;
                permutation.swap(i, j);
            }
            for (sum, &source) in sums.iter_mut().zip(&permutation) {
                sum.add(scores[source]);
            }
        }
        for (sum, &score) in self.observed.iter_mut().zip(scores) {
            sum.add(score);
        }
        let mut pair = self.differences.iter_mut();
        for a in 0..k {
            for b in a + 1..k {
                if let Some(sum) = pair.next() {
                    sum.add(scores[b] - scores[a]);
                }
            }
        }
        self.n += 1;
        Ok(())
    }

    /// Adds the queries of `other` (other queries). Error: `other` has a
    /// different number of systems, resamples or seed.
    pub fn merge(&mut self, other: &KeyedTukey) -> Result<(), CompareError> {
        same_settings(&[
            ("systems", self.systems as u64, other.systems as u64),
            ("resamples", self.resamples, other.resamples),
            ("seed", self.seed, other.seed),
        ])?;
        self.n += other.n;
        for (sum, more) in self.observed.iter_mut().zip(&other.observed) {
            sum.merge(more);
        }
        for (sum, more) in self.permuted.iter_mut().zip(&other.permuted) {
            sum.merge(more);
        }
        for (sum, more) in self.differences.iter_mut().zip(&other.differences) {
            sum.merge(more);
        }
        Ok(())
    }

    /// Each system's mean, every pair's difference of means and p-value
    /// (see the [type](Self)), pairs `(a, b)` with `a < b` in lexicographic
    /// order. Error: fewer than 2 queries.
    pub fn result(&self) -> Result<TukeyHsd, CompareError> {
        if self.n < 2 {
            return Err(CompareError::TooFewQueries {
                queries: self.n as usize,
            });
        }
        let k = self.systems;
        let sums: Vec<f64> = self.observed.iter().map(ExactSum::value).collect();
        let ranges: Vec<f64> = self
            .permuted
            .chunks(k)
            .map(|resample| {
                let (low, high) = resample
                    .iter()
                    .map(ExactSum::value)
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| {
                        (lo.min(s), hi.max(s))
                    });
                high - low
            })
            .collect();
        let n = self.n as f64;
        let means: Vec<f64> = sums.iter().map(|s| s / n).collect();
        let mut pairs = Vec::with_capacity(k * (k - 1) / 2);
        let mut differences = self.differences.iter();
        for a in 0..k {
            for b in a + 1..k {
                let observed = (sums[b] - sums[a]).abs();
                let extreme = ranges.iter().filter(|range| **range >= observed).count() as u64;
                let difference = differences.next().map_or(f64::NAN, ExactSum::value) / n;
                pairs.push(TukeyPair {
                    first: a,
                    second: b,
                    difference,
                    p_value: (extreme + 1) as f64 / (self.resamples + 1) as f64,
                });
            }
        }
        Ok(TukeyHsd {
            means,
            pairs,
            resamples: self.resamples,
            seed: self.seed,
        })
    }

    /// The state as a flat list of `f64`s (see [`crate::keyed`]'s wire
    /// format): `[6, 1, k, B, seed >> 32, seed & 0xFFFF_FFFF, n, S_0, ...,
    /// S_{k-1}, P_{0,0}, ..., P_{0,k-1}, P_{1,0}, ..., P_{B-1,k-1}, D_{0,1},
    /// ..., D_{k-2,k-1}]` (`D_{a,b}`: the sum of the differences of pair
    /// `(a, b)`), each
    /// sum written as its number of partials followed by the partials.
    pub fn to_wire(&self) -> Vec<f64> {
        let mut wire = Writer::new(Kind::KeyedTukey);
        wire.count(self.systems as u64);
        wire.count(self.resamples);
        wire.seed(self.seed);
        wire.count(self.n);
        for sum in self
            .observed
            .iter()
            .chain(&self.permuted)
            .chain(&self.differences)
        {
            wire.sum(sum);
        }
        wire.finish()
    }

    /// The state [`to_wire`](Self::to_wire) wrote. Error
    /// ([`CompareError::InvalidWire`]): anything `to_wire` does not write.
    pub fn from_wire(wire: &[f64]) -> Result<Self, CompareError> {
        let mut reader = Reader::new(wire, Kind::KeyedTukey)?;
        let systems = reader.count("the number of systems")?;
        let resamples = reader.count("the number of resamples")?;
        let seed = reader.seed()?;
        let n = reader.count("the number of queries")?;
        // Each sum takes at least one value: check the length before
        // allocating.
        let sums = (systems as f64) * (resamples as f64 + 1.0)
            + (systems as f64) * (systems as f64 - 1.0) / 2.0;
        if systems < 2
            || resamples == 0
            || sums > reader.remaining() as f64
            || sums > MAX_WIRE_COUNT
        {
            return Err(invalid(format!(
                "{systems} systems and {resamples} resamples, {} values left for their sums",
                reader.remaining()
            )));
        }
        let mut state = Self::new(systems as usize, resamples, seed)?;
        state.n = n;
        for sum in state
            .observed
            .iter_mut()
            .chain(&mut state.permuted)
            .chain(&mut state.differences)
        {
            *sum = reader.sum()?;
        }
        reader.finish()?;
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_resample_permutes_a_querys_scores() {
        let mut s = KeyedTukey::new(3, 50, 9).unwrap();
        s.add(b"q", &[1.0, 2.0, 4.0]).unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for resample in s.permuted.chunks(3) {
            let mut values: Vec<u64> = resample.iter().map(|v| v.value() as u64).collect();
            seen.insert(values.clone());
            values.sort_unstable();
            assert_eq!(values, vec![1, 2, 4]);
        }
        // 50 draws of 6 permutations: every one appears (a miss has
        // probability below 6 (5/6)^50 < 1e-3, and the stream is fixed).
        assert_eq!(seen.len(), 6);
    }

    /// A pair's difference is the mean of the paired differences (what the
    /// command line prints for the pair), bit for bit, however the queries
    /// are split and merged; the difference of the two rounded means is
    /// not, on values like these.
    #[test]
    fn a_pairs_difference_is_the_mean_of_the_paired_differences_bit_for_bit() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let n = 999;
        let columns: Vec<Vec<f64>> = (0..3).map(|_| (0..n).map(|_| next()).collect()).collect();
        let ids: Vec<String> = (0..n).map(|q| format!("q{q}")).collect();
        let mut whole = KeyedTukey::new(3, 20, 7).unwrap();
        let mut parts = [
            KeyedTukey::new(3, 20, 7).unwrap(),
            KeyedTukey::new(3, 20, 7).unwrap(),
        ];
        for (q, id) in ids.iter().enumerate() {
            let scores = [columns[0][q], columns[1][q], columns[2][q]];
            whole.add(id.as_bytes(), &scores).unwrap();
            parts[q % 2].add(id.as_bytes(), &scores).unwrap();
        }
        let [first, second] = parts;
        let mut merged = KeyedTukey::from_wire(&second.to_wire()).unwrap();
        merged.merge(&first).unwrap();
        let (whole, merged) = (whole.result().unwrap(), merged.result().unwrap());
        let mut rounded_means_differ = false;
        for (pair, other) in whole.pairs.iter().zip(&merged.pairs) {
            let paired =
                crate::agreement::mean_difference(&columns[pair.first], &columns[pair.second])
                    .unwrap();
            assert_eq!(pair.difference.to_bits(), paired.to_bits());
            assert_eq!(other.difference.to_bits(), paired.to_bits());
            let of_means = whole.means[pair.second] - whole.means[pair.first];
            rounded_means_differ |= of_means.to_bits() != paired.to_bits();
        }
        assert!(rounded_means_differ, "the case must tell the two apart");
    }

    #[test]
    fn wire_round_trips_and_rejects_junk() {
        let mut s = KeyedTukey::new(2, 5, u64::MAX).unwrap();
        s.add(b"a", &[0.1, 0.3]).unwrap();
        s.add(b"b", &[0.7, -0.2]).unwrap();
        let wire = s.to_wire();
        assert_eq!(KeyedTukey::from_wire(&wire).unwrap(), s);
        assert!(KeyedTukey::from_wire(&wire[..wire.len() - 1]).is_err());
        let mut more = wire.clone();
        more.push(1.0);
        assert!(KeyedTukey::from_wire(&more).is_err());
        let mut one_system = wire;
        one_system[2] = 1.0;
        assert!(KeyedTukey::from_wire(&one_system).is_err());
    }

    #[test]
    fn refuses_ragged_or_non_finite_scores() {
        let mut s = KeyedTukey::new(3, 5, 1).unwrap();
        assert!(s.add(b"q", &[1.0, 2.0]).is_err());
        assert!(s.add(b"q", &[1.0, f64::NAN, 2.0]).is_err());
        assert_eq!(s.count(), 0);
        let mut other = KeyedTukey::new(2, 5, 1).unwrap();
        assert!(other.merge(&s).is_err());
    }
}
