//! Every built-in metric's [`Metric::explain`]: its per-rank terms and its
//! formula with the numbers put in, one function per metric. Each starts
//! from [`Explanation::new`], whose value is the metric's own `score`, and
//! recomputes the terms the same way the metric adds them up (tests check
//! that the terms give the value).

use rankeval_core::explain::{Explanation, number};
use rankeval_core::{Cutoff, Grade, JudgedRanking, Judgement, Metric};

use crate::average_precision::{ApNormalization, AveragePrecision};
use crate::bpref::Bpref;
use crate::common::hits;
use crate::dcg::{Dcg, Gain, GainAt, discounted_sum};
use crate::err::ExpectedReciprocalRank;
use crate::hit_rate::HitRate;
use crate::ndcg::Ndcg;
use crate::num_rel::NumRel;
use crate::num_rel_ret::NumRelRet;
use crate::num_ret::NumRet;
use crate::precision::{Precision, PrecisionDenominator};
use crate::r_precision::RPrecision;
use crate::rbp::{Rbp, RbpGain};
use crate::recall::Recall;
use crate::reciprocal_rank::ReciprocalRank;

mod sets;
mod trec;
mod weighted;

pub(crate) use sets::{
    f1, fallout, judged, num_nonrel_judged_ret, relative_precision, roc_auc, rprec_mult, set_map,
    unjudged, utility,
};
pub(crate) use trec::{
    bin_g, eleven_point_average, g, infap, iprec_at_recall, ncrr, ndcg_gain_map, ndcg_rel,
    rbp_resid, rndcg,
};
pub(crate) use weighted::weighted;

/// One entry per judged rank: `f(i, judgement)` within the first `k` ranks,
/// `None` past them.
fn per_rank(
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    mut f: impl FnMut(usize, Judgement) -> Option<f64>,
) -> Vec<Option<f64>> {
    let read = q.top(k).len();
    q.ranked()
        .iter()
        .enumerate()
        .map(|(i, j)| if i < read { f(i, *j) } else { None })
        .collect()
}

/// `P@i` at every rank read.
fn precision_at_each_rank(
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    level: Grade,
) -> Vec<Option<f64>> {
    let mut hits = 0usize;
    per_rank(q, k, |i, j| {
        hits += usize::from(j.is_relevant(level));
        Some(hits as f64 / (i + 1) as f64)
    })
}

/// `@k` of a cutoff, `@n` without one (n: the list's length).
fn at(k: Option<Cutoff>) -> String {
    k.map_or_else(|| "@n".to_owned(), |k| format!("@{k}"))
}

/// `x / y` terms joined by ` + `, or `0` when there are none.
fn sum_text(terms: &[String]) -> String {
    if terms.is_empty() {
        "0".to_owned()
    } else {
        terms.join(" + ")
    }
}

/// precision: `hits@k / k` (or `/ min(k, n)`).
pub(crate) fn precision(m: &Precision, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let hits = hits(q.top(m.k), level);
    let depth = m.k.map_or(q.retrieved(), Cutoff::get);
    let (divisor, by) = match m.denominator {
        PrecisionDenominator::K => (depth, format!("k = {depth}")),
        PrecisionDenominator::Retrieved => {
            let d = depth.min(q.retrieved());
            (d, format!("min(k, n) = {d}"))
        }
        PrecisionDenominator::Truncated => {
            let d = depth.min(q.num_relevant(level));
            (d, format!("min(k, |R|) = {d}"))
        }
    };
    Explanation::new(m, q)
        .level(level)
        .column("P@i", precision_at_each_rank(q, m.k, level))
        .quantity(format!("hits{}", at(m.k)), hits as f64)
        .formula(format!(
            "{} = hits{} / {} = {hits} / {divisor}",
            m.name(),
            at(m.k),
            by.split(" = ").next().unwrap_or(&by)
        ))
        .normalizer(format!("divided by {by}"))
}

/// recall: `hits@k / |R|`.
pub(crate) fn recall(m: &Recall, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let relevant = q.num_relevant(level);
    let hits = hits(q.top(m.k), level);
    let mut seen = 0usize;
    let column = per_rank(q, m.k, |_, j| {
        seen += usize::from(j.is_relevant(level));
        (relevant > 0).then(|| seen as f64 / relevant as f64)
    });
    Explanation::new(m, q)
        .level(level)
        .column("R@i", column)
        .quantity("|R|", relevant as f64)
        .quantity(format!("hits{}", at(m.k)), hits as f64)
        .formula(format!(
            "{} = hits{} / |R| = {hits} / {relevant}",
            m.name(),
            at(m.k)
        ))
        .normalizer(format!("divided by |R| = {relevant}"))
}

