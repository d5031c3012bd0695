//! A team's own metric for rankeval: **attention share@k**, the share of a
//! user's attention over the top k that lands on relevant items, when
//! attention decays by a factor `decay` per rank (a simple position-bias
//! model of a recommendation carousel):
//!
//! ```text
//! attention_share@k = sum_{i <= k} decay^(i-1) * rel(i)  /  sum_{i <= k} decay^(i-1)
//! ```
//!
//! With `decay = 1` it is precision@k; smaller values weigh the first slots
//! more. It is registered exactly like the built-in metrics, so once this
//! crate is linked into a binary, `attention_share` (alias `attn`) works in
//! TOML (`type = "attention_share"`), in `-m attn(decay=0.7)@5` and in
//! `rankeval metrics`.

pub mod corpus;

use rankeval_core::registry::{PARAM_K, PARAM_REL, ParamDoc};
use rankeval_core::{CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel};
use serde::{Deserialize, Serialize};

/// The default attention decay per rank.
pub const DEFAULT_DECAY: f64 = 0.85;

/// Attention share of one query: the pure function, tested directly.
///
/// ```
/// use rankeval_core::{testing, Cutoff};
/// use rankeval_example_custom_metric::attention_share;
/// // Relevant at ranks 1 and 3 of 3, decay 0.5: weights 1, 0.5, 0.25.
/// let q = testing::binary("1 0 1", 2);
/// assert_eq!(attention_share(&q.view(), Cutoff::new(3), 1.0, 0.5), (1.0 + 0.25) / (1.0 + 0.5 + 0.25));
/// ```
pub fn attention_share(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade, decay: f64) -> f64 {
    let depth = k.map_or(q.retrieved(), Cutoff::get);
    let top = q.top(k);
    let mut weight = 1.0;
    let mut relevant = 0.0;
    let mut total = 0.0;
    for rank in 0..depth {
        if top.get(rank).is_some_and(|j| j.is_relevant(level)) {
            relevant += weight;
        }
        total += weight;
        weight *= decay;
    }
    if total == 0.0 { 0.0 } else { relevant / total }
}

/// The `attention_share` metric.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttentionShare {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rel: Option<RelevanceLevel>,
    /// Attention kept from one rank to the next, in (0, 1].
    #[serde(default = "default_decay")]
    pub decay: f64,
}

fn default_decay() -> f64 {
    DEFAULT_DECAY
}

#[rankeval_core::metric(
    name = "attention_share",
    aliases = &["attn"],
    summary = "share of position-decayed attention in the top k landing on relevant items",
    params = &[
        PARAM_K,
        PARAM_REL,
        ParamDoc {
            name: "decay",
            alias: None,
            default: "0.85",
            doc: "attention kept from one rank to the next, in (0, 1]; 1 gives precision@k",
        },
    ],
    example = AttentionShare { k: Cutoff::new(5), rel: None, decay: 0.7 },
)]
impl Metric for AttentionShare {
    fn name(&self) -> String {
        CanonicalName::new("attention_share")
            .param_if_set("rel", self.rel)
            .param_unless_default("decay", self.decay, DEFAULT_DECAY)
            .cutoff(self.k)
    }

    fn depth(&self) -> Option<Cutoff> {
        self.k
    }

    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        attention_share(q, self.k, q.level(self.rel), self.decay)
    }

    fn validate(&self) -> Result<(), String> {
        if self.decay > 0.0 && self.decay <= 1.0 {
            Ok(())
        } else {
            Err(format!("decay must be in (0, 1], not {}", self.decay))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::binary;

    #[test]
    fn decay_one_is_precision() {
        let q = binary("1 0 1 0", 2);
        assert_eq!(
            attention_share(&q.view(), Cutoff::new(4), 1.0, 1.0),
            2.0 / 4.0
        );
    }

    #[test]
    fn a_short_list_counts_its_missing_slots() {
        let q = binary("1", 1);
        assert_eq!(
            attention_share(&q.view(), Cutoff::new(2), 1.0, 0.5),
            1.0 / (1.0 + 0.5)
        );
    }

    #[test]
    fn registers_and_round_trips_like_a_built_in() {
        rankeval_core::registry::check().unwrap();
        rankeval_core::testing::check_round_trips().unwrap();
        let metric = rankeval_core::registry::parse_metric("attn(decay=0.7)@5").unwrap();
        assert_eq!(metric.name(), "attention_share(decay=0.7)@5");
        let error = rankeval_core::registry::parse_metric("attn(decay=1.5)").unwrap_err();
        assert_eq!(
            error.to_string(),
            "metric `attention_share`: decay must be in (0, 1], not 1.5"
        );
    }
}
