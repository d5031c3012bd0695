//! An experiment, resolved: the inputs, metrics, aggregators and policies,
//! every check done. The `eval` command builds one from its flags, the `run`
//! command from a TOML file; both execute it the same way.

use std::borrow::Cow;

use rankeval_core::{Aggregator, CorpusMetric, Metric, Qrels, RelevanceLevel, Run};

use crate::changed::{KeptLists, KeptRun};
use crate::corpus::{CorpusSources, item_warnings};
use crate::engine::{
    Evaluation, NeverRan, Options, evaluate, evaluate_corpus_with, evaluate_input, never_ran,
};
use crate::groups::{
    CONVERSATION_COLUMN, collapse_conversations, conversation_groups, group_results, split_turn,
    unevaluated_warnings,
};
use crate::read::{
    Format, Input, Loaded, ReadError, ReadOptions, read_groups, read_qrels_noted, read_run_with,
};
use crate::report::{MetricColumn, Report, ReportWarning, RunResult, RunWarning, aggregate_run};

/// The comparison an experiment asks for, kept with the comparisons (the
/// `compare` module carries it out), named here too where experiments are
/// built.
pub use crate::compare::{BaselineRef, ComparisonPlan};

/// Metrics used when none are given.
pub const DEFAULT_METRICS: &[&str] = &["ap", "rr", "p@10", "recall@100", "ndcg@10"];

/// A run to evaluate, under the name reports give it.
#[derive(Clone, Debug)]
pub struct NamedRun {
    /// The name in reports.
    pub name: String,
    /// Where it is read from.
    pub input: Input,
}

/// A system of several runs (training seeds, folds): its name and its
/// runs' names (each a run of the experiment).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemSpec {
    /// The system's name.
    pub name: String,
    /// Its runs, by name, in order.
    pub runs: Vec<String>,
}

/// The run files of a system: each of `patterns` a path or a glob pattern
/// (`runs/v2-seed*.trec`) relative to `base`, a pattern's matches in byte
/// order of their paths; at least 2 files. The error says which pattern
/// matches nothing, or that there are too few files.
pub fn system_files(
    system: &str,
    base: &std::path::Path,
    patterns: &[String],
) -> Result<Vec<std::path::PathBuf>, String> {
    let mut files = Vec::new();
    for pattern in patterns {
        let full = base.join(pattern);
        if pattern.contains(['*', '?', '[']) {
            let entries = glob::glob(&full.to_string_lossy())
                .map_err(|e| format!("`{pattern}` is not a glob pattern: {e}"))?;
            let mut found: Vec<std::path::PathBuf> = entries.filter_map(Result::ok).collect();
            if found.is_empty() {
                return Err(format!("`{pattern}` matches no file"));
            }
            found.sort();
            files.extend(found);
        } else {
            if let Some(problem) = input_problem(&full) {
                return Err(format!("{}: {problem}", full.display()));
            }
            files.push(full);
        }
    }
    files.dedup();
    if files.len() < 2 {
        return Err(format!(
            "system `{system}` has {} run: a system of several runs needs at least 2 (one run \
             is a run of its own)",
            files.len()
        ));
    }
    Ok(files)
}

