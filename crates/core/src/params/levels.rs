//! The two parameters every metric shares: the cutoff `k` and the relevance
//! level `rel`. Both refuse nonsense at deserialization, so a TOML table and
//! the short syntax report the same error.

use std::fmt;
use std::num::NonZeroUsize;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};

use crate::judge::Grade;

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
/// relevant (trec_eval's `-l`). At least 1: grades of 0 and below are never
/// relevant, and unjudged documents have grade 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct RelevanceLevel(Grade);

impl RelevanceLevel {
    /// The default level, 1.
    pub const DEFAULT: RelevanceLevel = RelevanceLevel(1);

    /// The level `grade`, or `None` if it is below 1.
    pub const fn new(grade: Grade) -> Option<Self> {
        if grade >= 1 {
            Some(RelevanceLevel(grade))
        } else {
            None
        }
    }

    /// The lowest relevant grade.
    pub const fn get(self) -> Grade {
        self.0
    }
}

impl Default for RelevanceLevel {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl fmt::Display for RelevanceLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<'de> Deserialize<'de> for RelevanceLevel {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct LevelVisitor;
        impl Visitor<'_> for LevelVisitor {
            type Value = RelevanceLevel;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer grade of at least 1")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RelevanceLevel, E> {
                if let Ok(v) = u128::try_from(v)
                    && v > Grade::MAX as u128
                {
                    return self.visit_u128(v);
                }
                Grade::try_from(v).ok().and_then(RelevanceLevel::new).ok_or_else(|| {
                    E::custom(format!(
                        "rel must be a grade of at least 1, not {v} (grades of 0 and below are never relevant)"
                    ))
                })
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RelevanceLevel, E> {
                self.visit_u128(v.into())
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<RelevanceLevel, E> {
                match Grade::try_from(v) {
                    Ok(v) => self.visit_i64(v.into()),
                    Err(_) => Err(E::custom(format!(
                        "rel is too large: the largest grade is {}",
                        Grade::MAX
                    ))),
                }
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<RelevanceLevel, E> {
                match u128::try_from(v) {
                    Ok(v) => self.visit_u128(v),
                    Err(_) => Err(E::custom(format!(
                        "rel must be a grade of at least 1, not {v} (grades of 0 and below are never relevant)"
                    ))),
                }
            }
        }
        deserializer.deserialize_i64(LevelVisitor)
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
        assert!(level(ParamValue::BigInteger(-(1 << 70))).contains("at least 1"));
        assert_eq!(
            RelevanceLevel::deserialize(ParamValue::Integer(2147483647))
                .unwrap()
                .get(),
            Grade::MAX
        );
    }

    #[test]
    fn level_is_at_least_one() {
        assert_eq!(
            serde_json::from_str::<RelevanceLevel>("2").unwrap().get(),
            2
        );
        for bad in ["0", "-1", "1.5"] {
            assert!(
                serde_json::from_str::<RelevanceLevel>(bad).is_err(),
                "{bad}"
            );
        }
    }
}
