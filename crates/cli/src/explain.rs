//! `rankeval explain`: one query's ranked list and each metric's terms and
//! formula, from flags or from a TOML experiment.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use rankeval_core::registry;
use rankeval_core::{Duplicates, Metric, RelevanceLevel};

use super::CliError;
use super::eval::{CsvArgs, DuplicatesArg, InputArgs, MissingArg, TiesArg};
use rankeval::engine::{Missing, Options, ScoreThreshold, check_ties, has_scores, unscored_run};
use rankeval::experiment::{DEFAULT_METRICS, input_problem};
use rankeval::explain::{explain, explain_sampled};
use rankeval::naming::run_names;
use rankeval::read::{CsvOptions, Input, ReadOptions, read_qrels, read_run_with};
use rankeval::spec::Origin;
use rankeval_report::explain::{ExplainFormat, render_runs};

/// Arguments of `rankeval explain`.
#[derive(Debug, Args)]
pub(super) struct ExplainArgs {
    /// A TOML experiment: its qrels, runs, metrics and options (flags given
    /// here override them).
    #[arg(value_name = "EXPERIMENT.toml")]
    experiment: Option<PathBuf>,
    /// Qrels file. Optional for a JSON Lines run with `relevant`, and with
    /// an experiment.
    #[arg(long, value_name = "FILE")]
    qrels: Option<PathBuf>,
    /// Subtopic judgements for the diversity metrics (`query subtopic doc
    /// grade`, as eval's --subtopic-qrels) [default: the experiment's].
    #[arg(long, value_name = "FILE")]
    subtopic_qrels: Option<PathBuf>,
    /// Document groups for awrf and trec_fair (lines `doc group [weight]`
    /// or a table with columns doc, group[, weight], as eval's
    /// --doc-groups) [default: the experiment's].
    #[arg(long, value_name = "FILE")]
    doc_groups: Option<PathBuf>,
    /// Each query's target over the document groups for
    /// awrf(target=given) (a table with columns query, group, share, as
    /// eval's --group-targets) [default: the experiment's].
    #[arg(long, value_name = "FILE")]
    group_targets: Option<PathBuf>,
    /// Every run is a sampled run, several rankings per query (as eval's
    /// --samples): the table then has a row per document of the query's
    /// samples with its rank in each; expected exposure (ee_d, ee_r, ee_l)
    /// shows each document's exposure and target, every other metric each
    /// sample's value and their mean [default: the experiment's].
    #[arg(long)]
    samples: bool,
    /// Training label frequencies for psp and psndcg (a table `label,count`
    /// in any table format, as eval's --label-counts) [default: the
    /// experiment's].
    #[arg(long, value_name = "FILE")]
    label_counts: Option<PathBuf>,
    /// The number of training instances of --label-counts.
    #[arg(long, value_name = "N")]
    train_instances: Option<u64>,
    /// Inverse propensities for psp and psndcg (a table
    /// `label,inverse_propensity` in any table format, as eval's
    /// --inverse-propensities)
    /// [default: the experiment's].
    #[arg(long, value_name = "FILE")]
    inverse_propensities: Option<PathBuf>,
    /// Run file; with an experiment, the name of one of its runs (needed
    /// when it has several). Repeat to see runs side by side.
    #[arg(long, value_name = "FILE|NAME")]
    run: Vec<String>,
    /// The query to explain.
    #[arg(long, value_name = "ID")]
    query: String,
    /// Metric in the short syntax, e.g. `ap`, `"ap(norm=truncated)@5"`;
    /// repeat to see variants side by side. Default: the experiment's, or
    /// ap, rr, p@10, recall@100, ndcg@10.
    #[arg(short = 'm', long = "metric", value_name = "METRIC")]
    metrics: Vec<String>,
    /// Default relevance level (grades of at least N are relevant) [default:
    /// the experiment's, or 1].
    #[arg(long, value_name = "N")]
    rel: Option<i32>,
    /// A document repeated in the list: an error, or keep the first
    /// [default: the experiment's, or error].
    #[arg(long, value_enum)]
    duplicates: Option<DuplicatesArg>,
    /// A judged query missing from the run: an error (skip, as eval leaves
    /// it out) or an empty list scored as eval's --missing zero does
    /// [default: the experiment's, or skip].
    #[arg(long, value_enum)]
    missing: Option<MissingArg>,
    /// Tied scores: by document id, in the run's order, or each metric's
    /// expected value over every order of the ties (the table then shows
    /// each rank's tie group) [default: the experiment's, or docid].
    #[arg(long, value_enum)]
    ties: Option<TiesArg>,
    /// Entries scored at or below T are not retrieved, as eval's
    /// --score-threshold [default: the experiment's, or none].
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    score_threshold: Option<f64>,
    /// Drop a retrieved document whose id is the query's id before judging,
    /// as eval's --drop-identical-ids (BEIR's convention) [default: the
    /// experiment's, or off].
    #[arg(long)]
    drop_identical_ids: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExplainFormatArg::Table)]
    format: ExplainFormatArg,
    /// Write to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    inputs: InputArgs,
    #[command(flatten)]
    csv: CsvArgs,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ExplainFormatArg {
    /// Aligned tables for a terminal.
    Table,
    /// Markdown tables.
    Markdown,
    /// One JSON document; per-rank terms as arrays.
    Json,
}

