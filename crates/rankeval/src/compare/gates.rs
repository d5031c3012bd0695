//! Gates as the user writes them: a rule of `rankeval-stats` ([`Gate`])
//! on one metric, for one run or every run compared. The command line's
//! short syntax is the metric's, then `:` and the rule, with the rule's
//! parameters in parentheses as a metric's are:
//!
//! ```text
//! ndcg@10:at_least(0.45)                 mean of ndcg@10 >= 0.45
//! ndcg@10:non_inferior(margin=0.01)      lower CI bound of the difference > -0.01
//! ndcg@10:non_inferior(margin=2%)        ... > -2 % of the baseline's mean
//! ap:superior                            corrected p < alpha and difference > 0
//! ap:superior(alpha=0.01,run=v2)         only for run v2
//! ndcg@10[segment=tail]:superior         on the queries of group tail of
//!                                        column segment (--groups)
//! ```
//!
//! A parameter without a name is the rule's own (`floor`, `margin`,
//! `alpha`); rule names take `-` or `_` (`non-inferior`).

use std::fmt;

use rankeval_stats::{Gate, Margin};
use serde::Serialize;

/// A gate: a rule on one metric, for one run or every run compared.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GateSpec {
    /// The run it applies to; `None` for every run compared with the
    /// baseline (every run, for `at_least` without a baseline).
    pub run: Option<String>,
    /// The metric's canonical name.
    pub metric: String,
    /// The rule and its parameters.
    pub gate: Gate,
    /// The group of queries it is checked on, `(column, value)` of the
    /// groups file; `None` for every query.
    pub group: Option<Group>,
}

impl fmt::Display for GateSpec {
    /// The gate in the command line's syntax, e.g.
    /// `ndcg@10:non_inferior(margin=0.01)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.metric)?;
        if let Some((column, value)) = &self.group {
            write!(f, "[{column}={value}]")?;
        }
        write!(f, ":{}(", self.gate.name())?;
        match self.gate {
            Gate::AtLeast { floor } => write!(f, "floor={floor}")?,
            Gate::NonInferior {
                margin: Margin::Absolute(m),
            } => write!(f, "margin={m}")?,
            Gate::NonInferior {
                margin: Margin::Relative(m),
            } => write!(f, "margin={}%", m * 100.0)?,
            Gate::Superior { alpha } => write!(f, "alpha={alpha}")?,
        }
        if let Some(run) = &self.run {
            write!(f, ",run={run}")?;
        }
        f.write_str(")")
    }
}

/// A rule's name as written (`non-inferior`, `non_inferior`) as the rule
/// name, if it is one.
pub(crate) fn rule_name(name: &str) -> Option<&'static str> {
    match name.trim().replace('-', "_").as_str() {
        "at_least" => Some("at_least"),
        "non_inferior" => Some("non_inferior"),
        "superior" => Some("superior"),
        _ => None,
    }
}

/// The rule names, for messages.
pub(crate) const RULES: &str = "at_least, non_inferior, superior";

/// A margin as written: a number (absolute), or a percentage (`2%`,
/// relative to the baseline's mean).
pub(crate) fn parse_margin(text: &str) -> Result<Margin, String> {
    let text = text.trim();
    let (number, relative) = match text.strip_suffix('%') {
        Some(number) => (number.trim(), true),
        None => (text, false),
    };
    let value: f64 = number.parse().map_err(|_| {
        format!("margin `{text}` is not a number (e.g. 0.01) nor a percentage (e.g. 2%)")
    })?;
    Ok(if relative {
        Margin::Relative(value / 100.0)
    } else {
        Margin::Absolute(value)
    })
}

/// Parses a gate in the short syntax (see the module). `metric` gives the
/// canonical name of the metric part; `alpha` is `superior`'s default. The
/// gate's parameters are checked ([`Gate::validate`]).
pub fn parse_gate(
    text: &str,
    alpha: f64,
    metric: impl FnOnce(&str) -> Result<String, String>,
) -> Result<GateSpec, String> {
    let Some((metric_text, rule_text)) = text.rsplit_once(':') else {
        return Err(format!(
            "`{text}` is not METRIC:RULE (e.g. `ndcg@10:non_inferior(margin=0.01)`)"
        ));
    };
    let (metric_text, group) = split_group(metric_text.trim())?;
    let metric = metric(metric_text)?;
    let rule_text = rule_text.trim();
    let (name, args) = match rule_text.split_once('(') {
        Some((name, rest)) => {
            let Some(args) = rest.strip_suffix(')') else {
                return Err(format!("`{rule_text}`: a `(` without its closing `)`"));
            };
            (name, args)
        }
        None => (rule_text, ""),
    };
    let Some(rule) = rule_name(name) else {
        return Err(format!("unknown rule `{name}`; the rules are {RULES}"));
    };
    let own = match rule {
        "at_least" => "floor",
        "non_inferior" => "margin",
        _ => "alpha",
    };
    let mut run = None;
    let mut value: Option<String> = None;
    for arg in args.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        let (key, v) = match arg.split_once('=') {
            Some((key, v)) => (key.trim(), v.trim()),
            None => (own, arg),
        };
        match key {
            "run" => run = Some(v.to_owned()),
            key if key == own => {
                if value.replace(v.to_owned()).is_some() {
                    return Err(format!("`{rule_text}`: `{own}` is given twice"));
                }
            }
            key => {
                return Err(format!(
                    "`{rule_text}`: unknown parameter `{key}`; {rule} takes `{own}` and `run`"
                ));
            }
        }
    }
    let number = |v: &str| {
        v.parse::<f64>()
            .map_err(|_| format!("`{rule_text}`: {own} `{v}` is not a number"))
    };
    let gate = match (rule, value) {
        ("at_least", Some(v)) => Gate::AtLeast { floor: number(&v)? },
        ("non_inferior", Some(v)) => Gate::NonInferior {
            margin: parse_margin(&v).map_err(|e| format!("`{rule_text}`: {e}"))?,
        },
        ("superior", v) => Gate::Superior {
            alpha: v.as_deref().map(number).transpose()?.unwrap_or(alpha),
        },
        _ => {
            return Err(format!(
                "`{rule_text}`: {rule} needs its {own}, e.g. `{rule}({})`",
                if rule == "at_least" {
                    "0.4"
                } else {
                    "margin=0.01"
                }
            ));
        }
    };
    gate.validate().map_err(|e| e.to_string())?;
    Ok(GateSpec {
        run,
        metric,
        gate,
        group,
    })
}

