//! The estimator states' wire (`rankeval_ope::wire`): a state goes to
//! bytes and back bit for bit; the decoded states of any partition of a
//! log merge to the bits of the whole log's; anything that is not such a
//! state's bytes is an error, never a panic.

use proptest::prelude::*;
use rankeval_core::corpus::{ItemCounts, StateWireError, encode_state};
use rankeval_ope::click::{ClickIps, RankWeight};
use rankeval_ope::wire::{WIRE_VERSION, decode, encode};
use rankeval_ope::{Contribution, Form, OpeError, State, bandit, click, slate};

use crate::generated::generate;
use crate::merge::{bits, options};

/// Every estimator of the generated log's three parts, each as a function
/// from a range of impressions to its state.
fn builders() -> Vec<Box<dyn Fn(std::ops::Range<usize>) -> State>> {
    let log = std::rc::Rc::new(generate());
    let mut out: Vec<Box<dyn Fn(std::ops::Range<usize>) -> State>> = Vec::new();
    for e in [
        bandit::Estimator::Ips,
        bandit::Estimator::ClippedIps { max_weight: 1.5 },
        bandit::Estimator::Snips,
        bandit::Estimator::Dr,
        bandit::Estimator::Sndr,
        bandit::Estimator::SwitchDr { tau: 2.0 },
    ] {
        let log = log.clone();
        out.push(Box::new(move |r| {
            bandit::state(&e, &log.bandit[r]).unwrap()
        }));
    }
    for e in [
        slate::Estimator::SlateIps,
        slate::Estimator::IndependentIps,
        slate::Estimator::RewardInteractionIps,
        slate::Estimator::CascadeDr,
        slate::Estimator::SelfNormalizedPseudoInverse,
    ] {
        let log = log.clone();
        out.push(Box::new(move |r| {
            let slates: Vec<_> = log.slates[r].iter().map(|s| s.record()).collect();
            slate::state(&e, &slates).unwrap()
        }));
    }
    let log2 = log.clone();
    out.push(Box::new(move |r| {
        let clicks: Vec<_> = log2.clicks[r].iter().map(|c| c.record()).collect();
        let e = ClickIps {
            metric: RankWeight::Rbp { p: 0.8 },
            max_weight: Some(3.0),
        };
        click::state(&e, &clicks).unwrap()
    }));
    out
}

/// The impressions of each builder's part of the log.
fn len_of(state_index: usize) -> usize {
    let log = generate();
    match state_index {
        0..=5 => log.bandit.len(),
        6..=10 => log.slates.len(),
        _ => log.clicks.len(),
    }
}

/// An empty state's bytes and where its impression count sits.
fn empty(name: &str) -> (Vec<u8>, usize) {
    let bytes = encode(&State::new(name, Form::Mean));
    // tag, version, name length and name, form, then 9 empty sums of
    // 9 bytes (form 0, no partial).
    (bytes, 2 + 4 + name.len() + 1 + 9 * 9)
}

fn contribution(x: f64) -> Contribution {
    Contribution {
        columns: [x, 0.0, 0.0],
        weight: x,
        support: 1.0,
        clipped: true,
    }
}

#[test]
fn every_state_round_trips_bit_for_bit() {
    let builders = builders();
    for (i, build) in builders.iter().enumerate() {
        let state = build(0..len_of(i));
        let bytes = encode(&state);
        let back = decode(&bytes).unwrap();
        // The bytes of the decoded state are the bytes, and so again.
        assert_eq!(encode(&back), bytes, "{}", state.name());
        assert_eq!(encode(&decode(&encode(&back)).unwrap()), bytes);
        // The same exact sums: every number read from them the same bits.
        assert_eq!(back.count(), state.count());
        assert_eq!(back.name(), state.name());
        assert_eq!(back.form(), state.form());
        for j in 0..3 {
            assert_eq!(back.mean(j).to_bits(), state.mean(j).to_bits());
            for k in 0..3 {
                assert_eq!(
                    back.covariance(j, k).to_bits(),
                    state.covariance(j, k).to_bits()
                );
            }
        }
        let (w, v) = (back.weights(), state.weights());
        assert_eq!(
            [
                w.sum.value(),
                w.sum_squares.value(),
                w.max,
                w.support.value(),
                w.support_squares.value()
            ]
            .map(f64::to_bits),
            [
                v.sum.value(),
                v.sum_squares.value(),
                v.max,
                v.support.value(),
                v.support_squares.value()
            ]
            .map(f64::to_bits)
        );
        assert_eq!(w.clipped, v.clipped);
        assert_eq!(
            bits(&back.estimate(&options()).unwrap()),
            bits(&state.estimate(&options()).unwrap())
        );
    }
}

