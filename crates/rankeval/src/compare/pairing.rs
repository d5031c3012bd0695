//! Pairing queries across runs: a comparison is paired by query, so each
//! run's values are put in one common query order. A query that some of
//! the runs have and others do not follows the `missing` policy, the same
//! for every side: `skip` leaves it out of the comparison, `zero` keeps it
//! and scores 0 where it is absent. Either way it is counted and named in
//! the [`Pairing`], never dropped without a word.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::engine::Missing;

/// How many query ids a [`Pairing`] lists as examples.
pub const EXAMPLES: usize = 5;

/// How the queries of the compared runs were paired.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Pairing {
    /// The policy for a query that not every run has.
    pub missing: Missing,
    /// Queries in the comparison.
    pub paired: usize,
    /// Queries that not every run has: left out (`skip`) or scored 0 where
    /// absent (`zero`).
    pub unmatched: usize,
    /// The first few of them, in byte order of their ids.
    pub unmatched_examples: Vec<String>,
}

/// Where each common query is in each run: `rows[q][run]` is the query's
/// index in that run, `None` where the run does not have it (scored 0).
#[derive(Clone, Debug)]
pub(crate) struct Alignment {
    /// `None` when every run has exactly the same queries in the same order:
    /// the columns are used as they are.
    rows: Option<Vec<Vec<Option<usize>>>>,
    /// What was paired and what was not.
    pub(crate) pairing: Pairing,
}

impl Alignment {
    /// Aligns the runs whose query ids are `queries` (one list per run).
    pub(crate) fn new(queries: &[&[String]], missing: Missing) -> Self {
        let Some(first) = queries.first() else {
            return Self::identical(0, missing);
        };
        if queries.iter().all(|q| q == first) {
            return Self::identical(first.len(), missing);
        }
        let k = queries.len();
        let mut by_id: BTreeMap<&str, Vec<Option<usize>>> = BTreeMap::new();
        for (run, ids) in queries.iter().enumerate() {
            for (index, id) in ids.iter().enumerate() {
                by_id.entry(id.as_str()).or_insert_with(|| vec![None; k])[run] = Some(index);
            }
        }
        let mut unmatched = 0;
        let mut unmatched_examples = Vec::new();
        let mut rows = Vec::with_capacity(by_id.len());
        for (id, row) in by_id {
            if row.iter().any(Option::is_none) {
                unmatched += 1;
                if unmatched_examples.len() < EXAMPLES {
                    unmatched_examples.push(id.to_owned());
                }
                if missing == Missing::Skip {
                    continue;
                }
            }
            rows.push(row);
        }
        Self {
            pairing: Pairing {
                missing,
                paired: rows.len(),
                unmatched,
                unmatched_examples,
            },
            rows: Some(rows),
        }
    }

    fn identical(queries: usize, missing: Missing) -> Self {
        Self {
            rows: None,
            pairing: Pairing {
                missing,
                paired: queries,
                unmatched: 0,
                unmatched_examples: Vec::new(),
            },
        }
    }

    /// The ids of the aligned queries, in the common order, from the runs'
    /// `queries` (as given to [`new`](Self::new)).
    pub(crate) fn ids(&self, queries: &[&[String]]) -> Vec<String> {
        match &self.rows {
            None => queries.first().map(|q| q.to_vec()).unwrap_or_default(),
            Some(rows) => rows
                .iter()
                .map(|row| {
                    row.iter()
                        .zip(queries)
                        .find_map(|(index, ids)| index.map(|i| ids[i].clone()))
                        .unwrap_or_default()
                })
                .collect(),
        }
    }

    /// Run `run`'s `column` in the common query order.
    pub(crate) fn column(&self, run: usize, column: &[f64]) -> Vec<f64> {
        match &self.rows {
            None => column.to_vec(),
            Some(rows) => rows
                .iter()
                .map(|row| row[run].map_or(0.0, |index| column[index]))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn identical_queries_are_used_as_they_are() {
        let a = ids(&["q1", "q2"]);
        let alignment = Alignment::new(&[&a, &a.clone()], Missing::Skip);
        assert_eq!(alignment.pairing.paired, 2);
        assert_eq!(alignment.pairing.unmatched, 0);
        assert_eq!(alignment.column(1, &[0.5, 0.25]), [0.5, 0.25]);
    }

    #[test]
    fn skip_leaves_out_and_zero_scores_zero_on_both_sides() {
        let baseline = ids(&["q1", "q2", "q3"]);
        let run = ids(&["q4", "q2", "q1"]);
        let skip = Alignment::new(&[&baseline, &run], Missing::Skip);
        assert_eq!(
            skip.pairing,
            Pairing {
                missing: Missing::Skip,
                paired: 2,
                unmatched: 2,
                unmatched_examples: ids(&["q3", "q4"]),
            }
        );
        assert_eq!(skip.column(0, &[0.1, 0.2, 0.3]), [0.1, 0.2]);
        assert_eq!(skip.column(1, &[0.4, 0.5, 0.6]), [0.6, 0.5]);
        let zero = Alignment::new(&[&baseline, &run], Missing::Zero);
        assert_eq!(zero.pairing.paired, 4);
        assert_eq!(zero.pairing.unmatched, 2);
        assert_eq!(zero.column(0, &[0.1, 0.2, 0.3]), [0.1, 0.2, 0.3, 0.0]);
        assert_eq!(zero.column(1, &[0.4, 0.5, 0.6]), [0.6, 0.5, 0.0, 0.4]);
    }
}
