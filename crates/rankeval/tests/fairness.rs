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

/// The group level (`groups=true`, expeval's `-G`) worked by hand from
/// expeval's group.py and metrics.py: expeval's README example with d1
/// and d2 in two groups, and a graded query with weights, a relevant
/// document not retrieved and a non-relevant one in a group.
#[test]
fn group_level_by_hand() {
    use rankeval_core::{
        DocumentGroupsBuilder, Duplicates, QrelsBuilder, RunBuilder, SampledRunBuilder, Ties,
    };
    let mut builder = QrelsBuilder::new();
    for (q, d, g) in [
        ("ex", "d1", 1),
        ("ex", "d2", 1),
        ("gr", "a", 2),
        ("gr", "b", 1),
        ("gr", "c", 1),
        ("gr", "x", 0),
    ] {
        builder.push(q, d, g).unwrap();
    }
    let mut groups = DocumentGroupsBuilder::new();
    for (at, (d, g, w)) in [
        ("d1", "g1", 1.0),
        ("d2", "g2", 1.0),
        ("d3", "g1", 1.0),
        ("a", "g1", 1.0),
        ("b", "g1", 0.5),
        ("b", "g2", 0.5),
        ("c", "g3", 1.0),
        ("x", "g2", 1.0),
    ]
    .into_iter()
    .enumerate()
    {
        groups
            .push(d.as_bytes(), g.as_bytes(), w, at as u64 + 1)
            .unwrap();
    }
    let qrels = builder
        .finish()
        .unwrap()
        .with_doc_groups(Arc::new(groups.finish().unwrap()));
    let mut sampled = SampledRunBuilder::new();
    let mut at = 0;
    for (q, s, docs) in [
        ("ex", "s1", &["d1", "d2", "d3"]),
        ("ex", "s2", &["d2", "d1", "d3"]),
        ("gr", "s1", &["x", "a", "b"]),
    ] {
        for (i, d) in docs.iter().enumerate() {
            at += 1;
            let score = (3 - i) as f64;
            sampled
                .push(q.as_bytes(), s.as_bytes(), d.as_bytes(), score, at)
                .unwrap();
        }
    }
    let sampled = sampled.finish(Duplicates::Error, Ties::Docid).unwrap();
    let names = [
        "ee_d(model=rbp,norm=false,groups=true)",
        "ee_r(model=rbp,norm=false,groups=true)",
        "ee_l(model=rbp,norm=false,groups=true)",
        "ee_d(model=rbp,groups=true)",
        "ee_r(model=rbp,groups=true)",
        "ee_l(model=rbp,groups=true)",
        "ee_d(norm=false,groups=true)",
        "ee_d(groups=true)",
        "ee_l(groups=true)",
    ];
    let metrics: Vec<Box<dyn rankeval::Metric>> =
        names.iter().map(|m| parse_metric(m).unwrap()).collect();
    for (metric, name) in metrics.iter().zip(names) {
        assert_eq!(metric.name(), name, "canonical name");
    }
    let evaluation = evaluate_sampled(&qrels, &sampled, &metrics, &Options::default());
    // ex, RBP p = 0.5: e = t = 0.75 for d1 (g1) and d2 (g2); d3 is not
    // relevant and counts for no group. k = r = 2, S(p) = 1.5: EE-D's
    // bounds meet under RBP (k S(p)^2 both), EE-R's upper bound is 0,
    // EE-L's upper max(1.125, 2 (1.5 - 0.75)^2) = 1.125.
    // gERR p = u = 0.5: e = t = 0.625; EE-D's bounds 2 S(0.25)^2 = 3.125
    // and 2 S(0.5)^2 = 4.5; EE-L's upper max(0.78125, 2 (1.5 - 0.625)^2).
    let gerr_d = 2.0 * 0.625 * 0.625;
    // gr, one sample [x a b], RBP: exposures x 1, a 0.5, b 0.25; targets
    // a 1 (grade 2 alone), b = c = (0.5 - 0.125) / (2 * 0.5) = 0.375.
    // E = (g1: 0.5 + 0.5 * 0.25, g2: 0.5 * 0.25, g3: 0) (x not relevant);
    // E* = (g1: 1 + 0.5 * 0.375, g2: 0.5 * 0.375, g3: 0.375).
    let e = [0.5 + 0.5 * 0.25, 0.5 * 0.25, 0.0];
    let t = [1.0 + 0.5 * 0.375, 0.5 * 0.375, 0.375];
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let loss: f64 = e.iter().zip(&t).map(|(x, y)| (y - x) * (y - x)).sum();
    // r = 3, S(p) = 1.75.
    let spread: f64 = t.iter().map(|v| (1.75 - v) * (1.75 - v)).sum();
    let upper = dot(&t, &t).max(spread);
    let gerr_gr = {
        // gERR p = u = 0.5, [x a b]: x 1, a 0.5, b 0.25 * 0.5 (a above).
        // Targets, q = 0.25: a (1 - 0.25) / 0.75 = 1, b = c =
        // (0.25 - 0.25^3) / (2 * 0.75) = 0.15625.
        let e = [0.5 + 0.5 * 0.125, 0.5 * 0.125, 0.0];
        let t = [1.0 + 0.5 * 0.15625, 0.5 * 0.15625, 0.15625];
        let d = dot(&e, &e);
        // k = r = 3: bounds 3 S(0.25)^2 and 3 S(0.5)^2.
        let s = |x: f64| (1.0 - x * x * x) / (1.0 - x);
        let (low, high) = (3.0 * s(0.25) * s(0.25), 3.0 * s(0.5) * s(0.5));
        let loss: f64 = e.iter().zip(&t).map(|(x, y)| (y - x) * (y - x)).sum();
        let spread: f64 = t.iter().map(|v| (1.75 - v) * (1.75 - v)).sum();
        (d, (d - low) / (high - low), loss / dot(&t, &t).max(spread))
    };
    let want: [(&str, [f64; 9]); 2] = [
        (
            "ex",
            [
                1.125,
                1.125,
                0.0,
                0.0,
                1.0,
                0.0,
                gerr_d,
                (gerr_d - 3.125) / (4.5 - 3.125),
                0.0,
            ],
        ),
        (
            "gr",
            [
                dot(&e, &e),
                dot(&t, &e),
                loss,
                0.0,
                1.0,
                loss / upper,
                gerr_gr.0,
                gerr_gr.1,
                gerr_gr.2,
            ],
        ),
    ];
    for (query, values) in want {
        let q = evaluation
            .queries()
            .iter()
            .position(|x| x == query)
            .unwrap();
        for (m, want) in values.into_iter().enumerate() {
            let got = evaluation.value(q, m);
            assert!(
                (got - want).abs() <= 1e-15,
                "{} of {query}: {got}, by hand {want}",
                names[m]
            );
        }
    }
    // A deterministic run is one sample: the same values for gr.
    let mut run = RunBuilder::new();
    for (d, s) in [("x", 3.0), ("a", 2.0), ("b", 1.0)] {
        run.push_scored("gr", d, s).unwrap();
    }
    let run = run.finish(Duplicates::Error).unwrap();
    let single = evaluate(&qrels, &run, &metrics, &Options::default());
    let (q, r) = (
        single.queries().iter().position(|x| x == "gr").unwrap(),
        evaluation.queries().iter().position(|x| x == "gr").unwrap(),
    );
    for m in 0..metrics.len() {
        assert_eq!(
            single.value(q, m).to_bits(),
            evaluation.value(r, m).to_bits()
        );
    }
}
