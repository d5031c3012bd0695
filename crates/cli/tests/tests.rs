//! Integration tests of the `rankeval` binary and of the trec_eval entry
//! point, in one binary:
//!
//! - `cli`: the `rankeval` binary: snapshots of every format, listing, help
//!   and error, and trec_eval parity through `--format trec`;
//! - `judged_only`: a metric's `judged_only=true` equals `rankeval
//!   trec_eval -J` on trec_eval's test data, bit for bit;
//! - `trec_eval_bytes`: `rankeval trec_eval` prints trec_eval's own output
//!   byte for byte.
//!
//! The library's tests are in the crates they test (`rankeval`,
//! `rankeval-report`, `rankeval-readers`, ...).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;
mod common;
mod judged_only;
mod trec_eval_bytes;
