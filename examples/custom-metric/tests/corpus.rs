//! The example's corpus metric: its value from its definition, the same
//! bits from any split of the lists into merged states, and the binary
//! evaluates it by name next to the built-in corpus metrics.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

use rankeval_core::registry::{self, parse_corpus_metric};
use rankeval_core::{CorpusInputs, Training};
use rankeval_example_custom_metric as _;

fn inputs() -> CorpusInputs {
    let pairs = [("u1", "a"), ("u2", "a"), ("u2", "b")];
    CorpusInputs {
        training: Some(Training::from_pairs(
            pairs.iter().map(|(u, i)| (u.as_bytes(), i.as_bytes())),
        )),
        ..CorpusInputs::default()
    }
}

#[test]
fn the_share_of_lists_showing_a_new_item() {
    let metric = parse_corpus_metric("cold_start_exposure@2").unwrap();
    let inputs = inputs();
    let lists: [&[&[u8]]; 4] = [&[b"a", b"new"], &[b"a", b"b", b"new"], &[], &[b"x"]];
    let mut state = metric.init();
    for (position, list) in lists.iter().enumerate() {
        let depth = list.len().min(2);
        metric.update(&mut state, position as u64, &list[..depth], &inputs);
    }
    // Lists 1 and 4 show a new item in their top 2; list 2's is at rank 3.
    assert_eq!(metric.finish(state, &inputs), 2.0 / 4.0);
}

#[test]
fn states_merge_to_the_same_value_whatever_the_split() {
    registry::check().unwrap();
    let metric = parse_corpus_metric("cold_start_exposure").unwrap();
    let inputs = inputs();
    let items: [&[u8]; 4] = [b"a", b"b", b"c", b"d"];
    let lists: Vec<Vec<&[u8]>> = (0..50usize)
        .map(|q| (0..q % 4).map(|j| items[(q + j) % 4]).collect())
        .collect();
    let mut whole = metric.init();
    for (q, list) in lists.iter().enumerate() {
        metric.update(&mut whole, q as u64, list, &inputs);
    }
    let whole = metric.finish(whole, &inputs);
    for parts in [2, 3, 7] {
        let mut states: Vec<_> = (0..parts).map(|_| metric.init()).collect();
        for (q, list) in lists.iter().enumerate() {
            metric.update(&mut states[q % parts], q as u64, list, &inputs);
        }
        let mut merged = metric.init();
        for state in states.into_iter().rev() {
            metric.merge(&mut merged, state);
        }
        assert_eq!(metric.finish(merged, &inputs).to_bits(), whole.to_bits());
    }
}

#[test]
fn the_binary_evaluates_it_by_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../recommender");
    let output = Command::new(env!("CARGO_BIN_EXE_rankeval-example-custom-metric"))
        .args([
            "eval",
            "--qrels",
            "truth.csv",
            "--run",
            "runs/diverse.csv",
            "--train",
            "train.csv",
            "-m",
            "cold_start_exposure@3",
            "-m",
            "novelty@3",
            "--format",
            "json",
        ])
        .current_dir(root)
        .env_clear()
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let corpus = &document["runs"][0]["corpus"];
    // diverse.csv's top 3: u1 i9, u2 i10, u3 i9, u4 i10, u6 i9 are new
    // (i9, i10 have no training interactions); u5 (i5 i7 i8) is not.
    assert_eq!(corpus["cold_start_exposure@3"], 5.0 / 6.0);
    assert!(corpus["novelty@3"].as_f64().unwrap() > 0.0);
}
