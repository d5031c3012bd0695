//! The random number generator of every resampling test: ChaCha20 (the
//! `rand_chacha` crate), a named, portable stream cipher whose output is
//! fixed by its specification, unlike `StdRng`, whose algorithm may change
//! between `rand` versions.
//!
//! A test's resamples are cut into chunks of a fixed size (independent of the
//! thread count); chunk `k` draws from stream `k` of the generator seeded with
//! [`seed_from_u64`](rand_core::SeedableRng::seed_from_u64)`(seed)`. Chunks
//! may run on any thread in any order: each one's draws are fixed by
//! `(seed, k)` alone, so results are the same bits for any thread count on
//! any machine.

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

/// The seed used when none is given: 42. Reports print the seed actually
/// used, so a run can always be repeated.
pub const DEFAULT_SEED: u64 = 42;

/// The generator's name as printed in reports' provenance.
pub const RNG_NAME: &str = "ChaCha20 (rand_chacha 0.10, seed_from_u64, one stream per chunk)";

/// The generator for chunk `chunk` of a test seeded with `seed`: the ChaCha20
/// key comes from `seed` (`SeedableRng::seed_from_u64`, PCG32 expansion as
/// specified by `rand_core`), the 64-bit nonce (ChaCha's stream) is `chunk`.
pub fn chunk_rng(seed: u64, chunk: u64) -> ChaCha20Rng {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    rng.set_stream(chunk);
    rng
}

/// A uniform integer in `0..bound` (`bound >= 1`) without bias, by Lemire's
/// multiply-and-reject method ("Fast random integer generation in an
/// interval", ACM TOMACS 2019) on 32-bit draws.
#[inline]
pub fn below(rng: &mut ChaCha20Rng, bound: u32) -> u32 {
    debug_assert!(bound >= 1);
    let mut product = u64::from(rng.next_u32()) * u64::from(bound);
    let mut low = product as u32;
    if low < bound {
        let threshold = bound.wrapping_neg() % bound;
        while low < threshold {
            product = u64::from(rng.next_u32()) * u64::from(bound);
            low = product as u32;
        }
    }
    (product >> 32) as u32
}