/// reciprocal rank: `1 / rank of the first relevant document`.
pub(crate) fn reciprocal_rank(m: &ReciprocalRank, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let first = q.top(m.k).iter().position(|j| j.is_relevant(level));
    let explanation = Explanation::new(m, q).level(level);
    match first {
        Some(i) => explanation.formula(format!(
            "{} = 1 / rank of the first relevant document = 1 / {}",
            m.name(),
            i + 1
        )),
        None => explanation.formula(format!(
            "{} = 0 (no relevant document in ranks 1-{})",
            m.name(),
            q.top(m.k).len()
        )),
    }
}

/// average precision: `sum of P@i at relevant ranks / N`.
pub(crate) fn average_precision(m: &AveragePrecision, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let relevant = q.num_relevant(level);
    let mut hits = 0usize;
    let mut sum = 0.0;
    let mut terms = Vec::new();
    let contributions = per_rank(q, m.k, |i, j| {
        if j.is_relevant(level) {
            hits += 1;
            let p = hits as f64 / (i + 1) as f64;
            sum += p;
            terms.push(format!("{hits}/{}", i + 1));
            Some(p)
        } else {
            Some(0.0)
        }
    });
    let depth = m.k.map_or(q.retrieved(), Cutoff::get);
    let (divisor, by) = match m.normalization {
        ApNormalization::Relevant => (relevant, format!("|R| = {relevant}")),
        ApNormalization::Truncated => {
            let d = relevant.min(depth);
            let k = m.k.map_or_else(|| "n".to_owned(), |k| k.to_string());
            (d, format!("min(|R|, {k}) = {d}"))
        }
        ApNormalization::Hits => (hits, format!("hits{} = {hits}", at(m.k))),
        ApNormalization::K => (depth, format!("k = {depth}")),
    };
    let formula = if divisor == 0 {
        format!("{} = 0 (divided by {by})", m.name())
    } else {
        format!(
            "{} = ({}) / {} = {} / {divisor}",
            m.name(),
            sum_text(&terms),
            by.split(" = ").next().unwrap_or(&by),
            number(sum)
        )
    };
    Explanation::new(m, q)
        .level(level)
        .column("P@i", precision_at_each_rank(q, m.k, level))
        .column("rel(i) x P@i", contributions)
        .quantity("|R|", relevant as f64)
        .quantity(format!("hits{}", at(m.k)), hits as f64)
        .quantity("sum of rel(i) x P@i", sum)
        .formula(formula)
        .normalizer(format!("divided by {by}"))
}

/// hit rate: 1 if a relevant document is in the top k.
pub(crate) fn hit_rate(m: &HitRate, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let first = q.top(m.k).iter().position(|j| j.is_relevant(level));
    let reason = match first {
        Some(i) => format!("1 (a relevant document at rank {})", i + 1),
        None => format!("0 (no relevant document in ranks 1-{})", q.top(m.k).len()),
    };
    Explanation::new(m, q)
        .level(level)
        .formula(format!("{} = {reason}", m.name()))
}

/// The gain, discount and DCG term of each rank read.
fn dcg_columns(
    explanation: Explanation,
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    gain: GainAt,
) -> (Explanation, Vec<String>) {
    let mut terms = Vec::new();
    let gains = per_rank(q, k, |_, j| Some(gain.of(j.grade())));
    let discounts = per_rank(q, k, |i, _| Some(((i + 2) as f64).log2()));
    let dcg_terms = per_rank(q, k, |i, j| {
        let g = gain.of(j.grade());
        let d = ((i + 2) as f64).log2();
        if g != 0.0 {
            terms.push(format!("{}/{}", number(g), number(d)));
        }
        Some(g / d)
    });
    let explanation = explanation
        .column(format!("gain ({})", gain.gain), gains)
        .column("discount log2(i+1)", discounts)
        .column("DCG term", dcg_terms);
    (explanation, terms)
}

/// The relevance level in the explanation, for binary gain (the only gain
/// that reads one).
fn gain_level(explanation: Explanation, gain: GainAt) -> Explanation {
    if gain.gain == Gain::Binary {
        explanation.level(gain.level)
    } else {
        explanation
    }
}

