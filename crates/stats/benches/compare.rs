//! Cost of the comparisons, on synthetic metric-like columns generated in
//! memory (nothing is read or written).
//!
//! `cargo bench -p rankeval-stats --bench compare [-- THREADS]` (default
//! 2 threads). Prints one line per case: the best of a few repetitions.
//!
//! * randomization: 100,000 sign-flip resamples for 3 runs x 5 metrics
//!   (15 columns) on 10,000 queries (target: under 2 s on 2 cores);
//! * t-test and bootstrap intervals on 1,000,000 queries, with a plain pass
//!   over the column (its mean) as the reference: the double-or-nothing
//!   bootstrap (10,000 resamples, 1 and 5 columns) and the multinomial one
//!   (200 resamples; linear in the resamples).
//!
//! `crates/cli/benches/compare.rs` measures the same against the
//! evaluation of the queries.

use std::hint::black_box;
use std::time::{Duration, Instant};

use rankeval_stats::sign_flip::Resampling;
use rankeval_stats::{BootstrapMethod, Options, Test, compare, compare_all};

fn columns(n: usize, salt: u64) -> (Vec<f64>, Vec<f64>) {
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ salt;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let baseline: Vec<f64> = (0..n).map(|_| next()).collect();
    let candidate = baseline
        .iter()
        .map(|b| (b + 0.1 * (next() - 0.49)).clamp(0.0, 1.0))
        .collect();
    (baseline, candidate)
}

/// Wall and CPU time of the fastest of `repeat` runs. CPU time (all
/// threads, from /proc/self/stat) divided by the thread count estimates the
/// wall time on otherwise idle cores when the machine is shared.
fn best<T>(repeat: usize, mut f: impl FnMut() -> T) -> Timing {
    (0..repeat)
        .map(|_| {
            let cpu = cpu_seconds();
            let start = Instant::now();
            black_box(f());
            Timing {
                wall: start.elapsed(),
                cpu: cpu_seconds() - cpu,
            }
        })
        .min_by(|a, b| a.wall.cmp(&b.wall))
        .unwrap_or(Timing {
            wall: Duration::ZERO,
            cpu: 0.0,
        })
}

struct Timing {
    wall: Duration,
    cpu: f64,
}

impl std::fmt::Display for Timing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:.3} s wall, {:.2} s CPU",
            self.wall.as_secs_f64(),
            self.cpu
        )
    }
}

/// User + system CPU seconds of this process (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which ends with ')'): utime is the
    // 12th, stime the 13th, in clock ticks (100 per second on Linux).
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let threads: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(2);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap_or_else(|e| panic!("thread pool: {e}"));
    pool.install(|| run(threads));
}

fn run(threads: usize) {
    println!("threads: {threads}");
    let data: Vec<(Vec<f64>, Vec<f64>)> = (0..15).map(|i| columns(10_000, i)).collect();
    let pairs: Vec<(&[f64], &[f64])> = data
        .iter()
        .map(|(b, c)| (b.as_slice(), c.as_slice()))
        .collect();
    let options = |test, resamples| Options {
        test,
        resampling: Resampling {
            resamples,
            ..Resampling::default()
        },
        ..Options::default()
    };
    let t = best(5, || compare_all(&pairs, &options(Test::T, 0)));
    let randomization = best(3, || {
        compare_all(&pairs, &options(Test::Randomization, 100_000))
    });
    println!(
        "randomization 100,000 resamples, 15 columns x 10,000 queries: {randomization} (t-test of the same: {t})"
    );
    let alone = best(3, || {
        compare(
            pairs[0].0,
            pairs[0].1,
            &options(Test::Randomization, 100_000),
        )
    });
    println!("randomization 100,000 resamples, 1 column x 10,000 queries: {alone}");

    let (b, c) = columns(1_000_000, 99);
    let mean = best(5, || b.iter().sum::<f64>() / b.len() as f64);
    let t = best(5, || compare(&b, &c, &options(Test::T, 0)));
    println!("1,000,000 queries: mean {mean}; t-test with interval {t}");
    let double_or_nothing = |columns: usize| {
        let data: Vec<(Vec<f64>, Vec<f64>)> = (0..columns as u64)
            .map(|i| self::columns(1_000_000, 100 + i))
            .collect();
        let pairs: Vec<(&[f64], &[f64])> = data
            .iter()
            .map(|(b, c)| (b.as_slice(), c.as_slice()))
            .collect();
        let options = Options {
            bootstrap: BootstrapMethod::DoubleOrNothing,
            ..options(Test::Bootstrap, 10_000)
        };
        best(1, || compare_all(&pairs, &options))
    };
    let mut bytes = vec![0u8; 1 << 28];
    let chacha = best(1, || {
        rand_core::Rng::fill_bytes(
            &mut rankeval_stats::rng::chunk_rng(rankeval_stats::DEFAULT_SEED, 0),
            &mut bytes,
        )
    });
    println!(
        "ChaCha20, 256 MiB: {chacha} ({:.2} ns CPU per byte)",
        chacha.cpu * 1e9 / bytes.len() as f64
    );
    let chacha8 = best(1, || {
        let mut rng = <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(42);
        rand_core::Rng::fill_bytes(&mut rng, &mut bytes)
    });
    println!(
        "ChaCha8, 256 MiB: {chacha8} ({:.2} ns CPU per byte)",
        chacha8.cpu * 1e9 / bytes.len() as f64
    );
    drop(bytes);
    for columns in [1, 2, 5] {
        println!(
            "1,000,000 queries: double-or-nothing bootstrap 10,000 resamples, {columns} column(s): {}",
            double_or_nothing(columns)
        );
    }
    // Linear in the resamples: 10,000 resamples cost 50 times this.
    let multinomial = Options {
        bootstrap: BootstrapMethod::Multinomial,
        ..options(Test::Bootstrap, 200)
    };
    let boot = best(1, || compare(&b, &c, &multinomial));
    println!(
        "1,000,000 queries: multinomial bootstrap 200 resamples {boot} ({:.1} ns CPU per drawn query; x50 for 10,000 resamples)",
        boot.cpu * 1e9 / (200.0 * 1e6)
    );
}
