//! Off-policy evaluation's request (`rankeval ope`, an `[ope]` table of a
//! TOML file, Python's `rankeval_rs.ope(...)`): what every front end fills,
//! each value with its origin, and [`resolve_ope`], which holds every rule
//! about the values once (the floors, the interval, the reward range, the
//! policies and their names, the estimators and the gates), so that a bad
//! value gets the same text after its origin from every front end.
//! Nothing here reads the log or the runs; a file is only checked to be
//! there.

use std::path::PathBuf;

use rankeval_ope::{Floors, IntervalKind, Options, Resampling};
use rankeval_stats::Correction;

use super::origin::{Given, Origin};
use super::record::{RecordRequest, resolve_record};
use super::resolve::{SpecError, existing, invalid};
use crate::naming::{GivenRun, NameError, name_runs};
use crate::ope::click::Examination;
use crate::ope::{MAX_SAMPLES, MarginalSampling, OpeEstimator, OpePlan};
use crate::read::impressions::{
    ImpressionColumns, ImpressionOptions, Layout, PropensityForm, RewardPer,
};
use crate::record::RecordPlan;

/// An off-policy evaluation as asked for, nothing checked yet.
#[derive(Debug)]
pub struct OpeSpec {
    /// Where the request as a whole came from (the command, the TOML
    /// file's `[ope]` table, the Python call), for a rule about no value in
    /// particular.
    pub whole: Origin,
    /// The impression log.
    pub log: Option<Given<PathBuf>>,
    /// The log's column names, `(key, name)`: keys `context`,
    /// `impression`, `item`, `position`, `reward`, `propensity`, `target`.
    pub log_columns: Vec<Given<(String, String)>>,
    /// The propensities' form by name: `action`, `slate`, `marginal`,
    /// `cascade`, `examination` (a click log).
    pub form: Option<Given<String>>,
    /// A click log's examination propensities per rank instead of a
    /// column: `power(eta=N)` or `P1,P2,...` ([`Examination`]); implies
    /// the `examination` form.
    pub examination: Option<Given<String>>,
    /// `impression` or `position`.
    pub reward_per: Option<Given<String>>,
    /// The rewards' declared range `(lo, hi)`.
    pub reward_range: Option<Given<(f64, f64)>>,
    /// `auto`, `impression` or `position`.
    pub layout: Option<Given<String>>,
    /// The runs whose rankings are the target policies, in report order
    /// (the first is the baseline).
    pub policies: Vec<PolicyRequest>,
    /// The runs' policies draw their slates from the Plackett-Luce model
    /// over the runs' scores at this temperature.
    pub plackett_luce: Option<Given<f64>>,
    /// A policy whose probabilities are the log's `target` column, by the
    /// name it is reported under.
    pub target_column: Option<Given<String>>,
    /// A reward model's predictions, as a run.
    pub reward_model: Option<Given<PathBuf>>,
    /// The estimators in the short syntax (`ips`, `clipped_ips(max_weight=5)`),
    /// in report order; none for the form's default.
    pub estimators: Vec<Given<String>>,
    /// `normal` or `t`.
    pub interval: Option<Given<String>>,
    /// The interval's level.
    pub level: Option<Given<f64>>,
    /// The bootstrap's resamples (with the `bootstrap` interval).
    pub resamples: Option<Given<u64>>,
    /// The Plackett-Luce marginals' Monte Carlo: orderings drawn per
    /// impression (with `plackett_luce`; [`MarginalSampling`]).
    pub samples: Option<Given<u64>>,
    /// The seed of the bootstrap and of the Plackett-Luce Monte Carlo
    /// (with the `bootstrap` interval or `samples`).
    pub seed: Option<Given<u64>>,
    /// The multiple-testing correction of the paired comparisons by name:
    /// `holm`, `bonferroni`, `benjamini_hochberg` (`bh`, `fdr_bh`), `none`.
    pub correction: Option<Given<String>>,
    /// The floor on the number of impressions.
    pub min_n: Option<Given<u64>>,
    /// The floor on the effective sample size.
    pub min_ess: Option<Given<f64>>,
    /// The floor on the supported share of the target's mass.
    pub min_support: Option<Given<f64>>,
    /// Gates `ESTIMATOR:RULE`.
    pub gates: Vec<Given<String>>,
    /// Print refused estimates, and estimate targets that show items the
    /// log never shows.
    pub allow_low_support: Option<Given<bool>>,
    /// Groups of contexts (slices): a groups file as `eval --groups` reads
    /// it, its query ids the log's contexts.
    pub groups: Option<Given<PathBuf>>,
    /// Correct every group's comparisons in the whole log's families (one
    /// family per estimator), as `eval --groups-in-family` does.
    pub groups_in_family: Option<Given<bool>>,
    /// Where to record each policy's estimates (`--record DB`, TOML
    /// `[record]`, Python `record=`): the one request and rule of
    /// [`resolve_record`](super::record::resolve_record).
    pub record: RecordRequest,
}

