//! One call that does what `rankeval eval` does: [`Experiment::run`]
//! evaluates, computes the curves when asked, compares and checks the
//! gates, gives each system's results and explains the queries that
//! changed most, every input read once. The command line, Python and a
//! team's own program render what it returns; none of them repeats the
//! sequence.

use crate::benchmarks::parts::{PartResults, Parts, summary};
use crate::changed::{ChangedExplanations, explain_changed};
use crate::compare::{
    BaselineRef, CompareRunError, Compared, ComparisonPlan, OptionDifference, option_differences,
    read_record, record_differences, run_plan,
};
use crate::curves::{CurvePlan, Curves};
use crate::experiment::{ExecuteError, Experiment, Progress};
use crate::record::{Recorded, options as recorded_options, records, write};
use crate::report::{Report, ReportWarning, RunWarning};
use crate::spec::Origin;
use crate::suite::SuiteSettings;
use crate::systems::{Systems, system_results};

/// What a run should give beyond the results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wanted {
    /// The curves (metric@k, interpolated precision-recall) and the
    /// explanations of the queries that changed most: what the HTML page
    /// shows. The runs' lists are then kept in memory until explained.
    pub curves_and_changes: bool,
}

/// Everything a report needs, as plain data.
#[derive(Debug)]
pub struct Outcome {
    /// The results, or, with a comparison, the compared report (a baseline
    /// read from a results file is its first run) and the comparison.
    pub results: Results,
    /// The curves of each run of the experiment, when wanted.
    pub curves: Option<Curves>,
    /// The changed queries explained, when wanted.
    pub changes: Option<ChangedExplanations>,
    /// Each system's results, when the experiment has systems.
    pub systems: Option<Systems>,
    /// The report's title, if the experiment has one.
    pub title: Option<String>,
    /// The records written to a results history, when the experiment
    /// records (`--record`).
    pub recorded: Option<Recorded>,
    /// A benchmark reported as the mean of its parts (CQADupStack): each
    /// part's own report; `results` is then the report whose rows are the
    /// parts (`benchmarks::parts::summary`).
    pub parts: Option<PartResults>,
}

/// The results with or without a comparison.
#[derive(Debug)]
pub enum Results {
    /// No comparison was asked for.
    Plain(Report),
    /// Compared with a baseline, or every pair.
    Compared(Box<Compared>),
}

impl Results {
    /// The report of the runs' results.
    pub fn report(&self) -> &Report {
        match self {
            Results::Plain(report) => report,
            Results::Compared(compared) => &compared.report,
        }
    }

    /// The report, taken.
    pub fn into_report(self) -> Report {
        match self {
            Results::Plain(report) => report,
            Results::Compared(compared) => compared.report,
        }
    }

    /// The baseline's index in the report: the comparison's, else the
    /// first run.
    pub fn baseline(&self) -> usize {
        let report = self.report();
        let index = match self {
            Results::Plain(_) => 0,
            Results::Compared(compared) => compared.baseline.unwrap_or(0),
        };
        index.min(report.runs.len().saturating_sub(1))
    }
}

/// Why an experiment could not be run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// It could not be evaluated.
    #[error(transparent)]
    Execute(#[from] ExecuteError),
    /// The comparison could not be made (its baseline file cannot be
    /// read, a gate names a group the groups lack); the evaluation's
    /// warnings come with it, to be said before the error.
    #[error("{source}")]
    Compare {
        /// Why.
        source: CompareRunError,
        /// The evaluation's warnings.
        warnings: Vec<RunWarning>,
    },
    /// The results could not be recorded in the history (`--record`); the
    /// evaluation's warnings come with it, to be said before the error.
    #[error("{source}")]
    Record {
        /// Why.
        source: rankeval_history::HistoryError,
        /// The evaluation's warnings.
        warnings: Vec<RunWarning>,
    },
}

