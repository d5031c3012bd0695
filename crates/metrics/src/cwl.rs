//! Adaptive metrics of the C/W/L framework (Moffat, Bailey, Scholer and
//! Thomas; Azzopardi, Thomas and Moffat), as the `cwl-eval` library
//! (github:ireval/cwl, `cwl/ruler/measures`) computes them and ir_measures
//! names them: INST, INSQ, the NERR variants of Azzopardi, Mackenzie and
//! Moffat, "ERR is not C/W/L", ICTIR 2021 (NERReq8 to NERReq11), the
//! Bejeweled Player Model (BPM, Zhang, Liu, Li, Zhang, Xu and Ma, SIGIR
//! 2017; cwl-eval's static `BPMCWLMetric`) and scaled DCG (SDCG, cwl-eval's
//! `NDCGCWLMetric`, ir_measures' `SDCG`).
//!
//! Each metric is a continuation vector `C(i)`, the chance that a user at
//! rank `i` goes on to rank `i + 1`. cwl-eval pads (or cuts) the ranking
//! to [`DEPTH`] = 1000 ranks with gain 0, and the metric is the expected
//! utility per document inspected:
//!
//! ```text
//! W(1) = 1 / sum_{i=1..1000} prod_{j<i} C(j),  W(i) = W(1) * prod_{j<i} C(j)
//! EU   = sum_{i=1..1000} W(i) * g(i)
//! ```
//!
//! The gain `g(i)` is ir_measures' scaling of the grade into [0, 1]:
//! `(clamp(max(grade, 0), min_rel, max_rel) - min_rel) / (max_rel -
//! min_rel)`; an unjudged document has gain 0 (cwl-eval's lower bound).
//!
//! | metric | `C(i)` (`i` from 1; `T_i = T - sum_{j<=i} g(j)`) |
//! |---|---|
//! | `inst` | `((i + T + T_i - 1) / (i + T + T_i))^2` |
//! | `insq` | `((i + 2T - 1) / (i + 2T))^2` |
//! | `nerr8` | `1 - g(i)` for `i < k`, then 0 |
//! | `nerr9` | `i / (i + 1) * (1 - g(i))` for `i < k`, then 0 |
//! | `nerr10` | `p * (1 - g(i))` |
//! | `nerr11` | `((i + 2T - 1) / (i + 2T))^2 * (1 - g(i))` |
//! | `bpm` | 1 while `sum_{j<=i} g(j) < T` and `i < k`, then 0 |
//! | `sdcg` | `log2(i + 1) / log2(i + 2)` for `i < k`, then 0 |
//!
//! BPM's user stops at the first rank where the gain seen reaches `T` or
//! the documents seen reach `k` (its cost bound, one unit a document as
//! cwl-eval counts without a cost file), whichever comes first; its value
//! is the mean gain of the ranks read. SDCG's weights telescope to
//! `W(i) = (1 / log2(i + 1)) / sum_{j<=k} 1 / log2(j + 1)`: the DCG at k
//! over the DCG of k documents of gain 1, that is nDCG as if at least k
//! fully relevant documents existed (ir_measures: "nDCG, but assuming
//! there are at least cutoff relevant documents").

use rankeval_core::explain::Explanation;
use rankeval_core::registry::ParamDoc;
use rankeval_core::{CanonicalName, Cutoff, JudgedRanking, Judgement, Metric};
use serde::{Deserialize, Serialize};

use crate::explain::per_rank;
use crate::rbp::Persistence;

/// cwl-eval's `max_n`: the ranks every ranking is padded or cut to.
pub const DEPTH: usize = 1000;

/// The ranks these metrics read.
const DEPTH_CUTOFF: Option<Cutoff> = Cutoff::new(DEPTH);

/// ir_measures' grade range, scaled to gains in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GainScale {
    /// The grade of gain 0 (ir_measures' `min_rel`).
    pub min_rel: i32,
    /// The grade of gain 1 (ir_measures' `max_rel`).
    pub max_rel: i32,
}

impl GainScale {
    /// The gain of one judgement: 0 unjudged, else the grade floored at 0,
    /// clamped to `[min_rel, max_rel]` and scaled to [0, 1].
    pub fn gain(self, judgement: Judgement) -> f64 {
        if !judgement.is_judged() {
            return 0.0;
        }
        let (low, high) = (f64::from(self.min_rel), f64::from(self.max_rel));
        let grade = judgement.grade().max(0.0).clamp(low, high);
        (grade - low) / (high - low)
    }

