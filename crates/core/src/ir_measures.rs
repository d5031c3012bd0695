//! ir_measures' names (`nDCG@10`, `RR(rel=2)@10`, `AP(rel=2)`,
//! `Success@5`, `Judged@10`, `R@1000`, `IPrec@0.2`, `NumRet`, `SetP`...)
//! read as rankeval's metrics: one table, [`MEASURES`], from each of
//! ir_measures' measures (ir_measures 0.4, `ir_measures/measures/*.py`:
//! their names, aliases, parameters and defaults) to the rankeval metric
//! that gives ir_measures' per-query value, and [`REFUSED`], the measures
//! with no equivalent and why, refused rather than guessed.
//!
//! A name is read as ir_measures' only when spelled exactly as ir_measures
//! spells it (case matters there: `R` is its recall, `NumRet` its count);
//! any other spelling is rankeval's own name, matched without case, and so
//! is a name without the `@` value ir_measures requires (`P` alone is
//! rankeval's precision of the whole list, as before). A
//! parameter of the ir_measures measure is renamed or converted (`cutoff`
//! is `k`, `dcg=exp-log2` is `gain=exponential`, `judged_only=True`); any
//! other parameter is left for rankeval's metric, so `AP(norm=truncated)`
//! still means what it did.
//!
//! What differs by default, and is kept as rankeval's (docs/metrics.md,
//! docs/coming-from/ir-measures.md):
//! - ir_measures scores a judged query missing from the run as 0 in every
//!   measure; rankeval leaves it out unless `--missing zero`.
//! - A measure written without `rel` takes the experiment's level (`--rel`,
//!   1 unless set), ir_measures' default being 1: the two agree unless
//!   `--rel` is set.
//! - ir_measures sums `NumRet`, `NumRelRet` and `NumRel` over queries;
//!   rankeval's `mean` aggregator gives the mean ([`Aggregate::Sum`]).
//!   Its `NumRel` of a judged query missing from the run is 0 (every
//!   measure of such a query is); rankeval's `num_rel` counts the query's
//!   relevant documents whether the run has it or not.
//! - `IPrec@x` is trec_eval 9's (pytrec_eval): (long)(x |R| + 0.9)
//!   relevant documents to reach; rankeval's `iprec_at_recall` is trec_eval
//!   10's, lround(x |R|), so the two differ on a query where these counts
//!   differ (x = 0.2, |R| = 6: 2 and 1).
//!
//! `scripts/cross-check/ir-measures.py` evaluates generated data with
//! ir_measures and with rankeval for every mapped name.

use crate::error::PluginError;
use crate::params::ParamValue;
use crate::syntax::Spec;

/// How ir_measures aggregates a measure over queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregate {
    /// The mean over queries, as rankeval's default `mean`.
    Mean,
    /// The sum over queries (counts); rankeval's `mean` times the queries.
    Sum,
}

/// What an ir_measures parameter becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// The rankeval parameter of this name, value as written (`True` and
    /// `False` as booleans).
    To(&'static str),
    /// `dcg`: `log2` is rankeval's linear gain (the default), `exp-log2`
    /// is `gain=exponential`.
    Dcg,
    /// `NumRet`'s `rel`: with it, the relevant documents retrieved,
    /// rankeval's `num_rel_ret(rel=...)`.
    RelevantRetrieved,
    /// A parameter no rankeval metric takes the same way: refused, why.
    Refused(&'static str),
}

/// One ir_measures measure that rankeval computes.
#[derive(Clone, Copy, Debug)]
pub struct Measure {
    /// ir_measures' name and aliases, as it spells them.
    pub names: &'static [&'static str],
    /// The rankeval metric.
    pub metric: &'static str,
    /// Parameters fixed by the name (`NumRelRet` is `NumRet(rel=1)`).
    pub fixed: &'static [(&'static str, i64)],
    /// What `@x` sets in ir_measures (`cutoff`, or `recall` for `IPrec`).
    pub at: &'static str,
    /// Whether ir_measures requires the `@` value (`P`, `R`, `Success`):
    /// without it the name is not ir_measures' measure but rankeval's.
    pub at_required: bool,
    /// ir_measures' parameters, each as rankeval takes it.
    pub params: &'static [(&'static str, Param)],
    /// How ir_measures aggregates it.
    pub aggregate: Aggregate,
}

