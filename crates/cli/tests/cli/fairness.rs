//! Exposure fairness from the command line and TOML: sampled runs
//! (`--samples`, expeval's layout) scored by expected exposure, document
//! groups (`--doc-groups`) read by AWRF and TREC Fair 2021's score, a
//! fairness gate, and the errors about these inputs.

use super::{run_in, scratch, transcript};

/// expeval's README example (two sampled rankings of q1, d1 and d2
/// relevant) and a second query; groups of documents.
const FILES: &[(&str, &str)] = &[
    ("example.qrels", "q1 0 d1 1\nq1 0 d2 1\n"),
    (
        "example.trec",
        "q1 s1 d1 1 3 t\nq1 s1 d2 2 2 t\nq1 s1 d3 3 1 t\n\
         q1 s2 d2 1 3 t\nq1 s2 d1 2 2 t\nq1 s2 d3 3 1 t\n",
    ),
    (
        "qrels.txt",
        "q1 0 d1 1\nq1 0 d2 1\nq2 0 d4 2\nq2 0 d5 1\nq2 0 d6 0\nq2 0 d7 1\n",
    ),
    (
        "base.trec",
        "q1 s1 d1 1 3 t\nq1 s1 d2 2 2 t\nq1 s1 d3 3 1 t\n\
         q1 s2 d2 1 3 t\nq1 s2 d1 2 2 t\nq1 s2 d3 3 1 t\n\
         q2 s1 d4 1 3 t\nq2 s1 d5 2 2 t\nq2 s1 d6 3 1 t\n\
         q2 s2 d5 1 3 t\nq2 s2 d4 2 2 t\nq2 s2 d6 3 1 t\n",
    ),
    (
        "cand.trec",
        "q1 s1 d3 1 3 t\nq1 s1 d1 2 2 t\nq1 s1 d2 3 1 t\n\
         q2 s1 d6 1 3 t\nq2 s1 d4 2 2 t\nq2 s1 d5 3 1 t\n",
    ),
    (
        "det.trec",
        "q1 Q0 d1 1 3 t\nq1 Q0 d3 2 2 t\nq1 Q0 d2 3 1 t\n\
         q2 Q0 d4 1 3 t\nq2 Q0 d6 2 2 t\nq2 Q0 d5 3 1 t\n",
    ),
    (
        "groups.csv",
        "doc,group,weight\nd1,north,1\nd2,south,1\nd3,north,0.5\nd3,south,0.5\n\
         d4,north,1\nd5,south,1\nd6,south,1\nd7,north,1\n",
    ),
    ("repeats.txt", "d1 north\nd1 north 1\nd2 south\n"),
    ("weightless.txt", "d1 north 0\nd2 south 0\n"),
    ("conflict.txt", "d1 north 1\nd1 north 0.5\n"),
    ("run.jsonl", "{\"query\": \"q1\", \"ranked\": [\"d1\"]}\n"),
    (
        "exp.toml",
        "qrels = \"qrels.txt\"\ndoc_groups = \"groups.csv\"\nsamples = true\n\
         [[runs]]\npath = \"base.trec\"\n[[metrics]]\ntype = \"ee_l\"\nmodel = \"rbp\"\n\
         [[metrics]]\ntype = \"awrf\"\ntarget = \"uniform\"\n",
    ),
    (
        "missing.toml",
        "qrels = \"qrels.txt\"\n[[runs]]\npath = \"det.trec\"\n[[metrics]]\ntype = \"awrf\"\n",
    ),
];

fn in_scratch(name: &str, args: &[&str]) {
    let dir = scratch(FILES);
    let out = run_in(dir.path(), args);
    insta::assert_snapshot!(name, transcript(args, out));
}

const EXPECTED_EXPOSURE: &[&str] = &[
    "-m",
    "ee_d(model=rbp)",
    "-m",
    "ee_r(model=rbp)",
    "-m",
    "ee_l(model=rbp)",
    "-m",
    "ee_d(model=rbp,norm=false)",
    "-m",
    "ee_r(model=rbp,norm=false)",
    "-m",
    "ee_l(model=rbp,norm=false)",
];

