//! Per-query target distributions over document groups (AWRF's `target =
//! given`; TREC Fair Ranking 2022 gives each query its own): a table
//! `query, group, share`, a query's share of attention wanted for a group.
//!
//! A table with those three columns in any table format the other row
//! inputs are read in (`row_table`): CSV or TSV with a header line naming
//! them (in any order, others ignored), JSON Lines with those keys, Parquet
//! or Arrow IPC with those columns (ids strings or integers, shares
//! numbers), gzip in every text format; read whole through
//! [`read_whole`](crate::read_whole) (size and line limits). Shares need
//! not sum to 1 (they are normalised where compared). Errors name the
//! file, the line (text) or row (tables) and the column: an empty or bad
//! id ([`check_id`](rankeval_core::check_id)), a share that is not a
//! finite number of at least 0, a (query, group) given twice (with its
//! first line or row), a query whose every share is 0 (no distribution:
//! named with its first line or row), a table without a row.

use std::collections::HashMap;
use std::path::Path;

use rankeval_core::GroupTargets;

use crate::error::excerpt;
use crate::row_file::RowFileError;
use crate::row_table::{Cell, Column, Kind, parse_row_table, read_row_table};
use crate::{ReadError, ReadErrorKind, RowAt};

/// The columns (keys) of a table of targets, in the order of a row.
pub const COLUMNS: [&str; 3] = ["query", "group", "share"];

/// The columns of a table of targets.
const TABLE: [Column; 3] = [
    Column {
        name: "query",
        kind: Kind::Id,
        optional: false,
        instead_of: None,
    },
    Column {
        name: "group",
        kind: Kind::Id,
        optional: false,
        instead_of: None,
    },
    Column {
        name: "share",
        kind: Kind::Number,
        optional: false,
        instead_of: None,
    },
];

/// What a table of targets looks like, for the message of an empty one.
const EXPECTED: &str = "a header `query,group,share`, then one line per query and group";

/// Reads the table of targets at `path` (its format by its name, magic
/// bytes or first line).
pub fn read_group_targets(path: &Path) -> Result<GroupTargets, ReadError> {
    let mut rows = Rows::default();
    let read = read_row_table(path, &TABLE, &mut |at, cells, _| rows.add(at, cells));
    rows.finish(&path.display().to_string(), read)
}

/// [`read_group_targets`] on bytes in memory (gzip already read through;
/// Parquet and Arrow IPC told by their magic bytes); `name` names the file
/// in errors.
pub fn parse_group_targets(bytes: &[u8], name: &str) -> Result<GroupTargets, ReadError> {
    let mut rows = Rows::default();
    let read = parse_row_table(bytes, name, &TABLE, &mut |at, cells, _| rows.add(at, cells));
    rows.finish(name, read)
}

/// A query id and a group id.
type Pair = (Box<[u8]>, Box<[u8]>);

/// The rows read so far: each query's shares, where each (query, group)
/// and each query was first read.
#[derive(Default)]
struct Rows {
    queries: rankeval_core::group_targets::QueryShares,
    first: HashMap<Pair, RowAt>,
    query_at: HashMap<Box<[u8]>, RowAt>,
}

/// The id in `cell` of the column `column`, checked.
fn id<'c>(cell: Option<&'c Cell<'_>>, column: &str) -> Result<&'c [u8], String> {
    let Some(Some(text)) = cell else {
        return Err(format!("column `{column}`: no value"));
    };
    let text: &[u8] = text;
    if text.is_empty() {
        return Err(format!("column `{column}`: the {column} is empty"));
    }
    rankeval_core::check_id(text).map_err(|bad| format!("column `{column}`: {bad}"))?;
    if std::str::from_utf8(text).is_err() {
        return Err(format!("column `{column}`: the {column} is not UTF-8"));
    }
    Ok(text)
}

impl Rows {
    /// Checks and adds the row at `at`.
    fn add(&mut self, at: RowAt, cells: &[Cell<'_>]) -> Result<(), String> {
        let query = id(cells.first(), "query")?;
        let group = id(cells.get(1), "group")?;
        let Some(Some(text)) = cells.get(2) else {
            return Err("column `share`: no value".to_owned());
        };
        let text: &[u8] = text;
        let share = std::str::from_utf8(text)
            .ok()
            .and_then(|t| t.parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .ok_or_else(|| {
                format!(
                    "column `share`: `{}` is not a finite number of at least 0",
                    excerpt(text)
                )
            })?;
        let key = (Box::from(query), Box::from(group));
        if let Some(before) = self.first.get(&key) {
            return Err(format!(
                "column `group`: query `{}` gives group `{}` again (first on {before}); give each \
                 query's group one row",
                excerpt(query),
                excerpt(group)
            ));
        }
        self.first.insert(key, at);
        self.query_at.entry(query.into()).or_insert(at);
        self.queries
            .entry(query.into())
            .or_default()
            .push((group.into(), share));
        Ok(())
    }

    /// The targets read, unless the table had no row or a query has no
    /// mass.
    fn finish(
        self,
        name: &str,
        read: Result<u64, RowFileError>,
    ) -> Result<GroupTargets, ReadError> {
        read.map_err(ReadError::from)?;
        if self.queries.is_empty() {
            return Err(ReadError::new(
                name,
                None,
                ReadErrorKind::Empty { expected: EXPECTED },
            ));
        }
        // The first query (in input order) whose shares are all 0.
        let massless = self
            .queries
            .iter()
            .filter(|(_, shares)| shares.iter().all(|&(_, s)| s == 0.0))
            .filter_map(|(q, _)| self.query_at.get(q).map(|at| (*at, q)))
            .min_by_key(|(at, _)| match at {
                RowAt::Line(n) | RowAt::Row(n) => *n,
            });
        if let Some((at, query)) = massless {
            return Err(RowFileError::At {
                path: name.to_owned(),
                at,
                problem: format!(
                    "column `share`: every share of query `{}` is 0 (a target needs some mass)",
                    excerpt(query)
                ),
            }
            .into());
        }
        Ok(GroupTargets::new(self.queries))
    }
}

#[cfg(test)]
mod tests;
