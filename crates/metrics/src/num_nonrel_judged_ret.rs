//! `num_nonrel_judged_ret`, as trec_eval 10: the number of retrieved
//! documents judged non-relevant (grades 0 to `rel - 1`; unjudged documents
//! and negative grades are not counted). Its `all` line is the sum.

use rankeval_core::explain::Explanation;
use rankeval_core::registry::PARAM_REL;
use rankeval_core::{
    CanonicalName, Grade, JudgedRanking, Judgement, Metric, RelevanceLevel, TrecEvalMeasure,
};
use serde::{Deserialize, Serialize};

use crate::common::is_none;
use crate::explain::{count, marks};

/// Retrieved documents judged non-relevant at `level`.
///
/// # Example
/// ```
/// use rankeval_metrics::num_nonrel_judged_ret::num_nonrel_judged_ret;
/// use rankeval_core::testing;
/// let q = testing::judged("0 1 . - 0 2", &[]);
/// assert_eq!(num_nonrel_judged_ret(&q.view(), 2.0), 3.0);
/// ```
pub fn num_nonrel_judged_ret(q: &JudgedRanking<'_>, level: Grade) -> f64 {
    q.ranked()
        .iter()
        .filter(|j| j.is_judged_nonrelevant(level))
        .count() as f64
}

/// The `num_nonrel_judged_ret` metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NumNonrelJudgedRet {
    /// Relevance level; `None` = the experiment's.
    #[serde(default, skip_serializing_if = "is_none")]
    pub rel: Option<RelevanceLevel>,
}

#[rankeval_core::metric(
    name = "num_nonrel_judged_ret",
    summary = "number of retrieved documents judged non-relevant",
    params = &[PARAM_REL],
    example = NumNonrelJudgedRet { rel: RelevanceLevel::new(2) },
)]
impl Metric for NumNonrelJudgedRet {
    fn name(&self) -> String {
        CanonicalName::new("num_nonrel_judged_ret")
            .param_if_set("rel", self.rel)
            .finish()
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        num_nonrel_judged_ret(q, q.level(self.rel))
    }
    /// num_nonrel_judged_ret: the retrieved documents judged non-relevant.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let level = q.level(self.rel);
        let nonrelevant = |j: Judgement| j.is_judged_nonrelevant(level);
        Explanation::new(self, q)
            .level(level)
            .column("judged non-relevant", marks(q, None, nonrelevant))
            .formula(format!(
                "{} = retrieved with a grade from 0 to < {level} = {}",
                self.name(),
                count(q, None, nonrelevant)
            ))
    }
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        self.rel
            .is_none()
            .then(|| TrecEvalMeasure::sum("num_nonrel_judged_ret"))
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
    fn counts_judged_below_the_level() {
        let q = judged("0 1 . - 0 2", &[0]);
        assert_eq!(num_nonrel_judged_ret(&q.view(), 1.0), 2.0);
        assert_eq!(num_nonrel_judged_ret(&q.view(), 3.0), 4.0);
    }
}
