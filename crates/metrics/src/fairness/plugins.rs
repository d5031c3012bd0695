//! Expected exposure as metric plugins: `ee_d` (disparity), `ee_r`
//! (relevance) and `ee_l` (loss), Diaz et al. (CIKM 2020) as `expeval`
//! computes them ([`exposure`](super::exposure)). Each scores a query's
//! sampled rankings together ([`Metric::score_samples`]); a deterministic
//! run is one sample.

use rankeval_core::explain::Explanation;
use rankeval_core::registry::{PARAM_REL, ParamDoc};
use rankeval_core::{CanonicalName, JudgedRanking, Metric, RelevanceLevel, Requirement, Samples};
use serde::{Deserialize, Serialize};

use super::exposure::{self, Browsing, Model, Which};
use super::group_exposure;
use crate::common::is_none;

const PARAM_MODEL: ParamDoc = ParamDoc {
    name: "model",
    alias: None,
    default: "gerr",
    doc: "browsing model: gerr (exposure p^i (1-u)^(relevant above)) or rbp (p^i) (expeval -u)",
};

const PARAM_P: ParamDoc = ParamDoc {
    name: "p",
    alias: None,
    default: "0.5",
    doc: "patience, from 0 up to (not including) 1: the chance of going on to the next rank (expeval -p)",
};

const PARAM_U: ParamDoc = ParamDoc {
    name: "u",
    alias: None,
    default: "0.5",
    doc: "utility, from 0 to 1: gERR's chance of stopping at a relevant document (expeval -r)",
};

const PARAM_NORM: ParamDoc = ParamDoc {
    name: "norm",
    alias: None,
    default: "true",
    doc: "normalised by expeval's bounds, (value - lower) / (upper - lower) (expeval's default; false: expeval -U)",
};

const PARAM_GROUPS: ParamDoc = ParamDoc {
    name: "groups",
    alias: None,
    default: "false",
    doc: "at the group level: exposure and target summed per group of the relevant documents (--doc-groups) first, with expeval's group bounds (expeval -G)",
};

const PARAMS: &[ParamDoc] = &[
    PARAM_MODEL,
    PARAM_P,
    PARAM_U,
    PARAM_REL,
    PARAM_NORM,
    PARAM_GROUPS,
];

/// What the group level needs: the document groups.
const GROUPS: &[Requirement] = &[Requirement::DocumentGroups];

/// expeval's default patience and utility.
const HALF: f64 = 0.5;

fn half() -> f64 {
    HALF
}

fn yes() -> bool {
    true
}

fn is_true(value: &bool) -> bool {
    *value
}

fn is_false(value: &bool) -> bool {
    !*value
}

fn is_half(value: &f64) -> bool {
    value.to_bits() == HALF.to_bits()
}

/// Checks the browsing model's parameters together.
fn check(model: Model, p: f64, u: f64) -> Result<(), String> {
    if !(0.0..1.0).contains(&p) {
        return Err(format!(
            "p = {p}: the patience must be at least 0 and below 1 (at 1 the exposure of a list never ends)"
        ));
    }
    if !(0.0..=1.0).contains(&u) {
        return Err(format!("u = {u}: the utility must be from 0 to 1"));
    }
    if model == Model::Rbp && !is_half(&u) {
        return Err(format!(
            "u = {u}: the utility is gERR's; model = rbp does not read it (leave it out)"
        ));
    }
    Ok(())
}

/// Each rank's document numbered by its rank (a ranking names a document
/// once): a deterministic ranking as one sample, and its number of
/// documents.
fn one_sample(ranking: &JudgedRanking<'_>) -> (Vec<Vec<u32>>, usize) {
    let n = ranking.ranked().len();
    (vec![(0..n as u32).collect()], n)
}

