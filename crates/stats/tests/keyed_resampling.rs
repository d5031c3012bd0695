//! The keyed bootstrap (`keyed_bootstrap`) and the keyed randomized Tukey
//! HSD (`keyed_tukey`): each against its definition written out from the
//! keystream, the same bits for any split and order of the queries (with
//! states sent through the wire), and, as statistics, against the
//! position-drawn tests they stand in for.

use rand_chacha::{ChaCha8Rng, ChaCha20Rng};
use rand_core::{Rng, SeedableRng};
use rankeval_core::exact_sum::fsum;
use rankeval_stats::bootstrap::percentile;
use rankeval_stats::double_or_nothing::double_or_nothing_columns;
use rankeval_stats::keyed::spark_xxhash64;
use rankeval_stats::rng::{below, chunk_rng};
use rankeval_stats::sign_flip::sign_flip;
use rankeval_stats::{
    CompareError, KEYED_BOOTSTRAP_RNG_NAME, KeyedBootstrap, KeyedTukey, Options, Resampling, Test,
    TukeyHsd, compare_all, compare_all_keyed, randomized_tukey_hsd,
};

use super::keyed::{shuffle, values};

fn keys(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("q{i}")).collect()
}

/// Cuts `0..n`, shuffled, into 1 to 8 parts at random.
fn random_parts(n: usize, rng: &mut ChaCha20Rng) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..n).collect();
    shuffle(&mut order, rng);
    let parts = 1 + below(rng, 8) as usize;
    let mut cuts: Vec<usize> = (0..parts - 1)
        .map(|_| below(rng, n as u32 + 1) as usize)
        .collect();
    cuts.push(0);
    cuts.push(n);
    cuts.sort_unstable();
    cuts.windows(2)
        .map(|w| order[w[0]..w[1]].to_vec())
        .collect()
}

/// A query's keystream from 32-bit word `offset`, as bytes.
fn keystream(seed: u64, key: &str, offset: u128, bytes: usize) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(spark_xxhash64(key.as_bytes()) as u64);
    rng.set_word_pos(offset);
    let mut out = vec![0u8; bytes];
    rng.fill_bytes(&mut out);
    out
}

// -------------------------------------------------------------- bootstrap

/// The bootstrap written out from its definition: query `q` has weight 2
/// in resample `r` when bit `r % 8` of byte `r / 8` of its keystream from
/// word 2^40 is 1; the resample's mean is the exact sum of those queries'
/// differences, rounded once, over their number; then numpy's linear
/// percentiles and the shifted p-value with its allowance.
fn bootstrap_by_definition(
    keys: &[String],
    d: &[f64],
    resamples: u64,
    seed: u64,
    level: f64,
) -> (f64, f64, f64) {
    let n = d.len();
    let bits: Vec<Vec<u8>> = keys
        .iter()
        .map(|k| keystream(seed, k, 1 << 40, resamples.div_ceil(8) as usize))
        .collect();
    let observed = fsum(d.iter().copied()) / n as f64;
    let mut means: Vec<f64> = (0..resamples as usize)
        .map(|r| {
            let chosen: Vec<f64> = (0..n)
                .filter(|&q| (bits[q][r / 8] >> (r % 8)) & 1 == 1)
                .map(|q| d[q])
                .collect();
            if chosen.is_empty() {
                observed
            } else {
                fsum(chosen.iter().copied()) / chosen.len() as f64
            }
        })
        .collect();
    let largest = d.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let threshold = observed.abs() - 4.0 * (n + 2) as f64 * f64::EPSILON * largest;
    let extreme = means
        .iter()
        .filter(|m| (*m - observed).abs() >= threshold)
        .count();
    means.sort_by(f64::total_cmp);
    (
        percentile(&means, (1.0 - level) / 2.0),
        percentile(&means, (1.0 + level) / 2.0),
        (extreme + 1) as f64 / (resamples + 1) as f64,
    )
}

fn differences(n: usize) -> Vec<f64> {
    let a = values(n, 1);
    let b = values(n, 2);
    a.iter()
        .zip(&b)
        .map(|(x, y)| 0.9 * y + 0.03 - 0.9 * x)
        .collect()
}

