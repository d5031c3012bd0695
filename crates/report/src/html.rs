//! The HTML report: one self-contained page (inline CSS and SVG, no
//! script, no external resource) with the summary table, the distribution
//! of per-query values, the per-query differences against a baseline, the
//! metric@k and precision-recall curves, and the queries that changed most.
//!
//! Charts are drawn here ([`super::html_svg`]); the curves' data comes from
//! the engine (`rankeval::curves`). Past a number of queries, per-query
//! charts are aggregated, and the page says so, so a report of 100,000
//! queries stays small.

use std::fmt::Write as _;

use super::html_explain::explain_table;
use super::html_svg::{Frame, LOSS, WIN, colour, coord, escape, line_with_dots};
use super::{RenderOptions, Report, fixed, group_rows, per_query_rows, summary_rows};
use rankeval::changed::ChangedExplanations;
pub use rankeval::changed::{CHANGED, changed_queries};
use rankeval::changed::{Paired, changed, paired};
use rankeval::curves::{Curves, RECALL_LEVELS};

/// Up to this many queries per run, the distribution chart draws one dot
/// per query; past it, the histogram and the box plot only.
pub const DOT_LIMIT: usize = 300;

/// Up to this many queries, the difference chart draws one bar per query;
/// past it, this many bars, each the mean of consecutive queries in sorted
/// order.
pub const BAR_LIMIT: usize = 400;

/// Up to this many queries per run, `--per-query` adds each run's table.
pub const TABLE_LIMIT: usize = 1000;

/// Bins of the distribution charts' histograms.
const BINS: usize = 20;

/// What a comparison adds to the report: a baseline other than the first
/// run, columns of the summary table (differences, confidence intervals,
/// p-values ...) and the results of quality gates. The `rankeval-stats`
/// crate fills it; without one, the baseline is the first run and the page
/// says so.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// The baseline run's index in the report.
    pub baseline: usize,
    /// Extra columns of the summary table.
    pub columns: Vec<SummaryColumn>,
    /// Quality gates and whether they passed.
    pub gates: Vec<GateResult>,
}

/// A column added to the summary table, one cell per row and run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SummaryColumn {
    /// Header, e.g. `Δ vs baseline` or `95% CI`.
    pub title: String,
    /// `cells[row][run]`: rows as in the summary table (each metric, each
    /// aggregator), without its `queries` row; empty text for none.
    pub cells: Vec<Vec<String>>,
}

/// The result of one quality gate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GateResult {
    /// The gate as the user wrote it, e.g. `ndcg@10 >= baseline - 0.01`.
    pub name: String,
    /// Whether it passed.
    pub passed: bool,
    /// Why, in a sentence.
    pub detail: String,
}

/// What the HTML page shows beyond the report itself.
#[derive(Clone, Copy, Debug, Default)]
pub struct HtmlExtras<'a> {
    /// The metric@k and precision-recall curves, if computed.
    pub curves: Option<&'a Curves>,
    /// Baseline, extra summary columns and gates, if compared.
    pub comparison: Option<&'a Comparison>,
    /// The explain tables of the queries that changed most, if made
    /// (`rankeval::changed::explain_changed`).
    pub explanations: Option<&'a ChangedExplanations>,
    /// The page's title and heading (default: `rankeval report`).
    pub title: Option<&'a str>,
}

/// The baseline run's index: the comparison's, else the first run.
pub fn baseline(report: &Report, comparison: Option<&Comparison>) -> usize {
    comparison
        .map_or(0, |c| c.baseline)
        .min(report.runs.len().saturating_sub(1))
}

/// The page for `report`.
pub fn render(report: &Report, options: RenderOptions, extras: HtmlExtras<'_>) -> String {
    let baseline = baseline(report, extras.comparison);
    let mut page = Page {
        report,
        baseline,
        out: String::with_capacity(64 * 1024),
    };
    page.head(extras.title);
    page.summary(options, extras.comparison);
    page.distributions();
    page.differences();
    match extras.curves {
        Some(curves) => page.curves(curves),
        None => page.out.push_str(
            "<section id=\"curves\"><h2>Curves</h2><p class=\"note\">Not computed for this \
             report.</p></section>\n",
        ),
    }
    page.changed_most(extras.explanations);
    page.out.push_str(
        "<footer>Made by rankeval. One file: no script, no network access needed.</footer>\n\
         </main></body></html>\n",
    );
    page.out
}

/// The page being written.
struct Page<'a> {
    report: &'a Report,
    baseline: usize,
    out: String,
}

impl<'a> Page<'a> {
    fn head(&mut self, title: Option<&str>) {
        let r = self.report;
        let title = escape(title.unwrap_or("rankeval report"));
        let _ = write!(
            self.out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>{title}</title>\n<style>{STYLE}</style></head>\n<body><main>\n\
             <h1>{title}</h1>\n<p>{} {}: {}; {} {}.</p>\n",
            r.runs.len(),
            if r.runs.len() == 1 { "run" } else { "runs" },
            r.runs
                .iter()
                .enumerate()
                .map(|(i, run)| format!(
                    "<span class=\"run\" style=\"border-color:{}\">{}</span> ({} queries)",
                    colour(i),
                    escape(&run.name),
                    run.queries.len()
                ))
                .collect::<Vec<_>>()
                .join(", "),
            r.metrics.len(),
            if r.metrics.len() == 1 {
                "metric"
            } else {
                "metrics"
            },
        );
        self.out.push_str(
            "<nav><a href=\"#summary\">Summary</a> · <a href=\"#distributions\">Distributions</a> · \
             <a href=\"#differences\">Per-query differences</a> · <a href=\"#curves\">Curves</a> · \
             <a href=\"#changed\">Queries that changed most</a></nav>\n",
        );
    }

