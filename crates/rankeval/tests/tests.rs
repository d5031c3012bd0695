//! Integration tests of the library (the engine, its readers and
//! experiments), in one binary:
//!
//! - `trec_eval`: per-query and overall values equal trec_eval's own test
//!   suite (`crates/cli/tests/data/trec_eval`) to its 4 printed decimals;
//! - `determinism`: 1 thread and several give the same bits;
//! - `plugin`: a metric defined here, outside `crates/metrics`, registers
//!   and evaluates by name;
//! - `streaming`: evaluating while reading gives the same bits as reading
//!   whole;
//! - `csv_reader`: the CSV/TSV reader, its errors, and CSV evaluating like
//!   the same data as TREC;
//! - `arrow_reader`: Parquet and Arrow IPC, and the same data in every
//!   format giving the same values bit for bit;
//! - `msmarco`: MS MARCO's qrels and `qid pid rank` runs;
//! - `never_panics`: property tests: any bytes in any reader, any TOML
//!   experiment, any metric text give values or an error naming the input;
//! - `explain`: `rankeval::explain` gives eval's values bit for bit, for
//!   every metric, with ties, grades, negatives and repeats;
//! - `compare`: comparisons with a baseline run or results file, pairing,
//!   corrections, gates, all pairs, thread-count determinism;
//! - `html_curves`: the curves' interpolated precision (`rankeval::curves`)
//!   equals trec_eval's `iprec_at_recall` on its test suite;
//! - `corpus`: corpus metrics (beyond accuracy) on RecTools' published
//!   values, and the same bits for any split of the lists;
//! - `diversity`: the diversity metrics over subtopic judgements equal
//!   ndeval's values (pyndeval), whole or while read;
//! - `fairness`: expected exposure over sampled runs, AWRF and TREC Fair
//!   2021's score equal the reference of `scripts/cross-check/expeval.py`;
//! - `peers`: the peers' definitions (compatibility, INST, INSQ, NERR, LRAP,
//!   average_precision_score, RecTools' accuracy and MCC) on the peers'
//!   published test values and on generated data (`data/peers`);
//! - `propensity`: PSP@k and PSnDCG@k equal pyxclib's definitions
//!   (`scripts/cross-check/pyxclib.py`), Hole@k BEIR's.
//!
//! `readme` and `spans` are binaries of their own. The `rankeval` binary's
//! tests are `rankeval-cli`'s; the renderers' are `rankeval-report`'s.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod arrow_reader;
mod common;
mod compare;
mod corpus;
mod csv_reader;
mod determinism;
mod diversity;
mod explain;
mod fairness;
mod html_curves;
mod msmarco;
mod never_panics;
mod ope_clicks;
mod ope_merged;
mod peers;
mod plugin;
mod propensity;
mod streaming;
mod trec_eval;
