//! The facts some metrics read over every query of the qrels, gathered a
//! part of the qrels at a time: what a Spark task, which sees only its
//! partition's queries, is given before it evaluates any
//! ([`sided::Context::whole`](super::sided::Context)).
//!
//! Two such facts exist: the normalisers of the propensity-scored metrics
//! (PSP@k, PSnDCG@k: the mean over every query of the qrels of its best
//! achievable value, [`QrelsMean`]), kept here as the exact sum of each
//! one's terms and the number of queries, so that merged parts give the
//! command line's mean bit for bit; and the documents judged for any query
//! (Hole@k). A part is computed over whole queries
//! ([`QrelsFacts::of_part`]), sent as bytes ([`QrelsFacts::to_bytes`]),
//! merged in any order ([`QrelsFacts::merge`]) and turned into what each
//! task attaches to its chunks ([`QrelsFacts::whole`]). Nothing is kept
//! per query: one sum per normaliser, and the set of judged documents.

use std::collections::HashSet;
use std::sync::Arc;

use rankeval_core::context::{NormaliserKey, judged_documents, mean_of};
use rankeval_core::exact_sum::FullSum;
use rankeval_core::{
    DocumentContext, LabelPropensities, Metric, Qrels, RelevanceLevel, Requirement, WholeQrels,
};

/// The first bytes of [`QrelsFacts::to_bytes`] (format 1).
const MAGIC: &[u8; 4] = b"RQF1";

/// Why bytes are not the facts of a part of the qrels, or parts do not
/// merge.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QrelsFactsError {
    /// The bytes end early, have bytes after the facts, or hold a sum that
    /// is not one.
    #[error("the qrels' facts: {0}")]
    Wire(&'static str),
    /// Two parts computed for different metrics.
    #[error("the qrels' facts of two parts are of different metrics")]
    Mismatch,
}

/// The facts of the queries of one part of the qrels, or of every part
/// merged.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QrelsFacts {
    /// The number of queries of the parts.
    queries: u64,
    /// Per normaliser (a metric's [`QrelsMean`] key), the exact sum of its
    /// terms over the parts' queries.
    sums: Vec<(NormaliserKey, FullSum)>,
    /// The documents the parts judge, when a metric reads them.
    judged: Option<HashSet<Box<[u8]>>>,
}

/// Whether `metrics` read a fact of the whole qrels (label propensities'
/// normalisers, the documents judged anywhere): a first pass over the
/// qrels is then needed.
pub fn needed(metrics: &[Box<dyn Metric>]) -> bool {
    metrics.iter().any(|m| {
        m.requires()
            .iter()
            .any(|r| matches!(r, Requirement::Propensities | Requirement::JudgedAnywhere))
    })
}

impl QrelsFacts {
    /// The facts `metrics` read, over `qrels` (whole queries: every
    /// judgement of each of its queries), at the experiment's level
    /// `level`, with the label propensities `propensities` (needed when a
    /// metric requires them; a judged label without a given inverse
    /// propensity is an error, as on the command line).
    pub fn of_part(
        qrels: &Qrels,
        metrics: &[Box<dyn Metric>],
        level: RelevanceLevel,
        propensities: Option<&Arc<LabelPropensities>>,
    ) -> Result<Self, rankeval_core::context::MissingPropensity> {
        let mut sums: Vec<(NormaliserKey, FullSum)> = Vec::new();
        let means: Vec<_> = metrics.iter().flat_map(|m| m.qrels_means(level)).collect();
        if let (Some(table), false) = (propensities, means.is_empty()) {
            let context =
                DocumentContext::build(qrels, &[Requirement::Propensities], Some(table.clone()))?;
            if let Some(judgements) = context.propensities() {
                for mean in &means {
                    if !sums.iter().any(|(key, _)| *key == mean.key) {
                        sums.push((mean.key, judgements.sum(&mean.term)));
                    }
                }
            }
        }
        let judged = rankeval_core::context::any_requires(metrics, Requirement::JudgedAnywhere)
            .then(|| judged_documents(qrels));
        Ok(QrelsFacts {
            queries: qrels.num_queries() as u64,
            sums,
            judged,
        })
    }

