//! Results compared with the reference tools' values (see
//! `scripts/data/compare.py`).

use rankeval_stats::bootstrap::{Bootstrap, bootstrap};
use rankeval_stats::double_or_nothing::double_or_nothing_columns;
use rankeval_stats::paired::differences;
use rankeval_stats::sign_flip::{Resampling, sign_flip};
use rankeval_stats::wilcoxon::wilcoxon;
use rankeval_stats::{Correction, Options, Test, compare, correct, randomized_tukey_hsd};

use crate::fixtures::{cases, floats, number, pair};

fn assert_close(what: &str, got: f64, want: f64, tolerance: f64) {
    assert!(
        (got - want).abs() <= tolerance,
        "{what}: got {got:e}, scipy {want:e}, |diff| {:e} > {tolerance:e}",
        (got - want).abs()
    );
}

#[test]
fn ttest_matches_scipy_ttest_rel_within_1e_12() {
    let all = cases("ttest.json");
    assert!(all.len() >= 10);
    for (i, case) in all.iter().enumerate() {
        let (baseline, candidate) = pair(case);
        let options = Options {
            level: number(&case["level"]),
            ..Options::default()
        };
        let c = compare(&baseline, &candidate, &options).expect("valid case");
        let p = number(&case["p_value"]);
        assert_close(&format!("case {i} p"), c.p_value, p, 1e-12);
        // Tail p-values: also relatively close.
        assert!(
            (c.p_value - p).abs() <= 1e-9 * p.max(1e-300),
            "case {i}: p {} vs {p}",
            c.p_value
        );
        assert_close(
            &format!("case {i} lower"),
            c.interval.lower,
            number(&case["lower"]),
            1e-12,
        );
        assert_close(
            &format!("case {i} upper"),
            c.interval.upper,
            number(&case["upper"]),
            1e-12,
        );
        let t = rankeval_stats::ttest::paired_t(&differences(&baseline, &candidate), 0.95)
            .expect("valid");
        assert_close(
            &format!("case {i} t"),
            t.t,
            number(&case["statistic"]),
            1e-10,
        );
        assert_eq!(t.df, number(&case["df"]));
    }
}

#[test]
fn wilcoxon_matches_scipy_defaults() {
    let all = cases("wilcoxon.json");
    let mut methods = std::collections::BTreeSet::new();
    for (i, case) in all.iter().enumerate() {
        let (baseline, candidate) = pair(case);
        let w = wilcoxon(&differences(&baseline, &candidate)).expect("valid");
        methods.insert(format!("{:?}", w.method));
        assert_eq!(
            w.statistic,
            number(&case["statistic"]),
            "case {i} statistic"
        );
        assert_close(
            &format!("case {i} p ({:?})", w.method),
            w.p_value,
            number(&case["p_value"]),
            1e-12,
        );
    }
    // The fixtures exercise every branch of scipy's method="auto".
    assert_eq!(methods.len(), 3, "{methods:?}");
}

