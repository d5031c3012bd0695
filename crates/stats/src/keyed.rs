//! Query-keyed, mergeable statistics: the same bits whether the per-query
//! values are one column (the command line) or spread over the partitions
//! of a Spark job in any order.
//!
//! Each statistic is a state that `(query, value)` pairs are added to one
//! at a time, in any order, and that states of disjoint sets of queries
//! merge into, in any grouping. Two things make the result independent of
//! the order and the partitioning:
//!
//! * every sum is exact ([`ExactSum`], Python's `math.fsum`), rounded to an
//!   `f64` once, when the statistic is read;
//! * whatever is grouped or random depends on the query's key alone,
//!   through Spark SQL's `xxhash64` ([`spark_xxhash64`]), never on the
//!   query's position, partition or neighbours.
//!
//! The statistics:
//!
//! * [`GroupedSums`]: a mean and its delete-a-group jackknife interval,
//!   queries grouped by `pmod(xxhash64(query), G)` ([`query_group`]).
//! * [`KeyedSignFlip`]: the paired sign-flip randomization test, each
//!   query's signs drawn from its own ChaCha8 stream ([`KEYED_RNG_NAME`]).
//! * [`PairedSums`] then [`SquaredDeviations`]: the paired t-test in two
//!   passes ([`paired_t`]; [`paired_t_column`] does both on one column).
//!
//! A query's key is the bytes Spark hashes: the UTF-8 bytes of a string
//! column (the query id as the run files spell it, `"301"`), or the 8
//! little-endian bytes of a 64-bit integer column ([`spark_xxhash64_long`]);
//! `xxhash64` of the string `'301'` and of the long `301` differ. Keys must
//! be unique within a column: two values added under the same key are two
//! queries that share a group and their signs.
//!
//! # Wire format
//!
//! Each state's `to_wire` writes it as a flat list of `f64`s (a Spark
//! `array<double>` column) that `from_wire` reads back and checks:
//!
//! * element 0 is the kind of state ([`GroupedSums`] 1, [`KeyedSignFlip`] 2,
//!   [`PairedSums`] 3, [`SquaredDeviations`] 4), element 1 the format version
//!   (1);
//! * a count is the integer itself, exactly (at most 2^53);
//! * a 64-bit seed is two counts, its high and its low 32 bits;
//! * an exact sum is the number `k` of its partials followed by the `k`
//!   partials ([`ExactSum::partials`]), finite `f64`s whose exact sum is the
//!   sum. The partials of one exact sum are not unique (merging in another
//!   order may give others), but their exact sum is, and that is all that
//!   is ever read.
//!
//! Each `to_wire` documents the rest of its layout.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use rankeval_core::exact_sum::{ExactSum, fmean, fsum};
use serde::Serialize;
use xxhash_rust::xxh64::xxh64;

use crate::error::CompareError;
use crate::paired::{validate_differences, validate_level};
use crate::sign_flip::SignFlip;
use crate::ttest::{Interval, TTest, student_interval, t_two_sided_p};

/// The seed of Spark SQL's `xxhash64` (`XxHash64` in Spark's
/// `hash.scala`): 42.
pub const SPARK_XXHASH64_SEED: u64 = 42;

/// The number of query groups of the delete-a-group jackknife when none is
/// given: 20, 19 degrees of freedom (a 95% t quantile of 2.09, against
/// the normal's 1.96), few enough that each group of a test collection's
/// queries holds several.
pub const DEFAULT_GROUPS: u32 = 20;

/// The generator of [`KeyedSignFlip`], as printed in reports' provenance.
/// Its definition: the sign of query `q` in resample `r` is `+` when bit
/// `r` of the keystream of ChaCha8 (`rand_chacha` 0.10's `ChaCha8Rng`)
/// seeded with `seed_from_u64(seed)` on stream `spark_xxhash64(q) as u64`
/// is 1, `-` when it is 0; bit `r` of the keystream is bit `r % 64` of its
/// `r / 64`-th `u64` word (`next_u64`, words in order), which is bit `r % 8`
/// of its byte `r / 8`.
pub const KEYED_RNG_NAME: &str = "ChaCha8 (rand_chacha 0.10, seed_from_u64(seed), stream = Spark xxhash64 of the query, bit r of the keystream = sign in resample r)";

/// Spark SQL's `xxhash64(col)` of one column value whose bytes Spark hashes
/// are `bytes`: XXH64 (Collet's xxHash, 64-bit) with seed 42, read as a
/// signed 64-bit integer as Spark returns it. For a string column `bytes`
/// are the value's UTF-8 bytes.
///
/// Spark computes it with its own `XXH64` class; this is the `xxhash-rust`
/// crate's, which the tests check against values computed by Spark itself
/// (`xxhash64('Spark')` is `-4294468057691064905`).
pub fn spark_xxhash64(bytes: &[u8]) -> i64 {
    xxh64(bytes, SPARK_XXHASH64_SEED) as i64
}

