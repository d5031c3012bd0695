//! The registration attributes name a plugin once: the registered name, the
//! typetag name (the TOML `type` it serializes with and deserializes from)
//! and the lookup by name and alias all come from that one string, for each
//! of the three kinds, and the descriptor points at the attribute's line.
//! (Its own test binary: the registry here holds only these plugins.)

use rankeval_core::registry::{self, PARAM_K};
use rankeval_core::{
    Aggregator, CanonicalName, CorpusInputs, CorpusMetric, CorpusState, Cutoff, JudgedRanking,
    Metric,
};
use serde::{Deserialize, Serialize};

/// A metric registered with the attribute.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TopHit {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    k: Option<Cutoff>,
}

const METRIC_LINE: u32 = line!() + 1;
#[rankeval_core::metric(
    name = "top_hit",
    aliases = &["th"],
    summary = "1 if the top k holds a relevant document",
    params = &[PARAM_K],
    example = TopHit { k: Cutoff::new(3) },
)]
impl Metric for TopHit {
    fn name(&self) -> String {
        CanonicalName::new("top_hit").cutoff(self.k)
    }
    fn score(&self, _: &JudgedRanking<'_>) -> f64 {
        0.0
    }
}

/// An aggregator registered with the attribute.
#[derive(Debug, Serialize, Deserialize)]
struct First {}

#[rankeval_core::aggregator(name = "first", summary = "the first value", example = First {})]
impl Aggregator for First {
    fn name(&self) -> String {
        "first".into()
    }
    fn aggregate(&self, per_query: &[f64]) -> f64 {
        per_query.first().copied().unwrap_or(f64::NAN)
    }
}

/// A corpus metric whose attribute a `macro_rules!` writes, as a family of
/// built-ins does: the name arrives as a `$name:literal`.
macro_rules! counting_metric {
    ($type:ident, $name:literal) => {
        #[derive(Debug, Serialize, Deserialize)]
        struct $type {}

        #[rankeval_core::corpus_metric(name = $name, summary = "the number of lists", example = $type {})]
        impl CorpusMetric for $type {
            fn name(&self) -> String {
                $name.into()
            }
            fn init(&self) -> CorpusState {
                Box::new(0_u64)
            }
            fn update(&self, state: &mut CorpusState, _: u64, _: &[&[u8]], _: &CorpusInputs) {
                *rankeval_core::corpus::state_mut::<u64>(state) += 1;
            }
            fn merge(&self, state: &mut CorpusState, other: CorpusState) {
                *rankeval_core::corpus::state_mut::<u64>(state) +=
                    rankeval_core::corpus::into_state::<u64>(other);
            }
            fn finish(&self, state: CorpusState, _: &CorpusInputs) -> f64 {
                rankeval_core::corpus::into_state::<u64>(state) as f64
            }
        }
    };
}

counting_metric!(Lists, "lists");

/// The `type` a plugin serializes with.
fn type_of(json: serde_json::Value) -> String {
    json["type"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn the_registry_check_passes() {
    registry::check().unwrap();
}

#[test]
fn a_metric_is_registered_and_tagged_under_its_one_name() {
    let [d] = registry::metrics()[..] else {
        panic!("expected one metric, got {:?}", registry::metrics());
    };
    assert_eq!(
        (d.name, d.aliases, d.params.len()),
        ("top_hit", &["th"][..], 1)
    );
    assert_eq!(d.summary, "1 if the top k holds a relevant document");
    assert!(
        d.defined_at.file.ends_with("registration_attribute.rs"),
        "{}",
        d.defined_at
    );
    assert_eq!(d.defined_at.line, METRIC_LINE);
    assert_eq!(
        type_of(serde_json::to_value(&*(d.example)()).unwrap()),
        "top_hit"
    );
    // By alias, through the registry; by its `type`, through typetag alone.
    let parsed = registry::parse_metric("th@5").unwrap();
    assert_eq!(parsed.name(), "top_hit@5");
    let json = serde_json::json!({ "type": "top_hit", "k": 2 });
    let direct: Box<dyn Metric> = serde_json::from_value(json).unwrap();
    assert_eq!(direct.name(), "top_hit@2");
}

#[test]
fn an_aggregator_and_a_corpus_metric_too() {
    let [a] = registry::aggregators()[..] else {
        panic!("expected one aggregator");
    };
    assert_eq!(a.name, "first");
    assert_eq!(
        type_of(serde_json::to_value(&*(a.example)()).unwrap()),
        "first"
    );
    assert_eq!(
        registry::parse_aggregator("first")
            .unwrap()
            .aggregate(&[2.0, 1.0]),
        2.0
    );

    let [c] = registry::corpus_metrics()[..] else {
        panic!("expected one corpus metric");
    };
    assert_eq!(c.name, "lists");
    assert!(
        c.defined_at.file.ends_with("registration_attribute.rs"),
        "{}",
        c.defined_at
    );
    assert_eq!(
        type_of(serde_json::to_value(&*(c.example)()).unwrap()),
        "lists"
    );
    assert_eq!(
        registry::parse_corpus_metric("lists").unwrap().name(),
        "lists"
    );
}
