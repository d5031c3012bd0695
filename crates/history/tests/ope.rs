//! Off-policy records (`rankeval ope --record`): estimates with their own
//! standard errors and intervals, refusals kept, read back bit for bit,
//! summarised and exported; and the log fingerprint.

use std::collections::BTreeMap;

use rankeval_history::fingerprint::{LogFingerprint, LoggedImpression};
use rankeval_history::{
    ExportFormat, History, HistoryError, Mode, RecordData, RecordKind, StoredEstimate,
};

use crate::common::record;

/// An off-policy record of policy `run`: a mean estimator, a ratio one
/// (refused) and one whose numbers are NaN with a payload.
pub fn ope_record(run: &str, seed: u64) -> RecordData {
    let x = seed as f64 / 1024.0;
    RecordData {
        run: run.to_owned(),
        label: Some("nightly".into()),
        commit: None,
        rankeval_version: "0.1.0".into(),
        time_ms: 1_795_941_962_000 + seed as i64,
        qrels_fingerprint: "1".repeat(64),
        run_hash: Some("a".repeat(64)),
        experiment_hash: None,
        options: BTreeMap::from([("ope.interval".into(), "normal".into())]),
        metadata: BTreeMap::new(),
        queries: Vec::new(),
        metrics: Vec::new(),
        estimates: vec![
            StoredEstimate {
                name: "ope.ips".into(),
                definition_version: 1,
                n: 20_000,
                value: 0.125 + x,
                standard_error: 0.0052,
                interval: (0.0625 + x, 0.1875 + x),
                refused: None,
            },
            StoredEstimate {
                name: "ope.snips".into(),
                definition_version: 1,
                n: 20_000,
                value: -0.0,
                standard_error: 1e-310,
                interval: (-0.25, 0.25),
                refused: Some("effective sample size 3.2 is below the floor 100".into()),
            },
            StoredEstimate {
                name: "ope.dr".into(),
                definition_version: 2,
                n: 1,
                value: f64::from_bits(0x7ff8_0000_dead_beef),
                standard_error: f64::NAN,
                interval: (f64::NAN, f64::NAN),
                refused: Some("1 impression is below the floor 30".into()),
            },
        ],
    }
}

/// Every number of an estimate as bits.
fn bits(e: &StoredEstimate) -> [u64; 4] {
    [
        e.value.to_bits(),
        e.standard_error.to_bits(),
        e.interval.0.to_bits(),
        e.interval.1.to_bits(),
    ]
}

#[test]
fn an_ope_record_reads_back_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let data = ope_record("new", 7);
    let eval = record("bm25", 1, 20, 2);
    let ids = History::open(&path, Mode::Create)
        .unwrap()
        .record(&[data.clone(), eval.clone()])
        .unwrap();
    let mut h = History::open(&path, Mode::Existing).unwrap();
    let back = h.get(ids[0]).unwrap();
    assert_eq!(back.data.kind(), RecordKind::Ope);
    assert_eq!(h.get(ids[1]).unwrap().data.kind(), RecordKind::Eval);
    assert_eq!(back.data.estimates.len(), 3);
    for (a, b) in back.data.estimates.iter().zip(&data.estimates) {
        assert_eq!(bits(a), bits(b), "{}", a.name);
        assert_eq!(
            (&a.name, a.definition_version, a.n, &a.refused),
            (&b.name, b.definition_version, b.n, &b.refused)
        );
    }
    let mut plain = back.data.clone();
    let mut expected = data.clone();
    plain.estimates.clear();
    expected.estimates.clear();
    assert_eq!(plain, expected);
    assert_eq!(back.definitions_fingerprint, data.definitions_fingerprint());
    // The estimators' versions are in the definitions' fingerprint.
    let mut bumped = data.clone();
    bumped.estimates[0].definition_version = 2;
    assert_ne!(
        bumped.definitions_fingerprint(),
        data.definitions_fingerprint()
    );
    // Summaries carry the estimate, its own interval, standard error and
    // refusal; a NaN is no number.
    let summaries = h.summaries().unwrap();
    let s = &summaries[0];
    assert_eq!((s.kind, s.num_queries), (RecordKind::Ope, 0));
    assert_eq!(s.means[0].mean, 0.125 + 7.0 / 1024.0);
    assert_eq!(
        s.means[0].interval,
        Some((0.0625 + 7.0 / 1024.0, 0.1875 + 7.0 / 1024.0))
    );
    assert_eq!(s.means[0].standard_error, Some(0.0052));
    assert_eq!(s.means[0].n, 20_000);
    assert_eq!(s.means[1].refused, data.estimates[1].refused);
    assert!(s.means[2].mean.is_nan());
    assert_eq!(s.means[2].interval, None);
    assert_eq!(summaries[1].kind, RecordKind::Eval);
    assert_eq!(summaries[1].means[0].standard_error, None);
}

#[test]
fn a_record_cannot_mix_estimates_and_queries() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = History::open(&dir.path().join("h.sqlite"), Mode::Create).unwrap();
    let mut mixed = ope_record("new", 1);
    mixed.queries = vec!["q1".into()];
    assert!(matches!(
        h.record(&[mixed]),
        Err(HistoryError::InvalidRecord { .. })
    ));
    let mut twice = ope_record("new", 1);
    twice.estimates[1].name = "ope.ips".into();
    let error = h.record(&[twice]).unwrap_err();
    assert!(error.to_string().contains("given twice"), "{error}");
    assert!(h.summaries().unwrap().is_empty());
}

