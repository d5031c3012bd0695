//! Bounds under incomplete judgements: a metric scored with every unjudged
//! document given one grade.
//!
//! An unjudged document counts as non-relevant for most metrics, which is a
//! guess. Two other guesses bound what judging would change: every unjudged
//! document retrieved is non-relevant (judged 0), or relevant at the top
//! grade. The value under each is a completion of the judgements; the
//! interval between the two completions is the range the metric can take
//! when the holes are filled all one way (cwl_eval's residuals for RBP,
//! generalised to every metric). A metric asks for one with the parameter
//! `unjudged` (`ndcg(unjudged=relevant)@10`); `--bounds` adds both to every
//! metric.
//!
//! The completion judges the documents the run retrieved (the whole list,
//! not only the top k): each is added to the query's judgements, so `|R|`
//! and the ideal ranking grow with them. Documents no run retrieved stay as
//! the qrels say. "Unjudged" is trec_eval's: not in the qrels, or a
//! negative grade ("in the pool, not judged"); a negative grade is replaced,
//! not kept beside the new one.

use std::cell::RefCell;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::explain::{Explanation, Quantity};
use crate::grade::{Grade, check_grade};
use crate::judge::{JudgedRanking, Judgement};
use crate::judged_only::{is_kept, with_thread_buffers};
use crate::metric::{Metric, TrecEvalMeasure};
use crate::params::Cutoff;
use crate::tied::add_param;
use crate::ties_setting::Ties;

/// The parameter's name, in the short syntax and in TOML.
pub const UNJUDGED: &str = "unjudged";

/// The grade every unjudged document is given.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Completion {
    /// Judged non-relevant: grade 0 (the lower bound of most metrics).
    Nonrelevant,
    /// Relevant at the query's top grade: its highest judged grade, at
    /// least the experiment's relevance level (the upper bound of most
    /// metrics).
    Relevant,
    /// A grade given explicitly (`unjudged=3`: the top of a 0-3 scale for
    /// every query).
    Grade(Grade),
}

impl Completion {
    /// Parses the parameter's value: `nonrelevant`, `relevant` or a grade.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text.to_ascii_lowercase().as_str() {
            "nonrelevant" | "non_relevant" => Ok(Self::Nonrelevant),
            "relevant" => Ok(Self::Relevant),
            other => other
                .parse::<f64>()
                .map_err(|_| format!("expected nonrelevant, relevant or a grade, found {text}"))
                .and_then(|g| check_grade(g).map_err(|e| format!("{text}: {e}")))
                .map(Self::Grade),
        }
    }

    /// The grade given on `query`.
    fn grade(self, query: &JudgedRanking<'_>) -> Grade {
        match self {
            Self::Nonrelevant => 0.0,
            Self::Relevant => {
                let top = query.ideal_grades().first().copied().unwrap_or(0.0);
                top.max(query.default_level().get())
            }
            Self::Grade(grade) => grade,
        }
    }
}

impl fmt::Display for Completion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Nonrelevant => f.write_str("nonrelevant"),
            Self::Relevant => f.write_str("relevant"),
            Self::Grade(grade) => write!(f, "{grade}"),
        }
    }
}

/// A metric scored with every unjudged document given one grade. See the
/// module docs.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Completed {
    /// The grade unjudged documents are given.
    completion: Completion,
    /// The metric.
    metric: Box<dyn Metric>,
}

impl Completed {
    /// `metric` scored with every unjudged document given `completion`.
    pub fn new(metric: Box<dyn Metric>, completion: Completion) -> Self {
        Self { completion, metric }
    }

    /// The metric inside.
    pub fn metric(&self) -> &dyn Metric {
        self.metric.as_ref()
    }
}

/// Buffers reused by one thread's completed rankings.
#[derive(Default)]
struct Buffers {
    ranked: Vec<Judgement>,
    ideal: Vec<Grade>,
}

