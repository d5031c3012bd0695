//! A record read back bit for bit, and what is read from records.

use rankeval_history::{ExportFormat, History, HistoryError, Mode, diff, trend};

use crate::common::{comparable, record};

#[test]
fn a_record_reads_back_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let first = record("bm25", 1, 500, 3);
    let mut second = record("dense", 2, 500, 3);
    second.label = None;
    second.commit = None;
    second.run_hash = None;
    second.experiment_hash = Some("e".repeat(64));
    second.metadata.clear();
    let ids = {
        let mut h = History::open(&path, Mode::Create).unwrap();
        h.record(&[first.clone(), second.clone()]).unwrap()
    };
    assert_eq!(ids, [1, 2]);
    // Read by another connection, as a later process would.
    let mut h = History::open(&path, Mode::Existing).unwrap();
    for (id, data) in ids.iter().zip([&first, &second]) {
        let back = h.get(*id).unwrap();
        assert_eq!(back.id, *id);
        assert!(!back.accepted);
        assert_eq!(comparable(&back.data), comparable(data));
        assert_eq!(back.definitions_fingerprint, data.definitions_fingerprint());
    }
    // A NaN payload and -0.0 survive.
    let back = h.get(1).unwrap();
    assert_eq!(
        back.data.metrics[1].values[1].to_bits(),
        0x7ff8_0000_dead_beef
    );
    assert_eq!(
        back.data.metrics[1].values[0].to_bits(),
        (-0.0f64).to_bits()
    );
    h.integrity_check().unwrap();
}

#[test]
fn a_record_that_does_not_hold_together_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let mut h = History::open(&path, Mode::Create).unwrap();
    let good = record("a", 1, 5, 2);
    let mut short = record("b", 2, 5, 2);
    short.metrics[1].values.pop();
    let error = h.record(&[good.clone(), short]).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "history {}: record of run `b`: metric `metric1@2` has 4 values for 5 queries",
            path.display()
        )
    );
    let mut twice = record("c", 3, 5, 1);
    twice.queries[4] = "q0".into();
    assert!(
        h.record(&[twice])
            .unwrap_err()
            .to_string()
            .ends_with("query `q0` is given twice")
    );
    // The good record of the refused call is absent too: one transaction.
    assert!(h.summaries().unwrap().is_empty());
}

#[test]
fn summaries_acceptance_trend_and_diff() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let mut h = History::open(&path, Mode::Create).unwrap();
    for seed in 1..=4 {
        h.record(&[record("bm25", seed, 50, 2)]).unwrap();
    }
    h.record(&[record("dense", 9, 50, 2)]).unwrap();
    assert!(matches!(
        h.last_accepted(None),
        Err(HistoryError::NoneAccepted { .. })
    ));
    assert!(matches!(
        h.accept(99, 0),
        Err(HistoryError::NoRecord { id: 99, .. })
    ));
    h.accept(3, 10).unwrap();
    h.accept(2, 20).unwrap();
    assert_eq!(h.last_accepted(None).unwrap().id, 2);
    assert_eq!(h.last_accepted_id(Some("dense")).unwrap(), None);
    // Accepting again makes it the last accepted.
    h.accept(3, 30).unwrap();
    assert_eq!(h.last_accepted(Some("bm25")).unwrap().id, 3);

    let summaries = h.summaries().unwrap();
    assert_eq!(summaries.len(), 5);
    assert_eq!(
        summaries.iter().map(|s| s.accepted).collect::<Vec<_>>(),
        [false, true, true, false, false]
    );
    let data = record("bm25", 1, 50, 2);
    let mean = rankeval_core::exact_sum::fmean(&data.metrics[0].values);
    let interval = rankeval_stats::t_interval(&data.metrics[0].values, 0.95).unwrap();
    let first = &summaries[0].means[0];
    assert_eq!(first.mean.to_bits(), mean.to_bits());
    assert_eq!(first.interval, Some((interval.lower, interval.upper)));
    assert_eq!(first.n, 50);
    // Metric 1 holds a NaN: its mean is NaN and it has no interval.
    assert!(summaries[0].means[1].mean.is_nan());
    assert_eq!(summaries[0].means[1].interval, None);

    let series = trend(&summaries);
    let names: Vec<(&str, &str, usize)> = series
        .iter()
        .map(|s| (s.run.as_str(), s.metric.as_str(), s.points.len()))
        .collect();
    assert_eq!(
        names,
        [
            ("bm25", "metric0@1", 4),
            ("bm25", "metric1@2", 4),
            ("dense", "metric0@1", 1),
            ("dense", "metric1@2", 1)
        ]
    );
    assert_eq!(series[0].points[0].mean.to_bits(), mean.to_bits());

    let (a, b) = (h.get(1).unwrap(), h.get(2).unwrap());
    let d = diff(&a, &b);
    assert!(d.same_judgements && d.same_definitions);
    assert_eq!((d.common_queries, d.only_a, d.only_b), (50, 0, 0));
    // Every pair of values differs but the three fixed ones of metric 1.
    assert_eq!(d.moves.len(), 50 + 47);
    let sizes: Vec<f64> = d.moves.iter().map(|m| m.delta.abs()).collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]));
    let top = &d.moves[0];
    assert_eq!(top.delta, top.b - top.a);
    assert_eq!(
        a.data.column(&top.metric).unwrap().values[top.query[1..].parse::<usize>().unwrap()],
        top.a
    );
}

