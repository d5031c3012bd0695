//! The keyed, mergeable statistics (`keyed`): Spark's `xxhash64` against
//! values Spark computed, the jackknife against its definition, the same
//! bits for any split and order of the queries, the wire format, and the
//! sign-flip test's generator against its definition.

use rand_chacha::{ChaCha8Rng, ChaCha20Rng};
use rand_core::{Rng, SeedableRng};
use rankeval_core::exact_sum::{fmean, fsum};
use rankeval_stats::keyed::{
    DEFAULT_GROUPS, GroupedSums, KeyedSignFlip, PairedSums, SquaredDeviations, paired_t,
    paired_t_column, query_group, spark_xxhash64, spark_xxhash64_long,
};
use rankeval_stats::rng::{below, chunk_rng};
use rankeval_stats::ttest::{self, TTest, t_quantile_upper};
use rankeval_stats::{CompareError, Interval};

/// Deterministic metric-like values in `[0, 1)` with full mantissas, so
/// that plain sums in different orders differ (a small LCG).
pub(super) fn values(n: usize, salt: u64) -> Vec<f64> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ salt;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

/// `n` queries `q0, q1, ...` with paired differences of two metric-like
/// columns (a small positive effect).
fn queries(n: usize) -> Vec<(String, f64)> {
    let baseline = values(n, 1);
    let candidate = values(n, 2);
    (0..n)
        .map(|i| {
            (
                format!("q{i}"),
                0.9 * candidate[i] + 0.05 - 0.9 * baseline[i],
            )
        })
        .collect()
}

pub(super) fn shuffle<T>(items: &mut [T], rng: &mut ChaCha20Rng) {
    for i in (1..items.len()).rev() {
        let j = below(rng, (i + 1) as u32) as usize;
        items.swap(i, j);
    }
}

/// The first `count` keys `k0, k1, ...` that fall in group `group` of
/// `groups`.
fn keys_in_group(group: u32, groups: u32, count: usize) -> Vec<String> {
    (0..)
        .map(|i| format!("k{i}"))
        .filter(|key| query_group(key.as_bytes(), groups).unwrap() == group)
        .take(count)
        .collect()
}

fn assert_relative(what: &str, got: f64, want: f64, tolerance: f64) {
    let scale = want.abs().max(f64::MIN_POSITIVE);
    assert!(
        (got - want).abs() <= tolerance * scale,
        "{what}: got {got:e}, want {want:e}"
    );
}

// ---------------------------------------------------------------- hashing

#[test]
fn xxh64_reference_vector() {
    // The xxHash specification's value for empty input, seed 0.
    assert_eq!(xxhash_rust::xxh64::xxh64(b"", 0), 0xEF46_DB37_51D8_E999);
}

/// `xxhash64(col)` and `pmod(xxhash64(col), 20)` as Spark computed them:
/// pyspark 4.3.0 (target/spark-venv), a local SparkSession, a one-column
/// DataFrame of each type. `'ABC'` is also the example of pyspark's
/// `xxhash64` documentation, and `SELECT xxhash64('Spark')` gave the same
/// value as the DataFrame.
#[test]
fn spark_xxhash64_is_sparks() {
    let strings: &[(&str, i64, u32)] = &[
        ("", -7444071767201028348, 12),
        ("ABC", 4105715581806190027, 7),
        ("Spark", -4294468057691064905, 15),
        ("q1", -975152593704119830, 10),
        ("query-17", 3140286364807616659, 19),
        ("301", -3451823188981896575, 5),
        ("é-ünïcödé", 5073660628729293265, 5),
        (
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            -8273737738657618755,
            5,
        ),
        (
            "0123456789abcdefghijklmnopqrstuvwxyz",
            5308235351123835395,
            15,
        ),
    ];
    for &(s, hash, group) in strings {
        assert_eq!(spark_xxhash64(s.as_bytes()), hash, "xxhash64('{s}')");
        assert_eq!(query_group(s.as_bytes(), 20).unwrap(), group, "'{s}'");
    }
    let longs: &[(i64, i64, u32)] = &[
        (0, -5252525462095825812, 8),
        (1, -7001672635703045582, 18),
        (-1, 3858142552250413010, 10),
        (42, -6876166290308861218, 2),
        (123456789012, 3056854389786727671, 11),
        (i64::MIN, -8619748838626508300, 0),
        (i64::MAX, -3246596055638297850, 10),
    ];
    for &(v, hash, group) in longs {
        assert_eq!(spark_xxhash64_long(v), hash, "xxhash64({v}L)");
        assert_eq!(query_group(&v.to_le_bytes(), 20).unwrap(), group, "{v}L");
    }
}

#[test]
fn query_group_is_the_non_negative_remainder() {
    // -4294468057691064905 = -214723402884553246 * 20 - 5: the remainder
    // -5 (Rust's %, Java's %), pmod 20 - 5 = 15.
    assert_eq!(-4294468057691064905i64 % 20, -5);
    assert_eq!(query_group(b"Spark", 20).unwrap(), 15);
    assert_eq!(query_group(b"Spark", 1).unwrap(), 0);
    assert_eq!(
        query_group(b"Spark", 0),
        Err(CompareError::InvalidGroups {
            groups: 0,
            minimum: 1
        })
    );
}

