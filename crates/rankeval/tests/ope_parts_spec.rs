//! A log read in parts (Spark's partitions, `rankeval_rs.spark.ope`) is
//! resolved by `spec::resolve_ope_parts`: the same request as
//! `spec::resolve_ope` gives for a log file (every rule and message), with
//! no log file, and what parts cannot give refused with the reason.

use std::path::{Path, PathBuf};

use rankeval::spec::{
    Given, OpeSpec, Origin, PolicyRequest, SpecError, resolve_ope, resolve_ope_parts,
};

fn keyword<T>(value: T, name: &str) -> Option<Given<T>> {
    Some(Given::new(value, Origin::keyword(name, "")))
}

/// A request with one policy (the run file `run`) and many values given.
fn spec(run: &Path) -> OpeSpec {
    let mut spec = OpeSpec::new(Origin::keyword("ope", ""));
    spec.policies = vec![PolicyRequest {
        name: Some("prod".into()),
        path: run.to_owned(),
        from: Origin::keyword("policies", ""),
    }];
    spec.form = keyword("marginal".into(), "form");
    spec.reward_per = keyword("position".into(), "reward_per");
    spec.plackett_luce = keyword(0.7, "plackett_luce");
    spec.samples = keyword(300, "samples");
    spec.seed = keyword(9, "seed");
    spec.level = keyword(0.9, "level");
    spec.min_ess = keyword(12.5, "min_ess");
    spec.min_support = keyword(0.5, "min_support");
    spec.min_n = keyword(3, "min_n");
    spec.interval = keyword("t".into(), "interval");
    spec.correction = keyword("bh".into(), "correction");
    spec.reward_range = keyword((0.0, 1.0), "reward_range");
    spec.log_columns = vec![Given::new(
        ("context".into(), " user ".into()),
        Origin::keyword("log_columns", ""),
    )];
    spec.estimators = vec![
        Given::new("iips".into(), Origin::keyword("estimators", "")),
        Given::new("pi".into(), Origin::keyword("estimators", "")),
    ];
    spec.gates = vec![Given::new(
        "iips:at_least(floor=0.1)".into(),
        Origin::keyword("gates", ""),
    )];
    spec.allow_low_support = keyword(true, "allow_low_support");
    spec
}

fn reason(error: SpecError) -> String {
    error.to_string()
}

#[test]
fn parts_resolve_the_request_a_log_file_resolves_without_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("prod.trec");
    std::fs::write(&run, "c Q0 i 1 1.0 prod\n").unwrap();
    let log = dir.path().join("log.csv");
    std::fs::write(&log, "context,impression,item,reward,propensity\n").unwrap();
    let mut whole = spec(&run);
    whole.log = keyword(log, "log");
    let file = resolve_ope(whole).unwrap();
    // No log file, and none needed.
    let parts = resolve_ope_parts(spec(&run)).unwrap();
    assert_eq!(format!("{:?}", parts.plan), format!("{:?}", file.plan));
    assert_eq!(format!("{:?}", parts.read), format!("{:?}", file.read));
    assert_eq!(parts.policies, file.policies);
    assert_eq!(parts.names(), vec!["prod".to_owned()]);
    assert_eq!(parts.read.columns.context, "user");
    assert!(parts.plan.sampling.is_some());
}

#[test]
fn a_bad_value_gets_the_same_words_from_parts_and_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("prod.trec");
    std::fs::write(&run, "c Q0 i 1 1.0 prod\n").unwrap();
    let log = dir.path().join("log.csv");
    std::fs::write(&log, "context\n").unwrap();
    type Change = fn(&mut OpeSpec);
    let changes: [(Change, &str); 8] = [
        (
            |s| s.level = keyword(1.5, "level"),
            "strictly between 0 and 1",
        ),
        (
            |s| s.min_ess = keyword(f64::INFINITY, "min_ess"),
            "a finite number of at least 0",
        ),
        (
            |s| s.correction = keyword("benjamini-hochberg".into(), "correction"),
            "unknown correction",
        ),
        (
            |s| s.reward_range = keyword((f64::NAN, 1.0), "reward_range"),
            "LO <= HI",
        ),
        (
            |s| s.reward_range = keyword((f64::INFINITY, f64::INFINITY), "reward_range"),
            "holds no finite reward",
        ),
        (
            |s| s.form = keyword("cascade".into(), "form"),
            "the log's propensities are of the form `cascade`",
        ),
        (
            |s| {
                s.log_columns.push(Given::new(
                    ("reward".into(), "propensity".into()),
                    Origin::keyword("log_columns", ""),
                ))
            },
            "both name the column `propensity`",
        ),
        (
            |s| s.plackett_luce = keyword(0.0, "plackett_luce"),
            "the temperature must be a positive number",
        ),
    ];
    for (change, words) in changes {
        let mut whole = spec(&run);
        whole.log = keyword(log.clone(), "log");
        change(&mut whole);
        let mut parts = spec(&run);
        change(&mut parts);
        let from_file = reason(resolve_ope(whole).unwrap_err());
        let from_parts = reason(resolve_ope_parts(parts).unwrap_err());
        assert!(from_file.contains(words), "{from_file}");
        assert_eq!(from_parts, from_file);
    }
}

