//! Target distributions over document groups given per query (TREC Fair
//! Ranking 2022 gives each query its own target): for each query, each
//! group's share. The input of AWRF's `target = given`; a query's shares
//! are normalised to sum 1 where they are compared, as AWRF's other
//! targets are.

use std::collections::HashMap;

/// A group's share of a query's target: the group id and its share.
pub type Share = (Box<[u8]>, f64);

/// Each query's shares, by query id.
pub type QueryShares = HashMap<Box<[u8]>, Vec<Share>>;

/// Each query's target shares over groups, by query id: `(group id,
/// share)` in the order given, every share finite and at least 0, each
/// query's summing above 0 (the reader checks them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupTargets {
    queries: QueryShares,
}

impl GroupTargets {
    /// The targets `queries` (checked by the caller: see the type).
    pub fn new(queries: QueryShares) -> Self {
        GroupTargets { queries }
    }

    /// The target of `query`: `(group id, share)`, `None` for a query
    /// without one.
    pub fn query(&self, query: &[u8]) -> Option<&[Share]> {
        self.queries.get(query).map(Vec::as_slice)
    }

    /// The number of queries with a target.
    pub fn num_queries(&self) -> usize {
        self.queries.len()
    }

    /// The query ids, in byte order.
    pub fn query_ids(&self) -> Vec<&[u8]> {
        let mut ids: Vec<&[u8]> = self.queries.keys().map(|q| &**q).collect();
        ids.sort_unstable();
        ids
    }
}
