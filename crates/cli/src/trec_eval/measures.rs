//! trec_eval's measure names, in its order, mapped to rankeval metrics.
//!
//! trec_eval prints its measures in one fixed order (that of its measure
//! table, `measures.c`), whatever order `-m` gives them in; a measure
//! family with cutoffs (`P`) prints one line per cutoff (`P_5`, `P_10`),
//! cutoffs sorted. Each family here says which rankeval metric computes
//! each of its lines, so the trec_eval entry point is a thin layer over
//! the registered metrics.

use std::fmt;

use rankeval_core::registry::parse_metric;
use rankeval_core::{Metric, TrecAll};

/// A problem with a `-m` measure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MeasureError {
    /// No trec_eval measure, set or rankeval metric has this name.
    #[error(
        "unknown measure `{0}` (trec_eval names such as P, map, ndcg_cut, the sets official, all_trec and set, or a rankeval metric such as ndcg@10)"
    )]
    Unknown(String),
    /// The parameters cannot be read.
    #[error("measure `{measure}`: {problem}")]
    Params {
        /// The measure family.
        measure: String,
        /// What is wrong.
        problem: String,
    },
    /// trec_eval has the measure; rankeval does not compute it.
    #[error("measure `{0}` is not supported by rankeval's trec_eval (see docs/trec_eval.md)")]
    Unsupported(String),
}

/// What one output line holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    /// `runid all <tag>`: the run's tag column.
    RunId,
    /// `num_q all <n>`: the number of queries evaluated.
    NumQ,
    /// A value per query and an `all` line (mean, or sum for counts).
    Value {
        /// The name printed.
        name: String,
        /// Index into [`Plan::metrics`].
        metric: usize,
        /// Whether it is a count: printed as an integer, summed on `all`.
        count: bool,
        /// Interpolated precision's lowest recall level: on an empty ranking
        /// trec_eval gives NaN (0 / 0) where `round(level * |R|)` is 0.
        nan_level: Option<f64>,
    },
    /// An `all` line only: the geometric mean of a metric's values, each
    /// floored at 0.00001 (trec_eval's `gm_map`, `gm_bpref`).
    GeometricMean {
        /// The name printed.
        name: String,
        /// Index into [`Plan::metrics`].
        metric: usize,
    },
    /// Per query only: the grades of the top `len` documents as characters.
    RelString {
        /// The name printed.
        name: String,
        /// How many documents.
        len: usize,
    },
}

/// The measures to print and the metrics that compute them.
#[derive(Debug, Default)]
pub struct Plan {
    /// The output lines, in trec_eval's order.
    pub lines: Vec<Line>,
    /// The metrics the lines read.
    pub metrics: Vec<Box<dyn Metric>>,
}

