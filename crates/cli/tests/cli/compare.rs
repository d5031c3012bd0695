//! Comparisons and gates through the binary: the worked example
//! (`examples/compare`, a committed baseline results file and a candidate
//! that fails one gate) in every format, the same from flags, and exit
//! codes 0 (gates pass, or `--no-fail`), 1 (a gate fails) and 2 (a bad
//! gate, baseline or setting, found before any data is read).

use crate::cli::{run_in, scratch, transcript, workspace};
use crate::rankeval_snapshot;

const EXAMPLE: &str = "examples/compare/experiment.toml";

#[test]
fn example_table_fails_one_gate_with_exit_code_1() {
    rankeval_snapshot!("compare_example_table", &["run", EXAMPLE]);
}

#[test]
fn example_markdown_with_no_fail_exits_0() {
    rankeval_snapshot!(
        "compare_example_markdown_no_fail",
        &["run", EXAMPLE, "--format", "markdown", "--no-fail"]
    );
}

#[test]
fn example_json_has_every_number_and_the_provenance() {
    rankeval_snapshot!(
        "compare_example_json",
        &["run", EXAMPLE, "--format", "json"]
    );
    let (code, stdout, _) = super::run(&["run", EXAMPLE, "--format", "json"]);
    assert_eq!(code, 1);
    let document: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
    let comparison = &document["comparison"];
    assert_eq!(comparison["provenance"]["seed"], 42);
    assert_eq!(comparison["provenance"]["test"], "randomization");
    assert_eq!(comparison["gates"].as_array().unwrap().len(), 3);
    // The baseline from the file is the report's first run.
    assert_eq!(document["runs"][0]["name"], "prod");
}

#[test]
fn example_csv() {
    rankeval_snapshot!("compare_example_csv", &["run", EXAMPLE, "--format", "csv"]);
}

#[test]
fn example_latex() {
    rankeval_snapshot!(
        "compare_example_latex",
        &["run", EXAMPLE, "--format", "latex"]
    );
}

#[test]
fn example_html_holds_the_gates() {
    let (code, stdout, _) = super::run(&["run", EXAMPLE, "--format", "html"]);
    assert_eq!(code, 1);
    assert!(stdout.contains("<b>FAIL</b> candidate ap:superior(alpha=0.05)"));
    assert!(stdout.contains("Baseline: <b>prod</b>. "));
    // The baseline from a results file has values, not ranked lists: no
    // curve, and the legend and the note say so; the candidate has its own.
    assert!(stdout.contains("No curve for prod: only per-query values are known"));
    assert!(stdout.contains(">prod (no curve)<"));
    assert!(!stdout.contains("candidate (no curve)"));
}

#[test]
fn flags_compare_and_gate_without_a_toml_file_exit_0_when_gates_pass() {
    rankeval_snapshot!(
        "compare_flags_pass",
        &[
            "eval",
            "--qrels",
            "examples/quickstart/qrels.txt",
            "--run",
            "examples/quickstart/runs/baseline.trec",
            "--run",
            "examples/quickstart/runs/v2.jsonl",
            "-m",
            "ndcg@10",
            "-m",
            "rr",
            "--baseline",
            "baseline",
            "--test",
            "bootstrap",
            "--resamples",
            "2000",
            "--gate",
            "ndcg@10:non_inferior(margin=2%)",
            "--gate",
            "rr:at_least(0.9)",
        ]
    );
}

#[test]
fn flags_with_a_results_file_as_baseline_fail_a_gate_with_exit_code_1() {
    rankeval_snapshot!(
        "compare_flags_results_file_fail",
        &[
            "eval",
            "--qrels",
            "examples/compare/qrels.txt",
            "--run",
            "examples/compare/runs/candidate.jsonl",
            "-m",
            "ap",
            "--baseline",
            "examples/compare/baselines/prod.json",
            "--gate",
            "ap:superior",
            "--format",
            "markdown",
        ]
    );
}

