//! Bad input never panics and never passes silently: each kind gives exit
//! code 2 and a message naming the file, the line and what was expected.
//! Query-set mismatches are warnings on stderr (exit 0).

use super::{run_in, scratch, transcript};

const QRELS: &str = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n";
const RUN: &str = "q1 Q0 a 1 0.9 t\nq1 Q0 b 2 0.5 t\nq2 Q0 c 1 0.7 t\n";

/// Runs `rankeval <args>` in a directory holding `files`, and snapshots it.
fn snapshot(name: &str, files: &[(&str, &str)], args: &[&str]) {
    let dir = scratch(files);
    let result = run_in(dir.path(), args);
    assert_eq!(result.0, 2, "{name} must fail with exit code 2: {result:?}");
    assert!(!result.2.contains("panicked"), "{}", result.2);
    insta::assert_snapshot!(name, transcript(args, result));
}

fn eval(name: &str, qrels: &str, run: &str) {
    snapshot(
        name,
        &[("qrels.txt", qrels), ("run.trec", run)],
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "map",
        ],
    );
}

#[test]
fn malformed_qrels_line() {
    eval("error_malformed_qrels_line", "q1 0 a 1\nq1 0 b\n", RUN);
}

#[test]
fn malformed_run_line() {
    eval(
        "error_malformed_run_line",
        QRELS,
        "q1 Q0 a 1 0.9 t\nq1 Q0 b 0.5 t\n",
    );
}

#[test]
fn non_numeric_score() {
    eval(
        "error_non_numeric_score",
        QRELS,
        "q1 Q0 a 1 0.9 t\nq1 Q0 b 2 high t\n",
    );
}

#[test]
fn non_numeric_grade() {
    eval("error_non_numeric_grade", "q1 0 a 1\nq1 0 b yes\n", RUN);
}

#[test]
fn duplicate_document() {
    eval(
        "error_duplicate_document",
        QRELS,
        "q1 Q0 a 1 0.9 t\nq1 Q0 b 2 0.5 t\nq1 Q0 a 3 0.1 t\n",
    );
}

#[test]
fn duplicate_document_kept_first_on_request() {
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("run.trec", "q1 Q0 a 1 0.9 t\nq1 Q0 a 2 0.1 t\n"),
    ]);
    let (code, stdout, _) = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "p@1",
            "--duplicates",
            "first",
            "--format",
            "csv",
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(stdout, "run,query,aggregate,p@1\nrun,,mean,1\n");
}

#[test]
fn judgement_with_two_grades() {
    eval(
        "error_judgement_with_two_grades",
        "q1 0 a 1\nq1 0 b 0\nq1 0 a 2\n",
        RUN,
    );
}

#[test]
fn empty_file() {
    eval("error_empty_run", QRELS, "");
}

#[test]
fn missing_file() {
    snapshot(
        "error_missing_run_file",
        &[("qrels.txt", QRELS)],
        &["eval", "--qrels", "qrels.txt", "--run", "nope.trec"],
    );
}

#[test]
fn bad_jsonl_line() {
    snapshot(
        "error_bad_jsonl_line",
        &[(
            "run.jsonl",
            "{\"query\": \"q1\", \"predicted\": [\"a\"], \"relevant\": [\"a\"]}\n{\"query\": \"q2\", \"predicted\": \"a\"}\n",
        )],
        &["eval", "--run", "run.jsonl", "-m", "map"],
    );
}

/// `rankeval eval --run run.jsonl` on a run holding its own judgements.
fn jsonl(name: &str, lines: &str) {
    snapshot(
        name,
        &[("run.jsonl", lines)],
        &["eval", "--run", "run.jsonl", "-m", "map"],
    );
}

#[test]
fn jsonl_empty_ids() {
    jsonl(
        "error_jsonl_empty_query_id",
        "{\"query\": \"\", \"predicted\": [\"\"], \"relevant\": {\"\": 1}}\n",
    );
    jsonl(
        "error_jsonl_empty_document_id",
        "{\"query\": \"q1\", \"predicted\": [\"a\", \"\"], \"relevant\": {\"a\": 1}}\n",
    );
}

