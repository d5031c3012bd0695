//! What the built-in aggregators share to finish their mergeable states
//! (`rankeval_core::aggregate_state`).

use rankeval_core::aggregate_state::SumState;
use rankeval_core::{AggregateState, AggregateStateError, Aggregator};

/// `finish` of a [`Sum`](AggregateState::Sum) state: NaN for no value (as
/// every aggregator gives), else `value(sum)`; an error for another kind.
pub(super) fn from_sum(
    aggregator: &dyn Aggregator,
    state: AggregateState,
    value: impl FnOnce(&SumState) -> f64,
) -> Result<f64, AggregateStateError> {
    match state {
        AggregateState::Sum(sum) if sum.n == 0 => Ok(f64::NAN),
        AggregateState::Sum(sum) => Ok(value(&sum)),
        other => Err(wrong_kind(aggregator, &other)),
    }
}

/// The error of `aggregator` given a state of a kind it does not finish.
pub(super) fn wrong_kind(
    aggregator: &dyn Aggregator,
    state: &AggregateState,
) -> AggregateStateError {
    AggregateStateError::WrongKind {
        aggregator: aggregator.name(),
        kind: state.kind(),
    }
}

#[cfg(test)]
mod tests {
    use rankeval_core::registry::{aggregators, parse_aggregator};
    use rankeval_core::{AggregateState, Aggregator};

    /// Columns that stress the exact merges: signed zeros, NaN, infinities,
    /// values near `f64::MAX` (whose sums leave the partials), ties.
    fn columns() -> Vec<Vec<f64>> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            state
        };
        let mut random: Vec<f64> = (0..300)
            .map(|_| (next() >> 11) as f64 / (1u64 << 53) as f64)
            .collect();
        random.extend([0.0, -0.0, 0.5, 0.5, 0.0]);
        let max = f64::MAX;
        vec![
            random,
            vec![0.25],
            vec![0.0, -0.0, -0.0, 0.0],
            vec![max, max, -max, 1e-300, 3.0],
            vec![1e300, 2e300, 1e-10, 0.0],
            vec![0.5, f64::NAN, 0.25],
            vec![f64::INFINITY, 0.5, 0.75],
            vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        ]
    }

    /// `aggregator`'s state of `column` in `parts` parts (query `i` in part
    /// `i % parts`, queries named so that their byte order is not the
    /// parts'), each sent as bytes and merged last part first.
    fn merged(aggregator: &dyn Aggregator, column: &[f64], parts: usize) -> AggregateState {
        let mut states: Vec<AggregateState> = (0..parts).map(|_| aggregator.state()).collect();
        for (i, &value) in column.iter().enumerate() {
            let query = format!("q{i:04}");
            aggregator.update(&mut states[i % parts], query.as_bytes(), value);
        }
        let mut out = aggregator.state();
        for state in states.iter().rev() {
            let back = AggregateState::from_bytes(&state.to_bytes()).expect("its own bytes");
            out.merge(back).expect("one kind");
        }
        out
    }

    #[test]
    fn every_built_in_finishes_any_split_to_the_bits_of_aggregate() {
        let mut specs: Vec<String> = aggregators().iter().map(|d| d.name.to_owned()).collect();
        specs.extend(["std(ddof=0)", "gmean(floor=0.001)", "ci(level=0.9)"].map(str::to_owned));
        for spec in &specs {
            let aggregator = parse_aggregator(spec).expect("built in");
            for column in columns() {
                let want = aggregator.aggregate(&column);
                for parts in [1, 2, 3, 8, column.len().max(1)] {
                    let got = aggregator
                        .finish(merged(aggregator.as_ref(), &column, parts))
                        .expect("finishes its own state");
                    assert!(
                        got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                        "{spec} of {column:?} in {parts} parts: {got} != {want}"
                    );
                }
            }
            assert!(
                aggregator
                    .finish(aggregator.state())
                    .expect("empty")
                    .is_nan(),
                "{spec} of no value"
            );
        }
    }

    #[test]
    fn compact_states_where_the_order_does_not_matter() {
        let kind = |spec: &str| parse_aggregator(spec).expect("built in").state().kind();
        assert_eq!(kind("mean"), "sum");
        assert_eq!(kind("sum"), "sum");
        assert_eq!(kind("gmean"), "sum");
        assert_eq!(kind("min"), "range");
        assert_eq!(kind("max"), "range");
        assert_eq!(kind("std"), "counts");
        assert_eq!(kind("median"), "counts");
        // The bootstrap interval resamples by position: every (query, value).
        assert_eq!(kind("ci"), "values");
    }

    #[test]
    fn a_state_of_another_aggregator_is_an_error() {
        let mean = parse_aggregator("mean").expect("built in");
        let min = parse_aggregator("min").expect("built in");
        let error = mean.finish(min.state()).expect_err("a range is not a sum");
        assert!(error.to_string().contains("`mean`"), "{error}");
        assert!(min.finish(mean.state()).is_err());
    }
}
