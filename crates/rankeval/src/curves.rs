//! The curves of a report (the HTML page draws them): metric@k for k = 1..K (precision,
//! recall, nDCG: the registered metrics, evaluated at each k) and the
//! interpolated precision-recall curve (trec_eval's `iprec_at_recall`).
//!
//! The curves are computed by the engine with the experiment's own metrics:
//! [`CurvePlan::metrics`] gives the extra metrics to append, and
//! [`CurvePlan::split`] takes their means back out of the report, which is
//! then exactly the report the other formats print.

use rankeval_core::{Cutoff, Grade, JudgedRanking, Metric};
use rankeval_metrics::aggregators::mean::mean;
use rankeval_metrics::{Ndcg, Precision, Recall};
use serde::{Deserialize, Serialize};

use crate::report::Report;

/// The deepest `k` the curves go to, whatever the metrics' cutoffs: each
/// curve costs K metrics per query.
pub const MAX_CURVE_DEPTH: usize = 30;

/// `K` when no metric has a cutoff.
pub const DEFAULT_CURVE_DEPTH: usize = 10;

/// The recall levels of the precision-recall curve: 0.0, 0.1, ..., 1.0.
pub const RECALL_LEVELS: usize = 11;

/// Builds a metric at cutoff `k` (`None` for 0).
type MetricAt = fn(usize) -> Option<Box<dyn Metric>>;

/// The metric families drawn as metric@k curves: title and how to build
/// the metric at `k`.
const FAMILIES: [(&str, MetricAt); 3] = [
    ("precision@k", |k| {
        Precision::at(k).map(|m| Box::new(m) as Box<dyn Metric>)
    }),
    ("recall@k", |k| {
        Recall::at(k).map(|m| Box::new(m) as Box<dyn Metric>)
    }),
    ("ndcg@k", |k| {
        Ndcg::at(k).map(|m| Box::new(m) as Box<dyn Metric>)
    }),
];

/// Which extra metrics the curves need, and where they start in the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CurvePlan {
    /// `K`: curves go from k = 1 to K.
    pub depth: usize,
    /// How many metrics the user asked for; the extra ones come after.
    pub user_metrics: usize,
}

/// The curves of every run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Curves {
    /// `K`.
    pub depth: usize,
    /// Whether `K` was cut to [`MAX_CURVE_DEPTH`] (a metric's cutoff is deeper).
    pub capped: bool,
    /// The families' titles, e.g. `precision@k`.
    pub families: Vec<String>,
    /// Per run, in report order.
    pub runs: Vec<RunCurves>,
}

/// One run's curves: means over its evaluated queries.
#[derive(Clone, Debug, PartialEq)]
pub struct RunCurves {
    /// `at_k[f][k - 1]`: the mean of family `f` at `k`.
    pub at_k: Vec<Vec<f64>>,
    /// `precision_recall[i]`: mean interpolated precision at recall `i / 10`.
    pub precision_recall: Vec<f64>,
}

impl CurvePlan {
    /// The plan for `metrics`: K is their deepest cutoff, at most
    /// [`MAX_CURVE_DEPTH`], [`DEFAULT_CURVE_DEPTH`] when none has one.
    pub fn new(metrics: &[Box<dyn Metric>]) -> Self {
        let deepest = metrics
            .iter()
            .filter_map(|m| m.depth())
            .map(Cutoff::get)
            .max();
        Self {
            depth: deepest
                .unwrap_or(DEFAULT_CURVE_DEPTH)
                .clamp(1, MAX_CURVE_DEPTH),
            user_metrics: metrics.len(),
        }
    }

    /// Whether the metrics' deepest cutoff is deeper than the curves go.
    fn capped(&self, deepest: Option<usize>) -> bool {
        deepest.is_some_and(|d| d > self.depth)
    }

    /// The metrics to append to the user's: each family at k = 1..K, then
    /// interpolated precision at the 11 recall levels.
    pub fn metrics(&self) -> Vec<Box<dyn Metric>> {
        let mut metrics: Vec<Box<dyn Metric>> = Vec::new();
        for (_, build) in FAMILIES {
            metrics.extend((1..=self.depth).filter_map(build));
        }
        metrics.extend((0..RECALL_LEVELS).map(|i| {
            Box::new(InterpolatedPrecision {
                recall: i as f64 / 10.0,
            }) as Box<dyn Metric>
        }));
        metrics
    }

