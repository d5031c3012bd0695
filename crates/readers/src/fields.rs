//! Byte-level field splitting and number parsing for line formats.

use rankeval_core::Decimal;

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

/// The first 64 bytes of the input at a line start, as two bit masks:
/// bit `i` of `spaces` is set if byte `i` separates fields (any byte up to
/// 0x20, the newline too), and `line_end` is the position of the first
/// newline. Fields of lines up to 63 bytes are then found with a few bit
/// operations each, with no byte-by-byte loop.
pub(crate) struct Window {
    spaces: u64,
    /// Not 0 if a byte of the window read (32 or 64 bytes, the line and
    /// what follows it) is 0x7F (DEL) or more: not plain ASCII.
    wide: u32,
    line_end: u32,
}

impl Window {
    /// The window at the start of `bytes`, if 64 bytes are left and a
    /// newline is among them.
    #[inline]
    pub(crate) fn new(bytes: &[u8]) -> Option<Self> {
        // Most lines end within 32 bytes (qrels) or just past them (runs).
        let low: &[u8; 32] = bytes.get(..32)?.try_into().ok()?;
        let (mut spaces, mut newlines, mut wide) = masks(low);
        if newlines == 0 {
            let high: &[u8; 32] = bytes.get(32..64)?.try_into().ok()?;
            let (high_spaces, high_newlines, high_wide) = masks(high);
            spaces |= high_spaces << 32;
            newlines = high_newlines << 32;
            wide |= high_wide;
        }
        (newlines != 0).then(|| Self {
            spaces,
            wide,
            line_end: newlines.trailing_zeros(),
        })
    }

    /// Where the line ends (its newline).
    #[inline]
    pub(crate) fn line_end(&self) -> usize {
        self.line_end as usize
    }

    /// Whether every byte of the line (`bytes` is what the window was made
    /// of) is below 0x7F: no id in it can hold a control character or
    /// Unicode whitespace (the bytes up to 0x20 are separators), so the id
    /// rule needs no other check.
    ///
    /// One test of the whole window's bytes, made with the masks; only a
    /// window holding such a byte looks at the line's bytes again (it may
    /// be in the next line). A mask of their positions, tested against the
    /// line's end, cost three more movemasks, shifts and a test a line.
    #[inline]
    pub(crate) fn plain_ascii(&self, bytes: &[u8]) -> bool {
        self.wide == 0 || line_is_plain(&bytes[..self.line_end as usize])
    }

    /// The byte ranges of the line's first `N` fields, if the first starts
    /// at the start of the line and there are `N` of them.
    ///
    /// Every field start (a byte after a separator, or the first) and every
    /// field end (a separator after a field byte) is one bit of a mask; the
    /// k-th field runs from the k-th start to the k-th end, each taken by
    /// clearing the lowest bit: two short chains, no loop over bytes.
    #[inline]
    pub(crate) fn fields<const N: usize>(&self) -> Option<[std::ops::Range<usize>; N]> {
        let spaces = self.spaces;
        let after_space = (spaces << 1) | 1;
        let mut starts = !spaces & after_space;
        let mut ends = spaces & !after_space;
        if starts & 1 == 0 {
            return None;
        }
        let line_end = self.line_end as usize;
        let mut fields = [const { 0..0 }; N];
        for field in &mut fields {
            // No start left reads as 64, past any line end.
            let start = starts.trailing_zeros() as usize;
            if start >= line_end {
                return None;
            }
            // The newline separates, so a field that starts in the line
            // ends in it.
            *field = start..ends.trailing_zeros() as usize;
            starts &= starts.wrapping_sub(1);
            ends &= ends.wrapping_sub(1);
        }
        Some(fields)
    }
}

/// Whether every byte of `line` is below 0x7F (the rare window that holds
/// a byte of 0x7F or more, in the line or after it).
#[cold]
#[inline(never)]
fn line_is_plain(line: &[u8]) -> bool {
    line.iter().all(|&b| b < 0x7f)
}

