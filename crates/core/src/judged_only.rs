//! Scoring on judged documents only: the condensed list (Sakai 2007).
//!
//! When most retrieved documents were never judged, counting them as
//! non-relevant penalises a system for retrieving what the pool missed.
//! The condensed list removes every unjudged document from the ranking
//! before scoring, so the documents below move up: trec_eval's `-J`,
//! ir_measures' `judged_only`. A metric asks for it with the parameter
//! `judged_only` (`ndcg(judged_only=true)@10`, TOML `judged_only = true` in
//! a metric's table); the registry builds the metric, then wraps it in a
//! [`JudgedOnly`]. An experiment may ask it of every metric (`--judged-only`,
//! TOML `judged_only`), which wraps each metric the same way, so the name
//! in every report says how the value was computed.
//!
//! "Unjudged" is trec_eval's: a document the qrels do not mention, or one
//! they give a negative grade ("in the pool but not judged"). The judged
//! documents, the relevant ones counted by `|R|` and the ideal ranking are
//! unchanged; only the ranking shrinks.

use std::cell::RefCell;

use serde::{Deserialize, Serialize};

use crate::explain::{Column, Explanation, Quantity};
use crate::judge::{JudgedRanking, Judgement};
use crate::metric::{Metric, TrecEvalMeasure};
use crate::params::Cutoff;
use crate::tied::add_param;
use crate::ties_setting::Ties;

/// The parameter's name, in the short syntax and in TOML.
pub const JUDGED_ONLY: &str = "judged_only";

/// A metric scored on the condensed list: the ranking without its
/// unjudged documents. See the module docs.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgedOnly {
    /// The metric, scored on the condensed list.
    metric: Box<dyn Metric>,
}

impl JudgedOnly {
    /// `metric`, scored on judged documents only.
    pub fn new(metric: Box<dyn Metric>) -> Self {
        Self { metric }
    }

    /// The metric inside.
    pub fn metric(&self) -> &dyn Metric {
        self.metric.as_ref()
    }
}

/// `metric` scored on judged documents only: wrapped in a [`JudgedOnly`]
/// unless it is one already. The experiment's `judged_only` applies this
/// to every metric, and to the metric a gate names.
pub fn judged_only(metric: Box<dyn Metric>) -> Box<dyn Metric> {
    if metric.is_judged_only() {
        metric
    } else {
        Box::new(JudgedOnly::new(metric))
    }
}

/// Whether a document at some rank stays in the condensed list: judged,
/// with a grade of 0 or more (trec_eval's `-J`).
#[inline]
pub fn is_kept(judgement: &Judgement) -> bool {
    judgement.is_judged() && judgement.grade() >= 0.0
}

/// Buffers reused by one thread's condensed lists.
#[derive(Default)]
struct Condensed {
    ranked: Vec<Judgement>,
    tie_ends: Vec<u32>,
}

thread_local! {
    static CONDENSED: RefCell<Condensed> = RefCell::new(Condensed::default());
}

/// Calls `score` with the condensed view of `query`: its judged documents in
/// their order, `retrieved` their number, its groups of tied scores kept
/// (each group's judged documents, groups left empty dropped).
fn with_condensed<T>(query: &JudgedRanking<'_>, score: impl FnOnce(&JudgedRanking<'_>) -> T) -> T {
    with_thread_buffers(&CONDENSED, |buffers| {
        let Condensed { ranked, tie_ends } = buffers;
        ranked.clear();
        tie_ends.clear();
        ranked.extend(query.ranked().iter().copied().filter(is_kept));
        if !query.tie_ends().is_empty() {
            let mut kept = 0_u32;
            for group in query.tie_groups() {
                let before = kept;
                kept += query.ranked()[group].iter().filter(|j| is_kept(j)).count() as u32;
                if kept > before {
                    tie_ends.push(kept);
                }
            }
        }
        let view = JudgedRanking::new(
            ranked,
            ranked.len(),
            query.ideal_grades(),
            query.default_level(),
        )
        .with_tie_groups(tie_ends);
        score(&view)
    })
}