/// DCG: `sum of gain(i) / log2(i + 1)`.
pub(crate) fn dcg(m: &Dcg, q: &JudgedRanking<'_>) -> Explanation {
    let gain = m.gain.at(q.level(m.rel));
    let explanation = gain_level(Explanation::new(m, q), gain);
    let (explanation, terms) = dcg_columns(explanation, q, m.k, gain);
    explanation.formula(format!("{} = {}", m.name(), sum_text(&terms)))
}

/// nDCG: `DCG@k / IDCG@k`, the ideal DCG of the judged grades sorted.
pub(crate) fn ndcg(m: &Ndcg, q: &JudgedRanking<'_>) -> Explanation {
    let ideal = q.ideal_grades();
    let ideal = match m.k {
        Some(k) => &ideal[..k.get().min(ideal.len())],
        None => ideal,
    };
    let gain = m.gain.at(q.level(m.rel));
    let dcg = crate::dcg::dcg(q, m.k, gain);
    let ideal_dcg = discounted_sum(ideal.iter().copied(), gain);
    let ideal_terms: Vec<String> = ideal
        .iter()
        .enumerate()
        .filter(|(_, g)| gain.of(**g) != 0.0)
        .map(|(i, g)| {
            format!(
                "{}/{}",
                number(gain.of(*g)),
                number(((i + 2) as f64).log2())
            )
        })
        .collect();
    let explanation = gain_level(Explanation::new(m, q), gain);
    let (explanation, dcg_terms) = dcg_columns(explanation, q, m.k, gain);
    let read = q.top(m.k).len();
    let ideal_gains: Vec<Option<f64>> = (0..q.ranked().len())
        .map(|i| (i < read).then(|| ideal.get(i).map_or(0.0, |g| gain.of(*g))))
        .collect();
    let k = at(m.k);
    let explanation = explanation
        .column("ideal gain", ideal_gains)
        .quantity(format!("DCG{k}"), dcg)
        .quantity(format!("IDCG{k}"), ideal_dcg);
    let formula = if ideal_dcg > 0.0 {
        format!(
            "{} = DCG{k} / IDCG{k} = ({}) / ({}) = {} / {}",
            m.name(),
            sum_text(&dcg_terms),
            sum_text(&ideal_terms),
            number(dcg),
            number(ideal_dcg)
        )
    } else {
        format!("{} = 0 (IDCG{k} = 0: no judged gain)", m.name())
    };
    explanation
        .formula(formula)
        .normalizer(format!("divided by IDCG{k} = {}", number(ideal_dcg)))
}

/// R-precision: precision at rank |R|.
pub(crate) fn r_precision(m: &RPrecision, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let relevant = q.num_relevant(level);
    let hits = hits(q.top(Cutoff::new(relevant)), level);
    let explanation = Explanation::new(m, q)
        .level(level)
        .quantity("|R|", relevant as f64);
    if relevant == 0 {
        return explanation.formula(format!("{} = 0 (|R| = 0)", m.name()));
    }
    explanation
        .quantity(format!("hits@{relevant}"), hits as f64)
        .formula(format!(
            "{} = hits@|R| / |R| = {hits} / {relevant}",
            m.name()
        ))
}

/// bpref: `(1/|R|) x sum over relevant ranks of (1 - min(n_above, |R|) / min(|R|, |N|))`.
pub(crate) fn bpref(m: &Bpref, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let relevant = q.num_relevant(level);
    let judged_nonrelevant = q.num_judged_nonrelevant(level);
    let bound = relevant.min(judged_nonrelevant);
    let mut above = 0usize;
    let mut terms = Vec::new();
    let mut sum = 0.0;
    let above_column = per_rank(q, m.k, |_, j| {
        let shown = above as f64;
        if j.is_judged_nonrelevant(level) {
            above += 1;
        }
        Some(shown)
    });
    above = 0;
    let term_column = per_rank(q, m.k, |_, j| {
        if j.is_relevant(level) {
            let t = if above == 0 {
                1.0
            } else {
                1.0 - above.min(relevant) as f64 / bound as f64
            };
            sum += t;
            terms.push(number(t));
            Some(t)
        } else {
            if j.is_judged_nonrelevant(level) {
                above += 1;
            }
            None
        }
    });
    let explanation = Explanation::new(m, q)
        .level(level)
        .column("judged non-relevant above", above_column)
        .column("1 - min(above, |R|) / min(|R|, |N|)", term_column)
        .quantity("|R|", relevant as f64)
        .quantity("|N|", judged_nonrelevant as f64);
    if relevant == 0 {
        return explanation.formula(format!("{} = 0 (|R| = 0)", m.name()));
    }
    explanation
        .formula(format!(
            "{} = ({}) / |R| = {} / {relevant}",
            m.name(),
            sum_text(&terms),
            number(sum)
        ))
        .normalizer(format!(
            "divided by |R| = {relevant}, terms by min(|R|, |N|) = {bound}"
        ))
}

