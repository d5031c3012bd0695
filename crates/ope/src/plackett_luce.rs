//! A stochastic target over a ranking's scores: the Plackett-Luce model
//! (Plackett, 1975; Luce, 1959) at a temperature, whose slate, cascade and
//! marginal probabilities the slate estimators read.
//!
//! Item `i` of a list with scores `s` has weight `e_i = exp((s_i - max s)
//! / T)`; the model draws the first item with probability `e_i / Σ e`, the
//! next among the rest in proportion to their weights, and so on. The
//! cascade's conditional of the item at position `l` given those above is
//! `e_{a_l} / Σ_{b not above} e_b`, their product the slate's probability;
//! the marginal of an item at position `l` sums the probabilities of every
//! ordered choice of the `l - 1` items above it, enumerated exactly.
//! `exp` is the `libm` crate's, the same bits on every platform.

use rankeval_core::exact_sum::fsum;

use crate::error::OpeError;

/// The Plackett-Luce model over one list's scores.
#[derive(Clone, Debug, PartialEq)]
pub struct PlackettLuce {
    weights: Vec<f64>,
}

impl PlackettLuce {
    /// The model over `scores` at `temperature`. Errors: a temperature that
    /// is not a positive finite number, a score that is not finite.
    pub fn new(scores: &[f64], temperature: f64) -> Result<Self, OpeError> {
        if !(temperature > 0.0 && temperature.is_finite()) {
            return Err(OpeError::Parameter {
                estimator: "plackett_luce",
                parameter: "temperature",
                value: temperature,
                reason: "must be a positive finite number",
            });
        }
        if let Some(&bad) = scores.iter().find(|s| !s.is_finite()) {
            return Err(OpeError::Parameter {
                estimator: "plackett_luce",
                parameter: "score",
                value: bad,
                reason: "must be finite",
            });
        }
        let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let weights = scores
            .iter()
            .map(|s| libm::exp((s - max) / temperature))
            .collect();
        Ok(Self { weights })
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }

    /// The cascade's conditionals of a slate, its items given as indices
    /// into the list (`None`: an item the list does not hold, probability
    /// 0): at each position, the item's weight over the weights of the
    /// items not above it.
    pub fn cascade(&self, slate: &[Option<usize>]) -> Vec<f64> {
        let mut used = vec![false; self.weights.len()];
        let mut out = Vec::with_capacity(slate.len());
        for item in slate {
            let rest = fsum(
                self.weights
                    .iter()
                    .zip(&used)
                    .filter(|(_, u)| !**u)
                    .map(|(w, _)| *w),
            );
            let p = match *item {
                Some(i) if i < used.len() && !used[i] && rest > 0.0 => self.weights[i] / rest,
                _ => 0.0,
            };
            if let Some(u) = item.and_then(|i| used.get_mut(i)) {
                *u = true;
            }
            out.push(p);
        }
        out
    }

    /// The distribution of the next item given the items `above` (indices
    /// into the list; `None` ignored): each item's weight over the weights
    /// of the items not above, 0 for those above.
    pub fn next(&self, above: &[Option<usize>]) -> Vec<f64> {
        let mut used = vec![false; self.weights.len()];
        for u in above.iter().flatten() {
            if let Some(x) = used.get_mut(*u) {
                *x = true;
            }
        }
        let rest = fsum(
            self.weights
                .iter()
                .zip(&used)
                .filter(|(_, u)| !**u)
                .map(|(w, _)| *w),
        );
        self.weights
            .iter()
            .zip(&used)
            .map(|(w, u)| if *u || rest <= 0.0 { 0.0 } else { w / rest })
            .collect()
    }

    /// The slate's probability: the product of its cascade's conditionals.
    pub fn slate(&self, slate: &[Option<usize>]) -> f64 {
        self.cascade(slate).iter().product()
    }

    /// The marginal probability of each item of the slate at its position,
    /// enumerating every ordered choice of the items above; `None` when that
    /// is more than `limit` choices at some position.
    pub fn marginals(&self, slate: &[Option<usize>], limit: usize) -> Option<Vec<f64>> {
        let n = self.weights.len();
        let mut out = Vec::with_capacity(slate.len());
        for (l, item) in slate.iter().enumerate() {
            let Some(target) = item.filter(|&i| i < n) else {
                out.push(0.0);
                continue;
            };
            // Ordered choices of l items among n - 1: (n-1)! / (n-1-l)!.
            let mut count = 1usize;
            for k in 0..l {
                count = count.checked_mul(n.saturating_sub(1 + k))?;
                if count > limit {
                    return None;
                }
            }
            let mut used = vec![false; n];
            used[target] = true;
            let total = fsum(self.weights.iter().copied());
            out.push(self.prefixes(l, target, &mut used, total, 1.0));
        }
        Some(out)
    }

    /// The probability that `target` comes after `depth` more items drawn
    /// (not `used`), given the prefix so far has probability `p` and the
    /// items not yet drawn weigh `rest` (the target's weight included).
    fn prefixes(&self, depth: usize, target: usize, used: &mut [bool], rest: f64, p: f64) -> f64 {
        if depth == 0 {
            return p * self.weights[target] / rest;
        }
        let mut sum = 0.0;
        for b in 0..self.weights.len() {
            if used[b] {
                continue;
            }
            used[b] = true;
            let wb = self.weights[b];
            sum += self.prefixes(depth - 1, target, used, rest - wb, p * wb / rest);
            used[b] = false;
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_items_by_hand() {
        // Scores ln 1 and ln 3 at T = 1: weights 1/3 and 1 after the shift.
        let pl = PlackettLuce::new(&[0.0, libm::log(3.0)], 1.0).unwrap();
        let c = pl.cascade(&[Some(1), Some(0)]);
        assert!((c[0] - 0.75).abs() < 1e-15 && (c[1] - 1.0).abs() < 1e-15);
        let m = pl.marginals(&[Some(0), Some(0)], 100).unwrap();
        assert!((m[0] - 0.25).abs() < 1e-15 && (m[1] - 0.75).abs() < 1e-15);
        assert_eq!(pl.cascade(&[None])[0], 0.0);
        let next = pl.next(&[Some(1)]);
        assert_eq!(next, vec![1.0, 0.0]);
    }

    #[test]
    fn marginals_of_each_position_sum_to_one() {
        let pl = PlackettLuce::new(&[0.3, -1.0, 2.0, 0.5], 0.7).unwrap();
        for l in 0..3 {
            let total: f64 = (0..4)
                .map(|i| {
                    let mut slate = vec![None; l + 1];
                    slate[l] = Some(i);
                    pl.marginals(&slate, 1000).unwrap()[l]
                })
                .sum();
            assert!((total - 1.0).abs() < 1e-14, "position {l}: {total}");
        }
        assert!(pl.marginals(&[None, None, Some(0)], 2).is_none());
        assert!(PlackettLuce::new(&[1.0], 0.0).is_err());
    }
}
