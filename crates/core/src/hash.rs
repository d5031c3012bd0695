//! The one hash function for ids: fast, and seeded with a constant so that
//! nothing about a run depends on the process.

use std::hash::BuildHasher;

use foldhash::fast::FixedState;

const SEED: u64 = 0x5EED_0F2A_4B1D_u64;

/// Hash of a byte string.
#[inline]
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    FixedState::with_seed(SEED).hash_one(bytes)
}
