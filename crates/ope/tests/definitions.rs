//! Each estimator against its definition, by hand, on a few impressions.

use rankeval_ope::click::{Click, ClickIps, RankWeight};
use rankeval_ope::slate::{CascadeModel, Probabilities};
use rankeval_ope::{Floors, IntervalKind, Options, Refusal, bandit, click, slate};

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-14 * b.abs().max(1.0), "{a} vs {b}");
}

fn o() -> Options {
    Options {
        interval: IntervalKind::Normal,
        level: 0.95,
        floors: Floors::NONE,
    }
}

/// Two impressions: (r, π0, π, q̂(a), q̂(π)) = (1, .5, .25, .4, .3) and
/// (0, .25, .75, .2, .6): weights .5 and 3.
fn two() -> Vec<bandit::Record> {
    let rec = |reward, logging, target, logged, t| bandit::Record {
        reward,
        logging,
        target,
        model: Some(bandit::Prediction { logged, target: t }),
    };
    vec![
        rec(1.0, 0.5, 0.25, 0.4, 0.3),
        rec(0.0, 0.25, 0.75, 0.2, 0.6),
    ]
}

fn value(e: bandit::Estimator) -> f64 {
    bandit::estimate(&e, &two(), &o()).unwrap().value
}

#[test]
fn bandit_estimators_by_hand() {
    use bandit::Estimator::*;
    close(value(Ips), (0.5 * 1.0 + 3.0 * 0.0) / 2.0);
    close(
        value(ClippedIps { max_weight: 0.4 }),
        (0.4 * 1.0 + 0.4 * 0.0) / 2.0,
    );
    close(value(Snips), (0.5 * 1.0) / (0.5 + 3.0));
    close(value(Dm), (0.3 + 0.6) / 2.0);
    close(
        value(Dr),
        ((0.3 + 0.5 * (1.0 - 0.4)) + (0.6 + 3.0 * (0.0 - 0.2))) / 2.0,
    );
    close(
        value(Sndr),
        (0.3 + 0.6) / 2.0 + (0.5 * (1.0 - 0.4) + 3.0 * (0.0 - 0.2)) / (0.5 + 3.0),
    );
    // τ = 1: the second impression (w = 3) switches to DM.
    close(
        value(SwitchDr { tau: 1.0 }),
        ((0.3 + 0.5 * (1.0 - 0.4)) + 0.6) / 2.0,
    );
    // λ = 1: ŵ = w / (w² + 1): 0.4 and 0.3.
    close(
        value(DrOs { lambda: 1.0 }),
        ((0.3 + 0.4 * (1.0 - 0.4)) + (0.6 + 0.3 * (0.0 - 0.2))) / 2.0,
    );
    close(
        value(DrOs {
            lambda: f64::INFINITY,
        }),
        value(Dr),
    );
    close(value(DrOs { lambda: 0.0 }), value(Dm));
    close(value(SwitchDr { tau: f64::INFINITY }), value(Dr));
}

#[test]
fn bandit_standard_errors_and_diagnostics_by_hand() {
    let est = bandit::estimate(&bandit::Estimator::Ips, &two(), &o()).unwrap();
    // Contributions .5 and 0: sample sd sqrt(.125), over sqrt(2).
    close(est.standard_error, (0.125f64).sqrt() / 2f64.sqrt());
    close(
        est.interval.upper - est.value,
        1.959963984540054 * est.standard_error,
    );
    close(
        est.diagnostics.ess,
        (0.5 + 3.0) * (0.5 + 3.0) / (0.25 + 9.0),
    );
    assert_eq!(est.diagnostics.max_weight, 3.0);
    close(est.diagnostics.support, (0.5 + 3.0) / 2.0);
    let snips = bandit::estimate(&bandit::Estimator::Snips, &two(), &o()).unwrap();
    // Delta method: influence (w r - V w) / mean(w).
    let v: f64 = 0.5 / 3.5;
    let mw = 1.75;
    let i1 = (0.5 - v * 0.5) / mw;
    let i2 = (0.0 - v * 3.0) / mw;
    let m = (i1 + i2) / 2.0;
    let var: f64 = ((i1 - m) * (i1 - m) + (i2 - m) * (i2 - m)) / 1.0;
    close(snips.standard_error, (var / 2.0).sqrt());
    let clipped = bandit::estimate(
        &bandit::Estimator::ClippedIps { max_weight: 1.0 },
        &two(),
        &o(),
    )
    .unwrap();
    assert_eq!(clipped.diagnostics.clipped, 1);
}

