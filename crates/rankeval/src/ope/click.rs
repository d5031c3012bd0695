//! Click logs in `rankeval ope` (docs/ope.md, "Click logs"): a log of the
//! `examination` form (the position-based model of Joachims, Swaminathan
//! and Schnabel, WSDM 2017) whose reward per position is a click, 0 or 1,
//! and whose propensities are the probabilities that the user examined
//! each logged position, as a column or per rank ([`Examination`]); the
//! target a run's ranking per context; the estimators the IPS-weighted
//! rank metrics of `rankeval_ope::click` ([`parse`]: `ips_dcg@10`,
//! `ips_rbp(p=0.8)`, `ips_p@5`, each with an optional `max_weight=M`).
//!
//! What is built here is each impression's [`Ranked`] view (the target's
//! rank of every shown item) and its contribution; the states,
//! diagnostics, refusals, intervals, bootstrap, paired comparisons,
//! gates and groups are `rankeval::ope`'s, shared with every estimator.

use std::collections::HashMap;

use rankeval_core::shorten_id;
use rankeval_ope::click::{Click, ClickIps, RankWeight, Record, power_law};
use rankeval_ope::{Contribution, OpeError};

use super::{Candidate, ImpressionLog, OpeRunError, TargetPolicy};
use crate::read::impressions::Ragged;

/// The examination propensities given per rank instead of as a log column.
#[derive(Clone, Debug, PartialEq)]
pub enum Examination {
    /// `p_k = (1/k)^η` (Joachims et al., 2017, section 6): `power(eta=η)`.
    PowerLaw {
        /// The exponent `η`, finite and at least 0.
        eta: f64,
    },
    /// `p_k` the `k`-th value: `1,0.5,0.33`.
    ByRank(Vec<f64>),
}

impl Examination {
    /// The rule written `power(eta=η)` or as a comma-separated list of
    /// probabilities, one per rank from 1; the error says what is wrong.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if let Some(rest) = text.strip_prefix("power") {
            let inner = rest
                .trim()
                .strip_prefix('(')
                .and_then(|r| r.strip_suffix(')'))
                .ok_or_else(|| format!("`{text}`: expected power(eta=N)"))?;
            let (key, value) = inner
                .split_once('=')
                .ok_or_else(|| format!("`{text}`: expected power(eta=N)"))?;
            if key.trim() != "eta" {
                return Err(format!("`{text}`: power takes `eta`, not `{}`", key.trim()));
            }
            let eta: f64 = value
                .trim()
                .parse()
                .map_err(|_| format!("`{text}`: `{}` is not a number", value.trim()))?;
            if !(eta.is_finite() && eta >= 0.0) {
                return Err(format!(
                    "`{text}`: eta is a finite number of at least 0 (p_k = (1/k)^eta)"
                ));
            }
            return Ok(Self::PowerLaw { eta });
        }
        let mut values = Vec::new();
        for (k, part) in text.split(',').enumerate() {
            let p: f64 = part.trim().parse().map_err(|_| {
                format!(
                    "`{}`: rank {}: `{}` is not a number (expected power(eta=N) or \
                     probabilities per rank, P1,P2,...)",
                    shorten_id(text.as_bytes()),
                    k + 1,
                    shorten_id(part.trim().as_bytes())
                )
            })?;
            if !(p > 0.0 && p <= 1.0) {
                return Err(format!(
                    "`{}`: rank {}: {p} is not a probability in (0, 1] (an examination \
                     propensity of 0 would leave the rank's clicks unweighable)",
                    shorten_id(text.as_bytes()),
                    k + 1
                ));
            }
            values.push(p);
        }
        Ok(Self::ByRank(values))
    }

    /// `p_k` of rank `k` (from 1); `None` beyond a list.
    pub fn at(&self, rank: usize) -> Option<f64> {
        match self {
            Self::PowerLaw { eta } => Some(power_law(rank, *eta)),
            Self::ByRank(values) => rank.checked_sub(1).and_then(|i| values.get(i)).copied(),
        }
    }

    /// The rule as written: `power(eta=1)`, `1,0.5,0.33`.
    pub fn name(&self) -> String {
        match self {
            Self::PowerLaw { eta } => format!("power(eta={eta})"),
            Self::ByRank(values) => values
                .iter()
                .map(f64::to_string)
                .collect::<Vec<_>>()
                .join(","),
        }
    }

    /// Gives every impression of `log` (read with the propensities per
    /// rank) its propensities by rank. Errors: a list shorter than the
    /// slates, a power law whose propensity underflows to 0.
    pub fn fill(&self, log: &mut ImpressionLog, log_name: &str) -> Result<(), OpeRunError> {
        let mut by_rank = Vec::with_capacity(log.slate_len);
        for k in 1..=log.slate_len {
            match self.at(k) {
                Some(p) if p > 0.0 && p <= 1.0 => by_rank.push(p),
                Some(p) => {
                    return Err(OpeRunError::Unfit(format!(
                        "{log_name}: the examination propensities {} give rank {k} the \
                         propensity {p}, not a probability in (0, 1]",
                        self.name()
                    )));
                }
                None => {
                    return Err(OpeRunError::Unfit(format!(
                        "{log_name}: the log shows {} positions and the examination \
                         propensities {} give {} (one per rank)",
                        log.slate_len,
                        self.name(),
                        k - 1
                    )));
                }
            }
        }
        log.impressions.set_propensities(&by_rank);
        Ok(())
    }
}

