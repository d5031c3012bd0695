//! The generated log of `scripts/cross-check/ope-reference.py`: SplitMix64
//! with the script's seed, the same draws in the same order, so that the
//! test and the script see the same log and only the estimates are
//! committed.

use rankeval_ope::bandit;
use rankeval_ope::click;

pub const SEED: u64 = 20261129;
pub const N_BANDIT: usize = 400;
pub const K_BANDIT: usize = 5;
pub const N_SLATE: usize = 300;
pub const L_SLATE: usize = 3;
pub const K_SLATE: usize = 4;
pub const N_CLICK: usize = 200;
pub const SHOWN: usize = 6;
pub const CANDIDATES: usize = 8;
pub const TARGET_LEN: usize = 5;

/// SplitMix64 (Steele, Lea and Flood, 2014), as the script writes it.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform double in [0, 1): the top 53 bits.
    pub fn u(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

fn normalized(xs: Vec<f64>) -> Vec<f64> {
    let mut s = 0.0;
    for x in &xs {
        s += x;
    }
    xs.into_iter().map(|x| x / s).collect()
}

fn draw(rng: &mut SplitMix64, p: &[f64]) -> usize {
    let v = rng.u();
    let mut c = 0.0;
    for (a, x) in p.iter().enumerate() {
        c += x;
        if v < c {
            return a;
        }
    }
    p.len() - 1
}

/// One slate's arrays, owned.
#[derive(Default)]
pub struct Slate {
    pub rewards: Vec<f64>,
    pub lm: Vec<f64>,
    pub tm: Vec<f64>,
    pub lc: Vec<f64>,
    pub tc: Vec<f64>,
    pub ql: Vec<f64>,
    pub qt: Vec<f64>,
    pub ls: f64,
    pub ts: f64,
}

impl Slate {
    pub fn record(&self) -> rankeval_ope::slate::Record<'_> {
        use rankeval_ope::slate::{CascadeModel, Probabilities, Record};
        Record {
            rewards: &self.rewards,
            logging: Probabilities {
                slate: Some(self.ls),
                marginal: Some(&self.lm),
                cascade: Some(&self.lc),
            },
            target: Probabilities {
                slate: Some(self.ts),
                marginal: Some(&self.tm),
                cascade: Some(&self.tc),
            },
            model: Some(CascadeModel {
                logged: &self.ql,
                target: &self.qt,
            }),
        }
    }
}

/// One click impression, owned.
pub struct Clicks {
    pub clicks: Vec<click::Click>,
    pub shown: Vec<usize>,
}

impl Clicks {
    pub fn record(&self) -> click::Record<'_> {
        click::Record {
            clicks: &self.clicks,
            shown: &self.shown,
            target_len: TARGET_LEN,
        }
    }
}

pub struct Log {
    pub bandit: Vec<bandit::Record>,
    pub slates: Vec<Slate>,
    pub clicks: Vec<Clicks>,
}

pub fn generate() -> Log {
    let mut rng = SplitMix64::new(SEED);
    let mut bandit = Vec::new();
    for _ in 0..N_BANDIT {
        let p0 = normalized((0..K_BANDIT).map(|_| rng.u() + 0.05).collect());
        let p = normalized((0..K_BANDIT).map(|_| {
                let x = rng.u();
                x * x * x
            } + 0.01).collect());
        let a = draw(&mut rng, &p0);
        let mu = 0.1 + 0.15 * a as f64;
        let reward = mu + 0.5 * (rng.u() - 0.5);
        let q: Vec<f64> = (0..K_BANDIT)
            .map(|b| 0.1 + 0.15 * b as f64 + 0.2 * (rng.u() - 0.5))
            .collect();
        let mut q_target = 0.0;
        for b in 0..K_BANDIT {
            q_target += p[b] * q[b];
        }
        bandit.push(bandit::Record {
            reward,
            logging: p0[a],
            target: p[a],
            model: Some(bandit::Prediction {
                logged: q[a],
                target: q_target,
            }),
        });
    }
    let mut slates = Vec::new();
    for _ in 0..N_SLATE {
        let mut s = Slate::default();
        for pos in 0..L_SLATE {
            let p0 = normalized((0..K_SLATE).map(|_| rng.u() + 0.05).collect());
            let p = normalized((0..K_SLATE).map(|_| {
                    let x = rng.u();
                    x * x
                } + 0.02).collect());
            let a = draw(&mut rng, &p0);
            s.lm.push(p0[a]);
            s.tm.push(p[a]);
            s.lc.push(0.1 + 0.9 * rng.u());
            s.tc.push(rng.u());
            s.rewards
                .push(rng.u() * (0.3 + 0.2 * a as f64) / (pos + 1) as f64);
            let q: Vec<f64> = (0..K_SLATE).map(|_| 0.5 * rng.u()).collect();
            s.ql.push(q[a]);
            let mut e = 0.0;
            for b in 0..K_SLATE {
                e += p[b] * q[b];
            }
            s.qt.push(e);
        }
        s.ls = 0.05 + 0.95 * rng.u();
        s.ts = rng.u();
        slates.push(s);
    }
    let mut clicks = Vec::new();
    for _ in 0..N_CLICK {
        let mut perm: Vec<usize> = (0..CANDIDATES).collect();
        for i in (1..CANDIDATES).rev() {
            let j = (rng.u() * (i + 1) as f64) as usize;
            perm.swap(i, j);
        }
        let target = &perm[..TARGET_LEN];
        let rank_of = |d: usize| target.iter().position(|&t| t == d).map(|r| r + 1);
        let shown = (0..SHOWN).filter_map(rank_of).collect();
        let mut cl = Vec::new();
        for k in 1..=SHOWN {
            if rng.u() < 0.6 / k as f64 {
                cl.push(click::Click {
                    target_rank: rank_of(k - 1),
                    propensity: 1.0 / k as f64,
                });
            }
        }
        clicks.push(Clicks { clicks: cl, shown });
    }
    Log {
        bandit,
        slates,
        clicks,
    }
}
