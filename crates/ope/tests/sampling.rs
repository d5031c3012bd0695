//! The Plackett-Luce marginals by seeded Monte Carlo converge to the exact
//! enumeration, within their Monte Carlo error, and are the same bits for
//! the same seed and stream.

use rankeval_ope::PlackettLuce;
use rankeval_stats::rng::fast_chunk_rng;

/// Seven items, slates of four: 7·6·5 = 210 orderings above the last
/// position, few enough to enumerate.
fn model() -> PlackettLuce {
    PlackettLuce::new(&[0.3, -1.0, 2.0, 0.5, 1.2, -0.4, 0.0], 0.8).unwrap()
}

#[test]
fn sampled_marginals_converge_to_the_exact_ones() {
    let seed = 20261129;
    println!("seed {seed}");
    let pl = model();
    let slates = [
        vec![Some(2), Some(4), Some(0), Some(3)],
        vec![Some(1), Some(5), Some(6), Some(2)],
        vec![Some(6), None, Some(1), Some(4)],
    ];
    for (k, slate) in slates.iter().enumerate() {
        let exact = pl.marginals(slate, 1000).unwrap();
        let mut rng = fast_chunk_rng(seed, k as u64);
        let sampled = pl.sampled_marginals(slate, 40_000, &mut rng);
        for (l, (e, s)) in exact.iter().zip(&sampled).enumerate() {
            // The first position's conditional is exact (no item above),
            // and an item not in the list has none.
            if l == 0 || slate[l].is_none() {
                assert!(
                    (s.value - e).abs() <= 1e-15,
                    "slate {k}, position {l}: {} vs {e}",
                    s.value
                );
                continue;
            }
            assert!(s.standard_error > 0.0 && s.standard_error < 2e-3, "{s:?}");
            let z = (s.value - e).abs() / s.standard_error;
            // Four Monte Carlo errors: 1 in 16,000 per comparison by chance.
            assert!(
                z < 4.0,
                "slate {k}, position {l}: {} vs exact {e}, z = {z}",
                s.value
            );
        }
    }
}

#[test]
fn more_samples_shrink_the_error() {
    let pl = model();
    let slate = [Some(2), Some(4), Some(0), Some(3)];
    let exact = pl.marginals(&slate, 1000).unwrap()[3];
    let few = pl.sampled_marginals(&slate, 100, &mut fast_chunk_rng(1, 0))[3];
    let many = pl.sampled_marginals(&slate, 100_000, &mut fast_chunk_rng(1, 0))[3];
    assert!(
        many.standard_error * 20.0 < few.standard_error * 1.5,
        "{few:?} {many:?}"
    );
    assert!((many.value - exact).abs() < 4.0 * many.standard_error);
}

#[test]
fn the_same_seed_and_stream_give_the_same_bits() {
    let pl = model();
    let slate = [Some(5), Some(4), Some(0), Some(3)];
    let a = pl.sampled_marginals(&slate, 5000, &mut fast_chunk_rng(7, 99));
    let b = pl.sampled_marginals(&slate, 5000, &mut fast_chunk_rng(7, 99));
    let c = pl.sampled_marginals(&slate, 5000, &mut fast_chunk_rng(8, 99));
    let bits = |v: &[rankeval_ope::plackett_luce::SampledMarginal]| {
        v.iter()
            .map(|m| (m.value.to_bits(), m.standard_error.to_bits()))
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&a), bits(&b));
    assert_ne!(bits(&a), bits(&c));
    assert!(
        pl.sampled_marginals(&slate, 0, &mut fast_chunk_rng(7, 99))
            .iter()
            .all(|m| m.value == 0.0)
    );
}
