//! Exposure fairness: expected exposure over stochastic rankings (Diaz et
//! al., CIKM 2020, as its reference implementation `expeval` computes it)
//! and the group fairness of TREC Fair Ranking 2021 (AWRF).
//!
//! | metric | value |
//! |---|---|
//! | `ee_d` | EE-D, disparity: `||e||^2` |
//! | `ee_r` | EE-R, relevance: `e . e*` |
//! | `ee_l` | EE-L, loss: `||e - e*||^2` |
//! | `ee_*(groups=true)` | the same over the groups' summed exposure (expeval `-G`) |
//! | `awrf@k` | AWRF, `1 - JSD(group exposure, target)` (TREC Fair 2021) |
//! | `trec_fair@k` | nDCG x AWRF, TREC Fair 2021's Task 1 score |
//!
//! The arithmetic is [`exposure`]'s, [`group_exposure`]'s and [`awrf`]'s; the plugins are in
//! [`plugins`].

pub mod awrf;
pub mod exposure;
pub mod group_exposure;
pub mod plugins;

#[cfg(test)]
mod tests;
