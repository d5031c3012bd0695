//! Popularity and novelty of what is recommended, from the training
//! interactions: `avg_popularity` and `novelty`.
//!
//! With `pop(i)` the number of distinct training users who interacted with
//! item `i` and `U` the number of training users:
//!
//! ```text
//! avg_popularity@k = mean over lists of (mean over its top k of pop(i))
//! novelty@k        = mean over lists of (mean over its top k of -log2(max(pop(i), 1) / U))
//! ```
//!
//! `avg_popularity` is RecTools' `AvgRecPopularity(k)` and RecBole's
//! `AveragePopularity`; `novelty` is RecTools' `MeanInvUserFreq(k)` (an
//! item nobody interacted with counts as one user, so its self-information
//! stays finite). A list with an empty top k adds 0. Lists are averaged in
//! run order.

use rankeval_core::corpus::{PerList, into_state, state_mut};
use rankeval_core::registry::{PARAM_K, ParamDoc};
use rankeval_core::{
    CanonicalName, CorpusInputs, CorpusMetric, CorpusState, Cutoff, Requires, corpus_metric,
};
use serde::{Deserialize, Serialize};

use super::top;
use crate::common::is_none;

/// The per-list mean of `value` over the top k, 0 for an empty top k.
fn list_mean(list: &[&[u8]], value: impl Fn(&[u8]) -> f64) -> f64 {
    if list.is_empty() {
        return 0.0;
    }
    list.iter().fold(0.0, |sum, item| sum + value(item)) / list.len() as f64
}

/// The parameters of every per-list metric.
const PARAMS: &[ParamDoc] = &[PARAM_K];

// The registration stays on one line: rustfmt re-indents a multi-line
// attribute inside `macro_rules!` on every run.
macro_rules! per_list_metric {
    ($type:ident, $name:literal, $summary:literal, $value:expr) => {
        #[doc = concat!("The `", $name, "` corpus metric.")]
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $type {
            /// Cutoff; `None` = whole lists.
            #[serde(default, skip_serializing_if = "is_none")]
            pub k: Option<Cutoff>,
        }

        impl $type {
            /// The registry's example: the top 10.
            fn example() -> Self {
                Self { k: Cutoff::new(10) }
            }
        }

        #[corpus_metric(name = $name, summary = $summary, params = PARAMS, example = $type::example())]
        impl CorpusMetric for $type {
            fn name(&self) -> String {
                CanonicalName::new($name).cutoff(self.k)
            }
            fn depth(&self) -> Option<Cutoff> {
                self.k
            }
            fn requires(&self) -> Requires {
                Requires {
                    training: true,
                    ..Requires::default()
                }
            }
            fn init(&self) -> CorpusState {
                Box::new(PerList::default())
            }
            fn update(
                &self,
                state: &mut CorpusState,
                position: u64,
                list: &[&[u8]],
                inputs: &CorpusInputs,
            ) {
                let value: fn(&rankeval_core::Training, &[u8]) -> f64 = $value;
                // The runner refuses to start without training data.
                let mean = match inputs.training.as_ref() {
                    Some(training) => list_mean(top(list, self.k), |item| value(training, item)),
                    None => 0.0,
                };
                state_mut::<PerList>(state).push(position, mean);
            }
            fn merge(&self, state: &mut CorpusState, other: CorpusState) {
                state_mut::<PerList>(state).merge(into_state(other));
            }
            fn finish(&self, state: CorpusState, _: &CorpusInputs) -> f64 {
                into_state::<PerList>(state).mean()
            }
        }
    };
}

per_list_metric!(
    AvgPopularity,
    "avg_popularity",
    "mean over lists of the mean training popularity of the top k",
    |training, item| training.users_of(item) as f64
);

per_list_metric!(
    Novelty,
    "novelty",
    "mean over lists of the mean self-information -log2(pop/users) of the top k",
    |training, item| {
        let pop = training.users_of(item).max(1) as f64;
        // + 0.0: an item every user knows gives 0, not -0.
        -(pop / training.users.max(1) as f64).log2() + 0.0
    }
);
