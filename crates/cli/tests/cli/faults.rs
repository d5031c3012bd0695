//! Faults of the environment rather than of the data: inputs that cannot be
//! read twice, files changed while read, signals, closed outputs.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use super::{run_in, scratch};

const QRELS: &str = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\nq2 0 d 1\n";
/// Query q1's lines are split up by q2's: not grouped by query.
const UNGROUPED: &str = "q1 Q0 b 1 0.9 t\nq2 Q0 c 1 0.7 t\nq1 Q0 a 2 0.5 t\nq2 Q0 d 2 0.6 t\n";

/// `rankeval <args>` in `dir` (temporary files in `tmp`) with `stdin`
/// piped in; exit code, stdout, stderr.
pub(super) fn with_stdin(
    dir: &Path,
    tmp: &Path,
    args: &[&str],
    stdin: &[u8],
) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rankeval"))
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("TMPDIR", tmp)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the rankeval binary runs");
    let mut pipe = child.stdin.take().expect("a stdin pipe");
    let _ = pipe.write_all(stdin);
    drop(pipe);
    let output = child.wait_with_output().expect("rankeval finishes");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn gzip(text: &str) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(text.as_bytes()).unwrap();
    encoder.finish().unwrap()
}

const EVAL: [&str; 10] = [
    "eval",
    "--qrels",
    "qrels.txt",
    "-m",
    "ap",
    "-m",
    "p@1",
    "--per-query",
    "--format",
    "csv",
];

#[cfg(unix)]
#[test]
fn an_ungrouped_run_from_a_pipe_is_read_as_from_a_file() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", UNGROUPED)]);
    let tmp = tempfile::tempdir().unwrap();
    let from_file = run_in(dir.path(), &[&EVAL[..], &["--run", "run.trec"]].concat());
    assert_eq!((from_file.0, from_file.2.as_str()), (0, ""));
    assert!(from_file.1.contains("run,q1,"), "{}", from_file.1);
    let expected = from_file.1.replace("\nrun,", "\nstdin,");
    let args = [&EVAL[..], &["--run", "/dev/stdin"]].concat();
    for input in [UNGROUPED.as_bytes().to_vec(), gzip(UNGROUPED)] {
        let (code, stdout, stderr) = with_stdin(dir.path(), tmp.path(), &args, &input);
        assert_eq!((code, stderr.as_str()), (0, ""));
        assert_eq!(stdout, expected);
        let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert!(left.is_empty(), "the spill file is removed: {left:?}");
    }
}

#[cfg(unix)]
#[test]
fn an_ungrouped_run_from_a_fifo_is_read_as_from_a_file() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", UNGROUPED)]);
    let from_file = run_in(dir.path(), &[&EVAL[..], &["--run", "run.trec"]].concat());
    let fifo = dir.path().join("fifo.trec");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let writer = std::thread::spawn(move || {
        // Opening blocks until rankeval opens the other end.
        std::fs::write(&fifo, UNGROUPED).unwrap();
    });
    let mut child = Command::new(env!("CARGO_BIN_EXE_rankeval"))
        .args([&EVAL[..], &["--run", "fifo.trec"]].concat())
        .current_dir(dir.path())
        .env_clear()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Before the fix the second read of the FIFO waited for a writer forever.
    super::wait_or_fail(&mut child, "rankeval hangs on a FIFO");
    writer.join().unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        from_file.1.replace("\nrun,", "\nfifo,")
    );
}

/// `rankeval <args>` in `dir` with standard output closed (`>&-`).
#[cfg(unix)]
fn stdout_closed(dir: &Path, args: &[&str]) -> (i32, String) {
    let output = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" \"$@\" >&-")
        .arg(env!("CARGO_BIN_EXE_rankeval"))
        .args(args)
        .current_dir(dir)
        .env_clear()
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[cfg(unix)]
#[test]
fn a_closed_stdout_is_an_error() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", UNGROUPED)]);
    let (code, stderr) = stdout_closed(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "ap",
        ],
    );
    assert_eq!(
        (code, stderr.as_str()),
        (2, "error: cannot write <stdout>: it is closed\n")
    );
    let (code, stderr) = stdout_closed(dir.path(), &["--help"]);
    assert_eq!(
        (code, stderr.as_str()),
        (2, "error: cannot write <stdout>: it is closed\n")
    );
    // With -o, standard output is not needed.
    let (code, stderr) = stdout_closed(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "ap",
            "-o",
            "out.txt",
        ],
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert!(dir.path().join("out.txt").exists());
}

