//! From a spec to an [`Experiment`]: every rule about the values, once, for
//! every front end. Nothing here reads the data; a file is only checked to
//! be there.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rankeval_core::completion::with_bounds;
use rankeval_core::judged_only::judged_only;
use rankeval_core::registry;
use rankeval_core::{Aggregator, Metric, PluginError, RelevanceLevel, RequestedMetric, Ties};

use super::compare::resolve_comparison;
use super::origin::{Given, Origin};
use super::{
    BenchmarkRequest, CorpusRequest, ExperimentSpec, MetricRequest, RunRequest, SystemRequest,
};
use crate::benchmarks::irds::{self, CachedParts, IrdsError};
use crate::benchmarks::parts::{self, Part, Parts};
use crate::benchmarks::{Benchmark, Reported};
use crate::corpus::CorpusSources;
use crate::engine::Missing;
use crate::engine::{Options, ScoreThreshold, check_ties, has_scores, unscored_run};
use crate::experiment::{
    BOUNDS_WITH_COMPARISON, DEFAULT_METRICS, Experiment, InputProblem, NamedRun, SystemSpec,
    input_problem, metric_note, split_requested, system_files, unique_by_name, unique_notes,
};
use crate::naming::{GivenRun, NameError, name_runs, run_names};
use crate::read::{Format, Input, ReadOptions};

/// A value of a spec breaks a rule. Displays as the value's origin, then
/// the problem: `--rel 0: ...`, `exp.toml:3: rel: ...`, `rel=0: ...`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// A value cannot be used.
    #[error("{from}: {reason}")]
    Invalid {
        /// Where the value came from.
        from: Origin,
        /// Why.
        reason: String,
    },
    /// A file a value names cannot be an input.
    #[error("{}", file_message(from, path, problem))]
    File {
        /// Where the path came from.
        from: Origin,
        /// The file looked for.
        path: PathBuf,
        /// What is wrong with it.
        problem: InputProblem,
    },
    /// A metric or aggregator cannot be built.
    #[error("{from}: {}", crate::config::plugin_message(source))]
    Plugin {
        /// Where it was given.
        from: Origin,
        /// Why.
        source: Box<PluginError>,
    },
    /// A rule about several values together, said in full.
    #[error("{0}")]
    Bare(String),
}

/// A missing file as each front end says it: `runs.trec: no such file` on
/// the command line (the path is what was typed), `exp.toml:3: qrels: no
/// such file: dir/qrels.txt` in a TOML file (the path made relative to it).
fn file_message(from: &Origin, path: &Path, problem: &InputProblem) -> String {
    match (from, problem) {
        (Origin::Flag { .. }, _) => format!("{}: {problem}", path.display()),
        (_, InputProblem::Missing) => format!("{from}: no such file: {}", path.display()),
        (_, problem) => format!("{from}: {}: {problem}", path.display()),
    }
}

impl SpecError {
    /// Where the value at fault came from, if one is.
    pub fn origin(&self) -> Option<&Origin> {
        match self {
            SpecError::Invalid { from, .. }
            | SpecError::File { from, .. }
            | SpecError::Plugin { from, .. } => Some(from),
            SpecError::Bare(_) => None,
        }
    }
}

/// A rule broken by `from`'s value.
pub(super) fn invalid(from: &Origin, reason: impl Into<String>) -> SpecError {
    SpecError::Invalid {
        from: from.clone(),
        reason: reason.into(),
    }
}

/// `path`, which must be an input (a FIFO or `/dev/stdin` will do).
pub(super) fn existing(path: &Path, from: &Origin) -> Result<(), SpecError> {
    match input_problem(path) {
        None => Ok(()),
        Some(problem) => Err(SpecError::File {
            from: from.clone(),
            path: path.to_owned(),
            problem,
        }),
    }
}

/// Checks that runs of sampled rankings can be evaluated as asked: each
/// sample is judged as a list and the metrics score the query's samples
/// together, which is not done for corpus metrics, averaged ties or
/// subtopic judgements. (They need shared qrels: a sampled run's rows,
/// JSON Lines rows too, carry no judgements; the rule on qrels says so.)
fn check_samples(
    from: &Origin,
    metrics: &[Box<dyn Metric>],
    corpus_metrics: &[Box<dyn rankeval_core::CorpusMetric>],
    ties: Ties,
) -> Result<(), SpecError> {
    check_sampled_corpus(from, corpus_metrics)?;
    check_sampled(from, metrics, ties)
}

/// Refuses corpus metrics with sampled runs (each reads one list per
/// query): the rule of [`check_samples`] that Spark's evaluator, which
/// takes corpus metrics of its own, calls too.
pub fn check_sampled_corpus(
    from: &Origin,
    corpus_metrics: &[Box<dyn rankeval_core::CorpusMetric>],
) -> Result<(), SpecError> {
    if let Some(metric) = corpus_metrics.first() {
        return Err(invalid(
            from,
            format!(
                "sampled runs are evaluated per query; the corpus metric {} reads one list per \
                 query (ask for it in an experiment of its own)",
                metric.name()
            ),
        ));
    }
    Ok(())
}

/// The rules of [`check_samples`] past corpus metrics, for a front end
/// that takes no corpus metric (`rankeval explain --samples`): no averaged
/// ties, no subtopic metric. A sampled run is read as rows in every
/// format, JSON Lines too (`query, sample, doc, score|rank` keys: a run
/// named `.jsonl` is such rows here, not rankeval's one list per query).
pub fn check_sampled(
    from: &Origin,
    metrics: &[Box<dyn Metric>],
    ties: Ties,
) -> Result<(), SpecError> {
    if ties == Ties::Average {
        return Err(invalid(
            from,
            format!(
                "sampled runs are not evaluated with {} average (each sample is one order)",
                from.option("ties", None)
            ),
        ));
    }
    if let Some(metric) = metrics.iter().find(|m| m.reads_subtopics()) {
        return Err(invalid(
            from,
            format!(
                "sampled runs are not evaluated by {}, which reads subtopic judgements",
                metric.name()
            ),
        ));
    }
    Ok(())
}