#[test]
fn jsonl_ids_with_whitespace_or_control_characters() {
    let good = "{\"query\": \"q1\", \"predicted\": [\"a\"], \"relevant\": {\"a\": 1}}\n";
    jsonl(
        "error_jsonl_query_id_with_tab_and_newline",
        &format!(
            "{good}{{\"query\": \"e\\tf\\ng\", \"predicted\": [\"a\"], \"relevant\": [\"a\"]}}\n"
        ),
    );
    jsonl(
        "error_jsonl_predicted_id_with_space",
        &format!(
            "{good}{{\"query\": \"q2\", \"predicted\": [\"a\", \"b c\"], \"relevant\": [\"a\"]}}\n"
        ),
    );
    jsonl(
        "error_jsonl_relevant_id_with_control_character",
        &format!(
            "{good}{{\"query\": \"q2\", \"predicted\": [\"a\"], \"relevant\": {{\"a\\u0007\": 1}}}}\n"
        ),
    );
}

#[test]
fn unknown_metric_flag() {
    snapshot(
        "error_unknown_metric_flag",
        &[("qrels.txt", QRELS), ("run.trec", RUN)],
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "ndgc@10",
        ],
    );
}

#[test]
fn zero_cutoff_flag() {
    snapshot(
        "error_zero_cutoff_flag",
        &[("qrels.txt", QRELS), ("run.trec", RUN)],
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "p@0",
        ],
    );
}

#[test]
fn bad_syntax_flag() {
    snapshot(
        "error_bad_syntax_flag",
        &[("qrels.txt", QRELS), ("run.trec", RUN)],
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "ap(norm=truncated@10",
        ],
    );
}

#[test]
fn zero_relevance_level_flag() {
    snapshot(
        "error_zero_rel_flag",
        &[("qrels.txt", QRELS), ("run.trec", RUN)],
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "--rel",
            "0",
        ],
    );
}

#[test]
fn negative_not_a_number_and_huge_relevance_levels_flag() {
    for (name, rel) in [
        ("error_negative_rel_flag", "-1"),
        ("error_nan_rel_flag", "nan"),
        ("error_huge_rel_flag", "3e9"),
    ] {
        snapshot(
            name,
            &[("qrels.txt", QRELS), ("run.trec", RUN)],
            &[
                "eval",
                "--qrels",
                "qrels.txt",
                "--run",
                "run.trec",
                "--rel",
                rel,
            ],
        );
    }
}

#[test]
fn run_without_qrels_must_be_jsonl() {
    snapshot(
        "error_no_qrels_for_trec_run",
        &[("run.trec", RUN)],
        &["eval", "--run", "run.trec"],
    );
}

#[test]
fn same_run_twice() {
    let files = &[("qrels.txt", QRELS), ("run.trec", RUN)];
    let args = ["eval", "--qrels", "qrels.txt", "--run", "run.trec"];
    snapshot(
        "error_same_run_twice",
        files,
        &[&args[..], &["--run", "run.trec"]].concat(),
    );
    snapshot(
        "error_same_run_file_twice",
        files,
        &[&args[..], &["--run", "./run.trec"]].concat(),
    );
}

/// An experiment file with `body` after a valid head.
fn experiment(name: &str, body: &str) {
    let toml = format!("qrels = \"qrels.txt\"\n\n[[runs]]\npath = \"run.trec\"\n{body}");
    snapshot(
        name,
        &[("qrels.txt", QRELS), ("run.trec", RUN), ("exp.toml", &toml)],
        &["run", "exp.toml"],
    );
}

#[test]
fn config_unknown_key() {
    experiment(
        "config_unknown_key",
        "\n[[metrics]]\ntype = \"precision\"\nk = 10\n\n[[aggregators]]\ntype = \"mean\"\n\n[output]\nformat = \"json\"\n",
    );
}

#[test]
fn config_unknown_run_key() {
    experiment("config_unknown_run_key", "nmae = \"bm25\"\n");
}

#[test]
fn config_unknown_metric() {
    experiment(
        "config_unknown_metric",
        "\n[[metrics]]\ntype = \"ndgc\"\nk = 10\n",
    );
}

#[test]
fn config_zero_cutoff() {
    experiment(
        "config_zero_cutoff",
        "\n[[metrics]]\ntype = \"precision\"\n\n[[metrics]]\ntype = \"average_precision\"\nnormalization = \"truncated\"\nk = 0\n",
    );
}

#[test]
fn config_unknown_parameter() {
    experiment(
        "config_unknown_parameter",
        "\n[[metrics]]\ntype = \"average_precision\"\nnromalization = \"truncated\"\n",
    );
}

