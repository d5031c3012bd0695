//! The two parameters every metric shares: the cutoff `k` and the relevance
//! level `rel`. Both refuse nonsense at deserialization, so a TOML table and
//! the short syntax report the same error.

use std::fmt;
use std::num::NonZeroUsize;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};

use crate::grade::{Grade, MAX_GRADE};

/// A rank cutoff `k`: a positive integer. `k = 0` is a configuration error
/// (the spec), not "no cutoff"; no cutoff is `Option::<Cutoff>::None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Cutoff(NonZeroUsize);

impl Cutoff {
    /// The cutoff `k`, or `None` if `k` is 0.
    pub const fn new(k: usize) -> Option<Self> {
        match NonZeroUsize::new(k) {
            Some(k) => Some(Cutoff(k)),
            None => None,
        }
    }

    /// The value of `k`.
    pub const fn get(self) -> usize {
        self.0.get()
    }
}

impl fmt::Display for Cutoff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<'de> Deserialize<'de> for Cutoff {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CutoffVisitor;
        impl Visitor<'_> for CutoffVisitor {
            type Value = Cutoff;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a positive integer")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Cutoff, E> {
                match usize::try_from(v) {
                    Ok(k) => Cutoff::new(k).ok_or_else(|| E::custom("k must be a positive integer; 0 is not a cutoff (leave k out to use the whole list)")),
                    Err(_) => Err(too_large()),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Cutoff, E> {
                match u64::try_from(v) {
                    Ok(v) => self.visit_u64(v),
                    Err(_) => Err(E::custom(format!("k must be a positive integer, not {v}"))),
                }
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Cutoff, E> {
                match u64::try_from(v) {
                    Ok(v) => self.visit_u64(v),
                    Err(_) => Err(too_large()),
                }
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Cutoff, E> {
                match u128::try_from(v) {
                    Ok(v) => self.visit_u128(v),
                    Err(_) => Err(E::custom(
                        "k must be a positive integer, not a negative one",
                    )),
                }
            }
        }
        deserializer.deserialize_u64(CutoffVisitor)
    }
}

/// `k` beyond any list's length; the same words whether it came from the
/// short syntax or a TOML table (as an `i64`, `u64` or `i128`).
fn too_large<E: de::Error>() -> E {
    E::custom(format!(
        "k is too large: the largest cutoff is {}",
        usize::MAX
    ))
}

/// The relevance level `rel`: documents with a grade of at least this are
/// relevant (trec_eval's `-l`). Any positive finite number: `rel = 2`,
/// `rel = 3.5` (half-star ratings), `rel = 0.5`. Grades of 0 and below are
/// never relevant (and unjudged documents have grade 0), so `rel` must be
/// above 0; a level between 0 and 1 makes every positive grade from it up
/// relevant (`rel = 0.5`: grades 0.5, 1, 1.5, ...).
#[derive(Clone, Copy, Debug)]
pub struct RelevanceLevel(Grade);

impl RelevanceLevel {
    /// The default level, 1.
    pub const DEFAULT: RelevanceLevel = RelevanceLevel(1.0);

    /// The level `level`, or `None` unless it is a positive finite number
    /// no larger than [`MAX_GRADE`].
    pub fn new(level: impl Into<f64>) -> Option<Self> {
        let level = level.into();
        (level > 0.0 && level <= MAX_GRADE).then_some(RelevanceLevel(level))
    }

