//! Recording an evaluation in a results history (`--record DB`, TOML
//! `[record]`, Python `record=`): one record per evaluated run, written by
//! [`rankeval_history`] (SQLite) after the evaluation and its comparison
//! succeeded. This module turns the library's data into the history's plain
//! records: the per-query values, each metric's canonical name and
//! definition version, the options that change numbers, the judgements'
//! fingerprint, the inputs' hashes, the label, the commit and the time
//! (docs/history.md).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rankeval_core::Qrels;
use rankeval_history::fingerprint::{JudgementsFingerprint, content_hash};
use rankeval_history::{History, HistoryError, MetricColumn, Mode, RecordData};

use crate::experiment::Experiment;
use crate::report::Report;

/// The CI variables that hold the commit under test, in the order they are
/// looked at: GitHub Actions, GitLab CI, Buildkite, CircleCI, Travis CI,
/// Bitbucket Pipelines, Drone, Jenkins (its Git plugin).
pub const CI_COMMIT_VARIABLES: [&str; 8] = [
    "GITHUB_SHA",
    "CI_COMMIT_SHA",
    "BUILDKITE_COMMIT",
    "CIRCLE_SHA1",
    "TRAVIS_COMMIT",
    "BITBUCKET_COMMIT",
    "DRONE_COMMIT_SHA",
    "GIT_COMMIT",
];

/// The environment variable that fixes a record's time (seconds since the
/// Unix epoch), as reproducible builds use it; otherwise the clock's.
pub const TIME_VARIABLE: &str = "SOURCE_DATE_EPOCH";

/// A record to write, as resolved (`spec::resolve`).
#[derive(Clone, Debug, PartialEq)]
pub struct RecordPlan {
    /// The database file.
    pub db: PathBuf,
    /// The label, if given.
    pub label: Option<String>,
    /// The commit under test: given, or from the CI's variables.
    pub commit: Option<String>,
    /// The SHA-256 of the experiment (TOML) file, when there is one.
    pub experiment_hash: Option<String>,
}

/// The first of [`CI_COMMIT_VARIABLES`] that `env` gives a non-blank value
/// for: the variable and its value.
pub fn ci_commit(env: impl Fn(&str) -> Option<String>) -> Option<(&'static str, String)> {
    CI_COMMIT_VARIABLES.iter().find_map(|&name| {
        env(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty() && !v.chars().any(char::is_control))
            .map(|v| (name, v))
    })
}

/// The fingerprint of `qrels` as read: every query (with no judgement too)
/// and its judgements, normalised as
/// [`rankeval_history::fingerprint`] defines it.
pub fn judgements_fingerprint(qrels: &Qrels) -> String {
    let mut fingerprint = JudgementsFingerprint::new();
    for index in 0..qrels.num_queries() {
        let Ok(index) = u32::try_from(index) else {
            break;
        };
        fingerprint.query(qrels.query_bytes(index), qrels.judgements(index));
    }
    fingerprint.finish()
}

/// The fingerprint of no judgements at all (a run evaluated with corpus
/// metrics alone).
pub fn no_judgements_fingerprint() -> String {
    JudgementsFingerprint::new().finish()
}

/// The records were written: the database and each run's record id.
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    /// The database file.
    pub db: PathBuf,
    /// Each recorded run's name and record id, in report order.
    pub ids: Vec<(String, i64)>,
}

/// The records of `report`'s runs (the experiment's own, in order), ready
/// to write; `fingerprints[i]` is run `i`'s judgements' fingerprint.
pub fn records(
    experiment: &Experiment,
    plan: &RecordPlan,
    report: &Report,
    fingerprints: &[String],
) -> Vec<RecordData> {
    let time_ms = now_ms();
    let options = options(experiment);
    let versions: Vec<u32> = experiment
        .metrics
        .iter()
        .map(|m| m.definition_version())
        .collect();
    report
        .runs
        .iter()
        .zip(&experiment.runs)
        .zip(fingerprints)
        .map(|((result, run), fingerprint)| RecordData {
            run: result.name.clone(),
            label: plan.label.clone(),
            commit: plan.commit.clone(),
            rankeval_version: env!("CARGO_PKG_VERSION").to_owned(),
            time_ms,
            qrels_fingerprint: fingerprint.clone(),
            run_hash: run.input.path().and_then(file_hash),
            experiment_hash: plan.experiment_hash.clone(),
            options: options.clone(),
            metadata: result
                .ir_metadata
                .iter()
                .flat_map(|m| m.fields.iter().cloned())
                .collect(),
            queries: result.queries.clone(),
            metrics: report
                .metrics
                .iter()
                .zip(&result.per_query)
                .enumerate()
                .map(|(m, (column, values))| MetricColumn {
                    name: column.name.clone(),
                    definition_version: versions.get(m).copied().unwrap_or(1),
                    values: values.clone(),
                })
                .collect(),
            estimates: Vec::new(),
        })
        .collect()
}

