//! Comparisons and the renderers: a results file written by the JSON
//! report gives the comparison the run gives, and the LaTeX and Markdown of
//! a comparison with gates. The runs are those of `rankeval`'s own
//! `compare` tests (made-up per-query values), so the numbers agree.

use rankeval::compare::stats::{Gate, Margin, Test};
use rankeval::compare::{Baseline, GateSpec, Settings, compare, parse_results};
use rankeval_report::{OutputFormat, Render, RenderOptions};

#[path = "../../rankeval/tests/common/compare_runs.rs"]
mod compare_runs;

use compare_runs::report;

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
