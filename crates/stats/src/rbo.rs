//! Rank-biased overlap (RBO) of two rankings that may hold ties, with the
//! tie treatments of Corsi and Urbano.
//!
//! RBO (Webber, Moffat and Zobel, "A similarity measure for indefinite
//! rankings", TOIS 28(4), 2010) is the expected overlap of the two
//! rankings' prefixes when the depth at which a user stops is geometric
//! with persistence `p`: `RBO = (1 - p) sum_{d >= 1} p^(d - 1) A_d`, `A_d`
//! the agreement (the share of items the two prefixes of depth `d` have in
//! common). Two rankings seen only down to their lengths `s <= l` leave
//! `A_d` unknown beyond; the four scores are
//!
//! * `ext`: the agreement seen so far extrapolated to the unseen part;
//! * `min`: the lower bound, no further overlap beyond what is seen;
//! * `max`: the upper bound, every unseen item overlapping as early as it
//!   can;
//! * `res`: the residual `max - min`, what the unseen part leaves open.
//!
//! Ties (items of equal score) follow M. Corsi and J. Urbano, "The
//! Treatment of Ties in Rank-Biased Overlap", SIGIR 2024 ([`RboTies`]):
//! `w` when a tie means the items really share a rank, `a` (the expected
//! RBO over the orders of the tied items, the default) and `b` (`a`
//! corrected for the information the ties lose, so that a ranking's RBO
//! with itself is 1) when a tie means the order is unknown.
//!
//! The arithmetic is that of their reference code (`rbo/R/rbo.R`,
//! `rbo/Python/rbo.py` of github.com/julian-urbano/sigir2024-rbo): each
//! item's contribution at depth `d` is 0 above its group, `1` from the
//! group's bottom rank on and `(d - t + 1) / g` inside a group of `g` tied
//! items starting at rank `t` (`a` and `b`; `w` counts it wholly from `t`);
//! the sections `1..s`, `s + 1..l` and beyond `l` are summed as they sum
//! them. It is computed here per depth, in time linear in the rankings'
//! lengths however long their tie groups, rather than from their items-by-depth
//! matrices, and the weights `(1 - p) / p * p^d` are written as
//! `(1 - p) p^(d - 1)`, the same value, so that a tiny `p` does not
//! overflow. Every row of their test file (`rbo/test.csv`, ten thousand
//! pairs of rankings with ties) agrees with these functions within 1e-12
//! in each of the twelve scores (`tests/rbo.rs`). Powers and logarithms
//! are `libm`'s, the sums of the series exact
//! ([`rankeval_core::exact_sum::fsum`]): the same
//! bits on every platform.

use std::collections::HashMap;
use std::hash::Hash;

use rankeval_core::exact_sum::fsum;
use serde::{Deserialize, Serialize};

use crate::error::{CompareError, JudgeSet};

/// How rank-biased overlap treats tied items (Corsi and Urbano, SIGIR
/// 2024, section 1.1; their `ties` argument).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RboTies {
    /// `RBO^w`: tied items occupy the same rank (a tie is equality, as in
    /// sports rankings); a group of `g` tied items enters the prefixes
    /// whole, at its top rank.
    W,
    /// `RBO^a`: the expected RBO over every order of the tied items, each
    /// equally likely (a tie is uncertainty: scores equal by accident); the
    /// reference code's default.
    #[default]
    A,
    /// `RBO^b`: `RBO^a` with the agreement normalized by the contributions'
    /// norms (a cosine instead of a share), correcting for the information
    /// the ties lose, so that `RBO^b(X, X) = 1` and `RBO^a <= RBO^b`.
    B,
}

impl RboTies {
    /// The name used in reports and options: `w`, `a` or `b`.
    pub fn name(self) -> &'static str {
        match self {
            RboTies::W => "w",
            RboTies::A => "a",
            RboTies::B => "b",
        }
    }
}

/// The four RBO scores of two rankings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rbo {
    /// `RBO_EXT`: the agreement at the shorter ranking's depth extrapolated
    /// to the unseen part.
    pub ext: f64,
    /// `RBO_MIN`: the lower bound, no overlap beyond what is seen.
    pub min: f64,
    /// `RBO_MAX`: the upper bound, maximal overlap in the unseen part.
    pub max: f64,
    /// `RBO_RES`: the residual `max - min`.
    pub res: f64,
}

