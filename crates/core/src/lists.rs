//! The columnar store behind runs and qrels: per query, a list of
//! (document id, value) entries.
//!
//! Document ids are kept as bytes in one arena with one `u32` end offset per
//! entry, values in one column, and each query's entries contiguous. Nothing
//! is allocated per entry. Building appends in input order; `finish` groups
//! the entries of each query together, resolves repeated documents and
//! orders each list, queries in parallel.

use std::cmp::Ordering;

use rayon::prelude::*;

use crate::hash::hash_bytes;
use crate::interner::Interner;
use crate::origins::{Origins, OriginsMut};

/// Stores with fewer entries are finished on the calling thread.
const SEQUENTIAL_BELOW: usize = 1 << 16;

/// One query's entries: `len` entries from `start`, their document bytes
/// from `byte_start`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct List {
    pub(crate) query: u32,
    pub(crate) start: usize,
    pub(crate) len: usize,
    pub(crate) byte_start: usize,
    /// Whether the entries came already ranked (no scores to order by).
    pub(crate) ranked: bool,
}

/// What to do when a list holds the same document twice.
pub(crate) enum Repeat {
    /// Keep the first occurrence, drop the later one.
    DropSecond,
    /// Keep the later occurrence, drop the one kept so far.
    DropFirst,
    /// Refuse the data.
    Fail,
}

/// How a kind of list (a run, qrels) resolves repeats and orders entries.
pub(crate) trait ListRules<V>: Sync {
    /// `first` was pushed before `second`, for the same document.
    fn on_repeat(&self, first: V, second: V) -> Repeat;
    /// Whether this list is put in order (or kept as pushed).
    fn sorts(&self, list: &List) -> bool;
    /// The order of two entries by value alone (scores, grades).
    fn compare_values(&self, a: V, b: V) -> Ordering;
    /// The order of two entries with equal values, by document id (ids in
    /// one list are distinct).
    fn compare_docs(&self, a: &[u8], b: &[u8]) -> Ordering;
    /// Whether entries with equal values are put in document order; if not,
    /// they keep their input order.
    fn ties_by_doc(&self) -> bool {
        true
    }
    /// An integer whose ascending order is [`compare_values`](Self::compare_values)'s
    /// order (equal keys for equal values), when there is one: lists are then
    /// sorted as plain integers, documents compared only within runs of
    /// equal keys. `None` sorts with `compare_values`.
    fn value_key(&self, _value: V) -> Option<u64> {
        None
    }
}

/// Why a store could not take an entry.
#[derive(Debug)]
pub(crate) enum PushError {
    /// The query id is not UTF-8 text.
    QueryNotUtf8,
    /// One query's document ids exceed 4 GiB.
    ListTooLarge,
}

/// A repeat that the rules refused.
#[derive(Debug)]
pub(crate) struct RepeatError<V> {
    pub(crate) query: u32,
    /// The query's id text, filled in by `finish`.
    pub(crate) query_name: String,
    pub(crate) doc: Vec<u8>,
    pub(crate) first: (V, u64),
    pub(crate) second: (V, u64),
}

/// Why `finish` failed.
#[derive(Debug)]
pub(crate) enum FinishError<V> {
    Repeat(RepeatError<V>),
    /// A query has both ranked and scored entries.
    MixedOrdering {
        query: String,
    },
}

/// The columnar store. See the module docs.
#[derive(Clone, Debug)]
pub(crate) struct ListStore<V> {
    pub(crate) queries: Interner,
    /// While building, blocks in input order; once finished, one list per
    /// query, indexed by query id.
    pub(crate) lists: Vec<List>,
    pub(crate) bytes: Vec<u8>,
    /// End of each entry's document id, relative to its list's `byte_start`.
    pub(crate) ends: Vec<u32>,
    pub(crate) values: Vec<V>,
    /// Where each entry came from (line number or push index); dropped once finished.
    pub(crate) origins: Origins,
}

impl<V> Default for ListStore<V> {
    fn default() -> Self {
        Self {
            queries: Interner::new(),
            lists: Vec::new(),
            bytes: Vec::new(),
            ends: Vec::new(),
            values: Vec::new(),
            origins: Origins::default(),
        }
    }
}

impl<V: Copy + Send + Sync> ListStore<V> {
    /// An empty store with room for `entries` entries and `doc_bytes` bytes
    /// of document ids.
    pub(crate) fn with_capacity(entries: usize, doc_bytes: usize) -> Self {
        Self {
            bytes: Vec::with_capacity(doc_bytes),
            ends: Vec::with_capacity(entries),
            values: Vec::with_capacity(entries),
            origins: Origins::with_capacity(entries),
            ..Self::default()
        }
    }

