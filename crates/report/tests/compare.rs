//! Comparisons and the renderers: a results file written by the JSON
//! report gives the comparison the run gives, and the LaTeX and Markdown of
//! a comparison with gates. The runs are those of `rankeval`'s own
//! `compare` tests (made-up per-query values), so the numbers agree.

use rankeval::compare::stats::{self, Gate, Margin, Test};
use rankeval::compare::{Baseline, GateSpec, Settings, compare, parse_results};
use rankeval_report::{MetricColumn, OutputFormat, Render, RenderOptions, Report, RunResult};

/// Per-query values in [0, 1], different for each run and metric.
fn column(n: usize, salt: u64, shift: f64) -> Vec<f64> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ salt.wrapping_mul(0x2545_F491_4F6C_DD1D);
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state % 1000) as f64 / 999.0 + shift).clamp(0.0, 1.0)
        })
        .collect()
}

fn run(name: &str, queries: &[String], salt: u64, shift: f64, metrics: usize) -> RunResult {
    let per_query: Vec<Vec<f64>> = (0..metrics)
        .map(|m| column(queries.len(), salt * 10 + m as u64, shift))
        .collect();
    RunResult {
        name: name.into(),
        queries: queries.to_vec(),
        aggregates: per_query
            .iter()
            .map(|c| vec![stats::paired::mean(c)])
            .collect(),
        per_query,
        intervals: Vec::new(),
        groups: Vec::new(),
        corpus: Vec::new(),
    }
}

fn queries(n: usize) -> Vec<String> {
    let mut q: Vec<String> = (0..n).map(|i| format!("q{i:03}")).collect();
    q.sort();
    q
}

/// Three runs (`bm25`, `dense` a little better, `hybrid` much better) on
/// `n` queries and two metrics.
fn report(n: usize) -> Report {
    let q = queries(n);
    Report {
        metrics: vec![
            MetricColumn {
                name: "ndcg@10".into(),
                trec: None,
            },
            MetricColumn {
                name: "ap".into(),
                trec: None,
            },
        ],
        aggregators: vec!["mean".into()],
        corpus: Vec::new(),
        runs: vec![
            run("bm25", &q, 1, 0.0, 2),
            run("dense", &q, 2, 0.02, 2),
            run("hybrid", &q, 3, 0.3, 2),
        ],
        warnings: Vec::new(),
    }
}

fn gate(metric: &str, run: Option<&str>, gate: Gate) -> GateSpec {
    GateSpec {
        run: run.map(str::to_owned),
        metric: metric.into(),
        gate,
        group: None,
    }
}

fn plan(baseline: Option<&str>, gates: Vec<GateSpec>) -> rankeval::experiment::ComparisonPlan {
    rankeval::experiment::ComparisonPlan {
        baseline: baseline.map(|b| rankeval::experiment::BaselineRef::Run(b.into())),
        settings: Settings::default(),
        gates,
    }
}

#[test]
fn a_results_file_written_by_the_json_report_gives_the_same_comparison_as_the_run() {
    let report = report(50);
    let settings = Settings {
        test: Test::Bootstrap,
        resamples: 2000,
        ..Settings::default()
    };
    let by_run = compare(&report, Some(&Baseline::Run("bm25".into())), &settings, &[]).unwrap();
    let json = report.render(OutputFormat::Json, RenderOptions { per_query: true });
    let results = parse_results(&json, "baselines/prod.json", Some("bm25")).unwrap();
    // The file's baseline compared with the same report's runs, bm25 included.
    let by_file = compare(&report, Some(&Baseline::Results(results)), &settings, &[]).unwrap();
    assert_eq!(by_file.comparisons.len(), 6);
    for cell in &by_run.comparisons {
        let same = by_file.cell(&cell.run, &cell.metric).unwrap();
        let (a, b) = (same.result.as_ref().unwrap(), cell.result.as_ref().unwrap());
        // The file's family is one run larger (bm25 against itself): the
        // corrected p-values differ, every other number is the same bits.
        assert_eq!(
            (a.summary, a.interval, a.p_value),
            (b.summary, b.interval, b.p_value),
            "{} {}",
            cell.run,
            cell.metric
        );
    }
    let itself = by_file.cell("bm25", "ap").unwrap().result.as_ref().unwrap();
    assert_eq!(itself.summary.difference, 0.0);
    assert_eq!(itself.summary.outcomes.ties, 50);
    assert_eq!(
        serde_json::to_value(&by_file.baseline).unwrap(),
        serde_json::json!({"name": "bm25", "source": {"kind": "results", "path": "baselines/prod.json"}})
    );
    assert_eq!(by_file.provenance.seed, Some(42));
    assert_eq!(by_file.provenance.resamples, Some(2000));
}

#[test]
fn latex_marks_the_runs_a_value_is_significantly_better_than() {
    let compared =
        rankeval::compare::run_plan(&plan(Some("bm25"), Vec::new()), report(80), &[]).unwrap();
    let latex =
        rankeval_report::render_compared(&compared, OutputFormat::Latex, RenderOptions::default());
    // hybrid (c) is significantly better than bm25 (a) on both metrics;
    // dense (b) is not.
    assert_eq!(latex.matches("$^{a}$").count(), 2, "{latex}");
    assert!(latex.contains("c & hybrid & \\textbf{"), "{latex}");
    insta::assert_snapshot!(latex);
}

#[test]
fn markdown_lists_every_gate_with_its_deciding_bound() {
    let gates = vec![
        gate("ap", None, Gate::Superior { alpha: 0.05 }),
        gate(
            "ndcg@10",
            Some("dense"),
            Gate::NonInferior {
                margin: Margin::Relative(0.02),
            },
        ),
    ];
    let compared =
        rankeval::compare::run_plan(&plan(Some("bm25"), gates), report(80), &[]).unwrap();
    let markdown = rankeval_report::render_compared(
        &compared,
        OutputFormat::Markdown,
        RenderOptions::default(),
    );
    insta::assert_snapshot!(markdown);
}