/// A ranking of items, some of them possibly tied: groups of items in
/// rank order, the items within a group sharing a rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiedRanking<T> {
    /// The items, group after group.
    items: Vec<T>,
    /// Each group's end (exclusive) in `items`, increasing; the last is
    /// `items.len()`.
    ends: Vec<usize>,
}

impl<T> TiedRanking<T> {
    /// A ranking without ties: `items` in rank order.
    pub fn untied(items: Vec<T>) -> Self {
        let ends = (1..=items.len()).collect();
        Self { items, ends }
    }

    /// A ranking from its groups of tied items, in rank order (a group of
    /// one is an untied item); empty groups are skipped.
    pub fn from_groups<G: IntoIterator<Item = T>>(groups: impl IntoIterator<Item = G>) -> Self {
        let mut items = Vec::new();
        let mut ends = Vec::new();
        for group in groups {
            items.extend(group);
            if ends.last().copied().unwrap_or(0) < items.len() {
                ends.push(items.len());
            }
        }
        Self { items, ends }
    }

    /// A ranking of `items` already in rank order whose `keys` (scores,
    /// one per item) tie adjacent items when equal (`-0.0 == 0.0`; a NaN
    /// key ties with nothing). `keys` shorter than `items` leaves the
    /// remaining items untied.
    pub fn from_ordered_keys(items: Vec<T>, keys: &[f64]) -> Self {
        let mut ends = Vec::new();
        for i in 1..items.len() {
            let tied = matches!((keys.get(i - 1), keys.get(i)), (Some(a), Some(b)) if a == b);
            if !tied {
                ends.push(i);
            }
        }
        if !items.is_empty() {
            ends.push(items.len());
        }
        Self { items, ends }
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the ranking has no item.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The items in rank order (tied items in the order given).
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// Whether two items share a rank.
    pub fn has_ties(&self) -> bool {
        self.ends.len() < self.items.len()
    }

    /// Each item's place: its group's top rank `t` (0-based) and the
    /// group's size `g` (its bottom rank is `t + g - 1`).
    fn places(&self) -> Vec<Place> {
        let mut places = Vec::with_capacity(self.items.len());
        let mut start = 0;
        for &end in &self.ends {
            for _ in start..end {
                places.push(Place {
                    top: start,
                    size: end - start,
                });
            }
            start = end;
        }
        places
    }
}

/// An item's tie group: its top rank (0-based) and its size.
#[derive(Clone, Copy, Debug)]
struct Place {
    top: usize,
    size: usize,
}

impl Place {
    /// The group's bottom rank (0-based).
    fn bottom(self) -> usize {
        self.top + self.size - 1
    }

    /// The depth (0-based) from which the item contributes 1: its bottom
    /// rank for `a` and `b`, its top rank for `w`.
    fn whole_from(self, ties: RboTies) -> usize {
        match ties {
            RboTies::W => self.top,
            RboTies::A | RboTies::B => self.bottom(),
        }
    }