    fn validate(self) -> Result<(), String> {
        if self.min_rel < self.max_rel {
            Ok(())
        } else {
            Err(format!(
                "min_rel ({}) must be below max_rel ({})",
                self.min_rel, self.max_rel
            ))
        }
    }
}

/// The gains of the first [`DEPTH`] ranks, padded with 0.
fn gains(q: &JudgedRanking<'_>, scale: GainScale) -> Vec<f64> {
    let mut gains: Vec<f64> = q.top(DEPTH_CUTOFF).iter().map(|&j| scale.gain(j)).collect();
    gains.resize(DEPTH, 0.0);
    gains
}

/// The weights `W(i)` of a continuation vector, as cwl-eval's `w_vector`.
fn weights(continuation: &[f64]) -> Vec<f64> {
    let mut reach = Vec::with_capacity(continuation.len());
    let mut product = 1.0;
    for c in continuation {
        reach.push(product);
        product *= c;
    }
    let first = 1.0 / reach.iter().sum::<f64>();
    reach.iter().map(|r| r * first).collect()
}

/// The expected utility `sum W(i) g(i)` of a continuation vector.
fn expected_utility(continuation: &[f64], gains: &[f64]) -> f64 {
    weights(continuation)
        .iter()
        .zip(gains)
        .map(|(w, g)| w * g)
        .sum()
}

/// Which C/W/L metric, with its own parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Continuation {
    /// INST with target `T`.
    Inst(f64),
    /// INSQ with target `T`.
    Insq(f64),
    /// NERReq8 truncated at `k`.
    Nerr8(usize),
    /// NERReq9 truncated at `k`.
    Nerr9(usize),
    /// NERReq10 with persistence `p`.
    Nerr10(f64),
    /// NERReq11 with target `T`.
    Nerr11(f64),
    /// BPM (static) with total gain `T` and cost bound `k` documents.
    Bpm(f64, usize),
    /// Scaled DCG at `k`.
    Sdcg(usize),
}

impl Continuation {
    /// `C(i)` for every rank of `gains`, as cwl-eval's `c_vector`.
    pub fn vector(self, gains: &[f64]) -> Vec<f64> {
        let mut cumulative = 0.0;
        gains
            .iter()
            .enumerate()
            .map(|(index, &g)| {
                let i = index as f64 + 1.0;
                cumulative += g;
                match self {
                    Continuation::Inst(t) => {
                        let t_i = t - cumulative;
                        let c = (i + t + t_i - 1.0) / (i + t + t_i);
                        c * c
                    }
                    Continuation::Insq(t) => {
                        let c = (i + 2.0 * t - 1.0) / (i + 2.0 * t);
                        c * c
                    }
                    Continuation::Nerr8(k) if index + 1 < k => 1.0 - g,
                    Continuation::Nerr9(k) if index + 1 < k => i / (i + 1.0) * (1.0 - g),
                    Continuation::Nerr8(_) | Continuation::Nerr9(_) => 0.0,
                    Continuation::Nerr10(p) => p * (1.0 - g),
                    Continuation::Nerr11(t) => {
                        let c = (i + 2.0 * t - 1.0) / (i + 2.0 * t);
                        c * c * (1.0 - g)
                    }
                    // cwl-eval: the gain and cost prefixes, both strictly
                    // below their bounds (the gains are never negative, so
                    // the cumulative gain never falls back under T).
                    Continuation::Bpm(t, k) => {
                        if cumulative < t && index + 1 < k {
                            1.0
                        } else {
                            0.0
                        }
                    }
                    // cwl-eval: math.log(i + 1, 2) / math.log(i + 2, 2).
                    Continuation::Sdcg(k) if index + 1 < k => {
                        ((i + 1.0).ln() / std::f64::consts::LN_2)
                            / ((i + 2.0).ln() / std::f64::consts::LN_2)
                    }
                    Continuation::Sdcg(_) => 0.0,
                }
            })
            .collect()
    }
}

/// The metric's value on one query: cwl-eval's expected utility.
///
/// # Example
/// NERReq8 at k = 2 on gains 0 then 1: `C = (1, 0)`, `W = (1/2, 1/2)`.
/// ```
/// use rankeval_metrics::cwl::{cwl, Continuation, GainScale};
/// use rankeval_core::testing;
/// let q = testing::judged("0 1", &[]);
/// let scale = GainScale { min_rel: 0, max_rel: 1 };
/// assert_eq!(cwl(&q.view(), Continuation::Nerr8(2), scale), 0.5);
/// ```
pub fn cwl(q: &JudgedRanking<'_>, continuation: Continuation, scale: GainScale) -> f64 {
    let gains = gains(q, scale);
    expected_utility(&continuation.vector(&gains), &gains)
}

