//! Catalog coverage@k: the share of the catalog recommended to anyone.
//!
//! `coverage@k = |union of every list's top k| / |catalog|` (RecTools
//! `CatalogCoverage(k)`, RecBole `ItemCoverage`); with `normalize = false`,
//! the number of distinct items. Items outside the catalog count too (as
//! in RecTools, which counts the recommended items it is given).

use rankeval_core::corpus::{ItemCounts, into_state, state_mut};
use rankeval_core::registry::{PARAM_K, ParamDoc};
use rankeval_core::{CanonicalName, CorpusInputs, CorpusMetric, CorpusState, Cutoff, Requires};
use serde::{Deserialize, Serialize};

use super::top;
use crate::common::is_none;

/// The `catalog_coverage` corpus metric (alias `coverage`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogCoverage {
    /// Cutoff; `None` = whole lists.
    #[serde(default, skip_serializing_if = "is_none")]
    pub k: Option<Cutoff>,
    /// Divide by the catalog size (true) or give the count (false).
    #[serde(default = "yes")]
    pub normalize: bool,
}

fn yes() -> bool {
    true
}

impl Default for CatalogCoverage {
    fn default() -> Self {
        Self {
            k: None,
            normalize: true,
        }
    }
}

#[rankeval_core::corpus_metric(
    name = "catalog_coverage",
    aliases = &["coverage"],
    summary = "share of the catalog in the top k of at least one list",
    params = &[PARAM_K, ParamDoc {
        name: "normalize",
        alias: None,
        default: "true",
        doc: "true: divide by the catalog size; false: the number of distinct items",
    }],
    example = CatalogCoverage { k: Cutoff::new(10), normalize: false },
)]
impl CorpusMetric for CatalogCoverage {
    fn name(&self) -> String {
        CanonicalName::new("catalog_coverage")
            .param_unless_default("normalize", self.normalize, true)
            .cutoff(self.k)
    }
    fn depth(&self) -> Option<Cutoff> {
        self.k
    }
    fn requires(&self) -> Requires {
        Requires {
            catalog: self.normalize,
            ..Requires::default()
        }
    }
    fn init(&self) -> CorpusState {
        Box::new(ItemCounts::default())
    }
    fn update(&self, state: &mut CorpusState, _: u64, list: &[&[u8]], _: &CorpusInputs) {
        state_mut::<ItemCounts>(state).add(top(list, self.k));
    }
    fn merge(&self, state: &mut CorpusState, other: CorpusState) {
        state_mut::<ItemCounts>(state).merge(into_state(other));
    }
    fn finish(&self, state: CorpusState, inputs: &CorpusInputs) -> f64 {
        let distinct = into_state::<ItemCounts>(state).counts.len() as f64;
        if !self.normalize {
            return distinct;
        }
        match inputs.catalog.as_ref().map(|c| c.len()) {
            Some(size) if size > 0 => distinct / size as f64,
            _ => 0.0,
        }
    }
}
