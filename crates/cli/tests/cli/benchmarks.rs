//! Benchmarks by name through the command line (`rankeval::benchmarks`):
//! `--qrels irds:<id>` read from a cache laid out as ir_datasets lays it
//! out (generated files at the real paths and formats of an MS MARCO, a
//! TREC DL and a BEIR id, `IR_DATASETS_HOME` pointing at it), the MD5
//! check, the missing cache's one-line fix, `--fetch` without ir_datasets,
//! BEIR's identical ids on the toy of beir-cellar/beir#187, `--official`
//! against trec_eval run as Anserini runs it, and `rankeval benchmarks`.

use std::path::Path;
use std::process::Command;

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

use super::{scratch, transcript};
use crate::rankeval_snapshot;

/// Runs `rankeval` in `dir` with ir_datasets' home at `home` (and nothing
/// else of the environment: no PATH, so no Python either).
fn run_with_home(dir: &Path, home: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_rankeval"))
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("IR_DATASETS_HOME", home)
        .output()
        .expect("the rankeval binary runs");
    let result = (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    );
    assert!(!result.2.contains("panicked"), "{}", result.2);
    result
}

/// `--fetch` runs ir_datasets through the Python of `RANKEVAL_PYTHON`:
/// here a stand-in that does what `ir_datasets export <id> qrels` does to
/// the cache (it writes the file where ir_datasets keeps it), or a Python
/// without ir_datasets (`false`, whose import fails).
#[cfg(unix)]
#[test]
fn fetch_runs_ir_datasets_or_says_how_to_install_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch(&[("run.tsv", "1048585\t7187158\t1\n")]);
    let home = dir.path().join("home");
    let python = dir.path().join("python");
    std::fs::write(
        &python,
        "#!/bin/sh\n[ \"$1\" = -c ] && exit 0\n\
         [ \"$4\" = msmarco-passage/dev/small ] || exit 3\n\
         /bin/mkdir -p \"$IR_DATASETS_HOME/msmarco-passage/dev/small\"\n\
         printf '1048585\\t0\\t7187158\\t1\\n' > \"$IR_DATASETS_HOME/msmarco-passage/dev/small/qrels\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    let fetch = |python: &Path| {
        Command::new(env!("CARGO_BIN_EXE_rankeval"))
            .args([
                "eval",
                "--qrels",
                "irds:msmarco-passage/dev/small",
                "--run",
                "run.tsv",
                "--fetch",
                "-m",
                "rr@10",
            ])
            .current_dir(dir.path())
            .env_clear()
            .env("IR_DATASETS_HOME", &home)
            .env("RANKEVAL_PYTHON", python)
            .output()
            .unwrap()
    };
    let without = fetch(Path::new("/bin/false"));
    let err = String::from_utf8_lossy(&without.stderr);
    assert_eq!(without.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "--fetch runs ir_datasets (the Python package), which `/bin/false` cannot \
                      import (`import ir_datasets` fails): install it (`pip install \
                      ir_datasets`), or fill the cache with `ir_datasets export \
                      msmarco-passage/dev/small qrels > /dev/null`"
        ),
        "{err}"
    );
    let with = fetch(&python);
    let (out, err) = (
        String::from_utf8_lossy(&with.stdout),
        String::from_utf8_lossy(&with.stderr),
    );
    assert_eq!(with.status.code(), Some(0), "{err}");
    assert!(out.contains("rr@10    1.0000"), "{out}");
    // The usage terms, once, when the cache was filled.
    assert_eq!(
        err.matches("MSMARCO data usage agreement").count(),
        1,
        "{err}"
    );
    // Filled: a second run reads the cache and fetches nothing.
    let again = fetch(Path::new("/bin/false"));
    assert_eq!(again.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&again.stderr).contains("usage agreement"));
}

/// `text` with the scratch directory's path as `[DIR]`.
fn relative(text: &str, dir: &Path) -> String {
    text.replace(&dir.display().to_string(), "[DIR]")
}