/// Spark SQL's `xxhash64(col)` of a value `v` of a 64-bit integer (`bigint`)
/// column: Spark hashes the 8 little-endian bytes of the long, so this is
/// [`spark_xxhash64`] of `v.to_le_bytes()`.
pub fn spark_xxhash64_long(v: i64) -> i64 {
    spark_xxhash64(&v.to_le_bytes())
}

/// The group of a query among `groups`: Spark SQL's `pmod(xxhash64(query),
/// groups)`, the non-negative remainder of the signed hash, in
/// `0..groups`. A Spark job that computes its groups with that expression
/// puts every query in the group this gives it.
///
/// Error: `groups` is 0 ([`CompareError::InvalidGroups`]; Spark's `pmod`
/// is null there).
pub fn query_group(query: &[u8], groups: u32) -> Result<u32, CompareError> {
    if groups == 0 {
        return Err(CompareError::InvalidGroups { groups, minimum: 1 });
    }
    Ok(group_of(query, groups))
}

/// [`query_group`] for `groups >= 1`.
fn group_of(query: &[u8], groups: u32) -> u32 {
    // rem_euclid of a positive modulus is in 0..groups, so it fits a u32.
    spark_xxhash64(query).rem_euclid(i64::from(groups)) as u32
}

/// Checks that a value added under `query` is finite.
pub(crate) fn check_value(query: &[u8], value: f64) -> Result<(), CompareError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(CompareError::NotFiniteQueryValue {
            query: String::from_utf8_lossy(query).into_owned(),
            value,
        })
    }
}

/// Checks that the value added after `before` others is finite.
fn check_indexed(before: u64, value: f64) -> Result<(), CompareError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(CompareError::NotFiniteValue {
            index: usize::try_from(before).unwrap_or(usize::MAX),
            value,
        })
    }
}

/// The keystream of query `query` under `seed`, from 32-bit word
/// `word_offset` on: ChaCha8 seeded with `seed_from_u64(seed)` on stream
/// `spark_xxhash64(query) as u64`. Every keyed test draws from it, each
/// from its own offset ([`KEYED_RNG_NAME`] from 0).
pub(crate) fn query_stream(seed: u64, query: &[u8], word_offset: u128) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(spark_xxhash64(query) as u64);
    rng.set_word_pos(word_offset);
    rng
}

