//! `--record` on `eval` and `run`, and `rankeval history`: records listed
//! with each metric's trend, accepted, diffed and exported; a TOML
//! `[record]`; the CI's commit; errors for files that are no history.

use std::path::Path;
use std::process::Command;

use super::{scratch, transcript};

/// Qrels of three queries and two runs that differ on them.
const FILES: &[(&str, &str)] = &[
    (
        "qrels.txt",
        "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\nq2 0 d 1\nq3 0 e 1\n",
    ),
    (
        "bm25.trec",
        "q1 Q0 b 1 2 t\nq1 Q0 a 2 1 t\nq2 Q0 c 1 2 t\nq2 Q0 d 2 1 t\nq3 Q0 x 1 1 t\n",
    ),
    (
        "dense.trec",
        "q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\nq2 Q0 d 1 2 t\nq2 Q0 c 2 1 t\nq3 Q0 e 1 1 t\n",
    ),
];

/// Runs `rankeval args` in `dir` with only `env` set (a fixed time, so
/// snapshots hold no clock).
fn run_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_rankeval"))
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("SOURCE_DATE_EPOCH", "1795941962")
        .envs(env.iter().copied())
        .output()
        .expect("the rankeval binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `rankeval args` in `dir`, as a snapshot's transcript.
fn shown(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    transcript(args, run_env(dir, args, env))
}

/// A history in `dir` of two evaluations: bm25 alone (label `first`), then
/// bm25 and dense with the CI's commit.
fn two_evaluations(dir: &Path) {
    let eval = ["eval", "--qrels", "qrels.txt", "-m", "ap", "-m", "ndcg@10"];
    let (code, _, stderr) = run_env(
        dir,
        &[
            &eval[..],
            &[
                "--run",
                "bm25.trec",
                "--record",
                "h.sqlite",
                "--label",
                "first",
            ],
        ]
        .concat(),
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, "recorded: run `bm25` as record 1 of h.sqlite\n");
    let (code, _, stderr) = run_env(
        dir,
        &[
            &eval[..],
            &[
                "--run",
                "bm25.trec",
                "--run",
                "dense.trec",
                "--record",
                "h.sqlite",
            ],
        ]
        .concat(),
        &[("GITHUB_SHA", "0123456789abcdef0123456789abcdef01234567")],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr,
        "recorded: run `bm25` as record 2 of h.sqlite\nrecorded: run `dense` as record 3 of h.sqlite\n"
    );
}

#[test]
fn records_are_listed_with_their_trends() {
    let dir = scratch(FILES);
    two_evaluations(dir.path());
    let accept = shown(dir.path(), &["history", "h.sqlite", "--accept", "1"], &[]);
    insta::assert_snapshot!("history_table", accept);
    for format in ["json", "markdown"] {
        insta::assert_snapshot!(
            format!("history_{format}"),
            shown(
                dir.path(),
                &["history", "h.sqlite", "--format", format],
                &[]
            )
        );
    }
    insta::assert_snapshot!(
        "history_one_run",
        shown(dir.path(), &["history", "h.sqlite", "--run", "dense"], &[])
    );
}

#[test]
fn a_diff_lists_the_queries_that_moved_most() {
    let dir = scratch(FILES);
    two_evaluations(dir.path());
    insta::assert_snapshot!(
        "history_diff",
        shown(
            dir.path(),
            &["history", "diff", "h.sqlite", "2", "3", "--top", "3"],
            &[]
        )
    );
    insta::assert_snapshot!(
        "history_diff_json",
        shown(
            dir.path(),
            &["history", "diff", "h.sqlite", "1", "2", "--format", "json"],
            &[]
        )
    );
}

#[test]
fn exports_hold_every_value_of_every_record() {
    let dir = scratch(FILES);
    two_evaluations(dir.path());
    insta::assert_snapshot!(
        "history_export_csv",
        shown(
            dir.path(),
            &["history", "export", "h.sqlite", "--format", "csv"],
            &[]
        )
    );
    let (code, stdout, _) = run_env(
        dir.path(),
        &["history", "export", "h.sqlite", "--format", "jsonl"],
        &[],
    );
    assert_eq!(code, 0);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[2]["run"], "dense");
    assert_eq!(
        lines[2]["commit"],
        "0123456789abcdef0123456789abcdef01234567"
    );
    // Every query's value, as `eval --per-query --format json` gives it.
    let (_, json, _) = run_env(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "dense.trec",
            "-m",
            "ap",
            "-m",
            "ndcg@10",
            "--per-query",
            "--format",
            "json",
        ],
        &[],
    );
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(lines[2]["per_query"], report["runs"][0]["per_query"]);
    assert_eq!(lines[2]["options"]["rel"], "1");
    assert_eq!(lines[2]["options"]["cutoffs"], "10");
    let run_hash = &lines[2]["run_hash"];
    assert_eq!(
        run_hash.as_str().unwrap(),
        rankeval::history::fingerprint::bytes_hash(FILES[2].1.as_bytes())
    );

    let (code, _, stderr) = run_env(
        dir.path(),
        &["history", "export", "h.sqlite", "--format", "parquet"],
        &[],
    );
    assert_eq!(
        (code, stderr.as_str()),
        (
            2,
            "error: history export --format parquet: give the file with -o FILE\n"
        )
    );
    let (code, _, stderr) = run_env(
        dir.path(),
        &[
            "history",
            "export",
            "h.sqlite",
            "--format",
            "parquet",
            "-o",
            "h.parquet",
        ],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    let bytes = std::fs::read(dir.path().join("h.parquet")).unwrap();
    assert!(bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"));
}

#[test]
fn an_experiment_file_records_with_its_hash() {
    let mut files = FILES.to_vec();
    let toml = "qrels = \"qrels.txt\"\n[[runs]]\npath = \"bm25.trec\"\n\
                [[metrics]]\ntype = \"average_precision\"\n\
                [record]\ndb = \"out/h.sqlite\"\nlabel = \"nightly\"\n";
    files.push(("exp/experiment.toml", toml));
    files.push(("exp/qrels.txt", FILES[0].1));
    files.push(("exp/bm25.trec", FILES[1].1));
    let dir = scratch(&files);
    std::fs::create_dir(dir.path().join("exp/out")).unwrap();
    let (code, _, stderr) = run_env(dir.path(), &["run", "exp/experiment.toml"], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("recorded: run `bm25` as record 1 of exp/out/h.sqlite"),
        "{stderr}"
    );
    let (_, stdout, _) = run_env(
        dir.path(),
        &["history", "export", "exp/out/h.sqlite", "--format", "jsonl"],
        &[],
    );
    let line: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(line["label"], "nightly");
    assert_eq!(
        line["experiment_hash"].as_str().unwrap(),
        rankeval::history::fingerprint::bytes_hash(toml.as_bytes())
    );
    // `--record` and `--label` take the place of the file's `[record]`.
    let (code, _, stderr) = run_env(
        dir.path(),
        &[
            "run",
            "exp/experiment.toml",
            "--record",
            "flag.sqlite",
            "--label",
            "flagged",
        ],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("as record 1 of flag.sqlite"), "{stderr}");
    // A bad `[record]` names its key and line.
    std::fs::write(
        dir.path().join("exp/bad.toml"),
        toml.replace("label = \"nightly\"", "label = \"a\\nb\""),
    )
    .unwrap();
    let (code, _, stderr) = run_env(dir.path(), &["run", "exp/bad.toml"], &[]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: exp/bad.toml:8: record.label: must be one line of 1 to 200 characters, without \
         a tab, newline or other control character\n"
    );
}

#[test]
fn what_is_not_a_history_is_refused() {
    let dir = scratch(&[
        ("notes.txt", "x"),
        ("qrels.txt", FILES[0].1),
        ("bm25.trec", FILES[1].1),
    ]);
    insta::assert_snapshot!(
        "history_errors",
        [
            shown(dir.path(), &["history", "notes.txt"], &[]),
            shown(dir.path(), &["history", "missing.sqlite"], &[]),
            shown(dir.path(), &["history", "."], &[]),
            shown(
                dir.path(),
                &[
                    "eval",
                    "--qrels",
                    "qrels.txt",
                    "--run",
                    "bm25.trec",
                    "--record",
                    "notes.txt"
                ],
                &[]
            ),
            shown(
                dir.path(),
                &[
                    "eval",
                    "--qrels",
                    "qrels.txt",
                    "--run",
                    "bm25.trec",
                    "--record",
                    "no/h.sqlite"
                ],
                &[]
            ),
            shown(
                dir.path(),
                &[
                    "eval",
                    "--qrels",
                    "qrels.txt",
                    "--run",
                    "bm25.trec",
                    "--label",
                    "x"
                ],
                &[]
            ),
        ]
        .join("\n")
    );
    // The file that is not a history is left as it was.
    assert_eq!(std::fs::read(dir.path().join("notes.txt")).unwrap(), b"x");
    // A history accepting a record it lacks.
    let (code, _, _) = run_env(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "bm25.trec",
            "--record",
            "h.sqlite",
        ],
        &[],
    );
    assert_eq!(code, 0);
    let (code, _, stderr) = run_env(dir.path(), &["history", "h.sqlite", "--accept", "7"], &[]);
    assert_eq!(
        (code, stderr.as_str()),
        (2, "error: history h.sqlite: no record 7\n")
    );
}

