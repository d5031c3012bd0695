//! Mergeable aggregator states: an aggregate computed where the data is
//! split (a Spark job's partitions), with the bits of the whole column.
//!
//! Every [`Aggregator`](crate::Aggregator) can start a state
//! ([`Aggregator::state`](crate::Aggregator::state)), update it with the
//! values of one part of a column ([`Aggregator::update`](crate::Aggregator::update)),
//! send it as bytes ([`AggregateState::to_bytes`], [`AggregateState::from_bytes`]),
//! merge it with the states of the other parts ([`AggregateState::merge`])
//! and finish it ([`Aggregator::finish`](crate::Aggregator::finish)) into
//! exactly the bits [`Aggregator::aggregate`](crate::Aggregator::aggregate)
//! gives on the whole column, in any order of the parts and however the
//! column was split.
//!
//! A state is one of four kinds, each merging exactly:
//!
//! | kind | holds | used by |
//! |---|---|---|
//! | [`Values`](AggregateState::Values) | every `(query, value)` | the default: any aggregator, `ci` |
//! | [`Counts`](AggregateState::Counts) | the count of each distinct value | `median`, `std` |
//! | [`Sum`](AggregateState::Sum) | n and the exact sum of what was added | `mean`, `sum`, `gmean` (of logarithms) |
//! | [`Range`](AggregateState::Range) | n, the smallest and the largest value | `min`, `max` |
//!
//! The default keeps each value with its query id, and its finish sorts
//! them by id (the engine's query order: byte order of the ids) and calls
//! `aggregate`: an aggregator plugin that implements `aggregate` alone
//! gives on Spark the bits it gives on the command line, even one whose
//! result depends on the order of the values. An aggregator whose result
//! depends only on the values overrides [`Aggregator::state`](crate::Aggregator::state)
//! with a compact kind.
//!
//! ## Wire format (version 1)
//!
//! Every number little-endian; a float as its IEEE bits (`u64`).
//!
//! ```text
//! version: u8 = 1
//! kind:    u8   1 Values | 2 Counts | 3 Sum | 4 Range
//! Values:  n: u64, then n x (id length: u32, id bytes, value: f64), in any order
//! Counts:  d: u64, then d x (value: f64, count: u64), values by increasing
//!          bits, each once, counts positive
//! Sum:     n: u64, then the exact sum (rankeval_core::exact_sum::FullSum::write)
//! Range:   n: u64, min: f64, max: f64
//! ```
//!
//! [`AggregateState::from_bytes`] refuses anything else with an
//! [`AggregateStateError`], never a panic: bytes cut short, a version or a
//! kind it does not know, counts out of order, bytes left over.

use std::collections::BTreeMap;

use crate::exact_sum::FullSum;

/// The version of the wire format [`AggregateState::to_bytes`] writes.
pub const WIRE_VERSION: u8 = 1;

/// The wire tags of the kinds.
const VALUES: u8 = 1;
const COUNTS: u8 = 2;
const SUM: u8 = 3;
const RANGE: u8 = 4;

/// One aggregator's state over part of a column: see the [module
/// docs](self).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum AggregateState {
    /// Every value with its query id.
    Values(QueryValues),
    /// The count of each distinct value.
    Counts(ValueCounts),
    /// The number of values and the exact sum of what was added for them.
    Sum(SumState),
    /// The number of values, the smallest and the largest.
    Range(RangeState),
}

