//! The `CorpusMetric` trait: one number for a whole run, not per query.
//!
//! Beyond-accuracy metrics of recommender systems (catalog coverage, Gini
//! index, novelty, ...) look at what a system recommends across all its
//! lists, so they do not fit [`Metric`](crate::Metric) (one query) nor
//! [`Aggregator`](crate::Aggregator) (one column of per-query values). A
//! corpus metric instead keeps a **state** that sees each ranked list once
//! (`update`), that two parts of the data can **merge**, and that gives one
//! value at the end (`finish`):
//!
//! ```text
//! init -> update(list 1) -> update(list 2) ...  \
//!                                                 merge -> ... -> finish
//! init -> update(list 7) -> update(list 8) ...  /
//! ```
//!
//! so a run can be split across threads (or machines) and merged. The
//! result must not depend on how the lists were split: `merge` must be
//! associative and commutative **to the bit**. Integer counts are; sums of
//! floats are not, so each list's float is kept ([`PerList`]) and summed
//! exactly (correctly rounded, [`fsum`](crate::exact_sum::fsum)) at
//! `finish`, in no particular order. Item counts ([`ItemCounts`]) merge
//! exactly.
//!
//! To cross machines (Spark's workers to its driver), a state goes to
//! bytes and back ([`CorpusMetric::state_to_bytes`],
//! [`CorpusMetric::state_from_bytes`]): the two built-in states have a
//! wire format ([`encode_state`], [`decode_state`]), so every metric built
//! on them merges across machines with the bits of one pass.

use std::any::Any;
use std::fmt;

use std::collections::{HashMap, HashSet};

use crate::params::Cutoff;

/// What a corpus metric may read besides the run: the catalog, the
/// training interactions and item features. Every input is optional; a
/// metric says which it needs in [`CorpusMetric::requires`], and the engine
/// refuses to start without them.
#[derive(Clone, Debug, Default)]
pub struct CorpusInputs {
    /// Every item that could be recommended (its size is coverage's
    /// denominator).
    pub catalog: Option<Catalog>,
    /// Training interactions, summarized: per item, how many distinct users
    /// interacted with it; and the number of distinct users.
    pub training: Option<Training>,
    /// A vector of numbers per item (features or an embedding), for
    /// distances between items.
    pub features: Option<ItemFeatures>,
}

/// The catalog: every item that could be recommended, each once.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    items: HashSet<Box<[u8]>>,
}

impl Catalog {
    /// The catalog of `items`; an item given twice counts once.
    pub fn new<I: AsRef<[u8]>>(items: impl IntoIterator<Item = I>) -> Self {
        Catalog {
            items: items.into_iter().map(|i| i.as_ref().into()).collect(),
        }
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the catalog has no item.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether `item` is in the catalog.
    pub fn contains(&self, item: &[u8]) -> bool {
        self.items.contains(item)
    }
}

/// One vector of numbers per item, all of one dimension: item features
/// (one-hot categories, tags) or an embedding.
#[derive(Clone, Debug, Default)]
pub struct ItemFeatures {
    dimension: usize,
    rows: HashMap<Box<[u8]>, usize>,
    values: Vec<f64>,
}

impl ItemFeatures {
    /// Features of `dimension` numbers per item.
    pub fn new(dimension: usize) -> Self {
        ItemFeatures {
            dimension,
            rows: HashMap::new(),
            values: Vec::new(),
        }
    }

    /// Adds `item`'s vector; refuses (returning the vector's length) a
    /// vector of another dimension, and an item given before (returning
    /// `Ok(false)`).
    pub fn insert(&mut self, item: &[u8], vector: &[f64]) -> Result<bool, usize> {
        if vector.len() != self.dimension {
            return Err(vector.len());
        }
        if self.rows.contains_key(item) {
            return Ok(false);
        }
        self.rows.insert(item.into(), self.rows.len());
        self.values.extend_from_slice(vector);
        Ok(true)
    }

