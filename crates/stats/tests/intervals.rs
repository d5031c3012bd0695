//! The interval of one column's mean against scipy
//! (`tests/data/intervals.json`, written by `scripts/data/compare.py`),
//! its determinism and its errors.

use rankeval_stats::interval::{Bca, bca_from_distribution, bca_interval, t_interval};
use rankeval_stats::{CompareError, MeanIntervalMethod};
use serde_json::Value;

use crate::fixtures::{cases, floats, number};

/// `|got - want| <= tolerance`, printing both and the difference.
fn assert_close(what: &str, got: f64, want: f64, tolerance: f64) -> f64 {
    let diff = (got - want).abs();
    assert!(
        diff <= tolerance,
        "{what}: got {got:e}, scipy {want:e}, |diff| {diff:e} > {tolerance:e}"
    );
    diff
}

fn values(case: &Value) -> Vec<f64> {
    floats(&case["values_bits"])
}

/// `scipy.stats.t.interval(level, df=n-1, loc=mean, scale=sem)`: within
/// 1e-12 absolute for bounds of magnitude up to 1 (per-query metric values
/// are), 1e-12 relative beyond (the 2-value case at level 0.999 has
/// bounds near ±234).
#[test]
fn t_interval_matches_scipy_within_1e_12() {
    let all = cases("intervals.json");
    assert!(all.len() >= 9);
    let mut largest = 0.0f64;
    for case in &all {
        let name = case["name"].as_str().expect("name");
        let level = number(&case["level"]);
        let ours = t_interval(&values(case), level).expect("valid");
        assert_eq!(ours.level, level);
        for (side, got) in [("lower", ours.lower), ("upper", ours.upper)] {
            let want = number(&case["t"][side]);
            let diff = assert_close(
                &format!("{name} t {side}"),
                got,
                want,
                1e-12 * want.abs().max(1.0),
            );
            largest = largest.max(diff / want.abs().max(1.0));
        }
    }
    eprintln!("t interval: largest difference from scipy {largest:e} (scaled by max(1, |bound|))");
}

/// Fed scipy's own bootstrap distribution (1,000 resampled means), the BCa
/// interval is scipy's: the bias correction, the acceleration, the
/// adjusted quantiles and the bounds agree to rounding. Cases whose
/// distribution holds resampled means within 1e-9 of the observed mean but
/// not equal to it are skipped: those are ties in exact arithmetic that
/// rounding split, which scipy counts as below or above and this crate as
/// ties (one half each); the Monte Carlo test below covers them.
#[test]
fn bca_from_scipys_distribution_is_scipys_interval() {
    let mut checked = 0;
    let mut largest = 0.0f64;
    for case in cases("intervals.json") {
        let name = case["name"].as_str().expect("name");
        let exact = &case["bca_exact"];
        if exact["near_ties"].as_u64().expect("near_ties") > 0 {
            continue;
        }
        let level = number(&case["level"]);
        let distribution = floats(&exact["distribution_bits"]);
        let ours = bca_from_distribution(&values(&case), &distribution, level).expect("valid");
        assert_eq!(ours.resamples, distribution.len() as u64);
        assert_eq!(ours.seed, None);
        let what = |q: &str| format!("{name}: {q}");
        for (key, got, tolerance) in [
            ("z0", ours.bias_correction, 1e-14),
            ("acceleration", ours.acceleration, 1e-13),
            ("alpha_1", ours.lower_quantile, 1e-14),
            ("alpha_2", ours.upper_quantile, 1e-14),
        ] {
            assert_close(&what(key), got, number(&exact[key]), tolerance);
        }
        for (side, got) in [
            ("lower", ours.interval.lower),
            ("upper", ours.interval.upper),
        ] {
            let diff = assert_close(&what(side), got, number(&exact[side]), 1e-12);
            largest = largest.max(diff);
        }
        checked += 1;
    }
    assert!(checked >= 7, "{checked}");
    eprintln!("BCa from scipy's distribution: largest bound difference {largest:e}");
}