#[test]
fn exports_hold_every_value() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let mut h = History::open(&path, Mode::Create).unwrap();
    let mut data = record("run, \"quoted\"", 5, 4, 2);
    data.queries[3] = "q,3".into();
    h.record(&[data.clone(), record("b", 6, 4, 1)]).unwrap();
    h.accept(1, 0).unwrap();

    let mut csv = Vec::new();
    h.export(ExportFormat::Csv, &mut csv).unwrap();
    let csv = String::from_utf8(csv).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "record,time,run,label,commit,accepted,metric,definition_version,query,value"
    );
    assert_eq!(lines.len(), 1 + 8 + 4);
    assert_eq!(
        lines[1],
        format!(
            "1,2026-11-29T08:46:02.005Z,\"run, \"\"quoted\"\"\",label 5,{:040x},true,metric0@1,1,q0,{:?}",
            5, data.metrics[0].values[0]
        )
    );
    // -0.0 is written as such, a NaN as an empty field.
    assert!(lines[5].ends_with(",metric1@2,1,q0,-0.0"), "{}", lines[5]);
    assert!(lines[6].ends_with(",metric1@2,1,q1,"), "{}", lines[6]);
    assert!(lines[8].contains(",\"q,3\","), "{}", lines[8]);

    let mut jsonl = Vec::new();
    h.export(ExportFormat::Jsonl, &mut jsonl).unwrap();
    let lines: Vec<serde_json::Value> = String::from_utf8(jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["run"], "run, \"quoted\"");
    assert_eq!(lines[0]["accepted"], true);
    let v = data.metrics[0].values[2];
    assert_eq!(
        lines[0]["per_query"]["metric0@1"]["q2"]
            .as_f64()
            .unwrap()
            .to_bits(),
        v.to_bits()
    );
    assert!(lines[0]["per_query"]["metric1@2"]["q1"].is_null());
    let mean = rankeval_core::exact_sum::fmean(&data.metrics[0].values);
    assert_eq!(
        lines[0]["means"]["metric0@1"].as_f64().unwrap().to_bits(),
        mean.to_bits()
    );

    let mut parquet = Vec::new();
    h.export(ExportFormat::Parquet, &mut parquet).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReader::try_new(
        bytes::Bytes::from(parquet),
        1024,
    )
    .unwrap();
    let mut values = Vec::new();
    let mut rows = 0;
    for batch in reader {
        let batch = batch.unwrap();
        rows += batch.num_rows();
        let column = batch
            .column_by_name("value")
            .unwrap()
            .as_any()
            .downcast_ref::<arrow_array::Float64Array>()
            .unwrap()
            .clone();
        values.extend(column.values().iter().map(|v| v.to_bits()));
    }
    assert_eq!(rows, 12);
    let expected: Vec<u64> = [&data, &record("b", 6, 4, 1)]
        .iter()
        .flat_map(|d| {
            d.metrics
                .iter()
                .flat_map(|m| m.values.iter().map(|v| v.to_bits()))
        })
        .collect();
    assert_eq!(values, expected);
}

#[test]
fn a_large_history_exports_in_row_groups_every_value_in_order() {
    // 130 records of 10,000 queries: 1.3 million rows, more than one
    // Parquet row group. Peak memory is measured by
    // scripts/bench/history.sh, not here; this checks what streaming must
    // keep: every row, in record order, the row groups bounded.
    const RECORDS: u64 = 130;
    const QUERIES: usize = 10_000;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let mut h = History::open(&path, Mode::Create).unwrap();
    let records: Vec<_> = (0..RECORDS)
        .map(|seed| record(&format!("r{}", seed % 3), seed, QUERIES, 1))
        .collect();
    for chunk in records.chunks(10) {
        h.record(chunk).unwrap();
    }
    let rows = RECORDS as usize * QUERIES;

    let file = dir.path().join("h.parquet");
    h.export(ExportFormat::Parquet, std::fs::File::create(&file).unwrap())
        .unwrap();
    let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        std::fs::File::open(&file).unwrap(),
    )
    .unwrap();
    let groups: Vec<usize> = builder
        .metadata()
        .row_groups()
        .iter()
        .map(|g| usize::try_from(g.num_rows()).unwrap())
        .collect();
    assert!(groups.len() >= 2, "{groups:?}");
    assert!(
        groups
            .iter()
            .all(|&n| n <= rankeval_history::export::ROW_GROUP_ROWS),
        "{groups:?}"
    );
    assert_eq!(groups.iter().sum::<usize>(), rows);
    let mut expected = records
        .iter()
        .flat_map(|d| d.metrics[0].values.iter().map(|v| v.to_bits()));
    let mut seen = 0;
    for batch in builder.with_batch_size(65_536).build().unwrap() {
        let batch = batch.unwrap();
        let values = batch
            .column_by_name("value")
            .unwrap()
            .as_any()
            .downcast_ref::<arrow_array::Float64Array>()
            .unwrap()
            .clone();
        for v in values.values() {
            assert_eq!(Some(v.to_bits()), expected.next(), "row {seen}");
            seen += 1;
        }
    }
    assert_eq!(seen, rows);
    assert_eq!(expected.next(), None);

    let file = dir.path().join("h.csv");
    h.export(ExportFormat::Csv, std::fs::File::create(&file).unwrap())
        .unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.lines().count(), 1 + rows);
    assert!(
        text.lines()
            .last()
            .unwrap()
            .starts_with(&format!("{RECORDS},")),
        "the last row is the last record's"
    );

    let file = dir.path().join("h.jsonl");
    h.export(ExportFormat::Jsonl, std::fs::File::create(&file).unwrap())
        .unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let ids: Vec<i64> = text
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(ids, (1..=RECORDS as i64).collect::<Vec<_>>());
}