#[test]
fn the_example_records_twice_and_shows_the_change() {
    let dir = tempfile::tempdir().unwrap();
    let example = super::workspace().join("examples/history");
    for name in ["experiment.toml", "qrels.txt"] {
        std::fs::copy(example.join(name), dir.path().join(name)).unwrap();
    }
    std::fs::create_dir(dir.path().join("runs")).unwrap();
    let run = std::fs::read_to_string(example.join("runs/bm25.trec")).unwrap();
    std::fs::write(dir.path().join("runs/bm25.trec"), &run).unwrap();
    let (code, _, stderr) = run_env(dir.path(), &["run", "experiment.toml"], &[]);
    assert_eq!(code, 0, "{stderr}");
    // The run changed: its first query's 4th document (the most relevant)
    // swapped with its first (unjudged).
    let mut lines: Vec<String> = run.lines().map(str::to_owned).collect();
    let (a, b) = (lines[0].clone(), lines[3].clone());
    let doc = |l: &str| l.split_whitespace().nth(2).unwrap().to_owned();
    lines[0] = a.replacen(&doc(&a), &doc(&b), 1);
    lines[3] = b.replacen(&doc(&b), &doc(&a), 1);
    std::fs::write(dir.path().join("runs/bm25.trec"), lines.join("\n") + "\n").unwrap();
    let (code, _, stderr) = run_env(dir.path(), &["run", "experiment.toml"], &[]);
    assert_eq!(code, 0, "{stderr}");
    insta::assert_snapshot!(
        "history_example",
        [
            shown(
                dir.path(),
                &["history", "history.sqlite", "--accept", "1"],
                &[]
            ),
            shown(
                dir.path(),
                &["history", "diff", "history.sqlite", "1", "2"],
                &[]
            ),
        ]
        .join("\n")
    );
}