    /// The number of numbers per item.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// The number of items with a vector.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no item has a vector.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// `item`'s vector, if it has one.
    pub fn get(&self, item: &[u8]) -> Option<&[f64]> {
        let row = *self.rows.get(item)?;
        self.values
            .get(row * self.dimension..(row + 1) * self.dimension)
    }
}

/// Training interactions, summarized per item.
#[derive(Clone, Debug, Default)]
pub struct Training {
    /// Per item, the number of distinct users who interacted with it.
    pub users_per_item: HashMap<Box<[u8]>, u64>,
    /// The number of distinct users in the interactions.
    pub users: u64,
    /// Per item, its place in the popularity order (most popular first,
    /// ties by item id), for the head / long-tail split.
    popularity_rank: HashMap<Box<[u8]>, usize>,
    /// `cumulative[r]`: the interactions of the `r + 1` most popular items.
    cumulative: Vec<u64>,
}

impl Training {
    /// Summarizes `(user, item)` interactions; a repeated pair counts once.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a [u8], &'a [u8])>) -> Self {
        let mut seen: HashSet<Pair> = HashSet::new();
        let mut users: HashSet<Box<[u8]>> = HashSet::new();
        let mut users_per_item: HashMap<Box<[u8]>, u64> = HashMap::new();
        for (user, item) in pairs {
            if seen.insert((user.into(), item.into())) {
                users.insert(user.into());
                *users_per_item.entry(item.into()).or_insert(0) += 1;
            }
        }
        let mut order: Vec<(&Box<[u8]>, u64)> =
            users_per_item.iter().map(|(i, &c)| (i, c)).collect();
        order.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        let mut total = 0;
        let cumulative = order
            .iter()
            .map(|&(_, c)| {
                total += c;
                total
            })
            .collect();
        let popularity_rank = order
            .iter()
            .enumerate()
            .map(|(r, (i, _))| ((*i).clone(), r))
            .collect();
        Training {
            users_per_item,
            users: users.len() as u64,
            popularity_rank,
            cumulative,
        }
    }

    /// How many users interacted with `item` (0 if none).
    pub fn users_of(&self, item: &[u8]) -> u64 {
        self.users_per_item.get(item).copied().unwrap_or(0)
    }

    /// The number of distinct `(user, item)` interactions.
    pub fn interactions(&self) -> u64 {
        self.cumulative.last().copied().unwrap_or(0)
    }

    /// How many items make the head for `head_share` (Elliot's
    /// `pop_ratio`): the most popular items, taken one by one (ties by item
    /// id), until they hold at least `head_share` of the interactions.
    pub fn head_len(&self, head_share: f64) -> usize {
        let limit = self.interactions() as f64 * head_share;
        if limit <= 0.0 {
            // Elliot takes the first item before it checks the limit.
            return self.cumulative.len().min(1);
        }
        let below = self.cumulative.partition_point(|&sum| (sum as f64) < limit);
        (below + 1).min(self.cumulative.len())
    }

    /// Whether `item` is in the long tail for a head of `head_len` items:
    /// a training item outside the head. An item nobody interacted with is
    /// in neither (as in Elliot, whose items are the training items).
    pub fn in_long_tail(&self, item: &[u8], head_len: usize) -> bool {
        self.popularity_rank
            .get(item)
            .is_some_and(|&rank| rank >= head_len)
    }
}

/// A `(user, item)` interaction.
type Pair = (Box<[u8]>, Box<[u8]>);

/// Which inputs a corpus metric needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Requires {
    /// The catalog of items.
    pub catalog: bool,
    /// Training interactions.
    pub training: bool,
    /// Item features or embeddings.
    pub features: bool,
}

/// A corpus metric's state, owned by the metric that made it (it
/// downcasts it).
pub type CorpusState = Box<dyn Any + Send>;

/// One metric over a whole run: init, update per ranked list, merge,
/// finish. See the [module docs](self) for the determinism contract.
///
/// Register the impl with
/// [`#[rankeval_core::corpus_metric(...)]`](macro@crate::corpus_metric), as a
/// [`Metric`](crate::Metric).
#[typetag::serde(tag = "type")]
pub trait CorpusMetric: Send + Sync + fmt::Debug {
    /// The canonical name, as [`Metric::name`](crate::Metric::name).
    fn name(&self) -> String;

    /// The deepest rank this metric reads (`None`: the whole list).
    fn depth(&self) -> Option<Cutoff> {
        None
    }