macro_rules! exposure_metric {
    (
        $(#[$doc:meta])*
        $ty:ident, $name:literal, $which:expr, $summary:literal, $formula:literal
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $ty {
            /// The browsing model.
            #[serde(default)]
            pub model: Model,
            /// Patience.
            #[serde(default = "half", skip_serializing_if = "is_half")]
            pub p: f64,
            /// Utility (gERR).
            #[serde(default = "half", skip_serializing_if = "is_half")]
            pub u: f64,
            /// Relevance level; `None` = the experiment's.
            #[serde(default, skip_serializing_if = "is_none")]
            pub rel: Option<RelevanceLevel>,
            /// Normalised by expeval's bounds.
            #[serde(default = "yes", skip_serializing_if = "is_true")]
            pub norm: bool,
            /// At the group level (expeval `-G`): summed per group of the
            /// relevant documents first.
            #[serde(default, skip_serializing_if = "is_false")]
            pub groups: bool,
        }

        impl Default for $ty {
            fn default() -> Self {
                $ty {
                    model: Model::default(),
                    p: HALF,
                    u: HALF,
                    rel: None,
                    norm: true,
                    groups: false,
                }
            }
        }

        impl $ty {
            fn browsing(&self, q: &JudgedRanking<'_>) -> Browsing {
                Browsing {
                    model: self.model,
                    patience: self.p,
                    utility: self.u,
                    level: q.level(self.rel),
                }
            }

            fn of(&self, samples: &Samples<'_>, q: &JudgedRanking<'_>) -> (exposure::Exposure, Browsing) {
                let browsing = self.browsing(q);
                (exposure::expected(samples, q.ideal_grades(), &browsing), browsing)
            }

            /// The group-level value over `samples` (0 without document
            /// groups: the engine gives them to a metric that requires
            /// them).
            fn of_groups(&self, samples: &Samples<'_>, q: &JudgedRanking<'_>) -> f64 {
                let browsing = self.browsing(q);
                group_exposure::group_expected(samples, q.ideal_grades(), &browsing)
                    .map_or(0.0, |g| g.value($which, self.norm, &browsing))
            }

            /// explain at the group level: each group's summed exposure and
            /// target, the values and expeval's group bounds.
            fn explain_groups(&self, samples: &Samples<'_>, q: &JudgedRanking<'_>, explanation: Explanation) -> Explanation {
                let browsing = self.browsing(q);
                let explanation = explanation.level(browsing.level);
                let Some(value) = group_exposure::group_expected(samples, q.ideal_grades(), &browsing) else {
                    return explanation.formula(format!("{} = 0 (no document groups)", self.name()));
                };
                let view = q.groups();
                let mut explanation = explanation;
                for g in &value.groups {
                    let id = view
                        .and_then(|v| v.groups().group_id(g.group))
                        .map(rankeval_core::shorten_id)
                        .unwrap_or_default();
                    explanation = explanation
                        .quantity(format!("exposure E of group {id}"), g.exposure)
                        .quantity(format!("target E* of group {id}"), g.target);
                }
                let (lower, upper, default) = value.bounds($which, &browsing);
                explanation
                    .quantity("samples", samples.len() as f64)
                    .quantity("groups k", value.groups.len() as f64)
                    .quantity("relevant documents r", value.relevant as f64)
                    .quantity("EE-D = ||E||^2", value.disparity)
                    .quantity("EE-R = E . E*", value.relevance)
                    .quantity("EE-L = ||E - E*||^2", value.loss)
                    .quantity("||E*||^2", value.target_norm)
                    .quantity("lower bound", lower)
                    .quantity("upper bound", upper)
                    .quantity("default (bounds equal)", default)
                    .formula(format!(
                        concat!("{} = ", $formula, " over the groups of the relevant documents, e averaged over {} samples{}"),
                        self.name(),
                        samples.len(),
                        if self.norm {
                            ", normalised (value - lower) / (upper - lower)"
                        } else {
                            ""
                        },
                    ))
            }
        }

        #[rankeval_core::metric(
            name = $name,
            aliases = &[],
            summary = $summary,
            params = PARAMS,
            example = $ty { model: Model::Rbp, ..$ty::default() },
        )]
        impl Metric for $ty {
            fn name(&self) -> String {
                CanonicalName::new($name)
                    .param_unless_default("model", self.model, Model::Gerr)
                    .param_unless_default("p", self.p, HALF)
                    .param_unless_default("u", self.u, HALF)
                    .param_if_set("rel", self.rel)
                    .param_unless_default("norm", self.norm, true)
                    .param_unless_default("groups", self.groups, false)
                    .cutoff(None)
            }
            fn validate(&self) -> Result<(), String> {
                check(self.model, self.p, self.u)
            }
            /// EE-D under RBP reads no grade (its exposures are `p^i`),
            /// unless at the group level (which sums relevant documents).
            fn uses_default_level(&self) -> bool {
                self.rel.is_none()
                    && (self.groups || !($which == Which::Disparity && self.model == Model::Rbp))
            }
            fn requires(&self) -> &'static [Requirement] {
                if self.groups { GROUPS } else { &[] }
            }
            fn joint_over_samples(&self) -> bool {
                true
            }
            fn score(&self, q: &JudgedRanking<'_>) -> f64 {
                let (docs, n) = one_sample(q);
                let rankings = [*q];
                self.score_samples(&Samples::new(&rankings, &docs, n))
            }
            fn score_samples(&self, samples: &Samples<'_>) -> f64 {
                // The qrels (ideal grades, level) are the query's, the same
                // in every sample.
                let Some(first) = samples.rankings().first() else {
                    return 0.0;
                };
                if self.groups {
                    return self.of_groups(samples, first);
                }
                let (value, browsing) = self.of(samples, first);
                value.value($which, self.norm, &browsing)
            }
            /// Per document (numbered over the samples): its expected
            /// exposure and its target, with the same quantities as
            /// [`explain`](Metric::explain).
            fn explain_samples(&self, samples: &Samples<'_>) -> Explanation {
                let Some(first) = samples.rankings().first() else {
                    return Explanation::of_samples(self, samples)
                        .formula(format!("{} = 0 (no sample)", self.name()));
                };
                if self.groups {
                    return self.explain_groups(samples, first, Explanation::of_samples(self, samples));
                }
                let (value, browsing) = self.of(samples, first);
                let documents = exposure::documents(samples, first.ideal_grades(), &browsing);
                let (lower, upper, default) = exposure::bounds($which, &value, &browsing);
                Explanation::of_samples(self, samples)
                    .level(browsing.level)
                    .column("expected exposure e", documents.iter().map(|d| d.map(|d| d.exposure)).collect())
                    .column("target e*", documents.iter().map(|d| d.map(|d| d.target)).collect())
                    .quantity("samples", samples.len() as f64)
                    .quantity("EE-D = ||e||^2", value.disparity)
                    .quantity("EE-R = e . e*", value.relevance)
                    .quantity("EE-L = ||e - e*||^2", value.loss)
                    .quantity("||e*||^2", value.target_norm)
                    .quantity("relevance levels", value.levels as f64)
                    .quantity("lower bound", lower)
                    .quantity("upper bound", upper)
                    .quantity("default (bounds equal)", default)
                    .formula(format!(
                        concat!("{} = ", $formula, ", e averaged over {} samples{}"),
                        self.name(),
                        samples.len(),
                        if self.norm {
                            ", normalised (value - lower) / (upper - lower)"
                        } else {
                            ""
                        },
                    ))
            }
            fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
                let browsing = self.browsing(q);
                let (docs, n) = one_sample(q);
                let rankings = [*q];
                let samples = Samples::new(&rankings, &docs, n);
                if self.groups {
                    return self.explain_groups(&samples, q, Explanation::new(self, q));
                }
                let (value, _) = self.of(&samples, q);
                let (lower, upper, default) = exposure::bounds($which, &value, &browsing);
                let mut above = 0usize;
                let exposures = q
                    .ranked()
                    .iter()
                    .enumerate()
                    .map(|(i, j)| {
                        let e = browsing.exposure(i, above);
                        if j.is_relevant(browsing.level) {
                            above += 1;
                        }
                        Some(e)
                    })
                    .collect();
                Explanation::new(self, q)
                    .level(browsing.level)
                    .column("exposure", exposures)
                    .quantity("EE-D = ||e||^2", value.disparity)
                    .quantity("EE-R = e . e*", value.relevance)
                    .quantity("EE-L = ||e - e*||^2", value.loss)
                    .quantity("||e*||^2", value.target_norm)
                    .quantity("relevance levels", value.levels as f64)
                    .quantity("lower bound", lower)
                    .quantity("upper bound", upper)
                    .quantity("default (bounds equal)", default)
                    .formula(format!(
                        concat!("{} = ", $formula, "{}"),
                        self.name(),
                        if self.norm {
                            ", normalised (value - lower) / (upper - lower)"
                        } else {
                            ""
                        },
                    ))
            }
        }
    };
}

