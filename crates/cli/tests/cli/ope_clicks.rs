//! `rankeval ope` on click logs (the `examination` form, the position-based
//! model of Joachims et al. 2017): the IPS-weighted rank metrics by hand
//! from their definition, the report in each format, the propensities per
//! rank, the TOML file and the flags alike, the shared machinery
//! (bootstrap, groups, gates, corrections), and errors that name the file,
//! line and column.

use super::{run_in, scratch, transcript};

/// A click log of 120 impressions, one row per position: two contexts of
/// four items, the logged order rotating; the user examines rank `k` with
/// probability `1/k` (the propensity column), and the clicks follow a
/// fixed pattern (an item of `q1` is clicked on one impression in `1 +
/// position`, of `q2` when `a` or `c` and the impression is even).
pub(super) fn click_log() -> String {
    let mut log = String::from("context,impression,item,position,reward,propensity\n");
    let items = ["a", "b", "c", "d"];
    for n in 0..120usize {
        let context = if n % 2 == 0 { "q1" } else { "q2" };
        for k in 0..4 {
            let item = items[(n / 2 + k) % 4];
            let click = if context == "q1" {
                (n / 2) % (k + 2) == 0
            } else {
                (item == "a" || item == "c") && (n / 2) % 2 == 0 && k < 2
            };
            let p = 1.0 / (k as f64 + 1.0);
            log.push_str(&format!(
                "{context},{},{item},{},{},{p}\n",
                n + 1,
                k + 1,
                u8::from(click)
            ));
        }
    }
    log
}

