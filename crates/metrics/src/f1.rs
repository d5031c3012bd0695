//! F1@k: the harmonic mean of Precision@k and Recall@k.
//!
//! `F1@k = 2 P R / (P + R)` with `P = hits@k / k` and `R = hits@k / |R|`;
//! 0 when both are 0. With no cutoff `k = n`, which is trec_eval's `set_F`
//! (with its default beta of 1).
//!
//! With `beta`, the F-measure `F_beta = (1 + beta^2) P R / (beta^2 P + R)`
//! (RecTools `F1Beta`); `beta = 1` is F1, bit for bit. trec_eval's `set_F`
//! takes `x = beta^2` instead, "the relative importance of R to P", and
//! computes `(x + 1) P R / (x P + R)`: `beta2 = x` is that parameter, bit
//! for bit (`rankeval trec_eval -m set_F.0.5` is `f1(beta2=0.5)`).

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::{PARAM_K, PARAM_REL, ParamDoc};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure,
};
use serde::{Deserialize, Serialize};

use crate::beta::Beta;
use crate::common::{hits, is_none, ratio};

/// F1@k of one query.
///
/// # Example
/// Spec vector c: `A B C L Y U F Z` against `A K B Z`: P@5 = 2/5, R@5 = 2/4.
/// ```
/// use rankeval_metrics::f1::f1;
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::binary("1 1 0 0 0 0 0 1", 4);
/// let (p, r) = (2.0 / 5.0, 2.0 / 4.0);
/// assert_eq!(f1(&q.view(), Cutoff::new(5), 1.0), 2.0 * p * r / (p + r));
/// ```
pub fn f1(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade) -> f64 {
    f_beta(q, k, level, Beta::ONE)
}

/// F_beta@k of one query: `(1 + beta^2) P R / (beta^2 P + R)`, 0 when
/// both are 0.
///
/// # Example
/// RecTools' `F1Beta(k=2, beta=sqrt(2))` test, its user 1: recommended
/// 1, 2 (2 relevant), relevant 4, 2, 3: P = 1/2, R = 1/3, and F = 0.375.
/// ```
/// use rankeval_metrics::f1::f_beta;
/// use rankeval_metrics::beta::Beta;
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::binary("0 1", 3);
/// let beta = Beta::new(2f64.sqrt()).unwrap();
/// let f = f_beta(&q.view(), Cutoff::new(2), 1.0, beta);
/// assert!((f - 0.375).abs() < 1e-15);
/// ```
pub fn f_beta(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade, beta: Beta) -> f64 {
    f_weighted(q, k, level, beta.get() * beta.get())
}

/// The F-measure with recall weighted `b2` times as much as precision
/// (`b2 = beta^2`, trec_eval's `set_F` parameter `x`): `(1 + b2) P R / (b2
/// P + R)`, 0 when both are 0.
pub fn f_weighted(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade, b2: f64) -> f64 {
    let hits = hits(q.top(k), level);
    let precision = ratio(hits, k.map_or(q.retrieved(), Cutoff::get));
    let recall = ratio(hits, q.num_relevant(level));
    if precision + recall > 0.0 {
        (1.0 + b2) * precision * recall / (b2 * precision + recall)
    } else {
        0.0
    }
}

/// The `f1` metric (alias `set_f`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct F1 {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
    /// How many times recall weighs more than precision; 1 = F1.
    #[serde(default)]
    pub beta: Beta,
    /// trec_eval's `set_F` parameter, `beta^2` (the relative importance of
    /// recall to precision), given instead of `beta`.
    #[serde(default, skip_serializing_if = "is_none")]
    pub beta2: Option<Beta>,
}

impl F1 {
    /// `beta^2`: `beta2` as given, or `beta` squared.
    pub fn weight(&self) -> f64 {
        match self.beta2 {
            Some(x) => x.get(),
            None => self.beta.get() * self.beta.get(),
        }
    }
}

#[rankeval_core::metric(
    name = "f1",
    aliases = &["set_f", "f_beta"],
    summary = "harmonic mean of precision@k and recall@k (F_beta with beta)",
    params = PARAMS,
    example = F1 { k: Cutoff::new(10), rel: RelevanceLevel::new(2), beta: Beta::new(2.0).unwrap_or_default(), beta2: None },
)]
impl Metric for F1 {
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
    fn validate(&self) -> Result<(), String> {
        if self.beta2.is_some() && self.beta != Beta::ONE {
            return Err(format!(
                "give beta or beta2, not both: beta2 is trec_eval's set_F parameter, beta^2 \
                 (beta = {} is beta2 = {})",
                self.beta,
                self.beta.get() * self.beta.get()
            ));
        }
        Ok(())
    }

