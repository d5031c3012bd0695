//! `rankeval::compare`: the statistics of `rankeval-stats` on a
//! report's runs, with a baseline run or a results file, the `missing`
//! policy, the correction over families, gates, and all pairs. (A results
//! file written by the JSON report, and comparisons rendered, are
//! `rankeval-report`'s tests.)

use rankeval::Missing;
use rankeval::compare::stats::{self, Correction, Gate, Margin, Quantity, Test};
use rankeval::compare::{
    Baseline, CompareRunError, Family, GateSpec, Settings, compare, parse_results,
};

use crate::common::compare_runs::report;

#[test]
fn each_cell_is_the_crates_comparison_of_its_columns_corrected_over_the_family() {
    let report = report(60);
    let settings = Settings::default();
    let result = compare(&report, Some(&Baseline::Run("bm25".into())), &settings, &[]).unwrap();
    assert_eq!(result.comparisons.len(), 4, "2 candidates x 2 metrics");
    let order: Vec<(&str, &str)> = result
        .comparisons
        .iter()
        .map(|c| (c.metric.as_str(), c.run.as_str()))
        .collect();
    assert_eq!(
        order,
        [
            ("ndcg@10", "dense"),
            ("ndcg@10", "hybrid"),
            ("ap", "dense"),
            ("ap", "hybrid")
        ]
    );
    let mut p = Vec::new();
    for cell in &result.comparisons {
        let m = report
            .metrics
            .iter()
            .position(|m| m.name == cell.metric)
            .unwrap();
        let r = report.runs.iter().position(|r| r.name == cell.run).unwrap();
        let direct = stats::compare(
            &report.runs[0].per_query[m],
            &report.runs[r].per_query[m],
            &stats::Options::default(),
        )
        .unwrap();
        let got = cell.result.as_ref().unwrap();
        assert_eq!(got.summary, direct.summary);
        assert_eq!(got.interval, direct.interval);
        assert_eq!(got.p_value, direct.p_value);
        assert_eq!(cell.baseline, "bm25");
        assert_eq!(cell.pairing.paired, 60);
        assert_eq!(cell.pairing.unmatched, 0);
        p.push(direct.p_value);
    }
    let holm = stats::correct(&p, Correction::Holm).unwrap();
    let corrected: Vec<f64> = result
        .comparisons
        .iter()
        .map(|c| c.result.as_ref().unwrap().corrected_p_value)
        .collect();
    assert_eq!(corrected, holm);
    assert_eq!(result.provenance.family_size, 4);
    assert_eq!(result.provenance.families, 1);
    assert_eq!(result.provenance.test, "t");
    assert_eq!(result.provenance.seed, None, "the t-test draws nothing");
    assert!(result.cell("hybrid", "ap").unwrap().significant(0.05));
}

#[test]
fn families_per_metric_and_per_run_correct_their_own_members() {
    let report = report(40);
    let baseline = Baseline::Run("bm25".into());
    let all = compare(&report, Some(&baseline), &Settings::default(), &[]).unwrap();
    let p = |cells: &[rankeval::compare::ComparisonCell], pick: &[usize]| -> Vec<f64> {
        pick.iter()
            .map(|&i| cells[i].result.as_ref().unwrap().p_value)
            .collect()
    };
    let corrected = |r: &rankeval::compare::ComparisonReport, i: usize| {
        r.comparisons[i].result.as_ref().unwrap().corrected_p_value
    };
    let per_metric = Settings {
        family: Family::PerMetric,
        correction: Correction::Bonferroni,
        ..Settings::default()
    };
    let r = compare(&report, Some(&baseline), &per_metric, &[]).unwrap();
    assert_eq!((r.provenance.families, r.provenance.family_size), (2, 2));
    let expected = stats::correct(&p(&all.comparisons, &[0, 1]), Correction::Bonferroni).unwrap();
    assert_eq!([corrected(&r, 0), corrected(&r, 1)], expected[..]);
    let per_run = Settings {
        family: Family::PerRun,
        ..Settings::default()
    };
    let r = compare(&report, Some(&baseline), &per_run, &[]).unwrap();
    let expected = stats::correct(&p(&all.comparisons, &[0, 2]), Correction::Holm).unwrap();
    assert_eq!([corrected(&r, 0), corrected(&r, 2)], expected[..]);
}