    /// Number of entries.
    pub(crate) fn num_entries(&self) -> usize {
        self.values.len()
    }

    /// The document ids of `list`, in order: one slice after the other.
    pub(crate) fn docs<'a>(&'a self, list: &List) -> Docs<'a> {
        Docs {
            bytes: &self.bytes[list.byte_start..],
            ends: &self.ends[list.start..list.start + list.len],
            start: 0,
        }
    }

    /// Document id of entry `i` of `list`.
    #[inline]
    pub(crate) fn doc(&self, list: &List, i: usize) -> &[u8] {
        let ends = &self.ends[list.start..list.start + list.len];
        let start = if i == 0 { 0 } else { ends[i - 1] as usize };
        &self.bytes[list.byte_start + start..list.byte_start + ends[i] as usize]
    }

    /// Makes sure `query` has a list, even if no entry is ever pushed for it.
    pub(crate) fn declare(&mut self, query: &[u8], ranked: bool) -> Result<(), PushError> {
        if std::str::from_utf8(query).is_err() {
            return Err(PushError::QueryNotUtf8);
        }
        let known = self.queries.len();
        let id = self.queries.intern(query);
        if id as usize == known {
            self.lists.push(List {
                query: id,
                start: self.values.len(),
                len: 0,
                byte_start: self.bytes.len(),
                ranked,
            });
        }
        Ok(())
    }

    /// Makes the last block `query`'s (with `ranked`) if it is not.
    ///
    /// The check, on every entry, is inlined into the push; a new block,
    /// once per query, is a call ([`new_block`](Self::new_block)), so that
    /// the whole stays small enough to be inlined (as one function, LLVM
    /// made it a call on every entry of a qrels file).
    #[inline(always)]
    fn open_block(&mut self, query: &[u8], ranked: bool) -> Result<(), PushError> {
        match self.lists.last() {
            Some(last)
                if last.ranked == ranked && same_bytes(self.queries.resolve(last.query), query) =>
            {
                Ok(())
            }
            _ => self.new_block(query, ranked),
        }
    }

    /// Starts a block of `query`'s entries (with `ranked`).
    #[inline(never)]
    fn new_block(&mut self, query: &[u8], ranked: bool) -> Result<(), PushError> {
        if std::str::from_utf8(query).is_err() {
            return Err(PushError::QueryNotUtf8);
        }
        let query = self.queries.intern(query);
        self.lists.push(List {
            query,
            start: self.values.len(),
            len: 0,
            byte_start: self.bytes.len(),
            ranked,
        });
        Ok(())
    }

    /// Appends one entry.
    #[inline]
    pub(crate) fn push(
        &mut self,
        query: &[u8],
        doc: &[u8],
        value: V,
        origin: u64,
        ranked: bool,
    ) -> Result<(), PushError> {
        self.open_block(query, ranked)?;
        let Some(block) = self.lists.last_mut() else {
            unreachable!("a block was pushed above")
        };
        self.bytes.extend_from_slice(doc);
        let end = u32::try_from(self.bytes.len() - block.byte_start)
            .map_err(|_| PushError::ListTooLarge)?;
        self.ends.push(end);
        self.values.push(value);
        self.origins.push(origin);
        block.len += 1;
        Ok(())
    }

    /// Appends entries of one query at once, their document ids lying one
    /// after the other in `docs`: entry `i`'s id ends at `ends[i]`
    /// (counted from the start of `docs`; one end per value) and its origin
    /// is `origin + i`. One copy of the bytes instead of one per entry.
    pub(crate) fn push_contiguous(
        &mut self,
        query: &[u8],
        docs: &[u8],
        ends: impl Iterator<Item = usize>,
        values: &[V],
        origin: u64,
        ranked: bool,
    ) -> Result<(), PushError> {
        self.open_block(query, ranked)?;
        let Some(block) = self.lists.last_mut() else {
            unreachable!("a block was pushed above")
        };
        let base = self.bytes.len() - block.byte_start;
        if u32::try_from(base + docs.len()).is_err() {
            return Err(PushError::ListTooLarge);
        }
        let before = self.ends.len();
        self.ends
            .extend(ends.take(values.len()).map(|end| (base + end) as u32));
        debug_assert_eq!(self.ends.len() - before, values.len(), "one end per value");
        self.bytes.extend_from_slice(docs);
        self.values.extend_from_slice(values);
        for i in 0..values.len() as u64 {
            self.origins.push(origin.saturating_add(i));
        }
        block.len += values.len();
        Ok(())
    }

    /// The query of the first block, if any.
    pub(crate) fn first_query(&self) -> Option<&[u8]> {
        self.lists.first().map(|b| self.queries.resolve(b.query))
    }

    /// Moves `other`'s entries after this store's, adding `origin_offset` to
    /// their origins. A block that continues this store's last query joins it.
    pub(crate) fn append(&mut self, other: ListStore<V>, origin_offset: u64) {
        let base_entry = self.values.len();
        let base_byte = self.bytes.len();
        let mut continued = None;
        for (index, block) in other.lists.iter().enumerate() {
            let query = self.queries.intern(other.queries.resolve(block.query));
            if index == 0
                && let Some(last) = self.lists.last_mut()
                && last.query == query
                && last.ranked == block.ranked
            {
                continued = Some((base_byte - last.byte_start, block.len));
                last.len += block.len;
                continue;
            }
            self.lists.push(List {
                query,
                start: base_entry + block.start,
                len: block.len,
                byte_start: base_byte + block.byte_start,
                ranked: block.ranked,
            });
        }
        self.bytes.extend_from_slice(&other.bytes);
        let rebased_until = match continued {
            Some((shift, len)) => {
                let shift = shift as u32;
                self.ends
                    .extend(other.ends[..len].iter().map(|&end| end + shift));
                len
            }
            None => 0,
        };
        self.ends.extend_from_slice(&other.ends[rebased_until..]);
        self.values.extend_from_slice(&other.values);
        self.origins.append(&other.origins, origin_offset);
    }

    /// Groups each query's entries, resolves repeats and orders every list.
    /// Afterwards `lists[q]` is query `q`'s list, and origins are dropped.
    pub(crate) fn finish(
        mut self,
        rules: &impl ListRules<V>,
    ) -> Result<ListStore<V>, FinishError<V>> {
        let errors = self.finish_in_place(rules)?;
        if let Some(mut first) = errors.into_iter().min_by_key(|e| (e.second.1, e.query)) {
            first.query_name = self.query_name(first.query);
            return Err(FinishError::Repeat(first));
        }
        self.origins = Origins::default();
        Ok(self)
    }

    /// [`finish`](Self::finish) in place, keeping origins: every repeat the
    /// rules refuse is returned (the first of each list, in input order),
    /// and a list with one is left grouped but otherwise as pushed.
    pub(crate) fn finish_in_place(
        &mut self,
        rules: &impl ListRules<V>,
    ) -> Result<Vec<RepeatError<V>>, FinishError<V>> {
        if self.lists.len() != self.queries.len() {
            self.regroup()?;
        }
        let finish_list = |scratch: &mut Scratch<V>, mut list: ListMut<'_, V>| {
            scratch.resolve_repeats(&mut list, rules)?;
            scratch.order(&mut list, rules);
            Ok(())
        };
        let lists = split_lists(self);
        // A small store (a chunk of a file, finished inside a parallel task)
        // is done in one go; a large one in parallel.
        Ok(
            if lists.iter().map(|l| l.list.len).sum::<usize>() < SEQUENTIAL_BELOW {
                let mut scratch = Scratch::default();
                lists
                    .into_iter()
                    .filter_map(|list| finish_list(&mut scratch, list).err())
                    .collect()
            } else {
                lists
                    .into_par_iter()
                    .map_init(Scratch::default, finish_list)
                    .filter_map(Result::err)
                    .collect()
            },
        )
    }

    /// The text of query `id`.
    pub(crate) fn query_name(&self, id: u32) -> String {
        String::from_utf8_lossy(self.queries.resolve(id)).into_owned()
    }

    /// Makes each query's entries contiguous, in query id order, keeping
    /// input order within a query.
    fn regroup(&mut self) -> Result<(), FinishError<V>> {
        let num_queries = self.queries.len();
        let mut lists: Vec<Option<List>> = vec![None; num_queries];
        let mut bytes_per_query = vec![0usize; num_queries];
        for block in &self.lists {
            let q = block.query as usize;
            let block_bytes = if block.len == 0 {
                0
            } else {
                self.ends[block.start + block.len - 1] as usize
            };
            bytes_per_query[q] += block_bytes;
            match &mut lists[q] {
                Some(list) if list.ranked != block.ranked => {
                    return Err(FinishError::MixedOrdering {
                        query: self.query_name(block.query),
                    });
                }
                Some(list) => list.len += block.len,
                slot @ None => {
                    *slot = Some(List {
                        start: 0,
                        byte_start: 0,
                        ..*block
                    });
                }
            }
        }
        let mut next_entry = 0;
        let mut next_byte = 0;
        let mut grouped: Vec<List> = Vec::with_capacity(num_queries);
        for (list, list_bytes) in lists.into_iter().flatten().zip(&bytes_per_query) {
            grouped.push(List {
                start: next_entry,
                byte_start: next_byte,
                len: 0,
                ..list
            });
            next_entry += list.len;
            next_byte += list_bytes;
        }
        let mut bytes = vec![0u8; next_byte];
        let mut ends = vec![0u32; next_entry];
        let mut values = Vec::with_capacity(next_entry);
        let mut origins = self.origins.blank_like(next_entry);
        // Values need an initial element to be placed by index.
        if let Some(&first) = self.values.first() {
            values.resize(next_entry, first);
        }
        let mut filled_bytes = vec![0usize; num_queries];
        for block in &self.lists {
            let target = &mut grouped[block.query as usize];
            let q_bytes = &mut filled_bytes[block.query as usize];
            let block_bytes = if block.len == 0 {
                0
            } else {
                self.ends[block.start + block.len - 1] as usize
            };
            let dst = target.byte_start + *q_bytes;
            bytes[dst..dst + block_bytes]
                .copy_from_slice(&self.bytes[block.byte_start..block.byte_start + block_bytes]);
            for i in 0..block.len {
                let to = target.start + target.len + i;
                ends[to] = (self.ends[block.start + i] as usize + *q_bytes) as u32;
                values[to] = self.values[block.start + i];
                origins.copy_from(to, &self.origins, block.start + i);
            }
            target.len += block.len;
            *q_bytes += block_bytes;
        }
        self.lists = grouped;
        self.bytes = bytes;
        self.ends = ends;
        self.values = values;
        self.origins = origins;
        Ok(())
    }
}

