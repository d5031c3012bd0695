//! Gini index of recommendation counts over the catalog.
//!
//! With `c_(1) <= ... <= c_(n)` the number of lists whose top k holds each
//! of the `n` catalog items (0 for an item never recommended), sorted:
//!
//! ```text
//! gini@k = sum_{i=1..n} (2i - n - 1) c_(i) / (n sum_i c_(i))
//! ```
//!
//! 0 when every item is recommended equally often, close to 1 when a few
//! items take every slot (RecBole `GiniIndex`, with its `n` the number of
//! items of the dataset). 0 when nothing is recommended. Recommended items
//! outside the catalog are counted as items too (so `n` grows).

use rankeval_core::corpus::{ItemCounts, into_state, state_mut};
use rankeval_core::registry::PARAM_K;
use rankeval_core::{CanonicalName, CorpusInputs, CorpusMetric, CorpusState, Cutoff, Requires};
use serde::{Deserialize, Serialize};

use super::top;
use crate::common::is_none;

/// Gini index of `counts` (any order) over `n >= counts.len()` items, the
/// missing ones counted 0.
///
/// ```
/// use rankeval_metrics::corpus::gini::gini_index;
/// assert_eq!(gini_index(&[5, 5, 5], 3), 0.0);
/// // One item of four takes every slot: (2*4 - 4 - 1) / 4 = 3/4.
/// assert_eq!(gini_index(&[7], 4), 0.75);
/// ```
pub fn gini_index(counts: &[u64], n: usize) -> f64 {
    let mut sorted = counts.to_vec();
    sorted.sort_unstable();
    let total: u64 = sorted.iter().sum();
    if total == 0 || n == 0 {
        return 0.0;
    }
    let zeros = n.saturating_sub(sorted.len());
    let n = n.max(sorted.len());
    // Items never recommended take ranks 1..=zeros and add nothing.
    let weighted: i128 = sorted
        .iter()
        .enumerate()
        .map(|(j, &c)| {
            let i = (zeros + j + 1) as i128;
            (2 * i - n as i128 - 1) * i128::from(c)
        })
        .sum();
    weighted as f64 / (n as f64 * total as f64)
}

/// The `gini` corpus metric (alias `gini_index`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gini {
    /// Cutoff; `None` = whole lists.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
}

#[rankeval_core::corpus_metric(
    name = "gini",
    aliases = &["gini_index"],
    summary = "Gini index of how often each catalog item is in a top k",
    params = &[PARAM_K],
    example = Gini { k: Cutoff::new(10) },
)]
impl CorpusMetric for Gini {
    fn name(&self) -> String {
        CanonicalName::new("gini").cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn requires(&self) -> Requires {
        Requires {
            catalog: true,
            ..Requires::default()
        }
    }
    fn init(&self) -> CorpusState {
        Box::new(ItemCounts::default())
    }
    fn update(&self, state: &mut CorpusState, _: u64, list: &[&[u8]], _: &CorpusInputs) {
        state_mut::<ItemCounts>(state).add(top(list, self.k));
    }
    fn merge(&self, state: &mut CorpusState, other: CorpusState) {
        state_mut::<ItemCounts>(state).merge(into_state(other));
    }
    fn finish(&self, state: CorpusState, inputs: &CorpusInputs) -> f64 {
        let state = into_state::<ItemCounts>(state);
        let (size, outside) = match inputs.catalog.as_ref() {
            Some(catalog) => (
                catalog.len(),
                state.counts.keys().filter(|i| !catalog.contains(i)).count(),
            ),
            None => (0, state.counts.len()),
        };
        let counts: Vec<u64> = state.counts.values().copied().collect();
        gini_index(&counts, size + outside)
    }
}
