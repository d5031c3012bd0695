//! One table of hostile inputs run against every command and every role in
//! which a command reads a file: `/dev/zero`, a sparse 2 GB file, a FIFO
//! that streams a 100 MB line, a regular file of one 100 MB line, and ids
//! with control bytes. Each must end, within a time bound and 3 GiB of
//! address space, in exit code 2 with a short message naming the file:
//! never a success, a panic, a hang or memory without bound.

use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::scratch;

/// Good inputs beside the hostile one, in a scratch directory.
const GOOD: &[(&str, &str)] = &[
    ("qrels.txt", "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n"),
    ("run.trec", "q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\nq2 Q0 c 1 1 t\n"),
    ("human.qrels", "q1 0 a 1\n"),
    ("groups.txt", "a north\nc south\n"),
    (
        "spans.tsv",
        "query\tdoc\tstart\tend\tgrade\nq1\td1\t0\t10\t1\n",
    ),
    (
        "chunks.tsv",
        "query\tdoc\tstart\tend\tscore\nq1\td1\t0\t5\t0.9\n",
    ),
    ("labels.tsv", "query\tdoc\tp0\tp1\nq1\ta\t0.5\t0.5\n"),
    (
        "log.csv",
        "context,impression,item,reward,propensity\nq1,1,a,1,0.5\n",
    ),
    (
        "clicks.csv",
        "context,impression,item,position,reward,propensity\nq1,1,a,1,1,1\n",
    ),
];

