//! Corpus metrics: the peers' published values (RecTools), definitions
//! written as arithmetic, and the same bits whatever the split of the
//! lists into merged states and the number of threads.

use rankeval::core::corpus::{Catalog, CorpusInputs, ItemFeatures, Training};
use rankeval::core::registry::{self, parse_corpus_metric};
use rankeval::core::{CorpusMetric, Duplicates, Run, RunBuilder};
use rankeval::{ScoreThreshold, evaluate_corpus, evaluate_corpus_with};

/// A run from `(user, item, rank)` rows, as RecTools' reco tables.
fn run(rows: &[(&str, &str, u32)]) -> Run {
    let mut builder = RunBuilder::new();
    for &(user, item, rank) in rows {
        builder.push_scored(user, item, -f64::from(rank)).unwrap();
    }
    builder.finish(Duplicates::Error).unwrap()
}

fn value(spec: &str, run: &Run, inputs: &CorpusInputs) -> f64 {
    let metric = parse_corpus_metric(spec).unwrap();
    evaluate_corpus(run, &[metric], inputs)[0]
}

fn catalog(items: &[&str]) -> Option<Catalog> {
    Some(Catalog::new(items))
}

fn training(pairs: &[(&str, &str)]) -> Option<Training> {
    Some(Training::from_pairs(
        pairs.iter().map(|(u, i)| (u.as_bytes(), i.as_bytes())),
    ))
}

#[test]
fn a_score_threshold_cuts_every_list_before_the_corpus_metrics() {
    // Scores -rank: a threshold of -2 keeps ranks 1 (score -1) only; -2
    // itself is at the threshold and not retrieved.
    let reco = run(&[("1", "a", 1), ("1", "b", 2), ("2", "c", 1), ("2", "d", 3)]);
    let inputs = CorpusInputs {
        features: None,
        catalog: catalog(&["a", "b", "c", "d"]),
        training: None,
    };
    let coverage = || vec![parse_corpus_metric("catalog_coverage").unwrap()];
    assert_eq!(evaluate_corpus(&reco, &coverage(), &inputs), [1.0]);
    let cut = |t: f64| evaluate_corpus_with(&reco, &coverage(), &inputs, ScoreThreshold::new(t));
    assert_eq!(cut(-2.0), [2.0 / 4.0]);
    assert_eq!(cut(-2.5), [3.0 / 4.0]);
    assert_eq!(cut(-4.0), [1.0]);
    assert_eq!(cut(0.0), [0.0]);
}

#[test]
fn rectools_catalog_coverage() {
    // RecTools tests/metrics/test_catalog.py: CatalogCoverage(k=2) on a
    // catalog of 5 items gives 0.4 (normalize=True) and 2.0 (False).
    let reco = run(&[
        ("1", "1", 1),
        ("1", "2", 2),
        ("1", "3", 3),
        ("2", "1", 1),
        ("2", "2", 2),
        ("3", "1", 3),
        ("4", "1", 2),
    ]);
    let inputs = CorpusInputs {
        features: None,
        catalog: catalog(&["0", "1", "2", "3", "4"]),
        training: None,
    };
    // RecTools ranks have gaps (user 3's only item is at rank 3, out of the
    // top 2); here ranks become positions, so user 3's item is in its top 2:
    // the same two items either way ({1, 2}).
    assert_eq!(value("catalog_coverage@2", &reco, &inputs), 0.4);
    assert_eq!(value("coverage(normalize=false)@2", &reco, &inputs), 2.0);
    assert_eq!(value("catalog_coverage@3", &reco, &inputs), 3.0 / 5.0);
}

