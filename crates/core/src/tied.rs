//! A metric with its own `ties`, and what the engine and `rankeval explain`
//! ask of a metric about averaging over ties; see [`crate::ties`].

use serde::{Deserialize, Serialize};

use crate::explain::Explanation;
use crate::judge::JudgedRanking;
use crate::metric::{Metric, TrecEvalMeasure};
use crate::params::Cutoff;
use crate::ties_setting::Ties;

/// A metric with its own `ties` (the short syntax `ndcg(ties=average)@10`,
/// TOML `ties = "average"` in a metric's table): the registry builds the
/// metric, then wraps it.
///
/// With `average` it scores [`Metric::score_tie_average`]; with `docid` or
/// `input` it scores the list as ordered, and the experiment checks that
/// the order asked is the order of its lists.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tied {
    /// How this metric treats ties.
    ties: Ties,
    /// The metric.
    metric: Box<dyn Metric>,
}

/// Why a metric cannot take `ties = average`.
pub fn no_tie_average(name: &str) -> String {
    format!(
        "`{name}` has no exact expected value over tied scores, so ties = average is refused \
         for it (ties = docid or input rank the tied documents instead)"
    )
}

impl Tied {
    /// `metric` with its own `ties`; an error naming the metric if it has
    /// no exact method for `average`.
    pub fn new(metric: Box<dyn Metric>, ties: Ties) -> Result<Self, String> {
        if ties == Ties::Average && !supports_tie_average(metric.as_ref()) {
            return Err(no_tie_average(&metric.name()));
        }
        Ok(Self { ties, metric })
    }

    /// The metric inside.
    pub fn metric(&self) -> &dyn Metric {
        self.metric.as_ref()
    }
}

/// Whether `metric` computes an expected value over tied scores
/// ([`Metric::score_tie_average`] gives one for an empty ranking, and so,
/// by its contract, for every ranking).
pub fn supports_tie_average(metric: &dyn Metric) -> bool {
    let empty = JudgedRanking::new(&[], 0, &[], crate::RelevanceLevel::DEFAULT);
    metric.score_tie_average(&empty).is_some()
}

/// `name` (a canonical name) with `key=value` added as its last parameter:
/// `ndcg@10` becomes `ndcg(ties=average)@10`, `ap(norm=truncated)` becomes
/// `ap(norm=truncated,ties=average)`.
pub(crate) fn add_param(name: &str, key: &str, value: &str) -> String {
    // A cutoff `@digits` ends the name, after any parameters.
    let (base, cutoff) = match name.rfind('@') {
        Some(at)
            if name[at + 1..].bytes().all(|b| b.is_ascii_digit()) && !name[at + 1..].is_empty() =>
        {
            name.split_at(at)
        }
        _ => (name, ""),
    };
    match base.strip_suffix(')') {
        Some(open) => format!("{open},{key}={value}){cutoff}"),
        None => format!("{base}({key}={value}){cutoff}"),
    }
}

/// How `metric` averaged over ties on `query`, under the name `name`
/// (the report's): its expected value, the tie group of each rank
/// (numbered from 1: the documents whose order is averaged over) and the
/// number of groups. No per-rank terms: no single order gives the value.
pub fn explain_average(
    metric: &dyn Metric,
    name: String,
    query: &JudgedRanking<'_>,
) -> Explanation {
    let mut groups = vec![None; query.ranked().len()];
    let mut count = 0_u32;
    for (number, group) in query.tie_groups().enumerate() {
        count += 1;
        for slot in &mut groups[group] {
            *slot = Some(f64::from(number as u32 + 1));
        }
    }
    let formula = format!(
        "{name} = mean of {} over every order of each tie group",
        metric.name()
    );
    Explanation {
        metric: name,
        value: metric.score_tie_average(query).unwrap_or(f64::NAN),
        level: None,
        depth: metric.depth().map(Cutoff::get),
        columns: Vec::new(),
        quantities: Vec::new(),
        formula: String::new(),
        normalizer: None,
    }
    .column("tie group", groups)
    .quantity("tie groups", f64::from(count))
    .formula(formula)
}

