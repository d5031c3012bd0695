//! Expected exposure over sampled runs, and AWRF and TREC Fair 2021's score
//! over document groups, equal the plain reference of their published
//! formulas (written to `tests/data/expeval` by
//! `scripts/cross-check/expeval.py --fixture`, itself checked against
//! expeval's own functions): expeval's README example (query `ex`) and a
//! small random set; the same bits for 1 and 4 threads.

use std::sync::Arc;

use rankeval::engine::evaluate_sampled;
use rankeval::read::doc_groups::read_doc_groups;
use rankeval::read::sampled::read_sampled_run;
use rankeval::{
    Evaluation, Format, Input, Options, Qrels, ReadOptions, evaluate, parse_metric, read_qrels,
    read_run,
};

fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/expeval")
        .join(name)
}

fn qrels() -> Qrels {
    let qrels = read_qrels(&Input::file(data("qrels.txt")).with_format(Format::Trec)).unwrap();
    qrels.with_doc_groups(Arc::new(read_doc_groups(&data("groups.csv")).unwrap()))
}

/// The fixture's rows: query, metric, the reference's value.
fn rows() -> Vec<(String, String, f64)> {
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
                row[2].as_f64().unwrap(),
            )
        })
        .collect()
}

fn metrics(rows: &[(String, String, f64)], sampled: bool) -> Vec<Box<dyn rankeval::Metric>> {
    let mut names: Vec<&str> = rows
        .iter()
        .map(|r| r.1.as_str())
        .filter(|m| m.starts_with("ee_") == sampled)
        .collect();
    names.sort_unstable();
    names.dedup();
    names.iter().map(|m| parse_metric(m).unwrap()).collect()
}

/// Checks every row of `evaluation`'s metrics; the number checked.
fn check(evaluation: &Evaluation, rows: &[(String, String, f64)]) -> usize {
    let mut compared = 0;
    for (query, metric, want) in rows {
        let Some(m) = evaluation.metric_index(metric) else {
            continue;
        };
        let q = evaluation
            .queries()
            .iter()
            .position(|x| x == query)
            .unwrap_or_else(|| panic!("query {query} not evaluated"));
        let got = evaluation.value(q, m);
        assert!(
            (got - want).abs() <= 1e-12,
            "{metric} on {query}: {got} vs the reference's {want}"
        );
        compared += 1;
    }
    compared
}

#[test]
fn equal_to_the_reference_on_expevals_example_and_random_queries() {
    let rows = rows();
    let qrels = qrels();
    let sampled = read_sampled_run(&data("run.trec"), ReadOptions::default()).unwrap();
    let exposure = evaluate_sampled(&qrels, &sampled, &metrics(&rows, true), &Options::default());
    let mut compared = check(&exposure, &rows);
    // expeval's README: EE-D, EE-R, EE-L 1.1875, 1.125, 0.0625; normalised
    // 0.890625, 1, 0.02.
    let ex = exposure.queries().iter().position(|q| q == "ex").unwrap();
    for (name, published) in [
        ("ee_d(model=rbp)", 0.890625),
        ("ee_r(model=rbp)", 1.0),
        ("ee_l(model=rbp)", 0.02),
        ("ee_d(model=rbp,norm=false)", 1.1875),
        ("ee_r(model=rbp,norm=false)", 1.125),
        ("ee_l(model=rbp,norm=false)", 0.0625),
    ] {
        let got = exposure.value(ex, exposure.metric_index(name).unwrap());
        assert!((got - published).abs() < 1e-15, "{name} = {got}");
    }
    // Group fairness on each query's first sample, a deterministic run.
    let first: String = std::fs::read_to_string(data("run.trec"))
        .unwrap()
        .lines()
        .filter(|l| l.split_whitespace().nth(1) == Some("s0"))
        .map(|l| format!("{l}\n"))
        .collect();
    let run = read_run(
        &Input::bytes("first.trec", first, Format::Trec),
        ReadOptions::default(),
    )
    .unwrap();
    let groups = evaluate(&qrels, &run, &metrics(&rows, false), &Options::default());
    compared += check(&groups, &rows);
    assert_eq!(compared, rows.len());
    assert!(rows.len() > 200, "{}", rows.len());
}

#[test]
fn the_same_bits_for_any_thread_count() {
    let rows = rows();
    let metrics = metrics(&rows, true);
    let qrels = qrels();
    let sampled = read_sampled_run(&data("run.trec"), ReadOptions::default()).unwrap();
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| evaluate_sampled(&qrels, &sampled, &metrics, &Options::default()))
    };
    let (one, four) = (on(1), on(4));
    for m in 0..metrics.len() {
        let bits = |e: &Evaluation| {
            e.column(m)
                .into_iter()
                .map(f64::to_bits)
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&one), bits(&four));
    }
}

/// `explain --samples` gives, for every query and every metric of the
/// fixture (expected exposure, AWRF and trec_fair over the samples), the
/// value `evaluate_sampled` gives, bit for bit; and each expected
/// exposure's per-document terms sum to its raw EE-D.
#[test]
fn explain_over_samples_gives_evals_values() {
    let rows = rows();
    let mut all = metrics(&rows, true);
    all.extend(metrics(&rows, false));
    all.push(parse_metric("ee_d(model=rbp,norm=false)").unwrap());
    let qrels = qrels();
    let sampled = read_sampled_run(&data("run.trec"), ReadOptions::default()).unwrap();
    let options = Options::default();
    let evaluation = evaluate_sampled(&qrels, &sampled, &all, &options);
    let mut compared = 0;
    for (q, query) in evaluation.queries().iter().enumerate() {
        let explained = rankeval::explain::explain_sampled(
            &qrels, "qrels", &sampled, "run", query, &all, &options,
        )
        .unwrap();
        for (m, e) in explained.metrics.iter().enumerate() {
            let want = evaluation.value(q, m);
            assert_eq!(e.value.to_bits(), want.to_bits(), "{} of {query}", e.metric);
            compared += 1;
        }
        let raw = explained.metrics.last().unwrap();
        let exposure = &raw.columns[0].values;
        assert_eq!(exposure.len(), explained.ranking.documents.len());
        let squares: f64 = exposure.iter().flatten().map(|e| e * e).sum();
        assert!(
            (squares - raw.value).abs() < 1e-12,
            "{query}: {squares} vs {}",
            raw.value
        );
        for sample in &explained.samples {
            assert_eq!(sample.ranks.len(), explained.ranking.documents.len());
        }
    }
    assert!(compared > 100, "{compared}");
}
