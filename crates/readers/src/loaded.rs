//! Data a program has already read or built, given as an [`Input`] (the
//! Python package's dicts, data frames and Arrow tables): reading such an
//! input hands the data over, so that an experiment made of it runs as one
//! made of files, through the same calls.

use std::sync::Arc;

use arrow_array::RecordBatch;
use rankeval_core::{Qrels, Run};

use crate::{Format, Input, Origin, QrelsNote};

/// What an input already in memory holds.
#[derive(Clone, Debug)]
pub enum Loaded {
    /// Judgements, with what their reader said of them (read as the
    /// command line reads a table without its grade column).
    Qrels(Arc<Qrels>, Option<QrelsNote>),
    /// A finished run.
    Run(Arc<Run>),
    /// A run's Arrow record batches, not yet read: evaluated while read,
    /// as a table grouped by query is ([`crate::stream_batches`]), their
    /// columns named by the input's column settings.
    Batches(Arc<[RecordBatch]>),
}

impl Input {
    /// Data already in memory, called `name` in messages. It reads as an
    /// Arrow table does: it has scores (or ranks), and no judgements of its
    /// own.
    pub fn loaded(name: impl Into<String>, data: Loaded) -> Self {
        Self {
            name: name.into(),
            origin: Origin::Loaded(data),
            format: Format::Arrow,
            csv: crate::CsvOptions::default(),
        }
    }

    /// The data, if this input is already in memory.
    pub fn loaded_data(&self) -> Option<&Loaded> {
        match &self.origin {
            Origin::Loaded(data) => Some(data),
            _ => None,
        }
    }
}
