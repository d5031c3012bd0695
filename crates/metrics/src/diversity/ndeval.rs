//! The arithmetic of the TREC Web track's `ndeval` (version 4.5, 2013, as
//! vendored by pyndeval), one pure function per measure, each doing the
//! same operations in the same order as `ndeval.c`, so that the values are
//! ndeval's to the last bit where its arithmetic allows.
//!
//! A query's subtopic judgements are binary at a level: a document is
//! relevant to subtopic `s` when its grade for `s` is at least the level
//! (ndeval: a judgement of 1 or more; pyndeval: `relevance >=
//! relevance_level`). `|S|` is the number of subtopics with at least one
//! relevant document (ndeval's `actualSubtopics`; a subtopic never judged
//! relevant is left out). The novelty-discounted gain of rank `i` is
//!
//! ```text
//! g(i) = sum over the subtopics s of d_i of (1 - alpha)^c(s, i)
//! ```
//!
//! with `c(s, i)` the number of documents above rank `i` relevant to `s`,
//! summed in subtopic order. The ideal ranking is ndeval's greedy one:
//! at each rank, the judged document of the highest gain given those
//! already placed, ties to the larger document id (`strcmp`).

use rankeval_core::{Grade, QuerySubtopics, SubtopicRanking};

/// One query's subtopic judgements at a level: per subtopic, the number of
/// relevant documents.
#[derive(Clone, Debug)]
pub struct Intents<'a> {
    query: &'a QuerySubtopics,
    level: Grade,
    /// Per subtopic, how many documents are relevant to it.
    relevant: Vec<u32>,
}

impl<'a> Intents<'a> {
    /// `query`'s judgements, relevant at `level`.
    pub fn new(query: &'a QuerySubtopics, level: Grade) -> Self {
        let mut relevant = vec![0u32; query.num_subtopics()];
        for d in 0..query.num_docs() as u32 {
            for &(s, grade) in query.judgements(d) {
                if grade >= level
                    && let Some(count) = relevant.get_mut(s as usize)
                {
                    *count += 1;
                }
            }
        }
        Intents {
            query,
            level,
            relevant,
        }
    }

    /// `|S|`: the subtopics with at least one relevant document.
    pub fn actual(&self) -> usize {
        self.relevant.iter().filter(|&&n| n > 0).count()
    }

    /// How many documents are relevant to subtopic `s`.
    pub fn relevant_to(&self, s: u32) -> u32 {
        self.relevant.get(s as usize).copied().unwrap_or(0)
    }

    /// The subtopics document `d` (a place in the query's judgements, or
    /// [`SubtopicRanking::UNJUDGED`]) is relevant to, in subtopic order.
    pub fn subtopics_of(&self, d: u32) -> impl Iterator<Item = u32> + '_ {
        let level = self.level;
        self.query
            .judgements(d)
            .iter()
            .filter(move |&&(_, grade)| grade >= level)
            .map(|&(s, _)| s)
    }

    /// The number of subtopics named in the judgements.
    fn width(&self) -> usize {
        self.relevant.len()
    }

    /// ndeval's greedy ideal ranking (`idealResult`): the judged documents
    /// relevant to some subtopic, each rank taking the one of the highest
    /// novelty-discounted gain given those above it, ties to the larger
    /// document id. Documents relevant to nothing would follow, with gain
    /// 0: they change no measure, and are left out.
    pub fn ideal(&self, alpha: f64) -> Vec<u32> {
        let mut candidates: Vec<u32> = (0..self.query.num_docs() as u32)
            .filter(|&d| self.subtopics_of(d).next().is_some())
            .collect();
        let mut gain = vec![1.0f64; self.width()];
        let mut order = Vec::with_capacity(candidates.len());
        while !candidates.is_empty() {
            // Candidates stay in document id order: on a tie the later one
            // has the larger id and wins, as in ndeval.
            let mut best = 0;
            let mut best_score = f64::NEG_INFINITY;
            for (c, &d) in candidates.iter().enumerate() {
                let mut score = 0.0;
                for s in self.subtopics_of(d) {
                    score += gain.get(s as usize).copied().unwrap_or(0.0);
                }
                if score >= best_score {
                    best_score = score;
                    best = c;
                }
            }
            let d = candidates.remove(best);
            for s in self.subtopics_of(d) {
                if let Some(g) = gain.get_mut(s as usize) {
                    *g *= 1.0 - alpha;
                }
            }
            order.push(d);
        }
        order
    }

    /// The novelty-discounted gain `g(i)` of each document of `ranked`
    /// (places in the query's judgements), as ndeval's `computeDCG` adds
    /// it up.
    pub fn gains(&self, ranked: &[u32], alpha: f64) -> Vec<f64> {
        let mut gain = vec![1.0f64; self.width()];
        ranked
            .iter()
            .map(|&d| {
                let mut score = 0.0;
                for s in self.subtopics_of(d) {
                    if let Some(g) = gain.get_mut(s as usize) {
                        score += *g;
                        *g *= 1.0 - alpha;
                    }
                }
                score
            })
            .collect()
    }

    /// The number of relevant subtopics of each document of `ranked`.
    pub fn counts(&self, ranked: &[u32]) -> Vec<usize> {
        ranked
            .iter()
            .map(|&d| self.subtopics_of(d).count())
            .collect()
    }
}

