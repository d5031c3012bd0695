//! rankeval-history's tests: one binary (see each module).
//!
//! - `roundtrip`: a record read back bit for bit; summaries, acceptance,
//!   trend, diff, exports.
//! - `fingerprints`: change when and only when judgements or definitions do.
//! - `refusals`: newer schemas, other databases, damaged files, non-files.
//! - `concurrency`: threads and processes writing one file; kill -9 mid-write.
//! - `ope`: off-policy records (estimates, refusals) read back bit for bit,
//!   summarised, exported; the log fingerprint's order check.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod concurrency;
mod fingerprints;
mod ope;
mod refusals;
mod roundtrip;
