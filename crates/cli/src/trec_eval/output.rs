//! trec_eval 10's output, byte for byte: `%-22s\t%s\t%6.4f` lines (counts
//! `%ld`, relstring `'%s'`), per query in query order with `-q`, then the
//! `all` lines unless `-n`, every measure in trec_eval's order. With `-Z`,
//! every value is a z-score, printed `Z%-22s\t%s\t%6.4f` (counts too).

use std::fmt::Write;

use rankeval_metrics::aggregators::gmean::gmean;

use super::evaluate::QueryValues;
use super::measures::{Line, Plan};
use super::zscores::ZScores;

/// trec_eval's floor for geometric means (`MIN_GEO_MEAN`).
const MIN_GEO_MEAN: f64 = 0.00001;

/// What to print.
#[derive(Clone, Copy, Debug, Default)]
pub struct Print<'a> {
    /// `-q`: every query's values.
    pub per_query: bool,
    /// `-n` turns this off: the `all` lines.
    pub summary: bool,
    /// `-c`: trec_eval's `num_rel` on the `all` line is then the number
    /// of judgements with a grade above 0 in the whole qrels, whatever `-l`.
    pub complete_num_rel: Option<u64>,
    /// `-Z`: print each value as a z-score from these means and deviations.
    pub zscores: Option<&'a ZScores>,
}

/// The report as trec_eval prints it.
pub fn render(plan: &Plan, queries: &[QueryValues], run_id: &str, print: Print<'_>) -> String {
    let mut out = String::new();
    // trec_eval prefixes every value line with `Z` under -Z (not runid,
    // not relstring) and prints every value, counts too, as `%6.4f`.
    let z = if print.zscores.is_some() { "Z" } else { "" };
    let count_format = |count: bool| count && print.zscores.is_none();
    // A value line's per-query value, as trec_eval accumulates it: the
    // z-score under -Z.
    let zscore = |q: &QueryValues, name: &str, value: f64| match print.zscores {
        Some(zscores) => zscores.convert(&q.query, name, value),
        None => value,
    };
    if print.per_query {
        for q in queries {
            let mut relstring = q.relstrings.iter();
            for line in &plan.lines {
                match line {
                    Line::Value {
                        name,
                        metric,
                        count,
                        nan_level,
                    } => {
                        let value = zscore(q, name, per_query_value(name, q, *metric, *nan_level));
                        push(
                            &mut out,
                            z,
                            name,
                            &q.query,
                            &format_value(value, count_format(*count)),
                        );
                    }
                    Line::RelString { name, .. } => {
                        // trec_eval clears it for a query the run lacks (-c).
                        let text = relstring.next().map_or("", String::as_str);
                        let text = if q.missing { "" } else { text };
                        push(&mut out, "", name, &q.query, &format!("'{text}'"));
                    }
                    Line::RunId | Line::NumQ | Line::GeometricMean { .. } => {}
                }
            }
        }
    }
    if print.summary {
        for line in &plan.lines {
            match line {
                Line::RunId => push(&mut out, "", "runid", "all", run_id),
                Line::NumQ => push(
                    &mut out,
                    z,
                    "num_q",
                    "all",
                    &format_value(queries.len() as f64, count_format(true)),
                ),
                Line::Value {
                    name,
                    metric,
                    count,
                    nan_level,
                } => {
                    let mut sum = 0.0;
                    for q in queries {
                        sum += zscore(q, name, per_query_value(name, q, *metric, *nan_level));
                    }
                    let value =
                        if let (Some(n), "num_rel") = (print.complete_num_rel, name.as_str()) {
                            n as f64
                        } else if *count || queries.is_empty() {
                            sum
                        } else {
                            sum / queries.len() as f64
                        };
                    push(
                        &mut out,
                        z,
                        name,
                        "all",
                        &format_value(value, count_format(*count)),
                    );
                }
                Line::GeometricMean { name, metric } => {
                    let value = if queries.is_empty() {
                        0.0
                    } else if print.zscores.is_some() {
                        // trec_eval takes each query's log, floored, converts
                        // that to a z-score, and prints exp of their mean.
                        let mut sum = 0.0;
                        for q in queries {
                            sum += zscore(q, name, q.values[*metric].max(MIN_GEO_MEAN).ln());
                        }
                        (sum / queries.len() as f64).exp()
                    } else {
                        let values: Vec<f64> = queries.iter().map(|q| q.values[*metric]).collect();
                        gmean(&values, MIN_GEO_MEAN)
                    };
                    push(&mut out, z, name, "all", &format_value(value, false));
                }
                Line::RelString { .. } => {}
            }
        }
    }
    out
}

/// trec_eval's NaN, `0.0 / 0.0` on x86-64: the sign bit is set, so C's
/// printf writes `-nan`.
const C_NAN: f64 = f64::from_bits(0xFFF8_0000_0000_0000);

/// A query's value as trec_eval has it: 0 for `num_ret`, `utility`, `unj*`
/// and `rbp_resid` on a query the run lacks (`-c`; trec_eval clears them),
/// and NaN for interpolated precision on an empty ranking (after `-J`),
/// where trec_eval divides 0 by 0 (rankeval's metrics give 0 there).
fn per_query_value(name: &str, q: &QueryValues, metric: usize, nan_level: Option<f64>) -> f64 {
    let cleared =
        name == "num_ret" || name == "utility" || name.starts_with("unj") || name == "rbp_resid";
    if q.missing && cleared {
        0.0
    } else if q.empty && nan_level.is_some_and(|x| (x * q.num_rel as f64).round() == 0.0) {
        C_NAN
    } else {
        q.values[metric]
    }
}

/// `%ld` for counts, `%6.4f` otherwise.
fn format_value(value: f64, count: bool) -> String {
    if count {
        format!("{}", value as i64)
    } else if value.is_nan() {
        // C's printf: `-nan` when the sign bit is set, padded to 6.
        let text = if value.is_sign_negative() {
            "-nan"
        } else {
            "nan"
        };
        format!("{text:>6}")
    } else {
        format!("{value:6.4}")
    }
}

/// One line: `{prefix}{measure:<22}\t{query}\t{value}` (trec_eval's
/// `%s%-22s\t%s\t%s`, the prefix `Z` under -Z).
fn push(out: &mut String, prefix: &str, measure: &str, query: &str, value: &str) {
    let _ = writeln!(out, "{prefix}{measure:<22}\t{query}\t{value}");
}