#[test]
fn the_report_may_not_overwrite_an_input() {
    let toml = "qrels = \"qrels.txt\"\n\n[[runs]]\npath = \"run.trec\"\n";
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("run.trec", UNGROUPED),
        ("exp.toml", toml),
    ]);
    let eval = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "run.trec",
        "-m",
        "ap",
        "-o",
    ];
    for (name, target) in [("run", "run.trec"), ("qrels", "./qrels.txt")] {
        let args = [&eval[..], &[target]].concat();
        let result = run_in(dir.path(), &args);
        assert_eq!(result.0, 2);
        insta::assert_snapshot!(
            format!("error_output_is_the_{name}"),
            super::transcript(&args, result)
        );
    }
    for (name, target) in [
        ("experiment", "exp.toml"),
        ("run_of_experiment", "run.trec"),
    ] {
        let args = ["run", "exp.toml", "-o", target];
        let result = run_in(dir.path(), &args);
        assert_eq!(result.0, 2);
        insta::assert_snapshot!(
            format!("error_output_is_the_{name}"),
            super::transcript(&args, result)
        );
    }
    for (file, text) in [
        ("qrels.txt", QRELS),
        ("run.trec", UNGROUPED),
        ("exp.toml", toml),
    ] {
        assert_eq!(
            std::fs::read_to_string(dir.path().join(file)).unwrap(),
            text
        );
    }
}

