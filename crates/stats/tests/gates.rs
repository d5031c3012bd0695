//! Each gate rule passing and failing, with the deciding number.

use rankeval_stats::{
    CompareError, Correction, Gate, Margin, Options, Quantity, Relation, compare, correct_family,
};

fn comparison(shift: f64) -> rankeval_stats::Comparison {
    let baseline: Vec<f64> = (0..40).map(|i| 0.3 + 0.01 * f64::from(i % 7)).collect();
    let candidate: Vec<f64> = baseline
        .iter()
        .enumerate()
        .map(|(i, b)| b + shift + 0.02 * (f64::from(i as u32 % 5) - 2.0))
        .collect();
    compare(&baseline, &candidate, &Options::default()).expect("valid")
}

#[test]
fn at_least_compares_the_mean_with_the_floor() {
    let gate = Gate::AtLeast { floor: 0.5 };
    let pass = gate.evaluate(0.5, None).expect("valid");
    assert!(pass.passed);
    assert_eq!(
        (pass.quantity, pass.value, pass.relation, pass.threshold),
        (Quantity::Mean, 0.5, Relation::AtLeast, 0.5)
    );
    assert!(!gate.evaluate(0.4999, None).expect("valid").passed);
}

#[test]
fn non_inferior_compares_the_lower_bound_with_minus_the_margin() {
    let c = comparison(-0.005);
    let lower = c.interval.lower;
    assert!(lower < 0.0 && lower > -0.05, "{lower}");
    let loose = Gate::NonInferior {
        margin: Margin::Absolute(0.05),
    }
    .evaluate(0.0, Some(&c))
    .expect("valid");
    assert!(loose.passed);
    assert_eq!(
        (loose.quantity, loose.value, loose.threshold),
        (Quantity::LowerBound, lower, -0.05)
    );
    let tight = Gate::NonInferior {
        margin: Margin::Absolute(-lower),
    }
    .evaluate(0.0, Some(&c))
    .expect("valid");
    assert!(!tight.passed, "the bound must be strictly above -margin");
    // Relative: 2 % of the baseline's mean.
    let relative = Gate::NonInferior {
        margin: Margin::Relative(0.02),
    }
    .evaluate(0.0, Some(&c))
    .expect("valid");
    assert_eq!(relative.threshold, -0.02 * c.summary.baseline_mean);
    assert_eq!(relative.passed, lower > -0.02 * c.summary.baseline_mean);
    let generous = Gate::NonInferior {
        margin: Margin::Relative(0.5),
    }
    .evaluate(0.0, Some(&c))
    .expect("valid");
    assert!(generous.passed);
}

#[test]
fn superior_needs_a_small_corrected_p_and_a_positive_difference() {
    let mut family = vec![comparison(0.03), comparison(0.0005), comparison(-0.03)];
    correct_family(&mut family, Correction::Holm).expect("valid");
    let gate = Gate::Superior { alpha: 0.05 };
    let better = gate.evaluate(0.0, Some(&family[0])).expect("valid");
    assert!(better.passed);
    assert_eq!(better.quantity, Quantity::CorrectedPValue);
    assert_eq!(Some(better.value), family[0].corrected_p_value);
    let unclear = gate.evaluate(0.0, Some(&family[1])).expect("valid");
    assert!(
        !unclear.passed && unclear.quantity == Quantity::CorrectedPValue && unclear.value >= 0.05
    );
    // Significant, but worse: the difference decides.
    assert!(family[2].corrected_p_value.expect("corrected") < 0.05);
    let worse = gate.evaluate(0.0, Some(&family[2])).expect("valid");
    assert!(!worse.passed);
    assert_eq!(
        (worse.quantity, worse.threshold),
        (Quantity::Difference, 0.0)
    );
}