/// A run of `queries` queries of 20 documents each, scores drawn from `seed`.
fn random_run(seed: u64, queries: usize) -> String {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % 1000
    };
    let mut text = String::new();
    for q in 0..queries {
        for d in 0..20 {
            text.push_str(&format!("q{q} Q0 d{} 0 {} t\n", (d * 7 + q) % 30, next()));
        }
    }
    text
}

#[test]
fn the_accepted_record_compares_as_its_per_query_file_does() {
    const RUNS: usize = 200;
    const QUERIES: usize = 30;
    let mut qrels = String::new();
    for q in 0..QUERIES {
        for d in 0..30 {
            if (q * 31 + d * 17) % 4 == 0 {
                qrels.push_str(&format!("q{q} 0 d{d} {}\n", 1 + (q + d) % 3));
            }
        }
    }
    let dir = scratch(&[("qrels.txt", &qrels)]);
    let mut args: Vec<String> = [
        "eval",
        "--qrels",
        "qrels.txt",
        "-m",
        "ap",
        "-m",
        "ndcg@10",
        "-m",
        "rr",
    ]
    .map(String::from)
    .to_vec();
    for r in 0..RUNS {
        let name = format!("r{r}.trec");
        std::fs::write(dir.path().join(&name), random_run(r as u64, QUERIES)).unwrap();
        args.extend(["--run".to_owned(), name]);
    }
    std::fs::write(dir.path().join("new.trec"), random_run(9999, QUERIES)).unwrap();
    // 200 records in one history, and the same per-query values in a file.
    args.extend(
        [
            "--record",
            "h.sqlite",
            "--format",
            "json",
            "--per-query",
            "-o",
            "all.json",
        ]
        .map(String::from),
    );
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, stderr) = run_env(dir.path(), &refs, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr.lines().count(), RUNS, "{stderr}");
    let (code, _, _) = run_env(dir.path(), &["history", "h.sqlite", "--accept", "137"], &[]);
    assert_eq!(code, 0);
    let compare = |baseline: &[&str], test: &[&str]| {
        let mut args = vec![
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "new.trec",
            "-m",
            "ap",
            "-m",
            "ndcg@10",
            "-m",
            "rr",
        ];
        args.extend_from_slice(baseline);
        args.extend_from_slice(test);
        args.extend_from_slice(&[
            "--gate",
            "ndcg@10:non_inferior(margin=0.01)",
            "--gate",
            "ap:superior",
            "--gate",
            "rr:at_least(floor=0.1)",
            "--format",
            "json",
            "--per-query",
        ]);
        run_env(dir.path(), &args, &[])
    };
    for test in [
        &["--test", "t"][..],
        &["--test", "randomization", "--seed", "7"],
        &["--test", "bootstrap", "--seed", "7", "--resamples", "2000"],
        &["--test", "wilcoxon"],
    ] {
        let (code_db, db, err_db) = compare(&["--baseline", "db:h.sqlite"], test);
        let (code_file, file, err_file) =
            compare(&["--baseline", "all.json", "--baseline-run", "r136"], test);
        assert!(code_db == 0 || code_db == 1, "{err_db}");
        // The same verdict, the same p-values, intervals and gates: the
        // reports differ in the baseline's source only.
        assert_eq!(
            (code_db, err_db.as_str()),
            (code_file, err_file.as_str()),
            "{test:?}"
        );
        assert!(db.contains("\"path\": \"db:h.sqlite#137\""), "{db}");
        assert_eq!(
            db.replace("\"path\": \"db:h.sqlite#137\"", "\"path\": \"all.json\""),
            file,
            "{test:?}"
        );
        assert!(file.contains("p_value"));
    }
    // Other judgements: refused, unless asked for.
    std::fs::write(
        dir.path().join("qrels.txt"),
        qrels.replacen(" 1\n", " 2\n", 1),
    )
    .unwrap();
    let (code, _, stderr) = compare(&["--baseline", "db:h.sqlite"], &[]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: baseline db:h.sqlite#137: not compared: its judgements differ"),
        "{stderr}"
    );
    let (code, _, stderr) = compare(
        &["--baseline", "db:h.sqlite#137", "--allow-changed-qrels"],
        &[],
    );
    assert!(code == 0 || code == 1, "{stderr}");
    assert!(
        stderr.starts_with(
            "warning: the baseline db:h.sqlite#137 was compared although its judgements differ"
        ),
        "{stderr}"
    );
}

