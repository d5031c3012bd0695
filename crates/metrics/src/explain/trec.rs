//! Explanations of trec_eval's gain and sampling measures (G, binG,
//! ndcg_rel, Rndcg, nDCG with a gain map, infAP, rbp_resid, interpolated
//! precision) and of NCRR: each recomputes the terms the metric adds up, in
//! the metric's own order, so the formula's numbers are the metric's.

use rankeval_core::explain::{Explanation, number};
use rankeval_core::{Cutoff, JudgedRanking, Judgement, Metric};

use super::{per_rank, sum_text};
use crate::g::{BinG, G};
use crate::infap::InfAp;
use crate::interpolated::{ELEVEN_POINTS, ElevenPointAverage, IprecAtRecall, RecallLevels};
use crate::ncrr::Ncrr;
use crate::ndcg_averaged::{NdcgRel, Rndcg};
use crate::ndcg_gain_map::NdcgGainMap;
use crate::rbp_resid::RbpResid;
use crate::trec_gains::{discount, gain, ideal};

/// trec_eval's gain of every rank: the grade, 0 if unjudged or negative.
fn trec_gains(q: &JudgedRanking<'_>) -> Vec<Option<f64>> {
    per_rank(q, None, |_, j| Some(gain(j)))
}

/// The ideal gain (the judged grades sorted, negatives as 0) at every rank.
fn ideal_gains(q: &JudgedRanking<'_>) -> Vec<Option<f64>> {
    per_rank(q, None, |i, _| Some(ideal(q, i)))
}

/// `DCG@i` after every rank, trec_eval's way (a zero gain adds nothing).
fn running_dcg(q: &JudgedRanking<'_>) -> Vec<Option<f64>> {
    let mut dcg = 0.0;
    per_rank(q, None, |i, j| {
        let g = gain(j);
        if g != 0.0 {
            dcg += g / discount(i);
        }
        Some(dcg)
    })
}

/// The ideal DCG through rank `i` (0-based) for every `i` up to `len`
/// (rank `len` excluded), trec_eval's way (positive ideal gains only).
fn running_ideal(q: &JudgedRanking<'_>, len: usize) -> Vec<f64> {
    let mut dcg = 0.0;
    (0..len)
        .map(|i| {
            let g = ideal(q, i);
            if g > 0.0 {
                dcg += g / discount(i);
            }
            dcg
        })
        .collect()
}

/// How many judged grades are positive: the ranks of the ideal list that
/// gain.
fn positive_ideal(q: &JudgedRanking<'_>) -> usize {
    q.ideal_grades().iter().filter(|&&g| g > 0.0).count()
}

/// G: `sum of gain(i) / log2(2 + cost(i) - gained(i))`, over the ideal
/// total gain.
pub(crate) fn g(m: &G, q: &JudgedRanking<'_>) -> Explanation {
    let (mut gained, mut cost, mut sum) = (0.0, 0.0, 0.0);
    let mut terms = Vec::new();
    let mut costs = Vec::new();
    let mut gains_so_far = Vec::new();
    let contributions = per_rank(q, None, |i, j| {
        let g = gain(j);
        gained += g;
        let ideal_gain = ideal(q, i);
        cost += if ideal_gain >= 1.0 { ideal_gain } else { 1.0 };
        costs.push(Some(cost));
        gains_so_far.push(Some(gained));
        if g == 0.0 {
            return Some(0.0);
        }
        let t = g / (2.0 + cost - gained).log2();
        sum += t;
        terms.push(format!(
            "{}/log2({})",
            number(g),
            number(2.0 + cost - gained)
        ));
        Some(t)
    });
    let total: f64 = q
        .ideal_grades()
        .iter()
        .filter(|&&g| g > 0.0)
        .fold(0.0, |a, &g| a + g);
    let explanation = Explanation::new(m, q)
        .column("gain", trec_gains(q))
        .column("cost (ideal gains, at least 1)", costs)
        .column("gained", gains_so_far)
        .column("gain / log2(2 + cost - gained)", contributions)
        .quantity("ideal total gain", total);
    if total <= 0.0 {
        return explanation.formula(format!("{} = 0 (no positive grade)", m.name()));
    }
    explanation
        .formula(format!(
            "{} = ({}) / ideal total gain = {} / {}",
            m.name(),
            sum_text(&terms),
            number(sum),
            number(total)
        ))
        .normalizer(format!(
            "divided by the ideal total gain = {}",
            number(total)
        ))
}