/// A resolved experiment.
#[derive(Debug)]
pub struct Experiment {
    /// The report's title, if given (`--title`, TOML `title`).
    pub title: Option<String>,
    /// The qrels, or `None` when every run is JSON Lines holding its own.
    pub qrels: Option<Input>,
    /// The runs, in report order; names are unique.
    pub runs: Vec<NamedRun>,
    /// The metrics, unique by canonical name.
    pub metrics: Vec<Box<dyn Metric>>,
    /// The aggregators, unique by canonical name.
    pub aggregators: Vec<Box<dyn Aggregator>>,
    /// The corpus metrics (one value per run), unique by canonical name;
    /// each has the inputs it needs in `corpus_inputs` (checked when the
    /// experiment is built).
    pub corpus_metrics: Vec<Box<dyn CorpusMetric>>,
    /// Where the corpus metrics' inputs are read from.
    pub corpus_inputs: CorpusSources,
    /// Systems of several runs (`[[systems]]`): their runs are in `runs`
    /// too, and reports add each system's results and comparisons.
    pub systems: Vec<SystemSpec>,
    /// The groups of queries whose results reports show beside each run's
    /// (`--groups`, TOML `groups`): a CSV/TSV or Parquet file.
    pub groups: Option<std::path::PathBuf>,
    /// Conversational queries (`--turns SEP`, TOML `turns`): each query id
    /// is `CONVERSATION` + this separator + `TURN`, and reports add the
    /// groups `conversation` and `turn` (results per turn position and per
    /// conversation) beside the groups file's.
    pub turns: Option<String>,
    /// Every aggregate, comparison and gate is over conversations, each the
    /// mean of its turns' values (`--per-conversation`, TOML
    /// `per_conversation`): conversations from the query ids with `turns`,
    /// else from the groups file's `conversation` column; no groups are
    /// reported then.
    pub per_conversation: bool,
    /// Every run is a sampled run (`--samples`, TOML `samples`): several
    /// rankings per query, evaluated by `engine::evaluate_sampled`.
    pub samples: bool,
    /// Which queries count, and the relevance level.
    pub options: Options,
    /// How runs are read.
    pub read: ReadOptions,
    /// Comparisons with a baseline and gates, when asked for.
    pub comparison: Option<ComparisonPlan>,
    /// What the user should be told about how a metric was read (not a
    /// warning about the data), each once: that `map@10` is trec_eval's
    /// `map_cut_10`, not Kaggle's MAP@10 ([`metric_note`]).
    pub notes: Vec<String>,
    /// Where to record the results (`--record DB`, TOML `[record]`,
    /// Python `record=`), if anywhere: written by [`Experiment::run`].
    pub record: Option<crate::record::RecordPlan>,
    /// The benchmark whose official measures and conventions are evaluated
    /// (`--official`), said in the report: what was applied.
    pub official: Option<String>,
    /// A benchmark reported as the mean of its parts (CQADupStack's
    /// forums, `irds:beir/cqadupstack`): each part's qrels and run files.
    /// [`Experiment::run`] evaluates each part as this experiment with
    /// them, and reports the parts as rows; `qrels` and each run's input
    /// are the first part's meanwhile.
    pub parts: Option<crate::benchmarks::parts::Parts>,
}

/// The note for a metric typed as `typed` (the short syntax as given, or a
/// TOML table's `type`) and built as `metric`: `map` with a cutoff and
/// trec_eval's normalization (`map@10`, trec_eval's `map_cut_10`, divided
/// by every relevant document) is not what a recommender user means by
/// MAP@10 (Kaggle's, divided by `min(|R|, 10)`), so the command line says
/// which metric that is, once. `None` for any other metric.
pub fn metric_note(typed: &str, metric: &dyn Metric) -> Option<String> {
    let name = typed.split(['(', '@']).next().unwrap_or_default().trim();
    if !name.eq_ignore_ascii_case("map") {
        return None;
    }
    let canonical = metric.name();
    let k = canonical.strip_prefix("ap@")?;
    Some(format!(
        "`map@{k}` is trec_eval's map_cut_{k} (`{canonical}`: divided by every relevant \
         document); Kaggle's and most recommender libraries' MAP@{k} is \
         `ap(norm=truncated)@{k}` (divided by min(|R|, {k}))"
    ))
}

/// `notes` without repeats, in order.
pub fn unique_notes(notes: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut unique: Vec<String> = Vec::new();
    for note in notes {
        if !unique.contains(&note) {
            unique.push(note);
        }
    }
    unique
}

/// Told how many bytes of input have been read, for a progress bar.
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);

impl Experiment {
    /// The inputs: the qrels (if any), then the runs.
    pub fn inputs(&self) -> impl Iterator<Item = &Input> {
        let parts = self.parts.iter().flat_map(|p| &p.parts).skip(1);
        self.qrels
            .iter()
            .chain(self.runs.iter().map(|r| &r.input))
            .chain(parts.flat_map(|part| std::iter::once(&part.qrels).chain(&part.runs)))
    }

