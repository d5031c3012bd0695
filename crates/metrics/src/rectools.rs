//! RecTools' classification metrics over recommendations
//! (`rectools/metrics/classification.py`, RecTools 0.x): each user's top
//! `k` recommendations classify the whole catalogue into recommended or
//! not, against the items the user interacted with (the relevant ones).
//!
//! ```text
//! TP = relevant among the top k        FP = k - TP (a missing slot counts)
//! FN = |R| - TP                        TN = catalog - k - FN
//! accuracy@k = (TP + TN) / catalog
//! MCC@k      = (TP TN - FP FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN)),
//!              0 when the root is 0
//! ```
//!
//! `catalog` is the number of items that could be recommended, a parameter
//! (RecTools takes the catalogue itself and uses its length). RecTools
//! leaves out a user without interactions; rankeval scores such a query
//! (accuracy `(catalog - k) / catalog`, MCC 0) unless the experiment leaves
//! it out.

use rankeval_core::explain::Explanation;
use rankeval_core::registry::{PARAM_REL, ParamDoc};
use rankeval_core::{CanonicalName, Cutoff, JudgedRanking, Metric, RelevanceLevel};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};

use crate::common::{hits, is_none};

/// One user's confusion matrix over the catalogue, as RecTools'
/// `calc_confusions` (integers; TN may be negative if `catalog` is smaller
/// than the items a user touches, as in RecTools).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Confusion {
    /// Relevant items among the top `k`.
    pub tp: i128,
    /// `k - TP`.
    pub fp: i128,
    /// Relevant items not in the top `k`.
    pub fn_: i128,
    /// `catalog - k - FN`.
    pub tn: i128,
}

impl Confusion {
    /// The confusion matrix of one query at cutoff `k` over `catalog` items.
    pub fn of(q: &JudgedRanking<'_>, k: Cutoff, catalog: u64, rel: Option<RelevanceLevel>) -> Self {
        let level = q.level(rel);
        let tp = hits(q.top(Some(k)), level) as i128;
        let liked = q.num_relevant(level) as i128;
        let k = k.get() as i128;
        let fn_ = liked - tp;
        Confusion {
            tp,
            fp: k - tp,
            fn_,
            tn: i128::from(catalog) - k - fn_,
        }
    }

    /// `(TP + TN) / catalog`.
    pub fn accuracy(self, catalog: u64) -> f64 {
        (self.tp + self.tn) as f64 / catalog as f64
    }

    /// Matthews' correlation coefficient, 0 when its denominator is.
    pub fn mcc(self) -> f64 {
        let Confusion { tp, fp, fn_, tn } = self;
        // Exact in integers, as RecTools' int64 columns, while they fit;
        // a catalogue near 2^64 items falls back to floating point.
        let numerator = tp
            .checked_mul(tn)
            .zip(fp.checked_mul(fn_))
            .and_then(|(a, b)| a.checked_sub(b))
            .map_or_else(
                || tp as f64 * tn as f64 - fp as f64 * fn_ as f64,
                |n| n as f64,
            );
        let factors = [tp + fp, tp + fn_, tn + fp, tn + fn_];
        let product = factors
            .iter()
            .try_fold(1_i128, |acc, &f| acc.checked_mul(f))
            .map_or_else(|| factors.iter().map(|&f| f as f64).product(), |p| p as f64);
        let denominator = product.sqrt();
        if denominator == 0.0 {
            0.0
        } else {
            numerator / denominator
        }
    }
}

/// `catalog`: a whole number of items from 1 to 2^64 - 1, however the
/// front end hands the integer over (the short syntax gives large ones as
/// 128-bit).
fn catalog_size<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    struct CatalogVisitor;
    impl Visitor<'_> for CatalogVisitor {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a whole number of items, 1 to 2^64 - 1")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
            self.visit_i128(i128::from(v))
        }
        fn visit_u128<E: de::Error>(self, v: u128) -> Result<u64, E> {
            u64::try_from(v)
                .map_err(|_| E::custom(format!("catalog must be at most 2^64 - 1 items, not {v}")))
        }
        fn visit_i128<E: de::Error>(self, v: i128) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| {
                E::custom(format!(
                    "catalog must be a number of items from 1 to 2^64 - 1, not {v}"
                ))
            })
        }
    }
    deserializer.deserialize_u64(CatalogVisitor)
}

fn check(k: Cutoff, catalog: u64) -> Result<(), String> {
    if catalog == 0 {
        return Err(
            "catalog must be the number of items that could be recommended, at least 1".into(),
        );
    }
    if (catalog as u128) < k.get() as u128 {
        return Err(format!(
            "catalog ({catalog}) must be at least k ({}): k recommendations come from the catalogue",
            k.get()
        ));
    }
    Ok(())
}

fn explain_confusion(
    metric: &dyn Metric,
    q: &JudgedRanking<'_>,
    c: Confusion,
    formula: String,
) -> Explanation {
    Explanation::new(metric, q)
        .quantity("TP", c.tp as f64)
        .quantity("FP = k - TP", c.fp as f64)
        .quantity("FN = |R| - TP", c.fn_ as f64)
        .quantity("TN = catalog - k - FN", c.tn as f64)
        .formula(formula)
}