#[test]
fn an_ope_record_is_exported() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = History::open(&dir.path().join("h.sqlite"), Mode::Create).unwrap();
    h.record(&[ope_record("new", 7)]).unwrap();
    let mut csv = Vec::new();
    h.export(ExportFormat::Csv, &mut csv).unwrap();
    let csv = String::from_utf8(csv).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4, "{csv}");
    assert!(
        lines[1].ends_with(",false,ope.ips,1,,0.1318359375"),
        "{}",
        lines[1]
    );
    assert!(lines[3].ends_with(",ope.dr,2,,"), "{}", lines[3]);
    let mut jsonl = Vec::new();
    h.export(ExportFormat::Jsonl, &mut jsonl).unwrap();
    let line: serde_json::Value = serde_json::from_slice(&jsonl).unwrap();
    assert_eq!(line["kind"], "ope");
    assert_eq!(line["means"]["ope.ips"], 0.1318359375);
    // A refused estimate is no mean to log, but its numbers are there.
    assert!(line["means"]["ope.snips"].is_null());
    assert_eq!(line["metrics"]["ope.snips"]["standard_error"], 1e-310);
    assert_eq!(
        line["metrics"]["ope.snips"]["refused"],
        "effective sample size 3.2 is below the floor 100"
    );
    assert_eq!(line["metrics"]["ope.ips"]["n"], 20_000);
    let mut parquet = Vec::new();
    h.export(ExportFormat::Parquet, &mut parquet).unwrap();
    assert!(parquet.starts_with(b"PAR1"));
}

/// The fingerprint of impressions `(id, context, item, reward, propensity)`.
fn log_hash(impressions: &[(&str, &str, &str, f64, f64)]) -> Option<String> {
    let mut f = LogFingerprint::new("action", "impression", 1);
    for &(id, context, item, reward, propensity) in impressions {
        f.impression(LoggedImpression {
            id: id.as_bytes(),
            context: context.as_bytes(),
            items: &[item.as_bytes()],
            rewards: &[reward],
            propensities: &[propensity],
            target: None,
        });
    }
    f.finish()
}

#[test]
fn the_log_fingerprint_changes_iff_the_log_does() {
    let log = [("i1", "u1", "a", 1.0, 0.5), ("i2", "u2", "b", 0.0, 0.25)];
    let base = log_hash(&log).unwrap();
    assert_eq!(base.len(), 64);
    // -0.0 is 0.0.
    let mut same = log;
    same[1].3 = -0.0;
    assert_eq!(log_hash(&same).unwrap(), base);
    for change in 0..5 {
        let mut other = log;
        match change {
            0 => other[1].0 = "i3",
            1 => other[1].1 = "u1",
            2 => other[1].2 = "c",
            3 => other[1].3 = 1.0,
            _ => other[1].4 = 0.5,
        }
        assert_ne!(log_hash(&other).unwrap(), base, "change {change}");
    }
    assert_ne!(log_hash(&log[..1]).unwrap(), base);
    // Out of order (or an id twice) is the caller's mistake, said.
    assert_eq!(log_hash(&[log[1], log[0]]), None);
    assert_eq!(log_hash(&[log[0], log[0]]), None);
    // The header counts: another form is another log.
    let mut f = LogFingerprint::new("slate", "impression", 1);
    for &(id, context, item, reward, propensity) in &log {
        f.impression(LoggedImpression {
            id: id.as_bytes(),
            context: context.as_bytes(),
            items: &[item.as_bytes()],
            rewards: &[reward],
            propensities: &[propensity],
            target: None,
        });
    }
    assert_ne!(f.finish().unwrap(), base);
}

/// What one record of per-impression values would cost at 10 million
/// impressions (docs/history.md, "Off-policy records"): the database's
/// size and the time to write and read it, against an off-policy record's.
/// A measurement, not a timed test: `cargo test -p rankeval-history --test
/// tests -- --ignored --nocapture measure`.
#[test]
#[ignore]
fn measure_what_per_impression_values_would_cost() {
    let dir = tempfile::tempdir().unwrap();
    let n: usize = std::env::var("IMPRESSIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000_000);
    let mut data = record("ips", 1, 0, 0);
    data.queries = (0..n).map(|i| format!("i{i}")).collect();
    let mut mix = crate::common::Mix(7);
    data.metrics = vec![rankeval_history::MetricColumn {
        name: "ope.ips".into(),
        definition_version: 1,
        values: (0..n).map(|_| mix.unit()).collect(),
    }];
    let path = dir.path().join("values.sqlite");
    let start = std::time::Instant::now();
    History::open(&path, Mode::Create)
        .unwrap()
        .record(&[data.clone()])
        .unwrap();
    let wrote = start.elapsed();
    let size = |p: &std::path::Path| {
        ["", "-wal"]
            .iter()
            .filter_map(|s| std::fs::metadata(format!("{}{s}", p.display())).ok())
            .map(|m| m.len())
            .sum::<u64>()
    };
    let first = size(&path);
    // A second record of the same impressions shares their ids.
    data.metrics[0].name = "ope.dr".into();
    History::open(&path, Mode::Create)
        .unwrap()
        .record(&[data])
        .unwrap();
    let second = size(&path) - first;
    let start = std::time::Instant::now();
    let back = History::open(&path, Mode::Existing)
        .unwrap()
        .get(1)
        .unwrap();
    let read = start.elapsed();
    assert_eq!(back.data.queries.len(), n);
    let ope_path = dir.path().join("ope.sqlite");
    History::open(&ope_path, Mode::Create).unwrap();
    let empty = size(&ope_path);
    History::open(&ope_path, Mode::Create)
        .unwrap()
        .record(&[ope_record("new", 1)])
        .unwrap();
    println!(
        "{n} impressions: first record {first} bytes (written in {wrote:?}, read in {read:?}), \
         a second of the same ids {second} bytes; an off-policy record of three estimates {} bytes",
        size(&ope_path) - empty
    );
}
