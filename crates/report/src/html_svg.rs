//! Hand-written SVG for the HTML report: scales, axes with round ticks, and
//! the few shapes the charts draw. Everything is a string; coordinates are
//! printed with one decimal, so a chart's size grows with what it shows and
//! the same data gives the same bytes.

use std::fmt::Write as _;

/// Colours of the runs, in order (Okabe-Ito: told apart by colour-blind
/// readers too); the 9th run takes the 1st colour again.
pub(super) const PALETTE: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#999999",
];

/// The colour of run `r`.
pub(super) fn colour(r: usize) -> &'static str {
    PALETTE[r % PALETTE.len()]
}

/// Bars of a query the compared run wins (blue) and loses (vermillion).
pub(super) const WIN: &str = "#0072B2";
/// See [`WIN`].
pub(super) const LOSS: &str = "#D55E00";

/// Escapes text for HTML and SVG, in content and in attribute values.
pub(super) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate with at most one decimal, without a trailing `.0`.
pub(super) fn coord(x: f64) -> String {
    // `+ 0.0` turns -0 into 0.
    let rounded = (x * 10.0).round() / 10.0 + 0.0;
    if rounded == rounded.trunc() {
        format!("{rounded:.0}")
    } else {
        format!("{rounded:.1}")
    }
}

/// A linear map from data values `[lo, hi]` to pixels `[from, to]`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Scale {
    lo: f64,
    hi: f64,
    from: f64,
    to: f64,
    /// The tick step when the domain was rounded out to it ([`Scale::nice`]).
    step: Option<f64>,
}

impl Scale {
    /// `[lo, hi]` onto `[from, to]`; an empty domain is widened by 1.
    pub(super) fn new(lo: f64, hi: f64, from: f64, to: f64) -> Self {
        let (lo, hi) = if hi > lo { (lo, hi) } else { (lo, lo + 1.0) };
        Self {
            lo,
            hi,
            from,
            to,
            step: None,
        }
    }

    /// The same scale with its domain rounded out to whole steps of about
    /// `count` round ticks, so that both ends of its axis carry a tick and
    /// a label (the axes draw exactly those ticks).
    pub(super) fn nice(self, count: usize) -> Self {
        if !self.lo.is_finite() || !self.hi.is_finite() {
            return self;
        }
        let step = nice_step(self.lo, self.hi, count);
        let lo = (self.lo / step + 1e-9).floor() * step;
        let hi = (self.hi / step - 1e-9).ceil() * step;
        Self {
            lo,
            hi,
            step: Some(step),
            ..self
        }
    }

    /// The tick values of an axis along this scale: every step of a
    /// [`Scale::nice`] domain, ends included, else about `count` round ones.
    pub(super) fn ticks(&self, count: usize) -> Vec<f64> {
        match self.step {
            Some(step) => {
                let first = (self.lo / step).round() as i64;
                let last = (self.hi / step).round() as i64;
                (first..=last).map(|i| i as f64 * step).collect()
            }
            None => ticks(self.lo, self.hi, count),
        }
    }

    /// The pixel of `value`.
    pub(super) fn at(&self, value: f64) -> f64 {
        self.from + (value - self.lo) / (self.hi - self.lo) * (self.to - self.from)
    }

    /// The domain.
    pub(super) fn domain(&self) -> (f64, f64) {
        (self.lo, self.hi)
    }
}

/// About `count` round tick values covering `[lo, hi]` (steps of 1, 2 or 5
/// times a power of ten).
pub(super) fn ticks(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    if hi <= lo || !lo.is_finite() || !hi.is_finite() {
        return vec![lo];
    }
    let step = nice_step(lo, hi, count);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// The round step (1, 2 or 5 times a power of ten) of about `count` ticks
/// over `[lo, hi]`, `lo < hi`.
fn nice_step(lo: f64, hi: f64, count: usize) -> f64 {
    let raw = (hi - lo) / count.max(1) as f64;
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * power)
}

/// A tick label: as few decimals as the step needs.
pub(super) fn tick_label(value: f64, step: f64) -> String {
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10()).ceil().clamp(0.0, 6.0) as usize
    };
    let text = format!("{value:.decimals$}");
    if text.starts_with('-') && text.trim_start_matches(['-', '0', '.']).is_empty() {
        text[1..].to_owned()
    } else {
        text
    }
}

