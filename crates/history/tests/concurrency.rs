//! Several writers on one file, as CI jobs are: threads on their own
//! connections, processes (this test binary run again as a writer), and a
//! writer killed with SIGKILL in the middle of a large record.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rankeval_history::{History, Mode};

use crate::common::{comparable, record};

/// Records per writer.
const RECORDS: u64 = 50;
/// Writers.
const WRITERS: u64 = 8;

/// The record writer `w` writes `i`-th.
fn written(w: u64, i: u64) -> rankeval_history::RecordData {
    record(
        &format!("w{w}"),
        w * 1000 + i,
        30 + (w * 7 + i) as usize % 20,
        2,
    )
}

/// Writer `w`'s work: its records, one call each, on its own connection.
fn write_all(path: &Path, w: u64) {
    let mut h = History::open(path, Mode::Create).unwrap();
    for i in 0..RECORDS {
        h.record(&[written(w, i)]).unwrap();
    }
}

/// Checks that every writer's every record is in `path`, intact.
fn check_all(path: &Path) {
    let mut h = History::open(path, Mode::Existing).unwrap();
    h.integrity_check().unwrap();
    let summaries = h.summaries().unwrap();
    assert_eq!(summaries.len() as u64, WRITERS * RECORDS);
    let mut next = vec![0u64; WRITERS as usize];
    for s in summaries {
        let w: u64 = s.run[1..].parse().unwrap();
        // Each writer's records are in its own order.
        let i = next[w as usize];
        next[w as usize] += 1;
        let back = h.get(s.id).unwrap();
        assert_eq!(comparable(&back.data), comparable(&written(w, i)));
    }
    assert!(next.iter().all(|&n| n == RECORDS));
}

#[test]
fn threads_on_their_own_connections_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    std::thread::scope(|s| {
        for w in 0..WRITERS {
            let path = &path;
            s.spawn(move || write_all(path, w));
        }
    });
    check_all(&path);
}

/// The environment variable that makes [`child_writer`] write.
const CHILD: &str = "RANKEVAL_HISTORY_TEST_CHILD";

/// This test binary run as a child process, for the tests below: does
/// nothing unless [`CHILD`] is set to `DB WRITER` (write that writer's
/// records) or `DB big MARKER` (write one large record, creating MARKER just
/// before and `MARKER.done` just after).
#[test]
fn child_writer() {
    let Ok(job) = std::env::var(CHILD) else {
        return;
    };
    let parts: Vec<&str> = job.split('\t').collect();
    let path = Path::new(parts[0]);
    if parts[1] == "big" {
        let marker = Path::new(parts[2]);
        let big = record("big", 7, 200_000, 40);
        let mut h = History::open(path, Mode::Create).unwrap();
        std::fs::write(marker, "").unwrap();
        h.record(&[big]).unwrap();
        std::fs::write(marker.with_extension("done"), "").unwrap();
    } else {
        write_all(path, parts[1].parse().unwrap());
    }
}

/// This test binary, run as [`child_writer`] with `job`.
fn child(job: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            "concurrency::child_writer",
            "--test-threads",
            "1",
            "--quiet",
        ])
        .env(CHILD, job)
        .stdout(Stdio::null());
    command
}

#[test]
fn processes_writing_one_file_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let children: Vec<_> = (0..WRITERS)
        .map(|w| child(&format!("{}\t{w}", path.display())).spawn().unwrap())
        .collect();
    for c in children {
        let output = c.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "a writer failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    check_all(&path);
}

#[test]
fn a_writer_killed_mid_write_leaves_a_consistent_database_without_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    {
        let mut h = History::open(&path, Mode::Create).unwrap();
        h.record(&[record("before", 1, 100, 2)]).unwrap();
    }
    let wal = path.with_extension("sqlite-wal");
    let marker = dir.path().join("started");
    let mut c = child(&format!("{}\tbig\t{}", path.display(), marker.display()))
        .spawn()
        .unwrap();
    // Wait until the transaction has spilled pages into the WAL (4 MiB of
    // the record's ~70 MiB), then kill it.
    let start = Instant::now();
    loop {
        let spilled =
            marker.exists() && std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0) > 4 << 20;
        if spilled {
            break;
        }
        assert!(
            c.try_wait().unwrap().is_none(),
            "the writer ended before it was killed"
        );
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "the writer never wrote"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    c.kill().unwrap();
    let status = c.wait().unwrap();
    assert!(!status.success());
    assert!(
        !marker.with_extension("done").exists(),
        "the write finished before the kill"
    );

    let mut h = History::open(&path, Mode::Existing).unwrap();
    h.integrity_check().unwrap();
    let summaries = h.summaries().unwrap();
    assert_eq!(
        summaries.iter().map(|s| s.run.as_str()).collect::<Vec<_>>(),
        ["before"]
    );
    assert_eq!(
        comparable(&h.get(1).unwrap().data),
        comparable(&record("before", 1, 100, 2))
    );
    // And the next writer writes.
    h.record(&[record("after", 2, 10, 1)]).unwrap();
    assert_eq!(h.summaries().unwrap().len(), 2);
}
