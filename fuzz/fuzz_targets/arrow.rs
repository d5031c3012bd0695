//! Any bytes read as an Arrow IPC run and as Arrow IPC qrels (file or
//! stream): values or an error naming the input, never
//! a panic. Seeds in `seeds/arrow` hold small valid tables to mutate.

#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::read_both(data, rankeval::Format::Arrow);
});