    /// Total size of the inputs in bytes, where known. A gzip file counts
    /// its size on disk, less than the bytes read from it.
    pub fn input_size(&self) -> u64 {
        self.inputs().filter_map(Input::len_hint).sum()
    }

    /// Reads the inputs, evaluates every run and aggregates. A run that
    /// never ran on the qrels is an error unless the options allow it.
    pub fn execute(&self, progress: Progress<'_>) -> Result<Report, ExecuteError> {
        self.execute_keeping(progress, false)
            .map(|(report, _)| report)
    }

    /// [`execute`](Self::execute), keeping every input's lists in memory
    /// when `keep` is set (each run is then read whole rather than
    /// evaluated while read), for what needs them once every value is known
    /// (the changed queries' explanations): each input is read once.
    pub fn execute_keeping(
        &self,
        progress: Progress<'_>,
        keep: bool,
    ) -> Result<(Report, Option<KeptLists>), ExecuteError> {
        self.execute_fingerprinted(progress, keep, false)
            .map(|(report, kept, _)| (report, kept))
    }

    /// [`execute_keeping`](Self::execute_keeping), with, when
    /// `fingerprint` is set, each run's judgements' fingerprint
    /// ([`crate::record::judgements_fingerprint`]: the shared qrels', or a
    /// JSON Lines run's own), in report order, for a results history.
    pub(crate) fn execute_fingerprinted(
        &self,
        progress: Progress<'_>,
        keep: bool,
        fingerprint: bool,
    ) -> Result<(Report, Option<KeptLists>, Vec<String>), ExecuteError> {
        let mut fingerprints = Vec::new();
        let mut kept = keep.then(KeptLists::default);
        // The subtopic judgements ride with the qrels, which hand each
        // query's to the judge.
        let subtopics = self.corpus_inputs.read_subtopics(&self.metrics)?;
        // So do the documents' groups.
        let doc_groups = self.corpus_inputs.read_doc_groups(&self.metrics)?;
        // And the per-document facts some metrics require (label
        // propensities, the documents judged for any query).
        let propensities = self.corpus_inputs.read_propensities(&self.metrics)?;
        let documents_required = self.metrics.iter().any(|m| {
            m.requires().iter().any(|r| {
                matches!(
                    r,
                    rankeval_core::Requirement::Propensities
                        | rankeval_core::Requirement::JudgedAnywhere
                )
            })
        });
        let with_subtopics = |qrels: Qrels| -> Result<Qrels, ReadError> {
            let qrels = match &subtopics {
                Some(subtopics) => qrels.with_subtopics(std::sync::Arc::clone(subtopics)),
                None => qrels,
            };
            let qrels = match &doc_groups {
                Some(groups) => {
                    // Every judged query needs its target, when one is read.
                    self.corpus_inputs
                        .check_targets_cover(&qrels, groups, &self.metrics)?;
                    qrels.with_doc_groups(std::sync::Arc::clone(groups))
                }
                None => qrels,
            };
            self.corpus_inputs
                .with_documents(qrels, &self.metrics, propensities.as_ref())
        };
        // Judgements already in memory are used where they are.
        let (shared_qrels, note): (Option<Cow<'_, Qrels>>, _) = match &self.qrels {
            Some(input) => match input.loaded_data() {
                Some(Loaded::Qrels(qrels, note))
                    if subtopics.is_none() && doc_groups.is_none() && !documents_required =>
                {
                    (Some(Cow::Borrowed(&**qrels)), note.clone())
                }
                Some(Loaded::Qrels(qrels, note)) => (
                    Some(Cow::Owned(with_subtopics((**qrels).clone())?)),
                    note.clone(),
                ),
                _ => {
                    let (qrels, note) = read_qrels_noted(input, progress)?;
                    (Some(Cow::Owned(with_subtopics(qrels)?)), note)
                }
            },
            // Subtopic judgements alone: each document judged with its
            // highest grade over the subtopics.
            None => match (&subtopics, &self.corpus_inputs.subtopics) {
                (Some(judgements), Some(path)) => {
                    let qrels = judgements.document_qrels().map_err(|e| ReadError {
                        path: path.display().to_string(),
                        line: None,
                        kind: crate::read::ReadErrorKind::BadField(e.to_string()),
                    })?;
                    (Some(Cow::Owned(with_subtopics(qrels)?)), None)
                }
                _ => (None, None),
            },
        };
        let shared_fingerprint = match &shared_qrels {
            Some(qrels) if fingerprint => Some(crate::record::judgements_fingerprint(qrels)),
            _ => None,
        };
        let corpus_inputs = if self.corpus_metrics.is_empty() {
            Default::default()
        } else {
            self.corpus_inputs.read(&self.corpus_metrics)?
        };
        let groups = match &self.groups {
            Some(path) => Some((read_groups(path)?, path.display().to_string())),
            None => None,
        };
        // Without `turns`, conversations come from the groups file's
        // `conversation` column.
        let conversation_column = match (&groups, self.per_conversation, &self.turns) {
            (Some((groups, file)), true, None) => Some(
                groups
                    .columns()
                    .iter()
                    .position(|c| c == CONVERSATION_COLUMN)
                    .ok_or_else(|| {
                        ExecuteError::Read(ReadError {
                            path: file.clone(),
                            line: None,
                            kind: crate::read::ReadErrorKind::BadField(format!(
                                "per_conversation without turns takes each query's conversation \
                                 from the groups' `{CONVERSATION_COLUMN}` column, which this file \
                                 does not have (its columns: {})",
                                groups.columns().join(", ")
                            )),
                        })
                    })?,
            ),
            _ => None,
        };
        let mut report = Report {
            metrics: self
                .metrics
                .iter()
                .map(|m| MetricColumn::of(m.as_ref()))
                .collect(),
            aggregators: self.aggregators.iter().map(|a| a.name()).collect(),
            corpus: self.corpus_metrics.iter().map(|m| m.name()).collect(),
            runs: Vec::with_capacity(self.runs.len()),
            warnings: Vec::new(),
        };
        if let (Some(note), Some(input)) = (note, &self.qrels) {
            report.warnings.push(RunWarning {
                run: String::new(),
                warning: ReportWarning::of_qrels(input.name(), note),
            });
        }
        if let Some(official) = &self.official {
            report.warnings.push(RunWarning {
                run: String::new(),
                warning: ReportWarning::Official {
                    note: official.clone(),
                },
            });
        }
        if self.options.level != RelevanceLevel::DEFAULT
            && !self.metrics.iter().any(|m| m.uses_default_level())
        {
            report.warnings.push(RunWarning {
                run: String::new(),
                warning: ReportWarning::LevelUnused {
                    level: self.options.level,
                },
            });
        }
        if let (Some(judgements), Some(path)) = (&subtopics, &self.corpus_inputs.subtopics)
            && judgements.repeats() > 0
        {
            report.warnings.push(RunWarning {
                run: String::new(),
                warning: ReportWarning::SubtopicJudgementsRepeated {
                    file: path.display().to_string(),
                    count: judgements.repeats(),
                },
            });
        }
        if let (Some(groups), Some(path)) = (&doc_groups, &self.corpus_inputs.doc_groups)
            && groups.weightless()
        {
            report.warnings.push(RunWarning {
                run: String::new(),
                warning: ReportWarning::DocGroupsWeightless {
                    file: path.display().to_string(),
                },
            });
        }
        if let (Some(groups), Some(path)) = (&doc_groups, &self.corpus_inputs.doc_groups)
            && groups.repeats() > 0
        {
            report.warnings.push(RunWarning {
                run: String::new(),
                warning: ReportWarning::DocGroupsRepeated {
                    file: path.display().to_string(),
                    count: groups.repeats(),
                },
            });
        }
        if self.corpus_inputs.targets_unused(&self.metrics) {
            use crate::corpus::group_targets_input::{FLAG, KEY};
            report.warnings.push(RunWarning {
                run: String::new(),
                warning: ReportWarning::CorpusInputUnused {
                    flag: FLAG,
                    key: KEY,
                },
            });
        }
        if self.corpus_inputs.groups_unused(&self.metrics) {
            use crate::corpus::doc_groups_input::{FLAG, KEY};
            report.warnings.push(RunWarning {
                run: String::new(),
                warning: ReportWarning::CorpusInputUnused {
                    flag: FLAG,
                    key: KEY,
                },
            });
        }
        if self.corpus_inputs.subtopics_unused(&self.metrics) {
            use crate::corpus::subtopic_input::{FLAG, KEY};
            report.warnings.push(RunWarning {
                run: String::new(),
                warning: ReportWarning::CorpusInputUnused {
                    flag: FLAG,
                    key: KEY,
                },
            });
        }
        if self.corpus_inputs.propensities_unused(&self.metrics) {
            use crate::corpus::propensity_input::{
                COUNTS_FLAG, COUNTS_KEY, INVERSE_FLAG, INVERSE_KEY,
            };
            let inverse = matches!(
                self.corpus_inputs.propensities,
                Some((_, crate::read::propensity::PropensityTable::Inverse))
            );
            report.warnings.push(RunWarning {
                run: String::new(),
                warning: ReportWarning::CorpusInputUnused {
                    flag: if inverse { INVERSE_FLAG } else { COUNTS_FLAG },
                    key: if inverse { INVERSE_KEY } else { COUNTS_KEY },
                },
            });
        }
        for input in self.corpus_inputs.unused(&self.corpus_metrics) {
            report.warnings.push(RunWarning {
                run: String::new(),
                warning: ReportWarning::CorpusInputUnused {
                    flag: input.flag(),
                    key: input.key(),
                },
            });
        }
        for run in &self.runs {
            let mut ignored_judgements = None;
            // Corpus metrics read every list of the run: it is then read
            // whole rather than evaluated while read.
            let stored = !self.corpus_metrics.is_empty() || kept.is_some();
            let mut own: Option<Qrels> = None;
            let (evaluation, list): (Evaluation, Option<Run>) = match &shared_qrels {
                // Several rankings per query: read whole, each sample
                // judged, the metrics scoring a query's samples together.
                Some(qrels) if self.samples => {
                    let sampled = crate::read::sampled::read_sampled_input(&run.input, self.read)
                        .map_err(ReadError::from)?;
                    (
                        crate::engine::evaluate_sampled(
                            qrels,
                            &sampled,
                            &self.metrics,
                            &self.options,
                        ),
                        None,
                    )
                }
                // Read here rather than by `evaluate_input`, to see whether
                // the run held judgements of its own.
                Some(qrels) if run.input.format() == Format::Jsonl || stored => {
                    let (list, own_qrels) = read_run_with(&run.input, self.read, progress)?;
                    if run.input.format() == Format::Jsonl {
                        ignored_judgements = own_qrels.map(|own| own.num_queries());
                    }
                    (
                        evaluate(qrels, &list, &self.metrics, &self.options),
                        Some(list),
                    )
                }
                Some(qrels) => (
                    evaluate_input(
                        qrels,
                        &run.input,
                        self.read,
                        &self.metrics,
                        &self.options,
                        progress,
                    )?,
                    None,
                ),
                None => {
                    let (list, own_qrels) = read_run_with(&run.input, self.read, progress)?;
                    // Corpus metrics alone need no judgements: every list counts.
                    if own_qrels.is_none() && self.metrics.is_empty() {
                        (Evaluation::unjudged(&list), Some(list))
                    } else {
                        let Some(qrels) = own_qrels else {
                            return Err(ExecuteError::Read(ReadError {
                                path: run.input.name().to_owned(),
                                line: None,
                                kind: crate::read::ReadErrorKind::BadField(
                                    "no qrels: give qrels, or a JSON Lines run with `relevant`"
                                        .into(),
                                ),
                            }));
                        };
                        let qrels = with_subtopics(qrels)?;
                        let evaluation = evaluate(&qrels, &list, &self.metrics, &self.options);
                        own = Some(qrels);
                        (evaluation, Some(list))
                    }
                }
            };
            never_ran(&run.name, run.input.name(), &evaluation, &self.options)?;
            let ir_metadata = run_ir_metadata(&run.name, &run.input, &evaluation, &mut report);
            if fingerprint {
                fingerprints.push(match (&own, &shared_fingerprint) {
                    (Some(own), _) => crate::record::judgements_fingerprint(own),
                    (None, Some(shared)) => shared.clone(),
                    (None, None) => crate::record::no_judgements_fingerprint(),
                });
            }
            let corpus = match &list {
                Some(list) if !self.corpus_metrics.is_empty() => {
                    // The lists the options count (BEIR's identical ids
                    // dropped), as the per-query metrics judged them.
                    let (list, _) = self.options.counted(list);
                    let list = list.as_ref();
                    report.warnings.extend(
                        item_warnings(list, &self.corpus_metrics, &corpus_inputs)
                            .into_iter()
                            .map(|warning| RunWarning {
                                run: run.name.clone(),
                                warning,
                            }),
                    );
                    evaluate_corpus_with(
                        list,
                        &self.corpus_metrics,
                        &corpus_inputs,
                        self.options.score_threshold,
                    )
                }
                _ => Vec::new(),
            };
            let per_query: Vec<Vec<f64>> = (0..self.metrics.len())
                .map(|m| evaluation.column(m))
                .collect();
            let collapse = match (&self.turns, &groups, conversation_column) {
                (Some(separator), _, _) if self.per_conversation => Some((
                    collapse_conversations(evaluation.queries(), &per_query, |q| {
                        split_turn(q, separator).map(|(c, _)| c)
                    }),
                    "the query ids".to_owned(),
                    format!("no `{separator}` in the id"),
                )),
                (None, Some((groups, file)), Some(column)) => Some((
                    collapse_conversations(evaluation.queries(), &per_query, |q| {
                        groups.value(q, column)
                    }),
                    file.clone(),
                    format!("no value in column `{CONVERSATION_COLUMN}` of {file}"),
                )),
                _ => None,
            };
            let (queries, per_query) = match collapse {
                Some((collapsed, path, reason)) => {
                    let collapsed = collapsed.map_err(|reason| {
                        ExecuteError::Read(ReadError {
                            path,
                            line: None,
                            kind: crate::read::ReadErrorKind::BadField(reason),
                        })
                    })?;
                    if !collapsed.alone.is_empty() {
                        report.warnings.push(RunWarning {
                            run: run.name.clone(),
                            warning: ReportWarning::QueriesWithoutConversation {
                                reason,
                                count: collapsed.alone.len(),
                                examples: collapsed
                                    .alone
                                    .iter()
                                    .take(5)
                                    .map(|q| rankeval_core::shorten_id(q.as_bytes()))
                                    .collect(),
                            },
                        });
                    }
                    (collapsed.ids, collapsed.values)
                }
                None => (evaluation.queries().to_vec(), per_query),
            };
            if let Some((groups, file)) = &groups {
                report.warnings.extend(unevaluated_warnings(
                    &run.name,
                    evaluation.queries(),
                    groups,
                    file,
                ));
            }
            let aggregates =
                aggregate_run(&run.name, &report.metrics, &per_query, &self.aggregators);
            if let (Some(count), Some(qrels)) = (ignored_judgements, &self.qrels) {
                report.warnings.push(RunWarning {
                    run: run.name.clone(),
                    warning: ReportWarning::RunJudgementsIgnored {
                        count,
                        qrels: qrels.name().to_owned(),
                    },
                });
            }
            report
                .warnings
                .extend(evaluation.warnings().into_iter().map(|warning| RunWarning {
                    run: run.name.clone(),
                    warning: warning.into(),
                }));
            report.warnings.extend(aggregates.warnings);
            report.warnings.extend(
                hole_warnings(evaluation.metrics(), |m| {
                    rankeval_core::exact_sum::fmean(&per_query[m])
                })
                .into_iter()
                .map(|warning| RunWarning {
                    run: run.name.clone(),
                    warning,
                }),
            );
            let conversations = match &self.turns {
                Some(_) if self.per_conversation => None,
                Some(separator) => Some(
                    conversation_groups(&queries, separator, groups.as_ref().map(|(g, _)| g))
                        .map_err(|reason| {
                            ExecuteError::Read(ReadError {
                                path: groups
                                    .as_ref()
                                    .map_or_else(|| "the query ids".to_owned(), |(_, f)| f.clone()),
                                line: None,
                                kind: crate::read::ReadErrorKind::BadField(reason),
                            })
                        })?,
                ),
                None => None,
            };
            let run_groups = match (&conversations, &groups) {
                (Some(conversations), Some((_, file))) => {
                    Some((conversations, format!("{file} and the query ids")))
                }
                (Some(conversations), None) => Some((conversations, "the query ids".to_owned())),
                // Collapsed into conversations: the groups name turns.
                (None, Some(_)) if self.per_conversation => None,
                (None, Some((groups, file))) => Some((groups, file.clone())),
                (None, None) => None,
            };
            let group_results = match run_groups {
                Some((groups, file)) => {
                    let (results, warnings) = group_results(
                        &run.name,
                        &queries,
                        &per_query,
                        &report.metrics,
                        &self.aggregators,
                        groups,
                        &file,
                    );
                    report.warnings.extend(warnings);
                    results
                }
                None => Vec::new(),
            };
            if let (Some(kept), Some(list)) = (kept.as_mut(), list) {
                kept.runs.push(KeptRun {
                    name: run.name.clone(),
                    run: list,
                    own: own.map(|qrels| (qrels, run.input.name().to_owned())),
                });
            }
            report.runs.push(RunResult {
                name: run.name.clone(),
                queries,
                per_query,
                aggregates: aggregates.values,
                intervals: aggregates.intervals,
                corpus,
                groups: group_results,
                ir_metadata,
            });
        }
        if let (Some(kept), Some(qrels), Some(input)) = (kept.as_mut(), shared_qrels, &self.qrels) {
            kept.qrels = Some((qrels.into_owned(), input.name().to_owned()));
        }
        Ok((report, kept, fingerprints))
    }
}