/// Every command that writes a report with `-o` refuses a target that is
/// one of its inputs, before reading anything: the log, a policy, the
/// reward model, the groups or the TOML file of `ope`, a run of `overlap`,
/// the history itself (`history`, `diff`, `export`), the qrels and runs of
/// `agree`, `ppi`, `expected` and `spans`. Each input is left as it was.
#[test]
fn no_command_overwrites_an_input_with_its_report() {
    let [prod, _] = super::ope::runs();
    let log = super::ope::bandit_log();
    let model = "q1 Q0 a 0 0.5 m\n";
    let groups = "query,group\nq1,g\n";
    let toml = "[ope]\nlog = \"log.csv\"\npolicies = [{ path = \"prod.trec\" }]\n";
    let labels = "query\tdoc\tp0\tp1\nq1\ta\t0.5\t0.5\n";
    let spans = "query\tdoc\tstart\tend\tgrade\nq1\td1\t0\t10\t1\n";
    let chunks = "query\tdoc\tstart\tend\tscore\nq1\td1\t0\t5\t0.9\n";
    let files: &[(&str, &str)] = &[
        ("qrels.txt", QRELS),
        ("run.trec", UNGROUPED),
        ("log.csv", &log),
        ("prod.trec", &prod.1),
        ("model.trec", model),
        ("groups.csv", groups),
        ("ope.toml", toml),
        ("labels.tsv", labels),
        ("spans.tsv", spans),
        ("chunks.tsv", chunks),
    ];
    let dir = scratch(files);
    let record = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "qrels.txt",
            "--run",
            "run.trec",
            "-m",
            "ap",
            "--record",
            "h.sqlite",
        ],
    );
    assert_eq!(record.0, 0, "{}", record.2);
    let history = std::fs::read(dir.path().join("h.sqlite")).expect("the history");
    let ope = [
        "ope",
        "--log",
        "log.csv",
        "--policy",
        "prod.trec",
        "--allow-low-support",
    ];
    let cases: &[(&[&str], &str)] = &[
        (
            &[&ope[..], &["-o", "./log.csv"]].concat(),
            "the impression log",
        ),
        (&[&ope[..], &["-o", "prod.trec"]].concat(), "a policy's run"),
        (
            &[
                &ope[..],
                &[
                    "-e",
                    "dr",
                    "--reward-model",
                    "model.trec",
                    "-o",
                    "model.trec",
                ],
            ]
            .concat(),
            "the reward model",
        ),
        (
            &[&ope[..], &["--groups", "groups.csv", "-o", "groups.csv"]].concat(),
            "the groups file",
        ),
        (
            &["ope", "--config", "ope.toml", "-o", "ope.toml"],
            "the experiment file",
        ),
        (
            &["run", "ope.toml", "-o", "ope.toml"],
            "the experiment file",
        ),
        (&["run", "ope.toml", "-o", "log.csv"], "the impression log"),
        (
            &["overlap", "run.trec", "prod.trec", "-o", "prod.trec"],
            "a run",
        ),
        (&["history", "h.sqlite", "-o", "h.sqlite"], "the history"),
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
                "h.sqlite",
                "-o",
                "h.sqlite",
            ],
            "the results history (--record)",
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
                "db:h.sqlite#1",
                "-o",
                "./h.sqlite",
            ],
            "the results history (--baseline)",
        ),
        (
            &[&ope[..], &["--record", "h.sqlite", "-o", "h.sqlite"]].concat(),
            "the results history (--record)",
        ),
        (
            &["history", "diff", "h.sqlite", "1", "1", "-o", "./h.sqlite"],
            "the history",
        ),
        (
            &[
                "history", "export", "h.sqlite", "--format", "csv", "-o", "h.sqlite",
            ],
            "the history",
        ),
        (
            &[
                "agree",
                "--qrels",
                "a=qrels.txt",
                "--qrels",
                "b=run.trec",
                "-o",
                "run.trec",
            ],
            "the qrels",
        ),
        (
            &[
                "ppi",
                "--qrels",
                "qrels.txt",
                "--human",
                "qrels.txt",
                "--run",
                "run.trec",
                "-m",
                "ap",
                "-o",
                "run.trec",
            ],
            "a run",
        ),
        (
            &[
                "expected",
                "--qrels",
                "labels.tsv",
                "--label",
                "p0=0,p1=1",
                "--run",
                "run.trec",
                "-m",
                "ap",
                "-o",
                "labels.tsv",
            ],
            "the label distributions",
        ),
        (
            &[
                "spans",
                "--qrels",
                "spans.tsv",
                "--run",
                "chunks.tsv",
                "-o",
                "chunks.tsv",
            ],
            "a run",
        ),
        (
            &[
                "spans",
                "--qrels",
                "spans.tsv",
                "--run",
                "chunks.tsv",
                "-o",
                "spans.tsv",
            ],
            "the span qrels",
        ),
    ];
    for (args, role) in cases {
        let (code, stdout, stderr) = run_in(dir.path(), args);
        let target = args.last().expect("a target");
        assert_eq!((code, stdout.as_str()), (2, ""), "{args:?}: {stderr}");
        assert_eq!(
            stderr,
            format!(
                "error: -o {target}: it is {role} ({}); the report would overwrite it\n",
                target.trim_start_matches("./")
            ),
            "{args:?}"
        );
    }
    for (file, text) in files {
        assert_eq!(
            std::fs::read_to_string(dir.path().join(file)).unwrap(),
            *text,
            "{file}"
        );
    }
    assert_eq!(std::fs::read(dir.path().join("h.sqlite")).unwrap(), history);
}

/// `-o` onto something that cannot take the report is an error that
/// names the target, and leaves what is there as it was: a path under a
/// regular file, a directory, and (not as root, who may write any file) a
/// read-only file.
#[cfg(unix)]
#[test]
fn the_report_does_not_replace_a_file_one_cannot_write() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("run.trec", UNGROUPED),
        ("kept.txt", "mine\n"),
        ("reports/kept.txt", "mine too\n"),
    ]);
    let kept = dir.path().join("kept.txt");
    let eval = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "run.trec",
        "-m",
        "ap",
        "-o",
    ];
    for (name, target) in [
        ("under_a_file", "kept.txt/report.txt"),
        ("a_directory", "reports"),
        ("a_directory_with_a_slash", "reports/"),
    ] {
        let args = [&eval[..], &[target]].concat();
        let result = run_in(dir.path(), &args);
        assert_eq!(result.0, 2, "{target}");
        insta::assert_snapshot!(
            format!("error_output_{name}"),
            super::transcript(&args, result)
        );
    }
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "mine\n");
    let entries: Vec<_> = std::fs::read_dir(dir.path().join("reports"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries, ["kept.txt"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("reports/kept.txt")).unwrap(),
        "mine too\n"
    );

    // SAFETY: geteuid only reads the process's user id.
    #[allow(unsafe_code)]
    if unsafe { libc::geteuid() } == 0 {
        return; // root may write any file: no read-only file to refuse
    }
    std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o444)).unwrap();
    let args = [&eval[..], &["kept.txt"]].concat();
    let (code, _, stderr) = run_in(dir.path(), &args);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: cannot write kept.txt: "),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "mine\n");
}

