//! Query ids interned to dense integers.
//!
//! Every query id string is stored once, in one byte arena, and named by a
//! dense `u32` in order of first appearance. Runs and qrels each keep one;
//! the engine matches a run's queries to the qrels' queries once per query,
//! never once per line.

use hashbrown::HashTable;

use crate::hash::hash_bytes;

/// A set of byte strings, each named by a dense integer in order of first
/// appearance.
#[derive(Clone, Default)]
pub struct Interner {
    bytes: Vec<u8>,
    /// `ends[i]` is the end of string `i` in `bytes`; it starts where `i - 1` ends.
    ends: Vec<usize>,
    table: HashTable<u32>,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty interner with room for `strings` strings of `bytes` bytes
    /// in all, so that it does not grow while they are added.
    pub fn with_capacity(strings: usize, bytes: usize) -> Self {
        Self {
            bytes: Vec::with_capacity(bytes),
            ends: Vec::with_capacity(strings),
            table: HashTable::with_capacity(strings),
        }
    }

    /// The id of `key`, adding it if it is new.
    pub fn intern(&mut self, key: &[u8]) -> u32 {
        let hash = hash_bytes(key);
        let Self { bytes, ends, table } = self;
        if let Some(&id) = table.find(hash, |&id| resolve(bytes, ends, id) == key) {
            return id;
        }
        let id = u32::try_from(ends.len()).unwrap_or(u32::MAX);
        bytes.extend_from_slice(key);
        ends.push(bytes.len());
        table.insert_unique(hash, id, |&id| hash_bytes(resolve(bytes, ends, id)));
        id
    }

    /// The id of `key`, if it was interned.
    pub fn get(&self, key: &[u8]) -> Option<u32> {
        let hash = hash_bytes(key);
        self.table
            .find(hash, |&id| resolve(&self.bytes, &self.ends, id) == key)
            .copied()
    }

    /// The string named by `id`.
    ///
    /// # Panics
    /// If `id` was not returned by this interner.
    pub fn resolve(&self, id: u32) -> &[u8] {
        resolve(&self.bytes, &self.ends, id)
    }

    /// How many distinct strings are interned.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// How many strings fit before the interner grows.
    pub fn capacity(&self) -> usize {
        self.ends.capacity()
    }

    /// The total length of the interned strings, in bytes.
    pub fn byte_len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether nothing is interned.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

impl std::fmt::Debug for Interner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries((0..self.len() as u32).map(|id| String::from_utf8_lossy(self.resolve(id))))
            .finish()
    }
}

fn resolve<'a>(bytes: &'a [u8], ends: &[usize], id: u32) -> &'a [u8] {
    let id = id as usize;
    let start = if id == 0 { 0 } else { ends[id - 1] };
    &bytes[start..ends[id]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_in_order_of_first_appearance() {
        let mut interner = Interner::new();
        assert_eq!(interner.intern(b"q2"), 0);
        assert_eq!(interner.intern(b"q1"), 1);
        assert_eq!(interner.intern(b"q2"), 0);
        assert_eq!(interner.intern(b""), 2);
        assert_eq!(interner.len(), 3);
        assert_eq!(interner.resolve(1), b"q1");
        assert_eq!(interner.resolve(2), b"");
        assert_eq!(interner.get(b"q1"), Some(1));
        assert_eq!(interner.get(b"q3"), None);
    }

    #[test]
    fn survives_growth() {
        let mut interner = Interner::new();
        for i in 0..10_000u32 {
            assert_eq!(interner.intern(i.to_string().as_bytes()), i);
        }
        for i in 0..10_000u32 {
            assert_eq!(interner.get(i.to_string().as_bytes()), Some(i));
        }
    }
}