/// RBP: `(1 - p) x sum of utility(i) x p^(i-1)`.
pub(crate) fn rbp(m: &Rbp, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let p = m.p.get();
    let max_grade = q.ideal_grades().first().copied().unwrap_or(0.0).max(0.0);
    let utility = |j: Judgement| match m.gain {
        RbpGain::Binary => f64::from(u8::from(j.is_relevant(level))),
        RbpGain::Graded if j.gain() > 0.0 => j.gain() / max_grade,
        RbpGain::Graded => 0.0,
    };
    let mut weight = 1.0;
    let weights = per_rank(q, m.k, |_, _| {
        let w = weight;
        weight *= p;
        Some(w)
    });
    let utilities = per_rank(q, m.k, |_, j| Some(utility(j)));
    let mut sum = 0.0;
    weight = 1.0;
    let terms = per_rank(q, m.k, |_, j| {
        let t = utility(j) * weight;
        sum += t;
        weight *= p;
        Some(t)
    });
    let mut explanation = Explanation::new(m, q);
    if m.gain == RbpGain::Binary {
        explanation = explanation.level(level);
    } else {
        explanation = explanation.quantity("max grade", max_grade);
    }
    explanation
        .column("utility", utilities)
        .column("p^(i-1)", weights)
        .column("utility x p^(i-1)", terms)
        .quantity("sum", sum)
        .formula(format!(
            "{} = (1 - p) x sum = {} x {}",
            m.name(),
            number(1.0 - p),
            number(sum)
        ))
}

/// ERR: `sum of R(i) x P(reach i) / i`, with `R(i) = (2^g - 1) / 2^max`.
pub(crate) fn err(m: &ExpectedReciprocalRank, q: &JudgedRanking<'_>) -> Explanation {
    let max_grade = m.max_grade.clamp(1, crate::err::MAX_GRADE_LIMIT);
    let top: Grade = max_grade.into();
    let scale = top.exp2();
    let stop = |j: Judgement| {
        let g = j.gain().min(top);
        if g == 0.0 {
            0.0
        } else {
            (g.exp2() - 1.0) / scale
        }
    };
    let stops = per_rank(q, m.k, |_, j| Some(stop(j)));
    let mut reach = 1.0;
    let reached = per_rank(q, m.k, |_, j| {
        let r = reach;
        let s = stop(j);
        if s != 0.0 {
            reach *= 1.0 - s;
        }
        Some(r)
    });
    reach = 1.0;
    let mut terms = Vec::new();
    let contributions = per_rank(q, m.k, |i, j| {
        let s = stop(j);
        if s == 0.0 {
            return Some(0.0);
        }
        let t = reach * s / (i + 1) as f64;
        terms.push(number(t));
        reach *= 1.0 - s;
        Some(t)
    });
    Explanation::new(m, q)
        .column(format!("R(i) = (2^g - 1) / 2^{max_grade}"), stops)
        .column("P(reach i)", reached)
        .column("R(i) x P(reach i) / i", contributions)
        .formula(format!("{} = {}", m.name(), sum_text(&terms)))
}

/// num_ret: the ranks retrieved, at most k.
pub(crate) fn num_ret(m: &NumRet, q: &JudgedRanking<'_>) -> Explanation {
    let text = match m.k {
        Some(k) => format!("{} = min(k, n) = min({k}, {})", m.name(), q.retrieved()),
        None => format!("{} = n", m.name()),
    };
    Explanation::new(m, q).formula(text)
}

/// num_rel: `|R|`.
pub(crate) fn num_rel(m: &NumRel, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    Explanation::new(m, q)
        .level(level)
        .formula(format!("{} = |R| (grade >= {level})", m.name()))
}

/// num_rel_ret: the relevant documents in the top k.
pub(crate) fn num_rel_ret(m: &NumRelRet, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    Explanation::new(m, q)
        .level(level)
        .formula(format!("{} = hits{}", m.name(), at(m.k)))
}