/// The percentile interval of two independent bootstraps of the same data
/// differ by resampling error only. The q-quantile of B resampled means has
/// standard error sqrt(q (1 - q) / B) / f(x_q), and the bootstrap
/// distribution of a mean is close to normal with sd `se`, so
/// f(x_q) = phi(z_q) / se. The difference of two independent estimates has
/// sqrt(2) times that error; we allow 5 of those standard errors.
#[test]
fn bootstrap_percentile_interval_is_within_resampling_error_of_scipy() {
    for (i, case) in cases("bootstrap.json").iter().enumerate() {
        let (baseline, candidate) = pair(case);
        let level = number(&case["level"]);
        let b = case["resamples"].as_u64().expect("resamples");
        let ours = bootstrap(&differences(&baseline, &candidate), level, b, 42).expect("valid");
        let se = number(&case["standard_error"]);
        let q = (1.0 - level) / 2.0;
        let z = statrs_quantile(1.0 - q);
        let density = (-z * z / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let tolerance = 5.0 * 2f64.sqrt() * (q * (1.0 - q) / b as f64).sqrt() / density * se;
        assert_close(
            &format!("case {i} lower"),
            ours.interval.lower,
            number(&case["lower"]),
            tolerance,
        );
        assert_close(
            &format!("case {i} upper"),
            ours.interval.upper,
            number(&case["upper"]),
            tolerance,
        );
        // The standard error of an sd estimate from B draws is about
        // sd / sqrt(2 B); allow 5 of them for each side.
        assert_close(
            &format!("case {i} standard error"),
            ours.standard_error,
            se,
            5.0 * 2f64.sqrt() * se / (2.0 * b as f64).sqrt(),
        );
    }
}

/// The double-or-nothing bootstrap estimates the same percentile interval
/// and standard error as scipy's (multinomial) bootstrap and ours, within
/// the resampling error of two independent bootstraps (the tolerance of
/// the test above), once its known O(1 / n) excess spread is allowed for:
/// a resample's mean is the mean of a random subset of `k ~ Binomial(n,
/// 1/2)` queries, whose variance, averaged over `k`, is
/// [`spread_factor`]`(n)` times the multinomial bootstrap's (1.11 at 30
/// queries, 1.015 at 200, 1.0003 at 10,000). The deviations of the bounds
/// from the mean scale with its square root. The skewness of the two
/// differs by O(1 / sqrt(n)), far below the tolerance at these sizes.
#[test]
fn double_or_nothing_interval_is_within_resampling_error_of_scipy_and_the_multinomial() {
    for (i, case) in cases("bootstrap.json").iter().enumerate() {
        let (baseline, candidate) = pair(case);
        let level = number(&case["level"]);
        let b = case["resamples"].as_u64().expect("resamples");
        let d = differences(&baseline, &candidate);
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        let ours = double_or_nothing_columns(&[&d], level, b, 42).expect("valid")[0];
        let multinomial = bootstrap(&d, level, b, 42).expect("valid");
        let se = number(&case["standard_error"]);
        let scipy = Bootstrap {
            interval: rankeval_stats::Interval {
                lower: number(&case["lower"]),
                upper: number(&case["upper"]),
                level,
            },
            standard_error: se,
            ..multinomial
        };
        let scale = spread_factor(d.len()).sqrt();
        for (name, other) in [("scipy", scipy), ("multinomial", multinomial)] {
            let (bound, sd) = independent_tolerances(level, b, se * scale);
            let what = |side: &str| format!("case {i} {side} vs {name} (x {scale:.4})");
            let expected = |bound: f64| mean + (bound - mean) * scale;
            assert_close(
                &what("lower"),
                ours.interval.lower,
                expected(other.interval.lower),
                bound,
            );
            assert_close(
                &what("upper"),
                ours.interval.upper,
                expected(other.interval.upper),
                bound,
            );
            assert_close(
                &what("se"),
                ours.standard_error,
                other.standard_error * scale,
                sd,
            );
        }
    }
}

/// The variance of the double-or-nothing resampled mean over the
/// multinomial bootstrap's, from the definition: given `k` queries of
/// weight 2, the mean of `k` queries drawn without replacement has variance
/// `S^2 (n - k) / (k n)` (`S^2` with `n - 1`), the multinomial bootstrap's
/// mean `S^2 (n - 1) / n^2`; `k = 0` gives the mean itself. Averaged over
/// `k ~ Binomial(n, 1/2)`.
fn spread_factor(n: usize) -> f64 {
    let nf = n as f64;
    // P(k) = C(n, k) / 2^n, computed in logs.
    let ln_choose = |k: usize| -> f64 {
        (1..=k)
            .map(|j| ((n - k + j) as f64).ln() - (j as f64).ln())
            .sum()
    };
    (1..=n)
        .map(|k| {
            let p = (ln_choose(k) - nf * std::f64::consts::LN_2).exp();
            let kf = k as f64;
            p * nf * (nf - kf) / (kf * (nf - 1.0))
        })
        .sum()
}

#[test]
fn the_spread_factor_tends_to_1_as_1_plus_3_over_n() {
    for n in [30usize, 200, 2_000] {
        let f = spread_factor(n);
        let approx = 1.0 + 3.0 / n as f64;
        assert!(
            (f - approx).abs() < 15.0 / (n * n) as f64 + 1e-12,
            "{n}: {f} vs {approx}"
        );
    }
}

/// On 12,000 queries (above `MULTINOMIAL_UP_TO`, two slabs of the
/// double-or-nothing bootstrap) the bootstrap distribution of the mean is
/// normal to any precision that matters: `auto` uses the double-or-nothing
/// bootstrap, whose percentile interval equals the t interval within its
/// own resampling error, and its standard error `sd / sqrt(n)`.
#[test]
fn double_or_nothing_on_many_queries_agrees_with_the_t_interval() {
    let n = 12_000;
    let mut state = 0x1234_5678_9ABC_DEF0u64;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    // Skewed, bounded, with ties at 0: like a metric's differences.
    let baseline: Vec<f64> = (0..n).map(|_| next().powi(3)).collect();
    let candidate: Vec<f64> = baseline
        .iter()
        .map(|b| {
            if next() < 0.3 {
                *b
            } else {
                (b + 0.2 * (next() - 0.45)).clamp(0.0, 1.0)
            }
        })
        .collect();
    let resamples = 4_000;
    let options = Options {
        test: Test::Bootstrap,
        resampling: Resampling {
            resamples,
            ..Resampling::default()
        },
        ..Options::default()
    };
    let boot = compare(&baseline, &candidate, &options).expect("valid");
    assert_eq!(
        boot.provenance.bootstrap,
        Some(rankeval_stats::BootstrapMethod::DoubleOrNothing)
    );
    let t = compare(&baseline, &candidate, &Options::default()).expect("valid");
    let se = t.summary.sd_difference / (n as f64).sqrt();
    // One bootstrap against an exact interval: the tolerance of two
    // independent bootstraps is sqrt(2) times too wide, keep it anyway.
    let (bound, _) = independent_tolerances(0.95, resamples, se);
    assert_close("lower vs t", boot.interval.lower, t.interval.lower, bound);
    assert_close("upper vs t", boot.interval.upper, t.interval.upper, bound);
    // And it is not the t interval itself.
    assert_ne!(boot.interval, t.interval);
}

/// Tolerances for the bounds and the standard error of two independent
/// bootstraps of `resamples` (see the first bootstrap test).
fn independent_tolerances(level: f64, resamples: u64, se: f64) -> (f64, f64) {
    let q = (1.0 - level) / 2.0;
    let z = statrs_quantile(1.0 - q);
    let density = (-z * z / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let b = resamples as f64;
    (
        5.0 * 2f64.sqrt() * (q * (1.0 - q) / b).sqrt() / density * se,
        5.0 * 2f64.sqrt() * se / (2.0 * b).sqrt(),
    )
}

fn statrs_quantile(p: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal};
    Normal::standard().inverse_cdf(p)
}

#[test]
fn corrections_equal_statsmodels_multipletests_bit_for_bit() {
    let all = cases("corrections.json");
    for (i, case) in all.iter().enumerate() {
        let p = floats(&case["p_bits"]);
        for (correction, key) in [
            (Correction::Holm, "holm_bits"),
            (Correction::Bonferroni, "bonferroni_bits"),
            (Correction::BenjaminiHochberg, "fdr_bh_bits"),
        ] {
            let got = correct(&p, correction).expect("valid p-values");
            let want = floats(&case[key]);
            let got_bits: Vec<u64> = got.iter().map(|x| x.to_bits()).collect();
            let want_bits: Vec<u64> = want.iter().map(|x| x.to_bits()).collect();
            assert_eq!(got_bits, want_bits, "case {i} {key}: {got:?} vs {want:?}");
        }
        assert_eq!(correct(&p, Correction::None).expect("valid"), p);
    }
}

#[test]
fn sign_flip_enumeration_equals_exact_rational_count() {
    for (i, case) in cases("sign_flip.json").iter().enumerate() {
        let (baseline, candidate) = pair(case);
        let d = differences(&baseline, &candidate);
        let result = sign_flip(&d, &Resampling::default()).expect("valid");
        let total = case["total"].as_u64().expect("total");
        let extreme = case["extreme"].as_u64().expect("extreme");
        assert!(result.exact, "case {i}");
        assert_eq!(
            (result.extreme, result.resamples),
            (extreme, total),
            "case {i}"
        );
        assert_eq!(result.p_value, extreme as f64 / total as f64);
    }
}

/// Monte Carlo p-values against the exact ones: with B resamples the
/// estimate (b + 1) / (B + 1) has standard error sqrt(p (1 - p) / B); we
/// allow 4.5 of them plus the 1 / (B + 1) offset.
#[test]
fn sign_flip_monte_carlo_is_within_its_error_of_the_exact_p() {
    let b = 20_000u64;
    let mut checked = 0;
    for case in cases("sign_flip.json")
        .iter()
        .chain(cases("ttest.json").iter())
    {
        let (baseline, candidate) = pair(case);
        if baseline.len() > 20 {
            continue;
        }
        let d = differences(&baseline, &candidate);
        let exact = sign_flip(&d, &Resampling::default()).expect("valid");
        let monte_carlo = sign_flip(
            &d,
            &Resampling {
                resamples: b,
                seed: 7,
                exact_up_to: 0,
            },
        )
        .expect("valid");
        assert!(exact.exact && !monte_carlo.exact);
        let p = exact.p_value;
        let tolerance = 4.5 * (p * (1.0 - p) / b as f64).sqrt() + 1.0 / (b + 1) as f64;
        assert_close(
            &format!("n = {}", d.len()),
            monte_carlo.p_value,
            p,
            tolerance,
        );
        checked += 1;
    }
    assert!(checked >= 8, "{checked}");
}

#[test]
fn randomization_comparison_reports_the_exact_p_and_provenance() {
    let case = &cases("sign_flip.json")[3];
    let (baseline, candidate) = pair(case);
    let options = Options {
        test: Test::Randomization,
        ..Options::default()
    };
    let c = compare(&baseline, &candidate, &options).expect("valid");
    let exact = case["extreme"].as_u64().expect("extreme") as f64
        / case["total"].as_u64().expect("total") as f64;
    assert_eq!(c.p_value, exact);
    assert_eq!(c.provenance.exact, Some(true));
    assert_eq!(c.provenance.seed, Some(42));
    assert_eq!(c.provenance.resamples, Some(10_000));
}

/// The randomized Tukey HSD against the exact share of within-query
/// permutations (rational arithmetic), within Monte Carlo error.
#[test]
fn tukey_hsd_is_within_monte_carlo_error_of_exact_enumeration() {
    let b = 20_000u64;
    for (i, case) in cases("tukey.json").iter().enumerate() {
        let systems: Vec<Vec<f64>> = case["systems_bits"]
            .as_array()
            .expect("systems")
            .iter()
            .map(floats)
            .collect();
        let columns: Vec<&[f64]> = systems.iter().map(Vec::as_slice).collect();
        let hsd = randomized_tukey_hsd(&columns, b, 3).expect("valid");
        let total = case["total"].as_u64().expect("total") as f64;
        for (pair, want) in hsd
            .pairs
            .iter()
            .zip(case["pairs"].as_array().expect("pairs"))
        {
            assert_eq!(pair.first as u64, want["first"].as_u64().expect("first"));
            assert_eq!(pair.second as u64, want["second"].as_u64().expect("second"));
            let p = want["extreme"].as_u64().expect("extreme") as f64 / total;
            let tolerance = 4.5 * (p * (1.0 - p) / b as f64).sqrt() + 1.0 / (b + 1) as f64;
            assert_close(
                &format!("case {i} pair {pair:?}"),
                pair.p_value,
                p,
                tolerance,
            );
        }
    }
}

/// With two systems, permuting within a query is flipping the sign of the
/// difference, and the range is |mean difference|: the randomized Tukey HSD
/// is the sign-flip test.
#[test]
fn tukey_hsd_of_two_systems_is_the_sign_flip_test() {
    let case = &cases("sign_flip.json")[5];
    let (baseline, candidate) = pair(case);
    let exact = sign_flip(&differences(&baseline, &candidate), &Resampling::default())
        .expect("valid")
        .p_value;
    let b = 20_000u64;
    let hsd = randomized_tukey_hsd(&[&baseline, &candidate], b, 11).expect("valid");
    let tolerance = 4.5 * (exact * (1.0 - exact) / b as f64).sqrt() + 1.0 / (b + 1) as f64;
    assert_close("two systems", hsd.pairs[0].p_value, exact, tolerance);
}