exposure_metric!(
    /// EE-D, expected exposure's disparity (Diaz et al., CIKM 2020):
    /// `||epsilon||^2`, the squared norm of the documents' expected
    /// exposures over the samples; lower spreads exposure more evenly.
    EeD, "ee_d", Which::Disparity,
    "EE-D, expected exposure disparity ||e||^2 (Diaz et al. 2020; expeval)",
    "||e||^2"
);

exposure_metric!(
    /// EE-R, expected exposure's relevance (Diaz et al., CIKM 2020):
    /// `epsilon . epsilon*`, how much exposure goes where the ideal
    /// ranking puts it; higher is better.
    EeR, "ee_r", Which::Relevance,
    "EE-R, expected exposure relevance e . e* (Diaz et al. 2020; expeval)",
    "e . e*"
);

exposure_metric!(
    /// EE-L, expected exposure's loss (Diaz et al., CIKM 2020):
    /// `||epsilon - epsilon*||^2`, the distance from the target exposure
    /// of an ideal stochastic ranking; lower is better.
    EeL, "ee_l", Which::Loss,
    "EE-L, expected exposure loss ||e - e*||^2 (Diaz et al. 2020; expeval)",
    "||e - e*||^2"
);

/// The target distribution of AWRF.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// The query's relevant documents' alignments, summed.
    #[default]
    Relevant,
    /// Every group alike.
    Uniform,
    /// The query's own target, given per query (`--group-targets`, a
    /// table `query, group, share`; TREC Fair 2022 gives each query one).
    Given,
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Target::Relevant => "relevant",
            Target::Uniform => "uniform",
            Target::Given => "given",
        })
    }
}

