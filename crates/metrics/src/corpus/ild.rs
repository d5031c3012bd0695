//! Intra-list diversity@k: how different the items of each list are from
//! one another, from item features or embeddings.
//!
//! For a list whose top k is `i_1 .. i_n`, with `P` the pairs `(a, b)`,
//! `a < b`, of its items that both have a feature vector (and, for the
//! cosine, a non-zero one):
//!
//! ```text
//! ILD(list) = sum_{(a, b) in P} d(i_a, i_b) / |P|     (0 when P is empty)
//! ild@k     = mean over lists of ILD(list)
//! ```
//!
//! with the distance `d`, by `distance`:
//!
//! | `distance` | `d(x, y)` |
//! |---|---|
//! | `cosine` (default) | `1 - x.y / (|x| |y|)` |
//! | `hamming` | the number of positions where `x` and `y` differ |
//! | `euclidean` | `sqrt(sum (x_j - y_j)^2)` |
//!
//! This is RecTools' `IntraListDiversity(k, distance_calculator)`: the
//! mean of the pairwise distances of the top k, a pair with an item
//! without features left out (RecTools gives it NaN, which the mean skips),
//! 0 for a list with no pair; with `distance = hamming` its
//! `PairwiseHammingDistanceCalculator`. Lists are averaged in run order.

use rankeval_core::corpus::{PerList, into_state, state_mut};
use rankeval_core::registry::{PARAM_K, ParamDoc};
use rankeval_core::{
    CanonicalName, CorpusInputs, CorpusMetric, CorpusState, Cutoff, ItemFeatures, Requires,
};
use serde::{Deserialize, Serialize};

use super::top;
use crate::common::is_none;

/// How the distance between two items' vectors is measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Distance {
    /// `1 - cos(x, y)`; undefined (the pair left out) for a zero vector.
    #[default]
    Cosine,
    /// The number of positions where the vectors differ (RecTools).
    Hamming,
    /// The Euclidean distance.
    Euclidean,
}

impl Distance {
    /// The distance between `x` and `y` (of one length), `None` where it
    /// is undefined (a cosine with a zero vector).
    pub fn between(self, x: &[f64], y: &[f64]) -> Option<f64> {
        match self {
            Distance::Cosine => {
                let (mut dot, mut xx, mut yy) = (0.0, 0.0, 0.0);
                for (a, b) in x.iter().zip(y) {
                    dot += a * b;
                    xx += a * a;
                    yy += b * b;
                }
                (xx > 0.0 && yy > 0.0).then(|| 1.0 - dot / (xx.sqrt() * yy.sqrt()))
            }
            Distance::Hamming => Some(x.iter().zip(y).filter(|(a, b)| a != b).count() as f64),
            Distance::Euclidean => Some(
                x.iter()
                    .zip(y)
                    .fold(0.0, |sum, (a, b)| sum + (a - b) * (a - b))
                    .sqrt(),
            ),
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Distance::Cosine => "cosine",
            Distance::Hamming => "hamming",
            Distance::Euclidean => "euclidean",
        }
    }
}

/// The mean pairwise distance of one list's items, 0 without a pair.
pub fn list_diversity(list: &[&[u8]], features: &ItemFeatures, distance: Distance) -> f64 {
    let vectors: Vec<Option<&[f64]>> = list.iter().map(|item| features.get(item)).collect();
    let (mut sum, mut pairs) = (0.0, 0u64);
    for (a, x) in vectors.iter().enumerate() {
        let Some(x) = x else { continue };
        for y in vectors[a + 1..].iter().flatten() {
            if let Some(d) = distance.between(x, y) {
                sum += d;
                pairs += 1;
            }
        }
    }
    if pairs == 0 { 0.0 } else { sum / pairs as f64 }
}

/// The `ild` corpus metric (alias `intra_list_diversity`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntraListDiversity {
    /// Cutoff; `None` = whole lists.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// The distance between two items.
    #[serde(default)]
    pub distance: Distance,
}

#[rankeval_core::corpus_metric(
    name = "ild",
    aliases = &["intra_list_diversity"],
    summary = "mean over lists of the mean pairwise distance of the top k's items",
    params = &[PARAM_K, ParamDoc {
        name: "distance",
        alias: None,
        default: "cosine",
        doc: "cosine (1 - cosine similarity), hamming (differing features, as RecTools) or euclidean",
    }],
    example = IntraListDiversity { k: Cutoff::new(10), distance: Distance::Hamming },
)]
impl CorpusMetric for IntraListDiversity {
    fn name(&self) -> String {
        CanonicalName::new("ild")
            .param_unless_default("distance", self.distance.as_str(), "cosine")
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn requires(&self) -> Requires {
        Requires {
            features: true,
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
        // The runner refuses to start without features.
        let value = match inputs.features.as_ref() {
            Some(features) => list_diversity(top(list, self.k), features, self.distance),
            None => 0.0,
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
    use super::*;

    #[test]
    fn distances_from_their_definitions() {
        let (x, y) = ([1.0, 0.0, 2.0], [0.0, 0.0, 2.0]);
        // cos = 4 / (sqrt(5) * 2)
        let cos = 4.0 / (5f64.sqrt() * 2.0);
        assert_eq!(Distance::Cosine.between(&x, &y), Some(1.0 - cos));
        assert_eq!(Distance::Hamming.between(&x, &y), Some(1.0));
        assert_eq!(Distance::Euclidean.between(&x, &y), Some(1.0));
        assert_eq!(Distance::Cosine.between(&x, &[0.0; 3]), None);
    }

    #[test]
    fn pairs_without_features_are_left_out() {
        let mut features = ItemFeatures::new(2);
        features.insert(b"a", &[0.0, 0.0]).unwrap();
        features.insert(b"b", &[1.0, 0.0]).unwrap();
        features.insert(b"c", &[1.0, 1.0]).unwrap();
        let list: [&[u8]; 4] = [b"a", b"z", b"b", b"c"];
        // Pairs with features: (a,b) 1, (a,c) 2, (b,c) 1.
        assert_eq!(
            list_diversity(&list, &features, Distance::Hamming),
            4.0 / 3.0
        );
        assert_eq!(
            list_diversity(&list[..2], &features, Distance::Hamming),
            0.0
        );
    }
}
