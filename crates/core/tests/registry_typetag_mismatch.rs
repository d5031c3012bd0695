//! The startup check catches a metric whose registered name is not its
//! typetag name, naming both (its own test binary: the registry here holds
//! only this metric).

use rankeval_core::{JudgedRanking, Metric, RegistryError};
use serde::{Deserialize, Serialize};

/// A metric registered under another name than its typetag name.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Mismatched {
    k: usize,
}

#[typetag::serde(name = "top_share")]
impl Metric for Mismatched {
    fn name(&self) -> String {
        "top_shares".into()
    }
    fn score(&self, _q: &JudgedRanking<'_>) -> f64 {
        0.0
    }
}

rankeval_core::register_metric! {
    name: "top_shares",
    aliases: &[],
    summary: "registered under another name than its typetag name",
    params: &[],
    example: || Box::new(Mismatched { k: 3 }),
}

#[test]
fn a_typetag_name_unlike_the_registered_name_fails_the_check() {
    let error = rankeval_core::registry::check().unwrap_err();
    assert!(
        matches!(
            &error,
            RegistryError::TypetagMismatch { name: "top_shares", typetag, .. } if typetag == "top_share"
        ),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.starts_with("metric registered as `top_shares` at ")
            && message.contains("registry_typetag_mismatch.rs:")
            && message.ends_with(
                "serializes as `top_share` (its #[typetag::serde(name = \"top_share\")]): the two names must be the same"
            ),
        "{message}"
    );
}
