//! Comparisons of runs with a baseline, and quality gates: the
//! statistics of [`rankeval_stats`] applied to an evaluated [`Report`].
//!
//! [`compare`] takes the per-query results of the runs (a [`Report`]), a
//! [`Baseline`] (one of the runs, or per-query results read from a file
//! with [`read_results`]), the [`Settings`] (test, resamples, seed,
//! correction, family, `missing` policy) and the [`GateSpec`]s, and returns
//! a [`ComparisonReport`]: for every (run, metric) the means, the
//! difference, its confidence interval, the p-value, the corrected
//! p-value, the paired effect size and wins / ties / losses, with how the
//! queries were paired and where the numbers come from; then every gate's
//! outcome. Without a baseline, every pair of runs is compared with the
//! randomized Tukey HSD.
//!
//! The [`ComparisonReport`] is plain serializable data, stable for the
//! reports, the Python package and the HTML page to build on; its JSON
//! form is `rankeval ... --format json`'s `comparison` object.

mod baseline;
mod gates;
mod pairing;
mod plan;

use rankeval_stats::{
    BootstrapMethod, Correction, Gate, GateOutcome, IntervalMethod, Resampling, Summary, Test,
    randomized_tukey_hsd,
};
use serde::{Deserialize, Serialize};

pub use baseline::{
    BaselineResults, OPTIONS_NOT_COMPARED, OptionDifference, option_differences, parse_all_results,
    parse_results, read_all_results, read_record, read_results, record_differences,
};
pub use gates::{GateSpec, Group, parse_gate, parse_group, split_group};
pub use pairing::Pairing;
pub use plan::{BaselineRef, Compared, ComparisonPlan, run_plan};
pub use rankeval_stats as stats;
pub use rankeval_stats::Interval;

pub(crate) use gates::{RULES, parse_margin, rule_name};

use crate::engine::Missing;
use crate::report::Report;
use pairing::Alignment;

/// The version of rankeval that computed a comparison, for its provenance.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Default significance level: a comparison is significant when its
/// corrected p-value is below it, and `superior` gates use it unless they
/// set their own.
pub const DEFAULT_ALPHA: f64 = 0.05;

/// What the runs are compared with.
#[derive(Clone, Debug, PartialEq)]
pub enum Baseline {
    /// One of the report's runs, by name.
    Run(String),
    /// Per-query results of an earlier evaluation (see [`read_results`]).
    Results(BaselineResults),
}

/// Which comparisons form one family for the multiple-testing correction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// Every comparison of the report: runs x metrics (the default).
    #[default]
    #[serde(rename = "runs_x_metrics", alias = "all", alias = "runs-x-metrics")]
    RunsXMetrics,
    /// The comparisons of one metric (its runs) are a family.
    #[serde(alias = "per-metric")]
    PerMetric,
    /// The comparisons of one run (its metrics) are a family.
    #[serde(alias = "per-run")]
    PerRun,
}

impl Family {
    /// The name used in reports and configuration.
    pub fn name(self) -> &'static str {
        match self {
            Family::RunsXMetrics => "runs_x_metrics",
            Family::PerMetric => "per_metric",
            Family::PerRun => "per_run",
        }
    }
}

/// Why the keyed bootstrap takes no bootstrap variant but its own (every
/// front end gives this reason for `multinomial` with it).
pub const KEYED_BOOTSTRAP_VARIANT: &str = "the keyed bootstrap weights each query 0 or 2 from a \
     stream keyed by its id (double-or-nothing), so that a Spark job's partitions merge to the \
     same numbers; the multinomial bootstrap draws queries by position and cannot be keyed. Use \
     the bootstrap test for it, or leave the variant out";

/// How to compare.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Settings {
    /// The paired test (with a baseline).
    pub test: Test,
    /// Confidence level of the intervals, in `(0, 1)`.
    pub level: f64,
    /// Random resamples of the randomization test, the bootstrap and the
    /// randomized Tukey HSD.
    pub resamples: u64,
    /// Seed of their ChaCha generators (ChaCha20; ChaCha8 for the
    /// double-or-nothing bootstrap's bits).
    pub seed: u64,
    /// The bootstrap's variant: `auto` (multinomial up to
    /// [`rankeval_stats::MULTINOMIAL_UP_TO`] queries, double-or-nothing
    /// above), `multinomial` or `double_or_nothing`.
    pub bootstrap: BootstrapMethod,
    /// The multiple-testing correction.
    pub correction: Correction,
    /// Which comparisons are corrected together.
    pub family: Family,
    /// Significance level of the marks, and of `superior` gates by default.
    pub alpha: f64,
    /// A query that not every compared run has: left out or scored 0.
    pub missing: Missing,
    /// With groups of queries: whether each group's comparisons join the
    /// whole runs' in their families (`true`), or each group is corrected
    /// as families of its own (`false`, the default).
    pub groups_in_family: bool,
    /// With `Some(G)`, each difference's interval is the delete-a-group
    /// jackknife over `G` groups of queries keyed by id (as a Spark job's
    /// `keyed_compare`), with a baseline only; `None`: the test's own.
    pub jackknife_groups: Option<u32>,
}

impl Default for Settings {
    fn default() -> Self {
        let resampling = Resampling::default();
        Self {
            test: Test::default(),
            level: rankeval_stats::DEFAULT_LEVEL,
            resamples: resampling.resamples,
            seed: resampling.seed,
            bootstrap: BootstrapMethod::default(),
            correction: Correction::default(),
            family: Family::default(),
            alpha: DEFAULT_ALPHA,
            missing: Missing::default(),
            groups_in_family: false,
            jackknife_groups: None,
        }
    }
}