#[test]
fn expevals_example_end_to_end() {
    let mut args = vec![
        "eval",
        "--qrels",
        "example.qrels",
        "--run",
        "example.trec",
        "--samples",
        "--format",
        "json",
    ];
    args.extend(EXPECTED_EXPOSURE);
    let dir = scratch(FILES);
    let (code, stdout, stderr) = run_in(dir.path(), &args);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let text = report.to_string();
    // expeval's README: EE-D 1.1875, EE-R 1.125, EE-L 0.0625; normalised
    // 0.890625, 1.0, 0.02.
    for (metric, value) in [
        ("ee_d(model=rbp)", 0.890625),
        ("ee_r(model=rbp)", 1.0),
        ("ee_l(model=rbp)", 0.02),
        ("ee_d(model=rbp,norm=false)", 1.1875),
        ("ee_r(model=rbp,norm=false)", 1.125),
        ("ee_l(model=rbp,norm=false)", 0.0625),
    ] {
        let got = mean_of(&report, metric);
        assert!(
            (got - value).abs() < 1e-12,
            "{metric}: {got} != {value} in {text}"
        );
    }
    let mut args = vec![
        "eval",
        "--qrels",
        "example.qrels",
        "--run",
        "example.trec",
        "--samples",
    ];
    args.extend(EXPECTED_EXPOSURE);
    in_scratch("fairness_expeval_example", &args);
}

/// The mean of `metric` in a JSON report of one run.
fn mean_of(report: &serde_json::Value, metric: &str) -> f64 {
    report["runs"][0]["metrics"][metric]["mean"]
        .as_f64()
        .unwrap_or_else(|| panic!("no mean of {metric} in {report}"))
}

#[test]
fn group_fairness_of_a_deterministic_run_and_of_samples() {
    in_scratch(
        "fairness_groups",
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--doc-groups",
            "groups.csv",
            "--run",
            "det.trec",
            "-m",
            "awrf",
            "-m",
            "awrf(target=uniform)",
            "-m",
            "trec_fair@1000",
            "-m",
            "ee_l",
            "--per-query",
        ],
    );
    in_scratch("fairness_toml", &["run", "exp.toml", "--per-query"]);
}

#[test]
fn a_fairness_gate() {
    in_scratch(
        "fairness_gate",
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--samples",
            "--run",
            "base.trec",
            "--run",
            "cand.trec",
            "-m",
            "ee_r(model=rbp,norm=false)",
            "-m",
            "ee_l(model=rbp)",
            "--baseline",
            "base",
            "--test",
            "permutation",
            "--resamples",
            "1000",
            "--gate",
            "ee_r(model=rbp,norm=false):at_least(1.1)",
        ],
    );
}

#[test]
fn errors_and_warnings_name_the_input() {
    let det = ["eval", "--qrels", "qrels.txt", "--run", "det.trec"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        det.iter().copied().chain(extra.iter().copied()).collect()
    };
    in_scratch("fairness_needs_groups", &with(&["-m", "awrf@10"]));
    in_scratch("fairness_needs_groups_toml", &["run", "missing.toml"]);
    in_scratch(
        "fairness_conflicting_weights",
        &with(&["--doc-groups", "conflict.txt", "-m", "awrf"]),
    );
    in_scratch(
        "fairness_repeats_counted",
        &with(&["--doc-groups", "repeats.txt", "-m", "awrf"]),
    );
    in_scratch(
        "fairness_weightless_groups",
        &with(&["--doc-groups", "weightless.txt", "-m", "awrf", "-m", "ap"]),
    );
    in_scratch(
        "fairness_groups_unused",
        &with(&["--doc-groups", "groups.csv", "-m", "ap"]),
    );
    in_scratch(
        "fairness_judged_only_refused",
        &with(&["-m", "ee_l(judged_only=true)"]),
    );
    // Document groups are a requirement like the others: --judged-only
    // and --bounds are refused for a metric that reads them.
    in_scratch(
        "fairness_judged_only_refused_for_groups",
        &with(&["--doc-groups", "groups.csv", "--judged-only", "-m", "awrf"]),
    );
    in_scratch("fairness_bad_patience", &with(&["-m", "ee_l(p=1)"]));
    // rankeval's JSON Lines run (one list per query) is not a sampled
    // run's rows: the row reader names the line and the missing key.
    in_scratch(
        "fairness_samples_of_json_lines",
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.jsonl",
            "--samples",
            "-m",
            "ee_l",
        ],
    );
    // Nor does it carry judgements, as a JSON Lines run of lists can.
    in_scratch(
        "fairness_samples_need_qrels",
        &["eval", "--run", "run.jsonl", "--samples", "-m", "ee_l"],
    );
    in_scratch(
        "fairness_explain_refused",
        &[
            "explain",
            "--qrels",
            "qrels.txt",
            "--run",
            "det.trec",
            "--query",
            "q1",
            "-m",
            "awrf",
        ],
    );
}

