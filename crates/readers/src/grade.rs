//! Grades as every reader takes them: one parser and one check, so that a
//! grade means the same in TREC qrels, CSV, JSON Lines and any format added
//! later, and is refused with the same words.
//!
//! A grade is a finite number between -2147483647 and 2147483647, integer
//! (`2`, `2.0`, `+1e0`) or decimal (`3.5`, `0.25`); see
//! [`rankeval_core::Grade`]. NaN and infinities are refused (a reader names
//! the file and line).

use rankeval_core::{Grade, GradeError, check_grade};

/// What a reader says was expected when a grade field is not a number.
pub(crate) const EXPECTED_GRADE: &str = "a grade (an integer or a decimal such as 3.5)";

/// The grade written as `text` (already cut from its field; no spaces), or
/// what was expected instead.
#[inline]
pub(crate) fn parse_grade(text: &[u8]) -> Result<Grade, &'static str> {
    let number = match integer(text) {
        Some(integer) => integer,
        None => fast_float2::parse::<f64, _>(text).map_err(|_| EXPECTED_GRADE)?,
    };
    grade_from_number(number)
}

/// A number read by a structured format (a JSON number, a column value) as
/// a grade, or what was expected instead.
#[inline]
pub(crate) fn grade_from_number(number: f64) -> Result<Grade, &'static str> {
    check_grade(number).map_err(expected)
}

/// A number as messages show it: `3.5`, `10000000000`, but `1e300` rather
/// than 301 digits.
pub(crate) fn shown(number: f64) -> String {
    if number.abs() < 1e16 {
        number.to_string()
    } else {
        format!("{number:e}")
    }
}

/// What was expected, for a number [`check_grade`] refused.
pub(crate) fn expected(error: GradeError) -> &'static str {
    match error {
        GradeError::NotFinite => "a finite grade",
        GradeError::OutOfRange => "a grade between -2147483647 and 2147483647",
    }
}

/// A plain integer of up to 15 digits (the common case), read without the
/// general float parser; `None` for anything else.
#[inline]
fn integer(text: &[u8]) -> Option<f64> {
    let (negative, digits) = match text {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, text),
    };
    if digits.is_empty() || digits.len() > 15 {
        return None;
    }
    let mut value: i64 = 0;
    for &b in digits {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value * 10 + i64::from(digit);
    }
    // Below 10^15 < 2^53: exact as an f64.
    Some(if negative { -value } else { value } as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_and_decimals_are_grades() {
        for (text, grade) in [
            ("2", 2.0),
            ("-1", -1.0),
            ("+3", 3.0),
            ("0", 0.0),
            ("-0", 0.0),
            ("2.0", 2.0),
            ("3.5", 3.5),
            ("0.5", 0.5),
            ("-0.25", -0.25),
            ("1e0", 1.0),
            ("2147483647", 2147483647.0),
            ("-2147483647", -2147483647.0),
        ] {
            let got = parse_grade(text.as_bytes()).unwrap();
            assert_eq!(got.to_bits(), f64::to_bits(grade), "{text}");
        }
    }

    #[test]
    fn non_numbers_non_finite_and_huge_numbers_are_refused() {
        for text in ["", "x", "1x", "1.2.3", "--1", "0x10", " 1"] {
            assert_eq!(parse_grade(text.as_bytes()), Err(EXPECTED_GRADE), "{text}");
        }
        for text in ["nan", "NaN", "inf", "-inf", "infinity", "1e400"] {
            assert_eq!(
                parse_grade(text.as_bytes()),
                Err("a finite grade"),
                "{text}"
            );
        }
        for text in ["2147483648", "-2147483648", "1e12", "12345678901234567890"] {
            assert_eq!(
                parse_grade(text.as_bytes()),
                Err("a grade between -2147483647 and 2147483647"),
                "{text}"
            );
        }
    }

    #[test]
    fn integers_read_as_the_general_parser_reads_them() {
        for value in [0i64, 1, -1, 7, 999_999_999_999_999, -123_456_789] {
            let text = value.to_string();
            let fast = integer(text.as_bytes()).unwrap();
            let general: f64 = fast_float2::parse(text.as_bytes()).unwrap();
            assert_eq!(fast.to_bits(), general.to_bits(), "{text}");
        }
    }
}