#[test]
fn config_bad_parameter_value() {
    experiment(
        "config_bad_parameter_value",
        "\n[[metrics]]\ntype = \"ap\"\nnorm = \"trunc\"\n",
    );
}

#[test]
fn config_missing_type() {
    experiment("config_missing_type", "\n[[metrics]]\nk = 10\n");
}

#[test]
fn config_missing_run_file() {
    snapshot(
        "config_missing_run_file",
        &[
            ("qrels.txt", QRELS),
            (
                "exp.toml",
                "qrels = \"qrels.txt\"\n\n[[runs]]\nname = \"bm25\"\npath = \"runs/bm25.trec\"\n",
            ),
        ],
        &["run", "exp.toml"],
    );
}

#[test]
fn config_missing_qrels_file() {
    snapshot(
        "config_missing_qrels_file",
        &[
            ("run.trec", RUN),
            (
                "exp.toml",
                "qrels = \"data/qrels.txt\"\n\n[[runs]]\npath = \"run.trec\"\n",
            ),
        ],
        &["run", "exp.toml"],
    );
}

#[test]
fn config_duplicate_run_names() {
    experiment(
        "config_duplicate_run_names",
        "\n[[runs]]\nname = \"run\"\npath = \"qrels.txt\"\n",
    );
}

#[test]
fn config_zero_relevance_level() {
    snapshot(
        "config_zero_rel",
        &[
            ("qrels.txt", QRELS),
            ("run.trec", RUN),
            (
                "exp.toml",
                "qrels = \"qrels.txt\"\nrel = 0\n\n[[runs]]\npath = \"run.trec\"\n",
            ),
        ],
        &["run", "exp.toml"],
    );
}

#[test]
fn config_invalid_toml() {
    experiment("config_invalid_toml", "\n[[metrics]\ntype = \"map\"\n");
}

#[test]
fn config_no_runs() {
    snapshot(
        "config_no_runs",
        &[
            ("qrels.txt", QRELS),
            ("exp.toml", "qrels = \"qrels.txt\"\n"),
        ],
        &["run", "exp.toml"],
    );
}

#[test]
fn config_errors_come_before_reading_data() {
    // The run file is malformed, but the unknown metric is reported first.
    let toml =
        "qrels = \"qrels.txt\"\n\n[[runs]]\npath = \"run.trec\"\n\n[[metrics]]\ntype = \"nope\"\n";
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("run.trec", "garbage\n"),
        ("exp.toml", toml),
    ]);
    let (code, _, stderr) = run_in(dir.path(), &["run", "exp.toml"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: exp.toml:7: metrics[1]: unknown metric `nope`"),
        "{stderr}"
    );
}

#[test]
fn query_mismatches_are_warnings_not_silence() {
    let dir = scratch(&[
        ("qrels.txt", "q1 0 a 1\nq2 0 c 2\nq3 0 d 1\n"),
        ("run.trec", "q1 Q0 a 1 0.9 t\nq9 Q0 c 1 0.7 t\n"),
    ]);
    let args = &[
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "run.trec",
        "-m",
        "p@1",
        "--format",
        "json",
    ];
    let result = run_in(dir.path(), args);
    assert_eq!(result.0, 0);
    insta::assert_snapshot!("warnings_query_mismatch", transcript(args, result));
}

#[test]
fn run_judgements_ignored_for_qrels_are_a_warning() {
    let dir = scratch(&[
        ("qrels.txt", "q1 0 a 1\nq2 0 c 2\n"),
        (
            "run.jsonl",
            "{\"query\": \"q1\", \"predicted\": [\"a\"], \"relevant\": [\"b\"]}\n\
             {\"query\": \"q2\", \"predicted\": [\"c\"]}\n",
        ),
    ]);
    let args = &[
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "run.jsonl",
        "-m",
        "p@1",
        "--format",
        "json",
    ];
    let result = run_in(dir.path(), args);
    assert_eq!(result.0, 0);
    insta::assert_snapshot!("warnings_run_judgements_ignored", transcript(args, result));
}

#[test]
fn trec_format_warns_of_aggregators_it_leaves_out() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let args = &[
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "run.trec",
        "-m",
        "p@1",
        "-a",
        "median",
        "-a",
        "gmean",
        "-a",
        "mean",
        "--format",
        "trec",
    ];
    let result = run_in(dir.path(), args);
    assert_eq!(result.0, 0);
    insta::assert_snapshot!("warnings_trec_format_means_only", transcript(args, result));
    // Means (and gmean's gm_ lines) are what trec_eval prints: no warning.
    let (code, _, stderr) = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "p@1",
            "-a",
            "gmean",
            "--format",
            "trec",
        ],
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
}