/// `explain` shows the fairness metrics' terms: group exposure against the
/// target with --doc-groups, each document's expected exposure and target
/// over a query's samples with --samples; each value is eval's.
#[test]
fn explain_shows_fairness_terms() {
    in_scratch(
        "fairness_explain_groups",
        &[
            "explain",
            "--qrels",
            "qrels.txt",
            "--doc-groups",
            "groups.csv",
            "--run",
            "det.trec",
            "--query",
            "q2",
            "-m",
            "awrf",
            "-m",
            "awrf(target=uniform)@2",
            "-m",
            "trec_fair@1000",
        ],
    );
    in_scratch(
        "fairness_explain_samples",
        &[
            "explain",
            "--qrels",
            "example.qrels",
            "--run",
            "example.trec",
            "--samples",
            "--query",
            "q1",
            "-m",
            "ee_l(model=rbp)",
            "-m",
            "ee_d(model=rbp,norm=false)",
            "-m",
            "ndcg",
        ],
    );
    in_scratch(
        "fairness_explain_samples_groups_markdown",
        &[
            "explain",
            "--qrels",
            "qrels.txt",
            "--doc-groups",
            "groups.csv",
            "--run",
            "base.trec",
            "--samples",
            "--query",
            "q2",
            "-m",
            "awrf",
            "-m",
            "ee_r",
            "--format",
            "markdown",
        ],
    );
    // A TOML experiment's groups and samples are explain's too.
    in_scratch(
        "fairness_explain_experiment",
        &["explain", "exp.toml", "--query", "q1"],
    );
    // Refusals: a JSON Lines run of lists as a sampled run, averaged ties.
    in_scratch(
        "fairness_explain_samples_of_json_lines",
        &[
            "explain",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.jsonl",
            "--samples",
            "--query",
            "q1",
            "-m",
            "ee_l",
        ],
    );
    in_scratch(
        "fairness_explain_samples_ties_average",
        &[
            "explain",
            "--qrels",
            "qrels.txt",
            "--run",
            "base.trec",
            "--samples",
            "--ties",
            "average",
            "--query",
            "q1",
            "-m",
            "ee_l",
        ],
    );
}

/// The value explain shows over a query's samples is the value eval
/// reports for that query, bit for bit, for every fairness metric.
#[test]
fn explain_over_samples_equals_eval() {
    let metrics = [
        "ee_l",
        "ee_d",
        "ee_r(model=rbp,p=0.8,norm=false)",
        "awrf",
        "trec_fair@2",
        "ndcg@2",
    ];
    let dir = scratch(FILES);
    for query in ["q1", "q2"] {
        let mut eval = vec![
            "eval",
            "--qrels",
            "qrels.txt",
            "--doc-groups",
            "groups.csv",
            "--run",
            "base.trec",
            "--samples",
            "--per-query",
            "--format",
            "json",
        ];
        let mut explain = vec![
            "explain",
            "--qrels",
            "qrels.txt",
            "--doc-groups",
            "groups.csv",
            "--run",
            "base.trec",
            "--samples",
            "--query",
            query,
            "--format",
            "json",
        ];
        for m in &metrics {
            eval.extend(["-m", m]);
            explain.extend(["-m", m]);
        }
        let (code, stdout, stderr) = run_in(dir.path(), &eval);
        assert_eq!(code, 0, "{stderr}");
        let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let (code, stdout, stderr) = run_in(dir.path(), &explain);
        assert_eq!(code, 0, "{stderr}");
        let explained: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        for (i, m) in metrics.iter().enumerate() {
            let got = explained["metrics"][i]["value"].as_f64().unwrap();
            let want = per_query(&report, m, query);
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "{m} of {query}: {got} != {want}"
            );
        }
    }
}

