//! `rankeval ope` on small generated logs: the report in each format, the
//! refusal and its exit code, paired comparisons, slates, Plackett-Luce,
//! and errors that name the file, line and column.

use super::{run_in, scratch, transcript};

/// A bandit log of 60 impressions over three contexts and four items: the
/// logging policy shows item `a` with probability 0.4 and `b`, `c`, `d` with
/// 0.2 each; the reward is 1 on two of every three impressions of `a`
/// and on every other impression of `c`.
pub(super) fn bandit_log() -> String {
    let mut log = String::from("context,impression,item,reward,propensity\n");
    for n in 0..60 {
        let context = format!("q{}", n % 3 + 1);
        let item = ["a", "a", "b", "c", "d"][n % 5];
        let p = if item == "a" { 0.4 } else { 0.2 };
        let reward = u8::from((item == "a" && n % 3 != 1) || (item == "c" && n % 2 == 0));
        log.push_str(&format!("{context},{},{item},{reward},{p}\n", n + 1));
    }
    log
}

/// Two rankings of the four items for each context: `prod` puts `a` first,
/// `new` puts `c` first.
pub(super) fn runs() -> [(&'static str, String); 2] {
    let run = |first: &str, name: &str| {
        let mut out = String::new();
        for q in 1..=3 {
            let order: Vec<&str> = std::iter::once(first)
                .chain(["a", "b", "c", "d"].into_iter().filter(|i| *i != first))
                .collect();
            for (rank, item) in order.iter().enumerate() {
                out.push_str(&format!(
                    "q{q} Q0 {item} {} {} {name}\n",
                    rank + 1,
                    4 - rank
                ));
            }
        }
        out
    };
    [
        ("prod.trec", run("a", "prod")),
        ("new.trec", run("c", "new")),
    ]
}

pub(super) fn files() -> tempfile::TempDir {
    let [prod, new] = runs();
    scratch(&[
        ("log.csv", &bandit_log()),
        (prod.0, &prod.1),
        (new.0, &new.1),
    ])
}

fn snapshot(name: &str, dir: &std::path::Path, args: &[&str]) -> i32 {
    let out = run_in(dir, args);
    let code = out.0;
    insta::assert_snapshot!(name, transcript(args, out));
    code
}

const POLICIES: &[&str] = &[
    "--log",
    "log.csv",
    "--policy",
    "prod.trec",
    "--policy",
    "new.trec",
];

fn with<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["ope"];
    args.extend_from_slice(POLICIES);
    args.extend_from_slice(extra);
    args
}

#[test]
fn table_with_floors_met() {
    let dir = files();
    let code = snapshot(
        "ope_table",
        dir.path(),
        &with(&[
            "-e",
            "ips",
            "-e",
            "snips",
            "-e",
            "clipped_ips(max_weight=4)",
            "--min-ess",
            "5",
        ]),
    );
    assert_eq!(code, 0);
}

#[test]
fn gates_set_the_exit_code() {
    let dir = files();
    let passing = with(&[
        "-e",
        "snips",
        "--min-ess",
        "5",
        "--gate",
        "ope.snips:non_inferior(margin=0.6)",
        "--gate",
        "snips:at_least(floor=0.1)",
    ]);
    assert_eq!(snapshot("ope_gates_pass", dir.path(), &passing), 0);
    let failing = with(&["-e", "snips", "--min-ess", "5", "--gate", "snips:superior"]);
    assert_eq!(snapshot("ope_gates_fail", dir.path(), &failing), 1);
    let undecided = with(&["-e", "snips", "--gate", "snips:at_least(floor=0.1)"]);
    assert_eq!(snapshot("ope_gates_undecided", dir.path(), &undecided), 2);
    let unknown = with(&["-e", "snips", "--gate", "ips:at_least(floor=0.1)"]);
    assert_eq!(run_in(dir.path(), &unknown).0, 2);
}