/// Checks `spec` and builds the experiment it asks for.
pub fn resolve(spec: ExperimentSpec) -> Result<Experiment, SpecError> {
    let ExperimentSpec {
        whole,
        qrels,
        runs: run_requests,
        systems: system_requests,
        metrics: metric_requests,
        aggregators,
        corpus,
        groups,
        turns,
        per_conversation,
        missing,
        rel,
        ties,
        score_threshold,
        judged_only: all_judged_only,
        bounds,
        duplicates,
        allow_empty_run,
        samples,
        compare,
        title,
        record,
        benchmark,
    } = spec;
    let level = match &rel {
        None => RelevanceLevel::DEFAULT,
        Some(given) => relevance_level(given)?,
    };
    if run_requests.is_empty() && system_requests.is_empty() {
        return Err(invalid(
            &whole,
            match whole {
                Origin::Key { .. } => {
                    "no [[runs]] table: add one with a `path` for each run to evaluate \
                     (or a [[systems]] table with the `runs` of a system)"
                }
                _ => "no run: give at least one run to evaluate",
            },
        ));
    }
    let (qrels, mut benchmark) = benchmark_qrels(qrels, benchmark)?;
    if let (Some(card), Some(list)) = (benchmark.known, &metric_requests) {
        let names: Vec<String> = list.value.iter().map(|m| m.metric.name()).collect();
        benchmark.notes.extend(
            card.contradictions(names.iter().map(String::as_str), level.get())
                .into_iter()
                .map(|note| {
                    if benchmark.official.is_some() {
                        note
                    } else {
                        note.replace(
                            "--official evaluates the card's",
                            "give --official for the card's",
                        )
                    }
                }),
        );
    }
    let mut run_requests = run_requests;
    let part_runs = match &benchmark.parts {
        Some(cached) => {
            refuse_across_parts(
                cached,
                [
                    system_requests
                        .first()
                        .map(|s| (&s.name.from, "systems of several runs")),
                    groups.as_ref().map(|g| (&g.from, "groups of queries")),
                    turns.as_ref().map(|g| (&g.from, "conversations of turns")),
                    per_conversation
                        .as_ref()
                        .filter(|g| g.value)
                        .map(|g| (&g.from, "conversations")),
                    samples
                        .as_ref()
                        .filter(|g| g.value)
                        .map(|g| (&g.from, "sampled runs")),
                    compare
                        .baseline
                        .as_ref()
                        .map(|g| (&g.from, "a comparison with a baseline")),
                    compare
                        .all_pairs
                        .as_ref()
                        .filter(|g| g.value)
                        .map(|g| (&g.from, "a comparison of every pair")),
                    compare.table.as_ref().map(|o| (o, "a comparison")),
                    record.db.as_ref().map(|g| (&g.from, "a results history")),
                ],
            )?;
            Some(part_runs(cached, &mut run_requests)?)
        }
        None => None,
    };
    let (metric_requests, missing) = match benchmark.official {
        Some(card) => {
            benchmark.drop_identical_ids |= card.drop_identical_ids;
            official_requests(card, &benchmark.official_from, metric_requests, missing)?
        }
        None => (metric_requests, missing),
    };
    // Data already in memory (Python's) has no file to look for.
    if let Some(qrels) = &qrels
        && let Some(path) = qrels.value.path()
    {
        existing(path, &qrels.from)?;
    }
    for run in &run_requests {
        if let Some(path) = run.input.path() {
            existing(path, &run.from)?;
        }
    }
    for (path, from) in [
        &corpus.catalog,
        &corpus.features,
        &corpus.subtopics,
        &corpus.doc_groups,
        &corpus.group_targets,
        &corpus.label_counts,
        &corpus.inverse_propensities,
    ]
    .into_iter()
    .flatten()
    .map(|g| (g.value.as_path(), &g.from))
    .chain(
        corpus
            .training
            .iter()
            .filter_map(|g| Some((g.value.path()?, &g.from))),
    ) {
        existing(path, from)?;
    }
    if let Some(groups) = &groups {
        existing(&groups.value, &groups.from)?;
    }
    refuse_repeated_runs(&run_requests)?;
    let mut runs = named_runs(run_requests)?;
    let systems = systems(system_requests, &mut runs)?;

    let metrics_from = metric_requests.as_ref().map(|list| list.from.clone());
    for list in [metric_requests
        .as_ref()
        .map(|l| (l.value.is_empty(), &l.from, "metrics"))]
    .into_iter()
    .chain([aggregators
        .as_ref()
        .map(|l| (l.value.is_empty(), &l.from, "aggregators"))])
    .flatten()
    {
        if let (true, from, key) = list {
            return Err(invalid(
                from,
                format!(
                    "the list is empty: give at least one, or leave `{key}` out for the defaults"
                ),
            ));
        }
    }
    let (requested, notes) = match metric_requests {
        Some(list) => {
            let mut notes = Vec::new();
            let mut requested = Vec::with_capacity(list.value.len());
            for MetricRequest {
                typed,
                metric,
                from,
            } in list.value
            {
                if let (RequestedMetric::Query(query), Some(typed)) = (&metric, &typed)
                    && let Some(note) = metric_note(typed, query.as_ref())
                {
                    notes.push(note);
                }
                requested.push((metric, from));
            }
            (requested, notes)
        }
        None => {
            let mut requested = Vec::with_capacity(DEFAULT_METRICS.len());
            for spec in DEFAULT_METRICS {
                let metric = registry::parse_metric(spec).map_err(|source| SpecError::Plugin {
                    from: whole.clone(),
                    source: Box::new(source),
                })?;
                requested.push((RequestedMetric::Query(metric), whole.clone()));
            }
            (requested, Vec::new())
        }
    };
    let corpus_inputs = CorpusSources {
        catalog: corpus.catalog.as_ref().map(|g| g.value.clone()),
        training: corpus.training.as_ref().map(|g| g.value.clone()),
        features: corpus.features.as_ref().map(|g| g.value.clone()),
        subtopics: corpus.subtopics.as_ref().map(|g| g.value.clone()),
        doc_groups: corpus.doc_groups.as_ref().map(|g| g.value.clone()),
        group_targets: corpus.group_targets.as_ref().map(|g| g.value.clone()),
        propensities: propensity_source(&corpus)?,
    };
    for (metric, from) in &requested {
        if let RequestedMetric::Query(metric) = metric {
            check_requirements(metric.as_ref(), from, &corpus_inputs)?;
        }
    }
    for (metric, from) in &requested {
        if let RequestedMetric::Corpus(metric) = metric
            && let Some(missing) = corpus_inputs.missing_for(metric.as_ref())
        {
            return Err(invalid(
                from,
                match from {
                    Origin::Flag { .. } => format!(
                        "{} needs {} FILE: {}",
                        metric.name(),
                        missing.flag(),
                        missing.what()
                    ),
                    Origin::Key { .. } => format!(
                        "{} needs {}: add `{} = \"FILE\"` at the top of the file",
                        metric.name(),
                        missing.what(),
                        missing.key()
                    ),
                    Origin::Keyword { .. } => format!(
                        "{} needs {}: give {}=",
                        metric.name(),
                        missing.what(),
                        missing.key()
                    ),
                },
            ));
        }
    }
    let (metrics, corpus_metrics) = split_requested(requested.into_iter().map(|(m, _)| m));
    // Corpus metrics alone need no judgements; subtopic judgements give
    // the qrels of their own; a sampled run's rows, JSON Lines too, hold
    // rankings only.
    let sampled = samples.as_ref().is_some_and(|g| g.value);
    if sampled
        && qrels.is_none()
        && corpus_inputs.subtopics.is_none()
        && !metrics.is_empty()
        && let Some(run) = runs.first()
    {
        const WHY: &str = "a sampled run holds no judgements (its rows are rankings only)";
        return Err(match &run.1 {
            from @ Origin::Key { .. } => invalid(from, format!("there is no `qrels` key: {WHY}")),
            Origin::Keyword { .. } => invalid(
                &Origin::keyword("qrels", "None"),
                format!("no qrels: {WHY}"),
            ),
            _ => SpecError::Bare(format!(
                "{} is required: {WHY}",
                run.1.option("qrels", None)
            )),
        });
    }
    if qrels.is_none()
        && corpus_inputs.subtopics.is_none()
        && !metrics.is_empty()
        && let Some(run) = runs.iter().find(|r| r.0.input.format() != Format::Jsonl)
    {
        return Err(match &run.1 {
            from @ Origin::Key { .. } => invalid(
                from,
                "there is no `qrels` key, so every run must be JSON Lines with `relevant` \
                 (only corpus metrics need no judgements)",
            ),
            Origin::Keyword { .. } => invalid(
                &Origin::keyword("qrels", "None"),
                format!(
                    "no qrels: give qrels, or JSON Lines run files with `relevant` ({} is not \
                     JSON Lines, so it holds no judgements)",
                    run.0.input.name()
                ),
            ),
            _ => SpecError::Bare(format!(
                "{} is required: {} is not JSON Lines, so it holds no judgements",
                run.1.option("qrels", None),
                run.0.input.name()
            )),
        });
    }
    let ties_value = ties.as_ref().map_or(Ties::Docid, |t| t.value);
    let judged = all_judged_only.as_ref().is_some_and(|j| j.value);
    // The condensed list and the completed judgements have no subtopic
    // judgements, per-document facts nor document groups.
    for given in [&all_judged_only, &bounds].into_iter().flatten() {
        if given.value
            && let Some((metric, needs)) = metrics
                .iter()
                .find_map(|m| m.requires().first().map(|r| (m, r)))
        {
            return Err(invalid(
                &given.from,
                format!(
                    "does not apply to {}, which reads {} (leave it out, or \
                     ask for that metric in an experiment of its own)",
                    metric.name(),
                    needs.what()
                ),
            ));
        }
    }
    // Nor do they know each document across samples.
    for given in [&all_judged_only, &bounds].into_iter().flatten() {
        if given.value
            && let Some(metric) = metrics.iter().find(|m| m.joint_over_samples())
        {
            return Err(invalid(
                &given.from,
                format!(
                    "does not apply to {}, which reads each ranking whole (leave it out, or \
                     ask for that metric in an experiment of its own)",
                    metric.name()
                ),
            ));
        }
    }
    let samples = match samples {
        Some(given) if given.value => {
            check_samples(&given.from, &metrics, &corpus_metrics, ties_value)?;
            true
        }
        _ => false,
    };
    let metrics = if judged {
        unique_by_name(metrics.into_iter().map(judged_only).collect())
    } else {
        unique_by_name(metrics)
    };
    let metrics = match &bounds {
        Some(given) if given.value => with_bounds(metrics).map_err(|source| match given.from {
            Origin::Key { .. } => SpecError::Plugin {
                from: given.from.clone(),
                source: Box::new(source),
            },
            _ => invalid(&given.from, crate::config::plugin_message(&source)),
        })?,
        _ => metrics,
    };
    check_ties(&metrics, ties_value).map_err(|reason| match (&ties, &metrics_from) {
        (Some(given), _) => invalid(&given.from, reason),
        (None, Some(from)) => invalid(from, reason),
        (None, None) => invalid(&whole, reason),
    })?;
    let score_threshold = match &score_threshold {
        None => None,
        Some(given) => {
            let threshold = score_threshold_of(given)?;
            if let Some((run, _)) = runs.iter().find(|(r, _)| !has_scores(r.input.format())) {
                return Err(invalid(&given.from, unscored_run(&run.name)));
            }
            Some(threshold)
        }
    };
    let missing = missing.map(|m| m.value).unwrap_or_default();
    let run_names: Vec<String> = runs.iter().map(|(r, _)| r.name.clone()).collect();
    let metric_names: Vec<String> = metrics.iter().map(|m| m.name()).collect();
    let comparison = resolve_comparison(compare, &run_names, &metric_names, missing, judged)?;
    if let Some(cached) = &benchmark.parts
        && comparison.is_some()
    {
        // Gates without a baseline: a comparison all the same.
        refuse_across_parts(cached, [Some((&whole, "a comparison"))])?;
    }
    if let Some(cached) = &benchmark.parts
        && let Some(metric) = corpus_metrics.first()
    {
        return Err(invalid(
            metrics_from.as_ref().unwrap_or(&whole),
            format!(
                "{} is the mean of its forums' means: the corpus metric {} is not evaluated \
                 across forums (evaluate a forum, irds:{}/<forum>, for it)",
                cached.benchmark.id,
                metric.name(),
                cached.benchmark.id
            ),
        ));
    }
    if let Some(given) = bounds.as_ref().filter(|b| b.value)
        && comparison.is_some()
    {
        return Err(match given.from {
            Origin::Key { .. } => invalid(&given.from, BOUNDS_WITH_COMPARISON),
            _ => SpecError::Bare(BOUNDS_WITH_COMPARISON.to_owned()),
        });
    }
    let turns = match turns {
        Some(given) if given.value.is_empty() => {
            return Err(invalid(
                &given.from,
                "the separator of conversation and turn in the query ids is empty (e.g. `_` \
                 for query ids like 31_4)",
            ));
        }
        other => other,
    };
    let per_conversation = match per_conversation {
        Some(given) if given.value => match (&turns, &groups) {
            (None, None) => {
                return Err(invalid(
                    &given.from,
                    format!(
                        "needs {} (conversations from the query ids) or {} (a file with a \
                             `conversation` column)",
                        given.from.option("turns", Some("--turns SEP")),
                        given.from.option("groups", Some("--groups FILE")),
                    ),
                ));
            }
            (Some(_), Some(_)) => {
                return Err(invalid(
                    &given.from,
                    format!(
                        "with {} and {}: the groups name queries (turns), and the unit is \
                             then the conversation; give the conversations by one of them",
                        given.from.option("turns", None),
                        given.from.option("groups", None),
                    ),
                ));
            }
            _ => true,
        },
        _ => false,
    };
    let aggregators = match aggregators {
        Some(list) => list.value,
        None => vec![
            registry::parse_aggregator("mean").map_err(|source| SpecError::Plugin {
                from: whole.clone(),
                source: Box::new(source),
            })?,
        ],
    };
    let title = title.map(report_title).transpose()?;
    let record = super::resolve_record(record)?;
    Ok(Experiment {
        title,
        qrels: qrels.map(|q| q.value),
        runs: runs.into_iter().map(|(run, _)| run).collect(),
        metrics,
        aggregators: unique_by_name::<dyn Aggregator>(aggregators),
        corpus_metrics: unique_by_name(corpus_metrics),
        corpus_inputs,
        systems,
        groups: groups.map(|g| g.value),
        turns: turns.map(|t| t.value),
        per_conversation,
        samples,
        options: Options {
            missing,
            level,
            ties: ties_value,
            score_threshold,
            allow_empty_run: allow_empty_run.is_some_and(|a| a.value),
            drop_identical_ids: benchmark.drop_identical_ids,
        },
        read: ReadOptions {
            duplicates: duplicates.map(|d| d.value).unwrap_or_default(),
            ties: ties_value,
        },
        comparison,
        record,
        notes: unique_notes(benchmark.notes.into_iter().chain(notes)),
        official: benchmark.official.map(Benchmark::official_note),
        parts: benchmark.parts.zip(part_runs).map(|(cached, runs)| Parts {
            benchmark: cached.benchmark.id.clone(),
            parts: cached
                .parts
                .into_iter()
                .enumerate()
                .map(|(p, (name, id, qrels))| Part {
                    name,
                    id,
                    qrels: qrels.input,
                    runs: runs.iter().map(|files| files[p].clone()).collect(),
                })
                .collect(),
        }),
    })
}