// -------------------------------------------------------------- jackknife

/// Three groups of `G = 3`: values 1, 2 | 4 | 6, 8, 10. `n = 6`, `S = 31`,
/// mean 31/6; the means without each group are 28/4 = 7, 27/5 and 7/3,
/// their mean (315 + 243 + 105)/45/3 = 221/45, their deviations 94/45,
/// 22/45 and -116/45, so `var = 2/3 * (8836 + 484 + 13456)/2025 =
/// 15184/2025`.
#[test]
fn jackknife_of_a_small_example() {
    let groups = 3;
    let values: [&[f64]; 3] = [&[1.0, 2.0], &[4.0], &[6.0, 8.0, 10.0]];
    let mut state = GroupedSums::new(groups).unwrap();
    for (g, group_values) in values.iter().enumerate() {
        let keys = keys_in_group(g as u32, groups, group_values.len());
        for (key, value) in keys.iter().zip(*group_values) {
            state.add(key.as_bytes(), *value).unwrap();
        }
    }
    assert_eq!(state.group_counts(), &[2, 1, 3]);
    let mean = 31.0 / 6.0;
    assert_eq!(state.mean(), mean);
    let jackknife = state.jackknife().unwrap();
    assert_eq!(jackknife.groups, 3);
    assert_eq!(jackknife.mean, mean);
    assert_relative("variance", jackknife.variance, 15184.0 / 2025.0, 1e-15);
    // t_{2, 0.975} = 4.302652729749462 (scipy.stats.t.ppf(0.975, 2)).
    let half = 4.302652729749462 * (15184.0f64 / 2025.0).sqrt();
    let interval = state.jackknife_interval(0.95).unwrap();
    assert_relative("lower", interval.lower, mean - half, 1e-13);
    assert_relative("upper", interval.upper, mean + half, 1e-13);
    assert_eq!(interval.level, 0.95);
}

/// The mean is the exact sum rounded once, divided by `n`: `fmean`, where
/// adding the groups' sums gives 0 here.
#[test]
fn mean_is_fmean() {
    let mut state = GroupedSums::new(3).unwrap();
    for (g, value) in [1e100, 1.0, -1e100].into_iter().enumerate() {
        let key = &keys_in_group(g as u32, 3, 1)[0];
        state.add(key.as_bytes(), value).unwrap();
    }
    assert_eq!(state.mean(), 1.0 / 3.0);
    assert_eq!(state.jackknife().unwrap().mean, 1.0 / 3.0);
    let pairs = queries(500);
    let mut state = GroupedSums::new(GROUPS).unwrap();
    for (key, value) in &pairs {
        state.add(key.as_bytes(), *value).unwrap();
    }
    let all: Vec<f64> = pairs.iter().map(|(_, v)| *v).collect();
    assert_eq!(state.mean().to_bits(), fmean(&all).to_bits());
}

/// The jackknife written out from its definition on the values themselves:
/// each group's mean-without-it from the other groups' values.
fn jackknife_by_definition(pairs: &[(String, f64)], groups: u32, level: f64) -> (f64, Interval) {
    let group = |key: &str| query_group(key.as_bytes(), groups).unwrap();
    let all: Vec<f64> = pairs.iter().map(|(_, v)| *v).collect();
    let mut thetas = Vec::new();
    for g in 0..groups {
        if !pairs.iter().any(|(key, _)| group(key) == g) {
            continue;
        }
        let rest: Vec<f64> = pairs
            .iter()
            .filter(|(key, _)| group(key) != g)
            .map(|(_, v)| *v)
            .collect();
        thetas.push(fsum(rest.iter().copied()) / rest.len() as f64);
    }
    let k = thetas.len() as f64;
    let bar = fmean(&thetas);
    let variance = ((k - 1.0) / k) * fsum(thetas.iter().map(|t| (t - bar) * (t - bar)));
    let q = t_quantile_upper(k - 1.0, (1.0 - level) / 2.0);
    let mean = fmean(&all);
    let se = variance.sqrt();
    let interval = Interval {
        lower: -q * se + mean,
        upper: q * se + mean,
        level,
    };
    (variance, interval)
}

#[test]
fn jackknife_is_its_definition_bit_for_bit() {
    for (n, groups) in [(200, DEFAULT_GROUPS), (37, 7), (5, 20), (1000, 2)] {
        let pairs = queries(n);
        let mut state = GroupedSums::new(groups).unwrap();
        for (key, value) in &pairs {
            state.add(key.as_bytes(), *value).unwrap();
        }
        let (variance, interval) = jackknife_by_definition(&pairs, groups, 0.9);
        let jackknife = state.jackknife().unwrap();
        assert_eq!(jackknife.variance.to_bits(), variance.to_bits(), "n {n}");
        let ours = state.jackknife_interval(0.9).unwrap();
        assert_eq!(ours.lower.to_bits(), interval.lower.to_bits(), "n {n}");
        assert_eq!(ours.upper.to_bits(), interval.upper.to_bits(), "n {n}");
        let nonempty = state.group_counts().iter().filter(|c| **c > 0).count();
        assert_eq!(jackknife.groups as usize, nonempty);
        assert!(ours.lower < jackknife.mean && jackknife.mean < ours.upper);
    }
}