const PARAM_TARGET: ParamDoc = ParamDoc {
    name: "target",
    alias: None,
    default: "relevant",
    doc: "target distribution over groups: relevant (the relevant documents' alignments), uniform, or given (each query's, --group-targets)",
};

const PARAMS_AWRF: &[ParamDoc] = &[rankeval_core::registry::PARAM_K, PARAM_REL, PARAM_TARGET];

/// The groups' exposure in the top `n` ranks, and the target, or `None`
/// without document groups.
fn group_vectors(
    q: &JudgedRanking<'_>,
    n: usize,
    level: rankeval_core::Grade,
    target: Target,
) -> Option<(Vec<f64>, Vec<f64>)> {
    let view = q.groups()?;
    let count = view.groups().num_groups();
    let mut exposure = vec![0.0; count];
    for i in 0..n.min(view.ranked().len()) {
        let a = super::awrf::attention(i + 1);
        for &(g, w) in view.at_rank(i) {
            if let Some(slot) = exposure.get_mut(g as usize) {
                *slot += a * w;
            }
        }
    }
    let mut wanted = vec![0.0; count];
    match target {
        Target::Uniform => wanted.iter_mut().for_each(|t| *t = 1.0),
        // A query without a given target has no distribution to compare
        // (the experiment refuses qrels with such a query first).
        Target::Given => {
            for &(g, share) in view.target()? {
                if let Some(slot) = wanted.get_mut(g as usize) {
                    *slot += share;
                }
            }
        }
        Target::Relevant => {
            for &(d, grade) in view.judged() {
                if grade >= level {
                    for &(g, w) in view.groups().memberships(d) {
                        if let Some(slot) = wanted.get_mut(g as usize) {
                            *slot += w;
                        }
                    }
                }
            }
        }
    }
    Some((exposure, wanted))
}