/// A stream with no newline (`/dev/zero`) is refused once a line passes
/// the limit, instead of growing memory without bound.
#[cfg(target_os = "linux")]
#[test]
fn a_line_over_the_limit_is_an_error() {
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("qrels.csv", "user,item,grade\nq1,a,1\n"),
    ]);
    let trec = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "/dev/zero",
        "-m",
        "ap",
    ];
    let csv = [
        "eval",
        "--qrels",
        "qrels.csv",
        "--run",
        "/dev/zero",
        "--input-format",
        "csv",
        "-m",
        "ap",
    ];
    for (name, args) in [("trec", &trec[..]), ("csv", &csv[..])] {
        let result = run_in(dir.path(), args);
        assert_eq!(result.0, 2);
        insta::assert_snapshot!(
            format!("error_line_too_long_{name}"),
            super::transcript(args, result)
        );
    }
}

/// A UTF-8 byte order mark (as Windows editors write) is skipped in every
/// text format: the values are those of the file without it.
#[test]
fn a_byte_order_mark_is_skipped_in_every_text_format() {
    const BOM: &str = "\u{FEFF}";
    let jsonl = "{\"query\": \"q1\", \"predicted\": [\"b\", \"a\"]}\n{\"query\": \"q2\", \"predicted\": [\"c\", \"d\"]}\n";
    let csv = "user,item,score\nq1,b,0.9\nq1,a,0.5\nq2,c,0.7\nq2,d,0.6\n";
    let files = [
        ("qrels.txt", QRELS.to_owned()),
        ("bom/qrels.txt", format!("{BOM}{QRELS}")),
        ("run.trec", UNGROUPED.to_owned()),
        ("bom/run.trec", format!("{BOM}{UNGROUPED}")),
        ("run.jsonl", jsonl.to_owned()),
        ("bom/run.jsonl", format!("{BOM}{jsonl}")),
        ("run.csv", csv.to_owned()),
        ("bom/run.csv", format!("{BOM}{csv}")),
    ];
    let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let dir = scratch(&files);
    for run in ["run.trec", "run.jsonl", "run.csv"] {
        let eval = |prefix: &str| {
            let qrels = format!("{prefix}qrels.txt");
            let run = format!("{prefix}{run}");
            let args = [
                "eval",
                "--qrels",
                &qrels,
                "--run",
                &run,
                "-m",
                "ap",
                "--per-query",
                "--format",
                "csv",
            ];
            run_in(dir.path(), &args)
        };
        let (plain, with_bom) = (eval(""), eval("bom/"));
        assert_eq!((plain.0, plain.2.as_str()), (0, ""), "{run}");
        assert_eq!((with_bom.0, with_bom.2.as_str()), (0, ""), "{run}");
        assert_eq!(plain.1, with_bom.1, "{run}");
    }
}

/// An empty list asks for nothing: an error naming the key, not the
/// defaults in silence.
#[test]
fn an_empty_metrics_or_aggregators_list_is_an_error() {
    for (name, key) in [
        ("metrics", "metrics = []"),
        ("aggregators", "aggregators = []"),
    ] {
        let toml = format!("qrels = \"qrels.txt\"\n{key}\n\n[[runs]]\npath = \"run.trec\"\n");
        let dir = scratch(&[
            ("qrels.txt", QRELS),
            ("run.trec", UNGROUPED),
            ("exp.toml", &toml),
        ]);
        let args = ["run", "exp.toml"];
        let result = run_in(dir.path(), &args);
        assert_eq!(result.0, 2);
        insta::assert_snapshot!(
            format!("error_empty_{name}"),
            super::transcript(&args, result)
        );
    }
}