/// A click estimator by its name, `None` when `text` names none (it does
/// not start with `ips_`): `ips_dcg@K`, `ips_dcg`, `ips_rbp(p=P)`,
/// `ips_p@K`, each with an optional `max_weight=M` in the parentheses
/// (`ips_rbp(p=0.8,max_weight=10)`, `ips_dcg@10(max_weight=10)`; the
/// printed name `ips_rbp(p=0.8)(max_weight=10)` reads back too).
pub fn parse(text: &str) -> Option<Result<ClickIps, String>> {
    let rest = text.strip_prefix("ips_")?;
    Some(parse_metric(text, rest))
}

fn parse_metric(text: &str, rest: &str) -> Result<ClickIps, String> {
    let (head, parameters) = match rest.find('(') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let mut pairs = Vec::new();
    let mut tail = parameters.trim();
    while !tail.is_empty() {
        let inner = tail
            .strip_prefix('(')
            .and_then(|t| t.split_once(')'))
            .ok_or_else(|| format!("`{text}`: expected `(name=value, ...)`"))?;
        for pair in inner.0.split(',') {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("`{text}`: expected `name=value` in the parentheses"))?;
            let value: f64 = value
                .trim()
                .parse()
                .map_err(|_| format!("`{text}`: `{}` is not a number", value.trim()))?;
            pairs.push((key.trim().to_owned(), value));
        }
        tail = inner.1.trim();
    }
    let cutoff = |name: &str| -> Result<Option<usize>, String> {
        match head.strip_prefix(name) {
            Some("") => Ok(None),
            Some(k) => k
                .strip_prefix('@')
                .and_then(|k| k.parse::<usize>().ok())
                .map(Some)
                .ok_or_else(|| format!("`{text}`: expected {name}@K, K a whole number")),
            None => Err(String::new()),
        }
    };
    let mut take = |key: &str| -> Option<f64> {
        let i = pairs.iter().position(|(k, _)| k == key)?;
        Some(pairs.remove(i).1)
    };
    let max_weight = take("max_weight");
    let metric = if head == "rbp" {
        let p = take("p").ok_or_else(|| format!("`{text}`: rbp needs `ips_rbp(p=...)`"))?;
        RankWeight::Rbp { p }
    } else if head.starts_with("dcg") {
        RankWeight::Dcg { k: cutoff("dcg")? }
    } else if head.starts_with("p@") || head == "p" {
        let k = cutoff("p")?.ok_or_else(|| format!("`{text}`: precision needs a cutoff, p@K"))?;
        RankWeight::Precision { k }
    } else {
        return Err(format!(
            "unknown click metric `{}` (known: ips_dcg@K, ips_dcg, ips_rbp(p=P), ips_p@K, each \
             with an optional max_weight=M)",
            shorten_id(text.as_bytes())
        ));
    };
    if let Some((key, _)) = pairs.first() {
        return Err(format!("`{text}`: {} takes no `{key}`", metric.name()));
    }
    let estimator = ClickIps { metric, max_weight };
    estimator.validate().map_err(|e| e.to_string())?;
    Ok(estimator)
}

/// Every impression as a target ranking sees it, in columns: the
/// target's rank (from 1) of each shown item, `None` when it does not rank
/// it, and how many items it ranks for the context.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Ranked {
    ranks: Ragged<Option<usize>>,
    lens: Vec<usize>,
}

impl Ranked {
    /// Impression `index`'s ranks and the target's list length.
    pub(super) fn get(&self, index: usize) -> Option<(&[Option<usize>], usize)> {
        Some((self.ranks.get(index)?, *self.lens.get(index)?))
    }
}

/// Every impression of `log` as `candidate`'s ranking sees it. Errors: a
/// policy that is not a ranking, a context the run ranks nothing for.
pub(super) fn ranked(
    log: &ImpressionLog,
    log_name: &str,
    candidate: &Candidate,
) -> Result<Ranked, OpeRunError> {
    let TargetPolicy::Ranking(run) = &candidate.policy else {
        return Err(OpeRunError::Unfit(format!(
            "policy `{}`: a click log's target is a ranking (a run, without --plackett-luce \
             or a target column)",
            candidate.name
        )));
    };
    let mut by_context: HashMap<u32, (HashMap<u32, usize>, usize)> = HashMap::new();
    let mut out = Ranked {
        ranks: Ragged::new(),
        lens: Vec::with_capacity(log.impressions.len()),
    };
    for imp in &log.impressions {
        let (ranks, len) = match by_context.entry(imp.context) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let context = log.ids.resolve(imp.context);
                let list = run.list(context).ok_or_else(|| OpeRunError::NoRanking {
                    log: log_name.to_owned(),
                    at: imp.at.to_string(),
                    policy: candidate.name.clone(),
                    context: shorten_id(context),
                })?;
                let mut ranks = HashMap::new();
                for i in 0..list.len() {
                    if let Some(id) = log.ids.get(list.doc(i)) {
                        ranks.entry(id).or_insert(i + 1);
                    }
                }
                e.insert((ranks, list.len()))
            }
        };
        out.ranks
            .push_iter(imp.items.iter().map(|item| ranks.get(item).copied()));
        out.lens.push(*len);
    }
    Ok(out)
}

