//! The comparison part of a spec: the baseline, the test and its settings,
//! the gates, each with its origin; and the one place that checks them
//! ([`resolve_comparison`]), for `eval`, `run`, `report` and Python.

use std::path::PathBuf;

use rankeval_core::judged_only::judged_only;
use rankeval_core::registry;
use rankeval_stats::{BootstrapMethod, Correction, Gate, Margin, Test};

use super::origin::{Given, Origin};
use super::resolve::SpecError;
use crate::compare::{
    BaselineRef, CompareRunError, ComparisonPlan, Family, GateSpec, KEYED_BOOTSTRAP_VARIANT, RULES,
    Settings, check_gates, parse_gate, parse_margin, rule_name,
};
use crate::engine::Missing;
use crate::experiment::input_problem;
use crate::front::FrontEnd;

/// What the runs are compared with, as asked for.
#[derive(Clone, Debug)]
pub enum BaselineRequest {
    /// A run of the experiment if one has this name, else a results file
    /// (`--baseline X`), with the run in it (`--baseline-run`).
    RunOrFile {
        /// The name or path as given.
        text: String,
        /// The run in the results file.
        run: Option<Given<String>>,
    },
    /// A run of the experiment by name (TOML `baseline = "bm25"`).
    Run(String),
    /// A record of a results history, `db:DB` (the last accepted record)
    /// or `db:DB#ID` as written (TOML `baseline = "db:history.sqlite"`,
    /// Python `baseline="db:history.sqlite"`), `DB` relative to
    /// `relative_to` (the experiment file's folder; empty for the working
    /// directory).
    History {
        /// The text as written, `db:` included.
        text: String,
        /// The folder a relative `DB` is in.
        relative_to: PathBuf,
    },
    /// A results file (TOML `baseline = { results = ..., run = ... }`),
    /// its path relative to where the process runs.
    Results {
        /// The file, or a directory of part files.
        path: PathBuf,
        /// The run in it.
        run: Option<Given<String>>,
    },
}

/// Which interval a comparison gives of each difference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntervalKind {
    /// The test's own.
    Test,
    /// The grouped jackknife's (with a baseline).
    Jackknife,
}

/// A margin as written in a TOML gate.
#[derive(Clone, Debug)]
pub enum MarginRequest {
    /// In the metric's units.
    Number(f64),
    /// `"2%"` or `"0.01"`.
    Text(String),
    /// `{ absolute = x }` or `{ relative = x }`.
    Margin(Margin),
}

/// A gate given as a table (TOML `[[gates]]`).
#[derive(Clone, Debug)]
pub struct GateTable {
    /// Where the table is (`gates[2]`).
    pub from: Origin,
    /// The run checked; every run compared when `None`.
    pub run: Option<String>,
    /// The metric, in the short syntax.
    pub metric: Given<String>,
    /// The rule's name.
    pub rule: Given<String>,
    /// `at_least`'s floor.
    pub floor: Option<Given<f64>>,
    /// `non_inferior`'s margin.
    pub margin: Option<Given<MarginRequest>>,
    /// `superior`'s significance level.
    pub alpha: Option<Given<f64>>,
    /// The group of queries checked, `column=value`.
    pub group: Option<Given<String>>,
}

/// A gate as asked for.
#[derive(Clone, Debug)]
pub enum GateRequest {
    /// The short syntax `METRIC[@GROUP]:RULE(...)` (`--gate`).
    Text(Given<String>),
    /// A table.
    Table(Box<GateTable>),
}

/// The comparison as asked for; nothing asked when every field is empty
/// and `table` is `None`.
#[derive(Clone, Debug, Default)]
pub struct CompareRequest {
    /// Where a TOML `[compare]` table is: asking for a comparison even
    /// when empty, and what a rule about the settings together names.
    pub table: Option<Origin>,
    /// The baseline.
    pub baseline: Option<Given<BaselineRequest>>,
    /// Every pair of runs compared (no baseline).
    pub all_pairs: Option<Given<bool>>,
    /// The paired test.
    pub test: Option<Given<Test>>,
    /// The bootstrap's variant.
    pub bootstrap: Option<Given<BootstrapMethod>>,
    /// The correction for multiple comparisons.
    pub correction: Option<Given<Correction>>,
    /// The family the correction is over.
    pub family: Option<Given<Family>>,
    /// Whether the groups' comparisons join the runs' families.
    pub groups_in_family: Option<Given<bool>>,
    /// The interval of each difference.
    pub interval: Option<Given<IntervalKind>>,
    /// The jackknife's groups.
    pub jackknife_groups: Option<Given<i128>>,
    /// Random resamples.
    pub resamples: Option<Given<i128>>,
    /// The generator's seed.
    pub seed: Option<Given<i128>>,
    /// The significance level.
    pub alpha: Option<Given<f64>>,
    /// The intervals' confidence level.
    pub confidence: Option<Given<f64>>,
    /// The gates, in order.
    pub gates: Vec<GateRequest>,
    /// A baseline from a results history (`db:DB`) is compared even when
    /// its judgements or metric definitions differ from this evaluation's
    /// (`--allow-changed-qrels`), and the report says so.
    pub allow_changed_qrels: Option<Given<bool>>,
    /// A baseline from a results history is compared even when the options
    /// that change numbers (`rel`, `ties`, `missing`...) it was recorded
    /// with differ from this evaluation's (`--allow-changed-options`), and
    /// the report says so.
    pub allow_changed_options: Option<Given<bool>>,
}

