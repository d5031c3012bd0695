//! The `Metric` trait: one number per judged query.

use std::fmt;

use crate::explain::Explanation;
use crate::judge::JudgedRanking;
use crate::params::Cutoff;
use crate::ties_setting::Ties;

/// One ranking metric, evaluated on one query at a time.
///
/// Implementors must write [`name`](Metric::name) and
/// [`score`](Metric::score); [`depth`](Metric::depth) (default: the whole
/// list) and [`validate`](Metric::validate) (default: accept) have defaults
/// worth overriding. A metric is a plain serde struct with
/// `#[serde(deny_unknown_fields)]`, its `impl Metric` registered with the
/// attribute [`#[rankeval_core::metric(name = "...", ...)]`](macro@crate::metric)
/// (which also writes its typetag name, the same string), so that a TOML
/// table `{ type = "average_precision", k = 10 }` and the short syntax
/// `ap@10` both become it.
///
/// The engine applies "which queries count" and judges each query once; a
/// metric is a pure function of the [`JudgedRanking`], and returns 0 when a
/// denominator is 0.
#[typetag::serde(tag = "type")]
pub trait Metric: Send + Sync + fmt::Debug {
    /// The canonical name: short name, non-default parameters in declaration
    /// order inside `()`, then `@k` (see [`CanonicalName`](crate::CanonicalName)).
    /// It must parse back to an equal metric; reports use it as the key.
    fn name(&self) -> String;

    /// The deepest rank this metric reads; `None` means the whole list. The
    /// engine judges each query down to the deepest rank of all metrics, so
    /// a metric must not read below the depth it declares.
    fn depth(&self) -> Option<Cutoff> {
        None
    }

    /// The metric's value for one query. Never fails; 0 when a denominator
    /// is 0.
    fn score(&self, query: &JudgedRanking<'_>) -> f64;

    /// Checks the parameters together, before any data is read. Default:
    /// accept. Each parameter alone is checked by its type at deserialization.
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }

    /// Whether the metric reads the experiment's relevance level
    /// ([`JudgedRanking::default_level`], set with `--rel` or TOML `rel`):
    /// it judges relevance by a level and sets no `rel` of its own. A metric
    /// that uses grades as gains (nDCG, ERR) or ignores grades returns
    /// `false`, so that a `--rel` no metric reads is a warning rather than a
    /// silent no-op. Default: `true` (no warning).
    fn uses_default_level(&self) -> bool {
        true
    }

    /// The trec_eval measure that computes the same number, if there is one
    /// (with the experiment's relevance level as trec_eval's `-l`, so only
    /// when the metric sets no `rel` of its own). `--format trec` prints
    /// these. Default: none.
    fn trec_eval(&self) -> Option<TrecEvalMeasure> {
        None
    }

    /// How the value for one query comes about: per-rank terms, the
    /// quantities divided by, the formula with the numbers put in
    /// (`rankeval explain` prints it beside the ranked list). Its `value`
    /// must be [`score`](Metric::score)'s, bit for bit. Default: the value
    /// alone, `name = value`.
    fn explain(&self, query: &JudgedRanking<'_>) -> Explanation {
        Explanation::new(self, query)
    }

    /// How this metric treats tied scores, if it says
    /// (`ndcg(ties=average)@10`, a [`Tied`](crate::Tied)); `None`: as the
    /// experiment says (`--ties`, TOML `ties`). Default: `None`.
    fn ties(&self) -> Option<Ties> {
        None
    }

    /// Whether the metric is scored on judged documents only (a
    /// [`JudgedOnly`](crate::JudgedOnly), `judged_only=true`). Default:
    /// `false`.
    fn is_judged_only(&self) -> bool {
        false
    }

    /// Whether the value is additive in the grades: a constant plus one
    /// term per judged document that depends on that document's grade (and
    /// its rank) alone, never on another document's grade. Precision@k,
    /// DCG@k, RBP and the counts of relevant documents are; nDCG, AP,
    /// recall, RR are not (they divide by |R| or an ideal, or stop at the
    /// first relevant document).
    ///
    /// The expected value under label distributions (`rankeval expected`)
    /// of an additive metric is exact from one change of one document's
    /// grade at a time; the others are enumerated or sampled. A test checks
    /// every metric that says `true` on random rankings. Default: `false`.
    fn is_additive(&self) -> bool {
        false
    }

    /// The expected value of [`score`](Metric::score) over every order of
    /// each group of tied scores ([`JudgedRanking::tie_groups`]), computed
    /// exactly: `ties = average`. `None` if the metric has no exact method;
    /// `ties = average` is then refused for it, naming it. A metric must
    /// return `Some` for every ranking or for none (the registry asks it on
    /// an empty ranking). Default: `None`.
    fn score_tie_average(&self, query: &JudgedRanking<'_>) -> Option<f64> {
        let _ = query;
        None
    }

    /// The version of the metric's definition: what a results history
    /// (`--record`, docs/history.md) records beside each value, so that two
    /// records are compared only when their metrics computed the same thing.
    /// A metric's canonical name holds every parameter; this number is
    /// bumped when the code changes what `score` returns for some input
    /// (a fix, a changed convention), and never otherwise. Wrappers
    /// ([`Tied`](crate::Tied), judged-only, completions) give their inner
    /// metric's. Default: 1.
    fn definition_version(&self) -> u32 {
        1
    }