const CUTOFF: (&str, Param) = ("cutoff", Param::To("k"));
const REL: (&str, Param) = ("rel", Param::To("rel"));
const JUDGED_ONLY: (&str, Param) = ("judged_only", Param::To("judged_only"));
const T: (&str, Param) = ("T", Param::To("t"));
const MIN_REL: (&str, Param) = ("min_rel", Param::To("min_rel"));
const MAX_REL: (&str, Param) = ("max_rel", Param::To("max_rel"));

/// Every ir_measures measure rankeval computes as ir_measures does.
pub const MEASURES: &[Measure] = &[
    Measure {
        names: &["AP", "MAP"],
        metric: "average_precision",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[CUTOFF, REL, JUDGED_ONLY],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["P", "Precision"],
        metric: "precision",
        fixed: &[],
        at: "cutoff",
        at_required: true,
        params: &[CUTOFF, REL, JUDGED_ONLY],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["R", "Recall"],
        metric: "recall",
        fixed: &[],
        at: "cutoff",
        at_required: true,
        params: &[CUTOFF, REL, JUDGED_ONLY],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["RR", "MRR"],
        metric: "reciprocal_rank",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[CUTOFF, REL, JUDGED_ONLY],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["nDCG", "NDCG"],
        metric: "ndcg",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[
            CUTOFF,
            ("dcg", Param::Dcg),
            (
                "gains",
                Param::Refused("a gain per grade is rankeval's ndcg_gain_map(gains=\"1=3,2=9\")"),
            ),
            JUDGED_ONLY,
        ],
        aggregate: Aggregate::Mean,
    },
    // ir_measures computes ERR with gdeval.pl: R = (2^g - 1) / 2^4, the
    // grade capped at 4 (gdeval refuses a higher one), rankeval's default.
    Measure {
        names: &["ERR"],
        metric: "err",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[CUTOFF],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["Success"],
        metric: "hit_rate",
        fixed: &[],
        at: "cutoff",
        at_required: true,
        params: &[CUTOFF, REL, JUDGED_ONLY],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["Judged"],
        metric: "judged",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[CUTOFF],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["Rprec", "RPrec"],
        metric: "r_precision",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[REL, JUDGED_ONLY],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["Bpref", "BPref"],
        metric: "bpref",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[REL],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["infAP"],
        metric: "infap",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[REL],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["IPrec"],
        metric: "iprec_at_recall",
        fixed: &[],
        at: "recall",
        at_required: true,
        params: &[("recall", Param::To("recall")), REL, JUDGED_ONLY],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["SetP"],
        metric: "precision",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[REL, ("relative", Param::To("relative")), JUDGED_ONLY],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["SetRelP"],
        metric: "relative_precision",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[REL, JUDGED_ONLY],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["SetR"],
        metric: "recall",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[REL],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["SetF"],
        metric: "f1",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        // ir_measures hands `beta` to trec_eval's set_F as its parameter x,
        // (x + 1) P R / (x P + R): rankeval's beta2, not beta.
        params: &[REL, ("beta", Param::To("beta2")), JUDGED_ONLY],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["SetAP"],
        metric: "set_map",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[REL, JUDGED_ONLY],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["NumRet"],
        metric: "num_ret",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[("rel", Param::RelevantRetrieved)],
        aggregate: Aggregate::Sum,
    },
    Measure {
        names: &["NumRelRet"],
        metric: "num_rel_ret",
        fixed: &[("rel", 1)],
        at: "cutoff",
        at_required: false,
        params: &[REL],
        aggregate: Aggregate::Sum,
    },
    Measure {
        names: &["NumRel"],
        metric: "num_rel",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[REL],
        aggregate: Aggregate::Sum,
    },
    // C/W/L measures ir_measures computes with cwl-eval: the grade clipped
    // to [min_rel, max_rel] and scaled to [0, 1], as rankeval's are.
    Measure {
        names: &["INST"],
        metric: "inst",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[T, MIN_REL, MAX_REL],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["INSQ"],
        metric: "insq",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[T, MIN_REL, MAX_REL],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["NERR8"],
        metric: "nerr8",
        fixed: &[],
        at: "cutoff",
        at_required: true,
        params: &[CUTOFF, MIN_REL, MAX_REL],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["NERR9"],
        metric: "nerr9",
        fixed: &[],
        at: "cutoff",
        at_required: true,
        params: &[CUTOFF, MIN_REL, MAX_REL],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["NERR10"],
        metric: "nerr10",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[("p", Param::To("p")), MIN_REL, MAX_REL],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["NERR11"],
        metric: "nerr11",
        fixed: &[],
        at: "cutoff",
        at_required: false,
        params: &[T, MIN_REL, MAX_REL],
        aggregate: Aggregate::Mean,
    },
    // BPM and SDCG: cwl-eval's BPMCWLMetric(T, cutoff) and
    // NDCGCWLMetric(cutoff), the grade scaled as above.
    Measure {
        names: &["BPM"],
        metric: "bpm",
        fixed: &[],
        at: "cutoff",
        at_required: true,
        params: &[CUTOFF, T, MIN_REL, MAX_REL],
        aggregate: Aggregate::Mean,
    },
    Measure {
        names: &["SDCG"],
        metric: "sdcg",
        fixed: &[],
        at: "cutoff",
        at_required: true,
        params: &[CUTOFF, ("dcg", Param::Dcg), MIN_REL, MAX_REL],
        aggregate: Aggregate::Mean,
    },
    // ir_measures' Compat sums the overlap to the longer of the run and
    // the ideal ranking (compatibility.py: to 1000 ranks): `depth = 0`.
    Measure {
        names: &["Compat"],
        metric: "compatibility",
        fixed: &[("depth", 0)],
        at: "cutoff",
        at_required: false,
        params: &[("p", Param::To("p")), ("normalize", Param::To("normalize"))],
        aggregate: Aggregate::Mean,
    },
];