#[test]
fn what_parts_cannot_give_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("prod.trec");
    std::fs::write(&run, "c Q0 i 1 1.0 prod\n").unwrap();
    let groups = dir.path().join("groups.tsv");
    std::fs::write(&groups, "c\thead\n").unwrap();
    type Change = Box<dyn Fn(&mut OpeSpec)>;
    let g = dir.path().to_owned();
    let changes: Vec<(Change, &str)> = vec![
        (
            Box::new(|s| {
                s.interval = keyword("bootstrap".into(), "interval");
                s.samples = None;
                s.seed = None;
            }),
            "interval=: the bootstrap resamples the whole log's impressions",
        ),
        // A gate on a group without the groups, as for a log file.
        (
            Box::new(|s| {
                s.gates = vec![Given::new(
                    "iips[segment=head]:at_least(floor=0.1)".into(),
                    Origin::keyword("gates", ""),
                )]
            }),
            "a gate on a group needs the groups of contexts: give groups=FILE",
        ),
        // Groups in the whole log's families need the groups.
        (
            Box::new(|s| s.groups_in_family = keyword(true, "groups_in_family")),
            "groups_in_family=: puts the groups' comparisons in the whole log's families",
        ),
        (
            Box::new(move |s| s.groups = keyword(g.join("missing.tsv"), "groups")),
            "groups=",
        ),
        (
            Box::new(|s| s.record.db = keyword(PathBuf::from("history.sqlite"), "record")),
            "record=: a record needs the fingerprint of the whole normalised log",
        ),
        (
            Box::new(|s| s.record.label = keyword("nightly".into(), "label")),
            "label=: a record needs the fingerprint",
        ),
        (
            Box::new(|s| s.log = keyword(PathBuf::from("log.csv"), "log")),
            "log=: a log read in parts (Spark's partitions) is read as the parts come",
        ),
    ];
    for (change, words) in changes {
        let mut parts = spec(&run);
        change(&mut parts);
        let message = reason(resolve_ope_parts(parts).unwrap_err());
        assert!(message.contains(words), "{message}");
    }
}

/// A gate on an estimator the request does not estimate, or with `run=`
/// naming no policy, would decide nothing: the spec refuses it where it
/// was given, with the same words from every front end (a flag, a TOML
/// key, a Python keyword) and for a log file or a log in parts (Spark's
/// driver), before any log is read. Both were found only after reading
/// the log (the command line) or on Spark's driver by a check of its own.
#[test]
fn a_gate_on_no_estimator_or_no_policy_is_refused_by_the_spec() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("prod.trec");
    std::fs::write(&run, "c Q0 i 1 1.0 prod\n").unwrap();
    let log = dir.path().join("log.csv");
    std::fs::write(&log, "context\n").unwrap();
    let origins = [
        Origin::flag("--gate", "G"),
        Origin::key("ope.toml", 7, "ope.gates[1]"),
        Origin::keyword("gates", "G"),
    ];
    let cases = [
        (
            "snips:non_inferior(margin=0.01)",
            "snips is not among the estimators (iips, pi): add it to them",
        ),
        (
            "iips:at_least(floor=0.1,run=nobody)",
            "no policy `nobody` to decide it on",
        ),
    ];
    for (gate, words) in cases {
        for origin in &origins {
            let with_gate = |mut s: OpeSpec| {
                s.gates = vec![Given::new(gate.to_owned(), origin.clone())];
                s
            };
            let mut whole = with_gate(spec(&run));
            whole.log = keyword(log.clone(), "log");
            let from_file = reason(resolve_ope(whole).unwrap_err());
            let from_parts = reason(resolve_ope_parts(with_gate(spec(&run))).unwrap_err());
            assert_eq!(from_file, format!("{origin}: {words}"));
            assert_eq!(from_parts, from_file);
        }
    }
    // A gate on a policy that is there, and on the target column's, passes.
    for (gate, target) in [
        ("iips:at_least(floor=0.1,run=prod)", false),
        ("pi:at_least(floor=0.1,run=logged)", true),
    ] {
        let mut s = spec(&run);
        s.gates = vec![Given::new(gate.to_owned(), Origin::keyword("gates", ""))];
        if target {
            s.target_column = keyword("logged".into(), "target_column");
            s.log_columns.push(Given::new(
                ("target".into(), "pt".into()),
                Origin::keyword("log_columns", ""),
            ));
            s.plackett_luce = None;
            s.samples = None;
            s.seed = None;
        }
        assert!(resolve_ope_parts(s).is_ok(), "{gate}");
    }
}

/// Groups of contexts, their families and gates on a group are carried
/// to a log in parts (each part cut by the groups file, the groups'
/// states merged as the log's are): resolved as for a log file.
#[test]
fn groups_of_contexts_are_resolved_for_a_log_in_parts() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("prod.trec");
    std::fs::write(&run, "c Q0 i 1 1.0 prod\n").unwrap();
    let groups = dir.path().join("groups.tsv");
    std::fs::write(&groups, "c\thead\n").unwrap();
    let mut s = spec(&run);
    s.groups = keyword(groups.clone(), "groups");
    s.groups_in_family = keyword(true, "groups_in_family");
    s.gates.push(Given::new(
        "iips[segment=head]:at_least(floor=0.1)".into(),
        Origin::keyword("gates", ""),
    ));
    let parts = resolve_ope_parts(s).unwrap();
    assert_eq!(parts.groups, Some(groups));
    assert!(parts.groups_in_family);
    assert_eq!(parts.plan.gates.len(), 2);
}