impl Settings {
    /// Checks the numbers and their combination: level and alpha in range,
    /// resamples within [`rankeval_stats::check_resamples`]'s bounds and,
    /// for the bootstrap tests, enough for their percentile interval
    /// ([`rankeval_stats::percentile_minimum`]), the keyed bootstrap
    /// without the multinomial variant (it has none). The front ends call
    /// it before reading any data.
    pub fn validate(&self) -> Result<(), CompareRunError> {
        let problem = if !(self.level > 0.0 && self.level < 1.0) {
            Some(format!(
                "the confidence level must be strictly between 0 and 1, got {}",
                self.level
            ))
        } else if !(self.alpha > 0.0 && self.alpha <= 1.0) {
            Some(format!("alpha must be in (0, 1], got {}", self.alpha))
        } else if let Err(error) = rankeval_stats::check_resamples(self.resamples) {
            Some(error.to_string())
        } else if let Err(error) = matches!(self.test, Test::Bootstrap | Test::BootstrapKeyed)
            .then(|| rankeval_stats::check_percentile_resamples(self.resamples, self.level))
            .unwrap_or(Ok(()))
        {
            Some(error.to_string())
        } else if self.test == Test::BootstrapKeyed
            && self.bootstrap == BootstrapMethod::Multinomial
        {
            Some(format!(
                "bootstrap `multinomial` with test `bootstrap_keyed`: {KEYED_BOOTSTRAP_VARIANT}"
            ))
        } else if self.jackknife_groups.is_some_and(|g| g < 2) {
            Some("the jackknife needs at least 2 groups".to_owned())
        } else {
            None
        };
        match problem {
            Some(reason) => Err(CompareRunError::Settings(reason)),
            None => Ok(()),
        }
    }

    fn options(&self) -> rankeval_stats::Options {
        rankeval_stats::Options {
            test: self.test,
            level: self.level,
            resampling: Resampling {
                resamples: self.resamples,
                seed: self.seed,
                ..Resampling::default()
            },
            bootstrap: self.bootstrap,
            jackknife_groups: self.jackknife_groups,
        }
    }
}

/// Why a comparison could not be made at all. A problem with one
/// (run, metric) only, such as a NaN value, is reported in that
/// [`ComparisonCell`] instead.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CompareRunError {
    /// A setting is out of range.
    #[error("comparison: {0}")]
    Settings(String),
    /// The baseline run is not one of the report's runs.
    #[error("the baseline `{name}` is not a run of the experiment (the runs are {runs})")]
    UnknownBaseline {
        /// The name given.
        name: String,
        /// The runs, listed.
        runs: String,
    },
    /// The results file of the baseline cannot be used.
    #[error("baseline {path}: {reason}")]
    BaselineFile {
        /// The file, as named.
        path: String,
        /// Why.
        reason: String,
    },
    /// The per-query results that `rankeval report` renders (its RESULTS
    /// argument) cannot be used.
    #[error("results file {path}: {reason}")]
    ResultsFile {
        /// The file or directory, as named.
        path: String,
        /// Why, with the row, run, metric or query where there is one.
        reason: String,
    },
    /// A gate names a run or a metric that the report does not have, or
    /// needs a baseline and there is none.
    #[error("gate `{gate}`: {reason}")]
    Gate {
        /// The gate, in the short syntax.
        gate: String,
        /// Why.
        reason: String,
    },
}

/// Where the baseline came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BaselineSource {
    /// A run of the experiment, at `index` in the report's runs.
    Run {
        /// Its index in the report's runs.
        index: usize,
    },
    /// A run of a results file.
    Results {
        /// The file, as named.
        path: String,
    },
}

/// The baseline of a comparison.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BaselineInfo {
    /// Its name: the run's, or the name of the run in the results file.
    pub name: String,
    /// Where it came from.
    pub source: BaselineSource,
}

/// Where the numbers of a [`ComparisonReport`] come from: enough to
/// repeat them exactly.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Provenance {
    /// `t`, `randomization`, `bootstrap`, `wilcoxon`, or
    /// `randomized_tukey_hsd` (all pairs, without a baseline).
    pub test: &'static str,
    /// How the intervals were computed.
    pub interval_method: IntervalMethod,
    /// Confidence level of the intervals.
    pub level: f64,
    /// Random resamples (random tests only).
    pub resamples: Option<u64>,
    /// The seed (random tests only).
    pub seed: Option<u64>,
    /// The random generator (random tests only).
    pub rng: Option<&'static str>,
    /// Queries up to which the randomization test enumerates every sign
    /// vector instead of drawing them (randomization only).
    pub exact_up_to: Option<usize>,
    /// The bootstrap's variant as asked (`auto`, `multinomial`,
    /// `double_or_nothing`; bootstrap only). Each comparison records the
    /// variant used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bootstrap: Option<BootstrapMethod>,
    /// Queries up to which `auto` uses the multinomial bootstrap (bootstrap
    /// `auto` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multinomial_up_to: Option<usize>,
    /// The jackknife's groups of queries (jackknife intervals only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jackknife_groups: Option<u32>,
    /// The multiple-testing correction (`none` for the Tukey HSD, whose
    /// p-values are adjusted over the pairs of each metric by construction).
    pub correction: Correction,
    /// Which comparisons form a family.
    pub family: Family,
    /// The number of families.
    pub families: usize,
    /// Comparisons in the largest family.
    pub family_size: usize,
    /// Whether the groups' comparisons are in the whole runs' families.
    pub groups_in_family: bool,
    /// Significance level of the marks.
    pub alpha: f64,
    /// The policy for a query that not every compared run has.
    pub missing: Missing,
    /// The rankeval version.
    pub rankeval_version: &'static str,
}