/// The per-query value of `metric` for `query` in a JSON report of one run.
fn per_query(report: &serde_json::Value, metric: &str, query: &str) -> f64 {
    report["runs"][0]["per_query"][metric][query]
        .as_f64()
        .unwrap_or_else(|| panic!("no value of {metric} for {query} in {report}"))
}

/// psp, psndcg and hole over a sampled run (`--samples`): each query's
/// value is the mean of the values its samples get when each is evaluated
/// as a run of its own (bit for bit: the mean sums in sample order), none
/// of them 0; explain over the samples shows eval's value.
#[test]
fn per_document_metrics_over_samples_are_the_mean_of_each_samples_run() {
    let dir = scratch(FILES);
    let files = [
        (
            "counts.csv",
            "label,count\nd1,5\nd2,1\nd4,2\nd5,9\nd6,3\nd7,0\n",
        ),
        (
            "sampled.trec",
            "q1 s1 d1 1 3 t\nq1 s1 x 2 2 t\nq1 s1 d2 3 1 t\n\
             q1 s2 d2 1 3 t\nq1 s2 d3 2 2 t\nq1 s2 d1 3 1 t\n\
             q2 s1 d5 1 3 t\nq2 s1 d4 2 2 t\nq2 s1 y 3 1 t\n\
             q2 s2 z 1 3 t\nq2 s2 d7 2 2 t\nq2 s2 d6 3 1 t\n",
        ),
        (
            "s1.trec",
            "q1 Q0 d1 1 3 t\nq1 Q0 x 2 2 t\nq1 Q0 d2 3 1 t\n\
             q2 Q0 d5 1 3 t\nq2 Q0 d4 2 2 t\nq2 Q0 y 3 1 t\n",
        ),
        (
            "s2.trec",
            "q1 Q0 d2 1 3 t\nq1 Q0 d3 2 2 t\nq1 Q0 d1 3 1 t\n\
             q2 Q0 z 1 3 t\nq2 Q0 d7 2 2 t\nq2 Q0 d6 3 1 t\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let metrics = ["psp@2", "psndcg@3", "hole@2", "hole", "ndcg@2"];
    let eval = |run: &str, samples: bool| -> serde_json::Value {
        let mut args = vec![
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            run,
            "--label-counts",
            "counts.csv",
            "--train-instances",
            "100",
            "--per-query",
            "--format",
            "json",
        ];
        if samples {
            args.push("--samples");
        }
        for m in &metrics {
            args.extend(["-m", m]);
        }
        let (code, stdout, stderr) = run_in(dir.path(), &args);
        assert_eq!(code, 0, "{run}: {stderr}");
        serde_json::from_str(&stdout).unwrap()
    };
    let sampled = eval("sampled.trec", true);
    let (one, two) = (eval("s1.trec", false), eval("s2.trec", false));
    for query in ["q1", "q2"] {
        let mut explain = vec![
            "explain",
            "--qrels",
            "qrels.txt",
            "--run",
            "sampled.trec",
            "--samples",
            "--label-counts",
            "counts.csv",
            "--train-instances",
            "100",
            "--query",
            query,
            "--format",
            "json",
        ];
        for m in &metrics {
            explain.extend(["-m", m]);
        }
        let (code, stdout, stderr) = run_in(dir.path(), &explain);
        assert_eq!(code, 0, "{stderr}");
        let explained: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        for (i, m) in metrics.iter().enumerate() {
            let got = per_query(&sampled, m, query);
            let want = (per_query(&one, m, query) + per_query(&two, m, query)) / 2.0;
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "{m} of {query}: {got} != {want}"
            );
            assert!(got > 0.0, "{m} of {query} is 0");
            let shown = explained["metrics"][i]["value"].as_f64().unwrap();
            assert_eq!(shown.to_bits(), got.to_bits(), "explain {m} of {query}");
        }
    }
}

/// The group level (`groups=true`, expeval's `-G`) from the command line:
/// expeval's README example with d1 and d2 in groups of their own (RBP,
/// p = 0.5: E = E* = (0.75, 0.75), EE-D = EE-R = 1.125, EE-L = 0; under RBP
/// the normalised EE-D is expeval's default 0 and EE-R 1); without
/// document groups it is refused naming the flag.
#[test]
fn group_level_expected_exposure() {
    let dir = scratch(FILES);
    std::fs::write(dir.path().join("two.txt"), "d1 g1\nd2 g2\nd3 g1\n").unwrap();
    let metrics = [
        ("ee_d(model=rbp,norm=false,groups=true)", 1.125),
        ("ee_r(model=rbp,norm=false,groups=true)", 1.125),
        ("ee_l(model=rbp,norm=false,groups=true)", 0.0),
        ("ee_d(model=rbp,groups=true)", 0.0),
        ("ee_r(model=rbp,groups=true)", 1.0),
        ("ee_l(model=rbp,groups=true)", 0.0),
    ];
    let mut args = vec![
        "eval",
        "--qrels",
        "example.qrels",
        "--run",
        "example.trec",
        "--samples",
        "--format",
        "json",
    ];
    for (m, _) in &metrics {
        args.extend(["-m", m]);
    }
    let (code, _, stderr) = run_in(dir.path(), &args);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--doc-groups") && stderr.contains("groups=true"),
        "{stderr}"
    );
    args.extend(["--doc-groups", "two.txt"]);
    let (code, stdout, stderr) = run_in(dir.path(), &args);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    for (m, want) in metrics {
        let got = mean_of(&report, m);
        assert!((got - want).abs() < 1e-15, "{m}: {got} != {want}");
    }
}

