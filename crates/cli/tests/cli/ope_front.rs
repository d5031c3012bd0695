//! `rankeval ope`'s request from its three front ends: the flags, a TOML
//! file's `[ope]` table (`rankeval ope --config`, `rankeval run`), and
//! (in crates/python/tests) Python's keywords. One spec holds the rules, so
//! a bad value is refused with the same words after its origin.

use super::ope::{files, with_threads};
use super::{run_in, scratch, transcript};

/// The flags of the first report and the same request as a TOML file.
const FLAGS: &[&str] = &[
    "ope",
    "--log",
    "log.csv",
    "--policy",
    "prod=prod.trec",
    "--policy",
    "new.trec",
    "-e",
    "ips",
    "-e",
    "snips",
    "--min-ess",
    "5",
    "--gate",
    "snips:at_least(floor=0.1)",
];

const TOML: &str = r#"
[ope]
log = "log.csv"
policies = [{ name = "prod", path = "prod.trec" }, { path = "new.trec" }]
estimators = ["ips", "snips"]
min_ess = 5
gates = ["snips:at_least(floor=0.1)"]
"#;

/// `dir` with `name` holding `text`.
fn write(dir: &tempfile::TempDir, name: &str, text: &str) {
    std::fs::write(dir.path().join(name), text).expect("write the file");
}

#[test]
fn a_toml_file_gives_the_report_the_flags_give() {
    let dir = files();
    write(&dir, "ope.toml", TOML);
    let flags = run_in(dir.path(), FLAGS);
    assert_eq!(flags.0, 0, "{}", flags.2);
    let config = run_in(dir.path(), &["ope", "--config", "ope.toml"]);
    assert_eq!(config, flags);
    let run = run_in(dir.path(), &["run", "ope.toml"]);
    assert_eq!(run, flags);
    let json = ["--format", "json"];
    let flags_json = run_in(dir.path(), &[FLAGS, &json].concat());
    assert_eq!(
        run_in(dir.path(), &["run", "ope.toml", "--format", "json"]),
        flags_json
    );
    insta::assert_snapshot!(
        "ope_config",
        transcript(&["ope", "--config", "ope.toml"], config)
    );
}