#[test]
fn all_pairs_without_a_baseline() {
    rankeval_snapshot!(
        "compare_all_pairs",
        &[
            "eval",
            "--qrels",
            "examples/quickstart/qrels.txt",
            "--run",
            "examples/quickstart/runs/baseline.trec",
            "--run",
            "examples/quickstart/runs/v2.jsonl",
            "-m",
            "ndcg@10",
            "--all-pairs",
            "--resamples",
            "1000",
        ]
    );
}

#[test]
fn bad_gate_flags_exit_2_before_reading() {
    let cases: [(&str, &[&str]); 4] = [
        ("compare_flag_unknown_rule", &["--gate", "ndcg@10:better"]),
        (
            "compare_flag_gate_unknown_metric",
            &["--baseline", "baseline", "--gate", "map:superior"],
        ),
        (
            "compare_flag_gate_needs_baseline",
            &["--gate", "ndcg@10:superior"],
        ),
        ("compare_flag_unknown_baseline", &["--baseline", "prod"]),
    ];
    for (name, extra) in cases {
        let mut args = vec![
            "eval",
            "--qrels",
            "examples/quickstart/qrels.txt",
            "--run",
            "examples/quickstart/runs/baseline.trec",
            "-m",
            "ndcg@10",
        ];
        args.extend_from_slice(extra);
        insta::assert_snapshot!(name, transcript(&args, super::run(&args)));
    }
}

/// An experiment file next to the quickstart's data, with `tail` appended.
fn experiment(tail: &str) -> tempfile::TempDir {
    let root = workspace();
    let qrels = std::fs::read_to_string(root.join("examples/quickstart/qrels.txt")).unwrap();
    let run = std::fs::read_to_string(root.join("examples/quickstart/runs/baseline.trec")).unwrap();
    let v2 = std::fs::read_to_string(root.join("examples/quickstart/runs/v2.jsonl")).unwrap();
    let text = format!(
        "qrels = \"qrels.txt\"\n{tail}\n[[runs]]\nname = \"bm25\"\npath = \"bm25.trec\"\n\n\
         [[runs]]\nname = \"v2\"\npath = \"v2.jsonl\"\n"
    );
    scratch(&[
        ("exp.toml", &text),
        ("qrels.txt", &qrels),
        ("bm25.trec", &run),
        ("v2.jsonl", &v2),
        (
            "empty.json",
            "{\"runs\": [{\"name\": \"x\", \"metrics\": {}}]}",
        ),
    ])
}

#[test]
fn bad_comparison_settings_in_toml_name_file_line_and_key() {
    let cases = [
        ("compare_toml_unknown_baseline", "baseline = \"prod\"\n"),
        (
            "compare_toml_unknown_compare_key",
            "[compare]\ntest = \"t\"\nseeds = 4\n",
        ),
        ("compare_toml_unknown_test", "[compare]\ntest = \"anova\"\n"),
        ("compare_toml_bad_alpha", "[compare]\nalpha = 1.5\n"),
        (
            "compare_toml_gate_without_margin",
            "baseline = \"bm25\"\n[[gates]]\nmetric = \"ndcg@10\"\nrule = \"non_inferior\"\n",
        ),
        (
            "compare_toml_gate_unknown_metric",
            "baseline = \"bm25\"\n[[gates]]\nmetric = \"ndcg@5\"\nrule = \"superior\"\n",
        ),
        (
            "compare_toml_gate_wrong_parameter",
            "baseline = \"bm25\"\n[[gates]]\nmetric = \"ndcg@10\"\nrule = \"superior\"\nfloor = 0.3\n",
        ),
        (
            "compare_toml_baseline_file_missing",
            "baseline = { results = \"prod.json\" }\n",
        ),
        (
            "compare_toml_baseline_file_without_per_query",
            "baseline = { results = \"empty.json\" }\n",
        ),
    ];
    for (name, tail) in cases {
        let dir = experiment(&format!(
            "metrics = [{{ type = \"ndcg\", k = 10 }}]\n{tail}"
        ));
        let args = ["run", "exp.toml"];
        insta::assert_snapshot!(name, transcript(&args, run_in(dir.path(), &args)));
    }
}