/// Refuses the first of `asked` (where it was given, and what) for the
/// benchmark of parts `cached`: each forum is evaluated on its own and the
/// report's rows are the forums, so what reads queries across runs or
/// records them per query is not evaluated across forums.
fn refuse_across_parts<'a>(
    cached: &CachedParts,
    asked: impl IntoIterator<Item = Option<(&'a Origin, &'a str)>>,
) -> Result<(), SpecError> {
    match asked.into_iter().flatten().next() {
        None => Ok(()),
        Some((from, what)) => Err(invalid(
            from,
            format!(
                "{} is the mean of its {} forums' means, each forum evaluated on its own: {what} \
                 is not evaluated across forums (evaluate one forum, irds:{}/<forum>, for it)",
                cached.benchmark.id,
                cached.parts.len(),
                cached.benchmark.id
            ),
        )),
    }
}

/// Each run of `requests` as a file per part of `cached` (a pattern with
/// `{forum}`, or a folder of files named by forum: `benchmarks::parts`),
/// each file checked to be there; the run read from its first part's file
/// meanwhile, and named by its pattern. `files[r][p]`: run `r`'s input
/// for part `p`.
fn part_runs(
    cached: &CachedParts,
    requests: &mut [RunRequest],
) -> Result<Vec<Vec<Input>>, SpecError> {
    let names: Vec<(String, String)> = cached
        .parts
        .iter()
        .map(|(name, id, _)| (name.clone(), id.clone()))
        .collect();
    let mut files = Vec::with_capacity(requests.len());
    for run in requests.iter_mut() {
        let Some(pattern) = run.input.path().map(Path::to_owned) else {
            return Err(invalid(
                &run.from,
                parts::PartsError::OneFile {
                    benchmark: cached.benchmark.id.clone(),
                    count: names.len(),
                }
                .to_string(),
            ));
        };
        let paths = parts::part_files(&cached.benchmark.id, &pattern, &names)
            .map_err(|error| invalid(&run.from, error.to_string()))?;
        let mut inputs = Vec::with_capacity(paths.len());
        for path in &paths {
            existing(path, &run.from)?;
            inputs.push(parts::part_input(&run.input, &pattern, path));
        }
        run.written = parts::written(&run.written);
        if let Some(first) = inputs.first() {
            run.input = first.clone();
        }
        files.push(inputs);
    }
    Ok(files)
}

