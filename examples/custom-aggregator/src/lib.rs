//! A team's own aggregators for rankeval, usable by name on the command
//! line (`-a trimmed_mean`), in TOML (`aggregators = ["trimmed_mean"]`),
//! from Python and on Spark, once this crate is linked:
//!
//! - **`trimmed_mean(cut=0.1)`**: the mean of the per-query values left
//!   after dropping the `floor(cut * n)` smallest and as many largest
//!   (`scipy.stats.trim_mean`): a mean that a few outlying queries do not
//!   move. It implements [`Aggregator::aggregate`] only: on Spark its
//!   state keeps every value with its query, and the driver calls
//!   `aggregate` on the whole column in the command line's order, so the
//!   bits are the command line's with no code of its own.
//! - **`share_at_least(threshold=0.5)`**: the share of queries whose value
//!   is at least `threshold` (a "success rate" of a per-query metric). Its
//!   aggregate needs only a count, so it overrides the state with a
//!   compact one: the number of values and the exact sum of 1s and 0s,
//!   which merges by addition.

use rankeval_core::aggregate_state::SumState;
use rankeval_core::registry::ParamDoc;
use rankeval_core::{AggregateState, AggregateStateError, Aggregator, CanonicalName};
use serde::{Deserialize, Serialize};

/// The default share cut from each end.
pub const DEFAULT_CUT: f64 = 0.1;

/// The trimmed mean of `values`: sorted (IEEE total order), `floor(cut *
/// n)` values dropped from each end, the rest summed from the smallest up
/// and divided by their number; NaN when nothing is left.
///
/// ```
/// use rankeval_example_custom_aggregator::trimmed_mean;
/// // n = 10, cut 0.1: the smallest (0) and the largest (100) are dropped.
/// let values = [0.5, 0.2, 100.0, 0.4, 0.3, 0.0, 0.6, 0.7, 0.8, 0.9];
/// assert_eq!(trimmed_mean(&values, 0.1), (0.2 + 0.3 + 0.4 + 0.5 + 0.6 + 0.7 + 0.8 + 0.9) / 8.0);
/// ```
pub fn trimmed_mean(values: &[f64], cut: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let drop = (cut * sorted.len() as f64).floor() as usize;
    let kept = sorted
        .get(drop..sorted.len().saturating_sub(drop))
        .unwrap_or(&[]);
    if kept.is_empty() {
        return f64::NAN;
    }
    // A plain sum, left to right: its bits depend on the order, which the
    // sort fixes.
    kept.iter().sum::<f64>() / kept.len() as f64
}

/// The `trimmed_mean` aggregator (alias `trim_mean`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrimmedMean {
    /// The share of values cut from each end, in [0, 0.5).
    #[serde(default = "default_cut")]
    pub cut: f64,
}

fn default_cut() -> f64 {
    DEFAULT_CUT
}

#[rankeval_core::aggregator(
    name = "trimmed_mean",
    aliases = &["trim_mean"],
    summary = "mean without the cut share of smallest and largest values (scipy trim_mean)",
    params = &[ParamDoc {
        name: "cut",
        alias: None,
        default: "0.1",
        doc: "share of the values dropped from each end, at least 0 and below 0.5",
    }],
    example = TrimmedMean { cut: 0.2 },
)]
impl Aggregator for TrimmedMean {
    fn name(&self) -> String {
        CanonicalName::new("trimmed_mean")
            .param_unless_default("cut", self.cut, DEFAULT_CUT)
            .finish()
    }

    fn aggregate(&self, per_query: &[f64]) -> f64 {
        trimmed_mean(per_query, self.cut)
    }

    fn validate(&self) -> Result<(), String> {
        if (0.0..0.5).contains(&self.cut) {
            Ok(())
        } else {
            Err(format!(
                "cut must be at least 0 and below 0.5, not {}",
                self.cut
            ))
        }
    }
}

/// The default threshold of `share_at_least`.
pub const DEFAULT_THRESHOLD: f64 = 0.5;

/// The share of `values` that are at least `threshold` (NaN is not); NaN
/// when there are none.
///
/// ```
/// use rankeval_example_custom_aggregator::share_at_least;
/// assert_eq!(share_at_least(&[0.2, 0.5, 0.9, f64::NAN], 0.5), 2.0 / 4.0);
/// ```
pub fn share_at_least(values: &[f64], threshold: f64) -> f64 {
    let hits = values.iter().filter(|v| **v >= threshold).count();
    hits as f64 / values.len() as f64
}