/// What [`contribution`] fills per impression, kept from one to the next.
#[derive(Default)]
pub(super) struct Scratch {
    chosen: Vec<Click>,
    shown: Vec<usize>,
}

/// The contribution of impression `index`: its clicks (rewards of 1) at
/// their logged positions' propensities and the target's ranks (`ranks`,
/// of a list of `len`).
pub(super) fn contribution(
    estimator: &ClickIps,
    index: usize,
    clicks: &[f64],
    propensities: &[f64],
    (ranks, len): (&[Option<usize>], usize),
    scratch: &mut Scratch,
) -> Result<Contribution, OpeError> {
    scratch.chosen.clear();
    for (l, &click) in clicks.iter().enumerate() {
        if click != 0.0 {
            scratch.chosen.push(Click {
                target_rank: ranks.get(l).copied().flatten(),
                propensity: propensities.get(l).copied().unwrap_or(f64::NAN),
            });
        }
    }
    scratch.shown.clear();
    scratch.shown.extend(ranks.iter().flatten().copied());
    estimator.contribution(
        index,
        &Record {
            clicks: &scratch.chosen,
            shown: &scratch.shown,
            target_len: len,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_print_back() {
        for (text, name) in [
            ("ips_dcg@10", "ips_dcg@10"),
            ("ips_dcg", "ips_dcg"),
            ("ips_p@5", "ips_p@5"),
            ("ips_rbp(p=0.8)", "ips_rbp(p=0.8)"),
            (
                "ips_rbp(p=0.8, max_weight=10)",
                "ips_rbp(p=0.8)(max_weight=10)",
            ),
            (
                "ips_rbp(p=0.8)(max_weight=10)",
                "ips_rbp(p=0.8)(max_weight=10)",
            ),
            ("ips_dcg@10(max_weight=5)", "ips_dcg@10(max_weight=5)"),
        ] {
            let e = parse(text).unwrap().unwrap();
            assert_eq!(e.name(), name, "{text}");
            assert_eq!(parse(&e.name()).unwrap().unwrap(), e);
        }
        assert!(parse("snips").is_none());
        for (text, error) in [
            ("ips_ndcg", "unknown click metric `ips_ndcg`"),
            ("ips_dcg@0", "k = 0: must be at least 1"),
            ("ips_p", "precision needs a cutoff"),
            ("ips_rbp", "rbp needs"),
            ("ips_rbp(p=1)", "must be strictly between 0 and 1"),
            ("ips_dcg@10(p=0.5)", "dcg@10 takes no `p`"),
            ("ips_dcg@10(max_weight=0)", "must be greater than 0"),
            ("ips_dcg@x", "expected dcg@K"),
            ("ips_dcg@10(max_weight=5", "expected `(name=value, ...)`"),
        ] {
            let got = parse(text).unwrap().unwrap_err();
            assert!(got.contains(error), "{text}: {got}");
        }
    }

    #[test]
    fn examination_rules() {
        assert_eq!(
            Examination::parse("power(eta=1)").unwrap(),
            Examination::PowerLaw { eta: 1.0 }
        );
        assert_eq!(
            Examination::parse("1, 0.5,0.25").unwrap(),
            Examination::ByRank(vec![1.0, 0.5, 0.25])
        );
        assert_eq!(
            Examination::parse("power(eta=2)").unwrap().at(3),
            Some(1.0 / 9.0)
        );
        assert_eq!(Examination::parse("1,0.5").unwrap().at(3), None);
        for (text, error) in [
            ("power(eta=-1)", "eta is a finite number of at least 0"),
            ("power(eta=inf)", "eta is a finite number of at least 0"),
            ("power(p=1)", "power takes `eta`"),
            ("power", "expected power(eta=N)"),
            ("1,0,0.5", "rank 2: 0 is not a probability in (0, 1]"),
            ("1,1.5", "rank 2: 1.5 is not a probability"),
            ("1,NaN", "rank 2: NaN is not a probability"),
            ("1,,0.5", "rank 2: `` is not a number"),
            ("", "rank 1: `` is not a number"),
        ] {
            let got = Examination::parse(text).unwrap_err();
            assert!(got.contains(error), "{text}: {got}");
        }
    }
}