    /// Adds the facts of another part (of other queries).
    pub fn merge(&mut self, other: QrelsFacts) -> Result<(), QrelsFactsError> {
        if self.sums.len() != other.sums.len() || self.judged.is_some() != other.judged.is_some() {
            return Err(QrelsFactsError::Mismatch);
        }
        for (key, sum) in other.sums {
            let (_, mine) = self
                .sums
                .iter_mut()
                .find(|(k, _)| *k == key)
                .ok_or(QrelsFactsError::Mismatch)?;
            mine.merge(&sum);
        }
        self.queries += other.queries;
        if let (Some(mine), Some(theirs)) = (&mut self.judged, other.judged) {
            mine.extend(theirs);
        }
        Ok(())
    }

    /// The number of queries of the parts merged.
    pub fn queries(&self) -> u64 {
        self.queries
    }

    /// What a part of the qrels takes from these facts: each normaliser's
    /// mean over the queries ([`mean_of`], as the metric computes it over
    /// whole qrels) and the documents judged anywhere.
    pub fn whole(&self) -> WholeQrels {
        WholeQrels {
            normalisers: (!self.sums.is_empty()).then(|| {
                self.sums
                    .iter()
                    .map(|(key, sum)| (*key, mean_of(sum, self.queries)))
                    .collect()
            }),
            judged_anywhere: self.judged.clone().map(Arc::new),
        }
    }

    /// The facts as bytes: [`MAGIC`], the number of queries (`u64`), the
    /// number of sums (`u32`), each sum's key (five `u64`) and
    /// [`FullSum::write`] wire, then a byte 1 and the documents judged
    /// (their number as `u64`, each as a `u32` length and its bytes, in
    /// byte order) or a byte 0; every number little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&self.queries.to_le_bytes());
        out.extend_from_slice(&(self.sums.len() as u32).to_le_bytes());
        for (key, sum) in &self.sums {
            for word in key {
                out.extend_from_slice(&word.to_le_bytes());
            }
            sum.write(&mut out);
        }
        match &self.judged {
            None => out.push(0),
            Some(docs) => {
                out.push(1);
                out.extend_from_slice(&(docs.len() as u64).to_le_bytes());
                let mut sorted: Vec<&[u8]> = docs.iter().map(|d| &**d).collect();
                sorted.sort_unstable();
                for doc in sorted {
                    out.extend_from_slice(&(doc.len() as u32).to_le_bytes());
                    out.extend_from_slice(doc);
                }
            }
        }
        out
    }

    /// The facts [`to_bytes`](Self::to_bytes) wrote; an error for any
    /// other bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, QrelsFactsError> {
        let mut reader = Reader { bytes, at: 0 };
        if reader.take(4)? != MAGIC {
            return Err(QrelsFactsError::Wire("not the qrels' facts (no RQF1 mark)"));
        }
        let queries = reader.u64()?;
        let count = reader.u32()?;
        let mut sums = Vec::new();
        for _ in 0..count {
            let mut key = [0u64; 5];
            for word in &mut key {
                *word = reader.u64()?;
            }
            let (sum, used) = FullSum::read(reader.rest())
                .ok_or(QrelsFactsError::Wire("a sum that is not one"))?;
            reader.take(used)?;
            sums.push((key, sum));
        }
        let judged = match reader.take(1)? {
            [0] => None,
            [1] => {
                let n = reader.u64()?;
                let mut docs = HashSet::new();
                for _ in 0..n {
                    let len = reader.u32()? as usize;
                    docs.insert(Box::from(reader.take(len)?));
                }
                Some(docs)
            }
            _ => return Err(QrelsFactsError::Wire("a flag that is neither 0 nor 1")),
        };
        if !reader.rest().is_empty() {
            return Err(QrelsFactsError::Wire("bytes after the facts"));
        }
        Ok(QrelsFacts {
            queries,
            sums,
            judged,
        })
    }
}