/// Every command and role that reads a file: the arguments, with `{}` for
/// the hostile file, and the suffixes it is tried under.
const ROLES: &[(&[&str], &[&str])] = &[
    (
        &["eval", "--qrels", "{}", "--run", "run.trec", "-m", "ap"],
        &["trec", "csv", "jsonl", "json", "parquet"],
    ),
    (
        &["eval", "--qrels", "qrels.txt", "--run", "{}", "-m", "ap"],
        &["trec", "csv", "jsonl", "json", "parquet", "arrow"],
    ),
    (
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "ap",
            "--groups",
            "{}",
        ],
        &["csv", "jsonl", "parquet"],
    ),
    (
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "coverage@10",
            "--catalog",
            "{}",
        ],
        &["txt"],
    ),
    (
        &[
            "eval",
            "--subtopic-qrels",
            "{}",
            "--run",
            "run.trec",
            "-m",
            "alpha_ndcg@5",
        ],
        &["txt", "csv", "jsonl", "parquet", "arrow"],
    ),
    (
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--doc-groups",
            "{}",
            "--run",
            "run.trec",
            "-m",
            "awrf",
        ],
        &["txt", "csv", "jsonl", "parquet", "arrow"],
    ),
    (
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--doc-groups",
            "groups.txt",
            "--group-targets",
            "{}",
            "--run",
            "run.trec",
            "-m",
            "awrf(target=given)",
        ],
        &["csv", "jsonl", "parquet", "arrow"],
    ),
    (
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--samples",
            "--run",
            "{}",
            "-m",
            "ee_l",
        ],
        &["trec", "csv", "tsv", "txt", "jsonl", "parquet", "arrow"],
    ),
    (
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "psp@5",
            "--label-counts",
            "{}",
            "--train-instances",
            "100",
        ],
        &["csv", "tsv", "jsonl", "parquet", "arrow"],
    ),
    (
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "psndcg@5",
            "--inverse-propensities",
            "{}",
        ],
        &["csv", "tsv", "jsonl", "parquet", "arrow"],
    ),
    (&["run", "{}"], &["toml"]),
    (&["report", "{}"], &["json", "parquet"]),
    (
        &[
            "ope",
            "--log",
            "{}",
            "--policy",
            "run.trec",
            "--allow-low-support",
        ],
        &["csv", "jsonl", "parquet", "arrow"],
    ),
    (
        &[
            "ope",
            "--log",
            "log.csv",
            "--policy",
            "{}",
            "--allow-low-support",
        ],
        &["trec", "csv", "parquet"],
    ),
    (&["ope", "--config", "{}"], &["toml"]),
    (
        &[
            "ope",
            "--log",
            "{}",
            "--form",
            "examination",
            "--policy",
            "run.trec",
            "--allow-low-support",
        ],
        &["csv", "jsonl", "parquet", "arrow"],
    ),
    (
        &[
            "ope",
            "--log",
            "{}",
            "--examination",
            "power(eta=1)",
            "--policy",
            "run.trec",
            "--allow-low-support",
        ],
        &["csv", "jsonl", "parquet"],
    ),
    (
        &[
            "ope",
            "--log",
            "clicks.csv",
            "--form",
            "examination",
            "--policy",
            "{}",
            "--allow-low-support",
        ],
        &["trec", "csv", "parquet"],
    ),
    (
        &[
            "ope",
            "--log",
            "log.csv",
            "--policy",
            "run.trec",
            "--allow-low-support",
            "--record",
            "{}",
        ],
        &["sqlite"],
    ),
    (
        &[
            "ope",
            "--log",
            "log.csv",
            "--policy",
            "run.trec",
            "--allow-low-support",
            "--groups",
            "{}",
        ],
        &["csv", "tsv", "jsonl", "parquet"],
    ),
    (
        &["spans", "--qrels", "{}", "--run", "chunks.tsv"],
        &["tsv", "csv", "jsonl", "parquet", "arrow"],
    ),
    (
        &["spans", "--qrels", "spans.tsv", "--run", "{}"],
        &["tsv", "csv", "jsonl", "parquet", "arrow"],
    ),
    (
        &[
            "expected",
            "--qrels",
            "{}",
            "--label",
            "p0=0,p1=1",
            "--run",
            "run.trec",
            "-m",
            "ap",
        ],
        &["tsv", "parquet"],
    ),
    (
        &[
            "ppi",
            "--qrels",
            "{}",
            "--human",
            "human.qrels",
            "--run",
            "run.trec",
            "-m",
            "ap",
        ],
        &["trec", "csv"],
    ),
    (
        &[
            "ppi",
            "--qrels",
            "qrels.txt",
            "--human",
            "{}",
            "--run",
            "run.trec",
            "-m",
            "ap",
        ],
        &["trec"],
    ),
    (
        &["agree", "--qrels", "a={}", "--qrels", "b=human.qrels"],
        &["trec", "csv"],
    ),
    (
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "ap",
            "--record",
            "{}",
        ],
        &["sqlite"],
    ),
    (
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "ap",
            "--baseline",
            "db:{}",
        ],
        &["sqlite"],
    ),
    (&["history", "{}"], &["sqlite"]),
    (&["history", "{}", "--accept", "1"], &["sqlite"]),
    (&["history", "diff", "{}", "1", "2"], &["sqlite"]),
    (&["history", "export", "{}", "--format", "csv"], &["sqlite"]),
    (&["history", "{}", "--format", "html"], &["sqlite"]),
    (
        &[
            "history",
            "export",
            "{}",
            "--format",
            "parquet",
            "-o",
            "out.parquet",
        ],
        &["sqlite"],
    ),
    (
        &["overlap", "{}", "run.trec"],
        &["trec", "csv", "jsonl", "parquet"],
    ),
    (&["overlap", "run.trec", "{}"], &["trec"]),
    (&["trec_eval", "{}", "run.trec"], &["trec"]),
    (&["trec_eval", "qrels.txt", "{}"], &["trec"]),
];

/// How long one command may take (a debug build on a shared machine).
const TIME_BOUND: Duration = Duration::from_secs(120);