/// Sanity check, not a definition: with `G` groups of `m` values each,
/// `θ_(g) - θ̄ = -(ȳ_g - ȳ) / (G - 1)` for the group means `ȳ_g`, so the
/// jackknife variance is `Σ (ȳ_g - ȳ)² / (G (G - 1))`, the variance of the
/// group means over `G`: about `s² / n` here, groups being about equal.
#[test]
fn jackknife_variance_is_about_that_of_the_mean() {
    let pairs = queries(4000);
    let mut state = GroupedSums::new(DEFAULT_GROUPS).unwrap();
    for (key, value) in &pairs {
        state.add(key.as_bytes(), *value).unwrap();
    }
    let all: Vec<f64> = pairs.iter().map(|(_, v)| *v).collect();
    let m = fmean(&all);
    let s2 = fsum(all.iter().map(|v| (v - m) * (v - m))) / (all.len() - 1) as f64;
    let ratio = state.jackknife().unwrap().variance / (s2 / all.len() as f64);
    // 19 degrees of freedom: the ratio is about chi2_19 / 19, within
    // [0.4, 1.9] with probability above 0.99.
    assert!((0.4..1.9).contains(&ratio), "ratio {ratio}");
}

#[test]
fn jackknife_needs_two_non_empty_groups() {
    assert_eq!(
        GroupedSums::new(1),
        Err(CompareError::InvalidGroups {
            groups: 1,
            minimum: 2
        })
    );
    let mut state = GroupedSums::new(4).unwrap();
    assert!(state.mean().is_nan());
    assert_eq!(
        state.jackknife(),
        Err(CompareError::TooFewGroups { groups: 0 })
    );
    for key in keys_in_group(2, 4, 3) {
        state.add(key.as_bytes(), 0.5).unwrap();
    }
    assert_eq!(state.mean(), 0.5);
    assert_eq!(
        state.jackknife_interval(0.95),
        Err(CompareError::TooFewGroups { groups: 1 })
    );
    let other = keys_in_group(0, 4, 1);
    state.add(other[0].as_bytes(), 0.5).unwrap();
    // Two groups, the same mean without either: a zero standard error.
    let interval = state.jackknife_interval(0.95).unwrap();
    assert_eq!((interval.lower, interval.upper), (0.5, 0.5));
    assert!(matches!(
        state.jackknife_interval(1.0),
        Err(CompareError::InvalidLevel { .. })
    ));
}

// ------------------------------------------------ merging, order, splits

/// Everything the keyed statistics compute on one set of queries, as bits.
#[derive(Debug, PartialEq)]
struct Bits {
    mean: u64,
    variance: u64,
    lower: u64,
    upper: u64,
    extreme: u64,
    p_sign_flip: u64,
    t: u64,
    p_t: u64,
    t_lower: u64,
    t_upper: u64,
}

const RESAMPLES: u64 = 999;
const SEED: u64 = 7;
const GROUPS: u32 = 20;

fn bits(grouped: &GroupedSums, flips: &KeyedSignFlip, t: &TTest) -> Bits {
    let jackknife = grouped.jackknife().unwrap();
    let interval = grouped.jackknife_interval(0.95).unwrap();
    let flip = flips.result().unwrap();
    Bits {
        mean: grouped.mean().to_bits(),
        variance: jackknife.variance.to_bits(),
        lower: interval.lower.to_bits(),
        upper: interval.upper.to_bits(),
        extreme: flip.extreme,
        p_sign_flip: flip.p_value.to_bits(),
        t: t.t.to_bits(),
        p_t: t.p_value.to_bits(),
        t_lower: t.interval.lower.to_bits(),
        t_upper: t.interval.upper.to_bits(),
    }
}

/// All queries in one part, in order: what the command line computes.
fn in_one_part(pairs: &[(String, f64)]) -> Bits {
    let mut grouped = GroupedSums::new(GROUPS).unwrap();
    let mut flips = KeyedSignFlip::new(RESAMPLES, SEED).unwrap();
    for (key, d) in pairs {
        grouped.add(key.as_bytes(), *d).unwrap();
        flips.add(key.as_bytes(), *d).unwrap();
    }
    let column: Vec<f64> = pairs.iter().map(|(_, d)| *d).collect();
    bits(&grouped, &flips, &paired_t_column(&column, 0.95).unwrap())
}