    fn summary(&mut self, options: RenderOptions, comparison: Option<&Comparison>) {
        let r = self.report;
        self.out
            .push_str("<section id=\"summary\"><h2>Summary</h2>\n<table class=\"summary\">");
        let rows = summary_rows(r);
        let columns: &[SummaryColumn] = comparison.map_or(&[], |c| &c.columns);
        for (i, row) in rows.iter().enumerate() {
            let cell = if i == 0 { "th" } else { "td" };
            self.out.push_str("<tr>");
            for (c, text) in row.iter().enumerate() {
                let class = if c == 0 { "" } else { " class=\"num\"" };
                let _ = write!(self.out, "<{cell}{class}>{}</{cell}>", escape(text));
            }
            for column in columns {
                // A run with no cell in the column (the baseline) gets none.
                let shown = (0..r.runs.len()).filter(|&run| {
                    column
                        .cells
                        .iter()
                        .any(|row| row.get(run).is_some_and(|c| !c.is_empty()))
                });
                for run in shown {
                    let text = match i {
                        0 => format!("{} ({})", column.title, r.runs[run].name),
                        1 => String::new(),
                        _ => column
                            .cells
                            .get(i - 2)
                            .and_then(|row| row.get(run))
                            .cloned()
                            .unwrap_or_default(),
                    };
                    let _ = write!(self.out, "<{cell} class=\"num\">{}</{cell}>", escape(&text));
                }
            }
            self.out.push_str("</tr>\n");
        }
        self.out.push_str("</table>\n");
        let groups = r.group_table();
        if !groups.is_empty() {
            self.out.push_str(
                "<h3>Groups of queries</h3><p class=\"note\">Each group's results: the \
                 queries the groups file puts in it, aggregated as the whole run's.</p>\n",
            );
        }
        for group in &groups {
            self.out.push_str("<table class=\"summary group\">");
            self.rows(&group_rows(r, group));
            self.out.push_str("</table>\n");
        }
        if r.runs.len() > 1 {
            let _ = writeln!(
                self.out,
                "<p class=\"note\">Baseline: <b>{}</b>{}. Differences below are each run minus \
                 the baseline, query by query.</p>",
                escape(&r.runs[self.baseline].name),
                if comparison.is_some() {
                    ""
                } else {
                    " (the first run)"
                }
            );
        }
        if let Some(comparison) = comparison
            && !comparison.gates.is_empty()
        {
            self.out.push_str("<h3>Gates</h3><ul class=\"gates\">");
            for gate in &comparison.gates {
                let _ = write!(
                    self.out,
                    "<li class=\"{}\"><b>{}</b> {}: {}</li>",
                    if gate.passed { "pass" } else { "fail" },
                    if gate.passed { "PASS" } else { "FAIL" },
                    escape(&gate.name),
                    escape(&gate.detail)
                );
            }
            self.out.push_str("</ul>\n");
        }
        if !r.warnings.is_empty() {
            self.out
                .push_str("<h3>Warnings</h3><ul class=\"warnings\">");
            for warning in &r.warnings {
                let _ = write!(self.out, "<li>{}</li>", escape(&warning.to_string()));
            }
            self.out.push_str("</ul>\n");
        }
        if options.per_query {
            for run in &r.runs {
                if run.queries.len() > TABLE_LIMIT {
                    let _ = writeln!(
                        self.out,
                        "<p class=\"note\">Per-query table of {} left out: {} queries, more than \
                         {TABLE_LIMIT} (use --format csv --per-query for every value).</p>",
                        escape(&run.name),
                        run.queries.len()
                    );
                    continue;
                }
                let _ = write!(
                    self.out,
                    "<details><summary>{} (per query)</summary><table class=\"per-query\">",
                    escape(&run.name)
                );
                self.rows(&per_query_rows(r, run));
                self.out.push_str("</table></details>\n");
            }
        }
        self.out.push_str("</section>\n");
    }

    /// Table rows: the first a header, the first column text, the others
    /// numbers (right-aligned).
    fn rows(&mut self, rows: &[Vec<String>]) {
        for (i, row) in rows.iter().enumerate() {
            let cell = if i == 0 { "th" } else { "td" };
            self.out.push_str("<tr>");
            for (c, text) in row.iter().enumerate() {
                let class = if c == 0 { "" } else { " class=\"num\"" };
                let _ = write!(self.out, "<{cell}{class}>{}</{cell}>", escape(text));
            }
            self.out.push_str("</tr>");
        }
    }