/// The ir_metadata block of run `name` (read from `input`, or as the engine
/// read it while evaluating, from a pipe's spill file): a block that cannot
/// be read is a warning naming the file and line, and the run is evaluated
/// without it, as trec_eval skips the block as comments
/// (docs/benchmarks.md). A run from a pipe read whole (corpus metrics, the
/// HTML page's changed queries) has none: the pipe cannot be read again.
fn run_ir_metadata(
    name: &str,
    input: &crate::read::Input,
    evaluation: &Evaluation,
    report: &mut Report,
) -> Option<crate::read::ir_metadata::IrMetadata> {
    let read = match evaluation.ir_metadata() {
        Some(read) => read.clone(),
        None => crate::read::read_ir_metadata(input).map_err(std::sync::Arc::new),
    };
    match read {
        Ok(metadata) => metadata,
        Err(e) => {
            report.warnings.push(RunWarning {
                run: name.to_owned(),
                warning: ReportWarning::IrMetadataUnread {
                    file: e.path.clone(),
                    line: e.line,
                    problem: e.kind.to_string(),
                },
            });
            None
        }
    }
}

/// Why a path cannot be an input.
#[derive(Debug)]
pub enum InputProblem {
    /// Nothing is there.
    Missing,
    /// A directory is there.
    Directory,
    /// Whatever is there cannot be looked at.
    Unreadable(std::io::Error),
}

