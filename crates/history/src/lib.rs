//! rankeval's results history: every evaluation recorded in an embedded
//! SQLite database (SQLite compiled in; no server, no system library), so
//! that a CI job can compare a run with the last accepted one query by
//! query instead of a mean with last week's mean.
//!
//! A front end fills a [`RecordData`] per evaluated run (plain data: names,
//! per-query values, fingerprints, options) and calls
//! [`History::record`]; [`History::get`] gives it back with every value's
//! bits, [`History::summaries`] the means and intervals,
//! [`History::accept`] and [`History::last_accepted`] keep a baseline,
//! [`trend()`] and [`diff`] shape what the renderers show, and
//! [`History::export`] writes CSV, JSON Lines or Parquet.
//!
//! Safe under CI's use: WAL mode and a busy timeout let several processes
//! write one file, a write that stays locked out is tried again
//! ([`db::ATTEMPTS`]), each call to [`History::record`] is one transaction
//! (a process killed during it leaves the database consistent and the
//! record absent), the schema is versioned with forward migrations
//! ([`schema`]) and a later version is refused with the reason; a file that
//! is not SQLite, another application's database or a damaged one is an
//! error naming the file, never a panic. docs/history.md has the schema.

mod codec;
pub mod db;
mod error;
pub mod export;
pub mod fingerprint;
mod read;
mod record;
pub mod schema;
mod time;
pub mod trend;
mod write;

pub use db::{History, Mode};
pub use error::HistoryError;
pub use export::ExportFormat;
pub use record::{
    MetricColumn, MetricMean, Record, RecordData, RecordKind, RecordSummary, StoredEstimate,
};
pub use time::rfc3339;
pub use trend::{QueryMove, RecordDiff, TrendPoint, TrendSeries, diff, trend};

/// The confidence level of the intervals stored with each mean (Student's
/// t, [`rankeval_stats::t_interval`]).
pub const LEVEL: f64 = 0.95;
