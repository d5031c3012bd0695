//! trec_eval's layout, so that scripts that parse trec_eval keep working:
//! `measure<TAB>query|all<TAB>value`, the measure padded to 22 columns,
//! values with 4 decimals and counts as integers, as trec_eval prints them.
//!
//! Per run: `runid` and `num_q`, then (with per-query values) every query's
//! measures, then the `all` lines. A metric trec_eval has prints under its
//! trec_eval name (`P_10`, `map_cut_100`, `ndcg`...), with trec_eval's
//! summary: the mean, or the sum for counts; a `gmean` aggregator adds
//! trec_eval's `gm_map` and `gm_bpref` lines. A metric trec_eval lacks prints under
//! its canonical name, with the mean. Other aggregators appear in the other
//! formats only. A corpus metric (one value per run) prints one `all` line
//! under its canonical name, after the others.

use rankeval_core::TrecAll;

use super::{MetricColumn, RenderOptions, Report};

/// The measures trec_eval also gives a geometric mean for (`gm_map`,
/// `gm_bpref`); no other `gm_` line is a trec_eval name.
const GEOMETRIC: [&str; 2] = ["map", "bpref"];

pub(super) fn render(report: &Report, options: RenderOptions) -> String {
    let mut out = String::new();
    let mean = report.aggregators.iter().position(|a| a == "mean");
    let gmean = report.aggregators.iter().position(|a| a == "gmean");
    for run in &report.runs {
        line(&mut out, "runid", "all", &run.name);
        line(&mut out, "num_q", "all", &run.queries.len().to_string());
        if options.per_query {
            for (q, query) in run.queries.iter().enumerate() {
                for (metric, column) in report.metrics.iter().zip(&run.per_query) {
                    line(&mut out, &measure(metric), query, &value(metric, column[q]));
                }
            }
        }
        for (m, metric) in report.metrics.iter().enumerate() {
            let all = match (&metric.trec, mean) {
                (Some(trec), _) if trec.all == TrecAll::Sum => run.per_query[m].iter().sum(),
                (_, Some(a)) => run.aggregates[m][a],
                (_, None) => rankeval_metrics::aggregators::mean::mean(&run.per_query[m]),
            };
            line(&mut out, &measure(metric), "all", &value(metric, all));
            if let (Some(a), Some(trec)) = (gmean, &metric.trec)
                && GEOMETRIC.contains(&trec.name.as_str())
            {
                let name = format!("gm_{}", trec.name);
                line(&mut out, &name, "all", &four_decimals(run.aggregates[m][a]));
            }
        }
        for (name, &value) in report.corpus.iter().zip(&run.corpus) {
            line(&mut out, name, "all", &four_decimals(value));
        }
    }
    out
}

fn measure(metric: &MetricColumn) -> String {
    metric
        .trec
        .as_ref()
        .map_or_else(|| metric.name.clone(), |t| t.name.clone())
}

fn value(metric: &MetricColumn, value: f64) -> String {
    match &metric.trec {
        Some(trec) if trec.all == TrecAll::Sum && value.fract() == 0.0 => format!("{value:.0}"),
        _ => four_decimals(value),
    }
}

fn four_decimals(value: f64) -> String {
    if value.is_nan() {
        "NaN".to_owned()
    } else {
        format!("{value:.4}")
    }
}

fn line(out: &mut String, measure: &str, query: &str, value: &str) {
    out.push_str(&format!("{measure:<22}\t{query}\t{value}\n"));
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;

    #[test]
    fn trec_eval_layout() {
        insta::assert_snapshot!(render(
            &sample(&["mean", "gmean"]),
            RenderOptions { per_query: true }
        ));
    }

    #[test]
    fn corpus_metrics_are_all_lines() {
        insta::assert_snapshot!(render(
            &super::super::tests::sample_with_corpus(&["mean"]),
            RenderOptions::default()
        ));
    }
}