    /// The item's contribution at depth `d` (0-based): 0 above its group,
    /// `(d - t + 1) / g` inside it (`a`, `b`), 1 from `whole_from` on.
    fn contribution(self, d: usize, ties: RboTies) -> f64 {
        if d < self.top {
            0.0
        } else if d >= self.whole_from(ties) {
            1.0
        } else {
            (d - self.top + 1) as f64 / self.size as f64
        }
    }
}

/// Per-depth sums of one ranking's contributions, depth `0..len`:
/// `sum_d c_i(d)` and `sum_d c_i(d)^2` over the items `keep` selects, and
/// how many of those items have appeared (`t <= d`).
struct Sums {
    linear: Vec<f64>,
    squares: Vec<f64>,
    seen: Vec<usize>,
}

fn sums(places: &[Place], keep: impl Fn(usize) -> bool, len: usize, ties: RboTies) -> Sums {
    // Whole contributions are counted (an integer per depth, exact); the
    // fractions inside each tie group are added depth by depth.
    let mut whole = vec![0usize; len + 1];
    let mut seen = vec![0usize; len + 1];
    let mut linear = vec![0.0; len];
    let mut squares = vec![0.0; len];
    // Each tie group's items are contiguous and share their place: count
    // the kept ones and add their fractions once per depth of the group.
    let mut start = 0;
    while start < places.len() {
        let place = places[start];
        let end = start + place.size;
        let kept = (start..end).filter(|&i| keep(i)).count();
        start = end;
        if kept == 0 {
            continue;
        }
        let from = place.whole_from(ties);
        whole[from.min(len)] += kept;
        seen[place.top.min(len)] += kept;
        for d in place.top..from.min(len) {
            let c = place.contribution(d, ties);
            linear[d] += kept as f64 * c;
            squares[d] += kept as f64 * (c * c);
        }
    }
    let (mut w, mut s) = (0, 0);
    for d in 0..len {
        w += whole[d];
        s += seen[d];
        linear[d] += w as f64;
        squares[d] += w as f64;
        seen[d] = s;
    }
    seen.truncate(len);
    Sums {
        linear,
        squares,
        seen,
    }
}

/// Checks a ranking: not empty, no item twice.
fn check<T: Eq + Hash>(ranking: &TiedRanking<T>, which: JudgeSet) -> Result<(), CompareError> {
    if ranking.is_empty() {
        return Err(CompareError::EmptyRanking { ranking: which });
    }
    let mut seen = HashMap::with_capacity(ranking.len());
    for (position, item) in ranking.items.iter().enumerate() {
        if seen.insert(item, ()).is_some() {
            return Err(CompareError::RepeatedItem {
                ranking: which,
                position,
            });
        }
    }
    Ok(())
}

/// `p^e` (`libm`).
fn pow(p: f64, e: usize) -> f64 {
    libm::pow(p, e as f64)
}

/// The rank-biased overlap of rankings `x` and `y` with persistence `p`
/// (`0 < p < 1`; 0.9 weighs the top 10 ranks with 86 %, 0.98 the top 50),
/// ties treated as `ties` says: the four scores of Corsi and Urbano's
/// `rbo(x, y, p, ties)`. Rankings without ties give the same scores
/// under every treatment (and are computed as `w`, as theirs).
///
/// The items may be of any type that is compared and hashed (document ids
/// as bytes). Errors: `p` not strictly between 0 and 1 (NaN included), an
/// empty ranking, an item listed twice in one ranking.
///
/// ```
/// use rankeval_stats::rbo::{RboTies, TiedRanking, rbo};
/// // Their README's example: red (blue green) yellow pink against
/// // (blue red) white (yellow black purple) green.
/// let x = TiedRanking::from_groups([vec!["red"], vec!["blue", "green"], vec!["yellow"], vec!["pink"]]);
/// let y = TiedRanking::from_groups([
///     vec!["blue", "red"], vec!["white"], vec!["yellow", "black", "purple"], vec!["green"],
/// ]);
/// let a = rbo(&x, &y, 0.95, RboTies::A).unwrap();
/// assert!((a.ext - 0.6922853).abs() < 5e-8);
/// assert!((a.res - 0.5620173).abs() < 5e-8);
/// ```
pub fn rbo<T: Eq + Hash>(
    x: &TiedRanking<T>,
    y: &TiedRanking<T>,
    p: f64,
    ties: RboTies,
) -> Result<Rbo, CompareError> {
    if !(p > 0.0 && p < 1.0) {
        return Err(CompareError::InvalidPersistence { p });
    }
    check(x, JudgeSet::First)?;
    check(y, JudgeSet::Second)?;
    // S is the shorter ranking (y when they are as long), L the longer.
    let (short, long) = if x.len() >= y.len() { (y, x) } else { (x, y) };
    let ties = if short.has_ties() || long.has_ties() {
        ties
    } else {
        RboTies::W
    };
    let (s, l) = (short.len(), long.len());
    let (ps, pl) = (short.places(), long.places());
    let in_long: HashMap<&T, usize> = long.items.iter().enumerate().map(|(j, t)| (t, j)).collect();
    let mut shared = vec![false; l];
    let mut pairs = Vec::new();
    for (i, item) in short.items.iter().enumerate() {
        if let Some(&j) = in_long.get(item) {
            shared[j] = true;
            pairs.push((ps[i], pl[j]));
        }
    }
    let common = pairs.len();
    let overlap = overlap_per_depth(&pairs, &ps, &pl, ties);
    let sum_s = sums(&ps, |_| true, s, ties);
    let sum_l = sums(&pl, |_| true, l, ties);
    let only_l = sums(&pl, |j| !shared[j], l, ties);

    // The agreement at depth d (0-based) of an overlap `x`.
    let agreement = |d: usize, x: f64, short_sum: f64, short_squares: f64| -> f64 {
        let depth = (d + 1) as f64;
        match ties {
            RboTies::W => 2.0 * x / (short_sum + sum_l.linear[d]),
            RboTies::A => x / depth,
            RboTies::B => x / short_squares.sqrt() / sum_l.squares[d].sqrt(),
        }
    };
    // Section 1, depths 1..=s: both rankings seen.
    let a1: Vec<f64> = (0..s)
        .map(|d| agreement(d, overlap[d], sum_s.linear[d], sum_s.squares[d]))
        .collect();
    let a_s = a1[s - 1];
    // Section 2, depths s+1..=l: the short ranking has run out; its unseen
    // items count d + 1 in total (each contributes 1, so d + 1 to the
    // squares as well).
    let beyond = |d: usize, x: f64| agreement(d, x, (d + 1) as f64, (d + 1) as f64);
    let only_l_order: Vec<Place> = pl
        .iter()
        .enumerate()
        .filter(|(j, _)| !shared[*j])
        .map(|(_, place)| *place)
        .collect();
    let mut a2_min = Vec::with_capacity(l - s);
    let mut a2_max = Vec::with_capacity(l - s);
    let mut a2_ext = Vec::with_capacity(l - s);
    for (d, &seen) in overlap.iter().enumerate().skip(s) {
        a2_min.push(beyond(d, seen));
        // Upper bound: the short ranking's unseen items at depths s+1..=d+1
        // are the long ranking's first d - s + 1 items it lacks.
        let k = d - s + 1;
        let unseen_max = unseen_max(&only_l_order[..k.min(only_l_order.len())], d, ties);
        a2_max.push(beyond(d, seen + unseen_max));
        // Extrapolated: the agreement at depth s, times the mean
        // contribution of the long ranking's own items seen by depth d.
        let mean = only_l.linear[d] / only_l.seen[d] as f64;
        a2_ext.push(beyond(d, seen + k as f64 * a_s * mean));
    }
    // Section 3, beyond l. X_l is the number of shared items (every
    // contribution is 1 at depth l).
    let x_l = common as f64;
    let weights: Vec<f64> = (1..=l).map(|d| (1.0 - p) * pow(p, d - 1)).collect();
    let seen_part = |a2: &[f64]| fsum(a1.iter().chain(a2).zip(&weights).map(|(a, w)| a * w));
    // min: X_l (ln(1 / (1 - p)) - sum_{d=1..l} p^d / d), times (1 - p) / p.
    let tail = -libm::log1p(-p) - fsum((1..=l).map(|d| pow(p, d) / d as f64));
    let sec3_min = if tail > 0.0 && x_l > 0.0 {
        x_l * tail * ((1.0 - p) / p)
    } else {
        0.0
    };
    // max: sum_{d=l+1..f} (2d - l - s + X_l) / d p^d + p^(f+1) / (1 - p),
    // f = l + s - X_l, times (1 - p) / p.
    let f = l + s - common;
    let sec3_max = fsum(
        (l + 1..=f)
            .map(|d| (2.0 * d as f64 - (l + s) as f64 + x_l) / d as f64 * (1.0 - p) * pow(p, d - 1))
            .chain(std::iter::once(pow(p, f))),
    );
    // ext: (X_l + (l - s) A_s) / l p^(l+1) / (1 - p), times (1 - p) / p.
    let sec3_ext = (x_l + (l - s) as f64 * a_s) / l as f64 * pow(p, l);
    let min = seen_part(&a2_min) + sec3_min;
    let max = seen_part(&a2_max) + sec3_max;
    let ext = seen_part(&a2_ext) + sec3_ext;
    Ok(Rbo {
        ext,
        min,
        max,
        res: max - min,
    })
}

/// `X_d` for every depth `d` (0-based) below `l`: the sum over the shared
/// items (`pairs`: each one's place in the short and in the long ranking)
/// of `c_S(d) c_L(d)`, in `O(l + pairs)` whatever the ties.
///
/// At depth `d` each ranking has at most one tie group that `d` falls
/// inside of (its top rank `<= d <` its bottom rank), whose items all
/// contribute the same fraction `r(d)`; every earlier item contributes 1.
/// So `X_d = W_d + r_S(d) A_d + r_L(d) B_d + r_S(d) r_L(d) C_d`, with `W_d`
/// the shared items whole in both, `A_d` (`B_d`) those inside the short
/// (long) ranking's group and whole in the other, and `C_d` those inside
/// both groups: each count is a sum of intervals of depths, one per item.
fn overlap_per_depth(
    pairs: &[(Place, Place)],
    short: &[Place],
    long: &[Place],
    ties: RboTies,
) -> Vec<f64> {
    let l = long.len();
    let mut whole = vec![0i64; l + 1];
    let mut inside_short = vec![0i64; l + 1];
    let mut inside_long = vec![0i64; l + 1];
    let mut inside_both = vec![0i64; l + 1];
    let add = |counts: &mut [i64], from: usize, to: usize| {
        if from < to {
            counts[from] += 1;
            counts[to] -= 1;
        }
    };
    for &(a, b) in pairs {
        let (whole_a, whole_b) = (a.whole_from(ties), b.whole_from(ties));
        add(&mut whole, whole_a.max(whole_b), l);
        add(&mut inside_short, a.top.max(whole_b), whole_a);
        add(&mut inside_long, b.top.max(whole_a), whole_b);
        add(&mut inside_both, a.top.max(b.top), whole_a.min(whole_b));
    }
    // The fraction each ranking's items inside their group contribute at d.
    let fraction = |places: &[Place], d: usize| {
        places
            .get(d)
            .map_or(0.0, |place| place.contribution(d, ties))
    };
    let (mut w, mut a, mut b, mut c) = (0i64, 0i64, 0i64, 0i64);
    (0..l)
        .map(|d| {
            w += whole[d];
            a += inside_short[d];
            b += inside_long[d];
            c += inside_both[d];
            let (rs, rl) = (fraction(short, d), fraction(long, d));
            let mut x = w as f64;
            if a > 0 {
                x += a as f64 * rs;
            }
            if b > 0 {
                x += b as f64 * rl;
            }
            if c > 0 {
                x += c as f64 * (rs * rl);
            }
            x
        })
        .collect()
}

/// The sum of the contributions at depth `d` (0-based) of `items` (the
/// long ranking's first items the short one lacks, in rank order).
fn unseen_max(items: &[Place], d: usize, ties: RboTies) -> f64 {
    // Ranks are increasing along `items`: those whole at d come first, then
    // at most one group inside which d falls, then those below d.
    let whole = items.partition_point(|p| p.whole_from(ties) <= d);
    let started = items.partition_point(|p| p.top <= d);
    let inside = started.saturating_sub(whole);
    let fraction = items
        .get(whole)
        .filter(|_| inside > 0)
        .map_or(0.0, |p| p.contribution(d, ties));
    whole as f64 + inside as f64 * fraction
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // the hand-worked values use std's powi and ln
mod tests {
    use super::*;

    fn r(text: &str) -> TiedRanking<String> {
        // "a (b c) d": parentheses group tied items.
        let mut groups: Vec<Vec<String>> = Vec::new();
        let mut open = false;
        for word in text.split_whitespace() {
            let name = word.trim_matches(|c| c == '(' || c == ')').to_owned();
            if open {
                groups.last_mut().unwrap().push(name);
            } else {
                groups.push(vec![name]);
            }
            if word.starts_with('(') {
                open = true;
            }
            if word.ends_with(')') {
                open = false;
            }
        }
        TiedRanking::from_groups(groups)
    }

    #[test]
    fn identical_untied_rankings() {
        // ext and max are 1; min assumes nothing more in common below the
        // seen depth 4: (1-p)/p [sum_{d<=4} p^d + 4 (ln(1/(1-p)) - sum_{d<=4} p^d/d)].
        let x = r("a b c d");
        let p: f64 = 0.9;
        let seen: f64 = (1..=4).map(|d| p.powi(d)).sum();
        let tail = (1.0 / (1.0 - p)).ln() - (1..=4).map(|d| p.powi(d) / d as f64).sum::<f64>();
        let min = (1.0 - p) / p * (seen + 4.0 * tail);
        for ties in [RboTies::W, RboTies::A, RboTies::B] {
            let v = rbo(&x, &x, p, ties).unwrap();
            assert!((v.ext - 1.0).abs() < 1e-15, "{ties:?} {v:?}");
            assert!((v.max - 1.0).abs() < 1e-15, "{ties:?} {v:?}");
            assert!((v.min - min).abs() < 1e-15, "{ties:?} {v:?} {min}");
            assert_eq!(v.res, v.max - v.min);
        }
    }

    #[test]
    fn disjoint_rankings_of_equal_length() {
        // Nothing shared: ext and min are 0; max: the unseen items could
        // all match from depth l + 1 on.
        let (x, y) = (r("a b"), r("c d"));
        let v = rbo(&x, &y, 0.5, RboTies::A).unwrap();
        assert_eq!(v.ext, 0.0);
        assert_eq!(v.min, 0.0);
        // f = 4: (1-p)/p [ (2*3-4)/3 p^3 + (2*4-4)/4 p^4 + p^5/(1-p) ]
        let p: f64 = 0.5;
        let want = (1.0 - p) / p * (2.0 / 3.0 * p.powi(3) + p.powi(4) + p.powi(5) / (1.0 - p));
        assert!((v.max - want).abs() < 1e-15, "{} {want}", v.max);
    }

    #[test]
    fn hand_worked_prefix_without_ties() {
        // x = a b c, y = b a d, p = 0.5: A_1 = 0, A_2 = 1, A_3 = 2/3;
        // X_3 = 2. min = (1-p)/p [sum A_d p^d + X_3 (ln 2 - sum p^d/d)].
        let (x, y) = (r("a b c"), r("b a d"));
        let p: f64 = 0.5;
        let v = rbo(&x, &y, p, RboTies::W).unwrap();
        let seen = 0.0 * p + 1.0 * p * p + 2.0 / 3.0 * p.powi(3);
        let tail = 2.0f64.ln() - (p + p * p / 2.0 + p.powi(3) / 3.0);
        let min = (1.0 - p) / p * (seen + 2.0 * tail);
        assert!((v.min - min).abs() < 1e-15, "{} {min}", v.min);
        // ext: s = l, so (X_l / l) p^(l+1) / (1 - p).
        let ext = (1.0 - p) / p * (seen + 2.0 / 3.0 * p.powi(4) / (1.0 - p));
        assert!((v.ext - ext).abs() < 1e-15, "{} {ext}", v.ext);
        // max: f = 3 + 3 - 2 = 4: one more term at d = 4, then p^5 / (1 - p).
        let max =
            (1.0 - p) / p * (seen + (8.0 - 6.0 + 2.0) / 4.0 * p.powi(4) + p.powi(5) / (1.0 - p));
        assert!((v.max - max).abs() < 1e-15, "{} {max}", v.max);
    }

    #[test]
    fn a_tied_ranking_with_itself() {
        // b corrects for the ties: 1 with itself; a is the mean over the
        // orders of the tie, below 1.
        let x = r("(a b) c");
        let b = rbo(&x, &x, 0.9, RboTies::B).unwrap();
        assert!((b.ext - 1.0).abs() < 1e-15, "{b:?}");
        let a = rbo(&x, &x, 0.9, RboTies::A).unwrap();
        assert!(a.ext < 1.0);
        // A_1 under a: both put a or b first, agreeing half the time
        // (X_1 = 1/2 * 1/2 + 1/2 * 1/2 = 1/2); A_2 = A_3 = 1.
        let p: f64 = 0.9;
        let want = (1.0 - p) / p * (0.5 * p + p * p + p.powi(3) + p.powi(4) / (1.0 - p));
        assert!((a.ext - want).abs() < 1e-15, "{} {want}", a.ext);
        let w = rbo(&x, &x, 0.9, RboTies::W).unwrap();
        assert!((w.ext - 1.0).abs() < 1e-15, "{w:?}");
    }

    #[test]
    fn symmetric_in_its_arguments() {
        let (x, y) = (r("a (b c) d e"), r("(c a) f b"));
        for ties in [RboTies::W, RboTies::A, RboTies::B] {
            let (u, v) = (
                rbo(&x, &y, 0.8, ties).unwrap(),
                rbo(&y, &x, 0.8, ties).unwrap(),
            );
            assert_eq!(u, v);
        }
    }

    #[test]
    fn invalid_inputs_are_errors() {
        let x = r("a b");
        for p in [0.0, 1.0, -0.5, 1.5, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                rbo(&x, &x, p, RboTies::A),
                Err(CompareError::InvalidPersistence { .. })
            ));
        }
        let empty = TiedRanking::<String>::untied(Vec::new());
        assert!(matches!(
            rbo(&x, &empty, 0.9, RboTies::A),
            Err(CompareError::EmptyRanking {
                ranking: JudgeSet::Second
            })
        ));
        assert!(matches!(
            rbo(&r("a b a"), &x, 0.9, RboTies::A),
            Err(CompareError::RepeatedItem {
                ranking: JudgeSet::First,
                position: 2
            })
        ));
    }