/// Checks that two states to be merged have the same settings: each
/// `(field, mine, theirs)` equal.
pub(crate) fn same_settings(fields: &[(&'static str, u64, u64)]) -> Result<(), CompareError> {
    match fields.iter().find(|(_, left, right)| left != right) {
        Some((field, left, right)) => Err(CompareError::MergeMismatch {
            field,
            left: left.to_string(),
            right: right.to_string(),
        }),
        None => Ok(()),
    }
}

/// The exact difference `sum - part` of two exact sums, rounded once.
fn difference(sum: &ExactSum, part: &ExactSum) -> f64 {
    let mut rest = sum.clone();
    for p in part.partials() {
        rest.add(-p);
    }
    rest.value()
}

/// The mean of a column of values and its delete-a-group jackknife, as a
/// mergeable state: for each of `G` query groups ([`query_group`]), the
/// number of values and their exact sum.
///
/// The delete-a-group (grouped) jackknife (Efron & Tibshirani, *An
/// Introduction to the Bootstrap*, 1993, chapter 11; Shao & Tu, *The
/// Jackknife and Bootstrap*, 1995; Kott, "The delete-a-group jackknife",
/// Journal of Official Statistics 17, 2001) deletes one group of queries at
/// a time instead of one query: its variance needs `G` sums, not one per
/// query, so it is computed from a state whose size does not grow with the
/// number of queries, as a Spark aggregation needs. Groups come from the
/// query's hash, so they have about, not exactly, `n / G` queries each;
/// the estimator is the one for groups of any size below.
///
/// With `n_g` values of exact sum `S_g` in group `g`, `n = Σ n_g` and `S =
/// Σ S_g` ([`jackknife`](Self::jackknife)):
///
/// * `θ_(g) = (S - S_g) / (n - n_g)`, the mean without group `g`, for each
///   of the `G'` non-empty groups (`S - S_g` exact, rounded once);
/// * `θ̄ = fmean(θ_(g))`;
/// * `var = (G' - 1) / G' * fsum((θ_(g) - θ̄)²)`, computed as `((G' - 1) /
///   G') * fsum(...)`, each square rounded;
/// * the interval is `S / n ± t * sqrt(var)`, `t` the `(1 + level) / 2`
///   quantile of Student's t with `G' - 1` degrees of freedom
///   ([`jackknife_interval`](Self::jackknife_interval)).
#[derive(Clone, Debug, PartialEq)]
pub struct GroupedSums {
    /// The number of groups `G`.
    groups: u32,
    /// `count[g]`: the number of values in group `g`.
    count: Vec<u64>,
    /// `sums[g]`: their exact sum.
    sums: Vec<ExactSum>,
}

/// The delete-a-group jackknife of a mean ([`GroupedSums::jackknife`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Jackknife {
    /// The mean of all values, `S / n`.
    pub mean: f64,
    /// The jackknife variance of the mean, `(G' - 1) / G' Σ (θ_(g) - θ̄)²`.
    pub variance: f64,
    /// Its square root, the jackknife standard error of the mean.
    pub standard_error: f64,
    /// The number `G'` of non-empty groups (at least 2); the interval's t
    /// quantile has `G' - 1` degrees of freedom.
    pub groups: u32,
}

impl GroupedSums {
    /// An empty state with `groups` query groups (at least 2; use
    /// [`DEFAULT_GROUPS`] when there is no reason for another number).
    pub fn new(groups: u32) -> Result<Self, CompareError> {
        if groups < 2 {
            return Err(CompareError::InvalidGroups { groups, minimum: 2 });
        }
        let size = groups as usize;
        Ok(Self {
            groups,
            count: vec![0; size],
            sums: vec![ExactSum::new(); size],
        })
    }

    /// The number of groups `G`.
    pub fn groups(&self) -> u32 {
        self.groups
    }

    /// The number of values added, over all groups.
    pub fn count(&self) -> u64 {
        self.count.iter().sum()
    }

    /// The number of values in each group, in group order.
    pub fn group_counts(&self) -> &[u64] {
        &self.count
    }

    /// Adds the value of query `query` (its key, see the [module](self)) to
    /// the query's group. Error: `value` is NaN or infinite.
    pub fn add(&mut self, query: &[u8], value: f64) -> Result<(), CompareError> {
        check_value(query, value)?;
        let g = group_of(query, self.groups) as usize;
        self.count[g] += 1;
        self.sums[g].add(value);
        Ok(())
    }

    /// Adds the values of `other` (other queries): the result is the same
    /// whatever the order and grouping of merges. Error: `other` has a
    /// different number of groups.
    pub fn merge(&mut self, other: &GroupedSums) -> Result<(), CompareError> {
        if other.groups != self.groups {
            return Err(CompareError::MergeMismatch {
                field: "groups",
                left: self.groups.to_string(),
                right: other.groups.to_string(),
            });
        }
        for (count, more) in self.count.iter_mut().zip(&other.count) {
            *count += more;
        }
        for (sum, more) in self.sums.iter_mut().zip(&other.sums) {
            sum.merge(more);
        }
        Ok(())
    }

    /// The exact sum of all values.
    fn total(&self) -> ExactSum {
        let mut total = ExactSum::new();
        for sum in &self.sums {
            total.merge(sum);
        }
        total
    }

    /// The mean of all values, `fsum(values) / n` (Python's
    /// `statistics.fmean`); NaN when there are none.
    pub fn mean(&self) -> f64 {
        let n = self.count();
        if n == 0 {
            return f64::NAN;
        }
        self.total().value() / n as f64
    }

    /// The delete-a-group jackknife of the mean (see the [type](Self)).
    /// Error: fewer than 2 non-empty groups ([`CompareError::TooFewGroups`]).
    pub fn jackknife(&self) -> Result<Jackknife, CompareError> {
        let n = self.count();
        let total = self.total();
        let thetas: Vec<f64> = self
            .count
            .iter()
            .zip(&self.sums)
            .filter(|(count, _)| **count > 0)
            .map(|(count, sum)| difference(&total, sum) / (n - count) as f64)
            .collect();
        let nonempty = thetas.len() as u32;
        if nonempty < 2 {
            return Err(CompareError::TooFewGroups { groups: nonempty });
        }
        let groups = f64::from(nonempty);
        let theta_bar = fmean(&thetas);
        let squares = fsum(thetas.iter().map(|t| (t - theta_bar) * (t - theta_bar)));
        let variance = ((groups - 1.0) / groups) * squares;
        Ok(Jackknife {
            mean: total.value() / n as f64,
            variance,
            standard_error: variance.sqrt(),
            groups: nonempty,
        })
    }

    /// The delete-a-group jackknife interval of the mean at `level`: `mean ±
    /// t * standard_error`, `t` the `(1 + level) / 2` quantile of Student's
    /// t with `G' - 1` degrees of freedom, computed as every t interval of
    /// the crate is (`[mean, mean]` for a zero standard error). Errors: a
    /// level not strictly between 0 and 1, fewer than 2 non-empty groups.
    pub fn jackknife_interval(&self, level: f64) -> Result<Interval, CompareError> {
        validate_level(level)?;
        let jackknife = self.jackknife()?;
        Ok(student_interval(
            jackknife.mean,
            jackknife.standard_error,
            f64::from(jackknife.groups - 1),
            level,
        ))
    }

    /// The state as a flat list of `f64`s (see the [module](self)): `[1, 1,
    /// G, n_0, ..., n_{G-1}, sum_0, ..., sum_{G-1}]`, each `sum_g` written
    /// as `k_g` followed by its `k_g` partials.
    pub fn to_wire(&self) -> Vec<f64> {
        let mut wire = Writer::new(Kind::GroupedSums);
        wire.count(u64::from(self.groups));
        for &count in &self.count {
            wire.count(count);
        }
        for sum in &self.sums {
            wire.sum(sum);
        }
        wire.finish()
    }

    /// The state [`to_wire`](Self::to_wire) wrote. Error
    /// ([`CompareError::InvalidWire`]): anything `to_wire` does not write,
    /// among them fewer than 2 groups, an empty group with a sum, a
    /// non-finite partial, trailing values.
    pub fn from_wire(wire: &[f64]) -> Result<Self, CompareError> {
        let mut reader = Reader::new(wire, Kind::GroupedSums)?;
        let groups = reader.count("the number of groups")?;
        let groups = u32::try_from(groups)
            .ok()
            .filter(|g| *g >= 2)
            .ok_or_else(|| invalid(format!("{groups} groups (at least 2, at most 2^32 - 1)")))?;
        // Each group takes at least 2 more values (its count and its number
        // of partials): check the length before allocating.
        if reader.remaining() < 2 * groups as usize {
            return Err(invalid(format!(
                "{groups} groups need at least {} more values, {} left",
                2 * groups as usize,
                reader.remaining()
            )));
        }
        let mut state = Self::new(groups)?;
        let mut total = 0u64;
        for count in &mut state.count {
            *count = reader.count("a group's count")?;
            total = total.saturating_add(*count);
        }
        if total as f64 > MAX_WIRE_COUNT {
            return Err(invalid(format!("{total} values in all, above 2^53")));
        }
        for (g, sum) in state.sums.iter_mut().enumerate() {
            *sum = reader.sum()?;
            if state.count[g] == 0 && !sum.partials().is_empty() {
                return Err(invalid(format!("group {g} has no value but a sum")));
            }
        }
        reader.finish()?;
        Ok(state)
    }
}

/// The paired sign-flip randomization test of a column of per-query
/// differences `d`, as a mergeable state whose random signs depend on each
/// query's key, not on its position.
///
/// The statistic is `T = |Σ d_q|` (as [`crate::sign_flip`]'s). Resample `r`
/// (of `B`) gives query `q` the sign `s_{q,r}` of [`KEYED_RNG_NAME`]: bit
/// `r` of the ChaCha8 keystream seeded with `seed` on the stream
/// `spark_xxhash64(q) as u64`, `+` for 1. Its statistic is `T_r = |Σ s_{q,r}
/// d_q|`. The state keeps `n`, the exact `Σ d_q` and the `B` exact `Σ
/// s_{q,r} d_q`; the p-value is `(1 + #{r : T_r >= T}) / (B + 1)` (never 0;
/// Phipson & Smyth 2010). Since each query's signs are fixed by `(seed,
/// hash(query), r)`, the p-value does not depend on the order or the
/// partitioning of the queries. It is not the p-value of
/// [`crate::sign_flip::sign_flip`], which draws signs by position, nor
/// does it enumerate sign vectors for small `n`.
///
/// Cost: `B` exact additions per query (ten thousand for the default `B`),
/// and `B` sums in the state and on the wire.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyedSignFlip {
    /// The number of resamples `B`.
    resamples: u64,
    /// The seed of the generator.
    seed: u64,
    /// The number of differences added.
    n: u64,
    /// Their exact sum.
    observed: ExactSum,
    /// `flipped[r]`: the exact sum of the differences signed as in resample
    /// `r`.
    flipped: Vec<ExactSum>,
}