/// Bit masks of the separators (bytes up to 0x20) and the newlines in
/// `chunk`, and whether it holds a byte of 0x7F or more (not 0), with SSE2
/// (every x86-64 processor has it): 16 bytes per compare.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[allow(unsafe_code)]
#[inline]
fn masks(chunk: &[u8; 32]) -> (u64, u64, u32) {
    // SAFETY: the function only needs SSE2, which the `cfg` above makes
    // sure the target has; it reads nothing but `chunk`.
    unsafe { masks_sse2(chunk) }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
fn masks_sse2(chunk: &[u8; 32]) -> (u64, u64, u32) {
    use std::arch::x86_64::{
        _mm_adds_epu8, _mm_cmpeq_epi8, _mm_max_epu8, _mm_min_epu8, _mm_movemask_epi8,
        _mm_set_epi64x, _mm_set1_epi8, _mm_setzero_si128,
    };
    let mut spaces = 0u64;
    let mut newlines = 0u64;
    // The largest byte at each of the 16 positions.
    let mut largest = _mm_setzero_si128();
    for (i, sixteen) in chunk.chunks_exact(16).enumerate() {
        let (low, high) = sixteen.split_at(8);
        let word = |half: &[u8]| {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(half);
            i64::from_le_bytes(bytes)
        };
        let v = _mm_set_epi64x(word(high), word(low));
        // Unsigned b <= 0x20 exactly when min(b, 0x20) == b.
        let space = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x20)), v);
        let newline = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8));
        largest = _mm_max_epu8(largest, v);
        spaces |= u64::from(_mm_movemask_epi8(space) as u16) << (16 * i);
        newlines |= u64::from(_mm_movemask_epi8(newline) as u16) << (16 * i);
    }
    // Adding 1 (saturating) sets the high bit of the bytes of 0x7F or more.
    let wide = _mm_movemask_epi8(_mm_adds_epu8(largest, _mm_set1_epi8(1))) as u32;
    (spaces, newlines, wide)
}

/// Bit masks of the separators (bytes up to 0x20) and the newlines in
/// `chunk`, and whether it holds a byte of 0x7F or more (not 0), a byte at
/// a time.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline]
fn masks(chunk: &[u8; 32]) -> (u64, u64, u32) {
    let mut spaces = 0u64;
    let mut newlines = 0u64;
    let mut wide = 0u32;
    for (i, &b) in chunk.iter().enumerate() {
        spaces |= u64::from(is_space(b)) << i;
        newlines |= u64::from(b == b'\n') << i;
        wide |= u32::from(b >= 0x7f);
    }
    (spaces, newlines, wide)
}

/// Whether a line holds only whitespace.
#[inline]
pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| is_space(b))
}

/// For a line that holds no field (every byte up to 0x20): an error if it
/// holds a control byte that is not whitespace (a NUL, a 0x01), which is no
/// blank line but a fault worth naming; `None` for a blank line.
#[cold]
pub(crate) fn control_bytes_only(line: &[u8]) -> Option<ReadErrorKind> {
    if line.iter().all(|b| b.is_ascii_whitespace() || *b == 0x0b) {
        return None;
    }
    const SHOWN: usize = 8;
    let mut bytes: Vec<String> = line
        .iter()
        .take(SHOWN)
        .map(|b| format!("0x{b:02X}"))
        .collect();
    if line.len() > SHOWN {
        bytes.push(format!("… {} in all", line.len()));
    }
    Some(ReadErrorKind::ControlBytesOnly {
        bytes: bytes.join(" "),
    })
}

/// Parses a float field (a score).
#[inline]
pub(crate) fn parse_f64(field: &'static str, text: &[u8]) -> Result<f64, ReadErrorKind> {
    if let Some(decimal) = plain_decimal(text) {
        return Ok(decimal.value());
    }
    fast_float2::parse(text).map_err(|_| ReadErrorKind::BadNumber {
        field,
        text: excerpt(text),
        expected: "a number",
    })
}

/// A plain decimal such as `-12.345678` (optional sign, digits, optional
/// point and digits) with at most 15 digits, else `None`.
///
/// Its [`Decimal::value`] is Clinger's fast path: the digits form an
/// integer below 2^53 and the power of ten is exact, so one division rounds
/// correctly: the same bits as any correct parser. Everything else
/// (exponents, long mantissas, `inf`) goes to the general parser.
#[inline]
fn plain_decimal(text: &[u8]) -> Option<Decimal> {
    let (negative, digits) = match text {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, text),
    };
    if digits.len() > 16 {
        return None;
    }
    let (mantissa, whole) = leading_digits(digits, 0);
    let (mantissa, decimals) = match digits.get(whole) {
        None => (mantissa, 0),
        Some(b'.') => {
            let (mantissa, read) = leading_digits(&digits[whole + 1..], mantissa);
            if whole + 1 + read != digits.len() {
                return None;
            }
            (mantissa, read)
        }
        Some(_) => return None,
    };
    let count = whole + decimals;
    if count == 0 || count > 15 {
        return None;
    }
    Decimal::new(negative, mantissa, decimals as u8)
}

