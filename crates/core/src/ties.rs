//! Tied scores: how documents with equal scores are ranked or averaged.
//!
//! A run's list puts documents with equal scores in some order, and most
//! metrics depend on it. Three treatments:
//!
//! - [`Ties::Docid`] (the default, trec_eval's rule): ties by document id
//!   descending in byte order;
//! - [`Ties::Input`]: ties in the order the run gives them (its lines);
//! - [`Ties::Average`]: the expected value of the metric over every order
//!   of each group of tied scores, computed exactly (McSherry and Najork,
//!   ECIR 2008) by metrics that have a closed form
//!   ([`Metric::score_tie_average`](crate::Metric::score_tie_average)).
//!
//! The order of a list is one per experiment (`--ties`, TOML `ties`); a
//! metric may set its own `ties` (`ndcg(ties=average)@10`), which the
//! registry turns into a [`Tied`] around the metric.
//!
//! The setting and the wrapper live in modules of their own (the setting is
//! read by the run and the judged ranking, the wrapper reads the metric
//! trait); this module is their public face, and nothing in the crate
//! imports through it.

pub use crate::tied::{Tied, explain_average, no_tie_average, supports_tie_average};
pub use crate::ties_setting::{TieGroups, Ties};