impl OpeSpec {
    /// A request from `whole` with nothing given yet.
    pub fn new(whole: Origin) -> OpeSpec {
        OpeSpec {
            whole,
            log: None,
            log_columns: Vec::new(),
            form: None,
            examination: None,
            reward_per: None,
            reward_range: None,
            layout: None,
            policies: Vec::new(),
            plackett_luce: None,
            target_column: None,
            reward_model: None,
            estimators: Vec::new(),
            interval: None,
            level: None,
            resamples: None,
            samples: None,
            seed: None,
            correction: None,
            min_n: None,
            min_ess: None,
            min_support: None,
            gates: Vec::new(),
            allow_low_support: None,
            groups: None,
            groups_in_family: None,
            record: RecordRequest::default(),
        }
    }
}

/// A target policy's run as asked for.
#[derive(Debug)]
pub struct PolicyRequest {
    /// The name given with it, if any (else the run naming rule's).
    pub name: Option<String>,
    /// The run file.
    pub path: PathBuf,
    /// Where it was given (`--policy new=new.trec`, `ope.policies[2]`,
    /// `policies={...}`).
    pub from: Origin,
}

/// A run of a policy, named and checked to be there.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyRun {
    /// The name the report gives it.
    pub name: String,
    /// The run file.
    pub path: PathBuf,
}

/// An off-policy evaluation, checked: what [`crate::ope::run_request`]
/// reads and estimates.
#[derive(Clone, Debug)]
pub struct OpeRequest {
    /// The log.
    pub log: PathBuf,
    /// How to read it.
    pub read: ImpressionOptions,
    /// The runs of the target policies, in report order.
    pub policies: Vec<PolicyRun>,
    /// The Plackett-Luce temperature of the runs' policies, if stochastic.
    pub plackett_luce: Option<f64>,
    /// The name of the policy read from the log's target column.
    pub target_column: Option<String>,
    /// The reward model's run file.
    pub reward_model: Option<PathBuf>,
    /// What to estimate and how (its `model` is read from `reward_model`).
    pub plan: OpePlan,
    /// The groups file, for a report per group of contexts.
    pub groups: Option<PathBuf>,
    /// A click log's examination propensities per rank (the log has no
    /// propensity column).
    pub examination: Option<Examination>,
    /// Every group's comparisons corrected in the whole log's families.
    pub groups_in_family: bool,
    /// Where to record each policy's estimates, if anywhere
    /// ([`crate::ope_record`]).
    pub record: Option<RecordPlan>,
}

/// The bootstrap's resamples when none are given: each resample makes
/// every estimate again from `n` drawn impressions, so the default is a
/// tenth of the comparisons' 10,000 (the percentile bounds' Monte Carlo
/// error is then about a tenth of the standard error).
pub const DEFAULT_RESAMPLES: u64 = 1_000;

/// The keys of `log_columns`, in the order messages list them.
const COLUMN_KEYS: &str = "context, impression, item, position, reward, propensity, target";