/// What `explain` shows of a C/W/L metric: each rank's gain, `C(i)` and
/// `W(i)`, then the sum.
fn explain_cwl(
    metric: &dyn Metric,
    q: &JudgedRanking<'_>,
    continuation: Continuation,
    scale: GainScale,
) -> Explanation {
    let gains = gains(q, scale);
    let c = continuation.vector(&gains);
    let w = weights(&c);
    Explanation::new(metric, q)
        .column(
            "gain",
            per_rank(q, DEPTH_CUTOFF, |i, _| gains.get(i).copied()),
        )
        .column("C(i)", per_rank(q, DEPTH_CUTOFF, |i, _| c.get(i).copied()))
        .column("W(i)", per_rank(q, DEPTH_CUTOFF, |i, _| w.get(i).copied()))
        .quantity(
            "expected documents inspected 1 / W(1)",
            w.first().map_or(0.0, |w1| 1.0 / w1),
        )
        .formula(format!(
            "{} = sum of W(i) x gain(i) over {DEPTH} ranks",
            metric.name()
        ))
}

fn default_t() -> f64 {
    1.0
}

fn default_max_rel() -> i32 {
    1
}

fn default_nerr10_p() -> Persistence {
    Persistence::new(0.9).unwrap_or_default()
}

/// The largest `T` accepted (2^53): beyond it `i + 2T` is no longer
/// exact and `T + T_i` may overflow.
pub const MAX_T: f64 = 9_007_199_254_740_992.0;

fn check_t(t: f64) -> Result<(), String> {
    if t > 0.0 && t <= MAX_T {
        Ok(())
    } else {
        Err(format!(
            "T must be a positive number up to 2^53 (the gain the user wants), not {t}"
        ))
    }
}

const PARAM_T: ParamDoc = ParamDoc {
    name: "t",
    alias: None,
    default: "1",
    doc: "T, the total gain the user wants (positive, up to 2^53; ir_measures writes T)",
};
const PARAM_MIN_REL: ParamDoc = ParamDoc {
    name: "min_rel",
    alias: None,
    default: "0",
    doc: "the grade of gain 0 (lower grades count as it)",
};
const PARAM_MAX_REL: ParamDoc = ParamDoc {
    name: "max_rel",
    alias: None,
    default: "1",
    doc: "the grade of gain 1 (higher grades count as it); gains are scaled linearly between",
};
const PARAM_NERR_K: ParamDoc = ParamDoc {
    name: "k",
    alias: None,
    default: "required",
    doc: "the rank where the user stops for sure, C(k) = 0 (`@10`)",
};

/// Declares one C/W/L metric: its struct with its own parameter (`t`, `k`
/// or `p`), `min_rel` and `max_rel`, its registration and its `Metric` impl.
macro_rules! cwl_metric {
    (
        $(#[$meta:meta])*
        $ty:ident, $name:literal, $summary:literal,
        #[$fattr:meta] $field:ident: $field_ty:ty,
        $param:expr, $continuation:expr, $check:expr, $named:expr, $example:expr
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $ty {
            #[doc = concat!("The parameter of `", $name, "`.")]
            #[$fattr]
            pub $field: $field_ty,
            /// The grade of gain 0.
            #[serde(default, skip_serializing_if = "is_zero")]
            pub min_rel: i32,
            /// The grade of gain 1.
            #[serde(default = "default_max_rel")]
            pub max_rel: i32,
        }

        impl $ty {
            fn scale(&self) -> GainScale {
                GainScale {
                    min_rel: self.min_rel,
                    max_rel: self.max_rel,
                }
            }
        }

        #[rankeval_core::metric(
            name = $name,
            summary = $summary,
            params = &[$param, PARAM_MIN_REL, PARAM_MAX_REL],
            example = $example,
        )]
        impl Metric for $ty {
            /// Grades are scaled into gains; no level plays a part.
            fn uses_default_level(&self) -> bool {
                false
            }
            fn name(&self) -> String {
                let name = CanonicalName::new($name);
                let name = ($named)(name, self.$field);
                let name = name
                    .param_unless_default("min_rel", self.min_rel, 0)
                    .param_unless_default("max_rel", self.max_rel, 1);
                match self.cutoff() {
                    Some(k) => name.cutoff(Some(k)),
                    None => name.finish(),
                }
            }
            fn depth(&self) -> Option<Cutoff> {
                DEPTH_CUTOFF
            }
            fn score(&self, q: &JudgedRanking<'_>) -> f64 {
                cwl(q, ($continuation)(self.$field), self.scale())
            }
            fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
                explain_cwl(self, q, ($continuation)(self.$field), self.scale())
            }
            fn validate(&self) -> Result<(), String> {
                ($check)(self.$field)?;
                self.scale().validate()
            }
        }
    };
}