const PARAM_CATALOG: ParamDoc = ParamDoc {
    name: "catalog",
    alias: None,
    default: "required",
    doc: "the number of items that could be recommended (RecTools' len(catalog)), at least k",
};

const PARAM_K_REQUIRED: ParamDoc = ParamDoc {
    name: "k",
    alias: None,
    default: "required",
    doc: "the recommendations counted (`accuracy(catalog=1000)@10`)",
};

/// The `accuracy` metric: RecTools' `Accuracy`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Accuracy {
    /// The recommendations counted.
    pub k: Cutoff,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
    /// The number of items in the catalogue.
    #[serde(deserialize_with = "catalog_size")]
    pub catalog: u64,
}

#[rankeval_core::metric(
    name = "accuracy",
    summary = "RecTools' accuracy@k: (TP + TN) / catalog, the top k as a classifier",
    params = &[PARAM_K_REQUIRED, PARAM_REL, PARAM_CATALOG],
    example = Accuracy { k: Cutoff::new(10).unwrap_or_else(|| unreachable!()), rel: None, catalog: 1000 },
)]
impl Metric for Accuracy {
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
    fn name(&self) -> String {
        CanonicalName::new("accuracy")
            .param_if_set("rel", self.rel)
            .param("catalog", self.catalog)
            .cutoff(Some(self.k))
    }
    fn depth(&self) -> Option<Cutoff> {
        Some(self.k)
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        Confusion::of(q, self.k, self.catalog, self.rel).accuracy(self.catalog)
    }
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let c = Confusion::of(q, self.k, self.catalog, self.rel);
        let formula = format!(
            "{} = (TP + TN) / catalog = {} / {}",
            self.name(),
            c.tp + c.tn,
            self.catalog
        );
        explain_confusion(self, q, c, formula).level(q.level(self.rel))
    }
    fn validate(&self) -> Result<(), String> {
        check(self.k, self.catalog)
    }
}

/// The `mcc` metric: RecTools' `MCC` (Matthews' correlation coefficient).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mcc {
    /// The recommendations counted.
    pub k: Cutoff,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
    /// The number of items in the catalogue.
    #[serde(deserialize_with = "catalog_size")]
    pub catalog: u64,
}

#[rankeval_core::metric(
    name = "mcc",
    aliases = &["matthews_correlation"],
    summary = "RecTools' MCC@k: Matthews' correlation of the top k with the relevant items",
    params = &[PARAM_K_REQUIRED, PARAM_REL, PARAM_CATALOG],
    example = Mcc { k: Cutoff::new(10).unwrap_or_else(|| unreachable!()), rel: None, catalog: 1000 },
)]
impl Metric for Mcc {
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
    fn name(&self) -> String {
        CanonicalName::new("mcc")
            .param_if_set("rel", self.rel)
            .param("catalog", self.catalog)
            .cutoff(Some(self.k))
    }
    fn depth(&self) -> Option<Cutoff> {
        Some(self.k)
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        Confusion::of(q, self.k, self.catalog, self.rel).mcc()
    }
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let c = Confusion::of(q, self.k, self.catalog, self.rel);
        let formula = format!(
            "{} = (TP TN - FP FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN))",
            self.name()
        );
        explain_confusion(self, q, c, formula).level(q.level(self.rel))
    }
    fn validate(&self) -> Result<(), String> {
        check(self.k, self.catalog)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::binary;

    fn k(k: usize) -> Cutoff {
        Cutoff::new(k).unwrap()
    }

    #[test]
    fn confusion_over_the_catalogue() {
        // Top 2 of "1 0 1", 3 relevant in all, catalogue of 10: TP 1, FP 1,
        // FN 2, TN 10 - 2 - 2 = 6.
        let q = binary("101", 3);
        let c = Confusion::of(&q.view(), k(2), 10, None);
        assert_eq!(
            c,
            Confusion {
                tp: 1,
                fp: 1,
                fn_: 2,
                tn: 6
            }
        );
        assert_eq!(c.accuracy(10), 0.7);
        assert_eq!(c.mcc(), (6.0 - 2.0) / (2.0f64 * 3.0 * 7.0 * 8.0).sqrt());
        // A short list: the missing slot is a false positive.
        let c = Confusion::of(&binary("1", 1).view(), k(2), 10, None);
        assert_eq!(
            c,
            Confusion {
                tp: 1,
                fp: 1,
                fn_: 0,
                tn: 8
            }
        );
        // No relevant item: TP + FN = 0, MCC 0.
        assert_eq!(
            Confusion::of(&binary("00", 0).view(), k(2), 10, None).mcc(),
            0.0
        );
    }

    #[test]
    fn catalog_is_checked_and_named() {
        let m = Mcc {
            k: k(10),
            rel: None,
            catalog: 5,
        };
        assert!(m.validate().is_err());
        assert!(
            Mcc {
                catalog: 0,
                ..m.clone()
            }
            .validate()
            .is_err()
        );
        assert!(
            Mcc {
                catalog: 10,
                ..m.clone()
            }
            .validate()
            .is_ok()
        );
        assert_eq!(Mcc { catalog: 10, ..m }.name(), "mcc(catalog=10)@10");
        let a = Accuracy {
            k: k(2),
            rel: RelevanceLevel::new(2),
            catalog: 50,
        };
        assert_eq!(a.name(), "accuracy(rel=2,catalog=50)@2");
    }
}
