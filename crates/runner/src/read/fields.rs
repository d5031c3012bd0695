//! Byte-level field splitting and number parsing for line formats.

use super::error::{ReadErrorKind, excerpt};

/// The whitespace-separated fields of a line: fields are separated by
/// spaces and tabs, and by any other byte up to 0x20 (so a trailing `\r`
/// of a file written on Windows is whitespace too).
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

/// Fields are separated by spaces and tabs; any byte up to 0x20 (a `\r`
/// at the end of a line, other control bytes) separates fields too.
#[inline]
fn is_space(b: u8) -> bool {
    b <= b' '
}

/// High bit set in each byte of `word` that is at most 0x20, exactly.
#[inline]
fn space_bytes(word: u64) -> u64 {
    const LOWS: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    // (b & 0x7F) + 0x5F reaches 0x80 exactly when b & 0x7F >= 0x21; bytes
    // with the high bit set are never spaces. No carry crosses bytes.
    !(((word & LOWS) + 0x5F5F_5F5F_5F5F_5F5F) | word) & HIGHS
}

impl Fields<'_> {
    /// Whether another field follows.
    #[inline]
    pub(crate) fn has_more(&self) -> bool {
        self.rest.iter().any(|&b| !is_space(b))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let start = self.rest.iter().position(|&b| !is_space(b))?;
        let rest = &self.rest[start..];
        let end = first_space(rest);
        self.rest = &rest[end..];
        Some(&rest[..end])
    }
}

const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The position of the first separator (a byte up to 0x20) in `field`, or
/// its length: eight bytes at a time, then one at a time.
#[inline]
fn first_space(field: &[u8]) -> usize {
    let mut i = 0;
    while let Some(chunk) = field.get(i..i + 8) {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(chunk);
        let word = u64::from_le_bytes(bytes);
        let found = space_bytes(word);
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + field[i..]
        .iter()
        .position(|&b| is_space(b))
        .unwrap_or(field.len() - i)
}

/// Whether a line holds only whitespace.
#[inline]
pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| is_space(b))
}

/// Parses a float field (a score).
#[inline]
pub(crate) fn parse_f64(field: &'static str, text: &[u8]) -> Result<f64, ReadErrorKind> {
    if let Some(value) = plain_decimal(text) {
        return Ok(value);
    }
    fast_float2::parse(text).map_err(|_| ReadErrorKind::BadNumber {
        field,
        text: excerpt(text),
        expected: "a number",
    })
}

/// Powers of ten that are exact in an f64.
const POWERS_OF_TEN: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// The value of a plain decimal such as `-12.345678` (optional sign,
/// digits, optional point and digits) with at most 15 digits, else `None`.
///
/// Clinger's fast path: the digits form an integer below 2^53 and the power
/// of ten is exact, so one division rounds correctly: the same bits as any
/// correct parser. Everything else (exponents, long mantissas, `inf`) goes
/// to the general parser.
#[inline]
fn plain_decimal(text: &[u8]) -> Option<f64> {
    let (negative, digits) = match text {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, text),
    };
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    let mut mantissa: u64 = 0;
    let mut count = 0;
    let mut point = None;
    for (i, &b) in digits.iter().enumerate() {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + u64::from(b - b'0');
                count += 1;
            }
            b'.' if point.is_none() => point = Some(i),
            _ => return None,
        }
    }
    if count == 0 || count > 15 {
        return None;
    }
    let decimals = point.map_or(0, |p| digits.len() - 1 - p);
    // Below 2^53, so exact as an i64 and as an f64.
    let value = mantissa as i64 as f64 / POWERS_OF_TEN[decimals];
    Some(if negative { -value } else { value })
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
    fn word_at_a_time_splitting_finds_every_boundary() {
        let line = b"1234\tQ0 D0000001   17 12.345678\tbench-run-with-a-long-tag x\r";
        let expected: Vec<&[u8]> = line
            .split(|&b| is_space(b))
            .filter(|f| !f.is_empty())
            .collect();
        assert_eq!(Fields::new(line).collect::<Vec<_>>(), expected);
        for len in 0..40 {
            let field: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            assert_eq!(first_space(&field), len);
            for (at, space) in [(0, b' '), (len / 2, b'\t'), (len.saturating_sub(1), b'\r')] {
                if at < len {
                    let mut with_space = field.clone();
                    with_space[at] = space;
                    assert_eq!(first_space(&with_space), at, "{len} {at}");
                }
            }
        }
    }

    #[test]
    fn fast_decimals_give_the_same_bits_as_a_correct_parser() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut texts: Vec<String> = vec![
            "0".into(),
            "-0".into(),
            "0.0".into(),
            "1.".into(),
            ".5".into(),
            "-.5".into(),
            "2.129133".into(),
            "999999999999999".into(),
            "0.000000000000001".into(),
            "123456789.012345".into(),
            "+7.25".into(),
            "1.000000001".into(),
        ];
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let digits = 1 + (state % 15) as usize;
            let point = (state >> 8) as usize % (digits + 1);
            let number: String = (0..digits)
                .map(|i| char::from(b'0' + ((state >> (i * 4)) % 10) as u8))
                .collect();
            let (a, b) = number.split_at(point);
            let sign = if state & (1 << 62) == 0 { "" } else { "-" };
            texts.push(format!("{sign}{a}.{b}"));
        }
        let mut fast_path = 0;
        for text in &texts {
            let exact: f64 = text.parse().unwrap();
            if let Some(fast) = plain_decimal(text.as_bytes()) {
                assert_eq!(fast.to_bits(), exact.to_bits(), "{text}");
                fast_path += 1;
            }
            let parsed = parse_f64("score", text.as_bytes()).unwrap();
            assert_eq!(parsed.to_bits(), exact.to_bits(), "{text}");
        }
        // Every generated decimal has at most 15 digits: all take the fast path.
        assert!(fast_path >= 20_000, "{fast_path}");
        for other in [
            "1e5",
            "1234567890123456",
            "inf",
            "nan",
            "1.2.3",
            "",
            "-",
            ".",
            "0x10",
        ] {
            assert_eq!(plain_decimal(other.as_bytes()), None, "{other}");
        }
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