/// The `share_at_least` aggregator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShareAtLeast {
    /// The value a query must reach.
    #[serde(default = "default_threshold")]
    pub threshold: f64,
}

fn default_threshold() -> f64 {
    DEFAULT_THRESHOLD
}

#[rankeval_core::aggregator(
    name = "share_at_least",
    summary = "share of the queries whose value is at least the threshold",
    params = &[ParamDoc {
        name: "threshold",
        alias: None,
        default: "0.5",
        doc: "the value a query must reach",
    }],
    example = ShareAtLeast { threshold: 0.8 },
)]
impl Aggregator for ShareAtLeast {
    fn name(&self) -> String {
        CanonicalName::new("share_at_least")
            .param_unless_default("threshold", self.threshold, DEFAULT_THRESHOLD)
            .finish()
    }

    fn aggregate(&self, per_query: &[f64]) -> f64 {
        share_at_least(per_query, self.threshold)
    }

    /// A compact state: n and the exact sum of the 1s and 0s.
    fn state(&self) -> AggregateState {
        AggregateState::sum()
    }

    fn update(&self, state: &mut AggregateState, query: &[u8], value: f64) {
        state.add(query, f64::from(u8::from(value >= self.threshold)));
    }

    fn finish(&self, state: AggregateState) -> Result<f64, AggregateStateError> {
        match state {
            // hits / n, as `aggregate` divides (0 / 0 is NaN).
            AggregateState::Sum(SumState { n, sum }) => Ok(sum.value() / n as f64),
            other => Err(AggregateStateError::WrongKind {
                aggregator: self.name(),
                kind: other.kind(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rankeval_core::registry::parse_aggregator;

    /// `aggregator`'s states of `values` in `parts` parts, sent as bytes,
    /// merged and finished.
    fn split(aggregator: &dyn Aggregator, values: &[f64], parts: usize) -> f64 {
        let mut states: Vec<AggregateState> = (0..parts).map(|_| aggregator.state()).collect();
        for (i, &v) in values.iter().enumerate() {
            aggregator.update(&mut states[i % parts], format!("q{i:03}").as_bytes(), v);
        }
        let mut merged = aggregator.state();
        for state in states {
            merged
                .merge(AggregateState::from_bytes(&state.to_bytes()).expect("its bytes"))
                .expect("one kind");
        }
        aggregator.finish(merged).expect("its own state")
    }

    #[test]
    fn registered_by_name_with_their_parameters() {
        rankeval_core::registry::check().expect("names unique and well formed");
        let trimmed = parse_aggregator("trim_mean(cut=0.25)").expect("registered");
        assert_eq!(trimmed.name(), "trimmed_mean(cut=0.25)");
        assert_eq!(
            parse_aggregator("trimmed_mean").expect("default").name(),
            "trimmed_mean"
        );
        let refused = parse_aggregator("trimmed_mean(cut=0.5)").expect_err("validated");
        assert!(refused.to_string().contains("below 0.5"), "{refused}");
        let share = parse_aggregator("share_at_least(threshold=0.8)").expect("registered");
        assert_eq!(share.name(), "share_at_least(threshold=0.8)");
    }

    #[test]
    fn merged_states_give_the_bits_of_aggregate() {
        let values: Vec<f64> = (0..101).map(|i| f64::from((i * 37) % 101) / 97.0).collect();
        for aggregator in [
            parse_aggregator("trimmed_mean").expect("registered"),
            parse_aggregator("trimmed_mean(cut=0.3)").expect("registered"),
            parse_aggregator("share_at_least(threshold=0.6)").expect("registered"),
        ] {
            let want = aggregator.aggregate(&values);
            for parts in [1, 3, 8] {
                let got = split(aggregator.as_ref(), &values, parts);
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "{} in {parts}",
                    aggregator.name()
                );
            }
            assert!(
                aggregator
                    .finish(aggregator.state())
                    .expect("empty")
                    .is_nan()
            );
        }
        assert_eq!(ShareAtLeast { threshold: 0.5 }.state().kind(), "sum");
        assert_eq!(TrimmedMean { cut: 0.1 }.state().kind(), "values");
    }
}