#[test]
fn wide_sums_round_trip() {
    let mut state = State::new("ips", Form::Mean);
    for (i, x) in [1e150, 1e150, -1e140, 0.5, 1e-300].into_iter().enumerate() {
        state.add(i, &contribution(x)).unwrap();
    }
    let bytes = encode(&state);
    let back = decode(&bytes).unwrap();
    assert_eq!(encode(&back), bytes);
    assert_eq!(back.mean(0).to_bits(), state.mean(0).to_bits());
    assert_eq!(
        back.covariance(0, 0).to_bits(),
        state.covariance(0, 0).to_bits()
    );
    // A value whose square is beyond f64::MAX is refused when added, so
    // no state holds an infinity.
    let err = state.add(9, &contribution(1e200)).unwrap_err();
    assert!(
        err.to_string()
            .contains("impression 9: contribution's square inf is not finite"),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Each part's state is sent as bytes, decoded and merged: the same
    /// bits as the whole log's state, for every estimator.
    #[test]
    fn decoded_parts_merge_to_the_whole(
        cuts in proptest::collection::vec(0usize..1000, 0..8),
        rotate in 0usize..8,
    ) {
        let builders = builders();
        for (i, build) in builders.iter().enumerate() {
            let n = len_of(i);
            let whole = build(0..n);
            let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (n + 1)).collect();
            bounds.extend([0, n]);
            bounds.sort_unstable();
            bounds.dedup();
            let mut wires: Vec<Vec<u8>> =
                bounds.windows(2).map(|w| encode(&build(w[0]..w[1]))).collect();
            let k = wires.len();
            wires.rotate_left(rotate % k);
            let mut merged = decode(&encode(&build(0..0))).unwrap();
            for w in &wires {
                merged.merge(&decode(w).unwrap()).unwrap();
            }
            prop_assert_eq!(merged.count(), whole.count());
            prop_assert_eq!(
                bits(&merged.estimate(&options()).unwrap()),
                bits(&whole.estimate(&options()).unwrap())
            );
        }
    }

    /// Any bytes: a state or an error, never a panic.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = decode(&bytes);
        let mut tagged = vec![3, WIRE_VERSION];
        tagged.extend(&bytes);
        let _ = decode(&tagged);
    }

    /// A valid state's bytes with one byte changed: a state or an error,
    /// never a panic; a decoded state still estimates without a panic.
    #[test]
    fn flipped_bytes_never_panic(at in 0usize..4096, to in any::<u8>()) {
        let state = builders()[4](0..50);
        let mut bytes = encode(&state);
        let at = at % bytes.len();
        bytes[at] = to;
        if let Ok(s) = decode(&bytes) {
            let _ = s.estimate(&options());
        }
    }
}

#[test]
fn every_prefix_is_truncated() {
    let state = builders()[3](0..20);
    let bytes = encode(&state);
    for cut in 0..bytes.len() {
        let err = decode(&bytes[..cut]).unwrap_err();
        assert!(
            matches!(
                err,
                StateWireError::Truncated { .. } | StateWireError::Malformed { .. }
            ),
            "cut at {cut}: {err}"
        );
    }
}