/// binG: `sum over relevant ranks of 1 / log2(2 + non-relevant above)`,
/// over `|R|`.
pub(crate) fn bin_g(m: &BinG, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let relevant = q.num_relevant(level);
    let mut above = 0usize;
    let mut sum = 0.0;
    let mut terms = Vec::new();
    let above_column = per_rank(q, None, |_, j| {
        let shown = above as f64;
        if !j.is_relevant(level) {
            above += 1;
        }
        Some(shown)
    });
    above = 0;
    let contributions = per_rank(q, None, |_, j| {
        if !j.is_relevant(level) {
            above += 1;
            return None;
        }
        let t = 1.0 / ((2 + above) as f64).log2();
        sum += t;
        terms.push(format!("1/log2({})", 2 + above));
        Some(t)
    });
    let explanation = Explanation::new(m, q)
        .level(level)
        .column("non-relevant above", above_column)
        .column("1 / log2(2 + above)", contributions)
        .quantity("|R|", relevant as f64);
    if terms.is_empty() {
        return explanation.formula(format!("{} = 0 (no relevant document retrieved)", m.name()));
    }
    explanation
        .formula(format!(
            "{} = ({}) / |R| = {} / {relevant}",
            m.name(),
            sum_text(&terms),
            number(sum)
        ))
        .normalizer(format!("divided by |R| = {relevant}"))
}

/// ndcg_rel: `DCG@i / IDCG@i` at every rank with a positive gain, plus
/// the last ratio once per positive document not retrieved, over the
/// positive grades.
pub(crate) fn ndcg_rel(m: &NdcgRel, q: &JudgedRanking<'_>) -> Explanation {
    let n = q.ranked().len();
    let dcg = running_dcg(q);
    let num_rel = positive_ideal(q);
    let ideal_dcg = running_ideal(q, n.max(num_rel));
    let mut sum = 0.0;
    let mut found = 0usize;
    let mut terms = Vec::new();
    let ratios = per_rank(q, None, |i, j| {
        if gain(j) <= 0.0 {
            return None;
        }
        let r = dcg[i].unwrap_or(0.0) / ideal_dcg[i];
        sum += r;
        found += 1;
        terms.push(number(r));
        Some(r)
    });
    let full_dcg = dcg.last().copied().flatten().unwrap_or(0.0);
    let full_ideal = ideal_dcg.last().copied().unwrap_or(0.0);
    let explanation = Explanation::new(m, q)
        .column("gain", trec_gains(q))
        .column("DCG@i", dcg)
        .column("ideal gain", ideal_gains(q))
        .column(
            "IDCG@i",
            ideal_dcg.iter().take(n).map(|&v| Some(v)).collect(),
        )
        .column("DCG@i / IDCG@i at a gain", ratios)
        .quantity("positive grades", num_rel as f64)
        .quantity("DCG", full_dcg)
        .quantity("IDCG", full_ideal);
    if num_rel == 0 {
        return explanation.formula(format!("{} = 0 (no positive grade)", m.name()));
    }
    let missed = num_rel.saturating_sub(found);
    if missed > 0 {
        sum += missed as f64 * full_dcg / full_ideal;
        terms.push(format!(
            "{missed} x {} / {}",
            number(full_dcg),
            number(full_ideal)
        ));
    }
    explanation
        .formula(format!(
            "{} = ({}) / positive grades = {} / {num_rel}",
            m.name(),
            sum_text(&terms),
            number(sum)
        ))
        .normalizer(format!("averaged over {num_rel} positive grades"))
}