impl Experiment {
    /// With a results history's record as the baseline (`db:DB`): the
    /// record read once, its judgements' fingerprint, metric definitions
    /// and options that change numbers checked against this evaluation's
    /// (`fingerprints`, the metrics' versions, [`crate::record`]'s
    /// options), and the plan with the record's id fixed. A difference is
    /// refused with the reason (naming each option and both values), or,
    /// with `--allow-changed-qrels` (judgements, definitions) or
    /// `--allow-changed-options` (options), said in the report's warnings.
    /// `None` for any other baseline.
    fn checked_history_plan(
        &self,
        plan: &ComparisonPlan,
        fingerprints: &[String],
        report: &mut Report,
    ) -> Result<Option<ComparisonPlan>, CompareRunError> {
        let Some(BaselineRef::History {
            db,
            id,
            allow_changed,
            allow_changed_options,
            from,
        }) = &plan.baseline
        else {
            return Ok(None);
        };
        let (record, _) = read_record(db, *id)?;
        let metrics: Vec<(String, u32)> = self
            .metrics
            .iter()
            .map(|m| (m.name(), m.definition_version()))
            .collect();
        let differences = record_differences(&record, fingerprints, &metrics);
        // The relevance level changes no value of a metric that does not
        // read it (nDCG's gains are grades): it counts when a metric both
        // sides have reads it.
        let level_read = self
            .metrics
            .iter()
            .any(|m| m.uses_default_level() && record.data.column(&m.name()).is_some());
        let mut options = option_differences(&record, &recorded_options(self));
        options.retain(|d| level_read || d.key != "rel");
        let source = format!("db:{}#{}", db.display(), record.id);
        let mut refused = Vec::new();
        let mut overrides = Vec::new();
        if !differences.is_empty() && !allow_changed {
            refused.extend(differences.iter().cloned());
            overrides.push(allow_setting(from, "allow_changed_qrels"));
        }
        if !options.is_empty() && !allow_changed_options {
            refused.extend(options.iter().map(|d| option_difference(from, d)));
            overrides.push(allow_setting(from, "allow_changed_options"));
        }
        if !refused.is_empty() {
            return Err(CompareRunError::BaselineFile {
                path: source,
                reason: format!(
                    "not compared: {}; compare anyway with {}",
                    refused.join("; "),
                    overrides.join(" and ")
                ),
            });
        }
        if !differences.is_empty() {
            report.warnings.push(RunWarning {
                run: String::new(),
                warning: ReportWarning::BaselineChanged {
                    baseline: source.clone(),
                    differences,
                },
            });
        }
        if !options.is_empty() {
            report.warnings.push(RunWarning {
                run: String::new(),
                warning: ReportWarning::BaselineOptionsChanged {
                    baseline: source,
                    options,
                },
            });
        }
        let mut checked = plan.clone();
        checked.baseline = Some(BaselineRef::History {
            db: db.clone(),
            id: Some(record.id),
            allow_changed: *allow_changed,
            allow_changed_options: *allow_changed_options,
            from: from.clone(),
        });
        Ok(Some(checked))
    }

    /// Evaluates, compares and checks the gates as the experiment asks,
    /// with what `wanted` adds; `progress` is told the bytes read.
    /// The experiment's metrics are as they were when it returns.
    pub fn run(&mut self, wanted: Wanted, progress: Progress<'_>) -> Result<Outcome, RunError> {
        if let Some(parts) = self.parts.take() {
            return self.run_parts(parts, progress);
        }
        if let Some(plan) = &self.record {
            crate::record::check_before_evaluating(plan).map_err(|source| RunError::Record {
                source,
                warnings: Vec::new(),
            })?;
        }
        // The curves are metrics too: evaluated with the user's, then
        // taken back out of the report.
        let plan = wanted
            .curves_and_changes
            .then(|| CurvePlan::new(&self.metrics));
        let user_metrics = self.metrics.len();
        if let Some(plan) = &plan {
            self.metrics.extend(plan.metrics());
        }
        let history_baseline = matches!(
            self.comparison.as_ref().and_then(|c| c.baseline.as_ref()),
            Some(BaselineRef::History { .. })
        );
        let executed = self.execute_fingerprinted(
            progress,
            plan.is_some(),
            self.record.is_some() || history_baseline,
        );
        self.metrics.truncate(user_metrics);
        let (report, kept, fingerprints) = executed?;
        let (report, curves) = match plan {
            Some(plan) => {
                let deepest = self
                    .metrics
                    .iter()
                    .filter_map(|m| m.depth())
                    .map(|k| k.get())
                    .max();
                let (report, curves) = plan.split(report, deepest);
                (report, Some(curves))
            }
            None => (report, None),
        };
        // Made before the comparison takes the report, written once it
        // succeeded: a run whose baseline cannot be read is not recorded.
        let records = self
            .record
            .as_ref()
            .map(|record| (record, records(self, record, &report, &fingerprints)));
        let results = match &self.comparison {
            Some(plan) => {
                let mut report = report;
                let checked = self
                    .checked_history_plan(plan, &fingerprints, &mut report)
                    .map_err(|source| RunError::Compare {
                        source,
                        warnings: report.warnings.clone(),
                    })?;
                let warnings = report.warnings.clone();
                let compared =
                    run_plan(checked.as_ref().unwrap_or(plan), report, &self.aggregators)
                        .map_err(|source| RunError::Compare { source, warnings })?;
                Results::Compared(Box::new(compared))
            }
            None => Results::Plain(report),
        };
        let changes = kept.map(|kept| {
            explain_changed(
                &kept,
                &self.metrics,
                &self.options,
                results.report(),
                results.baseline(),
            )
        });
        let systems = (!self.systems.is_empty()).then(|| {
            let settings = SuiteSettings::of(self.comparison.as_ref().map(|p| &p.settings));
            system_results(results.report(), &self.systems, settings)
        });
        let recorded = match records {
            Some((plan, records)) => {
                Some(write(plan, &records).map_err(|source| RunError::Record {
                    source,
                    warnings: results.report().warnings.clone(),
                })?)
            }
            None => None,
        };
        Ok(Outcome {
            results,
            curves,
            changes,
            systems,
            title: self.title.clone(),
            recorded,
            parts: None,
        })
    }