/// A benchmark request resolved: what it changes in the experiment.
struct BenchmarkSettings {
    /// Drop a retrieved document whose id is the query's.
    drop_identical_ids: bool,
    /// What to tell the user.
    notes: Vec<String>,
    /// The benchmark of the qrels, or the one `--official` names.
    known: Option<&'static Benchmark>,
    /// The benchmark whose official measures are evaluated.
    official: Option<&'static Benchmark>,
    /// Where `--official` was given.
    official_from: Origin,
    /// The parts of a benchmark reported as their mean (CQADupStack's
    /// forums), each with its cached qrels.
    parts: Option<CachedParts>,
}

/// The metrics and the setting of `missing` `--official` asks for.
type OfficialRequests = (Option<Given<Vec<MetricRequest>>>, Option<Given<Missing>>);

/// The card's measures of `card` (each under its reported name) before
/// any hand-picked in `picked`, and its convention on missing queries; a
/// `missing` given otherwise is refused.
fn official_requests(
    card: &'static Benchmark,
    from: &Origin,
    picked: Option<Given<Vec<MetricRequest>>>,
    missing: Option<Given<Missing>>,
) -> Result<OfficialRequests, SpecError> {
    if let Some(given) = &missing
        && given.value != card.missing
    {
        return Err(invalid(
            &given.from,
            format!(
                "{} scores a judged query missing from the run as `{}`: leave {} out with \
                 {}",
                card.id,
                missing_word(card.missing),
                given.from.option("missing", None),
                from.option("official", None)
            ),
        ));
    }
    let mut requests = Vec::with_capacity(card.measures.len());
    let mut card_names = Vec::with_capacity(card.measures.len());
    for measure in &card.measures {
        let metric =
            registry::parse_metric(&measure.metric).map_err(|source| SpecError::Plugin {
                from: from.clone(),
                source: Box::new(source),
            })?;
        card_names.push(metric.name());
        requests.push(MetricRequest {
            typed: Some(measure.reported.clone()),
            metric: RequestedMetric::Query(Box::new(Reported::new(
                measure.reported.clone(),
                metric,
            ))),
            from: from.clone(),
        });
    }
    if let Some(picked) = picked {
        // A hand-picked metric the card already has is evaluated once,
        // under the card's name.
        requests.extend(
            picked
                .value
                .into_iter()
                .filter(|r| !card_names.contains(&r.metric.name())),
        );
    }
    Ok((
        Some(Given::new(requests, from.clone())),
        Some(Given::new(card.missing, from.clone())),
    ))
}

