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
        let sum = self.rankings.iter().map(score).fold(0.0, |sum, v| sum + v);
        sum / self.rankings.len() as f64
    }
}

/// A run of sampled rankings: for each query, several rankings, each named
/// by a sample id (expeval's `query sample doc rank` layout: a TREC run
/// whose second column is the sample). Each sample is one list of a
/// [`Run`](crate::Run), ordered and checked for repeated documents as any
/// run's list is.
#[derive(Clone, Debug)]
pub struct SampledRun {
    run: crate::Run,
    /// Per query id, its samples' lists in `run`, in byte order of their
    /// sample ids.
    queries: std::collections::HashMap<Box<[u8]>, Vec<u32>>,
    /// Each list's sample id, by the list's index in `run`.
    sample_ids: Vec<Box<[u8]>>,
    samples: usize,
}

impl SampledRun {
    /// The lists of `query`'s samples (indexes into [`run`](Self::run)),
    /// in byte order of their sample ids, whatever the order of the input's
    /// rows (a metric's sum over the samples, rounded in that order, is then
    /// the same bits for any order of rows, and on Spark, whose shuffle
    /// keeps no row order); `None` for a query the run lacks.
    pub fn samples(&self, query: &[u8]) -> Option<&[u32]> {
        self.queries.get(query).map(Vec::as_slice)
    }

    /// The sample id of list `list` of [`run`](Self::run) (as given in
    /// the input), `None` past the lists.
    pub fn sample_id(&self, list: u32) -> Option<&[u8]> {
        self.sample_ids.get(list as usize).map(|id| &**id)
    }

    /// Every sample's list.
    pub fn run(&self) -> &crate::Run {
        &self.run
    }

    /// The number of queries.
    pub fn num_queries(&self) -> usize {
        self.queries.len()
    }

    /// The number of (query, sample) rankings.
    pub fn num_samples(&self) -> usize {
        self.samples
    }

    /// The query ids, in byte order.
    pub fn query_ids(&self) -> Vec<&[u8]> {
        let mut ids: Vec<&[u8]> = self.queries.keys().map(|q| &**q).collect();
        ids.sort_unstable();
        ids
    }
}

/// A query id and a sample id.
type Pair = (Box<[u8]>, Box<[u8]>);

/// Builds a [`SampledRun`] from `(query, sample, doc, score)` entries, each
/// with its position (line or row) for messages.
#[derive(Debug, Default)]
pub struct SampledRunBuilder {
    builder: crate::RunBuilder,
    /// Each (query, sample)'s key in `builder`: its number, in order of
    /// first appearance.
    keys: std::collections::HashMap<Pair, u32>,
    pairs: Vec<Pair>,
}