/// Why a state cannot be read, merged or finished.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AggregateStateError {
    /// The bytes end inside a field.
    #[error("an aggregator state's bytes end early (at byte {at})")]
    Truncated {
        /// Where the missing field starts.
        at: usize,
    },
    /// A wire format version this build does not read.
    #[error("aggregator state of wire version {0}; this build reads version {WIRE_VERSION}")]
    Version(u8),
    /// The kind byte names no kind.
    #[error("unknown aggregator state kind {0}")]
    UnknownKind(u8),
    /// A field holds a value the format does not allow.
    #[error("malformed aggregator state: {0}")]
    Malformed(&'static str),
    /// Bytes after the state.
    #[error("{0} bytes after the aggregator state")]
    Trailing(usize),
    /// Two states of different kinds (of two different aggregators).
    #[error("cannot merge a {theirs} state into a {mine} state")]
    KindMismatch {
        /// The kind of the state merged into.
        mine: &'static str,
        /// The kind of the other.
        theirs: &'static str,
    },
    /// A column of more values than this machine can hold.
    #[error("a column of {0} values is more than this machine can hold")]
    TooLarge(u64),
    /// An aggregator was given a state of a kind it does not finish.
    #[error("`{aggregator}` does not finish a {kind} state")]
    WrongKind {
        /// The aggregator's canonical name.
        aggregator: String,
        /// The state's kind.
        kind: &'static str,
    },
}

impl AggregateState {
    /// A [`Values`](Self::Values) state with no value: the default.
    pub fn values() -> Self {
        Self::Values(QueryValues::default())
    }

    /// A [`Counts`](Self::Counts) state with no value.
    pub fn counts() -> Self {
        Self::Counts(ValueCounts::default())
    }

    /// A [`Sum`](Self::Sum) state with no value.
    pub fn sum() -> Self {
        Self::Sum(SumState::default())
    }

    /// A [`Range`](Self::Range) state with no value.
    pub fn range() -> Self {
        Self::Range(RangeState::default())
    }