/// How a setting of `missing` is written.
fn missing_word(missing: Missing) -> &'static str {
    match missing {
        Missing::Skip => "skip",
        Missing::Zero => "zero",
    }
}

/// The qrels as asked for, an `irds:<id>` resolved to ir_datasets' cached
/// file (`rankeval::benchmarks::irds`), and the benchmark settings.
fn benchmark_qrels(
    qrels: Option<Given<Input>>,
    request: BenchmarkRequest,
) -> Result<(Option<Given<Input>>, BenchmarkSettings), SpecError> {
    let BenchmarkRequest {
        fetch,
        drop_identical_ids,
        official,
        qrels_benchmark,
    } = request;
    let mut settings = BenchmarkSettings {
        drop_identical_ids: drop_identical_ids.as_ref().is_some_and(|d| d.value),
        notes: Vec::new(),
        known: None,
        official: None,
        official_from: official
            .as_ref()
            .map_or_else(|| Origin::bare_flag("--official"), |o| o.from.clone()),
        parts: None,
    };
    let named = match official.as_ref().and_then(|o| o.value.as_deref()) {
        Some(id) => Some(
            irds::benchmark(id)
                .map_err(|error| invalid(&settings.official_from, error.to_string()))?,
        ),
        None => None,
    };
    let id = qrels.as_ref().and_then(|q| {
        let text = q.value.path()?.to_str()?;
        irds::id_of(text).map(str::to_owned)
    });
    // Qrels read from ir_datasets' cache already (Python's): their
    // benchmark, as the `irds:` path would have told it.
    if let (Some(read), None) = (&qrels_benchmark, &id) {
        let card = crate::benchmarks::card()
            .find(read)
            .ok_or_else(|| invalid(&settings.official_from, format!("no benchmark `{read}`")))?;
        if let Some(named) = named
            && named.id != card.id
        {
            return Err(invalid(
                &settings.official_from,
                format!(
                    "names {}, but the qrels are {}'s: give one benchmark",
                    named.id, card.id
                ),
            ));
        }
        settings.known = Some(card);
        if official.is_some() {
            settings.official = Some(card);
        }
        return Ok((qrels, settings));
    }
    if settings.drop_identical_ids {
        settings.notes.push(
            "a retrieved document whose id is the query's id is dropped before judging (BEIR's \
             convention, beir-cellar/beir PR #91)"
                .to_owned(),
        );
    }
    let fetching = fetch.as_ref().filter(|f| f.value);
    let (Some(qrels), Some(id)) = (&qrels, id) else {
        if official.is_some() {
            let Some(card) = named else {
                return Err(invalid(
                    &settings.official_from,
                    format!(
                        "which benchmark? give {} irds:<id>, or name it: {} <id> \
                         (`rankeval benchmarks` lists them)",
                        settings.official_from.option("qrels", None),
                        settings.official_from.option("official", None)
                    ),
                ));
            };
            settings.known = Some(card);
            settings.official = Some(card);
        }
        if let Some(fetch) = fetching {
            return Err(invalid(
                &fetch.from,
                format!(
                    "fills ir_datasets' cache for qrels given as an ir_datasets id: give {} \
                     irds:<id> (`rankeval benchmarks` lists them)",
                    fetch.from.option("qrels", None)
                ),
            ));
        }
        return Ok((qrels, settings));
    };
    if crate::benchmarks::card()
        .find(&id)
        .is_some_and(|b| !b.parts.is_empty())
    {
        let cached = irds::home()
            .ok_or(IrdsError::NoHome)
            .and_then(|home| {
                irds::resolve_parts(&id, &home, fetching.is_some())
                    .unwrap_or_else(|| Err(IrdsError::Unknown { id: id.clone() }))
            })
            .map_err(|error| invalid(&qrels.from, error.to_string()))?;
        if let Some(card) = named
            && card.id != cached.benchmark.id
        {
            return Err(invalid(
                &settings.official_from,
                format!(
                    "names {}, but the qrels are {}'s: give one benchmark",
                    card.id, cached.benchmark.id
                ),
            ));
        }
        settings.known = Some(cached.benchmark);
        if official.is_some() {
            settings.official = Some(cached.benchmark);
        }
        for (_, part, input) in &cached.parts {
            if let Some(dua) = input.dua_shown {
                settings.notes.push(format!("{part}: {dua}"));
            }
        }
        let first = cached.parts.first().map(|(_, _, c)| c.input.clone());
        settings.parts = Some(cached);
        return Ok((
            first.map(|input| Given::new(input, qrels.from.clone())),
            settings,
        ));
    }
    let cached = irds::cached(&format!("{}{id}", irds::PREFIX), fetching.is_some())
        .unwrap_or(Err(IrdsError::Unknown { id }))
        .map_err(|error| invalid(&qrels.from, error.to_string()))?;
    if let Some(card) = named
        && card.id != cached.benchmark.id
    {
        return Err(invalid(
            &settings.official_from,
            format!(
                "names {}, but the qrels are {}'s: give one benchmark",
                card.id, cached.benchmark.id
            ),
        ));
    }
    settings.known = Some(cached.benchmark);
    if official.is_some() {
        settings.official = Some(cached.benchmark);
    }
    if let Some(dua) = cached.dua_shown {
        settings
            .notes
            .push(format!("{}: {dua}", cached.benchmark.id));
    }
    Ok((Some(Given::new(cached.input, qrels.from.clone())), settings))
}

