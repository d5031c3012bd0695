//! How a metric got its value for one query: the per-rank terms it adds up,
//! the quantities it divides by, and the formula with the numbers put in.
//! [`Metric::explain`](crate::Metric::explain) returns one; `rankeval
//! explain` prints it next to the ranked list.

use serde::Serialize;

use crate::grade::Grade;
use crate::judge::JudgedRanking;
use crate::metric::Metric;
use crate::sampled::Samples;

/// One metric's account of its value for one query.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Explanation {
    /// The metric's canonical name.
    pub metric: String,
    /// The value: what [`Metric::score`] returns for the query, bit for bit.
    pub value: f64,
    /// The relevance level the metric judges by, if it reads relevance as
    /// yes or no (the "relevant" and "hits" columns use it).
    pub level: Option<Grade>,
    /// The deepest rank the metric reads (`None`: the whole list).
    pub depth: Option<usize>,
    /// Per-rank terms, each with one entry per rank from 1 (`None`: no term
    /// at that rank, e.g. past the cutoff).
    pub columns: Vec<Column>,
    /// Named quantities, e.g. `|R| = 3`, `IDCG@5 = 2.63`.
    pub quantities: Vec<Quantity>,
    /// The formula with the numbers put in, ending with ` = value`.
    pub formula: String,
    /// What this variant divides by (or otherwise does differently), e.g.
    /// `divided by min(|R|, 5) = 3`; printed where variants are compared.
    pub normalizer: Option<String>,
}

/// A per-rank term of an [`Explanation`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Column {
    /// Header, e.g. `P@i` or `rel(i) x P@i`.
    pub name: String,
    /// The term at rank 1, 2, ...
    pub values: Vec<Option<f64>>,
}

/// A named number of an [`Explanation`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Quantity {
    /// E.g. `|R|`.
    pub name: String,
    /// Its value.
    pub value: f64,
}

impl Explanation {
    /// The bare explanation of `metric` on `query`: its value, depth, and
    /// the formula `name = value`; what [`Metric::explain`] returns by
    /// default.
    pub fn new(metric: &(impl Metric + ?Sized), query: &JudgedRanking<'_>) -> Self {
        let value = metric.score(query);
        let name = metric.name();
        Self {
            formula: format!("{name} = {}", number(value)),
            metric: name,
            value,
            level: None,
            depth: metric.depth().map(|k| k.get()),
            columns: Vec::new(),
            quantities: Vec::new(),
            normalizer: None,
        }
    }

    /// The bare explanation of `metric` over a query's sampled rankings:
    /// the value of [`Metric::score_samples`], the formula `name = value`.
    pub fn of_samples(metric: &(impl Metric + ?Sized), samples: &Samples<'_>) -> Self {
        let value = metric.score_samples(samples);
        let name = metric.name();
        Self {
            formula: format!("{name} = {}", number(value)),
            metric: name,
            value,
            level: None,
            depth: metric.depth().map(|k| k.get()),
            columns: Vec::new(),
            quantities: Vec::new(),
            normalizer: None,
        }
    }

    /// What [`Metric::explain_samples`] gives by default: each sample's
    /// [`Metric::score`] as a quantity (`sample 1`, `sample 2`, ... in the
    /// samples' order) and the formula of their mean, whose value is
    /// [`Metric::score_samples`]'s.
    pub fn of_sample_mean(metric: &(impl Metric + ?Sized), samples: &Samples<'_>) -> Self {
        let mut explanation = Self::of_samples(metric, samples);
        let values: Vec<f64> = samples.rankings().iter().map(|r| metric.score(r)).collect();
        for (s, value) in values.iter().enumerate() {
            explanation = explanation.quantity(format!("sample {}", s + 1), *value);
        }
        let terms: Vec<String> = values.iter().map(|v| number(*v)).collect();
        let name = explanation.metric.clone();
        match values.len() {
            0 => explanation.formula(format!("{name} = 0 (no sample)")),
            n => explanation.formula(format!(
                "{name} = mean over {n} {} = ({}) / {n}",
                if n == 1 { "sample" } else { "samples" },
                terms.join(" + ")
            )),
        }
    }

    /// With relevance judged at `level`.
    pub fn level(mut self, level: Grade) -> Self {
        self.level = Some(level);
        self
    }

    /// With a per-rank column.
    pub fn column(mut self, name: impl Into<String>, values: Vec<Option<f64>>) -> Self {
        self.columns.push(Column {
            name: name.into(),
            values,
        });
        self
    }

    /// With a named quantity.
    pub fn quantity(mut self, name: impl Into<String>, value: f64) -> Self {
        self.quantities.push(Quantity {
            name: name.into(),
            value,
        });
        self
    }

    /// With the formula `text = value` (the value appended here).
    pub fn formula(mut self, text: impl AsRef<str>) -> Self {
        self.formula = format!("{} = {}", text.as_ref(), number(self.value));
        self
    }

    /// With what this variant divides by.
    pub fn normalizer(mut self, text: impl Into<String>) -> Self {
        self.normalizer = Some(text.into());
        self
    }
}

/// A number as explanations print it: an integer without decimals, else
/// at most 4 decimals without trailing zeros (`0.5`, `0.3333`, `2`).
pub fn number(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value == value.trunc() && value.abs() < 1e15 {
        return format!("{:.0}", value + 0.0);
    }
    let text = format!("{value:.4}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

/// The ranks a metric with cutoff `depth` reads of a list judged to `len`.
pub fn ranks_read(query: &JudgedRanking<'_>, depth: Option<usize>) -> usize {
    depth.map_or(query.ranked().len(), |k| k.min(query.ranked().len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_drop_needless_decimals() {
        assert_eq!(number(2.0), "2");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(1.0 / 3.0), "0.3333");
        assert_eq!(number(0.00001), "0");
        assert_eq!(number(-0.0), "0");
        assert_eq!(number(f64::NAN), "NaN");
    }
}