#[test]
fn a_record_evaluated_with_other_options_is_refused_or_compared_as_asked() {
    let dir = scratch(FILES);
    two_evaluations(dir.path());
    let eval = |extra: &[&str]| {
        let mut args = vec![
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "dense.trec",
            "-m",
            "ap",
            "-m",
            "ndcg@10",
            "--baseline",
            "db:h.sqlite#2",
        ];
        args.extend_from_slice(extra);
        shown(dir.path(), &args, &[])
    };
    insta::assert_snapshot!(
        "history_baseline_options",
        [
            // The same options: compared, nothing said.
            eval(&[]),
            // One metric fewer (another set of cutoffs): compared.
            shown(
                dir.path(),
                &[
                    "eval",
                    "--qrels",
                    "qrels.txt",
                    "--run",
                    "dense.trec",
                    "-m",
                    "ndcg@10",
                    "--baseline",
                    "db:h.sqlite#2",
                ],
                &[]
            ),
            // Other options: refused, naming each option and both values.
            eval(&["--rel", "2"]),
            eval(&["--rel", "2", "--ties", "input", "--score-threshold", "0"]),
            // Other options and other judgements: both said, both overrides.
            {
                std::fs::write(dir.path().join("qrels2.txt"), "q1 0 a 1\nq2 0 c 2\n").unwrap();
                shown(
                    dir.path(),
                    &[
                        "eval",
                        "--qrels",
                        "qrels2.txt",
                        "--run",
                        "dense.trec",
                        "-m",
                        "ap",
                        "--baseline",
                        "db:h.sqlite#2",
                        "--rel",
                        "2",
                    ],
                    &[],
                )
            },
            // Compared when asked, and said.
            eval(&["--rel", "2", "--allow-changed-options", "--format", "json"]),
            // `rel` changes no value of nDCG: not said; `--ties` is.
            shown(
                dir.path(),
                &[
                    "eval",
                    "--qrels",
                    "qrels.txt",
                    "--run",
                    "dense.trec",
                    "-m",
                    "ndcg@10",
                    "--baseline",
                    "db:h.sqlite#2",
                    "--rel",
                    "2",
                    "--ties",
                    "input",
                ],
                &[]
            ),
            // An override without a history's record to apply to.
            shown(
                dir.path(),
                &[
                    "eval",
                    "--qrels",
                    "qrels.txt",
                    "--run",
                    "dense.trec",
                    "--run",
                    "bm25.trec",
                    "--baseline",
                    "bm25",
                    "--allow-changed-options",
                ],
                &[]
            ),
        ]
        .join("\n")
    );
}