#[test]
fn a_negative_relevance_level_says_what_a_level_must_be() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", UNGROUPED)]);
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "run.trec",
        "--rel",
        "-1",
    ];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 2);
    insta::assert_snapshot!("error_negative_rel", super::transcript(&args, result));
}

/// An argument that is not UTF-8 is named, with its flag.
#[cfg(unix)]
#[test]
fn an_argument_that_is_not_utf8_is_named() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", UNGROUPED)]);
    let bad = OsStr::from_bytes(b"p\xff@5");
    let output = Command::new(env!("CARGO_BIN_EXE_rankeval"))
        .args(["eval", "--qrels", "qrels.txt", "--run", "run.trec", "-m"])
        .arg(bad)
        .current_dir(dir.path())
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    insta::assert_snapshot!(
        "error_argument_not_utf8",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Warnings and errors cut long ids: a 1 MB id gives a short message.
#[test]
fn long_ids_are_cut_in_warnings_and_errors() {
    let long = "x".repeat(1 << 20);
    let run = format!(
        "{long} Q0 a 1 0.9 t\nq1 Q0 a 1 0.9 t\nq1 Q0 {long} 2 0.5 t\nq1 Q0 {long} 3 0.4 t\n"
    );
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", &run)]);
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "run.trec",
        "-m",
        "ap",
    ];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 2);
    insta::assert_snapshot!("error_long_id_cut", super::transcript(&args, result));
    let args = [&args[..], &["--duplicates", "first"]].concat();
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 0);
    insta::assert_snapshot!("warning_long_id_cut", result.2);
}

#[test]
fn csv_ids_are_checked_as_in_trec_and_run_names_cannot_break_a_layout() {
    let csv = "user,item,score\nq1,a b,0.9\n";
    let toml = "qrels = \"qrels.txt\"\n\n[[runs]]\nname = \"two\\nlines\"\npath = \"run.trec\"\n";
    let dir = scratch(&[
        ("qrels.txt", QRELS),
        ("run.csv", csv),
        ("run.trec", UNGROUPED),
        ("exp.toml", toml),
    ]);
    let args = [
        "eval",
        "--qrels",
        "qrels.txt",
        "--run",
        "run.csv",
        "-m",
        "ap",
    ];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 2);
    insta::assert_snapshot!(
        "error_csv_id_with_a_space",
        super::transcript(&args, result)
    );
    let args = ["run", "exp.toml"];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 2);
    insta::assert_snapshot!(
        "error_run_name_with_a_newline",
        super::transcript(&args, result)
    );
}

#[test]
fn a_toml_file_that_is_not_utf8_names_the_line() {
    let dir = scratch(&[("qrels.txt", QRELS), ("run.trec", UNGROUPED)]);
    std::fs::write(
        dir.path().join("exp.toml"),
        b"qrels = \"qrels.txt\"\n\n[[runs]]\nname = \"b\xe9\"\npath = \"run.trec\"\n",
    )
    .unwrap();
    let args = ["run", "exp.toml"];
    let result = run_in(dir.path(), &args);
    assert_eq!(result.0, 2);
    insta::assert_snapshot!("error_toml_not_utf8", super::transcript(&args, result));
}