/// An off-policy evaluation of a log read in parts (Spark's partitions,
/// `rankeval_rs.spark.ope`), checked by the rules of [`resolve_ope`]: what
/// each part is read and estimated with, and what the merged states are
/// finished with. No log file (each part is handed over as it is read).
#[derive(Clone, Debug)]
pub struct OpePartsRequest {
    /// How to read each part.
    pub read: ImpressionOptions,
    /// The runs of the target policies, in report order.
    pub policies: Vec<PolicyRun>,
    /// The Plackett-Luce temperature of the runs' policies, if stochastic.
    pub plackett_luce: Option<f64>,
    /// The name of the policy read from the log's target column.
    pub target_column: Option<String>,
    /// The reward model's run file.
    pub reward_model: Option<PathBuf>,
    /// What to estimate and how (its `model` is read from `reward_model`;
    /// never a bootstrap).
    pub plan: OpePlan,
    /// A click log's examination propensities per rank.
    pub examination: Option<Examination>,
    /// The groups file, for a report per group of contexts (each part cut
    /// by it: `ope::merged::group_slices`).
    pub groups: Option<PathBuf>,
    /// Every group's comparisons corrected in the whole log's families.
    pub groups_in_family: bool,
}

impl OpePartsRequest {
    /// The policies' names in report order: the runs', then the target
    /// column's.
    pub fn names(&self) -> Vec<String> {
        self.policies
            .iter()
            .map(|p| p.name.clone())
            .chain(self.target_column.clone())
            .collect()
    }
}

/// Where the log of a request comes from: a file ([`resolve_ope`]) or in
/// parts ([`resolve_ope_parts`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum LogIn {
    File,
    Parts,
}

/// How messages name a log read in parts.
const IN_PARTS: &str = "a log read in parts (Spark's partitions)";

/// Checks `spec` and builds the request it asks for.
pub fn resolve_ope(spec: OpeSpec) -> Result<OpeRequest, SpecError> {
    resolve(spec, LogIn::File)
}

/// Checks `spec`, whose log comes in parts (Spark's partitions: no log
/// file), by every rule of [`resolve_ope`], and refuses what a log in parts
/// cannot give, with the reason: the bootstrap interval (it resamples the
/// whole log's impressions) and a record in a results history.
pub fn resolve_ope_parts(spec: OpeSpec) -> Result<OpePartsRequest, SpecError> {
    let OpeRequest {
        log: _,
        read,
        policies,
        plackett_luce,
        target_column,
        reward_model,
        plan,
        groups,
        examination,
        groups_in_family,
        record: _,
    } = resolve(spec, LogIn::Parts)?;
    Ok(OpePartsRequest {
        read,
        policies,
        plackett_luce,
        target_column,
        reward_model,
        plan,
        examination,
        groups,
        groups_in_family,
    })
}

