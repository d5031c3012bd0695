//! End-to-end benchmark of `rankeval eval`: whole process, median of several
//! runs, on generated TREC files, next to the floor measured in the same
//! run: reading the same file and counting its lines with memchr.
//!
//! ```text
//! cargo bench -p rankeval-runner --bench end_to_end                 # 1k x 100, 100k x 100, 7k x 1000
//! cargo bench -p rankeval-runner --bench end_to_end -- --quick       # 1k x 100 only
//! cargo bench -p rankeval-runner --bench end_to_end -- --linear      # 10k, 100k, 1M x 100
//! cargo bench -p rankeval-runner --bench end_to_end -- --shape 7000x1000 --runs 9
//! cargo bench -p rankeval-runner --bench end_to_end -- generate 7000x1000   # print the file paths
//! ```
//!
//! Inputs are generated (seeded) under `target/bench-data/` on first use and
//! never committed. The metric set is the issue's: ap, rr, precision@10,
//! recall@10, ndcg@10.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use support::generate::{Shape, generate};

const METRICS: &[&str] = &["ap", "rr", "precision@10", "recall@10", "ndcg@10"];

fn data_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("bench-data")
}

fn parse_shape(text: &str) -> Shape {
    let (q, d) = text
        .split_once('x')
        .unwrap_or_else(|| panic!("a shape is QUERIESxDOCS, e.g. 7000x1000, not {text}"));
    Shape::new(
        q.parse().expect("queries"),
        d.parse().expect("docs per query"),
    )
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if args.first().map(String::as_str) == Some("__measure") {
        return measure_child(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("generate") {
        for shape in args[1..].iter().map(|s| parse_shape(s)) {
            let files = generate(&shape, &data_dir()).expect("generate");
            println!("{} {}", files.qrels.display(), files.run.display());
        }
        return ExitCode::SUCCESS;
    }
    let mut shapes = vec![
        Shape::new(1_000, 100),
        Shape::new(100_000, 100),
        Shape::new(7_000, 1_000),
    ];
    let mut runs = 5;
    let mut iter = args.iter();
    let mut custom = Vec::new();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--quick" => {
                shapes = vec![Shape::new(1_000, 100)];
                runs = 3;
            }
            "--linear" => {
                shapes = vec![
                    Shape::new(10_000, 100),
                    Shape::new(100_000, 100),
                    Shape::new(1_000_000, 100),
                ];
            }
            "--shape" => custom.push(parse_shape(iter.next().expect("--shape QUERIESxDOCS"))),
            "--runs" => runs = iter.next().and_then(|r| r.parse().ok()).expect("--runs N"),
            other => panic!("unknown argument {other}"),
        }
    }
    if !custom.is_empty() {
        shapes = custom;
    }
    println!("machine: {}", machine());
    println!(
        "rankeval eval -m {} ; whole process, median of {runs} runs; floor = read the file + count lines with memchr, same run\n",
        METRICS.join(" -m ")
    );
    println!(
        "{:<12} {:>11} {:>8} {:>9} {:>9} {:>7} {:>11} {:>7} {:>9} {:>8}",
        "shape",
        "lines",
        "MB",
        "floor s",
        "rankeval",
        "x floor",
        "lines/s",
        "MB/s",
        "peak RSS",
        "x file"
    );
    for shape in shapes {
        let files = generate(&shape, &data_dir()).expect("generate the inputs");
        let size = std::fs::metadata(&files.run).unwrap().len();
        let (floor, lines) = floor(&files.run, runs);
        let mut args = vec![
            "eval".to_owned(),
            "--qrels".to_owned(),
            files.qrels.display().to_string(),
            "--run".to_owned(),
            files.run.display().to_string(),
            "--format".to_owned(),
            "json".to_owned(),
        ];
        for m in METRICS {
            args.push("-m".to_owned());
            args.push((*m).to_owned());
        }
        let (wall, rss_kb) = median_process(env!("CARGO_BIN_EXE_rankeval"), &args, runs);
        let mb = size as f64 / 1e6;
        println!(
            "{:<12} {:>11} {:>8.1} {:>9.4} {:>9.4} {:>7.1} {:>10.1}M {:>7.0} {:>6} MB {:>8.2}",
            shape.name(),
            lines,
            mb,
            floor.as_secs_f64(),
            wall.as_secs_f64(),
            wall.as_secs_f64() / floor.as_secs_f64(),
            lines as f64 / wall.as_secs_f64() / 1e6,
            mb / wall.as_secs_f64(),
            rss_kb / 1024,
            (rss_kb * 1024) as f64 / size as f64,
        );
    }
    ExitCode::SUCCESS
}

/// The floor: read `path` whole and count its lines with memchr; median time.
fn floor(path: &Path, runs: usize) -> (Duration, usize) {
    let mut times = Vec::with_capacity(runs);
    let mut lines = 0;
    for _ in 0..runs.max(1) + 1 {
        let start = Instant::now();
        let bytes = std::fs::read(path).unwrap();
        lines = memchr::memchr_iter(b'\n', &bytes).count();
        times.push(start.elapsed());
    }
    times.remove(0); // the first run warms the page cache
    times.sort();
    (times[times.len() / 2], lines)
}

/// Runs `program` `runs` times (after one warm-up), each under a wrapper
/// that reports its wall time and peak RSS; the median time and largest RSS.
fn median_process(program: &str, args: &[String], runs: usize) -> (Duration, u64) {
    let mut times = Vec::with_capacity(runs);
    let mut peak = 0;
    for run in 0..runs.max(1) + 1 {
        let output = Command::new(std::env::current_exe().unwrap())
            .arg("__measure")
            .arg(program)
            .args(args)
            .stderr(Stdio::inherit())
            .output()
            .unwrap();
        assert!(output.status.success(), "rankeval failed");
        let text = String::from_utf8(output.stdout).unwrap();
        let (wall, rss) = text.trim().split_once(' ').unwrap();
        if run > 0 {
            times.push(Duration::from_secs_f64(wall.parse().unwrap()));
            peak = peak.max(rss.parse::<u64>().unwrap());
        }
    }
    times.sort();
    (times[times.len() / 2], peak)
}

/// The wrapper: runs the command with stdout discarded; prints its wall
/// time in seconds and its peak RSS in KiB (getrusage of the only child).
fn measure_child(command: &[String]) -> ExitCode {
    let start = Instant::now();
    let status = Command::new(&command[0])
        .args(&command[1..])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    let wall = start.elapsed();
    let usage =
        nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).unwrap();
    println!("{} {}", wall.as_secs_f64(), usage.max_rss());
    if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    format!("{cpus} CPUs, {model}")
}