impl CompareRequest {
    /// Whether a comparison is asked for at all.
    pub fn asked(&self) -> bool {
        self.table.is_some()
            || self.baseline.is_some()
            || self.all_pairs.as_ref().is_some_and(|a| a.value)
            || self.test.is_some()
            || self.bootstrap.is_some()
            || self.correction.is_some()
            || self.family.is_some()
            || self.groups_in_family.as_ref().is_some_and(|g| g.value)
            || self.interval.is_some()
            || self.jackknife_groups.is_some()
            || self.resamples.is_some()
            || self.seed.is_some()
            || self.alpha.is_some()
            || self.confidence.is_some()
            || !self.gates.is_empty()
    }
}

/// A rule broken by `from`'s value.
fn invalid(from: &Origin, reason: impl Into<String>) -> SpecError {
    SpecError::Invalid {
        from: from.clone(),
        reason: reason.into(),
    }
}

/// The comparison `request` asks for of the runs `run_names` and the
/// metrics `metric_names` (canonical), every value checked, nothing read;
/// `None` when none is asked for. `missing` is how the evaluation treats
/// a query a run lacks; `all_judged_only` renames each gate's metric as
/// every metric is renamed.
pub fn resolve_comparison(
    request: CompareRequest,
    run_names: &[String],
    metric_names: &[String],
    missing: Missing,
    all_judged_only: bool,
) -> Result<Option<ComparisonPlan>, SpecError> {
    if !request.asked() {
        return Ok(None);
    }
    let mut settings = Settings {
        missing,
        ..Settings::default()
    };
    if let Some(test) = &request.test {
        settings.test = test.value;
    }
    if let Some(bootstrap) = &request.bootstrap {
        settings.bootstrap = bootstrap.value;
    }
    if let Some(correction) = &request.correction {
        settings.correction = correction.value;
    }
    if let Some(family) = &request.family {
        settings.family = family.value;
    }
    if let Some(joint) = &request.groups_in_family {
        settings.groups_in_family = joint.value;
    }
    let jackknife = request
        .interval
        .as_ref()
        .filter(|i| i.value == IntervalKind::Jackknife);
    match (&request.jackknife_groups, jackknife) {
        (Some(groups), None) => {
            return Err(invalid(
                &groups.from,
                format!("goes with {}", jackknife_setting(&groups.from)),
            ));
        }
        (groups, Some(interval)) => {
            let groups = match groups {
                Some(given) => u32::try_from(given.value)
                    .ok()
                    .filter(|g| *g >= 2)
                    .ok_or_else(|| match given.from {
                        Origin::Key { .. } => invalid(&given.from, "must be at least 2"),
                        _ => invalid(&given.from, "give at least 2"),
                    })?,
                None => rankeval_stats::keyed::DEFAULT_GROUPS,
            };
            if request.baseline.is_none() {
                return Err(invalid(
                    &interval.from,
                    match interval.from {
                        Origin::Flag { .. } => {
                            "the interval of differences with a --baseline".to_owned()
                        }
                        _ => format!(
                            "the jackknife is the interval of differences with a {}",
                            interval.from.option("baseline", None)
                        ),
                    },
                ));
            }
            settings.jackknife_groups = Some(groups);
        }
        (None, None) => {}
    }
    if let Some(resamples) = &request.resamples {
        settings.resamples = u64::try_from(resamples.value)
            .ok()
            .filter(|r| *r >= 1)
            .ok_or_else(|| match resamples.from {
                Origin::Key { .. } => invalid(&resamples.from, "must be at least 1"),
                _ => invalid(&resamples.from, "give at least 1"),
            })?;
        rankeval_stats::check_resamples(settings.resamples)
            .map_err(|error| invalid(&resamples.from, error.to_string()))?;
    }
    if settings.test == Test::BootstrapKeyed && settings.bootstrap == BootstrapMethod::Multinomial {
        return Err(match request.bootstrap.as_ref().map(|b| &b.from) {
            Some(Origin::Flag { .. }) | None => SpecError::Bare(format!(
                "--bootstrap multinomial with --test bootstrap-keyed: {KEYED_BOOTSTRAP_VARIANT}"
            )),
            Some(from @ Origin::Key { .. }) => invalid(
                from,
                format!(
                    "\"multinomial\" with test = \"bootstrap_keyed\": {KEYED_BOOTSTRAP_VARIANT}"
                ),
            ),
            Some(from @ Origin::Keyword { .. }) => invalid(
                from,
                format!("with test=\"bootstrap_keyed\": {KEYED_BOOTSTRAP_VARIANT}"),
            ),
        });
    }
    if let Some(seed) = &request.seed {
        settings.seed = u64::try_from(seed.value)
            .map_err(|_| invalid(&seed.from, "must be a whole number >= 0"))?;
    }
    if let Some(alpha) = &request.alpha {
        let a = alpha.value;
        if !(a > 0.0 && a <= 1.0) {
            return Err(invalid(
                &alpha.from,
                format!("must be in (0, 1], e.g. 0.05{}", got(&alpha.from, a)),
            ));
        }
        settings.alpha = a;
    }
    if let Some(confidence) = &request.confidence {
        let level = confidence.value;
        if !(level > 0.0 && level < 1.0) {
            return Err(invalid(
                &confidence.from,
                format!(
                    "must be strictly between 0 and 1, e.g. 0.95{}",
                    got(&confidence.from, level)
                ),
            ));
        }
        settings.level = level;
    }
    if matches!(settings.test, Test::Bootstrap | Test::BootstrapKeyed)
        && let Err(error) =
            rankeval_stats::check_percentile_resamples(settings.resamples, settings.level)
    {
        let from = request
            .resamples
            .as_ref()
            .map(|r| r.from.clone())
            .or_else(|| request.table.clone());
        return Err(match from {
            Some(from) => invalid(&from, error.to_string()),
            None => invalid(
                &Origin::flag("--resamples", settings.resamples),
                error.to_string(),
            ),
        });
    }
    settings.validate().map_err(|error| {
        let reason = match error {
            CompareRunError::Settings(reason) => reason,
            other => other.to_string(),
        };
        match &request.table {
            Some(table) => invalid(table, reason),
            None => SpecError::Bare(reason),
        }
    })?;
    let run_refs: Vec<&str> = run_names.iter().map(String::as_str).collect();
    let allowed = Allowed {
        qrels: request
            .allow_changed_qrels
            .as_ref()
            .is_some_and(|a| a.value),
        options: request
            .allow_changed_options
            .as_ref()
            .is_some_and(|a| a.value),
    };
    let baseline = match request.baseline {
        None => None,
        Some(Given { value, from }) => Some(baseline(value, &from, &run_refs, allowed)?),
    };
    // An override that has no history baseline to apply to is a mistake
    // said, not ignored.
    if !matches!(baseline, Some(BaselineRef::History { .. }))
        && let Some(allow) = [&request.allow_changed_qrels, &request.allow_changed_options]
            .into_iter()
            .flatten()
            .find(|a| a.value)
    {
        return Err(invalid(
            &allow.from,
            "applies to a results history's record as the baseline (db:DB or db:DB#ID) only",
        ));
    }
    let label = match &baseline {
        None => None,
        Some(BaselineRef::Run(name)) => Some(name.as_str()),
        // A results file's run is no run of the experiment.
        Some(BaselineRef::Results { .. } | BaselineRef::History { .. }) => Some("\u{0}"),
    };
    let metric_refs: Vec<&str> = metric_names.iter().map(String::as_str).collect();
    let mut gates = Vec::with_capacity(request.gates.len());
    for gate in request.gates {
        let (spec, from) = match gate {
            GateRequest::Text(text) => {
                let spec = parse_gate(&text.value, settings.alpha, |metric| {
                    match registry::parse_metric(metric) {
                        Ok(m) if all_judged_only => Ok(judged_only(m).name()),
                        Ok(m) => Ok(m.name()),
                        // A metric of the experiment's own (a Python
                        // function) by its name as written.
                        Err(_) if metric_names.iter().any(|m| m == metric) => Ok(metric.to_owned()),
                        Err(e) => Err(crate::config::plugin_message(&e)),
                    }
                })
                .map_err(|reason| invalid(&text.from, reason))?;
                (spec, text.from)
            }
            GateRequest::Table(table) => {
                let from = table.from.clone();
                (gate_table(*table, settings.alpha, all_judged_only)?, from)
            }
        };
        check_gates(std::slice::from_ref(&spec), &run_refs, &metric_refs, label).map_err(
            |error| {
                let reason = match error {
                    CompareRunError::Gate { reason, .. } => reason,
                    other => other.to_string(),
                };
                invalid(&from, reason)
            },
        )?;
        gates.push(spec);
    }
    Ok(Some(ComparisonPlan {
        baseline,
        settings,
        gates,
    }))
}

