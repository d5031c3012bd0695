//! `rankeval eval` on the same run as TREC and as Parquet: the generated
//! 100k x 100 benchmark run (seeded, under `target/bench-data/`) is written
//! once as a long Parquet table (`user, item, score`, snappy, 1M-row row
//! groups, what pandas and polars write) and as a Parquet table with list
//! columns (`user, items, scores`); each is evaluated as a whole process,
//! median of several rounds, all formats measured in every round. The
//! issue's target: Parquet within 2x the TREC time.
//!
//! ```text
//! cargo bench -p rankeval-cli --bench formats                  # 100k x 100, 5 rounds
//! cargo bench -p rankeval-cli --bench formats -- --shape 1000x100 --runs 3
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::builder::{ArrayBuilder, Float64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use support::generate::{Shape, generate};

const METRICS: &[&str] = &["ap", "rr", "precision@10", "recall@10", "ndcg@10"];

fn data_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("bench-data")
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if args.first().map(String::as_str) == Some("__measure") {
        return measure_child(&args[1..]);
    }
    let mut shape = Shape::new(100_000, 100);
    let mut runs = 5;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--shape" => {
                let text = iter.next().expect("--shape QUERIESxDOCS");
                let (q, d) = text.split_once('x').expect("QUERIESxDOCS");
                shape = Shape::new(q.parse().expect("queries"), d.parse().expect("docs"));
            }
            "--runs" => runs = iter.next().and_then(|r| r.parse().ok()).expect("--runs N"),
            other => panic!("unknown argument {other}"),
        }
    }
    let files = generate(&shape, &data_dir()).expect("generate the inputs");
    let dir = files.run.parent().unwrap().to_owned();
    let long = dir.join("run.parquet");
    let lists = dir.join("run-lists.parquet");
    if !long.exists() || !lists.exists() {
        write_parquet(&files.run, &long, &lists);
    }
    let inputs = [
        ("trec", files.run.clone()),
        ("parquet long", long),
        ("parquet lists", lists),
    ];
    println!(
        "{}: rankeval eval -m {} ; whole process, median of {runs} rounds after a warm-up\n",
        shape.name(),
        METRICS.join(" -m ")
    );
    let mut walls = vec![Vec::new(); inputs.len()];
    for round in 0..=runs {
        for (i, (_, run)) in inputs.iter().enumerate() {
            let wall = process_once(&files.qrels, run);
            if round > 0 {
                walls[i].push(wall);
            }
        }
    }
    // The machine's load while measuring: ratios from a busy machine
    // (other builds on the same cores) are less sure.
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        let fields: Vec<&str> = load.split_whitespace().take(3).collect();
        println!("load average after: {}\n", fields.join(" "));
    }
    let trec = median(&mut walls[0]);
    println!("{:<14} {:>9} {:>9} {:>8}", "run", "MB", "seconds", "x trec");
    for (i, (name, path)) in inputs.iter().enumerate() {
        let wall = median(&mut walls[i]);
        println!(
            "{:<14} {:>9.1} {:>9.4} {:>8.2}",
            name,
            std::fs::metadata(path).unwrap().len() as f64 / 1e6,
            wall.as_secs_f64(),
            wall.as_secs_f64() / trec.as_secs_f64()
        );
    }
    ExitCode::SUCCESS
}