fn is_zero(value: &i32) -> bool {
    *value == 0
}

/// `T`, shown unless 1.
fn named_t(name: CanonicalName, t: f64) -> CanonicalName {
    name.param_unless_default("t", t, 1.0)
}

/// `k` is the name's `@k`.
fn named_k(name: CanonicalName, _: Cutoff) -> CanonicalName {
    name
}

/// The metrics without a cutoff in their name.
trait NoCutoff {
    fn cutoff(&self) -> Option<Cutoff> {
        None
    }
}

/// INST (Moffat, Bailey, Scholer and Thomas, ADCS 2015): the user goes on
/// while the gain still wanted, `T_i`, is large.
mod inst {
    use super::*;
    cwl_metric!(
        /// INST (Moffat, Bailey, Scholer and Thomas, ADCS 2015).
        Inst, "inst", "INST: C/W/L expected utility of a user who wants T gain (cwl-eval)",
        #[serde(default = "default_t")] t: f64,
        PARAM_T, Continuation::Inst, check_t, named_t, Inst { t: 2.0, min_rel: 0, max_rel: 3 }
    );
    impl NoCutoff for Inst {}
    impl Default for Inst {
        fn default() -> Self {
            Inst {
                t: 1.0,
                min_rel: 0,
                max_rel: 1,
            }
        }
    }
}

/// INSQ (Moffat, Scholer and Thomas, ADCS 2012): INST's continuation
/// without the gain seen.
mod insq {
    use super::*;
    cwl_metric!(
        /// INSQ (Moffat, Scholer and Thomas, ADCS 2012).
        Insq, "insq", "INSQ: C/W/L, C(i) = ((i + 2T - 1) / (i + 2T))^2 (cwl-eval)",
        #[serde(default = "default_t")] t: f64,
        PARAM_T, Continuation::Insq, check_t, named_t, Insq { t: 2.0, min_rel: 0, max_rel: 1 }
    );
    impl NoCutoff for Insq {}
    impl Default for Insq {
        fn default() -> Self {
            Insq {
                t: 1.0,
                min_rel: 0,
                max_rel: 1,
            }
        }
    }
}

fn check_k(_: Cutoff) -> Result<(), String> {
    Ok(())
}

fn example_k() -> Cutoff {
    Cutoff::new(20).unwrap_or_else(|| unreachable!())
}

/// NERReq8 (Azzopardi, Mackenzie and Moffat, ICTIR 2021, eq. 8): ERR's
/// stopping by gain, cut at `k`.
mod nerr8 {
    use super::*;
    cwl_metric!(
        /// NERReq8 (Azzopardi, Mackenzie and Moffat, ICTIR 2021, eq. 8).
        Nerr8, "nerr8", "NERR eq. 8: C/W/L ERR, C(i) = 1 - gain, truncated at k (cwl-eval)",
        #[serde()] k: Cutoff,
        PARAM_NERR_K, |k: Cutoff| Continuation::Nerr8(k.get()), check_k, named_k,
        Nerr8 { k: example_k(), min_rel: 0, max_rel: 3 }
    );
    impl Nerr8 {
        fn cutoff(&self) -> Option<Cutoff> {
            Some(self.k)
        }
    }
}

/// NERReq9 (Azzopardi, Mackenzie and Moffat, ICTIR 2021, eq. 9): eq. 8
/// with the discount `i / (i + 1)`.
mod nerr9 {
    use super::*;
    cwl_metric!(
        /// NERReq9 (Azzopardi, Mackenzie and Moffat, ICTIR 2021, eq. 9).
        Nerr9, "nerr9", "NERR eq. 9: C/W/L ERR, C(i) = i/(i+1) (1 - gain), truncated at k (cwl-eval)",
        #[serde()] k: Cutoff,
        PARAM_NERR_K, |k: Cutoff| Continuation::Nerr9(k.get()), check_k, named_k,
        Nerr9 { k: example_k(), min_rel: 0, max_rel: 3 }
    );
    impl Nerr9 {
        fn cutoff(&self) -> Option<Cutoff> {
            Some(self.k)
        }
    }
}