/// `1 - JSD` (nats) of `p` and `q`, each normalised: the test's own
/// transcription of TREC Fair's AWRF.
fn awrf_by_hand(p: &[f64], q: &[f64]) -> f64 {
    let (sp, sq): (f64, f64) = (p.iter().sum(), q.iter().sum());
    let mut d = 0.0;
    for (a, b) in p.iter().zip(q) {
        let (a, b) = (a / sp, b / sq);
        let m = (a + b) / 2.0;
        if a > 0.0 {
            d += a * (a / m).ln();
        }
        if b > 0.0 {
            d += b * (b / m).ln();
        }
    }
    1.0 - d / 2.0
}

/// AWRF against each query's given target (`--group-targets`, TOML
/// `group_targets`): worked by hand (a target group no document is in
/// counts with exposure 0), explain equal to eval; a query of the qrels
/// without a target, a missing --group-targets and unused targets are
/// each named.
#[test]
fn awrf_against_each_querys_given_target() {
    let dir = scratch(FILES);
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write(
        "targets.csv",
        "query,group,share\nq1,north,0.25\nq1,south,0.75\nq2,north,1\nq2,east,1\n",
    );
    write(
        "partial.jsonl",
        "{\"query\": \"q1\", \"group\": \"north\", \"share\": 1}\n",
    );
    write(
        "given.toml",
        "qrels = \"qrels.txt\"\ndoc_groups = \"groups.csv\"\ngroup_targets = \"targets.csv\"\n\
         [[runs]]\npath = \"det.trec\"\n[[metrics]]\ntype = \"awrf\"\ntarget = \"given\"\n",
    );
    let base = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--doc-groups",
        "groups.csv",
        "--run",
        "det.trec",
        "--per-query",
        "--format",
        "json",
        "-m",
        "awrf(target=given)",
        "-m",
        "trec_fair(target=given)",
        "-m",
        "trec_fair",
        "-m",
        "awrf",
    ];
    let mut args = base.to_vec();
    args.extend(["--group-targets", "targets.csv"]);
    let (code, stdout, stderr) = run_in(dir.path(), &args);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    // Attention 1, 1, 1/log2 3. q1 [d1 (north), d3 (north .5, south .5),
    // d2 (south)]; groups north, south, east (east only in the targets).
    let a3 = 1.0 / 3f64.log2();
    let q1 = awrf_by_hand(&[1.5, 0.5 + a3, 0.0], &[0.25, 0.75, 0.0]);
    // q2 [d4 (north), d6 (south), d5 (south)] against north 1, east 1.
    let q2 = awrf_by_hand(&[1.0, 1.0 + a3, 0.0], &[1.0, 0.0, 1.0]);
    for (query, want) in [("q1", q1), ("q2", q2)] {
        let got = per_query(&report, "awrf(target=given)", query);
        assert!((got - want).abs() < 1e-15, "{query}: {got} != {want}");
        // trec_fair is its nDCG times the AWRF of its target.
        let ndcg = per_query(&report, "trec_fair", query)
            / per_query(&report, "awrf", query).max(f64::MIN_POSITIVE);
        let fair = per_query(&report, "trec_fair(target=given)", query);
        if per_query(&report, "trec_fair", query) > 0.0 {
            assert!((fair - ndcg * want).abs() < 1e-12, "{query}: {fair}");
        }
        // explain shows eval's value.
        let (code, stdout, stderr) = run_in(
            dir.path(),
            &[
                "explain",
                "--qrels",
                "qrels.txt",
                "--doc-groups",
                "groups.csv",
                "--group-targets",
                "targets.csv",
                "--run",
                "det.trec",
                "--query",
                query,
                "-m",
                "awrf(target=given)",
                "--format",
                "json",
            ],
        );
        assert_eq!(code, 0, "{stderr}");
        let explained: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let shown = explained["metrics"][0]["value"].as_f64().unwrap();
        assert_eq!(shown.to_bits(), got.to_bits(), "explain of {query}");
    }
    // Over samples (base.trec): q1's two samples expose north and south
    // alike, 1 + a3 / 2 each; the mean of the two equal values.
    let (code, stdout, stderr) = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--doc-groups",
            "groups.csv",
            "--group-targets",
            "targets.csv",
            "--run",
            "base.trec",
            "--samples",
            "--per-query",
            "--format",
            "json",
            "-m",
            "awrf(target=given)",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let sampled: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let want = awrf_by_hand(&[1.0 + a3 / 2.0, 1.0 + a3 / 2.0, 0.0], &[0.25, 0.75, 0.0]);
    let got = per_query(&sampled, "awrf(target=given)", "q1");
    assert!((got - want).abs() < 1e-15, "samples: {got} != {want}");
    // The same from TOML.
    let (code, stdout, stderr) = run_in(
        dir.path(),
        &["run", "given.toml", "--per-query", "--format", "json"],
    );
    assert_eq!(code, 0, "{stderr}");
    let toml: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        per_query(&toml, "awrf(target=given)", "q1").to_bits(),
        per_query(&report, "awrf(target=given)", "q1").to_bits()
    );
    // No --group-targets: refused naming the flag.
    let (code, _, stderr) = run_in(dir.path(), &base);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("awrf(target=given) needs --group-targets FILE"),
        "{stderr}"
    );
    // q2 has no target: refused naming the file and the query.
    let mut args = base.to_vec();
    args.extend(["--group-targets", "partial.jsonl"]);
    let (code, _, stderr) = run_in(dir.path(), &args);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("partial.jsonl") && stderr.contains("no target for query `q2`"),
        "{stderr}"
    );
    // Targets no metric reads: a warning naming the flag.
    let (code, _, stderr) = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--doc-groups",
            "groups.csv",
            "--group-targets",
            "targets.csv",
            "--run",
            "det.trec",
            "-m",
            "awrf",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("--group-targets"), "{stderr}");
}