/// The queries shuffled and cut into parts at random, each part's states
/// built alone, every other one sent through the wire, and the parts
/// merged in shuffled order: what a Spark job computes.
fn in_parts(pairs: &[(String, f64)], rng: &mut ChaCha20Rng) -> Bits {
    let mut shuffled = pairs.to_vec();
    shuffle(&mut shuffled, rng);
    let parts = 1 + below(rng, 8) as usize;
    let mut cuts: Vec<usize> = (0..parts - 1)
        .map(|_| below(rng, shuffled.len() as u32 + 1) as usize)
        .collect();
    cuts.push(0);
    cuts.push(shuffled.len());
    cuts.sort_unstable();
    let slices: Vec<&[(String, f64)]> = cuts.windows(2).map(|w| &shuffled[w[0]..w[1]]).collect();
    let mut order: Vec<usize> = (0..slices.len()).collect();
    shuffle(&mut order, rng);
    let through_wire = |i: usize| i % 2 == 1;

    let mut grouped = GroupedSums::new(GROUPS).unwrap();
    let mut flips = KeyedSignFlip::new(RESAMPLES, SEED).unwrap();
    let mut first = PairedSums::new();
    for &i in &order {
        let mut g = GroupedSums::new(GROUPS).unwrap();
        let mut f = KeyedSignFlip::new(RESAMPLES, SEED).unwrap();
        let mut p = PairedSums::new();
        for (key, d) in slices[i] {
            g.add(key.as_bytes(), *d).unwrap();
            f.add(key.as_bytes(), *d).unwrap();
            p.add(*d).unwrap();
        }
        if through_wire(i) {
            g = GroupedSums::from_wire(&g.to_wire()).unwrap();
            f = KeyedSignFlip::from_wire(&f.to_wire()).unwrap();
            p = PairedSums::from_wire(&p.to_wire()).unwrap();
        }
        grouped.merge(&g).unwrap();
        flips.merge(&f).unwrap();
        first.merge(&p);
    }
    let mut second = SquaredDeviations::new(first.mean()).unwrap();
    for &i in order.iter().rev() {
        let mut s = SquaredDeviations::new(first.mean()).unwrap();
        for (_, d) in slices[i] {
            s.add(*d).unwrap();
        }
        if through_wire(i) {
            s = SquaredDeviations::from_wire(&s.to_wire()).unwrap();
        }
        second.merge(&s).unwrap();
    }
    bits(&grouped, &flips, &second.paired_t(0.95).unwrap())
}

#[test]
fn any_split_and_order_gives_the_same_bits() {
    let pairs = queries(300);
    let reference = in_one_part(&pairs);
    let column: Vec<f64> = pairs.iter().map(|(_, d)| *d).collect();
    let in_order: f64 = column.iter().sum();
    let mut plain_sums_differed = false;
    for seed in 0..8 {
        let mut rng = chunk_rng(seed, 0);
        assert_eq!(in_parts(&pairs, &mut rng), reference, "split {seed}");
        // The same shuffle, summed plainly, as the test's power check.
        let mut shuffled = column.clone();
        shuffle(&mut shuffled, &mut chunk_rng(seed, 0));
        plain_sums_differed |= shuffled.iter().sum::<f64>() != in_order;
    }
    assert!(
        plain_sums_differed,
        "plain sums never depended on the order: the check above proves nothing"
    );
}

#[test]
fn merging_an_empty_state_changes_nothing() {
    let pairs = queries(50);
    let mut grouped = GroupedSums::new(GROUPS).unwrap();
    let mut flips = KeyedSignFlip::new(RESAMPLES, SEED).unwrap();
    for (key, d) in &pairs {
        grouped.add(key.as_bytes(), *d).unwrap();
        flips.add(key.as_bytes(), *d).unwrap();
    }
    let mut empty_grouped = GroupedSums::new(GROUPS).unwrap();
    empty_grouped.merge(&grouped).unwrap();
    grouped.merge(&GroupedSums::new(GROUPS).unwrap()).unwrap();
    assert_eq!(empty_grouped.to_wire(), grouped.to_wire());
    let p = flips.p_value().unwrap();
    flips
        .merge(&KeyedSignFlip::new(RESAMPLES, SEED).unwrap())
        .unwrap();
    assert_eq!(flips.p_value().unwrap().to_bits(), p.to_bits());
}

#[test]
fn merging_states_of_other_parameters_is_an_error() {
    let mut grouped = GroupedSums::new(20).unwrap();
    assert_eq!(
        grouped.merge(&GroupedSums::new(10).unwrap()),
        Err(CompareError::MergeMismatch {
            field: "groups",
            left: "20".into(),
            right: "10".into()
        })
    );
    let mut flips = KeyedSignFlip::new(100, 1).unwrap();
    assert!(matches!(
        flips.merge(&KeyedSignFlip::new(101, 1).unwrap()),
        Err(CompareError::MergeMismatch {
            field: "resamples",
            ..
        })
    ));
    assert!(matches!(
        flips.merge(&KeyedSignFlip::new(100, 2).unwrap()),
        Err(CompareError::MergeMismatch { field: "seed", .. })
    ));
    let mut second = SquaredDeviations::new(0.1).unwrap();
    let error = second
        .merge(&SquaredDeviations::new(0.1 + f64::EPSILON).unwrap())
        .unwrap_err();
    assert!(
        matches!(error, CompareError::MergeMismatch { field: "mean", .. }),
        "{error}"
    );
}