/// The document ids of one list, in order.
pub(crate) struct Docs<'a> {
    bytes: &'a [u8],
    ends: &'a [u32],
    start: usize,
}

impl<'a> Iterator for Docs<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let (&end, rest) = self.ends.split_first()?;
        let end = end as usize;
        let doc = &self.bytes[self.start..end];
        self.start = end;
        self.ends = rest;
        Some(doc)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.ends.len(), Some(self.ends.len()))
    }
}

impl ExactSizeIterator for Docs<'_> {}

/// Byte equality of two ids, inline and a word at a time, which beats a
/// library call for the few bytes of most ids and a byte loop too: ids of
/// 4 to 8 bytes are two loads a side (the words may overlap), longer ones
/// 8 bytes a step. The parsing loop compares every run line's query id with
/// the list's, and judging compares document ids: the byte loop this
/// replaces ran 9.1 million rounds of 6 instructions for the 2 million lines
/// of a 20k x 100 run (3% of the benchmark's instructions).
#[inline(always)]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if word::<8>(a, i) != word::<8>(b, i) {
                return false;
            }
            i += 8;
        }
        word::<8>(a, n - 8) == word::<8>(b, n - 8)
    } else if n >= 4 {
        (word::<4>(a, 0) ^ word::<4>(b, 0)) | (word::<4>(a, n - 4) ^ word::<4>(b, n - 4)) == 0
    } else {
        // Up to 3 bytes: the first, the middle and the last cover them all.
        n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1])
    }
}

