//! The database's schema, versioned: `PRAGMA user_version` holds the
//! version, `PRAGMA application_id` marks the file as a rankeval history.
//! [`MIGRATIONS`] takes a database from each version to the next; opening
//! applies the missing ones in one transaction, so a database is always at
//! one version, and refuses a version later than this build knows (a
//! downgrade would misread it). docs/history.md describes each table.

use rusqlite::{Connection, TransactionBehavior};

/// `PRAGMA application_id` of a rankeval history: the bytes `rkev`.
pub const APPLICATION_ID: i32 = i32::from_be_bytes(*b"rkev");

/// Version 1: the first schema.
const V1: &str = "
CREATE TABLE query_sets (
    id INTEGER PRIMARY KEY,
    digest TEXT NOT NULL UNIQUE,
    count INTEGER NOT NULL,
    ids BLOB NOT NULL
);
CREATE TABLE records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time_ms INTEGER NOT NULL,
    run TEXT NOT NULL,
    label TEXT,
    commit_id TEXT,
    rankeval_version TEXT NOT NULL,
    qrels_fingerprint TEXT NOT NULL,
    definitions_fingerprint TEXT NOT NULL,
    run_hash TEXT,
    experiment_hash TEXT,
    query_set INTEGER NOT NULL REFERENCES query_sets(id)
);
CREATE TABLE options (
    record INTEGER NOT NULL REFERENCES records(id),
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (record, key)
) WITHOUT ROWID;
CREATE TABLE metadata (
    record INTEGER NOT NULL REFERENCES records(id),
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (record, key)
) WITHOUT ROWID;
CREATE TABLE metrics (
    record INTEGER NOT NULL REFERENCES records(id),
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    definition_version INTEGER NOT NULL,
    n INTEGER NOT NULL,
    mean REAL,
    lower REAL,
    upper REAL,
    vals BLOB NOT NULL,
    PRIMARY KEY (record, position)
);
CREATE TABLE acceptances (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    record INTEGER NOT NULL REFERENCES records(id),
    time_ms INTEGER NOT NULL
);
CREATE INDEX acceptances_record ON acceptances(record);
";

/// Version 2: off-policy records (`rankeval ope --record`). A record's
/// kind (`eval`, every record of version 1; `ope`), and per estimate its
/// standard error and, when refused, the reasons. An off-policy metric
/// row's `vals` holds four numbers (estimate, standard error, lower,
/// upper) instead of per-query values.
const V2: &str = "
ALTER TABLE records ADD COLUMN kind TEXT NOT NULL DEFAULT 'eval';
ALTER TABLE metrics ADD COLUMN standard_error REAL;
ALTER TABLE metrics ADD COLUMN refused TEXT;
";

/// The migrations: `MIGRATIONS[v]` takes a database at version `v` to
/// `v + 1`. Append only: a released migration never changes.
pub const MIGRATIONS: &[&str] = &[V1, V2];

/// The schema version this build writes: the number of migrations.
pub const CURRENT: i64 = MIGRATIONS.len() as i64;

/// What a database's header says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// `PRAGMA application_id`.
    pub application_id: i32,
    /// `PRAGMA user_version`: the schema version.
    pub version: i64,
    /// The number of tables, indexes and views it holds.
    pub objects: i64,
}

/// Reads the header of the database `conn`, in one read transaction: the
/// three values from one snapshot. Read statement by statement, another
/// process creating the schema in between showed an unmarked database
/// already holding tables, which was refused as another application's.
pub fn header(conn: &Connection) -> rusqlite::Result<Header> {
    let snapshot = conn.unchecked_transaction()?;
    let header = Header {
        application_id: snapshot.query_row("PRAGMA application_id", [], |r| r.get(0))?,
        version: snapshot.query_row("PRAGMA user_version", [], |r| r.get(0))?,
        objects: snapshot.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?,
    };
    snapshot.commit()?;
    Ok(header)
}

/// Brings `conn` from its version to the last of `migrations`, in one
/// immediate transaction (the version is read again inside it: another
/// process may have migrated in between). Returns the version found inside
/// the transaction, for the caller to refuse a later one.
pub fn migrate(conn: &mut Connection, migrations: &[&str]) -> rusqlite::Result<i64> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let Ok(from) = usize::try_from(found) else {
        return Ok(found);
    };
    if from >= migrations.len() {
        return Ok(found);
    }
    for sql in migrations.iter().skip(from) {
        tx.execute_batch(sql)?;
    }
    tx.execute_batch(&format!(
        "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {};",
        migrations.len()
    ))?;
    tx.commit()?;
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_1_database_gains_the_kind_and_keeps_its_records() {
        let mut conn = Connection::open_in_memory().unwrap();
        assert_eq!(migrate(&mut conn, &MIGRATIONS[..1]).unwrap(), 0);
        conn.execute_batch(
            "INSERT INTO query_sets (digest, count, ids) VALUES ('d', 0, x'');
             INSERT INTO records (time_ms, run, rankeval_version, qrels_fingerprint,
                 definitions_fingerprint, query_set) VALUES (1, 'bm25', '0.1.0', 'f', 'd', 1);
             INSERT INTO metrics (record, position, name, definition_version, n, vals)
                 VALUES (1, 0, 'ndcg', 1, 0, x'');",
        )
        .unwrap();
        assert_eq!(migrate(&mut conn, MIGRATIONS).unwrap(), 1);
        let (kind, se, refused): (String, Option<f64>, Option<String>) = conn
            .query_row(
                "SELECT r.kind, m.standard_error, m.refused FROM records r \
                 JOIN metrics m ON m.record = r.id",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!((kind.as_str(), se, refused), ("eval", None, None));
        assert_eq!(header(&conn).unwrap().version, 2);
    }

    #[test]
    fn a_database_is_migrated_forward_once() {
        let mut conn = Connection::open_in_memory().unwrap();
        assert_eq!(migrate(&mut conn, MIGRATIONS).unwrap(), 0);
        conn.execute(
            "INSERT INTO query_sets (digest, count, ids) VALUES ('d', 0, x'')",
            [],
        )
        .unwrap();
        // A later build's migration applies on top, keeping the data.
        let later = [V1, V2, "ALTER TABLE records ADD COLUMN note TEXT;"];
        assert_eq!(migrate(&mut conn, &later).unwrap(), CURRENT);
        let h = header(&conn).unwrap();
        assert_eq!((h.application_id, h.version), (APPLICATION_ID, CURRENT + 1));
        let count: i64 = conn
            .query_row("SELECT count(*) FROM query_sets", [], |r| r.get(0))
            .unwrap();
        assert_eq!(count, 1);
        conn.execute("UPDATE records SET note = 'x'", []).unwrap();
        conn.execute("UPDATE records SET kind = 'ope'", []).unwrap();
        // Migrating again with this build's list changes nothing and says
        // the version found, which the opener refuses.
        assert_eq!(migrate(&mut conn, MIGRATIONS).unwrap(), CURRENT + 1);
    }
}
