//! Every invalid input is an error naming the impression (and position),
//! never a panic or a silent drop.

use proptest::prelude::*;
use rankeval_ope::slate::Probabilities;
use rankeval_ope::{Floors, IntervalKind, OpeError, Options, bandit, slate};

fn rec(logging: f64, target: f64, reward: f64) -> bandit::Record {
    bandit::Record {
        reward,
        logging,
        target,
        model: None,
    }
}

#[test]
fn bad_bandit_inputs_name_the_impression() {
    let good = rec(0.5, 0.5, 1.0);
    for (bad, needle) in [
        (
            rec(0.0, 0.5, 1.0),
            "impression 1: logging propensity 0 is not in (0, 1]",
        ),
        (
            rec(1.5, 0.5, 1.0),
            "impression 1: logging propensity 1.5 is not in (0, 1]",
        ),
        (
            rec(f64::NAN, 0.5, 1.0),
            "impression 1: logging propensity NaN",
        ),
        (
            rec(0.5, -0.1, 1.0),
            "impression 1: target probability -0.1 is not in [0, 1]",
        ),
        (
            rec(0.5, 0.5, f64::INFINITY),
            "impression 1: reward inf is not finite",
        ),
    ] {
        let err = bandit::estimate(&bandit::Estimator::Ips, &[good, bad], &Options::default())
            .unwrap_err();
        assert_eq!(err.to_string().get(..needle.len()), Some(needle), "{err}");
    }
    let err = bandit::estimate(&bandit::Estimator::Dr, &[good], &Options::default()).unwrap_err();
    assert_eq!(
        err,
        OpeError::MissingRewardModel {
            index: 0,
            estimator: "dr"
        }
    );
    for e in [
        bandit::Estimator::ClippedIps { max_weight: 0.0 },
        bandit::Estimator::ClippedIps {
            max_weight: f64::NAN,
        },
        bandit::Estimator::SwitchDr { tau: -1.0 },
        bandit::Estimator::DrOs { lambda: f64::NAN },
    ] {
        assert!(
            matches!(e.validate(), Err(OpeError::Parameter { .. })),
            "{e:?}"
        );
    }
    let level = Options {
        level: 1.0,
        interval: IntervalKind::T,
        floors: Floors::NONE,
    };
    assert_eq!(
        bandit::estimate(&bandit::Estimator::Ips, &[good], &level).unwrap_err(),
        OpeError::Level(1.0)
    );
}

#[test]
fn bad_slate_inputs_name_the_impression_and_position() {
    let rewards = [1.0, 1.0];
    let short = [1.0];
    let p = [0.5, 0.0];
    let q = [0.5, 0.5];
    let r = slate::Record {
        rewards: &rewards,
        logging: Probabilities {
            marginal: Some(&p),
            ..Default::default()
        },
        target: Probabilities {
            marginal: Some(&q),
            ..Default::default()
        },
        model: None,
    };
    let err =
        slate::estimate(&slate::Estimator::IndependentIps, &[r], &Options::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "impression 0, position 2: logging propensity 0 is not in (0, 1]"
    );
    let r2 = slate::Record {
        logging: Probabilities {
            marginal: Some(&q),
            ..Default::default()
        },
        rewards: &short,
        ..r
    };
    let err = slate::estimate(
        &slate::Estimator::IndependentIps,
        &[r2],
        &Options::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "impression 0: rewards has 1 positions, expected 2"
    );
    let err = slate::estimate(
        &slate::Estimator::RewardInteractionIps,
        &[r2],
        &Options::default(),
    )
    .unwrap_err();
    assert!(matches!(err, OpeError::MissingPropensity { .. }), "{err}");
    let err = slate::estimate(&slate::Estimator::SlateIps, &[r2], &Options::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "impression 0: slate_ips needs the slate or cascade probabilities (logging propensity)"
    );
}

proptest! {
    /// Any numbers at all: a result or an error, never a panic.
    #[test]
    fn any_bandit_input_is_a_result_or_an_error(
        xs in proptest::collection::vec((any::<f64>(), any::<f64>(), any::<f64>(), any::<f64>(), any::<f64>()), 0..20),
    ) {
        let records: Vec<_> = xs.iter().map(|&(r, p0, p, ql, qt)| bandit::Record {
            reward: r, logging: p0, target: p, model: Some(bandit::Prediction { logged: ql, target: qt }),
        }).collect();
        for e in [bandit::Estimator::Ips, bandit::Estimator::Snips, bandit::Estimator::Sndr, bandit::Estimator::DrOs { lambda: 1.0 }] {
            let _ = bandit::estimate(&e, &records, &Options::default());
        }
    }
}
