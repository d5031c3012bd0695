//! # rankeval-metrics
//!
//! The built-in metrics and aggregators of rankeval. Each is a plugin,
//! registered with the same macro a user's crate uses, and each keeps its
//! math in a pure function (tested directly) behind a thin serde struct.
//!
//! | metric (`type`) | aliases | canonical name | parameters | trec_eval |
//! |---|---|---|---|---|
//! | `precision` | `p` | `p@10` | `k`, `rel`, `denominator = k \| retrieved \| truncated` | `P_k`, `set_P` |
//! | `recall` | `r` | `r@10` | `k`, `rel` | `recall_k`, `set_recall` |
//! | `reciprocal_rank` | `rr`, `mrr` | `rr@10` | `k`, `rel` | `recip_rank` |
//! | `average_precision` | `ap`, `map` | `ap(norm=truncated)@10` | `k`, `rel`, `normalization = relevant \| truncated \| hits \| k` | `map`, `map_cut_k` |
//! | `hit_rate` | `success` | `hit_rate@10` | `k`, `rel` | `success_k` |
//! | `dcg` | | `dcg(gain=exponential)@10` | `k`, `gain = linear \| exponential` | |
//! | `ndcg` | | `ndcg@10` | `k`, `gain = linear \| exponential`, `ideal = judged \| k` | `ndcg`, `ndcg_cut_k` (linear) |
//! | `r_precision` | `rprec` | `rprec` | `k`, `rel` | `Rprec` (no `k`) |
//! | `bpref` | | `bpref` | `k`, `rel` | `bpref` |
//! | `f1` | `set_f`, `f_beta` | `f1@10` | `k`, `rel`, `beta = 1` | `set_F` |
//! | `rbp` | `rank_biased_precision` | `rbp(p=0.9,gain=graded)` | `k`, `rel`, `p = 0.8`, `gain = binary \| graded` | `rbp` (`p=0.9,gain=graded`) |
//! | `err` | `expected_reciprocal_rank` | `err(max_grade=3)@20` | `k`, `max_grade = 4` | |
//! | `num_ret` | | `num_ret` | `k` | `num_ret` |
//! | `num_rel` | | `num_rel` | `rel` | `num_rel` |
//! | `num_rel_ret` | | `num_rel_ret` | `k`, `rel` | `num_rel_ret` |
//! | `judged` | | `judged@10` | `k` | |
//! | `fallout` | `fall_out` | `fallout@10` | `k`, `rel`, `negatives = retrieved \| judged` | |
//! | `roc_auc` | `auc` | `auc@100` | `k`, `rel`, `negatives = retrieved \| judged` | |
//! | `ncrr` | | `ncrr@10` | `k`, `rel` | |
//! | `weighted` | | `weighted(gain=binary,discount=geometric,norm=weights)@10` | `k`, `rel`, `gain`, `gains`, `discount`, `p`, `normalization` | |
//!
//! | aggregator | aliases | parameters |
//! |---|---|---|
//! | `mean` | `avg` | |
//! | `median` | | |
//! | `std` | `std_dev`, `stdev` | `ddof = 1` (sample) |
//! | `min` | | |
//! | `max` | | |
//! | `sum` | `total` | |
//! | `gmean` | `geometric_mean`, `gm` | `floor = 0.00001` (trec_eval `gm_map`) |
//!
//! Semantics follow `docs/metrics.md` (and the spec it comes from), which a
//! test checks against this registry. A binary must link this crate for the
//! registry to hold these metrics: the `rankeval` crate does
//! (`rankeval::metrics`); a binary of your own that depends only on
//! `rankeval-core` must name it once, `use rankeval_metrics as _;`.

pub mod aggregators;
pub mod average_precision;
pub mod beta;
pub mod bpref;
mod common;
pub mod compatibility;
pub mod corpus;
pub mod cwl;
pub mod dcg;
pub mod diversity;
pub mod err;
mod explain;
pub mod f1;
pub mod fairness;
pub mod fallout;
pub mod g;
pub mod hit_rate;
pub mod hole;
pub mod infap;
pub mod interpolated;
pub mod judged;
pub mod ncrr;
pub mod ndcg;
pub mod ndcg_averaged;
pub mod ndcg_gain_map;
pub mod ndcg_ideal;
pub mod negatives;
pub mod num_nonrel_judged_ret;
pub mod num_rel;
pub mod num_rel_ret;
pub mod num_ret;
pub mod precision;
pub mod propensity_scored;
pub mod r_precision;
pub mod rbp;
pub mod rbp_resid;
pub mod recall;
pub mod recall_cap;
pub mod reciprocal_rank;
pub mod rectools;
pub mod relative_precision;
pub mod roc_auc;
pub mod rprec_mult;
pub mod set_map;
pub mod sklearn;
pub mod tie_average;
mod trec_gains;
pub mod unjudged;
pub mod utility;
pub mod weighted;

pub use aggregators::gmean::GeometricMean;
pub use aggregators::max::Max;
pub use aggregators::mean::Mean;
pub use aggregators::median::Median;
pub use aggregators::min::Min;
pub use aggregators::std_dev::StdDev;
pub use aggregators::sum::Sum;
pub use average_precision::{ApNormalization, AveragePrecision};
pub use beta::Beta;
pub use bpref::Bpref;
pub use compatibility::Compatibility;
pub use cwl::{Insq, Inst, Nerr8, Nerr9, Nerr10, Nerr11};
pub use dcg::{Dcg, Gain};
pub use err::ExpectedReciprocalRank;
pub use f1::F1;
pub use fallout::Fallout;
pub use g::{BinG, G};
pub use hit_rate::HitRate;
pub use infap::InfAp;
pub use interpolated::{ElevenPointAverage, IprecAtRecall, RecallLevels};
pub use judged::Judged;
pub use ncrr::Ncrr;
pub use ndcg::Ndcg;
pub use ndcg_averaged::{NdcgRel, Rndcg};
pub use ndcg_gain_map::{GainMap, NdcgGainMap};
pub use ndcg_ideal::NdcgIdeal;
pub use negatives::Negatives;
pub use num_nonrel_judged_ret::NumNonrelJudgedRet;
pub use num_rel::NumRel;
pub use num_rel_ret::NumRelRet;
pub use num_ret::NumRet;
pub use precision::{Precision, PrecisionDenominator};
pub use r_precision::RPrecision;
pub use rbp::{Persistence, Rbp, RbpGain};
pub use rbp_resid::RbpResid;
pub use recall::Recall;
pub use reciprocal_rank::ReciprocalRank;
pub use rectools::{Accuracy, Mcc};
pub use relative_precision::RelativePrecision;
pub use roc_auc::RocAuc;
pub use rprec_mult::RprecMult;
pub use set_map::SetMap;
pub use sklearn::{AveragePrecisionScore, LabelRankingAveragePrecision};
pub use unjudged::Unjudged;
pub use utility::Utility;
pub use weighted::{
    Discount, GainMap as WeightedGainMap, Weighted, WeightedGain, WeightedNormalization,
};