    fn distributions(&mut self) {
        let r = self.report;
        self.out.push_str(
            "<section id=\"distributions\"><h2>Distributions of per-query values</h2>\n\
             <p class=\"note\">Per run: a histogram of the values (20 bins), a box from the \
             first to the third quartile with the median (line) and the mean (diamond), \
             whiskers to the minimum and maximum",
        );
        if let Some(a) = self.interval_aggregator() {
            let _ = write!(
                self.out,
                "; above the box, the confidence interval of the mean ({}) as an error bar",
                escape(&r.aggregators[a])
            );
        }
        if r.runs.iter().any(|run| run.queries.len() > DOT_LIMIT) {
            let _ = write!(
                self.out,
                ". A run of more than {DOT_LIMIT} queries shows no dots; up to that, one dot per \
                 query"
            );
        } else {
            self.out.push_str(", and one dot per query");
        }
        self.out.push_str(".</p>\n");
        for m in 0..r.metrics.len() {
            let chart = self.distribution_chart(m);
            let _ = writeln!(
                self.out,
                "<figure class=\"chart\" data-chart=\"distribution\" id=\"distribution-{m}\">\
                 {chart}<figcaption>{}: per-query values</figcaption></figure>",
                escape(&r.metrics[m].name)
            );
        }
        self.out.push_str("</section>\n");
    }

    /// The first aggregator that gives intervals (`ci`): drawn as error
    /// bars around the means.
    fn interval_aggregator(&self) -> Option<usize> {
        (0..self.report.aggregators.len()).find(|&a| self.report.has_interval(a))
    }

    fn distribution_chart(&self, m: usize) -> String {
        let r = self.report;
        let row = 70.0;
        let frame = Frame::new(
            720.0,
            40.0 + row * r.runs.len() as f64 + 20.0,
            [20.0, 20.0, 40.0, 120.0],
        );
        let columns: Vec<Vec<f64>> = r
            .runs
            .iter()
            .map(|run| {
                let mut v: Vec<f64> = run.per_query[m]
                    .iter()
                    .copied()
                    .filter(|x| x.is_finite())
                    .collect();
                v.sort_by(f64::total_cmp);
                v
            })
            .collect();
        let min = columns
            .iter()
            .filter_map(|c| c.first())
            .fold(0.0f64, |a, b| a.min(*b));
        let max = columns
            .iter()
            .filter_map(|c| c.last())
            .fold(1.0f64, |a, b| a.max(*b));
        let x = frame.x(min, max).nice(6);
        let mut out = frame.open(&format!("{}: per-query values per run", r.metrics[m].name));
        frame.x_axis(&mut out, x, &r.metrics[m].name);
        for (i, (run, values)) in r.runs.iter().zip(&columns).enumerate() {
            let top = frame.top + row * i as f64;
            let c = colour(i);
            let _ = write!(
                out,
                "<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                coord(frame.left - 8.0),
                coord(top + 46.0),
                escape(&run.name)
            );
            if values.is_empty() {
                continue;
            }
            // Histogram over the chart's domain, bars up to 36 px.
            let mut counts = [0usize; BINS];
            let (lo, hi) = x.domain();
            for v in values {
                let b = (((v - lo) / (hi - lo)) * BINS as f64) as usize;
                counts[b.min(BINS - 1)] += 1;
            }
            let most = counts.iter().copied().max().unwrap_or(1).max(1);
            for (b, count) in counts.iter().enumerate() {
                if *count == 0 {
                    continue;
                }
                let x0 = x.at(lo + (hi - lo) * b as f64 / BINS as f64);
                let x1 = x.at(lo + (hi - lo) * (b + 1) as f64 / BINS as f64);
                let h = 34.0 * *count as f64 / most as f64;
                let _ = write!(
                    out,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{c}\" \
                     fill-opacity=\"0.35\"><title>{count} queries</title></rect>",
                    coord(x0 + 0.5),
                    coord(top + 36.0 - h),
                    coord((x1 - x0 - 1.0).max(0.5)),
                    coord(h)
                );
            }
            // Box plot on the line below.
            let mid = top + 48.0;
            let q = |p: f64| quantile(values, p);
            let mean = rankeval_core::exact_sum::fmean(values);
            let _ = write!(
                out,
                "<g class=\"box\"><title>{name}: min {} · q1 {} · median {} · q3 {} · max {} · \
                 mean {} ({} queries)</title>\
                 <line x1=\"{}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"{c}\"/>\
                 <rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"14\" fill=\"#fff\" stroke=\"{c}\"/>\
                 <line x1=\"{med}\" x2=\"{med}\" y1=\"{}\" y2=\"{}\" stroke=\"{c}\" stroke-width=\"2\"/>\
                 <path d=\"M{mx},{} l5,5 l-5,5 l-5,-5 z\" fill=\"{c}\"/></g>",
                fixed(q(0.0)),
                fixed(q(0.25)),
                fixed(q(0.5)),
                fixed(q(0.75)),
                fixed(q(1.0)),
                fixed(mean),
                values.len(),
                coord(x.at(q(0.0))),
                coord(x.at(q(1.0))),
                coord(x.at(q(0.25))),
                coord(mid - 7.0),
                coord((x.at(q(0.75)) - x.at(q(0.25))).max(1.0)),
                coord(mid - 7.0),
                coord(mid + 7.0),
                coord(mid - 5.0),
                name = escape(&run.name),
                y = coord(mid),
                med = coord(x.at(q(0.5))),
                mx = coord(x.at(mean)),
            );
            if let Some((a, bounds)) = self
                .interval_aggregator()
                .and_then(|a| run.interval(m, a).map(|bounds| (a, bounds)))
                .filter(|(_, b)| b.lower.is_finite() && b.upper.is_finite())
            {
                let (x0, x1, y) = (x.at(bounds.lower), x.at(bounds.upper), mid - 12.0);
                let _ = write!(
                    out,
                    "<g class=\"interval\"><title>{}: {} {} [{}, {}]</title>\
                     <line x1=\"{}\" x2=\"{}\" y1=\"{yc}\" y2=\"{yc}\" stroke=\"{c}\" stroke-width=\"2\"/>\
                     <line x1=\"{l}\" x2=\"{l}\" y1=\"{}\" y2=\"{}\" stroke=\"{c}\" stroke-width=\"2\"/>\
                     <line x1=\"{h}\" x2=\"{h}\" y1=\"{}\" y2=\"{}\" stroke=\"{c}\" stroke-width=\"2\"/></g>",
                    escape(&run.name),
                    escape(&r.aggregators[a]),
                    fixed(run.aggregates[m][a]),
                    fixed(bounds.lower),
                    fixed(bounds.upper),
                    coord(x0),
                    coord(x1),
                    coord(y - 3.0),
                    coord(y + 3.0),
                    coord(y - 3.0),
                    coord(y + 3.0),
                    yc = coord(y),
                    l = coord(x0),
                    h = coord(x1),
                );
            }
            if run.queries.len() <= DOT_LIMIT {
                out.push_str("<g class=\"dots\">");
                for (qi, query) in run.queries.iter().enumerate() {
                    let v = run.per_query[m][qi];
                    if !v.is_finite() {
                        continue;
                    }
                    let _ = write!(
                        out,
                        "<circle cx=\"{}\" cy=\"{}\" r=\"2\" fill=\"{c}\" fill-opacity=\"0.6\">\
                         <title>{}: {}</title></circle>",
                        coord(x.at(v)),
                        coord(mid + 12.0 + jitter(query) * 6.0),
                        escape(query),
                        fixed(v)
                    );
                }
                out.push_str("</g>");
            }
            out.push('\n');
        }
        out.push_str("</svg>");
        out
    }

