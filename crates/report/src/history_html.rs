//! `rankeval history DB --format html`: one self-contained page (inline CSS
//! and SVG, no script, nothing fetched) with the records and, per metric,
//! the trend of each run's mean as a line with its 95% interval drawn as a
//! whisker at every record. Accepted records are ringed; where a record
//! was measured on other judgements or another definition of the metric
//! than the one before it, a dashed line marks the break, as the tables'
//! notes do. Drawn with the HTML report's own SVG pieces
//! ([`super::html_svg`]); the same records give the same bytes.

use std::fmt::Write as _;

use rankeval::history::{LEVEL, RecordSummary, TrendPoint, TrendSeries, rfc3339};

use super::html::STYLE;
use super::html_svg::{Frame, colour, coord, escape, line_with_dots};

/// Up to this many records in a series, each point has its dot and its
/// interval's whisker; past it, the line alone and the intervals as one
/// band, so that a page of 10,000 records stays small (accepted records
/// and breaks are drawn either way).
pub const POINT_LIMIT: usize = 300;

/// The records' table lists the last this many records (the charts draw
/// them all); `rankeval history DB` lists every one.
pub const TABLE_LIMIT: usize = 100;

/// The page of `records` and their trends (`series`).
pub fn render_history_html(records: &[RecordSummary], series: &[TrendSeries]) -> String {
    let mut out = String::with_capacity(16 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>rankeval history</title>\n<style>{STYLE}</style></head>\n<body><main>\n\
         <h1>rankeval history</h1>\n<p>{} {}.</p>\n",
        records.len(),
        if records.len() == 1 {
            "record"
        } else {
            "records"
        }
    );
    // Series grouped by metric, in order of first appearance.
    let mut metrics: Vec<&str> = Vec::new();
    for s in series {
        if !metrics.contains(&s.metric.as_str()) {
            metrics.push(&s.metric);
        }
    }
    out.push_str("<section id=\"trends\"><h2>Trends</h2>\n");
    if metrics.is_empty() {
        out.push_str("<p class=\"note\">No record yet.</p>\n");
    }
    for metric in metrics {
        let of_metric: Vec<&TrendSeries> = series.iter().filter(|s| s.metric == metric).collect();
        out.push_str("<figure>");
        out.push_str(&trend_chart(metric, &of_metric));
        let _ = writeln!(
            out,
            "<figcaption>{}: each run's mean by record, with its {:.0}% t interval; a ring marks \
             an accepted record, a dashed line a record measured on other judgements or another \
             definition than the one before it.</figcaption></figure>",
            escape(metric),
            LEVEL * 100.0
        );
    }
    out.push_str("</section>\n");
    records_table(&mut out, records);
    out.push_str(
        "<footer>Made by rankeval. One file: no script, no network access needed.</footer>\n\
         </main></body></html>\n",
    );
    out
}

