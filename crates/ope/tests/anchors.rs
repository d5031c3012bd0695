//! The peers' own test vectors.

use rankeval_core::testing;
use rankeval_metrics::rbp::{Persistence, RbpGain, rbp};
use rankeval_ope::click::{Click, ClickIps, RankWeight};
use rankeval_ope::slate::{CascadeModel, Probabilities};
use rankeval_ope::{Floors, IntervalKind, Options, bandit, click, slate};

fn options(interval: IntervalKind) -> Options {
    Options {
        interval,
        level: 0.95,
        floors: Floors::default(),
    }
}

/// VW's `test_estimate_1_from_1s`, `..._10_from_10s`,
/// `..._negative_constant`: ten impressions logged and targeted with
/// probability 1 and a constant reward give the constant from every
/// estimator, and every interval covers it.
#[test]
fn constant_rewards_give_the_constant_and_every_interval_covers_it() {
    for c in [1.0, 10.0, -1.0] {
        let record = bandit::Record {
            reward: c,
            logging: 1.0,
            target: 1.0,
            model: Some(bandit::Prediction {
                logged: c,
                target: c,
            }),
        };
        let records = vec![record; 10];
        for e in [
            bandit::Estimator::Ips,
            bandit::Estimator::ClippedIps { max_weight: 1.0 },
            bandit::Estimator::Snips,
            bandit::Estimator::Dm,
            bandit::Estimator::Dr,
            bandit::Estimator::Sndr,
            bandit::Estimator::SwitchDr { tau: 1.0 },
            bandit::Estimator::DrOs { lambda: 1.0 },
        ] {
            for interval in [IntervalKind::Normal, IntervalKind::T] {
                let est = bandit::estimate(&e, &records, &options(interval)).unwrap();
                assert_eq!(est.value, c, "{}", est.estimator);
                assert!(
                    est.interval.lower <= c && c <= est.interval.upper,
                    "{}",
                    est.estimator
                );
                // Ten impressions are below the default floor.
                assert!(est.is_refused());
            }
        }
        // And the slate estimators, three slots with probability 1.
        let rewards = [c, 0.0, 0.0];
        let ones = [1.0; 3];
        let zero = [0.0; 3];
        let probabilities = Probabilities {
            slate: Some(1.0),
            marginal: Some(&ones),
            cascade: Some(&ones),
        };
        let r = slate::Record {
            rewards: &rewards,
            logging: probabilities,
            target: probabilities,
            model: Some(CascadeModel {
                logged: &zero,
                target: &zero,
            }),
        };
        let records = vec![r; 10];
        for e in [
            slate::Estimator::SlateIps,
            slate::Estimator::IndependentIps,
            slate::Estimator::RewardInteractionIps,
            slate::Estimator::CascadeDr,
            slate::Estimator::PseudoInverse,
            slate::Estimator::SelfNormalizedPseudoInverse,
        ] {
            let est = slate::estimate(&e, &records, &options(IntervalKind::T)).unwrap();
            assert_eq!(est.value, c, "{}", est.estimator);
            assert!(est.interval.lower <= c && c <= est.interval.upper);
        }
    }
}

/// VW's `test_single_slot_pi_equivalent_to_ips`, and the numbers it
/// implies: logged [.8, .25, .5, .2], target [.6, .4, .3, .9], rewards
/// [.1, .2, 0, 1].
#[test]
fn pseudo_inverse_with_one_slot_is_ips() {
    let logged = [0.8, 0.25, 0.5, 0.2];
    let target = [0.6, 0.4, 0.3, 0.9];
    let rewards = [0.1, 0.2, 0.0, 1.0];
    let slates: Vec<_> = (0..4)
        .map(|i| slate::Record {
            rewards: &rewards[i..=i],
            logging: Probabilities {
                marginal: Some(&logged[i..=i]),
                ..Default::default()
            },
            target: Probabilities {
                marginal: Some(&target[i..=i]),
                ..Default::default()
            },
            model: None,
        })
        .collect();
    let bandits: Vec<_> = (0..4)
        .map(|i| bandit::Record {
            reward: rewards[i],
            logging: logged[i],
            target: target[i],
            model: None,
        })
        .collect();
    let o = options(IntervalKind::Normal);
    let pi = slate::estimate(&slate::Estimator::PseudoInverse, &slates, &o).unwrap();
    let snpi =
        slate::estimate(&slate::Estimator::SelfNormalizedPseudoInverse, &slates, &o).unwrap();
    let ips = bandit::estimate(&bandit::Estimator::Ips, &bandits, &o).unwrap();
    let snips = bandit::estimate(&bandit::Estimator::Snips, &bandits, &o).unwrap();
    assert_eq!(pi.value, ips.value);
    assert_eq!(pi.standard_error, ips.standard_error);
    assert_eq!(snpi.value, snips.value);
    assert!((ips.value - 1.22375).abs() < 1e-12, "{}", ips.value);
    assert!((snips.value - 0.657047).abs() < 5e-7, "{}", snips.value);
}

/// obp's identity (tests/ope/test_cascade_dr.py): Cascade-DR with a zero
/// reward model is RIPS, here on the generated log's slates.
#[test]
fn cascade_dr_with_a_zero_model_is_rips() {
    let log = crate::generated::generate();
    let zero = [0.0; crate::generated::L_SLATE];
    let records: Vec<_> = log
        .slates
        .iter()
        .map(|s| slate::Record {
            model: Some(CascadeModel {
                logged: &zero,
                target: &zero,
            }),
            ..s.record()
        })
        .collect();
    let o = options(IntervalKind::Normal);
    let cdr = slate::estimate(&slate::Estimator::CascadeDr, &records, &o).unwrap();
    let rips = slate::estimate(&slate::Estimator::RewardInteractionIps, &records, &o).unwrap();
    assert_eq!(cdr.value, rips.value);
    assert_eq!(cdr.standard_error, rips.standard_error);
    assert_eq!(cdr.diagnostics, rips.diagnostics);
}

/// IPS-weighted RBP is rankeval's RBP when every rank is examined
/// (propensity 1) and the clicks are the relevant documents.
#[test]
fn ips_weighted_rbp_is_rbp_under_uniform_propensities() {
    for pattern in ["1 0 1", "0 0 0 1 1", "1 1 1 1", "0", "0 1 0 0 0 0 0 1"] {
        let grades: Vec<bool> = pattern.split(' ').map(|g| g == "1").collect();
        let clicks: Vec<Click> = grades
            .iter()
            .enumerate()
            .filter(|&(_, &g)| g)
            .map(|(r, _)| Click {
                target_rank: Some(r + 1),
                propensity: 1.0,
            })
            .collect();
        let shown: Vec<usize> = (1..=grades.len()).collect();
        let record = click::Record {
            clicks: &clicks,
            shown: &shown,
            target_len: grades.len(),
        };
        for p in [0.5, 0.8, 0.95] {
            let e = ClickIps {
                metric: RankWeight::Rbp { p },
                max_weight: None,
            };
            let ours = e.contribution(0, &record).unwrap().columns[0];
            let relevant = grades.iter().filter(|&&g| g).count();
            let q = testing::binary(pattern, relevant);
            let theirs = rbp(
                &q.view(),
                None,
                Persistence::new(p).unwrap(),
                RbpGain::Binary,
                1.0,
            );
            assert!(
                (ours - theirs).abs() <= 1e-15 * theirs.max(1.0),
                "{pattern} p={p}: {ours} vs {theirs}"
            );
            assert_eq!(e.contribution(0, &record).unwrap().support, 1.0);
        }
    }
}