#[typetag::serde(name = "tied")]
impl Metric for Tied {
    fn definition_version(&self) -> u32 {
        self.metric.definition_version()
    }

    fn name(&self) -> String {
        add_param(&self.metric.name(), "ties", self.ties.as_str())
    }

    fn depth(&self) -> Option<Cutoff> {
        self.metric.depth()
    }

    fn score(&self, query: &JudgedRanking<'_>) -> f64 {
        match self.ties {
            // Checked when built: `Some` for every ranking.
            Ties::Average => self.metric.score_tie_average(query).unwrap_or(f64::NAN),
            Ties::Docid | Ties::Input => self.metric.score(query),
        }
    }

    fn validate(&self) -> Result<(), String> {
        self.metric.validate()
    }

    fn uses_default_level(&self) -> bool {
        self.metric.uses_default_level()
    }

    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        // trec_eval ranks ties by document id.
        match self.ties {
            Ties::Docid => self.metric.trec_eval(),
            Ties::Input | Ties::Average => None,
        }
    }

    fn ties(&self) -> Option<Ties> {
        Some(self.ties)
    }

    fn is_judged_only(&self) -> bool {
        self.metric.is_judged_only()
    }

    /// The expectation over orders of an additive value is additive.
    fn is_additive(&self) -> bool {
        self.metric.is_additive()
    }

    fn requires(&self) -> &'static [crate::Requirement] {
        self.metric.requires()
    }

    fn qrels_means(
        &self,
        default_level: crate::RelevanceLevel,
    ) -> Vec<crate::context::QrelsMean<'_>> {
        self.metric.qrels_means(default_level)
    }

    fn joint_over_samples(&self) -> bool {
        self.metric.joint_over_samples()
    }

    /// A metric of the samples together gives its own value; any other is
    /// the mean of this wrapper's score.
    fn score_samples(&self, samples: &crate::Samples<'_>) -> f64 {
        if self.metric.joint_over_samples() {
            self.metric.score_samples(samples)
        } else {
            samples.mean(|ranking| self.score(ranking))
        }
    }

    /// As [`score_samples`](Metric::score_samples): a metric of the
    /// samples together explains itself, any other is this wrapper's mean.
    fn explain_samples(&self, samples: &crate::Samples<'_>) -> Explanation {
        if self.metric.joint_over_samples() {
            let mut explanation = self.metric.explain_samples(samples);
            explanation.metric = self.name();
            explanation
        } else {
            Explanation::of_sample_mean(self, samples)
        }
    }

    fn reads_tie_groups(&self) -> bool {
        self.metric.reads_tie_groups()
    }

    fn score_tie_average(&self, query: &JudgedRanking<'_>) -> Option<f64> {
        self.metric.score_tie_average(query)
    }

    fn explain(&self, query: &JudgedRanking<'_>) -> Explanation {
        match self.ties {
            Ties::Average => explain_average(self.metric.as_ref(), self.name(), query),
            Ties::Docid | Ties::Input => {
                let mut explanation = self.metric.explain(query);
                explanation.metric = self.name();
                explanation
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parameter_goes_last_before_the_cutoff() {
        assert_eq!(
            add_param("ndcg@10", "ties", "average"),
            "ndcg(ties=average)@10"
        );
        assert_eq!(add_param("rr", "ties", "input"), "rr(ties=input)");
        assert_eq!(
            add_param("ap(norm=truncated)@5", "ties", "docid"),
            "ap(norm=truncated,ties=docid)@5"
        );
        assert_eq!(
            add_param("ap(norm=truncated)", "ties", "docid"),
            "ap(norm=truncated,ties=docid)"
        );
    }
}
