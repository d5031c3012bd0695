//! `rankeval ope --record DB` (TOML `[record]`, `rankeval run`): one record
//! per policy with each estimator's estimate, standard error, interval and
//! refusal; listed with their trends, exported; a diff and an evaluation's
//! baseline refused with the reason; the same record from the flags, a TOML
//! file and `rankeval run`; the log's fingerprint changes when and only
//! when the log does.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::ope::{bandit_log, files};
use super::transcript;

/// Runs `rankeval args` in `dir` with a fixed time (no clock in snapshots).
fn run_at(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_rankeval"))
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("SOURCE_DATE_EPOCH", "1795941962")
        .output()
        .expect("the rankeval binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `rankeval args` in `dir`, as a snapshot's transcript.
fn shown(dir: &Path, args: &[&str]) -> String {
    transcript(args, run_at(dir, args))
}

/// The flags of one off-policy evaluation of the two policies.
fn ope<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "ope",
        "--log",
        "log.csv",
        "--policy",
        "prod=prod.trec",
        "--policy",
        "new=new.trec",
        "-e",
        "ips",
        "-e",
        "snips",
        "-e",
        "clipped_ips(max_weight=2)",
    ];
    args.extend_from_slice(extra);
    args
}

/// The records of `db` in `dir` as JSON Lines, parsed.
fn exported(dir: &Path, db: &str) -> Vec<Value> {
    let (code, out, err) = run_at(dir, &["history", "export", db, "--format", "jsonl"]);
    assert_eq!(code, 0, "{err}");
    out.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn each_policy_is_recorded_with_its_estimates_and_refusals() {
    let dir = files();
    let d = dir.path();
    let first = ope(&[
        "--min-ess",
        "5",
        "--record",
        "h.sqlite",
        "--label",
        "nightly",
    ]);
    let (code, _, stderr) = run_at(d, &first);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr,
        "recorded: policy `prod` as record 1 of h.sqlite\n\
         recorded: policy `new` as record 2 of h.sqlite\n"
    );
    // A floor no estimate meets: refused (exit 2), recorded all the same.
    let second = ope(&[
        "--min-ess",
        "1000",
        "--record",
        "h.sqlite",
        "--commit",
        "abc123",
    ]);
    let (code, _, stderr) = run_at(d, &second);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("as record 4 of h.sqlite"), "{stderr}");
    insta::assert_snapshot!(
        "ope_record_history",
        [
            shown(d, &["history", "h.sqlite", "--run", "new"]),
            shown(
                d,
                &["history", "h.sqlite", "--run", "prod", "--format", "json"]
            ),
        ]
        .join("\n")
    );
    let records = exported(d, "h.sqlite");
    assert_eq!(records.len(), 4);
    let new = &records[1];
    assert_eq!(new["kind"], "ope");
    assert_eq!(new["run"], "new");
    assert_eq!(new["options"]["ope.min_ess"], "5");
    assert_eq!(new["options"]["ope.policy"], "ranking");
    assert_eq!(new["options"]["ope.interval"], "normal");
    assert_eq!(new["metadata"]["ope.impressions"], "60");
    assert_eq!(new["run_hash"].as_str().map(str::len), Some(64));
    // The estimates are the report's, bit for bit.
    let (code, report, _) = run_at(d, &ope(&["--min-ess", "5", "--format", "json"]));
    assert_eq!(code, 0);
    let report: Value = serde_json::from_str(&report).unwrap();
    let estimates = &report["policies"][1]["estimates"];
    for (i, name) in ["ips", "snips", "clipped_ips(max_weight=2)"]
        .iter()
        .enumerate()
    {
        let recorded = &new["metrics"][format!("ope.{name}")];
        let e = &estimates[i];
        assert_eq!(recorded["mean"], e["value"], "{name}");
        assert_eq!(recorded["standard_error"], e["standard_error"], "{name}");
        assert_eq!(recorded["lower"], e["interval"]["lower"], "{name}");
        assert_eq!(recorded["upper"], e["interval"]["upper"], "{name}");
        assert!(recorded["refused"].is_null());
    }
    // The refused estimate keeps its numbers and says why.
    let refused = &records[3]["metrics"]["ope.ips"];
    assert!(refused["mean"].is_f64());
    assert!(
        refused["refused"]
            .as_str()
            .is_some_and(|r| r.contains("effective sample size")),
        "{refused}"
    );
    assert!(records[3]["means"]["ope.ips"].is_null());
    // Each point's interval comes with its record's level; a trend whose
    // points differ in level has none of its own.
    let third = ope(&["--min-ess", "5", "--level", "0.9", "--record", "h.sqlite"]);
    let (code, _, stderr) = run_at(d, &third);
    assert_eq!(code, 0, "{stderr}");
    let (code, json, _) = run_at(
        d,
        &["history", "h.sqlite", "--run", "new", "--format", "json"],
    );
    assert_eq!(code, 0);
    let json: Value = serde_json::from_str(&json).unwrap();
    let trend = &json["trends"][0];
    assert!(trend["level"].is_null(), "{trend}");
    let levels: Vec<&Value> = trend["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["level"])
        .collect();
    assert_eq!(
        levels,
        [0.95, 0.95, 0.9]
            .map(Value::from)
            .iter()
            .collect::<Vec<_>>()
    );
}