/// `; got 1.5` where the origin does not quote the value (a TOML key).
fn got(from: &Origin, value: f64) -> String {
    match from {
        Origin::Key { .. } => format!("; got {value}"),
        _ => String::new(),
    }
}

/// The setting that asks for the jackknife interval, as `from`'s front end
/// writes it.
fn jackknife_setting(from: &Origin) -> &'static str {
    match from {
        Origin::Flag { .. } => "--interval jackknife",
        Origin::Key { .. } => "interval = \"jackknife\"",
        Origin::Keyword { .. } => "interval=\"jackknife\"",
    }
}

/// The runs' names as a list in a message: `` `a`, `b` ``.
fn listed(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a baseline names a results history: `db:DB` (its last accepted
/// record) or `db:DB#ID`.
pub const HISTORY_PREFIX: &str = "db:";

/// Which differences between a history's record and the evaluation are
/// compared all the same.
#[derive(Clone, Copy, Debug, Default)]
struct Allowed {
    /// Other judgements or metric definitions (`--allow-changed-qrels`).
    qrels: bool,
    /// Other options that change numbers (`--allow-changed-options`).
    options: bool,
}

/// The history baseline `text` (`db:DB` or `db:DB#ID`, `DB` relative to
/// `relative_to`): the database must exist; an id is a whole number.
fn history_baseline(
    text: &str,
    relative_to: &std::path::Path,
    from: &Origin,
    allowed: Allowed,
) -> Result<BaselineRef, SpecError> {
    let rest = text.strip_prefix(HISTORY_PREFIX).unwrap_or(text);
    let (db, id) = match rest.rsplit_once('#') {
        Some((db, id)) => match id.parse::<i64>() {
            Ok(id) if id > 0 => (db, Some(id)),
            _ => {
                return Err(invalid(
                    from,
                    format!("`#{id}` is no record id: db:DB#ID takes a whole number from 1"),
                ));
            }
        },
        None => (rest, None),
    };
    if db.is_empty() {
        return Err(invalid(
            from,
            "names no database: write db:DB or db:DB#ID, DB the history's file",
        ));
    }
    let path = relative_to.join(db);
    if let Some(problem) = input_problem(&path) {
        return Err(invalid(
            from,
            format!("the results history {}: {problem}", path.display()),
        ));
    }
    Ok(BaselineRef::History {
        db: path,
        id,
        allow_changed: allowed.qrels,
        allow_changed_options: allowed.options,
        from: from.clone(),
    })
}

/// The baseline asked for, checked against the runs `run_names`.
fn baseline(
    request: BaselineRequest,
    from: &Origin,
    run_names: &[&str],
    allowed: Allowed,
) -> Result<BaselineRef, SpecError> {
    let run_in_file = |run: Option<Given<String>>| match run {
        Some(run) if run.value.trim().is_empty() => Err(invalid(&run.from, "cannot be empty")),
        Some(run) => Ok(Some(run.value)),
        None => Ok(None),
    };
    match request {
        BaselineRequest::RunOrFile { text, run } if run_names.contains(&text.as_str()) => {
            if let Some(run) = run {
                return Err(invalid(
                    &run.from,
                    format!("`{text}` is a run of this evaluation, not a results file"),
                ));
            }
            Ok(BaselineRef::Run(text))
        }
        BaselineRequest::RunOrFile { text, run } if text.starts_with(HISTORY_PREFIX) => {
            if let Some(run) = run {
                return Err(invalid(
                    &run.from,
                    "a record of a results history is one run's: no run to choose",
                ));
            }
            history_baseline(&text, std::path::Path::new(""), from, allowed)
        }
        BaselineRequest::History { text, relative_to } => {
            history_baseline(&text, &relative_to, from, allowed)
        }
        BaselineRequest::RunOrFile { text, run } => {
            let path = PathBuf::from(&text);
            // A directory is a per-query Parquet table's part files.
            if let Some(problem) = input_problem(&path).filter(|_| !path.is_dir()) {
                return Err(invalid(
                    from,
                    format!(
                        "no run has that name (the runs are {}), and as a results file: {problem}",
                        listed(run_names)
                    ),
                ));
            }
            Ok(BaselineRef::Results {
                path,
                run: run_in_file(run)?,
            })
        }
        BaselineRequest::Run(name) => {
            if !run_names.contains(&name.as_str()) && from.front() == FrontEnd::Python {
                return Err(invalid(
                    from,
                    format!(
                        "the baseline `{name}` is not a run (the runs are {}); for a results \
                         file, give baseline_file=",
                        listed(run_names)
                    ),
                ));
            }
            if !run_names.contains(&name.as_str()) {
                return Err(invalid(
                    from,
                    format!(
                        "no run is named `{name}` (the runs are {}); for a results file, write \
                         `baseline = {{ results = \"{name}\" }}`",
                        listed(run_names)
                    ),
                ));
            }
            Ok(BaselineRef::Run(name))
        }
        BaselineRequest::Results { path, run } => {
            if !path.is_dir()
                && let Some(problem) = input_problem(&path)
            {
                return Err(SpecError::File {
                    from: from.child("results"),
                    path,
                    problem,
                });
            }
            Ok(BaselineRef::Results {
                path,
                run: run_in_file(run)?,
            })
        }
    }
}

/// A gate table as a gate: its rule's parameter, its metric's canonical
/// name, its group.
fn gate_table(table: GateTable, alpha: f64, all_judged_only: bool) -> Result<GateSpec, SpecError> {
    let metric =
        registry::parse_metric(&table.metric.value).map_err(|source| SpecError::Plugin {
            from: table.metric.from.clone(),
            source: Box::new(source),
        })?;
    // The experiment's judged_only renames every metric, and so the
    // metric a gate names.
    let metric = match all_judged_only {
        true => judged_only(metric).name(),
        false => metric.name(),
    };
    let Some(rule) = rule_name(&table.rule.value) else {
        return Err(invalid(
            &table.rule.from,
            format!("unknown rule `{}`; the rules are {RULES}", table.rule.value),
        ));
    };
    let own = match rule {
        "at_least" => "floor",
        "non_inferior" => "margin",
        _ => "alpha",
    };
    let given: [(&str, Option<&Origin>); 3] = [
        ("floor", table.floor.as_ref().map(|v| &v.from)),
        ("margin", table.margin.as_ref().map(|v| &v.from)),
        ("alpha", table.alpha.as_ref().map(|v| &v.from)),
    ];
    for (param, from) in given {
        if let Some(from) = from
            && param != own
        {
            return Err(invalid(
                from,
                format!("{rule} takes `{own}`, not `{param}`"),
            ));
        }
    }
    let needs = |what: &str| invalid(&table.from, format!("{rule} needs `{own}` ({what})"));
    let gate = match rule {
        "at_least" => Gate::AtLeast {
            floor: table
                .floor
                .as_ref()
                .ok_or_else(|| needs("the lowest acceptable mean, e.g. 0.4"))?
                .value,
        },
        "non_inferior" => {
            let margin = table.margin.as_ref().ok_or_else(|| {
                needs("e.g. 0.01 in the metric's units, or \"2%\" of the baseline's mean")
            })?;
            Gate::NonInferior {
                margin: match &margin.value {
                    MarginRequest::Number(m) => Margin::Absolute(*m),
                    MarginRequest::Margin(m) => *m,
                    MarginRequest::Text(text) => {
                        parse_margin(text).map_err(|reason| invalid(&margin.from, reason))?
                    }
                },
            }
        }
        _ => Gate::Superior {
            alpha: table.alpha.as_ref().map_or(alpha, |a| a.value),
        },
    };
    gate.validate().map_err(|error| {
        let reason = match error {
            rankeval_stats::CompareError::InvalidGate { message, .. } => message,
            other => other.to_string(),
        };
        invalid(&table.from, reason)
    })?;
    let group = match &table.group {
        Some(group) => Some(
            crate::compare::parse_group(&group.value)
                .map_err(|reason| invalid(&group.from, reason))?,
        ),
        None => None,
    };
    Ok(GateSpec {
        run: table.run,
        metric,
        gate,
        group,
    })
}