/// `mantissa` extended by the decimal digits at the start of `text`, and
/// how many there were.
#[inline]
fn leading_digits(text: &[u8], mut mantissa: u64) -> (u64, usize) {
    for (i, &b) in text.iter().enumerate() {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return (mantissa, i);
        }
        mantissa = mantissa * 10 + u64::from(digit);
    }
    (mantissa, text.len())
}

/// The plain decimal in `bytes[start..end]`, as [`plain_decimal`] reads
/// it, read eight bytes at a time: `None` unless it has at most 7 digits
/// before the point and 8 after it, and 8 bytes can be read from where each
/// part starts (the caller then parses the field the general way).
///
/// Each part is checked and converted in one 64-bit word: all digits are
/// checked at once, and eight digits are combined with three
/// multiplications (the method of simdjson and fast_float).
#[inline]
pub(crate) fn decimal_at(bytes: &[u8], start: usize, end: usize) -> Option<Decimal> {
    let (negative, at) = match *bytes.get(start)? {
        b'-' => (true, start + 1),
        b'+' => (false, start + 1),
        _ => (false, start),
    };
    let word = word_at(bytes, at)?;
    let whole = first_non_digit(word);
    if whole == 8 {
        return None;
    }
    let point = at + whole;
    let (mantissa, decimals) = if point == end {
        if whole == 0 {
            return None;
        }
        (digits_value(word, whole), 0)
    } else {
        if bytes.get(point) != Some(&b'.') {
            return None;
        }
        let fraction = word_at(bytes, point + 1)?;
        let decimals = end.checked_sub(point + 1)?;
        if decimals > 8 || first_non_digit(fraction) < decimals || whole + decimals == 0 {
            return None;
        }
        (
            digits_value(word, whole) * POWERS_OF_TEN_U64[decimals]
                + digits_value(fraction, decimals),
            decimals,
        )
    };
    // At most 7 + 8 digits.
    Decimal::new(negative, mantissa, decimals as u8)
}

/// Powers of ten as integers, for combining the two parts of a decimal.
const POWERS_OF_TEN_U64: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// The eight bytes at `at`, as a little-endian word, if there are eight.
#[inline]
fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    let chunk: [u8; 8] = bytes.get(at..at + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(chunk))
}

/// How many of the lowest bytes of `word` are ASCII digits before the
/// first that is not (8 if all are). A carry only ever moves up, so the
/// lowest flagged byte is exact.
#[inline]
fn first_non_digit(word: u64) -> usize {
    let above = word.wrapping_add(0x4646_4646_4646_4646);
    let below = word.wrapping_sub(0x3030_3030_3030_3030);
    ((above | below) & 0x8080_8080_8080_8080).trailing_zeros() as usize / 8
}

/// The number written by the lowest `count` bytes of `word` (ASCII digits,
/// the first in the lowest byte; `count <= 8`).
#[inline]
fn digits_value(word: u64, count: usize) -> u64 {
    if count == 0 {
        return 0;
    }
    // Digit values moved to the top bytes: the bytes below are leading
    // zeros. A borrow from a byte past `count` only moves up and out.
    let values = word.wrapping_sub(0x3030_3030_3030_3030) << (8 * (8 - count));
    eight_digit_value(values)
}