/// One metric's chart: x the record id, y the mean, a line per run.
fn trend_chart(metric: &str, series: &[&TrendSeries]) -> String {
    let frame = Frame::new(640.0, 280.0, [16.0, 130.0, 40.0, 56.0]);
    let points = || series.iter().flat_map(|s| s.points.iter());
    let ids = points().map(|p| p.id as f64);
    let (x_lo, x_hi) = ids.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), id| {
        (lo.min(id), hi.max(id))
    });
    let values = points().flat_map(|p| {
        let (l, u) = p.interval.unwrap_or((p.mean, p.mean));
        [p.mean, l, u]
    });
    let (y_lo, y_hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    let (y_lo, y_hi) = if y_lo.is_finite() {
        (y_lo, y_hi)
    } else {
        (0.0, 1.0)
    };
    let x = frame.x(x_lo, x_hi).nice(6);
    let y = frame.y(y_lo, y_hi).nice(5);
    let mut out = frame.open(&format!("{metric}: mean by record"));
    frame.x_axis(&mut out, x, "record");
    frame.y_axis(&mut out, y, metric);
    for (r, s) in series.iter().enumerate() {
        let c = colour(r);
        let mut previous: Option<&TrendPoint> = None;
        for p in &s.points {
            let px = coord(x.at(p.id as f64));
            if let Some(prev) = previous {
                let mut why = Vec::new();
                if prev.qrels_fingerprint != p.qrels_fingerprint {
                    why.push("other judgements");
                }
                if prev.definition_version != p.definition_version {
                    why.push("other definition");
                }
                if !why.is_empty() {
                    let _ = writeln!(
                        out,
                        "<line class=\"break\" x1=\"{px}\" x2=\"{px}\" y1=\"{}\" y2=\"{}\" \
                         stroke=\"{c}\" stroke-dasharray=\"4 3\"><title>record {}: {}</title>\
                         </line>",
                        coord(frame.top),
                        coord(frame.bottom),
                        p.id,
                        why.join(", ")
                    );
                }
            }
            if let Some((l, u)) = p
                .interval
                .filter(|(l, u)| l.is_finite() && u.is_finite())
                .filter(|_| s.points.len() <= POINT_LIMIT)
            {
                let _ = writeln!(
                    out,
                    "<line class=\"interval\" x1=\"{px}\" x2=\"{px}\" y1=\"{}\" y2=\"{}\" \
                     stroke=\"{c}\" stroke-opacity=\"0.5\" stroke-width=\"2\"/>",
                    coord(y.at(l)),
                    coord(y.at(u))
                );
            }
            if p.accepted && p.mean.is_finite() {
                let _ = writeln!(
                    out,
                    "<circle class=\"accepted\" cx=\"{px}\" cy=\"{}\" r=\"6\" fill=\"none\" \
                     stroke=\"{c}\" stroke-width=\"1.5\"><title>record {} (accepted)</title>\
                     </circle>",
                    coord(y.at(p.mean)),
                    p.id
                );
            }
            previous = Some(p);
        }
        let pixels: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|p| p.mean.is_finite())
            .map(|p| (x.at(p.id as f64), y.at(p.mean)))
            .collect();
        if s.points.len() <= POINT_LIMIT {
            line_with_dots(&mut out, &pixels, c, &s.run);
        } else {
            band(&mut out, &x, &y, s, c);
            let path: Vec<String> = pixels
                .iter()
                .map(|(px, py)| format!("{},{}", coord(*px), coord(*py)))
                .collect();
            let _ = writeln!(
                out,
                "<g class=\"series\"><title>{}</title><polyline fill=\"none\" stroke=\"{c}\" \
                 stroke-width=\"1.5\" points=\"{}\"/></g>",
                escape(&s.run),
                path.join(" ")
            );
        }
    }
    let names: Vec<&str> = series.iter().map(|s| s.run.as_str()).collect();
    frame.legend(&mut out, &names);
    out.push_str("</svg>");
    out
}

/// The intervals of a long series `s` as one shaded band: upper ends left
/// to right, then lower ends back (records without an interval skipped).
fn band(
    out: &mut String,
    x: &super::html_svg::Scale,
    y: &super::html_svg::Scale,
    s: &TrendSeries,
    c: &str,
) {
    let ends: Vec<(f64, f64, f64)> = s
        .points
        .iter()
        .filter_map(|p| p.interval.map(|(l, u)| (p.id as f64, l, u)))
        .filter(|(_, l, u)| l.is_finite() && u.is_finite())
        .collect();
    if ends.is_empty() {
        return;
    }
    let upper = ends
        .iter()
        .map(|(id, _, u)| format!("{},{}", coord(x.at(*id)), coord(y.at(*u))));
    let lower = ends
        .iter()
        .rev()
        .map(|(id, l, _)| format!("{},{}", coord(x.at(*id)), coord(y.at(*l))));
    let _ = writeln!(
        out,
        "<polygon class=\"interval\" fill=\"{c}\" fill-opacity=\"0.15\" points=\"{}\"/>",
        upper.chain(lower).collect::<Vec<_>>().join(" ")
    );
}

