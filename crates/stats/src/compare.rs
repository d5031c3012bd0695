//! The entry points: compare a candidate column with a baseline column (or
//! many pairs at once) with the chosen test, then correct the family's
//! p-values.

use serde::{Deserialize, Serialize};

use crate::bootstrap::{BootstrapMethod, bootstrap_columns_with};
use crate::correction::{Correction, correct};
use crate::error::CompareError;
use crate::paired::{Summary, differences, validate};
use crate::rng::RNG_NAME;
use crate::sign_flip::{Resampling, sign_flip_columns};
use crate::ttest::{Interval, paired_t};
use crate::wilcoxon::{Wilcoxon, wilcoxon};

/// Default confidence level of intervals.
pub const DEFAULT_LEVEL: f64 = 0.95;

/// A paired significance test.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    /// Student's paired t-test (the default); t interval.
    #[default]
    #[serde(alias = "t-test", alias = "ttest")]
    T,
    /// The paired randomization (sign-flip) test; t interval.
    #[serde(alias = "permutation")]
    Randomization,
    /// The paired bootstrap; percentile interval, shifted-bootstrap p-value.
    Bootstrap,
    /// The Wilcoxon signed-rank test; t interval.
    Wilcoxon,
    /// The sign-flip test with each query's signs keyed by its id (the
    /// seed, the query's hash and the resample: [`crate::keyed`]), so the
    /// same wherever the query's row is, on one machine or merged from a
    /// Spark job's partitions; t interval. Needs the queries' ids
    /// ([`compare_all_keyed`]).
    #[serde(alias = "randomization-keyed")]
    RandomizationKeyed,
    /// The double-or-nothing bootstrap with each query's weights keyed by
    /// its id ([`crate::keyed_bootstrap`]), so the same wherever the
    /// query's row is; percentile interval, shifted-bootstrap p-value.
    /// Needs the queries' ids ([`compare_all_keyed`]).
    #[serde(alias = "bootstrap-keyed")]
    BootstrapKeyed,
}

impl Test {
    /// The name used in reports and configuration.
    pub fn name(self) -> &'static str {
        match self {
            Test::T => "t",
            Test::Randomization => "randomization",
            Test::Bootstrap => "bootstrap",
            Test::Wilcoxon => "wilcoxon",
            Test::RandomizationKeyed => "randomization_keyed",
            Test::BootstrapKeyed => "bootstrap_keyed",
        }
    }

    /// Whether the test draws random numbers (resamples and seed matter).
    pub fn is_resampling(self) -> bool {
        matches!(
            self,
            Test::Randomization | Test::Bootstrap | Test::RandomizationKeyed | Test::BootstrapKeyed
        )
    }

    /// Whether the test draws by the queries' ids, which it then needs
    /// ([`compare_all_keyed`]).
    pub fn is_keyed(self) -> bool {
        matches!(self, Test::RandomizationKeyed | Test::BootstrapKeyed)
    }
}

/// How a comparison's confidence interval was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IntervalMethod {
    /// `mean ± t quantile × standard error`.
    StudentT,
    /// Percentile interval of the paired bootstrap.
    BootstrapPercentile,
    /// Delete-a-group jackknife interval, queries grouped by a hash of
    /// their id ([`crate::keyed::GroupedSums`]): what a Spark job's
    /// `keyed_compare` gives, whatever the partitioning.
    Jackknife,
}

/// The settings of a comparison.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Options {
    /// The test.
    pub test: Test,
    /// Confidence level of the interval, in `(0, 1)`; default 0.95.
    pub level: f64,
    /// Resamples, seed and exact-enumeration limit of the resampling tests.
    pub resampling: Resampling,
    /// The bootstrap's variant (default `Auto`: multinomial up to 10,000
    /// queries, double-or-nothing above).
    pub bootstrap: BootstrapMethod,
    /// With `Some(G)`, every interval is the delete-a-group jackknife over
    /// `G` groups of queries keyed by id (the test's p-value stays the
    /// test's); `None`: the test's own interval.
    pub jackknife_groups: Option<u32>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            test: Test::default(),
            level: DEFAULT_LEVEL,
            resampling: Resampling::default(),
            bootstrap: BootstrapMethod::default(),
            jackknife_groups: None,
        }
    }
}

impl Options {
    /// Checks the level and, for a resampling test, the resample count.
    pub fn validate(&self) -> Result<(), CompareError> {
        if !(self.level > 0.0 && self.level < 1.0) {
            return Err(CompareError::InvalidLevel { level: self.level });
        }
        if self.test.is_resampling() {
            crate::paired::check_resamples(self.resampling.resamples)?;
        }
        Ok(())
    }
}