impl SampledRunBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// The key of `(query, sample)` in the inner run.
    fn key(&mut self, query: &[u8], sample: &[u8], at: u64) -> Result<u32, crate::RunError> {
        if let Some(&key) = self.keys.get(&(query.into(), sample.into())) {
            return Ok(key);
        }
        let key =
            u32::try_from(self.pairs.len()).map_err(|_| crate::RunError::ListTooLarge { at })?;
        self.keys.insert((query.into(), sample.into()), key);
        self.pairs.push((query.into(), sample.into()));
        Ok(key)
    }

    /// The error of the inner run in the sampled run's terms: its query
    /// named with the sample.
    fn named(&self, error: crate::RunError) -> crate::RunError {
        use crate::RunError;
        let rename = |query: String| -> String {
            query
                .parse::<usize>()
                .ok()
                .and_then(|k| self.pairs.get(k))
                .map_or(query.clone(), |(q, s)| {
                    format!("{}` sample `{}", crate::shorten_id(q), crate::shorten_id(s))
                })
        };
        match error {
            RunError::DuplicateDoc {
                query,
                doc,
                first,
                second,
            } => RunError::DuplicateDoc {
                query: rename(query),
                doc,
                first,
                second,
            },
            RunError::NanScore { query, doc, at } => RunError::NanScore {
                query: rename(query),
                doc,
                at,
            },
            RunError::MixedOrdering { query } => RunError::MixedOrdering {
                query: rename(query),
            },
            other => other,
        }
    }

    /// Adds `doc` with `score` to sample `sample` of `query`, given at
    /// `at`.
    pub fn push(
        &mut self,
        query: &[u8],
        sample: &[u8],
        doc: &[u8],
        score: f64,
        at: u64,
    ) -> Result<(), crate::RunError> {
        if std::str::from_utf8(query).is_err() {
            return Err(crate::RunError::QueryNotUtf8 { at });
        }
        let key = self.key(query, sample, at)?;
        let result = self
            .builder
            .push_scored_at(key.to_string().as_bytes(), doc, score, at);
        result.map_err(|e| self.named(e))
    }

    /// The number of entries pushed.
    pub fn len(&self) -> usize {
        self.builder.len()
    }

    /// Whether nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.builder.is_empty()
    }

    /// Orders every sample's list as a run's (`duplicates`, `ties`).
    pub fn finish(
        self,
        duplicates: crate::Duplicates,
        ties: crate::Ties,
    ) -> Result<SampledRun, crate::RunError> {
        let SampledRunBuilder {
            builder,
            keys: _,
            pairs,
        } = self;
        let run = match builder.finish_with(duplicates, ties) {
            Ok(run) => run,
            Err(e) => {
                let named = SampledRunBuilder {
                    pairs,
                    ..SampledRunBuilder::default()
                };
                return Err(named.named(e));
            }
        };
        let mut queries: std::collections::HashMap<Box<[u8]>, Vec<u32>> =
            std::collections::HashMap::new();
        let mut sample_ids: Vec<Box<[u8]>> = vec![Box::from(&b""[..]); run.num_queries()];
        for (key, (query, sample)) in pairs.iter().enumerate() {
            if let Some(index) = run.query_index(key.to_string().as_bytes()) {
                queries.entry(query.clone()).or_default().push(index);
                if let Some(slot) = sample_ids.get_mut(index as usize) {
                    slot.clone_from(sample);
                }
            }
        }
        // One order of samples for any order of rows.
        for lists in queries.values_mut() {
            lists.sort_by(|&a, &b| {
                let id = |list: u32| sample_ids.get(list as usize).map(|id| &**id);
                id(a).cmp(&id(b))
            });
        }
        Ok(SampledRun {
            samples: pairs.len(),
            run,
            queries,
            sample_ids,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Duplicates, Ties};

    #[test]
    fn samples_in_byte_order_of_their_ids_each_ordered_by_score() {
        let mut b = SampledRunBuilder::new();
        b.push(b"q", b"s2", b"d1", 1.0, 1).unwrap();
        b.push(b"q", b"s1", b"d2", 1.0, 2).unwrap();
        b.push(b"q", b"s2", b"d2", 2.0, 3).unwrap();
        b.push(b"r", b"s1", b"d9", 0.5, 4).unwrap();
        b.push(b"q", b"s1", b"d1", 0.5, 5).unwrap();
        let run = b.finish(Duplicates::Error, Ties::Docid).unwrap();
        assert_eq!(run.num_queries(), 2);
        assert_eq!(run.num_samples(), 3);
        assert_eq!(run.query_ids(), vec![&b"q"[..], &b"r"[..]]);
        let lists: Vec<Vec<&[u8]>> = run
            .samples(b"q")
            .unwrap()
            .iter()
            .map(|&i| run.run().list_at(i).docs().collect())
            .collect();
        assert_eq!(
            lists,
            vec![vec![&b"d2"[..], b"d1"], vec![&b"d2"[..], b"d1"]]
        );
        assert!(run.samples(b"x").is_none());
        let ids: Vec<&[u8]> = run
            .samples(b"q")
            .unwrap()
            .iter()
            .map(|&i| run.sample_id(i).unwrap())
            .collect();
        assert_eq!(ids, vec![&b"s1"[..], b"s2"]);
        assert!(run.sample_id(99).is_none());
    }

    #[test]
    fn errors_name_the_query_and_the_sample() {
        let mut b = SampledRunBuilder::new();
        b.push(b"q", b"s", b"d", 1.0, 1).unwrap();
        let e = b
            .push(b"q", b"s", b"e", f64::NAN, 2)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("query `q` sample `s`") && e.contains("at 2"),
            "{e}"
        );
        b.push(b"q", b"s", b"d", 2.0, 3).unwrap();
        let e = b
            .finish(Duplicates::Error, Ties::Docid)
            .unwrap_err()
            .to_string();
        assert!(e.contains("query `q` sample `s`"), "{e}");
    }
}