/// Rndcg: `DCG / IDCG` averaged at the ranks where the ideal grade drops
/// (and at the end of the list).
pub(crate) fn rndcg(m: &Rndcg, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let n = q.ranked().len();
    let dcg = running_dcg(q);
    let grades = q.ideal_grades().len();
    let ideal_dcg = running_ideal(q, n.max(grades) + 1);
    // (rank, DCG, IDCG) at each point, as trec_eval finds them.
    let mut points: Vec<(usize, f64, f64)> = Vec::new();
    let dcg_at = |r: usize| {
        if r == 0 {
            0.0
        } else {
            dcg[r.min(n) - 1].unwrap_or(0.0)
        }
    };
    let ideal_at = |r: usize| if r == 0 { 0.0 } else { ideal_dcg[r - 1] };
    if q.num_relevant(level) > 0 {
        let mut old = ideal(q, 0);
        let mut current = old;
        let mut i = 0;
        while i < n && current > 0.0 {
            current = ideal(q, i);
            if old != current {
                if ideal_at(i) > 0.0 {
                    points.push((i, dcg_at(i), ideal_at(i)));
                }
                old = current;
            }
            i += 1;
        }
        if i < n {
            if ideal_at(i) > 0.0 {
                points.push((n, dcg_at(n), ideal_at(i)));
            }
        } else {
            while current > 0.0 {
                current = ideal(q, i);
                if old != current {
                    if ideal_at(i) > 0.0 {
                        points.push((i, dcg_at(n), ideal_at(i)));
                    }
                    old = current;
                }
                i += 1;
            }
        }
    }
    let at_points = per_rank(q, None, |i, _| {
        points
            .iter()
            .find(|p| p.0 == i + 1)
            .map(|&(_, d, ideal)| d / ideal)
    });
    let explanation = Explanation::new(m, q)
        .level(level)
        .column("gain", trec_gains(q))
        .column("DCG@i", dcg)
        .column("ideal gain", ideal_gains(q))
        .column(
            "IDCG@i",
            ideal_dcg.iter().take(n).map(|&v| Some(v)).collect(),
        )
        .column("DCG / IDCG at a point", at_points)
        .quantity("points", points.len() as f64);
    if points.is_empty() {
        let why = if q.num_relevant(level) == 0 {
            "|R| = 0"
        } else {
            "no point"
        };
        return explanation.formula(format!("{} = 0 ({why})", m.name()));
    }
    let mut sum = 0.0;
    let terms: Vec<String> = points
        .iter()
        .map(|&(r, d, ideal)| {
            sum += d / ideal;
            format!("{}/{} (@{r})", number(d), number(ideal))
        })
        .collect();
    explanation
        .formula(format!(
            "{} = ({}) / points = {} / {}",
            m.name(),
            terms.join(" + "),
            number(sum),
            points.len()
        ))
        .normalizer(format!(
            "averaged over {} points: the ranks where the ideal grade drops, and the list's end",
            points.len()
        ))
}

/// nDCG with trec_eval's gain map: `DCG / IDCG`, gains from the map.
pub(crate) fn ndcg_gain_map(m: &NdcgGainMap, q: &JudgedRanking<'_>) -> Explanation {
    let levels = crate::ndcg_gain_map::levels(q, &m.gains);
    let gains = per_rank(q, None, |_, j| {
        Some(crate::ndcg_gain_map::gain_of(j, &levels))
    });
    let mut dcg = 0.0;
    let mut dcg_terms = Vec::new();
    let dcg_column = per_rank(q, None, |i, j| {
        let g = crate::ndcg_gain_map::gain_of(j, &levels);
        if g == 0.0 {
            return Some(0.0);
        }
        dcg += g / discount(i);
        dcg_terms.push(format!("{}/{}", number(g), number(discount(i))));
        Some(g / discount(i))
    });
    let ideal: Vec<f64> = crate::ndcg_gain_map::ideal_gains(&levels);
    let mut ideal_dcg = 0.0;
    let ideal_terms: Vec<String> = ideal
        .iter()
        .enumerate()
        .map(|(i, &g)| {
            ideal_dcg += g / discount(i);
            format!("{}/{}", number(g), number(discount(i)))
        })
        .collect();
    let ideal_column = per_rank(q, None, |i, _| Some(ideal.get(i).copied().unwrap_or(0.0)));
    let map: Vec<String> = levels
        .iter()
        .map(|l| format!("{}:{}", l.grade, number(l.gain)))
        .collect();
    let explanation = Explanation::new(m, q)
        .column(format!("gain (grade:gain {})", map.join(", ")), gains)
        .column(
            "discount log2(i+1)",
            per_rank(q, None, |i, _| Some(discount(i))),
        )
        .column("DCG term", dcg_column)
        .column("ideal gain", ideal_column)
        .quantity("DCG", dcg)
        .quantity("IDCG", ideal_dcg);
    let formula = if ideal_dcg > 0.0 {
        format!(
            "{} = DCG / IDCG = ({}) / ({}) = {} / {}",
            m.name(),
            sum_text(&dcg_terms),
            sum_text(&ideal_terms),
            number(dcg),
            number(ideal_dcg)
        )
    } else {
        format!("{} = 0 (IDCG = 0: no positive gain)", m.name())
    };
    explanation
        .formula(formula)
        .normalizer(format!("divided by IDCG = {}", number(ideal_dcg)))
}