/// The longest title, in characters: a heading, not a paragraph.
pub const MAX_TITLE: usize = 200;

/// The report's title `given`, trimmed: printable on one line, not blank,
/// at most [`MAX_TITLE`] characters.
fn report_title(given: Given<String>) -> Result<String, SpecError> {
    let title = given.value.trim();
    if title.is_empty() || title.chars().any(char::is_control) {
        return Err(invalid(
            &given.from,
            "a title cannot be blank nor hold a tab, newline or other control character",
        ));
    }
    let length = title.chars().count();
    if length > MAX_TITLE {
        return Err(invalid(
            &given.from,
            format!("the title has {length} characters; at most {MAX_TITLE} make a heading"),
        ));
    }
    Ok(title.to_owned())
}

/// The score threshold `given`, which must be finite.
pub fn score_threshold_of(given: &Given<f64>) -> Result<ScoreThreshold, SpecError> {
    ScoreThreshold::try_from(given.value).map_err(|reason| invalid(&given.from, reason))
}

/// Checks the tie rule `given` against `metrics`: `average` needs metrics
/// with a closed form, and a metric's own `ties` must order the lists the
/// same way.
pub fn check_metric_ties(
    metrics: &[Box<dyn Metric>],
    given: &Given<Ties>,
) -> Result<(), SpecError> {
    check_ties(metrics, given.value).map_err(|reason| invalid(&given.from, reason))
}

/// The relevance level `given`, which must be a positive grade.
pub fn relevance_level(given: &Given<f64>) -> Result<RelevanceLevel, SpecError> {
    RelevanceLevel::new(given.value).ok_or_else(|| {
        invalid(
            &given.from,
            if given.value > 0.0 {
                "the relevance level is too large: the largest grade is 2147483647"
            } else {
                "the relevance level must be a positive grade (grades of 0 and below are never \
                 relevant)"
            },
        )
    })
}

/// Refuses one file given as two runs (by its identity on disk: `./x`
/// and `x`, a link): it would be evaluated and compared with itself.
fn refuse_repeated_runs(runs: &[RunRequest]) -> Result<(), SpecError> {
    // Runs in memory are no files.
    let files: Vec<&RunRequest> = runs.iter().filter(|r| r.input.path().is_some()).collect();
    let paths: Vec<&Path> = files.iter().filter_map(|r| r.input.path()).collect();
    let Some((first, second)) = crate::files::first_repeat(paths.iter().copied()) else {
        return Ok(());
    };
    let index = |path: &Path| paths.iter().position(|p| *p == path).unwrap_or_default();
    let (first, second) = (
        files[index(first)],
        files[paths.iter().rposition(|p| *p == second).unwrap_or_default()],
    );
    Err(match (&first.from, &second.from) {
        (Origin::Flag { .. }, Origin::Flag { .. }) if first.written == second.written => {
            SpecError::Bare(format!(
                "--run {} is given twice; give each run once",
                second.written.display()
            ))
        }
        (Origin::Flag { .. }, Origin::Flag { .. }) => SpecError::Bare(format!(
            "--run {} is the same file as --run {}; give each run once",
            second.written.display(),
            first.written.display()
        )),
        (_, from) => invalid(
            from,
            format!(
                "{} is the same file as {}; give each run once",
                second.written.display(),
                first.written.display()
            ),
        ),
    })
}

/// Each run under its report name (`rankeval::naming`), with its origin.
fn named_runs(requests: Vec<RunRequest>) -> Result<Vec<(NamedRun, Origin)>, SpecError> {
    let given: Vec<GivenRun> = requests
        .iter()
        .map(|r| GivenRun {
            name: r.name.as_ref().map(|n| n.value.clone()),
            path: r.written.clone(),
        })
        .collect();
    let names = name_runs(&given).map_err(|error| {
        let name_origin = |index: usize| {
            let run = &requests[index];
            run.name
                .as_ref()
                .map_or_else(|| run.from.clone(), |n| n.from.clone())
        };
        match error {
            NameError::Unprintable { index } => invalid(&name_origin(index), error.to_string()),
            NameError::Clash {
                first,
                second,
                ref name,
            } => match (name_origin(first), name_origin(second)) {
                (Origin::Flag { .. }, Origin::Flag { .. }) => SpecError::Bare(format!(
                    "{} and {} are both named `{name}`; name them with NAME=FILE",
                    requests[first].from, requests[second].from
                )),
                (_, from) => invalid(
                    &from,
                    format!(
                        "another run is already named `{name}`; give each run its own {}",
                        from.option("name", None)
                    ),
                ),
            },
        }
    })?;
    Ok(requests
        .into_iter()
        .zip(names)
        .map(|(run, name)| {
            (
                NamedRun {
                    name,
                    input: run.input,
                },
                run.from,
            )
        })
        .collect())
}

