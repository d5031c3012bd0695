//! The same results, bit for bit, with 1 thread and with several: values go
//! to fixed slots and aggregates sum in query order (STYLE pitfall 13); and
//! evaluating while reading (from memory or a mapped file) gives the same
//! bits as reading whole.

use rankeval::{
    Evaluation, Format, Input, Options, ReadOptions, evaluate, evaluate_grouped, parse_aggregator,
    parse_metric, read_qrels, read_run,
};

/// A run big enough to be parsed in many pieces, with tied scores.
fn generated() -> (Vec<u8>, Vec<u8>) {
    let mut qrels = String::new();
    let mut run = String::new();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for q in 0..3_000 {
        for d in 0..20 {
            if next() % 3 == 0 {
                qrels.push_str(&format!("q{q} 0 d{d} {}\n", next() % 4));
            }
        }
        for d in 0..150 {
            // Scores on a coarse grid, so that many tie.
            let score = (next() % 50) as f64 / 10.0;
            run.push_str(&format!("q{q} Q0 d{d} {d} {score} gen\n"));
        }
    }
    (qrels.into_bytes(), run.into_bytes())
}

const METRICS: &[&str] = &[
    "map",
    "ap(norm=truncated)@10",
    "p@10",
    "recall@100",
    "rr",
    "success@5",
];

/// The results of reading the run whole and evaluating it.
fn results(qrels: &[u8], run: &[u8]) -> (Vec<String>, Vec<u64>, Vec<u64>) {
    let qrels = read_qrels(&Input::bytes("qrels", qrels, Format::Trec)).unwrap();
    let run = read_run(
        &Input::bytes("run", run, Format::Trec),
        ReadOptions::default(),
    )
    .unwrap();
    let metrics: Vec<_> = METRICS.iter().map(|m| parse_metric(m).unwrap()).collect();
    bits(&evaluate(&qrels, &run, &metrics, &Options::default()))
}

/// The results of evaluating the run while reading it.
fn streamed(qrels: &[u8], run: &Input) -> (Vec<String>, Vec<u64>, Vec<u64>) {
    let qrels = read_qrels(&Input::bytes("qrels", qrels, Format::Trec)).unwrap();
    let metrics: Vec<_> = METRICS.iter().map(|m| parse_metric(m).unwrap()).collect();
    let options = Options::default();
    let evaluation = evaluate_grouped(
        &qrels,
        run,
        ReadOptions::default(),
        &metrics,
        &options,
        &|_| {},
    )
    .unwrap()
    .expect("the generated run is grouped by query");
    bits(&evaluation)
}

/// Queries, every value, and every mean with its BCa bootstrap interval
/// (resampled in parallel), as bits.
fn bits(evaluation: &Evaluation) -> (Vec<String>, Vec<u64>, Vec<u64>) {
    let width = evaluation.metrics().len();
    let mean = parse_aggregator("mean").unwrap();
    let ci = parse_aggregator("ci(method=bca,resamples=2000,seed=5)").unwrap();
    let values = (0..evaluation.queries().len())
        .flat_map(|q| (0..width).map(move |m| (q, m)))
        .map(|(q, m)| evaluation.value(q, m).to_bits())
        .collect();
    let means = (0..width)
        .flat_map(|m| {
            let bounds = ci
                .interval(&evaluation.column(m))
                .expect("ci gives an interval")
                .expect("3,000 queries have one");
            [
                evaluation.aggregate(m, mean.as_ref()).to_bits(),
                bounds.lower.to_bits(),
                bounds.upper.to_bits(),
            ]
        })
        .collect();
    (evaluation.queries().to_vec(), values, means)
}

#[test]
fn one_thread_and_four_give_the_same_bits() {
    let (qrels, run) = generated();
    assert!(
        run.len() > 4 << 20,
        "the run must span several parse pieces"
    );
    let with = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| results(&qrels, &run))
    };
    let single = with(1);
    let parallel = with(4);
    assert_eq!(single.0.len(), 3_000);
    assert_eq!(single, parallel);
}

#[test]
fn streaming_gives_the_same_bits_on_any_thread_count_from_memory_or_a_mapped_file() {
    let (qrels, run) = generated();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.trec");
    std::fs::write(&path, &run).unwrap();
    let with = |threads: usize, input: &Input| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| streamed(&qrels, input))
    };
    let in_memory = Input::bytes("run", run.clone(), Format::Trec);
    let mapped = Input::file(&path);
    let reference = results(&qrels, &run);
    for input in [&in_memory, &mapped] {
        assert_eq!(with(1, input), reference);
        assert_eq!(with(4, input), reference);
    }
}