/// The `N` (4 or 8) bytes of `bytes` from `at`, as a number to compare.
#[inline(always)]
fn word<const N: usize>(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word[..N].copy_from_slice(&bytes[at..at + N]);
    u64::from_le_bytes(word)
}

/// One list's slice of every column, for parallel processing.
struct ListMut<'a, V> {
    list: &'a mut List,
    bytes: &'a mut [u8],
    ends: &'a mut [u32],
    values: &'a mut [V],
    origins: OriginsMut<'a>,
}

impl<V> ListMut<'_, V> {
    #[inline]
    fn doc(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }
}

/// Splits the columns of a grouped store into one `ListMut` per list of
/// two entries or more.
fn split_lists<V>(store: &mut ListStore<V>) -> Vec<ListMut<'_, V>> {
    let total_bytes = store.bytes.len();
    let starts: Vec<usize> = store.lists.iter().map(|l| l.byte_start).collect();
    let mut bytes = store.bytes.as_mut_slice();
    let mut ends = store.ends.as_mut_slice();
    let mut values = store.values.as_mut_slice();
    let mut origins = store.origins.as_mut();
    let mut out = Vec::with_capacity(store.lists.len());
    let mut consumed_bytes = 0;
    for (index, list) in store.lists.iter_mut().enumerate() {
        let byte_end = starts.get(index + 1).copied().unwrap_or(total_bytes);
        let (b, rest_b) = std::mem::take(&mut bytes).split_at_mut(byte_end - consumed_bytes);
        consumed_bytes = byte_end;
        bytes = rest_b;
        let (e, rest_e) = std::mem::take(&mut ends).split_at_mut(list.len);
        ends = rest_e;
        let (v, rest_v) = std::mem::take(&mut values).split_at_mut(list.len);
        values = rest_v;
        let (o, rest_o) = std::mem::replace(&mut origins, OriginsMut::empty()).split_at(list.len);
        origins = rest_o;
        // A list of one entry has no repeat and nothing to order (qrels of
        // many one-judgement queries would otherwise take a `ListMut` each).
        if list.len < 2 {
            continue;
        }
        out.push(ListMut {
            list,
            bytes: b,
            ends: e,
            values: v,
            origins: o,
        });
    }
    out
}

