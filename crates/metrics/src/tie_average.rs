//! Expected values over every order of each group of tied scores
//! (`ties = average`), exact and in one pass over the groups (McSherry and
//! Najork, "Computing information retrieval performance measures
//! efficiently in the presence of tied scores", ECIR 2008).
//!
//! Every order of a group of `m` tied documents is equally likely, so each
//! of them is at each of the group's ranks with probability `1/m`:
//!
//! - a sum of per-rank terms `w(i) x v(d_i)` (hits, DCG, RBP) has the
//!   expectation `sum_i w(i) x mean of v over the group of rank i`;
//! - the first relevant document of a group of `m` with `r` relevant is at
//!   offset `j` with probability `C(m - 1 - j, r - 1) / C(m, r)`
//!   (reciprocal rank);
//! - two distinct ranks of a group hold two relevant documents with
//!   probability `r (r - 1) / (m (m - 1))` (average precision);
//! - `t` ranks of a group hold no relevant document with probability
//!   `C(m - r, t) / C(m, t)` (hit rate).
//!
//! Groups are [`JudgedRanking::tie_groups`]; the judge extends the judged
//! depth to the end of a group that a cutoff cuts.

use rankeval_core::{Cutoff, Grade, JudgedRanking, Judgement};

/// The number of ranks a cutoff `k` keeps (all without one).
fn depth(k: Option<Cutoff>) -> usize {
    k.map_or(usize::MAX, Cutoff::get)
}

/// The expectation of `sum_{i < k} term(v(d_i), i)` where `term` is linear
/// in its first argument: `term(mean of v over the group of rank i, i)`.
///
/// With no ties every group is one rank and this is the plain sum, term by
/// term, in rank order.
pub fn expected_sum(
    q: &JudgedRanking<'_>,
    k: Option<Cutoff>,
    value: impl Fn(Judgement) -> f64,
    term: impl Fn(f64, usize) -> f64,
) -> f64 {
    let depth = depth(k);
    let ranked = q.ranked();
    let mut sum = 0.0;
    for group in q.tie_groups() {
        if group.start >= depth {
            break;
        }
        let total = ranked[group.clone()]
            .iter()
            .fold(0.0, |total, &j| total + value(j));
        if total == 0.0 {
            continue;
        }
        let mean = total / group.len() as f64;
        for i in group.start..group.end.min(depth) {
            sum += term(mean, i);
        }
    }
    sum
}

/// The expected number of relevant documents at `level` in the top k.
pub fn expected_hits(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade) -> f64 {
    expected_sum(
        q,
        k,
        |j| f64::from(u8::from(j.is_relevant(level))),
        |mean, _| mean,
    )
}

/// How many documents of each group are relevant at `level`, with the
/// group's ranks.
fn relevant_per_group<'a>(
    q: &'a JudgedRanking<'_>,
    level: Grade,
) -> impl Iterator<Item = (std::ops::Range<usize>, usize)> + 'a {
    let ranked = q.ranked();
    q.tie_groups().map(move |group| {
        let r = ranked[group.clone()]
            .iter()
            .filter(|j| j.is_relevant(level))
            .count();
        (group, r)
    })
}

/// The expected reciprocal rank of the first relevant document in the top k.
pub fn expected_reciprocal_rank(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade) -> f64 {
    let depth = depth(k);
    for (group, r) in relevant_per_group(q, level) {
        if group.start >= depth {
            break;
        }
        if r == 0 {
            continue;
        }
        // P(the first relevant one is at offset j), from j = 0 on:
        // r / m, then times (m - j - r) / (m - 1 - j).
        let m = group.len();
        let mut p = r as f64 / m as f64;
        let mut sum = 0.0;
        for j in 0..=m - r {
            let rank = group.start + j;
            if rank >= depth {
                break;
            }
            sum += p * (1.0 / (rank + 1) as f64);
            if j < m - r {
                p *= (m - j - r) as f64 / (m - 1 - j) as f64;
            }
        }
        return sum;
    }
    0.0
}

/// The expectation of `sum_{i < k} rel(i) x hits@i / i` (ranks from 1): the
/// sum of precisions at the relevant ranks that average precision divides.
///
/// At rank `i` of a group of `m` with `r` relevant, after `c` relevant
/// documents in earlier groups and `t` ranks of its own group:
/// `E[rel(i) x hits@i] = (r / m)(c + 1) + t r (r - 1) / (m (m - 1))`.
pub fn expected_precision_sum(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade) -> f64 {
    let depth = depth(k);
    let mut before = 0usize;
    let mut sum = 0.0;
    for (group, r) in relevant_per_group(q, level) {
        if group.start >= depth {
            break;
        }
        if r == 0 {
            continue;
        }
        let m = group.len();
        let first = r as f64 / m as f64 * (before + 1) as f64;
        let pair = if m > 1 {
            (r * (r - 1)) as f64 / (m * (m - 1)) as f64
        } else {
            0.0
        };
        for i in group.start..group.end.min(depth) {
            let t = i - group.start;
            let expected = if t == 0 {
                first
            } else {
                first + t as f64 * pair
            };
            sum += expected / (i + 1) as f64;
        }
        before += r;
    }
    sum
}

/// The probability that the top k hold a relevant document.
pub fn expected_hit(q: &JudgedRanking<'_>, k: Option<Cutoff>, level: Grade) -> f64 {
    let depth = depth(k);
    for (group, r) in relevant_per_group(q, level) {
        if group.start >= depth {
            break;
        }
        if r == 0 {
            continue;
        }
        if group.end <= depth {
            return 1.0;
        }
        // `t` ranks of the group are in the top k: none of them relevant
        // with probability C(m - r, t) / C(m, t).
        let (m, t) = (group.len(), depth - group.start);
        let none = (0..t).fold(1.0, |p, j| {
            p * (m - j).saturating_sub(r) as f64 / (m - j) as f64
        });
        return 1.0 - none;
    }
    0.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::testing::binary;

    #[test]
    fn a_group_of_two_with_one_relevant() {
        // Ranks 1-2 tied, one relevant: RR is (1 + 1/2) / 2, hits@1 is 1/2.
        let owned = binary("10", 1);
        let q = owned.view().with_tie_groups(&[2]);
        assert_eq!(expected_reciprocal_rank(&q, None, 1.0), 0.75);
        assert_eq!(expected_hits(&q, Cutoff::new(1), 1.0), 0.5);
        assert_eq!(expected_hit(&q, Cutoff::new(1), 1.0), 0.5);
        // AP: P@i at the relevant rank, 1 or 1/2, each half the time.
        assert_eq!(expected_precision_sum(&q, None, 1.0), 0.75);
    }
}
