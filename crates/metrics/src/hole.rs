//! Hole at k, BEIR's `Hole@k` (`beir.retrieval.custom_metrics.hole`): the
//! share of the top k that no query of the qrels judges (BEIR's "annotated
//! corpus" is every document of the qrels, whatever its query and grade).
//!
//! It is not [`unjudged`](crate::unjudged) (`unjudged@k`, trec_eval's
//! `unj_k`, ir_measures' `1 - Judged@k`), which asks whether the document
//! is judged for *this* query and counts a negative grade as unjudged: a
//! document judged for another query is a hole for `unjudged@k` and not
//! for `hole@k` (docs/metrics.md gives the numbers on generated data). As
//! in BEIR, the count is divided by k whatever the list's length. BEIR
//! also averages over every query of the run, judged or not, and rounds to
//! 5 places; rankeval averages over the evaluated queries (a run query
//! without judgements is warned about and left out) and does not round.
//!
//! Thakur et al., "BEIR: A Heterogeneous Benchmark for Zero-shot Evaluation
//! of Information Retrieval Models", NeurIPS 2021 Datasets and Benchmarks.

use rankeval_core::explain::Explanation;
use rankeval_core::registry::PARAM_K;
use rankeval_core::{CanonicalName, Cutoff, JudgedRanking, Metric, Requirement};
use serde::{Deserialize, Serialize};

use crate::common::{is_none, ratio};
use crate::explain::at;

/// What Hole@k needs: the documents judged for any query.
const REQUIRES: &[Requirement] = &[Requirement::JudgedAnywhere];

/// The number of the top `k` documents judged for no query, or `None`
/// without the set of judged documents.
fn holes(q: &JudgedRanking<'_>, k: Option<Cutoff>) -> Option<usize> {
    let view = q.documents()?;
    let top = q.top(k).len();
    Some((0..top).filter(|&i| !view.judged_anywhere(i)).count())
}

/// Hole@k of one query: documents of the top k judged for no query, over
/// k (the list's length without a cutoff); 0 without the qrels' documents
/// (the engine always gives them to a metric that requires them).
pub fn hole(q: &JudgedRanking<'_>, k: Option<Cutoff>) -> f64 {
    holes(q, k).map_or(0.0, |count| {
        ratio(count, k.map_or(q.retrieved(), Cutoff::get))
    })
}

/// The `hole` metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hole {
    /// Cutoff; `None` = the whole list.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
}

#[rankeval_core::metric(
    name = "hole",
    summary = "BEIR's Hole@k: share of the top k judged for no query of the qrels",
    params = &[PARAM_K],
    example = Hole { k: Cutoff::new(10) },
)]
impl Metric for Hole {
    fn name(&self) -> String {
        CanonicalName::new("hole").cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn requires(&self) -> &'static [Requirement] {
        REQUIRES
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        hole(q, self.k)
    }
    /// hole: `documents judged for no query in the top k / k`.
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        let explanation = Explanation::new(self, q);
        let Some((view, count)) = q.documents().zip(holes(q, self.k)) else {
            return explanation.formula(format!("{} = 0 (no qrels documents)", self.name()));
        };
        let top = q.top(self.k).len();
        let marks = (0..q.ranked().len())
            .map(|i| (i < top).then(|| f64::from(u8::from(!view.judged_anywhere(i)))))
            .collect();
        let depth = self.k.map_or(q.retrieved(), Cutoff::get);
        let explanation = explanation
            .column("judged for no query", marks)
            .quantity(format!("holes{}", at(self.k)), count as f64);
        if depth == 0 {
            return explanation.formula(format!("{} = 0 (empty list)", self.name()));
        }
        explanation.formula(format!(
            "{} = holes{} / k = {count} / {depth}",
            self.name(),
            at(self.k)
        ))
    }
    fn uses_default_level(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rankeval_core::{
        DocumentContext, Duplicates, Judge, QrelsBuilder, RelevanceLevel, RunBuilder,
    };

    use super::*;
    use crate::unjudged::Unjudged;

    /// q1 judges a and b, q2 judges c (negative) and x; q1's list is
    /// c z a b x, q2's x a.
    fn scores(metrics: &[&dyn Metric]) -> Vec<Vec<f64>> {
        let mut qrels = QrelsBuilder::new();
        for (q, d, g) in [
            ("q1", "a", 1),
            ("q1", "b", 0),
            ("q2", "c", -1),
            ("q2", "x", 2),
        ] {
            qrels.push(q, d, g).unwrap();
        }
        let mut run = RunBuilder::new();
        for (q, d) in [
            ("q1", "c"),
            ("q1", "z"),
            ("q1", "a"),
            ("q1", "b"),
            ("q1", "x"),
            ("q2", "x"),
            ("q2", "a"),
        ] {
            run.push_ranked(q, d).unwrap();
        }
        let qrels = qrels.finish().unwrap();
        let run = run.finish(Duplicates::Error).unwrap();
        let context = DocumentContext::build(&qrels, REQUIRES, None).unwrap();
        let qrels = qrels.with_documents(Arc::new(context));
        let mut judge = Judge::new(None, RelevanceLevel::DEFAULT);
        ["q1", "q2"]
            .into_iter()
            .map(|q| {
                let index = qrels.query_index(q.as_bytes()).unwrap();
                let judged = judge.judge(&qrels, index, run.list(q));
                metrics.iter().map(|m| m.score(&judged)).collect()
            })
            .collect()
    }

    #[test]
    fn a_hole_is_a_document_no_query_judges() {
        let hole3 = Hole { k: Cutoff::new(3) };
        let hole10 = Hole { k: Cutoff::new(10) };
        let unj3 = Unjudged { k: Cutoff::new(3) };
        let got = scores(&[&hole3, &hole10, &unj3, &Hole { k: None }]);
        // q1's top 3, c z a: only z is judged for no query; c is judged
        // for q2 (so unjudged@3 counts it, with z: 2 / 3).
        assert_eq!(got[0], vec![1.0 / 3.0, 1.0 / 10.0, 2.0 / 3.0, 1.0 / 5.0]);
        // q2: x and a are both judged somewhere.
        assert_eq!(got[1], vec![0.0, 0.0, 1.0 / 3.0, 0.0]);
    }

    #[test]
    fn without_the_qrels_documents_it_is_zero() {
        let ranked = [rankeval_core::Judgement::UNJUDGED; 3];
        let q = JudgedRanking::new(&ranked, 3, &[], RelevanceLevel::DEFAULT);
        assert_eq!(hole(&q, Cutoff::new(3)), 0.0);
        // The test views carry the facts: every unjudged document is a hole.
        let q = rankeval_core::testing::judged(". 1 .", &[]);
        assert_eq!(hole(&q.view(), Cutoff::new(3)), 2.0 / 3.0);
    }
}