#[test]
fn several_experiment_files_give_one_report_and_the_worst_exit_code() {
    rankeval_snapshot!(
        "compare_suite_table",
        &["run", EXAMPLE, "examples/quickstart/experiment.toml"]
    );
    let (code, stdout, _) = super::run(&[
        "run",
        "examples/quickstart/experiment.toml",
        EXAMPLE,
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let document: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
    let experiments = document["experiments"].as_array().unwrap();
    assert_eq!(experiments.len(), 2);
    assert_eq!(
        experiments[0]["experiment"],
        "examples/quickstart/experiment.toml"
    );
    assert!(experiments[0].get("comparison").is_none());
    assert_eq!(experiments[1]["comparison"]["baseline"]["name"], "prod");
    // Every file is checked before any is run.
    let (code, stdout, stderr) = super::run(&["run", EXAMPLE, "examples/nope.toml"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(stderr.contains("examples/nope.toml"), "{stderr}");
    let (code, _, stderr) = super::run(&["run", EXAMPLE, EXAMPLE, "--format", "html"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("one experiment file at a time"), "{stderr}");
}

/// `[compare] bootstrap` picks the bootstrap's variant: the JSON
/// provenance names it as asked, each comparison the variant used; the
/// flag does the same; an unknown variant is refused naming the key.
#[test]
fn the_bootstrap_variant_is_configured_and_reported() {
    let json = |args: &[&str], dir: &std::path::Path| {
        let (code, stdout, stderr) = run_in(dir, args);
        assert_eq!(code, 0, "{stderr}");
        let document: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
        document["comparison"].clone()
    };
    for (setting, asked, used) in [
        ("", "auto", "multinomial"),
        (
            "bootstrap = \"multinomial\"\n",
            "multinomial",
            "multinomial",
        ),
        (
            "bootstrap = \"double-or-nothing\"\n",
            "double_or_nothing",
            "double_or_nothing",
        ),
    ] {
        let dir = experiment(&format!(
            "metrics = [{{ type = \"ndcg\", k = 10 }}]\nbaseline = \"bm25\"\n\
             [compare]\ntest = \"bootstrap\"\n{setting}"
        ));
        let comparison = json(&["run", "exp.toml", "--format", "json"], dir.path());
        assert_eq!(comparison["provenance"]["bootstrap"], asked, "{setting}");
        assert_eq!(
            comparison["provenance"]["multinomial_up_to"].as_u64(),
            (asked == "auto").then_some(10_000),
        );
        assert_eq!(comparison["comparisons"][0]["bootstrap"], used, "{setting}");
        let generator = if used == "double_or_nothing" {
            "ChaCha8 "
        } else {
            "ChaCha20 "
        };
        let rng = comparison["provenance"]["rng"].as_str().unwrap_or_default();
        assert!(rng.starts_with(generator), "{setting}: {rng}");
    }
    let dir = experiment("");
    let comparison = json(
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "bm25.trec",
            "--run",
            "v2.jsonl",
            "-m",
            "ap",
            "--baseline",
            "bm25",
            "--test",
            "bootstrap",
            "--bootstrap",
            "double-or-nothing",
            "--format",
            "json",
        ],
        dir.path(),
    );
    assert_eq!(comparison["provenance"]["bootstrap"], "double_or_nothing");
    assert_eq!(
        comparison["comparisons"][0]["bootstrap"],
        "double_or_nothing"
    );
    // The t-test's provenance has no bootstrap.
    let t = json(
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "bm25.trec",
            "--run",
            "v2.jsonl",
            "-m",
            "ap",
            "--baseline",
            "bm25",
            "--format",
            "json",
        ],
        dir.path(),
    );
    assert!(t["provenance"].get("bootstrap").is_none(), "{t}");
    let dir = experiment(
        "metrics = [{ type = \"ndcg\", k = 10 }]\n[compare]\ntest = \"bootstrap\"\nbootstrap = \"poisson\"\n",
    );
    let args = ["run", "exp.toml"];
    insta::assert_snapshot!(
        "compare_toml_unknown_bootstrap",
        transcript(&args, run_in(dir.path(), &args))
    );
}

/// The comparison settings take the spellings of the flags (kebab-case)
/// and of TOML and the docs (snake_case) alike, on the command line and in
/// TOML: each pair gives the same report.
#[test]
fn both_spellings_of_the_comparison_settings_are_accepted_everywhere() {
    let flags = |correction: &str, bootstrap: &str, family: &str| {
        let base = [
            "eval",
            "--qrels",
            "examples/quickstart/qrels.txt",
            "--run",
            "examples/quickstart/runs/baseline.trec",
            "--run",
            "examples/quickstart/runs/v2.jsonl",
            "-m",
            "ndcg@10",
            "-m",
            "rr",
            "--baseline",
            "baseline",
            "--test",
            "bootstrap",
            "--resamples",
            "500",
        ];
        let (code, stdout, stderr) = crate::cli::run(
            &[
                &base[..],
                &[
                    "--correction",
                    correction,
                    "--bootstrap",
                    bootstrap,
                    "--family",
                    family,
                ],
            ]
            .concat(),
        );
        assert_eq!(code, 0, "{correction} {bootstrap} {family}: {stderr}");
        stdout
    };
    let kebab = flags("benjamini-hochberg", "double-or-nothing", "per-metric");
    assert_eq!(
        kebab,
        flags("benjamini_hochberg", "double_or_nothing", "per_metric")
    );
    assert!(kebab.contains("benjamini_hochberg"), "{kebab}");
    assert_eq!(
        flags("bh", "multinomial", "runs-x-metrics"),
        flags("fdr_bh", "multinomial", "runs_x_metrics")
    );
    let qrels = std::fs::read_to_string(workspace().join("examples/quickstart/qrels.txt")).unwrap();
    let baseline =
        std::fs::read_to_string(workspace().join("examples/quickstart/runs/baseline.trec"))
            .unwrap();
    let v2 =
        std::fs::read_to_string(workspace().join("examples/quickstart/runs/v2.jsonl")).unwrap();
    let toml = |correction: &str, bootstrap: &str, family: &str| {
        format!(
            "qrels = \"qrels.txt\"\nbaseline = \"baseline\"\nmetrics = [\"ndcg@10\", \"rr\"]\n\n\
             [[runs]]\npath = \"baseline.trec\"\n\n[[runs]]\npath = \"v2.jsonl\"\n\n\
             [compare]\ntest = \"bootstrap\"\nresamples = 500\ncorrection = \"{correction}\"\n\
             bootstrap = \"{bootstrap}\"\nfamily = \"{family}\"\n"
        )
    };
    let dir = scratch(&[
        ("qrels.txt", &qrels),
        ("baseline.trec", &baseline),
        ("v2.jsonl", &v2),
        (
            "snake.toml",
            &toml("benjamini_hochberg", "double_or_nothing", "per_metric"),
        ),
        (
            "kebab.toml",
            &toml("benjamini-hochberg", "double-or-nothing", "per-metric"),
        ),
    ]);
    let snake = run_in(dir.path(), &["run", "snake.toml"]);
    let kebab_toml = run_in(dir.path(), &["run", "kebab.toml"]);
    assert_eq!(snake.0, 0, "{}", snake.2);
    assert_eq!(snake, kebab_toml);
}

/// `--interval jackknife`: each difference's interval is the
/// delete-a-group jackknife over the queries grouped by Spark's xxhash64 of
/// their id (`rankeval_stats::keyed::GroupedSums`, tested in that crate),
/// fed here from the command's own per-query values; the p-value stays the
/// test's; the report and provenance say so; the same from TOML; refused
/// without a baseline and with a bad group count.
#[test]
fn a_jackknife_interval_keyed_by_query() {
    let base = [
        "eval",
        "--qrels",
        "examples/judgements/llm.qrels",
        "--run",
        "examples/judgements/bm25.trec",
        "--run",
        "examples/judgements/dense.trec",
        "-m",
        "ndcg@5",
        "--baseline",
        "bm25",
        "--format",
        "json",
        "--per-query",
    ];
    let json = |extra: &[&str]| -> serde_json::Value {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        let (code, out, stderr) = super::run(&args);
        assert_eq!(code, 0, "{stderr}");
        serde_json::from_str(&out).unwrap()
    };
    let plain = json(&[]);
    let report = json(&["--interval", "jackknife", "--jackknife-groups", "7"]);
    // The per-query values from CSV: Rust's own float parsing is exact
    // (serde_json's default is not, to the last bit).
    let mut args = base[..base.len() - 5].to_vec();
    args.extend_from_slice(&["--per-query", "--format", "csv"]);
    let (code, csv, stderr) = super::run(&args);
    assert_eq!(code, 0, "{stderr}");
    let (bm25, dense) = (one_metric_csv(&csv, "bm25"), one_metric_csv(&csv, "dense"));
    assert_eq!(bm25.len(), 40);
    let mut sums = rankeval_stats::keyed::GroupedSums::new(7).unwrap();
    for ((q, b), (q2, d)) in bm25.iter().zip(&dense) {
        assert_eq!(q, q2);
        sums.add(q.as_bytes(), d - b).unwrap();
    }
    let want = sums.jackknife_interval(0.95).unwrap();
    let cell = &report["comparison"]["comparisons"][0];
    assert_eq!(cell["interval"]["lower"].as_f64().unwrap(), want.lower);
    assert_eq!(cell["interval"]["upper"].as_f64().unwrap(), want.upper);
    let t_cell = &plain["comparison"]["comparisons"][0];
    assert_ne!(cell["interval"], t_cell["interval"]);
    assert_eq!(cell["p_value"], t_cell["p_value"], "the test's p-value");
    let provenance = &report["comparison"]["provenance"];
    assert_eq!(provenance["interval_method"], "jackknife");
    assert_eq!(provenance["jackknife_groups"], 7);
    assert!(
        plain["comparison"]["provenance"]
            .get("jackknife_groups")
            .is_none()
    );
    // The table says which interval it is.
    let (code, table, _) = super::run(&[
        "eval",
        "--qrels",
        "examples/judgements/llm.qrels",
        "--run",
        "examples/judgements/bm25.trec",
        "--run",
        "examples/judgements/dense.trec",
        "-m",
        "ndcg@5",
        "--baseline",
        "bm25",
        "--interval",
        "jackknife",
    ]);
    assert_eq!(code, 0);
    assert!(
        table.contains("95% delete-a-group jackknife interval (20 groups of queries by id hash)"),
        "{table}"
    );
    // TOML: [compare] interval = "jackknife", jackknife_groups = 7.
    let root = super::workspace();
    let toml = format!(
        "qrels = \"{q}\"\nbaseline = \"bm25\"\n[[runs]]\nname = \"bm25\"\npath = \"{b}\"\n\
         [[runs]]\nname = \"dense\"\npath = \"{d}\"\n[[metrics]]\ntype = \"ndcg\"\nk = 5\n\
         [compare]\ninterval = \"jackknife\"\njackknife_groups = 7\n",
        q = root.join("examples/judgements/llm.qrels").display(),
        b = root.join("examples/judgements/bm25.trec").display(),
        d = root.join("examples/judgements/dense.trec").display(),
    );
    let dir = super::scratch(&[("e.toml", &toml)]);
    let (code, out, stderr) = super::run_in(dir.path(), &["run", "e.toml", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let from_toml: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        from_toml["comparison"]["comparisons"][0]["interval"],
        cell["interval"]
    );
    // Refusals.
    for (extra, message) in [
        (
            &["--interval", "jackknife", "--jackknife-groups", "1"][..],
            "at least 2",
        ),
        (
            &["--interval", "test", "--jackknife-groups", "5"][..],
            "goes with --interval jackknife",
        ),
    ] {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        let (code, _, stderr) = super::run(&args);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(message), "{stderr}");
    }
    let (code, _, stderr) = super::run(&[
        "eval",
        "--qrels",
        "examples/judgements/llm.qrels",
        "--run",
        "examples/judgements/bm25.trec",
        "--run",
        "examples/judgements/dense.trec",
        "-m",
        "ndcg@5",
        "--interval",
        "jackknife",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("with a --baseline"), "{stderr}");
}

/// `--test bootstrap-keyed` and, without a baseline, `--test
/// randomization-keyed` (the keyed randomized Tukey HSD): the command's
/// intervals and p-values are those of `rankeval_stats`'s keyed states
/// (tested against their definitions in that crate) fed with the
/// command's own per-query values and query ids; the provenance names the
/// keyed generators; the keyed bootstrap is refused without a baseline.
#[test]
fn keyed_bootstrap_and_keyed_tukey_from_the_commands_values() {
    let base = [
        "eval",
        "--qrels",
        "examples/judgements/llm.qrels",
        "--run",
        "examples/judgements/bm25.trec",
        "--run",
        "examples/judgements/dense.trec",
        "-m",
        "ndcg@5",
        "--resamples",
        "400",
        "--seed",
        "9",
    ];
    let run = |extra: &[&str]| -> (i32, String, String) {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        super::run(&args)
    };
    // The per-query values, without the comparison flags.
    let mut args = base[..base.len() - 4].to_vec();
    args.extend_from_slice(&["--per-query", "--format", "csv"]);
    let (code, csv, stderr) = super::run(&args);
    assert_eq!(code, 0, "{stderr}");
    let (bm25, dense) = (one_metric_csv(&csv, "bm25"), one_metric_csv(&csv, "dense"));
    assert_eq!(bm25.len(), 40);
    let mut boot = rankeval_stats::KeyedBootstrap::new(400, 9).unwrap();
    let mut tukey = rankeval_stats::KeyedTukey::new(2, 400, 9).unwrap();
    for ((q, b), (q2, d)) in bm25.iter().zip(&dense) {
        assert_eq!(q, q2);
        boot.add(q.as_bytes(), d - b).unwrap();
        tukey.add(q.as_bytes(), &[*b, *d]).unwrap();
    }
    let want = boot.result(0.95).unwrap();
    let (code, out, stderr) = run(&[
        "--baseline",
        "bm25",
        "--test",
        "bootstrap-keyed",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cell = &report["comparison"]["comparisons"][0];
    assert_eq!(
        cell["interval"]["lower"].as_f64().unwrap(),
        want.interval.lower
    );
    assert_eq!(
        cell["interval"]["upper"].as_f64().unwrap(),
        want.interval.upper
    );
    assert_eq!(cell["p_value"].as_f64().unwrap(), want.p_value);
    let provenance = &report["comparison"]["provenance"];
    assert_eq!(provenance["test"], "bootstrap_keyed");
    assert_eq!(provenance["interval_method"], "bootstrap_percentile");
    assert_eq!(provenance["rng"], rankeval_stats::KEYED_BOOTSTRAP_RNG_NAME);

    let want = tukey.result().unwrap();
    let (code, out, stderr) = run(&[
        "--all-pairs",
        "--test",
        "randomization-keyed",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cell = &report["comparison"]["comparisons"][0];
    assert_eq!(
        (cell["baseline"].as_str(), cell["run"].as_str()),
        (Some("bm25"), Some("dense"))
    );
    assert_eq!(cell["p_value"].as_f64().unwrap(), want.pairs[0].p_value);
    let provenance = &report["comparison"]["provenance"];
    assert_eq!(provenance["test"], "randomized_tukey_hsd_keyed");
    assert_eq!(provenance["rng"], rankeval_stats::KEYED_TUKEY_RNG_NAME);
    // Without the keyed test, all pairs get the position-drawn Tukey HSD.
    let (code, out, _) = run(&["--all-pairs", "--format", "json"]);
    assert_eq!(code, 0);
    let plain: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        plain["comparison"]["provenance"]["test"],
        "randomized_tukey_hsd"
    );

    let (code, _, stderr) = run(&["--test", "bootstrap-keyed"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("the keyed bootstrap is for differences with a baseline"),
        "{stderr}"
    );
}

/// Run `run`'s `(query, value)` pairs, queries in byte order, from the
/// `--per-query --format csv` output of one metric (Rust's own float
/// parsing is exact, serde_json's is not to the last bit).
fn one_metric_csv(csv: &str, run: &str) -> Vec<(String, f64)> {
    let mut v: Vec<(String, f64)> = csv
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            (f.len() == 4 && f[0] == run && !f[1].is_empty())
                .then(|| (f[1].to_owned(), f[3].parse().unwrap()))
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// Resamples past the bound (which would allocate gigabytes up front), too
/// few for a bootstrap's percentile interval, and the keyed bootstrap with
/// the multinomial variant (which it does not have): errors (exit 2) that
/// give the bound, the minimum or the reason, from the flags, TOML and
/// `ci(resamples=...)`, before any data is read.
#[test]
fn resamples_out_of_bounds_and_the_keyed_multinomial_are_refused() {
    let flags = |extra: &[&str]| {
        let mut args = vec![
            "eval",
            "--qrels",
            "examples/quickstart/qrels.txt",
            "--run",
            "examples/quickstart/runs/baseline.trec",
            "--run",
            "examples/quickstart/runs/v2.jsonl",
            "-m",
            "ap",
        ];
        args.extend_from_slice(extra);
        super::run(&args)
    };
    for (extra, expected) in [
        (
            &["--baseline", "baseline", "--resamples", "100000000000"][..],
            "--resamples 100000000000: 100000000000 resamples is more than the 1000000",
        ),
        (
            &["--all-pairs", "--resamples", "1000001"][..],
            "1000001 resamples is more than the 1000000",
        ),
        (
            &["-a", "ci(method=bca,resamples=100000000000)"][..],
            "resamples: 100000000000 resamples is more than the 1000000",
        ),
        (
            &[
                "--baseline",
                "baseline",
                "--test",
                "bootstrap-keyed",
                "--bootstrap",
                "multinomial",
            ][..],
            "--bootstrap multinomial with --test bootstrap-keyed: the keyed bootstrap weights \
             each query 0 or 2",
        ),
        (
            &[
                "--baseline",
                "baseline",
                "--test",
                "bootstrap-keyed",
                "--resamples",
                "1",
            ][..],
            "--resamples 1: 1 resamples are too few for a percentile interval at level 0.95",
        ),
        (
            &[
                "--baseline",
                "baseline",
                "--test",
                "bootstrap",
                "--resamples",
                "18",
                "--confidence",
                "0.9",
            ][..],
            "which needs at least 19",
        ),
    ] {
        let (code, stdout, stderr) = flags(extra);
        assert_eq!(code, 2, "{extra:?}: {stderr}");
        assert!(stderr.contains(expected), "{extra:?}: {stderr}");
        assert!(stdout.is_empty(), "{stdout}");
    }
    // At the minimum, the interval holds the estimate.
    let (code, _, stderr) = flags(&[
        "--baseline",
        "baseline",
        "--test",
        "bootstrap-keyed",
        "--resamples",
        "39",
    ]);
    assert_eq!(code, 0, "{stderr}");
    for (tail, expected) in [
        (
            "[compare]\nresamples = 100000000000\n",
            "exp.toml:5: compare.resamples: 100000000000 resamples is more than the 1000000",
        ),
        (
            "[compare]\ntest = \"bootstrap_keyed\"\nbootstrap = \"multinomial\"\n",
            "compare.bootstrap: \"multinomial\" with test = \"bootstrap_keyed\": the keyed \
             bootstrap weights each query 0 or 2",
        ),
        (
            "[compare]\ntest = \"bootstrap\"\nresamples = 10\n",
            "exp.toml:6: compare.resamples: 10 resamples are too few",
        ),
        (
            "aggregators = [\"ci(method=bca,resamples=2000000)\"]\n",
            "2000000 resamples is more than the 1000000",
        ),
    ] {
        let dir = experiment(&format!(
            "metrics = [{{ type = \"ndcg\", k = 10 }}]\nbaseline = \"bm25\"\n{tail}"
        ));
        let (code, _, stderr) = run_in(dir.path(), &["run", "exp.toml"]);
        assert_eq!(code, 2, "{tail}: {stderr}");
        assert!(stderr.contains(expected), "{tail}: {stderr}");
    }
}
