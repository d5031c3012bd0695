//! Off-policy evaluation of rankings from impression logs (docs/ope.md):
//! a log read by `rankeval_readers::impressions`, target policies (a run's
//! rankings, deterministic; a Plackett-Luce policy over a run's scores; the
//! log's own target-probability column), and the estimators of
//! `rankeval-ope`, into an [`OpeReport`]: each policy's estimates with
//! their intervals, diagnostics and refusals, and each candidate compared
//! with the first policy paired by impression.
//!
//! A deterministic ranking shows, for a context, the top `L` items of the
//! run's list for that context (the run's query id is the log's context
//! id): its probability of the logged item (action), of the logged slate
//! (slate), of each logged item at its position (marginal) or of each
//! logged item given the logged items above (cascade) is 1 where they
//! agree and 0 elsewhere. A context the run has no list for, or a list
//! shorter than the log's slates, is an error, as is an item the target
//! shows that the log never shows in that context (no log can estimate
//! it) unless [`OpePlan::allow_unlogged`].

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rankeval_stats::keyed::spark_xxhash64;
use rankeval_stats::rng::fast_chunk_rng;
use rayon::prelude::*;

use rankeval_core::{Run, shorten_id};
use rankeval_stats::{Correction, GateOutcome, Versus};

use crate::compare::GateSpec;
use rankeval_ope::{
    Contribution, Estimate, Floors, IntervalKind, OpeError, Options, PairedDifference,
    PlackettLuce, Resampling, State, bandit, linearised, paired_difference, slate,
};
use serde::Serialize;

use crate::read::impressions::{PropensityForm, Ragged, RewardPer};

/// The estimators, their states, estimates and options (`rankeval-ope`).
pub use rankeval_ope as estimators;

pub mod click;
mod group_gates;
pub mod merged;

/// The log as read (`rankeval_readers::impressions`), for a program that
/// builds one itself.
pub use crate::read::RowAt;
pub use crate::read::impressions::{Impression, ImpressionLog, ImpressionRef, Impressions};

/// The most ordered prefixes a Plackett-Luce marginal enumerates per
/// position: 10^6.
pub const MARGINAL_LIMIT: usize = 1_000_000;

/// The Plackett-Luce marginals' seeded Monte Carlo (`--samples N`, with
/// the seed): instead of the exact enumeration, each impression's
/// marginals are estimated from `samples` orderings drawn from the model
/// ([`PlackettLuce::sampled_marginals`]), with the generator
/// [`SAMPLING_RNG_NAME`]: ChaCha8 seeded with `seed`, its stream the Spark
/// xxhash64 of the impression id. The draws of an impression depend on
/// the seed and its id alone, so the estimates are the same bits for any
/// thread count, any order of the log and any partitioning (a Spark job's
/// too); every policy sees the same draws of an impression (common random
/// numbers, which the paired comparisons like).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MarginalSampling {
    /// The orderings drawn per impression and policy (at least 1).
    pub samples: u64,
    /// The seed.
    pub seed: u64,
}

/// The most orderings the Plackett-Luce Monte Carlo draws per impression
/// and policy: 10^7 (its error is then below 0.5 / sqrt(10^7) = 0.00016
/// per marginal; more would only let a typo run for days).
pub const MAX_SAMPLES: u64 = 10_000_000;

/// The Plackett-Luce Monte Carlo's generator, as reports print it.
pub const SAMPLING_RNG_NAME: &str =
    "ChaCha8 (rand_chacha 0.10, seed_from_u64(seed), stream = Spark xxhash64 of the impression id)";

/// What a report says of the Plackett-Luce Monte Carlo it used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SamplingReport {
    /// Orderings drawn per impression and policy.
    pub samples: u64,
    /// The seed.
    pub seed: u64,
    /// The generator ([`SAMPLING_RNG_NAME`]).
    pub generator: &'static str,
}

/// An estimator `rankeval ope` runs, by its name in the short syntax.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OpeEstimator {
    /// A single-item estimator.
    Bandit(bandit::Estimator),
    /// A slate estimator.
    Slate(slate::Estimator),
    /// An IPS-weighted rank metric of a click log ([`click`]).
    Click(rankeval_ope::click::ClickIps),
}