#[test]
fn non_finite_values_are_errors_naming_the_query() {
    let mut grouped = GroupedSums::new(20).unwrap();
    assert_eq!(
        grouped.add(b"q7", f64::INFINITY),
        Err(CompareError::NotFiniteQueryValue {
            query: "q7".into(),
            value: f64::INFINITY
        })
    );
    assert_eq!(grouped.count(), 0, "the value was not added");
    let mut flips = KeyedSignFlip::new(10, 1).unwrap();
    let error = flips.add(b"q8", f64::NAN).unwrap_err();
    assert!(error.to_string().contains("`q8`"), "{error}");
    let mut first = PairedSums::new();
    first.add(0.5).unwrap();
    assert!(matches!(
        first.add(f64::NAN),
        Err(CompareError::NotFiniteValue { index: 1, .. })
    ));
    assert!(matches!(
        SquaredDeviations::new(f64::NAN),
        Err(CompareError::InvalidMoments { .. })
    ));
    assert_eq!(KeyedSignFlip::new(0, 1), Err(CompareError::NoResamples));
}

// --------------------------------------------------------- paired t-test

#[test]
fn paired_t_column_is_ttests_to_rounding_and_order_free() {
    let mut columns: Vec<Vec<f64>> = vec![
        queries(300).into_iter().map(|(_, d)| d).collect(),
        values(50, 9).iter().map(|v| v - 0.5).collect(),
        vec![0.25, -0.5],
        vec![1e6 + 0.1, 1e6 + 0.3, 1e6 - 0.2, 1e6],
        values(1000, 11).iter().map(|v| 1e-3 * v).collect(),
    ];
    columns.push(columns[0].iter().map(|d| d * 1e-9).collect());
    for (c, column) in columns.iter().enumerate() {
        for level in [0.9, 0.95, 0.99] {
            let ours = paired_t_column(column, level).unwrap();
            let theirs = ttest::paired_t(column, level).unwrap();
            assert_eq!(ours.df, theirs.df);
            for (what, got, want) in [
                ("t", ours.t, theirs.t),
                ("se", ours.standard_error, theirs.standard_error),
                ("p", ours.p_value, theirs.p_value),
                ("lower", ours.interval.lower, theirs.interval.lower),
                ("upper", ours.interval.upper, theirs.interval.upper),
            ] {
                assert_relative(&format!("column {c} {what}"), got, want, 1e-12);
            }
            let mut shuffled = column.clone();
            for seed in 0..4 {
                shuffle(&mut shuffled, &mut chunk_rng(seed, 1));
                let again = paired_t_column(&shuffled, level).unwrap();
                assert_eq!(format!("{again:?}"), format!("{ours:?}"));
                assert_eq!(again.t.to_bits(), ours.t.to_bits());
                assert_eq!(
                    again.interval.lower.to_bits(),
                    ours.interval.lower.to_bits()
                );
            }
        }
    }
}

#[test]
fn paired_t_of_a_constant_column_is_ttests() {
    // 0.1 three times: fsum / 3 is 0.10000000000000002, an ulp off, as
    // Python's statistics.fmean gives; the standard deviation of a
    // constant column is 0 all the same.
    assert_ne!(fsum([0.1; 3]) / 3.0, 0.1);
    for column in [vec![0.1; 3], vec![-0.2; 7], vec![0.0, -0.0, 0.0]] {
        let ours = paired_t_column(&column, 0.95).unwrap();
        let theirs = ttest::paired_t(&column, 0.95).unwrap();
        assert_eq!(ours.standard_error, 0.0);
        assert_eq!(ours.t, theirs.t);
        assert_eq!(ours.p_value, theirs.p_value);
        let mean = fsum(column.iter().copied()) / column.len() as f64;
        assert_eq!(ours.interval.lower.to_bits(), mean.to_bits());
        assert_eq!(
            ours.interval.upper.to_bits(),
            theirs.interval.upper.to_bits()
        );
    }
    let mut zeros = PairedSums::new();
    zeros.add(-0.0).unwrap();
    zeros.add(0.0).unwrap();
    let mut other_order = PairedSums::new();
    other_order.add(0.0).unwrap();
    other_order.add(-0.0).unwrap();
    assert_eq!(zeros.mean().to_bits(), other_order.mean().to_bits());
}

