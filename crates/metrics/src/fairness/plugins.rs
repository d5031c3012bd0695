//! Expected exposure as metric plugins: `ee_d` (disparity), `ee_r`
//! (relevance) and `ee_l` (loss), Diaz et al. (CIKM 2020) as `expeval`
//! computes them ([`exposure`](super::exposure)). Each scores a query's
//! sampled rankings together ([`Metric::score_samples`]); a deterministic
//! run is one sample.

use rankeval_core::explain::Explanation;
use rankeval_core::registry::{PARAM_REL, ParamDoc};
use rankeval_core::{CanonicalName, JudgedRanking, Metric, RelevanceLevel, Samples};
use serde::{Deserialize, Serialize};

use super::exposure::{self, Browsing, Model, Which};
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

const PARAMS: &[ParamDoc] = &[PARAM_MODEL, PARAM_P, PARAM_U, PARAM_REL, PARAM_NORM];

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
        }

        impl Default for $ty {
            fn default() -> Self {
                $ty {
                    model: Model::default(),
                    p: HALF,
                    u: HALF,
                    rel: None,
                    norm: true,
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
                    .cutoff(None)
            }
            fn validate(&self) -> Result<(), String> {
                check(self.model, self.p, self.u)
            }
            /// EE-D under RBP reads no grade (its exposures are `p^i`).
            fn uses_default_level(&self) -> bool {
                self.rel.is_none() && !($which == Which::Disparity && self.model == Model::Rbp)
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
                let (value, browsing) = self.of(samples, first);
                value.value($which, self.norm, &browsing)
            }
            fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
                let browsing = self.browsing(q);
                let (docs, n) = one_sample(q);
                let rankings = [*q];
                let samples = Samples::new(&rankings, &docs, n);
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
                        concat!("{} = ", $formula, "{} = {}"),
                        self.name(),
                        if self.norm { ", normalised (value - lower) / (upper - lower)" } else { "" },
                        rankeval_core::explain::number(self.score(q))
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
