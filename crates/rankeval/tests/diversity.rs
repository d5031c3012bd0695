//! The diversity metrics over subtopic judgements equal ndeval's values
//! (through pyndeval, written to `tests/data/ndeval` by
//! `scripts/cross-check/ndeval.py --fixture`): pyndeval's own test example
//! and a small random set, three settings of alpha, beta and the level;
//! the same bits whether the run is read whole or evaluated while read.

use std::sync::Arc;

use rankeval::read::subtopics::read_subtopic_qrels;
use rankeval::{
    Evaluation, Format, Input, Options, Qrels, ReadOptions, evaluate, evaluate_input, parse_metric,
    read_run,
};

fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/ndeval")
        .join(name)
}

/// The fixture's qrels: each document with its highest grade, and the
/// subtopic judgements beside them.
fn qrels() -> Qrels {
    let subtopics = read_subtopic_qrels(&data("subtopics.txt")).unwrap();
    let qrels = subtopics.document_qrels().unwrap();
    qrels.with_subtopics(Arc::new(subtopics))
}

/// The fixture's rows: query, metric, |S| and ndeval's value (NaN for
/// null).
fn rows() -> Vec<(String, String, usize, f64)> {
    let text = std::fs::read_to_string(data("expected.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row[0].as_str().unwrap().to_owned(),
                row[1].as_str().unwrap().to_owned(),
                row[2].as_u64().unwrap() as usize,
                row[3].as_f64().unwrap_or(f64::NAN),
            )
        })
        .collect()
}

fn metrics(rows: &[(String, String, usize, f64)]) -> Vec<Box<dyn rankeval::Metric>> {
    let mut names: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    names.iter().map(|m| parse_metric(m).unwrap()).collect()
}

/// ndeval's value as rankeval defines the metric (docs/diversity.md):
/// ndeval leaves rank 1 of alpha-DCG and ERR-IA undivided by `|S|`, and
/// gives NaN (0/0) for nNRBP without a relevant subtopic.
fn as_defined(metric: &str, subtopics: usize, ndeval: f64) -> f64 {
    let at_one =
        metric.ends_with("@1") && (metric.starts_with("alpha_dcg") || metric.starts_with("err_ia"));
    if at_one && subtopics > 0 {
        ndeval / subtopics as f64
    } else if ndeval.is_nan() {
        0.0
    } else {
        ndeval
    }
}

fn run_input() -> Input {
    Input::file(data("run.trec")).with_format(Format::Trec)
}

#[test]
fn equal_to_ndeval_on_its_example_and_random_queries() {
    let rows = rows();
    assert!(rows.len() > 500, "{}", rows.len());
    let metrics = metrics(&rows);
    let qrels = qrels();
    let run = read_run(&run_input(), ReadOptions::default()).unwrap();
    let evaluation = evaluate(&qrels, &run, &metrics, &Options::default());
    let mut compared = 0;
    for (query, metric, subtopics, ndeval) in &rows {
        let q = evaluation
            .queries()
            .iter()
            .position(|x| x == query)
            .unwrap_or_else(|| panic!("query {query} not evaluated"));
        let m = evaluation.metric_index(metric).unwrap();
        let got = evaluation.value(q, m);
        let want = as_defined(metric, *subtopics, *ndeval);
        assert!(
            (got - want).abs() <= 1e-12,
            "{metric} on {query}: {got} vs ndeval's {want} ({ndeval})"
        );
        compared += 1;
    }
    assert_eq!(compared, rows.len());
    // pyndeval's own test (query 0): its published values to 4 decimals.
    let value = |name: &str| {
        let q = evaluation.queries().iter().position(|x| x == "0").unwrap();
        evaluation.value(q, evaluation.metric_index(name).unwrap())
    };
    for (name, published) in [
        ("err_ia@5", 0.3933),
        ("nerr_ia@5", 0.8297),
        ("alpha_dcg@5", 0.4052),
        ("alpha_ndcg@5", 0.7868),
        ("alpha_ndcg@20", 0.7868),
        ("nrbp", 0.3906),
        ("nnrbp", 0.8620),
        ("map_ia", 0.5),
        ("p_ia@5", 0.2),
        ("p_ia@20", 0.05),
        ("strec@5", 0.6666),
    ] {
        assert!(
            (value(name) - published).abs() < 1e-4,
            "{name} = {}",
            value(name)
        );
    }
}

fn bits(e: &Evaluation) -> Vec<Vec<u64>> {
    (0..e.metrics().len())
        .map(|m| e.column(m).into_iter().map(f64::to_bits).collect())
        .collect()
}

#[test]
fn evaluated_while_read_the_bits_are_the_same() {
    let metrics = metrics(&rows());
    let qrels = qrels();
    let options = Options::default();
    let run = read_run(&run_input(), ReadOptions::default()).unwrap();
    let whole = evaluate(&qrels, &run, &metrics, &options);
    let streamed = evaluate_input(
        &qrels,
        &run_input(),
        ReadOptions::default(),
        &metrics,
        &options,
        &|_| {},
    )
    .unwrap();
    assert_eq!(whole.queries(), streamed.queries());
    assert_eq!(bits(&whole), bits(&streamed));
}

#[test]
fn without_subtopic_judgements_a_query_scores_zero() {
    let metrics = metrics(&rows());
    let subtopics = read_subtopic_qrels(&data("subtopics.txt")).unwrap();
    let plain = subtopics.document_qrels().unwrap();
    let run = read_run(&run_input(), ReadOptions::default()).unwrap();
    let evaluation = evaluate(&plain, &run, &metrics, &Options::default());
    for m in 0..metrics.len() {
        assert!(evaluation.column(m).iter().all(|&v| v == 0.0));
    }
    // With them, some value is not 0: the test above can fail.
    let with = evaluate(&qrels(), &run, &metrics, &Options::default());
    assert!((0..metrics.len()).any(|m| with.column(m).iter().any(|&v| v > 0.0)));
}