impl std::fmt::Display for InputProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputProblem::Missing => f.write_str("no such file"),
            InputProblem::Directory => f.write_str("is a directory, not a file"),
            InputProblem::Unreadable(error) => write!(f, "cannot read: {error}"),
        }
    }
}

/// Why `path` cannot be read as an input, if it cannot be: it does not
/// exist, or it is a directory. Anything else that exists will do, not only
/// a regular file: a FIFO, `/dev/stdin`, a shell's `<(...)`.
pub fn input_problem(path: &std::path::Path) -> Option<InputProblem> {
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_dir() => Some(InputProblem::Directory),
        Ok(_) => None,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Some(InputProblem::Missing),
        Err(error) => Some(InputProblem::Unreadable(error)),
    }
}

/// Per-query metrics and corpus metrics, each in the order requested.
pub type SplitMetrics = (Vec<Box<dyn Metric>>, Vec<Box<dyn CorpusMetric>>);

/// Parts requested metrics into per-query metrics and corpus metrics,
/// each in the order given.
pub fn split_requested(
    requested: impl IntoIterator<Item = rankeval_core::RequestedMetric>,
) -> SplitMetrics {
    let mut metrics = Vec::new();
    let mut corpus = Vec::new();
    for metric in requested {
        match metric {
            rankeval_core::RequestedMetric::Query(m) => metrics.push(m),
            rankeval_core::RequestedMetric::Corpus(m) => corpus.push(m),
        }
    }
    (metrics, corpus)
}