    fn name(&self) -> String {
        CanonicalName::new("f1")
            .param_if_set("rel", self.rel)
            .param_unless_default("beta", self.beta, Beta::ONE)
            .param_if_set("beta2", self.beta2)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        f_weighted(q, self.k, q.level(self.rel), self.weight())
    }
    /// F_beta: `(1 + beta^2) P R / (beta^2 P + R)`; F1 when beta is 1.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let hits = hits(q.top(self.k), level);
        let depth = self.k.map_or(q.retrieved(), Cutoff::get);
        let relevant = q.num_relevant(level);
        let p = crate::common::ratio(hits, depth);
        let r = crate::common::ratio(hits, relevant);
        let b2 = self.weight();
        let (p_text, r_text) = (number(p), number(r));
        let counts = format!("P = {hits} / {depth}, R = {hits} / {relevant}");
        let formula = if b2 == 1.0 {
            format!(
                "{} = 2 x P x R / (P + R), {counts}: 2 x {p_text} x {r_text} / ({p_text} + {r_text})",
                self.name()
            )
        } else {
            let b2 = number(b2);
            format!(
                "{} = (1 + beta^2) x P x R / (beta^2 x P + R), beta^2 = {b2}, {counts}: \
                 (1 + {b2}) x {p_text} x {r_text} / ({b2} x {p_text} + {r_text})",
                self.name()
            )
        };
        Explanation::new(self, q)
            .level(level)
            .quantity("P", p)
            .quantity("R", r)
            .formula(formula)
    }
    /// `F_beta = (1 + beta^2) hits / (beta^2 |R| + k)` is linear in the
    /// hits (0 when `|R|` or `k` is 0): the expected hits put in.
    fn score_tie_average(&self, q: &JudgedRanking<'_>) -> Option<f64> {
        let level = q.level(self.rel);
        let relevant = q.num_relevant(level);
        let depth = self.k.map_or(q.retrieved(), Cutoff::get);
        if relevant == 0 || depth == 0 {
            return Some(0.0);
        }
        let hits = crate::tie_average::expected_hits(q, self.k, level);
        let b2 = self.weight();
        Some((1.0 + b2) * hits / (b2 * relevant as f64 + depth as f64))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        if self.rel.is_some() || self.k.is_some() || self.beta != Beta::ONE {
            return None;
        }
        Some(match self.beta2 {
            None => TrecEvalMeasure::mean("set_F"),
            Some(x) => TrecEvalMeasure::mean(format!("set_F_{x}")),
        })
    }
}