    #[test]
    fn extreme_persistence_stays_finite() {
        let (x, y) = (r("a (b c) d"), r("b a e"));
        for p in [
            f64::MIN_POSITIVE / 4.0,
            1e-300,
            1e-12,
            1.0 - 1e-12,
            1.0 - f64::EPSILON / 2.0,
        ] {
            for ties in [RboTies::W, RboTies::A, RboTies::B] {
                let v = rbo(&x, &y, p, ties).unwrap();
                for score in [v.ext, v.min, v.max, v.res] {
                    assert!(
                        score.is_finite() && (-1e-9..=1.0 + 1e-9).contains(&score),
                        "{p} {v:?}"
                    );
                }
            }
        }
    }

    /// A ranking of `n` items `0..n` shuffled by `state`, cut into tie
    /// groups at random.
    fn random_ranking(state: &mut u64, n: usize, universe: u64) -> TiedRanking<u64> {
        let mut next = || {
            *state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            *state >> 33
        };
        let mut items: Vec<u64> = Vec::new();
        while items.len() < n {
            let item = next() % universe;
            if !items.contains(&item) {
                items.push(item);
            }
        }
        let keys: Vec<f64> = (0..n).map(|_| (next() % 3) as f64).collect();
        // Adjacent equal keys tie: sort nothing, only group.
        TiedRanking::from_ordered_keys(items, &keys)
    }