/// How a family's lines are made.
#[derive(Clone, Copy)]
enum Kind {
    RunId,
    NumQ,
    /// One line, computed by this rankeval metric.
    Single(&'static str),
    /// The geometric mean of this metric (all line only).
    Geometric(&'static str),
    /// One line per integer cutoff: `metric@k`.
    Cutoffs(&'static str, &'static [u64]),
    /// One line per decimal level: `metric(param=x)`, named with `%3.2f`.
    Levels(&'static str, &'static str, &'static [f64]),
    /// relstring, default length 10.
    RelString,
    /// utility with 4 weights.
    Utility,
    /// 11pt_avg, with its recall levels as parameters.
    ElevenPoint,
    /// A measure that takes `name=value` pairs; only `p` (RBP) is read.
    Pairs(&'static str, bool),
    /// A single value with float parameters, the first read as this
    /// parameter of the metric (`set_F.0.5`: `f1(beta2=0.5)`), named with
    /// the parameters as given (`set_F_0.5`).
    FloatParam(&'static str, &'static str),
}

/// A trec_eval measure family.
struct Family {
    name: &'static str,
    kind: Kind,
}

const fn f(name: &'static str, kind: Kind) -> Family {
    Family { name, kind }
}

const STANDARD_CUTOFFS: &[u64] = &[5, 10, 15, 20, 30, 100, 200, 500, 1000];
const ELEVEN: &[f64] = &[0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
const RPREC_MULTS: &[f64] = &[0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0];

/// trec_eval 10's measures, in its print order (`te_trec_measures`).
const FAMILIES: &[Family] = &[
    f("runid", Kind::RunId),
    f("num_q", Kind::NumQ),
    f("num_ret", Kind::Single("num_ret")),
    f("num_rel", Kind::Single("num_rel")),
    f("num_rel_ret", Kind::Single("num_rel_ret")),
    f("map", Kind::Single("ap")),
    f("gm_map", Kind::Geometric("ap")),
    f("Rprec", Kind::Single("rprec")),
    f("bpref", Kind::Single("bpref")),
    f("recip_rank", Kind::Single("rr")),
    f(
        "iprec_at_recall",
        Kind::Levels("iprec_at_recall", "recall", ELEVEN),
    ),
    f("P", Kind::Cutoffs("p", STANDARD_CUTOFFS)),
    f("relstring", Kind::RelString),
    f("recall", Kind::Cutoffs("recall", STANDARD_CUTOFFS)),
    f("infAP", Kind::Single("infap")),
    f("gm_bpref", Kind::Geometric("bpref")),
    f(
        "Rprec_mult",
        Kind::Levels("rprec_mult", "mult", RPREC_MULTS),
    ),
    f("utility", Kind::Utility),
    f("11pt_avg", Kind::ElevenPoint),
    f("binG", Kind::Single("bin_g")),
    f("G", Kind::Pairs("g", false)),
    f("dcg", Kind::Pairs("dcg", false)),
    f("ndcg", Kind::Pairs("ndcg", false)),
    f("ndcg_rel", Kind::Pairs("ndcg_rel", false)),
    f("Rndcg", Kind::Pairs("rndcg", false)),
    f("ndcg_cut", Kind::Cutoffs("ndcg", STANDARD_CUTOFFS)),
    f("map_cut", Kind::Cutoffs("ap", STANDARD_CUTOFFS)),
    f("relative_P", Kind::Cutoffs("relative_p", STANDARD_CUTOFFS)),
    f("success", Kind::Cutoffs("success", &[1, 5, 10])),
    f("set_P", Kind::Single("precision")),
    f("set_relative_P", Kind::Single("relative_p")),
    f("set_recall", Kind::Single("recall")),
    f("set_map", Kind::Single("set_map")),
    f("set_F", Kind::FloatParam("f1", "beta2")),
    f(
        "num_nonrel_judged_ret",
        Kind::Single("num_nonrel_judged_ret"),
    ),
    f("rbp", Kind::Pairs("rbp(p=0.9,gain=graded)", true)),
    f("rbp_resid", Kind::Pairs("rbp_resid", true)),
    f("unj", Kind::Cutoffs("unjudged", &[5, 10, 20])),
];

/// trec_eval's measures that rankeval refuses (preference and jg qrels
/// formats, `ideal_dcg`, `yaap`), so that they are named in the error.
const UNSUPPORTED: &[&str] = &[
    "ideal_dcg",
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
    "map_avgjg",
    "P_avgjg",
    "Rprec_mult_avgjg",
    "yaap",
    "all_prefs",
    "prefs",
    "qrels_jg",
];

/// The measure sets (`-m official` and friends).
const SETS: &[(&str, &[&str])] = &[
    (
        "official",
        &[
            "runid",
            "num_q",
            "num_ret",
            "num_rel",
            "num_rel_ret",
            "map",
            "gm_map",
            "Rprec",
            "bpref",
            "recip_rank",
            "iprec_at_recall",
            "P",
        ],
    ),
    (
        "set",
        &[
            "runid",
            "num_q",
            "num_ret",
            "num_rel",
            "num_rel_ret",
            "utility",
            "set_P",
            "set_recall",
            "set_relative_P",
            "set_map",
            "set_F",
        ],
    ),
    (
        "all_trec",
        &[
            "runid",
            "num_q",
            "num_ret",
            "num_rel",
            "num_rel_ret",
            "map",
            "gm_map",
            "Rprec",
            "bpref",
            "recip_rank",
            "iprec_at_recall",
            "P",
            "relstring",
            "recall",
            "unj",
            "rbp",
            "rbp_resid",
            "infAP",
            "gm_bpref",
            "utility",
            "11pt_avg",
            "ndcg",
            "relative_P",
            "Rprec_mult",
            "success",
            "map_cut",
            "ndcg_cut",
            "ndcg_rel",
            "Rndcg",
            "binG",
            "G",
            "set_P",
            "set_recall",
            "set_relative_P",
            "set_map",
            "set_F",
            "num_nonrel_judged_ret",
        ],
    ),
];

/// Every trec_eval measure name and set name rankeval knows (for `-h`).
pub fn known_names() -> impl Iterator<Item = &'static str> {
    FAMILIES
        .iter()
        .map(|f| f.name)
        .chain(SETS.iter().map(|s| s.0))
}

/// One `-m` argument, split as trec_eval splits it: the name up to the
/// first `.`, the parameters after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The measure, set or rankeval metric.
    pub name: String,
    /// The text after the first `.`, if any.
    pub params: Option<String>,
}

impl Request {
    /// Splits `P.5,10` into `P` and `5,10`.
    pub fn parse(arg: &str) -> Self {
        match arg.split_once('.') {
            Some((name, params)) => Self {
                name: name.to_owned(),
                params: Some(params.to_owned()),
            },
            None => Self {
                name: arg.to_owned(),
                params: None,
            },
        }
    }
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.params {
            Some(p) => write!(f, "{}.{p}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// Builds the plan for `requests` (none: `official`). As in trec_eval, a
/// family's parameters are those of its first request that has any; the
/// order of the lines is trec_eval's, then rankeval metrics in `-m` order.
pub fn plan(requests: &[String]) -> Result<Plan, MeasureError> {
    let requests: Vec<Request> = if requests.is_empty() {
        vec![Request::parse("official")]
    } else {
        requests.iter().map(|r| Request::parse(r)).collect()
    };
    let mut wanted = vec![false; FAMILIES.len()];
    let mut params: Vec<Option<String>> = vec![None; FAMILIES.len()];
    let mut own: Vec<(String, Box<dyn Metric>)> = Vec::new();
    for request in &requests {
        if let Some((_, members)) = SETS.iter().find(|(name, _)| *name == request.name) {
            for member in *members {
                if let Some(i) = FAMILIES.iter().position(|f| f.name == *member) {
                    wanted[i] = true;
                }
            }
            continue;
        }
        if let Some(i) = FAMILIES.iter().position(|f| f.name == request.name) {
            wanted[i] = true;
            if params[i].is_none() {
                params[i] = request.params.clone();
            }
            continue;
        }
        if UNSUPPORTED.contains(&request.name.as_str()) {
            return Err(MeasureError::Unsupported(request.name.clone()));
        }
        // A rankeval metric, in its own syntax (the whole argument).
        let text = request.to_string();
        match parse_metric(&text) {
            Ok(metric) => own.push((text, metric)),
            Err(_) => return Err(MeasureError::Unknown(text)),
        }
    }
    let mut plan = Plan::default();
    for (i, family) in FAMILIES.iter().enumerate() {
        if wanted[i] {
            add_family(&mut plan, family, params[i].as_deref())?;
        }
    }
    for (_, metric) in own {
        let (name, count) = match metric.trec_eval() {
            Some(t) => (t.name, t.all == TrecAll::Sum),
            None => (metric.name(), false),
        };
        plan.metrics.push(metric);
        plan.lines.push(Line::Value {
            name,
            metric: plan.metrics.len() - 1,
            count,
            nan_level: None,
        });
    }
    Ok(plan)
}

fn metric(spec: &str) -> Box<dyn Metric> {
    match parse_metric(spec) {
        Ok(m) => m,
        // The specs here are fixed and tested; a failure is a bug.
        Err(e) => unreachable!("trec_eval measure table: `{spec}`: {e}"),
    }
}

fn params_error(family: &Family, problem: impl Into<String>) -> MeasureError {
    MeasureError::Params {
        measure: family.name.to_owned(),
        problem: problem.into(),
    }
}

fn add_family(plan: &mut Plan, family: &Family, params: Option<&str>) -> Result<(), MeasureError> {
    let push_value = |plan: &mut Plan, name: String, m: Box<dyn Metric>| {
        let nan_level = match family.name {
            "iprec_at_recall" | "11pt_avg" => Some(interpolation_floor(&*m)),
            _ => None,
        };
        let count = m.trec_eval().is_some_and(|t| t.all == TrecAll::Sum);
        plan.metrics.push(m);
        plan.lines.push(Line::Value {
            name,
            metric: plan.metrics.len() - 1,
            count,
            nan_level,
        });
    };
    let no_params = |params: Option<&str>| match params {
        None => Ok(()),
        Some(_) => Err(params_error(family, "takes no parameters")),
    };
    match family.kind {
        Kind::RunId => plan.lines.push(Line::RunId),
        Kind::NumQ => plan.lines.push(Line::NumQ),
        Kind::Single(spec) => {
            no_params(params)?;
            push_value(plan, family.name.to_owned(), metric(spec));
        }
        Kind::FloatParam(spec, param) => match params {
            None => push_value(plan, family.name.to_owned(), metric(spec)),
            Some(text) => {
                // trec_eval reads the first value (atof) and names the
                // measure with the text as given.
                let Some(&x) = double_params(text).first() else {
                    return Err(params_error(family, "takes a number, e.g. set_F.0.5"));
                };
                let m = parse_metric(&format!("{spec}({param}={x:?})"))
                    .map_err(|e| params_error(family, e.to_string()))?;
                push_value(plan, format!("{}_{text}", family.name), m);
            }
        },
        Kind::Geometric(spec) => {
            no_params(params)?;
            plan.metrics.push(metric(spec));
            plan.lines.push(Line::GeometricMean {
                name: family.name.to_owned(),
                metric: plan.metrics.len() - 1,
            });
        }
        Kind::Cutoffs(spec, defaults) => {
            let cutoffs = match params {
                Some(text) => long_cutoffs(family, text)?,
                None => defaults.to_vec(),
            };
            for k in cutoffs {
                push_value(
                    plan,
                    format!("{}_{k}", family.name),
                    metric(&format!("{spec}@{k}")),
                );
            }
        }
        Kind::Levels(spec, param, defaults) => {
            let levels = match params {
                Some(text) => double_cutoffs(family, text)?,
                None => defaults.to_vec(),
            };
            for x in levels {
                let m = parse_metric(&format!("{spec}({param}={x:?})"))
                    .map_err(|e| params_error(family, e.to_string()))?;
                push_value(plan, format!("{}_{x:3.2}", family.name), m);
            }
        }
        Kind::RelString => {
            let len = match params {
                Some(text) => {
                    let values = double_params(text);
                    values
                        .first()
                        .map_or(0, |&v| if v > 0.0 { v as usize } else { 0 })
                }
                None => 10,
            };
            let name = match params {
                Some(text) => format!("relstring_{text}"),
                None => "relstring".to_owned(),
            };
            plan.lines.push(Line::RelString { name, len });
        }
        Kind::Utility => match params {
            None => push_value(plan, "utility".to_owned(), metric("utility")),
            Some(text) => {
                let w = double_params(text);
                if w.len() != 4 {
                    return Err(params_error(
                        family,
                        "takes 4 weights, e.g. utility.1,-1,0,0",
                    ));
                }
                let spec = format!(
                    "utility(a={:?},b={:?},c={:?},d={:?})",
                    w[0], w[1], w[2], w[3]
                );
                let m = parse_metric(&spec).map_err(|e| params_error(family, e.to_string()))?;
                push_value(plan, format!("utility_{text}"), m);
            }
        },
        Kind::ElevenPoint => match params {
            None => push_value(plan, "11pt_avg".to_owned(), metric("eleven_point_average")),
            Some(text) => {
                let levels: Vec<String> = double_params(text)
                    .iter()
                    .map(|x| format!("{x:?}"))
                    .collect();
                let spec = format!("eleven_point_average(levels=\"{}\")", levels.join(","));
                let m = parse_metric(&spec).map_err(|e| params_error(family, e.to_string()))?;
                push_value(plan, format!("11pt_avg_{text}"), m);
            }
        },
        Kind::Pairs("ndcg", _) if params.is_some() => {
            let text = params.unwrap_or_default();
            let pairs = param_pairs(family, text)?;
            let gains: Vec<String> = pairs
                .iter()
                .map(|(grade, gain)| {
                    grade
                        .trim()
                        .parse::<i64>()
                        .map(|g| format!("{g}={gain:?}"))
                        .map_err(|_| params_error(family, format!("`{grade}` is not a grade")))
                })
                .collect::<Result<_, _>>()?;
            let spec = format!("ndcg_gain_map(gains=\"{}\")", gains.join(","));
            let m = parse_metric(&spec).map_err(|e| params_error(family, e.to_string()))?;
            push_value(plan, format!("ndcg_{text}"), m);
        }
        Kind::Pairs(spec, takes_p) => match params {
            None => push_value(plan, family.name.to_owned(), metric(spec)),
            Some(text) => {
                let pairs = param_pairs(family, text)?;
                let mut p = None;
                for (name, value) in &pairs {
                    if takes_p && name == "p" {
                        p = Some(*value);
                    } else {
                        return Err(MeasureError::Unsupported(format!("{}.{text}", family.name)));
                    }
                }
                let spec = match (family.name, p) {
                    ("rbp", Some(p)) => format!("rbp(p={p:?},gain=graded)"),
                    (_, Some(p)) => format!("{spec}(p={p:?})"),
                    (_, None) => spec.to_owned(),
                };
                let m = parse_metric(&spec).map_err(|e| params_error(family, e.to_string()))?;
                push_value(plan, format!("{}_{text}", family.name), m);
            }
        },
    }
    Ok(())
}

/// The lowest recall level an interpolated precision metric reads.
fn interpolation_floor(metric: &dyn Metric) -> f64 {
    let json = serde_json::to_value(metric).unwrap_or_default();
    if let Some(recall) = json["recall"].as_f64() {
        return recall;
    }
    json["levels"]
        .as_str()
        .and_then(|l| l.split(',').next())
        .and_then(|x| x.parse().ok())
        .unwrap_or(0.0)
}

/// C's `atol`: leading blanks, a sign, digits; whatever follows is ignored
/// (`23.4` is 23, `x` is 0).
pub fn atol(text: &str) -> i64 {
    let t = text.trim_start();
    let (sign, digits) = match t.as_bytes().first() {
        Some(b'-') => (-1, &t[1..]),
        Some(b'+') => (1, &t[1..]),
        _ => (1, t),
    };
    let end = digits.bytes().take_while(u8::is_ascii_digit).count();
    sign * digits[..end].parse::<i64>().unwrap_or(0)
}

/// C's `atof`: the longest prefix that reads as a decimal number, else 0.
pub fn atof(text: &str) -> f64 {
    let t = text.trim_start();
    (1..=t.len())
        .rev()
        .filter(|&end| t.is_char_boundary(end))
        .find_map(|end| {
            let prefix = &t[..end];
            let plain = prefix
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
            if plain {
                prefix.parse::<f64>().ok()
            } else {
                None
            }
        })
        .unwrap_or(0.0)
}

/// `5,10,3`: integer cutoffs, sorted; positive and distinct, as trec_eval checks.
fn long_cutoffs(family: &Family, text: &str) -> Result<Vec<u64>, MeasureError> {
    let mut cutoffs: Vec<i64> = text.split(',').map(atol).collect();
    cutoffs.sort_unstable();
    if cutoffs[0] <= 0 {
        return Err(params_error(
            family,
            format!("cutoffs must be positive: `{text}`"),
        ));
    }
    if cutoffs.windows(2).any(|w| w[0] == w[1]) {
        return Err(params_error(family, format!("duplicate cutoffs: `{text}`")));
    }
    Ok(cutoffs.into_iter().map(|k| k as u64).collect())
}

/// `.10,.20`: decimal levels, sorted and distinct.
fn double_cutoffs(family: &Family, text: &str) -> Result<Vec<f64>, MeasureError> {
    let mut levels: Vec<f64> = text.split(',').map(atof).collect();
    levels.sort_by(f64::total_cmp);
    if levels.windows(2).any(|w| w[0] == w[1]) {
        return Err(params_error(family, format!("duplicate cutoffs: `{text}`")));
    }
    Ok(levels)
}

/// `2,-1,0,0`: decimal parameters in order.
fn double_params(text: &str) -> Vec<f64> {
    text.split(',').map(atof).collect()
}

/// `1=3,2=9`: `name=value` pairs.
fn param_pairs(family: &Family, text: &str) -> Result<Vec<(String, f64)>, MeasureError> {
    text.split(',')
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), atof(value))),
            _ => Err(params_error(
                family,
                format!("malformed pair parameters in `{text}`"),
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_builds_with_its_defaults() {
        let plan = plan(&["all_trec".to_owned()]).unwrap();
        let names: Vec<String> = plan
            .lines
            .iter()
            .map(|l| match l {
                Line::RunId => "runid".to_owned(),
                Line::NumQ => "num_q".to_owned(),
                Line::Value { name, .. }
                | Line::GeometricMean { name, .. }
                | Line::RelString { name, .. } => name.clone(),
            })
            .collect();
        assert_eq!(names.len(), 100);
        assert_eq!(
            &names[..6],
            ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
        );
        assert!(names.contains(&"iprec_at_recall_0.10".to_owned()));
        assert!(names.contains(&"Rprec_mult_2.00".to_owned()));
        assert_eq!(names.last().unwrap(), "unj_20");
    }

    #[test]
    fn c_number_parsing() {
        assert_eq!(atol("23.4"), 23);
        assert_eq!(atol("-5"), -5);
        assert_eq!(atol("x"), 0);
        assert_eq!(atof(".25"), 0.25);
        assert_eq!(atof("4.5x"), 4.5);
        assert_eq!(atof(""), 0.0);
    }

    #[test]
    fn parameters_follow_trec_eval() {
        let plan = plan(&["P.5,7,3".to_owned(), "utility.2,-1,0,0".to_owned()]).unwrap();
        let names: Vec<&str> = plan
            .lines
            .iter()
            .filter_map(|l| match l {
                Line::Value { name, .. } => Some(name.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(names, ["P_3", "P_5", "P_7", "utility_2,-1,0,0"]);
        assert!(matches!(
            super::plan(&["P.0".to_owned()]),
            Err(MeasureError::Params { .. })
        ));
        assert!(matches!(
            super::plan(&["yaap".to_owned()]),
            Err(MeasureError::Unsupported(_))
        ));
        assert!(matches!(
            super::plan(&["nonsense".to_owned()]),
            Err(MeasureError::Unknown(_))
        ));
    }
}
