//! What is refused, with the reason: a later schema, another application's
//! database, a file that is not SQLite, a damaged one, a path that is not a
//! file. Never a panic.

use std::path::Path;

use rankeval_history::{History, HistoryError, Mode};

use crate::common::record;

/// A history at `path` with one record.
fn make(path: &Path) {
    let mut h = History::open(path, Mode::Create).unwrap();
    h.record(&[record("r", 1, 20, 2)]).unwrap();
}

#[test]
fn a_later_schema_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    make(&path);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("PRAGMA user_version = 7").unwrap();
    drop(conn);
    let error = History::open(&path, Mode::Existing).unwrap_err();
    assert!(matches!(
        error,
        HistoryError::NewerSchema {
            found: 7,
            known: 2,
            ..
        }
    ));
    assert_eq!(
        error.to_string(),
        format!(
            "history {}: schema version 7 was written by a later rankeval (this one knows \
             versions up to 2): upgrade rankeval to read or write it",
            path.display()
        )
    );
    // Recording refuses it too, and leaves it as it was.
    assert!(matches!(
        History::open(&path, Mode::Create),
        Err(HistoryError::NewerSchema { .. })
    ));
    let conn = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 7);
}

#[test]
fn other_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(
        &text,
        "hello, this is not a database, but it is long enough to have a header",
    )
    .unwrap();
    let error = History::open(&text, Mode::Create).unwrap_err();
    assert!(matches!(error, HistoryError::NotSqlite { .. }), "{error}");
    assert!(error.to_string().starts_with(&format!(
        "history {}: not an SQLite database",
        text.display()
    )));
    // The file is left as it was.
    assert!(std::fs::read_to_string(&text).unwrap().starts_with("hello"));

    // A file shorter than SQLite's header, which SQLite would take for an
    // empty database and write into.
    let short = dir.path().join("short.sqlite");
    std::fs::write(&short, "x").unwrap();
    let error = History::open(&short, Mode::Create).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "history {}: not an SQLite database (its header is not SQLite's): it starts with \"x\", \
             not SQLite's \"SQLite format 3\"",
            short.display()
        )
    );
    assert_eq!(std::fs::read(&short).unwrap(), b"x");

    let other = dir.path().join("other.sqlite");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        .unwrap();
    let error = History::open(&other, Mode::Create).unwrap_err();
    assert!(
        matches!(
            error,
            HistoryError::NotAHistory {
                application_id: 0,
                ..
            }
        ),
        "{error}"
    );

    let missing = dir.path().join("missing.sqlite");
    assert!(matches!(
        History::open(&missing, Mode::Existing),
        Err(HistoryError::Missing { .. })
    ));
    assert!(!missing.exists());

    let error = History::open(dir.path(), Mode::Create).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("not a regular file (a directory)"),
        "{error}"
    );
    let error = History::open(Path::new("/dev/zero"), Mode::Create).unwrap_err();
    assert!(
        error.to_string().contains("not a regular file (a device)"),
        "{error}"
    );
    let fifo = dir.path().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a valid C string.
    #[allow(unsafe_code)]
    let made = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
    assert_eq!(made, 0);
    let error = History::open(&fifo, Mode::Create).unwrap_err();
    assert!(
        error.to_string().contains("not a regular file (a FIFO)"),
        "{error}"
    );

    // An empty file is a new history.
    let empty = dir.path().join("empty.sqlite");
    std::fs::write(&empty, "").unwrap();
    let mut h = History::open(&empty, Mode::Existing).unwrap();
    assert!(h.summaries().unwrap().is_empty());
}

/// Every byte of `path` from `from` for `len` bytes overwritten by a pattern.
fn scribble(path: &Path, from: usize, len: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    let end = (from + len).min(bytes.len());
    for (i, b) in bytes[from..end].iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(37) ^ 0x5a;
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_damaged_database_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    // The header damaged: not SQLite any more.
    let path = dir.path().join("header.sqlite");
    make(&path);
    scribble(&path, 0, 16);
    let error = History::open(&path, Mode::Existing).unwrap_err();
    assert!(matches!(error, HistoryError::NotSqlite { .. }), "{error}");

    // Every page after the first damaged in turn: each read gives records
    // or an error naming the file.
    let clean = dir.path().join("clean.sqlite");
    make(&clean);
    let size = std::fs::metadata(&clean).unwrap().len() as usize;
    let mut errors = 0;
    for page in (4096..size).step_by(4096) {
        let path = dir.path().join(format!("p{page}.sqlite"));
        std::fs::copy(&clean, &path).unwrap();
        scribble(&path, page, 4096);
        let outcome = History::open(&path, Mode::Existing).and_then(|mut h| {
            let ids: Vec<i64> = h.summaries()?.iter().map(|s| s.id).collect();
            for id in ids {
                h.get(id)?;
            }
            h.integrity_check()
        });
        if let Err(error) = outcome {
            errors += 1;
            assert!(
                error
                    .to_string()
                    .starts_with(&format!("history {}: ", path.display())),
                "{error}"
            );
        }
    }
    assert!(errors > 0, "no damage was found in {} pages", size / 4096);

    // A record's values edited by hand to the wrong length.
    let path = dir.path().join("edited.sqlite");
    make(&path);
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("UPDATE metrics SET vals = x'0011' WHERE position = 1")
        .unwrap();
    let error = History::open(&path, Mode::Existing)
        .unwrap()
        .get(1)
        .unwrap_err();
    assert!(matches!(error, HistoryError::Corrupt { .. }));
    assert_eq!(
        error.to_string(),
        format!(
            "history {}: the database is damaged: record 1: metric `metric1@2`: 2 bytes of \
             values for 20 queries",
            path.display()
        )
    );
}