/// The systems: each system's run files (glob patterns expanded, in byte
/// order of their paths) added to `runs` as `SYSTEM/FILE-STEM`.
fn systems(
    requests: Vec<SystemRequest>,
    runs: &mut Vec<(NamedRun, Origin)>,
) -> Result<Vec<SystemSpec>, SpecError> {
    let mut systems: Vec<SystemSpec> = Vec::with_capacity(requests.len());
    let mut names: HashMap<String, usize> = runs
        .iter()
        .enumerate()
        .map(|(i, (r, _))| (r.name.clone(), i))
        .collect();
    let mut origins: Vec<Origin> = Vec::with_capacity(requests.len());
    for (index, request) in requests.into_iter().enumerate() {
        let name = request.name.value.trim().to_owned();
        let from = &request.name.from;
        if name.is_empty() || name.chars().any(char::is_control) || name.contains('/') {
            return Err(invalid(
                from,
                "a system name cannot be empty nor hold `/` or a control character",
            ));
        }
        if let Some(first) = systems.iter().position(|s| s.name == name) {
            return Err(invalid(
                from,
                match (&origins[first], from) {
                    (Origin::Key { key, line, .. }, Origin::Key { .. }) => format!(
                        "the system name `{name}` is given twice: {key} (line {line}) has it \
                         too; give each system a name of its own"
                    ),
                    (Origin::Flag { .. }, Origin::Flag { .. }) => format!(
                        "the system name `{name}` is given twice (system {} is {}, this is \
                         system {}): give each system a name of its own",
                        first + 1,
                        origins[first],
                        index + 1
                    ),
                    (other, _) => format!(
                        "the system name `{name}` is given twice: {other} has it too; give \
                         each system a name of its own"
                    ),
                },
            ));
        }
        let runs_from = &request.patterns.from;
        let files =
            system_files(&name, &request.base, &request.patterns.value).map_err(|reason| {
                invalid(
                    runs_from,
                    if reason.contains("matches no file") && runs_from.is_file() {
                        format!("{reason} (relative to the experiment file)")
                    } else {
                        reason
                    },
                )
            })?;
        let stems = run_names(&files);
        let mut members = Vec::with_capacity(files.len());
        for (file, stem) in files.iter().zip(stems) {
            let run = format!("{name}/{stem}");
            if names.insert(run.clone(), runs.len()).is_some() {
                return Err(invalid(
                    runs_from,
                    format!("two runs are named `{run}`: give the files distinct names"),
                ));
            }
            runs.push((
                NamedRun {
                    name: run.clone(),
                    input: match request.format {
                        Some(format) => Input::file(file).with_format(format),
                        None => Input::file(file),
                    }
                    .with_columns(request.columns.clone()),
                },
                runs_from.clone(),
            ));
            members.push(run);
        }
        origins.push(from.clone());
        systems.push(SystemSpec {
            name,
            runs: members,
        });
    }
    Ok(systems)
}

/// The label propensities asked for: a label-frequency table with its
/// number of training instances, or inverse propensities; refuses a table
/// without its count, a count without its table, and both kinds at once
/// (`rankeval explain` checks its flags here too).
pub fn propensity_source(
    corpus: &CorpusRequest,
) -> Result<Option<(PathBuf, crate::read::propensity::PropensityTable)>, SpecError> {
    use crate::corpus::propensity_input::{COUNTS_FLAG, COUNTS_KEY, INSTANCES_FLAG, INSTANCES_KEY};
    use crate::read::propensity::PropensityTable;
    // How a front end names an input: its flag, TOML key or keyword.
    let named = |from: &Origin, flag: &str, key: &str| match from {
        Origin::Flag { .. } => flag.to_owned(),
        Origin::Key { .. } => format!("`{key}`"),
        Origin::Keyword { .. } => format!("{key}="),
    };
    match (
        &corpus.label_counts,
        &corpus.train_instances,
        &corpus.inverse_propensities,
    ) {
        (None, None, None) => Ok(None),
        (Some(counts), _, Some(inverse)) => Err(invalid(
            &inverse.from,
            format!(
                "give label frequencies ({}) or inverse propensities, not both",
                named(&counts.from, COUNTS_FLAG, COUNTS_KEY)
            ),
        )),
        (Some(counts), Some(instances), None) => {
            if instances.value == 0 {
                return Err(invalid(
                    &instances.from,
                    "the number of training instances must be at least 1 (the propensity model \
                     takes its log)"
                        .to_owned(),
                ));
            }
            Ok(Some((
                counts.value.clone(),
                PropensityTable::Counts {
                    instances: instances.value,
                },
            )))
        }
        (Some(counts), None, None) => Err(invalid(
            &counts.from,
            format!(
                "needs the number of training instances N the counts are out of: give {}",
                named(&counts.from, &format!("{INSTANCES_FLAG} N"), INSTANCES_KEY)
            ),
        )),
        (None, Some(instances), _) => Err(invalid(
            &instances.from,
            format!(
                "is the number of training instances of label frequencies, which are not given ({})",
                named(&instances.from, COUNTS_FLAG, COUNTS_KEY)
            ),
        )),
        (None, None, Some(inverse)) => Ok(Some((inverse.value.clone(), PropensityTable::Inverse))),
    }
}

