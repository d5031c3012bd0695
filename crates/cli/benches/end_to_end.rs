//! End-to-end benchmark of `rankeval eval`: whole process, median of several
//! runs, on generated TREC files, next to the floor measured in the same
//! run: reading the same file through a reused buffer and counting its lines
//! with memchr (what `wc -l` does).
//!
//! ```text
//! cargo bench -p rankeval-cli --bench end_to_end                 # 1k x 100, 100k x 100, 7k x 1000
//! cargo bench -p rankeval-cli --bench end_to_end -- --quick       # 1k x 100 only
//! cargo bench -p rankeval-cli --bench end_to_end -- --linear      # 10k, 100k, 1M x 100
//! cargo bench -p rankeval-cli --bench end_to_end -- --shape 7000x1000 --runs 9
//! cargo bench -p rankeval-cli --bench end_to_end -- generate 7000x1000   # print the file paths
//! cargo bench -p rankeval-cli --bench end_to_end -- --shape 100000x100 --ties average
//! cargo bench -p rankeval-cli --bench end_to_end -- --shape 100000x100 --baseline OTHER/rankeval
//! cargo bench -p rankeval-cli --bench end_to_end -- --conversations  # 200k queries, 50k conversations
//! ```
//!
//! `--ties MODE` also measures each shape with `--ties MODE`, and
//! `--baseline BIN` with another `rankeval` binary (say, a build of `main`),
//! in the same rounds, interleaved, so that both meet the same load; the
//! last column is the ratio to the plain run of the same shape.
//!
//! `--conversations` measures instead a comparison with a baseline on
//! 200,000 queries that are 50,000 conversations of 4 turns (ids `c7_3`,
//! two runs of 10 documents per query): `--baseline a` alone, and with
//! `--turns _`, which adds a group per conversation and per turn (each
//! compared, each rendered); the last column is the ratio of the two, the
//! cost of the groups (`--conversations-shape 40000x10000` for another
//! size).
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
    let mut ties: Option<String> = None;
    let mut baseline: Option<String> = None;
    let mut conversations: Option<(usize, usize)> = None;
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--ties" => ties = Some(iter.next().expect("--ties MODE").clone()),
            "--baseline" => baseline = Some(iter.next().expect("--baseline BIN").clone()),
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
            "--conversations" => conversations = Some((200_000, 50_000)),
            "--conversations-shape" => {
                let text = iter
                    .next()
                    .expect("--conversations-shape QUERIESxCONVERSATIONS");
                let (q, c) = text.split_once('x').expect("QUERIESxCONVERSATIONS");
                conversations = Some((
                    q.parse().expect("queries"),
                    c.parse().expect("conversations"),
                ));
            }
            "--runs" => runs = iter.next().and_then(|r| r.parse().ok()).expect("--runs N"),
            other => panic!("unknown argument {other}"),
        }
    }
    if !custom.is_empty() {
        shapes = custom;
    }
    if let Some((queries, count)) = conversations {
        return measure_conversations(queries, count, runs);
    }
    println!("machine: {}", machine());
    println!(
        "rankeval eval -m {} ; whole process, median of {runs} rounds (every shape once per round, after a warm-up round); floor = read the file + count lines with memchr, same round\n",
        METRICS.join(" -m ")
    );
    println!(
        "{:<24} {:>11} {:>8} {:>9} {:>9} {:>7} {:>11} {:>7} {:>9} {:>8} {:>9}",
        "shape",
        "lines",
        "MB",
        "floor s",
        "rankeval",
        "x floor",
        "lines/s",
        "MB/s",
        "peak RSS",
        "x file",
        "x plain"
    );
    // Measure every shape once per round, round after round, so that a
    // change in the machine's load hits every shape alike.
    let mut prepared: Vec<Prepared> = Vec::new();
    for shape in &shapes {
        let plain = prepare(shape);
        if let Some(mode) = &ties {
            let mut variant = plain.variant(&format!(" ties={mode}"));
            variant.args.extend(["--ties".to_owned(), mode.clone()]);
            prepared.push(variant);
        }
        if let Some(bin) = &baseline {
            let mut variant = plain.variant(" baseline");
            variant.bin = bin.clone();
            prepared.push(variant);
        }
        prepared.push(plain);
    }
    let mut floors = vec![Vec::new(); prepared.len()];
    let mut walls = vec![Vec::new(); prepared.len()];
    let mut peaks = vec![0u64; prepared.len()];
    for round in 0..=runs {
        for (i, shape) in prepared.iter().enumerate() {
            let floor = floor_once(&shape.run);
            let (wall, rss) = process_once(&shape.bin, &shape.args);
            // Round 0 warms the page cache and is not counted.
            if round > 0 {
                floors[i].push(floor);
                walls[i].push(wall);
                peaks[i] = peaks[i].max(rss);
            }
        }
    }
    let medians: Vec<Duration> = walls.iter_mut().map(|w| median(w)).collect();
    for (i, shape) in prepared.iter().enumerate() {
        let floor = median(&mut floors[i]);
        let wall = medians[i];
        let mb = shape.size as f64 / 1e6;
        // The plain run of the same shape: the last of its group.
        let plain = prepared[i..]
            .iter()
            .position(|p| p.name == shape.shape)
            .map_or(wall, |j| medians[i + j]);
        println!(
            "{:<24} {:>11} {:>8.1} {:>9.4} {:>9.4} {:>7.1} {:>10.1}M {:>7.0} {:>6} MB {:>8.2} {:>9.3}",
            shape.name,
            shape.lines,
            mb,
            floor.as_secs_f64(),
            wall.as_secs_f64(),
            wall.as_secs_f64() / floor.as_secs_f64(),
            shape.lines as f64 / wall.as_secs_f64() / 1e6,
            mb / wall.as_secs_f64(),
            peaks[i] / 1024,
            (peaks[i] * 1024) as f64 / shape.size as f64,
            wall.as_secs_f64() / plain.as_secs_f64(),
        );
    }
    ExitCode::SUCCESS
}

