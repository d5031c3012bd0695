//! trec_eval's default gains, shared by its gain measures (`G`, `ndcg_rel`,
//! `Rndcg`): a judged grade `g >= 0` is worth `g`; negative grades and
//! unjudged documents are worth 0. The ideal ranking lists every judged
//! non-negative grade, highest first, then zeros without end.

use rankeval_core::{JudgedRanking, Judgement};

/// The gain of the document at one rank.
#[inline]
pub(crate) fn gain(judgement: Judgement) -> f64 {
    if judgement.is_judged() && judgement.grade() >= Default::default() {
        judgement.grade()
    } else {
        0.0
    }
}

/// The ideal gain at 0-based position `i`: the `i`-th highest non-negative
/// grade of the query, 0 past them.
#[inline]
pub(crate) fn ideal(q: &JudgedRanking<'_>, i: usize) -> f64 {
    q.ideal_grades().get(i).map_or(0.0, |&g| g.max(0.0))
}

/// trec_eval's starting "ideal gain": the gain of the highest level that has
/// a judged document (0 when no grade is non-negative).
#[inline]
pub(crate) fn top(q: &JudgedRanking<'_>) -> f64 {
    ideal(q, 0)
}

/// `log2(i + 2)`: the discount of 0-based position `i`.
#[inline]
pub(crate) fn discount(i: usize) -> f64 {
    ((i + 2) as f64).log2()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::judged;

    #[test]
    fn gains_are_grades_floored_by_exclusion() {
        let q = judged("2 - . 0", &[3, 1]);
        let v = q.view();
        let gains: Vec<f64> = v.ranked().iter().map(|&j| gain(j)).collect();
        assert_eq!(gains, [2.0, 0.0, 0.0, 0.0]);
        let ideals: Vec<f64> = (0..6).map(|i| ideal(&v, i)).collect();
        assert_eq!(ideals, [3.0, 2.0, 1.0, 0.0, 0.0, 0.0]);
        assert_eq!(top(&v), 3.0);
    }
}