/// A chart area: the SVG's size and the plot rectangle inside its margins.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    /// Width of the whole SVG.
    pub width: f64,
    /// Height of the whole SVG.
    pub height: f64,
    /// Plot rectangle: left edge.
    pub left: f64,
    /// Plot rectangle: right edge.
    pub right: f64,
    /// Plot rectangle: top edge.
    pub top: f64,
    /// Plot rectangle: bottom edge.
    pub bottom: f64,
}

impl Frame {
    /// A `width` x `height` SVG with the given margins.
    pub(super) fn new(width: f64, height: f64, margins: [f64; 4]) -> Self {
        let [top, right, bottom, left] = margins;
        Self {
            width,
            height,
            left,
            right: width - right,
            top,
            bottom: height - bottom,
        }
    }

    /// The opening `<svg>` tag, with an accessible title.
    pub(super) fn open(&self, title: &str) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" \
             height=\"{h}\" role=\"img\" aria-label=\"{t}\"><title>{t}</title>\n",
            w = coord(self.width),
            h = coord(self.height),
            t = escape(title),
        )
    }

    /// A horizontal scale over the plot's width.
    pub(super) fn x(&self, lo: f64, hi: f64) -> Scale {
        Scale::new(lo, hi, self.left, self.right)
    }

    /// A vertical scale over the plot's height (values grow upwards).
    pub(super) fn y(&self, lo: f64, hi: f64) -> Scale {
        Scale::new(lo, hi, self.bottom, self.top)
    }

    /// A horizontal axis at the bottom with ticks, grid lines and a label.
    pub(super) fn x_axis(&self, out: &mut String, x: Scale, label: &str) {
        let values = x.ticks(6);
        let step = step_of(&values);
        for value in &values {
            let px = coord(x.at(*value));
            let _ = writeln!(
                out,
                "<line class=\"grid\" x1=\"{px}\" x2=\"{px}\" y1=\"{}\" y2=\"{}\"/>\
                 <text class=\"tick\" x=\"{px}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                coord(self.top),
                coord(self.bottom),
                coord(self.bottom + 14.0),
                tick_label(*value, step)
            );
        }
        let _ = writeln!(
            out,
            "<line class=\"axis\" x1=\"{}\" x2=\"{}\" y1=\"{b}\" y2=\"{b}\"/>\
             <text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            coord(self.left),
            coord(self.right),
            coord((self.left + self.right) / 2.0),
            coord(self.bottom + 30.0),
            escape(label),
            b = coord(self.bottom),
        );
    }

    /// A vertical axis on the left with ticks, grid lines and a label.
    pub(super) fn y_axis(&self, out: &mut String, y: Scale, label: &str) {
        let values = y.ticks(5);
        let step = step_of(&values);
        for value in &values {
            let py = coord(y.at(*value));
            let _ = writeln!(
                out,
                "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{py}\" y2=\"{py}\"/>\
                 <text class=\"tick\" x=\"{}\" y=\"{py}\" dy=\"4\" text-anchor=\"end\">{}</text>",
                coord(self.left),
                coord(self.right),
                coord(self.left - 6.0),
                tick_label(*value, step)
            );
        }
        let _ = writeln!(
            out,
            "<line class=\"axis\" x1=\"{l}\" x2=\"{l}\" y1=\"{}\" y2=\"{}\"/>\
             <text class=\"label\" transform=\"translate({},{}) rotate(-90)\" \
             text-anchor=\"middle\">{}</text>",
            coord(self.top),
            coord(self.bottom),
            coord(self.left - 40.0),
            coord((self.top + self.bottom) / 2.0),
            escape(label),
            l = coord(self.left),
        );
    }

    /// A legend of runs right of the plot (leave a right margin of ~100).
    pub(super) fn legend(&self, out: &mut String, names: &[&str]) {
        out.push_str("<g class=\"legend\">");
        for (r, name) in names.iter().enumerate() {
            let y = self.top + 6.0 + 16.0 * r as f64;
            let x = self.right + 10.0;
            let _ = write!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"4\" fill=\"{c}\"/>\
                 <text class=\"tick\" x=\"{}\" y=\"{}\">{}</text>",
                coord(x),
                coord(y + 4.0),
                coord(x + 16.0),
                coord(y + 9.0),
                escape(&shortened(name, 16)),
                c = colour(r),
            );
        }
        out.push_str("</g>\n");
    }
}

/// `text` cut to `max` characters, the last one an ellipsis when cut.
pub(super) fn shortened(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(max - 1).collect();
    short.push('…');
    short
}

/// The step between consecutive ticks (1 when there is one tick).
fn step_of(values: &[f64]) -> f64 {
    match values {
        [a, b, ..] => b - a,
        _ => 1.0,
    }
}

