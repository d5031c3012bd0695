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
