//! Diversity and novelty over subtopics: the measures of the TREC Web
//! track's `ndeval` (Clarke et al.), which ir_measures wraps through
//! pyndeval. Each reads the query's subtopic judgements
//! ([`JudgedRanking::subtopics`](rankeval_core::JudgedRanking::subtopics),
//! given with `--subtopic-qrels`); a query without any scores 0.
//!
//! | metric | value |
//! |---|---|
//! | `alpha_dcg@k` | alpha-DCG@k, normalized by a list covering every subtopic at every rank (ndeval's "alpha-DCG") |
//! | `alpha_ndcg@k` | alpha-DCG@k over that of ndeval's greedy ideal ranking |
//! | `err_ia@k` | ERR-IA@k in ndeval's form, normalized as `alpha_dcg` |
//! | `nerr_ia@k` | ERR-IA@k over the ideal ranking's |
//! | `nrbp` | novelty- and rank-biased precision (alpha, beta) |
//! | `nnrbp` | NRBP over the ideal ranking's |
//! | `p_ia@k` | intent-aware precision |
//! | `map_ia` | intent-aware average precision |
//! | `strec@k` | subtopic recall |
//!
//! The arithmetic is [`ndeval`]'s; the plugins are in [`plugins`].

pub mod ndeval;
pub mod plugins;

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};

/// A parameter between 0 and 1, both included: ndeval's `alpha`
/// (redundancy intolerance: how much a subtopic seen before is worth less)
/// and `beta` (patience of NRBP's user). Both default to 0.5, as ndeval's.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct Share(f64);

impl Share {
    /// ndeval's default for both alpha and beta.
    pub const HALF: Share = Share(0.5);

    /// `value`, or `None` unless `0 <= value <= 1`.
    pub fn new(value: f64) -> Option<Self> {
        (0.0..=1.0).contains(&value).then_some(Share(value + 0.0))
    }

    /// The value.
    pub const fn get(self) -> f64 {
        self.0
    }
}

impl Default for Share {
    fn default() -> Self {
        Self::HALF
    }
}

impl fmt::Display for Share {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<'de> Deserialize<'de> for Share {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ShareVisitor;
        impl Visitor<'_> for ShareVisitor {
            type Value = Share;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number from 0 to 1")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Share, E> {
                Share::new(v).ok_or_else(|| {
                    E::custom(format!(
                        "alpha and beta must be numbers from 0 to 1 (as ndeval's), not {v}"
                    ))
                })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Share, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Share, E> {
                self.visit_f64(v as f64)
            }
        }
        deserializer.deserialize_f64(ShareVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_is_from_zero_to_one() {
        assert_eq!(Share::new(0.0).map(Share::get), Some(0.0));
        assert_eq!(Share::new(-0.0).map(|s| s.get().to_bits()), Some(0));
        assert_eq!(Share::new(1.0).map(Share::get), Some(1.0));
        assert!(Share::new(1.0000001).is_none());
        assert!(Share::new(-1e-300).is_none());
        assert!(Share::new(f64::NAN).is_none());
        assert!(Share::new(f64::INFINITY).is_none());
        assert_eq!(Share::default(), Share::HALF);
    }
}