#[test]
fn wrong_kind_version_and_trailing_bytes() {
    let corpus = encode_state(&(Box::new(ItemCounts::default()) as _)).unwrap();
    assert_eq!(
        decode(&corpus).unwrap_err(),
        StateWireError::WrongKind {
            expected: "an off-policy estimator state",
            found: "item counts"
        }
    );
    assert_eq!(decode(&[0]).unwrap_err(), StateWireError::UnknownKind(0));
    assert_eq!(
        decode(&[]).unwrap_err(),
        StateWireError::Truncated { at: 0 }
    );
    let (mut bytes, _) = empty("ips");
    bytes[1] = WIRE_VERSION + 1;
    let err = decode(&bytes).unwrap_err();
    assert!(
        matches!(
            err,
            StateWireError::Version {
                found: 2,
                reads: 1,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "an off-policy estimator state of wire version 2; this build reads version 1"
    );
    let (mut bytes, _) = empty("ips");
    bytes.push(0);
    assert_eq!(decode(&bytes).unwrap_err(), StateWireError::Trailing(1));
    // And the corpus states' reader refuses an estimator's bytes by name.
    let err = rankeval_core::corpus::decode_state(&empty("ips").0).unwrap_err();
    assert!(
        matches!(
            err,
            StateWireError::WrongKind {
                found: "an off-policy estimator state",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn malformed_fields_are_named() {
    let malformed = |bytes: &[u8]| match decode(bytes) {
        Err(StateWireError::Malformed { problem, .. }) => problem,
        other => panic!("{other:?}"),
    };
    // A name that is not UTF-8.
    let (mut bytes, _) = empty("ips");
    bytes[6] = 0xFF;
    assert!(malformed(&bytes).contains("not UTF-8"));
    // An unknown form.
    let (mut bytes, _) = empty("ips");
    bytes[9] = 7;
    assert!(malformed(&bytes).contains("unknown form 7"));
    // A sum holding a NaN or an infinity (one partial, the first sum).
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let (bytes, _) = empty("ips");
        let mut with = bytes[..10].to_vec();
        with.push(0);
        with.extend(1u64.to_le_bytes());
        with.extend(bad.to_bits().to_le_bytes());
        with.extend(&bytes[19..]);
        assert!(malformed(&with).contains("infinity or NaN"), "{bad}");
    }
    // A largest weight NaN, infinite or negative.
    let (bytes, n_at) = empty("ips");
    let max_at = n_at + 8 + 18;
    for bad in [f64::NAN, f64::INFINITY, -1.0] {
        let mut b = bytes.clone();
        b[max_at..max_at + 8].copy_from_slice(&bad.to_bits().to_le_bytes());
        assert!(malformed(&b).contains("largest weight"), "{bad}");
    }
    // More clipped weights than impressions.
    let mut b = bytes.clone();
    b[max_at + 8..max_at + 16].copy_from_slice(&1u64.to_le_bytes());
    assert!(malformed(&b).contains("1 clipped weights among 0"));
    // An exact sum of an unknown form.
    let mut b = bytes.clone();
    b[10] = 9;
    assert!(malformed(&b).contains("no exact sum at byte 10"));
}

#[test]
fn counts_that_overflow_are_errors() {
    let (mut bytes, n_at) = empty("ips");
    bytes[n_at..n_at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    let mut full = decode(&bytes).unwrap();
    assert_eq!(full.count(), u64::MAX);
    let mut one = State::new("ips", Form::Mean);
    one.add(0, &contribution(1.0)).unwrap();
    let before = full.clone();
    let err = full.merge(&one).unwrap_err();
    assert!(matches!(err, OpeError::TooMany { .. }), "{err}");
    assert_eq!(full, before, "a failed merge leaves the state unchanged");
    assert!(matches!(
        full.add(1, &contribution(1.0)).unwrap_err(),
        OpeError::TooMany { .. }
    ));
    // The other way round too, and the clipped count alone.
    assert!(one.clone().merge(&full).is_err());
    let mut b = bytes.clone();
    b[n_at + 8 + 18 + 8..n_at + 8 + 18 + 16].copy_from_slice(&u64::MAX.to_le_bytes());
    let clipped_full = decode(&b).unwrap();
    let mut one_more = one.clone();
    assert!(one_more.merge(&clipped_full).is_err());
}
