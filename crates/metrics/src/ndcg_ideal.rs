//! What nDCG divides by: the ideal ranking of the query's judged grades, or
//! `k` documents of its top grade whatever `|R|`.
//!
//! `ideal = "judged"` (the default) is trec_eval's: the query's judged
//! grades in descending order, cut at k. `ideal = "k"` fills every one of
//! the top k ranks with the query's highest grade, so a query with fewer
//! relevant documents than k cannot reach 1: RecTools' `NDCG` with
//! `divide_by_achievable=False` (its default), and C/W/L's SDCG (scaled
//! DCG) on binary judgements. Without a cutoff, k = n.

use std::fmt;

use rankeval_core::{Cutoff, JudgedRanking};
use serde::{Deserialize, Serialize};

use crate::dcg::{GainAt, dcg, discounted_sum};

/// The ideal DCG nDCG divides by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NdcgIdeal {
    /// Every judged grade of the query, descending, cut at k (trec_eval).
    #[default]
    Judged,
    /// k documents of the query's highest grade (RecTools
    /// `divide_by_achievable=False`, C/W/L SDCG).
    K,
}

impl fmt::Display for NdcgIdeal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NdcgIdeal::Judged => "judged",
            NdcgIdeal::K => "k",
        })
    }
}

/// Exponential gains of grades above this are scaled by `2^-top` first (as
/// `ndcg` does), so that none overflows an `f64`.
const LARGEST_UNSCALED_GRADE: f64 = 1000.0;

/// nDCG@k with the ideal of `k` documents of the query's top grade: DCG@k
/// over `sum_{i <= k} gain(top) / log2(i + 1)`; 0 when the query has no
/// positive grade.
///
/// # Example
/// RecTools' NDCG test, user 4 at k = 3: one relevant item, recommended
/// first; the ideal counts three relevant ranks.
/// ```
/// use rankeval_metrics::ndcg_ideal::ndcg_ideal_k;
/// use rankeval_metrics::dcg::Gain;
/// use rankeval_core::{testing, Cutoff};
/// let q = testing::binary("1", 1);
/// let ideal = 1.0 + 1.0 / 3f64.log2() + 1.0 / 4f64.log2();
/// assert_eq!(ndcg_ideal_k(&q.view(), Cutoff::new(3), Gain::Linear), 1.0 / ideal);
/// ```
pub fn ndcg_ideal_k(q: &JudgedRanking<'_>, k: Option<Cutoff>, gain: impl Into<GainAt>) -> f64 {
    let gain = gain.into();
    let Some(&top) = q.ideal_grades().first() else {
        return 0.0;
    };
    let depth = k.map_or(q.retrieved(), Cutoff::get);
    if gain.is_exponential() && top > LARGEST_UNSCALED_GRADE {
        return scaled_exponential(q, k, top, depth);
    }
    let ideal = discounted_sum(std::iter::repeat_n(top, depth), gain);
    if ideal > 0.0 {
        dcg(q, k, gain) / ideal
    } else {
        0.0
    }
}

/// The same ratio with every exponential gain `2^g - 1` divided by `2^top`.
fn scaled_exponential(q: &JudgedRanking<'_>, k: Option<Cutoff>, top: f64, depth: usize) -> f64 {
    let scaled = |g: f64| {
        if g > 0.0 {
            (g - top).exp2() - (-top).exp2()
        } else {
            0.0
        }
    };
    let discount = |i: usize| ((i + 2) as f64).log2();
    let dcg = q
        .top(k)
        .iter()
        .enumerate()
        .fold(0.0, |sum, (i, j)| sum + scaled(j.grade()) / discount(i));
    let ideal = (0..depth).fold(0.0, |sum, i| sum + scaled(top) / discount(i));
    dcg / ideal
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dcg::Gain;
    use rankeval_core::testing::{binary, judged};

    /// `sum_{i <= k} gain / log2(i + 1)`, summed in rank order.
    fn ideal_of(gain: f64, k: usize) -> f64 {
        (1..=k).fold(0.0, |s, i| s + gain / ((i + 1) as f64).log2())
    }

    #[test]
    fn rectools_ndcg_published_values() {
        // RecTools tests/metrics/test_ranking.py, TestNDCG.test_calc (its
        // NDCG divides by the DCG of k relevant items): reco ranks are
        // positions, relevant items are 1 (grade 1).
        let at = |pattern: &str, relevant: usize, k: usize| {
            ndcg_ideal_k(
                &binary(pattern, relevant).view(),
                Cutoff::new(k),
                Gain::Linear,
            )
        };
        let idcg_at_3 = 1.0 / 2f64.log2() + 1.0 / 3f64.log2() + 1.0 / 4f64.log2();
        // k = 1: [0, 0, 1, 1, 0]
        assert_eq!(at("0000 0000 1", 1, 1), 0.0); // user 1: its item at rank 9
        assert_eq!(at("0", 1, 1), 0.0); // user 2: recommends a non-relevant item
        assert_eq!(at("111", 3, 1), 1.0); // user 3
        assert_eq!(at("1", 1, 1), 1.0); // user 4
        assert_eq!(at("0010 0010 1", 4, 1), 0.0); // user 5
        // k = 3: [0, 0, 1, 1 / idcg@3, 0.5 / idcg@3]
        assert_eq!(at("111", 3, 3), 1.0);
        assert_eq!(at("1", 1, 3), 1.0 / idcg_at_3);
        assert_eq!(at("0010 0010 1", 4, 3), 0.5 / idcg_at_3);
    }

    #[test]
    fn the_ideal_fills_k_ranks_with_the_top_grade() {
        // Grades 1 0 3 retrieved, a 2 unretrieved: the ideal is 3 3 3 3 at k = 4.
        let q = judged("1 0 3", &[2]);
        let dcg = 1.0 + 3.0 / 4f64.log2();
        assert_eq!(
            ndcg_ideal_k(&q.view(), Cutoff::new(4), Gain::Linear),
            dcg / ideal_of(3.0, 4)
        );
        let dcg = 1.0 + 7.0 / 4f64.log2();
        assert_eq!(
            ndcg_ideal_k(&q.view(), Cutoff::new(4), Gain::Exponential),
            dcg / ideal_of(7.0, 4)
        );
        // No cutoff: k = n = 3.
        let dcg = 1.0 + 3.0 / 4f64.log2();
        assert_eq!(
            ndcg_ideal_k(&q.view(), None, Gain::Linear),
            dcg / ideal_of(3.0, 3)
        );
    }

    #[test]
    fn no_positive_grade_gives_zero() {
        assert_eq!(
            ndcg_ideal_k(&judged("0 0", &[-1]).view(), Cutoff::new(2), Gain::Linear),
            0.0
        );
        assert_eq!(
            ndcg_ideal_k(&judged("", &[]).view(), None, Gain::Linear),
            0.0
        );
        assert_eq!(
            ndcg_ideal_k(&judged("", &[3]).view(), None, Gain::Linear),
            0.0
        );
    }

    #[test]
    fn huge_exponential_grades_do_not_overflow() {
        use rankeval_core::{Judgement, RelevanceLevel};
        let ranked = [Judgement::judged(1030.0), Judgement::judged(0.0)];
        let ideal = [1030.0, 0.0];
        let q = JudgedRanking::new(&ranked, 2, &ideal, RelevanceLevel::DEFAULT);
        let got = ndcg_ideal_k(&q, Cutoff::new(2), Gain::Exponential);
        assert!((got - 1.0 / ideal_of(1.0, 2)).abs() < 1e-15, "{got}");
    }
}
