//! Systems of several runs (issue 26): `[[systems]] name = "v2", runs =
//! ["runs/v2-seed*.trec"]` evaluates every run and adds each system's mean
//! over queries and runs (with its two-way bootstrap interval and the
//! spread over runs) and each system compared with the first, counting the
//! run variance; the numbers are `rankeval_stats`'s on the runs'
//! per-query values.

use rankeval_stats::{compare_systems, summarize_system};

use super::{run, run_in, scratch, transcript};
use crate::rankeval_snapshot;

const EXAMPLE: &str = "examples/seeds/experiment.toml";

#[test]
fn the_worked_example() {
    rankeval_snapshot!("systems_example", &["run", EXAMPLE]);
}

#[test]
fn systems_are_the_seed_statistics_of_their_runs_values() {
    let (code, stdout, stderr) = run(&["run", EXAMPLE, "--format", "json", "--per-query"]);
    assert_eq!(code, 0, "{stderr}");
    let document: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let runs = document["runs"].as_array().expect("runs");
    let values = |prefix: &str, metric: &str| -> Vec<Vec<f64>> {
        runs.iter()
            .filter(|r| r["name"].as_str().expect("name").starts_with(prefix))
            .map(|r| {
                r["per_query"][metric]
                    .as_object()
                    .expect("values")
                    .values()
                    .map(|v| v.as_f64().expect("number"))
                    .collect()
            })
            .collect()
    };
    let systems = &document["systems"];
    assert_eq!(
        systems["systems"][0]["runs"]
            .as_array()
            .expect("runs")
            .len(),
        3
    );
    for (m, metric) in ["ap", "ndcg@10"].into_iter().enumerate() {
        let v1 = values("v1/", metric);
        let v2 = values("v2/", metric);
        let v1: Vec<&[f64]> = v1.iter().map(Vec::as_slice).collect();
        let v2: Vec<&[f64]> = v2.iter().map(Vec::as_slice).collect();
        let expected = summarize_system(&v2, 0.95, 10_000, 42).expect("valid");
        let shown = &systems["systems"][1]["metrics"][m];
        for key in ["mean", "seed_sd"] {
            let got = shown[key].as_f64().expect("number");
            let want = if key == "mean" {
                expected.mean
            } else {
                expected.seed_sd
            };
            assert!(
                (got - want).abs() <= 4.0 * f64::EPSILON,
                "{metric} {key}: {got} {want}"
            );
        }
        // Sums of resampled values read back from JSON: a few ulps apart.
        let lower = shown["interval"]["lower"].as_f64().expect("lower");
        assert!(
            (lower - expected.interval.lower).abs() <= 1e-12,
            "{metric}: {lower} {}",
            expected.interval.lower
        );
        let compared = compare_systems(&v1, &v2, 0.95).expect("valid");
        let cell = &systems["comparisons"][m];
        assert_eq!(
            (cell["system"].as_str(), cell["baseline"].as_str()),
            (Some("v2"), Some("v1"))
        );
        let p = cell["result"]["p_value"].as_f64().expect("p");
        // From values read back from JSON: equal to about 1e-12.
        assert!(
            (p - compared.p_value).abs() <= 1e-12,
            "{metric}: {p} {}",
            compared.p_value
        );
        let blind = cell["result"]["seed_blind_p_value"].as_f64().expect("p");
        assert!((blind - compared.seed_blind_p_value).abs() <= 1e-12);
    }
}

#[test]
fn mistakes_in_systems_name_the_key() {
    let dir = scratch(&[
        ("qrels.txt", "1 0 a 1\n"),
        ("a-1.trec", "1 Q0 a 1 0.9 t\n"),
        ("a-2.trec", "1 Q0 a 1 0.9 t\n"),
        (
            "none.toml",
            "qrels = \"qrels.txt\"\n\n[[systems]]\nname = \"a\"\nruns = [\"b-*.trec\"]\n",
        ),
        (
            "one.toml",
            "qrels = \"qrels.txt\"\n\n[[systems]]\nname = \"a\"\nruns = [\"a-1.trec\"]\n",
        ),
    ]);
    for (file, expected) in [
        ("none.toml", "systems[1].runs: `b-*.trec` matches no file"),
        (
            "one.toml",
            "system `a` has 1 run: a system of several runs needs at least 2",
        ),
    ] {
        let args = ["run", file];
        let result = run_in(dir.path(), &args);
        assert_eq!(result.0, 2, "{}", result.2);
        assert!(result.2.contains(expected), "{}", result.2);
        insta::assert_snapshot!(
            format!("systems_error_{}", file.trim_end_matches(".toml")),
            transcript(&args, result)
        );
    }
}

#[test]
fn the_command_line_systems_equal_the_experiments() {
    let dir = super::workspace().join("examples/seeds");
    let (code, toml, stderr) = run_in(&dir, &["run", "experiment.toml", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "-m",
        "ap",
        "-m",
        "ndcg@10",
        "--system",
        "v1=runs/v1-seed*.trec",
        "--system",
        "v2=runs/v2-seed1.trec, runs/v2-seed2.trec,runs/v2-seed3.trec",
        "--format",
        "json",
    ];
    let (code, cli, stderr) = run_in(&dir, &args);
    assert_eq!(code, 0, "{stderr}");
    let systems = |text: &str| {
        serde_json::from_str::<serde_json::Value>(text).expect("JSON")["systems"].clone()
    };
    assert_eq!(systems(&toml), systems(&cli));
    let (code, _, stderr) = run_in(&dir, &["eval", "--qrels", "qrels.txt", "--system", "v1"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--system v1: expected NAME=FILES"),
        "{stderr}"
    );
}

/// A system name given twice gets that reason, naming both places (the
/// two `--system` flags, or both `[[systems]]` tables with their lines).
#[test]
fn a_system_name_given_twice_names_both_places() {
    let dir = scratch(&[
        ("qrels.txt", "1 0 a 1\n"),
        ("a-1.trec", "1 Q0 a 1 0.9 t\n"),
        ("a-2.trec", "1 Q0 a 1 0.9 t\n"),
        ("b-1.trec", "1 Q0 a 1 0.9 t\n"),
        ("b-2.trec", "1 Q0 a 1 0.9 t\n"),
        (
            "twice.toml",
            "qrels = \"qrels.txt\"\n\n[[systems]]\nname = \"v2\"\nruns = [\"a-*.trec\"]\n\n\
             [[systems]]\nname = \"v2\"\nruns = [\"b-*.trec\"]\n",
        ),
    ]);
    let (code, _, stderr) = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--system",
            "v2=a-*.trec",
            "--system",
            "v2=b-*.trec",
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "--system v2=b-*.trec: the system name `v2` is given twice (system 1 is --system \
             v2=a-*.trec, this is system 2)"
        ),
        "{stderr}"
    );
    let (code, _, stderr) = run_in(
        dir.path(),
        &["eval", "--qrels", "qrels.txt", "--system", "a/b=a-*.trec"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot be empty nor hold `/`"), "{stderr}");
    let (code, _, stderr) = run_in(dir.path(), &["run", "twice.toml"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "twice.toml:8: systems[2].name: the system name `v2` is given twice: \
             systems[1].name (line 4) has it too"
        ),
        "{stderr}"
    );
}
