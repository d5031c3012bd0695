//! Agreement between two judge sets (`rankeval_stats::agreement`): against
//! scikit-learn's `cohen_kappa_score` / `confusion_matrix` and scipy's
//! `kendalltau` (`tests/data/agreement.json`, written by
//! `scripts/data/agreement.py`), against hand-computed examples, and its
//! errors.

use rankeval_stats::agreement::{
    KappaWeights, KendallMethod, MAX_KAPPA_LABELS, cohen_kappa, kendall_tau, mean_difference,
    top_k_agreement,
};
use rankeval_stats::{CompareError, JudgeSet};
use serde_json::Value;

use crate::fixtures::{file, floats, number};

const WEIGHTS: [(&str, KappaWeights); 3] = [
    ("none", KappaWeights::None),
    ("linear", KappaWeights::Linear),
    ("quadratic", KappaWeights::Quadratic),
];

fn section(name: &str) -> Vec<Value> {
    file("agreement.json")[name]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("agreement.json has no `{name}`"))
}

fn bits(value: &Value) -> f64 {
    f64::from_bits(
        value
            .as_u64()
            .unwrap_or_else(|| panic!("not bits: {value}")),
    )
}

/// Grades written as plain JSON numbers: multiples of 0.5, whose decimal
/// forms parse exactly.
fn grades(value: &Value) -> Vec<f64> {
    let values: Vec<f64> = value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
        .iter()
        .map(number)
        .collect();
    assert!(values.iter().all(|v| (v * 2.0).fract() == 0.0));
    values
}

/// Equal within `tolerance`, or both NaN.
fn assert_close(what: &str, got: f64, want: f64, tolerance: f64) {
    if want.is_nan() {
        assert!(got.is_nan(), "{what}: got {got:e}, reference NaN");
    } else {
        assert!(
            (got - want).abs() <= tolerance,
            "{what}: got {got:e}, reference {want:e}, |diff| {:e} > {tolerance:e}",
            (got - want).abs()
        );
    }
}

// Kappa is within 1e-12 of scikit-learn's, not bit-equal: here the weighted
// disagreement sums are exact integers and the kappa is rounded once, while
// scikit-learn divides the expected counts by n and sums them in floating
// point (a few ulps).
#[test]
fn kappa_matches_scikit_learn_within_1e_12() {
    let all = section("kappa");
    assert!(all.len() >= 15);
    let (mut decimal, mut nan, mut largest) = (false, false, 0);
    for case in &all {
        let name = case["name"].as_str().unwrap_or("?");
        let (a, b) = (grades(&case["a"]), grades(&case["b"]));
        let labels = grades(&case["labels"]);
        let confusion: Vec<Vec<usize>> = serde_json::from_value(case["confusion"].clone()).unwrap();
        decimal |= case["sklearn_input"] == "positions";
        largest = largest.max(a.len());
        for (weighting, weights) in WEIGHTS {
            let k = cohen_kappa(&a, &b, weights).expect("valid case");
            let want = bits(&case[format!("kappa_{weighting}_bits")]);
            nan |= want.is_nan();
            assert_close(&format!("{name}, {weighting}"), k.kappa, want, 1e-12);
            assert_eq!(k.labels, labels, "{name}");
            assert_eq!(k.label_count(), labels.len(), "{name}");
            assert_eq!(k.confusion, confusion, "{name}");
            assert_eq!(k.n, a.len());
            assert_eq!(k.weights, weights);
            if !k.kappa.is_nan() {
                // kappa = (p_o - p_e) / (1 - p_e).
                let from_agreement =
                    (k.observed_agreement - k.expected_agreement) / (1.0 - k.expected_agreement);
                assert_close(
                    &format!("{name}, {weighting}, p_o p_e"),
                    from_agreement,
                    k.kappa,
                    1e-12,
                );
            }
            let per_label = floats(&case["per_label_bits"]);
            assert_eq!(k.per_label.len(), per_label.len(), "{name}");
            for (got, want) in k.per_label.iter().zip(&per_label) {
                assert_close(
                    &format!("{name}, label {}", got.label),
                    got.kappa,
                    *want,
                    1e-12,
                );
            }
        }
    }
    assert!(decimal, "no case of decimal grades");
    assert!(nan, "no degenerate (NaN) case");
    assert!(largest >= 2000, "no large case");
}