/// [`resolve_ope`] of a log from `log_in`.
fn resolve(spec: OpeSpec, log_in: LogIn) -> Result<OpeRequest, SpecError> {
    let OpeSpec {
        whole,
        log,
        log_columns,
        form,
        examination,
        reward_per,
        reward_range,
        layout,
        policies,
        plackett_luce,
        target_column,
        reward_model,
        estimators,
        interval,
        level,
        resamples,
        samples,
        seed,
        correction,
        min_n,
        min_ess,
        min_support,
        gates,
        allow_low_support,
        groups,
        groups_in_family,
        record,
    } = spec;
    if log_in == LogIn::Parts {
        refuse_in_parts(
            log.as_ref().map(|g| &g.from),
            record.db.as_ref().map(|g| &g.from).or(record
                .label
                .as_ref()
                .or(record.commit.as_ref())
                .map(|g| &g.from)),
        )?;
    }
    let record = resolve_record(record)?;
    let log = match (log, log_in) {
        (log, LogIn::File) => log,
        // Each part is handed over as it is read: no file to check.
        (_, LogIn::Parts) => Some(Given::new(PathBuf::new(), whole.clone())),
    };
    let Some(log) = log else {
        return Err(invalid(
            &whole,
            format!(
                "no impression log: give {} with the log's file",
                whole.option("log", None)
            ),
        ));
    };
    let level = match level {
        None => Options::default().level,
        Some(given) if given.value > 0.0 && given.value < 1.0 => given.value,
        Some(given) => return Err(invalid(&given.from, "a level strictly between 0 and 1")),
    };
    // A floor no log can meet (an infinite sample size, a share above 1)
    // would refuse every estimate for a reason that is not the log's.
    let min_ess = match min_ess {
        None => Floors::DEFAULT_MIN_ESS,
        Some(given) if given.value.is_finite() && given.value >= 0.0 => given.value,
        Some(given) => {
            return Err(invalid(
                &given.from,
                "the floor is an effective sample size, a finite number of at least 0",
            ));
        }
    };
    let min_support = match min_support {
        None => Floors::DEFAULT_MIN_SUPPORT,
        Some(given) if (0.0..=1.0).contains(&given.value) => given.value,
        Some(given) => {
            return Err(invalid(
                &given.from,
                "the floor is a share of the target's mass, between 0 and 1",
            ));
        }
    };
    let min_n = min_n.map_or(Floors::DEFAULT_MIN_N, |g| g.value);
    let form = match &form {
        None if examination.is_some() => PropensityForm::Examination,
        None => PropensityForm::Action,
        Some(given) => PropensityForm::from_name(&given.value).ok_or_else(|| {
            invalid(
                &given.from,
                "unknown form of propensities (action, slate, marginal, cascade, examination)",
            )
        })?,
    };
    let examination = super::ope_click::examination(examination.as_ref(), form)?;
    let reward = match &reward_per {
        None if form == PropensityForm::Examination => RewardPer::Position,
        None => RewardPer::Impression,
        Some(given) => match given.value.as_str() {
            "impression" => RewardPer::Impression,
            "position" => RewardPer::Position,
            _ => return Err(invalid(&given.from, "expected `impression` or `position`")),
        },
    };
    super::ope_click::check_click_log(
        form,
        reward_per.as_ref().map(|g| (&g.from, reward)),
        plackett_luce.as_ref().map(|g| &g.from),
        target_column.as_ref().map(|g| &g.from),
    )?;
    let layout = match &layout {
        None => Layout::Auto,
        Some(given) => match given.value.as_str() {
            "auto" => Layout::Auto,
            "impression" => Layout::PerImpression,
            "position" => Layout::PerPosition,
            _ => {
                return Err(invalid(
                    &given.from,
                    "expected `auto`, `impression` or `position`",
                ));
            }
        },
    };
    let interval = match &interval {
        None => IntervalKind::Normal,
        Some(given) => match given.value.as_str() {
            "normal" => IntervalKind::Normal,
            "t" => IntervalKind::T,
            "bootstrap" if log_in == LogIn::Parts => {
                return Err(invalid(
                    &given.from,
                    format!(
                        "the bootstrap resamples the whole log's impressions, which {IN_PARTS} \
                         never holds: give {} or {} (the parts send exact sums)",
                        interval_option(&given.from, "normal"),
                        interval_option(&given.from, "t"),
                    ),
                ));
            }
            "bootstrap" => IntervalKind::Bootstrap,
            _ => {
                return Err(invalid(
                    &given.from,
                    "unknown interval (normal, t, bootstrap)",
                ));
            }
        },
    };
    let resampling = if interval == IntervalKind::Bootstrap {
        let resamples = match &resamples {
            None => DEFAULT_RESAMPLES,
            Some(given) => {
                rankeval_stats::check_resamples(given.value)
                    .and_then(|()| {
                        rankeval_stats::bootstrap::check_percentile_resamples(given.value, level)
                    })
                    // The statistics' words, with this command's default.
                    .map_err(|e| {
                        invalid(
                            &given.from,
                            e.to_string().replace(
                                "(10000 by default)",
                                &format!("({DEFAULT_RESAMPLES} by default)"),
                            ),
                        )
                    })?;
                given.value
            }
        };
        Some(Resampling {
            resamples,
            seed: seed
                .as_ref()
                .map_or(rankeval_stats::DEFAULT_SEED, |g| g.value),
        })
    } else {
        // Nothing given is ignored: a seed that neither the bootstrap nor
        // the Monte Carlo uses would read as if it had been used.
        let unused_seed = seed.as_ref().filter(|_| samples.is_none());
        if let Some(given) = resamples
            .as_ref()
            .map(|g| &g.from)
            .or(unused_seed.map(|g| &g.from))
        {
            let bootstrap = match given {
                Origin::Flag { .. } => "--interval bootstrap",
                Origin::Key { .. } => "`interval = \"bootstrap\"`",
                Origin::Keyword { .. } => "interval=\"bootstrap\"",
            };
            let why = if resamples.is_some() {
                format!("only the bootstrap interval resamples: give {bootstrap}")
            } else {
                format!(
                    "only the bootstrap interval resamples: give {bootstrap}, or a number of \
                     samples for the Plackett-Luce Monte Carlo"
                )
            };
            return Err(invalid(given, why));
        }
        None
    };
    // The Plackett-Luce Monte Carlo: its draws per impression bounded, and
    // only where there is a Plackett-Luce policy to draw from.
    let sampling = match &samples {
        None => None,
        Some(given) => {
            if !(1..=MAX_SAMPLES).contains(&given.value) {
                return Err(invalid(
                    &given.from,
                    format!("draw 1 to {MAX_SAMPLES} orderings per impression"),
                ));
            }
            if plackett_luce.is_none() {
                return Err(invalid(
                    &given.from,
                    format!(
                        "only the Plackett-Luce marginals are drawn: give {}",
                        match &given.from {
                            Origin::Flag { .. } => "--plackett-luce TEMP",
                            Origin::Key { .. } => "`plackett_luce = TEMP`",
                            Origin::Keyword { .. } => "plackett_luce=TEMP",
                        }
                    ),
                ));
            }
            // Only a log of marginal propensities has marginals to draw:
            // elsewhere the number would be accepted and never used.
            if form != PropensityForm::Marginal {
                return Err(invalid(
                    &given.from,
                    format!(
                        "only the Plackett-Luce marginals are drawn, and the log's propensities \
                         are of the form `{}`: give {}",
                        form.name(),
                        match &given.from {
                            Origin::Flag { .. } => "--form marginal",
                            Origin::Key { .. } => "`form = \"marginal\"`",
                            Origin::Keyword { .. } => "form=\"marginal\"",
                        }
                    ),
                ));
            }
            Some(MarginalSampling {
                samples: given.value,
                seed: seed
                    .as_ref()
                    .map_or(rankeval_stats::DEFAULT_SEED, |g| g.value),
            })
        }
    };
    let reward_range = match reward_range {
        None => None,
        Some(given) => {
            let (lo, hi) = given.value;
            if lo.is_nan() || hi.is_nan() || lo > hi {
                return Err(invalid(
                    &given.from,
                    "the range LO,HI needs two numbers with LO <= HI",
                ));
            }
            // `1e400,1e401` reads as [inf, inf]: no reward, which must be
            // finite, could be in it, and every log would be refused row by row.
            if lo == f64::INFINITY || hi == f64::NEG_INFINITY {
                return Err(invalid(
                    &given.from,
                    format!("the range [{lo}, {hi}] holds no finite reward"),
                ));
            }
            Some((lo, hi))
        }
    };
    let correction = match &correction {
        None => None,
        Some(given) => Some(match given.value.as_str() {
            "holm" => Correction::Holm,
            "bonferroni" => Correction::Bonferroni,
            "benjamini_hochberg" | "bh" | "fdr_bh" => Correction::BenjaminiHochberg,
            "none" => Correction::None,
            _ => {
                return Err(invalid(
                    &given.from,
                    "unknown correction (holm, bonferroni, benjamini_hochberg, none)",
                ));
            }
        }),
    };
    let mut columns = ImpressionColumns::default();
    // Each key once: a second `context=` would silently win over the first.
    let mut keys_given: Vec<&str> = Vec::new();
    for given in &log_columns {
        let (key, name) = (&given.value.0, given.value.1.trim());
        if name.is_empty() {
            return Err(invalid(&given.from, format!("`{key}`: an empty name")));
        }
        if keys_given.contains(&key.trim()) {
            return Err(invalid(
                &given.from,
                format!(
                    "`{}` is given twice: give each key one column",
                    rankeval_core::shorten_id(key.trim().as_bytes())
                ),
            ));
        }
        keys_given.push(key.trim());
        let name = name.to_owned();
        match key.trim() {
            "context" => columns.context = name,
            "impression" => columns.impression = name,
            "item" => columns.item = name,
            "position" => columns.position = name,
            "reward" => columns.reward = name,
            "propensity" => columns.propensity = name,
            "target" => columns.target = Some(name),
            other => {
                return Err(invalid(
                    &given.from,
                    format!(
                        "unknown key `{}` ({COLUMN_KEYS})",
                        rankeval_core::shorten_id(other.as_bytes())
                    ),
                ));
            }
        }
    }
    // One column read as two things (`reward=propensity`: the rewards
    // read from the propensities) gives numbers of nothing: refused, by
    // the keys named and the column they share.
    if let Some((first, second, name)) = columns.shared() {
        let from = log_columns
            .iter()
            .rev()
            .find(|g| [first, second].contains(&g.value.0.trim()))
            .map_or(&whole, |g| &g.from);
        return Err(invalid(
            from,
            format!(
                "`{first}` and `{second}` both name the column `{}`: each key reads a column \
                 of its own",
                rankeval_core::shorten_id(name.as_bytes())
            ),
        ));
    }
    if let Some(given) = &target_column
        && columns.target.is_none()
    {
        return Err(invalid(
            &given.from,
            format!(
                "needs the log's column of target probabilities: {}",
                match &given.from {
                    Origin::Flag { .. } => "--log-columns target=NAME",
                    Origin::Key { .. } => "`log_columns = { target = \"NAME\" }`",
                    Origin::Keyword { .. } => "log_columns={\"target\": NAME}",
                }
            ),
        ));
    }
    if let Some(given) = &plackett_luce
        && !(given.value > 0.0 && given.value.is_finite())
    {
        return Err(invalid(
            &given.from,
            "the temperature must be a positive number",
        ));
    }
    let estimators_given = estimators;
    let estimators: Vec<OpeEstimator> = if estimators_given.is_empty() {
        let default = match form {
            PropensityForm::Action => "snips",
            PropensityForm::Slate => "slate_ips",
            PropensityForm::Marginal => "iips",
            PropensityForm::Cascade => "rips",
            PropensityForm::Examination => super::ope_click::DEFAULT_ESTIMATOR,
        };
        vec![OpeEstimator::parse(default).map_err(|m| invalid(&whole, m))?]
    } else {
        estimators_given
            .iter()
            .map(|g| OpeEstimator::parse(&g.value).map_err(|m| invalid(&g.from, m)))
            .collect::<Result<_, _>>()?
    };
    super::ope_click::check_estimators(form, &estimators_given, &estimators)?;
    if policies.is_empty() && target_column.is_none() {
        return Err(invalid(
            &whole,
            format!(
                "no target policy: give {} or {} NAME",
                match &whole {
                    Origin::Flag { .. } => "--policy NAME=RUNFILE (repeat for several)",
                    Origin::Key { .. } => "`policies = [{ name = \"NAME\", path = \"RUNFILE\" }]`",
                    Origin::Keyword { .. } => "policies={NAME: RUNFILE}",
                },
                whole.option("target_column", None)
            ),
        ));
    }
    if log_in == LogIn::File {
        existing(&log.value, &log.from)?;
    }
    let policies = name_policies(&policies)?;
    if let Some(given) = &target_column
        && !crate::naming::is_printable_name(&given.value)
    {
        return Err(invalid(
            &given.from,
            "a policy name cannot be blank nor hold a tab, newline or other control character",
        ));
    }
    if let Some(given) = &target_column
        && policies.iter().any(|p| p.name == given.value)
    {
        return Err(invalid(
            &given.from,
            format!(
                "{} has that name already",
                given.from.option("policy", None)
            ),
        ));
    }
    if let Some(given) = &reward_model {
        existing(&given.value, &given.from)?;
    }
    if let Some(given) = &groups {
        existing(&given.value, &given.from)?;
    }
    let mut parsed_gates = Vec::new();
    for given in &gates {
        let gate = crate::compare::parse_gate(&given.value, 0.05, |metric| {
            let name = metric.strip_prefix("ope.").unwrap_or(metric);
            OpeEstimator::parse(name).map(|e| e.name())
        })
        .map_err(|reason| invalid(&given.from, reason))?;
        if gate.group.is_some() && groups.is_none() {
            return Err(invalid(
                &given.from,
                format!(
                    "a gate on a group needs the groups of contexts: give {}",
                    match &given.from {
                        Origin::Flag { .. } => "--groups FILE",
                        Origin::Key { .. } => "`groups = \"FILE\"`",
                        Origin::Keyword { .. } => "groups=FILE",
                    }
                ),
            ));
        }
        let has_policy = |name: &str| {
            policies.iter().any(|p| p.name == name)
                || target_column.as_ref().is_some_and(|t| t.value == name)
        };
        if let Some(why) = crate::ope::gate_misfit(&gate, &estimators, has_policy) {
            return Err(invalid(&given.from, why));
        }
        parsed_gates.push(gate);
    }
    let allow_low_support = allow_low_support.is_some_and(|g| g.value);
    let groups_in_family = match groups_in_family {
        Some(given) if given.value && groups.is_none() => {
            return Err(invalid(
                &given.from,
                format!(
                    "puts the groups' comparisons in the whole log's families: give {}",
                    given.from.option("groups", None)
                ),
            ));
        }
        Some(given) if given.value && correction.is_none() => {
            return Err(invalid(
                &given.from,
                format!(
                    "puts the groups' comparisons in the families of a correction: give {}",
                    given.from.option("correction", None)
                ),
            ));
        }
        given => given.is_some_and(|g| g.value),
    };
    Ok(OpeRequest {
        log: log.value,
        read: ImpressionOptions {
            columns,
            form,
            reward,
            reward_range,
            layout,
            propensities_by_rank: examination.is_some(),
        },
        policies,
        plackett_luce: plackett_luce.map(|g| g.value),
        target_column: target_column.map(|g| g.value),
        reward_model: reward_model.map(|g| g.value),
        groups: groups.map(|g| g.value),
        examination,
        groups_in_family,
        record,
        plan: OpePlan {
            estimators,
            options: Options {
                interval,
                level,
                floors: Floors {
                    min_n,
                    min_ess,
                    min_support,
                },
            },
            allow_unlogged: allow_low_support,
            allow_low_support,
            model: None,
            sampling,
            gates: parsed_gates,
            resampling,
            correction,
        },
    })
}

