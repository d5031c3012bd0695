//! `judged_only=true` on a metric equals `rankeval trec_eval -J` (itself
//! checked line for line against a trec_eval 10 binary by
//! `scripts/cross-check/trec-eval.py`) on trec_eval's own test data, bit
//! for bit, for every measure of `-m all_trec`: the condensed list of a
//! metric and trec_eval's `-J` are the same ranking.

use rankeval::core::judged_only::judged_only;
use rankeval::{Input, Options, ReadOptions, RelevanceLevel, evaluate, read_qrels, read_run};
use rankeval_cli::trec_eval::evaluate::{self as trec, Settings};
use rankeval_cli::trec_eval::measures;

use crate::common::data;

/// Compares every query's value of every `all_trec` measure on trec_eval's
/// test files, at level `level`; returns how many values were compared and
/// how many differ from the same metric without `judged_only`.
fn check(qrels: &str, run: &str, level: u32) -> (usize, usize) {
    check_inputs(
        &Input::file(data(&format!("trec_eval/{qrels}"))),
        &Input::file(data(&format!("trec_eval/{run}"))),
        level,
    )
}

/// [`check`] on any inputs.
fn check_inputs(qrels: &Input, run: &Input, level: u32) -> (usize, usize) {
    let qrels = read_qrels(qrels).unwrap();
    let run = read_run(run, ReadOptions::default()).unwrap();
    let level = RelevanceLevel::new(f64::from(level)).unwrap();
    let all_trec = ["all_trec".to_owned()];
    let plan = measures::plan(&all_trec).unwrap();
    let settings = Settings {
        level,
        judged_only: true,
        ..Settings::default()
    };
    let expected = trec::evaluate(&qrels, &run, &plan, settings);
    let metrics: Vec<_> = measures::plan(&all_trec)
        .unwrap()
        .metrics
        .into_iter()
        .map(judged_only)
        .collect();
    let options = Options {
        level,
        ..Options::default()
    };
    let evaluation = evaluate(&qrels, &run, &metrics, &options);
    let plain = evaluate(
        &qrels,
        &run,
        &measures::plan(&all_trec).unwrap().metrics,
        &options,
    );
    assert_eq!(evaluation.queries().len(), expected.len());
    let mut compared = 0;
    let mut changed = 0;
    for want in &expected {
        let q = evaluation
            .queries()
            .iter()
            .position(|q| *q == want.query)
            .unwrap_or_else(|| panic!("query {} not evaluated", want.query));
        for (m, metric) in metrics.iter().enumerate() {
            let got = evaluation.column(m)[q];
            assert_eq!(
                got.to_bits(),
                want.values[m].to_bits(),
                "{} on query {}: {got} != trec_eval -J {}",
                metric.name(),
                want.query,
                want.values[m]
            );
            compared += 1;
            changed += usize::from(got.to_bits() != plain.column(m)[q].to_bits());
        }
    }
    (compared, changed)
}

/// Random TREC qrels and a run (a fixed-seed xorshift): grades -1 to 3,
/// about half the retrieved documents unjudged, ties, queries of 1 to 60
/// documents.
fn random_inputs(seed: u64) -> (Input, Input) {
    let mut state = seed | 1;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let (mut qrels, mut run) = (String::new(), String::new());
    for q in 0..40 {
        let docs = 1 + next(60);
        for d in 0..docs {
            if next(2) == 0 {
                let grade = next(5) as i64 - 1;
                qrels.push_str(&format!("q{q} 0 d{d} {grade}\n"));
            }
            let score = next(20);
            run.push_str(&format!("q{q} Q0 d{d} 0 {score} r\n"));
        }
        // Judged documents the run does not retrieve.
        for d in docs..docs + next(4) {
            qrels.push_str(&format!("q{q} 0 d{d} {}\n", next(4)));
        }
    }
    (
        Input::bytes("qrels", qrels, rankeval::Format::Trec),
        Input::bytes("run", run, rankeval::Format::Trec),
    )
}

#[test]
fn every_all_trec_measure_equals_trec_eval_minus_j() {
    let (compared, _) = check("qrels.test", "results.test", 1);
    assert!(compared > 200, "{compared}");
}

#[test]
fn at_level_2_too() {
    let (compared, _) = check("qrels.rel_level", "results.test", 2);
    assert!(compared > 200, "{compared}");
}

#[test]
fn on_random_data_with_unjudged_and_negative_grades() {
    for (seed, level) in [(1, 1), (2, 2), (3, 1)] {
        let (qrels, run) = random_inputs(seed);
        let (compared, changed) = check_inputs(&qrels, &run, level);
        // The condensed list differs from the whole one, so the equality
        // holds for a reason.
        assert!(
            compared > 3000 && changed > compared / 4,
            "{compared} {changed}"
        );
    }
}

#[test]
fn the_short_syntax_and_the_flag_name_it() {
    let condensed = rankeval::parse_metric("p(judged_only=true)@10").unwrap();
    assert_eq!(condensed.name(), "p(judged_only=true)@10");
    let both = rankeval::parse_metric("ndcg(judged_only=TRUE,ties=average)@5").unwrap();
    assert_eq!(both.name(), "ndcg(ties=average,judged_only=true)@5");
    assert_eq!(
        rankeval::parse_metric(&both.name()).unwrap().name(),
        both.name()
    );
    let plain = rankeval::parse_metric("p(judged_only=false)@10").unwrap();
    assert_eq!(plain.name(), "p@10");
    let error = rankeval::parse_metric("p(judged_only=maybe)@10").unwrap_err();
    assert!(
        error.to_string().contains("expected true or false"),
        "{error}"
    );
}
