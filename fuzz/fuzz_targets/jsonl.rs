//! Any bytes read as a jsonl run and as jsonl qrels: values or an error naming
//! the input, never a panic.

#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::read_both(data, rankeval::Format::Jsonl);
});