#[test]
fn rectools_avg_popularity() {
    // RecTools tests/metrics/test_popularity.py, TestAvgRecPopularity:
    // k = 1 gives per user [3, 1, 1], k = 3 gives [2.5, 2, 1.5]; with a new
    // item i4 at u2's rank 3, [2.5, 4/3, 1.5].
    let interactions = training(&[
        ("u1", "i1"),
        ("u1", "i2"),
        ("u2", "i1"),
        ("u2", "i3"),
        ("u3", "i1"),
        ("u3", "i2"),
    ]);
    let inputs = CorpusInputs {
        features: None,
        catalog: None,
        training: interactions,
    };
    let reco = |third: &'static str| {
        run(&[
            ("u1", "i1", 1),
            ("u1", "i2", 2),
            ("u2", "i3", 1),
            ("u2", "i1", 2),
            ("u2", third, 3),
            ("u3", "i3", 1),
            ("u3", "i2", 2),
        ])
    };
    let mean = |values: [f64; 3]| (values[0] + values[1] + values[2]) / 3.0;
    assert_eq!(
        value("avg_popularity@1", &reco("i2"), &inputs),
        mean([3.0, 1.0, 1.0])
    );
    assert_eq!(
        value("avg_popularity@3", &reco("i2"), &inputs),
        mean([2.5, 2.0, 1.5])
    );
    assert_eq!(
        value("avg_popularity@3", &reco("i4"), &inputs),
        mean([2.5, 4.0 / 3.0, 1.5])
    );
}

#[test]
fn rectools_novelty() {
    // RecTools tests/metrics/test_novelty.py, TestMeanInvUserFreq: k = 1
    // gives [-log2(1/3), -log2(1/3), 0]; k = 2 gives [-log2(1/3),
    // -log2(1/3), -log2(1/3) / 2] (i3, never interacted with, counts as
    // one user).
    let inputs = CorpusInputs {
        features: None,
        catalog: None,
        training: training(&[("u1", "i1"), ("u1", "i2"), ("u2", "i1"), ("u3", "i1")]),
    };
    let reco = run(&[
        ("u1", "i3", 1),
        ("u2", "i2", 1),
        ("u2", "i3", 2),
        ("u3", "i1", 1),
        ("u3", "i2", 2),
    ]);
    let s = -(1f64 / 3.0).log2();
    let k1 = value("novelty@1", &reco, &inputs);
    let k2 = value("novelty@2", &reco, &inputs);
    assert!((k1 - (s + s + 0.0) / 3.0).abs() < 1e-15, "{k1}");
    assert!((k2 - (s + s + s / 2.0) / 3.0).abs() < 1e-15, "{k2}");
}

#[test]
fn gini_and_entropy_from_their_definitions() {
    // Top 2 of three lists: a b | a c | a b: counts a 3, b 2, c 1; the
    // catalog also holds d (0).
    let reco = run(&[
        ("q1", "a", 1),
        ("q1", "b", 2),
        ("q1", "x", 3),
        ("q2", "a", 1),
        ("q2", "c", 2),
        ("q3", "a", 1),
        ("q3", "b", 2),
    ]);
    let inputs = CorpusInputs {
        features: None,
        catalog: catalog(&["a", "b", "c", "d"]),
        training: None,
    };
    // Sorted 0 1 2 3 over n = 4, total 6: sum (2i - 5) c_(i) = -1*1 + 1*2 + 3*3 = 10.
    assert_eq!(value("gini@2", &reco, &inputs), 10.0 / (4.0 * 6.0));
    let p = [3.0 / 6.0, 2.0 / 6.0, 1.0 / 6.0];
    let entropy = -(p[0] * f64::ln(p[0]) + p[1] * f64::ln(p[1]) + p[2] * f64::ln(p[2]));
    assert!((value("entropy@2", &reco, &inputs) - entropy).abs() < 1e-15);
    // One item everywhere: no entropy (0, not -0), and the largest Gini.
    let one = run(&[("q1", "a", 1), ("q2", "a", 1)]);
    assert_eq!(value("entropy", &one, &inputs).to_bits(), 0f64.to_bits());
    assert_eq!(value("gini", &one, &inputs), 3.0 / 4.0);
    // Nothing recommended: every metric is 0.
    let empty = run(&[]);
    for spec in ["gini", "entropy", "catalog_coverage"] {
        assert_eq!(value(spec, &empty, &inputs), 0.0, "{spec}");
    }
}