    /// The kind's name, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Values(_) => "values",
            Self::Counts(_) => "counts",
            Self::Sum(_) => "sum",
            Self::Range(_) => "range",
        }
    }

    /// Sees query `query`'s value `value` (what
    /// [`Aggregator::update`](crate::Aggregator::update) does by default).
    #[inline]
    pub fn add(&mut self, query: &[u8], value: f64) {
        match self {
            Self::Values(v) => v.add(query, value),
            Self::Counts(c) => c.add(value),
            Self::Sum(s) => s.add(value),
            Self::Range(r) => r.add(value),
        }
    }

    /// Adds `other`'s values to this state; an error (and this state
    /// unchanged) when `other` is of another kind.
    pub fn merge(&mut self, other: AggregateState) -> Result<(), AggregateStateError> {
        match (self, other) {
            (Self::Values(mine), Self::Values(theirs)) => mine.merge(theirs),
            (Self::Counts(mine), Self::Counts(theirs)) => mine.merge(&theirs),
            (Self::Sum(mine), Self::Sum(theirs)) => mine.merge(&theirs),
            (Self::Range(mine), Self::Range(theirs)) => mine.merge(&theirs),
            (mine, theirs) => {
                return Err(AggregateStateError::KindMismatch {
                    mine: mine.kind(),
                    theirs: theirs.kind(),
                });
            }
        }
        Ok(())
    }

    /// The number of values seen.
    pub fn len(&self) -> u64 {
        match self {
            Self::Values(v) => v.entries.len() as u64,
            Self::Counts(c) => c.n,
            Self::Sum(s) => s.n,
            Self::Range(r) => r.n,
        }
    }

    /// Whether no value was seen.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The whole column of a [`Values`](Self::Values) state (sorted by
    /// query id, the engine's order) or of a [`Counts`](Self::Counts)
    /// state (in IEEE total order); `None` for the kinds that keep no
    /// values (or too many to hold). What the default
    /// [`Aggregator::finish`](crate::Aggregator::finish) aggregates.
    pub fn into_column(self) -> Option<Result<Vec<f64>, AggregateStateError>> {
        match self {
            Self::Values(v) => Some(Ok(v.into_column())),
            Self::Counts(c) => Some(c.into_column()),
            Self::Sum(_) | Self::Range(_) => None,
        }
    }

    /// The state as bytes ([module docs](self#wire-format-version-1)); the
    /// same state gives the same bytes (a `Values` state's in the order
    /// its values were added).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![WIRE_VERSION];
        match self {
            Self::Values(v) => {
                out.push(VALUES);
                out.extend_from_slice(&(v.entries.len() as u64).to_le_bytes());
                for (query, value) in &v.entries {
                    out.extend_from_slice(&(query.len() as u32).to_le_bytes());
                    out.extend_from_slice(query);
                    out.extend_from_slice(&value.to_bits().to_le_bytes());
                }
            }
            Self::Counts(c) => {
                out.push(COUNTS);
                out.extend_from_slice(&(c.counts.len() as u64).to_le_bytes());
                for (bits, count) in &c.counts {
                    out.extend_from_slice(&bits.to_le_bytes());
                    out.extend_from_slice(&count.to_le_bytes());
                }
            }
            Self::Sum(s) => {
                out.push(SUM);
                out.extend_from_slice(&s.n.to_le_bytes());
                s.sum.write(&mut out);
            }
            Self::Range(r) => {
                out.push(RANGE);
                out.extend_from_slice(&r.n.to_le_bytes());
                out.extend_from_slice(&r.min.to_bits().to_le_bytes());
                out.extend_from_slice(&r.max.to_bits().to_le_bytes());
            }
        }
        out
    }

    /// A state from [`to_bytes`](Self::to_bytes)'s bytes; an error for
    /// anything else.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, AggregateStateError> {
        let mut r = Reader { bytes, at: 0 };
        let version = r.u8()?;
        if version != WIRE_VERSION {
            return Err(AggregateStateError::Version(version));
        }
        let state = match r.u8()? {
            VALUES => {
                let n = r.u64()?;
                // Each entry takes at least 12 bytes: no allocation beyond
                // what the bytes can hold.
                let mut entries = Vec::with_capacity(r.capacity(n, 12));
                for _ in 0..n {
                    let len = r.u32()? as usize;
                    let query: Box<[u8]> = r.take(len)?.into();
                    entries.push((query, r.f64()?));
                }
                Self::Values(QueryValues { entries })
            }
            COUNTS => {
                let d = r.u64()?;
                let mut counts = BTreeMap::new();
                let mut n: u64 = 0;
                let mut last: Option<u64> = None;
                for _ in 0..d {
                    let bits = r.u64()?;
                    let count = r.u64()?;
                    if last.is_some_and(|l| l >= bits) {
                        return Err(AggregateStateError::Malformed(
                            "counted values out of order or repeated",
                        ));
                    }
                    if count == 0 {
                        return Err(AggregateStateError::Malformed("a value counted 0 times"));
                    }
                    n = n
                        .checked_add(count)
                        .ok_or(AggregateStateError::Malformed("counts beyond 2^64"))?;
                    last = Some(bits);
                    counts.insert(bits, count);
                }
                Self::Counts(ValueCounts { counts, n })
            }
            SUM => {
                let n = r.u64()?;
                let at = r.at;
                let (sum, used) = FullSum::read(&bytes[at..])
                    .ok_or(AggregateStateError::Malformed("not an exact sum"))?;
                r.at += used;
                Self::Sum(SumState { n, sum })
            }
            RANGE => {
                let n = r.u64()?;
                let (min, max) = (r.f64()?, r.f64()?);
                if n == 0 && !(min.is_nan() && max.is_nan()) {
                    return Err(AggregateStateError::Malformed("a range of no value"));
                }
                Self::Range(RangeState { n, min, max })
            }
            kind => return Err(AggregateStateError::UnknownKind(kind)),
        };
        match bytes.len() - r.at {
            0 => Ok(state),
            extra => Err(AggregateStateError::Trailing(extra)),
        }
    }
}

/// Every value seen with its query id: the default state, exact for any
/// aggregate.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueryValues {
    /// `(query id, value)`, in the order seen.
    entries: Vec<(Box<[u8]>, f64)>,
}

