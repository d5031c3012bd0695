//! Attention-weighted rank fairness (AWRF; Sapiezynski, Zeng, Robertson,
//! Mislove and Wilson, WWW 2019 companion) as the TREC 2021 Fair Ranking
//! track computes it (Ekstrand, Raj, McDonald and Johnson, "Overview of
//! the TREC 2021 Fair Ranking Track"; its evaluation script `metrics.py`,
//! `qr_awrf`), and the track's Task 1 score, nDCG x AWRF (`qr_ndcg`,
//! `Task1Metric`).
//!
//! Rank `i` (from 1) gets the attention `1 / log2(max(i, 2))` (ranks 1 and
//! 2 alike). A ranking's group exposure is the sum over its ranks of the
//! attention times the document's alignment with each group (its weight in
//! the groups file); AWRF is `1 - JSD(exposure, target)`, the Jensen-Shannon
//! divergence in nats (scipy's `jensenshannon` squared, each distribution
//! normalised to sum 1) against a target distribution over the groups:
//!
//! - `relevant`: the query's relevant documents' alignments, summed and
//!   normalised (TREC 2021 averaged this with the world's population by
//!   region, data of that track);
//! - `uniform`: every group of the groups file alike.
//!
//! A ranking with no document in any group, or a target of no mass, has
//! no distribution to compare: AWRF is 0 then.
//!
//! The Task 1 nDCG counts a relevant document as 1 at the same attention,
//! over the ideal `sum_{i <= min(k, |R|)} 1 / log2(max(i, 2))`. The
//! track's script computes the attention in 32-bit floats; rankeval in
//! 64-bit (differences near 1e-7).

/// The attention of rank `i` (from 1): `1 / log2(max(i, 2))`.
#[inline]
pub fn attention(i: usize) -> f64 {
    1.0 / (i.max(2) as f64).log2()
}

/// The Jensen-Shannon divergence (natural logarithm) between `p` and `q`,
/// each normalised to sum 1 first; `None` if either has no mass.
pub fn jensen_shannon(p: &[f64], q: &[f64]) -> Option<f64> {
    let (sp, sq): (f64, f64) = (p.iter().sum(), q.iter().sum());
    if !(sp > 0.0 && sq > 0.0 && sp.is_finite() && sq.is_finite()) {
        return None;
    }
    let term = |x: f64, m: f64| if x > 0.0 { x * (x / m).ln() } else { 0.0 };
    let mut sum = 0.0;
    for (&a, &b) in p.iter().zip(q) {
        let (a, b) = (a / sp, b / sq);
        let m = (a + b) / 2.0;
        sum += term(a, m) + term(b, m);
    }
    Some((sum / 2.0).max(0.0))
}

/// AWRF of group exposure `exposure` against `target`: `1 - JSD`, or 0
/// when either has no mass.
pub fn awrf(exposure: &[f64], target: &[f64]) -> f64 {
    jensen_shannon(exposure, target).map_or(0.0, |d| 1.0 - d)
}

/// TREC Fair 2021's binary nDCG: `gains[i]` 1 for a relevant document at
/// rank `i + 1`, the ideal over `ideal_len` relevant documents; 0 when
/// there is none.
pub fn fair_ndcg(relevant: impl Iterator<Item = bool>, ideal_len: usize) -> f64 {
    let dcg: f64 = relevant
        .enumerate()
        .filter(|(_, r)| *r)
        .map(|(i, _)| attention(i + 1))
        .fold(0.0, |sum, a| sum + a);
    let ideal: f64 = (1..=ideal_len).map(attention).fold(0.0, |sum, a| sum + a);
    if ideal > 0.0 { dcg / ideal } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attention_and_divergence_by_hand() {
        assert_eq!(attention(1), 1.0);
        assert_eq!(attention(2), 1.0);
        assert_eq!(attention(4), 0.5);
        // Equal distributions: no divergence; disjoint ones: ln 2.
        assert_eq!(jensen_shannon(&[1.0, 3.0], &[2.0, 6.0]), Some(0.0));
        let d = jensen_shannon(&[1.0, 0.0], &[0.0, 5.0]).unwrap();
        assert!((d - std::f64::consts::LN_2).abs() < 1e-15);
        assert_eq!(jensen_shannon(&[0.0, 0.0], &[1.0, 1.0]), None);
        assert_eq!(awrf(&[0.0], &[1.0]), 0.0);
        // p = (3/4, 1/4), q = (1/2, 1/2): m = (5/8, 3/8).
        let want = 0.5
            * (0.75 * (0.75f64 / 0.625).ln()
                + 0.25 * (0.25f64 / 0.375).ln()
                + 0.5 * (0.5f64 / 0.625).ln()
                + 0.5 * (0.5f64 / 0.375).ln());
        let got = jensen_shannon(&[3.0, 1.0], &[1.0, 1.0]).unwrap();
        assert!((got - want).abs() < 1e-15, "{got} {want}");
        // Relevant at ranks 1 and 3 of 2 relevant: (1 + 1/log2 3) / 2.
        let n = fair_ndcg([true, false, true].into_iter(), 2);
        assert!((n - (1.0 + 1.0 / 3f64.log2()) / 2.0).abs() < 1e-15);
        assert_eq!(fair_ndcg([false].into_iter(), 0), 0.0);
    }
}