impl KeyedSignFlip {
    /// An empty state with `resamples` resamples (at least 1; the crate's
    /// default is [`crate::sign_flip::DEFAULT_RESAMPLES`]) drawn with
    /// `seed`.
    pub fn new(resamples: u64, seed: u64) -> Result<Self, CompareError> {
        crate::paired::check_resamples(resamples)?;
        let size = usize::try_from(resamples).map_err(|_| CompareError::NoResamples)?;
        Ok(Self {
            resamples,
            seed,
            n: 0,
            observed: ExactSum::new(),
            flipped: vec![ExactSum::new(); size],
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

    /// Adds the difference `d` of query `query` (its key, see the
    /// [module](self)) to the observed sum and, with its sign in each
    /// resample, to every resample's sum. Error: `d` is NaN or infinite.
    pub fn add(&mut self, query: &[u8], d: f64) -> Result<(), CompareError> {
        check_value(query, d)?;
        let mut rng = query_stream(self.seed, query, 0);
        for sums in self.flipped.chunks_mut(64) {
            let word = rng.next_u64();
            for (bit, sum) in sums.iter_mut().enumerate() {
                sum.add(if (word >> bit) & 1 == 1 { d } else { -d });
            }
        }
        self.observed.add(d);
        self.n += 1;
        Ok(())
    }

    /// Adds the differences of `other` (other queries). Error: `other` has
    /// a different number of resamples or seed.
    pub fn merge(&mut self, other: &KeyedSignFlip) -> Result<(), CompareError> {
        same_settings(&[
            ("resamples", self.resamples, other.resamples),
            ("seed", self.seed, other.seed),
        ])?;
        self.n += other.n;
        self.observed.merge(&other.observed);
        for (sum, more) in self.flipped.iter_mut().zip(&other.flipped) {
            sum.merge(more);
        }
        Ok(())
    }

    /// The test's outcome: `p_value = (1 + extreme) / (B + 1)`, `extreme =
    /// #{r : T_r >= T}`, `exact` false. Error: fewer than 2 differences
    /// ([`CompareError::TooFewQueries`]).
    pub fn result(&self) -> Result<SignFlip, CompareError> {
        if self.n < 2 {
            return Err(CompareError::TooFewQueries {
                queries: self.n as usize,
            });
        }
        // No rounding allowance, unlike `sign_flip`: each T here is an
        // exact sum rounded once, and rounding is monotone, so a resample
        // whose exact statistic is at least the observed one (a flipped
        // zero, two equal differences exchanged, every sign flipped) has a
        // rounded statistic at least the rounded observed one. The only
        // extra resamples counted are those within the rounding of T
        // below it, which are ties in f64.
        let observed = self.observed.value().abs();
        let extreme = self
            .flipped
            .iter()
            .filter(|sum| sum.value().abs() >= observed)
            .count() as u64;
        Ok(SignFlip {
            p_value: (extreme + 1) as f64 / (self.resamples + 1) as f64,
            exact: false,
            resamples: self.resamples,
            extreme,
        })
    }

    /// The two-sided p-value of [`result`](Self::result).
    pub fn p_value(&self) -> Result<f64, CompareError> {
        Ok(self.result()?.p_value)
    }

    /// The state as a flat list of `f64`s (see the [module](self)): `[2, 1,
    /// B, seed >> 32, seed & 0xFFFF_FFFF, n, observed, flipped_0, ...,
    /// flipped_{B-1}]`, each sum written as its number of partials followed
    /// by the partials.
    pub fn to_wire(&self) -> Vec<f64> {
        let mut wire = Writer::new(Kind::KeyedSignFlip);
        wire.count(self.resamples);
        wire.seed(self.seed);
        wire.count(self.n);
        wire.sum(&self.observed);
        for sum in &self.flipped {
            wire.sum(sum);
        }
        wire.finish()
    }

    /// The state [`to_wire`](Self::to_wire) wrote. Error
    /// ([`CompareError::InvalidWire`]): anything `to_wire` does not write.
    pub fn from_wire(wire: &[f64]) -> Result<Self, CompareError> {
        let mut reader = Reader::new(wire, Kind::KeyedSignFlip)?;
        let resamples = reader.count("the number of resamples")?;
        let seed = reader.seed()?;
        let n = reader.count("the number of differences")?;
        let observed = reader.sum()?;
        // Each resample's sum takes at least one value: check the length
        // before allocating.
        if resamples == 0 || resamples > reader.remaining() as u64 {
            return Err(invalid(format!(
                "{resamples} resamples, {} values left for their sums",
                reader.remaining()
            )));
        }
        let mut state = Self::new(resamples, seed)?;
        state.n = n;
        state.observed = observed;
        for sum in &mut state.flipped {
            *sum = reader.sum()?;
        }
        if n == 0
            && (!state.observed.partials().is_empty()
                || state.flipped.iter().any(|s| !s.partials().is_empty()))
        {
            return Err(invalid("no difference but a sum".to_string()));
        }
        reader.finish()?;
        Ok(state)
    }
}

/// The first pass of the paired t-test of a column of differences, as a
/// mergeable state: their number, exact sum, least and greatest value.
/// Its [`mean`](Self::mean) is the second pass's centre
/// ([`SquaredDeviations`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PairedSums {
    /// The number of differences.
    n: u64,
    /// Their exact sum.
    sum: ExactSum,
    /// The least of them (`+inf` when there are none).
    min: f64,
    /// The greatest of them (`-inf` when there are none).
    max: f64,
}

impl Default for PairedSums {
    fn default() -> Self {
        Self::new()
    }
}

impl PairedSums {
    /// An empty state.
    pub fn new() -> Self {
        Self {
            n: 0,
            sum: ExactSum::new(),
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }

    /// The number of differences added.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Adds one difference. Error: `d` is NaN or infinite
    /// ([`CompareError::NotFiniteValue`], its index the number of
    /// differences added before it: the paired t-test needs no key).
    pub fn add(&mut self, d: f64) -> Result<(), CompareError> {
        check_indexed(self.n, d)?;
        self.n += 1;
        self.sum.add(d);
        self.min = self.min.min(d);
        self.max = self.max.max(d);
        Ok(())
    }

    /// Adds the differences of `other`.
    pub fn merge(&mut self, other: &PairedSums) {
        self.n += other.n;
        self.sum.merge(&other.sum);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// The mean difference: `fsum(d) / n` (Python's `statistics.fmean`,
    /// the mean of every aggregate and of `ttest`); NaN when there are
    /// none.
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        self.sum.value() / self.n as f64
    }

    /// Whether every difference is the same: the standard deviation is then
    /// exactly 0, as `ttest` takes it, where the squared deviations from a
    /// mean an ulp off the constant are not.
    pub fn is_constant(&self) -> bool {
        self.n > 0 && self.min == self.max
    }

    /// The state as a flat list of `f64`s (see the [module](self)): `[3, 1,
    /// n, min, max, sum]`, `min` and `max` `+inf` and `-inf` when `n` is 0,
    /// the sum written as its number of partials followed by the partials.
    pub fn to_wire(&self) -> Vec<f64> {
        let mut wire = Writer::new(Kind::PairedSums);
        wire.count(self.n);
        wire.values.push(self.min);
        wire.values.push(self.max);
        wire.sum(&self.sum);
        wire.finish()
    }

    /// The state [`to_wire`](Self::to_wire) wrote. Error
    /// ([`CompareError::InvalidWire`]): anything `to_wire` does not write.
    pub fn from_wire(wire: &[f64]) -> Result<Self, CompareError> {
        let mut reader = Reader::new(wire, Kind::PairedSums)?;
        let n = reader.count("the number of differences")?;
        let min = reader.value("the least difference")?;
        let max = reader.value("the greatest difference")?;
        let sum = reader.sum()?;
        reader.finish()?;
        let consistent = if n == 0 {
            min == f64::INFINITY && max == f64::NEG_INFINITY && sum.partials().is_empty()
        } else {
            min.is_finite() && max.is_finite() && min <= max
        };
        if !consistent {
            return Err(invalid(format!(
                "{n} differences with least {min} and greatest {max}"
            )));
        }
        Ok(Self { n, sum, min, max })
    }
}

/// The second pass of the paired t-test, as a mergeable state: the exact
/// sum of `(d - mean)²` over the differences, `mean` the first pass's
/// ([`PairedSums::mean`]), each square rounded.
#[derive(Clone, Debug, PartialEq)]
pub struct SquaredDeviations {
    /// The centre, the same in every part.
    mean: f64,
    /// The number of differences.
    n: u64,
    /// The exact sum of their rounded squared deviations.
    sum: ExactSum,
}

impl SquaredDeviations {
    /// An empty state around `mean`. Error: `mean` is NaN or infinite
    /// ([`CompareError::InvalidMoments`]).
    pub fn new(mean: f64) -> Result<Self, CompareError> {
        if !mean.is_finite() {
            return Err(CompareError::InvalidMoments {
                message: format!("the mean is {mean}, not a finite number"),
            });
        }
        Ok(Self {
            mean,
            n: 0,
            sum: ExactSum::new(),
        })
    }

    /// The centre.
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// The number of differences added.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Adds `(d - mean)²`. Error: `d` is NaN or infinite
    /// ([`CompareError::NotFiniteValue`], as [`PairedSums::add`]).
    pub fn add(&mut self, d: f64) -> Result<(), CompareError> {
        check_indexed(self.n, d)?;
        let deviation = d - self.mean;
        self.sum.add(deviation * deviation);
        self.n += 1;
        Ok(())
    }

    /// Adds the squared deviations of `other`. Error: `other` is around
    /// another mean (compared bit for bit).
    pub fn merge(&mut self, other: &SquaredDeviations) -> Result<(), CompareError> {
        if self.mean.to_bits() != other.mean.to_bits() {
            return Err(CompareError::MergeMismatch {
                field: "mean",
                left: format!("{:?}", self.mean),
                right: format!("{:?}", other.mean),
            });
        }
        self.n += other.n;
        self.sum.merge(&other.sum);
        Ok(())
    }

    /// The sum of squared deviations, rounded once.
    pub fn value(&self) -> f64 {
        self.sum.value()
    }

    /// The paired t-test of the differences added ([`paired_t`] with this
    /// state's count, mean and sum).
    pub fn paired_t(&self, level: f64) -> Result<TTest, CompareError> {
        paired_t(self.n, self.mean, self.value(), level)
    }

    /// The state as a flat list of `f64`s (see the [module](self)): `[4, 1,
    /// mean, n, sum]`, the sum written as its number of partials followed by
    /// the partials.
    pub fn to_wire(&self) -> Vec<f64> {
        let mut wire = Writer::new(Kind::SquaredDeviations);
        wire.values.push(self.mean);
        wire.count(self.n);
        wire.sum(&self.sum);
        wire.finish()
    }

    /// The state [`to_wire`](Self::to_wire) wrote. Error
    /// ([`CompareError::InvalidWire`]): anything `to_wire` does not write.
    pub fn from_wire(wire: &[f64]) -> Result<Self, CompareError> {
        let mut reader = Reader::new(wire, Kind::SquaredDeviations)?;
        let mean = reader.value("the mean")?;
        let n = reader.count("the number of differences")?;
        let sum = reader.sum()?;
        reader.finish()?;
        if !mean.is_finite() {
            return Err(invalid(format!("the mean is {mean}")));
        }
        if n == 0 && !sum.partials().is_empty() {
            return Err(invalid("no difference but a sum".to_string()));
        }
        Ok(Self { mean, n, sum })
    }
}

/// Student's paired t-test from the moments of `n` differences: their
/// `mean` and `squared_deviations = Σ (d - mean)²`. It computes what
/// [`crate::ttest::paired_t`] does from the column (the standard deviation
/// `sqrt(squared_deviations / (n - 1))`, the standard error `sd /
/// sqrt(n)`, the same p-value and interval functions), from sums that do
/// not depend on the order of the differences; the two agree to rounding
/// (`ttest` sums in order), not bit for bit. A zero sum of squares (every
/// difference the same) gives what `ttest` gives there: an infinite t, p 0
/// and the interval `[mean, mean]`, or t 0 and p 1 when the mean is 0.
///
/// Errors: `n < 2` ([`CompareError::TooFewQueries`]); a non-finite mean or
/// a negative or non-finite sum of squares
/// ([`CompareError::InvalidMoments`]); a level not strictly between 0 and 1.
pub fn paired_t(
    n: u64,
    mean: f64,
    squared_deviations: f64,
    level: f64,
) -> Result<TTest, CompareError> {
    if n < 2 {
        return Err(CompareError::TooFewQueries {
            queries: n as usize,
        });
    }
    if !mean.is_finite() {
        return Err(CompareError::InvalidMoments {
            message: format!("the mean is {mean}, not a finite number"),
        });
    }
    if !(squared_deviations.is_finite() && squared_deviations >= 0.0) {
        return Err(CompareError::InvalidMoments {
            message: format!(
                "the sum of squared deviations is {squared_deviations}, not a finite number >= 0"
            ),
        });
    }
    validate_level(level)?;
    let n = n as f64;
    let df = n - 1.0;
    let sd = (squared_deviations / df).sqrt();
    let standard_error = sd / n.sqrt();
    let (t, p_value) = if standard_error == 0.0 {
        if mean == 0.0 {
            (0.0, 1.0)
        } else {
            (mean.signum() * f64::INFINITY, 0.0)
        }
    } else {
        let t = mean / standard_error;
        (t, t_two_sided_p(t, df))
    };
    Ok(TTest {
        t,
        df,
        standard_error,
        p_value,
        interval: student_interval(mean, standard_error, df, level),
    })
}

/// The keyed paired t-test of one column of differences: both passes
/// ([`PairedSums`], [`SquaredDeviations`]) over the column, then
/// [`paired_t`]. The same bits for any order of the column, and the bits a
/// Spark job gets from the same differences in any partitions.
///
/// Errors: as [`crate::ttest::paired_t`]: fewer than 2 differences, one
/// that is NaN or infinite, a level not strictly between 0 and 1.
pub fn paired_t_column(differences: &[f64], level: f64) -> Result<TTest, CompareError> {
    validate_differences(&[differences])?;
    let mut first = PairedSums::new();
    for &d in differences {
        first.add(d)?;
    }
    if first.is_constant() {
        return paired_t(first.count(), first.mean(), 0.0, level);
    }
    let mut second = SquaredDeviations::new(first.mean())?;
    for &d in differences {
        second.add(d)?;
    }
    second.paired_t(level)
}

/// The kinds of state on the wire: element 0 of every encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    GroupedSums = 1,
    KeyedSignFlip = 2,
    PairedSums = 3,
    SquaredDeviations = 4,
    KeyedBootstrap = 5,
    KeyedTukey = 6,
}

/// The wire format's version: element 1 of every encoding.
const WIRE_VERSION: f64 = 1.0;

/// The largest count the wire holds exactly.
pub(crate) const MAX_WIRE_COUNT: f64 = 9_007_199_254_740_992.0; // 2^53

pub(crate) fn invalid(message: String) -> CompareError {
    CompareError::InvalidWire { message }
}

/// Writes a state's wire encoding.
pub(crate) struct Writer {
    values: Vec<f64>,
}

impl Writer {
    pub(crate) fn new(kind: Kind) -> Self {
        Self {
            values: vec![f64::from(kind as u8), WIRE_VERSION],
        }
    }

    /// A count, exact up to 2^53 (no state holds more values than that).
    pub(crate) fn count(&mut self, count: u64) {
        self.values.push(count as f64);
    }

    /// A finite value as it is.
    pub(crate) fn value(&mut self, value: f64) {
        self.values.push(value);
    }

    /// A 64-bit seed: its high 32 bits, then its low 32 bits, as counts.
    pub(crate) fn seed(&mut self, seed: u64) {
        self.count(seed >> 32);
        self.count(seed & 0xFFFF_FFFF);
    }

    /// An exact sum: the number of its partials, then the partials.
    pub(crate) fn sum(&mut self, sum: &ExactSum) {
        let partials = sum.partials();
        self.count(partials.len() as u64);
        self.values.extend(partials);
    }

    pub(crate) fn finish(self) -> Vec<f64> {
        self.values
    }
}

/// Reads a state's wire encoding, checking every value.
pub(crate) struct Reader<'a> {
    values: &'a [f64],
    position: usize,
}

impl<'a> Reader<'a> {
    /// Checks the kind and the version.
    pub(crate) fn new(values: &'a [f64], kind: Kind) -> Result<Self, CompareError> {
        let mut reader = Self {
            values,
            position: 0,
        };
        let found = reader.value("the kind")?;
        if found != f64::from(kind as u8) {
            return Err(invalid(format!(
                "kind {found}, expected {} ({kind:?})",
                kind as u8
            )));
        }
        let version = reader.value("the version")?;
        if version != WIRE_VERSION {
            return Err(invalid(format!(
                "version {version}, expected {WIRE_VERSION}"
            )));
        }
        Ok(reader)
    }