/// Calls `work` with this thread's buffers in `key`, or with new ones when
/// they are in use already (a wrapped metric inside another: the registry
/// wraps each kind once, so this is rare), so that a view built per query
/// allocates nothing after the first.
pub(crate) fn with_thread_buffers<B: Default + 'static, T>(
    key: &'static std::thread::LocalKey<RefCell<B>>,
    work: impl FnOnce(&mut B) -> T,
) -> T {
    key.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buffers) => work(&mut buffers),
        Err(_) => work(&mut B::default()),
    })
}

#[typetag::serde(name = "judged_only")]
impl Metric for JudgedOnly {
    fn definition_version(&self) -> u32 {
        self.metric.definition_version()
    }

    fn name(&self) -> String {
        add_param(&self.metric.name(), JUDGED_ONLY, "true")
    }

    /// The whole list: the top k of the condensed list may lie anywhere in
    /// the ranking.
    fn depth(&self) -> Option<Cutoff> {
        None
    }

    fn score(&self, query: &JudgedRanking<'_>) -> f64 {
        with_condensed(query, |view| self.metric.score(view))
    }

    /// The condensed list has no subtopic judgements nor per-document
    /// facts ([`crate::context`]): a metric that reads them is refused.
    fn validate(&self) -> Result<(), String> {
        if let Some(needs) = self.metric.requires().first() {
            return Err(format!(
                "{JUDGED_ONLY} does not apply to `{}`, which reads {}",
                self.metric.name(),
                needs.what()
            ));
        }
        if self.metric.joint_over_samples() {
            return Err(format!(
                "{JUDGED_ONLY} does not apply to `{}`, which reads each ranking whole with its documents' exposure",
                self.metric.name()
            ));
        }
        self.metric.validate()
    }

    fn uses_default_level(&self) -> bool {
        self.metric.uses_default_level()
    }

