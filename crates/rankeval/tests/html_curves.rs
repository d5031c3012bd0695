//! The HTML report's precision-recall curve: interpolated precision at the
//! 11 recall levels equals trec_eval's `iprec_at_recall_*` on its own test
//! suite, per query and over all queries, to its 4 printed decimals.

use rankeval::core::Metric;
use rankeval::curves::{InterpolatedPrecision, RECALL_LEVELS};
use rankeval::metrics::aggregators::mean::mean;
use rankeval::{
    Input, Missing, Options, ReadOptions, RelevanceLevel, evaluate, read_qrels, read_run,
};

use crate::common::data;

fn check(qrels: &str, run: &str, expected_file: &str, options: Options) {
    let qrels = read_qrels(&Input::file(data(&format!("trec_eval/{qrels}")))).unwrap();
    let run = read_run(
        &Input::file(data(&format!("trec_eval/{run}"))),
        ReadOptions::default(),
    )
    .unwrap();
    let metrics: Vec<Box<dyn Metric>> = (0..RECALL_LEVELS)
        .map(|i| {
            Box::new(InterpolatedPrecision {
                recall: i as f64 / 10.0,
            }) as Box<dyn Metric>
        })
        .collect();
    let evaluation = evaluate(&qrels, &run, &metrics, &options);
    let expected = std::fs::read_to_string(data(&format!("trec_eval/{expected_file}"))).unwrap();
    let mut compared = 0;
    for line in expected.lines() {
        let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
        let Some(level) = fields[0].strip_prefix("iprec_at_recall_") else {
            continue;
        };
        let m = (level.parse::<f64>().unwrap() * 10.0).round() as usize;
        let column = evaluation.column(m);
        let got = if fields[1] == "all" {
            mean(&column)
        } else {
            let q = evaluation
                .queries()
                .iter()
                .position(|q| q == fields[1])
                .unwrap();
            column[q]
        };
        assert_eq!(format!("{got:.4}"), fields[2], "{line}");
        compared += 1;
    }
    assert_eq!(compared, RECALL_LEVELS * 4, "3 queries and `all` per level");
}

#[test]
fn interpolated_precision_matches_out_test_aq() {
    check(
        "qrels.test",
        "results.test",
        "out.test.aq",
        Options::default(),
    );
}

#[test]
fn interpolated_precision_with_missing_queries_zero_matches_out_test_aqc() {
    let options = Options {
        missing: Missing::Zero,
        ..Options::default()
    };
    check("qrels.test", "results.trunc", "out.test.aqc", options);
}

#[test]
fn interpolated_precision_at_level_two_matches_out_test_aql() {
    let options = Options {
        level: RelevanceLevel::new(2).unwrap(),
        ..Options::default()
    };
    check("qrels.rel_level", "results.test", "out.test.aql", options);
}