thread_local! {
    static BUFFERS: RefCell<Buffers> = RefCell::new(Buffers::default());
}

/// Calls `score` with `query` completed: each unjudged document of the
/// ranking judged `grade`, the query's judgements (its ideal grades) with
/// one `grade` added per such document and the negative grades they replace
/// removed; the number of documents completed is passed along.
fn with_completed<T>(
    query: &JudgedRanking<'_>,
    grade: Grade,
    score: impl FnOnce(&JudgedRanking<'_>, usize) -> T,
) -> T {
    with_thread_buffers(&BUFFERS, |buffers| {
        let Buffers { ranked, ideal } = buffers;
        ranked.clear();
        ideal.clear();
        let mut completed = 0_usize;
        let mut negatives = 0_usize;
        ranked.extend(query.ranked().iter().map(|j| {
            if is_kept(j) {
                *j
            } else {
                completed += 1;
                negatives += usize::from(j.is_judged());
                Judgement::judged(grade)
            }
        }));
        // The ideal grades, descending: the completed grades go in before
        // the first smaller grade; the negative grades replaced come off the
        // end (they are the smallest).
        let given = query.ideal_grades();
        let kept = &given[..given.len() - negatives.min(given.len())];
        let at = kept.partition_point(|&g| g >= grade);
        ideal.extend_from_slice(&kept[..at]);
        ideal.extend(std::iter::repeat_n(grade, completed));
        ideal.extend_from_slice(&kept[at..]);
        let view = JudgedRanking::new(ranked, query.retrieved(), ideal, query.default_level())
            .with_tie_groups(query.tie_ends());
        score(&view, completed)
    })
}

#[typetag::serde(name = "completed")]
impl Metric for Completed {
    fn definition_version(&self) -> u32 {
        self.metric.definition_version()
    }

    fn name(&self) -> String {
        add_param(&self.metric.name(), UNJUDGED, &self.completion.to_string())
    }

    /// The whole list: every unjudged document retrieved joins the query's
    /// judgements, wherever it is ranked.
    fn depth(&self) -> Option<Cutoff> {
        None
    }

    fn score(&self, query: &JudgedRanking<'_>) -> f64 {
        let grade = self.completion.grade(query);
        with_completed(query, grade, |view, _| self.metric.score(view))
    }

    /// Completed judgements have no subtopics nor per-document facts
    /// ([`crate::context`]): a metric that reads them is refused.
    fn validate(&self) -> Result<(), String> {
        if let Some(needs) = self.metric.requires().first() {
            return Err(format!(
                "{UNJUDGED} does not apply to `{}`, which reads {}",
                self.metric.name(),
                needs.what()
            ));
        }
        if self.metric.joint_over_samples() {
            return Err(format!(
                "{UNJUDGED} does not apply to `{}`, which reads each ranking whole with its documents' exposure",
                self.metric.name()
            ));
        }
        self.metric.validate()
    }

    fn uses_default_level(&self) -> bool {
        self.metric.uses_default_level()
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

    /// None: trec_eval has no completed judgements.
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        None
    }

    fn ties(&self) -> Option<Ties> {
        self.metric.ties()
    }

    /// Not additive: `relevant` gives unjudged documents the query's top
    /// grade, which the other documents' grades set.
    fn is_additive(&self) -> bool {
        false
    }

    fn score_tie_average(&self, query: &JudgedRanking<'_>) -> Option<f64> {
        let grade = self.completion.grade(query);
        with_completed(query, grade, |view, _| self.metric.score_tie_average(view))
    }

    /// The metric's own explanation on the completed ranking, with the
    /// grade given and the number of documents given it.
    fn explain(&self, query: &JudgedRanking<'_>) -> Explanation {
        let grade = self.completion.grade(query);
        let mut explanation = with_completed(query, grade, |view, completed| {
            let mut explanation = self.metric.explain(view);
            explanation.quantities.push(Quantity {
                name: "unjudged given grade".to_owned(),
                value: grade,
            });
            explanation.quantities.push(Quantity {
                name: "unjudged completed".to_owned(),
                value: completed as f64,
            });
            explanation
        });
        explanation.metric = self.name();
        explanation.depth = None;
        explanation
    }
}

/// The two completions of `metric` that bound it (`--bounds`): every
/// unjudged document non-relevant, then relevant at the top grade. `None`
/// for a metric scored on judged documents only (it has no unjudged
/// documents to complete).
pub fn bounds_of(metric: &dyn Metric) -> Option<[String; 2]> {
    if metric.is_judged_only() {
        return None;
    }
    let name = metric.name();
    Some(
        [Completion::Nonrelevant, Completion::Relevant]
            .map(|c| add_param(&name, UNJUDGED, &c.to_string())),
    )
}

/// The share of unjudged documents in the top k above which a run's
/// report warns that its values rest on guesses: a mean `unjudged@k` above
/// 0.2 (fewer than 80% of the top k judged; ir_measures' `Judged@k` below
/// 0.8). At that rate a metric at k can move by a fifth of its range when
/// the holes are judged, more than most differences between systems.
pub const HOLE_WARNING: f64 = 0.2;

/// `metrics` with their bounds (`--bounds`): after each metric, its two
/// completions ([`bounds_of`]: every unjudged document non-relevant, then
/// relevant at the top grade); at the end the hole rate, `unjudged@k` at
/// the deepest cutoff of the metrics (the whole list if one has none),
/// unless it is there already. The copies are built from the metrics'
/// canonical names, so a metric must be one the registry builds; the error
/// names the one that is not. A metric scored on judged documents only
/// (`--judged-only`, `judged_only=true`) has no unjudged documents to
/// complete, hence no bounds: it is refused here, the one place every front
/// end asks for bounds, rather than left without them silently.
pub fn with_bounds(
    metrics: Vec<Box<dyn Metric>>,
) -> Result<Vec<Box<dyn Metric>>, crate::PluginError> {
    if let Some(metric) = metrics.iter().find(|m| m.is_judged_only()) {
        return Err(crate::PluginError::Invalid {
            kind: crate::PluginKind::Metric,
            plugin: crate::judged_only::JUDGED_ONLY,
            reason: format!(
                "`{}` is scored on judged documents only, so it has no unjudged documents to \
                 complete and no bounds (nor a hole rate to warn of); ask for bounds or for \
                 judged-only scores, not both",
                metric.name()
            ),
        });
    }
    let mut deepest = Some(0_usize);
    let mut out: Vec<Box<dyn Metric>> = Vec::with_capacity(metrics.len() * 3 + 1);
    for metric in metrics {
        let bounds = bounds_of(metric.as_ref());
        if bounds.is_some() {
            deepest = match (deepest, metric.depth()) {
                (Some(d), Some(k)) => Some(d.max(k.get())),
                _ => None,
            };
        }
        out.push(metric);
        for name in bounds.into_iter().flatten() {
            let completed = crate::registry::parse::<dyn Metric>(&name)?;
            if !out.iter().any(|m| m.name() == completed.name()) {
                out.push(completed);
            }
        }
    }
    let holes = match deepest {
        Some(0) => return Ok(out),
        Some(k) => format!("unjudged@{k}"),
        None => "unjudged".to_owned(),
    };
    let holes = crate::registry::parse::<dyn Metric>(&holes)?;
    if !out.iter().any(|m| m.name() == holes.name()) {
        out.push(holes);
    }
    Ok(out)
}

/// Whether `name` is a hole rate, `unjudged` or `unjudged@k` (trec_eval's
/// `unj`): the metric [`HOLE_WARNING`] is about.
pub fn is_hole_rate(name: &str) -> bool {
    name == "unjudged"
        || name
            .strip_prefix("unjudged@")
            .is_some_and(|k| k.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::RelevanceLevel;

    /// A metric that sees what it is handed: the ranking's grades (as
    /// digits, unjudged `-`) and the ideal grades.
    #[derive(Debug, Serialize, Deserialize)]
    struct Seen;

    thread_local! {
        static LAST: RefCell<String> = const { RefCell::new(String::new()) };
    }

    #[typetag::serde(name = "completion_seen")]
    impl Metric for Seen {
        fn name(&self) -> String {
            "seen".to_owned()
        }
        fn score(&self, q: &JudgedRanking<'_>) -> f64 {
            let ranked: Vec<String> = q
                .ranked()
                .iter()
                .map(|j| {
                    if j.is_judged() {
                        j.grade().to_string()
                    } else {
                        "-".to_owned()
                    }
                })
                .collect();
            let ideal: Vec<String> = q.ideal_grades().iter().map(|g| g.to_string()).collect();
            LAST.with(|l| *l.borrow_mut() = format!("{} | {}", ranked.join(" "), ideal.join(" ")));
            0.0
        }
    }

    fn seen(completion: Completion, ranked: &[Judgement], ideal: &[f64]) -> String {
        let q = JudgedRanking::new(ranked, ranked.len(), ideal, RelevanceLevel::DEFAULT);
        Completed::new(Box::new(Seen), completion).score(&q);
        LAST.with(|l| l.borrow().clone())
    }

    const U: Judgement = Judgement::UNJUDGED;
    const fn j(g: f64) -> Judgement {
        Judgement::judged(g)
    }

    #[test]
    fn unjudged_and_negative_documents_join_the_judgements() {
        let ranked = [U, j(1.0), j(-1.0), j(0.0), U];
        let ideal = [2.0, 1.0, 0.0, -1.0, -1.0];
        assert_eq!(
            seen(Completion::Relevant, &ranked, &ideal),
            "2 1 2 0 2 | 2 2 2 2 1 0 -1"
        );
        assert_eq!(
            seen(Completion::Nonrelevant, &ranked, &ideal),
            "0 1 0 0 0 | 2 1 0 0 0 0 -1"
        );
        assert_eq!(
            seen(Completion::Grade(1.5), &ranked, &ideal),
            "1.5 1 1.5 0 1.5 | 2 1.5 1.5 1.5 1 0 -1"
        );
    }

    #[test]
    fn the_top_grade_is_at_least_the_relevance_level() {
        assert_eq!(seen(Completion::Relevant, &[U], &[0.0]), "1 | 1 0");
        assert_eq!(seen(Completion::Relevant, &[U], &[]), "1 | 1");
    }

    #[test]
    fn nothing_unjudged_changes_nothing() {
        let ranked = [j(1.0), j(0.0)];
        let ideal = [1.0, 1.0, 0.0];
        assert_eq!(seen(Completion::Relevant, &ranked, &ideal), "1 0 | 1 1 0");
    }

    #[test]
    fn values_parse_and_print() {
        assert_eq!(Completion::parse("Relevant"), Ok(Completion::Relevant));
        assert_eq!(
            Completion::parse("nonrelevant"),
            Ok(Completion::Nonrelevant)
        );
        assert_eq!(Completion::parse("3"), Ok(Completion::Grade(3.0)));
        assert_eq!(Completion::Grade(3.0).to_string(), "3");
        assert_eq!(Completion::Grade(2.5).to_string(), "2.5");
        assert!(Completion::parse("inf").is_err());
        assert!(Completion::parse("maybe").is_err());
        let named = Completed::new(Box::new(Seen), Completion::Relevant).name();
        assert_eq!(named, "seen(unjudged=relevant)");
        assert_eq!(
            bounds_of(&Seen),
            Some([
                "seen(unjudged=nonrelevant)".to_owned(),
                "seen(unjudged=relevant)".to_owned()
            ])
        );
    }
}