#[test]
fn an_experiment_file_takes_a_record_as_its_baseline() {
    let mut files = FILES.to_vec();
    let toml = "qrels = \"qrels.txt\"\nbaseline = \"db:out/h.sqlite\"\n\
                [[runs]]\npath = \"dense.trec\"\n\
                [[metrics]]\ntype = \"average_precision\"\n";
    files.push(("exp/experiment.toml", toml));
    files.push(("exp/qrels.txt", FILES[0].1));
    files.push(("exp/dense.trec", FILES[2].1));
    let dir = scratch(&files);
    std::fs::create_dir(dir.path().join("exp/out")).unwrap();
    let (code, _, stderr) = run_env(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "bm25.trec",
            "-m",
            "ap",
            "--record",
            "exp/out/h.sqlite",
        ],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    let (code, _, _) = run_env(
        dir.path(),
        &["history", "exp/out/h.sqlite", "--accept", "1"],
        &[],
    );
    assert_eq!(code, 0);
    // The database is found beside the file, whatever the working folder.
    let from_file = shown(dir.path(), &["run", "exp/experiment.toml"], &[]);
    let from_flags = shown(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "dense.trec",
            "-m",
            "ap",
            "--baseline",
            "db:exp/out/h.sqlite",
        ],
        &[],
    );
    let body = |t: &str| t.split_once('\n').map(|(_, b)| b.to_owned()).unwrap();
    assert_eq!(
        body(&from_file).replace("db:exp/out/h.sqlite#1", "db:X"),
        body(&from_flags).replace("db:exp/out/h.sqlite#1", "db:X")
    );
    assert!(from_file.contains("db:exp/out/h.sqlite#1"), "{from_file}");
    // Other options are refused naming the key, and compared with
    // `allow_changed_options = true` in [compare].
    let other = toml.replace("baseline =", "rel = 2\nbaseline =");
    std::fs::write(dir.path().join("exp/rel.toml"), &other).unwrap();
    std::fs::write(
        dir.path().join("exp/allowed.toml"),
        format!("{other}[compare]\nallow_changed_options = true\n"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("exp/bad.toml"),
        toml.replace("db:out/h.sqlite", "db:out/none.sqlite"),
    )
    .unwrap();
    insta::assert_snapshot!(
        "history_baseline_toml",
        [
            shown(dir.path(), &["run", "exp/rel.toml"], &[]),
            shown(dir.path(), &["run", "exp/allowed.toml"], &[]),
            shown(dir.path(), &["run", "exp/bad.toml"], &[]),
        ]
        .join("\n")
    );
}

#[test]
fn an_export_written_as_read_fails_without_leaving_half_a_file() {
    let dir = scratch(FILES);
    two_evaluations(dir.path());
    // A full device: the error names it.
    let (code, _, stderr) = run_env(
        dir.path(),
        &[
            "history",
            "export",
            "h.sqlite",
            "--format",
            "csv",
            "-o",
            "/dev/full",
        ],
        &[],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: ") && stderr.contains("/dev/full"),
        "{stderr}"
    );
    // A damaged history: the file it would replace is left as it was.
    std::fs::write(dir.path().join("out.csv"), "before\n").unwrap();
    std::fs::write(dir.path().join("bad.sqlite"), "not a database at all").unwrap();
    let (code, _, stderr) = run_env(
        dir.path(),
        &[
            "history",
            "export",
            "bad.sqlite",
            "--format",
            "csv",
            "-o",
            "out.csv",
        ],
        &[],
    );
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.csv")).unwrap(),
        "before\n"
    );
    // Written to a file, the bytes are those written to stdout.
    let (code, stdout, _) = run_env(
        dir.path(),
        &["history", "export", "h.sqlite", "--format", "jsonl"],
        &[],
    );
    assert_eq!(code, 0);
    let (code, _, stderr) = run_env(
        dir.path(),
        &[
            "history",
            "export",
            "h.sqlite",
            "--format",
            "jsonl",
            "-o",
            "out.jsonl",
        ],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.jsonl")).unwrap(),
        stdout
    );
}

#[test]
fn the_html_page_draws_the_trends() {
    let dir = scratch(FILES);
    two_evaluations(dir.path());
    let (code, page, stderr) = run_env(
        dir.path(),
        &["history", "h.sqlite", "--format", "html"],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(!page.contains("<script"));
    // One chart per metric, a line per run in each.
    assert_eq!(page.matches("<svg").count(), 2);
    assert_eq!(page.matches("<polyline").count(), 4);
    let (code, _, stderr) = run_env(
        dir.path(),
        &["history", "diff", "h.sqlite", "1", "2", "--format", "html"],
        &[],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("a diff is table, json or markdown"),
        "{stderr}"
    );
}