    /// Queries evaluated in both the baseline and run `r`, with metric `m`'s
    /// values (finite ones only), and how many queries were not in both.
    fn paired(&self, m: usize, r: usize) -> (Vec<Paired<'a>>, usize) {
        paired(self.report, self.baseline, m, r)
    }

    /// The runs compared with the baseline.
    fn compared(&self) -> Vec<usize> {
        (0..self.report.runs.len())
            .filter(|r| *r != self.baseline)
            .collect()
    }

    fn differences(&mut self) {
        let r = self.report;
        self.out.push_str(
            "<section id=\"differences\"><h2>Per-query differences against the baseline</h2>\n",
        );
        if r.runs.len() < 2 {
            self.out.push_str(
                "<p class=\"note\">One run: nothing to compare. Give two runs or more.</p></section>\n",
            );
            return;
        }
        let _ = writeln!(
            self.out,
            "<p class=\"note\">One bar per query, the run's value minus the baseline's ({}), \
             sorted from the largest gain to the largest loss; blue: the run wins, vermillion: \
             it loses; a tie is an equal value. Past {BAR_LIMIT} queries, each of {BAR_LIMIT} \
             bars is the mean difference of consecutive queries in that order, and the chart \
             says so.</p>",
            escape(&r.runs[self.baseline].name)
        );
        for m in 0..r.metrics.len() {
            for other in self.compared() {
                let (mut pairs, unpaired) = self.paired(m, other);
                sort_by_difference(&mut pairs);
                let wins = pairs.iter().filter(|p| p.difference() > 0.0).count();
                let losses = pairs.iter().filter(|p| p.difference() < 0.0).count();
                let ties = pairs.len() - wins - losses;
                let title = format!(
                    "{}: {} − {}",
                    r.metrics[m].name, r.runs[other].name, r.runs[self.baseline].name
                );
                let chart = difference_chart(&title, &pairs);
                let mut caption = format!(
                    "{}: <span class=\"win\">{wins} {}</span>, {ties} {}, \
                     <span class=\"loss\">{losses} {}</span>",
                    escape(&title),
                    plural(wins, "win", "wins"),
                    plural(ties, "tie", "ties"),
                    plural(losses, "loss", "losses"),
                );
                if pairs.len() > BAR_LIMIT {
                    let _ = write!(
                        caption,
                        "; {} queries in {BAR_LIMIT} bars (each the mean of about {} queries)",
                        pairs.len(),
                        pairs.len().div_ceil(BAR_LIMIT)
                    );
                }
                if unpaired > 0 {
                    let _ = write!(
                        caption,
                        "; {unpaired} {} not evaluated in both runs (or NaN) left out",
                        plural(unpaired, "query", "queries")
                    );
                }
                let _ = writeln!(
                    self.out,
                    "<figure class=\"chart\" data-chart=\"difference\" id=\"difference-{m}-{other}\">\
                     {chart}<figcaption>{caption}</figcaption></figure>"
                );
            }
        }
        self.out.push_str("</section>\n");
    }

