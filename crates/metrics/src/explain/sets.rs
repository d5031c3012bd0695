//! Explanations of the metrics that count a set: the top k or the whole
//! retrieved list (fall-out, judged, unjudged, relative precision,
//! R-precision's multiples, set MAP, utility, ROC AUC, judged non-relevant).
//! Each column marks the documents the count takes, rank by rank.

use rankeval_core::explain::{Explanation, number};
use rankeval_core::{Cutoff, Grade, JudgedRanking, Judgement, Metric};

use super::{at, per_rank};
use crate::common::hits;
use crate::f1::F1;
use crate::fallout::Fallout;
use crate::judged::Judged;
use crate::negatives::Negatives;
use crate::num_nonrel_judged_ret::NumNonrelJudgedRet;
use crate::relative_precision::RelativePrecision;
use crate::roc_auc::RocAuc;
use crate::rprec_mult::RprecMult;
use crate::set_map::SetMap;
use crate::unjudged::Unjudged;
use crate::utility::Utility;

/// 1 where `take` holds within the first `k` ranks, 0 elsewhere in them.
fn marks(
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    take: impl Fn(Judgement) -> bool,
) -> Vec<Option<f64>> {
    per_rank(q, k, |_, j| Some(f64::from(u8::from(take(j)))))
}

/// How many of the first `k` ranks `take` holds for.
fn count(q: &JudgedRanking<'_>, k: Option<Cutoff>, take: impl Fn(Judgement) -> bool) -> usize {
    q.top(k).iter().filter(|&&j| take(j)).count()
}

/// What `negatives` takes as a negative, in words.
fn negatives_text(negatives: Negatives, level: Grade) -> String {
    match negatives {
        Negatives::Retrieved => format!("retrieved, grade < {level} or unjudged"),
        Negatives::Judged => format!("judged 0 to < {level}"),
    }
}

/// F_beta: `(1 + beta^2) P R / (beta^2 P + R)`; F1 when beta is 1.
pub(crate) fn f1(m: &F1, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let hits = hits(q.top(m.k), level);
    let depth = m.k.map_or(q.retrieved(), Cutoff::get);
    let relevant = q.num_relevant(level);
    let p = crate::common::ratio(hits, depth);
    let r = crate::common::ratio(hits, relevant);
    let b2 = m.weight();
    let (p_text, r_text) = (number(p), number(r));
    let counts = format!("P = {hits} / {depth}, R = {hits} / {relevant}");
    let formula = if b2 == 1.0 {
        format!(
            "{} = 2 x P x R / (P + R), {counts}: 2 x {p_text} x {r_text} / ({p_text} + {r_text})",
            m.name()
        )
    } else {
        let b2 = number(b2);
        format!(
            "{} = (1 + beta^2) x P x R / (beta^2 x P + R), beta^2 = {b2}, {counts}: \
             (1 + {b2}) x {p_text} x {r_text} / ({b2} x {p_text} + {r_text})",
            m.name()
        )
    };
    Explanation::new(m, q)
        .level(level)
        .quantity("P", p)
        .quantity("R", r)
        .formula(formula)
}

/// fall-out: `negatives in the top k / |N|`.
pub(crate) fn fallout(m: &Fallout, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let negative = |j: Judgement| m.negatives.is_negative(j, level);
    let in_top = count(q, m.k, negative);
    let total = match m.negatives {
        Negatives::Retrieved => count(q, None, |j| !j.is_relevant(level)),
        Negatives::Judged => q.num_judged_nonrelevant(level),
    };
    let explanation = Explanation::new(m, q)
        .level(level)
        .column(
            format!("negative ({})", negatives_text(m.negatives, level)),
            marks(q, m.k, negative),
        )
        .quantity(format!("negatives{}", at(m.k)), in_top as f64)
        .quantity("|N|", total as f64);
    if total == 0 {
        return explanation.formula(format!("{} = 0 (|N| = 0: no negative)", m.name()));
    }
    explanation
        .formula(format!(
            "{} = negatives{} / |N| = {in_top} / {total}",
            m.name(),
            at(m.k)
        ))
        .normalizer(format!("divided by |N| = {total}"))
}

/// judged: `judged in the top k / min(k, n)`.
pub(crate) fn judged(m: &Judged, q: &JudgedRanking<'_>) -> Explanation {
    let judged = count(q, m.k, Judgement::is_judged);
    let depth = m.k.map_or(q.retrieved(), Cutoff::get).min(q.retrieved());
    let explanation = Explanation::new(m, q)
        .column("judged", marks(q, m.k, Judgement::is_judged))
        .quantity(format!("judged documents{}", at(m.k)), judged as f64);
    if depth == 0 {
        return explanation.formula(format!("{} = 0 (empty list)", m.name()));
    }
    explanation.formula(format!(
        "{} = judged documents{} / min(k, n) = {judged} / {depth}",
        m.name(),
        at(m.k)
    ))
}

/// Not in the qrels, or judged with a negative grade (trec_eval's unjudged).
fn is_unjudged(j: Judgement) -> bool {
    !j.is_judged() || j.grade() < 0.0
}

/// unjudged: `unjudged in the top k / k`.
pub(crate) fn unjudged(m: &Unjudged, q: &JudgedRanking<'_>) -> Explanation {
    let unjudged = count(q, m.k, is_unjudged);
    let depth = m.k.map_or(q.retrieved(), Cutoff::get);
    let explanation = Explanation::new(m, q)
        .column("unjudged or negative", marks(q, m.k, is_unjudged))
        .quantity(format!("unjudged documents{}", at(m.k)), unjudged as f64);
    if depth == 0 {
        return explanation.formula(format!("{} = 0 (empty list)", m.name()));
    }
    explanation.formula(format!(
        "{} = unjudged documents{} / k = {unjudged} / {depth}",
        m.name(),
        at(m.k)
    ))
}