/// Why bounds and a comparison are not asked together: the bounds' columns
/// would join the comparison's family of tests and move the corrected
/// p-values of the metrics themselves.
pub const BOUNDS_WITH_COMPARISON: &str = "--bounds (TOML bounds) with a comparison: the bounds would be \
     compared too and join the correction's family, changing the metrics' corrected p-values; \
     compare without --bounds, or name the completed metrics you want compared \
     (-m \"ndcg(unjudged=relevant)@10\")";

/// A warning for each hole rate among `metrics` (`unjudged@k`) whose mean
/// over the queries, `mean(m)` for the metric at `m` (asked of the hole
/// rates only), passes
/// [`HOLE_WARNING`](rankeval_core::completion::HOLE_WARNING).
pub fn hole_warnings<S: AsRef<str>>(
    metrics: &[S],
    mean: impl Fn(usize) -> f64,
) -> Vec<ReportWarning> {
    metrics
        .iter()
        .enumerate()
        .filter(|(_, name)| rankeval_core::completion::is_hole_rate(name.as_ref()))
        .filter_map(|(m, name)| {
            let share = mean(m);
            (share > rankeval_core::completion::HOLE_WARNING).then(|| ReportWarning::Holes {
                metric: name.as_ref().to_owned(),
                share,
            })
        })
        .collect()
}