/// NCRR: `sum of rel(i) / i` over the top k, over the same sum for the
/// relevant documents on top.
pub(crate) fn ncrr(m: &Ncrr, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let mut crr = 0.0;
    let mut terms = Vec::new();
    let column = per_rank(q, m.k, |i, j| {
        if !j.is_relevant(level) {
            return Some(0.0);
        }
        crr += 1.0 / (i + 1) as f64;
        terms.push(format!("1/{}", i + 1));
        Some(1.0 / (i + 1) as f64)
    });
    let depth = q
        .num_relevant(level)
        .min(m.k.map_or(q.retrieved(), Cutoff::get));
    let ideal = (1..=depth).fold(0.0, |sum, i| sum + 1.0 / i as f64);
    let ideal_terms: Vec<String> = (1..=depth).map(|i| format!("1/{i}")).collect();
    let explanation = Explanation::new(m, q)
        .level(level)
        .column("rel(i) / i", column)
        .quantity("CRR", crr)
        .quantity("ICRR", ideal);
    if ideal <= 0.0 {
        return explanation.formula(format!("{} = 0 (ICRR = 0: |R| = 0)", m.name()));
    }
    explanation
        .formula(format!(
            "{} = CRR / ICRR = ({}) / ({}) = {} / {}",
            m.name(),
            sum_text(&terms),
            sum_text(&ideal_terms),
            number(crr),
            number(ideal)
        ))
        .normalizer(format!("divided by ICRR over min(|R|, k) = {depth} ranks"))
}

/// rbp_resid: `p^n + (1 - p) x sum of p^(i-1) over unjudged ranks`.
pub(crate) fn rbp_resid(m: &RbpResid, q: &JudgedRanking<'_>) -> Explanation {
    let p = m.p.get();
    let unjudged = |j: Judgement| !j.is_judged() || j.grade() < 0.0;
    let mut weight = 1.0;
    let mut sum = 0.0;
    let mut any = false;
    let weights = per_rank(q, None, |_, j| {
        let w = weight;
        if unjudged(j) {
            any = true;
            sum += w;
        }
        weight *= p;
        Some(w)
    });
    let explanation = Explanation::new(m, q)
        .column(
            "unjudged",
            per_rank(q, None, |_, j| Some(f64::from(u8::from(unjudged(j))))),
        )
        .column("p^(i-1)", weights)
        .quantity("sum of p^(i-1) over unjudged", sum)
        .quantity("p^n", weight);
    if !any {
        return explanation.formula(format!(
            "{} = 0 (every retrieved document is judged)",
            m.name()
        ));
    }
    explanation.formula(format!(
        "{} = p^n + (1 - p) x sum = {} + {} x {}",
        m.name(),
        number(weight),
        number(1.0 - p),
        number(sum)
    ))
}

/// infAP: the expected precision above each relevant document, estimated
/// from the judged documents above it, over `|R|`.
pub(crate) fn infap(m: &InfAp, q: &JudgedRanking<'_>) -> Explanation {
    const EPSILON: f64 = 0.00001;
    let level = q.level(m.rel);
    let (mut nonrel, mut rel, mut pool_unjudged) = (0_i64, 0_i64, 0_i64);
    let (mut pool_above, mut judged_above) = (Vec::new(), Vec::new());
    let mut sum = 0.0;
    let mut terms = Vec::new();
    let contributions = per_rank(q, None, |j, judgement| {
        pool_above.push(Some((rel + nonrel + pool_unjudged) as f64));
        judged_above.push(Some((rel + nonrel) as f64));
        if !judgement.is_judged() {
            return None;
        }
        if judgement.grade() < 0.0 {
            pool_unjudged += 1;
            return None;
        }
        if !judgement.is_relevant(level) {
            nonrel += 1;
            return None;
        }
        rel += 1;
        let t = if j == 0 {
            1.0
        } else {
            let fj = j as f64;
            1.0 / (fj + 1.0)
                + (fj / (fj + 1.0))
                    * (((rel - 1 + nonrel + pool_unjudged) as f64) / fj)
                    * (((rel - 1) as f64 + EPSILON) / ((rel - 1 + nonrel) as f64 + 2.0 * EPSILON))
        };
        sum += t;
        terms.push(number(t));
        Some(t)
    });
    let relevant = q.num_relevant(level);
    let explanation = Explanation::new(m, q)
        .level(level)
        .column("in the pool above", pool_above)
        .column("judged above", judged_above)
        .column(
            "1/i + (i-1)/i x pool/(i-1) x (rel+eps)/(judged+2eps)",
            contributions,
        )
        .quantity("|R|", relevant as f64);
    if relevant == 0 {
        return explanation.formula(format!("{} = {} (|R| = 0)", m.name(), number(sum)));
    }
    explanation
        .formula(format!(
            "{} = ({}) / |R| = {} / {relevant}",
            m.name(),
            sum_text(&terms),
            number(sum)
        ))
        .normalizer(format!(
            "divided by |R| = {relevant}; documents not in the qrels skipped, negative grades in the pool but not judged, eps = 0.00001"
        ))
}

