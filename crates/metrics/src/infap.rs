//! Inferred AP (Yilmaz and Aslam, CIKM 2006), as trec_eval 10's `infAP`.
//!
//! For qrels that judge a random sample of the pool: documents the qrels do
//! not mention are outside the pool and count as non-relevant; documents
//! with a negative grade are in the pool but not judged and are skipped;
//! the expected precision above each relevant document is estimated from
//! the judged ones, with a smoothing `epsilon = 0.00001`:
//!
//! ```text
//! infAP = (1 / |R|) * sum over relevant d at 0-based rank j of
//!         1                                   if j = 0
//!         1/(j+1) + j/(j+1) * (pool_above / j) * (rel_above + eps) / (judged_above + 2 eps)
//! pool_above   = rel_above + nonrel_above + unjudged_in_pool_above
//! judged_above = rel_above + nonrel_above
//! ```

use rankeval_core::explain::{Explanation, number};
use rankeval_core::registry::PARAM_REL;
use rankeval_core::{CanonicalName, Grade, JudgedRanking, Metric, RelevanceLevel, TrecEvalMeasure};
use serde::{Deserialize, Serialize};

use crate::common::is_none;
use crate::explain::{per_rank, sum_text};

/// trec_eval's smoothing constant.
const EPSILON: f64 = 0.00001;

/// Inferred AP of one query.
///
/// # Example
/// Relevant, unjudged, relevant; `|R|` = 2: the second term is
/// `1/3 + 2/3 * (1/2) * ((1 + eps) / (1 + 2 eps))`.
/// ```
/// use rankeval_metrics::infap::inf_ap;
/// use rankeval_core::testing;
/// let q = testing::judged("1 . 1", &[]);
/// let eps = 0.00001;
/// let second = 1.0 / 3.0 + (2.0 / 3.0) * (1.0 / 2.0) * ((1.0 + eps) / (1.0 + 2.0 * eps));
/// assert_eq!(inf_ap(&q.view(), 1.0), (1.0 + second) / 2.0);
/// ```
pub fn inf_ap(q: &JudgedRanking<'_>, level: Grade) -> f64 {
    let (mut nonrel, mut rel, mut pool_unjudged) = (0_i64, 0_i64, 0_i64);
    let mut sum = 0.0;
    for (j, judgement) in q.ranked().iter().enumerate() {
        if !judgement.is_judged() {
            continue;
        }
        if judgement.grade() < Default::default() {
            pool_unjudged += 1;
            continue;
        }
        if !judgement.is_relevant(level) {
            nonrel += 1;
            continue;
        }
        rel += 1;
        if j == 0 {
            sum += 1.0;
        } else {
            let fj = j as f64;
            sum += 1.0 / (fj + 1.0)
                + (fj / (fj + 1.0))
                    * (((rel - 1 + nonrel + pool_unjudged) as f64) / fj)
                    * (((rel - 1) as f64 + EPSILON) / ((rel - 1 + nonrel) as f64 + 2.0 * EPSILON));
        }
    }
    let num_rel = q.num_relevant(level);
    if num_rel > 0 {
        sum / num_rel as f64
    } else {
        sum
    }
}

/// The `infap` metric (trec_eval `infAP`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InfAp {
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "infap",
    aliases = &["inferred_ap", "inf_ap"],
    summary = "inferred AP for sampled judgements (Yilmaz and Aslam; trec_eval infAP)",
    params = &[PARAM_REL],
    example = InfAp { rel: RelevanceLevel::new(2) },
)]
impl Metric for InfAp {
    fn name(&self) -> String {
        CanonicalName::new("infap")
            .param_if_set("rel", self.rel)
            .finish()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        inf_ap(q, q.level(self.rel))
    }
    /// infAP: the expected precision above each relevant document, estimated
    /// from the judged documents above it, over `|R|`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        const EPSILON: f64 = 0.00001;
        let level = q.level(self.rel);
        let (mut nonrel, mut rel, mut pool_unjudged) = (0_i64, 0_i64, 0_i64);
        let (mut pool_above, mut judged_above) = (Vec::new(), Vec::new());
        let mut sum = 0.0;
        let mut terms = Vec::new();
        let contributions = per_rank(q, None, |j, judgement| {
            pool_above.push(Some((rel + nonrel + pool_unjudged) as f64));
            judged_above.push(Some((rel + nonrel) as f64));
            if !judgement.is_judged() {
                return None;
            }
            if judgement.grade() < 0.0 {
                pool_unjudged += 1;
                return None;
            }
            if !judgement.is_relevant(level) {
                nonrel += 1;
                return None;
            }
            rel += 1;
            let t = if j == 0 {
                1.0
            } else {
                let fj = j as f64;
                1.0 / (fj + 1.0)
                    + (fj / (fj + 1.0))
                        * (((rel - 1 + nonrel + pool_unjudged) as f64) / fj)
                        * (((rel - 1) as f64 + EPSILON)
                            / ((rel - 1 + nonrel) as f64 + 2.0 * EPSILON))
            };
            sum += t;
            terms.push(number(t));
            Some(t)
        });
        let relevant = q.num_relevant(level);
        let explanation = Explanation::new(self, q)
            .level(level)
            .column("in the pool above", pool_above)
            .column("judged above", judged_above)
            .column(
                "1/i + (i-1)/i x pool/(i-1) x (rel+eps)/(judged+2eps)",
                contributions,
            )
            .quantity("|R|", relevant as f64);
        if relevant == 0 {
            return explanation.formula(format!("{} = {} (|R| = 0)", self.name(), number(sum)));
        }
        explanation
            .formula(format!(
                "{} = ({}) / |R| = {} / {relevant}",
                self.name(),
                sum_text(&terms),
                number(sum)
            ))
            .normalizer(format!(
                "divided by |R| = {relevant}; documents not in the qrels skipped, negative grades in the pool but not judged, eps = 0.00001"
            ))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        self.rel.is_none().then(|| TrecEvalMeasure::mean("infAP"))
    }
    fn uses_default_level(&self) -> bool {
        self.rel.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::judged;

    #[test]
    fn with_every_document_judged_it_is_ap() {
        // Relevant at ranks 1 and 3, |R| = 3: AP = (1 + 2/3) / 3. infAP's
        // second term: 1/3 + 2/3 * (2/2) * ((1 + eps) / (2 + 2 eps)).
        let q = judged("1 0 1", &[1]);
        let second = 1.0 / 3.0 + (2.0 / 3.0) * 1.0 * ((1.0 + EPSILON) / (2.0 + 2.0 * EPSILON));
        assert_eq!(inf_ap(&q.view(), 1.0), (1.0 + second) / 3.0);
        assert!((inf_ap(&q.view(), 1.0) - (1.0 + 2.0 / 3.0) / 3.0).abs() < 1e-5);
    }

    #[test]
    fn pool_unjudged_documents_are_skipped_unpooled_count_as_misses() {
        // `-` (in the pool, unjudged) above the relevant doc at rank 2:
        // 1/2 + 1/2 * (1/1) * (eps / (0 + 2 eps)) = 1/2 + 1/4.
        let q = judged("- 1", &[]);
        assert_eq!(
            inf_ap(&q.view(), 1.0),
            0.5 + 0.5 * (EPSILON / (2.0 * EPSILON))
        );
        // `.` (not in the pool): 1/2 + 1/2 * (0/1) * ... = 1/2.
        assert_eq!(inf_ap(&judged(". 1", &[]).view(), 1.0), 0.5);
        assert_eq!(inf_ap(&judged("0 0", &[]).view(), 1.0), 0.0);
    }
}
