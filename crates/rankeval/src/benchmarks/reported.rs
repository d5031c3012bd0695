//! A metric under the name a benchmark reports it (`--official`): the
//! card's `AP(rel=2)` for rankeval's `ap(rel=2)`. Everything but the name
//! is the metric's own, so values are the same bits.

use rankeval_core::{Cutoff, Explanation, JudgedRanking, Metric, Ties, TrecEvalMeasure};
use serde::{Deserialize, Serialize};

/// `metric` reported as `label`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reported {
    /// The name the benchmark reports (`nDCG@10`, `RR(rel=2)`).
    label: String,
    /// The metric that computes it.
    metric: Box<dyn Metric>,
}

impl Reported {
    /// `metric` under `label`.
    pub fn new(label: impl Into<String>, metric: Box<dyn Metric>) -> Self {
        Self {
            label: label.into(),
            metric,
        }
    }

    /// The metric inside.
    pub fn metric(&self) -> &dyn Metric {
        self.metric.as_ref()
    }
}

#[typetag::serde(name = "reported")]
impl Metric for Reported {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn depth(&self) -> Option<Cutoff> {
        self.metric.depth()
    }

    fn score(&self, query: &JudgedRanking<'_>) -> f64 {
        self.metric.score(query)
    }

    fn validate(&self) -> Result<(), String> {
        self.metric.validate()
    }

    fn uses_default_level(&self) -> bool {
        self.metric.uses_default_level()
    }

    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        self.metric.trec_eval()
    }

    fn ties(&self) -> Option<Ties> {
        self.metric.ties()
    }

    fn is_judged_only(&self) -> bool {
        self.metric.is_judged_only()
    }

    fn is_additive(&self) -> bool {
        self.metric.is_additive()
    }

    fn score_tie_average(&self, query: &JudgedRanking<'_>) -> Option<f64> {
        self.metric.score_tie_average(query)
    }

    fn explain(&self, query: &JudgedRanking<'_>) -> Explanation {
        let mut explanation = self.metric.explain(query);
        explanation.metric = self.label.clone();
        explanation
    }
}