#[test]
fn slate_estimators_by_hand() {
    // One slate of two positions: rewards (1, 2); marginals logged (.5,
    // .25), target (.25, .5); cascade logged (.5, .5), target (1, .25);
    // slates' probabilities .2 and .1; model q̂ (.5, .25), E_π q̂ (.4, .3).
    let rewards = [1.0, 2.0];
    let lm = [0.5, 0.25];
    let tm = [0.25, 0.5];
    let lc = [0.5, 0.5];
    let tc = [1.0, 0.25];
    let ql = [0.5, 0.25];
    let qt = [0.4, 0.3];
    let r = slate::Record {
        rewards: &rewards,
        logging: Probabilities {
            slate: Some(0.2),
            marginal: Some(&lm),
            cascade: Some(&lc),
        },
        target: Probabilities {
            slate: Some(0.1),
            marginal: Some(&tm),
            cascade: Some(&tc),
        },
        model: Some(CascadeModel {
            logged: &ql,
            target: &qt,
        }),
    };
    let v = |e| slate::estimate(&e, &[r], &o()).unwrap().value;
    use slate::Estimator::*;
    close(v(SlateIps), 0.5 * (1.0 + 2.0));
    close(v(IndependentIps), 0.5 * 1.0 + 2.0 * 2.0);
    // w_{1:1} = 2, w_{1:2} = 2 * 0.5 = 1.
    close(v(RewardInteractionIps), 2.0 * 1.0 + 1.0 * 2.0);
    close(
        v(CascadeDr),
        (2.0 * (1.0 - 0.5) + 1.0 * 0.4) + (1.0 * (2.0 - 0.25) + 2.0 * 0.3),
    );
    // Γ = .5 + 2 - 1.
    close(v(PseudoInverse), 3.0 * (0.5 + 2.0 - 1.0));
    close(v(SelfNormalizedPseudoInverse), 3.0);
    // Without the slates' probabilities, slate IPS takes the cascades'
    // products: 0.25 / 0.25.
    let no_slate = slate::Record {
        logging: Probabilities {
            slate: None,
            ..r.logging
        },
        target: Probabilities {
            slate: None,
            ..r.target
        },
        ..r
    };
    close(
        slate::estimate(&SlateIps, &[no_slate], &o()).unwrap().value,
        1.0 * 3.0,
    );
}

#[test]
fn click_ips_by_hand() {
    // Clicks on documents at logged ranks 1 and 3 (propensities 1 and
    // 1/3), ranked 2 and (not at all) by the target; the target ranks 3
    // documents, the log showed those it ranks 1 and 2.
    let clicks = [
        Click {
            target_rank: Some(2),
            propensity: 1.0,
        },
        Click {
            target_rank: None,
            propensity: 1.0 / 3.0,
        },
    ];
    let shown = [1, 2];
    let r = click::Record {
        clicks: &clicks,
        shown: &shown,
        target_len: 3,
    };
    let dcg = ClickIps {
        metric: RankWeight::Dcg { k: None },
        max_weight: None,
    };
    let c = dcg.contribution(0, &r).unwrap();
    close(c.columns[0], 1.0 / 3f64.log2());
    close(c.weight, 1.0 + 3.0);
    let total = 1.0 + 1.0 / 3f64.log2() + 0.5;
    close(c.support, (1.0 + 1.0 / 3f64.log2()) / total);
    let clicks = [Click {
        target_rank: Some(1),
        propensity: 0.25,
    }];
    let r = click::Record {
        clicks: &clicks,
        shown: &shown,
        target_len: 3,
    };
    let p1 = ClickIps {
        metric: RankWeight::Precision { k: 2 },
        max_weight: Some(2.0),
    };
    let c = p1.contribution(0, &r).unwrap();
    close(c.columns[0], 0.5 * 2.0);
    assert!(c.clipped);
    close(click::power_law(4, 1.0), 0.25);
}