/// A sampled run gives the same bits whatever the order of its rows: each
/// query's samples are taken in byte order of their ids (a sum over the
/// samples rounds in that order), as on Spark, whose shuffle keeps no row
/// order. Before, the samples were taken in order of first appearance and
/// reversing the rows moved expected exposure in its last bits.
#[test]
fn a_sampled_runs_values_do_not_depend_on_the_order_of_its_rows() {
    // A small portable generator (64-bit LCG, Knuth's MMIX constants).
    let mut state: u64 = 40;
    let mut next = move |below: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % below
    };
    let (mut qrels, mut rows) = (String::new(), Vec::new());
    for q in 0..12 {
        for d in 0..10 {
            qrels.push_str(&format!("q{q} 0 d{d} {}\n", next(3)));
        }
        for s in 0..9 {
            for d in 0..8 {
                let score = next(1000);
                rows.push(format!("q{q} s{s} d{d} {} {score} t", d + 1));
            }
        }
    }
    let reversed: Vec<String> = rows.iter().rev().cloned().collect();
    let dir = scratch(&[
        ("qrels.txt", &qrels),
        ("a/run.trec", &(rows.join("\n") + "\n")),
        ("b/run.trec", &(reversed.join("\n") + "\n")),
    ]);
    let metrics = ["ee_d", "ee_r", "ee_l", "ee_d(norm=false)", "ndcg@5", "ap"];
    let eval = |run: &str| -> serde_json::Value {
        let mut args = vec![
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            run,
            "--samples",
            "--per-query",
            "--format",
            "json",
        ];
        for m in &metrics {
            args.extend(["-m", m]);
        }
        let (code, stdout, stderr) = run_in(dir.path(), &args);
        assert_eq!(code, 0, "{run}: {stderr}");
        serde_json::from_str(&stdout).unwrap()
    };
    let (forward, backward) = (eval("a/run.trec"), eval("b/run.trec"));
    let per_query = |report: &serde_json::Value| report["runs"][0]["per_query"].clone();
    let means = |report: &serde_json::Value| report["runs"][0]["metrics"].clone();
    assert_eq!(per_query(&forward), per_query(&backward));
    assert_eq!(means(&forward), means(&backward));
    assert_eq!(per_query(&forward).as_object().map(|m| m.len()), Some(6));
}

