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
//! ordered choice of the `l - 1` items above it, enumerated exactly
//! ([`PlackettLuce::marginals`]), or, where that is too many, estimates
//! that sum by seeded Monte Carlo ([`PlackettLuce::sampled_marginals`]):
//! the mean, over orderings drawn from the model, of the conditional
//! probability that the item comes next after the drawn items above.
//! `exp` is the `libm` crate's, the same bits on every platform.

use rand_core::Rng;
use rankeval_core::exact_sum::{ExactSum, fsum};

use crate::error::OpeError;

/// A Monte Carlo estimate of a marginal probability and its Monte Carlo
/// standard error (the standard deviation of the terms over the square
/// root of their number; NaN below two samples).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampledMarginal {
    /// The estimate.
    pub value: f64,
    /// Its Monte Carlo standard error.
    pub standard_error: f64,
}

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

    /// Each slate item's marginal probability at its position, estimated
    /// from `samples` orderings drawn from the model with `rng`: for each
    /// drawn ordering, the conditional probability that the item comes
    /// next after the drawn items above its position (`e_a / Σ_{b not
    /// drawn} e_b`; 0 when it was drawn above), averaged. Each term's
    /// expectation is the exact marginal ([`marginals`](Self::marginals)'s
    /// sum over the orderings above), so the estimate is unbiased, and
    /// with less variance than the share of orderings that put the item
    /// there (Rao-Blackwell). One drawn ordering serves every position.
    /// The sums are exact, so the result depends on the draws alone: the
    /// same `rng` state gives the same bits. `None` items (not in the
    /// list) have marginal 0, as do all with `samples == 0`.
    pub fn sampled_marginals<R: Rng + ?Sized>(
        &self,
        slate: &[Option<usize>],
        samples: u64,
        rng: &mut R,
    ) -> Vec<SampledMarginal> {
        let n = self.weights.len();
        let depth = slate.len().saturating_sub(1).min(n);
        let mut sums: Vec<(ExactSum, ExactSum)> = vec![Default::default(); slate.len()];
        let mut drawn = vec![false; n];
        for _ in 0..samples {
            drawn.iter_mut().for_each(|d| *d = false);
            for (l, item) in slate.iter().enumerate() {
                let rest = fsum(
                    self.weights
                        .iter()
                        .zip(&drawn)
                        .filter(|(_, d)| !**d)
                        .map(|(w, _)| *w),
                );
                let v = match *item {
                    Some(i) if i < n && !drawn[i] && rest > 0.0 => self.weights[i] / rest,
                    _ => 0.0,
                };
                sums[l].0.add(v);
                sums[l].1.add(v * v);
                if l < depth {
                    self.draw(&mut drawn, rest, rng);
                }
            }
        }
        let n_samples = samples as f64;
        sums.into_iter()
            .map(|(sum, squares)| {
                if samples == 0 {
                    return SampledMarginal {
                        value: 0.0,
                        standard_error: f64::NAN,
                    };
                }
                let total = sum.value();
                let mut centred = squares;
                centred.add(-(total * total / n_samples));
                let variance = if samples > 1 {
                    (centred.value() / (n_samples - 1.0)).max(0.0)
                } else {
                    f64::NAN
                };
                SampledMarginal {
                    value: total / n_samples,
                    standard_error: (variance / n_samples).sqrt(),
                }
            })
            .collect()
    }

    /// Draws the next item among those not `drawn` (weighing `rest` in
    /// all), in proportion to its weight, and marks it drawn: a uniform
    /// double of 53 bits times `rest`, the first item whose running sum of
    /// weights (in list order) exceeds it, the last undrawn item if
    /// rounding leaves none.
    fn draw<R: Rng + ?Sized>(&self, drawn: &mut [bool], rest: f64, rng: &mut R) {
        let u = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64) * rest;
        let mut running = 0.0;
        let mut last = None;
        for (i, (w, d)) in self.weights.iter().zip(drawn.iter()).enumerate() {
            if *d {
                continue;
            }
            last = Some(i);
            running += w;
            if running > u {
                break;
            }
        }
        if let Some(slot) = last.and_then(|i| drawn.get_mut(i)) {
            *slot = true;
        }
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