/// Opens the history `plan.db`, when it exists, before anything is
/// evaluated: a file that cannot hold one (not SQLite, another
/// application's database, a later schema, a device, a FIFO) is refused at
/// once rather than after a long evaluation whose results it would then
/// lose. A missing file is left to [`write`] to create.
pub fn check_before_evaluating(plan: &RecordPlan) -> Result<(), HistoryError> {
    match std::fs::metadata(&plan.db) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        _ => History::open(&plan.db, Mode::Existing).map(drop),
    }
}

/// Writes `records` to the history `plan.db` in one transaction.
pub fn write(plan: &RecordPlan, records: &[RecordData]) -> Result<Recorded, HistoryError> {
    let mut history = History::open(&plan.db, Mode::Create)?;
    let ids = history.record(records)?;
    Ok(Recorded {
        db: plan.db.clone(),
        ids: records.iter().map(|r| r.run.clone()).zip(ids).collect(),
    })
}

/// The options that change numbers, as text: `missing`, `rel`, `ties`,
/// `score_threshold` (when set), `duplicates`, `judged_only`, `cutoffs`
/// (every metric's depth, in increasing order), `turns` and
/// `per_conversation` (when set). A baseline from a history is checked
/// against these (`Experiment::run`).
pub(crate) fn options(experiment: &Experiment) -> BTreeMap<String, String> {
    let o = &experiment.options;
    let mut map = BTreeMap::new();
    let text = |v: serde_json::Value| match v {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    };
    map.insert(
        "missing".into(),
        text(serde_json::to_value(o.missing).unwrap_or_default()),
    );
    map.insert("rel".into(), o.level.to_string());
    map.insert("ties".into(), o.ties.to_string());
    if let Some(t) = &o.score_threshold {
        map.insert("score_threshold".into(), t.to_string());
    }
    map.insert(
        "duplicates".into(),
        text(serde_json::to_value(experiment.read.duplicates).unwrap_or_default()),
    );
    let judged_only =
        !experiment.metrics.is_empty() && experiment.metrics.iter().all(|m| m.is_judged_only());
    map.insert("judged_only".into(), judged_only.to_string());
    let mut cutoffs: Vec<usize> = experiment
        .metrics
        .iter()
        .filter_map(|m| m.depth())
        .map(|k| k.get())
        .collect();
    cutoffs.sort_unstable();
    cutoffs.dedup();
    map.insert(
        "cutoffs".into(),
        cutoffs
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(","),
    );
    if let Some(turns) = &experiment.turns {
        map.insert("turns".into(), turns.clone());
    }
    if experiment.per_conversation {
        map.insert("per_conversation".into(), "true".into());
    }
    map
}

/// The SHA-256 of the regular file at `path`; `None` for anything else (a
/// FIFO or standard input, already read) or when it cannot be read.
pub(crate) fn file_hash(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    content_hash(std::fs::File::open(path).ok()?).ok()
}

/// Now, in milliseconds since the Unix epoch: a record's or an
/// acceptance's time ([`TIME_VARIABLE`]'s seconds when set, else the
/// clock's).
pub fn now_ms() -> i64 {
    now_ms_with(|name| std::env::var(name).ok())
}

/// [`now_ms`] with the environment `env`.
fn now_ms_with(env: impl Fn(&str) -> Option<String>) -> i64 {
    if let Some(seconds) = env(TIME_VARIABLE).and_then(|s| s.trim().parse::<i64>().ok()) {
        return seconds.saturating_mul(1000);
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commit_comes_from_the_first_ci_variable_set() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(ci_commit(env(&[])), None);
        assert_eq!(
            ci_commit(env(&[("CI_COMMIT_SHA", "abc"), ("GITHUB_SHA", " def\n")])),
            Some(("GITHUB_SHA", "def".to_owned()))
        );
        assert_eq!(
            ci_commit(env(&[("GITHUB_SHA", "  "), ("GIT_COMMIT", "1234")])),
            Some(("GIT_COMMIT", "1234".to_owned()))
        );
        assert_eq!(ci_commit(env(&[("GITHUB_SHA", "a\u{1b}b")])), None);
    }

    #[test]
    fn the_time_can_be_fixed() {
        assert_eq!(
            now_ms_with(|_| Some("1700000000".into())),
            1_700_000_000_000
        );
        assert!(now_ms_with(|_| Some("soon".into())) > 1_700_000_000_000);
        assert_eq!(now_ms_with(|_| Some(i64::MAX.to_string())), i64::MAX);
    }
}
