//! Propensity-scored precision and nDCG at k (PSP@k, PSnDCG@k), the
//! metrics of extreme classification that reward the rare labels a
//! recommender is likely to have missed (Jain, Prabhu and Varma, KDD 2016),
//! normalised as pyxclib normalises them (`xclib/evaluation/xc_metrics.py`,
//! `psprecision` and `psndcg`).
//!
//! Each relevant label `l` weighs its inverse propensity `w_l = 1 / p_l`
//! ([`rankeval_core::propensity`]: from training counts under the model's
//! `A`, `B`, or given). For one query with relevant labels `R` (at the
//! experiment's level), `n = |R|`, ranked labels `l_1, l_2, ...`:
//!
//! ```text
//! PSP@k numerator       = sum_{i <= k} w(l_i) rel(l_i)
//! PSnDCG@k numerator    = sum_{i <= k} w(l_i) rel(l_i) / log2(i + 1)  /  C(min(n, k))
//! C(m)                  = sum_{j <= m} 1 / log2(j + 1)
//! ```
//!
//! and the best achievable value is the same sum over `R` ranked by
//! descending weight. pyxclib divides the **mean** over queries of the
//! numerators by the **mean** over queries of the best values (a ratio of
//! means, not a mean of ratios; `_precision(eval_flags) /
//! _precision(ps_eval_flags)`; its `1/k` cancels). rankeval keeps that
//! number and per-query values whose mean it is: query `q` scores its
//! numerator divided by the mean best value over every query of the qrels,
//! a constant of the qrels and the propensities. The mean over the
//! evaluated queries is pyxclib's figure when every query of the qrels is
//! evaluated (every query in the run, or `missing = zero`: pyxclib counts a
//! test instance without predictions as 0); the runs compared on the same
//! qrels share the constant, so paired differences and intervals are those
//! of the numerators, scaled.

use rankeval_core::explain::Explanation;
use rankeval_core::registry::{PARAM_K, PARAM_REL, ParamDoc};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JainModel, JudgedRanking, LabelPropensities, Metric, QrelsMean,
    RelevanceLevel, Requirement,
};
use serde::{Deserialize, Serialize};

use crate::common::is_none;

/// The model's published parameters by family of data sets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// A = 0.55, B = 1.5: data sets other than the two below.
    #[default]
    General,
    /// A = 0.5, B = 0.4: Wikipedia and LSHTC.
    Wikipedia,
    /// A = 0.6, B = 2.6: Amazon.
    Amazon,
}

impl Family {
    /// The family's `A` and `B`.
    pub fn model(self) -> JainModel {
        match self {
            Family::General => JainModel::GENERAL,
            Family::Wikipedia => JainModel::WIKIPEDIA,
            Family::Amazon => JainModel::AMAZON,
        }
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Family::General => "general",
            Family::Wikipedia => "wikipedia",
            Family::Amazon => "amazon",
        })
    }
}

const PARAM_FAMILY: ParamDoc = ParamDoc {
    name: "family",
    alias: None,
    default: "general",
    doc: "the propensity model's published A, B: general (0.55, 1.5), wikipedia (0.5, 0.4, also LSHTC) or amazon (0.6, 2.6)",
};

const PARAM_A: ParamDoc = ParamDoc {
    name: "a",
    alias: None,
    default: "0.55",
    doc: "the model's A (unset: the family's, 0.55 for general), a finite number from 0 up (0: every label weighs the same); unused with given inverse propensities",
};

const PARAM_B: ParamDoc = ParamDoc {
    name: "b",
    alias: None,
    default: "1.5",
    doc: "the model's B (unset: the family's, 1.5 for general), a finite number above 0; unused with given inverse propensities",
};

const PARAMS: &[ParamDoc] = &[PARAM_K, PARAM_REL, PARAM_FAMILY, PARAM_A, PARAM_B];

/// What the propensity-scored metrics need: the label propensities.
const REQUIRES: &[Requirement] = &[Requirement::Propensities];