/// A polyline through `points` with dots at each, in `colour`.
pub(super) fn line_with_dots(out: &mut String, points: &[(f64, f64)], colour: &str, label: &str) {
    let path: Vec<String> = points
        .iter()
        .map(|(x, y)| format!("{},{}", coord(*x), coord(*y)))
        .collect();
    let _ = writeln!(
        out,
        "<g class=\"series\"><title>{}</title><polyline fill=\"none\" stroke=\"{colour}\" \
         stroke-width=\"2\" points=\"{}\"/>",
        escape(label),
        path.join(" ")
    );
    for (x, y) in points {
        let _ = write!(
            out,
            "<circle cx=\"{}\" cy=\"{}\" r=\"2.5\" fill=\"{colour}\"/>",
            coord(*x),
            coord(*y)
        );
    }
    out.push_str("</g>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_domain() {
        assert_eq!(
            ticks(0.0, 1.0, 5),
            [0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
        );
        assert_eq!(ticks(1.0, 20.0, 6), [5.0, 10.0, 15.0, 20.0]);
        assert_eq!(ticks(-0.5, 0.5, 5), [-0.4, -0.2, 0.0, 0.2, 0.4]);
        assert_eq!(ticks(3.0, 3.0, 5), [3.0]);
    }

    #[test]
    fn nice_scales_put_a_labelled_tick_at_both_ends() {
        let frame = Frame::new(400.0, 200.0, [10.0, 10.0, 30.0, 50.0]);
        for (lo, hi) in [
            (-0.4329, 0.4329),
            (0.0, 2.63),
            (0.0, 1.0),
            (-1.0, 1.0),
            (0.0, 0.0123),
            (-0.07, 0.07),
            (0.0, 137.0),
            (3.0, 3.0),
        ] {
            let y = frame.y(lo, hi).nice(5);
            let values = y.ticks(5);
            let (first, last) = (values[0], values[values.len() - 1]);
            assert!(first <= lo && last >= hi, "{lo}..{hi}: {values:?}");
            assert_eq!(y.domain(), (first, last), "{lo}..{hi}");
            let mut out = String::new();
            frame.y_axis(&mut out, y, "value");
            for edge in [frame.top, frame.bottom] {
                let label = format!("y=\"{}\" dy=\"4\" text-anchor=\"end\">", coord(edge));
                assert!(
                    out.contains(&label),
                    "{lo}..{hi}: no tick label at {edge}\n{out}"
                );
            }
            let x = frame.x(lo, hi).nice(6);
            let mut out = String::new();
            frame.x_axis(&mut out, x, "value");
            for edge in [frame.left, frame.right] {
                let label = format!("<text class=\"tick\" x=\"{}\"", coord(edge));
                assert!(
                    out.contains(&label),
                    "{lo}..{hi}: no tick label at {edge}\n{out}"
                );
            }
        }
        // Unrounded, the top of -0.4329..0.4329 had no label (the bug).
        let mut out = String::new();
        frame.y_axis(&mut out, frame.y(-0.4329, 0.4329), "value");
        assert!(!out.contains(&format!("y=\"{}\" dy", coord(frame.top))));
    }

    #[test]
    fn tick_labels_take_the_decimals_of_the_step() {
        assert_eq!(tick_label(0.6000000000000001, 0.2), "0.6");
        assert_eq!(tick_label(15.0, 5.0), "15");
        assert_eq!(tick_label(-0.0, 0.2), "0.0");
        assert_eq!(tick_label(0.05, 0.05), "0.05");
    }

    #[test]
    fn long_names_are_shortened_with_an_ellipsis() {
        assert_eq!(shortened("baseline", 8), "baseline");
        assert_eq!(shortened("baseline-v2", 8), "baselin…");
    }

    #[test]
    fn coordinates_keep_one_decimal() {
        assert_eq!(coord(12.0), "12");
        assert_eq!(coord(12.345), "12.3");
        assert_eq!(coord(-0.04), "0");
    }

    #[test]
    fn text_is_escaped_for_content_and_attributes() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;"
        );
    }

    #[test]
    fn scales_map_the_domain_onto_pixels() {
        let s = Scale::new(0.0, 1.0, 100.0, 300.0);
        assert_eq!(s.at(0.5), 200.0);
        let up = Scale::new(0.0, 1.0, 300.0, 100.0);
        assert_eq!(up.at(1.0), 100.0);
        assert_eq!(Scale::new(2.0, 2.0, 0.0, 10.0).at(3.0), 10.0);
    }
}