/// One run compared with the baseline on one metric (or, without a
/// baseline, one pair of runs).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ComparisonCell {
    /// The run compared (the candidate).
    pub run: String,
    /// What it is compared with: the baseline, or the pair's first run.
    pub baseline: String,
    /// The metric's canonical name.
    pub metric: String,
    /// How the queries were paired.
    pub pairing: Pairing,
    /// The numbers; `None` when they cannot be computed (see `error`).
    #[serde(flatten)]
    pub result: Option<CellResult>,
    /// Why there are no numbers: fewer than 2 paired queries, a value that
    /// is not a number, a metric the baseline file does not have.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ComparisonCell {
    /// Whether the difference is significant: the corrected p-value below
    /// `alpha`.
    pub fn significant(&self, alpha: f64) -> bool {
        self.result
            .as_ref()
            .is_some_and(|r| r.corrected_p_value < alpha)
    }
}

/// The numbers of one comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellResult {
    /// Means on the paired queries, difference, its standard deviation, the
    /// paired effect size `d_z`, wins / ties / losses.
    #[serde(flatten)]
    pub summary: Summary,
    /// Confidence interval of the difference of means.
    pub interval: Interval,
    /// Two-sided p-value.
    pub p_value: f64,
    /// The p-value corrected over its family (equal to `p_value` without
    /// correction).
    pub corrected_p_value: f64,
    /// Whether the randomization test enumerated every sign vector.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<bool>,
    /// The bootstrap variant used (bootstrap only; `auto` resolved on the
    /// number of paired queries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bootstrap: Option<BootstrapMethod>,
}

/// The outcome of one gate for one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GateCheck {
    /// The gate as given, in the short syntax.
    pub gate: String,
    /// The run checked.
    pub run: String,
    /// The metric.
    pub metric: String,
    /// The rule and its parameters.
    pub rule: Gate,
    /// Whether it holds; `false` when it cannot be decided.
    pub passed: bool,
    /// The deciding number, its relation and threshold.
    pub outcome: Option<GateOutcome>,
    /// Why it cannot be decided (the comparison has no numbers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The group of queries it was checked on (`segment=tail`); none for
    /// every query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// The comparisons of one group of queries (`--groups`): every (run,
/// metric) compared on the group's queries only, corrected as a family of
/// their own (the groups are not in one family together: each group's
/// comparisons answer a question of their own, as the whole run's do).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupComparison {
    /// The group column.
    pub column: String,
    /// The group.
    pub value: String,
    /// One cell per (run, metric), as [`ComparisonReport::comparisons`].
    pub comparisons: Vec<ComparisonCell>,
}

/// Every comparison and gate of a report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ComparisonReport {
    /// The baseline; `None` when every pair of runs was compared.
    pub baseline: Option<BaselineInfo>,
    /// Test, interval, resamples, seed, generator, correction, family.
    pub provenance: Provenance,
    /// One cell per (run, metric), runs in report order within each metric
    /// in report order (or per pair of runs, without a baseline).
    pub comparisons: Vec<ComparisonCell>,
    /// Every gate, for every run it applies to.
    pub gates: Vec<GateCheck>,
    /// The comparisons of each group of queries, when the report has
    /// groups.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupComparison>,
}

impl ComparisonReport {
    /// Whether every gate passed (true when there is none).
    pub fn passed(&self) -> bool {
        self.gates.iter().all(|g| g.passed)
    }

    /// Whether some gate could not be decided (its comparison has no
    /// numbers): a data problem rather than a failure.
    pub fn undecided(&self) -> bool {
        self.gates.iter().any(|g| g.error.is_some())
    }

    /// One line per group of queries whose comparisons could not all be
    /// made (too few queries for the test, a value that is not a number):
    /// the group, how many, and why, so that no group is dropped silently.
    pub fn group_warnings(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for group in &self.groups {
            let failed: Vec<&ComparisonCell> = group
                .comparisons
                .iter()
                .filter(|c| c.result.is_none())
                .collect();
            let Some(first) = failed.first() else {
                continue;
            };
            lines.push(format!(
                "group `{}={}`: {} of {} comparisons not made ({})",
                group.column,
                group.value,
                failed.len(),
                group.comparisons.len(),
                first.error.as_deref().unwrap_or("no numbers")
            ));
        }
        lines
    }

    /// The cell of `run` on `metric`, if compared.
    pub fn cell(&self, run: &str, metric: &str) -> Option<&ComparisonCell> {
        self.comparisons
            .iter()
            .find(|c| c.run == run && c.metric == metric)
    }
}

