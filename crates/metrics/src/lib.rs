//! # rankeval-metrics
//!
//! The built-in metrics and aggregators of rankeval. Each is a plugin,
//! registered with the same macro a user's crate uses, and each keeps its
//! math in a pure function (tested directly) behind a thin serde struct.
//!
//! | metric (`type`) | aliases | canonical name | parameters |
//! |---|---|---|---|
//! | `precision` | `p` | `p@10` | `k`, `rel`, `denominator = k \| retrieved` |
//! | `recall` | `r` | `r@10` | `k`, `rel` |
//! | `reciprocal_rank` | `rr`, `mrr` | `rr@10` | `k`, `rel` |
//! | `average_precision` | `ap`, `map` | `ap(norm=truncated)@10` | `k`, `rel`, `normalization = relevant \| truncated \| hits` |
//! | `hit_rate` | `success` | `hit_rate@10` | `k`, `rel` |
//!
//! | aggregator | aliases |
//! |---|---|
//! | `mean` | `avg` |
//!
//! Semantics follow `docs/metrics.md` (and the spec it comes from). A binary
//! must link this crate for the registry to hold these metrics: the runner
//! does (`rankeval_runner::metrics`); a binary of your own that depends only
//! on `rankeval-core` must name it once, `use rankeval_metrics as _;`.

pub mod aggregators;
pub mod average_precision;
mod common;
pub mod hit_rate;
pub mod precision;
pub mod recall;
pub mod reciprocal_rank;

pub use aggregators::mean::Mean;
pub use average_precision::{ApNormalization, AveragePrecision};
pub use hit_rate::HitRate;
pub use precision::{Precision, PrecisionDenominator};
pub use recall::Recall;
pub use reciprocal_rank::ReciprocalRank;