/// Refuses `metric` when an input it [requires](rankeval_core::Metric::requires)
/// is not given, naming the metric and the option that gives the input as
/// the front end that asked for the metric writes it: one rule for every
/// requirement and every front end (Spark's evaluator calls it too).
pub fn check_requirements(
    metric: &dyn rankeval_core::Metric,
    from: &Origin,
    inputs: &CorpusSources,
) -> Result<(), SpecError> {
    use rankeval_core::Requirement;
    for &requirement in metric.requires() {
        let (flag, key, what) = match requirement {
            Requirement::Subtopics if inputs.subtopics.is_none() => {
                use crate::corpus::subtopic_input::{FLAG, KEY, WHAT};
                (format!("{FLAG} FILE"), format!("`{KEY} = \"FILE\"`"), WHAT)
            }
            Requirement::Propensities if inputs.propensities.is_none() => {
                use crate::corpus::propensity_input::{
                    COUNTS_FLAG, COUNTS_KEY, INSTANCES_FLAG, INSTANCES_KEY, INVERSE_FLAG,
                    INVERSE_KEY, WHAT,
                };
                (
                    format!("{COUNTS_FLAG} FILE {INSTANCES_FLAG} N, or {INVERSE_FLAG} FILE"),
                    format!(
                        "`{COUNTS_KEY} = \"FILE\"` with `{INSTANCES_KEY} = N`, or `{INVERSE_KEY} = \"FILE\"`"
                    ),
                    WHAT,
                )
            }
            Requirement::DocumentGroups if inputs.doc_groups.is_none() => {
                use crate::corpus::doc_groups_input::{FLAG, KEY, WHAT};
                (format!("{FLAG} FILE"), format!("`{KEY} = \"FILE\"`"), WHAT)
            }
            Requirement::GroupTargets if inputs.group_targets.is_none() => {
                use crate::corpus::group_targets_input::{FLAG, KEY, WHAT};
                (format!("{FLAG} FILE"), format!("`{KEY} = \"FILE\"`"), WHAT)
            }
            _ => continue,
        };
        return Err(invalid(
            from,
            match from {
                Origin::Flag { .. } => format!("{} needs {flag}: {what}", metric.name()),
                Origin::Key { .. } => format!(
                    "{} needs {what}: add {key} at the top of the file",
                    metric.name()
                ),
                Origin::Keyword { .. } => {
                    let keywords = key.replace("`", "").replace(" = ", "=");
                    format!("{} needs {what}: give {keywords}", metric.name())
                }
            },
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{CompareRequest, CorpusRequest, IntervalKind};

    /// A spec of one run file in `dir`, nothing else given, from `whole`.
    fn spec(dir: &Path, whole: Origin) -> ExperimentSpec {
        let run = dir.join("run.trec");
        std::fs::write(&run, "q1 Q0 d1 1 1 t\n").unwrap();
        let qrels = dir.join("qrels.txt");
        std::fs::write(&qrels, "q1 0 d1 1\n").unwrap();
        ExperimentSpec {
            qrels: Some(Given::new(Input::file(&qrels), whole.clone())),
            runs: vec![RunRequest {
                input: Input::file(&run),
                written: run.clone(),
                name: None,
                from: whole.clone(),
            }],
            whole,
            systems: Vec::new(),
            metrics: None,
            aggregators: None,
            corpus: CorpusRequest::default(),
            groups: None,
            turns: None,
            per_conversation: None,
            missing: None,
            rel: None,
            ties: None,
            score_threshold: None,
            judged_only: None,
            bounds: None,
            duplicates: None,
            allow_empty_run: None,
            samples: None,
            compare: CompareRequest::default(),
            title: None,
            record: Default::default(),
            benchmark: BenchmarkRequest::default(),
        }
    }

    fn message(spec: ExperimentSpec) -> String {
        resolve(spec).map(|_| ()).unwrap_err().to_string()
    }

    #[test]
    fn one_rule_speaks_each_front_ends_words() {
        let dir = tempfile::tempdir().unwrap();
        let origins = [
            (Origin::flag("--rel", 0), "--rel 0: "),
            (Origin::key("e.toml", 3, "rel"), "e.toml:3: rel: "),
            (Origin::keyword("rel", 0), "rel=0: "),
        ];
        for (origin, prefix) in origins {
            let mut spec = spec(dir.path(), origin.clone());
            spec.rel = Some(Given::new(0.0, origin));
            assert_eq!(
                message(spec),
                format!(
                    "{prefix}the relevance level must be a positive grade (grades of 0 and \
                     below are never relevant)"
                )
            );
        }
        // A rule naming another option names it as the front end does.
        for (origin, needs) in [
            (Origin::bare_flag("--per-conversation"), "needs --turns SEP"),
            (
                Origin::key("e.toml", 4, "per_conversation"),
                "needs `turns`",
            ),
            (Origin::keyword("per_conversation", "True"), "needs turns="),
        ] {
            let mut spec = spec(dir.path(), origin.clone());
            spec.per_conversation = Some(Given::new(true, origin));
            let text = message(spec);
            assert!(text.contains(needs), "{text}");
        }
    }

    #[test]
    fn the_jackknife_rule_is_checked_once_for_every_front_end() {
        let dir = tempfile::tempdir().unwrap();
        for (origin, reason) in [
            (Origin::flag("--jackknife-groups", 1), "give at least 2"),
            (
                Origin::key("e.toml", 7, "compare.jackknife_groups"),
                "must be at least 2",
            ),
            (Origin::keyword("jackknife_groups", 1), "give at least 2"),
        ] {
            let mut spec = spec(dir.path(), origin.clone());
            spec.compare.baseline = Some(Given::new(
                crate::spec::BaselineRequest::Run("run".into()),
                origin.clone(),
            ));
            spec.compare.interval = Some(Given::new(IntervalKind::Jackknife, origin.clone()));
            spec.compare.jackknife_groups = Some(Given::new(1, origin.clone()));
            assert_eq!(message(spec), format!("{origin}: {reason}"));
        }
    }

    #[test]
    fn one_file_as_two_runs_and_bad_titles_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let from = Origin::key("e.toml", 9, "runs[2].path");
        let mut twice = spec(dir.path(), from.clone());
        let again = RunRequest {
            input: Input::file(dir.path().join("./run.trec")),
            written: PathBuf::from("./run.trec"),
            name: Some(Given::new("other".into(), from.clone())),
            from,
        };
        twice.runs.push(again);
        let text = message(twice);
        assert!(
            text.starts_with("e.toml:9: runs[2].path: ./run.trec is the same file as"),
            "{text}"
        );
        for (title, reason) in [
            (" ", "a title cannot be blank"),
            (
                "a\u{7}b",
                "a title cannot be blank nor hold a tab, newline or other control",
            ),
            (
                &"é".repeat(201),
                "the title has 201 characters; at most 200",
            ),
        ] {
            let mut spec = spec(dir.path(), Origin::keyword("title", "x"));
            spec.title = Some(Given::new(title.to_owned(), Origin::keyword("title", "x")));
            let text = message(spec);
            assert!(text.contains(reason), "{text}");
        }
        let mut titled = spec(dir.path(), Origin::keyword("title", "x"));
        titled.title = Some(Given::new(
            "  Weekly  ".into(),
            Origin::keyword("title", "x"),
        ));
        assert_eq!(resolve(titled).unwrap().title.as_deref(), Some("Weekly"));
    }
}
