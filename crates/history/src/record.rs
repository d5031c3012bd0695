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
    /// An off-policy evaluation's estimates (`rankeval ope --record`), each
    /// with its own standard error and interval: such a record
    /// ([`RecordKind::Ope`]) holds no queries and no metric columns, its
    /// `qrels_fingerprint` is the log's fingerprint
    /// ([`LogFingerprint`](crate::fingerprint::LogFingerprint)) and its
    /// `run_hash` the policy run's.
    pub estimates: Vec<StoredEstimate>,
}

/// What a record holds: an evaluation's per-query values, or an
/// off-policy evaluation's estimates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordKind {
    /// `rankeval eval`/`run`, Python's `evaluate`/`report`: per-query
    /// values of metrics over judgements.
    Eval,
    /// `rankeval ope`, Python's `ope`: one target policy's estimates on an
    /// impression log.
    Ope,
}

impl RecordKind {
    /// The name stored in the `records.kind` column (`eval`, `ope`).
    pub fn as_str(self) -> &'static str {
        match self {
            RecordKind::Eval => "eval",
            RecordKind::Ope => "ope",
        }
    }

    /// The kind named `name` in the database, if known.
    pub fn from_name(name: &str) -> Option<RecordKind> {
        match name {
            "eval" => Some(RecordKind::Eval),
            "ope" => Some(RecordKind::Ope),
            _ => None,
        }
    }
}

/// One estimator's estimate of a target policy's value, as recorded: the
/// estimator's own numbers, which no column of per-impression values would
/// give back (a self-normalised estimate is a ratio of means, and its
/// interval the delta method's or a bootstrap's, not Student's t of a
/// mean). Every number is kept with its bits.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredEstimate {
    /// The estimator's name, `ope.` and its canonical form
    /// (`ope.snips`, `ope.clipped_ips(max_weight=5)`).
    pub name: String,
    /// The version of the estimator's definition.
    pub definition_version: u32,
    /// The impressions it rests on.
    pub n: u64,
    /// The estimate.
    pub value: f64,
    /// Its standard error.
    pub standard_error: f64,
    /// Its interval `(lower, upper)`, at the level recorded in the options.
    pub interval: (f64, f64),
    /// Why it is refused (the floors' reasons, joined), when it is: a
    /// refused estimate is recorded, marked, never dropped.
    pub refused: Option<String>,
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

    /// The fingerprint of this record's metric (or estimator) definitions
    /// ([`fingerprint::definitions`](crate::fingerprint::definitions)).
    pub fn definitions_fingerprint(&self) -> String {
        crate::fingerprint::definitions(
            self.metrics
                .iter()
                .map(|m| (m.name.as_str(), m.definition_version))
                .chain(
                    self.estimates
                        .iter()
                        .map(|e| (e.name.as_str(), e.definition_version)),
                ),
        )
    }

    /// What the record holds: [`RecordKind::Ope`] when it has estimates.
    pub fn kind(&self) -> RecordKind {
        if self.estimates.is_empty() {
            RecordKind::Eval
        } else {
            RecordKind::Ope
        }
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
    /// exists (two queries or more, every value finite); an off-policy
    /// estimate's own interval.
    pub interval: Option<(f64, f64)>,
    /// An off-policy estimate's standard error (none for a mean of
    /// per-query values).
    pub standard_error: Option<f64>,
    /// Why an off-policy estimate is refused, when it is.
    pub refused: Option<String>,
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
    /// What it holds.
    pub kind: RecordKind,
    /// The fingerprint of its judgements (of its log, for an off-policy
    /// record).
    pub qrels_fingerprint: String,
    /// The fingerprint of its metric definitions.
    pub definitions_fingerprint: String,
    /// The number of queries (none for an off-policy record).
    pub num_queries: u64,
    /// The confidence level of its intervals: [`LEVEL`](crate::LEVEL) for
    /// an evaluation's t intervals, the recorded `ope.level` for an
    /// off-policy record's (NaN if it was not recorded).
    pub level: f64,
    /// Each metric's mean, in the record's order.
    pub means: Vec<MetricMean>,
}