#[test]
fn unmatched_queries_follow_the_missing_policy_and_are_reported() {
    let mut report = report(30);
    // dense lacks the first 3 queries and has 2 of its own.
    let dense = &mut report.runs[1];
    dense.queries.drain(..3);
    dense.queries.push("z1".into());
    dense.queries.push("z2".into());
    for column in &mut dense.per_query {
        column.drain(..3);
        column.push(0.5);
        column.push(0.5);
    }
    let baseline = Baseline::Run("bm25".into());
    let skip = compare(&report, Some(&baseline), &Settings::default(), &[]).unwrap();
    let cell = skip.cell("dense", "ap").unwrap();
    assert_eq!(cell.pairing.missing, Missing::Skip);
    assert_eq!((cell.pairing.paired, cell.pairing.unmatched), (27, 5));
    assert_eq!(
        cell.pairing.unmatched_examples,
        ["q000", "q001", "q002", "z1", "z2"]
    );
    assert_eq!(cell.result.as_ref().unwrap().summary.queries, 27);
    let bm25_ap = &report.runs[0].per_query[1];
    assert_eq!(
        cell.result.as_ref().unwrap().summary.baseline_mean,
        stats::paired::mean(&bm25_ap[3..])
    );
    let zero = Settings {
        missing: Missing::Zero,
        ..Settings::default()
    };
    let zero = compare(&report, Some(&baseline), &zero, &[]).unwrap();
    let cell = zero.cell("dense", "ap").unwrap();
    assert_eq!((cell.pairing.paired, cell.pairing.unmatched), (32, 5));
    let summary = cell.result.as_ref().unwrap().summary;
    let mut b = bm25_ap.clone();
    b.extend([0.0, 0.0]);
    assert_eq!(summary.baseline_mean, stats::paired::mean(&b));
    // hybrid has every query of bm25.
    assert_eq!(zero.cell("hybrid", "ap").unwrap().pairing.unmatched, 0);
}

fn gate(metric: &str, run: Option<&str>, gate: Gate) -> GateSpec {
    GateSpec {
        run: run.map(str::to_owned),
        metric: metric.into(),
        gate,
        group: None,
    }
}

#[test]
fn gates_pass_and_fail_with_the_deciding_number() {
    let report = report(80);
    let gates = [
        gate("ap", Some("hybrid"), Gate::Superior { alpha: 0.05 }),
        gate("ap", Some("dense"), Gate::Superior { alpha: 0.05 }),
        gate(
            "ndcg@10",
            None,
            Gate::NonInferior {
                margin: Margin::Absolute(0.1),
            },
        ),
        gate("ndcg@10", Some("bm25"), Gate::AtLeast { floor: 0.99 }),
    ];
    let r = compare(
        &report,
        Some(&Baseline::Run("bm25".into())),
        &Settings::default(),
        &gates,
    )
    .unwrap();
    let outcome: Vec<(&str, &str, bool)> = r
        .gates
        .iter()
        .map(|g| (g.gate.as_str(), g.run.as_str(), g.passed))
        .collect();
    assert_eq!(
        outcome,
        [
            ("ap:superior(alpha=0.05,run=hybrid)", "hybrid", true),
            ("ap:superior(alpha=0.05,run=dense)", "dense", false),
            ("ndcg@10:non_inferior(margin=0.1)", "dense", true),
            ("ndcg@10:non_inferior(margin=0.1)", "hybrid", true),
            ("ndcg@10:at_least(floor=0.99,run=bm25)", "bm25", false),
        ]
    );
    assert!(!r.passed());
    assert!(!r.undecided());
    let lower = r
        .cell("dense", "ndcg@10")
        .unwrap()
        .result
        .as_ref()
        .unwrap()
        .interval
        .lower;
    let ni = r.gates[2].outcome.unwrap();
    assert_eq!(
        (ni.quantity, ni.value, ni.threshold),
        (Quantity::LowerBound, lower, -0.1)
    );
    let floor = r.gates[4].outcome.unwrap();
    assert_eq!(
        floor.value,
        stats::paired::mean(&report.runs[0].per_query[0])
    );
}

#[test]
fn a_gate_on_a_nan_value_is_undecided_not_passed() {
    let mut report = report(20);
    report.runs[1].per_query[0][4] = f64::NAN;
    let gates = [
        gate("ndcg@10", None, Gate::Superior { alpha: 0.05 }),
        gate("ndcg@10", Some("dense"), Gate::AtLeast { floor: 0.0 }),
    ];
    let r = compare(
        &report,
        Some(&Baseline::Run("bm25".into())),
        &Settings::default(),
        &gates,
    )
    .unwrap();
    let cell = r.cell("dense", "ndcg@10").unwrap();
    assert!(cell.result.is_none());
    assert_eq!(
        cell.error.as_deref(),
        Some("the candidate value of query #4 (0-based) is NaN, not a finite number")
    );
    assert!(r.undecided());
    assert!(!r.gates[0].passed);
    assert_eq!(r.gates[0].error, cell.error);
    assert_eq!(
        (r.gates[1].run.as_str(), r.gates[1].passed),
        ("hybrid", true)
    );
    assert_eq!(
        r.gates[2].error.as_deref(),
        Some("the mean is not a number (a per-query value is NaN)")
    );
    // The family is the cells with numbers.
    assert_eq!(r.provenance.family_size, 3);
}