#[test]
fn what_an_ope_record_cannot_be_is_refused_with_the_reason() {
    let dir = files();
    let d = dir.path();
    std::fs::write(d.join("qrels.txt"), "q1 0 a 1\nq2 0 c 1\n").unwrap();
    let (code, _, stderr) = run_at(d, &ope(&["--min-ess", "5", "--record", "h.sqlite"]));
    assert_eq!(code, 0, "{stderr}");
    let (code, _, _) = run_at(d, &["history", "h.sqlite", "--accept", "2"]);
    assert_eq!(code, 0);
    std::fs::create_dir(d.join("folder")).unwrap();
    insta::assert_snapshot!(
        "ope_record_refusals",
        [
            shown(d, &["history", "diff", "h.sqlite", "1", "2"]),
            shown(
                d,
                &[
                    "eval",
                    "--qrels",
                    "qrels.txt",
                    "--run",
                    "prod.trec",
                    "-m",
                    "ap",
                    "--baseline",
                    "db:h.sqlite#2"
                ]
            ),
            // The last accepted evaluation: an off-policy record is no
            // candidate, whatever was accepted last.
            shown(
                d,
                &[
                    "eval",
                    "--qrels",
                    "qrels.txt",
                    "--run",
                    "prod.trec",
                    "-m",
                    "ap",
                    "--baseline",
                    "db:h.sqlite"
                ]
            ),
            shown(d, &ope(&["--record", "folder"])),
            shown(d, &ope(&["--record", "missing/h.sqlite"])),
            shown(d, &ope(&["--label", "x"])),
        ]
        .join("\n")
    );
    // A file that cannot be a history is refused before anything is
    // estimated: no report on stdout, the file as it was.
    std::fs::write(d.join("notes.txt"), "x").unwrap();
    let (code, stdout, stderr) = run_at(d, &ope(&["--record", "notes.txt"]));
    assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
    assert!(stderr.contains("not an SQLite database"), "{stderr}");
    assert_eq!(std::fs::read(d.join("notes.txt")).unwrap(), b"x");
}

/// `records` without what differs between front ends by nature: the time,
/// and the experiment file's hash (a TOML file has one, flags none).
fn comparable(records: &[Value]) -> Vec<Value> {
    records
        .iter()
        .map(|r| {
            let mut r = r.clone();
            for key in ["time", "time_ms", "experiment_hash"] {
                r.as_object_mut().unwrap().remove(key);
            }
            r
        })
        .collect()
}

