//! Invariants on random inputs (proptest).

use proptest::prelude::*;
use rankeval_stats::sign_flip::Resampling;
use rankeval_stats::{BootstrapMethod, Correction, Options, Test, compare, correct};

/// Metric-like paired columns: 2 to 40 queries, values in [0, 1], some
/// quantized to tenths (ties and zero differences).
fn paired() -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    (2usize..40, any::<bool>()).prop_flat_map(|(n, quantized)| {
        let value = (0u32..=1000).prop_map(move |v| {
            let x = f64::from(v) / 1000.0;
            if quantized {
                (x * 10.0).round() / 10.0
            } else {
                x
            }
        });
        (
            prop::collection::vec(value.clone(), n),
            prop::collection::vec(value, n),
        )
    })
}

fn options(test: Test) -> Options {
    Options {
        test,
        resampling: Resampling {
            resamples: 500,
            exact_up_to: 10,
            ..Resampling::default()
        },
        ..Options::default()
    }
}

const TESTS: [Test; 4] = [
    Test::T,
    Test::Randomization,
    Test::Bootstrap,
    Test::Wilcoxon,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn p_values_are_probabilities_and_resampled_ones_never_zero((b, c) in paired()) {
        for test in TESTS {
            let r = compare(&b, &c, &options(test)).expect("valid");
            prop_assert!(r.p_value <= 1.0, "{test:?}: {}", r.p_value);
            if test == Test::T {
                prop_assert!(r.p_value >= 0.0);
            } else {
                prop_assert!(r.p_value > 0.0, "{test:?}: {}", r.p_value);
            }
        }
    }

    #[test]
    fn the_t_interval_contains_the_mean_difference((b, c) in paired(), level in 0.5f64..0.999) {
        let r = compare(&b, &c, &Options { level, ..Options::default() }).expect("valid");
        prop_assert!(r.interval.lower <= r.summary.difference && r.summary.difference <= r.interval.upper,
            "{:?} {}", r.interval, r.summary.difference);
        let wider = compare(&b, &c, &Options { level: (level + 1.0) / 2.0, ..Options::default() }).expect("valid");
        prop_assert!(wider.interval.lower <= r.interval.lower && r.interval.upper <= wider.interval.upper);
    }

    /// The t interval of a column contains its mean; the BCa bounds are
    /// quantiles of resampled means, so they lie between the smallest and
    /// the largest value, in order (for the mean `|a| <= 1/6`, and with
    /// 500 resamples `|z0 + z_α| < 6` at these levels, so `α1 < α2`).
    #[test]
    fn interval_of_a_mean_contains_it_and_bca_lies_among_the_values(
        (values, _) in paired(),
        level in 0.5f64..0.99,
    ) {
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let t = rankeval_stats::t_interval(&values, level).expect("valid");
        prop_assert!(t.lower <= mean && mean <= t.upper, "{t:?} {mean}");
        let (low, high) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(*v), h.max(*v)));
        let slack = 1e-12;
        match rankeval_stats::bca_interval(&values, level, 500, 3) {
            Ok(bca) => {
                prop_assert!(low - slack <= bca.interval.lower && bca.interval.lower <= bca.interval.upper
                    && bca.interval.upper <= high + slack, "{bca:?} not in [{low}, {high}]");
                prop_assert!(bca.acceleration.abs() <= 1.0 / 6.0 + 1e-12, "{bca:?}");
            }
            // Two or three values: every resampled mean may fall on one side.
            Err(rankeval_stats::CompareError::BcaUndefined { .. }) => prop_assert!(values.len() <= 3),
            Err(e) => prop_assert!(false, "{e}"),
        }
    }

    #[test]
    fn swapping_baseline_and_candidate_negates_the_difference_and_keeps_p((b, c) in paired()) {
        for test in TESTS {
            let forward = compare(&b, &c, &options(test)).expect("valid");
            let backward = compare(&c, &b, &options(test)).expect("valid");
            prop_assert_eq!(backward.summary.difference, -forward.summary.difference);
            prop_assert_eq!(backward.p_value, forward.p_value, "{:?}", test);
            prop_assert_eq!(backward.summary.effect_size, forward.summary.effect_size.map(|e| -e));
            prop_assert_eq!(backward.summary.outcomes.wins, forward.summary.outcomes.losses);
            prop_assert_eq!(backward.summary.outcomes.ties, forward.summary.outcomes.ties);
            let scale = forward.interval.upper.abs().max(forward.interval.lower.abs()).max(1e-300);
            prop_assert!((backward.interval.lower + forward.interval.upper).abs() <= 1e-12 * scale);
            prop_assert!((backward.interval.upper + forward.interval.lower).abs() <= 1e-12 * scale);
        }
    }

    #[test]
    fn outcomes_count_every_query_and_effect_size_has_the_difference_sign((b, c) in paired()) {
        let r = compare(&b, &c, &Options::default()).expect("valid");
        let o = r.summary.outcomes;
        prop_assert_eq!(o.wins + o.ties + o.losses, b.len());
        match r.summary.effect_size {
            Some(e) => prop_assert!(e == 0.0 && r.summary.difference == 0.0 || e.signum() == r.summary.difference.signum()),
            None => prop_assert_eq!(r.summary.sd_difference, 0.0),
        }
    }

    #[test]
    fn the_same_column_is_never_significantly_different(b in prop::collection::vec(0.0f64..1.0, 2..30)) {
        for test in TESTS {
            let r = compare(&b, &b, &options(test)).expect("valid");
            prop_assert_eq!(r.p_value, 1.0, "{:?}", test);
            prop_assert_eq!(r.summary.effect_size, None);
            prop_assert_eq!((r.interval.lower, r.interval.upper), (0.0, 0.0));
        }
    }

    #[test]
    fn double_or_nothing_bounds_lie_among_the_differences_and_swap_exactly((b, c) in paired()) {
        let options = Options { bootstrap: BootstrapMethod::DoubleOrNothing, ..options(Test::Bootstrap) };
        let forward = compare(&b, &c, &options).expect("valid");
        let backward = compare(&c, &b, &options).expect("valid");
        prop_assert_eq!(forward.provenance.bootstrap, Some(BootstrapMethod::DoubleOrNothing));
        prop_assert!(forward.p_value > 0.0 && forward.p_value <= 1.0);
        // Every resample is a weighted mean of the differences (or the mean).
        let d: Vec<f64> = c.iter().zip(&b).map(|(c, b)| c - b).collect();
        let (low, high) = d.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(*v), h.max(*v)));
        let slack = 1e-12;
        prop_assert!(low - slack <= forward.interval.lower && forward.interval.lower <= forward.interval.upper
            && forward.interval.upper <= high + slack, "{:?} not in [{low}, {high}]", forward.interval);
        // Negated differences give negated resamples, bit for bit (the
        // percentiles' interpolation may round differently).
        prop_assert_eq!(backward.p_value, forward.p_value);
        let scale = forward.interval.upper.abs().max(forward.interval.lower.abs()).max(1e-300);
        prop_assert!((backward.interval.lower + forward.interval.upper).abs() <= 1e-12 * scale);
        prop_assert!((backward.interval.upper + forward.interval.lower).abs() <= 1e-12 * scale);
        let same = compare(&b, &b, &options).expect("valid");
        prop_assert_eq!(same.p_value, 1.0);
        prop_assert_eq!((same.interval.lower, same.interval.upper), (0.0, 0.0));
    }

    #[test]
    fn corrections_are_monotone_bounded_and_ordered(p in prop::collection::vec(0.0f64..=1.0, 0..30)) {
        let holm = correct(&p, Correction::Holm).expect("valid");
        let bonferroni = correct(&p, Correction::Bonferroni).expect("valid");
        let bh = correct(&p, Correction::BenjaminiHochberg).expect("valid");
        for i in 0..p.len() {
            // BH <= Holm mathematically; statsmodels' `p / (1 / m)` can exceed
            // `p * m` by an ulp, so allow a few.
            let ulps = 1.0 + 4.0 * f64::EPSILON;
            prop_assert!(p[i] <= bh[i] && bh[i] <= holm[i] * ulps && holm[i] <= bonferroni[i] && bonferroni[i] <= 1.0);
            for j in 0..p.len() {
                if p[i] <= p[j] {
                    prop_assert!(holm[i] <= holm[j] && bh[i] <= bh[j] && bonferroni[i] <= bonferroni[j]);
                }
            }
        }
    }
}