    /// A benchmark of parts (`self.parts`, taken out as `parts`): each part evaluated as this
    /// experiment on its qrels and run files, in the card's order, and the
    /// report whose rows are the parts, its mean the benchmark's value
    /// (the mean of the parts' means: `benchmarks::parts`). The experiment
    /// is as it was when it returns. `spec::resolve` refused what does not
    /// apply across parts (comparisons, systems, groups, records, corpus
    /// metrics); the curves of the HTML page are not drawn.
    fn run_parts(&mut self, parts: Parts, progress: Progress<'_>) -> Result<Outcome, RunError> {
        let qrels = self.qrels.take();
        let inputs: Vec<_> = self.runs.iter().map(|r| r.input.clone()).collect();
        let mut reports = Vec::with_capacity(parts.parts.len());
        let mut failed = None;
        for part in &parts.parts {
            self.qrels = Some(part.qrels.clone());
            for (run, input) in self.runs.iter_mut().zip(&part.runs) {
                run.input = input.clone();
            }
            match self.execute(progress) {
                Ok(report) => reports.push((part.name.clone(), part.id.clone(), report)),
                Err(error) => {
                    failed = Some(error);
                    break;
                }
            }
        }
        self.qrels = qrels;
        for (run, input) in self.runs.iter_mut().zip(inputs) {
            run.input = input;
        }
        let benchmark = parts.benchmark.clone();
        self.parts = Some(parts);
        if let Some(error) = failed {
            return Err(error.into());
        }
        Ok(Outcome {
            results: Results::Plain(summary(&reports, &self.aggregators)),
            curves: None,
            changes: None,
            systems: None,
            title: self.title.clone(),
            recorded: None,
            parts: Some(PartResults { benchmark, reports }),
        })
    }
}

/// How the front end of `from` sets the override `key` (`allow_changed_qrels`):
/// `--allow-changed-qrels`, `` `allow_changed_qrels = true` in [compare] ``,
/// `allow_changed_qrels=True`.
fn allow_setting(from: &Origin, key: &str) -> String {
    match from {
        Origin::Flag { .. } => format!("--{}", key.replace('_', "-")),
        Origin::Key { .. } => format!("`{key} = true` in [compare]"),
        Origin::Keyword { .. } => format!("{key}=True"),
    }
}

/// One option that differs, named as the front end of `from` names it:
/// `option --rel differs (2 here, 1 in the record)`.
fn option_difference(from: &Origin, difference: &OptionDifference) -> String {
    let shown = |v: &Option<String>| v.clone().unwrap_or_else(|| "not set".to_owned());
    format!(
        "option {} differs ({} here, {} in the record)",
        from.option(&difference.key, None),
        shown(&difference.here),
        shown(&difference.recorded)
    )
}
