//! Any bytes as span qrels and as a run of chunks (a table, JSON Lines):
//! values or an error naming the file, never a panic. When the bytes read
//! as both (a header with a grade and a score column), the run is
//! evaluated against the spans at chunk and character level, and every
//! character-level value must lie in [0, 1].

#![no_main]

use rankeval::engine::{Missing, Options};
use rankeval::spans::{
    CharText, Overlap, SpansError, SpansPlan, parse_chunk_run, parse_span_qrels, spans_report,
};

fn check<T>(result: &Result<T, SpansError>, name: &str) {
    if let Err(error) = result {
        let text = error.to_string();
        assert!(text.starts_with(name), "{text}");
        assert!(text.len() < 2000, "{} bytes", text.len());
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let spans = parse_span_qrels(data, "fuzz.spans");
    check(&spans, "fuzz.spans");
    let run = parse_chunk_run(data, "fuzz.run");
    check(&run, "fuzz.run");
    let (Ok(spans), Ok(run)) = (spans, run) else {
        return;
    };
    let metrics = [
        rankeval::parse_metric("ndcg@3").expect("a metric"),
        rankeval::parse_metric("recall").expect("a metric"),
    ];
    let options = Options {
        missing: Missing::Zero,
        allow_empty_run: true,
        ..Options::default()
    };
    let overlap = match data.len() % 3 {
        0 => Overlap::Any,
        1 => Overlap::Iou(0.5),
        _ => Overlap::Coverage(0.5),
    };
    let plan = SpansPlan {
        metrics: &metrics,
        options: &options,
        overlap,
        char_k: (data.len() % 2 == 0).then_some(2),
        char_text: if data.len() % 5 == 0 {
            CharText::Chunks
        } else {
            CharText::Union
        },
    };
    let report = spans_report(&spans, &[("run".to_owned(), run)], plan)
        .expect("a run allowed to be empty is evaluated");
    for query in &report.runs[0].per_query {
        if let Some(c) = query.chars {
            for v in [c.precision, c.recall, c.iou] {
                assert!((0.0..=1.0).contains(&v), "{c:?}");
            }
        }
    }
});