/// Writes the TREC run at `trec` as a long Parquet table and as one with
/// list columns (the TREC file is grouped by query).
fn write_parquet(trec: &Path, long: &Path, lists: &Path) {
    let properties = || {
        WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .build()
    };
    let mut long_writer: Option<ArrowWriter<File>> = None;
    let mut lists_writer: Option<ArrowWriter<File>> = None;
    let (mut users, mut items, mut scores) = (
        StringBuilder::new(),
        StringBuilder::new(),
        Float64Builder::new(),
    );
    let mut list_users = StringBuilder::new();
    let mut list_items = ListBuilder::new(StringBuilder::new());
    let mut list_scores = ListBuilder::new(Float64Builder::new());
    let mut current: Option<String> = None;
    let mut rows = 0usize;
    let flush_long = |users: &mut StringBuilder,
                      items: &mut StringBuilder,
                      scores: &mut Float64Builder,
                      writer: &mut Option<ArrowWriter<File>>| {
        let batch = RecordBatch::try_from_iter([
            ("user", Arc::new(users.finish()) as ArrayRef),
            ("item", Arc::new(items.finish()) as ArrayRef),
            ("score", Arc::new(scores.finish()) as ArrayRef),
        ])
        .unwrap();
        writer
            .get_or_insert_with(|| {
                ArrowWriter::try_new(
                    File::create(long).unwrap(),
                    batch.schema(),
                    Some(properties()),
                )
                .unwrap()
            })
            .write(&batch)
            .unwrap();
    };
    let flush_lists = |users: &mut StringBuilder,
                       items: &mut ListBuilder<StringBuilder>,
                       scores: &mut ListBuilder<Float64Builder>,
                       writer: &mut Option<ArrowWriter<File>>| {
        let batch = RecordBatch::try_from_iter([
            ("user", Arc::new(users.finish()) as ArrayRef),
            ("items", Arc::new(items.finish()) as ArrayRef),
            ("scores", Arc::new(scores.finish()) as ArrayRef),
        ])
        .unwrap();
        writer
            .get_or_insert_with(|| {
                ArrowWriter::try_new(
                    File::create(lists).unwrap(),
                    batch.schema(),
                    Some(properties()),
                )
                .unwrap()
            })
            .write(&batch)
            .unwrap();
    };
    for line in BufReader::new(File::open(trec).unwrap()).lines() {
        let line = line.unwrap();
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        let (query, doc, score) = (fields[0], fields[2], fields[4].parse::<f64>().unwrap());
        users.append_value(query);
        items.append_value(doc);
        scores.append_value(score);
        rows += 1;
        if rows.is_multiple_of(65_536) {
            flush_long(&mut users, &mut items, &mut scores, &mut long_writer);
        }
        if current.as_deref() != Some(query) {
            if current.is_some() {
                list_items.append(true);
                list_scores.append(true);
                if list_users.len().is_multiple_of(1024) {
                    flush_lists(
                        &mut list_users,
                        &mut list_items,
                        &mut list_scores,
                        &mut lists_writer,
                    );
                }
            }
            list_users.append_value(query);
            current = Some(query.to_owned());
        }
        list_items.values().append_value(doc);
        list_scores.values().append_value(score);
    }
    flush_long(&mut users, &mut items, &mut scores, &mut long_writer);
    list_items.append(true);
    list_scores.append(true);
    flush_lists(
        &mut list_users,
        &mut list_items,
        &mut list_scores,
        &mut lists_writer,
    );
    long_writer.unwrap().close().unwrap();
    lists_writer.unwrap().close().unwrap();
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Runs `rankeval eval` once under the wrapper; its wall time.
fn process_once(qrels: &Path, run: &Path) -> Duration {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .arg("__measure")
        .arg(env!("CARGO_BIN_EXE_rankeval"))
        .args(["eval", "--format", "json", "--qrels"])
        .arg(qrels)
        .arg("--run")
        .arg(run);
    for m in METRICS {
        command.args(["-m", m]);
    }
    let output = command.stderr(Stdio::inherit()).output().unwrap();
    assert!(
        output.status.success(),
        "rankeval failed on {}",
        run.display()
    );
    let text = String::from_utf8(output.stdout).unwrap();
    Duration::from_secs_f64(text.trim().parse().unwrap())
}

/// The wrapper: runs the command with stdout discarded and prints its wall
/// time in seconds.
fn measure_child(command: &[String]) -> ExitCode {
    let start = Instant::now();
    let status = Command::new(&command[0])
        .args(&command[1..])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    println!("{}", start.elapsed().as_secs_f64());
    if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