/// ir_measures' measures rankeval refuses, each with the reason.
pub const REFUSED: &[(&[&str], &str)] = &[
    (
        &["NumQ"],
        "the number of queries, which every rankeval report gives (num_q in trec_eval output)",
    ),
    (
        &["RBP"],
        "ir_measures 0.4 computes RBP(rel=...) with cwl-eval, whose weights are normalised over \
         the 1000 ranks it pads to, (1 - p) / (1 - p^1000) instead of Moffat and Zobel's 1 - p \
         (p = 0.99: 4.3e-5 apart), and RBP without rel with ranx or trectools, whichever is \
         installed; rankeval's own is rbp(p=...,gain=binary|graded) (Moffat and Zobel)",
    ),
    (
        &[
            "alpha_nDCG",
            "α_nDCG",
            "alpha_DCG",
            "α_DCG",
            "ERR_IA",
            "nERR_IA",
            "P_IA",
            "AP_IA",
            "MAP_IA",
            "StRecall",
            "NRBP",
            "nNRBP",
        ],
        "ir_measures computes it with pyndeval from the qrels' iteration column, which \
         rankeval's qrels do not carry; rankeval's diversity measures (alpha_ndcg, err_ia, nrbp, \
         ... docs/diversity.md) read subtopic qrels given with --subtopic-qrels",
    ),
    (
        &["Accuracy"],
        "ir_measures' accuracy of a pairwise preference has no rankeval equivalent",
    ),
];

/// The table's entry spelled `name` exactly, if ir_measures has one.
pub fn find(name: &str) -> Option<&'static Measure> {
    MEASURES.iter().find(|m| m.names.contains(&name))
}

