//! What the built-in metrics' explanations share: per-rank columns and the
//! pieces of a formula. Each metric's [`Metric::explain`] stands beside its
//! `score`, in the metric's own file; it starts from
//! [`Explanation::new`], whose value is the metric's own `score`, and
//! recomputes the terms the same way the metric adds them up (tests check
//! that the terms give the value).
//!
//! [`Metric::explain`]: rankeval_core::Metric::explain
//! [`Explanation::new`]: rankeval_core::Explanation::new

use rankeval_core::{Cutoff, Grade, JudgedRanking, Judgement};

use crate::trec_gains::gain;

/// One entry per judged rank: `f(i, judgement)` within the first `k` ranks,
/// `None` past them.
pub(crate) fn per_rank(
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
pub(crate) fn precision_at_each_rank(
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

/// 1 where `take` holds within the first `k` ranks, 0 elsewhere in them.
pub(crate) fn marks(
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    take: impl Fn(Judgement) -> bool,
) -> Vec<Option<f64>> {
    per_rank(q, k, |_, j| Some(f64::from(u8::from(take(j)))))
}

/// How many of the first `k` ranks `take` holds for.
pub(crate) fn count(
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    take: impl Fn(Judgement) -> bool,
) -> usize {
    q.top(k).iter().filter(|&&j| take(j)).count()
}

/// trec_eval's gain of every rank: the grade, 0 if unjudged or negative.
pub(crate) fn trec_gains(q: &JudgedRanking<'_>) -> Vec<Option<f64>> {
    per_rank(q, None, |_, j| Some(gain(j)))
}

/// `@k` of a cutoff, `@n` without one (n: the list's length).
pub(crate) fn at(k: Option<Cutoff>) -> String {
    k.map_or_else(|| "@n".to_owned(), |k| format!("@{k}"))
}

/// `x / y` terms joined by ` + `, or `0` when there are none.
pub(crate) fn sum_text(terms: &[String]) -> String {
    if terms.is_empty() {
        "0".to_owned()
    } else {
        terms.join(" + ")
    }
}