const PARAMS: &[ParamDoc] = &[
    PARAM_K,
    PARAM_REL,
    ParamDoc {
        name: "beta",
        alias: None,
        default: "1",
        doc: "F_beta = (1 + beta^2) P R / (beta^2 P + R); 1 = F1, 2 weighs recall more (RecTools F1Beta)",
    },
    ParamDoc {
        name: "beta2",
        alias: None,
        default: "unset",
        doc: "beta^2 instead of beta: trec_eval's set_F parameter x, (x + 1) P R / (x P + R) (set_F.0.5 = f1(beta2=0.5))",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::{binary, judged};

    fn harmonic(p: f64, r: f64) -> f64 {
        2.0 * p * r / (p + r)
    }

    #[test]
    fn harmonic_mean_of_precision_and_recall() {
        let q = binary("1110101001", 8);
        assert_eq!(
            f1(&q.view(), Cutoff::new(3), 1.0),
            harmonic(3.0 / 3.0, 3.0 / 8.0)
        );
        assert_eq!(f1(&q.view(), None, 1.0), harmonic(6.0 / 10.0, 6.0 / 8.0));
    }

    #[test]
    fn list_shorter_than_k_counts_misses() {
        let q = binary("11", 2);
        assert_eq!(
            f1(&q.view(), Cutoff::new(5), 1.0),
            harmonic(2.0 / 5.0, 2.0 / 2.0)
        );
    }

    #[test]
    fn zero_when_nothing_relevant_is_found() {
        assert_eq!(f1(&binary("000", 2).view(), None, 1.0), 0.0);
        assert_eq!(f1(&binary("000", 0).view(), Cutoff::new(2), 1.0), 0.0);
        assert_eq!(f1(&binary("", 2).view(), None, 1.0), 0.0);
    }

    #[test]
    fn level_and_negative_grades() {
        let q = judged("2 1 - 2", &[3]);
        // Level 2: hits 2 of 4 retrieved, |R| = 3.
        assert_eq!(f1(&q.view(), None, 2.0), harmonic(2.0 / 4.0, 2.0 / 3.0));
        // Level 1: hits 3 of 4, |R| = 4; the -1 is not relevant.
        assert_eq!(f1(&q.view(), None, 1.0), harmonic(3.0 / 4.0, 3.0 / 4.0));
    }

    #[test]
    fn canonical_name_and_trec_eval() {
        assert_eq!(F1::default().name(), "f1");
        assert_eq!(F1::default().trec_eval().unwrap().name, "set_F");
        let m = F1 {
            k: Cutoff::new(10),
            rel: None,
            beta: Beta::ONE,
            beta2: None,
        };
        assert_eq!(m.name(), "f1@10");
        assert!(m.trec_eval().is_none());
        let m = F1 {
            beta: Beta::new(0.5).unwrap(),
            ..F1::default()
        };
        assert_eq!(m.name(), "f1(beta=0.5)");
        assert!(m.trec_eval().is_none());
        // trec_eval's parameter is beta^2.
        let m = F1 {
            beta2: Beta::new(0.5),
            ..F1::default()
        };
        assert_eq!(m.name(), "f1(beta2=0.5)");
        assert_eq!(m.trec_eval().unwrap().name, "set_F_0.5");
    }

    /// trec_eval's `set_F.x`: `(x + 1) P R / (x P + R)`, from its
    /// m_set_F.c; `beta2 = x` computes it with the same operations.
    #[test]
    fn beta2_is_trec_evals_set_f_parameter() {
        let q = binary("1100", 8);
        let (p, r) = (2.0 / 4.0, 2.0 / 8.0);
        for x in [0.5, 2.0, 0.25, 3.0] {
            let m = F1 {
                beta2: Beta::new(x),
                ..F1::default()
            };
            assert_eq!(q.score(&m), (x + 1.0) * p * r / (x * p + r), "{x}");
        }
        // beta = 2 is beta2 = 4.
        let beta = F1 {
            beta: Beta::new(2.0).unwrap(),
            ..F1::default()
        };
        let beta2 = F1 {
            beta2: Beta::new(4.0),
            ..F1::default()
        };
        assert_eq!(q.score(&beta), q.score(&beta2));
        assert!(
            rankeval_core::registry::parse_metric("f1(beta=2,beta2=4)")
                .unwrap_err()
                .to_string()
                .contains("not both")
        );
    }

    #[test]
    fn beta_weighs_recall_against_precision() {
        let q = binary("1100", 8);
        let (p, r) = (2.0 / 4.0, 2.0 / 8.0);
        let at = |beta: f64| f_beta(&q.view(), None, 1.0, Beta::new(beta).unwrap());
        assert_eq!(at(2.0), (1.0 + 4.0) * p * r / (4.0 * p + r));
        assert_eq!(at(0.5), (1.0 + 0.25) * p * r / (0.25 * p + r));
        // beta = 1 is F1 bit for bit, and a larger beta moves toward recall.
        assert_eq!(at(1.0), harmonic(p, r));
        assert!(at(0.5) > at(1.0) && at(1.0) > at(2.0) && at(2.0) > r);
        assert_eq!(
            f_beta(&binary("00", 3).view(), None, 1.0, Beta::new(2.0).unwrap()),
            0.0
        );
    }

    #[test]
    fn rectools_f1beta_published_values() {
        // RecTools tests/metrics/test_classification.py, TestF1Beta:
        // F1Beta(k=2, beta=2 ** (1 / 2)) gives 0.375 for user 1 (recommended
        // items 1, 2; relevant 4, 2, 3) and 0.75 for user 3 (recommended 1;
        // relevant 1).
        let beta = Beta::new(2f64.powf(0.5)).unwrap();
        let user1 = f_beta(&binary("0 1", 3).view(), Cutoff::new(2), 1.0, beta);
        let user3 = f_beta(&binary("1", 1).view(), Cutoff::new(2), 1.0, beta);
        assert!((user1 - 0.375).abs() < 1e-15, "{user1}");
        assert!((user3 - 0.75).abs() < 1e-15, "{user3}");
    }
}