/// Monte Carlo error of one BCa bound from `B` resamples, for a bootstrap
/// distribution of the mean close to normal with sd `se` (the reasoning of
/// `reference::bootstrap_percentile_interval_is_within_resampling_error_of_scipy`,
/// plus the error of the estimated bias correction). The bound is the
/// `α'`-quantile of the resampled means, `α' = Φ(z0 + w / (1 - a w))`,
/// `w = z0 + z_α`:
///
/// * the quantile at a fixed `α'` has standard error
///   `sqrt(α' (1 - α') / B) / f`, `f = φ(z_α') / se` the density there;
/// * `z0 = Φ⁻¹(p)` is estimated from the same resamples, `p` a share with
///   standard error `sqrt(p (1 - p) / B)`, so `z0` has standard error
///   `sqrt(p (1 - p) / B) / φ(z0)`; `α'` moves by `φ(z_α') (1 + 1 / (1 -
///   a w)²)` times that, and the bound by that over `f`.
///
/// The two are added (a bound on the sd of their sum, whatever their
/// correlation).
fn bca_bound_error(alpha: f64, z0: f64, a: f64, z: f64, resamples: u64, se: f64) -> f64 {
    use statrs::distribution::{Continuous, ContinuousCDF, Normal};
    let normal = Normal::standard();
    let b = resamples as f64;
    let z_adjusted = normal.inverse_cdf(alpha);
    let quantile = (alpha * (1.0 - alpha) / b).sqrt() / normal.pdf(z_adjusted) * se;
    let p = normal.cdf(z0);
    let w = z0 + z;
    let bias =
        (1.0 + 1.0 / (1.0 - a * w).powi(2)) * se * (p * (1.0 - p) / b).sqrt() / normal.pdf(z0);
    quantile + bias
}

/// Our BCa interval (our draws, seed 42) against scipy's (numpy's draws),
/// both from 10,000 resamples: two independent estimates of the same
/// bounds. Each bound may differ by 5 standard errors of a difference of two
/// independent estimates, `5 sqrt(2) sd`, where `sd` is the larger of
/// [`bca_bound_error`] and the standard deviation of scipy's bound measured
/// over 40 seeds (stored with the fixture): the model assumes a smooth,
/// near-normal bootstrap distribution, while the means of 5 values, or of
/// eighths with many zeros, take few distinct values and a bound jumps
/// between them. The standard errors agree within the tolerance of the
/// percentile test's. Columns of more than 200 values are left out: the
/// 1,000-value case would cost 10 million draws (seconds in a debug build)
/// and shows nothing the 200-value cases do not; it is checked against
/// scipy's own distribution above.
#[test]
fn bca_interval_is_within_monte_carlo_error_of_scipy() {
    use statrs::distribution::{ContinuousCDF, Normal};
    let mut worst = 0.0f64;
    let mut largest_ratio = 0.0f64;
    let mut checked = 0;
    for case in cases("intervals.json") {
        let name = case["name"].as_str().expect("name");
        if values(&case).len() > 200 {
            continue;
        }
        checked += 1;
        let level = number(&case["level"]);
        let scipy = &case["bca"];
        let b = scipy["resamples"].as_u64().expect("resamples");
        let se = number(&scipy["standard_error"]);
        let ours = bca_interval(&values(&case), level, b, 42).expect("valid");
        assert_eq!((ours.resamples, ours.seed), (b, Some(42)));
        let z = Normal::standard().inverse_cdf((1.0 - level) / 2.0);
        let (z0, a) = (ours.bias_correction, ours.acceleration);
        for (side, alpha, z, got) in [
            ("lower", ours.lower_quantile, z, ours.interval.lower),
            ("upper", ours.upper_quantile, -z, ours.interval.upper),
        ] {
            let modelled = bca_bound_error(alpha, z0, a, z, b, se);
            let measured = number(&scipy[format!("{side}_sd").as_str()]);
            let sd = modelled.max(measured);
            let tolerance = 5.0 * 2f64.sqrt() * sd;
            let diff = assert_close(
                &format!("{name} BCa {side} (sd modelled {modelled:e}, measured {measured:e})"),
                got,
                number(&scipy[side]),
                tolerance,
            );
            worst = worst.max(diff);
            if sd > 0.0 {
                largest_ratio = largest_ratio.max(diff / (2f64.sqrt() * sd));
            }
        }
        assert_close(
            &format!("{name} standard error"),
            ours.standard_error,
            se,
            5.0 * 2f64.sqrt() * se / (2.0 * b as f64).sqrt(),
        );
    }
    assert!(checked >= 8, "{checked}");
    eprintln!(
        "BCa vs scipy: largest bound difference {worst:e}, {largest_ratio:.2} standard errors of a difference"
    );
}