/// `paired_t` by hand: 4 differences with mean 0.5 and squares summing to
/// 3: `sd = 1`, `se = 1/2`, `t = 1`, `df = 3`; `2 P(T_3 > 1)` =
/// 0.3910022189557705 (`2 * scipy.stats.t.sf(1, 3)`).
#[test]
fn paired_t_from_moments() {
    let t = paired_t(4, 0.5, 3.0, 0.95).unwrap();
    assert_eq!((t.t, t.df, t.standard_error), (1.0, 3.0, 0.5));
    assert_relative("p", t.p_value, 0.391_002_218_955_770_5, 1e-12);
    let q = t_quantile_upper(3.0, (1.0 - 0.95) / 2.0);
    assert_eq!(t.interval.lower, -q * 0.5 + 0.5);
    assert!(matches!(
        paired_t(1, 0.5, 0.0, 0.95),
        Err(CompareError::TooFewQueries { queries: 1 })
    ));
    for (mean, squares) in [(f64::NAN, 1.0), (0.5, -1.0), (0.5, f64::INFINITY)] {
        assert!(
            matches!(
                paired_t(4, mean, squares, 0.95),
                Err(CompareError::InvalidMoments { .. })
            ),
            "{mean} {squares}"
        );
    }
    assert!(matches!(
        paired_t_column(&[0.1, f64::NAN], 0.95),
        Err(CompareError::NotFinite { index: 1, .. })
    ));
}

// -------------------------------------------------------------- sign flip

/// The generator's definition written out from the keystream bytes: the
/// sign of query `q` in resample `r` is bit `r % 8` of byte `r / 8` of
/// ChaCha8 seeded with the seed on stream `xxhash64(q)`, `+` for 1.
#[test]
fn sign_flip_draws_as_its_definition_says() {
    let pairs = [("a", 0.3), ("b", -0.1), ("c", 0.25), ("d", 0.0), ("e", 0.3)];
    for (resamples, seed) in [(200u64, 7u64), (64, 0), (1, 3), (130, u64::MAX)] {
        let mut state = KeyedSignFlip::new(resamples, seed).unwrap();
        let mut signs = Vec::new();
        for (key, d) in pairs {
            state.add(key.as_bytes(), d).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(spark_xxhash64(key.as_bytes()) as u64);
            let mut bytes = vec![0u8; resamples.div_ceil(8) as usize];
            rng.fill_bytes(&mut bytes);
            signs.push(bytes);
        }
        let observed = fsum(pairs.iter().map(|(_, d)| *d)).abs();
        let extreme = (0..resamples as usize)
            .filter(|&r| {
                let t = fsum(pairs.iter().zip(&signs).map(|((_, d), bytes)| {
                    if (bytes[r / 8] >> (r % 8)) & 1 == 1 {
                        *d
                    } else {
                        -d
                    }
                }));
                t.abs() >= observed
            })
            .count() as u64;
        let result = state.result().unwrap();
        assert_eq!(result.extreme, extreme, "B {resamples} seed {seed}");
        assert_eq!(result.resamples, resamples);
        assert!(!result.exact);
        assert_eq!(
            result.p_value,
            (extreme + 1) as f64 / (resamples + 1) as f64
        );
    }
}

/// The p-value of one column pinned, so that a change of the generator
/// (another `rand_chacha`, another hash) shows here.
#[test]
fn sign_flip_stream_is_pinned() {
    let mut state = KeyedSignFlip::new(1000, 42).unwrap();
    for (key, d) in queries(30) {
        state.add(key.as_bytes(), d - 0.05).unwrap();
    }
    let result = state.result().unwrap();
    assert_eq!(result.extreme, PINNED_EXTREME);
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    rng.set_stream(spark_xxhash64(b"q1") as u64);
    assert_eq!(
        rng.next_u64(),
        PINNED_WORD,
        "the first 64 signs of q1, seed 42"
    );
}

const PINNED_WORD: u64 = 15_292_869_582_314_737_599;

const PINNED_EXTREME: u64 = 854;

/// Sanity checks, not definitions: a strong effect is significant, no
/// effect is not. Every difference positive: only the all-`+` resample
/// (probability 2^-40) reaches the observed sum, so p = 1 / (B + 1).
/// Differences that cancel exactly: the observed statistic is 0, every
/// resample reaches it, p = 1, with no rounding allowance.
#[test]
fn sign_flip_sanity() {
    let mut strong = KeyedSignFlip::new(2000, 1).unwrap();
    let mut none = KeyedSignFlip::new(2000, 1).unwrap();
    for i in 0..40 {
        let key = format!("t{i}");
        strong
            .add(key.as_bytes(), 0.05 + 0.01 * f64::from(i % 3))
            .unwrap();
        let d = 0.1 * f64::from(i / 2 + 1) / 3.0;
        none.add(key.as_bytes(), if i % 2 == 0 { d } else { -d })
            .unwrap();
    }
    assert_eq!(strong.p_value().unwrap(), 1.0 / 2001.0);
    assert_eq!(none.p_value().unwrap(), 1.0);
    // Random differences around 0: the p-value of a true null is uniform;
    // this seed's is far from 0.
    let mut noise = KeyedSignFlip::new(2000, 1).unwrap();
    for (i, v) in values(100, 5).iter().enumerate() {
        noise.add(format!("n{i}").as_bytes(), v - 0.5).unwrap();
    }
    let p = noise.p_value().unwrap();
    assert!(p > 0.05, "p {p}");
    let mut one = KeyedSignFlip::new(10, 1).unwrap();
    one.add(b"x", 1.0).unwrap();
    assert_eq!(
        one.result(),
        Err(CompareError::TooFewQueries { queries: 1 })
    );
}

// ------------------------------------------------------------------- wire