/// NERReq10 (Azzopardi, Mackenzie and Moffat, ICTIR 2021, eq. 10):
/// stopping by gain with RBP's persistence `p`.
mod nerr10 {
    use super::*;
    cwl_metric!(
        /// NERReq10 (Azzopardi, Mackenzie and Moffat, ICTIR 2021, eq. 10).
        Nerr10, "nerr10", "NERR eq. 10: C/W/L ERR, C(i) = p (1 - gain) (cwl-eval)",
        #[serde(default = "default_nerr10_p")] p: Persistence,
        PARAM_NERR_P, |p: Persistence| Continuation::Nerr10(p.get()), |_| Ok::<(), String>(()),
        |name: CanonicalName, p| name.param_unless_default("p", p, default_nerr10_p()),
        Nerr10 { p: Persistence::new(0.8).unwrap_or_default(), min_rel: 0, max_rel: 3 }
    );
    impl NoCutoff for Nerr10 {}
    impl Default for Nerr10 {
        fn default() -> Self {
            Nerr10 {
                p: default_nerr10_p(),
                min_rel: 0,
                max_rel: 1,
            }
        }
    }
}

/// NERReq11 (Azzopardi, Mackenzie and Moffat, ICTIR 2021, eq. 11):
/// stopping by gain with INSQ's goal `T`.
mod nerr11 {
    use super::*;
    cwl_metric!(
        /// NERReq11 (Azzopardi, Mackenzie and Moffat, ICTIR 2021, eq. 11).
        Nerr11, "nerr11", "NERR eq. 11: C/W/L ERR, C(i) = INSQ's C(i) x (1 - gain) (cwl-eval)",
        #[serde(default = "default_t")] t: f64,
        PARAM_T, Continuation::Nerr11, check_t, named_t, Nerr11 { t: 2.0, min_rel: 0, max_rel: 3 }
    );
    impl NoCutoff for Nerr11 {}
    impl Default for Nerr11 {
        fn default() -> Self {
            Nerr11 {
                t: 1.0,
                min_rel: 0,
                max_rel: 1,
            }
        }
    }
}

const PARAM_SDCG_K: ParamDoc = ParamDoc {
    name: "k",
    alias: None,
    default: "required",
    doc: "the ranks read (`@10`): the DCG of the top k over that of k documents of gain 1",
};

/// Scaled DCG (cwl-eval's `NDCGCWLMetric`, ir_measures' `SDCG`): DCG at
/// `k` over the DCG of `k` documents of gain 1, whatever the judgements
/// hold.
mod sdcg {
    use super::*;
    cwl_metric!(
        /// Scaled DCG (cwl-eval `NDCGCWLMetric`; ir_measures `SDCG`).
        Sdcg, "sdcg", "scaled DCG: DCG@k over the DCG of k fully relevant documents (cwl-eval)",
        #[serde()] k: Cutoff,
        PARAM_SDCG_K, |k: Cutoff| Continuation::Sdcg(k.get()), check_k, named_k,
        Sdcg { k: Cutoff::new(10).unwrap_or_else(|| unreachable!()), min_rel: 0, max_rel: 3 }
    );
    impl Sdcg {
        fn cutoff(&self) -> Option<Cutoff> {
            Some(self.k)
        }
    }
}

const PARAM_BPM_T: ParamDoc = ParamDoc {
    name: "t",
    alias: None,
    default: "1",
    doc: "T, the total gain after which the user stops (positive, up to 2^53; ir_measures writes T)",
};
const PARAM_BPM_K: ParamDoc = ParamDoc {
    name: "k",
    alias: None,
    default: "required",
    doc: "the documents after which the user stops (`@10`; Zhang et al.'s cost bound E_c)",
};