    /// None: trec_eval prints this number only under `-J`, which
    /// `--format trec` does not pass on.
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        None
    }

    fn ties(&self) -> Option<Ties> {
        self.metric.ties()
    }

    fn is_judged_only(&self) -> bool {
        true
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

    fn reads_tie_groups(&self) -> bool {
        self.metric.reads_tie_groups()
    }

    /// Not additive: a negative grade (pooled, not judged) takes the
    /// document out of the condensed list and moves every document below.
    fn is_additive(&self) -> bool {
        false
    }

    fn score_tie_average(&self, query: &JudgedRanking<'_>) -> Option<f64> {
        with_condensed(query, |view| self.metric.score_tie_average(view))
    }

    /// The metric's own explanation on the condensed list, its per-rank
    /// terms put back at the documents' ranks in the whole ranking (none at
    /// a removed document), after a column of each kept document's rank in
    /// the condensed list, with the number of documents removed.
    fn explain(&self, query: &JudgedRanking<'_>) -> Explanation {
        let mut explanation = with_condensed(query, |view| self.metric.explain(view));
        explanation.metric = self.name();
        explanation.depth = None;
        let ranked = query.ranked();
        for Column { values, .. } in &mut explanation.columns {
            let mut condensed = std::mem::take(values).into_iter();
            *values = ranked
                .iter()
                .map(|j| {
                    if is_kept(j) {
                        condensed.next().flatten()
                    } else {
                        None
                    }
                })
                .collect();
        }
        let mut rank = 0_u32;
        let condensed_ranks = ranked
            .iter()
            .map(|j| {
                is_kept(j).then(|| {
                    rank += 1;
                    f64::from(rank)
                })
            })
            .collect();
        explanation.columns.insert(
            0,
            Column {
                name: "judged rank".to_owned(),
                values: condensed_ranks,
            },
        );
        let removed = ranked.iter().filter(|j| !is_kept(j)).count();
        explanation.quantities.push(Quantity {
            name: "unjudged removed".to_owned(),
            value: removed as f64,
        });
        explanation
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::RelevanceLevel;

    /// A ranking from a pattern: a digit is a grade, `-` unjudged, `.` a
    /// negative grade; with the ideal grades `ideal`.
    struct Owned {
        ranked: Vec<Judgement>,
        ideal: Vec<f64>,
    }

    impl Owned {
        fn view(&self) -> JudgedRanking<'_> {
            JudgedRanking::new(
                &self.ranked,
                self.ranked.len(),
                &self.ideal,
                RelevanceLevel::DEFAULT,
            )
        }
    }

    fn judged(pattern: &str, ideal: &[f64]) -> Owned {
        let ranked = pattern
            .split_whitespace()
            .map(|p| match p {
                "-" => Judgement::UNJUDGED,
                "." => Judgement::judged(-1.0),
                digit => Judgement::judged(digit.parse().expect("a grade")),
            })
            .collect();
        Owned {
            ranked,
            ideal: ideal.to_vec(),
        }
    }

    /// A metric that sees the ranking as it is handed over: the number of
    /// ranks times 100 plus the grade sum, and the tie groups' count.
    #[derive(Debug, Serialize, Deserialize)]
    struct Probe;

    #[typetag::serde(name = "judged_only_probe")]
    impl Metric for Probe {
        fn name(&self) -> String {
            "probe@3".to_owned()
        }
        fn depth(&self) -> Option<Cutoff> {
            Cutoff::new(3)
        }
        fn score(&self, q: &JudgedRanking<'_>) -> f64 {
            let top = q.top(self.depth());
            100.0 * top.len() as f64
                + top.iter().map(|j| j.grade()).sum::<f64>()
                + 10_000.0 * q.retrieved() as f64
        }
        fn score_tie_average(&self, q: &JudgedRanking<'_>) -> Option<f64> {
            Some(q.tie_groups().count() as f64)
        }
    }

    #[test]
    fn unjudged_and_negative_grades_are_removed_before_the_cutoff() {
        // Ranks: unjudged, 2, negative (pool, unjudged), 0, unjudged, 1.
        let q = judged("- 2 . 0 - 1", &[3.0, 2.0, 1.0, 0.0, -1.0]);
        let wrapped = JudgedOnly::new(Box::new(Probe));
        // Condensed: 2 0 1; top 3 = all of them; retrieved = 3.
        assert_eq!(wrapped.score(&q.view()), 30_000.0 + 300.0 + 3.0);
        assert_eq!(Probe.score(&q.view()), 60_000.0 + 300.0 + 1.0);
        assert_eq!(wrapped.depth(), None);
        assert_eq!(wrapped.name(), "probe(judged_only=true)@3");
        assert_eq!(wrapped.trec_eval(), None);
    }

    #[test]
    fn wrapping_twice_wraps_once() {
        let once = judged_only(Box::new(Probe));
        assert!(once.is_judged_only());
        let twice = judged_only(once);
        assert_eq!(twice.name(), "probe(judged_only=true)@3");
    }

    #[test]
    fn nothing_unjudged_changes_nothing() {
        let q = judged("1 0 2 0", &[2.0, 1.0, 1.0, 0.0, 0.0]);
        let wrapped = JudgedOnly::new(Box::new(Probe));
        assert_eq!(wrapped.score(&q.view()), Probe.score(&q.view()));
    }

    #[test]
    fn tie_groups_keep_their_judged_documents() {
        let q = judged("- 1 0 - - 2", &[2.0, 1.0, 0.0]);
        // Groups: [0, 1], [2, 3, 4], [5]: condensed [1], [0], [2].
        let ends = [2_u32, 5, 6];
        let view = q.view().with_tie_groups(&ends);
        let wrapped = JudgedOnly::new(Box::new(Probe));
        assert_eq!(wrapped.score_tie_average(&view), Some(3.0));
        // A group of unjudged documents only disappears.
        let ends = [1_u32, 5, 6];
        let view = q.view().with_tie_groups(&ends);
        assert_eq!(wrapped.score_tie_average(&view), Some(2.0));
    }

    #[test]
    fn explanation_columns_stay_at_the_documents_ranks() {
        let q = judged("- 1 - 0", &[1.0, 0.0]);
        let wrapped = JudgedOnly::new(Box::new(Probe));
        let mut explanation = wrapped.explain(&q.view());
        assert_eq!(explanation.metric, "probe(judged_only=true)@3");
        assert_eq!(explanation.value, wrapped.score(&q.view()));
        let removed = explanation.quantities.pop().map(|q| (q.name, q.value));
        assert_eq!(removed, Some(("unjudged removed".to_owned(), 2.0)));
    }
}