/// Checks gates against a report's runs and metrics, and the baseline:
/// run and metric exist, a rule that needs a baseline has one, no gate
/// compares the baseline with itself.
pub fn check_gates(
    gates: &[GateSpec],
    runs: &[&str],
    metrics: &[&str],
    baseline: Option<&str>,
) -> Result<(), CompareRunError> {
    for spec in gates {
        let problem = |reason: String| CompareRunError::Gate {
            gate: spec.to_string(),
            reason,
        };
        if !metrics.contains(&spec.metric.as_str()) {
            return Err(problem(format!(
                "the experiment has no metric `{}` (its metrics are {})",
                spec.metric,
                listed(metrics)
            )));
        }
        if let Some(run) = &spec.run
            && !runs.contains(&run.as_str())
        {
            return Err(problem(format!(
                "the experiment has no run `{run}` (its runs are {})",
                listed(runs)
            )));
        }
        if spec.gate.needs_baseline() {
            match baseline {
                None => {
                    return Err(problem(format!(
                        "{} compares with a baseline, and there is none (set `baseline`, or \
                         --baseline)",
                        spec.gate.name()
                    )));
                }
                Some(b) if spec.run.as_deref() == Some(b) => {
                    return Err(problem(format!(
                        "`{b}` is the baseline: it cannot be compared with itself"
                    )));
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

fn listed(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Compares the runs of `report` with `baseline` (or every pair of runs,
/// without one) and checks `gates`.
pub fn compare(
    report: &Report,
    baseline: Option<&Baseline>,
    settings: &Settings,
    gates: &[GateSpec],
) -> Result<ComparisonReport, CompareRunError> {
    settings.validate()?;
    let (whole, grouped): (Vec<GateSpec>, Vec<GateSpec>) =
        gates.iter().cloned().partition(|g| g.group.is_none());
    let gates = whole.as_slice();
    let runs: Vec<&str> = report.runs.iter().map(|r| r.name.as_str()).collect();
    let metrics: Vec<&str> = report.metrics.iter().map(|m| m.name.as_str()).collect();
    let info = match baseline {
        None => None,
        Some(Baseline::Run(name)) => {
            let index = runs.iter().position(|r| r == name).ok_or_else(|| {
                CompareRunError::UnknownBaseline {
                    name: name.clone(),
                    runs: listed(&runs),
                }
            })?;
            Some(BaselineInfo {
                name: name.clone(),
                source: BaselineSource::Run { index },
            })
        }
        Some(Baseline::Results(results)) => Some(BaselineInfo {
            name: results.name.clone(),
            source: BaselineSource::Results {
                path: results.source.clone(),
            },
        }),
    };
    let baseline_run = match &info {
        Some(BaselineInfo {
            source: BaselineSource::Run { index },
            ..
        }) => Some(runs[*index]),
        _ => None,
    };
    check_gates(
        gates,
        &runs,
        &metrics,
        info.as_ref().map(|b| b.name.as_str()),
    )?;
    if baseline.is_none() && settings.jackknife_groups.is_some() {
        return Err(CompareRunError::Settings(
            "the jackknife interval is for differences with a baseline; all pairs get the \
             randomized Tukey HSD with t intervals"
                .to_owned(),
        ));
    }
    let (mut comparisons, provenance_test, interval_method) = match baseline {
        Some(baseline) => (
            with_baseline(report, baseline, settings)?,
            settings.test.name(),
            match (settings.jackknife_groups, settings.test) {
                (Some(_), _) => IntervalMethod::Jackknife,
                (None, Test::Bootstrap | Test::BootstrapKeyed) => {
                    IntervalMethod::BootstrapPercentile
                }
                (None, _) => IntervalMethod::StudentT,
            },
        ),
        None => (
            all_pairs(report, settings)?,
            if settings.test == Test::RandomizationKeyed {
                "randomized_tukey_hsd_keyed"
            } else {
                "randomized_tukey_hsd"
            },
            IntervalMethod::StudentT,
        ),
    };
    let correction = if baseline.is_some() {
        settings.correction
    } else {
        Correction::None
    };
    let (families, family_size) = correct(&mut comparisons, settings.family, correction);
    let random = baseline.is_none() || settings.test.is_resampling();
    let provenance = Provenance {
        test: provenance_test,
        interval_method,
        level: settings.level,
        resamples: random.then_some(settings.resamples),
        seed: random.then_some(settings.seed),
        rng: random.then(|| {
            if baseline.is_some() {
                generator(&comparisons, settings.test)
            } else if settings.test == Test::RandomizationKeyed {
                rankeval_stats::KEYED_TUKEY_RNG_NAME
            } else {
                generator(&comparisons, Test::T)
            }
        }),
        exact_up_to: (baseline.is_some() && settings.test == Test::Randomization)
            .then_some(Resampling::default().exact_up_to),
        bootstrap: (baseline.is_some() && settings.test == Test::Bootstrap)
            .then_some(settings.bootstrap)
            .or(
                (baseline.is_some() && settings.test == Test::BootstrapKeyed)
                    .then_some(BootstrapMethod::DoubleOrNothing),
            ),
        multinomial_up_to: (baseline.is_some()
            && settings.test == Test::Bootstrap
            && settings.bootstrap == BootstrapMethod::Auto)
            .then_some(rankeval_stats::MULTINOMIAL_UP_TO),
        jackknife_groups: settings.jackknife_groups.filter(|_| baseline.is_some()),
        correction,
        family: settings.family,
        families,
        family_size,
        groups_in_family: settings.groups_in_family,
        alpha: settings.alpha,
        missing: settings.missing,
        rankeval_version: VERSION,
    };
    let mut checks = check_all(report, &comparisons, gates, baseline_run, info.is_some());
    check_gates(
        &grouped,
        &runs,
        &metrics,
        info.as_ref().map(|b| b.name.as_str()),
    )?;
    let mut groups = compare_groups(report, baseline, settings, &grouped)?;
    let mut provenance = provenance;
    if settings.groups_in_family && baseline.is_some() && !groups.is_empty() {
        // One correction over the whole runs' cells and every group's.
        let mut all: Vec<ComparisonCell> = comparisons.clone();
        for (group, _) in &groups {
            all.extend(group.comparisons.iter().cloned());
        }
        let (families, family_size) = correct(&mut all, settings.family, correction);
        provenance.families = families;
        provenance.family_size = family_size;
        let mut rest = all.into_iter();
        for cell in comparisons.iter_mut() {
            if let Some(joint) = rest.next() {
                *cell = joint;
            }
        }
        for (group, _) in &mut groups {
            for cell in group.comparisons.iter_mut() {
                if let Some(joint) = rest.next() {
                    *cell = joint;
                }
            }
        }
        checks = check_all(report, &comparisons, gates, baseline_run, info.is_some());
    }
    for spec in &grouped {
        let Some((group, sub)) = groups
            .iter()
            .find(|(g, _)| spec.group.as_ref() == Some(&(g.column.clone(), g.value.clone())))
        else {
            continue; // `compare_groups` refused it.
        };
        let plain = GateSpec {
            group: None,
            ..spec.clone()
        };
        for mut check in check_all(
            sub,
            &group.comparisons,
            std::slice::from_ref(&plain),
            baseline_run,
            info.is_some(),
        ) {
            check.gate = spec.to_string();
            check.group = Some(format!("{}={}", group.column, group.value));
            checks.push(check);
        }
    }
    Ok(ComparisonReport {
        baseline: info,
        provenance,
        comparisons,
        gates: checks,
        groups: groups.into_iter().map(|(group, _)| group).collect(),
    })
}

/// The comparisons of every group of queries of `report`, each with the
/// group's report (its gates are checked on it); an error for a gate on a
/// group that no run has queries in.
fn compare_groups(
    report: &Report,
    baseline: Option<&Baseline>,
    settings: &Settings,
    gates: &[GateSpec],
) -> Result<Vec<(GroupComparison, Report)>, CompareRunError> {
    let keys = report.groups();
    for spec in gates {
        if let Some(group) = &spec.group
            && !keys.contains(group)
        {
            let known: Vec<String> = keys.iter().map(|(c, v)| format!("{c}={v}")).collect();
            return Err(CompareRunError::Gate {
                gate: spec.to_string(),
                reason: if keys.is_empty() {
                    "a gate on a group needs the groups of queries (--groups FILE, TOML `groups`)"
                        .to_owned()
                } else {
                    format!(
                        "no run has queries in group `{}={}` (the groups are {})",
                        group.0,
                        group.1,
                        listed(&known.iter().map(String::as_str).collect::<Vec<_>>())
                    )
                },
            });
        }
    }
    // Built once, not per group: each group costs its own queries only.
    let rows: Vec<std::collections::HashMap<&str, usize>> = report
        .runs
        .iter()
        .map(|run| {
            run.queries
                .iter()
                .enumerate()
                .map(|(q, id)| (id.as_str(), q))
                .collect()
        })
        .collect();
    let baseline_rows: Option<std::collections::HashMap<&str, usize>> = match baseline {
        Some(Baseline::Results(results)) => Some(
            results
                .queries
                .iter()
                .enumerate()
                .map(|(q, id)| (id.as_str(), q))
                .collect(),
        ),
        _ => None,
    };
    let mut groups = Vec::with_capacity(keys.len());
    for row in report.group_table() {
        let sub = group_report(report, &row, &rows);
        let sub_baseline = baseline.map(|b| match b {
            Baseline::Run(name) => Baseline::Run(name.clone()),
            Baseline::Results(results) => {
                let mut selected: Vec<usize> = match &baseline_rows {
                    Some(index) => sub
                        .runs
                        .iter()
                        .flat_map(|r| r.queries.iter())
                        .filter_map(|q| index.get(q.as_str()).copied())
                        .collect(),
                    None => Vec::new(),
                };
                selected.sort_unstable();
                selected.dedup();
                Baseline::Results(results.select(&selected))
            }
        });
        let result = compare(&sub, sub_baseline.as_ref(), settings, &[])?;
        groups.push((
            GroupComparison {
                column: row.column,
                value: row.value,
                comparisons: result.comparisons,
            },
            sub,
        ));
    }
    Ok(groups)
}

/// The report of one group (`row`, with each run's results on it): each
/// run's values on the group's queries, with the group's aggregates (a run
/// without queries in the group has none); `rows[r]` finds a query's row
/// in run `r`.
fn group_report(
    report: &Report,
    row: &crate::report::GroupRow<'_>,
    rows: &[std::collections::HashMap<&str, usize>],
) -> Report {
    let runs = report
        .runs
        .iter()
        .zip(&row.runs)
        .zip(rows)
        .map(|((run, group), index)| {
            let (queries, per_query, aggregates, intervals) = match group {
                Some(group) => {
                    let rows: Vec<usize> = group
                        .queries
                        .iter()
                        .filter_map(|q| index.get(q.as_str()).copied())
                        .collect();
                    (
                        group.queries.clone(),
                        run.per_query
                            .iter()
                            .map(|c| rows.iter().map(|&q| c[q]).collect())
                            .collect(),
                        group.aggregates.clone(),
                        group.intervals.clone(),
                    )
                }
                None => (
                    Vec::new(),
                    vec![Vec::new(); run.per_query.len()],
                    Vec::new(),
                    Vec::new(),
                ),
            };
            crate::report::RunResult {
                name: run.name.clone(),
                queries,
                per_query,
                aggregates,
                intervals,
                corpus: Vec::new(),
                groups: Vec::new(),
                ir_metadata: None,
            }
        })
        .collect();
    Report {
        metrics: report.metrics.clone(),
        aggregators: report.aggregators.clone(),
        corpus: Vec::new(),
        runs,
        warnings: Vec::new(),
    }
}

/// The random generator of the comparisons: ChaCha20, or ChaCha8 where
/// the double-or-nothing bootstrap was used (both named when some of the
/// comparisons used it and some not).
fn generator(comparisons: &[ComparisonCell], test: Test) -> &'static str {
    match test {
        Test::RandomizationKeyed => return rankeval_stats::keyed::KEYED_RNG_NAME,
        Test::BootstrapKeyed => return rankeval_stats::KEYED_BOOTSTRAP_RNG_NAME,
        _ => {}
    }
    let used = |method| {
        comparisons
            .iter()
            .any(|c| c.result.as_ref().and_then(|r| r.bootstrap) == Some(method))
    };
    match (
        used(BootstrapMethod::DoubleOrNothing),
        used(BootstrapMethod::Multinomial),
    ) {
        (true, true) => BOTH_GENERATORS,
        (true, false) => rankeval_stats::FAST_RNG_NAME,
        (false, _) => rankeval_stats::RNG_NAME,
    }
}

/// The generators of a report where some comparisons used the
/// double-or-nothing bootstrap and some the multinomial one.
const BOTH_GENERATORS: &str = "ChaCha20 for the multinomial bootstrap, ChaCha8 for the \
     double-or-nothing bootstrap (rand_chacha 0.10, seed_from_u64, one stream per chunk)";

/// Every run but the baseline run against the baseline, metric by metric.
fn with_baseline(
    report: &Report,
    baseline: &Baseline,
    settings: &Settings,
) -> Result<Vec<ComparisonCell>, CompareRunError> {
    let (baseline_name, baseline_queries, baseline_index): (&str, &[String], Option<usize>) =
        match baseline {
            Baseline::Run(name) => {
                let index = report
                    .runs
                    .iter()
                    .position(|r| &r.name == name)
                    .ok_or_else(|| CompareRunError::UnknownBaseline {
                        name: name.clone(),
                        runs: String::new(),
                    })?;
                (name, &report.runs[index].queries, Some(index))
            }
            Baseline::Results(results) => (&results.name, &results.queries, None),
        };
    let candidates: Vec<usize> = (0..report.runs.len())
        .filter(|r| Some(*r) != baseline_index)
        .collect();
    let alignments: Vec<Alignment> = candidates
        .iter()
        .map(|&r| {
            Alignment::new(
                &[baseline_queries, &report.runs[r].queries],
                settings.missing,
            )
        })
        .collect();
    let mut cells = Vec::with_capacity(candidates.len() * report.metrics.len());
    // The columns of every computable cell, tested together so that the
    // random tests draw once for all of them.
    let mut pairs: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
    // Their queries' ids, for a test keyed by query.
    let mut keys: Vec<Vec<String>> = Vec::new();
    let keyed = settings.test.is_keyed() || settings.jackknife_groups.is_some();
    let mut pair_cells: Vec<usize> = Vec::new();
    for (m, metric) in report.metrics.iter().enumerate() {
        let baseline_column: Option<&[f64]> = match (baseline, baseline_index) {
            (_, Some(index)) => Some(&report.runs[index].per_query[m]),
            (Baseline::Results(results), None) => results.column(&metric.name),
            (Baseline::Run(_), None) => None,
        };
        for (&r, alignment) in candidates.iter().zip(&alignments) {
            let run = &report.runs[r];
            let mut cell = ComparisonCell {
                run: run.name.clone(),
                baseline: baseline_name.to_owned(),
                metric: metric.name.clone(),
                pairing: alignment.pairing.clone(),
                result: None,
                error: None,
            };
            match baseline_column {
                None => {
                    cell.error = Some(format!(
                        "the baseline's results have no values of `{}`",
                        metric.name
                    ));
                }
                Some(b) => {
                    let columns = (
                        alignment.column(0, b),
                        alignment.column(1, &run.per_query[m]),
                    );
                    match rankeval_stats::paired::validate(&columns.0, &columns.1) {
                        Err(e) => cell.error = Some(e.to_string()),
                        Ok(()) => {
                            pair_cells.push(cells.len());
                            pairs.push(columns);
                            if keyed {
                                keys.push(alignment.ids(&[baseline_queries, &run.queries]));
                            }
                        }
                    }
                }
            }
            cells.push(cell);
        }
    }
    let slices: Vec<(&[f64], &[f64])> = pairs
        .iter()
        .map(|(b, c)| (b.as_slice(), c.as_slice()))
        .collect();
    let keys = keyed.then_some(keys.as_slice());
    match rankeval_stats::compare_all_keyed(&slices, keys, &settings.options()) {
        Ok(results) => {
            for (index, result) in pair_cells.into_iter().zip(results) {
                cells[index].result = Some(CellResult {
                    summary: result.summary,
                    interval: result.interval,
                    p_value: result.p_value,
                    corrected_p_value: result.p_value,
                    exact: result.provenance.exact,
                    bootstrap: result.provenance.bootstrap,
                });
            }
        }
        // Every column was validated and the settings too: only a limit of
        // the test itself (the bootstrap's 2^32 queries) is left.
        Err(e) => {
            for index in pair_cells {
                cells[index].error = Some(e.to_string());
            }
        }
    }
    Ok(cells)
}

/// Every pair of runs, metric by metric: the randomized Tukey HSD's
/// p-values (keyed by query with `--test randomization-keyed`), with the t
/// interval and the summary of each pair.
fn all_pairs(report: &Report, settings: &Settings) -> Result<Vec<ComparisonCell>, CompareRunError> {
    if settings.test == Test::BootstrapKeyed {
        return Err(CompareRunError::Settings(
            "the keyed bootstrap is for differences with a baseline; all pairs get the \
             randomized Tukey HSD (keyed by query with --test randomization-keyed)"
                .to_owned(),
        ));
    }
    let queries: Vec<&[String]> = report.runs.iter().map(|r| r.queries.as_slice()).collect();
    let alignment = Alignment::new(&queries, settings.missing);
    let t = rankeval_stats::Options {
        test: Test::T,
        jackknife_groups: None,
        ..settings.options()
    };
    let mut cells = Vec::new();
    for (m, metric) in report.metrics.iter().enumerate() {
        let columns: Vec<Vec<f64>> = report
            .runs
            .iter()
            .enumerate()
            .map(|(r, run)| alignment.column(r, &run.per_query[m]))
            .collect();
        let slices: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
        let tukey = (slices.len() >= 2).then(|| {
            if settings.test == Test::RandomizationKeyed {
                keyed_tukey(&slices, &alignment.ids(&queries), settings)
            } else {
                randomized_tukey_hsd(&slices, settings.resamples, settings.seed)
            }
        });
        for a in 0..report.runs.len() {
            for b in a + 1..report.runs.len() {
                let mut cell = ComparisonCell {
                    run: report.runs[b].name.clone(),
                    baseline: report.runs[a].name.clone(),
                    metric: metric.name.clone(),
                    pairing: alignment.pairing.clone(),
                    result: None,
                    error: None,
                };
                let pair = rankeval_stats::compare(&columns[a], &columns[b], &t);
                match (pair, &tukey) {
                    (Ok(c), Some(Ok(hsd))) => {
                        let p = hsd
                            .pairs
                            .iter()
                            .find(|p| p.first == a && p.second == b)
                            .map_or(f64::NAN, |p| p.p_value);
                        cell.result = Some(CellResult {
                            summary: c.summary,
                            interval: c.interval,
                            p_value: p,
                            corrected_p_value: p,
                            exact: None,
                            bootstrap: None,
                        });
                    }
                    (Err(e), _) => cell.error = Some(e.to_string()),
                    (_, Some(Err(e))) => cell.error = Some(e.to_string()),
                    (Ok(_), None) => {}
                }
                cells.push(cell);
            }
        }
    }
    Ok(cells)
}

/// The keyed randomized Tukey HSD of `columns` (one per run, in the common
/// query order), query `q` keyed by `ids[q]`.
fn keyed_tukey(
    columns: &[&[f64]],
    ids: &[String],
    settings: &Settings,
) -> Result<rankeval_stats::TukeyHsd, rankeval_stats::CompareError> {
    let mut state =
        rankeval_stats::KeyedTukey::new(columns.len(), settings.resamples, settings.seed)?;
    let mut scores = vec![0.0; columns.len()];
    for (q, id) in ids.iter().enumerate() {
        for (score, column) in scores.iter_mut().zip(columns) {
            *score = column[q];
        }
        state.add(id.as_bytes(), &scores)?;
    }
    state.result()
}

/// Corrects each family's p-values; returns the number of families and
/// the size of the largest.
fn correct(cells: &mut [ComparisonCell], family: Family, correction: Correction) -> (usize, usize) {
    let key = |cell: &ComparisonCell| match family {
        Family::RunsXMetrics => String::new(),
        Family::PerMetric => cell.metric.clone(),
        Family::PerRun => format!("{}\u{0}{}", cell.baseline, cell.run),
    };
    let mut families: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, cell) in cells.iter().enumerate() {
        if cell.result.is_none() {
            continue;
        }
        let k = key(cell);
        match families.iter_mut().find(|(f, _)| *f == k) {
            Some((_, members)) => members.push(i),
            None => families.push((k, vec![i])),
        }
    }
    for (_, members) in &families {
        let p: Vec<f64> = members
            .iter()
            .filter_map(|&i| cells[i].result.as_ref().map(|r| r.p_value))
            .collect();
        // p-values of the tests are probabilities: the correction accepts them.
        if let Ok(corrected) = rankeval_stats::correct(&p, correction) {
            for (&i, q) in members.iter().zip(corrected) {
                if let Some(result) = &mut cells[i].result {
                    result.corrected_p_value = q;
                }
            }
        }
    }
    let largest = families.iter().map(|(_, m)| m.len()).max().unwrap_or(0);
    (families.len(), largest)
}

/// Every gate for every run it applies to.
fn check_all(
    report: &Report,
    cells: &[ComparisonCell],
    gates: &[GateSpec],
    baseline_run: Option<&str>,
    has_baseline: bool,
) -> Vec<GateCheck> {
    let mut checks = Vec::new();
    for spec in gates {
        let Some(m) = report.metrics.iter().position(|m| m.name == spec.metric) else {
            continue; // `check_gates` refused it.
        };
        let runs: Vec<&crate::report::RunResult> = match &spec.run {
            Some(name) => report.runs.iter().filter(|r| &r.name == name).collect(),
            None => report
                .runs
                .iter()
                .filter(|r| !(has_baseline && Some(r.name.as_str()) == baseline_run))
                .collect(),
        };
        for run in runs {
            let cell = if has_baseline {
                cells
                    .iter()
                    .find(|c| c.run == run.name && c.metric == spec.metric)
            } else {
                None
            };
            let mut check = GateCheck {
                gate: spec.to_string(),
                run: run.name.clone(),
                metric: spec.metric.clone(),
                rule: spec.gate,
                passed: false,
                outcome: None,
                error: None,
                group: None,
            };
            let decided = match (spec.gate, cell) {
                (Gate::AtLeast { .. }, _) => {
                    let mean = rankeval_stats::paired::mean(&run.per_query[m]);
                    spec.gate.evaluate(mean, None).map_err(|e| e.to_string())
                }
                (_, Some(ComparisonCell { error: Some(e), .. })) => Err(e.clone()),
                (
                    _,
                    Some(ComparisonCell {
                        result: Some(result),
                        ..
                    }),
                ) => {
                    let comparison = rankeval_stats::Comparison {
                        summary: result.summary,
                        interval: result.interval,
                        p_value: result.p_value,
                        corrected_p_value: Some(result.corrected_p_value),
                        wilcoxon: None,
                        provenance: placeholder_provenance(),
                    };
                    spec.gate
                        .evaluate(result.summary.candidate_mean, Some(&comparison))
                        .map_err(|e| e.to_string())
                }
                _ => Err("the run is not compared with a baseline".to_owned()),
            };
            match decided {
                Ok(outcome) if outcome.value.is_nan() => {
                    check.error = Some(format!(
                        "the {} is not a number (a per-query value is NaN)",
                        quantity_name(outcome.quantity)
                    ));
                }
                Ok(outcome) => {
                    check.passed = outcome.passed;
                    check.outcome = Some(outcome);
                }
                Err(e) => check.error = Some(e),
            }
            checks.push(check);
        }
    }
    checks
}

/// The gate rules read only the numbers of a comparison; its provenance is
/// not looked at.
fn placeholder_provenance() -> rankeval_stats::Provenance {
    rankeval_stats::Provenance {
        test: Test::T,
        interval_method: IntervalMethod::StudentT,
        level: rankeval_stats::DEFAULT_LEVEL,
        resamples: None,
        exact: None,
        bootstrap: None,
        seed: None,
        rng: None,
        correction: None,
        family_size: None,
        jackknife_groups: None,
    }
}

/// How reports name the number that decided a gate.
pub fn quantity_name(quantity: rankeval_stats::Quantity) -> &'static str {
    match quantity {
        rankeval_stats::Quantity::Mean => "mean",
        rankeval_stats::Quantity::LowerBound => "lower bound of the difference",
        rankeval_stats::Quantity::CorrectedPValue => "corrected p-value",
        rankeval_stats::Quantity::Difference => "difference",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::groups::{conversation_groups, group_results};
    use crate::report::{MetricColumn, RunResult};
    use rankeval_core::registry::parse_aggregator;

    /// Two runs on `count` conversations of 4 turns (`c7_3`), with the
    /// groups `--turns _` gives them: a conversation each, and each turn.
    fn conversations(count: usize) -> Report {
        let queries: Vec<String> = (0..count * 4)
            .map(|q| format!("c{}_{}", q / 4, q % 4 + 1))
            .collect();
        let groups = conversation_groups(&queries, "_", None).expect("groups");
        let metrics = vec![MetricColumn {
            name: "ap".into(),
            trec: None,
        }];
        let aggregators = vec![parse_aggregator("mean").expect("mean")];
        let runs = ["a", "b"]
            .iter()
            .enumerate()
            .map(|(r, name)| {
                let values: Vec<f64> = (0..queries.len())
                    .map(|q| ((q * 7 + r * 3) % 11) as f64 / 10.0)
                    .collect();
                let per_query = vec![values];
                let (groups, _) = group_results(
                    name,
                    &queries,
                    &per_query,
                    &metrics,
                    &aggregators,
                    &groups,
                    "the query ids",
                );
                let whole = crate::report::aggregate_run(name, &metrics, &per_query, &aggregators);
                RunResult {
                    name: (*name).to_owned(),
                    queries: queries.clone(),
                    per_query,
                    aggregates: whole.values,
                    intervals: whole.intervals,
                    corpus: Vec::new(),
                    groups,
                    ir_metadata: None,
                }
            })
            .collect();
        Report {
            metrics,
            aggregators: vec!["mean".into()],
            corpus: Vec::new(),
            runs,
            warnings: Vec::new(),
        }
    }

    /// Each conversation and each turn is compared on its own queries.
    /// (That the cost grows linearly with the groups, not with their
    /// square as it once did, is measured by `cargo bench -p rankeval
    /// --bench compare_groups`, not timed here.)
    #[test]
    fn each_conversation_and_turn_is_compared_on_its_own_queries() {
        let small = conversations(500);
        let compared = compare(
            &small,
            Some(&Baseline::Run("a".into())),
            &Settings::default(),
            &[],
        )
        .expect("compared");
        assert_eq!(compared.groups.len(), 500 + 4, "each conversation and turn");
        let c7 = compared
            .groups
            .iter()
            .find(|g| g.column == "conversation" && g.value == "c7")
            .expect("conversation c7");
        let turns = |r: usize| -> f64 {
            (28..32).map(|q| small.runs[r].per_query[0][q]).sum::<f64>() / 4.0
        };
        let cell = &c7.comparisons[0];
        let result = cell.result.as_ref().expect("a comparison");
        assert!((result.summary.difference - (turns(1) - turns(0))).abs() < 1e-12);
    }
}