/// Every registered corpus metric, merged from states over any split of
/// the lists, gives the bits of one state that saw them all.
#[test]
fn merging_any_split_gives_the_same_bits() {
    let items = ["a", "b", "c", "d", "e", "f", "g"];
    let lists: Vec<Vec<&[u8]>> = (0..40u64)
        .map(|q| {
            (0..(q % 6))
                .map(|j| items[((q * 7 + j * 3) % 7) as usize].as_bytes())
                .collect()
        })
        .collect();
    let mut features = ItemFeatures::new(3);
    for (n, item) in items.iter().enumerate().skip(1) {
        let x = n as f64;
        features
            .insert(
                item.as_bytes(),
                &[x.sin(), x.cos() * 3.0, (x * 0.7).fract()],
            )
            .unwrap();
    }
    let inputs = CorpusInputs {
        features: Some(features),
        catalog: catalog(&items),
        training: training(&[
            ("u1", "a"),
            ("u1", "b"),
            ("u2", "a"),
            ("u3", "c"),
            ("u3", "a"),
        ]),
    };
    for d in registry::corpus_metrics() {
        let metric: Box<dyn CorpusMetric> = (d.example)();
        let whole = {
            let mut state = metric.init();
            for (q, list) in lists.iter().enumerate() {
                metric.update(&mut state, q as u64, list, &inputs);
            }
            metric.finish(state, &inputs)
        };
        for parts in [2, 3, 7, 40] {
            // Interleaved parts, merged in reverse: order and grouping differ.
            let mut states: Vec<_> = (0..parts).map(|_| metric.init()).collect();
            for (q, list) in lists.iter().enumerate() {
                metric.update(&mut states[q % parts], q as u64, list, &inputs);
            }
            let mut merged = metric.init();
            for state in states.into_iter().rev() {
                metric.merge(&mut merged, state);
            }
            let split = metric.finish(merged, &inputs);
            assert_eq!(
                split.to_bits(),
                whole.to_bits(),
                "{} in {parts} parts",
                metric.name()
            );
        }
    }
}

/// Across machines (Spark's workers): each part's state as bytes, decoded
/// on the other side and merged in any order, gives the bits of one pass,
/// and so do lists numbered in another order (a worker does not know a
/// list's place in the run). The bytes round-trip exactly.
#[test]
fn states_as_bytes_merge_to_the_same_bits() {
    let items = ["a", "b", "c", "d", "e", "f", "g"];
    let lists: Vec<Vec<&[u8]>> = (0..60u64)
        .map(|q| {
            (0..(q % 7))
                .map(|j| items[((q * 5 + j * 3) % 7) as usize].as_bytes())
                .collect()
        })
        .collect();
    let mut features = ItemFeatures::new(2);
    for (n, item) in items.iter().enumerate() {
        let x = n as f64 + 0.1;
        features
            .insert(item.as_bytes(), &[x.ln(), 1.0 / x])
            .unwrap();
    }
    let inputs = CorpusInputs {
        features: Some(features),
        catalog: catalog(&items),
        training: training(&[("u1", "a"), ("u1", "b"), ("u2", "a"), ("u3", "g")]),
    };
    for d in registry::corpus_metrics() {
        let metric: Box<dyn CorpusMetric> = (d.example)();
        let mut whole = metric.init();
        for (q, list) in lists.iter().enumerate() {
            metric.update(&mut whole, q as u64, list, &inputs);
        }
        let bytes = metric.state_to_bytes(&whole).expect("a built-in state");
        let again = metric.state_from_bytes(&bytes).unwrap();
        assert_eq!(
            metric.state_to_bytes(&again).unwrap(),
            bytes,
            "{}",
            metric.name()
        );
        let whole = metric.finish(whole, &inputs);
        for parts in [2, 5, 60] {
            let mut states: Vec<_> = (0..parts).map(|_| metric.init()).collect();
            for (q, list) in lists.iter().enumerate() {
                // Numbered backwards: positions do not enter the value.
                let position = (lists.len() - q) as u64 * 1_000_003;
                metric.update(&mut states[q % parts], position, list, &inputs);
            }
            let wire: Vec<Vec<u8>> = states
                .iter()
                .map(|s| metric.state_to_bytes(s).unwrap())
                .collect();
            let mut merged = metric.init();
            for bytes in wire.iter().rev() {
                metric.merge(&mut merged, metric.state_from_bytes(bytes).unwrap());
            }
            assert_eq!(
                metric.finish(merged, &inputs).to_bits(),
                whole.to_bits(),
                "{} in {parts} parts through bytes",
                metric.name()
            );
        }
    }
    use rankeval::core::corpus::{StateWireError, decode_state};
    assert_eq!(
        decode_state(&[9]).err(),
        Some(StateWireError::UnknownKind(9))
    );
    assert_eq!(
        decode_state(&[2, 1, 0]).err(),
        Some(StateWireError::Truncated { at: 1 })
    );
    let metric = parse_corpus_metric("gini").unwrap();
    let mut bytes = metric.state_to_bytes(&metric.init()).unwrap();
    bytes.push(0);
    assert_eq!(
        decode_state(&bytes).err(),
        Some(StateWireError::Trailing(1))
    );
    assert!(decode_state(&[]).is_err());
    // Bytes of another metric's kind of state are refused, not merged
    // (merging them would downcast the wrong type).
    let counts = parse_corpus_metric("gini").unwrap();
    let per_list = registry::corpus_metrics()
        .into_iter()
        .map(|d| (d.example)())
        .find(|m| {
            let bytes = m.state_to_bytes(&m.init()).unwrap();
            counts.state_from_bytes(&bytes).is_err()
        })
        .expect("a built-in corpus metric keeps per-list values");
    let foreign = per_list.state_to_bytes(&per_list.init()).unwrap();
    assert_eq!(
        counts.state_from_bytes(&foreign).err(),
        Some(StateWireError::WrongKind {
            expected: "item counts",
            found: "per-list values"
        })
    );
}