    fn curves(&mut self, curves: &Curves) {
        let r = self.report;
        // A run known only by its values (a baseline read from a results
        // file) has no ranked lists, so no curve: the legend and a note say so.
        let without_curve: Vec<&str> = r
            .runs
            .iter()
            .zip(&curves.runs)
            .filter(|(_, run)| {
                !run.at_k
                    .iter()
                    .flatten()
                    .chain(&run.precision_recall)
                    .any(|v| v.is_finite())
            })
            .map(|(run, _)| run.name.as_str())
            .collect();
        let labels: Vec<String> = r
            .runs
            .iter()
            .map(|run| {
                if without_curve.contains(&run.name.as_str()) {
                    format!("{} (no curve)", run.name)
                } else {
                    run.name.clone()
                }
            })
            .collect();
        let names: Vec<&str> = labels.iter().map(String::as_str).collect();
        let _ = writeln!(
            self.out,
            "<section id=\"curves\"><h2>Curves</h2>\n<p class=\"note\">Means over each run's \
             queries of the registered metrics precision@k, recall@k and ndcg@k for k = 1..{K} \
             (K is the deepest cutoff of the report's metrics{}), and the interpolated \
             precision-recall curve: at each recall level r = 0, 0.1, ..., 1, the highest \
             precision at any rank where at least round(r × |R|) relevant documents have \
             been retrieved (trec_eval's iprec_at_recall). \
             Relevance at the experiment's level.{}</p>\n<div class=\"grid\">",
            if curves.capped {
                format!(", cut to {}", curves.depth)
            } else {
                ", or 10 when none has one".to_owned()
            },
            if without_curve.is_empty() {
                String::new()
            } else {
                format!(
                    " No curve for {}: only per-query values are known (a baseline read \
                     from a results file), not the ranked lists the curves need.",
                    escape(&without_curve.join(", "))
                )
            },
            K = curves.depth,
        );
        for (f, family) in curves.families.iter().enumerate() {
            let series: Vec<Vec<(f64, f64)>> = curves
                .runs
                .iter()
                .map(|run| {
                    run.at_k.get(f).map_or_else(Vec::new, |values| {
                        values
                            .iter()
                            .enumerate()
                            .map(|(k, v)| ((k + 1) as f64, *v))
                            .collect()
                    })
                })
                .collect();
            let chart = line_chart(
                &format!("{family}, k = 1..{}", curves.depth),
                (1.0, curves.depth as f64),
                "k",
                family,
                &series,
                &names,
            );
            let _ = writeln!(
                self.out,
                "<figure class=\"chart\" data-chart=\"at-k\" id=\"at-k-{f}\">{chart}\
                 <figcaption>{} (mean)</figcaption></figure>",
                escape(family)
            );
        }
        let series: Vec<Vec<(f64, f64)>> = curves
            .runs
            .iter()
            .map(|run| {
                run.precision_recall
                    .iter()
                    .take(RECALL_LEVELS)
                    .enumerate()
                    .map(|(i, v)| (i as f64 / 10.0, *v))
                    .collect()
            })
            .collect();
        let chart = line_chart(
            "interpolated precision-recall",
            (0.0, 1.0),
            "recall",
            "interpolated precision",
            &series,
            &names,
        );
        let _ = writeln!(
            self.out,
            "<figure class=\"chart\" data-chart=\"precision-recall\" id=\"precision-recall\">\
             {chart}<figcaption>Interpolated precision at 11 recall levels (mean)</figcaption>\
             </figure>"
        );
        self.out.push_str("</div></section>\n");
    }

    fn changed_most(&mut self, explanations: Option<&ChangedExplanations>) {
        let r = self.report;
        self.out
            .push_str("<section id=\"changed\"><h2>Queries that changed most</h2>\n");
        if r.runs.len() < 2 {
            self.out
                .push_str("<p class=\"note\">One run: nothing to compare.</p></section>\n");
            return;
        }
        let _ = write!(
            self.out,
            "<p class=\"note\">Per metric and run, the {CHANGED} queries whose value moved most \
             from the baseline, by absolute difference (queries with equal values left out)."
        );
        match explanations {
            Some(e) if e.unavailable.is_none() => {
                let _ = write!(
                    self.out,
                    " For {}, each query opens to its explain table in both runs: the ranked \
                     list as the metric reads it, its per-rank terms and its formula with the \
                     numbers put in (as <code>rankeval explain</code> prints them).",
                    escape(&r.metrics[e.metric].name)
                );
            }
            Some(e) => {
                let _ = write!(
                    self.out,
                    " No explain tables: {}.",
                    escape(e.unavailable.as_deref().unwrap_or_default())
                );
            }
            None => {}
        }
        self.out.push_str("</p>\n");
        for m in 0..r.metrics.len() {
            for other in self.compared() {
                let pairs = changed(r, self.baseline, m, other);
                let _ = write!(
                    self.out,
                    "<details{}><summary>{}: {} vs {}</summary>\
                     <table class=\"changed\"><tr><th>query</th><th class=\"num\">{}</th>\
                     <th class=\"num\">{}</th><th class=\"num\">difference</th></tr>",
                    if m == 0 { " open" } else { "" },
                    escape(&r.metrics[m].name),
                    escape(&r.runs[other].name),
                    escape(&r.runs[self.baseline].name),
                    escape(&r.runs[self.baseline].name),
                    escape(&r.runs[other].name),
                );
                for p in &pairs {
                    let d = p.difference();
                    let class = if d > 0.0 { " win" } else { " loss" };
                    let _ = write!(
                        self.out,
                        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                         <td class=\"num{class}\">{}{}</td></tr>",
                        escape(p.query),
                        fixed(p.baseline),
                        fixed(p.other),
                        if d > 0.0 { "+" } else { "" },
                        fixed(d)
                    );
                }
                if pairs.is_empty() {
                    self.out
                        .push_str("<tr><td colspan=\"4\">No query changed.</td></tr>");
                }
                self.out.push_str("</table>");
                if let Some(e) = explanations.filter(|e| e.metric == m && e.unavailable.is_none()) {
                    self.explained(e, other, &pairs);
                }
                self.out.push_str("</details>\n");
            }
        }
        self.out.push_str("</section>\n");
    }

