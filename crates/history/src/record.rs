//! What a record holds: plain data in, plain data out. A front end fills a
//! [`RecordData`] per run it evaluated; reading gives it back as a
//! [`Record`] (every value with the same bits), or a [`RecordSummary`]
//! (the means and their intervals, without the per-query columns).

use std::collections::BTreeMap;

/// One evaluated run, as recorded.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordData {
    /// The run's name in the report.
    pub run: String,
    /// A label given by the user (`--label`), if any.
    pub label: Option<String>,
    /// The commit under test (`--label`'s companion, or the CI's), if known.
    pub commit: Option<String>,
    /// The rankeval version that evaluated it.
    pub rankeval_version: String,
    /// When it was evaluated: milliseconds since the Unix epoch, UTC.
    pub time_ms: i64,
    /// The fingerprint of the normalised judgements
    /// ([`JudgementsFingerprint`](crate::fingerprint::JudgementsFingerprint)).
    pub qrels_fingerprint: String,
    /// The SHA-256 of the run file, when it was a file that could be hashed.
    pub run_hash: Option<String>,
    /// The SHA-256 of the experiment (TOML) file, when there was one.
    pub experiment_hash: Option<String>,
    /// The options that change numbers (`rel`, `ties`, `missing`,
    /// `judged_only`, cutoffs...), as key and value text.
    pub options: BTreeMap<String, String>,
    /// The run's ir_metadata fields, if it has any.
    pub metadata: BTreeMap<String, String>,
    /// The evaluated queries, each once, in the order of every column.
    pub queries: Vec<String>,
    /// One column of per-query values per metric.
    pub metrics: Vec<MetricColumn>,
}

/// One metric's per-query values.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricColumn {
    /// The metric's canonical name (`ndcg@10`).
    pub name: String,
    /// The version of its definition: bumped when its code changes what it
    /// computes for some input.
    pub definition_version: u32,
    /// Its value on each query, in the order of [`RecordData::queries`].
    pub values: Vec<f64>,
}

impl RecordData {
    /// The column of metric `name`, if recorded.
    pub fn column(&self, name: &str) -> Option<&MetricColumn> {
        self.metrics.iter().find(|m| m.name == name)
    }

    /// The fingerprint of this record's metric definitions
    /// ([`fingerprint::definitions`](crate::fingerprint::definitions)).
    pub fn definitions_fingerprint(&self) -> String {
        crate::fingerprint::definitions(
            self.metrics
                .iter()
                .map(|m| (m.name.as_str(), m.definition_version)),
        )
    }
}

/// A record read back whole.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Its id in the database (1, 2, ...: the order of recording).
    pub id: i64,
    /// Whether it has ever been accepted as a baseline.
    pub accepted: bool,
    /// The fingerprint of its metric definitions.
    pub definitions_fingerprint: String,
    /// What was recorded.
    pub data: RecordData,
}

/// A metric's mean in a record, with its interval.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricMean {
    /// The metric's canonical name.
    pub name: String,
    /// The version of its definition.
    pub definition_version: u32,
    /// The number of queries.
    pub n: u64,
    /// The mean over the queries (exactly summed, as reports compute it);
    /// NaN when a value is NaN.
    pub mean: f64,
    /// Student's t interval of the mean at [`LEVEL`](crate::LEVEL), when it
    /// exists (two queries or more, every value finite).
    pub interval: Option<(f64, f64)>,
}

/// A record without its per-query columns: what a listing and a trend read.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordSummary {
    /// Its id.
    pub id: i64,
    /// When it was evaluated (milliseconds since the Unix epoch, UTC).
    pub time_ms: i64,
    /// The run's name.
    pub run: String,
    /// Its label, if any.
    pub label: Option<String>,
    /// Its commit, if any.
    pub commit: Option<String>,
    /// The rankeval version that evaluated it.
    pub rankeval_version: String,
    /// Whether it has ever been accepted.
    pub accepted: bool,
    /// The fingerprint of its judgements.
    pub qrels_fingerprint: String,
    /// The fingerprint of its metric definitions.
    pub definitions_fingerprint: String,
    /// The number of queries.
    pub num_queries: u64,
    /// Each metric's mean, in the record's order.
    pub means: Vec<MetricMean>,
}
