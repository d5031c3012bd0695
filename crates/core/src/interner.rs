//! Query ids interned to dense integers.
//!
//! Every query id string is stored once, in one byte arena, and named by a
//! dense `u32` in order of first appearance. Runs and qrels each keep one;
//! the engine matches a run's queries to the qrels' queries once per query,
//! never once per line.
//!
//! Ends are kept as 32-bit offsets (4 bytes a string instead of 8: qrels
//! of a million one-line queries hold a million ids); past 4 GiB of id
//! text they turn 64-bit, so nothing is refused.

use hashbrown::HashTable;

use crate::hash::hash_bytes;

/// A set of byte strings, each named by a dense integer in order of first
/// appearance.
#[derive(Clone, Default)]
pub struct Interner {
    bytes: Vec<u8>,
    /// `ends[i]` is the end of string `i` in `bytes`; it starts where `i - 1` ends.
    ends: Ends,
    table: HashTable<u32>,
}

/// The end offsets of the strings: 32-bit while the text fits in 4 GiB.
#[derive(Clone)]
enum Ends {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Default for Ends {
    fn default() -> Self {
        Ends::Narrow(Vec::new())
    }
}

impl Ends {
    #[inline]
    fn len(&self) -> usize {
        match self {
            Ends::Narrow(ends) => ends.len(),
            Ends::Wide(ends) => ends.len(),
        }
    }

    #[inline]
    fn get(&self, i: usize) -> usize {
        match self {
            Ends::Narrow(ends) => ends[i] as usize,
            Ends::Wide(ends) => ends[i] as usize,
        }
    }

    fn capacity(&self) -> usize {
        match self {
            Ends::Narrow(ends) => ends.capacity(),
            Ends::Wide(ends) => ends.capacity(),
        }
    }

    /// Appends `end`, turning the column 64-bit if it does not fit 32 bits.
    #[inline]
    fn push(&mut self, end: usize) {
        match self {
            Ends::Narrow(ends) => match u32::try_from(end) {
                Ok(end) => ends.push(end),
                Err(_) => {
                    let mut wide: Vec<u64> = ends.iter().map(|&e| u64::from(e)).collect();
                    wide.push(end as u64);
                    *self = Ends::Wide(wide);
                }
            },
            Ends::Wide(ends) => ends.push(end as u64),
        }
    }

    fn shrink_to_fit(&mut self) {
        match self {
            Ends::Narrow(ends) => ends.shrink_to_fit(),
            Ends::Wide(ends) => ends.shrink_to_fit(),
        }
    }
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
            ends: Ends::Narrow(Vec::with_capacity(strings)),
            table: HashTable::with_capacity(strings),
        }
    }

    /// The interner of strings already laid out one after the other in
    /// `bytes` (string `i` ends at `ends[i]`), with no copy of the text and
    /// a table sized once; `None` if a string occurs twice (then the
    /// strings are not distinct ids, and the caller interns them one by one).
    pub fn from_distinct(bytes: Vec<u8>, ends: Vec<u32>) -> Result<Self, (Vec<u8>, Vec<u32>)> {
        if ends.last().is_some_and(|&end| end as usize != bytes.len())
            || (ends.is_empty() && !bytes.is_empty())
            || u32::try_from(ends.len()).is_err()
        {
            return Err((bytes, ends));
        }
        let ends = Ends::Narrow(ends);
        let mut table = HashTable::with_capacity(ends.len());
        for id in 0..ends.len() as u32 {
            let key = resolve(&bytes, &ends, id);
            let hash = hash_bytes(key);
            if table
                .find(hash, |&other| resolve(&bytes, &ends, other) == key)
                .is_some()
            {
                let Ends::Narrow(ends) = ends else {
                    unreachable!("made narrow above")
                };
                return Err((bytes, ends));
            }
            table.insert_unique(hash, id, |&id| hash_bytes(resolve(&bytes, &ends, id)));
        }
        Ok(Self { bytes, ends, table })
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

    /// Gives back the room reserved beyond what is interned.
    pub fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.table
            .shrink_to_fit(|&id| hash_bytes(resolve(&self.bytes, &self.ends, id)));
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
        self.ends.len() == 0
    }
}

impl std::fmt::Debug for Interner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries((0..self.len() as u32).map(|id| String::from_utf8_lossy(self.resolve(id))))
            .finish()
    }
}

#[inline]
fn resolve<'a>(bytes: &'a [u8], ends: &Ends, id: u32) -> &'a [u8] {
    let id = id as usize;
    let start = if id == 0 { 0 } else { ends.get(id - 1) };
    &bytes[start..ends.get(id)]
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
    fn laid_out_strings_are_interned_unless_one_repeats() {
        let interner = Interner::from_distinct(b"q1q22".to_vec(), vec![2, 2, 5]).unwrap();
        assert_eq!(interner.len(), 3);
        assert_eq!(interner.resolve(1), b"");
        assert_eq!(interner.get(b"q22"), Some(2));
        assert_eq!(interner.get(b""), Some(1));
        let (bytes, ends) = Interner::from_distinct(b"q1q2q1".to_vec(), vec![2, 4, 6]).unwrap_err();
        assert_eq!((bytes.len(), ends), (6, vec![2, 4, 6]));
        assert!(
            Interner::from_distinct(Vec::new(), Vec::new())
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn ends_past_four_gib_turn_wide() {
        let mut ends = Ends::Narrow(vec![3, u32::MAX as usize as u32]);
        ends.push(u32::MAX as usize + 10);
        ends.push(u32::MAX as usize + 12);
        assert!(matches!(ends, Ends::Wide(_)));
        let got: Vec<usize> = (0..ends.len()).map(|i| ends.get(i)).collect();
        assert_eq!(
            got,
            [
                3,
                u32::MAX as usize,
                u32::MAX as usize + 10,
                u32::MAX as usize + 12
            ]
        );
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