/// The BCa interval is not the percentile interval: on a skewed column its
/// bounds move up (positive bias correction and acceleration), and with the
/// same draws it differs from the percentile bootstrap only by the quantiles
/// it reads.
#[test]
fn bca_reads_adjusted_quantiles_of_the_bootstrap_distribution() {
    let mut values = vec![0.0; 40];
    values.extend([0.05, 0.1, 0.1, 0.2, 0.5, 1.0, 1.0, 0.8, 0.3, 0.15]);
    let bca = bca_interval(&values, 0.95, 5_000, 3).expect("valid");
    assert!(bca.acceleration > 0.05, "{bca:?}");
    assert!(
        bca.lower_quantile > 0.025 && bca.upper_quantile > 0.975,
        "{bca:?}"
    );
    let percentile = rankeval_stats::bootstrap::bootstrap(&values, 0.95, 5_000, 3).expect("valid");
    // The same draws: the same bootstrap standard error, bit for bit.
    assert_eq!(bca.standard_error, percentile.standard_error);
    assert!(
        bca.interval.lower > percentile.interval.lower,
        "{bca:?} {percentile:?}"
    );
    assert!(
        bca.interval.upper > percentile.interval.upper,
        "{bca:?} {percentile:?}"
    );
    // A symmetric column: no acceleration, bounds symmetric about the mean
    // within Monte Carlo error, as the t interval's are.
    let symmetric = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
    let t = t_interval(&symmetric, 0.9).expect("valid");
    let b = bca_interval(&symmetric, 0.9, 20_000, 5).expect("valid");
    assert!(b.acceleration.abs() < 1e-15, "{b:?}");
    assert!(
        (b.interval.lower + b.interval.upper - 1.0).abs() < 0.01,
        "{b:?} {t:?}"
    );
}

/// Same bits for 1 and 2 threads (several chunks of resamples, one partial);
/// the seed changes the bits; the same seed gives the same bits.
#[test]
fn bca_is_the_same_bits_for_any_thread_count_and_moves_with_the_seed() {
    let values: Vec<f64> = (0..97)
        .map(|i| ((i * 37 % 101) as f64 / 101.0).powi(3))
        .collect();
    let run = |threads: usize, seed: u64| -> Bca {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool")
            .install(|| bca_interval(&values, 0.95, 2_345, seed).expect("valid"))
    };
    let bits = |b: &Bca| {
        [
            b.interval.lower.to_bits(),
            b.interval.upper.to_bits(),
            b.bias_correction.to_bits(),
            b.standard_error.to_bits(),
        ]
    };
    let one = run(1, 42);
    assert_eq!(bits(&one), bits(&run(2, 42)));
    assert_eq!(bits(&one), bits(&run(1, 42)));
    let other = run(2, 43);
    assert_ne!(bits(&one), bits(&other));
    assert_ne!(one.interval, other.interval);
}

