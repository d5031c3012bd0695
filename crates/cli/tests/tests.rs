//! Integration tests of the `rankeval` binary and of the crates it is built
//! from (readers, engine, reports), in one binary:
//!
//! - `cli`: the `rankeval` binary: snapshots of every format, listing, help
//!   and error, and trec_eval parity through `--format trec`;
//!
//! - `trec_eval`: per-query and overall values equal trec_eval's own test
//!   suite (`data/trec_eval`) to its 4 printed decimals;
//! - `determinism`: 1 thread and several give the same bits;
//! - `plugin`: a metric defined here, outside `crates/metrics`, registers
//!   and evaluates by name;
//! - `streaming`: evaluating while reading gives the same bits as reading
//!   whole.
//! - `csv_reader`: the CSV/TSV reader, its errors, and CSV evaluating like
//!   the same data as TREC.
//! - `arrow_reader`: Parquet and Arrow IPC, and the same data in every
//!   format giving the same values bit for bit.
//! - `msmarco`: MS MARCO's qrels and `qid pid rank` runs.
//! - `never_panics`: property tests: any bytes in any reader, any TOML
//!   experiment, any metric text give values or an error naming the input.
//! - `explain`: `rankeval explain` gives eval's values bit for bit, for
//!   every metric, with ties, grades, negatives and repeats.
//! - `html_curves`: the HTML report's precision-recall curve equals
//!   trec_eval's `iprec_at_recall` on its test suite.
//! - `judged_only`: a metric's `judged_only=true` equals `rankeval
//!   trec_eval -J` on trec_eval's test data, bit for bit.
//! - `compare`: comparisons with a baseline run or results file, pairing,
//!   corrections, gates, all pairs, thread-count determinism.
//! - `corpus`: corpus metrics (beyond accuracy) on RecTools' published
//!   values, and the same bits for any split of the lists.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod arrow_reader;
mod cli;
mod common;
mod compare;
mod corpus;
mod csv_reader;
mod determinism;
mod explain;
mod html_curves;
mod judged_only;
mod msmarco;
mod never_panics;
mod plugin;
mod streaming;
mod trec_eval;
mod trec_eval_bytes;