    /// What the metric needs besides the qrels and the run
    /// ([`crate::context`]): subtopic judgements, label propensities, the
    /// documents judged for any query. The experiment refuses to start
    /// when one that must be given is not, naming the metric and the
    /// option that gives it (`rankeval::spec::resolve`, once for every
    /// front end), and builds the rest; the judge hands each query's view
    /// to the metric ([`JudgedRanking::subtopics`],
    /// [`JudgedRanking::documents`]). Wrappers give their inner metric's.
    /// Default: nothing.
    fn requires(&self) -> &'static [crate::Requirement] {
        &[]
    }

    /// The means over every query of the qrels that the metric divides
    /// by, at the experiment's level `default_level`
    /// ([`QrelsMean`](crate::context::QrelsMean): PSP's and PSnDCG's best
    /// achievable value), the ones it computes with
    /// [`PropensityJudgements::mean`](crate::context::PropensityJudgements::mean):
    /// what a caller that sees the qrels a part at a time (Spark's tasks)
    /// sums over every part first. Wrappers give their inner metric's.
    /// Default: none.
    fn qrels_means(
        &self,
        default_level: crate::RelevanceLevel,
    ) -> Vec<crate::context::QrelsMean<'_>> {
        let _ = default_level;
        Vec::new()
    }

    /// Whether the metric reads the query's subtopic judgements
    /// ([`JudgedRanking::subtopics`]: alpha-nDCG, ERR-IA, ...): whether
    /// [`requires`](Metric::requires) names
    /// [`Requirement::Subtopics`](crate::Requirement::Subtopics).
    fn reads_subtopics(&self) -> bool {
        self.requires().contains(&crate::Requirement::Subtopics)
    }

    /// Whether the metric reads the documents' groups
    /// ([`JudgedRanking::groups`]: group exposure, AWRF): whether
    /// [`requires`](Metric::requires) names
    /// [`Requirement::DocumentGroups`](crate::Requirement::DocumentGroups).
    fn reads_groups(&self) -> bool {
        self.requires()
            .contains(&crate::Requirement::DocumentGroups)
    }

    /// The metric's value over several sampled rankings of one query (a
    /// stochastic ranking, `--samples`). Default: the mean of
    /// [`score`](Metric::score) over the samples, the metric's expected
    /// value under the ranking policy (as Diaz et al., CIKM 2020, report
    /// expected nDCG). A metric of the samples together (expected
    /// exposure: a document's exposure summed over the samples) overrides
    /// it and says so in [`joint_over_samples`](Metric::joint_over_samples);
    /// its `score` must then equal `score_samples` of one sample.
    fn score_samples(&self, samples: &crate::Samples<'_>) -> f64 {
        samples.mean(|ranking| self.score(ranking))
    }

    /// How [`score_samples`](Metric::score_samples) got its value over a
    /// query's sampled rankings (`rankeval explain --samples`): its
    /// `value` must be `score_samples`'s, bit for bit; its per-rank
    /// columns are per document, in the order of
    /// [`Samples::docs`](crate::Samples::docs)' numbers. Default: each
    /// sample's [`score`](Metric::score) and their mean
    /// ([`Explanation::of_sample_mean`]); a metric of the samples together
    /// overrides it with its own terms.
    fn explain_samples(&self, samples: &crate::Samples<'_>) -> Explanation {
        Explanation::of_sample_mean(self, samples)
    }

    /// Whether [`score_samples`](Metric::score_samples) is not the mean of
    /// `score` over the samples (expected exposure). Such a metric reads
    /// each sample whole: `judged_only` and `unjudged` do not apply to it.
    /// Default: `false`.
    fn joint_over_samples(&self) -> bool {
        false
    }

    /// Whether the metric reads the groups of tied scores
    /// ([`JudgedRanking::tie_groups`]) as part of its definition, whatever
    /// the experiment's `ties` (scikit-learn's rules, where documents of
    /// one score enter together): the judge then finds the groups, as it
    /// does for `ties = average`. Default: `false`.
    fn reads_tie_groups(&self) -> bool {
        false
    }
}

/// A metric's name in trec_eval's output, and how trec_eval's `all` line
/// summarizes it over queries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrecEvalMeasure {
    /// The measure as trec_eval prints it, e.g. `P_10`, `map_cut_100`, `ndcg`.
    pub name: String,
    /// How the `all` line is computed.
    pub all: TrecAll,
}

impl TrecEvalMeasure {
    /// A measure whose `all` line is the mean over queries.
    pub fn mean(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            all: TrecAll::Mean,
        }
    }

    /// A count whose `all` line is the sum over queries, printed as an integer.
    pub fn sum(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            all: TrecAll::Sum,
        }
    }
}

/// How trec_eval's `all` line summarizes a measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrecAll {
    /// The arithmetic mean over queries (most measures).
    Mean,
    /// The sum over queries, printed as an integer (`num_ret`, `num_rel`, ...).
    Sum,
}

/// Metrics are equal when their canonical names are.
impl PartialEq for dyn Metric {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}