/// `1 / log2(i + 2)`, the discount of 0-based rank `i`.
fn discount(i: usize) -> f64 {
    1.0 / ((i + 2) as f64).log2()
}

/// `C(m) = sum_{j <= m} 1 / log2(j + 1)`, the nDCG of `m` relevant labels
/// at the top with weight 1.
fn ideal_discounts(m: usize) -> f64 {
    (0..m).map(discount).fold(0.0, |sum, term| sum + term)
}

/// Which of the two metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Precision,
    Ndcg,
}

/// The model's `A`, `B` (the family's unless set), and the cutoff.
#[derive(Clone, Copy, Debug)]
struct Setting {
    kind: Kind,
    k: Option<Cutoff>,
    rel: Option<RelevanceLevel>,
    model: JainModel,
}

impl Setting {
    fn depth(self) -> usize {
        self.k.map_or(usize::MAX, Cutoff::get)
    }

    /// The numerator of one query: `weights` of its ranked labels (`None`
    /// for a label not relevant), `relevant` its number of relevant
    /// labels.
    fn numerator(self, weights: impl Iterator<Item = Option<f64>>, relevant: usize) -> f64 {
        // From +0.0: an empty `Sum` of floats is -0.0.
        let sum = weights
            .take(self.depth())
            .enumerate()
            .filter_map(|(i, w)| {
                w.map(|w| match self.kind {
                    Kind::Precision => w,
                    Kind::Ndcg => w * discount(i),
                })
            })
            .fold(0.0, |sum, term| sum + term);
        match self.kind {
            Kind::Precision => sum,
            Kind::Ndcg if relevant == 0 => 0.0,
            Kind::Ndcg => sum / ideal_discounts(relevant.min(self.depth())),
        }
    }

    /// The best achievable numerator of a query whose judged labels are
    /// `judged` (`(grade, label value)`): its relevant labels by
    /// descending weight.
    fn best(self, judged: &[(Grade, f64)], level: Grade, table: &LabelPropensities) -> f64 {
        let mut weights: Vec<f64> = judged
            .iter()
            .filter(|(grade, _)| *grade >= level)
            .map(|&(_, value)| table.weight(value, self.model))
            .collect();
        weights.sort_unstable_by(|a, b| b.total_cmp(a));
        let relevant = weights.len();
        self.numerator(weights.into_iter().map(Some), relevant)
    }

    /// The cache key of this setting's normaliser at `level`.
    fn key(self, level: Grade) -> [u64; 5] {
        [
            self.kind as u64,
            self.k.map_or(u64::MAX, |k| k.get() as u64),
            level.to_bits(),
            self.model.a.to_bits(),
            self.model.b.to_bits(),
        ]
    }

    /// The query's value and its parts: (numerator, mean best value over
    /// the qrels' queries, per-rank weights of the relevant labels).
    fn parts(self, q: &JudgedRanking<'_>) -> Option<(f64, f64, Vec<Option<f64>>)> {
        let view = q.documents()?;
        let propensities = view.context().propensities()?;
        let table = propensities.table();
        let level = q.level(self.rel);
        let top = q.top(self.k);
        let weights: Vec<Option<f64>> = top
            .iter()
            .enumerate()
            .map(|(i, j)| {
                j.is_relevant(level)
                    .then(|| table.weight(view.label(i), self.model))
            })
            .collect();
        let numerator = self.numerator(weights.iter().copied(), q.num_relevant(level));
        let mean_best = propensities.mean(&self.qrels_mean(level));
        Some((numerator, mean_best, weights))
    }

