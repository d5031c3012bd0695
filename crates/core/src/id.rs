//! Query and document ids as the library accepts them: text or integers.

use std::io::Write;

/// Something that names a query or a document: a string, bytes, or an
/// integer. Integers are written in decimal, so that `42` and `"42"` are the
/// same id and order the same way (byte order of the text) as in a file.
pub trait Id {
    /// Calls `f` with the id's bytes.
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R;
}

impl Id for str {
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self.as_bytes())
    }
}

impl Id for [u8] {
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self)
    }
}

impl Id for String {
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self.as_bytes())
    }
}

impl<T: Id + ?Sized> Id for &T {
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        (**self).with_bytes(f)
    }
}

macro_rules! integer_ids {
    ($($t:ty),*) => {$(
        impl Id for $t {
            fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
                let mut buffer = [0u8; 40];
                let mut cursor = &mut buffer[..];
                // 40 bytes hold any integer of 128 bits or less.
                let _ = write!(cursor, "{self}");
                let written = 40 - cursor.len();
                f(&buffer[..written])
            }
        }
    )*};
}

integer_ids!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize
);

/// Why a string cannot be an id: the one rule every reader applies to query
/// and document ids (TREC, JSON Lines, CSV, Parquet and Arrow tables,
/// per-query results, groups, spans, label tables), so that no id reaching
/// a report can split a TREC line, a table cell or a terminal's escapes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadId {
    /// The id is empty.
    #[error("an id cannot be empty")]
    Empty,
    /// The id holds whitespace or a control character.
    #[error(
        "the id `{shown}` contains U+{code:04X}; ids cannot contain whitespace or control \
         characters (as in TREC files)"
    )]
    Character {
        /// The id as messages show it (cut, control characters escaped).
        shown: String,
        /// The first offending character.
        code: u32,
    },
}

/// Checks `id` against the rule of [`BadId`]: not empty, no whitespace and
/// no control character (bytes that are not UTF-8 are taken as U+FFFD, which
/// is allowed). Printable ASCII, the usual case, is passed in one pass over
/// the bytes.
#[inline]
pub fn check_id(id: &[u8]) -> Result<(), BadId> {
    if id.is_empty() {
        return Err(BadId::Empty);
    }
    if id.iter().all(|&b| b > b' ' && b < 0x7f) {
        return Ok(());
    }
    let text = String::from_utf8_lossy(id);
    match text.chars().find(|c| c.is_whitespace() || c.is_control()) {
        Some(c) => Err(BadId::Character {
            shown: crate::shorten_id(id),
            code: u32::from(c),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::{BadId, Id, check_id};

    #[test]
    fn ids_with_whitespace_or_control_characters_or_nothing_are_refused() {
        for good in ["q1", "é", "doc-7", "\u{fffd}", "a/b"] {
            assert_eq!(check_id(good.as_bytes()), Ok(()), "{good:?}");
        }
        assert_eq!(check_id(b"q\xff"), Ok(()));
        assert_eq!(check_id(b""), Err(BadId::Empty));
        for (bad, code) in [
            ("q 1", 0x20),
            ("q\t1", 9),
            ("q\n2", 10),
            ("\0", 0),
            ("\x1b[31m", 0x1b),
            ("q\u{7f}", 0x7f),
            ("q\u{a0}", 0xa0),
            ("q\u{2028}", 0x2028),
        ] {
            match check_id(bad.as_bytes()) {
                Err(BadId::Character { code: found, shown }) => {
                    assert_eq!(found, code, "{bad:?}");
                    assert!(!shown.chars().any(char::is_control), "{shown:?}");
                }
                other => panic!("{bad:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn integers_are_their_decimal_text() {
        assert_eq!(42u32.with_bytes(|b| b.to_vec()), b"42");
        assert_eq!((-7i64).with_bytes(|b| b.to_vec()), b"-7");
        assert_eq!(u128::MAX.with_bytes(|b| b.len()), 39);
        assert_eq!("d1".with_bytes(|b| b.to_vec()), b"d1");
    }
}
