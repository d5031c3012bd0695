//! The `beta` of the F-measure: how many times recall weighs more than
//! precision.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};

/// F-measure's `beta`, a positive finite number: `F_beta = (1 + beta^2) P R
/// / (beta^2 P + R)`. 1 is the harmonic mean (F1); 2 weighs recall more,
/// 0.5 precision.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct Beta(f64);

impl Beta {
    /// `beta = 1`: F1, the harmonic mean of precision and recall.
    pub const ONE: Beta = Beta(1.0);

    /// `beta`, or `None` unless it is positive and finite.
    pub fn new(beta: f64) -> Option<Self> {
        (beta > 0.0 && beta.is_finite()).then_some(Beta(beta))
    }

    /// The value of `beta`.
    pub const fn get(self) -> f64 {
        self.0
    }
}

impl Default for Beta {
    fn default() -> Self {
        Self::ONE
    }
}

impl fmt::Display for Beta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<'de> Deserialize<'de> for Beta {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BetaVisitor;
        impl Visitor<'_> for BetaVisitor {
            type Value = Beta;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a positive number")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Beta, E> {
                Beta::new(v).ok_or_else(|| {
                    E::custom(format!(
                        "beta must be a positive number (1 = F1, 2 weighs recall more), not {v}"
                    ))
                })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Beta, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Beta, E> {
                self.visit_f64(v as f64)
            }
        }
        deserializer.deserialize_f64(BetaVisitor)
    }
}
