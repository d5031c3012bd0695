//! Results per group of queries (issue 26): `--groups FILE` (TOML
//! `groups`) adds each group's results to every report; a group's mean is
//! the mean of its queries' per-query values; queries in no group are a
//! warning with counts, never dropped silently.

use super::{run_in, scratch, transcript};

const QRELS: &str = "examples/quickstart/qrels.txt";
const BASELINE: &str = "examples/quickstart/runs/baseline.trec";
const V2: &str = "examples/quickstart/runs/v2.jsonl";

/// q1..q3 head, q4..q6 tail; a language for all but q6 (an empty value).
const GROUPS: &str = "query,segment,language\nq1,head,de\nq2,head,en\nq3,head,de\n\
                      q4,tail,en\nq5,tail,de\nq6,tail,\n";

fn files() -> tempfile::TempDir {
    let dir = scratch(&[
        ("groups.csv", GROUPS),
        ("groups.tsv", &GROUPS.replace(',', "\t")),
    ]);
    let root = super::workspace();
    for (from, to) in [
        (QRELS, "qrels.txt"),
        (BASELINE, "baseline.trec"),
        (V2, "v2.jsonl"),
    ] {
        std::fs::copy(root.join(from), dir.path().join(to)).expect("copy");
    }
    std::fs::write(
        dir.path().join("exp.toml"),
        "qrels = \"qrels.txt\"\ngroups = \"groups.tsv\"\nmetrics = [\"ap\", \"ndcg@10\"]\n\n\
         [[runs]]\npath = \"baseline.trec\"\n\n[[runs]]\npath = \"v2.jsonl\"\n",
    )
    .expect("write");
    dir
}

const EVAL: &[&str] = &[
    "eval",
    "--qrels",
    "qrels.txt",
    "--run",
    "baseline.trec",
    "--run",
    "v2.jsonl",
    "-m",
    "ap",
    "-m",
    "ndcg@10",
    "--groups",
    "groups.csv",
];

#[test]
fn the_table_adds_a_table_per_group_and_warns_of_queries_in_none() {
    let dir = files();
    let result = run_in(dir.path(), EVAL);
    assert_eq!(result.0, 0, "{}", result.2);
    insta::assert_snapshot!("groups_table", transcript(EVAL, result));
}

