//! The peers' definitions checked against the peers: their own published
//! test values, and the values they give on generated data.
//!
//! - `data/peers/ir_measures/`: ir_measures' test data (tests/compat.*,
//!   tests/cwl.*, Apache-2.0, terrierteam/ir_measures), with the values its
//!   tests publish (`tests/test_compat.py`: Compat "based on a manual
//!   execution of" claclark/Compatibility; `tests/test_cwl_eval.py`: INST,
//!   INSQ, NERR8 to NERR11 from cwl-eval).
//! - `data/peers/<family>/`: generated qrels and run with each peer's
//!   values (`expected.json`), written by the family's script in
//!   `scripts/cross-check/` (`--fixture`): compatibility.py and ir_measures'
//!   Compat, cwl-eval through ir_measures, scikit-learn, RecTools. Each
//!   value within 1e-12.

use rankeval::core::Ties;
use rankeval::{
    Evaluation, Format, Input, Options, ReadOptions, evaluate, parse_metric, read_qrels, read_run,
};

fn dir(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/peers")
        .join(name)
}

fn evaluate_files(
    dir: &std::path::Path,
    qrels: &str,
    run: &str,
    metrics: &[&str],
    ties: Ties,
) -> Evaluation {
    let qrels = read_qrels(&Input::file(dir.join(qrels)).with_format(Format::Trec)).unwrap();
    let run = read_run(
        &Input::file(dir.join(run)).with_format(Format::Trec),
        // The run's order of tied scores is set when it is read.
        ReadOptions {
            ties,
            ..ReadOptions::default()
        },
    )
    .unwrap();
    let metrics: Vec<_> = metrics.iter().map(|m| parse_metric(m).unwrap()).collect();
    let options = Options {
        ties,
        ..Options::default()
    };
    evaluate(&qrels, &run, &metrics, &options)
}

fn value(e: &Evaluation, metric: &str, query: &str) -> f64 {
    let q = e
        .queries()
        .iter()
        .position(|x| x == query)
        .unwrap_or_else(|| panic!("query {query} not evaluated"));
    let name = parse_metric(metric).unwrap().name();
    e.value(q, e.metric_index(&name).unwrap_or_else(|| panic!("{name}")))
}

/// ir_measures tests/test_compat.py: Compat at three persistences, to
/// 1e-9, and the mean of Compat(p=0.95), 0.268097611. Lists are shorter
/// than 1000: compatibility.py's depth and ir_measures' (`depth=0`) agree
/// to far below 1e-9 here (the tail weighs 0.95^947).
#[test]
fn ir_measures_compat_published_values() {
    let published = [
        ("Compat(p=0.95)", [0.51779512165509, 0.018400100569017922]),
        ("Compat(p=0.9)", [0.3761334522946854, 0.004344079941789211]),
        (
            "Compat(p=0.8)",
            [0.16723008845234535, 0.00022806427320561776],
        ),
    ];
    let own = [
        "compatibility",
        "compatibility(p=0.9)",
        "compatibility(p=0.8)",
    ];
    let mut names: Vec<&str> = published.iter().map(|(m, _)| *m).collect();
    names.extend(own);
    let e = evaluate_files(
        &dir("ir_measures"),
        "compat.qrels",
        "compat.run",
        &names,
        Ties::Docid,
    );
    for ((metric, values), own) in published.iter().zip(own) {
        for (query, expected) in ["31_1", "31_2"].iter().zip(values) {
            for name in [*metric, own] {
                let got = value(&e, name, query);
                assert!(
                    (got - expected).abs() < 1e-9,
                    "{name} {query}: {got} vs {expected}"
                );
            }
        }
    }
    let mean = (value(&e, "Compat(p=0.95)", "31_1") + value(&e, "Compat(p=0.95)", "31_2")) / 2.0;
    assert!((mean - 0.268097611).abs() < 1e-9, "{mean}");
}

/// ir_measures tests/test_cwl_eval.py ("based on a manual execution of
/// cwl-eval"), to its 4 decimals.
#[test]
fn ir_measures_cwl_eval_published_values() {
    let published: &[(&str, [f64; 3])] = &[
        ("INSQ(T=1.0, max_rel=1)", [0.5872, 0.6629, 0.0880]),
        ("INSQ(T=2.0, max_rel=1)", [0.4513, 0.5068, 0.1292]),
        ("INST(T=1.0, max_rel=1)", [0.7934, 0.9226, 0.0888]),
        ("INST(T=2.0, max_rel=1)", [0.5994, 0.6924, 0.1397]),
        ("NERR8(max_rel=1)@10", [1.0, 1.0, 0.1667]),
        ("NERR9(max_rel=1)@10", [1.0, 1.0, 0.0680]),
        ("NERR10(p=0.8, max_rel=1)", [1.0, 1.0, 0.0888]),
        ("NERR11(T=2.0, max_rel=1)", [1.0, 1.0, 0.0691]),
    ];
    let names: Vec<String> = published.iter().map(|(m, _)| m.replace(' ', "")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let e = evaluate_files(
        &dir("ir_measures"),
        "cwl.qrels",
        "cwl.run",
        &refs,
        Ties::Docid,
    );
    for (name, (_, values)) in names.iter().zip(published) {
        for (query, expected) in ["T1", "T2", "T3"].iter().zip(values) {
            let got = value(&e, name, query);
            assert!(
                (got - expected).abs() < 1e-4,
                "{name} {query}: {got} vs {expected}"
            );
        }
    }
}

/// Every row of a generated fixture, within 1e-12.
fn check_fixture(family: &str, at_least: usize) {
    let dir = dir(family);
    let text = std::fs::read_to_string(dir.join("expected.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let ties = match json["ties"].as_str().unwrap() {
        "input" => Ties::Input,
        "docid" => Ties::Docid,
        other => panic!("ties {other}"),
    };
    let rows: Vec<(String, String, f64)> = json["rows"]
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
        .collect();
    assert!(rows.len() >= at_least, "{family}: {} rows", rows.len());
    let mut metrics: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
    metrics.sort_unstable();
    metrics.dedup();
    let e = evaluate_files(&dir, "qrels", "run", &metrics, ties);
    for (query, metric, expected) in &rows {
        let got = value(&e, metric, query);
        assert!(
            (got - expected).abs() <= 1e-12,
            "{family}: {metric} on {query}: {got} vs the peer's {expected}"
        );
    }
}

#[test]
fn compatibility_equals_the_reference_script_and_ir_measures() {
    check_fixture("compatibility", 100);
}

#[test]
fn cwl_metrics_equal_cwl_eval() {
    check_fixture("cwl", 300);
}

#[test]
fn lrap_and_average_precision_score_equal_scikit_learn() {
    check_fixture("scikit-learn", 100);
}

#[test]
fn accuracy_and_mcc_equal_rectools() {
    check_fixture("rectools", 100);
}