    /// Each changed query's explain tables, the baseline's and run
    /// `other`'s side by side.
    fn explained(&mut self, e: &ChangedExplanations, other: usize, pairs: &[Paired<'_>]) {
        for p in pairs {
            let d = p.difference();
            let _ = write!(
                self.out,
                "<details class=\"explained\" data-query=\"{}\"><summary>{}: {} → {} \
                 (<span class=\"{}\">{}{}</span>)</summary><div class=\"pair\">",
                escape(p.query),
                escape(p.query),
                fixed(p.baseline),
                fixed(p.other),
                if d > 0.0 { "win" } else { "loss" },
                if d > 0.0 { "+" } else { "" },
                fixed(d)
            );
            for run in [self.baseline, other] {
                match e.get(run, p.query) {
                    Some(Ok(table)) => self.out.push_str(&explain_table(table)),
                    Some(Err(why)) => {
                        let _ = write!(
                            self.out,
                            "<div class=\"explain\"><h4>{}</h4><p class=\"note\">No table: {}.</p></div>",
                            escape(&self.report.runs[run].name),
                            escape(why)
                        );
                    }
                    None => {}
                }
            }
            self.out.push_str("</div></details>");
        }
    }
}

/// Largest gain first, largest loss last; equal differences by query id.
fn sort_by_difference(pairs: &mut [Paired<'_>]) {
    pairs.sort_by(|a, b| {
        b.difference()
            .total_cmp(&a.difference())
            .then_with(|| a.query.cmp(b.query))
    });
}

/// The bar chart of sorted differences (already sorted), aggregated into
/// [`BAR_LIMIT`] bars past that many queries.
fn difference_chart(title: &str, pairs: &[Paired<'_>]) -> String {
    let frame = Frame::new(720.0, 220.0, [16.0, 20.0, 40.0, 60.0]);
    let bars: Vec<(f64, Option<&str>)> = if pairs.len() <= BAR_LIMIT {
        pairs
            .iter()
            .map(|p| (p.difference(), Some(p.query)))
            .collect()
    } else {
        let size = pairs.len().div_ceil(BAR_LIMIT);
        pairs
            .chunks(size)
            .map(|chunk| {
                let sum: f64 = chunk.iter().map(Paired::difference).sum();
                (sum / chunk.len() as f64, None)
            })
            .collect()
    };
    let largest = bars.iter().fold(0.0f64, |a, (d, _)| a.max(d.abs()));
    let largest = if largest > 0.0 { largest } else { 1.0 };
    let x = frame.x(0.0, bars.len().max(1) as f64);
    let y = frame.y(-largest, largest).nice(5);
    let mut out = frame.open(title);
    frame.y_axis(&mut out, y, "difference");
    let _ = write!(
        out,
        "<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">queries, by difference</text>",
        coord((frame.left + frame.right) / 2.0),
        coord(frame.bottom + 30.0)
    );
    let width = (frame.right - frame.left) / bars.len().max(1) as f64;
    let zero = y.at(0.0);
    for (i, (d, query)) in bars.iter().enumerate() {
        if *d == 0.0 {
            continue;
        }
        let top = y.at(*d).min(zero);
        let height = (y.at(*d) - zero).abs().max(0.5);
        let fill = if *d > 0.0 { WIN } else { LOSS };
        let tip = match query {
            Some(q) => format!(
                "{}: {}{}",
                escape(q),
                if *d > 0.0 { "+" } else { "" },
                fixed(*d)
            ),
            None => format!("mean {}", fixed(*d)),
        };
        let _ = write!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{fill}\"><title>{tip}</title></rect>",
            coord(x.at(i as f64)),
            coord(top),
            coord((width - if width > 3.0 { 1.0 } else { 0.0 }).max(0.2)),
            coord(height)
        );
    }
    let _ = write!(
        out,
        "\n<line class=\"axis\" x1=\"{}\" x2=\"{}\" y1=\"{z}\" y2=\"{z}\"/></svg>",
        coord(frame.left),
        coord(frame.right),
        z = coord(zero)
    );
    out
}

/// A line chart of one series per run, y from 0 to at least 1.
fn line_chart(
    title: &str,
    (x_lo, x_hi): (f64, f64),
    x_label: &str,
    y_label: &str,
    series: &[Vec<(f64, f64)>],
    names: &[&str],
) -> String {
    let frame = Frame::new(480.0, 260.0, [16.0, 110.0, 40.0, 56.0]);
    let y_hi = series
        .iter()
        .flatten()
        .map(|(_, v)| *v)
        .filter(|v| v.is_finite())
        .fold(1.0f64, f64::max);
    let x = frame.x(x_lo, x_hi).nice(6);
    let y = frame.y(0.0, y_hi).nice(5);
    let mut out = frame.open(title);
    frame.x_axis(&mut out, x, x_label);
    frame.y_axis(&mut out, y, y_label);
    for (r, points) in series.iter().enumerate() {
        let pixels: Vec<(f64, f64)> = points
            .iter()
            .filter(|(_, v)| v.is_finite())
            .map(|(k, v)| (x.at(*k), y.at(*v)))
            .collect();
        line_with_dots(
            &mut out,
            &pixels,
            colour(r),
            names.get(r).copied().unwrap_or(""),
        );
    }
    frame.legend(&mut out, names);
    out.push_str("</svg>");
    out
}

/// The `p` quantile of sorted, non-empty `values` (linear between ranks,
/// as numpy's default).
fn quantile(values: &[f64], p: f64) -> f64 {
    let position = p * (values.len() - 1) as f64;
    let below = position.floor() as usize;
    let above = position.ceil() as usize;
    let weight = position - below as f64;
    values[below] + (values[above] - values[below]) * weight
}

/// A fixed vertical offset in [-1, 1] for a query's dot, from its id, so
/// equal values do not hide each other and the page is the same each time.
fn jitter(query: &str) -> f64 {
    // FNV-1a: stable across builds and platforms.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in query.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    (hash % 2001) as f64 / 1000.0 - 1.0
}

fn plural<'s>(count: usize, one: &'s str, many: &'s str) -> &'s str {
    if count == 1 { one } else { many }
}

/// The page's whole style sheet: system fonts, nothing fetched.
pub(super) const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;\
color:#222;background:#fff;margin:0}\
main{max-width:1100px;margin:0 auto;padding:16px 24px 48px}\
h1{font-size:1.6em;margin:.4em 0}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ddd;\
padding-bottom:.2em}h3{font-size:1.05em}\
nav{margin:.5em 0 1em;font-size:.95em}a{color:#0060a0}\
.run{border-left:6px solid;padding-left:4px;font-weight:600}\
table{border-collapse:collapse;margin:.5em 0;font-size:.92em}\
th,td{padding:3px 10px;border-bottom:1px solid #e4e4e4;text-align:left}\
th{background:#f4f4f4}.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
.note{color:#555;font-size:.9em;max-width:860px}\
.win{color:#0060a0}.loss{color:#b04000}\
.gates .pass b{color:#1a7f37}.gates .fail b{color:#c62828}\
figure{margin:12px 0}figcaption{font-size:.9em;color:#333}\
.grid{display:flex;flex-wrap:wrap;gap:8px 24px}\
svg{max-width:100%;height:auto;font-size:11px}\
svg .grid{stroke:#eee}svg .axis{stroke:#888}svg .tick{fill:#444}svg .label{fill:#222;font-size:12px}\
details{margin:.4em 0}summary{cursor:pointer;font-weight:600}\
details.explained{margin-left:1em}details.explained summary{font-weight:500}\
.pair{display:flex;flex-wrap:wrap;gap:4px 24px;align-items:flex-start}\
.explain h4{margin:.6em 0 .2em;font-size:.95em}.explain table{font-size:.85em}\
.explain th,.explain td{padding:2px 6px}.formula code{white-space:pre-wrap;word-break:break-word}\
.quantities{font-size:.88em;color:#333;margin:.2em 0}\
footer{margin-top:3em;color:#777;font-size:.85em}";

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::super::{MetricColumn, RunResult};
    use super::*;
    use rankeval::curves::RunCurves;

    fn curves(runs: usize) -> Curves {
        Curves {
            depth: 3,
            capped: false,
            families: vec!["precision@k".into(), "recall@k".into(), "ndcg@k".into()],
            runs: (0..runs)
                .map(|r| RunCurves {
                    at_k: vec![
                        vec![1.0, 0.75, 0.5 + 0.1 * r as f64],
                        vec![0.2, 0.4, 0.6],
                        vec![1.0, 0.8, 0.7],
                    ],
                    precision_recall: (0..RECALL_LEVELS)
                        .map(|i| 1.0 - i as f64 / (10.0 + r as f64))
                        .collect(),
                })
                .collect(),
        }
    }

    #[test]
    fn small_report() {
        let report = sample(&["mean"]);
        let curves = curves(2);
        let html = render(
            &report,
            RenderOptions { per_query: true },
            HtmlExtras {
                curves: Some(&curves),
                comparison: None,
                explanations: None,
                title: None,
            },
        );
        insta::assert_snapshot!(html);
    }

    #[test]
    fn intervals_are_error_bars_around_the_means() {
        let report = super::super::tests::sample_with_intervals();
        let html = render(&report, RenderOptions::default(), HtmlExtras::default());
        // Two runs x four metrics, less the fourth metric's in both runs
        // (its mean is NaN, so are its bounds).
        assert_eq!(html.matches("<g class=\"interval\">").count(), 6, "{html}");
        assert!(
            html.contains("<title>baseline: ci 0.3750 [0.2500, 0.6250]</title>"),
            "{html}"
        );
        assert!(html.contains("the confidence interval of the mean (ci) as an error bar"));
        // The summary table shows the bounds beside the mean.
        assert!(html.contains("0.3750 [0.2500, 0.6250]"));
        let plain = render(
            &sample(&["mean"]),
            RenderOptions::default(),
            HtmlExtras::default(),
        );
        assert!(!plain.contains("class=\"interval\""));
    }

    #[test]
    fn groups_are_tables_under_the_summary() {
        let html = render(
            &super::super::tests::sample_with_groups(),
            RenderOptions::default(),
            HtmlExtras::default(),
        );
        assert_eq!(html.matches("<table class=\"summary group\">").count(), 2);
        assert!(html.contains("<th>segment=tail</th>"), "{html}");
        let plain = render(
            &sample(&["mean"]),
            RenderOptions::default(),
            HtmlExtras::default(),
        );
        assert!(!plain.contains("Groups of queries"));
    }

    #[test]
    fn the_page_fetches_nothing_and_runs_no_script() {
        let curves = curves(2);
        let html = render(
            &sample(&["mean"]),
            RenderOptions::default(),
            HtmlExtras {
                curves: Some(&curves),
                comparison: None,
                explanations: None,
                title: None,
            },
        );
        for needle in ["<script", "http://", "https://", "@import", "url(", "<link"] {
            let allowed = needle == "http://"
                && html.matches(needle).count()
                    == html.matches("http://www.w3.org/2000/svg").count();
            assert!(allowed || !html.contains(needle), "the page holds {needle}");
        }
    }

    #[test]
    fn a_comparison_adds_columns_gates_and_its_baseline() {
        let report = sample(&["mean"]);
        let comparison = Comparison {
            baseline: 1,
            columns: vec![SummaryColumn {
                title: "Δ".into(),
                cells: vec![vec![String::new(), "+0.1250".into()]; 4],
            }],
            gates: vec![GateResult {
                name: "ap >= baseline".into(),
                passed: false,
                detail: "0.3750 < 0.5000".into(),
            }],
        };
        let html = render(
            &report,
            RenderOptions::default(),
            HtmlExtras {
                curves: None,
                comparison: Some(&comparison),
                explanations: None,
                title: None,
            },
        );
        assert!(html.contains("<th class=\"num\">Δ (v2)</th>"));
        assert!(html.contains("<td class=\"num\">+0.1250</td>"));
        assert!(
            html.contains(
                "<li class=\"fail\"><b>FAIL</b> ap &gt;= baseline: 0.3750 &lt; 0.5000</li>"
            )
        );
        assert!(html.contains("Baseline: <b>v2</b>. "));
        assert!(html.contains("ap: baseline − v2"));
    }

    /// A report of `queries` queries, 2 runs and 5 metrics with varied values.
    fn large(queries: usize) -> Report {
        let metrics: Vec<MetricColumn> = ["ap", "rr", "p@10", "recall@100", "ndcg@10"]
            .iter()
            .map(|name| MetricColumn {
                name: (*name).into(),
                trec: None,
            })
            .collect();
        let run = |name: &str, shift: usize| RunResult {
            name: name.into(),
            queries: (0..queries).map(|q| format!("query-{q}")).collect(),
            per_query: (0..metrics.len())
                .map(|m| {
                    (0..queries)
                        .map(|q| ((q * 7919 + m * 104_729 + shift) % 1000) as f64 / 999.0)
                        .collect()
                })
                .collect(),
            aggregates: vec![vec![0.5]; metrics.len()],
            intervals: Vec::new(),
            groups: Vec::new(),
            ir_metadata: None,
            corpus: Vec::new(),
        };
        Report {
            metrics: metrics.clone(),
            aggregators: vec!["mean".into()],
            corpus: Vec::new(),
            runs: vec![run("baseline", 0), run("v2", 13)],
            warnings: Vec::new(),
        }
    }

    #[test]
    fn a_report_of_100k_queries_stays_small() {
        let report = large(100_000);
        let curves = Curves {
            depth: 30,
            ..curves(2)
        };
        let html = render(
            &report,
            RenderOptions { per_query: true },
            HtmlExtras {
                curves: Some(&curves),
                comparison: None,
                explanations: None,
                title: None,
            },
        );
        assert!(html.len() < 400_000, "{} bytes", html.len());
        assert!(html.contains("100000 queries in 400 bars (each the mean of about 250 queries)"));
        assert!(html.contains("A run of more than 300 queries shows no dots"));
        assert!(html.contains("Per-query table of baseline left out: 100000 queries"));
        // Query ids appear only in the tables of the queries that changed most.
        assert!(
            html.matches("query-").count() <= 5 * CHANGED,
            "per-query marks drawn"
        );
        // Below the limits, one mark per query: the size grows with them.
        let small = render(
            &large(DOT_LIMIT),
            RenderOptions::default(),
            HtmlExtras::default(),
        );
        assert!(small.contains(&format!("query-{}", DOT_LIMIT - 1)));
    }

    #[test]
    fn explain_tables_say_why_they_are_missing() {
        let explanations = ChangedExplanations {
            unavailable: Some("the run could not be read again".into()),
            ..ChangedExplanations::default()
        };
        let html = render(
            &large(20),
            RenderOptions::default(),
            HtmlExtras {
                explanations: Some(&explanations),
                ..HtmlExtras::default()
            },
        );
        assert!(html.contains("No explain tables: the run could not be read again."));
        assert!(!html.contains("class=\"explained\""));
        // The changed queries are the table's rows, largest change first.
        let queries = changed_queries(&large(20), 0, 0, 1);
        assert_eq!(queries.len(), CHANGED);
        let report = large(20);
        let (pairs, _) = paired(&report, 0, 0, 1);
        let size = |q: &str| {
            let p = pairs.iter().find(|p| p.query == q).unwrap();
            p.difference().abs()
        };
        assert!(queries.windows(2).all(|w| size(&w[0]) >= size(&w[1])));
    }

    #[test]
    fn quantiles_interpolate_between_ranks() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert_eq!(quantile(&v, 0.25), 1.75);
        assert_eq!(quantile(&v, 1.0), 4.0);
    }
}
