//! Shared by the benchmarks.

pub mod generate;