/// `prod` ranks a, b, c, d; `new` ranks c, a, d, b (and an item no log
/// shows, `z`, last), in both contexts.
fn runs() -> [(&'static str, String); 2] {
    let run = |order: &[&str], name: &str| {
        let mut out = String::new();
        for q in ["q1", "q2"] {
            for (rank, item) in order.iter().enumerate() {
                out.push_str(&format!("{q} Q0 {item} {} {} {name}\n", rank + 1, 9 - rank));
            }
        }
        out
    };
    [
        ("prod.trec", run(&["a", "b", "c", "d"], "prod")),
        ("new.trec", run(&["c", "a", "d", "b", "z"], "new")),
    ]
}

pub(super) fn files() -> tempfile::TempDir {
    let [prod, new] = runs();
    scratch(&[
        ("clicks.csv", &click_log()),
        (prod.0, &prod.1),
        (new.0, &new.1),
        ("groups.csv", "query,segment\nq1,head\nq2,tail\n"),
    ])
}

pub(super) const FLAGS: &[&str] = &[
    "ope",
    "--log",
    "clicks.csv",
    "--form",
    "examination",
    "--policy",
    "prod=prod.trec",
    "--policy",
    "new=new.trec",
    "-e",
    "ips_dcg@10",
    "-e",
    "ips_rbp(p=0.8)",
    "-e",
    "ips_p@2",
    "-e",
    "ips_dcg@10(max_weight=3)",
    "--min-ess",
    "5",
    "--min-support",
    "0.5",
];

const TOML: &str = r#"
[ope]
log = "clicks.csv"
form = "examination"
policies = [{ name = "prod", path = "prod.trec" }, { name = "new", path = "new.trec" }]
estimators = ["ips_dcg@10", "ips_rbp(p=0.8)", "ips_p@2", "ips_dcg@10(max_weight=3)"]
min_ess = 5
min_support = 0.5
"#;

fn json(out: &(i32, String, String)) -> serde_json::Value {
    serde_json::from_str(&out.1).unwrap_or_else(|e| panic!("{e}: {}", out.2))
}

/// The value of `policy` under `estimator` in a JSON report.
fn value(report: &serde_json::Value, policy: usize, estimator: usize) -> f64 {
    report["policies"][policy]["estimates"][estimator]["value"]
        .as_f64()
        .expect("a value")
}

#[test]
fn a_tiny_log_by_hand_from_the_definition() {
    // Three impressions; clicks at logged positions 1 and 3, 2, 2.
    let log = "context,impression,item,position,reward,propensity\n\
               q1,1,a,1,1,1\nq1,1,b,2,0,0.5\nq1,1,c,3,1,0.25\n\
               q1,2,b,1,0,1\nq1,2,a,2,1,0.5\nq1,2,c,3,0,0.25\n\
               q2,3,x,1,0,1\nq2,3,y,2,1,0.5\nq2,3,z,3,0,0.25\n";
    let run = "q1 Q0 c 1 3 t\nq1 Q0 a 2 2 t\nq1 Q0 b 3 1 t\n\
               q2 Q0 y 1 2 t\nq2 Q0 w 2 1 t\n";
    let dir = scratch(&[("log.csv", log), ("t.trec", run)]);
    let args = [
        "ope",
        "--log",
        "log.csv",
        "--form",
        "examination",
        "--policy",
        "t.trec",
        "-e",
        "ips_dcg@10",
        "-e",
        "ips_rbp(p=0.8)",
        "-e",
        "ips_p@1",
        "-e",
        "ips_dcg@10(max_weight=2)",
        "--min-n",
        "0",
        "--min-ess",
        "0",
        "--min-support",
        "0",
        "--format",
        "json",
    ];
    let out = run_in(dir.path(), &args);
    assert_eq!(out.0, 0, "{}", out.2);
    let report = json(&out);
    // Δ̂ = Σ_{clicked d} λ(rank_target(d)) / p_{logged rank of d}; the
    // clicked documents' target ranks: c 1, a 2; a 2; y 1.
    let dcg = |r: f64| 1.0 / (r + 1.0).log2();
    let rbp = |r: f64| 0.2 * 0.8f64.powf(r - 1.0);
    let p1 = |r: f64| if r <= 1.0 { 1.0 } else { 0.0 };
    let clicks: [&[(f64, f64)]; 3] = [&[(2.0, 1.0), (1.0, 0.25)], &[(2.0, 0.5)], &[(1.0, 0.5)]];
    let by_hand = |lambda: &dyn Fn(f64) -> f64, clip: f64| {
        clicks
            .iter()
            .map(|c| {
                c.iter()
                    .map(|&(r, p)| lambda(r) * (1.0 / p).min(clip))
                    .sum::<f64>()
            })
            .sum::<f64>()
            / 3.0
    };
    let expected = [
        by_hand(&dcg, f64::INFINITY),
        by_hand(&rbp, f64::INFINITY),
        by_hand(&p1, f64::INFINITY),
        by_hand(&dcg, 2.0),
    ];
    for (k, want) in expected.iter().enumerate() {
        let got = value(&report, 0, k);
        assert!((got - want).abs() < 1e-12, "estimator {k}: {got} != {want}");
    }
    // The clip bit once: the click of weight 4.
    assert_eq!(
        report["policies"][0]["estimates"][3]["diagnostics"]["clipped"],
        1
    );
    // The examination propensities per rank 1, 1/2, 1/4 give the same
    // bytes from a log without the column.
    let no_column: String = log
        .lines()
        .map(|l| l.rsplit_once(',').map_or(l, |(head, _)| head).to_owned() + "\n")
        .collect();
    std::fs::write(dir.path().join("bare.csv"), no_column).expect("write");
    let mut by_rank = args.to_vec();
    by_rank[2] = "bare.csv";
    by_rank.splice(3..5, ["--examination", "1,0.5,0.25"]);
    let ranked = run_in(dir.path(), &by_rank);
    assert_eq!(ranked.0, 0, "{}", ranked.2);
    assert_eq!(
        ranked.1.replace("bare.csv", "log.csv"),
        out.1,
        "per rank as per column"
    );
    // The power law p_k = (1/k)^2 is 1, 1/4, 1/9 at ranks 1 to 3.
    by_rank[4] = "power(eta=2)";
    let power = json(&run_in(dir.path(), &by_rank));
    let by_power = (dcg(2.0) + dcg(1.0) * 9.0 + dcg(2.0) * 4.0 + dcg(1.0) * 4.0) / 3.0;
    assert!((value(&power, 0, 0) - by_power).abs() < 1e-12);
}

#[test]
fn the_report_as_a_table_and_as_json() {
    let dir = files();
    let out = run_in(dir.path(), FLAGS);
    assert_eq!(out.0, 0, "{}", out.2);
    insta::assert_snapshot!("ope_clicks_table", transcript(FLAGS, out));
    let args = [FLAGS, &["--format", "json"]].concat();
    let out = run_in(dir.path(), &args);
    assert_eq!(out.0, 0, "{}", out.2);
    insta::assert_snapshot!("ope_clicks_json", transcript(&args, out));
}

#[test]
fn a_toml_file_gives_the_bytes_the_flags_give() {
    let dir = files();
    std::fs::write(dir.path().join("clicks.toml"), TOML).expect("write");
    for format in ["table", "json"] {
        let flags = run_in(dir.path(), &[FLAGS, &["--format", format]].concat());
        assert_eq!(flags.0, 0, "{}", flags.2);
        let config = run_in(
            dir.path(),
            &["ope", "--config", "clicks.toml", "--format", format],
        );
        assert_eq!(config, flags, "{format}");
        let run = run_in(dir.path(), &["run", "clicks.toml", "--format", format]);
        assert_eq!(run, flags, "{format}");
    }
    // The per-rank propensities too.
    let bare: String = click_log()
        .lines()
        .map(|l| l.rsplit_once(',').map_or(l, |(head, _)| head).to_owned() + "\n")
        .collect();
    std::fs::write(dir.path().join("bare.csv"), bare).expect("write");
    std::fs::write(
        dir.path().join("bare.toml"),
        TOML.replace("\"clicks.csv\"", "\"bare.csv\"")
            .replace("form = \"examination\"", "examination = \"power(eta=1)\""),
    )
    .expect("write");
    let mut args = FLAGS.to_vec();
    args[2] = "bare.csv";
    args.splice(3..5, ["--examination", "power(eta=1)"]);
    let flags = run_in(dir.path(), &args);
    assert_eq!(flags.0, 0, "{}", flags.2);
    assert_eq!(run_in(dir.path(), &["ope", "--config", "bare.toml"]), flags);
    // 1/k is the propensity column's: the same estimates.
    let column = run_in(dir.path(), FLAGS);
    assert_eq!(flags.1.replace("bare.csv", "clicks.csv"), column.1);
}

/// The machinery every estimator shares: the seeded bootstrap, the
/// corrected paired comparisons, the gates and the groups.
#[test]
fn bootstrap_comparisons_gates_and_groups_as_for_every_estimator() {
    let dir = files();
    let args = [
        FLAGS,
        &[
            "--interval",
            "bootstrap",
            "--resamples",
            "200",
            "--seed",
            "7",
            "--correction",
            "holm",
            "--groups",
            "groups.csv",
            "--min-n",
            "10",
            "--gate",
            "ips_dcg@10:non_inferior(margin=0.05)",
            "--gate",
            "ips_p@2:at_least(floor=0.01)",
        ],
    ]
    .concat();
    let out = run_in(dir.path(), &args);
    let again = run_in(dir.path(), &args);
    assert_eq!(out, again, "seeded");
    insta::assert_snapshot!("ope_clicks_bootstrap_groups_gates", transcript(&args, out));
}

#[test]
fn click_log_errors_name_the_file_line_and_column() {
    let head = "context,impression,item,position,reward,propensity\n";
    let [prod, _] = runs();
    let cases: &[(&str, &str)] = &[
        (
            "q1,1,a,1,2,1\n",
            "clicks.csv, line 2, column `reward`: click 2 is not 0 or 1",
        ),
        (
            "q1,1,a,1,1,0\n",
            "clicks.csv, line 2, column `propensity`: propensity 0: a logged item must have had a positive probability",
        ),
        (
            "q1,1,a,1,1,1.5\n",
            "clicks.csv, line 2, column `propensity`: propensity 1.5 is not a probability in (0, 1]",
        ),
        (
            "q1,1,a,1,1,\n",
            "clicks.csv, line 2, column `propensity`: missing",
        ),
        (
            "q1,1,a,1,1,1\nq1,1,b,1,0,0.5\n",
            "clicks.csv, line 3, column `position`: impression `1` has position 1 again",
        ),
        (
            "q1,1,a,1,1,1\nq1,1,b,3,0,0.5\n",
            "clicks.csv, line 3, column `position`: impression `1` has no position 2",
        ),
    ];
    for (rows, expected) in cases {
        let dir = scratch(&[("clicks.csv", &format!("{head}{rows}")), (prod.0, &prod.1)]);
        let (code, stdout, stderr) = run_in(
            dir.path(),
            &[
                "ope",
                "--log",
                "clicks.csv",
                "--form",
                "examination",
                "--policy",
                "prod.trec",
            ],
        );
        assert_eq!((code, stdout.as_str()), (2, ""), "{rows}");
        assert!(
            stderr.starts_with(&format!("error: {expected}")),
            "{rows}: {stderr}"
        );
    }
    let dir = files();
    let base = ["ope", "--log", "clicks.csv", "--policy", "prod.trec"];
    let refused: &[(&[&str], &str)] = &[
        (
            &["--form", "examination", "--reward-per", "impression"],
            "error: --reward-per impression: a click log (form examination) has a click per position",
        ),
        (
            &["--form", "examination", "--plackett-luce", "1"],
            "error: --plackett-luce 1: a click log's target is a ranking",
        ),
        (
            &["--form", "marginal", "--examination", "power(eta=1)"],
            "error: --examination power(eta=1): examination propensities per rank are a click log's, and the log's form is `marginal`: give --form examination (or no form)",
        ),
        (
            &["--examination", "power(eta=-1)"],
            "error: --examination power(eta=-1): `power(eta=-1)`: eta is a finite number of at least 0",
        ),
        (
            &["--examination", "1,0"],
            "error: --examination 1,0: `1,0`: rank 2: 0 is not a probability in (0, 1]",
        ),
        (
            &["--form", "examination", "-e", "snips"],
            "error: snips needs one item per impression with its propensity (form `action`); the log's propensities are of the form `examination`",
        ),
        (
            &["-e", "ips_dcg@10"],
            "error: -e ips_dcg@10: ips_dcg@10 reads a click log (examination propensities per position), and the log's form is `action`: give --form examination",
        ),
        (
            &["--form", "examination", "-e", "ips_ndcg@10"],
            "error: -e ips_ndcg@10: unknown click metric `ips_ndcg@10`",
        ),
        (
            // The log has a propensity column and the rule gives them too.
            &["--examination", "power(eta=1)"],
            "error: clicks.csv: the propensities are given per rank, and the log has a column `propensity` too",
        ),
    ];
    for (extra, expected) in refused {
        let args = [&base[..], extra].concat();
        let (code, stdout, stderr) = run_in(dir.path(), &args);
        assert_eq!((code, stdout.as_str()), (2, ""), "{args:?}");
        assert!(stderr.starts_with(expected), "{args:?}: {stderr}");
    }
    // A list of propensities shorter than the slates.
    let bare: String = click_log()
        .lines()
        .map(|l| l.rsplit_once(',').map_or(l, |(head, _)| head).to_owned() + "\n")
        .collect();
    std::fs::write(dir.path().join("bare.csv"), bare).expect("write");
    let (code, _, stderr) = run_in(
        dir.path(),
        &[
            "ope",
            "--log",
            "bare.csv",
            "--policy",
            "prod.trec",
            "--examination",
            "1,0.5",
        ],
    );
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: bare.csv: the log shows 4 positions and the examination propensities 1,0.5 give 2 (one per rank)\n"
    );
}