    /// The lowest relevant grade.
    pub const fn get(self) -> Grade {
        self.0
    }
}

// Levels are positive and finite: their bits order as their values do.
impl PartialEq for RelevanceLevel {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for RelevanceLevel {}

impl std::hash::Hash for RelevanceLevel {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

impl PartialOrd for RelevanceLevel {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for RelevanceLevel {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl Default for RelevanceLevel {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl fmt::Display for RelevanceLevel {
    /// `2` for an integer level, `3.5` for a decimal one (Rust's shortest
    /// round-trip form), as the short syntax takes it back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Serialize for RelevanceLevel {
    /// An integer level as an integer (`rel = 2` in TOML and JSON, as
    /// written), a decimal one as a float.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0.fract() == 0.0 {
            serializer.serialize_i64(self.0 as i64)
        } else {
            serializer.serialize_f64(self.0)
        }
    }
}

/// The error for a level that is not a positive number.
fn not_positive<E: de::Error>(v: impl fmt::Display) -> E {
    E::custom(format!(
        "rel must be a positive grade, not {v} (grades of 0 and below are never relevant)"
    ))
}

/// The error for a level beyond every grade.
fn level_too_large<E: de::Error>() -> E {
    E::custom(format!(
        "rel is too large: the largest grade is {}",
        MAX_GRADE
    ))
}

impl<'de> Deserialize<'de> for RelevanceLevel {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct LevelVisitor;
        impl Visitor<'_> for LevelVisitor {
            type Value = RelevanceLevel;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a positive grade (an integer or a decimal such as 3.5)")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RelevanceLevel, E> {
                self.visit_i128(v.into())
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RelevanceLevel, E> {
                self.visit_i128(v.into())
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<RelevanceLevel, E> {
                match i128::try_from(v) {
                    Ok(v) => self.visit_i128(v),
                    Err(_) => Err(level_too_large()),
                }
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<RelevanceLevel, E> {
                if v < 1 {
                    Err(not_positive(v))
                } else if v > MAX_GRADE as i128 {
                    Err(level_too_large())
                } else {
                    Ok(RelevanceLevel(v as f64))
                }
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<RelevanceLevel, E> {
                if v.is_nan() || v <= 0.0 {
                    Err(not_positive(v))
                } else if v > MAX_GRADE {
                    Err(level_too_large())
                } else {
                    Ok(RelevanceLevel(v))
                }
            }
        }
        deserializer.deserialize_any(LevelVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutoff_refuses_zero_negative_and_fractions() {
        let ok: Cutoff = serde_json::from_str("10").unwrap();
        assert_eq!(ok.get(), 10);
        for bad in ["0", "-3", "2.5", "\"10\""] {
            assert!(serde_json::from_str::<Cutoff>(bad).is_err(), "{bad}");
        }
        let zero = serde_json::from_str::<Cutoff>("0").unwrap_err().to_string();
        assert!(zero.contains("k must be a positive integer"), "{zero}");
    }

    #[test]
    fn too_large_says_so_however_it_arrives() {
        use crate::params::ParamValue;
        let message = |value: ParamValue| Cutoff::deserialize(value).unwrap_err().to_string();
        let expected = format!("k is too large: the largest cutoff is {}", usize::MAX);
        assert_eq!(message(ParamValue::BigInteger(1 << 70)), expected);
        assert_eq!(message(ParamValue::BigInteger(i128::MAX)), expected);
        assert!(message(ParamValue::BigInteger(-(1 << 70))).contains("positive"));
        let level = |value: ParamValue| RelevanceLevel::deserialize(value).unwrap_err().to_string();
        for big in [
            ParamValue::Integer(1 << 40),
            ParamValue::BigInteger(1 << 70),
        ] {
            assert_eq!(
                level(big),
                "rel is too large: the largest grade is 2147483647"
            );
        }
        assert!(level(ParamValue::BigInteger(-(1 << 70))).contains("positive"));
        assert_eq!(
            level(ParamValue::Float(3e9)),
            "rel is too large: the largest grade is 2147483647"
        );
        assert_eq!(
            RelevanceLevel::deserialize(ParamValue::Integer(2147483647))
                .unwrap()
                .get(),
            MAX_GRADE
        );
    }

    #[test]
    fn level_is_a_positive_finite_grade() {
        assert_eq!(
            serde_json::from_str::<RelevanceLevel>("2").unwrap().get(),
            2.0
        );
        assert_eq!(
            serde_json::from_str::<RelevanceLevel>("3.5").unwrap().get(),
            3.5
        );
        assert_eq!(
            serde_json::from_str::<RelevanceLevel>("0.5").unwrap().get(),
            0.5
        );
        for bad in ["0", "-1", "0.0", "-0.0", "-2.5", "\"2\"", "1e400"] {
            assert!(
                serde_json::from_str::<RelevanceLevel>(bad).is_err(),
                "{bad}"
            );
        }
        let zero = serde_json::from_str::<RelevanceLevel>("0")
            .unwrap_err()
            .to_string();
        assert!(
            zero.contains("rel must be a positive grade, not 0"),
            "{zero}"
        );
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 3e9] {
            assert_eq!(RelevanceLevel::new(bad), None, "{bad}");
        }
        assert_eq!(RelevanceLevel::new(2).unwrap().get(), 2.0);
    }

    #[test]
    fn level_prints_and_serializes_as_written() {
        let two = RelevanceLevel::new(2).unwrap();
        let half = RelevanceLevel::new(3.5).unwrap();
        assert_eq!(two.to_string(), "2");
        assert_eq!(half.to_string(), "3.5");
        assert_eq!(serde_json::to_string(&two).unwrap(), "2");
        assert_eq!(serde_json::to_string(&half).unwrap(), "3.5");
        assert!(two < half && RelevanceLevel::new(0.5).unwrap() < two);
    }
}
