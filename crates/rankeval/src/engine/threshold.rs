//! The score threshold: a run's entries scored at or below it count as not
//! retrieved (TOML `score_threshold`, `--score-threshold`).
//!
//! At or below, not below: torchmetrics' retrieval metrics count a
//! prediction as retrieved only when it is `> 0` (`torch.where(preds > 0,
//! target, 0)`), so `score_threshold = 0` gives their lists, and a
//! threshold is a score a document must beat, as in torchmetrics'
//! classification metrics (`preds > threshold`).

use std::fmt;

use rankeval_core::RankedList;
use serde::{Deserialize, Serialize};

use crate::read::Format;

/// A finite score; entries scored at or below it are not retrieved.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct ScoreThreshold(f64);

// Never NaN (`new` refuses it), so equality is an equivalence.
impl Eq for ScoreThreshold {}

impl ScoreThreshold {
    /// The threshold `value`; `None` unless it is finite.
    pub fn new(value: f64) -> Option<Self> {
        value.is_finite().then_some(Self(value))
    }

    /// The threshold as a number.
    pub fn get(self) -> f64 {
        self.0
    }

    /// The entries of `list` a system retrieved: those scored above the
    /// threshold (a list given as ranks, without scores, stays whole).
    pub fn retrieved(self, list: RankedList<'_>) -> RankedList<'_> {
        list.scored_above(self.0)
    }
}

impl TryFrom<f64> for ScoreThreshold {
    type Error = String;
    fn try_from(value: f64) -> Result<Self, String> {
        Self::new(value).ok_or_else(|| format!("a score threshold is a finite number, not {value}"))
    }
}

impl From<ScoreThreshold> for f64 {
    fn from(threshold: ScoreThreshold) -> f64 {
        threshold.0
    }
}

impl fmt::Display for ScoreThreshold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Whether a run in `format` has scores a threshold can compare: an MS
/// MARCO run (`qid pid rank`) has ranks only (read as scores `-rank`,
/// which a threshold would cut arbitrarily).
pub fn has_scores(format: Format) -> bool {
    format != Format::Msmarco
}

/// The reason a threshold is refused for the run named `run`.
pub fn unscored_run(run: &str) -> String {
    format!(
        "run `{run}` is an MS MARCO run (ranks, no scores): a score threshold cannot apply to it"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_finite_numbers_are_thresholds() {
        assert_eq!(ScoreThreshold::new(0.0).map(ScoreThreshold::get), Some(0.0));
        assert_eq!(
            ScoreThreshold::new(-2.5).map(ScoreThreshold::get),
            Some(-2.5)
        );
        assert!(ScoreThreshold::new(f64::NAN).is_none());
        assert!(ScoreThreshold::new(f64::INFINITY).is_none());
        assert_eq!(
            ScoreThreshold::try_from(f64::NEG_INFINITY).unwrap_err(),
            "a score threshold is a finite number, not -inf"
        );
    }
}