#[test]
fn paths_in_the_file_are_relative_to_it() {
    let dir = files();
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    write(
        &dir,
        "sub/ope.toml",
        &TOML
            .replace("\"log.csv\"", "\"../log.csv\"")
            .replace("\"prod.trec\"", "\"../prod.trec\"")
            .replace("\"new.trec\"", "\"../new.trec\""),
    );
    let (code, stdout, stderr) = run_in(dir.path(), &["ope", "--config", "sub/ope.toml"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("log: sub/../log.csv"), "{stdout}");
}

/// Each bad value from the flags and from the file: the same words after
/// the origin (`--min-ess -1: ...`, `ope.toml:3: ope.min_ess: ...`).
#[test]
fn a_bad_value_is_refused_alike_by_the_flags_and_the_file() {
    let dir = files();
    let cases: &[(&[&str], &str, &str, &str)] = &[
        (
            &["--min-ess=-1"],
            "min_ess = -1",
            "--min-ess -1: ",
            "ope.min_ess: ",
        ),
        (
            &["--min-support", "1.5"],
            "min_support = 1.5",
            "--min-support 1.5: ",
            "ope.min_support: ",
        ),
        (
            &["--level", "1"],
            "level = 1.0",
            "--level 1: ",
            "ope.level: ",
        ),
        (
            &["-e", "ipps"],
            "estimators = [\"ipps\"]",
            "-e ipps: ",
            "ope.estimators[1]: ",
        ),
        (
            &["--gate", "snips:frobnicate"],
            "gates = [\"snips:frobnicate\"]",
            "--gate snips:frobnicate: ",
            "ope.gates[1]: ",
        ),
        (
            &["--plackett-luce", "0"],
            "plackett_luce = 0.0",
            "--plackett-luce 0: ",
            "ope.plackett_luce: ",
        ),
        (
            &["--reward-range", "1,0"],
            "reward_range = [1, 0]",
            "--reward-range 1,0: ",
            "ope.reward_range: ",
        ),
        (
            &["--log-columns", "colour=x"],
            "log_columns = { colour = \"x\" }",
            "--log-columns colour=x: ",
            "ope.log_columns.colour: ",
        ),
        // The rewards read from the propensities' column.
        (
            &["--log-columns", "reward=propensity"],
            "log_columns = { reward = \"propensity\" }",
            "--log-columns reward=propensity: ",
            "ope.log_columns.reward: ",
        ),
        // A gate on an estimator not estimated, or on no policy: refused
        // by the spec before the log is read (was found after reading it).
        (
            &["-e", "ips", "--gate", "snips:at_least(floor=0.1)"],
            "gates = [\"snips:at_least(floor=0.1)\"]\nestimators = [\"ips\"]",
            "--gate snips:at_least(floor=0.1): ",
            "ope.gates[1]: ",
        ),
        (
            &["--gate", "snips:at_least(floor=0.1,run=nobody)"],
            "gates = [\"snips:at_least(floor=0.1,run=nobody)\"]",
            "--gate snips:at_least(floor=0.1,run=nobody): ",
            "ope.gates[1]: ",
        ),
        // 1e400,1e401 read as [inf, inf]: no finite reward is in it.
        (
            &["--reward-range", "inf,inf"],
            "reward_range = [inf, inf]",
            "--reward-range inf,inf: ",
            "ope.reward_range: ",
        ),
    ];
    for (flags, key, flag_origin, key_origin) in cases {
        let mut args = vec!["ope", "--log", "log.csv", "--policy", "prod.trec"];
        args.extend_from_slice(flags);
        let (code, stdout, from_flags) = run_in(dir.path(), &args);
        assert_eq!((code, stdout.as_str()), (2, ""), "{args:?}: {from_flags}");
        let toml =
            format!("[ope]\nlog = \"log.csv\"\n{key}\npolicies = [{{ path = \"prod.trec\" }}]\n");
        write(&dir, "bad.toml", &toml);
        let (code, stdout, from_file) = run_in(dir.path(), &["ope", "--config", "bad.toml"]);
        assert_eq!((code, stdout.as_str()), (2, ""), "{key}: {from_file}");
        let reason = from_flags
            .strip_prefix(&format!("error: {flag_origin}"))
            .unwrap_or_else(|| panic!("{args:?}: {from_flags}"));
        let expected = format!("error: bad.toml:3: {key_origin}{reason}");
        assert_eq!(from_file, expected, "{key}");
        // `rankeval run` says the same of the same file.
        assert_eq!(run_in(dir.path(), &["run", "bad.toml"]).2, expected);
    }
}

/// The log's columns: each key once, each column read as one thing, the
/// target's name printable; refused before the log is read, naming the
/// flag. A key given twice, or two keys naming one column, was read
/// silently (the last won; `reward=propensity` estimated from the
/// propensities).
#[test]
fn each_column_key_once_and_each_column_for_one_key() {
    let dir = files();
    for (extra, says) in [
        (
            &["--log-columns", "context=a,context=context"][..],
            "error: --log-columns context=context: `context` is given twice: give each key one column\n",
        ),
        (
            &["--log-columns", "item=context"],
            "error: --log-columns item=context: `context` and `item` both name the column `context`: \
             each key reads a column of its own\n",
        ),
        (
            &["--log-columns", "reward=r,propensity=r"],
            "error: --log-columns propensity=r: `reward` and `propensity` both name the column `r`: \
             each key reads a column of its own\n",
        ),
        (
            &["--log-columns", "target=propensity", "--target-column", "t"],
            "error: --log-columns target=propensity: `propensity` and `target` both name the column \
             `propensity`: each key reads a column of its own\n",
        ),
        (
            &["--log-columns", "target=t", "--target-column", ""],
            "error: --target-column: a policy name cannot be blank nor hold a tab, newline or \
             other control character\n",
        ),
        (
            &[
                "--log-columns",
                "target=t",
                "--target-column",
                "t\u{1b}[31m",
            ],
            "error: --target-column t\\u{1b}[31m: a policy name cannot be blank nor hold a tab, \
             newline or other control character\n",
        ),
    ] {
        let mut args = vec!["ope", "--log", "log.csv", "--policy", "prod.trec"];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = run_in(dir.path(), &args);
        assert_eq!(
            (code, stdout.as_str(), stderr.as_str()),
            (2, "", says),
            "{extra:?}"
        );
    }
    // Many pairs are refused at once, their text not copied into each.
    let many = vec!["context=c"; 10_000].join(",");
    let (code, _, stderr) = run_in(
        dir.path(),
        &[
            "ope",
            "--log",
            "log.csv",
            "--policy",
            "prod.trec",
            "--log-columns",
            &many,
        ],
    );
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: --log-columns context=c: `context` is given twice: give each key one column\n"
    );
}