/// The `mean` of `metric` of run `run` in a JSON report.
fn mean(json: &str, run: &str, metric: &str) -> f64 {
    let report: serde_json::Value = serde_json::from_str(json).expect("a JSON report");
    let runs = report["runs"].as_array().expect("runs");
    let found = runs.iter().find(|r| r["name"] == run).expect("the run");
    found["metrics"][metric]["mean"]
        .as_f64()
        .unwrap_or_else(|| panic!("no {metric} in {json}"))
}

/// beir-cellar/beir#187: query `0` whose relevant documents are `0`..`9`,
/// a run retrieving exactly them. With BEIR's convention the query's own
/// id is dropped from the run (not from the qrels): 9 of 10 relevant
/// documents at ranks 1-9, nDCG@10 = sum_{i<=9} 1/log2(i+1) / sum_{i<=10}
/// 1/log2(i+1) = 0.936379; without it, 1.
fn beir_toy() -> (String, String) {
    let mut qrels = String::from("query-id\tcorpus-id\tscore\n");
    let mut run = String::new();
    for d in 0..10 {
        qrels.push_str(&format!("0\t{d}\t1\n"));
        run.push_str(&format!("0 Q0 {d} {} {} t\n", d + 1, 10 - d));
    }
    (qrels, run)
}

