//! Any bytes read as a Parquet run and as Parquet qrels (long tables and
//! list columns): values or an error naming the input, never
//! a panic. Seeds in `seeds/parquet` hold small valid tables to mutate.

#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::read_both(data, rankeval::Format::Parquet);
});