#[test]
fn each_front_end_names_the_other_option_in_its_words() {
    let dir = files();
    let (_, _, from_flags) = run_in(
        dir.path(),
        &["ope", "--log", "log.csv", "--target-column", "t"],
    );
    assert_eq!(
        from_flags,
        "error: --target-column t: needs the log's column of target probabilities: \
         --log-columns target=NAME\n"
    );
    write(
        &dir,
        "t.toml",
        "[ope]\nlog = \"log.csv\"\ntarget_column = \"t\"\n",
    );
    let (_, _, from_file) = run_in(dir.path(), &["ope", "--config", "t.toml"]);
    assert_eq!(
        from_file,
        "error: t.toml:3: ope.target_column: needs the log's column of target probabilities: \
         `log_columns = { target = \"NAME\" }`\n"
    );
}

#[test]
fn file_errors_name_the_file_line_and_key() {
    let [prod, new] = super::ope::runs();
    let dir = scratch(&[
        ("log.csv", &super::ope::bandit_log()),
        (prod.0, &prod.1),
        (new.0, &new.1),
        (
            "unknown.toml",
            "[ope]\nlog = \"log.csv\"\npolicies = [{ path = \"prod.trec\" }]\ncolour = \"red\"\n",
        ),
        (
            "nolog.toml",
            "[ope]\npolicies = [{ path = \"prod.trec\" }]\n",
        ),
        ("nopolicy.toml", "[ope]\nlog = \"log.csv\"\n"),
        (
            "missing.toml",
            "[ope]\nlog = \"log.csv\"\npolicies = [{ path = \"gone.trec\" }]\n",
        ),
        (
            "clash.toml",
            "[ope]\nlog = \"log.csv\"\npolicies = [{ name = \"a\", path = \"prod.trec\" }, { name = \"a\", path = \"new.trec\" }]\n",
        ),
        (
            "minn.toml",
            "[ope]\nlog = \"log.csv\"\nmin_n = -1\npolicies = [{ path = \"prod.trec\" }]\n",
        ),
    ]);
    for (name, says) in [
        ("unknown.toml", "unknown field `colour`"),
        (
            "nolog.toml",
            "nolog.toml:1: ope: no impression log: give `log` with the log's file",
        ),
        (
            "nopolicy.toml",
            "nopolicy.toml:1: ope: no target policy: give `policies = [{ name = \"NAME\", path = \"RUNFILE\" }]` or `target_column` NAME",
        ),
        (
            "missing.toml",
            "missing.toml:3: ope.policies[1]: no such file: gone.trec",
        ),
        (
            "clash.toml",
            "clash.toml:3: ope.policies[2]: named `a` like clash.toml:3: ope.policies[1]",
        ),
        ("minn.toml", "line 3"),
    ] {
        let (code, stdout, stderr) = run_in(dir.path(), &["ope", "--config", name]);
        assert_eq!((code, stdout.as_str()), (2, ""), "{name}: {stderr}");
        assert!(stderr.contains(says), "{name}: {stderr}");
    }
    // The file or the flags, not both; and a log from one of them.
    let (code, _, stderr) = run_in(
        dir.path(),
        &["ope", "--config", "nolog.toml", "--log", "log.csv"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot be used with"), "{stderr}");
    let (code, _, stderr) = run_in(dir.path(), &["ope", "--policy", "prod.trec"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--log <FILE>"), "{stderr}");
    // `rankeval run` takes an `[ope]` file's report flags, not an evaluation's.
    write(
        &dir,
        "ok.toml",
        "[ope]\nlog = \"log.csv\"\npolicies = [{ path = \"prod.trec\" }]\n",
    );
    for extra in [&["--format", "csv"][..], &["--per-query"], &["--no-fail"]] {
        let mut args = vec!["run", "ok.toml"];
        args.extend_from_slice(extra);
        let (code, _, stderr) = run_in(dir.path(), &args);
        assert_eq!(code, 2, "{extra:?}: {stderr}");
        assert!(
            stderr.contains("off-policy evaluation"),
            "{extra:?}: {stderr}"
        );
    }
}

/// `--interval bootstrap`: the seeded percentile bootstrap of the
/// impressions, its seed and generator printed; the same seed gives the
/// same bytes, another seed other bounds.
#[test]
fn the_bootstrap_interval_is_seeded_and_says_its_seed() {
    let dir = files();
    let args = |seed: &'static str| {
        let mut a = FLAGS[..13].to_vec();
        a.extend_from_slice(&[
            "--interval",
            "bootstrap",
            "--resamples",
            "200",
            "--seed",
            seed,
        ]);
        a
    };
    let first = run_in(dir.path(), &args("7"));
    assert_eq!(first.0, 0, "{}", first.2);
    assert!(
        first
            .1
            .contains("percentile bootstrap of the impressions, 200 resamples, seed 7 (ChaCha20"),
        "{}",
        first.1
    );
    assert_eq!(run_in(dir.path(), &args("7")), first);
    let other = run_in(dir.path(), &args("8"));
    assert_ne!(other.1, first.1);
    insta::assert_snapshot!("ope_bootstrap", transcript(&args("7"), first));
    // The file and the flags give the same bytes.
    write(
        &dir,
        "boot.toml",
        &format!("{TOML}interval = \"bootstrap\"\nresamples = 200\nseed = 7\n")
            .replace("gates = [\"snips:at_least(floor=0.1)\"]\n", ""),
    );
    assert_eq!(
        run_in(dir.path(), &["ope", "--config", "boot.toml"]).1,
        run_in(dir.path(), &args("7")).1
    );
}

/// The bootstrap resamples chunk by chunk on rayon's threads, each chunk
/// from its own stream and its values put back by chunk index: the JSON of
/// 1,000 resamples (three full chunks of 256 and a partial one) with 1, 2
/// and 7 threads is the same bytes, and the bytes of the one-thread loop
/// this replaced (the snapshot, taken before the chunks ran in parallel).
#[test]
fn the_bootstrap_gives_the_same_bytes_on_any_number_of_threads() {
    let dir = files();
    let mut args = FLAGS[..13].to_vec();
    args.extend_from_slice(&[
        "--interval",
        "bootstrap",
        "--resamples",
        "1000",
        "--seed",
        "38",
        "--format",
        "json",
    ]);
    let one = with_threads(dir.path(), &args, "1");
    assert_eq!(one.0, 0, "{}", one.2);
    for threads in ["2", "7"] {
        assert_eq!(
            with_threads(dir.path(), &args, threads),
            one,
            "{threads} threads"
        );
    }
    insta::assert_snapshot!("ope_bootstrap_threads", one.1);
}

#[test]
fn corrected_p_values_of_the_candidates() {
    let dir = files();
    let third: String = super::ope::runs()[1]
        .1
        .replace(" c ", " x ")
        .replace(" d ", " c ")
        .replace(" x ", " d ");
    write(&dir, "third.trec", &third);
    let mut args = FLAGS[..13].to_vec();
    args.extend_from_slice(&["--policy", "third.trec", "--correction", "holm"]);
    let out = run_in(dir.path(), &args);
    assert_eq!(out.0, 0, "{}", out.2);
    insta::assert_snapshot!("ope_correction", transcript(&args, out));
}

/// Options at their extremes: each refused before the log is read, with
/// the flag and the reason.
#[test]
fn hostile_resampling_options_are_refused() {
    let dir = files();
    for (extra, says) in [
        (
            &["--interval", "bootstrap", "--resamples", "0"][..],
            "--resamples 0: the number of resamples must be at least 1",
        ),
        (
            &["--interval", "bootstrap", "--resamples", "38"],
            "--resamples 38: 38 resamples are too few for a percentile interval at level 0.95",
        ),
        (
            &[
                "--interval",
                "bootstrap",
                "--resamples",
                "18446744073709551615",
            ],
            "--resamples 18446744073709551615: 18446744073709551615 resamples is more than the 1000000",
        ),
        (
            &[
                "--interval",
                "bootstrap",
                "--resamples",
                "18446744073709551616",
            ],
            "invalid value '18446744073709551616' for '--resamples <B>'",
        ),
        (
            &["--interval", "bootstrap", "--seed", "18446744073709551616"],
            "invalid value '18446744073709551616' for '--seed <N>'",
        ),
        (
            &["--seed", "3"],
            "--seed 3: only the bootstrap interval resamples: give --interval bootstrap",
        ),
        (
            &["--resamples", "100"],
            "--resamples 100: only the bootstrap interval resamples",
        ),
        (
            &["--correction", "sidak"],
            "--correction sidak: unknown correction (holm, bonferroni, benjamini_hochberg, none)",
        ),
        (
            &["--interval", "wald"],
            "invalid value 'wald' for '--interval",
        ),
    ] {
        let mut args = vec!["ope", "--log", "log.csv", "--policy", "prod.trec"];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = run_in(dir.path(), &args);
        assert_eq!((code, stdout.as_str()), (2, ""), "{extra:?}: {stderr}");
        assert!(stderr.contains(says), "{extra:?}: {stderr}");
    }
    // The largest seed is a seed.
    let mut args = FLAGS[..13].to_vec();
    args.extend_from_slice(&[
        "--interval",
        "bootstrap",
        "--resamples",
        "39",
        "--seed",
        "18446744073709551615",
    ]);
    let (code, stdout, stderr) = run_in(dir.path(), &args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("seed 18446744073709551615"), "{stdout}");
    // TOML: an unknown interval and a negative seed name their key and line.
    write(
        &dir,
        "i.toml",
        "[ope]\nlog = \"log.csv\"\npolicies = [{ path = \"prod.trec\" }]\ninterval = \"wald\"\n",
    );
    let (_, _, stderr) = run_in(dir.path(), &["ope", "--config", "i.toml"]);
    assert_eq!(
        stderr,
        "error: i.toml:4: ope.interval: unknown interval (normal, t, bootstrap)\n"
    );
    write(
        &dir,
        "s.toml",
        "[ope]\nlog = \"log.csv\"\npolicies = [{ path = \"prod.trec\" }]\ninterval = \"bootstrap\"\nseed = -1\n",
    );
    let (code, _, stderr) = run_in(dir.path(), &["ope", "--config", "s.toml"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("line 5"), "{stderr}");
}

#[test]
fn help_lists_the_front_ends_flags() {
    let out = run_in(std::path::Path::new("."), &["ope", "--help"]);
    assert_eq!(out.0, 0);
    for flag in [
        "--config",
        "--resamples",
        "--seed",
        "--correction",
        "bootstrap",
    ] {
        assert!(out.1.contains(flag), "{flag}");
    }
    insta::assert_snapshot!("ope_help", out.1);
}

/// `--groups`: a report per group of contexts after the whole log's, each
/// with its own floors' refusals; contexts in no group are said; the exit
/// code is the whole log's. The file's `groups` gives the same bytes.
#[test]
fn groups_of_contexts_each_get_a_report() {
    let dir = files();
    write(&dir, "groups.csv", "query,segment\nq1,head\nq2,tail\n");
    let mut args = FLAGS[..13].to_vec();
    args.extend_from_slice(&["--min-n", "10", "--groups", "groups.csv"]);
    let out = run_in(dir.path(), &args);
    assert_eq!(out.0, 0, "{}", out.2);
    assert_eq!(
        out.2,
        "note: groups.csv: 1 context of the log in no group of `segment` (e.g. `q3`): in no group's report\n"
    );
    write(
        &dir,
        "g.toml",
        &format!("{TOML}min_n = 10\ngroups = \"groups.csv\"\n")
            .replace("gates = [\"snips:at_least(floor=0.1)\"]\n", ""),
    );
    assert_eq!(run_in(dir.path(), &["ope", "--config", "g.toml"]), out);
    insta::assert_snapshot!("ope_groups", transcript(&args, out));
    let (code, _, stderr) = run_in(
        dir.path(),
        &[
            "ope",
            "--log",
            "log.csv",
            "--policy",
            "prod.trec",
            "--groups",
            "gone.csv",
        ],
    );
    assert_eq!(
        (code, stderr.as_str()),
        (2, "error: gone.csv: no such file\n")
    );
}

/// `--samples` draws the Plackett-Luce marginals, which only a log of
/// marginal propensities has: with another form it would be accepted and
/// never used, so it is refused, in the same words from the flags and the
/// file.
#[test]
fn samples_without_marginal_propensities_are_refused() {
    let dir = files();
    for (form, flags_form) in [
        (None, &[][..]),
        (Some("cascade"), &["--form", "cascade"][..]),
        (Some("slate"), &["--form", "slate"][..]),
    ] {
        let mut args = vec!["ope", "--log", "log.csv", "--policy", "prod.trec"];
        args.extend_from_slice(flags_form);
        args.extend_from_slice(&["--plackett-luce", "1", "--samples", "100"]);
        let (code, stdout, from_flags) = run_in(dir.path(), &args);
        assert_eq!((code, stdout.as_str()), (2, ""), "{args:?}");
        let shown = form.unwrap_or("action");
        assert_eq!(
            from_flags,
            format!(
                "error: --samples 100: only the Plackett-Luce marginals are drawn, and the log's \
                 propensities are of the form `{shown}`: give --form marginal\n"
            )
        );
        let form_key = form.map_or(String::new(), |f| format!("form = \"{f}\"\n"));
        write(
            &dir,
            "s.toml",
            &format!(
                "[ope]\nlog = \"log.csv\"\npolicies = [{{ path = \"prod.trec\" }}]\n\
                 plackett_luce = 1.0\n{form_key}samples = 100\n"
            ),
        );
        let (code, _, from_file) = run_in(dir.path(), &["ope", "--config", "s.toml"]);
        assert_eq!(code, 2);
        let line = if form.is_some() { 6 } else { 5 };
        assert_eq!(
            from_file,
            format!(
                "error: s.toml:{line}: ope.samples: only the Plackett-Luce marginals are drawn, and \
                 the log's propensities are of the form `{shown}`: give `form = \"marginal\"`\n"
            )
        );
    }
}