#[test]
fn constant_columns_have_the_interval_mean_mean() {
    let values = [0.3; 7];
    let mean = values.iter().sum::<f64>() / 7.0;
    let t = t_interval(&values, 0.95).expect("valid");
    assert_eq!((t.lower, t.upper), (mean, mean));
    let b = bca_interval(&values, 0.95, 1_000, 1).expect("valid");
    assert_eq!((b.interval.lower, b.interval.upper), (mean, mean));
    assert_eq!(
        (b.bias_correction, b.acceleration, b.standard_error),
        (0.0, 0.0, 0.0)
    );
    let given = bca_from_distribution(&values, &[0.3, 0.3], 0.95).expect("valid");
    assert_eq!(given.interval, b.interval);
    assert_eq!(given.seed, None);
    // Zeros: a run that found nothing anywhere.
    let zeros = [0.0; 50];
    assert_eq!(t_interval(&zeros, 0.9).expect("valid").upper, 0.0);
    assert_eq!(
        bca_interval(&zeros, 0.9, 10, 1)
            .expect("valid")
            .interval
            .lower,
        0.0
    );
}

#[test]
fn invalid_inputs_are_errors() {
    assert_eq!(
        t_interval(&[0.5], 0.95),
        Err(CompareError::TooFewValues { values: 1 })
    );
    assert_eq!(
        bca_interval(&[], 0.95, 100, 1),
        Err(CompareError::TooFewValues { values: 0 })
    );
    assert!(matches!(
        t_interval(&[0.5, f64::NAN, 0.1], 0.95),
        Err(CompareError::NotFiniteValue { index: 1, .. })
    ));
    assert!(matches!(
        bca_interval(&[0.5, 0.2, f64::INFINITY], 0.95, 100, 1),
        Err(CompareError::NotFiniteValue { index: 2, .. })
    ));
    for level in [0.0, 1.0, -0.5, 95.0, f64::NAN] {
        assert!(matches!(
            t_interval(&[0.1, 0.2], level),
            Err(CompareError::InvalidLevel { .. })
        ));
        assert!(matches!(
            bca_interval(&[0.1, 0.2], level, 100, 1),
            Err(CompareError::InvalidLevel { .. })
        ));
    }
    assert_eq!(
        bca_interval(&[0.1, 0.2], 0.95, 0, 1),
        Err(CompareError::NoResamples)
    );
    assert_eq!(
        bca_from_distribution(&[0.1, 0.2], &[], 0.95),
        Err(CompareError::NoResamples)
    );
    assert!(matches!(
        bca_from_distribution(&[0.1, 0.2], &[0.15, f64::NAN], 0.95),
        Err(CompareError::NotFiniteResample { index: 1, .. })
    ));
    // Every resampled mean above the observed one: z0 = -inf, as scipy's
    // NaN; one below, one equal: defined.
    assert_eq!(
        bca_from_distribution(&[0.0, 1.0], &[0.75, 1.0], 0.95),
        Err(CompareError::BcaUndefined {
            below: 0,
            resamples: 2
        })
    );
    assert!(bca_from_distribution(&[0.0, 1.0], &[0.25, 0.5], 0.95).is_ok());
    for error in [
        CompareError::TooFewValues { values: 1 },
        CompareError::BcaUndefined {
            below: 3,
            resamples: 3,
        },
    ] {
        assert!(!error.to_string().is_empty());
    }
}

#[test]
fn method_names_round_trip() {
    for (method, name) in [
        (MeanIntervalMethod::T, "t"),
        (MeanIntervalMethod::Bca, "bca"),
    ] {
        assert_eq!(method.name(), name);
        let json = serde_json::to_string(&method).expect("serializable");
        assert_eq!(json, format!("\"{name}\""));
        let back: MeanIntervalMethod = serde_json::from_str(&json).expect("parses");
        assert_eq!(back, method);
    }
    assert_eq!(
        serde_json::from_str::<MeanIntervalMethod>("\"BCa\"").expect("alias"),
        MeanIntervalMethod::Bca
    );
    assert_eq!(MeanIntervalMethod::default(), MeanIntervalMethod::T);
    assert!(MeanIntervalMethod::Bca.is_resampling() && !MeanIntervalMethod::T.is_resampling());
}
