//! Shannon entropy of the recommended items' shares.
//!
//! `entropy@k = - sum_i p_i ln p_i`, `p_i = c_i / sum_j c_j`, where `c_i`
//! counts the lists whose top k holds item `i` (RecBole `ShannonEntropy`,
//! natural logarithm). Higher is more diverse; 0 when one item is all
//! there is or nothing is recommended. The sum runs in item id order, so
//! its bits do not depend on hashing or on how the lists were split.

use rankeval_core::corpus::{ItemCounts, into_state, state_mut};
use rankeval_core::registry::PARAM_K;
use rankeval_core::{CanonicalName, CorpusInputs, CorpusMetric, CorpusState, Cutoff};
use serde::{Deserialize, Serialize};

use super::top;
use crate::common::is_none;

/// The `entropy` corpus metric (alias `shannon_entropy`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entropy {
    /// Cutoff; `None` = whole lists.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
}

#[rankeval_core::corpus_metric(
    name = "entropy",
    aliases = &["shannon_entropy"],
    summary = "Shannon entropy (nats) of the shares of the items in the top k",
    params = &[PARAM_K],
    example = Entropy { k: Cutoff::new(10) },
)]
impl CorpusMetric for Entropy {
    fn name(&self) -> String {
        CanonicalName::new("entropy").cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
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
    fn finish(&self, state: CorpusState, _: &CorpusInputs) -> f64 {
        let state = into_state::<ItemCounts>(state);
        let counts = state.sorted();
        let total: u64 = counts.iter().map(|&(_, c)| c).sum();
        if total == 0 {
            return 0.0;
        }
        let total = total as f64;
        let sum = counts.iter().fold(0.0, |sum, &(_, c)| {
            let p = c as f64 / total;
            sum + p * p.ln()
        });
        // -0.0 when one item is all there is: report 0.
        if sum == 0.0 { 0.0 } else { -sum }
    }
}