/// Reads `spec` as ir_measures' measure if its name is spelled as
/// ir_measures spells one: the rankeval spec that gives its value, or the
/// refusal. Any other spec is returned as it is.
pub fn translate(spec: Spec) -> Result<Spec, PluginError> {
    let refuse = |measure: &'static str, reason: String| PluginError::IrMeasures {
        name: spec.name.clone(),
        measure,
        reason,
    };
    if let Some((names, reason)) = REFUSED
        .iter()
        .find(|(n, _)| n.contains(&spec.name.as_str()))
    {
        return Err(refuse(names[0], (*reason).to_owned()));
    }
    let Some(measure) = find(&spec.name) else {
        return Ok(spec);
    };
    let own = measure.names[0];
    let mut metric = measure.metric;
    let mut params: Vec<(String, ParamValue)> = measure
        .fixed
        .iter()
        .map(|&(name, value)| (name.to_owned(), ParamValue::Integer(value)))
        .collect();
    let mut at_given = false;
    for (name, value) in &spec.params {
        // `@x` is `k` in the short syntax: ir_measures' `cutoff` or `recall`.
        let name = if name == "k" {
            measure.at
        } else {
            name.as_str()
        };
        at_given |= name == measure.at;
        let Some((_, param)) = measure.params.iter().find(|(p, _)| *p == name) else {
            // Not ir_measures': the rankeval metric's own parameter.
            params.push((name.to_owned(), value.clone()));
            continue;
        };
        match *param {
            Param::To("relative") => match python_bool(value) {
                Some(true) => metric = "relative_precision",
                Some(false) => {}
                None => {
                    return Err(refuse(
                        own,
                        format!("relative={value}: expected True or False"),
                    ));
                }
            },
            Param::To(to) => {
                let value = match (to, python_bool(value)) {
                    ("judged_only" | "normalize", Some(yes)) => ParamValue::Bool(yes),
                    _ => value.clone(),
                };
                params.push((to.to_owned(), value));
            }
            Param::Dcg => match python_str(value) {
                Some("log2") => {}
                Some("exp-log2") => {
                    params.push(("gain".to_owned(), ParamValue::String("exponential".into())));
                }
                _ => {
                    return Err(refuse(
                        own,
                        format!("dcg={value}: ir_measures' choices are log2 and exp-log2"),
                    ));
                }
            },
            Param::RelevantRetrieved => {
                metric = "num_rel_ret";
                params.push(("rel".to_owned(), value.clone()));
            }
            Param::Refused(why) => return Err(refuse(own, format!("`{name}`: {why}"))),
        }
    }
    if measure.at_required && !at_given {
        // Not ir_measures' (it requires `P@k`): rankeval's own name, as
        // before (`P` is precision over the whole list).
        return Ok(spec);
    }
    Ok(Spec {
        name: metric.to_owned(),
        params,
    })
}

/// A string as ir_measures writes it, `'log2'` (Python's quotes; the
/// short syntax's `"log2"` and a bare `log2` are strings already).
fn python_str(value: &ParamValue) -> Option<&str> {
    match value {
        ParamValue::String(text) => Some(
            text.strip_prefix('\'')
                .and_then(|t| t.strip_suffix('\''))
                .unwrap_or(text),
        ),
        _ => None,
    }
}