#[test]
fn flags_a_toml_file_and_run_record_the_same() {
    let dir = files();
    let d = dir.path();
    std::fs::write(
        d.join("ope.toml"),
        r#"
[ope]
log = "log.csv"
policies = [{ name = "prod", path = "prod.trec" }, { name = "new", path = "new.trec" }]
estimators = ["ips", "snips", "clipped_ips(max_weight=2)"]
min_ess = 5

[record]
db = "toml.sqlite"
label = "nightly"
commit = "abc123"
"#,
    )
    .unwrap();
    let flags = ope(&[
        "--min-ess",
        "5",
        "--record",
        "flags.sqlite",
        "--label",
        "nightly",
        "--commit",
        "abc123",
    ]);
    assert_eq!(run_at(d, &flags).0, 0);
    assert_eq!(run_at(d, &["ope", "--config", "ope.toml"]).0, 0);
    // `rankeval run` and `ope --config`: the flags take the place of the
    // file's `[record]`.
    let run = [
        "run",
        "ope.toml",
        "--record",
        "run.sqlite",
        "--label",
        "nightly",
        "--commit",
        "abc123",
    ];
    assert_eq!(run_at(d, &run).0, 0);
    let config = [
        "ope",
        "--config",
        "ope.toml",
        "--record",
        "config.sqlite",
        "--label",
        "nightly",
        "--commit",
        "abc123",
    ];
    assert_eq!(run_at(d, &config).0, 0);
    let by_flags = exported(d, "flags.sqlite");
    assert_eq!(by_flags.len(), 2);
    assert!(by_flags[0]["experiment_hash"].is_null());
    let file_hash =
        rankeval::history::fingerprint::bytes_hash(&std::fs::read(d.join("ope.toml")).unwrap());
    for db in ["toml.sqlite", "run.sqlite", "config.sqlite"] {
        let records = exported(d, db);
        assert_eq!(comparable(&records), comparable(&by_flags), "{db}");
        assert_eq!(records[0]["experiment_hash"], file_hash.as_str(), "{db}");
    }
}

/// The fingerprint of the log recorded from `log` (in `dir`).
fn log_fingerprint(dir: &Path, log: &str, db: &str) -> String {
    let args = [
        "ope",
        "--log",
        log,
        "--policy",
        "prod=prod.trec",
        "-e",
        "ips",
        "--min-ess",
        "5",
        "--record",
        db,
    ];
    let (code, _, stderr) = run_at(dir, &args);
    assert_eq!(code, 0, "{stderr}");
    exported(dir, db)[0]["qrels_fingerprint"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn the_log_fingerprint_changes_when_and_only_when_the_log_does() {
    let dir = files();
    let d = dir.path();
    let log = bandit_log();
    let mut lines: Vec<&str> = log.lines().collect();
    let header = lines.remove(0);
    // The same impressions in another order, another format and with the
    // columns in another order and a column more.
    let mut reversed = String::from(header);
    reversed.push('\n');
    for line in lines.iter().rev() {
        reversed.push_str(line);
        reversed.push('\n');
    }
    std::fs::write(d.join("reversed.csv"), &reversed).unwrap();
    std::fs::write(d.join("log.tsv"), log.replace(',', "\t")).unwrap();
    let mut moved = String::from("propensity,reward,item,impression,context,note\n");
    for line in &lines {
        let f: Vec<&str> = line.split(',').collect();
        moved.push_str(&format!("{},{},{},{},{},x\n", f[4], f[3], f[2], f[1], f[0]));
    }
    std::fs::write(d.join("moved.csv"), &moved).unwrap();
    // One reward changed; one impression fewer; one propensity changed.
    let flip = |line: usize, f: &dyn Fn(&str) -> String| {
        let mut out = String::from(header);
        out.push('\n');
        for (i, l) in lines.iter().enumerate() {
            if i == line {
                let changed = f(l);
                if !changed.is_empty() {
                    out.push_str(&changed);
                    out.push('\n');
                }
            } else {
                out.push_str(l);
                out.push('\n');
            }
        }
        out
    };
    let reward = |l: &str| {
        let mut f: Vec<String> = l.split(',').map(String::from).collect();
        f[3] = if f[3] == "1" { "0".into() } else { "1".into() };
        f.join(",")
    };
    std::fs::write(d.join("reward.csv"), flip(7, &reward)).unwrap();
    std::fs::write(d.join("fewer.csv"), flip(7, &|_| String::new())).unwrap();
    let propensity = |l: &str| {
        let mut f: Vec<String> = l.split(',').map(String::from).collect();
        f[4] = "0.3".into();
        f.join(",")
    };
    std::fs::write(d.join("propensity.csv"), flip(7, &propensity)).unwrap();
    let base = log_fingerprint(d, "log.csv", "a.sqlite");
    assert_eq!(base.len(), 64);
    for same in ["reversed.csv", "log.tsv", "moved.csv"] {
        assert_eq!(
            log_fingerprint(d, same, &format!("{same}.sqlite")),
            base,
            "{same}"
        );
    }
    for other in ["reward.csv", "fewer.csv", "propensity.csv"] {
        assert_ne!(
            log_fingerprint(d, other, &format!("{other}.sqlite")),
            base,
            "{other}"
        );
    }
}