/// Runs `rankeval args` in `dir` with 3 GiB of address space, killed after
/// [`TIME_BOUND`]; exit code (None if killed by a signal) and stderr.
fn bounded(dir: &Path, args: &[String]) -> (Option<i32>, String, Duration) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rankeval"));
    command
        .args(args)
        .current_dir(dir)
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    super::limit_address_space(&mut command, 3 << 30);
    let start = Instant::now();
    let mut child = command.spawn().expect("rankeval starts");
    let stderr = child.stderr.take().expect("stderr piped");
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        // At most 1 MiB of message is kept: the assertion is on its size.
        let _ = std::io::Read::read_to_end(&mut std::io::Read::take(stderr, 1 << 20), &mut text);
        String::from_utf8_lossy(&text).into_owned()
    });
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        if start.elapsed() > TIME_BOUND {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (code, reader.join().unwrap_or_default(), start.elapsed())
}

/// What a hostile file is.
#[derive(Clone, Copy, Debug)]
enum Hostile {
    /// A link to `/dev/zero`.
    Zero,
    /// A sparse file of 2,000,000,000 zero bytes.
    Sparse,
    /// A FIFO fed 100 MB of `x` without a newline.
    Fifo,
    /// A regular file of one 100 MB line.
    LongLine,
    /// Well-formed lines whose ids hold ESC and NUL bytes.
    ControlBytes,
}

/// Lays `hostile` out at `path`; a FIFO gets a writer thread.
fn lay_out(hostile: Hostile, path: &Path) -> Option<std::thread::JoinHandle<()>> {
    match hostile {
        Hostile::Zero => {
            std::os::unix::fs::symlink("/dev/zero", path).expect("link /dev/zero");
            None
        }
        Hostile::Sparse => {
            let file = std::fs::File::create(path).expect("create");
            file.set_len(2_000_000_000).expect("a sparse file");
            None
        }
        Hostile::LongLine => {
            let mut line = vec![b'x'; 100 << 20];
            line.push(b'\n');
            std::fs::write(path, line).expect("write");
            None
        }
        Hostile::ControlBytes => {
            let text: &[u8] = match path.extension().and_then(|e| e.to_str()) {
                Some("csv") => b"user,item,score,grade\nq\x1b[31m1,a\x001,1,1\n",
                Some("tsv") => b"query\tdoc\tstart\tend\tgrade\tscore\tp0\tp1\nq\x1b[31m1\td\x001\t0\t5\t1\t1\t0.5\t0.5\n",
                Some("jsonl") => b"{\"query\": \"q\\u001b[31m1\", \"predicted\": [\"a\\u0000\"], \"relevant\": [\"a\\u0000\"], \"doc\": \"d\", \"start\": 0, \"end\": 5, \"grade\": 1, \"score\": 1}\n",
                Some("json") => b"{\"q\\u001b[31m1\": {\"a\\u0000\": 1}}\n",
                Some("toml") => b"qrels = \"qrels.txt\"\n[[runs]]\nname = \"r\\u001b[31m\"\npath = \"run.trec\"\n",
                Some("txt") => b"a\x1b[31m\nb\x00\n",
                // Bytes up to 0x20 separate TREC fields: DEL and a C1
                // control (U+009B, CSI) are the control bytes an id can hold.
                _ => b"q\x7f1 0 a\xc2\x9b1 1\n",
            };
            std::fs::write(path, text).expect("write");
            None
        }
        Hostile::Fifo => {
            let made = Command::new("mkfifo").arg(path).status().expect("mkfifo");
            assert!(made.success());
            let path = path.to_owned();
            Some(std::thread::spawn(move || {
                // Blocks until the command opens it; a write after the
                // command stopped reading fails (EPIPE), which ends it.
                if let Ok(mut fifo) = std::fs::OpenOptions::new().write(true).open(&path) {
                    let chunk = vec![b'x'; 1 << 20];
                    for _ in 0..100 {
                        if std::io::Write::write_all(&mut fifo, &chunk).is_err() {
                            return;
                        }
                    }
                }
            }))
        }
    }
}