/// The Bejeweled Player Model, static (Zhang, Liu, Li, Zhang, Xu and Ma,
/// "Evaluating Web Search with a Bejeweled Player Model", SIGIR 2017), as
/// cwl-eval's `BPMCWLMetric(T, K)` computes it and ir_measures names it
/// `BPM(T=...)@k`: the user reads on while the gain seen is below `T` and
/// the documents seen below `k`; the value is the mean gain of the ranks
/// read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bpm {
    /// The total gain after which the user stops.
    #[serde(default = "default_t")]
    pub t: f64,
    /// The documents after which the user stops.
    pub k: Cutoff,
    /// The grade of gain 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub min_rel: i32,
    /// The grade of gain 1.
    #[serde(default = "default_max_rel")]
    pub max_rel: i32,
}

impl Bpm {
    fn scale(&self) -> GainScale {
        GainScale {
            min_rel: self.min_rel,
            max_rel: self.max_rel,
        }
    }
    fn continuation(&self) -> Continuation {
        Continuation::Bpm(self.t, self.k.get())
    }
}

#[rankeval_core::metric(
    name = "bpm",
    summary = "BPM: mean gain read until T gain or k documents are seen (cwl-eval)",
    params = &[PARAM_BPM_T, PARAM_BPM_K, PARAM_MIN_REL, PARAM_MAX_REL],
    example = Bpm { t: 2.0, k: Cutoff::new(10).unwrap_or_else(|| unreachable!()), min_rel: 0, max_rel: 3 },
)]
impl Metric for Bpm {
    /// Grades are scaled into gains; no level plays a part.
    fn uses_default_level(&self) -> bool {
        false
    }
    fn name(&self) -> String {
        named_t(CanonicalName::new("bpm"), self.t)
            .param_unless_default("min_rel", self.min_rel, 0)
            .param_unless_default("max_rel", self.max_rel, 1)
            .cutoff(Some(self.k))
    }
    fn depth(&self) -> Option<Cutoff> {
        DEPTH_CUTOFF
    }
    fn score(&self, q: &JudgedRanking<'_>) -> f64 {
        cwl(q, self.continuation(), self.scale())
    }
    fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
        explain_cwl(self, q, self.continuation(), self.scale())
    }
    fn validate(&self) -> Result<(), String> {
        check_t(self.t)?;
        self.scale().validate()
    }
}

const PARAM_NERR_P: ParamDoc = ParamDoc {
    name: "p",
    alias: None,
    default: "0.9",
    doc: "persistence, strictly between 0 and 1 (cwl-eval's phi)",
};

