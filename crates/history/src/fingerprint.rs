//! Fingerprints: what tells two records' judgements, metric definitions and
//! input files apart. Each is a SHA-256 digest in lowercase hex (the
//! NIST FIPS 180-4 hash, as `sha256sum` prints it).
//!
//! # Normalised judgements
//!
//! The judgements' fingerprint is the hash of the **normalised qrels**,
//! defined here and nowhere else:
//!
//! 1. the judgements as the evaluation sees them once read: one grade per
//!    (query, document), repeats already resolved by the reader's rule, so
//!    the file's format (TREC, CSV, Parquet...), its line order, its
//!    whitespace, its unused columns (TREC's iteration) and its compression
//!    do not count;
//! 2. every query the qrels hold, a query with no judgement included;
//! 3. queries in byte order of their ids, each query's documents in byte
//!    order of their ids;
//! 4. each grade as the IEEE 754 bits of its `f64`, `-0.0` written as `0.0`
//!    (the two judge alike), so `1`, `1.0` and `1e0` are one grade;
//! 5. written as the tag `rankeval-qrels-v1` and a zero byte, then per
//!    query: its id (length as a little-endian `u64`, then the bytes), its
//!    number of judgements (`u64`), then per judgement the document id
//!    (length, bytes) and the grade's eight bytes, little-endian.
//!
//! The fingerprint is the SHA-256 of those bytes. It changes when a
//! judgement is added, removed or regraded, or a query appears or goes, and
//! for nothing else. The relevance level (`rel`) is not part of it: it is an
//! option of the record, compared as such.
//!
//! # Normalised impression logs
//!
//! An off-policy record (`rankeval ope --record`) is made on an impression
//! log, not on judgements: its fingerprint, in the place of the
//! judgements', is the hash of the **normalised log**:
//!
//! 1. the impressions as the estimators see them once read (the file's
//!    format, its row order and layout, its column names, its unused
//!    columns and its compression do not count);
//! 2. the tag `rankeval-log-v1` and a zero byte, the propensities' form
//!    and the reward's unit (`action`, `impression`: length, bytes) and the
//!    slate length (`u64`);
//! 3. then every impression in byte order of its id: its id and its
//!    context (length, bytes), its shown items in order (count as a `u64`,
//!    then each id), its rewards, its logging propensities (count, then
//!    each number's eight bytes, `-0.0` as `0.0`) and its target
//!    probabilities when the log has them (a byte 1 then the count and the
//!    numbers; a byte 0 when it has none).
//!
//! It changes when an impression is added, removed, or changes its
//! context, items, rewards, propensities or target probabilities, and for
//! nothing else.
//!
//! # Metric definitions
//!
//! The definitions' fingerprint is the SHA-256 of the tag
//! `rankeval-definitions-v1`, a zero byte, then for each metric in byte
//! order of its canonical name: the name (length, bytes) and its definition
//! version (a little-endian `u32`). A metric's canonical name holds every
//! parameter that changes its value; its definition version is bumped when
//! its code changes what it computes for some input.

use std::io::Read;

use sha2::{Digest, Sha256};

/// The fingerprint of normalised judgements (the module's definition),
/// built a query at a time: [`JudgementsFingerprint::query`] for each
/// query in any order, then [`finish`](JudgementsFingerprint::finish).
#[derive(Debug, Default)]
pub struct JudgementsFingerprint {
    /// Each query's id and its judgements, sorted when finished.
    queries: Vec<(Vec<u8>, Vec<Judgement>)>,
}

/// A document id and its grade.
type Judgement = (Vec<u8>, f64);

impl JudgementsFingerprint {
    /// An empty set of judgements.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds query `id` with its `judgements` (document id and grade), in
    /// any order.
    pub fn query<'a>(&mut self, id: &[u8], judgements: impl IntoIterator<Item = (&'a [u8], f64)>) {
        let judgements = judgements
            .into_iter()
            .map(|(doc, grade)| (doc.to_vec(), grade))
            .collect();
        self.queries.push((id.to_vec(), judgements));
    }

    /// The SHA-256 of the normalised judgements, in lowercase hex.
    pub fn finish(mut self) -> String {
        self.queries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut hash = Sha256::new();
        hash.update(b"rankeval-qrels-v1\0");
        for (query, mut judgements) in self.queries {
            judgements.sort_by(|a, b| a.0.cmp(&b.0));
            write_bytes(&mut hash, &query);
            hash.update((judgements.len() as u64).to_le_bytes());
            for (doc, grade) in judgements {
                write_bytes(&mut hash, &doc);
                // -0.0 and 0.0 judge alike: one grade.
                let grade = if grade == 0.0 { 0.0 } else { grade };
                hash.update(grade.to_bits().to_le_bytes());
            }
        }
        hex(&hash.finalize())
    }
}