/// Per-thread buffers reused from list to list.
pub(crate) struct Scratch<V> {
    table: Vec<u64>,
    keep: Vec<bool>,
    perm: Vec<u32>,
    /// Sort keys: the value's key above the entry's place (see `sort_by_key`).
    keys: Vec<u64>,
    bytes: Vec<u8>,
    ends: Vec<u32>,
    values: Vec<V>,
    origins: Vec<u64>,
}

impl<V> Default for Scratch<V> {
    fn default() -> Self {
        Self {
            table: Vec::new(),
            keep: Vec::new(),
            perm: Vec::new(),
            keys: Vec::new(),
            bytes: Vec::new(),
            ends: Vec::new(),
            values: Vec::new(),
            origins: Vec::new(),
        }
    }
}

impl<V: Copy> Scratch<V> {
    /// Finds documents repeated in the list and drops or refuses them.
    ///
    /// An open-addressing table of (fingerprint, entry) pairs sized for the
    /// list: document bytes are compared only when fingerprints match.
    fn resolve_repeats(
        &mut self,
        list: &mut ListMut<'_, V>,
        rules: &impl ListRules<V>,
    ) -> Result<(), RepeatError<V>> {
        let n = list.list.len;
        if n < 2 {
            return Ok(());
        }
        // Four slots per entry: probes rarely collide.
        let capacity = (4 * n).next_power_of_two();
        let mask = capacity - 1;
        self.table.clear();
        self.table.resize(capacity, 0);
        self.keep.clear();
        self.keep.resize(n, true);
        let mut dropped = 0;
        for i in 0..n {
            let doc = list.doc(i);
            let hash = hash_bytes(doc);
            let fingerprint = hash >> 32;
            let mut slot = hash as usize & mask;
            loop {
                let occupant = self.table[slot];
                if occupant == 0 {
                    self.table[slot] = (fingerprint << 32) | (i as u64 + 1);
                    break;
                }
                let j = (occupant & 0xFFFF_FFFF) as usize - 1;
                if occupant >> 32 == fingerprint && list.doc(j) == doc {
                    match rules.on_repeat(list.values[j], list.values[i]) {
                        Repeat::DropSecond => {
                            self.keep[i] = false;
                            dropped += 1;
                            break;
                        }
                        Repeat::DropFirst => {
                            self.keep[j] = false;
                            self.table[slot] = (fingerprint << 32) | (i as u64 + 1);
                            dropped += 1;
                            break;
                        }
                        Repeat::Fail => {
                            return Err(RepeatError {
                                query: list.list.query,
                                query_name: String::new(),
                                doc: doc.to_vec(),
                                first: (list.values[j], list.origins.get(j)),
                                second: (list.values[i], list.origins.get(i)),
                            });
                        }
                    }
                }
                slot = (slot + 1) & mask;
            }
        }
        if dropped > 0 {
            let mut write = 0;
            let mut write_byte = 0usize;
            for read in 0..n {
                if !self.keep[read] {
                    continue;
                }
                let start = if read == 0 {
                    0
                } else {
                    list.ends[read - 1] as usize
                };
                let end = list.ends[read] as usize;
                list.bytes.copy_within(start..end, write_byte);
                write_byte += end - start;
                list.ends[write] = write_byte as u32;
                list.values[write] = list.values[read];
                list.origins.copy(read, write);
                write += 1;
            }
            list.list.len = write;
        }
        Ok(())
    }

