//! Integration tests of rankeval-runner, in one binary:
//!
//! - `cli`: the `rankeval` binary: snapshots of every format, listing, help
//!   and error, and trec_eval parity through `--format trec`;
//!
//! - `trec_eval`: per-query and overall values equal trec_eval's own test
//!   suite (`data/trec_eval`) to its 4 printed decimals;
//! - `determinism`: 1 thread and several give the same bits;
//! - `plugin`: a metric defined here, outside `crates/metrics`, registers
//!   and evaluates by name;
//! - `readers`: every kind of bad input is an error naming file and line;
//! - `streaming`: evaluating while reading gives the same bits as reading
//!   whole.
//! - `csv_reader`: the CSV/TSV reader, its errors, and CSV evaluating like
//!   the same data as TREC.
//! - `readme`: README's library example is the crate doc's doc test.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;
mod common;
mod csv_reader;
mod determinism;
mod plugin;
mod readers;
mod readme;
mod streaming;
mod trec_eval;
mod trec_eval_bytes;