/// `P@i`, and the interpolated precision `max P@j for j >= i`, at every
/// rank; `R@i`; and the recall levels' interpolated precision.
fn interpolation_columns(
    explanation: Explanation,
    q: &JudgedRanking<'_>,
    level: rankeval_core::Grade,
) -> Explanation {
    let relevant = q.num_relevant(level);
    let mut hits = 0usize;
    let precision: Vec<f64> = q
        .ranked()
        .iter()
        .enumerate()
        .map(|(i, j)| {
            hits += usize::from(j.is_relevant(level));
            hits as f64 / (i + 1) as f64
        })
        .collect();
    let mut best = 0.0_f64;
    let mut interpolated: Vec<Option<f64>> = precision
        .iter()
        .rev()
        .map(|&p| {
            best = best.max(p);
            Some(best)
        })
        .collect();
    interpolated.reverse();
    let mut seen = 0usize;
    let recall = per_rank(q, None, |_, j| {
        seen += usize::from(j.is_relevant(level));
        (relevant > 0).then(|| seen as f64 / relevant as f64)
    });
    explanation
        .column("P@i", precision.into_iter().map(Some).collect())
        .column("R@i", recall)
        .column("max P@j, j >= i", interpolated)
        .quantity("|R|", relevant as f64)
}

/// The rank of the `c`-th relevant document, if retrieved.
fn rank_of_relevant(q: &JudgedRanking<'_>, level: rankeval_core::Grade, c: usize) -> Option<usize> {
    q.ranked()
        .iter()
        .enumerate()
        .filter(|(_, j)| j.is_relevant(level))
        .nth(c.saturating_sub(1))
        .map(|(i, _)| i + 1)
}

/// Where the interpolated precision at recall `x` is read, and why.
fn interpolated_reason(q: &JudgedRanking<'_>, level: rankeval_core::Grade, x: f64) -> String {
    let relevant = q.num_relevant(level);
    let c = (x * relevant as f64).round() as usize;
    if q.ranked().is_empty() {
        return "0 (empty list)".to_owned();
    }
    if c == 0 {
        return format!(
            "max P@j over every rank j (round({} x |R|) = 0 relevant documents to reach)",
            number(x)
        );
    }
    match rank_of_relevant(q, level, c) {
        Some(rank) => format!(
            "max P@j, j >= {rank} (round({} x {relevant}) = {c} relevant documents to reach: the last of them at rank {rank})",
            number(x)
        ),
        None => format!(
            "0 (round({} x {relevant}) = {c} relevant documents to reach, fewer retrieved)",
            number(x)
        ),
    }
}

/// iprec_at_recall: the highest precision where recall reaches the level.
pub(crate) fn iprec_at_recall(m: &IprecAtRecall, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let explanation = interpolation_columns(Explanation::new(m, q).level(level), q, level);
    let reason = interpolated_reason(q, level, m.recall);
    explanation.formula(format!("{} = {reason}", m.name()))
}

/// 11pt_avg: the mean of the interpolated precision at the recall levels.
pub(crate) fn eleven_point_average(m: &ElevenPointAverage, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let levels = m
        .levels
        .as_ref()
        .map_or(&ELEVEN_POINTS[..], RecallLevels::get);
    let values = crate::interpolated::interpolated_precision(q, levels, level);
    let mut explanation = interpolation_columns(Explanation::new(m, q).level(level), q, level);
    for (x, v) in levels.iter().zip(&values) {
        explanation = explanation.quantity(format!("iP({})", number(*x)), *v);
    }
    let terms: Vec<String> = values.iter().map(|v| number(*v)).collect();
    explanation
        .formula(format!(
            "{} = (iP({}) + ... + iP({})) / {} = ({}) / {}",
            m.name(),
            number(levels[0]),
            number(levels[levels.len() - 1]),
            levels.len(),
            terms.join(" + "),
            levels.len()
        ))
        .normalizer(format!("averaged over {} recall levels", levels.len()))
}