    /// Puts the list in the order of the rules.
    ///
    /// Lists usually come ordered by value already (a run sorted by score),
    /// with only the documents of tied values out of order: then only each
    /// run of equal values is sorted. Otherwise the whole list is sorted.
    fn order<R: ListRules<V>>(&mut self, list: &mut ListMut<'_, V>, rules: &R) {
        let n = list.list.len;
        if n < 2 || !rules.sorts(list.list) {
            return;
        }
        let by_value = (1..n)
            .all(|i| rules.compare_values(list.values[i - 1], list.values[i]) != Ordering::Greater);
        if !by_value {
            self.sort_range(list, 0, n, rules);
            return;
        }
        if !rules.ties_by_doc() {
            return;
        }
        let mut start = 0;
        while start < n {
            let mut end = start + 1;
            while end < n
                && rules.compare_values(list.values[start], list.values[end]) == Ordering::Equal
            {
                end += 1;
            }
            if end - start > 1
                && (start + 1..end)
                    .any(|i| rules.compare_docs(list.doc(i - 1), list.doc(i)) == Ordering::Greater)
            {
                self.sort_range(list, start, end, rules);
            }
            start = end;
        }
    }

    /// Sorts entries `start..end` of the list by the rules' order, moving
    /// their bytes, ends, values and origins.
    fn sort_range<R: ListRules<V>>(
        &mut self,
        list: &mut ListMut<'_, V>,
        start: usize,
        end: usize,
        rules: &R,
    ) {
        self.perm.clear();
        let keyed = rules.ties_by_doc() && rules.value_key(list.values[start]).is_some();
        if keyed {
            self.sort_by_key(list, start, end, rules);
        } else {
            self.perm.extend(start as u32..end as u32);
        }
        if !keyed {
            let view = &*list;
            if rules.ties_by_doc() {
                self.perm.sort_unstable_by(|&a, &b| {
                    let (a, b) = (a as usize, b as usize);
                    rules
                        .compare_values(view.values[a], view.values[b])
                        .then_with(|| rules.compare_docs(view.doc(a), view.doc(b)))
                });
            } else {
                // Stable: equal values keep their input order.
                self.perm.sort_by(|&a, &b| {
                    rules.compare_values(view.values[a as usize], view.values[b as usize])
                });
            }
        }
        let byte_start = if start == 0 {
            0
        } else {
            list.ends[start - 1] as usize
        };
        self.bytes.clear();
        self.ends.clear();
        self.values.clear();
        for &i in &self.perm {
            let i = i as usize;
            self.bytes.extend_from_slice(list.doc(i));
            self.ends.push((byte_start + self.bytes.len()) as u32);
            self.values.push(list.values[i]);
        }
        list.bytes[byte_start..byte_start + self.bytes.len()].copy_from_slice(&self.bytes);
        list.ends[start..end].copy_from_slice(&self.ends);
        list.values[start..end].copy_from_slice(&self.values);
        list.origins.permute(start, &self.perm, &mut self.origins);
    }

