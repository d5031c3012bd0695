//! The ndeval measures as metric plugins. Each reads the query's subtopic
//! judgements at its level (`rel`, else the experiment's), computes with
//! [`ndeval`](super::ndeval)'s functions, and scores 0 for a query without
//! subtopic judgements. `k` cuts the list (none: the whole list, so `k` is
//! its length for the measures divided by `k`).

use rankeval_core::explain::Explanation;
use rankeval_core::registry::{PARAM_K, PARAM_REL, ParamDoc};
use rankeval_core::{
    CanonicalName, Cutoff, Grade, JudgedRanking, Metric, RelevanceLevel, Requirement,
};
use serde::{Deserialize, Serialize};

use super::Share;
use super::ndeval::{self, Intents};
use crate::common::is_none;

const PARAM_ALPHA: ParamDoc = ParamDoc {
    name: "alpha",
    alias: None,
    default: "0.5",
    doc: "redundancy intolerance, from 0 to 1: a subtopic's gain is (1 - alpha)^(documents above relevant to it) (ndeval -alpha)",
};

const PARAM_BETA: ParamDoc = ParamDoc {
    name: "beta",
    alias: None,
    default: "0.5",
    doc: "patience, from 0 to 1: the chance of going on to the next rank (ndeval -beta)",
};

const PARAMS_K_ALPHA: &[ParamDoc] = &[PARAM_K, PARAM_REL, PARAM_ALPHA];
const PARAMS_NRBP: &[ParamDoc] = &[PARAM_K, PARAM_REL, PARAM_ALPHA, PARAM_BETA];
const PARAMS_K: &[ParamDoc] = &[PARAM_K, PARAM_REL];

/// `f` of the query's intents at `level` and its ranked documents' places
/// (cut at `k`), or 0 without subtopic judgements.
fn on_intents(
    q: &JudgedRanking<'_>,
    level: Grade,
    k: Option<Cutoff>,
    f: impl FnOnce(&Intents<'_>, &[u32]) -> f64,
) -> f64 {
    match q.subtopics() {
        Some(view) => {
            let (intents, ranked) = ndeval::intents(&view, level);
            let ranked = &ranked[..cut(k, ranked.len())];
            f(&intents, ranked)
        }
        None => 0.0,
    }
}

/// `k`, or the list's length without one.
fn cut(k: Option<Cutoff>, len: usize) -> usize {
    k.map_or(len, |k| k.get().min(len))
}

/// The `k` a measure divides by: `k`, or the list's length without one.
fn depth_of(k: Option<Cutoff>, len: usize) -> usize {
    k.map_or(len, Cutoff::get)
}

/// The explanation every diversity metric starts from: per rank, the
/// number of subtopics the document is relevant to and its
/// novelty-discounted gain `g(i)`; `|S|` and the subtopics named.
fn explained(
    metric: &(impl Metric + ?Sized),
    q: &JudgedRanking<'_>,
    level: Grade,
    k: Option<Cutoff>,
    alpha: Option<f64>,
) -> Explanation {
    let mut explanation = Explanation::new(metric, q).level(level);
    let Some(view) = q.subtopics() else {
        return explanation.formula(format!(
            "{} = 0 (no subtopic judgements for this query)",
            metric.name()
        ));
    };
    let (intents, ranked) = ndeval::intents(&view, level);
    let read = cut(k, ranked.len());
    let counts = intents.counts(ranked);
    let column = |values: Vec<f64>| -> Vec<Option<f64>> {
        (0..q.ranked().len())
            .map(|i| (i < read).then(|| values.get(i).copied().unwrap_or(0.0)))
            .collect()
    };
    explanation = explanation.column(
        "subtopics",
        column(counts.iter().map(|&c| c as f64).collect()),
    );
    if let Some(alpha) = alpha {
        explanation = explanation.column("g(i)", column(intents.gains(ranked, alpha)));
    }
    explanation
        .quantity(
            "|S| (subtopics with a relevant document)",
            intents.actual() as f64,
        )
        .quantity("subtopics named", view.query().num_subtopics() as f64)
}

macro_rules! cutoff_metric {
    (
        $(#[$doc:meta])*
        $ty:ident, $name:literal, $aliases:expr, $summary:literal,
        |$self_:ident, $intents:ident, $ranked:ident, $len:ident| $body:expr,
        $formula:literal
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $ty {
            /// Cutoff; `None` = the whole list.
            #[serde(default, skip_serializing_if = "is_none")]
            pub k: Option<Cutoff>,
            /// Relevance level of the subtopic judgements; `None` = the
            /// experiment's.
            #[serde(default, skip_serializing_if = "is_none")]
            pub rel: Option<RelevanceLevel>,
            /// Redundancy intolerance.
            #[serde(default)]
            pub alpha: Share,
        }

        #[rankeval_core::metric(
            name = $name,
            aliases = $aliases,
            summary = $summary,
            params = PARAMS_K_ALPHA,
            example = $ty { k: Cutoff::new(20), rel: None, alpha: Share::HALF },
        )]
        impl Metric for $ty {
            fn name(&self) -> String {
                CanonicalName::new($name)
                    .param_if_set("rel", self.rel)
                    .param_unless_default("alpha", self.alpha, Share::HALF)
                    .cutoff(self.k)
            }
            fn depth(&self) -> Option<Cutoff> {
                self.k
            }
            fn uses_default_level(&self) -> bool {
                self.rel.is_none()
            }
            fn requires(&self) -> &'static [Requirement] {
                &[Requirement::Subtopics]
            }
            fn score(&self, q: &JudgedRanking<'_>) -> f64 {
                let $self_ = self;
                let full = q.ranked().len();
                on_intents(q, q.level(self.rel), None, |$intents, $ranked| {
                    let $len = depth_of($self_.k, full);
                    $body
                })
            }
            fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
                let level = q.level(self.rel);
                explained(self, q, level, self.k, Some(self.alpha.get()))
                    .formula(format!(concat!("{} = ", $formula), self.name()))
            }
        }
    };
}