    /// The inputs it needs besides the run. Default: none.
    fn requires(&self) -> Requires {
        Requires::default()
    }

    /// Checks the parameters together. Default: accept.
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }

    /// A state that has seen no list.
    fn init(&self) -> CorpusState;

    /// Sees one ranked list: its item ids, best first, cut at
    /// [`depth`](Self::depth); `position` is the list's place in the run
    /// (0, 1, ...), unique per list.
    fn update(&self, state: &mut CorpusState, position: u64, list: &[&[u8]], inputs: &CorpusInputs);

    /// Adds `other`'s lists to `state`.
    fn merge(&self, state: &mut CorpusState, other: CorpusState);

    /// The value over every list seen.
    fn finish(&self, state: CorpusState, inputs: &CorpusInputs) -> f64;

    /// The state as bytes, to merge on another machine; `None` if this
    /// metric's state has no wire format. Default: [`encode_state`] (the
    /// built-in states, [`ItemCounts`] and [`PerList`]).
    fn state_to_bytes(&self, state: &CorpusState) -> Option<Vec<u8>> {
        encode_state(state)
    }

    /// A state from [`state_to_bytes`](Self::state_to_bytes)'s bytes.
    /// Default: [`decode_state_like`] with this metric's [`init`](Self::init)
    /// (bytes of another kind of state are refused, not merged).
    fn state_from_bytes(&self, bytes: &[u8]) -> Result<CorpusState, StateWireError> {
        decode_state_like(&self.init(), bytes)
    }
}

/// Why bytes are not a state: a corpus metric's, or another mergeable
/// state that uses this wire machinery ([`WireReader`], [`STATE_TAGS`]),
/// such as an off-policy estimator's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StateWireError {
    /// The bytes end inside a field.
    #[error("a state's bytes end early (at byte {at})")]
    Truncated {
        /// Where the missing field starts.
        at: usize,
    },
    /// The first byte names no known state.
    #[error("unknown state kind {0}")]
    UnknownKind(u8),
    /// Bytes after the state.
    #[error("{0} bytes after the state")]
    Trailing(usize),
    /// A versioned state's wire version that this build does not read.
    #[error("{kind} of wire version {found}; this build reads version {reads}")]
    Version {
        /// The state's kind.
        kind: &'static str,
        /// The version the bytes hold.
        found: u8,
        /// The version this build reads.
        reads: u8,
    },
    /// A field holds a value the format does not allow (a NaN or infinite
    /// sum, a count beyond another, a name that is not UTF-8).
    #[error("malformed {kind}: {problem}")]
    Malformed {
        /// The state's kind.
        kind: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// The bytes hold another kind of state than the metric keeps (bytes
    /// of another metric's state).
    #[error("the bytes hold {found}, where this metric keeps {expected}")]
    WrongKind {
        /// The kind this metric keeps.
        expected: &'static str,
        /// The kind the bytes hold.
        found: &'static str,
    },
}

/// The wire tag of [`ItemCounts`].
const ITEM_COUNTS: u8 = 1;
/// The wire tag of [`PerList`].
const PER_LIST: u8 = 2;
/// The wire tag of an off-policy estimator's state (`rankeval_ope::State`,
/// whose crate writes and reads it with [`WireReader`]).
pub const OPE_ESTIMATOR: u8 = 3;

/// Every state wire's first byte and its kind's name: one tag per kind,
/// in one place, so bytes of one kind are never read as another's (a
/// reader of one kind finds the other's name here for its
/// [`StateWireError::WrongKind`]).
pub const STATE_TAGS: [(u8, &str); 3] = [
    (ITEM_COUNTS, "item counts"),
    (PER_LIST, "per-list values"),
    (OPE_ESTIMATOR, "an off-policy estimator state"),
];

/// The kind's name of a state wire's first byte, if it names one.
pub fn tag_kind(tag: u8) -> Option<&'static str> {
    STATE_TAGS.iter().find(|(t, _)| *t == tag).map(|(_, k)| *k)
}