/// `k`, or the list's length without one.
fn cut_at(k: Option<rankeval_core::Cutoff>, len: usize) -> usize {
    k.map_or(len, |k| k.get().min(len))
}

macro_rules! group_metric {
    (
        $(#[$doc:meta])*
        $ty:ident, $name:literal, $summary:literal, $formula:literal, ndcg = $ndcg:literal,
        |$self_:ident, $q:ident, $awrf:ident| $body:expr
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $ty {
            /// Cutoff; `None` = the whole list.
            #[serde(default, skip_serializing_if = "is_none")]
            pub k: Option<rankeval_core::Cutoff>,
            /// Relevance level; `None` = the experiment's.
            #[serde(default, skip_serializing_if = "is_none")]
            pub rel: Option<RelevanceLevel>,
            /// The target distribution.
            #[serde(default)]
            pub target: Target,
        }

        impl $ty {
            /// AWRF of the top `k` ranks.
            fn awrf(&self, q: &JudgedRanking<'_>) -> f64 {
                let n = cut_at(self.k, q.ranked().len());
                match group_vectors(q, n, q.level(self.rel), self.target) {
                    Some((exposure, target)) => super::awrf::awrf(&exposure, &target),
                    None => 0.0,
                }
            }
        }

        #[rankeval_core::metric(
            name = $name,
            aliases = &[],
            summary = $summary,
            params = PARAMS_AWRF,
            example = $ty { k: rankeval_core::Cutoff::new(10), rel: None, target: Target::Relevant },
        )]
        impl Metric for $ty {
            fn name(&self) -> String {
                CanonicalName::new($name)
                    .param_if_set("rel", self.rel)
                    .param_unless_default("target", self.target, Target::Relevant)
                    .cutoff(self.k)
            }
            fn depth(&self) -> Option<rankeval_core::Cutoff> {
                self.k
            }
            fn requires(&self) -> &'static [Requirement] {
                match self.target {
                    Target::Given => &[Requirement::DocumentGroups, Requirement::GroupTargets],
                    _ => &[Requirement::DocumentGroups],
                }
            }
            fn score(&self, q: &JudgedRanking<'_>) -> f64 {
                let $self_ = self;
                let $q = q;
                let $awrf = self.awrf(q);
                $body
            }
            /// Per rank: the attention and each group's share of it (the
            /// attention times the document's weight in the group); the
            /// groups' exposure and target, each as given and normalised,
            /// the divergence, and (trec_fair) its nDCG's terms.
            fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
                let n = cut_at(self.k, q.ranked().len());
                let level = q.level(self.rel);
                let mut explanation = Explanation::new(self, q).level(level).column(
                    "attention",
                    (0..q.ranked().len())
                        .map(|i| (i < n).then(|| super::awrf::attention(i + 1)))
                        .collect(),
                );
                let view = q.groups();
                let group_name = |g: usize| {
                    view.and_then(|v| v.groups().group_id(g as u32))
                        .map(rankeval_core::shorten_id)
                        .unwrap_or_default()
                };
                if let Some((exposure, target)) = group_vectors(q, n, level, self.target) {
                    if let Some(view) = view {
                        for g in 0..exposure.len() {
                            let shares = (0..q.ranked().len())
                                .map(|i| {
                                    let w = view
                                        .at_rank(i)
                                        .iter()
                                        .find(|&&(group, _)| group as usize == g)
                                        .map(|&(_, w)| w);
                                    match (i < n, w) {
                                        (true, Some(w)) => Some(super::awrf::attention(i + 1) * w),
                                        _ => None,
                                    }
                                })
                                .collect();
                            explanation = explanation.column(format!("a x w({})", group_name(g)), shares);
                        }
                    }
                    let total = |v: &[f64]| v.iter().sum::<f64>();
                    let (e_sum, t_sum) = (total(&exposure), total(&target));
                    for (g, (e, t)) in exposure.iter().zip(&target).enumerate() {
                        let id = group_name(g);
                        explanation = explanation
                            .quantity(format!("exposure of group {id}"), *e)
                            .quantity(format!("target of group {id}"), *t);
                        if e_sum > 0.0 && t_sum > 0.0 {
                            explanation = explanation
                                .quantity(format!("exposure share of {id}"), e / e_sum)
                                .quantity(format!("target share of {id}"), t / t_sum);
                        }
                    }
                    match super::awrf::jensen_shannon(&exposure, &target) {
                        Some(d) => explanation = explanation.quantity("JSD (nats)", d),
                        None => {
                            explanation = explanation.normalizer(
                                "no exposure or no target mass over the groups: AWRF 0".to_owned(),
                            )
                        }
                    }
                }
                let explanation =
                    explanation.quantity("AWRF = 1 - JSD(exposure, target)", self.awrf(q));
                let explanation = if $ndcg {
                    // trec_fair: its nDCG's terms.
                    let relevant = q.num_relevant(level);
                    let ideal_len = self.k.map_or(relevant, |k| k.get().min(relevant));
                    let ndcg = super::awrf::fair_ndcg(
                        q.ranked()[..n].iter().map(|j| j.is_relevant(level)),
                        ideal_len,
                    );
                    explanation
                        .quantity("relevant documents in the ideal", ideal_len as f64)
                        .quantity("nDCG", ndcg)
                } else {
                    explanation
                };
                let formula = if q.groups().is_some() {
                    format!(concat!("{} = ", $formula), self.name())
                } else {
                    format!("{} = 0 (no document groups for this query)", self.name())
                };
                explanation.formula(formula)
            }
        }
    };
}