fn relative_close(what: &str, got: f64, want: f64, tolerance: f64) {
    if want.is_nan() {
        assert!(got.is_nan(), "{what}: got {got:e}, scipy NaN");
    } else {
        assert!(
            (got - want).abs() <= tolerance * want.abs(),
            "{what}: got {got:e}, scipy {want:e}, relative diff {:e} > {tolerance:e}",
            (got - want).abs() / want.abs()
        );
    }
}

#[test]
fn kendall_tau_matches_scipy() {
    let all = section("kendall");
    let mut methods = std::collections::BTreeSet::new();
    for case in &all {
        let name = case["name"].as_str().unwrap_or("?");
        let (x, y) = (floats(&case["x_bits"]), floats(&case["y_bits"]));
        let t = kendall_tau(&x, &y).expect("valid case");
        methods.insert(format!("{:?}", t.method));
        assert_close(
            &format!("{name}: tau"),
            t.tau,
            bits(&case["statistic_bits"]),
            1e-12,
        );
        relative_close(
            &format!("{name}: p ({:?})", t.method),
            t.p_value,
            bits(&case["p_value_bits"]),
            1e-10,
        );
        let n = x.len() as u64;
        assert_eq!(
            t.concordant + t.discordant + t.ties_x + t.ties_y - t.ties_both,
            n * (n - 1) / 2,
            "{name}"
        );
    }
    assert_eq!(
        methods.into_iter().collect::<Vec<_>>(),
        ["Asymptotic", "Exact", "Undefined"],
        "every method of scipy's `auto` is covered"
    );
}

#[test]
fn mean_difference_is_fmean_of_the_differences() {
    for case in section("mean_difference") {
        let (a, b) = (floats(&case["a_bits"]), floats(&case["b_bits"]));
        let got = mean_difference(&a, &b).expect("valid");
        assert_eq!(got.to_bits(), bits(&case["mean_bits"]).to_bits());
    }
}

// --- Hand-computed examples -------------------------------------------------

/// Items with the given (first, second) grades, `count` times each.
fn table(cells: &[(f64, f64, usize)]) -> (Vec<f64>, Vec<f64>) {
    let mut a = Vec::new();
    let mut b = Vec::new();
    for (x, y, count) in cells {
        a.extend(std::iter::repeat_n(*x, *count));
        b.extend(std::iter::repeat_n(*y, *count));
    }
    (a, b)
}

#[test]
fn kappa_of_a_two_by_two_table() {
    // 50 items: both yes 20, first only 5, second only 10, both no 15.
    // p_o = 35/50 = 0.7; p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5; kappa = 0.4.
    let (a, b) = table(&[
        (1.0, 1.0, 20),
        (1.0, 0.0, 5),
        (0.0, 1.0, 10),
        (0.0, 0.0, 15),
    ]);
    for (_, weights) in WEIGHTS {
        let k = cohen_kappa(&a, &b, weights).unwrap();
        assert_eq!(k.labels, [0.0, 1.0]);
        assert_eq!(k.confusion, [[15, 10], [5, 20]]);
        assert_eq!(k.observed_agreement, 0.7);
        assert_eq!(k.expected_agreement, 0.5);
        assert!((k.kappa - 0.4).abs() < 1e-15, "{}", k.kappa);
        // Two labels: each one against the rest is the same problem.
        for label in &k.per_label {
            assert!((label.kappa - 0.4).abs() < 1e-15);
        }
        assert_eq!(
            (
                k.per_label[1].first,
                k.per_label[1].second,
                k.per_label[1].both
            ),
            (25, 30, 20)
        );
    }
}