/// The intents of the query of `view` at `level`, and its ranked
/// documents' places.
pub fn intents<'a>(view: &SubtopicRanking<'a>, level: Grade) -> (Intents<'a>, &'a [u32]) {
    (Intents::new(view.query(), level), view.ranked())
}

/// ndeval's rank discount `ln 2 / ln(i + 2)` of 0-based rank `i`
/// (`1 / log2(rank + 1)`).
#[inline]
pub fn discount(i: usize) -> f64 {
    libm::log(2.0) / libm::log(i as f64 + 2.0)
}

/// The sum over ranks `0..k` of `term(i, g(i))` (0 past the list), divided
/// by the same sum for the "ideal ideal" list, where every one of the
/// `actual` subtopics is covered at every rank (gain `actual x (1 -
/// alpha)^i`), added up rank by rank as ndeval's `computeDCG` and
/// `computeERR` do. 0 when `actual` is 0.
fn ideal_ideal_normalized(
    gains: &[f64],
    actual: usize,
    alpha: f64,
    k: usize,
    weight: impl Fn(usize) -> f64,
) -> f64 {
    if actual == 0 || k == 0 {
        return 0.0;
    }
    let mut sum = 0.0;
    let mut ideal = 0.0;
    let mut ideal_gain = actual as f64;
    for i in 0..k {
        sum += gains.get(i).copied().unwrap_or(0.0) * weight(i);
        ideal += ideal_gain * weight(i);
        ideal_gain *= 1.0 - alpha;
    }
    sum / ideal
}

/// alpha-DCG@k as ndeval reports it (Clarke et al., SIGIR 2008), with
/// ndeval's collection-independent normalization: the discounted sum of
/// `g(i)` over the top `k`, divided by that of a list covering every
/// subtopic at every rank. (ndeval leaves rank 1 undivided, `@1` being
/// the plain gain; here `@1` is divided too, see docs/metrics.md.)
pub fn alpha_dcg(gains: &[f64], actual: usize, alpha: f64, k: usize) -> f64 {
    ideal_ideal_normalized(gains, actual, alpha, k, discount)
}

/// ERR-IA@k as ndeval reports it (Chapelle et al., CIKM 2009, in ndeval's
/// form): `sum_{i<k} g(i) / (i + 1)`, normalized as [`alpha_dcg`].
pub fn err_ia(gains: &[f64], actual: usize, alpha: f64, k: usize) -> f64 {
    ideal_ideal_normalized(gains, actual, alpha, k, |i| 1.0 / (i + 1) as f64)
}

/// `value / ideal` when `value` is not 0, else 0: ndeval's `renormalize`
/// (alpha-nDCG, nERR-IA, nNRBP against the greedy ideal ranking).
#[inline]
pub fn against_ideal(value: f64, ideal: f64) -> f64 {
    if value != 0.0 { value / ideal } else { 0.0 }
}

/// NRBP (Clarke et al., ICTIR 2009) as ndeval computes it:
/// `(1 - (1 - alpha) beta) / |S| x sum_i g(i) beta^(i - 1)` over every
/// rank. 0 when `actual` is 0.
pub fn nrbp(gains: &[f64], actual: usize, alpha: f64, beta: f64) -> f64 {
    if actual == 0 {
        return 0.0;
    }
    let mut decay = 1.0;
    let mut sum = 0.0;
    for &g in gains {
        sum += g * decay;
        decay *= beta;
    }
    sum * ((1.0 - (1.0 - alpha) * beta) / actual as f64)
}

/// Intent-aware precision P-IA@k: relevant (document, subtopic) pairs in
/// the top `k`, divided by `k x |S|` (ndeval's `computePrecision`).
pub fn p_ia(counts: &[usize], actual: usize, k: usize) -> f64 {
    if actual == 0 || k == 0 {
        return 0.0;
    }
    let pairs: usize = counts.iter().take(k).sum();
    pairs as f64 / k.saturating_mul(actual) as f64
}

