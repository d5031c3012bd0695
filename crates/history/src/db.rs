//! Opening a history: the checks before SQLite sees the file, the header
//! read and judged, WAL mode, the busy timeout, the migrations, and the
//! retries of a write that other writers keep locked out.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode, OpenFlags};

use crate::HistoryError;
use crate::schema::{self, APPLICATION_ID, CURRENT};

/// How long one statement waits for another process's lock before SQLite
/// gives up (`PRAGMA busy_timeout`).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(20);

/// How many times a write is tried when SQLite still reports the database
/// busy after the timeout (a transaction that could not start or commit is
/// rolled back whole, so trying again is safe).
pub const ATTEMPTS: u32 = 6;

/// An open results history: one SQLite connection to one file.
#[derive(Debug)]
pub struct History {
    /// The connection.
    pub(crate) conn: Connection,
    /// The file, as named by the caller.
    pub(crate) path: PathBuf,
}

/// Whether to create the file when it does not exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Create it (recording).
    Create,
    /// It must exist (listing, exporting, accepting).
    Existing,
}

impl History {
    /// Opens the history at `path`, creating it in [`Mode::Create`]: refuses
    /// a path that is not a regular file, a file that is not SQLite, another
    /// application's database and a schema later than this build's;
    /// migrates an earlier one; sets WAL mode and the busy timeout.
    pub fn open(path: &Path, mode: Mode) -> Result<Self, HistoryError> {
        check_path(path, mode)?;
        let flags = match mode {
            Mode::Create => OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
            Mode::Existing => OpenFlags::SQLITE_OPEN_READ_WRITE,
        } | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(path, flags).map_err(sql_error(path))?;
        let mut history = Self {
            conn,
            path: path.to_owned(),
        };
        history.prepare()?;
        Ok(history)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Judges the header, sets the connection up and migrates.
    fn prepare(&mut self) -> Result<(), HistoryError> {
        let path = self.path.clone();
        self.conn
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(sql_error(&path))?;
        let header = self.retrying(|h| schema::header(&h.conn))?;
        check_header(&path, header)?;
        self.retrying(|h| {
            h.conn
                .query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0))
                .map(drop)
        })?;
        self.conn
            .execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")
            .map_err(sql_error(&path))?;
        if header.version < CURRENT {
            let found = self.retrying(|h| schema::migrate(&mut h.conn, schema::MIGRATIONS))?;
            if found > CURRENT {
                return Err(newer(&path, found));
            }
        }
        Ok(())
    }

    /// Runs `op`, trying it again while SQLite reports the database busy
    /// or locked, up to [`ATTEMPTS`] times with a growing pause; any other
    /// error ends at once. `op` must be a whole transaction or a statement.
    pub(crate) fn retrying<T>(
        &mut self,
        mut op: impl FnMut(&mut Self) -> rusqlite::Result<T>,
    ) -> Result<T, HistoryError> {
        let start = Instant::now();
        let mut attempt = 0;
        loop {
            attempt += 1;
            match op(self) {
                Ok(value) => return Ok(value),
                Err(e) if is_busy(&e) && attempt < ATTEMPTS => {
                    std::thread::sleep(Duration::from_millis(25 << attempt.min(6)));
                }
                Err(e) if is_busy(&e) => {
                    return Err(HistoryError::Busy {
                        path: self.path.clone(),
                        attempts: attempt,
                        seconds: start.elapsed().as_secs(),
                        detail: e.to_string(),
                    });
                }
                Err(e) => return Err(map_error(&self.path, e)),
            }
        }
    }

    /// SQLite's `PRAGMA integrity_check`: `Ok` when it says `ok`, else
    /// [`HistoryError::Corrupt`] with its findings.
    pub fn integrity_check(&mut self) -> Result<(), HistoryError> {
        let findings: Vec<String> = self.retrying(|h| {
            let mut statement = h.conn.prepare("PRAGMA integrity_check")?;
            let rows = statement.query_map([], |r| r.get::<_, String>(0))?;
            rows.collect()
        })?;
        if findings == ["ok"] {
            Ok(())
        } else {
            Err(HistoryError::Corrupt {
                path: self.path.clone(),
                detail: findings.join("; "),
            })
        }
    }
}

