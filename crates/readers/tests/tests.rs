//! Integration tests of the readers, in one binary:
//!
//! - `readers`: every kind of bad input is an error naming file and line;
//! - `json_reader`: JSON Lines with other and renamed keys, rows per line,
//!   dicts of dicts.
//!
//! Tests that also evaluate what was read (CSV, Parquet and Arrow giving the
//! same values as TREC, streaming) are the `rankeval` crate's, which has
//! the engine.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod json_reader;
mod readers;
