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

use rand_chacha::{ChaCha8Rng, ChaCha20Rng};
use rand_core::{Rng, SeedableRng};

/// The seed used when none is given: 42. Reports print the seed actually
/// used, so a run can always be repeated.
pub const DEFAULT_SEED: u64 = 42;

/// The generator's name as printed in reports' provenance.
pub const RNG_NAME: &str = "ChaCha20 (rand_chacha 0.10, seed_from_u64, one stream per chunk)";

/// The generator of the double-or-nothing bootstrap, as printed in reports.
pub const FAST_RNG_NAME: &str =
    "ChaCha8 (rand_chacha 0.10, seed_from_u64, one stream per chunk, a word offset per slab)";

/// The generator of the double-or-nothing bootstrap's chunk `chunk`:
/// ChaCha with 8 rounds (`rand_chacha`'s `ChaCha8Rng`), keyed and streamed
/// as [`chunk_rng`]. That bootstrap needs one random bit per query and
/// resample (1.25 GB for a million queries and 10,000 resamples), so the
/// generator is most of its cost: ChaCha8 is about 5 times as fast as
/// ChaCha20 here, and its output is as fixed by its specification. Eight
/// rounds keep a wide margin for statistics: the best known attacks on
/// ChaCha reach 7 rounds, and `rand` recommends `ChaCha8Rng` for
/// reproducible simulations.
pub fn fast_chunk_rng(seed: u64, chunk: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(chunk);
    rng
}

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
pub fn below<R: Rng + ?Sized>(rng: &mut R, bound: u32) -> u32 {
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