impl OpeEstimator {
    /// The estimator named `text`: `ips`, `snips`, `clipped_ips(max_weight=M)`,
    /// `dm`, `dr`, `sndr`, `switch_dr(tau=T)`, `dr_os(lambda=L)`,
    /// `slate_ips`, `iips`, `rips`, `cascade_dr`, `pi`, `snpi`; for click
    /// logs `ips_dcg@K`, `ips_dcg`, `ips_rbp(p=P)`, `ips_p@K` ([`click::parse`]).
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if let Some(click) = click::parse(text) {
            return click.map(Self::Click);
        }
        let (name, parameter) = match text.split_once('(') {
            Some((name, rest)) => {
                let inner = rest
                    .strip_suffix(')')
                    .ok_or_else(|| format!("`{text}`: expected `)` at the end"))?;
                let (key, value) = inner
                    .split_once('=')
                    .ok_or_else(|| format!("`{text}`: expected `name=value` in the parentheses"))?;
                let value: f64 = value
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{text}`: `{}` is not a number", value.trim()))?;
                (name.trim(), Some((key.trim(), value)))
            }
            None => (text, None),
        };
        let wants = |key: &str| -> Result<f64, String> {
            match parameter {
                Some((k, v)) if k == key => Ok(v),
                Some((k, _)) => Err(format!("`{text}`: {name} takes `{key}`, not `{k}`")),
                None => Err(format!("`{text}`: {name} needs `{name}({key}=...)`")),
            }
        };
        let plain = |e: OpeEstimator| -> Result<OpeEstimator, String> {
            match parameter {
                None => Ok(e),
                Some(_) => Err(format!("`{text}`: {name} takes no parameter")),
            }
        };
        use bandit::Estimator as B;
        use slate::Estimator as S;
        let e = match name {
            "ips" => plain(Self::Bandit(B::Ips))?,
            "snips" => plain(Self::Bandit(B::Snips))?,
            "dm" => plain(Self::Bandit(B::Dm))?,
            "dr" => plain(Self::Bandit(B::Dr))?,
            "sndr" => plain(Self::Bandit(B::Sndr))?,
            "clipped_ips" => Self::Bandit(B::ClippedIps {
                max_weight: wants("max_weight")?,
            }),
            "switch_dr" => Self::Bandit(B::SwitchDr { tau: wants("tau")? }),
            "dr_os" => Self::Bandit(B::DrOs {
                lambda: wants("lambda")?,
            }),
            "slate_ips" => plain(Self::Slate(S::SlateIps))?,
            "iips" => plain(Self::Slate(S::IndependentIps))?,
            "rips" => plain(Self::Slate(S::RewardInteractionIps))?,
            "cascade_dr" => plain(Self::Slate(S::CascadeDr))?,
            "pi" => plain(Self::Slate(S::PseudoInverse))?,
            "snpi" => plain(Self::Slate(S::SelfNormalizedPseudoInverse))?,
            _ => {
                return Err(format!(
                    "unknown estimator `{}` (known: ips, snips, clipped_ips(max_weight=M), dm, dr, \
                     sndr, switch_dr(tau=T), dr_os(lambda=L), slate_ips, iips, rips, cascade_dr, pi, snpi; \
                     for click logs ips_dcg@K, ips_rbp(p=P), ips_p@K)",
                    shorten_id(name.as_bytes())
                ));
            }
        };
        if let Self::Bandit(b) = e {
            b.validate().map_err(|err| err.to_string())?;
        }
        Ok(e)
    }

    /// The estimator's name as reports print it.
    pub fn name(&self) -> String {
        match self {
            Self::Bandit(b) => b.name(),
            Self::Slate(s) => s.name().to_owned(),
            Self::Click(c) => c.name(),
        }
    }

    /// Whether it reads a reward model.
    pub fn needs_model(&self) -> bool {
        match self {
            Self::Bandit(b) => b.needs_model(),
            Self::Slate(s) => *s == slate::Estimator::CascadeDr,
            Self::Click(_) => false,
        }
    }

    /// Why the estimator cannot read a log of this form (none: it can).
    fn unfit(&self, form: PropensityForm, slate_len: usize, reward: RewardPer) -> Option<String> {
        use slate::Estimator as S;
        if let Self::Click(_) = self {
            return match (form, reward) {
                (PropensityForm::Examination, RewardPer::Position) => None,
                (PropensityForm::Examination, RewardPer::Impression) => Some(format!(
                    "{} needs a click per position; the log has one reward per impression",
                    self.name()
                )),
                _ => Some(format!(
                    "{} needs a click log (examination propensities per position); the log's \
                     propensities are of the form `{}`",
                    self.name(),
                    form.name()
                )),
            };
        }
        let per_position = matches!(
            self,
            Self::Slate(S::IndependentIps | S::RewardInteractionIps | S::CascadeDr)
        );
        if per_position && reward == RewardPer::Impression && slate_len > 1 {
            return Some(format!(
                "{} needs a reward per position; the log has one per impression",
                self.name()
            ));
        }
        let ok = match self {
            Self::Bandit(_) => form == PropensityForm::Action && slate_len == 1,
            Self::Slate(S::SlateIps) => matches!(
                form,
                PropensityForm::Slate | PropensityForm::Cascade | PropensityForm::Action
            ),
            Self::Slate(S::IndependentIps | S::PseudoInverse | S::SelfNormalizedPseudoInverse) => {
                matches!(form, PropensityForm::Marginal | PropensityForm::Action)
            }
            Self::Slate(S::RewardInteractionIps | S::CascadeDr) => {
                matches!(form, PropensityForm::Cascade | PropensityForm::Action)
            }
            Self::Click(_) => false,
        };
        (!ok).then(|| {
            let needs = match self {
                Self::Bandit(_) => "one item per impression with its propensity (form `action`)",
                Self::Slate(S::SlateIps) => "the slates' or the cascade's propensities",
                Self::Click(_) => "a click log",
                Self::Slate(
                    S::IndependentIps | S::PseudoInverse | S::SelfNormalizedPseudoInverse,
                ) => "per-position marginal propensities",
                Self::Slate(_) => "per-position cascade propensities",
            };
            format!(
                "{} needs {needs}; the log's propensities are of the form `{}`",
                self.name(),
                form.name()
            )
        })
    }
}

/// How a target policy chooses.
#[derive(Clone, Debug)]
pub enum TargetPolicy {
    /// The run's ranking for each context, deterministic.
    Ranking(Run),
    /// The Plackett-Luce policy over the run's scores at a temperature.
    PlackettLuce {
        /// The run.
        run: Run,
        /// The temperature, positive.
        temperature: f64,
    },
    /// The log's own target-probability column.
    LogColumn,
}

/// A named target policy.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The policy's name.
    pub name: String,
    /// How it chooses.
    pub policy: TargetPolicy,
}

/// A reward model's predictions, given as a run: the query is the
/// context, the document the item, the score the predicted reward
/// `q̂(x, a)` (the same at every position). rankeval trains no model.
#[derive(Clone, Debug, Default)]
pub struct RewardModel {
    /// Per context, per item: the prediction (looked up by the bytes of
    /// both, without making a key).
    predictions: HashMap<Vec<u8>, HashMap<Vec<u8>, f64>>,
}

impl RewardModel {
    /// The predictions of `run`, read from `path` (a list without scores
    /// predicts nothing). A prediction that is not finite (a run's reader
    /// accepts an infinite score, which ranks) is an error naming the
    /// model's file, context and item: an infinite predicted reward would
    /// make every estimate built on it infinite or NaN.
    pub fn from_run(run: &Run, path: &std::path::Path) -> Result<Self, OpeRunError> {
        let mut predictions: HashMap<Vec<u8>, HashMap<Vec<u8>, f64>> = HashMap::new();
        for q in 0..run.num_queries() as u32 {
            let list = run.list_at(q);
            let context = run.query_bytes(q).to_vec();
            for i in 0..list.len() {
                if let Some(score) = list.score(i) {
                    if !score.is_finite() {
                        return Err(OpeRunError::Unfit(format!(
                            "{}: the reward model predicts {score} for item `{}` in context `{}`: \
                             a predicted reward is a finite number",
                            path.display(),
                            shorten_id(list.doc(i)),
                            shorten_id(&context)
                        )));
                    }
                    predictions
                        .entry(context.clone())
                        .or_default()
                        .insert(list.doc(i).to_vec(), score);
                }
            }
        }
        Ok(Self { predictions })
    }

    /// `q̂(context, item)`.
    pub fn predict(&self, context: &[u8], item: &[u8]) -> Option<f64> {
        self.predictions.get(context)?.get(item).copied()
    }
}

/// What to estimate and how.
#[derive(Clone, Debug)]
pub struct OpePlan {
    /// The estimators, in the report's order.
    pub estimators: Vec<OpeEstimator>,
    /// The interval, its level and the refusal floors.
    pub options: Options,
    /// Estimate a deterministic target that shows items the log never
    /// shows in a context (their weights are 0: the support diagnostic
    /// says how much is missing).
    pub allow_unlogged: bool,
    /// Report refused estimates' values (with their refusals) instead of
    /// withholding them.
    pub allow_low_support: bool,
    /// The reward model, for DM, the doubly robust family and Cascade-DR.
    pub model: Option<RewardModel>,
    /// The Plackett-Luce marginals by seeded Monte Carlo instead of exact
    /// enumeration ([`MarginalSampling`]); `None`: exact, and an error
    /// beyond [`MARGINAL_LIMIT`] orderings.
    pub sampling: Option<MarginalSampling>,
    /// Gates on the estimates (`ESTIMATOR:RULE`, the metric part an
    /// estimator's name, `run=` a policy), decided on each policy's
    /// estimate (`at_least`) or its paired difference with the first
    /// policy (`non_inferior`, `superior`).
    pub gates: Vec<GateSpec>,
    /// With [`IntervalKind::Bootstrap`]: the resamples and the seed of the
    /// percentile bootstrap of the impressions (`rankeval_ope::bootstrap`),
    /// for every estimate and paired difference.
    pub resampling: Option<Resampling>,
    /// The multiple-testing correction of the paired comparisons' p-values,
    /// over each estimator's comparisons (the candidates against the
    /// first policy); `superior` gates read the corrected p-value.
    pub correction: Option<Correction>,
}

/// A gate decided on one policy.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpeGateResult {
    /// The gate as given.
    pub gate: String,
    /// The policy it was decided on.
    pub policy: String,
    /// The outcome; `None` when it cannot be decided.
    pub outcome: Option<GateOutcome>,
    /// Why it cannot be decided (a refused estimate).
    pub undecided: Option<String>,
}

/// What the report says of the log.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LogSummary {
    /// The log's name (its path).
    pub name: String,
    /// Impressions.
    pub impressions: u64,
    /// Items per impression.
    pub slate_len: usize,
    /// The propensities' form.
    pub form: &'static str,
    /// `impression` or `position`.
    pub reward: &'static str,
}

/// One policy's estimates.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PolicyEstimates {
    /// The policy's name.
    pub name: String,
    /// One estimate per estimator, in the plan's order.
    pub estimates: Vec<Estimate>,
}

/// A candidate compared with the first policy under one estimator, paired
/// by impression.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpeComparison {
    /// The candidate.
    pub candidate: String,
    /// The baseline (the first policy).
    pub baseline: String,
    /// The estimator.
    pub estimator: String,
    /// The difference and its uncertainty.
    pub paired: PairedDifference,
    /// Whether either estimate is refused.
    pub refused: bool,
    /// The p-value corrected over the family (this estimator's
    /// comparisons), with [`OpePlan::correction`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corrected_p_value: Option<f64>,
}

/// The report of `rankeval ope`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpeReport {
    /// The log.
    pub log: LogSummary,
    /// The interval's kind.
    pub interval: IntervalKind,
    /// The interval's level.
    pub level: f64,
    /// The refusal floors.
    pub floors: Floors,
    /// Each policy's estimates, in the order given.
    pub policies: Vec<PolicyEstimates>,
    /// Each later policy against the first, per estimator.
    pub comparisons: Vec<OpeComparison>,
    /// Whether refused estimates' values are reported (else withheld).
    pub allow_low_support: bool,
    /// The gates, one result per gate and policy.
    pub gates: Vec<OpeGateResult>,
    /// The Plackett-Luce Monte Carlo, when a policy's marginals used it
    /// (its samples, seed and generator: the run can be repeated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingReport>,
    /// The bootstrap's resamples, seed and generator, when the intervals
    /// are a bootstrap's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resampling: Option<ResamplingUsed>,
    /// The correction of the comparisons' p-values, by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub correction: Option<&'static str>,
    /// Whether the correction's family of an estimator holds every
    /// group's comparisons too (`--groups-in-family`), not only the
    /// report's own.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub groups_in_family: bool,
    /// Each group of contexts' report (`--groups`), column by column, the
    /// groups of a column in order (by number when every value is one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<OpeGroup>,
    /// What the report leaves out, said: contexts of the log in no group
    /// of a column.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The fingerprint of the normalised log, when the request records
    /// ([`crate::ope_record::log_fingerprint`]; not printed).
    #[serde(skip)]
    pub log_fingerprint: Option<String>,
}

/// One group of contexts (a slice, `--groups`): the report of the
/// impressions whose context is in it, with its own floors' refusals and
/// comparisons; the gates are decided on the whole log only.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpeGroup {
    /// The groups file's column.
    pub column: String,
    /// The group's value in that column.
    pub value: String,
    /// The report of the group's impressions.
    pub report: OpeReport,
}

/// The bootstrap as a report names it, so that it can be repeated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResamplingUsed {
    /// Resamples.
    pub resamples: u64,
    /// The generator's seed.
    pub seed: u64,
    /// The generator (`rankeval_stats::RNG_NAME`).
    pub generator: &'static str,
}

impl OpeReport {
    /// Whether a gate failed.
    pub fn any_gate_failed(&self) -> bool {
        self.gates
            .iter()
            .any(|g| g.outcome.is_some_and(|o| !o.passed))
    }

    /// Whether a gate cannot be decided.
    pub fn any_gate_undecided(&self) -> bool {
        self.gates.iter().any(|g| g.outcome.is_none())
    }

    /// Whether any estimate is refused.
    pub fn any_refused(&self) -> bool {
        self.policies
            .iter()
            .any(|p| p.estimates.iter().any(Estimate::is_refused))
    }
}

/// Why `rankeval ope` cannot estimate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpeRunError {
    /// An estimator that does not fit the log, or needs what is not given.
    #[error("{0}")]
    Unfit(String),
    /// A context of the log that a run ranks nothing for.
    #[error(
        "{log}, {at}: policy `{policy}` has no ranking for context `{context}` (its run has no list with that query id)"
    )]
    NoRanking {
        /// The log.
        log: String,
        /// Where the impression was read.
        at: String,
        /// The policy.
        policy: String,
        /// The context.
        context: String,
    },
    /// A run's list shorter than the log's slates.
    #[error(
        "{log}, {at}: policy `{policy}` ranks {len} items for context `{context}`, fewer than the log's slates of {slate_len}"
    )]
    ShortRanking {
        /// The log.
        log: String,
        /// Where the impression was read.
        at: String,
        /// The policy.
        policy: String,
        /// The context.
        context: String,
        /// The list's length.
        len: usize,
        /// The slates' length.
        slate_len: usize,
    },
    /// An item a deterministic target shows that the log never shows in
    /// that context.
    #[error(
        "policy `{policy}` shows `{item}` at position {position} for context `{context}`, an item the log never shows for that context: no log can estimate it"
    )]
    NeverLogged {
        /// The policy.
        policy: String,
        /// The context.
        context: String,
        /// The item.
        item: String,
        /// Its position in the target's slate.
        position: usize,
    },
    /// A prediction the reward model does not have.
    #[error(
        "{log}, {at}: the reward model has no prediction for item `{item}` in context `{context}`"
    )]
    NoPrediction {
        /// The log.
        log: String,
        /// Where the impression was read.
        at: String,
        /// The context.
        context: String,
        /// The item.
        item: String,
    },
    /// A policy given only as the log's target probabilities, with an
    /// estimator that needs the target's whole distribution.
    #[error(
        "policy `{policy}`: {estimator} needs the target's probability of every item, and the log's target column gives only the logged items'"
    )]
    NoTargetDistribution {
        /// The policy.
        policy: String,
        /// The estimator.
        estimator: String,
    },
    /// A log without the target-probability column a policy reads.
    #[error("policy `{0}` reads the log's target probabilities, and the log has none")]
    NoTargetColumn(String),
    /// The log cannot be read.
    #[error("{0}")]
    Log(Box<crate::read::impressions::ImpressionError>),
    /// A policy's run or the reward model cannot be read.
    #[error("{0}")]
    Read(Box<crate::read::ReadError>),
    /// An estimator's error (an impression it cannot use).
    #[error("{log}{at}: policy `{policy}`, {estimator}: {source}")]
    Estimator {
        /// The log.
        log: String,
        /// `, line N` (or row) of the impression, when about one.
        at: String,
        /// The policy.
        policy: String,
        /// The estimator.
        estimator: String,
        /// The error.
        source: Box<OpeError>,
    },
    /// The results history of `--record` cannot hold the records: found
    /// before anything is estimated.
    #[error("{0}")]
    History(Box<rankeval_history::HistoryError>),
}

/// The report of `candidates` estimated on `log` (named `log_name` in
/// messages) under `plan`.
pub fn ope_report(
    log: &ImpressionLog,
    log_name: &str,
    candidates: &[Candidate],
    plan: &OpePlan,
) -> Result<OpeReport, OpeRunError> {
    check_plan(log, candidates, plan)?;
    let logged = logged_items(log);
    let mut policies = Vec::new();
    let mut linear: Vec<Vec<Vec<f64>>> = Vec::new();
    let mut resampled_sets: Vec<Vec<(State, Vec<Contribution>)>> = Vec::new();
    for candidate in candidates {
        let inputs = policy_inputs(log, log_name, candidate, plan, &logged)?;
        let mut estimates = Vec::new();
        let mut columns = Vec::new();
        let mut kept = Vec::new();
        for e in &plan.estimators {
            let fail = estimator_error(log, log_name, candidate, e);
            let (state, contributions) = contributions(log, &inputs, e).map_err(&fail)?;
            estimates.push(state.estimate(&plan.options).map_err(|e| fail((None, e)))?);
            columns.push(linearised(state.form(), &contributions));
            if plan.resampling.is_some() {
                kept.push((state, contributions));
            }
        }
        policies.push(PolicyEstimates {
            name: candidate.name.clone(),
            estimates,
        });
        linear.push(columns);
        resampled_sets.push(kept);
    }
    report_of(
        log,
        log_name,
        candidates,
        plan,
        policies,
        &linear,
        &resampled_sets,
    )
}

/// Each candidate's state under each estimator (in the plan's order) over
/// `log`: what [`ope_report`] finishes into estimates, before finishing.
/// For a log read in parts (a Spark job's partitions, each part whole
/// impressions): the parts' states merge ([`State::merge`], or across
/// machines as bytes, [`rankeval_ope::wire`]) into the whole log's to the
/// bit, and [`estimates_of`] finishes them into the estimates
/// [`ope_report`] gives on the whole log. The check that a ranking shows
/// only items the log shows in a context needs the whole log: a part
/// cannot make it, so a plan over a part must allow unlogged items
/// ([`OpePlan::allow_unlogged`]) when a candidate is a ranking (else an
/// error); the supported share still says what is missing.
pub fn ope_states(
    log: &ImpressionLog,
    log_name: &str,
    candidates: &[Candidate],
    plan: &OpePlan,
) -> Result<Vec<Vec<State>>, OpeRunError> {
    merged::check_part(log, candidates, plan)?;
    let logged = HashSet::new();
    let mut out = Vec::with_capacity(candidates.len());
    for candidate in candidates {
        let inputs = policy_inputs(log, log_name, candidate, plan, &logged)?;
        let mut states = Vec::with_capacity(plan.estimators.len());
        for e in &plan.estimators {
            let fail = estimator_error(log, log_name, candidate, e);
            let (state, _) = contributions(log, &inputs, e).map_err(&fail)?;
            states.push(state);
        }
        out.push(states);
    }
    Ok(out)
}

/// The estimates of merged states ([`ope_states`]'s, one row per
/// candidate named in `names`, one state per estimator), finished under
/// `options`: the same estimates [`ope_report`] gives on the whole log
/// with a normal or t interval. Merged states keep no impressions to
/// resample: under [`IntervalKind::Bootstrap`] the intervals are the
/// normal ones (as [`State::estimate`] gives them), so a caller offers
/// normal and t only (Spark's `spark_ope_report` does).
pub fn estimates_of(
    names: &[String],
    states: &[Vec<State>],
    options: &Options,
) -> Result<Vec<PolicyEstimates>, OpeError> {
    names
        .iter()
        .zip(states)
        .map(|(name, row)| {
            Ok(PolicyEstimates {
                name: name.clone(),
                estimates: row
                    .iter()
                    .map(|s| s.estimate(options))
                    .collect::<Result<_, _>>()?,
            })
        })
        .collect()
}

/// The error of `estimator` on `candidate`'s impression (when about one).
fn estimator_error<'a>(
    log: &'a ImpressionLog,
    log_name: &'a str,
    candidate: &'a Candidate,
    estimator: &'a OpeEstimator,
) -> impl Fn((Option<usize>, OpeError)) -> OpeRunError + 'a {
    move |(index, source)| OpeRunError::Estimator {
        log: log_name.to_owned(),
        at: index
            .and_then(|i| log.impressions.get(i))
            .map(|imp| format!(", {}", imp.at))
            .unwrap_or_default(),
        policy: candidate.name.clone(),
        estimator: estimator.name(),
        source: Box::new(source),
    }
}

/// The plan fits the log and the candidates: each estimator the log's
/// form, a model where one is needed, each gate an estimator and policy.
fn check_plan(
    log: &ImpressionLog,
    candidates: &[Candidate],
    plan: &OpePlan,
) -> Result<(), OpeRunError> {
    if let Some(m) = plan.sampling
        && !(1..=MAX_SAMPLES).contains(&m.samples)
    {
        return Err(OpeRunError::Unfit(format!(
            "the Plackett-Luce Monte Carlo draws 1 to {MAX_SAMPLES} orderings per impression, not {}",
            m.samples
        )));
    }
    for e in &plan.estimators {
        if let Some(why) = e.unfit(log.form, log.slate_len, log.reward) {
            return Err(OpeRunError::Unfit(why));
        }
        if e.needs_model() && plan.model.is_none() {
            return Err(OpeRunError::Unfit(format!(
                "{} needs a reward model's predictions (a run whose scores are the predicted rewards)",
                e.name()
            )));
        }
    }
    check_gates(|name| candidates.iter().any(|c| c.name == name), plan)
}

/// Each gate of `plan` names one of its estimators and, with `run=`, a
/// policy (`has_policy`); a gate on a group is left to `run_request`.
/// The front ends' requests are checked by the spec already
/// (`spec::resolve_ope`, with [`gate_misfit`]'s words): this guards a
/// plan built by a program.
fn check_gates(has_policy: impl Fn(&str) -> bool, plan: &OpePlan) -> Result<(), OpeRunError> {
    for spec in &plan.gates {
        if let Some(why) = gate_misfit(spec, &plan.estimators, &has_policy) {
            return Err(OpeRunError::Unfit(format!("gate `{spec}`: {why}")));
        }
        if spec.group.is_some() {
            // `run_request` decides them on the groups' reports.
            return Err(OpeRunError::Unfit(format!(
                "gate `{spec}`: a gate on a group is decided on the report of that group of \
                 contexts, which needs the groups (--groups FILE, TOML `groups`)"
            )));
        }
    }
    Ok(())
}

/// Why the gate `spec` cannot be decided on a report of `estimators` and
/// the policies `has_policy` knows: its estimator is not among them, or
/// its `run=` names no policy. The one rule and its words, for the spec
/// (`spec::resolve_ope`, every front end, Spark's driver too) and for a
/// plan built by a program ([`ope_report`]). A gate deciding nothing
/// would otherwise be dropped from the report in silence.
pub fn gate_misfit(
    spec: &GateSpec,
    estimators: &[OpeEstimator],
    has_policy: impl Fn(&str) -> bool,
) -> Option<String> {
    if !estimators.iter().any(|e| e.name() == spec.metric) {
        let names: Vec<String> = estimators.iter().map(OpeEstimator::name).collect();
        return Some(format!(
            "{} is not among the estimators ({}): add it to them",
            spec.metric,
            names.join(", ")
        ));
    }
    if let Some(run) = &spec.run
        && !has_policy(run)
    {
        return Some(format!(
            "no policy `{}` to decide it on",
            shorten_id(run.as_bytes())
        ));
    }
    None
}

/// What the estimators read of one candidate, per impression.
struct PolicyInputs {
    /// The target's probabilities, in the log's form, a row per
    /// impression (empty rows for a click log).
    targets: Ragged<f64>,
    /// The reward model's predictions, when an estimator needs them.
    predictions: Option<Predicted>,
    /// A click log's impressions as the target ranking sees them.
    ranked: Option<click::Ranked>,
}

/// One candidate's target probabilities of each impression (for a click
/// log, the target's ranks of the shown items) and, when an estimator
/// needs them, the reward model's predictions.
fn policy_inputs(
    log: &ImpressionLog,
    log_name: &str,
    candidate: &Candidate,
    plan: &OpePlan,
    logged: &HashSet<(u32, u32)>,
) -> Result<PolicyInputs, OpeRunError> {
    if log.form == PropensityForm::Examination {
        return Ok(PolicyInputs {
            targets: {
                let mut empty = Ragged::new();
                for _ in 0..log.impressions.len() {
                    empty.push(&[]);
                }
                empty
            },
            predictions: None,
            ranked: Some(click::ranked(log, log_name, candidate)?),
        });
    }
    let targets = target_probabilities(log, log_name, candidate, plan, logged)?;
    let needs_model = plan.estimators.iter().any(OpeEstimator::needs_model);
    let predictions = match (&plan.model, needs_model) {
        (Some(model), true) => {
            if matches!(candidate.policy, TargetPolicy::LogColumn) {
                let estimator = plan
                    .estimators
                    .iter()
                    .find(|e| e.needs_model())
                    .map(OpeEstimator::name)
                    .unwrap_or_default();
                return Err(OpeRunError::NoTargetDistribution {
                    policy: candidate.name.clone(),
                    estimator,
                });
            }
            Some(predictions(log, log_name, candidate, model)?)
        }
        _ => None,
    };
    Ok(PolicyInputs {
        targets,
        predictions,
        ranked: None,
    })
}

/// The report of the policies' estimates and their per-impression
/// linearised contributions: the paired comparisons and the gates.
fn report_of(
    log: &ImpressionLog,
    log_name: &str,
    candidates: &[Candidate],
    plan: &OpePlan,
    mut policies: Vec<PolicyEstimates>,
    linear: &[Vec<Vec<f64>>],
    resampled_sets: &[Vec<(State, Vec<Contribution>)>],
) -> Result<OpeReport, OpeRunError> {
    let resampled = match plan.resampling {
        Some(resampling) => {
            let sets: Vec<(&State, &[Contribution])> = resampled_sets
                .iter()
                .flatten()
                .map(|(state, c)| (state, c.as_slice()))
                .collect();
            let values =
                rankeval_ope::bootstrap::resampled_values(&sets, resampling).map_err(|source| {
                    OpeRunError::Estimator {
                        log: log_name.to_owned(),
                        at: String::new(),
                        policy: String::new(),
                        estimator: "bootstrap".into(),
                        source: Box::new(source),
                    }
                })?;
            let per_policy = plan.estimators.len();
            for (p, policy) in policies.iter_mut().enumerate() {
                for (k, e) in policy.estimates.iter_mut().enumerate() {
                    if let Some(v) = values.get(p * per_policy + k) {
                        e.interval =
                            rankeval_ope::bootstrap::percentile_interval(v, plan.options.level);
                    }
                }
            }
            Some((values, per_policy))
        }
        None => None,
    };
    let mut comparisons = Vec::new();
    if let (Some(base), Some(base_columns)) = (policies.first(), linear.first()) {
        for (index, (policy, columns)) in policies.iter().zip(linear).enumerate().skip(1) {
            for (k, e) in plan.estimators.iter().enumerate() {
                let (a, b) = (&policy.estimates[k], &base.estimates[k]);
                let paired = paired_difference(
                    &columns[k],
                    &base_columns[k],
                    a.value,
                    b.value,
                    &plan.options,
                )
                .map_err(|source| OpeRunError::Estimator {
                    log: log_name.to_owned(),
                    at: String::new(),
                    policy: policy.name.clone(),
                    estimator: e.name(),
                    source: Box::new(source),
                })?;
                let mut paired = paired;
                if let Some((values, per_policy)) = &resampled
                    && let (Some(a), Some(b)) = (values.get(index * per_policy + k), values.get(k))
                {
                    let (interval, p_value) = rankeval_ope::bootstrap::paired_interval(
                        a,
                        b,
                        paired.difference,
                        plan.options.level,
                    );
                    paired.interval = interval;
                    paired.p_value = p_value;
                }
                comparisons.push(OpeComparison {
                    candidate: policy.name.clone(),
                    baseline: base.name.clone(),
                    estimator: e.name(),
                    paired,
                    refused: a.is_refused() || b.is_refused(),
                    corrected_p_value: None,
                });
            }
        }
    }
    if let Some(correction) = plan.correction {
        correct_comparisons(&mut comparisons, &plan.estimators, correction);
    }
    let gates = decide_gates(&plan.gates, plan, &policies, &comparisons);
    Ok(OpeReport {
        gates,
        log: LogSummary {
            name: log_name.to_owned(),
            impressions: log.impressions.len() as u64,
            slate_len: log.slate_len,
            form: log.form.name(),
            reward: match log.reward {
                RewardPer::Impression => "impression",
                RewardPer::Position => "position",
            },
        },
        interval: plan.options.interval,
        level: plan.options.level,
        floors: plan.options.floors,
        policies,
        comparisons,
        allow_low_support: plan.allow_low_support,
        sampling: plan
            .sampling
            .filter(|_| sampled(log, candidates))
            .map(|m| SamplingReport {
                samples: m.samples,
                seed: m.seed,
                generator: SAMPLING_RNG_NAME,
            }),
        correction: plan.correction.map(Correction::name),
        groups_in_family: false,
        groups: Vec::new(),
        notes: Vec::new(),
        log_fingerprint: None,
        resampling: plan.resampling.map(|r| ResamplingUsed {
            resamples: r.resamples,
            seed: r.seed,
            generator: rankeval_stats::RNG_NAME,
        }),
    })
}

/// Each estimator's comparisons' p-values corrected as one family; a
/// p-value that is not a number (a difference of no spread) stays out of
/// the family and uncorrected.
fn correct_comparisons(
    comparisons: &mut [OpeComparison],
    estimators: &[OpeEstimator],
    correction: Correction,
) {
    for e in estimators {
        let name = e.name();
        let family: Vec<usize> = (0..comparisons.len())
            .filter(|&i| {
                comparisons[i].estimator == name && comparisons[i].paired.p_value.is_finite()
            })
            .collect();
        let p: Vec<f64> = family
            .iter()
            .map(|&i| comparisons[i].paired.p_value)
            .collect();
        // p-values in [0, 1] by construction: an error leaves them uncorrected.
        if let Ok(corrected) = rankeval_stats::correct(&p, correction) {
            for (&i, q) in family.iter().zip(corrected) {
                comparisons[i].corrected_p_value = Some(q);
            }
        }
    }
}

/// Each gate decided on each policy it applies to: `at_least` on every
/// policy (or its `run=`), the comparing rules on every policy after the
/// first. A refused estimate (unless low support is allowed) leaves the
/// gate undecided.
fn decide_gates(
    gates: &[GateSpec],
    plan: &OpePlan,
    policies: &[PolicyEstimates],
    comparisons: &[OpeComparison],
) -> Vec<OpeGateResult> {
    let mut out = Vec::new();
    for spec in gates {
        let Some(k) = plan.estimators.iter().position(|e| e.name() == spec.metric) else {
            continue;
        };
        let compares = spec.gate.needs_baseline();
        for (i, policy) in policies.iter().enumerate() {
            if spec.run.as_ref().is_some_and(|r| r != &policy.name) || (compares && i == 0) {
                continue;
            }
            let estimate = &policy.estimates[k];
            let comparison = comparisons
                .iter()
                .find(|c| c.candidate == policy.name && c.estimator == spec.metric);
            let refused = estimate.is_refused() || comparison.is_some_and(|c| c.refused);
            let (outcome, undecided) = if refused && !plan.allow_low_support {
                (None, Some("an estimate it reads is refused".to_owned()))
            } else {
                let versus = comparison.map(|c| Versus {
                    baseline: policies[0].estimates[k].value,
                    difference: c.paired.difference,
                    lower: c.paired.interval.lower,
                    p_value: c.corrected_p_value.unwrap_or(c.paired.p_value),
                });
                match spec.gate.evaluate_estimate(estimate.value, versus.as_ref()) {
                    Ok(o) => (Some(o), None),
                    Err(e) => (None, Some(e.to_string())),
                }
            };
            out.push(OpeGateResult {
                gate: spec.to_string(),
                policy: policy.name.clone(),
                outcome,
                undecided,
            });
        }
    }
    out
}

/// The items the log shows in each context.
fn logged_items(log: &ImpressionLog) -> HashSet<(u32, u32)> {
    log.impressions
        .iter()
        .flat_map(|imp| imp.items.iter().map(move |&item| (imp.context, item)))
        .collect()
}

/// Whether a policy's marginals are drawn (a Plackett-Luce policy on a log
/// of marginal propensities).
fn sampled(log: &ImpressionLog, candidates: &[Candidate]) -> bool {
    log.form == PropensityForm::Marginal
        && candidates
            .iter()
            .any(|c| matches!(c.policy, TargetPolicy::PlackettLuce { .. }))
}

/// One impression's Plackett-Luce marginals to draw: the context's model,
/// the slate as indices into its list, and the impression's stream.
struct SampledJob {
    model: Arc<PlackettLuce>,
    slate: Vec<Option<usize>>,
    stream: u64,
}

/// Each impression's target probabilities, in the log's form.
fn target_probabilities(
    log: &ImpressionLog,
    log_name: &str,
    candidate: &Candidate,
    plan: &OpePlan,
    logged: &HashSet<(u32, u32)>,
) -> Result<Ragged<f64>, OpeRunError> {
    let len = log.slate_len;
    let mut out = Ragged::new();
    let mut checked: HashMap<u32, ()> = HashMap::new();
    let mut jobs: Vec<SampledJob> = Vec::new();
    let mut models: HashMap<u32, Arc<PlackettLuce>> = HashMap::new();
    for imp in &log.impressions {
        let context = log.ids.resolve(imp.context);
        let context_text = || shorten_id(context);
        let run = match &candidate.policy {
            TargetPolicy::LogColumn => {
                let p = imp
                    .target
                    .ok_or_else(|| OpeRunError::NoTargetColumn(candidate.name.clone()))?;
                out.push(p);
                continue;
            }
            TargetPolicy::Ranking(run) | TargetPolicy::PlackettLuce { run, .. } => run,
        };
        let list = run.list(context).ok_or_else(|| OpeRunError::NoRanking {
            log: log_name.to_owned(),
            at: imp.at.to_string(),
            policy: candidate.name.clone(),
            context: context_text(),
        })?;
        if list.len() < len {
            return Err(OpeRunError::ShortRanking {
                log: log_name.to_owned(),
                at: imp.at.to_string(),
                policy: candidate.name.clone(),
                context: context_text(),
                len: list.len(),
                slate_len: len,
            });
        }
        match &candidate.policy {
            TargetPolicy::Ranking(_) => {
                let top = (0..len).map(|i| list.doc(i));
                if !plan.allow_unlogged && checked.insert(imp.context, ()).is_none() {
                    for (position, item) in top.clone().enumerate() {
                        let known = log
                            .ids
                            .get(item)
                            .is_some_and(|id| logged.contains(&(imp.context, id)));
                        if !known {
                            return Err(OpeRunError::NeverLogged {
                                policy: candidate.name.clone(),
                                context: context_text(),
                                item: shorten_id(item),
                                position: position + 1,
                            });
                        }
                    }
                }
                // Whether the target shows the logged item at each position.
                let mut agree = top.zip(imp.items).map(|(a, &b)| a == log.ids.resolve(b));
                match log.form {
                    PropensityForm::Action
                    | PropensityForm::Marginal
                    | PropensityForm::Cascade
                    | PropensityForm::Examination => {
                        out.push_iter(agree.map(|a| f64::from(u8::from(a))));
                    }
                    PropensityForm::Slate => out.push(&[f64::from(u8::from(agree.all(|a| a)))]),
                }
            }
            TargetPolicy::PlackettLuce { temperature, .. } => {
                let shown: Vec<&[u8]> = imp.items.iter().map(|&i| log.ids.resolve(i)).collect();
                let scores: Vec<f64> = (0..list.len())
                    .map(|i| list.score(i).unwrap_or(0.0))
                    .collect();
                let model = match models.get(&imp.context) {
                    Some(model) => model.clone(),
                    None => {
                        let model = PlackettLuce::new(&scores, *temperature).map_err(|source| {
                            OpeRunError::Estimator {
                                log: log_name.to_owned(),
                                at: format!(", {}", imp.at),
                                policy: candidate.name.clone(),
                                estimator: "plackett_luce".into(),
                                source: Box::new(source),
                            }
                        })?;
                        let model = Arc::new(model);
                        models.insert(imp.context, model.clone());
                        model
                    }
                };
                let index: HashMap<&[u8], usize> =
                    (0..list.len()).map(|i| (list.doc(i), i)).collect();
                let slate: Vec<Option<usize>> =
                    shown.iter().map(|s| index.get(s).copied()).collect();
                match (log.form, plan.sampling) {
                    (
                        PropensityForm::Action
                        | PropensityForm::Cascade
                        | PropensityForm::Examination,
                        _,
                    ) => out.push(&model.cascade(&slate)),
                    (PropensityForm::Slate, _) => out.push(&[model.slate(&slate)]),
                    (PropensityForm::Marginal, Some(_)) => {
                        // Drawn below, in parallel: every impression's
                        // (the form and the policy are the log's and the
                        // candidate's), so `out` stays empty here.
                        jobs.push(SampledJob {
                            model,
                            slate,
                            stream: spark_xxhash64(log.ids.resolve(imp.id)) as u64,
                        });
                    }
                    (PropensityForm::Marginal, None) => out.push(&model.marginals(&slate, MARGINAL_LIMIT).ok_or_else(|| {
                        OpeRunError::Unfit(format!(
                            "policy `{}`: the Plackett-Luce marginals of context `{}` need more than {MARGINAL_LIMIT} \
                             orderings enumerated (a list of {} items, slates of {len}): \
                             --samples N estimates them by seeded Monte Carlo",
                            candidate.name,
                            context_text(),
                            list.len()
                        ))
                    })?),
                }
            }
            TargetPolicy::LogColumn => {}
        }
    }
    if let Some(MarginalSampling { samples, seed }) = plan.sampling {
        // Each impression's draws are fixed by (seed, its id): any thread
        // takes any impression, the results are the same bits.
        let drawn: Vec<Vec<f64>> = jobs
            .par_iter()
            .map(|job| {
                let mut rng = fast_chunk_rng(seed, job.stream);
                job.model
                    .sampled_marginals(&job.slate, samples, &mut rng)
                    .into_iter()
                    .map(|m| m.value)
                    .collect()
            })
            .collect();
        for marginals in drawn {
            out.push(&marginals);
        }
    }
    Ok(out)
}

/// A reward model's predictions, a row per impression, per position: the
/// logged item's `q̂(x, a_l)`, and the target's expected `Σ_b π(b|x,
/// a_{<l}) q̂(x, b)` given the logged items above.
#[derive(Clone, Debug)]
struct Predicted {
    logged: Ragged<f64>,
    target: Ragged<f64>,
}

/// Every impression's predictions under `candidate` (a run's policy).
fn predictions(
    log: &ImpressionLog,
    log_name: &str,
    candidate: &Candidate,
    model: &RewardModel,
) -> Result<Predicted, OpeRunError> {
    let mut out = Predicted {
        logged: Ragged::new(),
        target: Ragged::new(),
    };
    let mut logged = Vec::new();
    let mut target = Vec::new();
    for imp in log.impressions.iter() {
        let context = log.ids.resolve(imp.context);
        let predict = |item: &[u8]| {
            model
                .predict(context, item)
                .ok_or_else(|| OpeRunError::NoPrediction {
                    log: log_name.to_owned(),
                    at: imp.at.to_string(),
                    context: shorten_id(context),
                    item: shorten_id(item),
                })
        };
        logged.clear();
        for &item in imp.items {
            logged.push(predict(log.ids.resolve(item))?);
        }
        // The run was checked to rank the context (target_probabilities).
        let (TargetPolicy::Ranking(run) | TargetPolicy::PlackettLuce { run, .. }) =
            &candidate.policy
        else {
            return Err(OpeRunError::NoTargetColumn(candidate.name.clone()));
        };
        let Some(list) = run.list(context) else {
            return Err(OpeRunError::NoRanking {
                log: log_name.to_owned(),
                at: imp.at.to_string(),
                policy: candidate.name.clone(),
                context: shorten_id(context),
            });
        };
        target.clear();
        match &candidate.policy {
            TargetPolicy::PlackettLuce { temperature, .. } => {
                let scores: Vec<f64> = (0..list.len())
                    .map(|i| list.score(i).unwrap_or(0.0))
                    .collect();
                let pl = PlackettLuce::new(&scores, *temperature).map_err(|source| {
                    OpeRunError::Estimator {
                        log: log_name.to_owned(),
                        at: format!(", {}", imp.at),
                        policy: candidate.name.clone(),
                        estimator: "plackett_luce".into(),
                        source: Box::new(source),
                    }
                })?;
                let index: HashMap<&[u8], usize> =
                    (0..list.len()).map(|i| (list.doc(i), i)).collect();
                let slate: Vec<Option<usize>> = imp
                    .items
                    .iter()
                    .map(|&s| index.get(log.ids.resolve(s)).copied())
                    .collect();
                let q: Vec<f64> = (0..list.len())
                    .map(|i| predict(list.doc(i)))
                    .collect::<Result<_, _>>()?;
                for l in 0..imp.items.len() {
                    let next = pl.next(&slate[..l]);
                    target.push(rankeval_core::exact_sum::fsum(
                        next.iter().zip(&q).map(|(p, q)| p * q),
                    ));
                }
            }
            _ => {
                for l in 0..imp.items.len() {
                    target.push(predict(list.doc(l))?);
                }
            }
        }
        out.logged.push(&logged);
        out.target.push(&target);
    }
    Ok(out)
}

/// An estimator's state over the log and each impression's contribution.
fn contributions(
    log: &ImpressionLog,
    inputs: &PolicyInputs,
    estimator: &OpeEstimator,
) -> Result<(State, Vec<Contribution>), (Option<usize>, OpeError)> {
    let (targets, predictions) = (&inputs.targets, inputs.predictions.as_ref());
    let mut contributions = Vec::with_capacity(log.impressions.len());
    let mut scratch = click::Scratch::default();
    let mut state = match estimator {
        OpeEstimator::Bandit(b) => {
            b.validate().map_err(|e| (None, e))?;
            b.state()
        }
        OpeEstimator::Slate(s) => s.state(),
        OpeEstimator::Click(c) => {
            c.validate().map_err(|e| (None, e))?;
            c.state()
        }
    };
    for (index, (imp, target)) in log.impressions.iter().zip(targets.iter()).enumerate() {
        let predicted =
            predictions.and_then(|p| Some((p.logged.get(index)?, p.target.get(index)?)));
        let c = match estimator {
            OpeEstimator::Bandit(b) => b
                .contribution(
                    index,
                    &bandit::Record {
                        reward: imp.rewards.iter().sum(),
                        logging: imp.propensities.first().copied().unwrap_or(f64::NAN),
                        target: target.first().copied().unwrap_or(f64::NAN),
                        model: predicted.map(|(logged, target)| bandit::Prediction {
                            logged: logged.first().copied().unwrap_or(f64::NAN),
                            target: target.first().copied().unwrap_or(f64::NAN),
                        }),
                    },
                )
                .map_err(|e| (Some(index), e))?,
            OpeEstimator::Slate(s) => {
                let form = log.form;
                let probabilities = |p| probabilities_of(form, p);
                s.contribution(
                    index,
                    &slate::Record {
                        rewards: imp.rewards,
                        logging: probabilities(imp.propensities),
                        target: probabilities(target),
                        model: predicted
                            .map(|(logged, target)| slate::CascadeModel { logged, target }),
                    },
                )
                .map_err(|e| (Some(index), e))?
            }
            OpeEstimator::Click(c) => {
                let ranked = inputs.ranked.as_ref().and_then(|r| r.get(index));
                let Some(ranked) = ranked else {
                    // A click estimator reads a click log (check_plan).
                    return Err((
                        Some(index),
                        OpeError::MissingPropensity {
                            index,
                            estimator: "click_ips",
                            policy: rankeval_ope::Policy::Target,
                            form: "target's ranking of a click log",
                        },
                    ));
                };
                click::contribution(
                    c,
                    index,
                    imp.rewards,
                    imp.propensities,
                    ranked,
                    &mut scratch,
                )
                .map_err(|e| (Some(index), e))?
            }
        };
        state.add(index, &c).map_err(|e| (Some(index), e))?;
        contributions.push(c);
    }
    Ok((state, contributions))
}

/// A policy's probabilities of one impression as the slate estimators read
/// them, in the log's form.
fn probabilities_of(form: PropensityForm, p: &[f64]) -> slate::Probabilities<'_> {
    let one = p.first().copied();
    match form {
        PropensityForm::Slate => slate::Probabilities {
            slate: one,
            ..Default::default()
        },
        // A click log's propensities are no slate estimator's (check_plan).
        PropensityForm::Marginal | PropensityForm::Examination => slate::Probabilities {
            marginal: Some(p),
            ..Default::default()
        },
        PropensityForm::Cascade => slate::Probabilities {
            cascade: Some(p),
            ..Default::default()
        },
        // One item: its probability is every form's.
        PropensityForm::Action => slate::Probabilities {
            slate: one,
            marginal: Some(p),
            cascade: Some(p),
        },
    }
}

/// What `request` asks for: its log read, its policies' runs and its reward
/// model read, each policy estimated and compared. The one call behind
/// `rankeval ope`, the `[ope]` table of a TOML file and Python's
/// `rankeval_rs.ope`.
pub fn run_request(request: &crate::spec::OpeRequest) -> Result<OpeReport, OpeRunError> {
    if let Some(plan) = &request.record {
        crate::record::check_before_evaluating(plan)
            .map_err(|e| OpeRunError::History(Box::new(e)))?;
    }
    let read = |path: &std::path::Path| {
        crate::read::read_run(
            &crate::read::Input::file(path),
            crate::ReadOptions::default(),
        )
        .map_err(|e| OpeRunError::Read(Box::new(e)))
    };
    let mut candidates = Vec::with_capacity(request.policies.len() + 1);
    for policy in &request.policies {
        let run = read(&policy.path)?;
        candidates.push(Candidate {
            name: policy.name.clone(),
            policy: match request.plackett_luce {
                Some(temperature) => TargetPolicy::PlackettLuce { run, temperature },
                None => TargetPolicy::Ranking(run),
            },
        });
    }
    if let Some(name) = &request.target_column {
        candidates.push(Candidate {
            name: name.clone(),
            policy: TargetPolicy::LogColumn,
        });
    }
    let mut plan = request.plan.clone();
    // A gate on a group is decided on that group's report, below.
    let (on_groups, whole): (Vec<GateSpec>, Vec<GateSpec>) =
        plan.gates.drain(..).partition(|g| g.group.is_some());
    plan.gates = whole;
    if let Some(path) = &request.reward_model {
        plan.model = Some(RewardModel::from_run(&read(path)?, path)?);
    }
    let mut log = crate::read::impressions::read_impressions(&request.log, &request.read)
        .map_err(|e| OpeRunError::Log(Box::new(e)))?;
    let log_name = request.log.display().to_string();
    if let Some(examination) = &request.examination {
        examination.fill(&mut log, &log_name)?;
    }
    let mut report = ope_report(&log, &log_name, &candidates, &plan)?;
    if request.record.is_some() {
        report.log_fingerprint = Some(crate::ope_record::log_fingerprint(&log));
    }
    if let Some(path) = &request.groups {
        let groups = crate::read::read_groups(path).map_err(|e| OpeRunError::Read(Box::new(e)))?;
        let (groups, notes) = group_reports(&log, &log_name, &candidates, &plan, &groups, path)?;
        report.groups = groups;
        report.notes = notes;
    }
    if request.groups_in_family
        && let Some(correction) = plan.correction
    {
        group_gates::correct_together(&mut report, &plan, correction);
    }
    group_gates::decide(&mut report, &plan, &on_groups, request.groups.as_deref())?;
    Ok(report)
}

/// The report of each group of contexts of `groups` (read from `path`),
/// the plan's gates left to the whole log; and a note per column that
/// leaves contexts of the log in no group.
fn group_reports(
    log: &ImpressionLog,
    log_name: &str,
    candidates: &[Candidate],
    plan: &OpePlan,
    groups: &crate::read::QueryGroups,
    path: &std::path::Path,
) -> Result<(Vec<OpeGroup>, Vec<String>), OpeRunError> {
    let plan = OpePlan {
        gates: Vec::new(),
        ..plan.clone()
    };
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for slices in merged::group_slices(log, groups) {
        let column = &slices.column;
        let mut without: Vec<String> = slices.without.iter().map(|&id| log.text(id)).collect();
        without.sort_unstable();
        notes.extend(merged::ungrouped_note(
            path,
            column,
            without.len(),
            &without,
        ));
        for (value, sub) in slices.groups {
            out.push(OpeGroup {
                column: column.clone(),
                report: ope_report(&sub, log_name, candidates, &plan)?,
                value,
            });
        }
    }
    Ok((out, notes))
}