/// Reads [`QrelsFacts::to_bytes`]'s bytes in order, checking each length.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize) -> Result<&'b [u8], QrelsFactsError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or(QrelsFactsError::Wire("the bytes end early"))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u64(&mut self) -> Result<u64, QrelsFactsError> {
        let mut word = [0u8; 8];
        word.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(word))
    }

    fn u32(&mut self) -> Result<u32, QrelsFactsError> {
        let mut word = [0u8; 4];
        word.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(word))
    }

    fn rest(&self) -> &'b [u8] {
        self.bytes.get(self.at..).unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::QrelsBuilder;
    use rankeval_core::registry::parse_metric;
    use std::collections::HashMap;

    fn qrels(rows: &[(&str, &str, f64)]) -> Qrels {
        let mut builder = QrelsBuilder::new();
        for (q, d, g) in rows {
            builder.push(*q, *d, *g).unwrap();
        }
        builder.finish().unwrap()
    }

    /// Two parts' facts, sent as bytes and merged, are the whole qrels':
    /// the normaliser is the whole qrels' mean of the best values (queries
    /// with no relevant label included), bit for bit, and the documents
    /// judged are the union; bytes round-trip, and parts of other metrics
    /// do not merge.
    #[test]
    fn parts_merged_are_the_whole_qrels() {
        let metrics = vec![
            parse_metric("psp@2").unwrap(),
            parse_metric("hole").unwrap(),
        ];
        let table = Arc::new(LabelPropensities::Counts {
            counts: HashMap::from([(Box::from(&b"a"[..]), 3), (Box::from(&b"b"[..]), 40)]),
            instances: 100,
        });
        let level = RelevanceLevel::default();
        let rows = [
            ("q1", "a", 1.0),
            ("q1", "b", 2.0),
            ("q1", "c", 0.0),
            ("q2", "c", 1.0),
            ("q3", "d", 0.0),
        ];
        let whole = QrelsFacts::of_part(&qrels(&rows), &metrics, level, Some(&table)).unwrap();
        let mut merged = QrelsFacts::from_bytes(
            &QrelsFacts::of_part(&qrels(&rows[..3]), &metrics, level, Some(&table))
                .unwrap()
                .to_bytes(),
        )
        .unwrap();
        let rest = QrelsFacts::of_part(&qrels(&rows[3..]), &metrics, level, Some(&table)).unwrap();
        merged
            .merge(QrelsFacts::from_bytes(&rest.to_bytes()).unwrap())
            .unwrap();
        assert_eq!(merged.queries(), 3);
        let (got, want) = (merged.whole(), whole.whole());
        let values = |w: &WholeQrels| -> Vec<([u64; 5], u64)> {
            w.normalisers
                .as_deref()
                .unwrap()
                .iter()
                .map(|(k, v)| (*k, v.to_bits()))
                .collect()
        };
        assert_eq!(values(&got), values(&want));
        // (w(a) + w(b)) for q1, w(c) for q2 (count 0), 0 for q3, over 3.
        let w = |count: f64| rankeval_core::JainModel::GENERAL.inverse(count, 100);
        let by_hand = ((w(3.0) + w(40.0)) + w(0.0)) / 3.0;
        let normaliser = values(&got)[0].1;
        assert!((f64::from_bits(normaliser) - by_hand).abs() < 1e-12);
        let judged = got.judged_anywhere.unwrap();
        let mut docs: Vec<&[u8]> = judged.iter().map(|d| &**d).collect();
        docs.sort_unstable();
        assert_eq!(docs, [&b"a"[..], b"b", b"c", b"d"]);
        assert_eq!(QrelsFacts::from_bytes(&whole.to_bytes()).unwrap(), whole);
        // Facts of other metrics (no hole) do not merge with these.
        let other = QrelsFacts::of_part(
            &qrels(&rows),
            &[parse_metric("psp@2").unwrap()],
            level,
            Some(&table),
        )
        .unwrap();
        assert_eq!(merged.merge(other), Err(QrelsFactsError::Mismatch));
        let mut bytes = whole.to_bytes();
        bytes.push(0);
        assert!(QrelsFacts::from_bytes(&bytes).is_err());
    }
}