/// Ends the writer thread of the FIFO at `path`, whether or not the
/// command opened it: a reader opened and closed at once wakes a writer
/// blocked in `open`, whose next write then fails (EPIPE). Repeated until
/// the thread ends, because a command refused before it opens the FIFO
/// can finish before the thread has even reached its `open` (a single
/// wake-up then came too early, and the join waited for ever).
fn end_fifo_writer(path: &Path, writer: std::thread::JoinHandle<()>) {
    while !writer.is_finished() {
        let _ = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path);
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = writer.join();
}

/// Runs every role under every suffix against `hostile`, and lists what
/// failed: a success, a signal, a time-out, a long message, a panic, or a
/// message that does not name the file.
fn every_command_refuses(hostile: Hostile) {
    let mut failures = Vec::new();
    for (args, suffixes) in ROLES {
        for suffix in *suffixes {
            // Control bytes in a Parquet, Arrow or TOML file are laid out
            // by text: only the text formats carry that case.
            if matches!(hostile, Hostile::ControlBytes) && matches!(*suffix, "parquet" | "arrow") {
                continue;
            }
            let dir = scratch(GOOD);
            let name = format!("hostile.{suffix}");
            let path = dir.path().join(&name);
            let writer = lay_out(hostile, &path);
            let args: Vec<String> = args.iter().map(|a| a.replace("{}", &name)).collect();
            let (code, stderr, took) = bounded(dir.path(), &args);
            if let Some(writer) = writer {
                end_fifo_writer(&path, writer);
            }
            let problem = if code != Some(2) {
                Some(format!("exit {code:?}"))
            } else if stderr.contains("panicked") {
                Some("a panic".to_owned())
            } else if stderr.len() > 4000 {
                Some(format!("a message of {} bytes", stderr.len()))
            } else if !stderr.contains("hostile.") {
                Some("a message without the file's name".to_owned())
            } else if stderr.contains('\u{1b}') || stderr.contains('\0') {
                Some("control bytes in the message".to_owned())
            } else {
                None
            };
            if let Some(problem) = problem {
                failures.push(format!(
                    "{hostile:?} {}: {problem} after {:.1} s: {}",
                    args.join(" "),
                    took.as_secs_f64(),
                    stderr.chars().take(300).collect::<String>()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn dev_zero_is_refused_by_every_command() {
    every_command_refuses(Hostile::Zero);
}

#[test]
fn a_sparse_2_gb_file_is_refused_by_every_command() {
    every_command_refuses(Hostile::Sparse);
}

#[test]
fn a_fifo_streaming_a_100_mb_line_is_refused_by_every_command() {
    every_command_refuses(Hostile::Fifo);
}

#[test]
fn a_100_mb_line_is_refused_by_every_command() {
    every_command_refuses(Hostile::LongLine);
}

#[test]
fn ids_with_control_bytes_are_refused_by_every_command() {
    every_command_refuses(Hostile::ControlBytes);
}

/// A FIFO fed without end (`yes > fifo`) as a log read whole: refused at
/// the 2 GiB limit, naming the file, in seconds (each of the pipe's short
/// reads zeroed a 1 MiB chunk: over three minutes in a debug build).
#[test]
fn a_fifo_fed_without_end_is_refused_at_the_limit() {
    let dir = scratch(GOOD);
    let path = dir.path().join("hostile.csv");
    let made = Command::new("mkfifo").arg(&path).status().expect("mkfifo");
    assert!(made.success());
    let writer = {
        let path = path.clone();
        std::thread::spawn(move || {
            if let Ok(mut fifo) = std::fs::OpenOptions::new().write(true).open(&path) {
                let lines = b"y\n".repeat(4096);
                while std::io::Write::write_all(&mut fifo, &lines).is_ok() {}
            }
        })
    };
    let args: Vec<String> = ["ope", "--log", "hostile.csv", "--policy", "run.trec"]
        .iter()
        .map(|a| (*a).to_owned())
        .collect();
    let (code, stderr, took) = bounded(dir.path(), &args);
    end_fifo_writer(&path, writer);
    assert_eq!(code, Some(2), "after {took:?}: {stderr}");
    assert_eq!(
        stderr,
        "error: hostile.csv: the input is larger than 2048 MiB, the limit for a text input read whole\n"
    );
    assert!(took < Duration::from_secs(60), "{took:?}");
}

/// Option values holding control bytes (ESC, DEL, a C1 control) or 100,000
/// characters: each refused with exit code 2 in a short message that holds
/// none of them (an escape sequence typed in an id must not reach the
/// terminal as one; a long id is cut).
#[test]
fn control_bytes_and_long_values_in_options_are_escaped_in_messages() {
    let dir = scratch(GOOD);
    let long = "x".repeat(100_000);
    let irds_long = format!("irds:{long}");
    let cases: &[&[&str]] = &[
        &["benchmarks", "msmarco-passage/trec-dl-2019\u{1b}[31m"],
        &["benchmarks", "a\u{7f}b\u{9b}31m"],
        &["benchmarks", &long],
        &[
            "eval",
            "--qrels",
            "irds:x\u{1b}[31m",
            "--run",
            "run.trec",
            "-m",
            "ap",
        ],
        &[
            "eval", "--qrels", &irds_long, "--run", "run.trec", "-m", "ap",
        ],
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "ndcg@\u{1b}[31m",
        ],
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "nd\u{1b}cg@3",
        ],
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "ndcg(\u{9b}=1)@3",
        ],
        &[
            "ope",
            "--log",
            "log.csv",
            "--policy",
            "run.trec",
            "--gate",
            "snips:at_least(floor=0.1,run=\u{1b}[31m)",
        ],
        &[
            "ope",
            "--log",
            "log.csv",
            "--policy",
            "run.trec",
            "--log-columns",
            "context=\u{1b}[31m",
        ],
    ];
    let mut failures = Vec::new();
    for args in cases {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        let (code, stderr, _) = bounded(dir.path(), &args);
        let shown: String = args.join(" ").chars().take(120).collect();
        if code != Some(2) {
            failures.push(format!("{shown:?}: exit {code:?}: {stderr}"));
        } else if stderr.contains(['\u{1b}', '\u{7f}', '\u{9b}']) {
            failures.push(format!("{shown:?}: control bytes in {stderr:?}"));
        } else if stderr.len() > 4000 {
            failures.push(format!("{shown:?}: a message of {} bytes", stderr.len()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The readers of the fairness, diversity and propensity inputs (document
/// groups, group targets, sampled runs, subtopic qrels, label counts and inverse
/// propensities) against hostile values in well-formed files: weights and
/// numbers that are NaN, infinite or overflow (1e400), ids with control
/// bytes, duplicates. Each must end in exit code 2 naming the file, the
/// line and the column or key, without echoing a control byte.
#[test]
fn hostile_values_in_row_inputs_are_named_by_file_line_and_column() {
    const QRELS: &[&str] = &["--qrels", "qrels.txt", "--run", "run.trec"];
    let groups = |file: &'static str| -> Vec<&'static str> {
        [&["eval"], QRELS, &["--doc-groups", file, "-m", "awrf"]].concat()
    };
    let targets = |file: &'static str| -> Vec<&'static str> {
        [
            &["eval"],
            QRELS,
            &[
                "--doc-groups",
                "groups.txt",
                "--group-targets",
                file,
                "-m",
                "awrf(target=given)",
            ],
        ]
        .concat()
    };
    let samples = |file: &'static str| -> Vec<&'static str> {
        vec![
            "eval",
            "--qrels",
            "qrels.txt",
            "--samples",
            "--run",
            file,
            "-m",
            "ee_l",
        ]
    };
    let subtopics = |file: &'static str| -> Vec<&'static str> {
        vec![
            "eval",
            "--subtopic-qrels",
            file,
            "--run",
            "run.trec",
            "-m",
            "alpha_ndcg@5",
        ]
    };
    let counts = |file: &'static str| -> Vec<&'static str> {
        [
            &["eval"],
            QRELS,
            &[
                "-m",
                "psp@5",
                "--label-counts",
                file,
                "--train-instances",
                "100",
            ],
        ]
        .concat()
    };
    let inverse = |file: &'static str| -> Vec<&'static str> {
        [
            &["eval"],
            QRELS,
            &["-m", "psndcg@5", "--inverse-propensities", file],
        ]
        .concat()
    };
    // (arguments, the file and its bytes, what the message must name).
    // A sampled run's scores follow every run's rule: NaN is refused, an
    // infinite score (inf, 1e400) orders first and is evaluated.
    let cases: Vec<(Vec<&str>, &str, &[u8], &str)> = vec![
        (
            groups("g.txt"),
            "g.txt",
            b"a north NaN\n",
            "g.txt:1: column `weight`",
        ),
        (
            groups("g.txt"),
            "g.txt",
            b"a north 1\nb south inf\n",
            "g.txt:2: column `weight`",
        ),
        (
            groups("g.txt"),
            "g.txt",
            b"a north 1e400\n",
            "g.txt:1: column `weight`",
        ),
        (
            groups("g.csv"),
            "g.csv",
            b"doc,group,weight\na,north,-1\n",
            "g.csv:2: column `weight`",
        ),
        (
            groups("g.jsonl"),
            "g.jsonl",
            b"{\"doc\": \"a\", \"group\": \"n\", \"weight\": 1e400}\n",
            "g.jsonl:1",
        ),
        (
            groups("g.txt"),
            "g.txt",
            b"a\x1b[31m north\n",
            "g.txt:1: field 1 (doc)",
        ),
        (
            groups("g.csv"),
            "g.csv",
            b"doc,group\na,n\x00x\n",
            "g.csv:2: column `group`",
        ),
        (
            groups("g.txt"),
            "g.txt",
            b"a north 1\na north 0.5\n",
            "g.txt:2",
        ),
        (
            targets("t.csv"),
            "t.csv",
            b"query,group,share\nq1,north,NaN\n",
            "t.csv:2: column `share`",
        ),
        (
            targets("t.csv"),
            "t.csv",
            b"query,group,share\nq1,north,1e400\n",
            "t.csv:2: column `share`",
        ),
        (
            targets("t.csv"),
            "t.csv",
            b"query,group,share\nq1\x1b[31m,north,1\n",
            "t.csv:2: column `query`",
        ),
        (
            targets("t.csv"),
            "t.csv",
            b"query,group,share\nq1,north,1\nq1,north,2\n",
            "t.csv:3: column `group`",
        ),
        (
            targets("t.jsonl"),
            "t.jsonl",
            b"{\"query\": \"q1\", \"group\": \"n\", \"share\": 1e400}\n",
            "t.jsonl:1",
        ),
        (
            targets("t.csv"),
            "t.csv",
            b"query,group,share\nq1,north,1\n",
            "no target for query `q2`",
        ),
        (samples("s.trec"), "s.trec", b"q1 s1 a 1 NaN t\n", "s.trec"),
        (
            samples("s.trec"),
            "s.trec",
            b"q1 s1 a\x7fb 1 1 t\n",
            "s.trec",
        ),
        (
            samples("s.trec"),
            "s.trec",
            b"q1 s1 a 1 2 t\nq1 s1 a 2 1 t\n",
            "s.trec",
        ),
        (
            samples("s.csv"),
            "s.csv",
            b"query,sample,doc,score\nq1,s1,a,NaN\n",
            "s.csv:2",
        ),
        (
            samples("s.csv"),
            "s.csv",
            b"query,sample,doc,rank\nq1,s1,a,1e400\n",
            "s.csv:2: column `rank`",
        ),
        (
            samples("s.csv"),
            "s.csv",
            b"query,sample,doc,rank\nq1,s1,a,18446744073709551616\n",
            "s.csv:2: column `rank`",
        ),
        (
            samples("s.tsv"),
            "s.tsv",
            b"query\tsample\tdoc\trank\nq1\ts1\ta\t-inf\n",
            "s.tsv:2: column `rank`",
        ),
        (
            samples("s.csv"),
            "s.csv",
            b"query,sample,doc,score\nq1,s1,a,1\nq1,s2,a,1\nq1,s1,a,2\n",
            "s.csv:4",
        ),
        (
            samples("s.csv"),
            "s.csv",
            b"query,sample,doc,score\nq1,s\x1b[31m1,a,1\n",
            "s.csv:2: column `sample`",
        ),
        (
            samples("s.txt"),
            "s.txt",
            b"{\"query\": \"q1\", \"sample\": \"s1\", \"doc\": \"a\\u001b\", \"score\": 1}\n",
            "s.txt:1: key `doc`",
        ),
        (
            samples("s.txt"),
            "s.txt",
            b"{\"query\": \"q1\", \"sample\": \"s1\", \"doc\": \"a\", \"rank\": 1e400}\n",
            "s.txt:1",
        ),
        (
            samples("s.csv"),
            "s.csv",
            b"query,sample,doc,weight\nq1,s1,a,1\n",
            "s.csv:1: no column `score` (or `rank`)",
        ),
        (
            samples("s.csv"),
            "s.csv",
            b"query,sample,doc,score\n",
            "s.csv: no row",
        ),
        (subtopics("t.txt"), "t.txt", b"q1 1 a NaN\n", "t.txt:1"),
        (subtopics("t.txt"), "t.txt", b"q1 1 a 1e400\n", "t.txt:1"),
        (subtopics("t.txt"), "t.txt", b"q1 1 a\x1b 1\n", "t.txt:1"),
        (
            subtopics("t.txt"),
            "t.txt",
            b"q1 1 a 1\nq1 1 a 2\n",
            "t.txt:2",
        ),
        (
            counts("c.csv"),
            "c.csv",
            b"label,count\na,NaN\n",
            "c.csv:2: column `count`",
        ),
        (
            counts("c.csv"),
            "c.csv",
            b"label,count\na,1e400\n",
            "c.csv:2: column `count`",
        ),
        (
            counts("c.csv"),
            "c.csv",
            b"label,count\na\x1b[31m,1\n",
            "c.csv:2: column `label`",
        ),
        (
            counts("c.csv"),
            "c.csv",
            b"label,count\na,1\na,2\n",
            "c.csv:3: column `label`",
        ),
        (
            counts("c.jsonl"),
            "c.jsonl",
            b"{\"label\": \"a\", \"count\": 1e400}\n",
            "c.jsonl:1",
        ),
        (
            counts("c.jsonl"),
            "c.jsonl",
            b"{\"label\": \"a\\u001b\", \"count\": 1}\n",
            "c.jsonl:1: column `label`",
        ),
        (
            inverse("i.csv"),
            "i.csv",
            b"label,inverse_propensity\na,inf\n",
            "i.csv:2: column `inverse_propensity`",
        ),
        (
            inverse("i.csv"),
            "i.csv",
            b"label,inverse_propensity\na,NaN\n",
            "i.csv:2: column `inverse_propensity`",
        ),
        (
            inverse("i.jsonl"),
            "i.jsonl",
            b"{\"label\": \"a\", \"inverse_propensity\": -1}\n",
            "i.jsonl:1: column `inverse_propensity`",
        ),
    ];
    let mut failures = Vec::new();
    for (args, file, bytes, named) in cases {
        let dir = scratch(GOOD);
        std::fs::write(dir.path().join(file), bytes).expect("write");
        let (code, _, stderr) = super::run_in(dir.path(), &args);
        if code != 2
            || !stderr.contains(named)
            || stderr.contains('\u{1b}')
            || stderr.contains('\0')
            || stderr.contains("panicked")
        {
            failures.push(format!(
                "{}: exit {code}, {stderr:?} (wanted {named:?})",
                args.join(" ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