/// num_nonrel_judged_ret: the retrieved documents judged non-relevant.
pub(crate) fn num_nonrel_judged_ret(m: &NumNonrelJudgedRet, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let nonrelevant = |j: Judgement| j.is_judged_nonrelevant(level);
    Explanation::new(m, q)
        .level(level)
        .column("judged non-relevant", marks(q, None, nonrelevant))
        .formula(format!(
            "{} = retrieved with a grade from 0 to < {level} = {}",
            m.name(),
            count(q, None, nonrelevant)
        ))
}

/// relative precision: `hits@k / min(k, |R|)`.
pub(crate) fn relative_precision(m: &RelativePrecision, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let hits = hits(q.top(m.k), level);
    let relevant = q.num_relevant(level);
    let depth = m.k.map_or(q.retrieved(), Cutoff::get);
    let divisor = depth.min(relevant);
    let explanation = Explanation::new(m, q)
        .level(level)
        .quantity("|R|", relevant as f64)
        .quantity(format!("hits{}", at(m.k)), hits as f64);
    if divisor == 0 {
        return explanation.formula(format!("{} = 0 (min(k, |R|) = 0)", m.name()));
    }
    explanation
        .formula(format!(
            "{} = hits{} / min(k, |R|) = {hits} / min({depth}, {relevant})",
            m.name(),
            at(m.k)
        ))
        .normalizer(format!("divided by min(k, |R|) = {divisor}"))
}

/// Rprec_mult: precision at `floor(mult x |R| + 0.9)` ranks.
pub(crate) fn rprec_mult(m: &RprecMult, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let relevant = q.num_relevant(level);
    let cutoff = (m.mult * relevant as f64 + 0.9) as usize;
    let hits = hits(q.top(Cutoff::new(cutoff)), level);
    let explanation = Explanation::new(m, q)
        .level(level)
        .quantity("|R|", relevant as f64)
        .quantity("c", cutoff as f64);
    if cutoff == 0 {
        return explanation.formula(format!(
            "{} = 0 (c = floor({} x |R| + 0.9) = 0)",
            m.name(),
            number(m.mult)
        ));
    }
    explanation
        .quantity(format!("hits@{cutoff}"), hits as f64)
        .formula(format!(
            "{} = hits@c / c, c = floor({} x {relevant} + 0.9) = {cutoff}: {hits} / {cutoff}",
            m.name(),
            number(m.mult)
        ))
        .normalizer(format!("divided by c = {cutoff}"))
}

/// set_map: `hits^2 / (n x |R|)`.
pub(crate) fn set_map(m: &SetMap, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let relevant = q.num_relevant(level);
    let n = q.ranked().len();
    let hits = hits(q.ranked(), level);
    let explanation = Explanation::new(m, q)
        .level(level)
        .quantity("|R|", relevant as f64)
        .quantity("hits", hits as f64);
    if n == 0 || relevant == 0 {
        return explanation.formula(format!("{} = 0 (n = {n}, |R| = {relevant})", m.name()));
    }
    explanation.formula(format!(
        "{} = (hits / n) x (hits / |R|) = hits^2 / (n x |R|) = {hits}^2 / ({n} x {relevant})",
        m.name()
    ))
}

/// utility: the contingency table of the retrieved set, weighted.
pub(crate) fn utility(m: &Utility, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let ret = q.ranked().len();
    let rel_ret = hits(q.ranked(), level);
    let rel = q.num_relevant(level);
    let nonrel_ret = ret - rel_ret;
    let rel_missed = rel.saturating_sub(rel_ret);
    let rest = m.collection as f64 + rel_ret as f64 - ret as f64 - rel as f64;
    Explanation::new(m, q)
        .level(level)
        .quantity("relevant retrieved", rel_ret as f64)
        .quantity("non-relevant retrieved", nonrel_ret as f64)
        .quantity("relevant missed", rel_missed as f64)
        .quantity("non-relevant missed", rest)
        .formula(format!(
            "{} = a x rel_ret + b x nonrel_ret + c x rel_missed + d x nonrel_missed = \
             {} x {rel_ret} + {} x {nonrel_ret} + {} x {rel_missed} + {} x {}",
            m.name(),
            number(m.a),
            number(m.b),
            number(m.c),
            number(m.d),
            number(rest)
        ))
}

/// ROC AUC: `pairs in order / (positives x negatives)` over the top k.
pub(crate) fn roc_auc(m: &RocAuc, q: &JudgedRanking<'_>) -> Explanation {
    let level = q.level(m.rel);
    let mut positives = 0u64;
    let mut negatives = 0u64;
    let mut ordered = 0u64;
    let mut terms = Vec::new();
    let column = per_rank(q, m.k, |_, j| {
        if j.is_relevant(level) {
            positives += 1;
            None
        } else if m.negatives.is_negative(j, level) {
            negatives += 1;
            ordered += positives;
            terms.push(positives.to_string());
            Some(positives as f64)
        } else {
            None
        }
    });
    let pairs = positives * negatives;
    let explanation = Explanation::new(m, q)
        .level(level)
        .column(
            format!(
                "relevant above this negative ({})",
                negatives_text(m.negatives, level)
            ),
            column,
        )
        .quantity("positives", positives as f64)
        .quantity("negatives", negatives as f64);
    if pairs == 0 {
        return explanation.formula(format!(
            "{} = 0 ({positives} positives x {negatives} negatives: no pair)",
            m.name()
        ));
    }
    explanation.formula(format!(
        "{} = pairs in order / (positives x negatives) = ({}) / ({positives} x {negatives}) = {ordered} / {pairs}",
        m.name(),
        terms.join(" + ")
    ))
}