/// A group of queries: `(column, value)` of the groups file.
pub type Group = (String, String);

/// A gate's metric part with its group: `ndcg@10[segment=tail]` is the
/// metric `ndcg@10` on group `tail` of column `segment`.
pub fn split_group(text: &str) -> Result<(&str, Option<Group>), String> {
    let Some(inner) = text.strip_suffix(']') else {
        return Ok((text, None));
    };
    let Some((metric, group)) = inner.rsplit_once('[') else {
        return Err(format!("`{text}`: a `]` without its `[`"));
    };
    parse_group(group)
        .map(|group| (metric.trim(), Some(group)))
        .map_err(|reason| format!("`{text}`: {reason}"))
}

/// A group as written, `column=value`.
pub fn parse_group(text: &str) -> Result<Group, String> {
    match text.split_once('=') {
        Some((column, value)) if !column.trim().is_empty() && !value.trim().is_empty() => {
            Ok((column.trim().to_owned(), value.trim().to_owned()))
        }
        _ => Err(format!(
            "the group `{text}` is not COLUMN=VALUE of the groups file (e.g. `segment=tail`)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<GateSpec, String> {
        parse_gate(text, 0.05, |m| Ok(m.to_owned()))
    }

    #[test]
    fn a_group_in_brackets_after_the_metric() {
        let spec = parse("ndcg@10[segment=tail]:non_inferior(margin=0.01)").unwrap();
        assert_eq!(spec.metric, "ndcg@10");
        assert_eq!(spec.group, Some(("segment".into(), "tail".into())));
        assert_eq!(
            spec.to_string(),
            "ndcg@10[segment=tail]:non_inferior(margin=0.01)"
        );
        assert!(
            parse("ap[segment]:superior")
                .unwrap_err()
                .contains("COLUMN=VALUE")
        );
        assert!(
            parse("ap]:superior")
                .unwrap_err()
                .contains("without its `[`")
        );
    }

    #[test]
    fn each_rule_in_the_short_syntax() {
        assert_eq!(
            parse("ndcg@10:at_least(0.45)").unwrap(),
            GateSpec {
                run: None,
                metric: "ndcg@10".into(),
                gate: Gate::AtLeast { floor: 0.45 },
                group: None,
            }
        );
        assert_eq!(
            parse("ap(norm=truncated)@10:non-inferior(margin=2%, run=v2)").unwrap(),
            GateSpec {
                run: Some("v2".into()),
                metric: "ap(norm=truncated)@10".into(),
                gate: Gate::NonInferior {
                    margin: Margin::Relative(0.02)
                },
                group: None,
            }
        );
        assert_eq!(
            parse("rr:superior").unwrap().gate,
            Gate::Superior { alpha: 0.05 }
        );
        assert_eq!(
            parse("rr:superior(alpha=0.01)").unwrap().gate,
            Gate::Superior { alpha: 0.01 }
        );
        let spec = parse("ndcg@10:non_inferior(0.01)").unwrap();
        assert_eq!(spec.to_string(), "ndcg@10:non_inferior(margin=0.01)");
        assert_eq!(parse(&spec.to_string()).unwrap(), spec);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert_eq!(
            parse("ndcg@10").unwrap_err(),
            "`ndcg@10` is not METRIC:RULE (e.g. `ndcg@10:non_inferior(margin=0.01)`)"
        );
        assert_eq!(
            parse("ndcg@10:better").unwrap_err(),
            "unknown rule `better`; the rules are at_least, non_inferior, superior"
        );
        assert_eq!(
            parse("ndcg@10:at_least").unwrap_err(),
            "`at_least`: at_least needs its floor, e.g. `at_least(0.4)`"
        );
        assert_eq!(
            parse("ndcg@10:non_inferior(margin=a)").unwrap_err(),
            "`non_inferior(margin=a)`: margin `a` is not a number (e.g. 0.01) nor a percentage \
             (e.g. 2%)"
        );
        assert_eq!(
            parse("ndcg@10:superior(alpha=2)").unwrap_err(),
            "gate `superior`: alpha must be in (0, 1], got 2"
        );
        assert_eq!(
            parse("ndcg@10:superior(margin=2)").unwrap_err(),
            "`superior(margin=2)`: unknown parameter `margin`; superior takes `alpha` and `run`"
        );
        assert_eq!(
            parse("ndcg@10:at_least(0.4").unwrap_err(),
            "`at_least(0.4`: a `(` without its closing `)`"
        );
    }
}