fn example_states() -> (GroupedSums, KeyedSignFlip, PairedSums, SquaredDeviations) {
    let mut grouped = GroupedSums::new(5).unwrap();
    let mut flips = KeyedSignFlip::new(70, u64::MAX - 5).unwrap();
    let mut first = PairedSums::new();
    // Values whose exact sums need several partials.
    let extra = [("big", 1e100), ("small", 1e-100), ("minus big", -1e100)];
    let pairs: Vec<(String, f64)> = queries(40)
        .into_iter()
        .chain(extra.iter().map(|(k, v)| (k.to_string(), *v)))
        .collect();
    for (key, d) in &pairs {
        grouped.add(key.as_bytes(), *d).unwrap();
        flips.add(key.as_bytes(), *d).unwrap();
        first.add(*d).unwrap();
    }
    let mut second = SquaredDeviations::new(first.mean()).unwrap();
    for (_, d) in &pairs {
        second.add(*d).unwrap();
    }
    (grouped, flips, first, second)
}

#[test]
fn wire_round_trips() {
    let (grouped, flips, first, second) = example_states();
    let wire = grouped.to_wire();
    assert_eq!(&wire[..3], &[1.0, 1.0, 5.0], "kind, version, G");
    assert_eq!(wire[3..8].iter().sum::<f64>(), 43.0, "the counts");
    let back = GroupedSums::from_wire(&wire).unwrap();
    assert_eq!(back.group_counts(), grouped.group_counts());
    assert_eq!(back.mean().to_bits(), grouped.mean().to_bits());
    assert_eq!(back.jackknife(), grouped.jackknife());
    // Partials are not unique: reading them re-adds them, which may give
    // other partials of the same exact sum, so the wire read and written
    // again need not be the same list; what it reads as must be.
    let again = GroupedSums::from_wire(&back.to_wire()).unwrap();
    assert_eq!(again.jackknife(), grouped.jackknife());

    let wire = flips.to_wire();
    assert_eq!(
        &wire[..6],
        &[2.0, 1.0, 70.0, 4294967295.0, 4294967290.0, 43.0]
    );
    let back = KeyedSignFlip::from_wire(&wire).unwrap();
    assert_eq!((back.resamples(), back.seed()), (70, u64::MAX - 5));
    assert_eq!(back.count(), 43);
    assert_eq!(back.result(), flips.result());
    let again = KeyedSignFlip::from_wire(&back.to_wire()).unwrap();
    assert_eq!(again.result(), flips.result());

    let wire = first.to_wire();
    assert_eq!(&wire[..3], &[3.0, 1.0, 43.0]);
    let back = PairedSums::from_wire(&wire).unwrap();
    assert_eq!(back.mean().to_bits(), first.mean().to_bits());
    let empty = PairedSums::new();
    assert_eq!(PairedSums::from_wire(&empty.to_wire()).unwrap(), empty);

    let wire = second.to_wire();
    assert_eq!(&wire[..3], &[4.0, 1.0, first.mean()]);
    let back = SquaredDeviations::from_wire(&wire).unwrap();
    assert_eq!(back.value().to_bits(), second.value().to_bits());
    assert_eq!(back.paired_t(0.95), second.paired_t(0.95));
}

/// Every wire `from_wire` reads, as results: `Err` is fine, a panic is not.
fn read_all(wire: &[f64]) -> [bool; 4] {
    [
        GroupedSums::from_wire(wire).is_ok(),
        KeyedSignFlip::from_wire(wire).is_ok(),
        PairedSums::from_wire(wire).is_ok(),
        SquaredDeviations::from_wire(wire).is_ok(),
    ]
}

