//! One parameter value, as written in the short syntax or a TOML table.
//!
//! Both front ends turn their input into `(name, ParamValue)` pairs, which
//! are deserialized into a plugin through typetag: one path, one set of
//! errors.

use std::fmt;

use serde::de::{self, IntoDeserializer, Visitor};

/// A parameter value: a boolean, an integer, a float or a string.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// `true` or `false`.
    Bool(bool),
    /// An integer, e.g. `k = 10`.
    Integer(i64),
    /// An integer beyond the range of `i64` (held as `i128`, saturated past
    /// it), so that the parameter it is given to can say it is too large
    /// rather than that it is not an integer.
    BigInteger(i128),
    /// A float, e.g. `p = 0.8`.
    Float(f64),
    /// A string, e.g. `normalization = "truncated"`.
    String(String),
}

impl ParamValue {
    /// Reads unquoted text from the short syntax: `true`/`false`, an
    /// integer, a float, or else a string.
    pub fn from_text(text: &str) -> Self {
        match text {
            "true" => ParamValue::Bool(true),
            "false" => ParamValue::Bool(false),
            _ => {
                if let Ok(i) = text.parse::<i64>() {
                    ParamValue::Integer(i)
                } else if let Some(big) = parse_big_integer(text) {
                    big
                } else if let Some(f) = parse_float(text) {
                    ParamValue::Float(f)
                } else {
                    ParamValue::String(text.to_owned())
                }
            }
        }
    }

    /// An integer written in decimal digits (as after `@` in the short
    /// syntax): `Integer` if it fits in `i64`, else `BigInteger`; `None` if
    /// `digits` is not an optional sign and one or more ASCII digits.
    pub fn from_digits(digits: &str) -> Option<Self> {
        match digits.parse::<i64>() {
            Ok(i) => Some(ParamValue::Integer(i)),
            Err(_) => parse_big_integer(digits),
        }
    }

    /// What kind of value this is, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            ParamValue::Bool(_) => "a boolean",
            ParamValue::Integer(_) | ParamValue::BigInteger(_) => "an integer",
            ParamValue::Float(_) => "a float",
            ParamValue::String(_) => "a string",
        }
    }
}

/// An optional sign and digits too large for `i64`, saturated to `i128`.
fn parse_big_integer(text: &str) -> Option<ParamValue> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let saturated = if text.starts_with('-') {
        i128::MIN
    } else {
        i128::MAX
    };
    Some(ParamValue::BigInteger(text.parse().unwrap_or(saturated)))
}

/// Floats as the short syntax writes them: digits, with a point or exponent;
/// not `inf` or `nan`, which are strings there.
fn parse_float(text: &str) -> Option<f64> {
    let looks_numeric = text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && text.bytes().any(|b| b.is_ascii_digit());
    if looks_numeric {
        text.parse().ok()
    } else {
        None
    }
}

/// Whether a string prints bare in the short syntax and reads back as the
/// same string.
fn prints_bare(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        && matches!(ParamValue::from_text(s), ParamValue::String(_))
}

impl fmt::Display for ParamValue {
    /// The short-syntax form, which [`from_text`](Self::from_text) (or the
    /// quoted-string rule of the syntax) reads back to an equal value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Integer(i) => write!(f, "{i}"),
            ParamValue::BigInteger(i) => write!(f, "{i}"),
            ParamValue::Float(x) => {
                if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e15 {
                    write!(f, "{x:.1}")
                } else {
                    write!(f, "{x}")
                }
            }
            ParamValue::String(s) if prints_bare(s) => f.write_str(s),
            ParamValue::String(s) => {
                f.write_str("\"")?;
                for c in s.chars() {
                    if c == '"' || c == '\\' {
                        f.write_str("\\")?;
                    }
                    write!(f, "{c}")?;
                }
                f.write_str("\"")
            }
        }
    }
}

impl<'de> de::Deserializer<'de> for ParamValue {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self {
            ParamValue::Bool(b) => visitor.visit_bool(b),
            ParamValue::Integer(i) => visitor.visit_i64(i),
            ParamValue::BigInteger(i) => visitor.visit_i128(i),
            ParamValue::Float(x) => visitor.visit_f64(x),
            ParamValue::String(s) => visitor.visit_string(s),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self {
            ParamValue::String(s) => s
                .into_deserializer()
                .deserialize_enum(name, variants, visitor),
            other => other.deserialize_any(visitor),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

impl<'de> IntoDeserializer<'de, de::value::Error> for ParamValue {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_reads_as_the_narrowest_type() {
        assert_eq!(ParamValue::from_text("10"), ParamValue::Integer(10));
        assert_eq!(ParamValue::from_text("-2"), ParamValue::Integer(-2));
        assert_eq!(ParamValue::from_text("0.8"), ParamValue::Float(0.8));
        assert_eq!(ParamValue::from_text("1e-3"), ParamValue::Float(1e-3));
        assert_eq!(ParamValue::from_text("true"), ParamValue::Bool(true));
        assert_eq!(
            ParamValue::from_text("truncated"),
            ParamValue::String("truncated".into())
        );
        assert_eq!(
            ParamValue::from_text("inf"),
            ParamValue::String("inf".into())
        );
        // Past i64, still an integer (not a float), so `k` can say it is too large.
        assert_eq!(
            ParamValue::from_text("99999999999999999999"),
            ParamValue::BigInteger(99_999_999_999_999_999_999)
        );
        assert_eq!(
            ParamValue::from_text("-9223372036854775809"),
            ParamValue::BigInteger(-9_223_372_036_854_775_809)
        );
        assert_eq!(
            ParamValue::from_digits(&"9".repeat(50)),
            Some(ParamValue::BigInteger(i128::MAX))
        );
        assert_eq!(ParamValue::from_digits("12"), Some(ParamValue::Integer(12)));
        assert_eq!(ParamValue::from_digits(""), None);
        assert_eq!(ParamValue::from_digits("1.5"), None);
    }

    #[test]
    fn display_reads_back() {
        for value in [
            ParamValue::Integer(3),
            ParamValue::Float(0.8),
            ParamValue::Float(1.0),
            ParamValue::Float(1e-7),
            ParamValue::BigInteger(99_999_999_999_999_999_999),
            ParamValue::Bool(false),
            ParamValue::String("hits".into()),
        ] {
            assert_eq!(ParamValue::from_text(&value.to_string()), value, "{value}");
        }
        assert_eq!(ParamValue::String("10".into()).to_string(), "\"10\"");
        assert_eq!(ParamValue::String("a b".into()).to_string(), "\"a b\"");
    }
}