/// Qrels as rows without a grade column count every listed pair relevant:
/// a warning says so, with the columns there are (a `rating` column under
/// another name would otherwise be ignored in silence). Qrels with the
/// grade column, and relevance given as a list (JSON Lines `relevant`),
/// get no such warning; the values are those of the same pairs at grade 1.
#[test]
fn qrels_rows_without_grades_are_named_in_a_warning_and_lists_are_not() {
    let run = "user,item,score\nq1,a,0.9\nq1,b,0.5\nq2,c,0.7\nq2,d,0.6\n";
    let dir = scratch(&[
        ("run.csv", run),
        ("ungraded.csv", "user,item,rating\nq1,a,0\nq1,b,4\nq2,d,5\n"),
        ("graded.csv", "user,item,grade\nq1,a,1\nq1,b,1\nq2,d,1\n"),
        (
            "rows.jsonl",
            "{\"user\": \"q1\", \"item\": \"a\", \"stars\": 0}\n{\"user\": \"q1\", \"item\": \"b\", \"stars\": 4}\n{\"user\": \"q2\", \"item\": \"d\", \"stars\": 5}\n",
        ),
        ("pairs.csv", "user,item\nq1,a\nq1,b\nq2,d\n"),
        (
            "lists.jsonl",
            "{\"query\": \"q1\", \"predicted\": [\"a\", \"b\"], \"relevant\": [\"a\", \"b\"]}\n{\"query\": \"q2\", \"predicted\": [\"c\", \"d\"], \"relevant\": [\"d\"]}\n",
        ),
    ]);
    let eval = |qrels: &str, run: &str| {
        let args = [
            "eval", "--qrels", qrels, "--run", run, "-m", "ap", "-m", "p@1",
        ];
        (run_in(dir.path(), &args), args.map(str::to_owned))
    };
    let (ungraded, args) = eval("ungraded.csv", "run.csv");
    assert_eq!(ungraded.0, 0);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    insta::assert_snapshot!(
        "warning_qrels_without_grades",
        super::transcript(&args, ungraded.clone())
    );
    let (rows, _) = eval("rows.jsonl", "run.csv");
    assert_eq!(rows.0, 0);
    assert!(
        rows.2
            .contains("have no `grade` column (columns: item, stars, user)"),
        "{}",
        rows.2
    );
    assert_eq!(rows.1, ungraded.1);
    // Only the query and document columns: nothing else could hold grades,
    // so binary relevance is what the file says, without a warning.
    let (pairs, _) = eval("pairs.csv", "run.csv");
    assert_eq!((pairs.0, pairs.2.as_str()), (0, ""));
    assert_eq!(pairs.1, ungraded.1);
    let (graded, _) = eval("graded.csv", "run.csv");
    assert_eq!((graded.0, graded.2.as_str()), (0, ""));
    assert_eq!(graded.1, ungraded.1);
    let lists = run_in(
        dir.path(),
        &["eval", "--run", "lists.jsonl", "-m", "ap", "-m", "p@1"],
    );
    assert_eq!((lists.0, lists.2.as_str()), (0, ""));
}

/// A grade column that the user names and the qrels lack is an error
/// (exit 2) naming the column and the columns there are, however it is
/// named (`--csv-grade`, `--qrels-columns`, TOML `grade`) and whatever the
/// format (CSV, JSON rows): never every pair relevant with grade 1 (MAP of
/// 0.124 instead of 0.281 on a user's data). A score column named and
/// absent is not replaced by the ranks the user did not name.
#[test]
fn a_named_column_the_input_lacks_is_an_error_naming_it() {
    let dir = scratch(&[
        ("run.csv", "user,item,score\nq1,a,0.9\nq1,b,0.5\n"),
        ("ranked.csv", "user,item,rank\nq1,a,1\nq1,b,2\n"),
        ("truth.csv", "user,item,relevance\nq1,a,0\nq1,b,4\n"),
        (
            "truth.jsonl",
            "{\"user\": \"q1\", \"item\": \"a\", \"relevance\": 0}\n{\"user\": \"q1\", \"item\": \"b\", \"relevance\": 4}\n",
        ),
        (
            "exp.toml",
            "[qrels]\npath = \"truth.csv\"\ngrade = \"labl\"\n\n[[runs]]\npath = \"run.csv\"\n\n[[metrics]]\ntype = \"ap\"\n",
        ),
    ]);
    let cases: [(&str, &[&str]); 5] = [
        (
            "error_named_grade_column_missing_csv",
            &[
                "eval",
                "--qrels",
                "truth.csv",
                "--run",
                "run.csv",
                "-m",
                "ap",
                "--csv-grade",
                "labl",
            ],
        ),
        (
            "error_named_grade_column_missing_qrels_columns",
            &[
                "eval",
                "--qrels",
                "truth.csv",
                "--run",
                "run.csv",
                "-m",
                "ap",
                "--qrels-columns",
                "grade=labl",
            ],
        ),
        (
            "error_named_grade_column_missing_json_rows",
            &[
                "eval",
                "--qrels",
                "truth.jsonl",
                "--run",
                "run.csv",
                "-m",
                "ap",
                "--csv-grade",
                "labl",
            ],
        ),
        (
            "error_named_grade_column_missing_toml",
            &["run", "exp.toml"],
        ),
        (
            "error_named_score_column_missing",
            &[
                "eval",
                "--qrels",
                "truth.csv",
                "--run",
                "ranked.csv",
                "-m",
                "ap",
                "--csv-grade",
                "relevance",
                "--run-columns",
                "score=prob",
            ],
        ),
    ];
    for (name, args) in cases {
        let result = run_in(dir.path(), args);
        assert_eq!(result.0, 2, "{name}: {result:?}");
        assert!(
            result.2.contains("`labl`") || result.2.contains("`prob`"),
            "{}",
            result.2
        );
        insta::assert_snapshot!(name, super::transcript(args, result));
    }
    // Named as it is, the column is read: b (grade 4) at rank 2 is the one
    // relevant document, so AP is 1/2, where grade 1 for both would give 1.
    let named = run_in(
        dir.path(),
        &[
            "eval",
            "--qrels",
            "truth.csv",
            "--run",
            "run.csv",
            "-m",
            "ap",
            "--csv-grade",
            "relevance",
            "--format",
            "csv",
        ],
    );
    assert_eq!(named.0, 0, "{named:?}");
    assert!(named.1.contains("0.5"), "{}", named.1);
}