/// Subtopic recall strec@k (Zhai et al., SIGIR 2003): the subtopics
/// covered by the top `k`, divided by `|S|` (ndeval's `computeSTRecall`).
pub fn strec(intents: &Intents<'_>, ranked: &[u32], k: usize) -> f64 {
    let actual = intents.actual();
    if actual == 0 {
        return 0.0;
    }
    let mut seen = vec![false; intents.width()];
    let mut covered = 0usize;
    for &d in ranked.iter().take(k) {
        for s in intents.subtopics_of(d) {
            if let Some(seen) = seen.get_mut(s as usize)
                && !*seen
            {
                *seen = true;
                covered += 1;
            }
        }
    }
    covered as f64 / actual as f64
}

/// Intent-aware average precision MAP-IA (ndeval's `computeMAP`): per
/// subtopic with relevant documents, the sum of precision at each of its
/// relevant ranks divided by its number of relevant documents; their sum
/// divided by `|S|`.
pub fn map_ia(intents: &Intents<'_>, ranked: &[u32]) -> f64 {
    let actual = intents.actual();
    if actual == 0 {
        return 0.0;
    }
    let width = intents.width();
    let mut count = vec![0u32; width];
    let mut total = vec![0.0f64; width];
    for (i, &d) in ranked.iter().enumerate() {
        for s in intents.subtopics_of(d) {
            if let (Some(c), Some(t)) = (count.get_mut(s as usize), total.get_mut(s as usize)) {
                *c += 1;
                *t += f64::from(*c) / (i + 1) as f64;
            }
        }
    }
    let mut sum = 0.0;
    for (s, &t) in total.iter().enumerate() {
        let relevant = intents.relevant_to(s as u32);
        if relevant > 0 {
            sum += t / f64::from(relevant);
        }
    }
    sum / actual as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::{SubtopicQrels, SubtopicQrelsBuilder};

    /// pyndeval's own test: subtopics a, b, c; A relevant to a, B and D to
    /// b, C to c.
    fn pyndeval_example() -> SubtopicQrels {
        let mut b = SubtopicQrelsBuilder::new();
        for (i, (s, d)) in [("a", "A"), ("b", "B"), ("b", "D"), ("c", "C")]
            .into_iter()
            .enumerate()
        {
            b.push(b"0", s.as_bytes(), d.as_bytes(), 1.0, i as u64 + 1)
                .unwrap();
        }
        b.finish().unwrap()
    }

    /// The run A, D, E (unjudged), B as places in the judgements.
    fn run(q: &QuerySubtopics) -> Vec<u32> {
        ["A", "D", "E", "B"]
            .iter()
            .map(|d| {
                q.position(d.as_bytes())
                    .unwrap_or(SubtopicRanking::UNJUDGED)
            })
            .collect()
    }

    #[test]
    fn the_gains_discount_a_subtopic_seen_before() {
        let qrels = pyndeval_example();
        let q = qrels.query(b"0").unwrap();
        let intents = Intents::new(q, 1.0);
        assert_eq!(intents.actual(), 3);
        // A covers a (1), D covers b (1), E nothing, B covers b again (0.5).
        assert_eq!(intents.gains(&run(q), 0.5), vec![1.0, 1.0, 0.0, 0.5]);
        // Greedy ideal: every document gains 1 at first; ties go to the
        // larger id: D (b), then C (c), then A (a), then B (b, 0.5).
        let ideal = intents.ideal(0.5);
        let ids: Vec<&[u8]> = ideal.iter().map(|&d| q.doc_id(d).unwrap()).collect();
        assert_eq!(ids, vec![&b"D"[..], b"C", b"A", b"B"]);
    }

    #[test]
    fn pyndeval_test_values_by_hand() {
        let qrels = pyndeval_example();
        let q = qrels.query(b"0").unwrap();
        let intents = Intents::new(q, 1.0);
        let ranked = run(q);
        let alpha = 0.5;
        let g = intents.gains(&ranked, alpha);
        let d = |i: usize| 1.0 / ((i + 2) as f64).log2();
        // alpha-DCG@5: (1 + d1 + 0.5 d3) / (3 (1 + 0.5 d1 + 0.25 d2 + ...)).
        let ii: f64 = (0..5).map(|i| 3.0 * 0.5f64.powi(i as i32) * d(i)).sum();
        let dcg5 = (1.0 + d(1) + 0.5 * d(3)) / ii;
        assert!((alpha_dcg(&g, 3, alpha, 5) - dcg5).abs() < 1e-15);
        assert!((alpha_dcg(&g, 3, alpha, 5) - 0.4052).abs() < 1e-4);
        // The ideal: gains 1, 1, 1, 0.5.
        let ideal = intents.gains(&intents.ideal(alpha), alpha);
        assert_eq!(ideal, vec![1.0, 1.0, 1.0, 0.5]);
        let ndcg5 = against_ideal(alpha_dcg(&g, 3, alpha, 5), alpha_dcg(&ideal, 3, alpha, 5));
        assert!((ndcg5 - 0.7868).abs() < 1e-4, "{ndcg5}");
        assert!((err_ia(&g, 3, alpha, 5) - 0.3933).abs() < 1e-4);
        let nerr = against_ideal(err_ia(&g, 3, alpha, 10), err_ia(&ideal, 3, alpha, 10));
        assert!((nerr - 0.8297).abs() < 1e-4, "{nerr}");
        // NRBP: (1 - 0.25) / 3 x (1 + 0.5 + 0.5 x 0.125).
        assert_eq!(nrbp(&g, 3, alpha, 0.5), 0.75 / 3.0 * (1.0 + 0.5 + 0.0625));
        let nn = nrbp(&g, 3, alpha, 0.5) / nrbp(&ideal, 3, alpha, 0.5);
        assert!((nn - 0.8620).abs() < 1e-4, "{nn}");
        // P-IA@5: 3 pairs / (5 x 3); strec@5: a, b of a, b, c.
        let counts = intents.counts(&ranked);
        assert_eq!(p_ia(&counts, 3, 5), 0.2);
        assert_eq!(p_ia(&counts, 3, 20), 3.0 / 60.0);
        assert_eq!(strec(&intents, &ranked, 5), 2.0 / 3.0);
        assert_eq!(strec(&intents, &ranked, 1), 1.0 / 3.0);
        // MAP-IA: a: 1/1; b: (1/2 + 2/4) / 2; c: 0; over 3.
        assert_eq!(map_ia(&intents, &ranked), (1.0 + 0.5) / 3.0);
    }

    #[test]
    fn no_relevant_subtopic_gives_zero_everywhere() {
        let mut b = SubtopicQrelsBuilder::new();
        b.push(b"q", b"s", b"d", 0.0, 1).unwrap();
        let qrels = b.finish().unwrap();
        let q = qrels.query(b"q").unwrap();
        let intents = Intents::new(q, 1.0);
        assert_eq!(intents.actual(), 0);
        assert!(intents.ideal(0.5).is_empty());
        let ranked = [0];
        let g = intents.gains(&ranked, 0.5);
        assert_eq!(alpha_dcg(&g, 0, 0.5, 5), 0.0);
        assert_eq!(err_ia(&g, 0, 0.5, 5), 0.0);
        assert_eq!(nrbp(&g, 0, 0.5, 0.5), 0.0);
        assert_eq!(p_ia(&intents.counts(&ranked), 0, 5), 0.0);
        assert_eq!(strec(&intents, &ranked, 5), 0.0);
        assert_eq!(map_ia(&intents, &ranked), 0.0);
        assert_eq!(against_ideal(0.0, 0.0), 0.0);
    }

    #[test]
    fn alpha_one_counts_each_subtopic_once_and_alpha_zero_never_discounts() {
        let qrels = pyndeval_example();
        let q = qrels.query(b"0").unwrap();
        let intents = Intents::new(q, 1.0);
        assert_eq!(intents.gains(&run(q), 1.0), vec![1.0, 1.0, 0.0, 0.0]);
        assert_eq!(intents.gains(&run(q), 0.0), vec![1.0, 1.0, 0.0, 1.0]);
        // With alpha = 1 the ideal ideal list gains |S| at rank 1 only.
        let g = intents.gains(&run(q), 1.0);
        assert_eq!(alpha_dcg(&g, 3, 1.0, 2), (1.0 + discount(1)) / 3.0);
    }

    #[test]
    fn a_higher_level_keeps_only_the_higher_grades() {
        let mut b = SubtopicQrelsBuilder::new();
        b.push(b"q", b"s", b"d1", 2.0, 1).unwrap();
        b.push(b"q", b"t", b"d1", 1.0, 2).unwrap();
        b.push(b"q", b"t", b"d2", 3.0, 3).unwrap();
        let qrels = b.finish().unwrap();
        let q = qrels.query(b"q").unwrap();
        let at2 = Intents::new(q, 2.0);
        assert_eq!(at2.actual(), 2);
        assert_eq!(at2.subtopics_of(0).collect::<Vec<_>>(), vec![0]);
        let at3 = Intents::new(q, 3.0);
        assert_eq!(at3.actual(), 1);
        assert_eq!(at3.relevant_to(1), 1);
        assert_eq!(at3.relevant_to(0), 0);
    }
}