/// Options at their extremes: each refused with the flag and the reason,
/// or estimated (a cutoff of 2^64 - 1 is a cutoff), never a panic.
#[test]
fn hostile_click_options() {
    let dir = files();
    let bare: String = click_log()
        .lines()
        .map(|l| l.rsplit_once(',').map_or(l, |(head, _)| head).to_owned() + "\n")
        .collect();
    std::fs::write(dir.path().join("bare.csv"), bare).expect("write");
    let refused: &[(&[&str], &str)] = &[
        (
            &["--examination", "power(eta=1e400)"],
            "eta is a finite number of at least 0",
        ),
        (
            &["--examination", "power(eta=NaN)"],
            "eta is a finite number of at least 0",
        ),
        (&["--examination", ""], "rank 1: `` is not a number"),
        (
            &["--examination", "1e400"],
            "rank 1: inf is not a probability in (0, 1]",
        ),
        (
            &["--examination", "1,-0"],
            "rank 2: -0 is not a probability in (0, 1]",
        ),
        (&["--examination", "power(eta=1)x"], "expected power(eta=N)"),
        // A propensity that underflows to 0 at rank 2.
        (
            &["--examination", "power(eta=2000)"],
            "give rank 2 the propensity 0, not a probability in (0, 1]",
        ),
        (
            &["--examination", "1", "-e", "ips_dcg@0"],
            "k = 0: must be at least 1",
        ),
        (
            &["--examination", "1", "-e", "ips_p@18446744073709551616"],
            "expected p@K, K a whole number",
        ),
        (
            &["--examination", "1", "-e", "ips_rbp(p=NaN)"],
            "must be strictly between 0 and 1",
        ),
        (
            &["--examination", "1", "-e", "ips_rbp(p=0)"],
            "must be strictly between 0 and 1",
        ),
        (
            &["--examination", "1", "-e", "ips_dcg(max_weight=-1)"],
            "must be greater than 0",
        ),
        (
            &["--examination", "1", "-e", "ips_dcg(max_weight=NaN)"],
            "must be greater than 0",
        ),
        (
            &[
                "--examination",
                "1",
                "-e",
                "ips_dcg@10(max_weight=1,max_weight=2)",
            ],
            "dcg@10 takes no `max_weight`",
        ),
    ];
    for (extra, says) in refused {
        let mut args = vec!["ope", "--log", "bare.csv", "--policy", "prod.trec"];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = run_in(dir.path(), &args);
        assert_eq!(
            (code, stdout.as_str()),
            (2, ""),
            "{:?}: {stderr}",
            &extra[..1]
        );
        assert!(stderr.contains(says), "{:?}: {stderr}", &extra[..1]);
    }
    // Cutoffs at their extremes are metrics like any other; a clip of
    // infinity clips nothing.
    let (code, stdout, stderr) = run_in(
        dir.path(),
        &[
            "ope",
            "--log",
            "bare.csv",
            "--policy",
            "prod.trec",
            "--examination",
            "power(eta=0)",
            "-e",
            "ips_p@18446744073709551615",
            "-e",
            "ips_dcg@18446744073709551615",
            "-e",
            "ips_dcg(max_weight=inf)",
            "--allow-low-support",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("ips_p@18446744073709551615"), "{stdout}");
    // 20,000 ranks, more than the slates show: the first four serve.
    let long = vec!["0.5"; 20_000].join(",");
    let (code, stdout, stderr) = run_in(
        dir.path(),
        &[
            "ope",
            "--log",
            "bare.csv",
            "--policy",
            "prod.trec",
            "--examination",
            &long,
            "--allow-low-support",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("ips_dcg@10"), "{stdout}");
}