cutoff_metric!(
    /// alpha-DCG@k (Clarke et al., SIGIR 2008) as ndeval reports it: the
    /// discounted sum of the novelty-discounted gains over the top k,
    /// divided by that of a list covering all `|S|` subtopics at every rank.
    AlphaDcg, "alpha_dcg", &[], "alpha-DCG@k (ndeval): novelty-discounted DCG, normalized by |S| a rank",
    |m, intents, ranked, k| ndeval::alpha_dcg(&intents.gains(ranked, m.alpha.get()), intents.actual(), m.alpha.get(), k),
    "sum g(i) / log2(i + 1) over the top k, divided by sum |S| (1 - alpha)^(i-1) / log2(i + 1)"
);

cutoff_metric!(
    /// alpha-nDCG@k (Clarke et al., SIGIR 2008) as ndeval computes it:
    /// alpha-DCG@k over alpha-DCG@k of ndeval's greedy ideal ranking.
    AlphaNdcg, "alpha_ndcg", &["a_ndcg"], "alpha-nDCG@k (ndeval): alpha-DCG@k over that of the greedy ideal ranking",
    |m, intents, ranked, k| {
        let alpha = m.alpha.get();
        let actual = intents.actual();
        let value = ndeval::alpha_dcg(&intents.gains(ranked, alpha), actual, alpha, k);
        let ideal = ndeval::alpha_dcg(&intents.gains(&intents.ideal(alpha), alpha), actual, alpha, k);
        ndeval::against_ideal(value, ideal)
    },
    "alpha-DCG@k / alpha-DCG@k of the greedy ideal ranking"
);

cutoff_metric!(
    /// ERR-IA@k as ndeval reports it (Chapelle et al., CIKM 2009, in
    /// ndeval's form): the sum of the novelty-discounted gains divided by
    /// the rank over the top k, normalized as alpha-DCG.
    ErrIa, "err_ia", &["erria"], "ERR-IA@k (ndeval): novelty-discounted gain / rank, normalized as alpha_dcg",
    |m, intents, ranked, k| ndeval::err_ia(&intents.gains(ranked, m.alpha.get()), intents.actual(), m.alpha.get(), k),
    "sum g(i) / i over the top k, divided by sum |S| (1 - alpha)^(i-1) / i"
);