/// One sampled run in every table format the readers take gives the TREC
/// lines' values to the bit, per query and overall: CSV, TSV, JSON Lines
/// (named `.jsonl`, `.ndjson.gz`, `.txt`, and from standard input), gzip,
/// Parquet and Arrow IPC,
/// by score and by rank (lower first), columns in another order, an
/// extra column ignored.
#[test]
fn a_sampled_run_in_every_table_format_gives_the_run_lines_values() {
    use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray, UInt32Array};
    use std::io::Write;
    use std::sync::Arc;
    // A small portable generator (64-bit LCG, Knuth's MMIX constants).
    let mut state: u64 = 4040;
    let mut next = move |below: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % below
    };
    // (query, sample, doc, score, rank): scores distinct within a sample,
    // so that the ranks are the scores' order.
    let mut rows: Vec<(String, i64, String, f64, u32)> = Vec::new();
    let mut qrels = String::new();
    for q in 0..6 {
        for d in 0..9 {
            qrels.push_str(&format!("q{q} 0 d{d} {}\n", next(3)));
        }
        for s in 0..5 {
            let mut sample: Vec<(String, f64)> = (0..7)
                .map(|d| (format!("d{d}"), (next(1000) * 10 + d) as f64 / 8.0))
                .collect();
            sample.sort_by(|a, b| b.1.total_cmp(&a.1));
            for (rank, (doc, score)) in sample.into_iter().enumerate() {
                rows.push((format!("q{q}"), s, doc, score, rank as u32 + 1));
            }
        }
    }
    // Rows in no order: interleaved by a fixed stride.
    let rows: Vec<_> = (0..rows.len())
        .map(|i| rows[(i * 37) % rows.len()].clone())
        .collect();
    let lines: String = rows
        .iter()
        .map(|(q, s, d, score, rank)| format!("{q} s{s} {d} {rank} {score:?} t\n"))
        .collect();
    let csv = |d: &str, by_rank: bool| -> String {
        let last = if by_rank { "rank" } else { "score" };
        let mut text = format!("{last}{d}doc{d}note{d}sample{d}query\n");
        for (q, s, doc, score, rank) in &rows {
            let value = if by_rank {
                rank.to_string()
            } else {
                format!("{score:?}")
            };
            text.push_str(&format!("{value}{d}{doc}{d}x{d}s{s}{d}{q}\n"));
        }
        text
    };
    let json_lines: String = rows
        .iter()
        .map(|(q, s, d, score, _)| {
            format!(
                "{}\n",
                serde_json::json!({"query": q, "sample": format!("s{s}"), "doc": d, "score": score})
            )
        })
        .collect();
    let batch = |by_rank: bool| -> RecordBatch {
        let value: (&str, ArrayRef) = if by_rank {
            (
                "rank",
                Arc::new(rows.iter().map(|r| r.4).collect::<UInt32Array>()),
            )
        } else {
            (
                "score",
                Arc::new(rows.iter().map(|r| r.3).collect::<Float64Array>()),
            )
        };
        RecordBatch::try_from_iter([
            value,
            (
                "doc",
                Arc::new(
                    rows.iter()
                        .map(|r| Some(r.2.as_str()))
                        .collect::<StringArray>(),
                ) as ArrayRef,
            ),
            (
                "sample",
                Arc::new(
                    rows.iter()
                        .map(|r| Some(format!("s{}", r.1)))
                        .collect::<StringArray>(),
                ),
            ),
            (
                "query",
                Arc::new(
                    rows.iter()
                        .map(|r| Some(r.0.as_str()))
                        .collect::<StringArray>(),
                ),
            ),
            (
                "note",
                Arc::new(rows.iter().map(|r| r.1).collect::<Int64Array>()),
            ),
        ])
        .unwrap()
    };
    let parquet = |batch: &RecordBatch| -> Vec<u8> {
        let mut out = Vec::new();
        let props = parquet::file::properties::WriterProperties::builder()
            .set_max_row_group_row_count(Some(50))
            .set_compression(parquet::basic::Compression::SNAPPY)
            .build();
        let mut writer =
            parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
        writer.write(batch).unwrap();
        writer.close().unwrap();
        out
    };
    let arrow = |batch: &RecordBatch| -> Vec<u8> {
        let mut out = Vec::new();
        let mut writer = arrow_ipc::writer::FileWriter::try_new(&mut out, &batch.schema()).unwrap();
        writer.write(batch).unwrap();
        writer.finish().unwrap();
        out
    };
    let gzip = |text: &str| -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(text.as_bytes()).unwrap();
        encoder.finish().unwrap()
    };
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("run.trec", lines.clone().into_bytes()),
        ("run.csv", csv(",", false).into_bytes()),
        ("run.tsv", csv("\t", false).into_bytes()),
        ("ranks.csv", csv(",", true).into_bytes()),
        ("rows.txt", json_lines.clone().into_bytes()),
        ("rows.jsonl", json_lines.clone().into_bytes()),
        ("rows.ndjson.gz", gzip(&json_lines)),
        ("run.csv.gz", gzip(&csv(",", false))),
        ("run.trec.gz", gzip(&lines)),
        ("run.parquet", parquet(&batch(false))),
        ("ranks.parquet", parquet(&batch(true))),
        ("run.arrow", arrow(&batch(false))),
        ("ranks.arrow", arrow(&batch(true))),
    ];
    let dir = scratch(&[("qrels.txt", &qrels)]);
    for (name, bytes) in &files {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let metrics = ["ee_d", "ee_r", "ee_l(model=gerr)", "ndcg@5", "ap"];
    let args = |run: &str| -> Vec<String> {
        let mut args: Vec<String> = ["eval", "--qrels", "qrels.txt", "--run", run, "--samples"]
            .into_iter()
            .chain(["--per-query", "--format", "json"])
            .map(str::to_owned)
            .collect();
        for m in metrics {
            args.extend(["-m".to_owned(), m.to_owned()]);
        }
        args
    };
    let values = |stdout: &str| -> (serde_json::Value, serde_json::Value) {
        let report: serde_json::Value = serde_json::from_str(stdout).unwrap();
        (
            report["runs"][0]["per_query"].clone(),
            report["runs"][0]["metrics"].clone(),
        )
    };
    let eval = |run: &str| {
        let args = args(run);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = run_in(dir.path(), &args);
        assert_eq!(code, 0, "{run}: {stderr}");
        values(&stdout)
    };
    let expected = eval("run.trec");
    assert_eq!(expected.0.as_object().map(|m| m.len()), Some(5));
    for (name, _) in &files[1..] {
        assert_eq!(eval(name), expected, "{name}");
    }
    // JSON Lines rows from standard input.
    let tmp = tempfile::tempdir().unwrap();
    let args = args("-");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, stdout, stderr) =
        super::faults::with_stdin(dir.path(), tmp.path(), &args, json_lines.as_bytes());
    assert_eq!(code, 0, "stdin: {stderr}");
    assert_eq!(values(&stdout), expected, "stdin");
}
