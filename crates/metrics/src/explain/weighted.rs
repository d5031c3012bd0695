//! The explanation of a metric declared in TOML (`weighted`): each rank's
//! gain, discount and term, and the normalization it divides by.

use rankeval_core::explain::{Explanation, number};
use rankeval_core::{Cutoff, JudgedRanking, Metric};

use super::{per_rank, sum_text};
use crate::weighted::{Discount, Weighted, WeightedGain, WeightedNormalization};

/// weighted: `sum of gain(i) (*|/) discount(i)`, over `Z`.
pub(crate) fn weighted(m: &Weighted, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let p = m.p.get();
    let gains = per_rank(q, m.k, |_, j| Some(m.gain_of(j, level)));
    let discount_name = match m.discount {
        Discount::None => "discount (none)",
        Discount::Log2 => "discount log2(i+1)",
        Discount::Reciprocal => "discount i",
        Discount::Geometric => "weight p^(i-1)",
    };
    let mut weight = 1.0;
    let weights = per_rank(q, m.k, |i, _| {
        let w = match m.discount {
            Discount::None => 1.0,
            Discount::Log2 => ((i + 2) as f64).log2(),
            Discount::Reciprocal => (i + 1) as f64,
            Discount::Geometric => weight,
        };
        weight *= p;
        Some(w)
    });
    let mut weight = 1.0;
    let mut terms = Vec::new();
    let term_column = per_rank(q, m.k, |i, j| {
        let gain = m.gain_of(j, level);
        let (t, text) = match m.discount {
            Discount::None => (gain, number(gain)),
            Discount::Log2 => {
                let d = ((i + 2) as f64).log2();
                (gain / d, format!("{}/{}", number(gain), number(d)))
            }
            Discount::Reciprocal => (gain / (i + 1) as f64, format!("{}/{}", number(gain), i + 1)),
            Discount::Geometric => (
                gain * weight,
                format!("{} x {}", number(gain), number(weight)),
            ),
        };
        weight *= p;
        if gain != 0.0 {
            terms.push(text);
        }
        Some(t)
    });
    let sum = m.discounted(q.top(m.k).iter().map(|&j| m.gain_of(j, level)));
    let mut explanation = Explanation::new(m, q);
    if m.gain == WeightedGain::Binary {
        explanation = explanation.level(level);
    }
    let explanation = explanation
        .column(format!("gain ({})", m.gain), gains)
        .column(discount_name, weights)
        .column("term", term_column)
        .quantity("sum", sum);
    let sum_part = sum_text(&terms);
    let (z_name, z) = match m.normalization {
        WeightedNormalization::None => {
            return explanation.formula(format!("{} = {sum_part}", m.name()));
        }
        WeightedNormalization::Unbounded => {
            return explanation
                .formula(format!(
                    "{} = (1 - p) x sum = {} x ({sum_part}) = {} x {}",
                    m.name(),
                    number(1.0 - p),
                    number(1.0 - p),
                    number(sum)
                ))
                .normalizer(format!("multiplied by 1 - p = {}", number(1.0 - p)));
        }
        WeightedNormalization::Ideal => ("the ideal ranking's sum", m.ideal(q, level)),
        WeightedNormalization::Weights => (
            "the discounts of ranks 1..k",
            m.total_weight(m.k.map_or(q.retrieved(), Cutoff::get)),
        ),
    };
    let explanation = explanation.quantity("Z", z);
    if z <= 0.0 {
        return explanation.formula(format!("{} = 0 (Z = {z_name} = 0)", m.name()));
    }
    explanation
        .formula(format!(
            "{} = sum / Z = ({sum_part}) / Z = {} / {}",
            m.name(),
            number(sum),
            number(z)
        ))
        .normalizer(format!("divided by {z_name} = {}", number(z)))
}