/// The conversations case (see the module): `queries` queries in `count`
/// conversations, compared with a baseline with and without `--turns _`,
/// median of `runs` rounds after a warm-up round.
fn measure_conversations(queries: usize, count: usize, runs: usize) -> ExitCode {
    assert!(
        count > 0 && queries >= count,
        "at least one turn per conversation"
    );
    let files = conversation_files(queries, count);
    let mut args = vec![
        "eval".to_owned(),
        "--qrels".to_owned(),
        files[0].display().to_string(),
    ];
    for (name, run) in [("a", &files[1]), ("b", &files[2])] {
        args.extend(["--run".to_owned(), format!("{name}={}", run.display())]);
    }
    for m in METRICS {
        args.extend(["-m".to_owned(), (*m).to_owned()]);
    }
    args.extend(["--baseline".to_owned(), "a".to_owned()]);
    let mut turns = args.clone();
    turns.extend(["--turns".to_owned(), "_".to_owned()]);
    println!("machine: {}", machine());
    println!(
        "rankeval eval -m {} --run a --run b --baseline a [--turns _]; {queries} queries in {count} conversations, 10 documents each; whole process, median of {runs} rounds after a warm-up round\n",
        METRICS.join(" -m ")
    );
    let bin = env!("CARGO_BIN_EXE_rankeval");
    let (mut plain, mut grouped) = (Vec::new(), Vec::new());
    let (mut plain_rss, mut grouped_rss) = (0, 0);
    for round in 0..=runs {
        let (p, p_rss) = process_once(bin, &args);
        let (g, g_rss) = process_once(bin, &turns);
        if round > 0 {
            plain.push(p);
            grouped.push(g);
            plain_rss = plain_rss.max(p_rss);
            grouped_rss = grouped_rss.max(g_rss);
        }
    }
    let (plain, grouped) = (median(&mut plain), median(&mut grouped));
    println!(
        "{:<28} {:>10} {:>10} {:>9}",
        "case", "wall s", "peak RSS", "x plain"
    );
    println!(
        "{:<28} {:>10.3} {:>7} MB {:>9.2}",
        "--baseline a",
        plain.as_secs_f64(),
        plain_rss / 1024,
        1.0
    );
    println!(
        "{:<28} {:>10.3} {:>7} MB {:>9.2}",
        "--baseline a --turns _",
        grouped.as_secs_f64(),
        grouped_rss / 1024,
        grouped.as_secs_f64() / plain.as_secs_f64()
    );
    ExitCode::SUCCESS
}

