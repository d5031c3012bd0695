//! Stochastic rankings: several sampled rankings of one query (a ranking
//! policy that shuffles, Plackett-Luce samples), the input of expected
//! exposure (Diaz et al., "Evaluating Stochastic Rankings with Expected
//! Exposure", CIKM 2020) and of any metric's expected value under the
//! policy.
//!
//! A sampled run gives each query several rankings, each judged as one
//! list is; [`Samples`] holds them with each ranked document's place among
//! the documents of all the query's samples, so that a metric can sum a
//! document's exposure over the samples
//! ([`Metric::score_samples`](crate::Metric::score_samples)).

use crate::judge::JudgedRanking;

/// One query's sampled rankings, judged, with each judged rank's document
/// numbered among the query's documents (the same document has the same
/// number in every sample).
#[derive(Clone, Copy, Debug)]
pub struct Samples<'a> {
    rankings: &'a [JudgedRanking<'a>],
    docs: &'a [Vec<u32>],
    num_docs: usize,
}

impl<'a> Samples<'a> {
    /// The samples `rankings`; `docs[s][i]` is the number of the document
    /// at judged rank `i` of sample `s`, below `num_docs`.
    ///
    /// # Panics
    /// If `docs` does not give one number per judged rank of each ranking.
    pub fn new(rankings: &'a [JudgedRanking<'a>], docs: &'a [Vec<u32>], num_docs: usize) -> Self {
        assert_eq!(
            rankings.len(),
            docs.len(),
            "one list of numbers per ranking"
        );
        for (r, d) in rankings.iter().zip(docs) {
            assert_eq!(r.ranked().len(), d.len(), "one number per judged rank");
            debug_assert!(d.iter().all(|&n| (n as usize) < num_docs));
        }
        Samples {
            rankings,
            docs,
            num_docs,
        }
    }

    /// The sampled rankings, in input order.
    pub fn rankings(&self) -> &'a [JudgedRanking<'a>] {
        self.rankings
    }

    /// The number of samples.
    pub fn len(&self) -> usize {
        self.rankings.len()
    }

    /// Whether there is no sample.
    pub fn is_empty(&self) -> bool {
        self.rankings.is_empty()
    }

    /// Sample `s`'s judged ranks' document numbers.
    pub fn docs(&self, s: usize) -> &'a [u32] {
        self.docs.get(s).map_or(&[], Vec::as_slice)
    }

    /// The number of distinct documents over the samples.
    pub fn num_docs(&self) -> usize {
        self.num_docs
    }

    /// The mean of `score` over the samples, summed in sample order (0 for
    /// no sample).
    pub fn mean(&self, score: impl Fn(&JudgedRanking<'a>) -> f64) -> f64 {
        if self.rankings.is_empty() {
            return 0.0;
        }
        let sum: f64 = self.rankings.iter().map(score).sum();
        sum / self.rankings.len() as f64
    }
}
