//! States built from any partition of a log, in any order, merge to the
//! same bits as the state of the whole log.

use proptest::prelude::*;
use rankeval_ope::click::{ClickIps, RankWeight};
use rankeval_ope::{Estimate, Floors, IntervalKind, Options, State, bandit, click, slate};

use crate::generated::generate;

pub fn options() -> Options {
    Options {
        interval: IntervalKind::T,
        level: 0.9,
        floors: Floors::default(),
    }
}

/// The bits of everything an estimate reports.
pub fn bits(e: &Estimate) -> Vec<u64> {
    let d = &e.diagnostics;
    vec![
        e.value.to_bits(),
        e.standard_error.to_bits(),
        e.interval.lower.to_bits(),
        e.interval.upper.to_bits(),
        d.n,
        d.ess.to_bits(),
        d.max_weight.to_bits(),
        d.support.to_bits(),
        d.clipped,
        e.refusals.len() as u64,
    ]
}

/// Splits `0..n` at `cuts` (sorted, deduplicated), builds one state per
/// part with `build`, and merges them in the order `rotate` gives.
fn merged(
    n: usize,
    cuts: &[usize],
    rotate: usize,
    build: &dyn Fn(std::ops::Range<usize>) -> State,
) -> State {
    let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (n + 1)).collect();
    bounds.push(0);
    bounds.push(n);
    bounds.sort_unstable();
    bounds.dedup();
    let mut parts: Vec<State> = bounds.windows(2).map(|w| build(w[0]..w[1])).collect();
    let k = parts.len();
    parts.rotate_left(rotate % k);
    let mut whole = build(0..0);
    for p in &parts {
        whole.merge(p).unwrap();
    }
    whole
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_partition_merges_to_the_same_bits(
        cuts in proptest::collection::vec(0usize..1000, 0..8),
        rotate in 0usize..8,
    ) {
        let log = generate();
        for e in [
            bandit::Estimator::Ips,
            bandit::Estimator::Snips,
            bandit::Estimator::Sndr,
            bandit::Estimator::SwitchDr { tau: 2.0 },
        ] {
            let build = |r: std::ops::Range<usize>| bandit::state(&e, &log.bandit[r]).unwrap();
            let whole = build(0..log.bandit.len());
            let parts = merged(log.bandit.len(), &cuts, rotate, &build);
            prop_assert_eq!(bits(&whole.estimate(&options()).unwrap()), bits(&parts.estimate(&options()).unwrap()));
        }
        let slates: Vec<_> = log.slates.iter().map(|s| s.record()).collect();
        for e in [slate::Estimator::CascadeDr, slate::Estimator::SelfNormalizedPseudoInverse] {
            let build = |r: std::ops::Range<usize>| slate::state(&e, &slates[r]).unwrap();
            let whole = build(0..slates.len());
            let parts = merged(slates.len(), &cuts, rotate, &build);
            prop_assert_eq!(bits(&whole.estimate(&options()).unwrap()), bits(&parts.estimate(&options()).unwrap()));
        }
        let clicks: Vec<_> = log.clicks.iter().map(|c| c.record()).collect();
        let e = ClickIps { metric: RankWeight::Rbp { p: 0.8 }, max_weight: Some(3.0) };
        let build = |r: std::ops::Range<usize>| click::state(&e, &clicks[r]).unwrap();
        let whole = build(0..clicks.len());
        let parts = merged(clicks.len(), &cuts, rotate, &build);
        prop_assert_eq!(bits(&whole.estimate(&options()).unwrap()), bits(&parts.estimate(&options()).unwrap()));
    }
}

#[test]
fn reversed_order_gives_the_same_bits() {
    let log = generate();
    let mut reversed = log.bandit.clone();
    reversed.reverse();
    let e = bandit::Estimator::Sndr;
    let a = bandit::state(&e, &log.bandit)
        .unwrap()
        .estimate(&options())
        .unwrap();
    let b = bandit::state(&e, &reversed)
        .unwrap()
        .estimate(&options())
        .unwrap();
    assert_eq!(bits(&a), bits(&b));
}
