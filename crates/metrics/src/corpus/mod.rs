//! Corpus metrics: one number over a whole run (beyond accuracy).
//!
//! | corpus metric | value | needs | peers |
//! |---|---|---|---|
//! | `catalog_coverage` | distinct items recommended in any top k / catalog size | catalog | RecTools `CatalogCoverage`, RecBole `ItemCoverage` |
//! | `gini` | Gini index of how often each catalog item is recommended | catalog | RecBole `GiniIndex` |
//! | `entropy` | Shannon entropy (nats) of the recommended items' shares | | RecBole `ShannonEntropy` |
//! | `avg_popularity` | mean over lists of the mean training popularity of its top k | training | RecTools `AvgRecPopularity`, RecBole `AveragePopularity` |
//! | `novelty` | mean over lists of the mean self-information `-log2(pop / users)` of its top k | training | RecTools `MeanInvUserFreq` |
//! | `long_tail_share` | mean over lists of the share of its top k in the training long tail | training | Elliot `APLT` |
//! | `ild` | mean over lists of the mean pairwise distance of its top k's items | item features | RecTools `IntraListDiversity` |
//!
//! Each keeps a state that merges exactly (see `rankeval_core::corpus`).

pub mod catalog_coverage;
pub mod entropy;
pub mod gini;
pub mod ild;
pub mod long_tail;
pub mod popularity;

use rankeval_core::Cutoff;

/// The top `k` of a list (all of it without a cutoff).
pub(crate) fn top<'a, 'b>(list: &'a [&'b [u8]], k: Option<Cutoff>) -> &'a [&'b [u8]] {
    match k {
        Some(k) => &list[..k.get().min(list.len())],
        None => list,
    }
}