#[test]
fn kappa_weightings_of_a_three_label_table() {
    // Grades 0, 1, 2; rows (first) [2, 2, 2], columns (second) [1, 4, 1];
    // disagreements (0, 1) and (2, 1). Expected weighted disagreement is
    // sum_ij w(i, j) r_i c_j / 6:
    //   none:      12 / 3 = 4, observed 2       -> kappa 1 - 2/4   = 1/2
    //   linear:    14 / 3,     observed 1 + 1   -> kappa 1 - 6/14  = 4/7
    //   quadratic: 18 / 3 = 6, observed 1 + 1   -> kappa 1 - 2/6   = 2/3
    let a = [0.0, 1.0, 2.0, 0.0, 1.0, 2.0];
    let b = [0.0, 1.0, 2.0, 1.0, 1.0, 1.0];
    let none = cohen_kappa(&a, &b, KappaWeights::None).unwrap();
    let linear = cohen_kappa(&a, &b, KappaWeights::Linear).unwrap();
    let quadratic = cohen_kappa(&a, &b, KappaWeights::Quadratic).unwrap();
    assert_eq!(none.confusion, [[1, 1, 0], [0, 2, 0], [0, 1, 1]]);
    assert!((none.kappa - 0.5).abs() < 1e-15);
    assert!((linear.kappa - 4.0 / 7.0).abs() < 1e-15);
    assert!((quadratic.kappa - 2.0 / 3.0).abs() < 1e-15);
    // p_o and p_e: unweighted 4/6 and 12/36; linear 5/6 and 11/18.
    assert!((none.observed_agreement - 4.0 / 6.0).abs() < 1e-15);
    assert!((none.expected_agreement - 1.0 / 3.0).abs() < 1e-15);
    assert!((linear.observed_agreement - 5.0 / 6.0).abs() < 1e-15);
    assert!((linear.expected_agreement - 11.0 / 18.0).abs() < 1e-15);
    // Label 1 against the rest: first [F T F F T F], second [F T F T T T]:
    // p_o = 4/6, p_e = (2/6)(4/6) + (4/6)(2/6) = 16/36, kappa = 0.4.
    let one = none.per_label[1];
    assert_eq!((one.label, one.first, one.second, one.both), (1.0, 2, 4, 2));
    assert!((one.kappa - 0.4).abs() < 1e-15);
    // Per-label kappas do not depend on the weighting.
    assert_eq!(none.per_label, quadratic.per_label);
}

#[test]
fn kappa_weights_follow_label_positions_not_values() {
    // Grades 0, 1, 10 are positions 0, 1, 2, as grades 0, 1, 2 are.
    let a = [0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 2.0];
    let b = [0.0, 2.0, 2.0, 1.0, 1.0, 0.0, 1.0];
    let spread = |v: &[f64]| {
        v.iter()
            .map(|x| if *x == 2.0 { 10.0 } else { *x })
            .collect::<Vec<_>>()
    };
    for (_, weights) in WEIGHTS {
        let even = cohen_kappa(&a, &b, weights).unwrap();
        let uneven = cohen_kappa(&spread(&a), &spread(&b), weights).unwrap();
        assert_eq!(even.kappa, uneven.kappa);
        assert_eq!(uneven.labels, [0.0, 1.0, 10.0]);
    }
}

#[test]
fn kappa_degenerate_cases() {
    // One label: chance agrees perfectly, kappa is 0 / 0 (NaN, as sklearn).
    for n in [1, 5] {
        let k = cohen_kappa(&vec![2.0; n], &vec![2.0; n], KappaWeights::Linear).unwrap();
        assert!(k.kappa.is_nan());
        assert_eq!((k.observed_agreement, k.expected_agreement), (1.0, 1.0));
        assert_eq!(k.confusion, [[n]]);
        assert!(k.per_label[0].kappa.is_nan());
    }
    // Two constant columns that differ: no agreement beyond chance, 0.
    let k = cohen_kappa(&[1.0; 3], &[3.0; 3], KappaWeights::None).unwrap();
    assert_eq!(k.kappa, 0.0);
    // Perfect agreement on several labels: 1; -0.0 is the label 0.0.
    let k = cohen_kappa(&[-0.0, 1.0, 2.0], &[0.0, 1.0, 2.0], KappaWeights::Quadratic).unwrap();
    assert_eq!(k.kappa, 1.0);
    assert_eq!(k.labels.len(), 3);
    assert!(k.labels[0].is_sign_positive());
}

