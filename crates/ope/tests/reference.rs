//! Every estimator on the generated log against the plain numpy reference
//! (`scripts/cross-check/ope-reference.py`, its estimates in
//! `tests/data/ope-reference.json`), within 1e-12 relative: the value, the
//! standard error, both intervals and the diagnostics.

use rankeval_ope::click::{ClickIps, RankWeight};
use rankeval_ope::{Estimate, Floors, IntervalKind, Options, State, bandit, click, slate};
use serde_json::Value;

use crate::generated::{self, generate};

fn close(ours: f64, theirs: f64, what: &str) {
    let tolerance = 1e-12 * theirs.abs().max(1.0);
    assert!(
        (ours - theirs).abs() <= tolerance,
        "{what}: ours {ours:e}, numpy {theirs:e}"
    );
}

fn check(state: &State, reference: &Value) {
    let name = state.name();
    let r = &reference[name];
    assert!(r.is_object(), "{name} is not in the reference file");
    let options = |interval| Options {
        interval,
        level: 0.95,
        floors: Floors::NONE,
    };
    let normal: Estimate = state.estimate(&options(IntervalKind::Normal)).unwrap();
    let t: Estimate = state.estimate(&options(IntervalKind::T)).unwrap();
    let f = |key: &str| r[key].as_f64().unwrap();
    let pair = |key: &str, i: usize| r[key][i].as_f64().unwrap();
    assert_eq!(normal.diagnostics.n as f64, f("n"), "{name}: n");
    close(normal.value, f("value"), &format!("{name}: value"));
    close(
        normal.standard_error,
        f("standard_error"),
        &format!("{name}: standard error"),
    );
    close(
        normal.interval.lower,
        pair("normal", 0),
        &format!("{name}: normal lower"),
    );
    close(
        normal.interval.upper,
        pair("normal", 1),
        &format!("{name}: normal upper"),
    );
    close(t.interval.lower, pair("t", 0), &format!("{name}: t lower"));
    close(t.interval.upper, pair("t", 1), &format!("{name}: t upper"));
    close(normal.diagnostics.ess, f("ess"), &format!("{name}: ess"));
    close(
        normal.diagnostics.max_weight,
        f("max_weight"),
        &format!("{name}: max weight"),
    );
    close(
        normal.diagnostics.support,
        f("support"),
        &format!("{name}: support"),
    );
    let support_error = normal.diagnostics.support_error;
    assert!(
        (support_error - f("support_error")).abs() <= 1e-12 * support_error.max(1.0),
        "{name}: support error"
    );
    assert_eq!(
        normal.diagnostics.clipped as f64,
        f("clipped"),
        "{name}: clipped"
    );
}

#[test]
fn every_estimator_matches_the_numpy_reference() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/ope-reference.json"
    ))
    .unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["seed"].as_u64(), Some(generated::SEED));
    let reference = &doc["estimates"];
    let log = generate();
    let mut checked = 0;
    for e in [
        bandit::Estimator::Ips,
        bandit::Estimator::ClippedIps { max_weight: 2.0 },
        bandit::Estimator::Snips,
        bandit::Estimator::Dm,
        bandit::Estimator::Dr,
        bandit::Estimator::Sndr,
        bandit::Estimator::SwitchDr { tau: 2.0 },
        bandit::Estimator::DrOs { lambda: 1.0 },
    ] {
        check(&bandit::state(&e, &log.bandit).unwrap(), reference);
        checked += 1;
    }
    let slates: Vec<_> = log.slates.iter().map(|s| s.record()).collect();
    for e in [
        slate::Estimator::SlateIps,
        slate::Estimator::IndependentIps,
        slate::Estimator::RewardInteractionIps,
        slate::Estimator::CascadeDr,
        slate::Estimator::PseudoInverse,
        slate::Estimator::SelfNormalizedPseudoInverse,
    ] {
        check(&slate::state(&e, &slates).unwrap(), reference);
        checked += 1;
    }
    let clicks: Vec<_> = log.clicks.iter().map(|c| c.record()).collect();
    for e in [
        ClickIps {
            metric: RankWeight::Dcg { k: Some(5) },
            max_weight: None,
        },
        ClickIps {
            metric: RankWeight::Rbp { p: 0.8 },
            max_weight: None,
        },
        ClickIps {
            metric: RankWeight::Precision { k: 3 },
            max_weight: None,
        },
        ClickIps {
            metric: RankWeight::Dcg { k: Some(5) },
            max_weight: Some(3.0),
        },
    ] {
        check(&click::state(&e, &clicks).unwrap(), reference);
        checked += 1;
    }
    assert_eq!(
        checked,
        reference.as_object().unwrap().len(),
        "an estimate of the file was not checked"
    );
}
