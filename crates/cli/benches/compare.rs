//! What the comparison adds to an evaluation of many queries: the
//! evaluation of one run (the reference, measured in the same process)
//! next to the t-test and the bootstrap of its five metrics against a
//! baseline's per-query values, as a candidate is compared with a
//! committed results file.
//!
//! ```text
//! cargo bench -p rankeval-cli --bench compare                     # 1,000,000 queries x 100
//! cargo bench -p rankeval-cli --bench compare -- --shape 100000x100 --threads 1
//! ```
//!
//! Everything is generated in memory (seeded), nothing is written. The
//! reference is the engine's pass over runs already in memory
//! (`rankeval::evaluate`), without reading a file: less than what
//! `rankeval eval` spends, so the comparison is measured against the
//! smallest evaluation it could follow. CPU time (all threads, from
//! /proc/self/stat) is printed with the wall time: on a shared machine it
//! says more than the wall time.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::Instant;

use rand_core::Rng as _;
use rankeval::compare::stats::sign_flip::Resampling;
use rankeval::compare::stats::{BootstrapMethod, Options, Test, compare_all, rng};
use rankeval::core::{Duplicates, QrelsBuilder, RunBuilder};
use rankeval::{Options as EvalOptions, evaluate, parse_metric};

const METRICS: &[&str] = &["ap", "rr", "precision@10", "recall@10", "ndcg@10"];

/// xorshift64*: the same numbers on every machine.
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

struct Timing {
    wall: f64,
    cpu: f64,
}

impl std::fmt::Display for Timing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:7.3} s wall {:7.2} s CPU", self.wall, self.cpu)
    }
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Timing) {
    let cpu = cpu_seconds();
    let start = Instant::now();
    let value = black_box(f());
    let timing = Timing {
        wall: start.elapsed().as_secs_f64(),
        cpu: cpu_seconds() - cpu,
    };
    (value, timing)
}

/// User + system CPU seconds of this process (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
    };
    let (queries, docs) = value("--shape")
        .map(|s| {
            let (q, d) = s.split_once('x').expect("--shape QUERIESxDOCS");
            (q.parse().expect("queries"), d.parse().expect("docs"))
        })
        .unwrap_or((1_000_000usize, 100usize));
    let threads: usize = value("--threads").map_or(2, |t| t.parse().expect("threads"));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    pool.install(|| run(queries, docs, threads));
}

fn run(queries: usize, docs: usize, threads: usize) {
    println!("{queries} queries x {docs} documents, {threads} threads, metrics {METRICS:?}");
    let (qrels, run) = generate(queries, docs);
    let metrics: Vec<_> = METRICS
        .iter()
        .map(|m| parse_metric(m).expect("metric"))
        .collect();
    let (evaluation, eval) = timed(|| evaluate(&qrels, &run, &metrics, &EvalOptions::default()));
    drop((qrels, run));
    println!("evaluation (reference)                      {eval}");

    // The baseline: per-query values of an earlier model, as read from a
    // committed results file (here the candidate's, perturbed).
    let mut noise = Xorshift(0x0DDB_1A5E_5BAD_5EED);
    let columns: Vec<(Vec<f64>, Vec<f64>)> = (0..metrics.len())
        .map(|m| {
            let candidate = evaluation.column(m);
            let baseline = candidate
                .iter()
                .map(|v| (v + 0.1 * (noise.unit() - 0.52)).clamp(0.0, 1.0))
                .collect();
            (baseline, candidate)
        })
        .collect();
    let pairs: Vec<(&[f64], &[f64])> = columns
        .iter()
        .map(|(b, c)| (b.as_slice(), c.as_slice()))
        .collect();
    let options = |test, bootstrap, resamples| Options {
        test,
        bootstrap,
        resampling: Resampling {
            resamples,
            ..Resampling::default()
        },
        ..Options::default()
    };
    let ratio = |t: &Timing| format!("{:.2}x the evaluation's CPU", t.cpu / eval.cpu.max(1e-9));

    let (_, t) = timed(|| compare_all(&pairs, &options(Test::T, BootstrapMethod::Auto, 1)));
    println!(
        "t-test and interval, 5 metrics              {t}  {}",
        ratio(&t)
    );

    let auto = BootstrapMethod::Auto.resolve(queries);
    let (_, boot) = timed(|| {
        compare_all(
            &pairs,
            &options(Test::Bootstrap, BootstrapMethod::Auto, 10_000),
        )
    });
    println!(
        "bootstrap (auto: {}), 10,000 resamples, 5 metrics {boot}  {}",
        auto.name(),
        ratio(&boot)
    );
    let (_, one) = timed(|| {
        compare_all(
            &pairs[..1],
            &options(Test::Bootstrap, BootstrapMethod::Auto, 10_000),
        )
    });
    println!(
        "the same, 1 metric                          {one}  {}",
        ratio(&one)
    );

    // The multinomial bootstrap is linear in the resamples: 10,000 cost
    // 100 times this.
    let (_, multi) = timed(|| {
        compare_all(
            &pairs,
            &options(Test::Bootstrap, BootstrapMethod::Multinomial, 100),
        )
    });
    let extrapolated = Timing {
        wall: multi.wall * 100.0,
        cpu: multi.cpu * 100.0,
    };
    println!(
        "multinomial bootstrap, 100 resamples        {multi}  (x100 for 10,000: {extrapolated}, {})",
        ratio(&extrapolated)
    );

    // The floor of a Poisson bootstrap: one 32-bit draw per query and
    // resample, before any arithmetic (ChaCha20 as the other tests, ChaCha8
    // as the double-or-nothing bootstrap).
    let mut bytes = vec![0u8; 1 << 28];
    let (_, chacha20) = timed(|| rng::chunk_rng(rng::DEFAULT_SEED, 0).fill_bytes(&mut bytes));
    let (_, chacha8) = timed(|| rng::fast_chunk_rng(rng::DEFAULT_SEED, 0).fill_bytes(&mut bytes));
    for (name, t) in [("ChaCha20", chacha20), ("ChaCha8", chacha8)] {
        let per_byte = t.cpu / bytes.len() as f64;
        let poisson = 4.0 * 10_000.0 * queries as f64 * per_byte;
        println!(
            "{name}: {:.2} ns CPU per byte; a Poisson bootstrap's draws alone (4 bytes x 10,000 x {queries}) ~{poisson:.1} s CPU, {:.2}x the evaluation's CPU",
            per_byte * 1e9,
            poisson / eval.cpu.max(1e-9)
        );
    }
}