/// The qrels and the runs `a` and `b` of the conversations case, generated
/// (seeded) on first use: query `q` is turn `q / count + 1` of conversation
/// `q % count` (`c{conversation}_{turn}`), with 3 relevant and 2
/// non-relevant judged documents; run `b` is run `a` with its scores
/// perturbed.
fn conversation_files(queries: usize, count: usize) -> [PathBuf; 3] {
    use std::io::{BufRead, BufWriter, Write};
    let shape = Shape {
        relevant: 3,
        nonrelevant: 2,
        ..Shape::new(queries, 10)
    };
    let dir = data_dir().join(format!("conversations-{queries}-{count}"));
    let generated = generate(&shape, &dir).expect("generate the inputs");
    let paths = [
        dir.join("qrels.txt"),
        dir.join("a.trec"),
        dir.join("b.trec"),
    ];
    let done = dir.join(".converted");
    if done.exists() {
        return paths;
    }
    let id = |query: &str| {
        let q: usize = query.parse::<usize>().expect("a generated query id") - 1_000;
        format!("c{}_{}", q % count, q / count + 1)
    };
    let lines = |path: &Path| std::io::BufReader::new(std::fs::File::open(path).unwrap()).lines();
    let create = |path: &Path| BufWriter::new(std::fs::File::create(path).unwrap());
    let mut qrels = create(&paths[0]);
    for line in lines(&generated.qrels) {
        let line = line.unwrap();
        let (query, rest) = line.split_once(' ').unwrap();
        writeln!(qrels, "{} {rest}", id(query)).unwrap();
    }
    let (mut a, mut b) = (create(&paths[1]), create(&paths[2]));
    for line in lines(&generated.run) {
        let line = line.unwrap();
        let fields: Vec<&str> = line.split(' ').collect();
        let query = id(fields[0]);
        writeln!(a, "{query} {}", fields[1..].join(" ")).unwrap();
        let rank: f64 = fields[3].parse().unwrap();
        let score: f64 = fields[4].parse::<f64>().unwrap() + (rank * 7.0) % 5.0 * 0.01;
        writeln!(b, "{query} Q0 {} {} {score:.6} b", fields[2], fields[3]).unwrap();
    }
    for mut file in [qrels, a, b] {
        file.flush().unwrap();
    }
    std::fs::File::create(done).unwrap();
    paths
}

/// A generated shape, ready to measure.
#[derive(Clone)]
struct Prepared {
    /// The row's name: the shape, and the variant if any.
    name: String,
    /// The shape alone.
    shape: String,
    run: PathBuf,
    size: u64,
    lines: usize,
    /// The `rankeval` binary.
    bin: String,
    args: Vec<String>,
}

impl Prepared {
    /// The same measurement, named with `suffix`, to be changed.
    fn variant(&self, suffix: &str) -> Prepared {
        Prepared {
            name: format!("{}{suffix}", self.name),
            ..self.clone()
        }
    }
}

fn prepare(shape: &Shape) -> Prepared {
    let files = generate(shape, &data_dir()).expect("generate the inputs");
    let size = std::fs::metadata(&files.run).unwrap().len();
    let lines = memchr::memchr_iter(b'\n', &std::fs::read(&files.run).unwrap()).count();
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
    Prepared {
        name: shape.name(),
        shape: shape.name(),
        run: files.run,
        size,
        lines,
        bin: env!("CARGO_BIN_EXE_rankeval").to_owned(),
        args,
    }
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The floor: read `path` through one reused 1 MiB buffer (as `wc -l`
/// does) and count its lines with memchr.
fn floor_once(path: &Path) -> Duration {
    use std::io::Read;
    let start = Instant::now();
    let mut file = std::fs::File::open(path).unwrap();
    let mut buffer = vec![0u8; 1 << 20];
    let mut lines = 0;
    loop {
        let got = file.read(&mut buffer).unwrap();
        if got == 0 {
            break;
        }
        lines += memchr::memchr_iter(b'\n', &buffer[..got]).count();
    }
    std::hint::black_box(lines);
    start.elapsed()
}

/// Runs `rankeval` once under a wrapper that reports its wall time and
/// peak RSS (KiB).
fn process_once(bin: &str, args: &[String]) -> (Duration, u64) {
    let output = Command::new(std::env::current_exe().unwrap())
        .arg("__measure")
        .arg(bin)
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .unwrap();
    assert!(output.status.success(), "rankeval failed");
    let text = String::from_utf8(output.stdout).unwrap();
    let (wall, rss) = text.trim().split_once(' ').unwrap();
    (
        Duration::from_secs_f64(wall.parse().unwrap()),
        rss.parse().unwrap(),
    )
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