impl QueryValues {
    /// Sees query `query`'s value.
    pub fn add(&mut self, query: &[u8], value: f64) {
        self.entries.push((query.into(), value));
    }

    /// Adds `other`'s values.
    pub fn merge(&mut self, mut other: QueryValues) {
        self.entries.append(&mut other.entries);
    }

    /// The values sorted by query id (byte order, the engine's), a query
    /// seen twice by its values' bits.
    pub fn into_column(mut self) -> Vec<f64> {
        self.entries
            .sort_unstable_by(|(qa, a), (qb, b)| qa.cmp(qb).then(a.to_bits().cmp(&b.to_bits())));
        self.entries.into_iter().map(|(_, v)| v).collect()
    }
}

/// The count of each distinct value (by its bits: `-0.0` and `0.0` apart,
/// each NaN payload apart): the multiset of the values, for an aggregate
/// that does not depend on their order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValueCounts {
    /// Value bits -> count.
    counts: BTreeMap<u64, u64>,
    /// The number of values.
    n: u64,
}

impl ValueCounts {
    /// Sees one value.
    pub fn add(&mut self, value: f64) {
        *self.counts.entry(value.to_bits()).or_insert(0) += 1;
        self.n += 1;
    }

    /// Adds `other`'s values.
    pub fn merge(&mut self, other: &ValueCounts) {
        for (&bits, &count) in &other.counts {
            *self.counts.entry(bits).or_insert(0) += count;
        }
        self.n += other.n;
    }

    /// The number of distinct values.
    pub fn distinct(&self) -> usize {
        self.counts.len()
    }

    /// Every value, as often as it was seen, in IEEE total order
    /// (`f64::total_cmp`); an error rather than an abort when they do not
    /// fit in memory (counts read from bytes can claim any number).
    pub fn into_column(self) -> Result<Vec<f64>, AggregateStateError> {
        let mut out = Vec::new();
        usize::try_from(self.n)
            .ok()
            .and_then(|n| out.try_reserve_exact(n).ok())
            .ok_or(AggregateStateError::TooLarge(self.n))?;
        let mut distinct: Vec<(f64, u64)> = self
            .counts
            .into_iter()
            .map(|(bits, count)| (f64::from_bits(bits), count))
            .collect();
        distinct.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (value, count) in distinct {
            // Within the capacity reserved: the counts sum to `n`.
            out.extend(std::iter::repeat_n(value, count as usize));
        }
        Ok(out)
    }
}

/// The number of values and the exact sum of what was added for them (the
/// values, or a function of each, as `gmean` adds logarithms).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SumState {
    /// The number of values.
    pub n: u64,
    /// Their exact sum.
    pub sum: FullSum,
}

impl SumState {
    /// Sees one value, adding `term` (the value or a function of it).
    pub fn add(&mut self, term: f64) {
        self.n += 1;
        self.sum.add(term);
    }

    /// Adds `other`'s values.
    pub fn merge(&mut self, other: &SumState) {
        self.n += other.n;
        self.sum.merge(&other.sum);
    }
}

/// The number of values, the smallest and the largest, NaN skipped (NaN
/// when every value is NaN or there is none), by [`smaller`] and
/// [`larger`], which do not depend on the order of the values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RangeState {
    /// The number of values.
    pub n: u64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

impl Default for RangeState {
    fn default() -> Self {
        Self {
            n: 0,
            min: f64::NAN,
            max: f64::NAN,
        }
    }
}

impl RangeState {
    /// Sees one value.
    pub fn add(&mut self, value: f64) {
        self.n += 1;
        self.min = smaller(self.min, value);
        self.max = larger(self.max, value);
    }

    /// Adds `other`'s values.
    pub fn merge(&mut self, other: &RangeState) {
        self.n += other.n;
        self.min = smaller(self.min, other.min);
        self.max = larger(self.max, other.max);
    }
}

