//! A per-query metric and a corpus metric registered under one name: `-m`
//! and TOML `type` could not tell them apart, so the startup check refuses
//! the registry and names both registrations. (Its own test binary: the
//! clash would fail every other registry test.)

use rankeval_core::registry::{self, PARAM_K};
use rankeval_core::{
    CorpusInputs, CorpusMetric, CorpusState, Cutoff, JudgedRanking, Metric, RegistryError,
};
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize)]
struct PerQuery {
    k: Option<Cutoff>,
}

#[typetag::serde(name = "clash")]
impl Metric for PerQuery {
    fn name(&self) -> String {
        "clash".into()
    }
    fn score(&self, _: &JudgedRanking<'_>) -> f64 {
        0.0
    }
}

rankeval_core::register_metric! {
    name: "clash",
    aliases: &[],
    summary: "a per-query metric",
    params: &[PARAM_K],
    example: || Box::new(PerQuery { k: None }),
}

#[derive(Debug, Serialize, Deserialize)]
struct WholeRun {
    k: Option<Cutoff>,
}

#[typetag::serde(name = "whole_run")]
impl CorpusMetric for WholeRun {
    fn name(&self) -> String {
        "whole_run".into()
    }
    fn init(&self) -> CorpusState {
        Box::new(())
    }
    fn update(&self, _: &mut CorpusState, _: u64, _: &[&[u8]], _: &CorpusInputs) {}
    fn merge(&self, _: &mut CorpusState, _: CorpusState) {}
    fn finish(&self, _: CorpusState, _: &CorpusInputs) -> f64 {
        0.0
    }
}

rankeval_core::register_corpus_metric! {
    name: "whole_run",
    aliases: &["clash"],
    summary: "a corpus metric whose alias is the other's name",
    params: &[PARAM_K],
    example: || Box::new(WholeRun { k: None }),
}

#[test]
fn a_name_shared_by_the_two_kinds_is_refused_naming_both() {
    match registry::check() {
        Err(RegistryError::SharedName {
            name,
            metric,
            corpus,
        }) => {
            assert_eq!(name, "clash");
            assert!(metric.file.ends_with("shared_name.rs"), "{metric}");
            assert!(corpus.line > metric.line, "{corpus} after {metric}");
        }
        other => panic!("expected a shared-name error, got {other:?}"),
    }
}