#[test]
fn superior_uses_the_corrected_p_value_not_the_raw_one() {
    let mut family: Vec<_> = (0..10).map(|_| comparison(0.004)).collect();
    let raw = family[0].p_value;
    correct_family(&mut family, Correction::Bonferroni).expect("valid");
    let alpha = (raw * 2.0).min(0.5);
    assert!(raw < alpha && family[0].corrected_p_value.expect("corrected") >= alpha);
    assert!(
        !Gate::Superior { alpha }
            .evaluate(0.0, Some(&family[0]))
            .expect("valid")
            .passed
    );
}

#[test]
fn rules_with_a_baseline_refuse_to_run_without_one() {
    for gate in [
        Gate::NonInferior {
            margin: Margin::Absolute(0.01),
        },
        Gate::Superior { alpha: 0.05 },
    ] {
        assert!(gate.needs_baseline());
        assert!(matches!(
            gate.evaluate(0.5, None),
            Err(CompareError::InvalidGate { .. })
        ));
    }
    assert!(!Gate::AtLeast { floor: 0.0 }.needs_baseline());
}

#[test]
fn invalid_parameters_are_errors() {
    for gate in [
        Gate::AtLeast { floor: f64::NAN },
        Gate::NonInferior {
            margin: Margin::Absolute(-0.1),
        },
        Gate::NonInferior {
            margin: Margin::Relative(f64::INFINITY),
        },
        Gate::Superior { alpha: 0.0 },
        Gate::Superior { alpha: 1.5 },
    ] {
        let error = gate.validate().expect_err("invalid");
        assert!(
            error
                .to_string()
                .starts_with(&format!("gate `{}`", gate.name())),
            "{error}"
        );
    }
}

#[test]
fn gates_deserialize_from_tagged_tables() {
    let gate: Gate =
        serde_json::from_str(r#"{"rule": "non_inferior", "margin": {"relative": 0.02}}"#)
            .expect("valid");
    assert_eq!(
        gate,
        Gate::NonInferior {
            margin: Margin::Relative(0.02)
        }
    );
    let outcome = Gate::AtLeast { floor: 0.3 }
        .evaluate(0.25, None)
        .expect("valid");
    let json = serde_json::to_value(outcome).expect("serializable");
    assert_eq!(json["relation"], ">=");
    assert_eq!(json["quantity"], "mean");
    assert_eq!(json["passed"], false);
}

#[test]
fn gates_on_any_estimate_and_its_paired_difference() {
    use rankeval_stats::{Gate, Margin, Quantity, Versus};
    let versus = Versus {
        baseline: 0.5,
        difference: -0.01,
        lower: -0.03,
        p_value: 0.2,
    };
    let at_least = Gate::AtLeast { floor: 0.4 };
    assert!(at_least.evaluate_estimate(0.49, None).unwrap().passed);
    assert!(!at_least.evaluate_estimate(0.39, None).unwrap().passed);
    let absolute = Gate::NonInferior {
        margin: Margin::Absolute(0.02),
    };
    let o = absolute.evaluate_estimate(0.49, Some(&versus)).unwrap();
    assert_eq!(
        (o.passed, o.quantity, o.threshold),
        (false, Quantity::LowerBound, -0.02)
    );
    // 10% of the baseline's 0.5.
    let relative = Gate::NonInferior {
        margin: Margin::Relative(0.1),
    };
    assert!(
        relative
            .evaluate_estimate(0.49, Some(&versus))
            .unwrap()
            .passed
    );
    let superior = Gate::Superior { alpha: 0.05 };
    let o = superior.evaluate_estimate(0.49, Some(&versus)).unwrap();
    assert_eq!((o.passed, o.quantity), (false, Quantity::Difference));
    let better = Versus {
        difference: 0.02,
        p_value: 0.01,
        ..versus
    };
    assert!(
        superior
            .evaluate_estimate(0.52, Some(&better))
            .unwrap()
            .passed
    );
    assert!(superior.evaluate_estimate(0.52, None).is_err());
}