/// The same bad metric given to `-m` and as a TOML `[[metrics]]` table: the
/// message after each front end's own prefix (`-m SPEC: ` and
/// `exp.toml:LINE: metrics[1]: `) is the same text.
#[test]
fn flag_and_experiment_file_give_the_same_metric_errors() {
    let cases: &[(&str, &str)] = &[
        ("ndgc", "type = \"ndgc\""),
        ("ap@0", "type = \"ap\"\nk = 0"),
        ("ap(norm=bogus)", "type = \"ap\"\nnorm = \"bogus\""),
        ("ap(nrom=truncated)", "type = \"ap\"\nnrom = \"truncated\""),
        ("p(rel=0)", "type = \"p\"\nrel = 0"),
        (
            "p@99999999999999999999",
            "type = \"p\"\nk = 99999999999999999999",
        ),
        (
            "p(k=18446744073709551616)",
            "type = \"p\"\nk = 18446744073709551616",
        ),
        ("p(k=-3)", "type = \"p\"\nk = -3"),
        ("P_10", "type = \"P_10\""),
        ("map_cut_100", "type = \"map_cut_100\""),
        ("recip_rank", "type = \"recip_rank\""),
    ];
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let mut transcript = String::new();
    for (spec, table) in cases {
        let (code, _, flag) = run_in(
            dir.path(),
            &[
                "eval",
                "--qrels",
                "qrels.txt",
                "--run",
                "run.trec",
                "-m",
                spec,
            ],
        );
        assert_eq!(code, 2, "{spec}: {flag}");
        let flag = flag
            .strip_prefix(&format!("error: -m {spec}: "))
            .unwrap_or_else(|| panic!("{spec}: {flag}"));
        let toml = format!(
            "qrels = \"qrels.txt\"\n\n[[runs]]\npath = \"run.trec\"\n\n[[metrics]]\n{table}\n"
        );
        std::fs::write(dir.path().join("exp.toml"), toml).unwrap();
        let (code, _, config) = run_in(dir.path(), &["run", "exp.toml"]);
        assert_eq!(code, 2, "{table}: {config}");
        let config = config
            .strip_prefix("error: exp.toml:")
            .and_then(|rest| rest.split_once(": metrics[1]: "))
            .map(|(_line, message)| message)
            .unwrap_or_else(|| panic!("{table}: {config}"));
        assert_eq!(flag, config, "-m {spec} and [[metrics]] {table}");
        // The short syntax in the file: `-m`'s message, the entry and its line.
        let short = format!(
            "qrels = \"qrels.txt\"\n\nmetrics = [\"rr\", \"{spec}\"]\n\n[[runs]]\npath = \"run.trec\"\n"
        );
        std::fs::write(dir.path().join("exp.toml"), short).unwrap();
        let (code, _, short) = run_in(dir.path(), &["run", "exp.toml"]);
        assert_eq!(code, 2, "{spec}: {short}");
        assert_eq!(
            short,
            format!("error: exp.toml:3: metrics[2]: {flag}"),
            "metrics = [\"{spec}\"]"
        );
        transcript.push_str(&format!("-m {spec}\n  {flag}"));
    }
    insta::assert_snapshot!("metric_errors_flag_and_toml", transcript);
}

#[test]
fn empty_qrels_file() {
    eval("error_empty_qrels", "", RUN);
}