#[test]
fn bootstrap_draws_as_its_definition_says() {
    for (n, resamples, seed) in [
        (7usize, 200u64, 7u64),
        (40, 64, 0),
        (25, 1, 3),
        (60, 999, u64::MAX),
    ] {
        let d = differences(n);
        let ids = keys(n);
        let mut state = KeyedBootstrap::new(resamples, seed).unwrap();
        for (id, v) in ids.iter().zip(&d) {
            state.add(id.as_bytes(), *v).unwrap();
        }
        let got = state.result(0.9).unwrap();
        let (lower, upper, p) = bootstrap_by_definition(&ids, &d, resamples, seed, 0.9);
        assert_eq!(
            got.interval.lower.to_bits(),
            lower.to_bits(),
            "n {n} B {resamples}"
        );
        assert_eq!(
            got.interval.upper.to_bits(),
            upper.to_bits(),
            "n {n} B {resamples}"
        );
        assert_eq!(got.p_value.to_bits(), p.to_bits(), "n {n} B {resamples}");
        assert_eq!(got.resamples, resamples);
    }
}

/// The bits of a bootstrap's interval, p-value and standard error.
fn bootstrap_bits(state: &KeyedBootstrap) -> [u64; 4] {
    let b = state.result(0.95).unwrap();
    [
        b.interval.lower.to_bits(),
        b.interval.upper.to_bits(),
        b.p_value.to_bits(),
        b.standard_error.to_bits(),
    ]
}

#[test]
fn bootstrap_gives_the_same_bits_for_any_split_and_order() {
    let n = 300;
    let d = differences(n);
    let ids = keys(n);
    let mut whole = KeyedBootstrap::new(500, 11).unwrap();
    for (id, v) in ids.iter().zip(&d) {
        whole.add(id.as_bytes(), *v).unwrap();
    }
    let reference = bootstrap_bits(&whole);
    for split in 0..6 {
        let mut rng = chunk_rng(split, 1);
        let mut merged = KeyedBootstrap::new(500, 11).unwrap();
        for (i, part) in random_parts(n, &mut rng).iter().enumerate() {
            let mut state = KeyedBootstrap::new(500, 11).unwrap();
            for &q in part {
                state.add(ids[q].as_bytes(), d[q]).unwrap();
            }
            if i % 2 == 1 {
                state = KeyedBootstrap::from_wire(&state.to_wire()).unwrap();
            }
            merged.merge(&state).unwrap();
        }
        assert_eq!(bootstrap_bits(&merged), reference, "split {split}");
    }
}

/// As a statistic it is the double-or-nothing bootstrap: on 2,000 queries
/// its bounds are within Monte Carlo error of the position-drawn one's
/// (each bound's standard error is about 0.7% of the interval's width at
/// 10,000 resamples; the tolerance is 5%).
#[test]
fn bootstrap_agrees_with_the_position_drawn_double_or_nothing() {
    let n = 2000;
    let d = differences(n);
    let ids = keys(n);
    let mut state = KeyedBootstrap::new(10_000, 42).unwrap();
    for (id, v) in ids.iter().zip(&d) {
        state.add(id.as_bytes(), *v).unwrap();
    }
    let keyed = state.result(0.95).unwrap();
    let positional = double_or_nothing_columns(&[&d], 0.95, 10_000, 42)
        .unwrap()
        .pop()
        .unwrap();
    let width = positional.interval.upper - positional.interval.lower;
    assert!(width > 0.0);
    for (got, want) in [
        (keyed.interval.lower, positional.interval.lower),
        (keyed.interval.upper, positional.interval.upper),
    ] {
        assert!((got - want).abs() < 0.05 * width, "{got} vs {want}");
    }
    assert!((keyed.standard_error / positional.standard_error - 1.0).abs() < 0.05);
}

#[test]
fn compare_with_the_keyed_bootstrap_is_the_state() {
    let baseline = values(30, 3);
    let candidate: Vec<f64> = values(30, 4).iter().map(|v| v * 0.8 + 0.15).collect();
    let ids = keys(30);
    let options = Options {
        test: Test::BootstrapKeyed,
        resampling: Resampling {
            resamples: 999,
            seed: 5,
            ..Default::default()
        },
        level: 0.9,
        ..Default::default()
    };
    let pairs = [(&baseline[..], &candidate[..])];
    let got = compare_all_keyed(&pairs, Some(std::slice::from_ref(&ids)), &options).unwrap();
    let mut state = KeyedBootstrap::new(999, 5).unwrap();
    for (id, (b, c)) in ids.iter().zip(baseline.iter().zip(&candidate)) {
        state.add(id.as_bytes(), c - b).unwrap();
    }
    let want = state.result(0.9).unwrap();
    assert_eq!(got[0].interval, want.interval);
    assert_eq!(got[0].p_value, want.p_value);
    assert_eq!(got[0].provenance.rng, Some(KEYED_BOOTSTRAP_RNG_NAME));
    assert!(matches!(
        compare_all(&pairs, &options),
        Err(CompareError::QueryIdsNeeded)
    ));
}

// ------------------------------------------------------------------ Tukey

