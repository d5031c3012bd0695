//! The propensity-scored metrics equal pyxclib's definitions (PSP@k and
//! PSnDCG@k, a ratio of means over the test instances) on generated data,
//! written to `tests/data/pyxclib` by `scripts/cross-check/pyxclib.py
//! --fixture` (a plain transcription of pyxclib's code: pyxclib is not on
//! PyPI): from training label counts under the three published families,
//! and from given inverse propensities; the same bits whether the run is
//! read whole or evaluated while read. BEIR's Hole@k on the same data
//! against its definition written out.

use std::collections::HashSet;
use std::sync::Arc;

use rankeval::read::propensity::{PropensityTable, read_propensities};
use rankeval::{
    Evaluation, Format, Input, Metric, Options, Qrels, ReadOptions, evaluate, evaluate_input,
    parse_metric, read_qrels, read_run,
};
use rankeval_core::{DocumentContext, LabelPropensities};

fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/pyxclib")
        .join(name)
}

/// pyxclib's values by metric name, and the number of training instances.
fn expected() -> (Vec<(String, f64)>, u64) {
    let text = std::fs::read_to_string(data("expected.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let values = json["values"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, value)| (name.clone(), value.as_f64().unwrap()))
        .collect();
    (values, json["train_instances"].as_u64().unwrap())
}

/// The qrels with the facts `metrics` need from `table`.
fn qrels(metrics: &[Box<dyn Metric>], table: LabelPropensities) -> Qrels {
    let qrels = read_qrels(&Input::file(data("qrels.txt")).with_format(Format::Trec)).unwrap();
    let requirements: Vec<_> = metrics
        .iter()
        .flat_map(|m| m.requires().iter().copied())
        .collect();
    let context = DocumentContext::build(&qrels, &requirements, Some(Arc::new(table))).unwrap();
    qrels.with_documents(Arc::new(context))
}

fn run_input() -> Input {
    Input::file(data("run.trec")).with_format(Format::Trec)
}

fn mean(evaluation: &Evaluation, name: &str) -> f64 {
    evaluation
        .mean(name)
        .unwrap_or_else(|| panic!("{name} not evaluated"))
}

fn bits(e: &Evaluation) -> Vec<Vec<u64>> {
    (0..e.metrics().len())
        .map(|m| e.column(m).into_iter().map(f64::to_bits).collect())
        .collect()
}

#[test]
fn equal_to_pyxclib_from_label_counts() {
    let (values, instances) = expected();
    assert_eq!(values.len(), 60);
    let metrics: Vec<Box<dyn Metric>> = values
        .iter()
        .map(|(m, _)| parse_metric(m).unwrap())
        .collect();
    let table =
        read_propensities(&data("counts.csv"), PropensityTable::Counts { instances }).unwrap();
    let qrels = qrels(&metrics, table);
    let run = read_run(&run_input(), ReadOptions::default()).unwrap();
    let options = Options::default();
    let whole = evaluate(&qrels, &run, &metrics, &options);
    assert_eq!(
        whole.queries().len(),
        80,
        "every test instance is evaluated"
    );
    for (name, want) in &values {
        let got = mean(&whole, name);
        assert!(
            (got - want).abs() <= 1e-12,
            "{name}: {got} vs pyxclib's {want}"
        );
    }
    let streamed = evaluate_input(
        &qrels,
        &run_input(),
        ReadOptions::default(),
        &metrics,
        &options,
        &|_| {},
    )
    .unwrap();
    assert_eq!(bits(&whole), bits(&streamed));
}

#[test]
fn equal_to_pyxclib_from_given_inverse_propensities() {
    let (values, _) = expected();
    // The fixture's inverse propensities are the amazon family's.
    let amazon: Vec<(String, f64)> = values
        .iter()
        .filter(|(m, _)| m.contains("(family=amazon)"))
        .map(|(m, v)| (m.replace("(family=amazon)", ""), *v))
        .collect();
    assert_eq!(amazon.len(), 20);
    let metrics: Vec<Box<dyn Metric>> = amazon
        .iter()
        .map(|(m, _)| parse_metric(m).unwrap())
        .collect();
    let table = read_propensities(&data("inverse.csv"), PropensityTable::Inverse).unwrap();
    let qrels = qrels(&metrics, table);
    let run = read_run(&run_input(), ReadOptions::default()).unwrap();
    let evaluation = evaluate(&qrels, &run, &metrics, &Options::default());
    for (name, want) in &amazon {
        let got = mean(&evaluation, name);
        assert!(
            (got - want).abs() <= 1e-12,
            "{name}: {got} vs pyxclib's {want}"
        );
    }
}

#[test]
fn hole_is_beirs_definition_and_not_unjudged() {
    let metrics: Vec<Box<dyn Metric>> = ["hole@5", "hole@10", "unjudged@10"]
        .iter()
        .map(|m| parse_metric(m).unwrap())
        .collect();
    let qrels = qrels(&metrics, LabelPropensities::Inverse(Default::default()));
    let run = read_run(&run_input(), ReadOptions::default()).unwrap();
    let evaluation = evaluate(&qrels, &run, &metrics, &Options::default());
    // BEIR: the annotated corpus is every document of the qrels.
    let text = std::fs::read_to_string(data("qrels.txt")).unwrap();
    let annotated: HashSet<&str> = text.lines().filter_map(|l| l.split(' ').nth(2)).collect();
    let run_text = std::fs::read_to_string(data("run.trec")).unwrap();
    let mut lists: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in run_text.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        match lists.last_mut() {
            Some((q, docs)) if *q == fields[0] => docs.push(fields[2]),
            _ => lists.push((fields[0], vec![fields[2]])),
        }
    }
    for k in [5usize, 10] {
        let beir: f64 = lists
            .iter()
            .map(|(_, docs)| {
                docs.iter()
                    .take(k)
                    .filter(|d| !annotated.contains(*d))
                    .count() as f64
                    / k as f64
            })
            .sum::<f64>()
            / lists.len() as f64;
        let got = mean(&evaluation, &format!("hole@{k}"));
        assert!((got - beir).abs() <= 1e-12, "hole@{k}: {got} vs {beir}");
    }
    // Labels judged for another test instance are retrieved: the two differ.
    assert!(mean(&evaluation, "hole@10") < mean(&evaluation, "unjudged@10") - 0.01);
}

/// Over a sampled run (`--samples`), psp, psndcg and hole are each query's
/// mean over its sampled rankings, each ranking scored with the label
/// propensities and the judged documents as a run's list is: worked by
/// hand from the definitions, and equal to the mean of evaluating each
/// sample as a run of its own.
#[test]
fn over_sampled_rankings_each_is_the_mean_of_its_samples() {
    use rankeval::engine::evaluate_sampled;
    use rankeval_core::{Duplicates, QrelsBuilder, RunBuilder, SampledRunBuilder, Ties};

    // q1 judges a, b relevant and c not; q2 judges d relevant. Given
    // inverse propensities (used as they are): a 2, b 4, c 1, d 3, x 5.
    let mut builder = QrelsBuilder::new();
    for (q, d, g) in [
        ("q1", "a", 1),
        ("q1", "b", 1),
        ("q1", "c", 0),
        ("q2", "d", 1),
    ] {
        builder.push(q, d, g).unwrap();
    }
    let plain = builder.finish().unwrap();
    let inverse = [("a", 2.0), ("b", 4.0), ("c", 1.0), ("d", 3.0), ("x", 5.0)]
        .into_iter()
        .map(|(l, w)| (Box::from(l.as_bytes()), w))
        .collect();
    let table = Arc::new(LabelPropensities::Inverse(inverse));
    let names = ["psp@2", "psndcg@2", "hole@2"];
    let metrics: Vec<Box<dyn Metric>> = names.iter().map(|m| parse_metric(m).unwrap()).collect();
    let requirements: Vec<_> = metrics
        .iter()
        .flat_map(|m| m.requires().iter().copied())
        .collect();
    let context = DocumentContext::build(&plain, &requirements, Some(table)).unwrap();
    let qrels = plain.with_documents(Arc::new(context));
    // Two samples per query: q1 [a x b] and [b c a], q2 [d] and [x d].
    let samples: [(&str, &str, &[&str]); 4] = [
        ("q1", "s1", &["a", "x", "b"]),
        ("q1", "s2", &["b", "c", "a"]),
        ("q2", "s1", &["d"]),
        ("q2", "s2", &["x", "d"]),
    ];
    let mut sampled = SampledRunBuilder::new();
    let mut single = [RunBuilder::new(), RunBuilder::new()];
    let mut at = 0;
    for (q, s, docs) in samples {
        for (i, d) in docs.iter().enumerate() {
            at += 1;
            let score = (docs.len() - i) as f64;
            sampled
                .push(q.as_bytes(), s.as_bytes(), d.as_bytes(), score, at)
                .unwrap();
            let which = usize::from(s == "s2");
            single[which].push_scored(q, d, score).unwrap();
        }
    }
    let sampled = sampled.finish(Duplicates::Error, Ties::Docid).unwrap();
    let options = Options::default();
    let evaluation = evaluate_sampled(&qrels, &sampled, &metrics, &options);

    // By hand. psp@2: each numerator over the mean best (q1: b then a,
    // 4 + 2; q2: 3). psndcg@2: discounts 1, 1/log2 3 over C(min(|R|, 2)).
    let l3 = 1.0 / 3f64.log2();
    let mean_best_psp = (6.0 + 3.0) / 2.0;
    let c2 = 1.0 + l3;
    let mean_best_psndcg = ((4.0 + 2.0 * l3) / c2 + 3.0) / 2.0;
    let want = [
        // q1: [a x] 2, [b c] 4; q2: [d] 3, [x d] 3.
        (
            "q1",
            "psp@2",
            (2.0 / mean_best_psp + 4.0 / mean_best_psp) / 2.0,
        ),
        (
            "q2",
            "psp@2",
            (3.0 / mean_best_psp + 3.0 / mean_best_psp) / 2.0,
        ),
        (
            "q1",
            "psndcg@2",
            (2.0 / c2 / mean_best_psndcg + 4.0 / c2 / mean_best_psndcg) / 2.0,
        ),
        (
            "q2",
            "psndcg@2",
            (3.0 / mean_best_psndcg + 3.0 * l3 / mean_best_psndcg) / 2.0,
        ),
        // Judged anywhere: a b c d. q1: [a x] 1/2, [b c] 0; q2: [d] 0, [x d] 1/2.
        ("q1", "hole@2", (0.5 + 0.0) / 2.0),
        ("q2", "hole@2", (0.0 + 0.5) / 2.0),
    ];
    let runs: Vec<Evaluation> = single
        .into_iter()
        .map(|b| {
            evaluate(
                &qrels,
                &b.finish(Duplicates::Error).unwrap(),
                &metrics,
                &options,
            )
        })
        .collect();
    for (query, metric, want) in want {
        let m = evaluation.metric_index(metric).unwrap();
        let q = evaluation
            .queries()
            .iter()
            .position(|x| x == query)
            .unwrap();
        let got = evaluation.value(q, m);
        assert!(
            (got - want).abs() <= 1e-15,
            "{metric} on {query}: {got}, by hand {want}"
        );
        assert!(got > 0.0, "{metric} on {query} is not 0");
        let of_runs = runs
            .iter()
            .map(|e| {
                let q = e.queries().iter().position(|x| x == query).unwrap();
                e.value(q, e.metric_index(metric).unwrap())
            })
            .sum::<f64>()
            / 2.0;
        assert_eq!(
            got, of_runs,
            "{metric} on {query}: the mean of each sample's run"
        );
    }
}