    pub(crate) fn remaining(&self) -> usize {
        self.values.len() - self.position
    }

    pub(crate) fn value(&mut self, what: &str) -> Result<f64, CompareError> {
        let value = self
            .values
            .get(self.position)
            .copied()
            .ok_or_else(|| invalid(format!("ends before {what}")))?;
        self.position += 1;
        Ok(value)
    }

    /// A non-negative integer up to 2^53.
    pub(crate) fn count(&mut self, what: &str) -> Result<u64, CompareError> {
        let value = self.value(what)?;
        if (0.0..=MAX_WIRE_COUNT).contains(&value) && value.fract() == 0.0 {
            Ok(value as u64)
        } else {
            Err(invalid(format!("{what} is {value}, not a count")))
        }
    }

    /// A 64-bit seed as [`Writer::seed`] writes it.
    pub(crate) fn seed(&mut self) -> Result<u64, CompareError> {
        let high = self.count("the seed's high half")?;
        let low = self.count("the seed's low half")?;
        if high > u64::from(u32::MAX) || low > u64::from(u32::MAX) {
            return Err(invalid(format!(
                "seed halves {high} and {low} above 2^32 - 1"
            )));
        }
        Ok((high << 32) | low)
    }

    /// An exact sum: its number of partials, then that many finite
    /// partials.
    pub(crate) fn sum(&mut self) -> Result<ExactSum, CompareError> {
        let k = self.count("a sum's number of partials")?;
        if k > self.remaining() as u64 {
            return Err(invalid(format!(
                "a sum of {k} partials, {} values left",
                self.remaining()
            )));
        }
        let partials = &self.values[self.position..self.position + k as usize];
        if let Some(bad) = partials.iter().find(|p| !p.is_finite()) {
            return Err(invalid(format!("a partial is {bad}")));
        }
        self.position += k as usize;
        let sum = ExactSum::from_partials(partials);
        // Finite partials can still add up beyond the largest f64.
        if !sum.value().is_finite() {
            return Err(invalid(format!("a sum of {k} partials overflows")));
        }
        Ok(sum)
    }

    pub(crate) fn finish(self) -> Result<(), CompareError> {
        match self.remaining() {
            0 => Ok(()),
            left => Err(invalid(format!("{left} values after the end"))),
        }
    }
}