/// The keyed Tukey HSD written out from its definition: each query's
/// keystream from word 2^41, one Fisher-Yates shuffle of the identity per
/// resample (Lemire's method on the stream's 32-bit words), exact sums.
fn tukey_by_definition(
    keys: &[String],
    systems: &[Vec<f64>],
    resamples: u64,
    seed: u64,
) -> Vec<f64> {
    let k = systems.len();
    let n = keys.len();
    let mut permuted: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); k]; resamples as usize];
    for (q, key) in keys.iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(spark_xxhash64(key.as_bytes()) as u64);
        rng.set_word_pos(1 << 41);
        for resample in permuted.iter_mut() {
            let mut pi: Vec<usize> = (0..k).collect();
            for i in (1..k).rev() {
                // Lemire's method, written out.
                let bound = (i + 1) as u64;
                let mut m = u64::from(rng.next_u32()) * bound;
                if (m as u32 as u64) < bound {
                    let threshold = (bound as u32).wrapping_neg() % bound as u32;
                    while (m as u32) < threshold {
                        m = u64::from(rng.next_u32()) * bound;
                    }
                }
                pi.swap(i, (m >> 32) as usize);
            }
            for j in 0..k {
                resample[j].push(systems[pi[j]][q]);
            }
        }
    }
    let sums: Vec<f64> = systems.iter().map(|s| fsum(s.iter().copied())).collect();
    let ranges: Vec<f64> = permuted
        .iter()
        .map(|resample| {
            let s: Vec<f64> = resample.iter().map(|v| fsum(v.iter().copied())).collect();
            s.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                - s.iter().copied().fold(f64::INFINITY, f64::min)
        })
        .collect();
    let mut p = Vec::new();
    for a in 0..k {
        for b in a + 1..k {
            let observed = (sums[b] - sums[a]).abs();
            let extreme = ranges.iter().filter(|r| **r >= observed).count();
            p.push((extreme + 1) as f64 / (resamples + 1) as f64);
        }
    }
    assert_eq!(n, systems[0].len());
    p
}

fn systems(n: usize, k: usize) -> Vec<Vec<f64>> {
    (0..k)
        .map(|j| {
            values(n, 10 + j as u64)
                .iter()
                .map(|v| 0.7 * v + 0.04 * j as f64)
                .collect()
        })
        .collect()
}

fn tukey_of(
    keys: &[String],
    systems: &[Vec<f64>],
    queries: &[usize],
    resamples: u64,
    seed: u64,
) -> KeyedTukey {
    let mut state = KeyedTukey::new(systems.len(), resamples, seed).unwrap();
    for &q in queries {
        let scores: Vec<f64> = systems.iter().map(|s| s[q]).collect();
        state.add(keys[q].as_bytes(), &scores).unwrap();
    }
    state
}

fn tukey_bits(hsd: &TukeyHsd) -> Vec<u64> {
    hsd.means
        .iter()
        .map(|m| m.to_bits())
        .chain(
            hsd.pairs
                .iter()
                .flat_map(|p| [p.difference.to_bits(), p.p_value.to_bits()]),
        )
        .collect()
}

#[test]
fn tukey_draws_as_its_definition_says() {
    for (n, k, resamples, seed) in [
        (9usize, 3usize, 300u64, 7u64),
        (15, 2, 99, 0),
        (6, 5, 200, u64::MAX),
    ] {
        let ids = keys(n);
        let s = systems(n, k);
        let all: Vec<usize> = (0..n).collect();
        let got = tukey_of(&ids, &s, &all, resamples, seed).result().unwrap();
        let want = tukey_by_definition(&ids, &s, resamples, seed);
        let p: Vec<f64> = got.pairs.iter().map(|p| p.p_value).collect();
        assert_eq!(p, want, "n {n} k {k}");
        assert!(
            want.iter()
                .any(|p| *p > 1.0 / (resamples + 1) as f64 && *p < 1.0)
        );
    }
}

#[test]
fn tukey_gives_the_same_bits_for_any_split_and_order() {
    let n = 120;
    let ids = keys(n);
    let s = systems(n, 4);
    let all: Vec<usize> = (0..n).collect();
    let reference = tukey_bits(&tukey_of(&ids, &s, &all, 300, 3).result().unwrap());
    for split in 0..6 {
        let mut rng = chunk_rng(split, 2);
        let mut merged = KeyedTukey::new(4, 300, 3).unwrap();
        for (i, part) in random_parts(n, &mut rng).iter().enumerate() {
            let mut state = tukey_of(&ids, &s, part, 300, 3);
            if i % 2 == 0 {
                state = KeyedTukey::from_wire(&state.to_wire()).unwrap();
            }
            merged.merge(&state).unwrap();
        }
        assert_eq!(
            tukey_bits(&merged.result().unwrap()),
            reference,
            "split {split}"
        );
    }
}