cutoff_metric!(
    /// nERR-IA@k as ndeval computes it: ERR-IA@k over that of ndeval's
    /// greedy ideal ranking.
    NerrIa, "nerr_ia", &["nerria"], "nERR-IA@k (ndeval): ERR-IA@k over that of the greedy ideal ranking",
    |m, intents, ranked, k| {
        let alpha = m.alpha.get();
        let actual = intents.actual();
        let value = ndeval::err_ia(&intents.gains(ranked, alpha), actual, alpha, k);
        let ideal = ndeval::err_ia(&intents.gains(&intents.ideal(alpha), alpha), actual, alpha, k);
        ndeval::against_ideal(value, ideal)
    },
    "ERR-IA@k / ERR-IA@k of the greedy ideal ranking"
);

macro_rules! binary_metric {
    (
        $(#[$doc:meta])*
        $ty:ident, $name:literal, $aliases:expr, $summary:literal,
        |$self_:ident, $intents:ident, $ranked:ident, $len:ident| $body:expr,
        $formula:literal
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $ty {
            /// Cutoff; `None` = the whole list.
            #[serde(default, skip_serializing_if = "is_none")]
            pub k: Option<Cutoff>,
            /// Relevance level of the subtopic judgements; `None` = the
            /// experiment's.
            #[serde(default, skip_serializing_if = "is_none")]
            pub rel: Option<RelevanceLevel>,
        }

        #[rankeval_core::metric(
            name = $name,
            aliases = $aliases,
            summary = $summary,
            params = PARAMS_K,
            example = $ty { k: Cutoff::new(20), rel: None },
        )]
        impl Metric for $ty {
            fn name(&self) -> String {
                CanonicalName::new($name)
                    .param_if_set("rel", self.rel)
                    .cutoff(self.k)
            }
            fn depth(&self) -> Option<Cutoff> {
                self.k
            }
            fn uses_default_level(&self) -> bool {
                self.rel.is_none()
            }
            fn requires(&self) -> &'static [Requirement] {
                &[Requirement::Subtopics]
            }
            fn score(&self, q: &JudgedRanking<'_>) -> f64 {
                let $self_ = self;
                let full = q.ranked().len();
                on_intents(q, q.level(self.rel), self.k, |$intents, $ranked| {
                    let $len = depth_of($self_.k, full);
                    $body
                })
            }
            fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
                let level = q.level(self.rel);
                explained(self, q, level, self.k, None)
                    .formula(format!(concat!("{} = ", $formula), self.name()))
            }
        }
    };
}

binary_metric!(
    /// Intent-aware precision P-IA@k (Agrawal et al., WSDM 2009) as ndeval
    /// computes it: the relevant (document, subtopic) pairs in the top k,
    /// divided by `k x |S|`.
    PIa, "p_ia", &["pia"], "P-IA@k (ndeval): relevant (document, subtopic) pairs in the top k / (k |S|)",
    |_m, intents, ranked, k| ndeval::p_ia(&intents.counts(ranked), intents.actual(), k),
    "relevant (document, subtopic) pairs in the top k / (k x |S|)"
);

binary_metric!(
    /// Subtopic recall strec@k (Zhai et al., SIGIR 2003) as ndeval
    /// computes it: the subtopics covered by the top k, divided by `|S|`.
    Strec, "strec", &["subtopic_recall", "s_recall"], "subtopic recall@k (ndeval): subtopics covered by the top k / |S|",
    |_m, intents, ranked, _k| ndeval::strec(intents, ranked, usize::MAX),
    "subtopics covered by the top k / |S|"
);

binary_metric!(
    /// Intent-aware average precision MAP-IA as ndeval computes it: per
    /// subtopic, average precision over its relevant documents; the mean
    /// over the `|S|` subtopics. `k` cuts the list (ndeval's `-M`).
    MapIa, "map_ia", &["ap_ia"], "MAP-IA (ndeval): mean over the subtopics of average precision on each",
    |_m, intents, ranked, _k| ndeval::map_ia(intents, ranked),
    "sum over subtopics s of (sum of P@i at s's relevant ranks i) / |R(s)|, divided by |S|"
);

