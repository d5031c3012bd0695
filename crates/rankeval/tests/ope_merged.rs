//! A log read in parts (`rankeval::ope::merged`, what a Spark job does with
//! its partitions) gives the report of the whole log to the bit: the
//! estimates, the paired comparisons of every candidate with the first
//! policy (each estimator form: a mean, a ratio, a mean plus a ratio),
//! the correction and the gates, for any split of the impressions into
//! parts. Logs generated here (SplitMix64, seed 38), read by the
//! command line's reader from CSV bytes.

use rankeval::compare::parse_gate;
use rankeval::core::exact_sum::FullSum;
use rankeval::ope::estimators::{Floors, IntervalKind, Options, State};
use rankeval::ope::merged::{linearised_part, merged_report, paired_sums, unlogged_part};
use rankeval::ope::{
    Candidate, ImpressionLog, LogSummary, OpeEstimator, OpePlan, OpeReport, RewardModel,
    TargetPolicy, ope_report, ope_states,
};
use rankeval::read::impressions::{
    ImpressionOptions, PropensityForm, RewardPer, parse_impressions,
};
use rankeval::read::{Format, Input};
use rankeval_stats::Correction;

struct SplitMix64(u64);

impl SplitMix64 {
    fn u(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

const CONTEXTS: usize = 6;
const ITEMS: usize = 5;

/// A bandit log's rows (one item per impression, its propensity), or a
/// click log's (every item shown in a random order, one row per
/// position, a click when examined with `p_k = 1/k` and relevant).
fn rows(clicks: bool, impressions: usize) -> Vec<String> {
    let mut rng = SplitMix64(38);
    let mut out = Vec::new();
    for n in 0..impressions {
        let c = (rng.u() * CONTEXTS as f64) as usize;
        if clicks {
            let mut shown: Vec<usize> = (0..ITEMS).collect();
            for i in (1..ITEMS).rev() {
                let j = (rng.u() * (i + 1) as f64) as usize;
                shown.swap(i, j);
            }
            for (k, d) in shown.iter().enumerate() {
                let p = 1.0 / (k + 1) as f64;
                let click = u8::from(rng.u() < p && (2 * d + c) % ITEMS < 2);
                out.push(format!("c{c},m{n},{},i{d},{click},{p:?}", k + 1));
            }
        } else {
            let weights: Vec<f64> = (0..ITEMS).map(|i| 1.0 + ((i + c) % 3) as f64).collect();
            let total: f64 = weights.iter().sum();
            let (mut v, mut a) = (rng.u() * total, ITEMS - 1);
            for (i, w) in weights.iter().enumerate() {
                if v < *w {
                    a = i;
                    break;
                }
                v -= w;
            }
            let reward = u8::from(rng.u() < 0.1 + 0.15 * ((a + 2 * c) % 4) as f64);
            out.push(format!("c{c},m{n},i{a},{reward},{:?}", weights[a] / total));
        }
    }
    out
}

fn header(clicks: bool) -> &'static str {
    if clicks {
        "context,impression,position,item,reward,propensity\n"
    } else {
        "context,impression,item,reward,propensity\n"
    }
}

fn read_log(clicks: bool, rows: &[&String]) -> ImpressionLog {
    let mut text = header(clicks).to_owned();
    for r in rows {
        text.push_str(r);
        text.push('\n');
    }
    let options = ImpressionOptions {
        form: if clicks {
            PropensityForm::Examination
        } else {
            PropensityForm::Action
        },
        reward: if clicks {
            RewardPer::Position
        } else {
            RewardPer::Impression
        },
        ..ImpressionOptions::default()
    };
    parse_impressions(text.as_bytes(), "log", &options).expect("the log")
}

fn run(name: &str, shift: usize) -> rankeval::Run {
    let mut trec = String::new();
    for c in 0..CONTEXTS {
        for rank in 0..ITEMS {
            let item = (rank + shift * c + shift) % ITEMS;
            trec.push_str(&format!(
                "c{c} Q0 i{item} {} {} {name}\n",
                rank + 1,
                ITEMS - rank
            ));
        }
    }
    rankeval::read_run(
        &Input::bytes(format!("{name}.trec"), trec.as_bytes(), Format::Trec),
        rankeval::ReadOptions::default(),
    )
    .expect("the run")
}

fn candidates() -> Vec<Candidate> {
    ["prod", "new", "other"]
        .iter()
        .enumerate()
        .map(|(shift, name)| Candidate {
            name: (*name).into(),
            policy: TargetPolicy::Ranking(run(name, shift)),
        })
        .collect()
}

fn plan(estimators: &[&str], gates: &[&str], interval: IntervalKind) -> OpePlan {
    let model = run("model", 4);
    let model = RewardModel::from_run(&model, std::path::Path::new("model.trec")).unwrap();
    OpePlan {
        estimators: estimators
            .iter()
            .map(|e| OpeEstimator::parse(e).unwrap())
            .collect(),
        options: Options {
            interval,
            level: 0.9,
            floors: Floors::default(),
        },
        allow_unlogged: true,
        allow_low_support: true,
        model: Some(model),
        sampling: None,
        gates: gates
            .iter()
            .map(|g| {
                parse_gate(g, 0.05, |m| {
                    OpeEstimator::parse(m.strip_prefix("ope.").unwrap_or(m)).map(|e| e.name())
                })
                .unwrap()
            })
            .collect(),
        resampling: None,
        correction: Some(Correction::Holm),
    }
}

/// The report of the log split into `parts` (impression `n` in part `n %
/// parts`), as the Spark job makes it: states, merged; the exact sums of
/// the paired differences, merged into their means; the exact sums of
/// the squared deviations, merged.
fn in_parts(clicks: bool, all: &[String], parts: usize, plan: &OpePlan) -> OpeReport {
    let candidates = candidates();
    let per_impression = if clicks { ITEMS } else { 1 };
    let logs: Vec<ImpressionLog> = (0..parts)
        .map(|p| {
            let mine: Vec<&String> = all
                .iter()
                .enumerate()
                .filter(|(i, _)| (i / per_impression) % parts == p)
                .map(|(_, r)| r)
                .collect();
            read_log(clicks, &mine)
        })
        .collect();
    let mut merged: Option<Vec<Vec<State>>> = None;
    for log in &logs {
        let states = ope_states(log, "log", &candidates, plan).unwrap();
        match &mut merged {
            None => merged = Some(states),
            Some(m) => {
                for (row, part) in m.iter_mut().zip(&states) {
                    for (s, t) in row.iter_mut().zip(part) {
                        s.merge(t).unwrap();
                    }
                }
            }
        }
    }
    let merged = merged.unwrap();
    let n = merged[0][0].count();
    let sums = |centres: Option<&[Vec<f64>]>| -> Vec<Vec<FullSum>> {
        let mut total: Option<Vec<Vec<FullSum>>> = None;
        for log in &logs {
            let linear = linearised_part(log, "log", &candidates, plan, &merged).unwrap();
            let part = paired_sums(&linear, centres);
            match &mut total {
                None => total = Some(part),
                Some(t) => {
                    for (row, part) in t.iter_mut().zip(&part) {
                        for (s, x) in row.iter_mut().zip(part) {
                            s.merge(x);
                        }
                    }
                }
            }
        }
        total.unwrap()
    };
    let centres: Vec<Vec<f64>> = sums(None)
        .iter()
        .map(|row| row.iter().map(|s| s.mean(n)).collect())
        .collect();
    let squares: Vec<Vec<f64>> = sums(Some(&centres))
        .iter()
        .map(|row| row.iter().map(FullSum::value).collect())
        .collect();
    let names: Vec<String> = candidates.iter().map(|c| c.name.clone()).collect();
    let whole = &logs[0];
    let summary = LogSummary {
        name: "log".into(),
        impressions: n,
        slate_len: whole.slate_len,
        form: whole.form.name(),
        reward: if clicks { "position" } else { "impression" },
    };
    merged_report(summary, &names, plan, &merged, &squares, false).unwrap()
}

fn same_bits(a: &OpeReport, b: &OpeReport) {
    let (a, b) = (
        serde_json::to_string(a).unwrap(),
        serde_json::to_string(b).unwrap(),
    );
    assert_eq!(a, b);
}

#[test]
fn bandit_comparisons_and_gates_of_any_split_are_the_whole_logs() {
    let all = rows(false, 900);
    let refs: Vec<&String> = all.iter().collect();
    let estimators = ["ips", "snips", "dr", "sndr", "clipped_ips(max_weight=3)"];
    let gates = [
        "snips:non_inferior(margin=0.01)",
        "ope.dr:superior(alpha=0.05)",
        "ips:at_least(floor=0.3)",
    ];
    for interval in [IntervalKind::Normal, IntervalKind::T] {
        let plan = plan(&estimators, &gates, interval);
        let whole = ope_report(&read_log(false, &refs), "log", &candidates(), &plan).unwrap();
        assert_eq!(whole.comparisons.len(), 10);
        assert!(
            whole
                .comparisons
                .iter()
                .all(|c| c.corrected_p_value.is_some())
        );
        assert!(!whole.gates.is_empty());
        for parts in [1, 2, 7] {
            same_bits(&in_parts(false, &all, parts, &plan), &whole);
        }
    }
}

#[test]
fn click_comparisons_of_any_split_are_the_whole_logs() {
    let all = rows(true, 500);
    let refs: Vec<&String> = all.iter().collect();
    let plan = plan(
        &["ips_dcg@3", "ips_rbp(p=0.8)", "ips_p@2(max_weight=2)"],
        &["ips_dcg@3:non_inferior(margin=0.1)"],
        IntervalKind::Normal,
    );
    let plan = OpePlan {
        model: None,
        ..plan
    };
    let whole = ope_report(&read_log(true, &refs), "log", &candidates(), &plan).unwrap();
    assert_eq!(whole.comparisons.len(), 6);
    for parts in [1, 3, 4] {
        same_bits(&in_parts(true, &all, parts, &plan), &whole);
    }
}

#[test]
fn a_gate_on_a_group_or_an_unknown_policy_is_refused() {
    let all = rows(false, 200);
    for gate in [
        "ips[segment=head]:at_least(floor=0.1)",
        "ips:at_least(floor=0.1,run=nobody)",
    ] {
        let plan = plan(&["ips"], &[gate], IntervalKind::Normal);
        let names: Vec<String> = candidates().iter().map(|c| c.name.clone()).collect();
        let log = read_log(false, &all.iter().collect::<Vec<_>>());
        let states = ope_states(
            &log,
            "log",
            &candidates(),
            &OpePlan {
                gates: Vec::new(),
                ..plan.clone()
            },
        )
        .unwrap();
        let summary = LogSummary {
            name: "log".into(),
            impressions: 200,
            slate_len: 1,
            form: "action",
            reward: "impression",
        };
        let squares = vec![vec![0.0]; 2];
        assert!(
            merged_report(summary, &names, &plan, &states, &squares, false).is_err(),
            "{gate}"
        );
    }
}

/// The whole log's "never logged" error from its parts as a Spark job
/// finds it (`unlogged_part` per part, an anti-join of the unlogged pairs
/// with every part's logged pairs, the first by policy, part, impression
/// and position), the parts `parts` contiguous runs of the impressions
/// in log order (as `repartitionByRange` on the row number makes them).
fn never_logged_in_parts(all: &[String], parts: usize, plan: &OpePlan) -> Option<String> {
    let size = all.len().div_ceil(parts);
    let mut logged = std::collections::HashSet::new();
    let mut unlogged = Vec::new();
    for (p, chunk) in all.chunks(size.max(1)).enumerate() {
        let log = read_log(false, &chunk.iter().collect::<Vec<_>>());
        let (pairs, missing) = unlogged_part(&log, "log", &candidates(), plan).unwrap();
        logged.extend(pairs);
        unlogged.extend(missing.into_iter().map(|u| (p, u)));
    }
    unlogged
        .into_iter()
        .filter(|(_, u)| !logged.contains(&(u.context.clone(), u.item.clone())))
        .min_by_key(|(p, u)| (u.policy, *p, u.impression, u.position))
        .map(|(_, u)| u.message)
}

/// A ranking that shows, for a context, an item the log never shows
/// there is the command line's error on a log in parts too, the same
/// words for the same first pair (policy order, then the context's
/// first impression in the log): a pair logged in one part only is
/// logged. Parts could not check it (it needs the whole log) and were
/// refused without allowing unlogged items.
#[test]
fn a_ranking_s_never_logged_item_is_the_whole_log_s_error_in_parts() {
    let plan = OpePlan {
        allow_unlogged: false,
        ..plan(&["ips"], &[], IntervalKind::Normal)
    };
    let all = rows(false, 900);
    // Every policy shows its top item (`prod`: i0 everywhere; `new`:
    // i(c+1 mod 5)); each pair dropped is one a policy shows.
    let without = |pairs: &[(&str, &str)]| -> Vec<String> {
        all.iter()
            .filter(|r| {
                let f: Vec<&str> = r.split(',').collect();
                !pairs.iter().any(|(c, i)| f[0] == *c && f[2] == *i)
            })
            .cloned()
            .collect()
    };
    let cases: Vec<Vec<(&str, &str)>> = vec![
        vec![],
        vec![("c3", "i0")],
        vec![("c1", "i2")],
        vec![("c1", "i2"), ("c3", "i0"), ("c4", "i0")],
    ];
    let mut errors = 0;
    for dropped in &cases {
        let log_rows = without(dropped);
        let refs: Vec<&String> = log_rows.iter().collect();
        let whole = ope_report(&read_log(false, &refs), "log", &candidates(), &plan)
            .err()
            .map(|e| e.to_string());
        assert_eq!(whole.is_some(), !dropped.is_empty(), "{dropped:?}");
        if let Some(message) = &whole {
            errors += 1;
            assert!(message.contains("an item the log never shows"), "{message}");
        }
        for parts in [1, 3, 7] {
            assert_eq!(
                never_logged_in_parts(&log_rows, parts, &plan),
                whole,
                "{dropped:?}, {parts} parts"
            );
        }
    }
    assert_eq!(errors, 3);
    // A pair logged once, in the last part, while its context is first
    // seen in the first: logged.
    let mut once = without(&[("c3", "i0")]);
    let row = all
        .iter()
        .find(|r| r.starts_with("c3,") && r.split(',').nth(2) == Some("i0"))
        .unwrap()
        .clone();
    once.push(row);
    let refs: Vec<&String> = once.iter().collect();
    assert!(ope_report(&read_log(false, &refs), "log", &candidates(), &plan).is_ok());
    for parts in [1, 3, 7] {
        assert_eq!(never_logged_in_parts(&once, parts, &plan), None);
    }
}

/// A run's TREC text (the lists of [`run`]).
fn trec(name: &str, shift: usize) -> String {
    let mut trec = String::new();
    for c in 0..CONTEXTS {
        for rank in 0..ITEMS {
            let item = (rank + shift * c + shift) % ITEMS;
            trec.push_str(&format!(
                "c{c} Q0 i{item} {} {} {name}\n",
                rank + 1,
                ITEMS - rank
            ));
        }
    }
    trec
}

/// Groups of contexts on a log in parts: each part cut by the groups
/// file (`group_slices`), each group's states and paired sums merged as
/// the log's are, finished by `merged_report_with_groups`: the report of
/// `rankeval ope --groups` on the whole log (`run_request`), every
/// group's estimates, comparisons and corrections, the note on the
/// contexts in no group, the families across groups and the gates on a
/// group, to the bit, for 1, 3 and 7 parts.
#[test]
fn groups_of_contexts_in_parts_are_the_whole_logs() {
    use rankeval::ope::merged::{
        MergedGroup, MergedGroups, group_slices, merged_report_with_groups,
    };
    use rankeval::spec::{Given, OpeSpec, Origin, PolicyRequest, resolve_ope};
    let dir = tempfile::tempdir().unwrap();
    let all = rows(false, 900);
    let log_path = dir.path().join("log.csv");
    std::fs::write(&log_path, format!("{}{}\n", header(false), all.join("\n"))).unwrap();
    let groups_path = dir.path().join("groups.tsv");
    // c5 in no group of `segment`; `parity` numbers.
    std::fs::write(
        &groups_path,
        "context\tsegment\tparity\nc0\thead\t2\nc1\thead\t1\nc2\ttail\t10\nc3\ttail\t1\nc4\ttail\t2\nc5\t\t1\n",
    )
    .unwrap();
    let names = ["prod", "new", "other"];
    for (shift, name) in names.iter().enumerate() {
        std::fs::write(dir.path().join(format!("{name}.trec")), trec(name, shift)).unwrap();
    }
    let keyword = |name: &str| Origin::keyword(name, "");
    let mut spec = OpeSpec::new(keyword("ope"));
    spec.log = Some(Given::new(log_path.clone(), keyword("log")));
    spec.policies = names
        .iter()
        .map(|n| PolicyRequest {
            name: Some((*n).into()),
            path: dir.path().join(format!("{n}.trec")),
            from: keyword("policies"),
        })
        .collect();
    spec.estimators = ["ips", "snips"]
        .iter()
        .map(|e| Given::new((*e).into(), keyword("estimators")))
        .collect();
    spec.gates = [
        "snips:non_inferior(margin=0.01)",
        "ips[segment=tail]:at_least(floor=0.2)",
        "snips[parity=1]:superior(alpha=0.05)",
    ]
    .iter()
    .map(|g| Given::new((*g).into(), keyword("gates")))
    .collect();
    spec.groups = Some(Given::new(groups_path.clone(), keyword("groups")));
    spec.correction = Some(Given::new("holm".into(), keyword("correction")));
    spec.allow_low_support = Some(Given::new(true, keyword("allow_low_support")));
    for in_family in [false, true] {
        spec.groups_in_family = Some(Given::new(in_family, keyword("groups_in_family")));
        let request = resolve_ope(OpeSpec {
            log: spec.log.clone(),
            policies: spec
                .policies
                .iter()
                .map(|p| PolicyRequest {
                    name: p.name.clone(),
                    path: p.path.clone(),
                    from: p.from.clone(),
                })
                .collect(),
            estimators: spec.estimators.clone(),
            gates: spec.gates.clone(),
            groups: spec.groups.clone(),
            groups_in_family: spec.groups_in_family.clone(),
            correction: spec.correction.clone(),
            allow_low_support: spec.allow_low_support.clone(),
            ..OpeSpec::new(keyword("ope"))
        })
        .unwrap();
        let whole = rankeval::ope::run_request(&request).unwrap();
        assert_eq!(whole.groups.len(), 2 + 3);
        assert_eq!(whole.notes.len(), 1, "{:?}", whole.notes);
        assert_eq!(whole.gates.len(), 2 + 3 + 2);
        let groups = rankeval::read::read_groups(&groups_path).unwrap();
        let candidates = candidates();
        let plan = &request.plan;
        // The parts make states and sums; the gates are the report's.
        let part_plan = OpePlan {
            gates: Vec::new(),
            ..plan.clone()
        };
        for parts in [1, 3, 7] {
            let size = all.len().div_ceil(parts);
            let logs: Vec<ImpressionLog> = all
                .chunks(size)
                .map(|c| read_log(false, &c.iter().collect::<Vec<_>>()))
                .collect();
            // Per part: the whole part, then each group of each column.
            type Key = Option<(String, String)>;
            let mut keyed: Vec<(Key, Vec<ImpressionLog>)> = vec![(None, Vec::new())];
            let mut ungrouped: Vec<(String, std::collections::BTreeSet<String>)> = Vec::new();
            for log in &logs {
                keyed[0].1.push(log.clone());
                for (c, slices) in group_slices(log, &groups).into_iter().enumerate() {
                    if ungrouped.len() <= c {
                        ungrouped.push((slices.column.clone(), Default::default()));
                    }
                    ungrouped[c]
                        .1
                        .extend(slices.without.iter().map(|&id| log.text(id)));
                    for (value, sub) in slices.groups {
                        let key = Some((slices.column.clone(), value));
                        match keyed.iter_mut().find(|(k, _)| *k == key) {
                            Some((_, subs)) => subs.push(sub),
                            None => keyed.push((key, vec![sub])),
                        }
                    }
                }
            }
            type Merged = (Key, u64, Vec<Vec<State>>, Vec<Vec<f64>>);
            let merged: Vec<Merged> = keyed
                .iter()
                .map(|(key, subs)| {
                    let (n, states, squares) = merged_of(subs, &candidates, &part_plan);
                    (key.clone(), n, states, squares)
                })
                .collect();
            let (_, n, states, squares) = &merged[0];
            let mut in_groups = Vec::new();
            for column in groups.columns() {
                let values: Vec<&str> = merged
                    .iter()
                    .filter_map(|(k, ..)| k.as_ref().filter(|(c, _)| c == column))
                    .map(|(_, v)| v.as_str())
                    .collect();
                for value in rankeval::groups::group_order(values.into_iter()) {
                    let (_, n, states, squares) = merged
                        .iter()
                        .find(|(k, ..)| k.as_ref().is_some_and(|(c, v)| c == column && v == value))
                        .unwrap();
                    in_groups.push(MergedGroup {
                        column: column.clone(),
                        value: value.to_owned(),
                        impressions: *n,
                        states: states.clone(),
                        squares: squares.clone(),
                    });
                }
            }
            let summary = LogSummary {
                name: log_path.display().to_string(),
                impressions: *n,
                slate_len: 1,
                form: "action",
                reward: "impression",
            };
            let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
            let report = merged_report_with_groups(
                summary,
                &names,
                plan,
                states,
                squares,
                false,
                MergedGroups {
                    path: &groups_path,
                    groups: in_groups,
                    ungrouped: ungrouped
                        .iter()
                        .map(|(c, set)| {
                            (c.clone(), set.len(), set.iter().take(3).cloned().collect())
                        })
                        .collect(),
                    in_family,
                },
            )
            .unwrap();
            same_bits(&report, &whole);
            assert_eq!(report.notes, whole.notes);
        }
    }
}

/// The parts `logs` of one log (or of one group) merged: the
/// impressions, the states, and the paired squares (the three passes).
fn merged_of(
    logs: &[ImpressionLog],
    candidates: &[Candidate],
    plan: &OpePlan,
) -> (u64, Vec<Vec<State>>, Vec<Vec<f64>>) {
    let mut merged: Option<Vec<Vec<State>>> = None;
    for log in logs {
        let states = ope_states(log, "log", candidates, plan).unwrap();
        match &mut merged {
            None => merged = Some(states),
            Some(m) => {
                for (row, part) in m.iter_mut().zip(&states) {
                    for (s, t) in row.iter_mut().zip(part) {
                        s.merge(t).unwrap();
                    }
                }
            }
        }
    }
    let merged = merged.unwrap();
    let n = merged[0][0].count();
    let sums = |centres: Option<&[Vec<f64>]>| -> Vec<Vec<FullSum>> {
        let mut total: Option<Vec<Vec<FullSum>>> = None;
        for log in logs {
            let linear = linearised_part(log, "log", candidates, plan, &merged).unwrap();
            let part = paired_sums(&linear, centres);
            match &mut total {
                None => total = Some(part),
                Some(t) => {
                    for (row, part) in t.iter_mut().zip(&part) {
                        for (s, x) in row.iter_mut().zip(part) {
                            s.merge(x);
                        }
                    }
                }
            }
        }
        total.unwrap()
    };
    let centres: Vec<Vec<f64>> = sums(None)
        .iter()
        .map(|row| row.iter().map(|s| s.mean(n)).collect())
        .collect();
    let squares = sums(Some(&centres))
        .iter()
        .map(|row| row.iter().map(FullSum::value).collect())
        .collect();
    (n, merged, squares)
}