/// A qrels and a run of `queries` x `docs`, like the end-to-end bench's
/// files: up to 10 relevant documents per query (grades 1 to 3, mostly
/// retrieved near the top) and up to 20 judged non-relevant (a document
/// drawn twice is judged once), scores descending with ties.
fn generate(queries: usize, docs: usize) -> (rankeval::core::Qrels, rankeval::core::Run) {
    let mut rng = Xorshift(42u64.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut qrels = QrelsBuilder::with_capacity(queries * 30, queries * 30 * 8);
    let mut run = RunBuilder::with_capacity(queries * docs, queries * docs * 8);
    let mut ids: Vec<String> = Vec::with_capacity(docs);
    let mut judged = std::collections::HashSet::new();
    for q in 0..queries {
        let query = (1_000 + q).to_string();
        ids.clear();
        judged.clear();
        // Distinct within the query: a random start and stride.
        let start = rng.next() % 8_000_000;
        for d in 0..docs {
            ids.push(format!("D{:07}", start + 7 * d as u64));
        }
        for r in 0..10 {
            let doc = if r % 4 == 3 {
                format!("D{:07}", 8_000_000 + rng.next() % 800_000)
            } else {
                let rank = (rng.unit() * rng.unit() * docs as f64) as usize;
                ids[rank.min(docs - 1)].clone()
            };
            let grade = (1 + rng.next() % 3) as f64;
            if judged.insert(doc.clone()) {
                qrels
                    .push(query.as_str(), doc.as_str(), grade)
                    .expect("valid judgement");
            }
        }
        for n in 0..20 {
            let doc = if n % 2 == 0 {
                ids[(rng.next() % docs as u64) as usize].clone()
            } else {
                format!("D{:07}", 8_000_000 + rng.next() % 800_000)
            };
            if judged.insert(doc.clone()) {
                qrels
                    .push(query.as_str(), doc.as_str(), 0.0)
                    .expect("valid judgement");
            }
        }
        let mut score = 20.0 + rng.unit() * 5.0;
        for (rank, doc) in ids.iter().enumerate() {
            if rank > 0 && rng.unit() >= 0.05 {
                score -= rng.unit() * 0.05;
            }
            run.push_scored(query.as_str(), doc.as_str(), score)
                .expect("valid entry");
        }
    }
    (
        qrels.finish().expect("qrels"),
        run.finish(Duplicates::default()).expect("run"),
    )
}