#[test]
fn malformed_wire_is_an_error() {
    let (grouped, flips, first, second) = example_states();
    let wires = [
        grouped.to_wire(),
        flips.to_wire(),
        first.to_wire(),
        second.to_wire(),
    ];
    for (kind, wire) in wires.iter().enumerate() {
        let mut ok = [false; 4];
        ok[kind] = true;
        assert_eq!(read_all(wire), ok, "only its own kind reads wire {kind}");
        for len in 0..wire.len() {
            assert_eq!(
                read_all(&wire[..len]),
                [false; 4],
                "wire {kind} cut at {len}"
            );
        }
        let mut longer = wire.clone();
        longer.push(0.0);
        assert_eq!(read_all(&longer), [false; 4], "wire {kind} + a value");
        for i in 0..wire.len() {
            for bad in [f64::NAN, f64::INFINITY] {
                let mut broken = wire.clone();
                broken[i] = bad;
                assert_eq!(read_all(&broken), [false; 4], "wire {kind}[{i}] = {bad}");
            }
        }
    }
    let cases: &[(&str, &[f64])] = &[
        ("version 2", &[1.0, 2.0, 2.0, 0.0, 0.0, 0.0, 0.0]),
        ("one group", &[1.0, 1.0, 1.0, 0.0, 0.0]),
        ("a fractional count", &[1.0, 1.0, 2.0, 0.5, 0.0, 0.0, 0.0]),
        ("a negative count", &[1.0, 1.0, 2.0, -1.0, 0.0, 0.0, 0.0]),
        (
            "an empty group with a sum",
            &[1.0, 1.0, 2.0, 0.0, 0.0, 1.0, 0.5, 0.0],
        ),
        ("2^32 - 1 groups", &[1.0, 1.0, 4294967295.0, 0.0, 0.0]),
        (
            "a sum beyond f64",
            &[1.0, 1.0, 2.0, 1.0, 1.0, 2.0, 1e308, 1e308, 1.0, 0.5],
        ),
        (
            "2^53 + 2 values",
            &[1.0, 1.0, 2.0, 9007199254740992.0, 2.0, 1.0, 0.5, 1.0, 0.5],
        ),
        ("B = 0", &[2.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        (
            "a seed half of 2^32",
            &[2.0, 1.0, 1.0, 4294967296.0, 0.0, 0.0, 0.0, 0.0],
        ),
        (
            "no difference but a sum",
            &[2.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.5],
        ),
        (
            "least above greatest",
            &[3.0, 1.0, 2.0, 0.5, 0.25, 1.0, 0.75],
        ),
        (
            "no difference, finite least",
            &[3.0, 1.0, 0.0, 0.0, f64::NEG_INFINITY, 0.0],
        ),
    ];
    for (what, wire) in cases {
        let errors = [
            GroupedSums::from_wire(wire).err(),
            KeyedSignFlip::from_wire(wire).err(),
            PairedSums::from_wire(wire).err(),
        ];
        for error in errors {
            assert!(
                matches!(error, Some(CompareError::InvalidWire { .. })),
                "{what}: {error:?}"
            );
        }
    }
    // The same shapes, corrected, read: the cases above fail for the
    // reason named, not for another.
    let fine: &[&[f64]] = &[
        &[1.0, 1.0, 2.0, 0.0, 0.0, 0.0, 0.0],
        &[1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 0.5, 1.0, 0.5],
        &[2.0, 1.0, 1.0, 4294967295.0, 0.0, 1.0, 1.0, 0.5, 1.0, 0.5],
        &[3.0, 1.0, 2.0, 0.25, 0.5, 1.0, 0.75],
        &[3.0, 1.0, 0.0, f64::INFINITY, f64::NEG_INFINITY, 0.0],
    ];
    for wire in fine {
        assert_eq!(
            read_all(wire).iter().filter(|ok| **ok).count(),
            1,
            "{wire:?}"
        );
    }
}

/// Random short wires of troublesome values: never a panic.
#[test]
fn garbage_wire_never_panics() {
    let pool = [
        0.0,
        1.0,
        2.0,
        3.0,
        4.0,
        -1.0,
        0.5,
        1e308,
        -1e308,
        9007199254740992.0,
        4294967295.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
    ];
    let mut rng = chunk_rng(3, 3);
    let mut read = 0;
    for _ in 0..20_000 {
        let kind = 1.0 + f64::from(below(&mut rng, 4));
        let len = below(&mut rng, 12) as usize;
        let mut wire = vec![kind, 1.0];
        wire.extend((0..len).map(|_| pool[below(&mut rng, pool.len() as u32) as usize]));
        read += read_all(&wire).iter().filter(|ok| **ok).count();
    }
    assert!(read > 0, "some random wires are valid states");
}

#[test]
fn the_keyed_randomization_test_of_compare_is_the_keyed_sign_flip() {
    let baseline = [0.1, 0.4, 0.35, 0.8, 0.2, 0.5, 0.05, 0.9];
    let candidate = [0.3, 0.45, 0.3, 0.9, 0.6, 0.5, 0.25, 1.0];
    let ids: Vec<String> = (1..=8).map(|i| format!("q{i}")).collect();
    let options = rankeval_stats::Options {
        test: rankeval_stats::Test::RandomizationKeyed,
        resampling: rankeval_stats::Resampling {
            resamples: 999,
            seed: 5,
            ..Default::default()
        },
        ..Default::default()
    };
    let pairs = [(&baseline[..], &candidate[..])];
    let keys = [ids.clone()];
    let got = rankeval_stats::compare_all_keyed(&pairs, Some(&keys), &options).unwrap();
    let mut flips = KeyedSignFlip::new(999, 5).unwrap();
    for (id, (b, c)) in ids.iter().zip(baseline.iter().zip(&candidate)) {
        flips.add(id.as_bytes(), c - b).unwrap();
    }
    assert_eq!(got[0].p_value, flips.p_value().unwrap());
    assert_eq!(
        got[0].provenance.rng,
        Some(rankeval_stats::keyed::KEYED_RNG_NAME)
    );
    // The t interval, as for the plain randomization test.
    let t = rankeval_stats::compare(&baseline, &candidate, &Default::default()).unwrap();
    assert_eq!(got[0].interval, t.interval);
    // Without the ids there is nothing to key the signs by.
    assert!(matches!(
        rankeval_stats::compare_all(&pairs, &options),
        Err(CompareError::QueryIdsNeeded)
    ));
}