    /// Takes the extra metrics out of `report` (evaluated with
    /// [`metrics`](Self::metrics) appended) and returns their means as curves.
    /// `deepest` is the deepest cutoff of the user's metrics, to say whether
    /// the curves were cut short.
    pub fn split(&self, mut report: Report, deepest: Option<usize>) -> (Report, Curves) {
        let n = self.user_metrics;
        report.metrics.truncate(n);
        let mut curves = Curves {
            depth: self.depth,
            capped: self.capped(deepest),
            families: FAMILIES.iter().map(|(t, _)| (*t).to_owned()).collect(),
            runs: Vec::with_capacity(report.runs.len()),
        };
        for run in &mut report.runs {
            let extra = run.per_query.split_off(n.min(run.per_query.len()));
            run.aggregates.truncate(n);
            let means: Vec<f64> = extra.iter().map(|column| mean(column)).collect();
            let at_k = means
                .chunks(self.depth)
                .take(FAMILIES.len())
                .map(<[f64]>::to_vec)
                .collect();
            let precision_recall = means
                .get(FAMILIES.len() * self.depth..)
                .unwrap_or_default()
                .to_vec();
            curves.runs.push(RunCurves {
                at_k,
                precision_recall,
            });
        }
        (report, curves)
    }
}

/// Interpolated precision at one recall level, as trec_eval's
/// `iprec_at_recall` (version 10): the recall level becomes a number of
/// relevant documents, `c = round(recall x |R|)` (halves away from zero, C's
/// `lround`), and the value is the highest precision at any rank where at
/// least `c` relevant documents have been retrieved; 0 when fewer than `c`
/// ever are. Relevance at the experiment's level. Not registered: the
/// report's curve uses it through [`CurvePlan::metrics`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InterpolatedPrecision {
    /// The recall level, from 0 to 1.
    pub recall: f64,
}

#[typetag::serde(name = "report_interpolated_precision")]
impl Metric for InterpolatedPrecision {
    fn name(&self) -> String {
        format!("iprec_at_recall_{:.2}", self.recall)
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        interpolated_precision(q, q.level(None), self.recall)
    }
}

/// Interpolated precision of one query at `recall` (see
/// [`InterpolatedPrecision`]). Precision only falls between two relevant
/// documents, so only their ranks can hold the maximum.
pub fn interpolated_precision(q: &JudgedRanking<'_>, level: Grade, recall: f64) -> f64 {
    let relevant = q.num_relevant(level);
    if relevant == 0 {
        return 0.0;
    }
    let needed = (recall * relevant as f64).round() as usize;
    let mut hits = 0usize;
    let mut best = 0.0f64;
    for (i, judgement) in q.ranked().iter().enumerate() {
        if judgement.is_relevant(level) {
            hits += 1;
            if hits >= needed {
                best = best.max(hits as f64 / (i + 1) as f64);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use rankeval_core::testing;

    use super::*;

    #[test]
    fn interpolated_precision_is_the_best_precision_at_or_past_a_recall() {
        // Relevant at ranks 1, 3, 6 of 4 relevant: (P, R) = (1, .25), (.667, .5), (.5, .75).
        let q = testing::binary("1 0 1 0 0 1", 4);
        let at = |r: f64| interpolated_precision(&q.view(), 1.0, r);
        assert_eq!(at(0.0), 1.0);
        assert_eq!(at(0.25), 1.0);
        // 0.3 x 4 = 1.2 rounds to 1 relevant document, 0.4 x 4 = 1.6 to 2.
        assert_eq!(at(0.3), 1.0);
        assert_eq!(at(0.4), 2.0 / 3.0);
        assert_eq!(at(0.5), 2.0 / 3.0);
        assert_eq!(at(0.7), 0.5);
        // 0.9 x 4 = 3.6 rounds to 4: never reached.
        assert_eq!(at(0.9), 0.0);
        assert_eq!(at(1.0), 0.0);
    }

    #[test]
    fn no_relevant_document_gives_zero() {
        let q = testing::binary("0 0 0", 0);
        assert_eq!(interpolated_precision(&q.view(), 1.0, 0.0), 0.0);
    }

    #[test]
    fn depth_follows_the_deepest_cutoff_within_bounds() {
        let parse = |s: &[&str]| -> Vec<Box<dyn Metric>> {
            s.iter()
                .map(|m| rankeval_core::registry::parse_metric(m).unwrap())
                .collect()
        };
        assert_eq!(
            CurvePlan::new(&parse(&["ap", "rr"])).depth,
            DEFAULT_CURVE_DEPTH
        );
        assert_eq!(CurvePlan::new(&parse(&["p@5", "ndcg@20"])).depth, 20);
        let deep = CurvePlan::new(&parse(&["ndcg@1000"]));
        assert_eq!(deep.depth, MAX_CURVE_DEPTH);
        assert!(deep.capped(Some(1000)));
        assert_eq!(deep.metrics().len(), 3 * MAX_CURVE_DEPTH + RECALL_LEVELS);
    }
}