/// The smaller of `a` and `b`, NaN skipped (the other returned), `-0.0`
/// smaller than `0.0`: the same result in either order, which
/// `f64::min` does not promise for zeros of two signs.
///
/// ```
/// use rankeval_core::aggregate_state::smaller;
/// assert_eq!(smaller(0.5, f64::NAN), 0.5);
/// assert!(smaller(0.0, -0.0).is_sign_negative() && smaller(-0.0, 0.0).is_sign_negative());
/// ```
#[inline]
pub fn smaller(a: f64, b: f64) -> f64 {
    if a.is_nan() || b < a || (b == a && b.is_sign_negative()) {
        b
    } else {
        a
    }
}

/// The larger of `a` and `b`, NaN skipped, `0.0` larger than `-0.0`, in
/// either order (see [`smaller`]).
#[inline]
pub fn larger(a: f64, b: f64) -> f64 {
    if a.is_nan() || b > a || (b == a && b.is_sign_positive()) {
        b
    } else {
        a
    }
}

/// Reads the wire's fields in order.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], AggregateStateError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or(AggregateStateError::Truncated { at: self.at })?;
        let field = &self.bytes[self.at..end];
        self.at = end;
        Ok(field)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], AggregateStateError> {
        let at = self.at;
        self.take(N)?
            .try_into()
            .map_err(|_| AggregateStateError::Truncated { at })
    }

    fn u8(&mut self) -> Result<u8, AggregateStateError> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, AggregateStateError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, AggregateStateError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn f64(&mut self) -> Result<f64, AggregateStateError> {
        Ok(f64::from_bits(self.u64()?))
    }

    /// How many of `n` entries of at least `size` bytes the rest can hold.
    fn capacity(&self, n: u64, size: usize) -> usize {
        let rest = (self.bytes.len() - self.at) / size;
        usize::try_from(n).map_or(rest, |n| n.min(rest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Aggregator;

    /// An aggregator that depends on the order of its values (a plain
    /// left-to-right sum, then the first value times 1e-3), with the
    /// default state: finish must see the engine's order.
    #[derive(Debug, serde::Serialize, serde::Deserialize)]
    struct InOrder;

    #[typetag::serde(name = "test_in_order")]
    impl Aggregator for InOrder {
        fn name(&self) -> String {
            "test_in_order".to_owned()
        }
        fn aggregate(&self, per_query: &[f64]) -> f64 {
            let plain: f64 = per_query.iter().sum();
            plain + per_query.first().map_or(0.0, |x| x * 1e-3)
        }
    }

    /// A deterministic value generator (no randomness crate in core).
    fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut state = seed;
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                match state >> 60 {
                    0 => 0.0,
                    1 => -0.0,
                    2 => 1e300,
                    3 => f64::MAX / 3.0,
                    4 => 0.5,
                    _ => (state >> 11) as f64 / (1u64 << 53) as f64 * 10.0 - 5.0,
                }
            })
            .collect()
    }

    /// Query ids whose byte order is not their index order.
    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("q{}", (i * 7919) % 1009)).collect()
    }

    /// `kind`'s state of every value, each in `parts` parts (query `i` in
    /// part `i % parts`), each part sent as bytes and merged in reverse.
    fn split(
        start: impl Fn() -> AggregateState,
        ids: &[String],
        column: &[f64],
        parts: usize,
    ) -> AggregateState {
        let mut states: Vec<AggregateState> = (0..parts).map(|_| start()).collect();
        for (i, (id, &v)) in ids.iter().zip(column).enumerate() {
            states[i % parts].add(id.as_bytes(), v);
        }
        let mut merged = start();
        for state in states.iter().rev() {
            let bytes = state.to_bytes();
            let back = AggregateState::from_bytes(&bytes).expect("round trip");
            assert_eq!(back.to_bytes(), bytes);
            merged.merge(back).expect("same kind");
        }
        merged
    }

    #[test]
    fn every_kind_round_trips_through_bytes() {
        let column = values(200, 1);
        let ids = ids(200);
        for start in [
            AggregateState::values,
            AggregateState::counts,
            AggregateState::sum,
            AggregateState::range,
        ] {
            let empty = start().to_bytes();
            let back = AggregateState::from_bytes(&empty).expect("round trip");
            assert_eq!((back.to_bytes(), back.len()), (empty, 0));
            let mut state = start();
            for (id, &v) in ids.iter().zip(&column) {
                state.add(id.as_bytes(), v);
            }
            state.add(b"nan", f64::NAN);
            state.add(b"inf", f64::NEG_INFINITY);
            let bytes = state.to_bytes();
            assert_eq!(bytes[0], WIRE_VERSION);
            let back = AggregateState::from_bytes(&bytes).expect("round trip");
            // NaN != NaN: compare the bytes again.
            assert_eq!(back.to_bytes(), bytes, "{}", state.kind());
            assert_eq!(back.len(), 202);
        }
    }

    #[test]
    fn any_partition_merges_to_the_whole() {
        let column = values(500, 2);
        let ids = ids(500);
        let mut in_order: Vec<(&String, f64)> = ids.iter().zip(column.iter().copied()).collect();
        in_order.sort_by(|a, b| a.0.cmp(b.0));
        let engine_order: Vec<f64> = in_order.iter().map(|(_, v)| *v).collect();
        let want = InOrder.aggregate(&engine_order);
        let mut multiset = column.clone();
        multiset.sort_by(f64::total_cmp);
        let whole_sum = crate::exact_sum::fsum(column.iter().copied());
        for parts in [1, 2, 3, 8, 499, 500] {
            let merged = split(AggregateState::values, &ids, &column, parts);
            assert_eq!(
                InOrder.finish(merged).expect("values").to_bits(),
                want.to_bits(),
                "{parts}"
            );
            let counts = split(AggregateState::counts, &ids, &column, parts);
            let got = counts
                .into_column()
                .expect("counts keep values")
                .expect("fits");
            assert_eq!(
                got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                multiset.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
            let AggregateState::Sum(sum) = split(AggregateState::sum, &ids, &column, parts) else {
                panic!("a sum");
            };
            assert_eq!(
                (sum.n, sum.sum.value().to_bits()),
                (500, whole_sum.to_bits())
            );
            let AggregateState::Range(range) = split(AggregateState::range, &ids, &column, parts)
            else {
                panic!("a range");
            };
            let min = column.iter().copied().fold(f64::NAN, smaller);
            let max = column.iter().copied().fold(f64::NAN, larger);
            assert_eq!(
                (range.min.to_bits(), range.max.to_bits()),
                (min.to_bits(), max.to_bits())
            );
        }
    }

    #[test]
    fn the_default_finish_is_aggregate_in_query_order() {
        let mut state = InOrder.state();
        for (query, value) in [("b", 1e16), ("a", 1.0), ("c", -1e16)] {
            InOrder.update(&mut state, query.as_bytes(), value);
        }
        let want = InOrder.aggregate(&[1.0, 1e16, -1e16]);
        assert_ne!(
            want,
            InOrder.aggregate(&[1e16, 1.0, -1e16]),
            "order matters here"
        );
        assert_eq!(InOrder.finish(state).expect("values"), want);
        let error = InOrder
            .finish(AggregateState::sum())
            .expect_err("a sum keeps no values");
        assert!(error.to_string().contains("test_in_order"), "{error}");
    }

    #[test]
    fn smaller_and_larger_do_not_depend_on_the_order() {
        for (a, b) in [
            (0.0, -0.0),
            (1.0, f64::NAN),
            (-2.0, 3.0),
            (f64::NEG_INFINITY, 0.0),
        ] {
            assert_eq!(smaller(a, b).to_bits(), smaller(b, a).to_bits(), "{a} {b}");
            assert_eq!(larger(a, b).to_bits(), larger(b, a).to_bits(), "{a} {b}");
        }
        assert!(smaller(f64::NAN, f64::NAN).is_nan());
        assert_eq!(larger(-0.0, 0.0).to_bits(), 0.0f64.to_bits());
    }

    #[test]
    fn malformed_bytes_are_refused_not_a_panic() {
        let mut state = AggregateState::values();
        state.add(b"q1", 0.5);
        let mut counts = AggregateState::counts();
        counts.add(b"", 0.5);
        counts.add(b"", 0.25);
        let mut sum = AggregateState::sum();
        sum.add(b"", 1e300);
        sum.add(b"", 1.0);
        for good in [
            state.to_bytes(),
            counts.to_bytes(),
            sum.to_bytes(),
            AggregateState::range().to_bytes(),
        ] {
            // Every cut short is refused.
            for end in 0..good.len() {
                assert!(
                    AggregateState::from_bytes(&good[..end]).is_err(),
                    "{end} of {good:?}"
                );
            }
            let mut longer = good.clone();
            longer.push(0);
            assert_eq!(
                AggregateState::from_bytes(&longer),
                Err(AggregateStateError::Trailing(1))
            );
        }
        let error = |bytes: &[u8]| AggregateState::from_bytes(bytes).expect_err("refused");
        assert_eq!(error(&[2, VALUES]), AggregateStateError::Version(2));
        assert_eq!(error(&[1, 9]), AggregateStateError::UnknownKind(9));
        // A count of entries far beyond the bytes: no huge allocation.
        let mut huge = vec![1, VALUES];
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(
            error(&huge),
            AggregateStateError::Truncated { .. }
        ));
        // Counts out of order, repeated or zero.
        let entry = |bits: u64, count: u64| [bits.to_le_bytes(), count.to_le_bytes()].concat();
        let counted = |entries: &[Vec<u8>]| {
            let mut out = vec![1, COUNTS];
            out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
            for e in entries {
                out.extend_from_slice(e);
            }
            out
        };
        assert!(AggregateState::from_bytes(&counted(&[entry(1, 1), entry(2, 3)])).is_ok());
        for bad in [
            counted(&[entry(2, 1), entry(1, 1)]),
            counted(&[entry(1, 1), entry(1, 1)]),
            counted(&[entry(1, 0)]),
            counted(&[entry(1, u64::MAX), entry(2, 1)]),
        ] {
            assert!(
                matches!(error(&bad), AggregateStateError::Malformed(_)),
                "{bad:?}"
            );
        }
        // More values than memory holds: an error at finish, not an abort.
        let too_many =
            AggregateState::from_bytes(&counted(&[entry(1, u64::MAX)])).expect("well formed");
        assert!(matches!(
            too_many.into_column(),
            Some(Err(AggregateStateError::TooLarge(_)))
        ));
        // A range of no value with a value.
        let mut range = vec![1, RANGE];
        range.extend_from_slice(&0u64.to_le_bytes());
        range.extend_from_slice(&0.5f64.to_bits().to_le_bytes());
        range.extend_from_slice(&f64::NAN.to_bits().to_le_bytes());
        assert!(matches!(error(&range), AggregateStateError::Malformed(_)));
        // A sum of an unknown form.
        let mut form = vec![1, SUM];
        form.extend_from_slice(&0u64.to_le_bytes());
        form.push(7);
        assert!(matches!(error(&form), AggregateStateError::Malformed(_)));
        // States of two kinds do not merge.
        let mut values = AggregateState::values();
        assert!(matches!(
            values.merge(AggregateState::sum()),
            Err(AggregateStateError::KindMismatch {
                mine: "values",
                theirs: "sum"
            })
        ));
    }
}
