//! Invalid inputs are errors naming the problem, never panics.

use proptest::prelude::*;
use rankeval_stats::sign_flip::Resampling;
use rankeval_stats::{
    BootstrapMethod, CompareError, Correction, Options, Side, Test, compare, compare_all, correct,
    randomized_tukey_hsd,
};

#[test]
fn columns_must_pair() {
    let error = compare(&[0.1, 0.2], &[0.1, 0.2, 0.3], &Options::default()).expect_err("mismatch");
    assert_eq!(
        error,
        CompareError::LengthMismatch {
            baseline: 2,
            candidate: 3
        }
    );
    assert!(
        error.to_string().contains("must pair query by query"),
        "{error}"
    );
}

#[test]
fn at_least_two_queries() {
    for n in [0, 1] {
        let column = vec![0.5; n];
        assert_eq!(
            compare(&column, &column, &Options::default()),
            Err(CompareError::TooFewQueries { queries: n })
        );
    }
}

#[test]
fn non_finite_values_are_named_with_side_and_position() {
    let error =
        compare(&[0.1, 0.2, 0.3], &[0.1, f64::NAN, 0.3], &Options::default()).expect_err("nan");
    assert!(
        matches!(
            error,
            CompareError::NotFinite {
                side: Side::Candidate,
                index: 1,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "the candidate value of query #1 (0-based) is NaN, not a finite number"
    );
    let error = compare(&[f64::INFINITY, 0.2], &[0.1, 0.2], &Options::default()).expect_err("inf");
    assert!(matches!(
        error,
        CompareError::NotFinite {
            side: Side::Baseline,
            index: 0,
            ..
        }
    ));
}

#[test]
fn options_are_checked() {
    let column = [0.1, 0.2, 0.3];
    for level in [0.0, 1.0, -0.5, f64::NAN, 95.0] {
        let options = Options {
            level,
            ..Options::default()
        };
        assert!(matches!(
            compare(&column, &column, &options),
            Err(CompareError::InvalidLevel { .. })
        ));
    }
    for test in [Test::Randomization, Test::Bootstrap] {
        let options = Options {
            test,
            resampling: Resampling {
                resamples: 0,
                ..Resampling::default()
            },
            ..Options::default()
        };
        assert_eq!(
            compare(&column, &column, &options),
            Err(CompareError::NoResamples)
        );
    }
    // The t-test draws nothing: zero resamples do not matter.
    let options = Options {
        resampling: Resampling {
            resamples: 0,
            ..Resampling::default()
        },
        ..Options::default()
    };
    assert!(compare(&column, &column, &options).is_ok());
    assert_eq!(compare_all(&[], &Options::default()), Ok(Vec::new()));
}

#[test]
fn the_column_functions_check_their_input() {
    use rankeval_stats::bootstrap::{bootstrap, bootstrap_columns};
    use rankeval_stats::sign_flip::sign_flip_columns;
    use rankeval_stats::ttest::paired_t;
    use rankeval_stats::wilcoxon::wilcoxon;
    let short: &[f64] = &[0.1];
    let ok: &[f64] = &[0.1, -0.2, 0.3];
    let nan: &[f64] = &[0.1, f64::NAN];
    let r = Resampling::default();
    assert_eq!(
        paired_t(short, 0.95),
        Err(CompareError::TooFewQueries { queries: 1 })
    );
    assert!(matches!(
        paired_t(ok, 1.0),
        Err(CompareError::InvalidLevel { .. })
    ));
    assert!(matches!(
        wilcoxon(nan),
        Err(CompareError::NotFinite {
            side: Side::Difference,
            index: 1,
            ..
        })
    ));
    assert_eq!(
        sign_flip_columns(&[ok, &[0.1, 0.2]], &r),
        Err(CompareError::ColumnLengths {
            column: 1,
            len: 2,
            expected: 3
        })
    );
    assert_eq!(
        sign_flip_columns(&[ok], &Resampling { resamples: 0, ..r }),
        Err(CompareError::NoResamples)
    );
    assert_eq!(bootstrap(ok, 0.95, 0, 1), Err(CompareError::NoResamples));
    assert!(matches!(
        bootstrap(ok, f64::NAN, 10, 1),
        Err(CompareError::InvalidLevel { .. })
    ));
    assert_eq!(bootstrap_columns(&[], 0.95, 10, 1), Ok(Vec::new()));
    use rankeval_stats::double_or_nothing::double_or_nothing_columns;
    assert_eq!(
        double_or_nothing_columns(&[ok], 0.95, 0, 1),
        Err(CompareError::NoResamples)
    );
    assert!(matches!(
        double_or_nothing_columns(&[ok], 1.5, 10, 1),
        Err(CompareError::InvalidLevel { .. })
    ));
    assert!(matches!(
        double_or_nothing_columns(&[nan], 0.95, 10, 1),
        Err(CompareError::NotFinite { index: 1, .. })
    ));
    assert_eq!(
        double_or_nothing_columns(&[short], 0.95, 10, 1),
        Err(CompareError::TooFewQueries { queries: 1 })
    );
    assert_eq!(double_or_nothing_columns(&[], 0.95, 10, 1), Ok(Vec::new()));
}

#[test]
fn corrections_refuse_non_probabilities() {
    for bad in [f64::NAN, -0.1, 1.5] {
        let error = correct(&[0.1, bad], Correction::Holm).expect_err("not a probability");
        assert!(
            matches!(error, CompareError::InvalidPValue { index: 1, .. }),
            "{error:?}"
        );
    }
    assert_eq!(correct(&[], Correction::BenjaminiHochberg), Ok(Vec::new()));
}

#[test]
fn tukey_hsd_checks_its_matrix() {
    let a = [0.1, 0.2, 0.3];
    assert_eq!(
        randomized_tukey_hsd(&[&a], 10, 1),
        Err(CompareError::TooFewSystems { systems: 1 })
    );
    assert_eq!(
        randomized_tukey_hsd(&[&a, &[0.1, 0.2]], 10, 1),
        Err(CompareError::RaggedSystems {
            system: 1,
            len: 2,
            expected: 3
        })
    );
    assert!(matches!(
        randomized_tukey_hsd(&[&a, &[0.1, f64::NAN, 0.2]], 10, 1),
        Err(CompareError::NotFiniteScore {
            system: 1,
            index: 1,
            ..
        })
    ));
    assert_eq!(
        randomized_tukey_hsd(&[&[0.1], &[0.2]], 10, 1),
        Err(CompareError::TooFewQueries { queries: 1 })
    );
    assert_eq!(
        randomized_tukey_hsd(&[&a, &a], 0, 1),
        Err(CompareError::NoResamples)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any floats at all (NaN, infinities, huge, subnormal), any lengths:
    /// a result or an error, never a panic.
    #[test]
    fn no_input_panics(
        b in prop::collection::vec(any::<f64>(), 0..6),
        c in prop::collection::vec(any::<f64>(), 0..6),
        level in any::<f64>(),
    ) {
        for test in [Test::T, Test::Randomization, Test::Bootstrap, Test::Wilcoxon] {
            for bootstrap in [BootstrapMethod::Multinomial, BootstrapMethod::DoubleOrNothing] {
                let options = Options { test, level, bootstrap, resampling: Resampling { resamples: 50, ..Resampling::default() }, jackknife_groups: None };
                let _ = compare(&b, &c, &options);
            }
        }
        let _ = randomized_tukey_hsd(&[&b, &c], 20, 1);
        let _ = rankeval_stats::sign_flip::sign_flip_columns(&[&b, &c], &Resampling::default());
        let _ = rankeval_stats::bootstrap::bootstrap_columns(&[&b, &c], level, 20, 1);
        let _ = rankeval_stats::double_or_nothing::double_or_nothing_columns(&[&b, &c], level, 20, 1);
        let _ = rankeval_stats::wilcoxon::wilcoxon(&b);
        let _ = rankeval_stats::ttest::paired_t(&c, level);
        let _ = rankeval_stats::t_interval(&b, level);
        let _ = rankeval_stats::bca_interval(&b, level, 20, 1);
        let _ = rankeval_stats::bca_from_distribution(&b, &c, level);
        let _ = correct(&b, Correction::Holm);
    }
}

/// More resamples than `MAX_RESAMPLES` are an error giving the bound, from
/// every statistic that draws them, before anything is allocated (a
/// hundred billion asked for gigabytes up front and aborted).
#[test]
fn resamples_past_the_bound_are_refused_before_any_allocation() {
    use rankeval_stats::{
        KeyedBootstrap, KeyedSignFlip, KeyedTukey, MAX_RESAMPLES, bca_interval, check_resamples,
    };
    let huge = 100_000_000_000u64;
    let too_many = CompareError::TooManyResamples {
        resamples: huge,
        max: MAX_RESAMPLES,
    };
    assert_eq!(check_resamples(huge), Err(too_many.clone()));
    assert_eq!(check_resamples(0), Err(CompareError::NoResamples));
    assert_eq!(check_resamples(MAX_RESAMPLES), Ok(()));
    assert!(
        too_many.to_string().contains("more than the 1000000"),
        "{too_many}"
    );
    let column = [0.1, 0.4, 0.3, 0.9];
    let other = [0.2, 0.1, 0.5, 0.7];
    for test in [Test::Randomization, Test::Bootstrap, Test::BootstrapKeyed] {
        let options = Options {
            test,
            resampling: Resampling {
                resamples: huge,
                ..Resampling::default()
            },
            ..Options::default()
        };
        assert_eq!(
            compare(&column, &other, &options),
            Err(too_many.clone()),
            "{test:?}"
        );
    }
    assert_eq!(
        bca_interval(&column, 0.95, huge, 1).map(|_| ()),
        Err(too_many.clone())
    );
    assert_eq!(
        KeyedBootstrap::new(huge, 1).map(|_| ()),
        Err(too_many.clone())
    );
    assert_eq!(
        KeyedSignFlip::new(huge, 1).map(|_| ()),
        Err(too_many.clone())
    );
    assert_eq!(
        KeyedTukey::new(3, huge, 1).map(|_| ()),
        Err(too_many.clone())
    );
    assert_eq!(
        randomized_tukey_hsd(&[&column, &other], huge, 1).map(|_| ()),
        Err(too_many)
    );
}

/// The percentile interval's bounds are the `(B + 1)(1 - level)/2`-th
/// smallest and largest of `B` means (Davison & Hinkley 1997, 5.2): 39
/// resamples at 0.95, 19 at 0.9, 199 at 0.99; fewer are an error giving
/// the minimum.
#[test]
fn the_percentile_interval_needs_its_resamples() {
    use rankeval_stats::{check_percentile_resamples, percentile_minimum};
    assert_eq!(percentile_minimum(0.95), 39);
    assert_eq!(percentile_minimum(0.9), 19);
    assert_eq!(percentile_minimum(0.99), 199);
    assert_eq!(percentile_minimum(0.5), 3);
    for level in [0.8, 0.9, 0.95, 0.975, 0.99] {
        let b = percentile_minimum(level);
        let tail = (1.0 - level) / 2.0;
        assert!((b + 1) as f64 * tail >= 1.0 - 1e-9, "{level}");
        assert!(
            (b as f64) * tail < 1.0 - 1e-9,
            "{level}: {b} is not the fewest"
        );
        assert_eq!(check_percentile_resamples(b, level), Ok(()));
        assert_eq!(
            check_percentile_resamples(b - 1, level),
            Err(CompareError::TooFewResamples {
                resamples: b - 1,
                level,
                minimum: b
            })
        );
    }
}