#[test]
fn bad_or_truncated_gzip() {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(RUN.repeat(50).as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let args = &["eval", "--qrels", "qrels.txt", "--run", "run.trec.gz"];
    for (name, bytes) in [
        ("error_truncated_gzip", &gz[..gz.len() / 2]),
        (
            "error_bad_gzip_header",
            &b"\x1f\x8bnot really gzip at all"[..],
        ),
    ] {
        let dir = scratch(&[("qrels.txt", QRELS)]);
        std::fs::write(dir.path().join("run.trec.gz"), bytes).unwrap();
        let result = run_in(dir.path(), args);
        assert_eq!(result.0, 2, "{name}: {result:?}");
        assert!(!result.2.contains("panicked"), "{}", result.2);
        insta::assert_snapshot!(name, transcript(args, result));
    }
}

#[test]
fn jsonl_query_on_two_lines() {
    jsonl(
        "error_jsonl_repeated_query",
        "{\"query\": \"q1\", \"predicted\": [\"a\"], \"relevant\": [\"a\"]}\n\
         {\"query\": \"q2\", \"predicted\": [\"b\"], \"relevant\": [\"b\"]}\n\
         {\"query\": \"q1\", \"predicted\": [\"c\"]}\n",
    );
}

#[test]
fn jsonl_scores_and_predicted_differ_in_length() {
    jsonl(
        "error_jsonl_scores_length",
        "{\"query\": \"q1\", \"predicted\": [\"a\", \"b\"], \"scores\": [0.5], \"relevant\": [\"a\"]}\n",
    );
}

/// Every bad `-m` and `-a` is reported at once, each on its own line in the
/// order given, not the first only; the good ones say nothing.
#[test]
fn every_bad_metric_and_aggregator_is_reported_at_once() {
    snapshot(
        "error_every_bad_metric_at_once",
        &[("qrels.txt", QRELS), ("run.trec", RUN)],
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "ndgc@10",
            "-m",
            "map",
            "-m",
            "ap@0",
            "-a",
            "meen",
            "-a",
            "mean",
        ],
    );
}

/// `map@10` is trec_eval's `map_cut_10`: typed on the command line or in
/// TOML (a string or a table of `type = "map"`), a note says once which
/// metric computes Kaggle's MAP@10; the values are `ap@10`'s, exit 0. The
/// metric written as `ap@10` or `ap(norm=truncated)@10` gets no note.
#[test]
fn map_at_k_gets_a_note_naming_kaggles_map_at_k() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", RUN)]);
    let eval = |metrics: &[&str]| {
        let mut args = vec!["eval", "--qrels", "qrels.txt", "--run", "run.trec"];
        for m in metrics {
            args.extend(["-m", m]);
        }
        run_in(dir.path(), &args)
    };
    let (code, stdout, stderr) = eval(&["map@10", "map@10", "ap@5"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("note_map_at_k", stderr);
    assert_eq!(stderr.lines().count(), 1, "said once: {stderr}");
    assert_eq!(stdout, eval(&["ap@10", "ap@5"]).1);
    for quiet in [
        "ap@10",
        "ap(norm=truncated)@10",
        "map",
        "map(norm=truncated)@10",
    ] {
        let (code, _, stderr) = eval(&[quiet]);
        assert_eq!((code, stderr.as_str()), (0, ""), "{quiet}");
    }
    let short = "qrels = \"qrels.txt\"\nmetrics = [\"map@10\"]\n\n[[runs]]\npath = \"run.trec\"\n";
    let table = "qrels = \"qrels.txt\"\n\n[[runs]]\npath = \"run.trec\"\n\n[[metrics]]\ntype = \"map\"\nk = 10\n";
    for toml in [short, table] {
        std::fs::write(dir.path().join("exp.toml"), toml).unwrap();
        let (code, _, toml_stderr) = run_in(dir.path(), &["run", "exp.toml"]);
        assert_eq!((code, toml_stderr.as_str()), (0, stderr.as_str()), "{toml}");
    }
}

/// A JSON dict of dicts numbers its entries, not its lines: a repeated
/// document names the entries, never a line the file does not have (found
/// by `never_panics::json_like_lines_never_panic`).
#[test]
fn a_repeated_document_in_a_json_dict_names_its_entries() {
    let dir = scratch(&[
        ("run.json", "{\"q\":{\"d\":1,\"x\":0.5,\"d\":2}}\n"),
        ("qrels.json", "{\"q\":{\"d\":1,\"d\":2}}\n"),
        ("qrels.txt", "q 0 d 1\n"),
        ("run.trec", "q Q0 d 1 1 t\n"),
    ]);
    let (code, _, stderr) = run_in(
        dir.path(),
        &["eval", "--qrels", "qrels.txt", "--run", "run.json"],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("error: run.json: document `d` appears twice in the object of query `q` (entries 1 and 3"),
        "{stderr}"
    );
    let (code, _, stderr) = run_in(
        dir.path(),
        &["eval", "--qrels", "qrels.json", "--run", "run.trec"],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains(
            "error: qrels.json: document `d` of query `q` is judged 1 and 2 (entries 1 and 2"
        ),
        "{stderr}"
    );
}
