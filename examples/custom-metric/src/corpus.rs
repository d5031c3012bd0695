//! A team's own **corpus** metric: **cold-start exposure@k**, the share of
//! lists whose top k shows at least one item nobody interacted with in
//! training (a new item getting a chance):
//!
//! ```text
//! cold_start_exposure@k = |{lists whose top k holds an item with pop = 0}| / |lists|
//! ```
//!
//! It is one value for the whole run, so it is a
//! [`CorpusMetric`](rankeval_core::CorpusMetric): its state sees each list
//! once, and two states merge by adding their counts, which is exact, so the
//! value is the same however the run is split (across threads, or machines).
//! Registered like the built-ins, it works in TOML
//! (`type = "cold_start_exposure"`), in `-m cold_start_exposure@10` (with
//! `--train`) and in `rankeval metrics`.

use rankeval_core::corpus::{into_state, state_mut};
use rankeval_core::registry::PARAM_K;
use rankeval_core::{CanonicalName, CorpusInputs, CorpusMetric, CorpusState, Cutoff, Requires};
use serde::{Deserialize, Serialize};

/// The state: two counts, which merge exactly by addition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Exposure {
    /// Lists seen.
    pub lists: u64,
    /// Lists whose top k holds a new item.
    pub exposed: u64,
}

/// The `cold_start_exposure` corpus metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColdStartExposure {
    /// Cutoff; `None` = whole lists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<Cutoff>,
}

#[rankeval_core::corpus_metric(
    name = "cold_start_exposure",
    summary = "share of lists whose top k holds an item without training interactions",
    params = &[PARAM_K],
    example = ColdStartExposure { k: Cutoff::new(10) },
)]
impl CorpusMetric for ColdStartExposure {
    fn name(&self) -> String {
        CanonicalName::new("cold_start_exposure").cutoff(self.k)
    }
    // The engine hands `update` each list cut at this depth.
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    // The runner refuses to start without --train (TOML `training`).
    fn requires(&self) -> Requires {
        Requires {
            training: true,
            ..Requires::default()
        }
    }
    fn init(&self) -> CorpusState {
        Box::new(Exposure::default())
    }
    fn update(&self, state: &mut CorpusState, _: u64, list: &[&[u8]], inputs: &CorpusInputs) {
        let state = state_mut::<Exposure>(state);
        state.lists += 1;
        let new = |item: &&[u8]| {
            inputs
                .training
                .as_ref()
                .is_some_and(|t| t.users_of(item) == 0)
        };
        if list.iter().any(new) {
            state.exposed += 1;
        }
    }
    fn merge(&self, state: &mut CorpusState, other: CorpusState) {
        let other = into_state::<Exposure>(other);
        let state = state_mut::<Exposure>(state);
        state.lists += other.lists;
        state.exposed += other.exposed;
    }
    fn finish(&self, state: CorpusState, _: &CorpusInputs) -> f64 {
        let state = into_state::<Exposure>(state);
        if state.lists == 0 {
            0.0
        } else {
            state.exposed as f64 / state.lists as f64
        }
    }
}
