//! A fingerprint of qrels: equal for equal judgements whatever their order,
//! so that `compare` can tell whether two evaluations were made on the same
//! qrels (the same file read twice, a DataFrame and its file) without
//! keeping the qrels alive.

use std::hash::BuildHasher;

use foldhash::fast::FixedState;
use rankeval_core::Qrels;
use rayon::prelude::*;

/// The hasher's seed: a constant, so a fingerprint is the same in every
/// process (it is never stored, but nothing should depend on the run).
const SEED: u64 = 0x7172_656C_735F_6670;

/// A 64-bit fingerprint of `qrels`: the query ids, and every judgement's
/// document id and grade, combined so that neither the order of the
/// queries nor the order of the judgements in a query matters. A query
/// with no judgements counts too. Computed in parallel over the queries.
pub fn fingerprint(qrels: &Qrels) -> u64 {
    let hasher = FixedState::with_seed(SEED);
    let sum = (0..qrels.num_queries())
        .into_par_iter()
        .map(|index| {
            let index = u32::try_from(index).unwrap_or(u32::MAX);
            let query = hasher.hash_one(qrels.query_bytes(index));
            qrels
                .judgements(index)
                .fold(mix(query), |sum, (doc, grade)| {
                    // Grades compare as numbers: `-0.0` is `0.0`.
                    let grade = if grade == 0.0 { 0.0 } else { grade };
                    sum.wrapping_add(mix(hasher.hash_one((query, doc, grade.to_bits()))))
                })
        })
        .reduce(|| 0, u64::wrapping_add);
    // The counts make a collision of the sums alone not enough.
    mix(sum ^ (qrels.num_queries() as u64).rotate_left(32) ^ qrels.num_judgements() as u64)
}

/// A bijective mixer (splitmix64's finaliser), so that sums of hashes of
/// related inputs do not cancel out.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}
