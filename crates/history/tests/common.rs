//! What the tests share: a record made from a seed.

use std::collections::BTreeMap;

use rankeval_history::{MetricColumn, RecordData};

/// A deterministic pseudo-random `f64` stream (SplitMix64), bits included.
pub struct Mix(pub u64);

impl Mix {
    /// The next 64 bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A record of run `run` with `queries` queries and `metrics` metrics,
/// values drawn from `seed` (with a NaN, a -0.0 and an odd NaN payload
/// when there are enough values).
pub fn record(run: &str, seed: u64, queries: usize, metrics: usize) -> RecordData {
    let mut mix = Mix(seed);
    let queries: Vec<String> = (0..queries).map(|q| format!("q{q}")).collect();
    let metrics = (0..metrics)
        .map(|m| {
            let mut values: Vec<f64> = (0..queries.len()).map(|_| mix.unit()).collect();
            if m == 1 && values.len() > 3 {
                values[0] = -0.0;
                values[1] = f64::from_bits(0x7ff8_0000_dead_beef);
                values[2] = 1e-310;
            }
            MetricColumn {
                name: format!("metric{m}@{}", m + 1),
                definition_version: 1,
                values,
            }
        })
        .collect();
    RecordData {
        run: run.to_owned(),
        label: Some(format!("label {seed}")),
        commit: Some(format!("{seed:040x}")),
        rankeval_version: "0.1.0".to_owned(),
        time_ms: 1_795_941_962_000 + seed as i64,
        qrels_fingerprint: "f".repeat(64),
        run_hash: Some("a".repeat(64)),
        experiment_hash: None,
        options: BTreeMap::from([
            ("rel".to_owned(), "1".to_owned()),
            ("ties".to_owned(), "trec".to_owned()),
        ]),
        metadata: BTreeMap::from([("tag".to_owned(), run.to_owned())]),
        queries,
        metrics,
        estimates: Vec::new(),
    }
}

/// The bits of every value of `data`, for comparisons that see NaN payloads.
pub fn bits(data: &RecordData) -> Vec<Vec<u64>> {
    data.metrics
        .iter()
        .map(|m| m.values.iter().map(|v| v.to_bits()).collect())
        .collect()
}

/// `data` with its values replaced by their bits, for `assert_eq!` on
/// records holding NaN.
pub fn comparable(data: &RecordData) -> (RecordData, Vec<Vec<u64>>) {
    let mut plain = data.clone();
    for m in &mut plain.metrics {
        m.values.clear();
    }
    (plain, bits(data))
}