#[test]
fn refusals_fire_below_each_floor() {
    // One impression of weight 3 among weights 0: ESS 1.
    let mut records = vec![
        bandit::Record {
            reward: 1.0,
            logging: 0.5,
            target: 0.0,
            model: None
        };
        99
    ];
    records.push(bandit::Record {
        reward: 1.0,
        logging: 0.25,
        target: 0.75,
        model: None,
    });
    let options = Options {
        floors: Floors::default(),
        ..o()
    };
    let est = bandit::estimate(&bandit::Estimator::Ips, &records, &options).unwrap();
    assert_eq!(est.diagnostics.ess, 1.0);
    assert!(
        matches!(est.refusals[0], Refusal::LowEffectiveSampleSize { .. }),
        "{:?}",
        est.refusals
    );
    assert!(
        matches!(est.refusals[1], Refusal::LowSupport { .. }),
        "{:?}",
        est.refusals
    );
    assert_eq!(est.refusals.len(), 2);
    let none = bandit::estimate(&bandit::Estimator::Ips, &records, &o()).unwrap();
    assert!(!none.is_refused());
    // An empty log: NaN, refused on every count.
    let empty = bandit::estimate(&bandit::Estimator::Ips, &[], &options).unwrap();
    assert!(empty.value.is_nan());
    assert_eq!(empty.refusals.len(), 3);
}

/// The linearised contributions' mean is the estimate and their standard
/// error the state's, for each form; a policy paired with itself differs
/// by 0 with no error, and the paired error is below the unpaired one
/// when two policies share the noise.
#[test]
fn linearised_contributions_reproduce_the_estimate_and_its_error() {
    use rankeval_ope::{Form, linearised, paired_difference};
    let log = crate::generated::generate();
    for e in [
        bandit::Estimator::Ips,
        bandit::Estimator::Snips,
        bandit::Estimator::Sndr,
    ] {
        let contributions: Vec<_> = log
            .bandit
            .iter()
            .enumerate()
            .map(|(i, r)| e.contribution(i, r).unwrap())
            .collect();
        let psi = linearised(e.form(), &contributions);
        let est = bandit::estimate(&e, &log.bandit, &o()).unwrap();
        let n = psi.len() as f64;
        let mean = psi.iter().sum::<f64>() / n;
        let sd = (psi.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)).sqrt();
        close(mean, est.value);
        assert!(
            (sd / n.sqrt() - est.standard_error).abs() < 1e-12,
            "{}",
            e.name()
        );
        let same = paired_difference(&psi, &psi, est.value, est.value, &o()).unwrap();
        assert_eq!(
            (same.difference, same.standard_error, same.p_value),
            (0.0, 0.0, 1.0)
        );
        assert_eq!(e.form() == Form::Mean, matches!(e, bandit::Estimator::Ips));
    }
    // A target that is the logging policy tilted a little: the paired error
    // of the difference is far below either estimate's error.
    let tilted: Vec<_> = log
        .bandit
        .iter()
        .map(|r| bandit::Record {
            target: (r.target * 0.9 + 0.1 * r.logging).min(1.0),
            ..*r
        })
        .collect();
    let e = bandit::Estimator::Snips;
    let psi = |records: &[bandit::Record]| {
        let c: Vec<_> = records
            .iter()
            .enumerate()
            .map(|(i, r)| e.contribution(i, r).unwrap())
            .collect();
        linearised(e.form(), &c)
    };
    let a = bandit::estimate(&e, &log.bandit, &o()).unwrap();
    let b = bandit::estimate(&e, &tilted, &o()).unwrap();
    let d = paired_difference(&psi(&tilted), &psi(&log.bandit), b.value, a.value, &o()).unwrap();
    assert!(
        d.standard_error < 0.5 * a.standard_error.min(b.standard_error),
        "{d:?}"
    );
    close(d.difference, b.value - a.value);
}