/// Where a comparison's numbers come from, for reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Provenance {
    /// The test.
    pub test: Test,
    /// How the interval was computed.
    pub interval_method: IntervalMethod,
    /// The confidence level.
    pub level: f64,
    /// Random resamples asked for (resampling tests only).
    pub resamples: Option<u64>,
    /// Whether the randomization test enumerated every sign vector.
    pub exact: Option<bool>,
    /// The bootstrap variant used (bootstrap only; never `Auto`).
    pub bootstrap: Option<BootstrapMethod>,
    /// The seed (resampling tests only).
    pub seed: Option<u64>,
    /// The random generator (resampling tests only).
    pub rng: Option<&'static str>,
    /// The correction applied over the family, once applied.
    pub correction: Option<Correction>,
    /// The number of comparisons in the family, once corrected.
    pub family_size: Option<usize>,
    /// The jackknife's groups (jackknife intervals only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jackknife_groups: Option<u32>,
}

/// A candidate compared with a baseline, paired by query.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// Means, difference, effect size, wins / ties / losses.
    #[serde(flatten)]
    pub summary: Summary,
    /// Confidence interval of the difference of means.
    pub interval: Interval,
    /// Two-sided p-value of the test.
    pub p_value: f64,
    /// The p-value corrected over the family (see [`correct_family`]).
    pub corrected_p_value: Option<f64>,
    /// The signed-rank details, for the Wilcoxon test.
    pub wilcoxon: Option<Wilcoxon>,
    /// Test, resamples, seed, generator, correction, family size, level.
    pub provenance: Provenance,
}

/// Compares `candidate` with `baseline` (one value per query each, in the
/// same query order).
pub fn compare(
    baseline: &[f64],
    candidate: &[f64],
    options: &Options,
) -> Result<Comparison, CompareError> {
    let mut all = compare_all(&[(baseline, candidate)], options)?;
    all.pop().ok_or(CompareError::TooFewQueries { queries: 0 })
}

/// Compares every `(baseline, candidate)` pair. Pairs with the same number of
/// queries share their random draws, which is faster; each result is the
/// same as [`compare`] of that pair alone.
pub fn compare_all(
    pairs: &[(&[f64], &[f64])],
    options: &Options,
) -> Result<Vec<Comparison>, CompareError> {
    compare_all_keyed(pairs, None, options)
}

/// [`compare_all`], with the queries' ids of each pair (`keys[i][q]` the id
/// of query `q` of pair `i`), which [`Test::RandomizationKeyed`] draws its
/// signs by, [`Test::BootstrapKeyed`] its weights, and the jackknife interval ([`Options::jackknife_groups`])
/// groups the queries by; the rest does not read them.
pub fn compare_all_keyed(
    pairs: &[(&[f64], &[f64])],
    keys: Option<&[Vec<String>]>,
    options: &Options,
) -> Result<Vec<Comparison>, CompareError> {
    options.validate()?;
    for (baseline, candidate) in pairs {
        validate(baseline, candidate)?;
        if options.test == Test::Bootstrap
            && options.bootstrap.resolve(baseline.len()) == BootstrapMethod::Multinomial
            && baseline.len() > u32::MAX as usize
        {
            return Err(CompareError::TooManyQueries {
                queries: baseline.len(),
            });
        }
    }
    let diffs: Vec<Vec<f64>> = pairs.iter().map(|(b, c)| differences(b, c)).collect();
    let mut out: Vec<Comparison> = pairs
        .iter()
        .zip(&diffs)
        .map(|((b, c), d)| t_comparison(b, c, d, options))
        .collect::<Result<_, _>>()?;
    match options.test {
        Test::T => {}
        Test::Wilcoxon => {
            for (comparison, d) in out.iter_mut().zip(&diffs) {
                let w = wilcoxon(d)?;
                comparison.p_value = w.p_value;
                comparison.wilcoxon = Some(w);
            }
        }
        Test::RandomizationKeyed => {
            let keys = keys.ok_or(CompareError::QueryIdsNeeded)?;
            let r = &options.resampling;
            for ((comparison, d), ids) in out.iter_mut().zip(&diffs).zip(keys) {
                let mut flips = crate::keyed::KeyedSignFlip::new(r.resamples, r.seed)?;
                for (id, &value) in ids.iter().zip(d) {
                    flips.add(id.as_bytes(), value)?;
                }
                comparison.p_value = flips.p_value()?;
                comparison.provenance.exact = Some(false);
                comparison.provenance.rng = Some(crate::keyed::KEYED_RNG_NAME);
            }
        }
        Test::BootstrapKeyed => {
            let keys = keys.ok_or(CompareError::QueryIdsNeeded)?;
            let r = &options.resampling;
            for ((comparison, d), ids) in out.iter_mut().zip(&diffs).zip(keys) {
                let mut boot = crate::keyed_bootstrap::KeyedBootstrap::new(r.resamples, r.seed)?;
                for (id, &value) in ids.iter().zip(d) {
                    boot.add(id.as_bytes(), value)?;
                }
                let result = boot.result(options.level)?;
                comparison.p_value = result.p_value;
                comparison.interval = result.interval;
                comparison.provenance.interval_method = IntervalMethod::BootstrapPercentile;
                comparison.provenance.bootstrap = Some(result.method);
                comparison.provenance.rng = Some(crate::keyed_bootstrap::KEYED_BOOTSTRAP_RNG_NAME);
            }
        }
        Test::Randomization | Test::Bootstrap => {
            for group in groups_by_length(&diffs) {
                let columns: Vec<&[f64]> = group.iter().map(|i| diffs[*i].as_slice()).collect();
                resample_group(&mut out, &group, &columns, options)?;
            }
        }
    }
    if let Some(groups) = options.jackknife_groups {
        let keys = keys.ok_or(CompareError::QueryIdsNeeded)?;
        for ((comparison, d), ids) in out.iter_mut().zip(&diffs).zip(keys) {
            let mut sums = crate::keyed::GroupedSums::new(groups)?;
            for (id, &value) in ids.iter().zip(d) {
                sums.add(id.as_bytes(), value)?;
            }
            comparison.interval = sums.jackknife_interval(options.level)?;
            comparison.provenance.interval_method = IntervalMethod::Jackknife;
            comparison.provenance.jackknife_groups = Some(groups);
        }
    }
    Ok(out)
}