pub use insq::Insq;
pub use inst::Inst;
pub use nerr8::Nerr8;
pub use nerr9::Nerr9;
pub use nerr10::Nerr10;
pub use nerr11::Nerr11;
pub use sdcg::Sdcg;

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::judged;

    const BINARY: GainScale = GainScale {
        min_rel: 0,
        max_rel: 1,
    };

    /// cwl-eval's arithmetic written out over the padded gains.
    fn by_hand(c: impl Fn(usize, f64, f64) -> f64, pattern: &str, scale: GainScale) -> f64 {
        let q = judged(pattern, &[]);
        let mut g: Vec<f64> = q.view().ranked().iter().map(|&j| scale.gain(j)).collect();
        g.resize(DEPTH, 0.0);
        let mut cum = 0.0;
        let cvec: Vec<f64> = g
            .iter()
            .enumerate()
            .map(|(i, &gi)| {
                cum += gi;
                c(i + 1, gi, cum)
            })
            .collect();
        let mut prods = vec![1.0];
        for i in 0..DEPTH - 1 {
            let last = prods[i];
            prods.push(last * cvec[i]);
        }
        let total: f64 = prods.iter().sum();
        prods.iter().zip(&g).map(|(p, gi)| p / total * gi).sum()
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-14, "{a} vs {b}");
    }

    #[test]
    fn each_continuation_is_cwl_evals() {
        for pattern in [
            "1 0 1 1 0 .",
            "0 0 0 1",
            "",
            "1 1 1 1 1 1 1 1 1 1 1 1",
            "2 - 1 3 0",
        ] {
            let scale = GainScale {
                min_rel: 0,
                max_rel: 3,
            };
            for (continuation, c) in [
                (
                    Continuation::Inst(2.0),
                    Box::new(|i: usize, _g: f64, cum: f64| {
                        let i = i as f64;
                        let ti = 2.0 - cum;
                        ((i + 2.0 + ti - 1.0) / (i + 2.0 + ti)).powi(2)
                    }) as Box<dyn Fn(usize, f64, f64) -> f64>,
                ),
                (
                    Continuation::Insq(1.5),
                    Box::new(|i: usize, _g, _| {
                        let i = i as f64;
                        ((i + 3.0 - 1.0) / (i + 3.0)).powi(2)
                    }),
                ),
                (
                    Continuation::Nerr8(3),
                    Box::new(|i: usize, g, _| if i < 3 { 1.0 - g } else { 0.0 }),
                ),
                (
                    Continuation::Nerr9(3),
                    Box::new(|i: usize, g, _| {
                        if i < 3 {
                            i as f64 / (i as f64 + 1.0) * (1.0 - g)
                        } else {
                            0.0
                        }
                    }),
                ),
                (
                    Continuation::Nerr10(0.8),
                    Box::new(|_, g, _| 0.8 * (1.0 - g)),
                ),
                (
                    Continuation::Nerr11(1.0),
                    Box::new(|i: usize, g, _| {
                        let i = i as f64;
                        ((i + 1.0) / (i + 2.0)).powi(2) * (1.0 - g)
                    }),
                ),
                (
                    Continuation::Bpm(1.5, 4),
                    Box::new(
                        |i: usize, _g, cum: f64| {
                            if cum < 1.5 && i < 4 { 1.0 } else { 0.0 }
                        },
                    ),
                ),
                (
                    Continuation::Sdcg(4),
                    Box::new(|i: usize, _g, _| {
                        if i < 4 {
                            (i as f64 + 1.0).log2() / (i as f64 + 2.0).log2()
                        } else {
                            0.0
                        }
                    }),
                ),
            ] {
                let q = judged(pattern, &[]);
                close(
                    cwl(&q.view(), continuation, scale),
                    by_hand(c, pattern, scale),
                );
            }
        }
    }

    #[test]
    fn hand_worked_nerr8_and_nerr10() {
        // Gains 0, 1: NERR8@10 stops for sure at rank 2; W = (1/2, 1/2).
        close(
            cwl(&judged("0 1", &[]).view(), Continuation::Nerr8(10), BINARY),
            0.5,
        );
        // Relevant at rank 1: C(1) = 0, W(1) = 1.
        close(
            cwl(
                &judged("1 0", &[]).view(),
                Continuation::Nerr10(0.8),
                BINARY,
            ),
            1.0,
        );
        // Gains 0, 1, p = 0.5: reach (1, 0.5, 0, ...), W = (2/3, 1/3).
        close(
            cwl(
                &judged("0 1", &[]).view(),
                Continuation::Nerr10(0.5),
                BINARY,
            ),
            1.0 / 3.0,
        );
    }

    #[test]
    fn gains_are_scaled_into_the_range_and_unjudged_is_zero() {
        let scale = GainScale {
            min_rel: 1,
            max_rel: 3,
        };
        let gain = |g: f64| scale.gain(Judgement::judged(g));
        assert_eq!(gain(0.0), 0.0);
        assert_eq!(gain(-1.0), 0.0);
        assert_eq!(gain(2.0), 0.5);
        assert_eq!(gain(5.0), 1.0);
        assert_eq!(scale.gain(Judgement::UNJUDGED), 0.0);
    }

    #[test]
    fn parameters_are_checked_and_named() {
        assert!(
            Inst {
                t: 0.0,
                ..Inst::default()
            }
            .validate()
            .is_err()
        );
        assert!(
            Inst {
                t: f64::NAN,
                ..Inst::default()
            }
            .validate()
            .is_err()
        );
        assert!(
            Insq {
                min_rel: 1,
                max_rel: 1,
                ..Insq::default()
            }
            .validate()
            .is_err()
        );
        assert!(Inst::default().validate().is_ok());
        assert_eq!(Inst::default().name(), "inst");
        assert_eq!(
            Inst {
                t: 2.0,
                min_rel: 0,
                max_rel: 3
            }
            .name(),
            "inst(t=2,max_rel=3)"
        );
        assert_eq!(
            Nerr8 {
                k: Cutoff::new(5).unwrap(),
                min_rel: 1,
                max_rel: 4
            }
            .name(),
            "nerr8(min_rel=1,max_rel=4)@5"
        );
        assert_eq!(Nerr10::default().name(), "nerr10");
    }

    /// SDCG's weights telescope: the DCG at k over the DCG of k documents
    /// of gain 1 (worked by hand on gains 1, 0, 1 at k = 3 and k = 5).
    #[test]
    fn hand_worked_sdcg_is_dcg_over_k_full_gains() {
        let ideal3 = 1.0 + 1.0 / 3f64.log2() + 0.5;
        close(
            cwl(&judged("1 0 1", &[]).view(), Continuation::Sdcg(3), BINARY),
            (1.0 + 0.5) / ideal3,
        );
        // Past the list the gains are 0, but the k ranks still count.
        let ideal5 = ideal3 + 1.0 / 5f64.log2() + 1.0 / 6f64.log2();
        close(
            cwl(&judged("1 0 1", &[]).view(), Continuation::Sdcg(5), BINARY),
            1.5 / ideal5,
        );
        // Judged relevant documents outside the list do not enter it.
        close(
            cwl(
                &judged("1 0 1", &[1, 1, 1]).view(),
                Continuation::Sdcg(3),
                BINARY,
            ),
            1.5 / ideal3,
        );
    }

    /// BPM reads until the gain seen reaches T or the documents reach k,
    /// and is the mean gain of what it read (worked by hand).
    #[test]
    fn hand_worked_bpm_stops_at_its_first_bound() {
        let scale = GainScale {
            min_rel: 0,
            max_rel: 2,
        };
        // Gains 0.5, 0, 1, 1: T = 1.2 is reached at rank 3, so ranks 1-3
        // are read: (0.5 + 0 + 1) / 3.
        let q = judged("1 0 2 2", &[]);
        close(cwl(&q.view(), Continuation::Bpm(1.2, 10), scale), 0.5);
        // k = 2 comes first: (0.5 + 0) / 2.
        close(cwl(&q.view(), Continuation::Bpm(1.2, 2), scale), 0.25);
        // A first document of gain 1 >= T: rank 1 alone.
        close(
            cwl(
                &judged("2 0", &[]).view(),
                Continuation::Bpm(1.0, 10),
                scale,
            ),
            1.0,
        );
    }

    /// cwl-eval 1.0.12 (through ir_measures 0.4.3's `cwl_eval` provider) on
    /// cwl-eval's own test files (github:ireval/cwl `cwl/tests/qrel_file`
    /// and `result_file`, topics T1-T3, ten documents each), values as it
    /// printed them.
    #[test]
    fn cwl_evals_own_test_files() {
        // Each topic's ranking D1..D10 under qrel_file (`.` unjudged).
        let topics = [
            "1 0 1 1 . . 1 0 1 0",
            "1 1 . . 1 0 1 1 1 0",
            ". . . 0 0 1 1 1 0 1",
        ];
        let expected: [(Continuation, [f64; 3]); 5] = [
            (
                Continuation::Bpm(1.2, 10),
                [0.6666666666666666, 1.0, 0.2857142857142857],
            ),
            (
                Continuation::Bpm(1000.0, 10),
                [0.5, 0.6000000000000001, 0.4],
            ),
            (
                Continuation::Bpm(1.0, 1000),
                [1.0, 1.0, 0.16666666666666666],
            ),
            (
                Continuation::Sdcg(10),
                [0.5645441593704201, 0.6531466953037821, 0.28481420121376433],
            ),
            (
                Continuation::Sdcg(5),
                [0.6548086577531307, 0.6843515475204854, 0.0],
            ),
        ];
        for (continuation, values) in expected {
            for (pattern, value) in topics.iter().zip(values) {
                let q = judged(pattern, &[]);
                let got = cwl(&q.view(), continuation, BINARY);
                assert!(
                    (got - value).abs() < 1e-12,
                    "{continuation:?} on {pattern}: {got} vs cwl-eval's {value}"
                );
            }
        }
    }

    #[test]
    fn bpm_and_sdcg_are_named_and_checked() {
        use rankeval_core::registry::parse_metric;
        assert_eq!(
            parse_metric("bpm(t=2,max_rel=3)@10").unwrap().name(),
            "bpm(t=2,max_rel=3)@10"
        );
        assert_eq!(parse_metric("bpm@5").unwrap().name(), "bpm@5");
        assert_eq!(
            parse_metric("sdcg(max_rel=2)@10").unwrap().name(),
            "sdcg(max_rel=2)@10"
        );
        assert!(parse_metric("bpm").is_err(), "k is required");
        assert!(parse_metric("sdcg").is_err(), "k is required");
        assert!(parse_metric("bpm(t=0)@10").is_err());
        assert!(parse_metric("bpm(t=nan)@10").is_err());
        assert!(parse_metric("sdcg(min_rel=2,max_rel=2)@10").is_err());
        // No level: grades are scaled.
        assert!(!parse_metric("bpm@10").unwrap().uses_default_level());
    }
}