/// With two systems a permutation is a swap, so the Tukey HSD is the
/// sign-flip test: its p-value is within Monte Carlo error (5 standard
/// errors at 20,000 resamples) of the exact sign-flip p-value, enumerated
/// over the 2^12 sign vectors.
#[test]
fn tukey_of_two_systems_is_the_exact_sign_flip_test() {
    let n = 12;
    let ids = keys(n);
    let s = systems(n, 2);
    let all: Vec<usize> = (0..n).collect();
    let keyed = tukey_of(&ids, &s, &all, 20_000, 1).result().unwrap();
    let d: Vec<f64> = s[1].iter().zip(&s[0]).map(|(b, a)| b - a).collect();
    let exact = sign_flip(&d, &Resampling::default()).unwrap();
    assert!(exact.exact);
    let p = keyed.pairs[0].p_value;
    let se = (exact.p_value * (1.0 - exact.p_value) / 20_000.0).sqrt();
    assert!(
        (p - exact.p_value).abs() < 5.0 * se,
        "keyed {p}, exact {}",
        exact.p_value
    );
    assert!(exact.p_value > 0.01 && exact.p_value < 0.99);
}

/// With four systems its p-values are within Monte Carlo error of the
/// position-drawn randomized Tukey HSD's (10,000 resamples each).
#[test]
fn tukey_agrees_with_the_position_drawn_test() {
    let n = 60;
    let ids = keys(n);
    let s = systems(n, 4);
    let all: Vec<usize> = (0..n).collect();
    let keyed = tukey_of(&ids, &s, &all, 10_000, 42).result().unwrap();
    let columns: Vec<&[f64]> = s.iter().map(Vec::as_slice).collect();
    let positional = randomized_tukey_hsd(&columns, 10_000, 42).unwrap();
    let mut between = 0;
    for (a, b) in keyed.pairs.iter().zip(&positional.pairs) {
        let se = (b.p_value * (1.0 - b.p_value) / 10_000.0).sqrt().max(1e-3);
        assert!((a.p_value - b.p_value).abs() < 6.0 * se, "{a:?} vs {b:?}");
        assert!((a.difference - b.difference).abs() < 1e-12);
        between += usize::from(b.p_value > 0.01 && b.p_value < 0.99);
    }
    assert!(
        between > 0,
        "some p-values are neither 0 nor 1: {positional:?}"
    );
}

/// Valid wires of both kinds with values replaced by troublesome ones or
/// cut short at random: never a panic, and what reads back round-trips.
#[test]
fn damaged_wire_never_panics() {
    let pool = [
        0.0,
        1.0,
        2.0,
        5.0,
        6.0,
        -1.0,
        0.5,
        1e308,
        9007199254740992.0,
        4294967295.0,
        f64::NAN,
        f64::INFINITY,
        f64::MIN_POSITIVE,
    ];
    let ids = keys(3);
    let s = systems(3, 2);
    let all: Vec<usize> = (0..3).collect();
    let mut boot = KeyedBootstrap::new(3, 9).unwrap();
    for (id, v) in ids.iter().zip(&s[0]) {
        boot.add(id.as_bytes(), *v).unwrap();
    }
    let bases = [boot.to_wire(), tukey_of(&ids, &s, &all, 3, 9).to_wire()];
    let mut rng = chunk_rng(5, 5);
    let (mut read, mut refused) = (0, 0);
    for _ in 0..20_000 {
        let mut wire = bases[below(&mut rng, 2) as usize].clone();
        for _ in 0..=below(&mut rng, 2) {
            let at = below(&mut rng, wire.len() as u32) as usize;
            wire[at] = pool[below(&mut rng, pool.len() as u32) as usize];
        }
        if below(&mut rng, 4) == 0 {
            wire.truncate(below(&mut rng, wire.len() as u32) as usize);
        }
        let mut ok = false;
        // A sum's partials may be written differently (a zero dropped),
        // but what is read back is the same state.
        if let Ok(state) = KeyedBootstrap::from_wire(&wire) {
            assert_eq!(KeyedBootstrap::from_wire(&state.to_wire()).unwrap(), state);
            ok = true;
        }
        if let Ok(state) = KeyedTukey::from_wire(&wire) {
            assert_eq!(KeyedTukey::from_wire(&state.to_wire()).unwrap(), state);
            ok = true;
        }
        if ok {
            read += 1;
        } else {
            refused += 1;
        }
    }
    assert!(read > 0 && refused > 0, "read {read}, refused {refused}");
}