/// A built-in state as bytes: a tag, then little-endian fields. Item
/// counts: the number of lists, the number of items, then each item (by
/// id) as its length (`u32`), its bytes and its count (`u64`). Per-list
/// values: their number, then each list's position (`u64`) and value (the
/// `f64`'s bits). The same state gives the same bytes. `None` for any
/// other state type.
pub fn encode_state(state: &CorpusState) -> Option<Vec<u8>> {
    if let Some(counts) = state.downcast_ref::<ItemCounts>() {
        let sorted = counts.sorted();
        let mut out =
            Vec::with_capacity(17 + sorted.iter().map(|(i, _)| i.len() + 12).sum::<usize>());
        out.push(ITEM_COUNTS);
        out.extend_from_slice(&counts.lists.to_le_bytes());
        out.extend_from_slice(&(sorted.len() as u64).to_le_bytes());
        for (item, count) in sorted {
            out.extend_from_slice(&(item.len() as u32).to_le_bytes());
            out.extend_from_slice(item);
            out.extend_from_slice(&count.to_le_bytes());
        }
        Some(out)
    } else if let Some(per_list) = state.downcast_ref::<PerList>() {
        let mut out = Vec::with_capacity(9 + 16 * per_list.values.len());
        out.push(PER_LIST);
        out.extend_from_slice(&(per_list.values.len() as u64).to_le_bytes());
        for &(position, value) in &per_list.values {
            out.extend_from_slice(&position.to_le_bytes());
            out.extend_from_slice(&value.to_bits().to_le_bytes());
        }
        Some(out)
    } else {
        None
    }
}

/// A state from [`encode_state`]'s bytes.
pub fn decode_state(bytes: &[u8]) -> Result<CorpusState, StateWireError> {
    let mut reader = WireReader::new(bytes);
    let state: CorpusState = match reader.take(1)?[0] {
        ITEM_COUNTS => {
            let lists = reader.u64()?;
            let items = reader.u64()?;
            let mut counts = HashMap::new();
            for _ in 0..items {
                let len = u32::from_le_bytes(reader.array()?) as usize;
                let item: Box<[u8]> = reader.take(len)?.into();
                counts.insert(item, reader.u64()?);
            }
            Box::new(ItemCounts { counts, lists })
        }
        PER_LIST => {
            let n = reader.u64()?;
            let mut values = Vec::new();
            for _ in 0..n {
                let position = reader.u64()?;
                values.push((position, f64::from_bits(reader.u64()?)));
            }
            Box::new(PerList { values })
        }
        kind => {
            return Err(match tag_kind(kind) {
                Some(found) => StateWireError::WrongKind {
                    expected: "a corpus metric's state",
                    found,
                },
                None => StateWireError::UnknownKind(kind),
            });
        }
    };
    reader.finish()?;
    Ok(state)
}

/// A state from [`encode_state`]'s bytes that must be of the same kind as
/// `like` (a metric's own `init()`): merging a state of another kind would
/// be a type confusion, so bytes from another metric are an error here, not
/// a panic in `merge`.
pub fn decode_state_like(like: &CorpusState, bytes: &[u8]) -> Result<CorpusState, StateWireError> {
    let state = decode_state(bytes)?;
    let (expected, found) = (state_kind(like), state_kind(&state));
    if expected == found {
        Ok(state)
    } else {
        Err(StateWireError::WrongKind { expected, found })
    }
}

/// A built-in state's name in messages; "another state" for any other.
fn state_kind(state: &CorpusState) -> &'static str {
    if state.is::<ItemCounts>() {
        "item counts"
    } else if state.is::<PerList>() {
        "per-list values"
    } else {
        "another state"
    }
}