/// `True`/`False` as ir_measures writes them (Python), or `true`/`false`.
fn python_bool(value: &ParamValue) -> Option<bool> {
    match value {
        ParamValue::Bool(yes) => Some(*yes),
        ParamValue::String(text) if text == "True" => Some(true),
        ParamValue::String(text) if text == "False" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Spec, PluginError> {
        translate(Spec::parse(text).unwrap())
    }

    fn spec(name: &str, params: &[(&str, ParamValue)]) -> Spec {
        Spec {
            name: name.to_owned(),
            params: params
                .iter()
                .map(|(n, v)| ((*n).to_owned(), v.clone()))
                .collect(),
        }
    }

    #[test]
    fn ir_measures_names_become_rankeval_specs() {
        use ParamValue::{Bool, Float, Integer, String as S};
        assert_eq!(
            read("nDCG@10").unwrap(),
            spec("ndcg", &[("k", Integer(10))])
        );
        assert_eq!(
            read("RR(rel=2)@10").unwrap(),
            spec(
                "reciprocal_rank",
                &[("rel", Integer(2)), ("k", Integer(10))]
            )
        );
        assert_eq!(
            read("IPrec@0.2").unwrap(),
            spec("iprec_at_recall", &[("recall", Float(0.2))])
        );
        assert_eq!(
            read("nDCG(dcg='exp-log2',judged_only=True)@5").unwrap(),
            spec(
                "ndcg",
                &[
                    ("gain", S("exponential".into())),
                    ("judged_only", Bool(true)),
                    ("k", Integer(5))
                ]
            )
        );
        assert_eq!(
            read("SetP(relative=True)").unwrap(),
            spec("relative_precision", &[])
        );
        assert_eq!(
            read("NumRelRet").unwrap(),
            spec("num_rel_ret", &[("rel", Integer(1))])
        );
        assert_eq!(
            read("NumRet(rel=2)").unwrap(),
            spec("num_rel_ret", &[("rel", Integer(2))])
        );
        // rankeval's own parameters pass through; other spellings are rankeval's.
        assert_eq!(
            read("AP(norm=truncated)@10").unwrap(),
            spec(
                "average_precision",
                &[("norm", S("truncated".into())), ("k", Integer(10))]
            )
        );
        assert_eq!(
            read("ndcg@10").unwrap(),
            spec("ndcg", &[("k", Integer(10))])
        );
        assert_eq!(read("numret").unwrap().name, "numret");
        // Without the `@` ir_measures requires, rankeval's own reading.
        assert_eq!(read("P").unwrap(), spec("P", &[]));
        assert_eq!(read("IPrec(rel=2)").unwrap().name, "IPrec");
    }

    #[test]
    fn measures_without_an_equivalent_are_refused_with_the_reason() {
        for (text, says) in [
            ("NumQ", "number of queries"),
            ("alpha_nDCG@10", "subtopic"),
            ("RBP", "1 - p^1000"),
            ("RBP(rel=1,p=0.5)", "cwl-eval"),
            ("alpha_nDCG@10", "--subtopic-qrels"),
            ("nDCG(dcg=log3)", "log2 and exp-log2"),
        ] {
            let e = read(text).unwrap_err();
            assert!(matches!(e, PluginError::IrMeasures { .. }), "{text}: {e:?}");
            assert!(e.to_string().contains(says), "{text}: {e}");
        }
        assert!(
            read("nDCG(gains=x)")
                .unwrap_err()
                .to_string()
                .contains("ndcg_gain_map")
        );
    }

    #[test]
    fn cwl_eval_and_compat_names_become_rankeval_specs() {
        use ParamValue::{Bool, Float, Integer};
        assert_eq!(
            read("INST(T=2,max_rel=3)").unwrap(),
            spec("inst", &[("t", Integer(2)), ("max_rel", Integer(3))])
        );
        assert_eq!(
            read("NERR8(max_rel=1)@10").unwrap(),
            spec("nerr8", &[("max_rel", Integer(1)), ("k", Integer(10))])
        );
        assert_eq!(
            read("NERR10(p=0.8,min_rel=1,max_rel=2)").unwrap(),
            spec(
                "nerr10",
                &[
                    ("p", Float(0.8)),
                    ("min_rel", Integer(1)),
                    ("max_rel", Integer(2))
                ]
            )
        );
        assert_eq!(
            read("Compat(p=0.9,normalize=False)").unwrap(),
            spec(
                "compatibility",
                &[
                    ("depth", Integer(0)),
                    ("p", Float(0.9)),
                    ("normalize", Bool(false))
                ]
            )
        );
        // NERR8 without its cutoff is not ir_measures' measure.
        assert_eq!(read("NERR8").unwrap(), spec("NERR8", &[]));
        assert_eq!(
            read("BPM(T=1.5,max_rel=3)@10").unwrap(),
            spec(
                "bpm",
                &[
                    ("t", Float(1.5)),
                    ("max_rel", Integer(3)),
                    ("k", Integer(10))
                ]
            )
        );
        assert_eq!(
            read("SDCG(dcg='log2',min_rel=1,max_rel=2)@5").unwrap(),
            spec(
                "sdcg",
                &[
                    ("min_rel", Integer(1)),
                    ("max_rel", Integer(2)),
                    ("k", Integer(5))
                ]
            )
        );
        // ir_measures' SDCG has log2 only; BPM and SDCG need their cutoff.
        assert!(
            read("SDCG(dcg='exp-log2')@5").is_ok_and(|s| s.params.iter().any(|(n, _)| n == "gain"))
        );
        assert_eq!(read("BPM").unwrap(), spec("BPM", &[]));
    }

    #[test]
    fn every_name_is_in_one_place_only() {
        let mut seen: Vec<&str> = Vec::new();
        for name in MEASURES
            .iter()
            .flat_map(|m| m.names.iter())
            .chain(REFUSED.iter().flat_map(|(n, _)| n.iter()))
        {
            assert!(!seen.contains(name), "{name} twice");
            seen.push(name);
        }
    }
}