    /// Fills `perm` with entries `start..end` in the rules' order, by
    /// [`ListRules::value_key`]: each entry becomes one `u64`, the value's
    /// key in the high bits and the entry's place in the range in the low
    /// bits (as many as the range needs), sorted as plain integers (no
    /// comparison closure, no lookups, the standard library's sorting
    /// networks). Entries whose keys agree in the high bits (equal values,
    /// or values a few units in the last place apart) are then ordered by
    /// the full comparison: value, then document id. The same order as a
    /// comparison sort, since the ids of one list are distinct.
    fn sort_by_key<R: ListRules<V>>(
        &mut self,
        list: &ListMut<'_, V>,
        start: usize,
        end: usize,
        rules: &R,
    ) {
        let places = (end - start).saturating_sub(1) as u64;
        let low = u64::BITS - places.leading_zeros();
        let high = |key: u64| key.checked_shr(low).unwrap_or(0);
        self.keys.clear();
        self.keys.extend((start..end).map(|i| {
            let key = rules.value_key(list.values[i]).unwrap_or(u64::MAX);
            (high(key).checked_shl(low).unwrap_or(0)) | (i - start) as u64
        }));
        self.keys.sort_unstable();
        let place_mask = (1u64 << low) - 1;
        self.perm.extend(
            self.keys
                .iter()
                .map(|&k| start as u32 + (k & place_mask) as u32),
        );
        let mut first = 0;
        while first < self.keys.len() {
            let key = high(self.keys[first]);
            let mut last = first + 1;
            while last < self.keys.len() && high(self.keys[last]) == key {
                last += 1;
            }
            if last - first > 1 {
                self.perm[first..last].sort_unstable_by(|&a, &b| {
                    let (a, b) = (a as usize, b as usize);
                    rules
                        .compare_values(list.values[a], list.values[b])
                        .then_with(|| rules.compare_docs(list.doc(a), list.doc(b)))
                });
            }
            first = last;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `same_bytes` agrees with slice equality for every length up to 24
    /// (each branch and the overlapping words) and a difference at every
    /// position, and for slices of different lengths.
    #[test]
    fn same_bytes_is_slice_equality() {
        for n in 0..=24usize {
            let a: Vec<u8> = (0..n as u8).map(|i| b'a' + i).collect();
            assert!(same_bytes(&a, &a.clone()), "{n}");
            for at in 0..n {
                let mut b = a.clone();
                b[at] ^= 0x20;
                assert!(!same_bytes(&a, &b), "{n} bytes, differing at {at}");
            }
            assert!(!same_bytes(&a, &a[..n.saturating_sub(1)]) || n == 0);
        }
    }

    /// Orders by value descending, then document descending; refuses repeats.
    struct Descending;
    impl ListRules<i32> for Descending {
        fn on_repeat(&self, first: i32, second: i32) -> Repeat {
            if first == second {
                Repeat::DropSecond
            } else {
                Repeat::Fail
            }
        }
        fn sorts(&self, list: &List) -> bool {
            !list.ranked
        }
        fn compare_values(&self, a: i32, b: i32) -> Ordering {
            b.cmp(&a)
        }
        fn compare_docs(&self, a: &[u8], b: &[u8]) -> Ordering {
            b.cmp(a)
        }
    }

    fn contents(store: &ListStore<i32>) -> Vec<(String, Vec<(String, i32)>)> {
        store
            .lists
            .iter()
            .map(|list| {
                let query = String::from_utf8_lossy(store.queries.resolve(list.query)).into_owned();
                let entries = (0..list.len)
                    .map(|i| {
                        (
                            String::from_utf8_lossy(store.doc(list, i)).into_owned(),
                            store.values[list.start + i],
                        )
                    })
                    .collect();
                (query, entries)
            })
            .collect()
    }

    fn store_of(lines: &[(&str, &str, i32)]) -> ListStore<i32> {
        let mut store = ListStore::default();
        for (origin, (q, d, v)) in lines.iter().enumerate() {
            store
                .push(q.as_bytes(), d.as_bytes(), *v, origin as u64 + 1, false)
                .unwrap();
        }
        store
    }

    fn owned(v: &[(&str, &[(&str, i32)])]) -> Vec<(String, Vec<(String, i32)>)> {
        v.iter()
            .map(|(q, e)| {
                (
                    q.to_string(),
                    e.iter().map(|(d, v)| (d.to_string(), *v)).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn orders_each_list_and_drops_identical_repeats() {
        let store = store_of(&[
            ("q1", "a", 1),
            ("q1", "b", 3),
            ("q1", "a", 1),
            ("q2", "z", 0),
        ]);
        let done = store.finish(&Descending).unwrap();
        assert_eq!(
            contents(&done),
            owned(&[("q1", &[("b", 3), ("a", 1)]), ("q2", &[("z", 0)])])
        );
        assert!(done.origins.is_empty());
    }

    #[test]
    fn regroups_interleaved_queries_in_input_order() {
        let store = store_of(&[
            ("q1", "d10", 2),
            ("q2", "x", 5),
            ("q1", "d9", 2),
            ("q2", "y", 7),
            ("q1", "d8", 9),
        ]);
        let done = store.finish(&Descending).unwrap();
        assert_eq!(
            contents(&done),
            owned(&[
                ("q1", &[("d8", 9), ("d9", 2), ("d10", 2)]),
                ("q2", &[("y", 7), ("x", 5)]),
            ])
        );
    }

    #[test]
    fn refuses_conflicting_repeats_naming_both_origins() {
        let store = store_of(&[("q1", "a", 1), ("q2", "c", 1), ("q1", "a", 2)]);
        let Err(FinishError::Repeat(error)) = store.finish(&Descending) else {
            panic!("a conflicting repeat must fail");
        };
        assert_eq!(error.doc, b"a");
        assert_eq!(error.first, (1, 1));
        assert_eq!(error.second, (2, 3));
    }

    #[test]
    fn append_joins_a_continued_query_and_shifts_origins() {
        let mut left = store_of(&[("q1", "a", 1), ("q1", "b", 2)]);
        let right = store_of(&[("q1", "c", 3), ("q2", "d", 4)]);
        left.append(right, 10);
        assert_eq!(left.lists.len(), 2);
        assert_eq!(left.origins.iter().collect::<Vec<_>>(), vec![1, 2, 11, 12]);
        let done = left.finish(&Descending).unwrap();
        assert_eq!(
            contents(&done),
            owned(&[("q1", &[("c", 3), ("b", 2), ("a", 1)]), ("q2", &[("d", 4)])])
        );
    }

    #[test]
    fn mixed_ranked_and_scored_entries_of_one_query_are_refused() {
        let mut store = ListStore::default();
        store.push(b"q1", b"a", 1, 1, true).unwrap();
        store.push(b"q2", b"b", 1, 2, false).unwrap();
        store.push(b"q1", b"c", 1, 3, false).unwrap();
        assert!(matches!(
            store.finish(&Descending),
            Err(FinishError::MixedOrdering { query }) if query == "q1"
        ));
    }

    #[test]
    fn declared_queries_keep_an_empty_list() {
        let mut store = ListStore::default();
        store.declare(b"empty", false).unwrap();
        store.push(b"q1", b"a", 1, 1, false).unwrap();
        store.declare(b"q1", false).unwrap();
        store.push(b"q1", b"b", 2, 2, false).unwrap();
        let done = store.finish(&Descending).unwrap();
        assert_eq!(
            contents(&done),
            owned(&[("empty", &[]), ("q1", &[("b", 2), ("a", 1)])])
        );
    }

    #[test]
    fn refuses_non_utf8_query_ids() {
        let mut store = ListStore::<i32>::default();
        assert!(matches!(
            store.push(b"\xff", b"a", 1, 1, false),
            Err(PushError::QueryNotUtf8)
        ));
    }

    /// Orders by value descending, equal values in input order (as qrels).
    struct StableDescending;
    impl ListRules<i32> for StableDescending {
        fn on_repeat(&self, _first: i32, _second: i32) -> Repeat {
            Repeat::Fail
        }
        fn sorts(&self, _list: &List) -> bool {
            true
        }
        fn compare_values(&self, a: i32, b: i32) -> Ordering {
            b.cmp(&a)
        }
        fn compare_docs(&self, a: &[u8], b: &[u8]) -> Ordering {
            a.cmp(b)
        }
        fn ties_by_doc(&self) -> bool {
            false
        }
    }

    /// Lists ordered stably by value (few or many distinct values) take
    /// the order of a reference sort, each entry's origin moved along.
    #[test]
    fn stable_order_by_value_moves_origins_along() {
        for distinct in [1, 3, 16, 17, 40] {
            let mut state = 12345u64 + distinct as u64;
            let entries: Vec<(String, i32)> = (0..200)
                .map(|i| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (format!("d{i}"), ((state >> 33) % distinct as u64) as i32)
                })
                .collect();
            let mut store = ListStore::default();
            for (origin, (doc, value)) in entries.iter().enumerate() {
                store
                    .push(b"q", doc.as_bytes(), *value, origin as u64 + 7, false)
                    .unwrap();
            }
            // In place: the origins are kept (finish drops them).
            assert!(store.finish_in_place(&StableDescending).unwrap().is_empty());
            let done = store;
            let mut expected: Vec<(usize, &(String, i32))> = entries.iter().enumerate().collect();
            expected.sort_by_key(|e| std::cmp::Reverse(e.1.1));
            let got = &contents(&done)[0].1;
            let want: Vec<(String, i32)> = expected.iter().map(|(_, e)| (*e).clone()).collect();
            assert_eq!(got, &want, "{distinct} distinct values");
            let origins: Vec<u64> = done.origins.iter().collect();
            let want_origins: Vec<u64> = expected.iter().map(|(i, _)| *i as u64 + 7).collect();
            assert_eq!(origins, want_origins, "{distinct} distinct values");
        }
    }
}