#[test]
fn kendall_tau_of_orders() {
    let x = [0.1, 0.2, 0.3, 0.4, 0.5];
    let reversed = [5.0, 4.0, 3.0, 2.0, 1.0];
    let t = kendall_tau(&x, &reversed).unwrap();
    // -10 / sqrt(10) / sqrt(10): -0.9999999999999999, scipy's bits too.
    assert!((t.tau + 1.0).abs() < 1e-15, "{}", t.tau);
    assert_eq!((t.concordant, t.discordant), (0, 10));
    assert_eq!(t.method, KendallMethod::Exact);
    // 2 of the 5! orders are as extreme as the reversed one.
    assert!((t.p_value - 2.0 / 120.0).abs() < 1e-16);
    let t = kendall_tau(&x, &x).unwrap();
    assert!((t.tau - 1.0).abs() < 1e-15, "{}", t.tau);
    // Ties: pairs (0, 1) tied in y only, (0, 2) and (1, 2) concordant:
    // tau_b = 2 / sqrt(3 * 2).
    let t = kendall_tau(&[1.0, 2.0, 3.0], &[1.0, 1.0, 2.0]).unwrap();
    assert_eq!(
        (t.concordant, t.discordant, t.ties_x, t.ties_y),
        (2, 0, 0, 1)
    );
    assert!((t.tau - 2.0 / 6f64.sqrt()).abs() < 1e-15);
    assert_eq!(t.method, KendallMethod::Asymptotic);
    // A constant column ties every pair: undefined, as scipy's NaN.
    for (x, y) in [
        (&[1.0, 1.0, 1.0][..], &[1.0, 2.0, 3.0][..]),
        (&[1.0], &[2.0]),
    ] {
        let t = kendall_tau(x, y).unwrap();
        assert_eq!(t.method, KendallMethod::Undefined);
        assert!(t.tau.is_nan() && t.p_value.is_nan());
    }
}

#[test]
fn kendall_tau_counts_pairs_as_a_quadratic_count_does() {
    // 3000 items with many ties: the merge-sort count against all pairs.
    let mut state = 7u64;
    let mut draw = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) % 40) as f64 / 4.0
    };
    let x: Vec<f64> = (0..3000).map(|_| draw()).collect();
    let y: Vec<f64> = x.iter().map(|v| (v + draw()).floor()).collect();
    let (mut p, mut q, mut tx, mut ty, mut both) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            let (dx, dy) = (x[i] - x[j], y[i] - y[j]);
            tx += u64::from(dx == 0.0);
            ty += u64::from(dy == 0.0);
            both += u64::from(dx == 0.0 && dy == 0.0);
            p += u64::from(dx * dy > 0.0);
            q += u64::from(dx * dy < 0.0);
        }
    }
    let t = kendall_tau(&x, &y).unwrap();
    assert_eq!(
        (t.concordant, t.discordant, t.ties_x, t.ties_y, t.ties_both),
        (p, q, tx, ty, both)
    );
    let tau_b = (p as f64 - q as f64)
        / (((p + q + tx - both) as f64) * ((p + q + ty - both) as f64)).sqrt();
    assert!((t.tau - tau_b).abs() < 1e-12);
    assert_eq!(t.method, KendallMethod::Asymptotic);
}

#[test]
fn top_k_agreement_examples() {
    let a = [0.50, 0.40, 0.30, 0.20];
    let b = [0.45, 0.20, 0.35, 0.40];
    assert_eq!(top_k_agreement(&a, &b, 1).unwrap(), 1.0); // {0} and {0}
    assert_eq!(top_k_agreement(&a, &b, 2).unwrap(), 0.5); // {0, 1} and {0, 3}
    assert_eq!(top_k_agreement(&a, &b, 3).unwrap(), 2.0 / 3.0); // {0, 1, 2}, {0, 3, 2}
    assert_eq!(top_k_agreement(&a, &b, 4).unwrap(), 1.0);
    assert_eq!(top_k_agreement(&a, &[0.0, 0.1, 0.2, 0.3], 2).unwrap(), 0.0);
}