    #[test]
    fn overlap_per_depth_equals_the_sum_over_items() {
        let mut state = 7u64;
        for round in 0..300 {
            let (n, m) = (1 + round % 13, 1 + (round * 7) % 17);
            let x = random_ranking(&mut state, n, 30);
            let y = random_ranking(&mut state, m, 30);
            let (short, long) = if x.len() >= y.len() {
                (&y, &x)
            } else {
                (&x, &y)
            };
            let (ps, pl) = (short.places(), long.places());
            for ties in [RboTies::W, RboTies::A] {
                let mut pairs = Vec::new();
                for (i, item) in short.items().iter().enumerate() {
                    if let Some(j) = long.items().iter().position(|o| o == item) {
                        pairs.push((ps[i], pl[j]));
                    }
                }
                let fast = overlap_per_depth(&pairs, &ps, &pl, ties);
                for (d, &got) in fast.iter().enumerate() {
                    let want: f64 = pairs
                        .iter()
                        .map(|(a, b)| a.contribution(d, ties) * b.contribution(d, ties))
                        .sum();
                    assert!((got - want).abs() < 1e-12, "{ties:?} d {d}: {got} {want}");
                }
            }
        }
    }

    #[test]
    fn long_tie_groups_take_linear_time() {
        // 200,000 items all tied against the same items untied, reversed:
        // the items-by-depth way is 4e10 products; this is a few passes.
        let n = 200_000u32;
        let x = TiedRanking::from_groups([(0..n).collect::<Vec<_>>()]);
        let y = TiedRanking::untied((0..n).rev().collect());
        let start = std::time::Instant::now();
        let v = rbo(&x, &y, 0.999, RboTies::A).unwrap();
        assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
        assert!(v.ext > 0.0 && v.ext < 1.0, "{v:?}");
    }

    #[test]
    fn from_ordered_keys_groups_equal_adjacent_keys() {
        let x = TiedRanking::from_ordered_keys(vec!["a", "b", "c", "d"], &[3.0, 2.0, 2.0, -0.0]);
        assert_eq!(
            x,
            TiedRanking::from_groups([vec!["a"], vec!["b", "c"], vec!["d"]])
        );
        let y = TiedRanking::from_ordered_keys(vec!["a", "b"], &[f64::NAN, f64::NAN]);
        assert!(!y.has_ties());
    }
}