#[test]
fn group_means_are_the_means_of_their_queries_values() {
    let dir = files();
    let mut args = EVAL.to_vec();
    args.extend(["--format", "json", "--per-query", "-a", "mean", "-a", "ci"]);
    let (code, stdout, stderr) = run_in(dir.path(), &args);
    assert_eq!(code, 0, "{stderr}");
    let document: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let membership: Vec<(&str, &str, &str)> = GROUPS
        .lines()
        .skip(1)
        .flat_map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            [("segment", fields[1]), ("language", fields[2])]
                .into_iter()
                .filter(|(_, v)| !v.is_empty())
                .map(move |(c, v)| (fields[0], c, v))
        })
        .collect();
    let mut checked = 0;
    for run in document["runs"].as_array().expect("runs") {
        for (column, value) in [
            ("segment", "head"),
            ("segment", "tail"),
            ("language", "de"),
            ("language", "en"),
        ] {
            let group = &run["groups"][column][value];
            for metric in ["ap", "ndcg@10"] {
                let per_query = run["per_query"][metric].as_object().expect("values");
                // In report order (the per-query object's), as the engine sums.
                let values: Vec<f64> = per_query
                    .iter()
                    .filter(|(q, _)| membership.contains(&(q.as_str(), column, value)))
                    .map(|(_, v)| v.as_f64().expect("number"))
                    .collect();
                assert_eq!(group["num_queries"], values.len());
                let mean = values.iter().sum::<f64>() / values.len() as f64;
                let shown = group["metrics"][metric]["mean"].as_f64().expect("mean");
                assert!(
                    (shown - mean).abs() <= 4.0 * f64::EPSILON,
                    "{column}={value} {metric}"
                );
                let ci = &group["metrics"][metric];
                assert!(ci["ci.lower"].as_f64() <= ci["ci"].as_f64(), "{ci}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * 4 * 2);
    let warnings = document["warnings"].as_array().expect("warnings");
    let without: Vec<_> = warnings
        .iter()
        .filter(|w| w["kind"] == "queries_without_group")
        .collect();
    assert_eq!(without.len(), 2, "one per run: q6 has no language");
    assert_eq!(without[0]["count"], 1);
    assert_eq!(without[0]["column"], "language");
}

#[test]
fn toml_groups_and_every_format() {
    let dir = files();
    for format in ["markdown", "csv"] {
        let args = ["run", "exp.toml", "--format", format];
        let result = run_in(dir.path(), &args);
        assert_eq!(result.0, 0, "{}", result.2);
        insta::assert_snapshot!(format!("groups_toml_{format}"), transcript(&args, result));
    }
    let (code, html, _) = run_in(dir.path(), &["run", "exp.toml", "--format", "html"]);
    assert_eq!(code, 0);
    assert!(html.contains("<th>segment=tail</th>"));
}

#[test]
fn a_bad_groups_file_is_an_error_naming_it() {
    let dir = scratch(&[
        ("qrels.txt", "1 0 a 1\n"),
        ("run.trec", "1 Q0 a 1 0.9 t\n"),
        ("twice.csv", "query,segment\n1,head\n1,tail\n"),
    ]);
    for (file, expected) in [
        (
            "twice.csv",
            "twice.csv:3: query `1` is given again (first on line 2)",
        ),
        ("none.csv", "none.csv"),
    ] {
        let args = [
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "--groups",
            file,
        ];
        let (code, _, stderr) = run_in(dir.path(), &args);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn gates_on_a_group_pass_and_fail_with_exit_codes_0_and_1() {
    let dir = files();
    let mut base = EVAL.to_vec();
    base.extend(["--baseline", "baseline"]);
    for (name, gates, code) in [
        (
            "groups_gates_pass",
            &[
                "ndcg@10[segment=head]:at_least(0.8)",
                "ap[language=de]:non_inferior(margin=0.05)",
            ][..],
            0,
        ),
        (
            "groups_gates_fail",
            &[
                "ndcg@10[segment=head]:at_least(0.8)",
                "ap[segment=tail]:non_inferior(margin=0.05)",
            ][..],
            1,
        ),
        (
            "groups_gate_unknown_group",
            &["ap[segment=tial]:superior"][..],
            2,
        ),
    ] {
        let mut args = base.clone();
        for gate in gates {
            args.extend(["--gate", gate]);
        }
        let result = run_in(dir.path(), &args);
        assert_eq!(result.0, code, "{name}: {}", result.2);
        insta::assert_snapshot!(name, transcript(&args, result));
    }
    // Without --groups, a gate on a group says what it needs.
    let (code, _, stderr) = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "baseline.trec",
            "--run",
            "v2.jsonl",
            "--baseline",
            "baseline",
            "--gate",
            "ap[segment=tail]:superior",
        ],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("needs the groups of queries (--groups FILE"),
        "{stderr}"
    );
}

#[test]
fn json_comparison_has_each_groups_comparisons() {
    let dir = files();
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "baseline.trec",
        "--run",
        "v2.jsonl",
        "-m",
        "ap",
        "--groups",
        "groups.csv",
        "--baseline",
        "baseline",
        "--format",
        "json",
    ];
    let (code, stdout, stderr) = run_in(dir.path(), &args);
    assert_eq!(code, 0, "{stderr}");
    let document: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let groups = document["comparison"]["groups"].as_array().expect("groups");
    let labels: Vec<String> = groups
        .iter()
        .map(|g| {
            format!(
                "{}={}",
                g["column"].as_str().unwrap(),
                g["value"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        labels,
        ["segment=head", "segment=tail", "language=de", "language=en"]
    );
    let tail = &groups[1]["comparisons"][0];
    assert_eq!(tail["queries"], 3);
    let v2_tail = document["runs"][1]["groups"]["segment"]["tail"]["metrics"]["ap"]["mean"]
        .as_f64()
        .unwrap();
    assert_eq!(tail["candidate_mean"].as_f64().unwrap(), v2_tail);
}

#[test]
fn the_worked_example() {
    crate::rankeval_snapshot!(
        "slices_example",
        &["run", "examples/slices/experiment.toml"]
    );
}

#[test]
fn a_results_file_baseline_has_the_groups_of_its_queries() {
    let dir = files();
    let (code, _, stderr) = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "baseline.trec",
            "-m",
            "ap",
            "--format",
            "json",
            "--per-query",
            "-o",
            "prod.json",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let json = |baseline: &str, runs: &[&str]| {
        let mut args = vec![
            "eval",
            "--qrels",
            "qrels.txt",
            "-m",
            "ap",
            "--groups",
            "groups.csv",
        ];
        for run in runs {
            args.extend(["--run", run]);
        }
        args.extend(["--baseline", baseline, "--format", "json"]);
        let (code, stdout, stderr) = run_in(dir.path(), &args);
        assert_eq!(code, 0, "{stderr}");
        serde_json::from_str::<serde_json::Value>(&stdout).expect("JSON")
    };
    let from_file = json("prod.json", &["v2.jsonl"]);
    let from_run = json("baseline", &["baseline.trec", "v2.jsonl"]);
    for g in 0..4 {
        let file_cell = &from_file["comparison"]["groups"][g]["comparisons"][0];
        let run_cell = &from_run["comparison"]["groups"][g]["comparisons"][0];
        assert_eq!(file_cell["difference"], run_cell["difference"], "group {g}");
        assert_eq!(file_cell["p_value"], run_cell["p_value"], "group {g}");
    }
    let baseline_tail = &from_file["runs"][0]["groups"]["segment"]["tail"];
    assert_eq!(baseline_tail["num_queries"], 3);
    assert_eq!(
        baseline_tail["metrics"]["ap"]["mean"],
        from_run["runs"][0]["groups"]["segment"]["tail"]["metrics"]["ap"]["mean"]
    );
}

#[test]
fn a_group_too_small_for_its_test_is_a_warning_with_counts() {
    let dir = files();
    std::fs::write(
        dir.path().join("tiny.csv"),
        "query,size\nq1,one\nq2,many\nq3,many\nq4,many\n",
    )
    .expect("write");
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "baseline.trec",
        "--run",
        "v2.jsonl",
        "-m",
        "ap",
        "--groups",
        "tiny.csv",
        "--baseline",
        "baseline",
    ];
    let (code, _, stderr) = run_in(dir.path(), &args);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("warning: group `size=one`: 1 of 1 comparisons not made ("),
        "{stderr}"
    );
    assert!(!stderr.contains("size=many`: "), "{stderr}");
}

/// `--groups-in-family` corrects every group's comparisons together with
/// the whole runs' (Holm over all of them); without it, each group's are
/// corrected on their own.
#[test]
fn groups_join_the_family_when_asked() {
    let dir = files();
    let json = |joint: bool| {
        let mut args = EVAL.to_vec();
        args.extend(["--baseline", "baseline", "--format", "json"]);
        if joint {
            args.push("--groups-in-family");
        }
        let (code, stdout, stderr) = run_in(dir.path(), &args);
        assert_eq!(code, 0, "{stderr}");
        serde_json::from_str::<serde_json::Value>(&stdout).expect("JSON")["comparison"].clone()
    };
    let cells = |c: &serde_json::Value| -> Vec<(f64, f64)> {
        let mut all: Vec<serde_json::Value> = c["comparisons"].as_array().expect("cells").clone();
        for group in c["groups"].as_array().expect("groups") {
            all.extend(
                group["comparisons"]
                    .as_array()
                    .expect("cells")
                    .iter()
                    .cloned(),
            );
        }
        all.iter()
            .map(|cell| {
                (
                    cell["p_value"].as_f64().expect("p"),
                    cell["corrected_p_value"].as_f64().expect("corrected"),
                )
            })
            .collect()
    };
    let joint = json(true);
    let pairs = cells(&joint);
    assert_eq!(
        pairs.len(),
        2 * 5,
        "2 metrics x (the whole runs and 4 groups)"
    );
    let p: Vec<f64> = pairs.iter().map(|(p, _)| *p).collect();
    let holm = rankeval_stats::correct(&p, rankeval_stats::Correction::Holm).expect("holm");
    for ((_, corrected), expected) in pairs.iter().zip(&holm) {
        assert!(
            (corrected - expected).abs() <= 1e-15,
            "{corrected} {expected}"
        );
    }
    assert_eq!(joint["provenance"]["family_size"], 10);
    assert_eq!(joint["provenance"]["groups_in_family"], true);
    let apart = json(false);
    let tail = &apart["groups"][1]["comparisons"];
    let own: Vec<f64> = (0..2)
        .map(|i| tail[i]["p_value"].as_f64().expect("p"))
        .collect();
    let own_holm = rankeval_stats::correct(&own, rankeval_stats::Correction::Holm).expect("holm");
    for i in 0..2 {
        let corrected = tail[i]["corrected_p_value"].as_f64().expect("corrected");
        assert!((corrected - own_holm[i]).abs() <= 1e-15);
    }
    assert_eq!(apart["provenance"]["family_size"], 2);
}

/// Rows of the groups file naming queries that were not evaluated are
/// counted in a warning (never ignored unsaid), and a group none of whose
/// queries was evaluated is named (it has no results) rather than
/// vanishing.
#[test]
fn rows_of_unevaluated_queries_and_their_empty_groups_are_warnings() {
    let dir = files();
    std::fs::write(
        dir.path().join("extra.csv"),
        format!("{GROUPS}q98,rare,de\nq99,rare,fr\n"),
    )
    .expect("write");
    let mut args = EVAL.to_vec();
    args.pop();
    args.extend(["extra.csv", "--format", "json"]);
    let (code, stdout, stderr) = run_in(dir.path(), &args);
    assert_eq!(code, 0, "{stderr}");
    for expected in [
        "warning: run `baseline`: 2 queries of extra.csv are not evaluated (e.g. `q98`, `q99`): \
         they are in no group's results",
        "warning: run `baseline`: 2 groups of extra.csv have no evaluated query (e.g. \
         `segment=rare`, `language=fr`): no results for them",
    ] {
        assert!(stderr.contains(expected), "{stderr}");
    }
    let document: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let warnings = document["warnings"].as_array().expect("warnings");
    let of = |kind: &str| -> Vec<&serde_json::Value> {
        warnings.iter().filter(|w| w["kind"] == kind).collect()
    };
    let not_evaluated = of("group_queries_not_evaluated");
    assert_eq!(not_evaluated.len(), 2, "one per run");
    assert_eq!(not_evaluated[0]["count"], 2);
    assert_eq!(not_evaluated[0]["examples"][1], "q99");
    let empty = of("groups_without_queries");
    assert_eq!(empty[0]["count"], 2);
    assert_eq!(empty[0]["examples"][0], "segment=rare");
    // Every listed query evaluated: neither warning.
    let (code, _, stderr) = run_in(dir.path(), EVAL);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("not evaluated"), "{stderr}");
}

/// A column named twice would be one group column in every report (the two
/// merged): it is refused, naming the column and the line, in each format.
#[test]
fn a_column_named_twice_is_refused_naming_it() {
    let dir = scratch(&[
        ("qrels.txt", "1 0 a 1\n"),
        ("run.trec", "1 Q0 a 1 0.9 t\n"),
        ("twice.csv", "query,segment,segment\n1,head,tail\n"),
        (
            "twice.jsonl",
            "{\"query\": \"1\", \"segment\": \"head\", \"segment\": \"tail\"}\n",
        ),
    ]);
    for (file, expected) in [
        (
            "twice.csv",
            "twice.csv:1: the header names the column `segment` twice (columns 2 and 3)",
        ),
        (
            "twice.jsonl",
            "twice.jsonl:1: the key `segment` is given twice in the object",
        ),
    ] {
        let args = [
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "--groups",
            file,
        ];
        let (code, _, stderr) = run_in(dir.path(), &args);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
    }
}

/// `/dev/zero` and a sparse file of 3 GB as the groups file in each format:
/// an error naming the file (exit 2), at once, not memory without bound
/// (FIFOs are tested with the reader, rankeval_readers::groups).
#[cfg(unix)]
#[test]
fn endless_or_huge_groups_files_are_errors_naming_them() {
    let dir = scratch(&[("qrels.txt", "1 0 a 1\n"), ("run.trec", "1 Q0 a 1 0.9 t\n")]);
    for name in ["g.csv", "g.tsv", "g.jsonl", "g.parquet"] {
        let zero = format!("zero-{name}");
        std::os::unix::fs::symlink("/dev/zero", dir.path().join(&zero)).expect("symlink");
        let sparse = format!("sparse-{name}");
        std::fs::File::create(dir.path().join(&sparse))
            .expect("create")
            .set_len(3 << 30)
            .expect("a sparse file");
        for file in [&zero, &sparse] {
            let args = [
                "eval",
                "--qrels",
                "qrels.txt",
                "--run",
                "run.trec",
                "--groups",
                file.as_str(),
            ];
            let (code, _, stderr) = run_in(dir.path(), &args);
            assert_eq!(code, 2, "{file}: {stderr}");
            assert!(stderr.contains(file.as_str()), "{stderr}");
            assert!(!stderr.contains("panicked"), "{stderr}");
        }
    }
}