#[test]
fn top_k_ties_at_the_boundary_go_to_the_lower_index() {
    // Systems 0 and 2 tie for second place in `a`: system 0 is in.
    let a = [0.3, 0.5, 0.3, 0.1];
    assert_eq!(top_k_agreement(&a, &[0.2, 0.5, 0.0, 0.3], 2).unwrap(), 0.5); // {1, 0}, {1, 3}
    assert_eq!(top_k_agreement(&a, &[0.4, 0.5, 0.0, 0.0], 2).unwrap(), 1.0); // {1, 0}, {1, 0}
    assert_eq!(top_k_agreement(&a, &[0.0, 0.5, 0.4, 0.0], 2).unwrap(), 0.5); // {1, 0}, {1, 2}
    // All tied: the first k systems, in both.
    assert_eq!(top_k_agreement(&[1.0; 5], &[2.0; 5], 3).unwrap(), 1.0);
    // -0.0 and 0.0 are equal scores: the index decides.
    assert_eq!(top_k_agreement(&[-0.0, 0.0], &[0.0, -0.0], 1).unwrap(), 1.0);
}

// --- Errors ------------------------------------------------------------------

#[test]
fn invalid_inputs_are_errors() {
    let kappa = |a: &[f64], b: &[f64]| cohen_kappa(a, b, KappaWeights::None).map(|_| ());
    let tau = |a: &[f64], b: &[f64]| kendall_tau(a, b).map(|_| ());
    let top = |a: &[f64], b: &[f64]| top_k_agreement(a, b, 1).map(|_| ());
    let mean = |a: &[f64], b: &[f64]| mean_difference(a, b).map(|_| ());
    type Statistic = dyn Fn(&[f64], &[f64]) -> Result<(), CompareError>;
    let all: [&Statistic; 4] = [&kappa, &tau, &top, &mean];
    for statistic in all {
        assert_eq!(statistic(&[], &[]), Err(CompareError::NoItems));
        assert_eq!(
            statistic(&[1.0, 2.0], &[1.0]),
            Err(CompareError::AgreementLengths {
                first: 2,
                second: 1
            })
        );
        assert_eq!(
            statistic(&[], &[1.0]),
            Err(CompareError::AgreementLengths {
                first: 0,
                second: 1
            })
        );
        match statistic(&[1.0, 2.0, 3.0], &[1.0, 2.0, f64::NAN]) {
            Err(CompareError::NotFiniteJudgement {
                set: JudgeSet::Second,
                index: 2,
                value,
            }) => {
                assert!(value.is_nan());
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            statistic(&[f64::INFINITY, 1.0], &[1.0, 2.0]),
            Err(CompareError::NotFiniteJudgement {
                set: JudgeSet::First,
                index: 0,
                value: f64::INFINITY
            })
        );
    }
    let message = kendall_tau(&[1.0], &[f64::NAN]).unwrap_err().to_string();
    assert!(message.contains("second column's value #0"), "{message}");
}

#[test]
fn top_k_needs_k_between_one_and_the_number_of_systems() {
    for k in [0, 4] {
        assert_eq!(
            top_k_agreement(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0], k),
            Err(CompareError::InvalidTopK { k, systems: 3 })
        );
    }
}

#[test]
fn kappa_refuses_continuous_scores() {
    let a: Vec<f64> = (0..MAX_KAPPA_LABELS + 1).map(|i| i as f64 / 7.0).collect();
    assert_eq!(
        cohen_kappa(&a, &a, KappaWeights::None),
        Err(CompareError::TooManyLabels {
            labels: MAX_KAPPA_LABELS + 1,
            max: MAX_KAPPA_LABELS
        })
    );
    let b: Vec<f64> = (0..MAX_KAPPA_LABELS).map(|i| i as f64).collect();
    assert!(cohen_kappa(&b, &b, KappaWeights::Quadratic).is_ok());
}