/// The fingerprint of a normalised impression log (the module's
/// definition), hashed as it is fed: [`LogFingerprint::impression`] for
/// each impression **in byte order of the impression ids** (the caller
/// sorts: the log is already in its memory), then
/// [`finish`](LogFingerprint::finish), which gives `None` when the
/// impressions did not come in strictly increasing order of their ids.
#[derive(Debug)]
pub struct LogFingerprint {
    /// The hash so far.
    hash: Sha256,
    /// The last impression's id.
    last: Option<Vec<u8>>,
    /// Whether every id so far came after the one before.
    ordered: bool,
}

/// One impression as the log fingerprint reads it.
#[derive(Clone, Copy, Debug)]
pub struct LoggedImpression<'a> {
    /// The impression's id.
    pub id: &'a [u8],
    /// Its context.
    pub context: &'a [u8],
    /// The items it showed, in order.
    pub items: &'a [&'a [u8]],
    /// Its reward, or one per position.
    pub rewards: &'a [f64],
    /// The logging propensities.
    pub propensities: &'a [f64],
    /// The target's probabilities, when the log has them.
    pub target: Option<&'a [f64]>,
}

impl LogFingerprint {
    /// A log of propensities in `form`, rewards per `reward` and slates of
    /// `slate_len` items.
    pub fn new(form: &str, reward: &str, slate_len: u64) -> Self {
        let mut hash = Sha256::new();
        hash.update(b"rankeval-log-v1\0");
        write_bytes(&mut hash, form.as_bytes());
        write_bytes(&mut hash, reward.as_bytes());
        hash.update(slate_len.to_le_bytes());
        LogFingerprint {
            hash,
            last: None,
            ordered: true,
        }
    }

    /// Adds the next impression, in byte order of the ids.
    pub fn impression(&mut self, impression: LoggedImpression<'_>) {
        if self
            .last
            .as_deref()
            .is_some_and(|last| last >= impression.id)
        {
            self.ordered = false;
        }
        self.last = Some(impression.id.to_vec());
        let hash = &mut self.hash;
        write_bytes(hash, impression.id);
        write_bytes(hash, impression.context);
        hash.update((impression.items.len() as u64).to_le_bytes());
        for item in impression.items {
            write_bytes(hash, item);
        }
        write_numbers(hash, impression.rewards);
        write_numbers(hash, impression.propensities);
        match impression.target {
            Some(target) => {
                hash.update([1u8]);
                write_numbers(hash, target);
            }
            None => hash.update([0u8]),
        }
    }

    /// The SHA-256 of the normalised log, in lowercase hex; `None` when
    /// the impressions did not come in strictly increasing order of ids.
    pub fn finish(self) -> Option<String> {
        self.ordered.then(|| hex(&self.hash.finalize()))
    }
}

/// `numbers` as a count (a little-endian `u64`) then each number's bits,
/// `-0.0` as `0.0`.
fn write_numbers(hash: &mut Sha256, numbers: &[f64]) {
    hash.update((numbers.len() as u64).to_le_bytes());
    for &x in numbers {
        let x = if x == 0.0 { 0.0 } else { x };
        hash.update(x.to_bits().to_le_bytes());
    }
}

/// The fingerprint of a set of metric definitions: `(canonical name,
/// definition version)` pairs in any order (the module's definition).
pub fn definitions<'a>(metrics: impl IntoIterator<Item = (&'a str, u32)>) -> String {
    let mut metrics: Vec<(&str, u32)> = metrics.into_iter().collect();
    metrics.sort_unstable();
    let mut hash = Sha256::new();
    hash.update(b"rankeval-definitions-v1\0");
    for (name, version) in metrics {
        write_bytes(&mut hash, name.as_bytes());
        hash.update(version.to_le_bytes());
    }
    hex(&hash.finalize())
}

/// The SHA-256 of everything `reader` yields, in lowercase hex: a run or
/// experiment file's hash, as `sha256sum` prints it.
pub fn content_hash(mut reader: impl Read) -> std::io::Result<String> {
    let mut hash = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hash.update(buffer.get(..n).unwrap_or_default());
    }
    Ok(hex(&hash.finalize()))
}

/// The SHA-256 of `bytes` in lowercase hex.
pub fn bytes_hash(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// `bytes` as a length (a little-endian `u64`) then the bytes.
fn write_bytes(hash: &mut Sha256, bytes: &[u8]) {
    hash.update((bytes.len() as u64).to_le_bytes());
    hash.update(bytes);
}

/// Lowercase hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 15)]));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_hash_is_sha256() {
        // FIPS 180-4's example: SHA-256("abc").
        assert_eq!(
            content_hash(&b"abc"[..]).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(bytes_hash(b"abc"), content_hash(&b"abc"[..]).unwrap());
    }
}
