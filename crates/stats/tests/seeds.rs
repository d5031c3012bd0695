//! Systems of several runs (seeds): a simulation where seed noise exists
//! and there is no true difference between two systems. The seed-aware
//! comparison ([`compare_systems`]) keeps its type-I error at alpha = 0.05
//! at or below 0.055; the comparison that ignores the seeds (the paired
//! t-test over queries of the seed-averaged values) is printed beside it,
//! inflated. `scripts/data/seed-simulation.py` runs the same simulation with
//! numpy and scipy and stored its rates in `tests/data/seeds.json`; the
//! rates here must agree with numpy's within Monte Carlo error.

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use rankeval_stats::{compare_systems, summarize_system};
use serde_json::Value;

use crate::fixtures::number;

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut ChaCha20Rng) -> f64 {
    let u1 = (f64::from(rng.next_u32()) + 1.0) / (f64::from(u32::MAX) + 2.0);
    let u2 = f64::from(rng.next_u32()) / (f64::from(u32::MAX) + 1.0);
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The model's parameters.
#[derive(Clone, Copy)]
struct Model {
    queries: usize,
    seeds: usize,
    query_sd: f64,
    interaction_sd: f64,
    seed_sd: f64,
    noise_sd: f64,
}

/// One replication: two systems with the same mean, `values[s][q]`.
fn replicate(model: Model, rng: &mut ChaCha20Rng) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let u: Vec<f64> = (0..model.queries)
        .map(|_| model.query_sd * normal(rng))
        .collect();
    let mut system = || {
        let w: Vec<f64> = (0..model.queries)
            .map(|_| model.interaction_sd * normal(rng))
            .collect();
        (0..model.seeds)
            .map(|_| {
                let v = model.seed_sd * normal(rng);
                (0..model.queries)
                    .map(|q| 0.5 + u[q] + w[q] + v + model.noise_sd * normal(rng))
                    .collect()
            })
            .collect::<Vec<Vec<f64>>>()
    };
    let a = system();
    let b = system();
    (a, b)
}

/// The rejection rates at alpha = 0.05 of the seed-aware and the seed-blind
/// comparison over `replications` replications.
fn rates(model: Model, replications: usize, seed: u64) -> (f64, f64) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let (mut aware, mut blind) = (0usize, 0usize);
    for _ in 0..replications {
        let (a, b) = replicate(model, &mut rng);
        let a: Vec<&[f64]> = a.iter().map(Vec::as_slice).collect();
        let b: Vec<&[f64]> = b.iter().map(Vec::as_slice).collect();
        let c = compare_systems(&a, &b, 0.95).expect("valid");
        aware += usize::from(c.p_value < 0.05);
        blind += usize::from(c.seed_blind_p_value < 0.05);
    }
    (
        aware as f64 / replications as f64,
        blind as f64 / replications as f64,
    )
}

fn fixture() -> Value {
    let path = format!("{}/tests/data/seeds.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).expect("seeds.json")).expect("JSON")
}

#[test]
fn seed_aware_type_one_error_is_at_most_0_055_and_the_seed_blind_one_is_inflated() {
    let data = fixture();
    let replications = data["replications"].as_u64().expect("replications") as usize;
    for case in data["cases"].as_array().expect("cases") {
        let p = &case["model"];
        let model = Model {
            queries: p["queries"].as_u64().expect("queries") as usize,
            seeds: p["seeds"].as_u64().expect("seeds") as usize,
            query_sd: number(&p["query_sd"]),
            interaction_sd: number(&p["interaction_sd"]),
            seed_sd: number(&p["seed_sd"]),
            noise_sd: number(&p["noise_sd"]),
        };
        let (aware, blind) = rates(model, replications, 2026);
        let name = case["name"].as_str().expect("name");
        eprintln!(
            "{name}: type-I error at alpha 0.05 over {replications} replications: seed-aware \
             {aware:.4} (numpy {:.4}), seed-blind {blind:.4} (numpy {:.4})",
            number(&case["aware"]),
            number(&case["blind"])
        );
        assert!(aware <= 0.055, "{name}: seed-aware type-I error {aware}");
        // Two independent estimates of a rate near r differ by at most
        // 5 sqrt(2 r (1 - r) / R).
        for (ours, theirs) in [
            (aware, number(&case["aware"])),
            (blind, number(&case["blind"])),
        ] {
            let sd = (2.0 * theirs.max(0.01) * (1.0 - theirs) / replications as f64).sqrt();
            assert!(
                (ours - theirs).abs() <= 5.0 * sd,
                "{name}: {ours} against numpy's {theirs}"
            );
        }
        if model.seed_sd > 0.0 {
            assert!(
                blind > 0.1,
                "{name}: the seed-blind test should be inflated: {blind}"
            );
        }
    }
}

#[test]
fn a_system_summary_is_deterministic_and_holds_its_mean() {
    let model = Model {
        queries: 40,
        seeds: 4,
        query_sd: 0.2,
        interaction_sd: 0.05,
        seed_sd: 0.02,
        noise_sd: 0.05,
    };
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let (a, _) = replicate(model, &mut rng);
    let a: Vec<&[f64]> = a.iter().map(Vec::as_slice).collect();
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool")
            .install(|| summarize_system(&a, 0.95, 2_000, 3).expect("valid"))
    };
    let one = run(1);
    assert_eq!(one, run(4));
    assert!(one.interval.lower < one.mean && one.mean < one.interval.upper);
    assert_eq!((one.runs, one.queries), (4, 40));
}
