//! `rankeval ope` gates on a group of contexts (`--groups`), in the grammar
//! of `eval`'s gates on groups of queries (`ESTIMATOR[COLUMN=VALUE]:RULE`,
//! docs/compare.md), decided on the group's report; and
//! `--groups-in-family`, every group's comparisons corrected in the whole
//! log's families, as `eval --groups-in-family` does.

use super::ope_clicks::{FLAGS, files};
use super::{run_in, transcript};

fn with(extra: &[&'static str]) -> Vec<&'static str> {
    [FLAGS, &["--groups", "groups.csv"], extra].concat()
}

fn json(out: &(i32, String, String)) -> serde_json::Value {
    serde_json::from_str(&out.1).unwrap_or_else(|e| panic!("{e}: {}", out.2))
}

/// A gate on the tail group fails where the same gate on the whole log
/// passes: it reads the group's estimates (prod's ips_p@2 is 0.3083 on
/// the log, 0.1250 on the tail); a comparing gate on a group reads the
/// group's paired difference.
#[test]
fn a_gate_on_a_group_is_decided_on_the_groups_report() {
    let dir = files();
    let args = with(&[
        "--gate",
        "ips_p@2:at_least(floor=0.2)",
        "--gate",
        "ips_p@2[segment=tail]:at_least(floor=0.2)",
        "--gate",
        "ips_dcg@10[segment=head]:non_inferior(margin=0.05)",
    ]);
    let out = run_in(dir.path(), &args);
    assert_eq!(out.0, 1, "{}", out.2);
    let report = json(&run_in(
        dir.path(),
        &[&args[..], &["--format", "json"]].concat(),
    ));
    let gates: Vec<(String, String, bool)> = report["gates"]
        .as_array()
        .expect("gates")
        .iter()
        .map(|g| {
            (
                g["gate"].as_str().unwrap_or_default().to_owned(),
                g["policy"].as_str().unwrap_or_default().to_owned(),
                g["outcome"]["passed"].as_bool().expect("decided"),
            )
        })
        .collect();
    let tail = "ips_p@2[segment=tail]:at_least(floor=0.2)";
    let head = "ips_dcg@10[segment=head]:non_inferior(margin=0.05)";
    assert_eq!(
        gates,
        [
            ("ips_p@2:at_least(floor=0.2)", "prod", true),
            ("ips_p@2:at_least(floor=0.2)", "new", true),
            (tail, "prod", false),
            (tail, "new", true),
            (head, "new", true),
        ]
        .map(|(g, p, o)| (g.to_owned(), p.to_owned(), o))
    );
    // The head gate's bound is the head group's paired difference's.
    let head_lower = report["groups"][0]["report"]["comparisons"][0]["paired"]["interval"]["lower"]
        .as_f64()
        .expect("a bound");
    let whole_lower = report["comparisons"][0]["paired"]["interval"]["lower"]
        .as_f64()
        .expect("a bound");
    assert_ne!(head_lower, whole_lower);
    let gate = &report["gates"][4]["outcome"];
    assert_eq!(gate["value"].as_f64(), Some(head_lower), "{gate}");
    insta::assert_snapshot!("ope_group_gates", transcript(&args, out.clone()));
    // The TOML file's gates give the same bytes.
    std::fs::write(
        dir.path().join("g.toml"),
        format!(
            "{}groups = \"groups.csv\"\ngates = [\"ips_p@2:at_least(floor=0.2)\", \"{tail}\", \"{head}\"]\n",
            toml()
        ),
    )
    .expect("write");
    assert_eq!(run_in(dir.path(), &["ope", "--config", "g.toml"]), out);
}

/// The TOML file of `ope_clicks::FLAGS`.
fn toml() -> &'static str {
    "[ope]\nlog = \"clicks.csv\"\nform = \"examination\"\n\
     policies = [{ name = \"prod\", path = \"prod.trec\" }, { name = \"new\", path = \"new.trec\" }]\n\
     estimators = [\"ips_dcg@10\", \"ips_rbp(p=0.8)\", \"ips_p@2\", \"ips_dcg@10(max_weight=3)\"]\n\
     min_ess = 5\nmin_support = 0.5\n"
}

/// A gate on a group whose estimate is refused cannot be decided: exit
/// 2, while the same gate on the whole log (120 impressions, above the
/// floor of 100) is.
#[test]
fn a_gate_on_a_refused_group_is_undecided() {
    let dir = files();
    let args = with(&[
        "--min-n",
        "100",
        "--gate",
        "ips_p@2:at_least(floor=0.2)",
        "--gate",
        "ips_p@2[segment=head]:at_least(floor=0.2)",
        "--format",
        "json",
    ]);
    let out = run_in(dir.path(), &args);
    assert_eq!(out.0, 2, "{}", out.2);
    let report = json(&out);
    assert_eq!(report["gates"][0]["outcome"]["passed"], true);
    assert_eq!(report["gates"][2]["outcome"], serde_json::Value::Null);
    assert_eq!(
        report["gates"][2]["undecided"],
        "an estimate it reads is refused"
    );
}

#[test]
fn gates_on_groups_there_are_not_are_errors() {
    let dir = files();
    let gate = "ips_p@2[segment=torso]:at_least(floor=0.2)";
    let (code, stdout, stderr) = run_in(dir.path(), &with(&["--gate", gate]));
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(
        stderr,
        format!(
            "error: gate `{gate}`: no context of the log is in that group of groups.csv (the groups are segment=head, segment=tail)\n"
        )
    );
    // Without --groups: refused by the request, in each front end's words.
    let args = [FLAGS, &["--gate", gate]].concat();
    let (code, _, from_flags) = run_in(dir.path(), &args);
    assert_eq!(code, 2);
    assert_eq!(
        from_flags,
        format!(
            "error: --gate {gate}: a gate on a group needs the groups of contexts: give --groups FILE\n"
        )
    );
    std::fs::write(
        dir.path().join("g.toml"),
        format!("{}gates = [\"{gate}\"]\n", toml()),
    )
    .expect("write");
    let (code, _, from_file) = run_in(dir.path(), &["ope", "--config", "g.toml"]);
    assert_eq!(code, 2);
    assert_eq!(
        from_file,
        "error: g.toml:8: ope.gates[1]: a gate on a group needs the groups of contexts: give `groups = \"FILE\"`\n"
    );
}

/// Holm's step-down adjusted p-values of `p`, in `p`'s order.
fn holm(p: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let m = p.len() as f64;
    let mut out = vec![0.0; p.len()];
    let mut running: f64 = 0.0;
    for (j, &i) in order.iter().enumerate() {
        running = running.max(((m - j as f64) * p[i]).min(1.0));
        out[i] = running;
    }
    out
}

/// `--groups-in-family`: each estimator's family is its comparison on the
/// whole log and on each group (three here), Holm-corrected together;
/// without it each report's family has one comparison.
#[test]
fn groups_in_family_corrects_every_groups_comparisons_together() {
    let dir = files();
    let base = with(&["--correction", "holm", "--format", "json"]);
    let apart = json(&run_in(dir.path(), &base));
    let pooled_args = [&base[..], &["--groups-in-family"]].concat();
    let pooled_out = run_in(dir.path(), &pooled_args);
    assert_eq!(pooled_out.0, 0, "{}", pooled_out.2);
    let pooled = json(&pooled_out);
    assert_eq!(pooled["groups_in_family"], true);
    assert!(apart.get("groups_in_family").is_none());
    let comparisons = |report: &serde_json::Value| -> Vec<serde_json::Value> {
        let mut out = vec![report["comparisons"].clone()];
        for g in report["groups"].as_array().expect("groups") {
            out.push(g["report"]["comparisons"].clone());
        }
        out
    };
    for k in 0..4 {
        let raw: Vec<f64> = comparisons(&pooled)
            .iter()
            .map(|c| c[k]["paired"]["p_value"].as_f64().expect("p"))
            .collect();
        let got: Vec<f64> = comparisons(&pooled)
            .iter()
            .map(|c| c[k]["corrected_p_value"].as_f64().expect("corrected"))
            .collect();
        let want = holm(&raw);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-15, "estimator {k}: {got:?} != {want:?}");
        }
        // Apart, a family of one: the p-value itself.
        for c in comparisons(&apart) {
            assert_eq!(c[k]["corrected_p_value"], c[k]["paired"]["p_value"]);
        }
    }
    // The tail's ips_dcg@10 difference is not significant, the log's is:
    // pooling lifts the log's corrected p-value above its own.
    assert!(
        pooled["comparisons"][0]["corrected_p_value"].as_f64()
            > apart["comparisons"][0]["corrected_p_value"].as_f64()
    );
    let table = run_in(
        dir.path(),
        &with(&["--correction", "holm", "--groups-in-family"]),
    );
    assert!(
        table
            .1
            .contains("p (holm): corrected over each estimator's comparisons on the whole log and on every group"),
        "{}",
        table.1
    );
    // The file's key gives the same bytes.
    std::fs::write(
        dir.path().join("f.toml"),
        format!(
            "{}groups = \"groups.csv\"\ncorrection = \"holm\"\ngroups_in_family = true\n",
            toml()
        ),
    )
    .expect("write");
    assert_eq!(
        run_in(
            dir.path(),
            &["ope", "--config", "f.toml", "--format", "json"]
        ),
        pooled_out
    );
    // It needs the groups and a correction.
    let (code, _, stderr) = run_in(
        dir.path(),
        &[FLAGS, &["--correction", "holm", "--groups-in-family"]].concat(),
    );
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: --groups-in-family: puts the groups' comparisons in the whole log's families: give --groups\n"
    );
    let (code, _, stderr) = run_in(dir.path(), &with(&["--groups-in-family"]));
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: --groups-in-family: puts the groups' comparisons in the families of a correction: give --correction\n"
    );
}