#[test]
fn bad_baselines_and_gates_are_errors_naming_them() {
    let report = report(10);
    let error = |baseline: Option<&Baseline>, gates: &[GateSpec]| {
        compare(&report, baseline, &Settings::default(), gates)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        error(Some(&Baseline::Run("prod".into())), &[]),
        "the baseline `prod` is not a run of the experiment (the runs are `bm25`, `dense`, `hybrid`)"
    );
    let superior = Gate::Superior { alpha: 0.05 };
    assert_eq!(
        error(None, &[gate("ap", None, superior)]),
        "gate `ap:superior(alpha=0.05)`: superior compares with a baseline, and there is none \
         (set `baseline`, or --baseline)"
    );
    let bm25 = Baseline::Run("bm25".into());
    assert_eq!(
        error(Some(&bm25), &[gate("map", None, superior)]),
        "gate `map:superior(alpha=0.05)`: the experiment has no metric `map` (its metrics are \
         `ndcg@10`, `ap`)"
    );
    assert_eq!(
        error(Some(&bm25), &[gate("ap", Some("v3"), superior)]),
        "gate `ap:superior(alpha=0.05,run=v3)`: the experiment has no run `v3` (its runs are \
         `bm25`, `dense`, `hybrid`)"
    );
    assert_eq!(
        error(Some(&bm25), &[gate("ap", Some("bm25"), superior)]),
        "gate `ap:superior(alpha=0.05,run=bm25)`: `bm25` is the baseline: it cannot be compared \
         with itself"
    );
    let bad = Settings {
        level: 1.0,
        ..Settings::default()
    };
    assert_eq!(
        compare(&report, Some(&bm25), &bad, &[]).unwrap_err(),
        CompareRunError::Settings(
            "the confidence level must be strictly between 0 and 1, got 1".into()
        )
    );
}

#[test]
fn a_metric_missing_from_the_baseline_file_is_a_cell_error() {
    let report = report(10);
    let json = r#"{"runs": [{"name": "prod", "per_query": {"ap": {"q000": 0.5, "q001": 0.5, "q002": 0.5, "q003": 0.5, "q004": 0.5, "q005": 0.5, "q006": 0.5, "q007": 0.5, "q008": 0.5, "q009": 0.5}}}]}"#;
    let baseline = Baseline::Results(parse_results(json, "prod.json", None).unwrap());
    let r = compare(&report, Some(&baseline), &Settings::default(), &[]).unwrap();
    let cell = r.cell("dense", "ndcg@10").unwrap();
    assert_eq!(
        cell.error.as_deref(),
        Some("the baseline's results have no values of `ndcg@10`")
    );
    assert!(r.cell("dense", "ap").unwrap().result.is_some());
}

#[test]
fn without_a_baseline_every_pair_gets_the_randomized_tukey_hsd() {
    let report = report(40);
    let settings = Settings {
        resamples: 3000,
        ..Settings::default()
    };
    let r = compare(&report, None, &settings, &[]).unwrap();
    assert!(r.baseline.is_none());
    assert_eq!(r.provenance.test, "randomized_tukey_hsd");
    assert_eq!(r.provenance.correction, Correction::None);
    assert_eq!(r.comparisons.len(), 6, "3 pairs x 2 metrics");
    let columns: Vec<&[f64]> = report
        .runs
        .iter()
        .map(|r| r.per_query[1].as_slice())
        .collect();
    let hsd = stats::randomized_tukey_hsd(&columns, 3000, 42).unwrap();
    let ap: Vec<(&str, &str, f64)> = r
        .comparisons
        .iter()
        .filter(|c| c.metric == "ap")
        .map(|c| {
            (
                c.baseline.as_str(),
                c.run.as_str(),
                c.result.as_ref().unwrap().p_value,
            )
        })
        .collect();
    assert_eq!(
        ap,
        [
            ("bm25", "dense", hsd.pairs[0].p_value),
            ("bm25", "hybrid", hsd.pairs[1].p_value),
            ("dense", "hybrid", hsd.pairs[2].p_value),
        ]
    );
}

#[test]
fn the_same_report_bit_for_bit_with_1_2_and_8_threads() {
    let report = report(300);
    let gates = [gate("ap", None, Gate::Superior { alpha: 0.05 })];
    let run = |threads: usize, test: Test| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let settings = Settings {
                test,
                resamples: 5000,
                ..Settings::default()
            };
            let r = compare(
                &report,
                Some(&Baseline::Run("bm25".into())),
                &settings,
                &gates,
            )
            .unwrap();
            serde_json::to_string(&r).unwrap()
        })
    };
    for test in [Test::Randomization, Test::Bootstrap] {
        let one = run(1, test);
        assert_eq!(one, run(2, test));
        assert_eq!(one, run(8, test));
    }
}