/// Keeps the first of each canonical name, in order.
pub fn unique_by_name<T: rankeval_core::registry::Plugin + ?Sized>(
    items: Vec<Box<T>>,
) -> Vec<Box<T>> {
    let mut seen = std::collections::HashSet::new();
    items
        .into_iter()
        .filter(|item| seen.insert(T::canonical_name(item)))
        .collect()
}

/// Why an experiment could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum ExecuteError {
    /// An input could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A run never ran on the qrels (and the options do not allow it).
    #[error(transparent)]
    NeverRan(#[from] NeverRan),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_existing_path_but_a_directory_is_an_input() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("run.trec");
        std::fs::write(&file, "q1 Q0 a 1 1 t\n").unwrap();
        assert!(input_problem(&file).is_none());
        let problem = |path: &std::path::Path| input_problem(path).map(|p| p.to_string());
        assert_eq!(
            problem(dir.path()).as_deref(),
            Some("is a directory, not a file")
        );
        assert_eq!(
            problem(&dir.path().join("nope")).as_deref(),
            Some("no such file")
        );
        #[cfg(unix)]
        {
            let fifo = dir.path().join("run.fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                assert!(input_problem(&fifo).is_none());
            }
            assert!(input_problem(std::path::Path::new("/dev/null")).is_none());
        }
    }
}