#[test]
fn corpus_metrics_are_registered_and_round_trip() {
    registry::check().unwrap();
    let names: Vec<&str> = registry::corpus_metrics().iter().map(|d| d.name).collect();
    assert_eq!(
        names,
        [
            "avg_popularity",
            "catalog_coverage",
            "entropy",
            "gini",
            "ild",
            "long_tail_share",
            "novelty"
        ]
    );
    for d in registry::corpus_metrics() {
        let example = (d.example)();
        let again = parse_corpus_metric(&example.name()).unwrap();
        assert_eq!(again.name(), example.name());
        let json = serde_json::to_value(&example).unwrap();
        assert_eq!(json["type"], d.name);
    }
    let error = parse_corpus_metric("coverag@10").unwrap_err().to_string();
    assert!(error.contains("did you mean `coverage`"), "{error}");
}

/// Every corpus metric on the data of `scripts/data/corpus-peers.py`, run as
/// `rankeval run` runs an experiment file, against the values RecTools
/// (installed), RecBole and Elliot (their code re-implemented line for
/// line, see the script) give on it.
#[test]
fn peers_give_the_same_values() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/corpus_peers");
    let experiment = rankeval::config::load(&dir.join("experiment.toml")).unwrap();
    let report = experiment.execute(&|_| {}).unwrap();
    let ours: std::collections::HashMap<&str, f64> = report
        .corpus
        .iter()
        .map(String::as_str)
        .zip(report.runs[0].corpus.iter().copied())
        .collect();
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let values = expected["values"].as_object().unwrap();
    let mut checked = std::collections::HashSet::new();
    for (key, entry) in values {
        let name = key.split('#').next().unwrap();
        let peer = entry["value"].as_f64().unwrap();
        let value = *ours
            .get(name)
            .unwrap_or_else(|| panic!("{name} is not in the experiment"));
        assert!(
            (value - peer).abs() <= 1e-12 * peer.abs().max(1.0),
            "{name}: rankeval {value}, {} {peer}",
            entry["peer"]
        );
        checked.insert(name);
    }
    // Every metric of the experiment has a peer's value.
    for name in ours.keys() {
        assert!(checked.contains(name), "{name} has no expected value");
    }
    assert_eq!(checked.len(), 20);
}