/// The number written by eight digit values (0 to 9), the first in the
/// lowest byte.
#[inline]
fn eight_digit_value(word: u64) -> u64 {
    const MASK: u64 = 0x0000_00FF_0000_00FF;
    const MUL1: u64 = 100 + (1_000_000 << 32);
    const MUL2: u64 = 1 + (10_000 << 32);
    let pairs = word.wrapping_mul(10).wrapping_add(word >> 8);
    ((pairs & MASK)
        .wrapping_mul(MUL1)
        .wrapping_add(((pairs >> 16) & MASK).wrapping_mul(MUL2)))
        >> 32
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

    /// A window's line is plain ASCII exactly when none of its own bytes is
    /// 0x7F or more, wherever that byte is in the 64 bytes read (either
    /// half, every position) and whatever the next line holds.
    #[test]
    fn plain_ascii_looks_at_the_line_only() {
        let line = b"q1 Q0 d1 1 2.5 tag\n";
        for (total, at_most) in [(32usize, 32usize), (64, 64)] {
            // A line ending in the high half when `total` is 64.
            let mut base = vec![b'x'; total];
            let end = at_most - 3;
            base[..line.len() - 1].copy_from_slice(&line[..line.len() - 1]);
            base[end] = b'\n';
            let plain = Window::new(&base).unwrap();
            assert_eq!(plain.line_end(), end);
            assert!(plain.plain_ascii(&base), "{total}");
            for at in 0..total {
                for wide in [0x7f, 0x80, 0xc3, 0xff] {
                    let mut bytes = base.clone();
                    bytes[at] = wide;
                    let Some(window) = Window::new(&bytes) else {
                        continue;
                    };
                    assert_eq!(
                        window.plain_ascii(&bytes),
                        at > end,
                        "{total} {at} {wide:#x}"
                    );
                }
            }
        }
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
                assert_eq!(fast.value().to_bits(), exact.to_bits(), "{text}");
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

    /// Whether `text` is a decimal that `decimal_at` must read: an
    /// optional sign, at most 7 digits, optionally a point and at most 8
    /// digits, and a digit somewhere.
    fn fast_path_shape(text: &str) -> bool {
        let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
        let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
        let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
        digits(whole)
            && digits(fraction)
            && whole.len() <= 7
            && fraction.len() <= 8
            && whole.len() + fraction.len() > 0
    }

    #[test]
    fn eight_bytes_at_a_time_agree_with_the_general_path() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut texts: Vec<String> = [
            "0",
            "-0",
            "+0",
            "0.0",
            "1.",
            ".5",
            "-.5",
            "+.5",
            "22.809361",
            "-3.25",
            "999999999999999",
            "9999999999999999",
            "99999999.9999999",
            "0.000000000000001",
            "123456789.012345",
            "1.000000001",
            "",
            "-",
            "+",
            ".",
            "-.",
            "1.2.3",
            "1e5",
            "12a4",
            "1 2",
            "--1",
            "+-1",
            "0x10",
            "1,5",
            "inf",
            "nan",
            "١٢",
            "/",
            ":",
        ]
        .iter()
        .map(|t| (*t).to_owned())
        .collect();
        let others = b".-+e/: x";
        for _ in 0..400_000 {
            let len = next(18) as usize;
            let text: String = (0..len)
                .map(|_| {
                    // Mostly digits; points, signs and other bytes now and then.
                    let pick = next(32) as usize;
                    char::from(match pick {
                        0..24 => b'0' + (pick % 10) as u8,
                        _ => others[pick - 24],
                    })
                })
                .collect();
            texts.push(text);
            // A decimal of the fast path's shape, and the same with one byte
            // changed.
            let whole: String = (0..next(9))
                .map(|_| char::from(b'0' + next(10) as u8))
                .collect();
            let fraction: String = (0..next(10))
                .map(|_| char::from(b'0' + next(10) as u8))
                .collect();
            let sign = ["", "-", "+"][next(3) as usize];
            let decimal = format!("{sign}{whole}.{fraction}");
            let mut changed = decimal.clone().into_bytes();
            let at = next(changed.len() as u64) as usize;
            changed[at] = others[next(others.len() as u64) as usize];
            texts.push(decimal);
            texts.push(String::from_utf8(changed).unwrap());
        }
        let mut fast = 0;
        for text in &texts {
            // The field inside a line, with bytes after it as in a file.
            let line = format!("q Q0 d 1 {text} tag-with-some-length\n");
            let start = 9;
            let end = start + text.len();
            let general = parse_f64("score", text.as_bytes()).ok();
            if let Some(decimal) = decimal_at(line.as_bytes(), start, end) {
                fast += 1;
                let general = general.unwrap_or_else(|| panic!("{text:?} is not a number"));
                assert_eq!(decimal.value().to_bits(), general.to_bits(), "{text:?}");
                assert_eq!(plain_decimal(text.as_bytes()), Some(decimal), "{text:?}");
            } else {
                assert!(!fast_path_shape(text), "{text:?} must take the fast path");
            }
        }
        assert!(fast > 200_000, "{fast}");
        // Too few bytes after the field: left to the general path.
        assert_eq!(decimal_at(b"1.5", 0, 3), None);
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_f64("score", b"2.129133").unwrap(), 2.129133);
        assert_eq!(parse_f64("score", b"-1e-3").unwrap(), -1e-3);
        assert!(parse_f64("score", b"1.2.3").is_err());
        assert!(parse_f64("score", b"").is_err());
    }
}
