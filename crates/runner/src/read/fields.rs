//! Byte-level field splitting and number parsing for line formats.

use super::error::{ReadErrorKind, excerpt};

/// The whitespace-separated fields of a line (spaces and tabs; a trailing
/// `\r` is whitespace too, for files written on Windows).
#[derive(Clone)]
pub(crate) struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    #[inline]
    pub(crate) fn new(line: &'a [u8]) -> Self {
        Self { rest: line }
    }
}

#[inline]
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r')
}

impl<'a> Iterator for Fields<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let start = self.rest.iter().position(|&b| !is_space(b))?;
        let rest = &self.rest[start..];
        let end = rest.iter().position(|&b| is_space(b)).unwrap_or(rest.len());
        self.rest = &rest[end..];
        Some(&rest[..end])
    }
}

/// Whether a line holds only whitespace.
#[inline]
pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| is_space(b))
}

/// Parses a float field (a score).
#[inline]
pub(crate) fn parse_f64(field: &'static str, text: &[u8]) -> Result<f64, ReadErrorKind> {
    fast_float2::parse(text).map_err(|_| ReadErrorKind::BadNumber {
        field,
        text: excerpt(text),
        expected: "a number",
    })
}

/// Parses an integer field (a grade).
#[inline]
pub(crate) fn parse_i64(field: &'static str, text: &[u8]) -> Result<i64, ReadErrorKind> {
    let bad = || ReadErrorKind::BadNumber {
        field,
        text: excerpt(text),
        expected: "an integer",
    };
    let (negative, digits) = match text {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, text),
    };
    if digits.is_empty() || digits.len() > 18 {
        return Err(bad());
    }
    let mut value: i64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return Err(bad());
        }
        value = value * 10 + i64::from(b - b'0');
    }
    Ok(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_runs_of_spaces_and_tabs() {
        let fields: Vec<&[u8]> = Fields::new(b"301\tQ0  FR94 104\t  2.12\tSTD\r").collect();
        assert_eq!(
            fields,
            [&b"301"[..], b"Q0", b"FR94", b"104", b"2.12", b"STD"]
        );
        assert_eq!(Fields::new(b"   ").count(), 0);
        assert!(is_blank(b" \t\r"));
        assert!(!is_blank(b" x"));
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_f64("score", b"2.129133").unwrap(), 2.129133);
        assert_eq!(parse_f64("score", b"-1e-3").unwrap(), -1e-3);
        assert!(parse_f64("score", b"1.2.3").is_err());
        assert!(parse_f64("score", b"").is_err());
        assert_eq!(parse_i64("grade", b"-1").unwrap(), -1);
        assert_eq!(parse_i64("grade", b"+2").unwrap(), 2);
        for bad in [&b"1.0"[..], b"", b"-", b"x", b"1234567890123456789"] {
            assert!(parse_i64("grade", bad).is_err(), "{bad:?}");
        }
        let message = parse_i64("grade", b"high").unwrap_err().to_string();
        assert_eq!(message, "grade `high` is not an integer");
    }
}
