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

#[cfg(test)]
mod tests {
    use super::Id;

    #[test]
    fn integers_are_their_decimal_text() {
        assert_eq!(42u32.with_bytes(|b| b.to_vec()), b"42");
        assert_eq!((-7i64).with_bytes(|b| b.to_vec()), b"-7");
        assert_eq!(u128::MAX.with_bytes(|b| b.len()), 39);
        assert_eq!("d1".with_bytes(|b| b.to_vec()), b"d1");
    }
}