/// Runs `rankeval explain`.
pub(super) fn run(args: ExplainArgs) -> Result<(), CliError> {
    let mut subtopic_qrels = args.subtopic_qrels.clone();
    let mut doc_groups = args.doc_groups.clone();
    let mut group_targets = args.group_targets.clone();
    let mut samples = args.samples;
    let mut propensities = explain_propensities(&args)?;
    let (qrels_input, runs, mut metrics, mut options, mut read) = match &args.experiment {
        Some(path) => {
            // The experiment file says how each of its inputs is read.
            let columns_given = args.csv.options()? != CsvOptions::default();
            if let Some(flag) = args
                .inputs
                .given()
                .or(columns_given.then_some("--csv-*/--json-*"))
            {
                return Err(CliError::Usage(format!(
                    "{flag}: {} sets how its inputs are read (`format` and the column keys \
                     of `[qrels]` and `[[runs]]`); give the flag with --qrels and --run files",
                    path.display()
                )));
            }
            let experiment = rankeval::config::load(path)?;
            let names: Vec<&str> = experiment.runs.iter().map(|r| r.name.as_str()).collect();
            let chosen: Vec<(String, Input)> = match &args.run[..] {
                [] if experiment.runs.len() == 1 => vec![(
                    experiment.runs[0].name.clone(),
                    experiment.runs[0].input.clone(),
                )],
                [] => {
                    return Err(CliError::Usage(format!(
                        "{} has {} runs ({}): choose one with --run NAME (repeat --run to see \
                         several side by side)",
                        path.display(),
                        names.len(),
                        names.join(", ")
                    )));
                }
                given => given
                    .iter()
                    .map(|name| {
                        let run = experiment.runs.iter().find(|r| &r.name == name);
                        run.map(|r| (r.name.clone(), r.input.clone()))
                            .ok_or_else(|| {
                                CliError::Usage(format!(
                                    "--run {name}: {} has no run of that name (its runs: {})",
                                    path.display(),
                                    names.join(", ")
                                ))
                            })
                    })
                    .collect::<Result<_, _>>()?,
            };
            if subtopic_qrels.is_none() {
                subtopic_qrels = experiment.corpus_inputs.subtopics.clone();
            }
            if propensities.is_none() {
                propensities = experiment.corpus_inputs.propensities.clone();
            }
            if doc_groups.is_none() {
                doc_groups = experiment.corpus_inputs.doc_groups.clone();
            }
            if group_targets.is_none() {
                group_targets = experiment.corpus_inputs.group_targets.clone();
            }
            samples |= experiment.samples;
            (
                experiment.qrels.clone(),
                chosen,
                experiment.metrics,
                experiment.options,
                experiment.read,
            )
        }
        None => {
            if args.run.is_empty() {
                return Err(CliError::Usage(
                    "--run FILE is required (or give an experiment file)".into(),
                ));
            }
            let paths: Vec<PathBuf> = args.run.iter().map(PathBuf::from).collect();
            for path in args
                .qrels
                .iter()
                .chain(&paths)
                .chain(&subtopic_qrels)
                .chain(&doc_groups)
                .chain(&group_targets)
            {
                if let Some(problem) = input_problem(path) {
                    return Err(CliError::Usage(format!("{}: {problem}", path.display())));
                }
            }
            let defaults = DEFAULT_METRICS
                .iter()
                .map(|m| registry::parse_metric(m))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|source| CliError::Plugin {
                    flag: "-m",
                    value: DEFAULT_METRICS.join(" "),
                    source: Box::new(source),
                })?;
            let inputs = args.inputs.settings(&args.csv)?;
            let runs = run_names(&paths)
                .into_iter()
                .zip(&paths)
                .map(|(name, path)| (name, inputs.run(path)))
                .collect();
            (
                args.qrels.as_deref().map(|path| inputs.qrels(path)),
                runs,
                defaults,
                Options::default(),
                ReadOptions::default(),
            )
        }
    };
    let mut seen = std::collections::HashSet::new();
    if let Some((name, _)) = runs.iter().find(|(name, _)| !seen.insert(name.clone())) {
        return Err(CliError::Usage(format!(
            "--run {name} is given twice: give each run once"
        )));
    }
    if !args.metrics.is_empty() {
        // Every bad -m is reported at once, as `eval` reports them.
        let (built, bad): (Vec<_>, Vec<_>) = args
            .metrics
            .iter()
            .map(|spec| {
                registry::parse_metric(spec).map_err(|source| {
                    match registry::parse_corpus_metric(spec) {
                        Ok(corpus) => CliError::Usage(format!(
                            "-m {spec}: {} is a corpus metric (one value for the whole run): \
                             explain shows one query; use `rankeval eval`",
                            corpus.name()
                        )),
                        Err(_) => CliError::Plugin {
                            flag: "-m",
                            value: spec.clone(),
                            source: Box::new(source),
                        },
                    }
                })
            })
            .partition(Result::is_ok);
        if !bad.is_empty() {
            return Err(CliError::all(
                bad.into_iter().filter_map(Result::err).collect(),
            ));
        }
        metrics = built
            .into_iter()
            .filter_map(Result::ok)
            .collect::<Vec<Box<dyn Metric>>>();
    }
    if let Some(rel) = args.rel {
        options.level = RelevanceLevel::new(rel).ok_or_else(|| {
            CliError::Usage(format!(
                "--rel {rel}: the relevance level must be at least 1 (grades of 0 and below are never relevant)"
            ))
        })?;
    }
    if let Some(missing) = args.missing {
        options.missing = match missing {
            MissingArg::Skip => Missing::Skip,
            MissingArg::Zero => Missing::Zero,
        };
    }
    if let Some(duplicates) = args.duplicates {
        read.duplicates = match duplicates {
            DuplicatesArg::Error => Duplicates::Error,
            DuplicatesArg::First => Duplicates::First,
        };
    }
    if let Some(ties) = args.ties {
        options.ties = ties.ties();
        read.ties = ties.ties();
    }
    check_ties(&metrics, options.ties)
        .map_err(|reason| CliError::Usage(format!("--ties {}: {reason}", options.ties)))?;
    options.drop_identical_ids |= args.drop_identical_ids;
    if let Some(value) = args.score_threshold {
        let usage =
            |reason: String| CliError::Usage(format!("--score-threshold {value}: {reason}"));
        options.score_threshold = Some(ScoreThreshold::try_from(value).map_err(usage)?);
    }
    let unscored = runs.iter().find(|(_, input)| !has_scores(input.format()));
    if let (Some(_), Some((_, input))) = (options.score_threshold, unscored) {
        return Err(CliError::Usage(format!(
            "--score-threshold: {}",
            unscored_run(input.name())
        )));
    }
    if subtopic_qrels.is_none()
        && let Some(metric) = metrics.iter().find(|m| m.reads_subtopics())
    {
        return Err(CliError::Usage(format!(
            "{} needs --subtopic-qrels FILE: subtopic judgements (lines `query subtopic doc grade`)",
            metric.name()
        )));
    }
    if doc_groups.is_none()
        && let Some(metric) = metrics.iter().find(|m| m.reads_groups())
    {
        use rankeval::corpus::doc_groups_input::{FLAG, WHAT};
        return Err(CliError::Usage(format!(
            "{} needs {FLAG} FILE: {WHAT}",
            metric.name()
        )));
    }
    if group_targets.is_none()
        && let Some(metric) = metrics.iter().find(|m| {
            m.requires()
                .contains(&rankeval::core::Requirement::GroupTargets)
        })
    {
        use rankeval::corpus::group_targets_input::{FLAG, WHAT};
        return Err(CliError::Usage(format!(
            "{} needs {FLAG} FILE: {WHAT}",
            metric.name()
        )));
    }
    if samples {
        // The experiment's `samples = true` was checked with its own
        // metrics and ties; explain's flags may change them.
        let from = match &args.experiment {
            Some(path) if !args.samples => {
                Origin::bare_flag(format!("{} (samples = true)", path.display()))
            }
            _ => Origin::bare_flag("--samples"),
        };
        rankeval::spec::check_sampled(&from, &metrics, options.ties)
            .map_err(|e| CliError::Usage(e.to_string()))?;
    }
    if propensities.is_none()
        && let Some(metric) = metrics.iter().find(|m| {
            m.requires()
                .contains(&rankeval::core::Requirement::Propensities)
        })
    {
        use rankeval::corpus::propensity_input::{COUNTS_FLAG, INSTANCES_FLAG, INVERSE_FLAG, WHAT};
        return Err(CliError::Usage(format!(
            "{} needs {COUNTS_FLAG} FILE {INSTANCES_FLAG} N, or {INVERSE_FLAG} FILE: {WHAT}",
            metric.name()
        )));
    }
    let sources = rankeval::corpus::CorpusSources {
        subtopics: subtopic_qrels.clone(),
        doc_groups,
        group_targets,
        propensities,
        ..Default::default()
    };
    let subtopics = sources.read_subtopics(&metrics)?;
    let groups = sources.read_doc_groups(&metrics)?;
    let label_propensities = sources.read_propensities(&metrics)?;
    let with_subtopics = |qrels: rankeval::core::Qrels| {
        let qrels = match &subtopics {
            Some(subtopics) => qrels.with_subtopics(std::sync::Arc::clone(subtopics)),
            None => qrels,
        };
        match &groups {
            Some(groups) => qrels.with_doc_groups(std::sync::Arc::clone(groups)),
            None => qrels,
        }
    };
    // And the per-document facts (label propensities, the documents judged
    // for any query) the metrics require.
    let with_facts = |qrels: rankeval::core::Qrels| {
        sources.with_documents(with_subtopics(qrels), &metrics, label_propensities.as_ref())
    };
    let shared_qrels = match (&qrels_input, &subtopics, &subtopic_qrels) {
        (Some(input), _, _) => Some((with_facts(read_qrels(input)?)?, input.name().to_owned())),
        // Subtopic judgements alone: each document with its highest grade.
        (None, Some(judgements), Some(path)) => {
            let name = path.display().to_string();
            let qrels = judgements
                .document_qrels()
                .map_err(|e| CliError::Usage(format!("{name}: {e}")))?;
            Some((with_facts(qrels)?, name))
        }
        _ => None,
    };
    let mut explanations = Vec::with_capacity(runs.len());
    for (run_name, run_input) in &runs {
        if samples {
            let Some((qrels, qrels_name)) = &shared_qrels else {
                return Err(CliError::Usage(
                    "--qrels is required with --samples (a sampled run holds no judgements)".into(),
                ));
            };
            let sampled = rankeval::read::sampled::read_sampled_input(run_input, read)
                .map_err(rankeval::read::ReadError::from)?;
            let explanation = explain_sampled(
                qrels,
                qrels_name,
                &sampled,
                run_name,
                &args.query,
                &metrics,
                &options,
            )
            .map_err(|error| CliError::Usage(error.to_string()))?;
            explanations.push(explanation);
            continue;
        }
        let (run, own_qrels) = read_run_with(run_input, read, &|_| {})?;
        let own;
        let (qrels, qrels_name) = match (&shared_qrels, own_qrels) {
            (Some((qrels, name)), _) => (qrels, name.as_str()),
            (None, Some(qrels)) => {
                own = with_facts(qrels)?;
                (&own, run_input.name())
            }
            (None, None) => {
                return Err(CliError::Usage(format!(
                    "--qrels is required: {} holds no judgements (`relevant`)",
                    run_input.name()
                )));
            }
        };
        let explanation = explain(
            qrels,
            qrels_name,
            &run,
            run_name,
            &args.query,
            &metrics,
            &options,
        )
        .map_err(|error| CliError::Usage(error.to_string()))?;
        explanations.push(explanation);
    }
    let format = match args.format {
        ExplainFormatArg::Table => ExplainFormat::Table,
        ExplainFormatArg::Markdown => ExplainFormat::Markdown,
        ExplainFormatArg::Json => ExplainFormat::Json,
    };
    super::output::write(&render_runs(&explanations, format), args.output.as_deref())
}

/// The label propensities explain's flags give, checked as eval's are
/// (`rankeval::spec::propensity_source`).
fn explain_propensities(
    args: &ExplainArgs,
) -> Result<Option<(PathBuf, rankeval::read::propensity::PropensityTable)>, CliError> {
    use rankeval::spec::{CorpusRequest, Given, Origin};
    let request = CorpusRequest {
        label_counts: args.label_counts.clone().map(|p| {
            let from = Origin::flag("--label-counts", p.display());
            Given::new(p, from)
        }),
        train_instances: args
            .train_instances
            .map(|n| Given::new(n, Origin::flag("--train-instances", n))),
        inverse_propensities: args.inverse_propensities.clone().map(|p| {
            let from = Origin::flag("--inverse-propensities", p.display());
            Given::new(p, from)
        }),
        ..Default::default()
    };
    rankeval::spec::propensity_source(&request).map_err(|e| CliError::Usage(e.to_string()))
}
