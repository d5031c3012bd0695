//! Click logs under the position-based model (Joachims, Swaminathan and
//! Schnabel, WSDM 2017): a seeded simulation whose truth is known. The
//! user examines rank `k` with probability `p_k = 1/k` and clicks an
//! examined document exactly when it is relevant; the logging policy shows
//! a uniformly random permutation. Each IPS-weighted rank metric of a
//! target ranking is unbiased for the metric of the target over the
//! relevant documents, so over many logs its mean is within a few Monte
//! Carlo standard errors of the truth; the same log read as if every
//! rank were examined (no weighting) is not.

use rand_core::Rng;
use rankeval::ope::estimators::click::RankWeight;
use rankeval::ope::estimators::{Floors, IntervalKind, Options};
use rankeval::ope::{
    Candidate, Impression, ImpressionLog, OpeEstimator, OpePlan, RowAt, TargetPolicy, ope_report,
};
use rankeval::read::impressions::{PropensityForm, RewardPer};
use rankeval::read::{Format, Input};

const SEED: u64 = 38;
const CONTEXTS: usize = 4;
const DOCS: usize = 6;
const REPLICATIONS: usize = 300;
const IMPRESSIONS: usize = 400;

/// Context `c`'s relevant documents (by index) and the target's ranking.
fn relevant(c: usize, d: usize) -> bool {
    (d * 7 + c * 3) % 5 < 2
}

fn target_order(c: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..DOCS).collect();
    order.rotate_left(c % DOCS);
    order.reverse();
    order
}

fn uniform(rng: &mut impl Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// One simulated log; `weighted` false reads every rank as examined.
fn log(rng: &mut impl Rng, weighted: bool) -> ImpressionLog {
    let mut log = ImpressionLog {
        form: PropensityForm::Examination,
        reward: RewardPer::Position,
        slate_len: DOCS,
        ..ImpressionLog::default()
    };
    for n in 0..IMPRESSIONS {
        let c = n % CONTEXTS;
        let mut shown: Vec<usize> = (0..DOCS).collect();
        for i in (1..DOCS).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            shown.swap(i, j);
        }
        let mut clicks = Vec::with_capacity(DOCS);
        let mut propensities = Vec::with_capacity(DOCS);
        for (k, &d) in shown.iter().enumerate() {
            let p = 1.0 / (k as f64 + 1.0);
            let examined = uniform(rng) < p;
            clicks.push(f64::from(u8::from(examined && relevant(c, d))));
            propensities.push(if weighted { p } else { 1.0 });
        }
        let context = log.ids.intern(format!("q{c}").as_bytes());
        let id = log.ids.intern(format!("i{n}").as_bytes());
        let items = shown
            .iter()
            .map(|d| log.ids.intern(format!("d{d}").as_bytes()))
            .collect();
        log.impressions.push(Impression {
            context,
            id,
            items,
            rewards: clicks,
            propensities,
            target: None,
            at: RowAt::Row(n as u64 + 1),
        });
    }
    log
}

fn target() -> Candidate {
    let mut trec = String::new();
    for c in 0..CONTEXTS {
        for (rank, d) in target_order(c).iter().enumerate() {
            trec.push_str(&format!("q{c} Q0 d{d} {} {} t\n", rank + 1, DOCS - rank));
        }
    }
    let run = rankeval::read_run(
        &Input::bytes("target.trec", trec.as_bytes(), Format::Trec),
        rankeval::ReadOptions::default(),
    )
    .expect("the target run");
    Candidate {
        name: "target".into(),
        policy: TargetPolicy::Ranking(run),
    }
}

/// The metric of the target over the relevant documents, averaged over
/// the contexts (each is a quarter of every log).
fn truth(metric: &RankWeight) -> f64 {
    let mut sum = 0.0;
    for c in 0..CONTEXTS {
        for (rank, &d) in target_order(c).iter().enumerate() {
            if relevant(c, d) {
                sum += metric.at(rank + 1);
            }
        }
    }
    sum / CONTEXTS as f64
}

#[test]
fn ips_weighted_rank_metrics_are_unbiased_under_the_position_based_model() {
    let names = ["ips_dcg", "ips_dcg@3", "ips_rbp(p=0.8)", "ips_p@2"];
    let estimators: Vec<OpeEstimator> = names
        .iter()
        .map(|n| OpeEstimator::parse(n).expect("an estimator"))
        .collect();
    let plan = OpePlan {
        estimators: estimators.clone(),
        options: Options {
            interval: IntervalKind::Normal,
            level: 0.95,
            floors: Floors::NONE,
        },
        allow_unlogged: false,
        allow_low_support: false,
        model: None,
        sampling: None,
        gates: Vec::new(),
        resampling: None,
        correction: None,
    };
    let candidates = [target()];
    let mut rng = rankeval_stats::rng::fast_chunk_rng(SEED, 0);
    let mut weighted = vec![Vec::new(); names.len()];
    let mut naive = vec![Vec::new(); names.len()];
    let mut covered = vec![0usize; names.len()];
    for _ in 0..REPLICATIONS {
        for (is_weighted, out) in [(true, &mut weighted), (false, &mut naive)] {
            let log = log(&mut rng, is_weighted);
            let report = ope_report(&log, "simulated", &candidates, &plan).expect("a report");
            for (k, e) in report.policies[0].estimates.iter().enumerate() {
                out[k].push(e.value);
                if is_weighted {
                    let truth = match estimators[k] {
                        OpeEstimator::Click(c) => truth(&c.metric),
                        _ => unreachable!("click estimators"),
                    };
                    covered[k] +=
                        usize::from(e.interval.lower <= truth && truth <= e.interval.upper);
                }
            }
        }
    }
    let mean_se = |xs: &[f64]| {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, (var / n).sqrt())
    };
    for (k, name) in names.iter().enumerate() {
        let OpeEstimator::Click(c) = estimators[k] else {
            unreachable!("click estimators")
        };
        let truth = truth(&c.metric);
        let (mean, se) = mean_se(&weighted[k]);
        let coverage = covered[k] as f64 / REPLICATIONS as f64;
        println!(
            "seed {SEED} (ChaCha8): {name}: truth {truth:.5}, mean {mean:.5} ± {se:.5} \
             over {REPLICATIONS} logs; 95% intervals cover {coverage:.3}"
        );
        assert!(
            (mean - truth).abs() < 4.0 * se,
            "{name}: mean {mean} is {} Monte Carlo errors from the truth {truth}",
            (mean - truth).abs() / se
        );
        assert!(
            (0.90..=0.99).contains(&coverage),
            "{name}: coverage {coverage}"
        );
        // Without the inverse propensities the clicks below rank 1 count
        // too little: the test would catch a missing weight.
        let (naive_mean, naive_se) = mean_se(&naive[k]);
        assert!(
            (naive_mean - truth).abs() > 4.0 * naive_se.max(se),
            "{name}: the unweighted mean {naive_mean} is as close to {truth}"
        );
    }
}
