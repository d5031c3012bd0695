//! The attention share this example writes in code is also a metric
//! declared in TOML, without code: `type = "weighted"` with binary gain, a
//! geometric discount and the top k's total weight as normalization. Both
//! give the same bits.

#![allow(clippy::unwrap_used)]

use rankeval_core::registry::parse_metric;
use rankeval_core::testing::judged;
// Links this example's metric and the built-ins (with `weighted`) into
// this test binary.
use rankeval::metrics as _;
use rankeval_example_custom_metric as _;

#[test]
fn weighted_reproduces_attention_share_bit_for_bit() {
    let patterns = [
        "",
        "1",
        "0",
        ".",
        "1 0 1",
        "0 0 0 1",
        "2 . 1 - 0 3",
        "1 1 1 1 1 1 1 1 1 1 1 1",
        "0 . 0 2 2",
        "3 0 0 0 0 0 0 0 1",
    ];
    for decay in ["0.5", "0.85", "0.9"] {
        for k in ["", "@1", "@3", "@5", "@20"] {
            let ours = parse_metric(&format!("attention_share(decay={decay}){k}")).unwrap();
            let declared = parse_metric(&format!(
                "weighted(gain=binary,discount=geometric,p={decay},norm=weights){k}"
            ))
            .unwrap();
            for pattern in patterns {
                for level in [1, 2] {
                    let q = judged(pattern, &[1, 0]).with_level(level);
                    let (a, b) = (q.score(ours.as_ref()), q.score(declared.as_ref()));
                    assert_eq!(
                        a.to_bits(),
                        b.to_bits(),
                        "{pattern:?} {decay} {k}: {a} vs {b}"
                    );
                }
            }
        }
    }
}