#[test]
fn json_with_t_intervals() {
    let dir = files();
    let code = snapshot(
        "ope_json",
        dir.path(),
        &with(&[
            "-e",
            "snips",
            "--interval",
            "t",
            "--min-ess",
            "5",
            "--format",
            "json",
        ]),
    );
    assert_eq!(code, 0);
}

#[test]
fn doubly_robust_with_a_reward_model() {
    // The model predicts 0.6 for `a`, 0.3 for `c`, 0.1 for `b` and `d` in
    // every context.
    let mut model = String::new();
    for q in 1..=3 {
        for (item, p) in [("a", 0.6), ("b", 0.1), ("c", 0.3), ("d", 0.1)] {
            model.push_str(&format!("q{q} Q0 {item} 0 {p} model\n"));
        }
    }
    let [prod, new] = runs();
    let dir = scratch(&[
        ("log.csv", &bandit_log()),
        (prod.0, &prod.1),
        (new.0, &new.1),
        ("model.trec", &model),
    ]);
    let code = snapshot(
        "ope_doubly_robust",
        dir.path(),
        &with(&[
            "--reward-model",
            "model.trec",
            "-e",
            "dm",
            "-e",
            "dr",
            "-e",
            "sndr",
            "-e",
            "switch_dr(tau=3)",
            "-e",
            "dr_os(lambda=1)",
            "--min-ess",
            "5",
        ]),
    );
    assert_eq!(code, 0);
    let code = snapshot("ope_dr_without_a_model", dir.path(), &with(&["-e", "dr"]));
    assert_eq!(code, 2);
    // A prediction that is not finite is refused naming the model's file,
    // not the log: every estimate built on it would be inf or NaN.
    for bad in ["inf", "1e400", "-inf"] {
        let model = model.replace("q2 Q0 c 0 0.3", &format!("q2 Q0 c 0 {bad}"));
        std::fs::write(dir.path().join("bad-model.trec"), model).unwrap();
        let (code, stdout, stderr) = super::run_in(
            dir.path(),
            &with(&[
                "--reward-model",
                "bad-model.trec",
                "-e",
                "dr",
                "--min-ess",
                "5",
            ]),
        );
        assert_eq!((code, stdout.as_str()), (2, ""), "{bad}: {stderr}");
        assert!(
            stderr.starts_with("error: bad-model.trec: the reward model predicts")
                && stderr.contains("item `c` in context `q2`"),
            "{bad}: {stderr}"
        );
    }
}

