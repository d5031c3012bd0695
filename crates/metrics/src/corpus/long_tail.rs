//! Long-tail share@k: the share of recommended items that are in the long
//! tail of the training popularity.
//!
//! With `pop(i)` the number of distinct training users of item `i` and
//! `T = sum_i pop(i)` the distinct training interactions, the **head** is
//! the most popular items (ties by item id), taken one at a time until
//! they hold at least `head_share x T` interactions; the **long tail** is
//! every other training item. Then
//!
//! ```text
//! long_tail_share@k = mean over lists of |top k in the long tail| / |top k|
//! ```
//!
//! (0 for a list with an empty top k). This is Elliot's `APLT` (average
//! percentage of long-tail items, Abdollahpouri et al. 2017) with its
//! `Popularity.get_long_tail` split at `pop_ratio = head_share` (0.8 by
//! default, as Elliot). As there, an item without training interactions is
//! neither head nor tail. Elliot orders equally popular items as its data
//! gave them; here they are ordered by id, which matters only for the
//! item where the head ends.

use rankeval_core::corpus::{PerList, into_state, state_mut};
use rankeval_core::registry::{PARAM_K, ParamDoc};
use rankeval_core::{CanonicalName, CorpusInputs, CorpusMetric, CorpusState, Cutoff, Requires};
use serde::{Deserialize, Serialize};

use super::top;
use crate::common::is_none;

/// Elliot's default `pop_ratio`.
const DEFAULT_HEAD_SHARE: f64 = 0.8;

fn default_head_share() -> f64 {
    DEFAULT_HEAD_SHARE
}

/// The `long_tail_share` corpus metric (alias `aplt`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LongTailShare {
    /// Cutoff; `None` = whole lists.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// The share of training interactions the head holds (0 < x <= 1).
    #[serde(default = "default_head_share")]
    pub head_share: f64,
}

impl Default for LongTailShare {
    fn default() -> Self {
        Self {
            k: None,
            head_share: DEFAULT_HEAD_SHARE,
        }
    }
}

#[rankeval_core::corpus_metric(
    name = "long_tail_share",
    aliases = &["aplt"],
    summary = "mean over lists of the share of the top k in the training long tail",
    params = &[PARAM_K, ParamDoc {
        name: "head_share",
        alias: None,
        default: "0.8",
        doc: "the head is the most popular items holding this share of the training interactions (Elliot pop_ratio)",
    }],
    example = LongTailShare { k: Cutoff::new(10), head_share: 0.5 },
)]
impl CorpusMetric for LongTailShare {
    fn name(&self) -> String {
        CanonicalName::new("long_tail_share")
            .param_unless_default("head_share", self.head_share, DEFAULT_HEAD_SHARE)
            .cutoff(self.k)
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
    fn validate(&self) -> Result<(), String> {
        if self.head_share > 0.0 && self.head_share <= 1.0 {
            Ok(())
        } else {
            Err(format!(
                "head_share must be above 0 and at most 1 (the head's share of the training \
                 interactions), not {}",
                self.head_share
            ))
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
        let list = top(list, self.k);
        // The runner refuses to start without training data.
        let value = match inputs.training.as_ref() {
            Some(training) if !list.is_empty() => {
                let head = training.head_len(self.head_share);
                let tail = list
                    .iter()
                    .filter(|item| training.in_long_tail(item, head))
                    .count();
                tail as f64 / list.len() as f64
            }
            _ => 0.0,
        };
        state_mut::<PerList>(state).push(position, value);
    }
    fn merge(&self, state: &mut CorpusState, other: CorpusState) {
        state_mut::<PerList>(state).merge(into_state(other));
    }
    fn finish(&self, state: CorpusState, _: &CorpusInputs) -> f64 {
        into_state::<PerList>(state).mean()
    }
}

#[cfg(test)]
mod tests {
    use rankeval_core::Training;

    #[test]
    fn the_head_holds_its_share_of_interactions() {
        // pop: a 4, b 3, c 2, d 1 (10 interactions).
        let mut pairs = Vec::new();
        for (item, users) in [("a", 4), ("b", 3), ("c", 2), ("d", 1)] {
            for u in 0..users {
                pairs.push((format!("u{u}"), item));
            }
        }
        let training =
            Training::from_pairs(pairs.iter().map(|(u, i)| (u.as_bytes(), i.as_bytes())));
        assert_eq!(training.interactions(), 10);
        // 0.8 x 10 = 8: a (4), b (7), c (9 >= 8): head a, b, c.
        assert_eq!(training.head_len(0.8), 3);
        // 0.7 x 10 = 7: a, b.
        assert_eq!(training.head_len(0.7), 2);
        assert_eq!(training.head_len(1.0), 4);
        assert!(training.in_long_tail(b"d", 3));
        assert!(!training.in_long_tail(b"c", 3));
        assert!(!training.in_long_tail(b"new", 3));
    }
}