#[test]
fn beir_identical_ids_on_the_toy_of_beir_187() {
    let (qrels, run) = beir_toy();
    let dir = scratch(&[("home/beir/arguana/test.qrels", &qrels), ("run.trec", &run)]);
    let home = dir.path().join("home");
    let base = ["eval", "--qrels", "irds:beir/arguana", "--run", "run.trec"];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--format", "json"]);
        run_with_home(dir.path(), &home, &args)
    };
    let expected = (1..=9)
        .map(|i| 1.0 / f64::log2(i as f64 + 1.0))
        .sum::<f64>()
        / (1..=10)
            .map(|i| 1.0 / f64::log2(i as f64 + 1.0))
            .sum::<f64>();
    assert_eq!(format!("{expected:.6}"), "0.936379");
    // Without the convention: every relevant document retrieved.
    let (code, out, err) = with(&["-m", "ndcg@10"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(mean(&out, "run", "ndcg@10"), 1.0);
    assert!(!err.contains("dropped"), "{err}");
    // The option: dropped, counted and said.
    let (code, out, err) = with(&["-m", "ndcg@10", "--drop-identical-ids"]);
    assert_eq!(code, 0, "{err}");
    let dropped = mean(&out, "run", "ndcg@10");
    assert!((dropped - expected).abs() < 1e-12, "{dropped}");
    assert_eq!(format!("{dropped:.6}"), "0.936379");
    assert!(
        out.contains("1 retrieved document had the query's own id and was dropped"),
        "{out}"
    );
    assert!(err.contains("BEIR's convention"), "{err}");
    // --official applies it, as the card says BEIR does.
    let (code, out, err) = with(&["--official"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(mean(&out, "run", "nDCG@10"), dropped);
    assert!(
        out.contains("dropped before judging (beir-cellar/beir PR #91)"),
        "{out}"
    );
    // TOML: `qrels = "irds:..."` (not a path next to the file) and the key.
    let toml = "qrels = \"irds:beir/arguana\"\ndrop_identical_ids = true\nmetrics = [\"ndcg@10\"]\n\
                [[runs]]\npath = \"run.trec\"\n";
    std::fs::write(dir.path().join("exp.toml"), toml).unwrap();
    let (code, out, err) =
        run_with_home(dir.path(), &home, &["run", "exp.toml", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(mean(&out, "run", "ndcg@10"), dropped);
    // TOML `official`: `true` for the qrels' benchmark, or its id.
    for official in ["true", "\"beir/arguana\""] {
        let toml = format!(
            "qrels = \"irds:beir/arguana\"\nofficial = {official}\n[[runs]]\npath = \"run.trec\"\n"
        );
        std::fs::write(dir.path().join("exp.toml"), toml).unwrap();
        let (code, out, err) =
            run_with_home(dir.path(), &home, &["run", "exp.toml", "--format", "json"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(mean(&out, "run", "nDCG@10"), dropped);
    }
    let toml = "qrels = \"irds:beir/arguana\"\nofficial = \"beir/quora/test\"\n[[runs]]\npath = \"run.trec\"\n";
    std::fs::write(dir.path().join("exp.toml"), toml).unwrap();
    let (code, _, err) = run_with_home(dir.path(), &home, &["run", "exp.toml"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("official: names beir/quora/test, but the qrels are beir/arguana's"),
        "{err}"
    );
}

#[test]
fn irds_qrels_are_read_where_ir_datasets_keeps_them() {
    // MS MARCO passage dev/small: extracted, `qid 0 pid 1` with tabs.
    let dir = scratch(&[
        (
            "home/msmarco-passage/dev/small/qrels",
            "1048585\t0\t7187158\t1\n2\t0\t1\t1\n",
        ),
        ("run.tsv", "1048585\t7187158\t2\n1048585\t1\t1\n2\t1\t1\n"),
    ]);
    let home = dir.path().join("home");
    let args = [
        "eval",
        "--qrels",
        "irds:msmarco-passage/dev/small",
        "--run",
        "run.tsv",
        "--official",
    ];
    let result = run_with_home(dir.path(), &home, &args);
    insta::assert_snapshot!("irds_msmarco_dev_small_official", transcript(&args, result));
}

#[test]
fn a_changed_or_missing_cache_fails_loudly_with_its_fix() {
    // TREC DL 2019 passage: downloaded as is, with the MD5 ir_datasets
    // records; a generated file has another.
    let dir = scratch(&[
        (
            "home/msmarco-passage/trec-dl-2019/qrels",
            "19335 0 1017759 0\n19335 0 1082489 3\n",
        ),
        ("run.trec", "19335 Q0 1082489 1 2 t\n"),
    ]);
    let home = dir.path().join("home");
    let mut transcripts = Vec::new();
    for args in [
        &[
            "eval",
            "--qrels",
            "irds:msmarco-passage/trec-dl-2019",
            "--run",
            "run.trec",
        ][..],
        &[
            "eval",
            "--qrels",
            "irds:msmarco-passage/trec-dl-2020",
            "--run",
            "run.trec",
        ],
        &[
            "eval",
            "--qrels",
            "irds:beir/cqadupstack",
            "--run",
            "run.trec",
        ],
        &["eval", "--qrels", "irds:no/such", "--run", "run.trec"],
        &[
            "eval", "--qrels", "run.trec", "--run", "run.trec", "--fetch",
        ],
        &[
            "eval",
            "--qrels",
            "run.trec",
            "--run",
            "run.trec",
            "--official",
        ],
        &[
            "eval",
            "--qrels",
            "run.trec",
            "--run",
            "run.trec",
            "--official",
            "x/y",
        ],
        &[
            "eval",
            "--qrels",
            "run.trec",
            "--run",
            "run.trec",
            "--official",
            "msmarco-passage/trec-dl-2019",
            "--missing",
            "skip",
        ],
    ] {
        let result = run_with_home(dir.path(), &home, args);
        assert_eq!(result.0, 2, "{:?}", result);
        transcripts.push(relative(&transcript(args, result), dir.path()));
    }
    insta::assert_snapshot!("irds_errors", transcripts.join("\n"));
    // What is no regular file is refused, never read: a folder, /dev/zero.
    let folder = home.join("beir/scifact/test.qrels");
    std::fs::create_dir_all(&folder).unwrap();
    let (code, _, err) = run_with_home(
        dir.path(),
        &home,
        &[
            "eval",
            "--qrels",
            "irds:beir/scifact/test",
            "--run",
            "run.trec",
        ],
    );
    assert_eq!(code, 2);
    assert!(err.contains("not a regular file"), "{err}");
    #[cfg(unix)]
    {
        let zero = home.join("cord19/trec-covid/qrels");
        std::fs::create_dir_all(zero.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let (code, _, err) = run_with_home(
            dir.path(),
            &home,
            &[
                "eval",
                "--qrels",
                "irds:cord19/trec-covid",
                "--run",
                "run.trec",
            ],
        );
        assert_eq!(code, 2);
        assert!(err.contains("not a regular file"), "{err}");
    }
}

/// A DL-style qrels and run from `seed` (ChaCha20): grades 0-3, ties of
/// rounded scores, a judged query the run misses, a run-only query and a
/// query with no document of grade 2 or more.
fn dl_style(seed: u64) -> (String, String) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut below = |n: u64| rng.next_u64() % n;
    let (mut qrels, mut run) = (String::new(), String::new());
    for q in 0..40 {
        let query = 1000 + q;
        let pool = 60 + below(40);
        for d in 0..pool {
            if below(3) == 0 {
                let grade = if q == 7 { below(2) } else { below(4) };
                qrels.push_str(&format!("{query} 0 p{d} {grade}\n"));
            }
        }
        if q == 5 {
            continue;
        }
        // Judged and unjudged documents, shuffled (Fisher-Yates), down to
        // a depth past 1000 for some queries.
        let mut docs: Vec<String> = (0..pool + 20)
            .map(|d| format!("p{d}"))
            .chain((0..1200).map(|u| format!("u{u}")))
            .collect();
        for i in (1..docs.len()).rev() {
            docs.swap(i, below(i as u64 + 1) as usize);
        }
        let depth = 1 + below(1250) as usize;
        for (rank, doc) in docs.iter().take(depth).enumerate() {
            // Scores rounded to 1 decimal tie often.
            let score = (2000 - rank) as f64 / 20.0;
            run.push_str(&format!("{query} Q0 {doc} {} {score:.1} r\n", rank + 1));
        }
    }
    run.push_str("9999 Q0 p1 1 1.0 r\n");
    (qrels, run)
}

/// trec_eval's lines `measure query value` of `output`.
fn trec_lines(output: &str) -> Vec<(String, String, String)> {
    output
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            Some((
                fields.next()?.to_owned(),
                fields.next()?.to_owned(),
                fields.next()?.to_owned(),
            ))
        })
        .collect()
}

#[test]
fn official_dl_passage_equals_trec_eval_as_anserini_runs_it() {
    let (qrels, run) = dl_style(2019);
    let dir = scratch(&[("qrels.txt", &qrels), ("run.trec", &run)]);
    let home = dir.path().join("home");
    // Anserini's regression: -c -m ndcg_cut.10 on all grades; -c -l 2 -m
    // map -m recall.1000 -m recip_rank.
    let ndcg = run_with_home(
        dir.path(),
        &home,
        &[
            "trec_eval",
            "-q",
            "-c",
            "-m",
            "ndcg_cut.10",
            "qrels.txt",
            "run.trec",
        ],
    );
    let binary = run_with_home(
        dir.path(),
        &home,
        &[
            "trec_eval",
            "-q",
            "-c",
            "-l",
            "2",
            "-m",
            "map",
            "-m",
            "recall.1000",
            "-m",
            "recip_rank",
            "qrels.txt",
            "run.trec",
        ],
    );
    assert_eq!((ndcg.0, binary.0), (0, 0), "{} {}", ndcg.2, binary.2);
    let expected: Vec<(String, String, String)> = trec_lines(&ndcg.1)
        .into_iter()
        .chain(trec_lines(&binary.1))
        .collect();
    let (code, out, err) = run_with_home(
        dir.path(),
        &home,
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "--official",
            "msmarco-passage/trec-dl-2019",
            "--per-query",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ours = &report["runs"][0];
    let names = [
        ("ndcg_cut_10", "nDCG@10"),
        ("map", "AP(rel=2)"),
        ("recall_1000", "R(rel=2)@1000"),
        ("recip_rank", "RR(rel=2)"),
    ];
    let mut compared = 0;
    for (measure, query, value) in &expected {
        let Some((_, reported)) = names.iter().find(|(m, _)| m == measure) else {
            continue; // num_q, runid
        };
        let ours = if query == "all" {
            ours["metrics"][reported]["mean"].as_f64()
        } else {
            ours["per_query"][reported][query.as_str()].as_f64()
        };
        let ours = ours.unwrap_or_else(|| panic!("{reported} of {query} in {out}"));
        assert_eq!(&format!("{ours:.4}"), value, "{measure} {query}");
        compared += 1;
    }
    // 40 judged queries (one missing from the run, scored 0) and the
    // mean, for each of the four measures.
    assert_eq!(compared, 4 * 41);
    // AP on every grade, picked by hand: evaluated too, and said to
    // contradict the card (castorini/anserini#1525).
    let (code, out, err) = run_with_home(
        dir.path(),
        &home,
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "--official",
            "msmarco-passage/trec-dl-2019",
            "-m",
            "ap",
            "-m",
            "ndcg@10",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "`ap` judges relevance from grade 1, but msmarco-passage/trec-dl-2019/judged \
             reports AP(rel=2) at grade 2 (`ap(rel=2)`); --official evaluates the card's"
        ),
        "{err}"
    );
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let metrics = report["runs"][0]["metrics"].as_object().unwrap();
    // `ndcg@10` is the card's nDCG@10: evaluated once, under its name.
    let mut names: Vec<&str> = metrics.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["AP(rel=2)", "R(rel=2)@1000", "RR(rel=2)", "ap", "nDCG@10"]
    );
}

#[test]
fn benchmarks_lists_the_card() {
    rankeval_snapshot!("benchmarks_list", &["benchmarks"]);
    rankeval_snapshot!(
        "benchmarks_dl19",
        &["benchmarks", "msmarco-passage/trec-dl-2019"]
    );
    rankeval_snapshot!("benchmarks_unknown", &["benchmarks", "beir/nope"]);
}

/// BEIR's convention is one rule (`Options::counted`) that every path
/// reading a run's lists takes: `explain` shows the list without the
/// query's own id (nDCG@10 0.936379 on beir#187's toy, as `eval`), and a
/// corpus metric counts the lists without it (entropy@10 equals the
/// entropy of the run with that line removed by hand, and differs from
/// the entropy with it).
#[test]
fn explain_and_corpus_metrics_drop_identical_ids_as_eval_does() {
    let (qrels, run) = beir_toy();
    // Two queries, so that the dropped document changes the item shares.
    let run = format!("{run}1 Q0 5 1 2 t\n1 Q0 0 2 1 t\n");
    let by_hand: String = run
        .lines()
        .filter(|l| !l.starts_with("0 Q0 0 "))
        .map(|l| format!("{l}\n"))
        .collect();
    let dir = scratch(&[
        ("qrels.tsv", &qrels),
        ("run.trec", &run),
        ("by_hand.trec", &by_hand),
    ]);
    let qrels_args = [
        "--qrels",
        "qrels.tsv",
        "--csv-query",
        "query-id",
        "--csv-doc",
        "corpus-id",
        "--csv-grade",
        "score",
    ];
    let explain = |extra: &[&str]| {
        let mut args = vec!["explain"];
        args.extend_from_slice(&qrels_args);
        args.extend_from_slice(&[
            "--run", "run.trec", "--query", "0", "-m", "ndcg@10", "--format", "json",
        ]);
        args.extend_from_slice(extra);
        let (code, out, err) = super::run_in(dir.path(), &args);
        assert_eq!(code, 0, "{err}");
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        let value = json.pointer("/metrics/0/value").cloned();
        (value, out)
    };
    let (dropped, out) = explain(&["--drop-identical-ids"]);
    let dropped = dropped
        .and_then(|v| v.as_f64())
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(format!("{dropped:.6}"), "0.936379", "{out}");
    let (kept, out) = explain(&[]);
    assert_eq!(kept.and_then(|v| v.as_f64()), Some(1.0), "{out}");
    let entropy = |run: &str, extra: &[&str]| {
        let mut args = vec!["eval"];
        args.extend_from_slice(&qrels_args);
        args.extend_from_slice(&["--run", run, "-m", "entropy@10", "--format", "json"]);
        args.extend_from_slice(extra);
        let (code, out, err) = super::run_in(dir.path(), &args);
        assert_eq!(code, 0, "{err}");
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        json["runs"][0]["corpus"]["entropy@10"]
            .as_f64()
            .unwrap_or_else(|| panic!("{out}"))
    };
    let hand = entropy("by_hand.trec", &[]);
    assert_eq!(entropy("run.trec", &["--drop-identical-ids"]), hand);
    assert_ne!(entropy("run.trec", &[]), hand);
}

/// The 12 forums of CQADupStack, in the card's order.
const FORUMS: [&str; 12] = [
    "android",
    "english",
    "gaming",
    "gis",
    "mathematica",
    "physics",
    "programmers",
    "stats",
    "tex",
    "unix",
    "webmasters",
    "wordpress",
];

/// A cache holding each CQADupStack forum's qrels where ir_datasets keeps
/// them (BEIR's TSV at `beir/cqadupstack/<forum>/test.qrels`) and two runs
/// per forum (`runs/bm25/<forum>.trec`, `runs/dense-<forum>.trec`), drawn
/// from a seeded generator. Forum `f` has `2 + 3f` queries, so the mean of
/// the forums' means and the mean over every query differ. The query ids
/// are the same in every forum (`1`, `2`...): each forum's are its own.
/// Query 1 of the first two forums retrieves its own id (BEIR drops it).
fn cqadupstack_cache(seed: u64) -> Vec<(String, String)> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut files = Vec::new();
    for (f, forum) in FORUMS.iter().enumerate() {
        let mut qrels = String::from("query-id\tcorpus-id\tscore\n");
        let mut bm25 = String::new();
        let mut dense = String::new();
        for q in 1..=(2 + 3 * f) {
            for d in 0..(1 + rng.next_u64() % 4) {
                qrels.push_str(&format!("{q}\td{}\t1\n", d * 7 % 23));
            }
            for (run, n) in [(&mut bm25, 12u32), (&mut dense, 8)] {
                // The query's own id, which BEIR drops, first (query 1 of
                // the first two forums).
                if q == 1 && f < 2 {
                    run.push_str(&format!("{q} Q0 {q} 1 100 t\n"));
                }
                // Distinct documents: a random offset, steps of 7 mod 23.
                let offset = rng.next_u64() % 23;
                for rank in 0..n {
                    let doc = (offset + 7 * u64::from(rank)) % 23;
                    run.push_str(&format!("{q} Q0 d{doc} {} {} t\n", rank + 2, 99 - rank));
                }
            }
        }
        files.push((format!("home/beir/cqadupstack/{forum}/test.qrels"), qrels));
        files.push((format!("runs/bm25/{forum}.trec"), bm25));
        files.push((format!("runs/dense-{forum}.trec"), dense));
    }
    files
}

/// CQADupStack is the mean of its 12 forums' nDCG@10 (beir-cellar/beir#9:
/// the mean of means, each forum weighing the same): `--qrels
/// irds:beir/cqadupstack` with a run per forum, as a pattern with
/// `{forum}` or a folder of files named by forum, gives each forum's
/// value as `--qrels irds:beir/cqadupstack/<forum>` gives it and their
/// mean, which is not the mean over every query; TOML the same; a missing
/// forum is an error naming it.
#[test]
fn cqadupstack_is_the_mean_of_its_forums_means() {
    let files = cqadupstack_cache(39);
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let dir = scratch(&refs);
    let home = dir.path().join("home");
    // Each forum on its own, as BEIR evaluates it.
    let mut forum_means = Vec::new();
    let mut every_query = Vec::new();
    for forum in FORUMS {
        let qrels = format!("irds:beir/cqadupstack/{forum}");
        let run = format!("runs/bm25/{forum}.trec");
        let args = [
            "eval",
            "--qrels",
            &qrels,
            "--run",
            &run,
            "--official",
            "--per-query",
            "--format",
            "json",
        ];
        let (code, out, err) = run_with_home(dir.path(), &home, &args);
        assert_eq!(code, 0, "{err}");
        forum_means.push(mean(&out, forum, "nDCG@10"));
        let report: serde_json::Value = serde_json::from_str(&out).unwrap();
        let per_query = report["runs"][0]["per_query"]["nDCG@10"]
            .as_object()
            .expect("per-query values");
        every_query.extend(per_query.values().map(|v| v.as_f64().unwrap()));
    }
    let macro_mean = forum_means.iter().sum::<f64>() / 12.0;
    let micro_mean = every_query.iter().sum::<f64>() / every_query.len() as f64;
    assert_eq!(every_query.len(), (0..12).map(|f| 2 + 3 * f).sum::<usize>());
    assert!(
        (macro_mean - micro_mean).abs() > 1e-3,
        "{macro_mean} {micro_mean}"
    );

    let base = ["eval", "--qrels", "irds:beir/cqadupstack"];
    let json = |runs: &[&str], extra: &[&str]| {
        let mut args = base.to_vec();
        for run in runs {
            args.extend(["--run", run]);
        }
        args.extend(extra);
        args.extend(["--format", "json"]);
        run_with_home(dir.path(), &home, &args)
    };
    let (code, out, err) = json(
        &["runs/bm25/{forum}.trec", "runs/dense-{forum}.trec"],
        &["--official"],
    );
    assert_eq!(code, 0, "{err}");
    // Named by the pattern: the folder, or the file without the forum.
    let bm25 = mean(&out, "bm25", "nDCG@10");
    assert!((bm25 - macro_mean).abs() < 1e-15, "{bm25} {macro_mean}");
    assert!(mean(&out, "dense", "nDCG@10").is_finite());
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let forums = report["parts"]["forums"].as_array().expect("the forums");
    assert_eq!(forums.len(), 12);
    for (f, forum) in forums.iter().enumerate() {
        assert_eq!(forum["forum"], FORUMS[f]);
        assert_eq!(forum["runs"][0]["means"]["nDCG@10"], forum_means[f]);
        assert_eq!(forum["runs"][0]["queries"], 2 + 3 * f);
    }
    // The summary's counts say what they count: 12 forums holding the
    // queries of every forum (2 + 5 + ... + 35), for each run.
    let total: usize = (0..12).map(|f| 2 + 3 * f).sum();
    for run in report["runs"].as_array().expect("the runs") {
        assert_eq!(run["num_forums"], 12, "{run}");
        assert_eq!(run["num_queries"], total, "{run}");
    }
    assert!(out.contains("the mean of the forums' means"), "{out}");
    assert!(
        err.contains("each forum is evaluated on its own qrels, and the value is the mean"),
        "{err}"
    );
    // Each forum's warnings, said with the forum.
    assert!(
        err.contains("run `bm25`: forum `english`: 1 retrieved document had the query's own id"),
        "{err}"
    );
    // A folder of files named by forum, and NAME=PATTERN.
    let (code, out, err) = json(
        &["runs/bm25", "d=runs/dense-{forum}.trec"],
        &["-m", "ndcg@10"],
    );
    assert_eq!(code, 0, "{err}");
    // Without --official, BEIR's identical ids are kept: another value.
    assert_ne!(mean(&out, "bm25", "ndcg@10"), bm25);
    let (code, out, err) = json(
        &["runs/bm25/", "d=runs/dense-{forum}.trec"],
        &["-m", "ndcg@10", "--drop-identical-ids"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(mean(&out, "bm25", "ndcg@10"), bm25);
    // TOML: the same request, the same numbers.
    let toml = "qrels = \"irds:beir/cqadupstack\"\nofficial = true\n\
                [[runs]]\npath = \"runs/bm25/{forum}.trec\"\n";
    std::fs::write(dir.path().join("exp.toml"), toml).unwrap();
    let (code, out, err) =
        run_with_home(dir.path(), &home, &["run", "exp.toml", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(mean(&out, "bm25", "nDCG@10"), bm25);
    // Formats without a place for the forums' table say so.
    let (code, out, err) = json(&["runs/bm25/{forum}.trec"], &["--official"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !err.contains("each forum's queries and means are shown"),
        "{err}"
    );
    assert!(out.contains("\"parts\""));
    let (code, _, err) = run_with_home(
        dir.path(),
        &home,
        &[
            "eval",
            "--qrels",
            "irds:beir/cqadupstack",
            "--run",
            "runs/bm25/{forum}.trec",
            "--format",
            "trec",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("each forum's queries and means are shown in table, markdown, json and csv"),
        "{err}"
    );
    // The table, as a user reads it.
    let args = [
        "eval",
        "--qrels",
        "irds:beir/cqadupstack",
        "--run",
        "runs/bm25/{forum}.trec",
        "--run",
        "runs/dense-{forum}.trec",
        "--official",
    ];
    let result = run_with_home(dir.path(), &home, &args);
    insta::assert_snapshot!("cqadupstack_official", transcript(&args, result));
    // The summary in JSON and Markdown: forums and the queries they hold.
    let mut args = args.to_vec();
    args.extend(["--format", "json"]);
    let (code, out, err) = run_with_home(dir.path(), &home, &args);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let summary: Vec<serde_json::Value> = report["runs"]
        .as_array()
        .expect("the runs")
        .iter()
        .map(|run| {
            serde_json::json!({
                "name": run["name"],
                "num_forums": run["num_forums"],
                "num_queries": run["num_queries"],
                "metrics": run["metrics"],
            })
        })
        .collect();
    insta::assert_json_snapshot!("cqadupstack_official_json_runs", summary);
    let markdown = args.len() - 1;
    args[markdown] = "markdown";
    let result = run_with_home(dir.path(), &home, &args);
    insta::assert_snapshot!("cqadupstack_official_markdown", transcript(&args, result));

    // A forum missing: its run, in a folder, or its qrels.
    std::fs::remove_file(dir.path().join("runs/bm25/tex.trec")).unwrap();
    std::fs::remove_file(dir.path().join("runs/dense-tex.trec")).unwrap();
    std::fs::remove_file(home.join("beir/cqadupstack/gis/test.qrels")).unwrap();
    // The qrels of gis are missing: said first, naming the forum.
    let args = [
        "eval",
        "--qrels",
        "irds:beir/cqadupstack",
        "--run",
        "runs/bm25/{forum}.trec",
    ];
    let (code, _, err) = run_with_home(dir.path(), &home, &args);
    assert_eq!(code, 2);
    assert!(
        err.contains("beir/cqadupstack/gis/test.qrels: not in ir_datasets' cache")
            && err.contains("ir_datasets export beir/cqadupstack/gis qrels"),
        "{err}"
    );
    std::fs::write(
        home.join("beir/cqadupstack/gis/test.qrels"),
        "query-id\tcorpus-id\tscore\n1\td0\t1\n",
    )
    .unwrap();
    let mut said = String::new();
    for args in [
        &[
            "eval",
            "--qrels",
            "irds:beir/cqadupstack",
            "--run",
            "runs/bm25/{forum}.trec",
        ][..],
        &[
            "eval",
            "--qrels",
            "irds:beir/cqadupstack",
            "--run",
            "runs/bm25",
        ],
        &[
            "eval",
            "--qrels",
            "irds:beir/cqadupstack",
            "--run",
            "runs/bm25/android.trec",
        ],
        &[
            "eval",
            "--qrels",
            "irds:beir/cqadupstack",
            "--run",
            "a=runs/dense-{forum}.trec",
            "--run",
            "b=runs/dense-{forum}.trec",
            "--baseline",
            "a",
        ],
        &[
            "eval",
            "--official",
            "beir/cqadupstack",
            "--qrels",
            "home/beir/cqadupstack/android/test.qrels",
            "--run",
            "runs/bm25/android.trec",
        ],
    ] {
        let result = run_with_home(dir.path(), &home, args);
        assert_eq!(result.0, 2, "{}", result.2);
        said.push_str(&relative(&transcript(args, result), dir.path()));
    }
    insta::assert_snapshot!("cqadupstack_errors", said);
}

/// A forum's run that is no run file: `/dev/zero` behind the pattern, a
/// folder where a forum's file should be, or a pattern that names no
/// file: each refused with exit code 2, naming the file, never read
/// without bound.
#[cfg(unix)]
#[test]
fn a_hostile_forum_run_is_refused_naming_it() {
    let files = cqadupstack_cache(7);
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let dir = scratch(&refs);
    let home = dir.path().join("home");
    std::fs::remove_file(dir.path().join("runs/dense-tex.trec")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("runs/dense-tex.trec")).unwrap();
    std::fs::remove_file(dir.path().join("runs/bm25/gis.trec")).unwrap();
    std::fs::create_dir(dir.path().join("runs/bm25/gis.trec")).unwrap();
    for (run, named) in [
        ("runs/dense-{forum}.trec", "runs/dense-tex.trec"),
        ("runs/bm25", "gis.trec"),
        ("/dev/{forum}", "/dev/android"),
    ] {
        let args = ["eval", "--qrels", "irds:beir/cqadupstack", "--run", run];
        let (code, _, err) = run_with_home(dir.path(), &home, &args);
        assert_eq!(code, 2, "{run}: {err}");
        assert!(err.contains(named), "{run}: {err}");
        assert!(err.len() < 2000, "{run}: {err}");
    }
}