#[test]
fn refused_below_the_default_floors_exits_2() {
    let dir = files();
    let code = snapshot("ope_refused", dir.path(), &with(&["-e", "ips"]));
    assert_eq!(code, 2);
    let code = snapshot(
        "ope_allow_low_support",
        dir.path(),
        &with(&["-e", "ips", "--allow-low-support"]),
    );
    assert_eq!(code, 0);
    let json = run_in(dir.path(), &with(&["-e", "ips", "--format", "json"]));
    assert_eq!(json.0, 2);
    let doc: serde_json::Value = serde_json::from_str(&json.1).unwrap();
    assert!(
        doc["policies"][0]["estimates"][0]["value"].is_null(),
        "{}",
        json.1
    );
    assert!(
        !doc["policies"][0]["estimates"][0]["refusals"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn slates_under_the_cascade_and_plackett_luce() {
    // Two positions per impression, one row per position; per-position
    // rewards and cascade propensities.
    let mut log = String::from("context\timpression\titem\tposition\treward\tpropensity\n");
    for n in 0..40 {
        let q = format!("q{}", n % 3 + 1);
        let (first, second) = if n % 2 == 0 { ("a", "b") } else { ("b", "a") };
        log.push_str(&format!(
            "{q}\t{n}\t{first}\t1\t{}\t0.5\n",
            u8::from(n % 4 == 0)
        ));
        log.push_str(&format!(
            "{q}\t{n}\t{second}\t2\t{}\t1\n",
            u8::from(n % 3 == 0)
        ));
    }
    let run = "q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\nq2 Q0 a 1 2 t\nq2 Q0 b 2 1 t\nq3 Q0 b 1 2 t\nq3 Q0 a 2 1 t\n";
    let dir = scratch(&[("slates.tsv", &log), ("run.trec", run)]);
    let base = [
        "ope",
        "--log",
        "slates.tsv",
        "--form",
        "cascade",
        "--reward-per",
        "position",
        "--policy",
        "run.trec",
    ];
    let mut args = base.to_vec();
    args.extend_from_slice(&["-e", "rips", "-e", "slate_ips", "--min-ess", "5"]);
    assert_eq!(snapshot("ope_slates_cascade", dir.path(), &args), 0);
    let mut args = base.to_vec();
    args.extend_from_slice(&["-e", "rips", "--plackett-luce", "1", "--min-ess", "5"]);
    assert_eq!(snapshot("ope_slates_plackett_luce", dir.path(), &args), 0);
    let mut args = base.to_vec();
    args.extend_from_slice(&["-e", "iips"]);
    assert_eq!(
        snapshot("ope_estimator_unfit_for_the_form", dir.path(), &args),
        2
    );
}

#[test]
fn errors_name_the_file_line_and_column() {
    let bad = "context,impression,item,reward,propensity\nq1,1,a,1,0.5\nq1,2,b,0,0\n";
    let [prod, _] = runs();
    let dir = scratch(&[
        ("bad.csv", bad),
        (prod.0, &prod.1),
        ("log.csv", &bandit_log()),
    ]);
    let code = snapshot(
        "ope_bad_propensity",
        dir.path(),
        &["ope", "--log", "bad.csv", "--policy", "prod.trec"],
    );
    assert_eq!(code, 2);
    // A JSON Lines row giving a key twice: either value would be a guess.
    let dir_json = scratch(&[
        (
            "log.jsonl",
            "{\"context\": \"q1\", \"impression\": 1, \"item\": \"a\", \"reward\": 1, \"propensity\": 0.5}\n\
             {\"context\": \"q1\", \"impression\": 2, \"item\": \"a\", \"reward\": 1, \"reward\": 0, \"propensity\": 0.5}\n",
        ),
        (prod.0, &prod.1),
    ]);
    let (code, _, stderr) = run_in(
        dir_json.path(),
        &["ope", "--log", "log.jsonl", "--policy", "prod.trec"],
    );
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: log.jsonl, line 2: not a JSON object: key `reward` appears twice at line 1 column 72\n"
    );
    let code = snapshot(
        "ope_unknown_estimator",
        dir.path(),
        &[
            "ope",
            "--log",
            "log.csv",
            "--policy",
            "prod.trec",
            "-e",
            "ipps",
        ],
    );
    assert_eq!(code, 2);
    // A target that shows an item the log never shows in that context.
    let dir = scratch(&[
        (
            "log.csv",
            "context,impression,item,reward,propensity\nq1,1,a,1,0.5\n",
        ),
        ("run.trec", "q1 Q0 z 1 1 t\n"),
    ]);
    let code = snapshot(
        "ope_never_logged",
        dir.path(),
        &["ope", "--log", "log.csv", "--policy", "run.trec"],
    );
    assert_eq!(code, 2);
    let dir = scratch(&[
        (
            "log.csv",
            "context,impression,item,reward,propensity\nq1,1,a,1,0.5\nq9,2,a,1,0.5\n",
        ),
        ("run.trec", "q1 Q0 a 1 1 t\n"),
    ]);
    let code = snapshot(
        "ope_no_ranking_for_a_context",
        dir.path(),
        &["ope", "--log", "log.csv", "--policy", "run.trec"],
    );
    assert_eq!(code, 2);
}

#[test]
fn floors_no_log_can_meet_are_refused() {
    // An infinite effective sample size or a share outside [0, 1] would
    // refuse every estimate for a reason that is not the log's.
    let dir = files();
    for (option, says) in [
        (
            "--min-ess=1e400",
            "--min-ess inf: the floor is an effective sample size",
        ),
        (
            "--min-ess=-1",
            "--min-ess -1: the floor is an effective sample size",
        ),
        (
            "--min-ess=nan",
            "--min-ess NaN: the floor is an effective sample size",
        ),
        (
            "--min-support=1.5",
            "--min-support 1.5: the floor is a share",
        ),
        (
            "--min-support=-0.1",
            "--min-support -0.1: the floor is a share",
        ),
        (
            "--min-support=nan",
            "--min-support NaN: the floor is a share",
        ),
    ] {
        let (code, _, stderr) = run_in(dir.path(), &with(&[option]));
        assert_eq!(code, 2, "{option}: {stderr}");
        assert!(stderr.contains(says), "{option}: {stderr}");
    }
    // The extremes a log can meet are accepted.
    for option in ["--min-ess=0", "--min-support=0", "--min-support=1"] {
        let (code, _, stderr) = run_in(dir.path(), &with(&[option, "--allow-low-support"]));
        assert_eq!(code, 0, "{option}: {stderr}");
    }
}

/// A log of slates of three over six items, marginal propensities, a
/// reward per position (JSON Lines, list columns), and a run of scores
/// over the six items (and `wide` items more in context q3 when given).
fn marginal_files(wide: usize) -> tempfile::TempDir {
    let items = ["a", "b", "c", "d", "e", "f"];
    let mut log = String::new();
    for n in 0..240usize {
        let q = n % 3 + 1;
        let shown: Vec<&str> = (0..3).map(|l| items[(n / 3 + 2 * l + q) % 6]).collect();
        let rewards: Vec<u8> = (0..3).map(|l| u8::from((n + l * 5) % 7 < 2)).collect();
        let propensities: Vec<f64> = (0..3).map(|l| 0.2 + 0.1 * ((n + l) % 3) as f64).collect();
        log.push_str(&format!(
            "{{\"context\": \"q{q}\", \"impression\": \"m{n}\", \"item\": {shown:?}, \"reward\": {rewards:?}, \"propensity\": {propensities:?}}}\n"
        ));
    }
    let mut run = String::new();
    for q in 1..=3 {
        for (rank, item) in items.iter().enumerate() {
            let score = ((rank * 7 + q * 3) % 5) as f64 * 0.5;
            run.push_str(&format!("q{q} Q0 {item} {} {score} pl\n", rank + 1));
        }
    }
    for k in 0..wide {
        run.push_str(&format!("q3 Q0 w{k} {} -1 pl\n", 7 + k));
    }
    scratch(&[("log.jsonl", &log), ("pl.trec", &run)])
}

/// `rankeval args` in `dir` with `RAYON_NUM_THREADS` = `threads`.
pub(super) fn with_threads(
    dir: &std::path::Path,
    args: &[&str],
    threads: &str,
) -> (i32, String, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_rankeval"))
        .args(args)
        .current_dir(dir)
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .expect("the rankeval binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn plackett_luce_marginals_by_seeded_monte_carlo() {
    let dir = marginal_files(0);
    let base = [
        "ope",
        "--log",
        "log.jsonl",
        "--form",
        "marginal",
        "--reward-per",
        "position",
        "--policy",
        "pl.trec",
        "--plackett-luce",
        "0.8",
        "-e",
        "iips",
        "-e",
        "pi",
        "--allow-low-support",
        "--format",
        "json",
    ];
    let estimates = |out: &str| -> Vec<f64> {
        let v: serde_json::Value = serde_json::from_str(out).unwrap();
        v["policies"][0]["estimates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["value"].as_f64().unwrap())
            .collect()
    };
    let (code, exact, _) = run_in(dir.path(), &base);
    assert_eq!(code, 0);
    let exact = estimates(&exact);
    let samples = 10_000u32;
    let mut sampled_args = base.to_vec();
    sampled_args.extend_from_slice(&["--samples", "10000", "--seed", "7"]);
    let one = with_threads(dir.path(), &sampled_args, "1");
    let three = with_threads(dir.path(), &sampled_args, "3");
    assert_eq!(one.0, 0, "{}", one.2);
    // The same bits for any thread count.
    assert_eq!(one.1, three.1);
    let report: serde_json::Value = serde_json::from_str(&one.1).unwrap();
    assert_eq!(report["sampling"]["seed"], 7);
    assert_eq!(report["sampling"]["samples"], 10000);
    // Within four Monte Carlo errors: each drawn marginal's standard error
    // is at most 0.5 / sqrt(N) (its terms lie in [0, 1]); over the smallest
    // propensity (0.2), times the largest reward (1), summed over the three
    // positions, it bounds the standard error of an impression's IIPS term
    // (PI's: three times that, its reward the slate's sum); the 240
    // impressions draw independently (a stream each), so the mean's is
    // that over sqrt(240).
    let per_impression = 3.0 * 0.5 / f64::from(samples).sqrt() / 0.2;
    let mean = 4.0 * per_impression / 240f64.sqrt();
    let bound = [mean, 3.0 * mean];
    for ((s, e), b) in estimates(&one.1).iter().zip(&exact).zip(bound) {
        assert!((s - e).abs() <= b, "sampled {s}, exact {e}, bound {b}");
        assert_ne!(s, e, "the draws estimate, they do not enumerate");
    }
    // Another seed, other draws.
    let mut other = sampled_args.clone();
    if let Some(seed) = other.last_mut() {
        *seed = "8";
    }
    assert_ne!(run_in(dir.path(), &other).1, one.1);
    // The table prints the seed and the generator.
    let mut table: Vec<&str> = base[..base.len() - 2].to_vec();
    table.extend_from_slice(&["--samples", "2000", "--seed", "7"]);
    assert_eq!(snapshot("ope_plackett_luce_sampled", dir.path(), &table), 0);
}

#[test]
fn plackett_luce_beyond_enumeration_needs_samples() {
    // 1,006 items in q3: 1,005 x 1,004 orderings above the third position.
    let dir = marginal_files(1000);
    let base = [
        "ope",
        "--log",
        "log.jsonl",
        "--form",
        "marginal",
        "--reward-per",
        "position",
        "--policy",
        "pl.trec",
        "--plackett-luce",
        "0.8",
        "-e",
        "iips",
        "--allow-low-support",
    ];
    let (code, _, err) = run_in(dir.path(), &base);
    assert_eq!(code, 2);
    assert!(
        err.contains("--samples N estimates them by seeded Monte Carlo"),
        "{err}"
    );
    let mut args = base.to_vec();
    args.extend_from_slice(&["--samples", "200"]);
    let (code, out, err) = run_in(dir.path(), &args);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("200 orderings drawn per impression, seed 42"),
        "{out}"
    );
    let mut zero = base.to_vec();
    zero.extend_from_slice(&["--samples", "0"]);
    let (code, _, err) = run_in(dir.path(), &zero);
    assert_eq!(code, 2);
    assert!(err.contains("--samples 0: draw 1 to 10000000"), "{err}");
    let mut huge = base.to_vec();
    huge.extend_from_slice(&["--samples", "18446744073709551615"]);
    let (code, _, err) = run_in(dir.path(), &huge);
    assert_eq!(code, 2);
    assert!(
        err.contains("--samples 18446744073709551615: draw 1 to 10000000"),
        "{err}"
    );
    let no_pl: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| *a != "--plackett-luce" && *a != "0.8")
        .collect();
    let (code, _, err) = run_in(dir.path(), &no_pl);
    assert_eq!(code, 2);
    assert!(err.contains("give --plackett-luce"), "{err}");
}

/// One `--seed` serves the Plackett-Luce Monte Carlo and the bootstrap
/// interval together: the report names both with that seed and each its
/// own generator, the same bits for any thread count; an `[ope]` file's
/// `samples` and `seed` give the flags' bytes; a seed that neither uses,
/// and a file's `samples` out of range, are refused by name.
#[test]
fn one_seed_serves_the_monte_carlo_and_the_bootstrap() {
    let dir = marginal_files(0);
    let base = [
        "ope",
        "--log",
        "log.jsonl",
        "--form",
        "marginal",
        "--reward-per",
        "position",
        "--policy",
        "pl.trec",
        "--plackett-luce",
        "0.8",
        "-e",
        "iips",
        "-e",
        "pi",
        "--allow-low-support",
    ];
    let mut args = base.to_vec();
    args.extend_from_slice(&[
        "--samples",
        "500",
        "--interval",
        "bootstrap",
        "--resamples",
        "200",
        "--seed",
        "9",
        "--format",
        "json",
    ]);
    let one = with_threads(dir.path(), &args, "1");
    assert_eq!(one.0, 0, "{}", one.2);
    assert_eq!(with_threads(dir.path(), &args, "3").1, one.1);
    let report: serde_json::Value = serde_json::from_str(&one.1).unwrap();
    assert_eq!(report["sampling"]["samples"], 500);
    assert_eq!(report["sampling"]["seed"], 9);
    assert_eq!(report["resampling"]["resamples"], 200);
    assert_eq!(report["resampling"]["seed"], 9);
    let generator = |key: &str| report[key]["generator"].as_str().unwrap_or("").to_owned();
    assert!(generator("sampling").starts_with("ChaCha8 "), "{report}");
    assert!(generator("resampling").starts_with("ChaCha20"), "{report}");
    // The bootstrap's bounds are not the normal interval's.
    let mut normal: Vec<&str> = base.to_vec();
    normal.extend_from_slice(&["--samples", "500", "--seed", "9", "--format", "json"]);
    let normal: serde_json::Value = serde_json::from_str(&run_in(dir.path(), &normal).1).unwrap();
    assert_eq!(
        normal["policies"][0]["estimates"][0]["value"],
        report["policies"][0]["estimates"][0]["value"]
    );
    assert_ne!(
        normal["policies"][0]["estimates"][0]["interval"],
        report["policies"][0]["estimates"][0]["interval"]
    );
    // The same request as a file.
    std::fs::write(
        dir.path().join("mc.toml"),
        "[ope]\nlog = \"log.jsonl\"\nform = \"marginal\"\nreward_per = \"position\"\n\
         policies = [{ path = \"pl.trec\" }]\nplackett_luce = 0.8\nestimators = [\"iips\", \"pi\"]\n\
         allow_low_support = true\nsamples = 500\ninterval = \"bootstrap\"\nresamples = 200\nseed = 9\n",
    )
    .unwrap();
    let config = run_in(
        dir.path(),
        &["ope", "--config", "mc.toml", "--format", "json"],
    );
    assert_eq!(config.1, one.1, "{}", config.2);
    // A seed that neither draws nor resamples.
    let mut lone = base.to_vec();
    lone.extend_from_slice(&["--seed", "3"]);
    let (code, out, err) = run_in(dir.path(), &lone);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.contains(
            "--seed 3: only the bootstrap interval resamples: give --interval bootstrap, \
             or a number of samples for the Plackett-Luce Monte Carlo"
        ),
        "{err}"
    );
    std::fs::write(
        dir.path().join("zero.toml"),
        "[ope]\nlog = \"log.jsonl\"\nform = \"marginal\"\npolicies = [{ path = \"pl.trec\" }]\n\
         plackett_luce = 0.8\nsamples = 0\n",
    )
    .unwrap();
    let (code, _, err) = run_in(dir.path(), &["ope", "--config", "zero.toml"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "error: zero.toml:6: ope.samples: draw 1 to 10000000 orderings per impression\n"
    );
}