/// TOML nested too deep (arrays, inline tables, dotted keys, table
/// headers, 100,000 levels) is an error naming the line, not a stack
/// overflow.
#[test]
fn a_toml_file_nested_too_deep_is_an_error_naming_the_line() {
    const DEPTH: usize = 100_000;
    let head = "qrels = \"qrels.txt\"\n\n[[runs]]\npath = \"run.trec\"\n\n";
    let dotted = vec!["a"; DEPTH].join(".");
    for (name, body) in [
        (
            "arrays",
            format!("[csv]\nx = {}{}\n", "[".repeat(DEPTH), "]".repeat(DEPTH)),
        ),
        (
            "inline_tables",
            format!("[csv]\nx = {}1{}\n", "{a=".repeat(DEPTH), "}".repeat(DEPTH)),
        ),
        ("dotted_keys", format!("[csv]\n{dotted} = 1\n")),
        ("table_header", format!("[{dotted}]\n")),
    ] {
        let dir = scratch(&[
            ("qrels.txt", QRELS),
            ("run.trec", UNGROUPED),
            ("exp.toml", &format!("{head}{body}")),
        ]);
        let (code, stdout, stderr) = run_in(dir.path(), &["run", "exp.toml"]);
        assert_eq!((code, stdout.as_str()), (2, ""), "{name}: {stderr}");
        // The excerpt of the line is cut: the message stays short.
        assert!(stderr.len() < 2000, "{name}: {} bytes", stderr.len());
        insta::assert_snapshot!(format!("error_toml_too_deep_{name}"), stderr);
    }
}

/// An Arrow IPC file or stream of a few bytes whose header claims a
/// message or footer of 2 GiB is an error naming the file, read in bounded
/// memory: the process runs with 1 GiB of address space, which the old
/// reader (allocating the claimed length first) overran and aborted.
#[cfg(target_os = "linux")]
#[test]
fn arrow_bytes_claiming_gigabytes_are_refused_in_bounded_memory() {
    // A stream: the continuation marker, then a metadata length of 2 GiB - 1.
    let mut stream = vec![0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F];
    stream.extend_from_slice(b"not a message");
    // A file: the magic, then a footer length of 2 GiB - 1 before the magic.
    let mut file = b"ARROW1\0\0".to_vec();
    file.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0x7F]);
    file.extend_from_slice(b"ARROW1");
    let dir = scratch(&[("qrels.txt", QRELS)]);
    std::fs::write(dir.path().join("run.arrows"), &stream).unwrap();
    std::fs::write(dir.path().join("run.arrow"), &file).unwrap();
    for run in ["run.arrows", "run.arrow"] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_rankeval"));
        command
            .args(["eval", "--qrels", "qrels.txt", "--run", run, "-m", "ap"])
            .current_dir(dir.path())
            .env_clear();
        super::limit_address_space(&mut command, 1 << 30);
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{run}: {stderr}");
        assert!(
            stderr.starts_with(&format!("error: {run}: cannot read as Arrow IPC: ")),
            "{stderr}"
        );
        insta::assert_snapshot!(format!("error_arrow_claims_gigabytes_{run}"), stderr);
    }
}
