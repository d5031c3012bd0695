//! Normalized cumulative reciprocal rank (NCRR, cornac).
//!
//! `CRR@k = sum_{i <= k} rel(i) / i`, and `NCRR@k = CRR@k / ICRR@k` with
//! `ICRR@k = sum_{i <= min(|R|, k)} 1 / i`, the CRR of a list with every
//! relevant document on top. 0 when `|R| = 0`. With no cutoff, `k = n`.
//! It is nDCG with the discount `1 / i` instead of `1 / log2(i + 1)` and
//! binary gain. cornac cuts its ideal at the length of the list it is
//! given, which with a cutoff is `k` unless the list is shorter.

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::{PARAM_K, PARAM_REL};
use rankeval_core::{CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel};
use serde::{Deserialize, Serialize};

use crate::common::is_none;
use crate::explain::{per_rank, sum_text};

/// NCRR@k of one query.
///
/// # Example
/// cornac's NCRR test: relevant at ranks 2 and 3 of 3, `|R| = 2`.
/// ```
/// use rankeval_metrics::ncrr::ncrr;
/// use rankeval_core::testing;
/// let q = testing::binary("0 1 1", 2);
/// assert_eq!(ncrr(&q.view(), None, 1.0), (1.0 / 3.0 + 1.0 / 2.0) / (1.0 + 1.0 / 2.0));
/// ```
pub fn ncrr(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade) -> f64 {
    let crr = q
        .top(k)
        .iter()
        .enumerate()
        .filter(|(_, j)| j.is_relevant(level))
        .fold(0.0, |sum, (i, _)| sum + 1.0 / (i + 1) as f64);
    let ideal_depth = q
        .num_relevant(level)
        .min(k.map_or(q.retrieved(), Cutoff::get));
    let ideal = (1..=ideal_depth).fold(0.0, |sum, i| sum + 1.0 / i as f64);
    if ideal > 0.0 { crr / ideal } else { 0.0 }
}

/// The `ncrr` metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ncrr {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "ncrr",
    summary = "sum of 1/rank over the relevant top k, over its best possible value",
    params = &[PARAM_K, PARAM_REL],
    example = Ncrr { k: Cutoff::new(10), rel: RelevanceLevel::new(2) },
)]
impl Metric for Ncrr {
    fn name(&self) -> String {
        CanonicalName::new("ncrr")
            .param_if_set("rel", self.rel)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        ncrr(q, self.k, q.level(self.rel))
    }
    /// NCRR: `sum of rel(i) / i` over the top k, over the same sum for the
    /// relevant documents on top.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let mut crr = 0.0;
        let mut terms = Vec::new();
        let column = per_rank(q, self.k, |i, j| {
            if !j.is_relevant(level) {
                return Some(0.0);
            }
            crr += 1.0 / (i + 1) as f64;
            terms.push(format!("1/{}", i + 1));
            Some(1.0 / (i + 1) as f64)
        });
        let depth = q
            .num_relevant(level)
            .min(self.k.map_or(q.retrieved(), Cutoff::get));
        let ideal = (1..=depth).fold(0.0, |sum, i| sum + 1.0 / i as f64);
        let ideal_terms: Vec<String> = (1..=depth).map(|i| format!("1/{i}")).collect();
        let explanation = Explanation::new(self, q)
            .level(level)
            .column("rel(i) / i", column)
            .quantity("CRR", crr)
            .quantity("ICRR", ideal);
        if ideal <= 0.0 {
            return explanation.formula(format!("{} = 0 (ICRR = 0: |R| = 0)", self.name()));
        }
        explanation
            .formula(format!(
                "{} = CRR / ICRR = ({}) / ({}) = {} / {}",
                self.name(),
                sum_text(&terms),
                sum_text(&ideal_terms),
                number(crr),
                number(ideal)
            ))
            .normalizer(format!("divided by ICRR over min(|R|, k) = {depth} ranks"))
    }
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::binary;

    fn at(pattern: &str, relevant: usize, k: Option<usize>) -> f64 {
        ncrr(
            &binary(pattern, relevant).view(),
            k.and_then(Cutoff::new),
            1.0,
        )
    }

    #[test]
    fn cornac_ncrr_published_values() {
        // cornac tests/cornac/metrics/test_ranking.py, test_ncrr.
        // gt [1], rec [0]: 1.
        assert_eq!(at("1", 1, None), 1.0);
        // gt [1, 0, 1], rec [0, 2, 1]: relevant at ranks 1 and 2: 1.
        assert_eq!(at("1 1 0", 2, None), 1.0);
        // rec [1, 2, 0]: relevant at ranks 2 and 3.
        assert_eq!(
            at("0 1 1", 2, None),
            (1.0 / 3.0 + 1.0 / 2.0) / (1.0 + 1.0 / 2.0)
        );
        // NCRR(k=2), gt [0, 0, 1], rec [1, 2, 0]: relevant at rank 2: 0.5.
        assert_eq!(at("0 1 0", 1, Some(2)), 0.5);
    }

    #[test]
    fn reciprocal_ranks_over_the_ideal() {
        // Relevant at ranks 1 and 4, |R| = 3, k = 5: ideal 1 + 1/2 + 1/3.
        let ideal = 1.0 + 1.0 / 2.0 + 1.0 / 3.0;
        assert_eq!(at("1001 0", 3, Some(5)), (1.0 + 1.0 / 4.0) / ideal);
        // k = 2 caps the ideal at two ranks.
        assert_eq!(at("1001 0", 3, Some(2)), 1.0 / (1.0 + 1.0 / 2.0));
        assert_eq!(at("000", 2, None), 0.0);
        assert_eq!(at("000", 0, None), 0.0);
        assert_eq!(at("", 2, None), 0.0);
    }

    #[test]
    fn canonical_name() {
        let m = Ncrr {
            k: Cutoff::new(10),
            rel: None,
        };
        assert_eq!(m.name(), "ncrr@10");
    }
}