macro_rules! nrbp_metric {
    (
        $(#[$doc:meta])*
        $ty:ident, $name:literal, $aliases:expr, $summary:literal, $normalized:literal,
        $formula:literal
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $ty {
            /// Cutoff of the run (ndeval's `-M`); `None` = the whole list.
            #[serde(default, skip_serializing_if = "is_none")]
            pub k: Option<Cutoff>,
            /// Relevance level of the subtopic judgements; `None` = the
            /// experiment's.
            #[serde(default, skip_serializing_if = "is_none")]
            pub rel: Option<RelevanceLevel>,
            /// Redundancy intolerance.
            #[serde(default)]
            pub alpha: Share,
            /// Patience.
            #[serde(default)]
            pub beta: Share,
        }

        #[rankeval_core::metric(
            name = $name,
            aliases = $aliases,
            summary = $summary,
            params = PARAMS_NRBP,
            example = $ty { k: None, rel: None, alpha: Share::HALF, beta: Share::HALF },
        )]
        impl Metric for $ty {
            fn name(&self) -> String {
                CanonicalName::new($name)
                    .param_if_set("rel", self.rel)
                    .param_unless_default("alpha", self.alpha, Share::HALF)
                    .param_unless_default("beta", self.beta, Share::HALF)
                    .cutoff(self.k)
            }
            fn depth(&self) -> Option<Cutoff> {
                self.k
            }
            fn uses_default_level(&self) -> bool {
                self.rel.is_none()
            }
            fn requires(&self) -> &'static [Requirement] {
                &[Requirement::Subtopics]
            }
            fn score(&self, q: &JudgedRanking<'_>) -> f64 {
                let (alpha, beta) = (self.alpha.get(), self.beta.get());
                on_intents(q, q.level(self.rel), self.k, |intents, ranked| {
                    let actual = intents.actual();
                    let value = ndeval::nrbp(&intents.gains(ranked, alpha), actual, alpha, beta);
                    if $normalized {
                        let ideal = intents.gains(&intents.ideal(alpha), alpha);
                        let ideal = ndeval::nrbp(&ideal, actual, alpha, beta);
                        if ideal == 0.0 { 0.0 } else { value / ideal }
                    } else {
                        value
                    }
                })
            }
            fn explain(&self, q: &JudgedRanking<'_>) -> Explanation {
                let level = q.level(self.rel);
                explained(self, q, level, self.k, Some(self.alpha.get()))
                    .formula(format!(concat!("{} = ", $formula), self.name()))
            }
        }
    };
}

nrbp_metric!(
    /// NRBP, novelty- and rank-biased precision (Clarke et al., ICTIR
    /// 2009), as ndeval computes it: `(1 - (1 - alpha) beta) / |S| x sum_i
    /// g(i) beta^(i-1)` over the whole list.
    Nrbp, "nrbp", &[], "NRBP (ndeval): (1 - (1 - alpha) beta) / |S| x sum of g(i) beta^(i-1)", false,
    "(1 - (1 - alpha) beta) / |S| x sum g(i) beta^(i-1)"
);

nrbp_metric!(
    /// nNRBP as ndeval computes it: NRBP over the NRBP of ndeval's greedy
    /// ideal ranking (0, where ndeval gives NaN, for a query with no
    /// relevant subtopic).
    Nnrbp, "nnrbp", &[], "nNRBP (ndeval): NRBP over that of the greedy ideal ranking", true,
    "NRBP / NRBP of the greedy ideal ranking"
);

#[cfg(test)]
mod tests {

    use rankeval_core::registry::parse_metric;

    #[test]
    fn canonical_names_parse_back() {
        for text in [
            "alpha_ndcg@20",
            "alpha_ndcg(alpha=0.8)@5",
            "alpha_dcg@10",
            "err_ia@20",
            "nerr_ia(rel=2)@10",
            "nrbp",
            "nnrbp(alpha=0.25,beta=0.75)",
            "p_ia@5",
            "map_ia",
            "strec@10",
        ] {
            let metric = parse_metric(text).unwrap();
            assert_eq!(metric.name(), text);
            assert!(metric.reads_subtopics(), "{text}");
        }
        assert_eq!(parse_metric("a_ndcg@10").unwrap().name(), "alpha_ndcg@10");
        assert!(parse_metric("alpha_ndcg(alpha=1.5)@10").is_err());
        assert!(parse_metric("nrbp(beta=-0.1)").is_err());
        // The condensed list and completed judgements have no subtopics.
        for text in [
            "alpha_ndcg(judged_only=true)@5",
            "strec(unjudged=relevant)@5",
        ] {
            let e = parse_metric(text).unwrap_err().to_string();
            assert!(e.contains("subtopic judgements"), "{text}: {e}");
        }
        // ties are no wrapping of the view: they pass through.
        assert!(
            parse_metric("p_ia(ties=docid)@5")
                .unwrap()
                .reads_subtopics()
        );
    }
}