group_metric!(
    /// Attention-weighted rank fairness (Sapiezynski et al., 2019) as TREC
    /// Fair Ranking 2021 computes it: `1 - JSD` between the groups'
    /// attention-weighted exposure in the ranking (attention
    /// `1 / log2(max(i, 2))`) and the target distribution (see
    /// [`awrf`](super::awrf)); higher is fairer.
    Awrf, "awrf",
    "AWRF, 1 - JSD of group exposure and target (TREC Fair 2021)",
    "1 - JSD(exposure, target)", ndcg = false,
    |_m, _q, awrf| awrf
);

group_metric!(
    /// TREC Fair Ranking 2021's Task 1 score: its binary nDCG (attention
    /// `1 / log2(max(i, 2))`, ideal over `min(k, |R|)` relevant documents)
    /// times AWRF; `trec_fair@1000` is the track's.
    TrecFair, "trec_fair",
    "nDCG x AWRF, TREC Fair 2021's Task 1 score",
    "nDCG (attention 1 / log2(max(i, 2))) x AWRF", ndcg = true,
    |m, q, awrf| {
        let level = q.level(m.rel);
        let n = cut_at(m.k, q.ranked().len());
        let relevant = q.num_relevant(level);
        let ideal = m.k.map_or(relevant, |k| k.get().min(relevant));
        let ndcg = super::awrf::fair_ndcg(
            q.ranked()[..n].iter().map(|j| j.is_relevant(level)),
            ideal,
        );
        ndcg * awrf
    }
);
