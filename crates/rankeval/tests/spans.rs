//! Span qrels (`rankeval::spans`): the character-level values and chunk
//! grades against an independent reference (`scripts/data/spans-reference.py`,
//! plain sets of character indices), and a generated corpus re-chunked two
//! ways.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use rankeval::spans::{Chunk, Overlap, Span, char_level, chunk_grade, chunk_level};
use serde_json::Value;

fn spans_of(query: &str, case: &Value) -> Vec<Span> {
    case["spans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| Span {
            query: query.to_owned(),
            doc: s["doc"].as_str().unwrap().to_owned(),
            start: s["start"].as_u64().unwrap(),
            end: s["end"].as_u64().unwrap(),
            grade: s["grade"].as_f64().unwrap(),
        })
        .collect()
}

fn chunks_of(query: &str, case: &Value) -> Vec<Chunk> {
    case["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Chunk {
            query: query.to_owned(),
            doc: c["doc"].as_str().unwrap().to_owned(),
            start: c["start"].as_u64().unwrap(),
            end: c["end"].as_u64().unwrap(),
            score: c["score"].as_f64().unwrap(),
        })
        .collect()
}

#[test]
fn equals_the_reference_within_1e_12() {
    let text = include_str!("data/spans_reference.json");
    let document: Value = serde_json::from_str(text).unwrap();
    let cases = document["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 100);
    for case in cases {
        let query = case["query"].as_str().unwrap();
        let spans = spans_of(query, case);
        let chunks = chunks_of(query, case);
        let k = case["k"].as_u64().map(|k| k as usize);
        let got = char_level(&spans, &chunks, k, 1.0);
        assert_eq!(got.queries.len(), 1, "{query}");
        let values = got.queries[0].1;
        let want = &case["expected"];
        for (name, value) in [
            ("precision", values.precision),
            ("recall", values.recall),
            ("iou", values.iou),
        ] {
            let expected = want[name].as_f64().unwrap();
            assert!(
                (value - expected).abs() <= 1e-12,
                "{query} {name}: {value} != {expected}"
            );
        }
        for (rule, grades) in case["grades"].as_object().unwrap() {
            let overlap: Overlap = rule.parse().unwrap();
            let level = chunk_level(&spans, &chunks, overlap).unwrap();
            for (chunk, grade) in chunks.iter().zip(grades.as_array().unwrap()) {
                let want = grade.as_f64();
                assert_eq!(chunk_grade(&spans, chunk, overlap), want, "{query} {rule}");
                assert_eq!(
                    level.qrels.grade_of(query, chunk.id().as_str()),
                    want,
                    "{query} {rule} {}",
                    chunk.id()
                );
            }
        }
    }
}

/// A 64-bit linear congruential generator.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// Chunks of `size` characters over `[0, covered)` of each document.
fn chunked(query: &str, docs: &[(&str, u64)], size: u64) -> Vec<Chunk> {
    let mut out = Vec::new();
    for (d, &(doc, covered)) in docs.iter().enumerate() {
        let mut start = 0;
        while start < covered {
            let end = (start + size).min(covered);
            out.push(Chunk {
                query: query.to_owned(),
                doc: doc.to_owned(),
                start,
                end,
                score: 1000.0 - (d as f64) * 100.0 - start as f64 / 10.0,
            });
            start = end;
        }
    }
    out
}

#[test]
fn rechunking_keeps_char_recall_and_chunk_relevance_follows_the_rule() {
    let mut rng = Lcg(27);
    let docs: Vec<(String, u64)> = (0..4).map(|d| (format!("doc{d}"), 1200)).collect();
    let mut spans = Vec::new();
    let mut queries = Vec::new();
    for q in 0..20 {
        let query = format!("q{q}");
        for _ in 0..1 + rng.next(4) {
            let doc = &docs[rng.next(docs.len() as u64) as usize].0;
            let start = rng.next(1100);
            spans.push(Span {
                query: query.clone(),
                doc: doc.clone(),
                start,
                end: start + 1 + rng.next(200),
                grade: (1 + rng.next(3)) as f64,
            });
        }
        queries.push(query);
    }
    // Each query retrieves the first 600 characters of two documents (900
    // of a third): as 100- or as 150-character chunks, the same text.
    for query in &queries {
        let n = rng.next(4) as usize;
        let retrieved: Vec<(&str, u64)> = [(n, 600), ((n + 1) % 4, 600), ((n + 2) % 4, 900)]
            .iter()
            .map(|&(d, covered)| (docs[d].0.as_str(), covered))
            .collect();
        let small = chunked(query, &retrieved, 100);
        let large = chunked(query, &retrieved, 150);
        assert_ne!(small.len(), large.len());
        let own: Vec<Span> = spans
            .iter()
            .filter(|s| s.query == *query)
            .cloned()
            .collect();
        let a = char_level(&own, &small, None, 1.0);
        let b = char_level(&own, &large, None, 1.0);
        assert_eq!(a.queries[0].1.recall, b.queries[0].1.recall, "{query}");
        assert_eq!(
            a.queries[0].1.precision, b.queries[0].1.precision,
            "{query}"
        );
        assert_eq!(a.queries[0].1.iou, b.queries[0].1.iou, "{query}");
        for rule in ["any", "iou>=0.3", "coverage>=0.5", "coverage>=1"] {
            let overlap: Overlap = rule.parse().unwrap();
            for chunks in [&small, &large] {
                let level = chunk_level(&own, chunks, overlap).unwrap();
                for chunk in chunks {
                    // The rule, computed directly on the offsets.
                    let mut judged = false;
                    let mut want: f64 = 0.0;
                    for s in own.iter().filter(|s| s.doc == chunk.doc) {
                        judged = true;
                        let common = chunk
                            .end
                            .min(s.end)
                            .saturating_sub(chunk.start.max(s.start));
                        let union = (chunk.end - chunk.start) + (s.end - s.start) - common;
                        let holds = common > 0
                            && match overlap {
                                Overlap::Any => true,
                                Overlap::Iou(t) => common as f64 / union as f64 >= t,
                                Overlap::Coverage(t) => {
                                    common as f64 / (s.end - s.start) as f64 >= t
                                }
                            };
                        if holds {
                            want = want.max(s.grade);
                        }
                    }
                    let got = level.qrels.grade_of(query.as_str(), chunk.id().as_str());
                    assert_eq!(got, judged.then_some(want), "{query} {rule} {}", chunk.id());
                }
            }
        }
    }
}