    /// The normaliser at `level`: the mean over every query of the qrels
    /// of its best achievable value.
    fn qrels_mean(self, level: Grade) -> QrelsMean<'static> {
        QrelsMean {
            key: self.key(level),
            term: Box::new(move |judged, table| self.best(judged, level, table)),
        }
    }

    fn score(self, q: &JudgedRanking<'_>) -> f64 {
        match self.parts(q) {
            Some((numerator, mean_best, _)) if mean_best > 0.0 => numerator / mean_best,
            _ => 0.0,
        }
    }

    fn explain(self, metric: &dyn Metric, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let explanation = Explanation::new(metric, q).level(level);
        let Some((numerator, mean_best, weights)) = self.parts(q) else {
            return explanation.formula(format!("{} = 0 (no label propensities)", metric.name()));
        };
        let value = self.score(q);
        let mut column: Vec<Option<f64>> = weights;
        column.resize(q.ranked().len(), None);
        let what = match self.kind {
            Kind::Precision => "sum of w(l) over relevant labels in the top k",
            Kind::Ndcg => "DCG of w(l) in the top k / C(min(|R|, k))",
        };
        explanation
            .column("w(l) = 1/p(l)", column)
            .quantity(what, numerator)
            .quantity("mean best achievable over the qrels' queries", mean_best)
            .formula(format!(
                "{} = {numerator} / {mean_best} = {value}",
                metric.name()
            ))
    }
}

macro_rules! propensity_metric {
    ($(#[$doc:meta])* $ty:ident, $name:literal, $kind:expr, $summary:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $ty {
            /// Cutoff; `None` = the whole list.
            #[serde(default, skip_serializing_if = "is_none")]
            pub k: Option<Cutoff>,
            /// Relevance level; `None` = the experiment's.
            #[serde(default, skip_serializing_if = "is_none")]
            pub rel: Option<RelevanceLevel>,
            /// The family whose published `A`, `B` are used.
            #[serde(default)]
            pub family: Family,
            /// `A`, if not the family's.
            #[serde(default, skip_serializing_if = "is_none")]
            pub a: Option<f64>,
            /// `B`, if not the family's.
            #[serde(default, skip_serializing_if = "is_none")]
            pub b: Option<f64>,
        }

        impl $ty {
            fn setting(&self) -> Setting {
                let base = self.family.model();
                Setting {
                    kind: $kind,
                    k: self.k,
                    rel: self.rel,
                    model: JainModel {
                        a: self.a.unwrap_or(base.a),
                        b: self.b.unwrap_or(base.b),
                    },
                }
            }
        }

        #[rankeval_core::metric(
            name = $name,
            summary = $summary,
            params = PARAMS,
            example = $ty { k: Cutoff::new(5), rel: None, family: Family::General, a: None, b: None },
        )]
        impl Metric for $ty {
            fn name(&self) -> String {
                CanonicalName::new($name)
                    .param_if_set("rel", self.rel)
                    .param_unless_default("family", self.family, Family::General)
                    .param_if_set("a", self.a)
                    .param_if_set("b", self.b)
                    .cutoff(self.k)
            }
            fn depth(&self) -> Option<Cutoff> {
                self.k
            }
            fn uses_default_level(&self) -> bool {
                self.rel.is_none()
            }
            fn validate(&self) -> Result<(), String> {
                self.setting().model.check().map(|_| ())
            }
            fn requires(&self) -> &'static [Requirement] {
                REQUIRES
            }
            fn qrels_means(&self, default_level: RelevanceLevel) -> Vec<QrelsMean<'_>> {
                let setting = self.setting();
                vec![setting.qrels_mean(self.rel.unwrap_or(default_level).get())]
            }
            fn score(&self, q: &JudgedRanking<'_>) -> f64 {
                self.setting().score(q)
            }
            fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
                self.setting().explain(self, q)
            }
        }
    };
}

propensity_metric!(
    /// Propensity-scored precision at k, normalised by the best achievable
    /// as pyxclib's `psprecision` (see the module).
    PropensityScoredPrecision,
    "psp",
    Kind::Precision,
    "propensity-scored precision PSP@k (Jain et al. 2016), as pyxclib normalises"
);

propensity_metric!(
    /// Propensity-scored nDCG at k, normalised by the best achievable as
    /// pyxclib's `psndcg` (see the module).
    PropensityScoredNdcg,
    "psndcg",
    Kind::Ndcg,
    "propensity-scored nDCG PSnDCG@k (Jain et al. 2016), as pyxclib normalises"
);

#[cfg(test)]
mod tests;