/// The table of the last [`TABLE_LIMIT`] records, newest last, as
/// `rankeval history` lists them.
fn records_table(out: &mut String, records: &[RecordSummary]) {
    out.push_str(
        "<section id=\"records\"><h2>Records</h2>\n<table class=\"summary\"><tr><th>id</th>\
         <th>time</th><th>run</th><th>label</th><th>commit</th><th>accepted</th>\
         <th>queries</th><th>qrels</th><th>definitions</th></tr>\n",
    );
    let short = |f: &str| f.get(..12).unwrap_or(f).to_owned();
    let shown = records
        .get(records.len().saturating_sub(TABLE_LIMIT)..)
        .unwrap_or(records);
    for r in shown {
        let _ = writeln!(
            out,
            "<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td class=\"num\">{}</td><td><code>{}</code></td>\
             <td><code>{}</code></td></tr>",
            r.id,
            rfc3339(r.time_ms),
            escape(&r.run),
            escape(r.label.as_deref().unwrap_or("")),
            escape(&r.commit.as_deref().map(short).unwrap_or_default()),
            if r.accepted { "yes" } else { "" },
            r.num_queries,
            escape(&short(&r.qrels_fingerprint)),
            escape(&short(&r.definitions_fingerprint)),
        );
    }
    out.push_str("</table>\n");
    if shown.len() < records.len() {
        let _ = writeln!(
            out,
            "<p class=\"note\">The last {} of {} records; <code>rankeval history DB</code> \
             lists every one.</p>",
            shown.len(),
            records.len()
        );
    }
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval::history::{MetricMean, trend};

    /// Records of two runs over five evaluations; the judgements change at
    /// record 4, record 2 is accepted, one mean is NaN.
    fn records() -> Vec<RecordSummary> {
        let mut out = Vec::new();
        for id in 1..=6i64 {
            let run = if id % 2 == 1 { "bm25" } else { "dense <v2>" };
            let mean = 0.3 + 0.05 * id as f64 + if id % 2 == 0 { 0.1 } else { 0.0 };
            out.push(RecordSummary {
                id,
                time_ms: 1_795_941_962_000 + id * 86_400_000,
                run: run.to_owned(),
                label: Some(format!("nightly {id}")),
                commit: Some(format!("{id:040x}")),
                rankeval_version: "0.1.0".to_owned(),
                accepted: id == 2,
                kind: rankeval::history::RecordKind::Eval,
                qrels_fingerprint: if id < 4 { "a" } else { "b" }.repeat(64),
                definitions_fingerprint: "c".repeat(64),
                num_queries: 50,
                level: rankeval::history::LEVEL,
                means: vec![
                    MetricMean {
                        name: "ndcg@10".to_owned(),
                        definition_version: 1,
                        n: 50,
                        mean,
                        interval: Some((mean - 0.04, mean + 0.04)),
                        standard_error: None,
                        refused: None,
                    },
                    MetricMean {
                        name: "ap".to_owned(),
                        definition_version: 1,
                        n: 50,
                        mean: if id == 5 { f64::NAN } else { mean / 2.0 },
                        interval: None,
                        standard_error: None,
                        refused: None,
                    },
                ],
            });
        }
        out
    }

    #[test]
    fn the_page_draws_each_metrics_trend() {
        let records = records();
        let page = render_history_html(&records, &trend(&records));
        assert!(!page.contains("<script"), "no script");
        // Nothing fetched: the only address is the SVG namespace's.
        assert_eq!(
            page.matches("http").count(),
            page.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
        );
        assert_eq!(page.matches("<svg").count(), 2, "one chart per metric");
        // Each of the two runs is a line in each chart.
        assert_eq!(page.matches("<polyline").count(), 4);
        assert_eq!(page.matches("class=\"accepted\"").count(), 2);
        // The judgements change at record 4 (bm25's record 5 follows 3;
        // dense's 4 follows 2).
        assert_eq!(page.matches("class=\"break\"").count(), 4);
        assert!(page.contains("dense &lt;v2&gt;"));
        insta::assert_snapshot!(page);
    }

    #[test]
    fn a_long_series_is_a_line_and_a_band() {
        let mut records = Vec::new();
        for id in 1..=(POINT_LIMIT as i64 + 1) {
            let mut r = super::tests::records().swap_remove(0);
            r.id = id;
            r.accepted = id == 7;
            r.means.truncate(1);
            records.push(r);
        }
        let page = render_history_html(&records, &trend(&records));
        assert_eq!(page.matches("<polygon class=\"interval\"").count(), 1);
        assert_eq!(page.matches("<line class=\"interval\"").count(), 0);
        assert_eq!(page.matches("<circle cx").count(), 0, "no dot per record");
        assert_eq!(page.matches("class=\"accepted\"").count(), 1);
        assert!(page.contains("The last 100 of 301 records"));
        assert!(page.len() < 40_000, "{} bytes", page.len());
    }

    #[test]
    fn an_empty_history_is_a_page_that_says_so() {
        let page = render_history_html(&[], &[]);
        assert!(page.contains("No record yet."));
        assert!(page.ends_with("</html>\n"));
    }
}