/// What a log in parts cannot be asked for, refused where it was given:
/// a log file (`log`), a record in a results history (`record`: the
/// records need the normalised log's fingerprint, which the parts cannot
/// give).
fn refuse_in_parts(log: Option<&Origin>, record: Option<&Origin>) -> Result<(), SpecError> {
    if let Some(from) = log {
        return Err(invalid(
            from,
            format!("{IN_PARTS} is read as the parts come: no log file"),
        ));
    }
    if let Some(from) = record {
        return Err(invalid(
            from,
            format!(
                "a record needs the fingerprint of the whole normalised log, which {IN_PARTS} \
                 never holds: record the report with `rankeval ope --record` on the log's file"
            ),
        ));
    }
    Ok(())
}

/// How the front end of `from` writes the interval `kind`.
fn interval_option(from: &Origin, kind: &str) -> String {
    match from {
        Origin::Flag { .. } => format!("--interval {kind}"),
        Origin::Key { .. } => format!("`interval = \"{kind}\"`"),
        Origin::Keyword { .. } => format!("interval=\"{kind}\""),
    }
}

/// Each policy's run named by the one naming rule (`crate::naming`), each
/// file checked to be there.
fn name_policies(policies: &[PolicyRequest]) -> Result<Vec<PolicyRun>, SpecError> {
    for policy in policies {
        existing(&policy.path, &policy.from)?;
    }
    let given: Vec<GivenRun> = policies
        .iter()
        .map(|p| GivenRun {
            name: p.name.clone(),
            path: p.path.clone(),
        })
        .collect();
    let names = name_runs(&given).map_err(|error| match error {
        NameError::Unprintable { index } => match policies.get(index) {
            Some(p) => invalid(&p.from, error.to_string()),
            None => SpecError::Bare(error.to_string()),
        },
        NameError::Clash {
            first,
            second,
            ref name,
        } => match (policies.get(first), policies.get(second)) {
            (Some(a), Some(b)) => invalid(
                &b.from,
                format!(
                    "named `{name}` like {}; give each policy its own name",
                    a.from
                ),
            ),
            _ => SpecError::Bare(error.to_string()),
        },
    })?;
    Ok(names
        .into_iter()
        .zip(policies)
        .map(|(name, p)| PolicyRun {
            name,
            path: p.path.clone(),
        })
        .collect())
}