fn t_comparison(
    baseline: &[f64],
    candidate: &[f64],
    d: &[f64],
    options: &Options,
) -> Result<Comparison, CompareError> {
    let t = paired_t(d, options.level)?;
    let resampling = options.test.is_resampling();
    Ok(Comparison {
        summary: Summary::new(baseline, candidate, d),
        interval: t.interval,
        p_value: t.p_value,
        corrected_p_value: None,
        wilcoxon: None,
        provenance: Provenance {
            test: options.test,
            interval_method: IntervalMethod::StudentT,
            level: options.level,
            resamples: resampling.then_some(options.resampling.resamples),
            exact: None,
            bootstrap: None,
            seed: resampling.then_some(options.resampling.seed),
            rng: resampling.then_some(RNG_NAME),
            correction: None,
            family_size: None,
            jackknife_groups: None,
        },
    })
}

fn resample_group(
    out: &mut [Comparison],
    group: &[usize],
    columns: &[&[f64]],
    options: &Options,
) -> Result<(), CompareError> {
    let r = &options.resampling;
    if options.test == Test::Randomization {
        let results = sign_flip_columns(columns, r)?;
        for (i, result) in group.iter().zip(results) {
            out[*i].p_value = result.p_value;
            out[*i].provenance.exact = Some(result.exact);
        }
    } else {
        let results = bootstrap_columns_with(
            columns,
            options.level,
            r.resamples,
            r.seed,
            options.bootstrap,
        )?;
        for (i, result) in group.iter().zip(results) {
            out[*i].p_value = result.p_value;
            out[*i].interval = result.interval;
            out[*i].provenance.interval_method = IntervalMethod::BootstrapPercentile;
            out[*i].provenance.bootstrap = Some(result.method);
            if result.method == BootstrapMethod::DoubleOrNothing {
                out[*i].provenance.rng = Some(crate::rng::FAST_RNG_NAME);
            }
        }
    }
    Ok(())
}

/// Indices of the columns grouped by length, groups in order of first
/// appearance.
fn groups_by_length(columns: &[Vec<f64>]) -> Vec<Vec<usize>> {
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, column) in columns.iter().enumerate() {
        match groups.iter_mut().find(|(len, _)| *len == column.len()) {
            Some((_, members)) => members.push(i),
            None => groups.push((column.len(), vec![i])),
        }
    }
    groups.into_iter().map(|(_, members)| members).collect()
}

/// Corrects the p-values of a family of comparisons (all of them, in
/// order) and records the correction and family size in each one's
/// provenance.
pub fn correct_family(
    family: &mut [Comparison],
    correction: Correction,
) -> Result<(), CompareError> {
    let p: Vec<f64> = family.iter().map(|c| c.p_value).collect();
    let corrected = correct(&p, correction)?;
    let size = family.len();
    for (comparison, q) in family.iter_mut().zip(corrected) {
        comparison.corrected_p_value = Some(q);
        comparison.provenance.correction = Some(correction);
        comparison.provenance.family_size = Some(size);
    }
    Ok(())
}