/// Reads a state wire's fields in order ([`encode_state`]'s, and those
/// of the other mergeable states of [`STATE_TAGS`]): every number
/// little-endian, a float as its bits; bytes cut short are
/// [`StateWireError::Truncated`], never a panic.
pub struct WireReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> WireReader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    /// Where the next field starts.
    pub fn position(&self) -> usize {
        self.at
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], StateWireError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or(StateWireError::Truncated { at: self.at })?;
        let field = &self.bytes[self.at..end];
        self.at = end;
        Ok(field)
    }

    /// The next `N` bytes as an array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], StateWireError> {
        let at = self.at;
        self.take(N)?
            .try_into()
            .map_err(|_| StateWireError::Truncated { at })
    }

    /// The next byte.
    pub fn u8(&mut self) -> Result<u8, StateWireError> {
        Ok(self.take(1)?[0])
    }

    /// The next `u32`.
    pub fn u32(&mut self) -> Result<u32, StateWireError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// The next `u64`.
    pub fn u64(&mut self) -> Result<u64, StateWireError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// The next `f64` (any bits: the caller checks the value).
    pub fn f64(&mut self) -> Result<f64, StateWireError> {
        Ok(f64::from_bits(self.u64()?))
    }

    /// The next exact sum ([`FullSum::write`](crate::exact_sum::FullSum::write)'s
    /// bytes); `kind` names the state in the error when they are not one.
    pub fn full_sum(
        &mut self,
        kind: &'static str,
    ) -> Result<crate::exact_sum::FullSum, StateWireError> {
        let at = self.at;
        let rest = self.bytes.get(at..).unwrap_or_default();
        let (sum, used) =
            crate::exact_sum::FullSum::read(rest).ok_or_else(|| StateWireError::Malformed {
                kind,
                problem: format!("no exact sum at byte {at} (an unknown form, or cut short)"),
            })?;
        self.take(used)?;
        Ok(sum)
    }

    /// Ok when every byte was read, else [`StateWireError::Trailing`].
    pub fn finish(&self) -> Result<(), StateWireError> {
        match self.bytes.len() - self.at {
            0 => Ok(()),
            extra => Err(StateWireError::Trailing(extra)),
        }
    }
}

/// How many times each item was recommended: merges exactly.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ItemCounts {
    /// Per item, the number of lists that hold it.
    pub counts: HashMap<Box<[u8]>, u64>,
    /// The number of lists seen.
    pub lists: u64,
}

impl ItemCounts {
    /// Counts the items of one list.
    pub fn add(&mut self, list: &[&[u8]]) {
        self.lists += 1;
        for item in list {
            match self.counts.get_mut(*item) {
                Some(count) => *count += 1,
                None => {
                    self.counts.insert((*item).into(), 1);
                }
            }
        }
    }

    /// Adds `other`'s counts.
    pub fn merge(&mut self, other: ItemCounts) {
        self.lists += other.lists;
        for (item, count) in other.counts {
            *self.counts.entry(item).or_insert(0) += count;
        }
    }

    /// The counts in a fixed order (by item id), for sums that must not
    /// depend on the hash order.
    pub fn sorted(&self) -> Vec<(&[u8], u64)> {
        let mut all: Vec<(&[u8], u64)> = self.counts.iter().map(|(k, &v)| (&k[..], v)).collect();
        all.sort_unstable();
        all
    }
}

/// One float per list, kept with the list's position and summed exactly
/// (correctly rounded): the same bits however the lists were split,
/// merged or ordered.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PerList {
    values: Vec<(u64, f64)>,
}

impl PerList {
    /// Records the value of the list at `position`.
    pub fn push(&mut self, position: u64, value: f64) {
        self.values.push((position, value));
    }

    /// Adds `other`'s values.
    pub fn merge(&mut self, mut other: PerList) {
        self.values.append(&mut other.values);
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no value was recorded.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The mean of the values: their exact sum, correctly rounded, over
    /// their number (no order enters); 0 if none.
    pub fn mean(self) -> f64 {
        if self.values.is_empty() {
            return 0.0;
        }
        let sum = crate::exact_sum::fsum(self.values.iter().map(|&(_, v)| v));
        sum / self.values.len() as f64
    }
}

/// Downcasts a state made by the same metric's `init`.
///
/// # Panics
/// If `state` was made by another metric: a bug in the caller, which
/// must hand each metric its own states.
pub fn state_mut<T: 'static>(state: &mut CorpusState) -> &mut T {
    match state.downcast_mut::<T>() {
        Some(s) => s,
        None => panic!("a corpus metric was given another metric's state"),
    }
}

/// Takes a state made by the same metric's `init` by value.
///
/// # Panics
/// As [`state_mut`].
pub fn into_state<T: 'static>(state: CorpusState) -> T {
    match state.downcast::<T>() {
        Ok(s) => *s,
        Err(_) => panic!("a corpus metric was given another metric's state"),
    }
}