/// Refuses a path that exists and is not a regular file, and a missing
/// one in [`Mode::Existing`].
fn check_path(path: &Path, mode: Mode) -> Result<(), HistoryError> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() && meta.len() == 0 => Ok(()),
        Ok(meta) if meta.is_file() => check_magic(path),
        Ok(meta) => Err(HistoryError::NotAFile {
            path: path.to_owned(),
            kind: file_kind(&meta),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match mode {
            Mode::Create => Ok(()),
            Mode::Existing => Err(HistoryError::Missing {
                path: path.to_owned(),
            }),
        },
        Err(e) => Err(HistoryError::Sqlite {
            path: path.to_owned(),
            detail: e.to_string(),
        }),
    }
}

/// SQLite's magic string, the first 16 bytes of every database file.
const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Refuses a non-empty file that does not start with SQLite's magic string
/// (SQLite itself would take a file shorter than its header for an empty
/// database, and write into it).
///
/// Another process may be creating the database at this moment (its first
/// page not yet wholly in the file): a header that is a prefix of the magic
/// string or zeros is read again a few times before it is refused.
fn check_magic(path: &Path) -> Result<(), HistoryError> {
    use std::io::Read;
    let mut head = Vec::with_capacity(16);
    for _ in 0..10 {
        head.clear();
        let read = std::fs::File::open(path).and_then(|f| f.take(16).read_to_end(&mut head));
        if let Err(e) = read {
            return Err(HistoryError::Sqlite {
                path: path.to_owned(),
                detail: e.to_string(),
            });
        }
        let settling = MAGIC.starts_with(&head) || head.iter().all(|&b| b == 0);
        if head == MAGIC || !settling {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    if head == MAGIC {
        return Ok(());
    }
    Err(HistoryError::NotSqlite {
        path: path.to_owned(),
        detail: format!(
            "it starts with {:?}, not SQLite's \"SQLite format 3\"",
            String::from_utf8_lossy(&head)
        ),
    })
}

/// What a path that is not a regular file is.
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if meta.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Refuses another application's database and a later schema.
fn check_header(path: &Path, header: schema::Header) -> Result<(), HistoryError> {
    let foreign = header.application_id != APPLICATION_ID
        && (header.application_id != 0 || header.version != 0 || header.objects != 0);
    if foreign {
        return Err(HistoryError::NotAHistory {
            path: path.to_owned(),
            application_id: header.application_id,
            expected: APPLICATION_ID,
        });
    }
    if header.version > CURRENT {
        return Err(newer(path, header.version));
    }
    Ok(())
}

/// The error for a schema later than this build's.
fn newer(path: &Path, found: i64) -> HistoryError {
    HistoryError::NewerSchema {
        path: path.to_owned(),
        found,
        known: CURRENT,
    }
}

/// Whether `e` is SQLite's busy or locked.
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

/// An SQLite error about `path` as a [`HistoryError`]: not a database,
/// damaged, or any other.
pub(crate) fn map_error(path: &Path, e: rusqlite::Error) -> HistoryError {
    let path = path.to_owned();
    let detail = e.to_string();
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => HistoryError::NotSqlite { path, detail },
        Some(ErrorCode::DatabaseCorrupt) => HistoryError::Corrupt { path, detail },
        _ => HistoryError::Sqlite { path, detail },
    }
}

/// [`map_error`] for `path`, as a closure for `map_err`.
pub(crate) fn sql_error(path: &Path) -> impl Fn(rusqlite::Error) -> HistoryError + '_ {
    move |e| map_error(path, e)
}
