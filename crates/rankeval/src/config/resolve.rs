//! From the raw TOML to a resolved [`Experiment`]: paths relative to the
//! experiment file, files checked to exist, metrics and aggregators built
//! through the registry (the same path as the short syntax), defaults filled
//! in. Nothing here reads the data.

use std::path::{Path, PathBuf};

use rankeval_core::registry::{self, Plugin};
use rankeval_core::{
    Aggregator, CorpusMetric, Metric, ParamValue, PluginError, RequestedMetric, Ties,
};
use toml::Spanned;

use super::raw::{
    RawBaseline, RawExperiment, RawGate, RawMargin, RawPlugin, RawPluginEntry, RawQrels, RawValue,
};
use super::{ConfigError, read_config};
use crate::compare::{
    CompareRunError, GateSpec, RULES, Settings, check_gates, parse_margin, rule_name,
};
use crate::corpus::CorpusSources;
use crate::engine::{Options, check_ties, has_scores, unscored_run};
use crate::experiment::BOUNDS_WITH_COMPARISON;
use crate::experiment::{
    BaselineRef, ComparisonPlan, DEFAULT_METRICS, Experiment, InputProblem, NamedRun, SystemSpec,
    input_problem, metric_note, split_requested, unique_by_name, unique_notes,
};
use crate::read::{CsvOptions, Format, Input, ReadOptions};
use rankeval_compare::{Gate, Margin};
use rankeval_core::completion::with_bounds;
use rankeval_core::judged_only::judged_only;

/// Loads and resolves the experiment file at `path`.
pub fn load(path: &Path) -> Result<Experiment, ConfigError> {
    load_bytes(path, read_config(path)?)
}

/// Resolves the experiment file at `path`, already read as `bytes`.
pub(crate) fn load_bytes(path: &Path, bytes: Vec<u8>) -> Result<Experiment, ConfigError> {
    let name = path.display().to_string();
    let text = String::from_utf8(bytes).map_err(|e| {
        let before = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        ConfigError::NotUtf8 {
            path: name.clone(),
            line: 1 + memchr::memchr_iter(b'\n', before).count() as u64,
        }
    })?;
    let raw: RawExperiment = toml::from_str(&text).map_err(|source| {
        // A suite file where an experiment file is expected (one of several
        // files of `rankeval run`, or a suite's experiment).
        if let Some(line) = super::suite_file::suite_line(&text) {
            return ConfigError::Invalid {
                path: name.clone(),
                line,
                key: "experiments".to_owned(),
                reason: format!(
                    "this is a suite file, where an experiment file is expected: {}",
                    super::suite_file::SUITE_IN_SUITE
                ),
            };
        }
        if source.span().is_none()
            && source.message().contains("recursion limit")
            && let Some((line, parts)) = deepest_key(&text)
        {
            return ConfigError::KeyTooDeep {
                path: name.clone(),
                line,
                parts,
            };
        }
        ConfigError::Toml {
            path: name.clone(),
            source,
        }
    })?;
    let base = path.parent().unwrap_or(Path::new(""));
    Resolver {
        path: &name,
        newlines: memchr::memchr_iter(b'\n', text.as_bytes()).collect(),
        base,
    }
    .resolve(raw)
}

/// The line of the key with the most dotted parts (the part of a line
/// before `=`, or a `[table]` header), and its number of parts: where the
/// toml parser's "recursion limit", which comes without a position, is.
fn deepest_key(text: &str) -> Option<(usize, usize)> {
    text.lines()
        .enumerate()
        .map(|(index, line)| {
            let key = line.split('=').next().unwrap_or_default();
            (index + 1, key.matches('.').count() + 1)
        })
        .max_by_key(|&(line, parts)| (parts, std::cmp::Reverse(line)))
        .filter(|&(_, parts)| parts > 1)
}

struct Resolver<'a> {
    path: &'a str,
    /// The byte offset of every newline of the file, in order: a line
    /// number is found by binary search, so that naming the line of each of
    /// 40,000 `[[runs]]` stays linear in the file, not quadratic.
    newlines: Vec<usize>,
    base: &'a Path,
}

impl Resolver<'_> {
    fn line<T>(&self, spanned: &Spanned<T>) -> usize {
        let start = spanned.span().start;
        self.newlines.partition_point(|&newline| newline < start) + 1
    }

    /// The `[[systems]]` tables: each system's run files (glob patterns
    /// expanded, in byte order of their paths) added to `runs` as
    /// `SYSTEM/FILE-STEM`, and the systems.
    fn systems(
        &self,
        raw: &RawExperiment,
        csv: &CsvOptions,
        runs: &mut Vec<NamedRun>,
        names: &mut std::collections::HashSet<String>,
    ) -> Result<Vec<SystemSpec>, ConfigError> {
        let mut systems = Vec::with_capacity(raw.systems.len());
        for (index, system) in raw.systems.iter().enumerate() {
            let key = format!("systems[{}]", index + 1);
            let table = system.get_ref();
            let name = table.name.get_ref().trim().to_owned();
            if name.is_empty() || name.chars().any(char::is_control) || name.contains('/') {
                return Err(self.invalid(
                    &table.name,
                    format!("{key}.name"),
                    "a system name cannot be empty nor hold `/` or a control character",
                ));
            }
            if let Some(first) = systems.iter().position(|s: &SystemSpec| s.name == name) {
                return Err(self.invalid(
                    &table.name,
                    format!("{key}.name"),
                    format!(
                        "the system name `{name}` is given twice: systems[{}].name (line {}) has \
                         it too; give each system a name of its own",
                        first + 1,
                        self.line(&raw.systems[first].get_ref().name)
                    ),
                ));
            }
            let files = crate::experiment::system_files(&name, self.base, table.runs.get_ref())
                .map_err(|reason| {
                    self.invalid(
                        &table.runs,
                        format!("{key}.runs"),
                        if reason.contains("matches no file") {
                            format!("{reason} (relative to the experiment file)")
                        } else {
                            reason
                        },
                    )
                })?;
            let stems = crate::experiment::run_names(&files);
            let mut members = Vec::with_capacity(files.len());
            for (file, stem) in files.iter().zip(stems) {
                let run = format!("{name}/{stem}");
                if !names.insert(run.clone()) {
                    return Err(self.invalid(
                        &table.runs,
                        format!("{key}.runs"),
                        format!("two runs are named `{run}`: give the files distinct names"),
                    ));
                }
                let columns = self.columns(csv, Vec::new(), &key)?;
                runs.push(NamedRun {
                    name: run.clone(),
                    input: Input::file(file).with_columns(columns),
                });
                members.push(run);
            }
            systems.push(SystemSpec {
                name,
                runs: members,
            });
        }
        Ok(systems)
    }

    fn invalid<T>(
        &self,
        at: &Spanned<T>,
        key: impl Into<String>,
        reason: impl Into<String>,
    ) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.to_owned(),
            line: self.line(at),
            key: key.into(),
            reason: reason.into(),
        }
    }

    /// A file named by `key`, relative to the experiment file, which must
    /// exist and not be a directory (a FIFO or `/dev/stdin` will do).
    fn file(&self, value: &Spanned<String>, key: &str) -> Result<PathBuf, ConfigError> {
        self.file_at(value.get_ref(), self.line(value), key)
    }

    /// [`file`](Self::file) for a path whose key is on `line`.
    fn file_at(&self, value: &str, line: usize, key: &str) -> Result<PathBuf, ConfigError> {
        let file = self.base.join(value);
        match input_problem(&file) {
            None => Ok(file),
            Some(InputProblem::Missing) => Err(ConfigError::MissingFile {
                path: self.path.to_owned(),
                line,
                key: key.to_owned(),
                file,
            }),
            Some(problem) => Err(ConfigError::Invalid {
                path: self.path.to_owned(),
                line,
                key: key.to_owned(),
                reason: format!("{}: {problem}", file.display()),
            }),
        }
    }

    /// The `[csv]` settings with an input's own over them; an error names
    /// the key (`runs[2].query`) and its line.
    fn columns(
        &self,
        base: &CsvOptions,
        given: Vec<(&str, &Spanned<String>)>,
        table: &str,
    ) -> Result<CsvOptions, ConfigError> {
        let mut columns = base.clone();
        for (key, value) in given {
            columns
                .set(key, value.get_ref())
                .map_err(|reason| self.invalid(value, format!("{table}.{key}"), reason))?;
        }
        Ok(columns)
    }

    fn resolve(&self, raw: RawExperiment) -> Result<Experiment, ConfigError> {
        let csv = match &raw.csv {
            Some(options) => {
                options
                    .get_ref()
                    .check()
                    .map_err(|reason| self.invalid(options, "csv.delimiter", reason))?;
                options.get_ref().clone()
            }
            None => CsvOptions::default(),
        };
        let with_format = |input: Input, format: Option<Format>, columns: CsvOptions| {
            let input = match format {
                Some(format) => input.with_format(format),
                None => input,
            };
            input.with_columns(columns)
        };
        let qrels = match &raw.qrels {
            Some(spanned) => Some(match spanned.get_ref() {
                RawQrels::Path(path) => with_format(
                    Input::file(self.file_at(path, self.line(spanned), "qrels")?),
                    raw.qrels_format,
                    csv.clone(),
                ),
                RawQrels::Table(table) => {
                    if raw.qrels_format.is_some() {
                        return Err(self.invalid(
                            spanned,
                            "qrels_format",
                            "give the format once: `format` in the [qrels] table",
                        ));
                    }
                    let columns = self.columns(&csv, table.columns().collect(), "qrels")?;
                    with_format(
                        Input::file(self.file(&table.path, "qrels.path")?),
                        table.format,
                        columns,
                    )
                }
            }),
            None => None,
        };
        if raw.runs.is_empty() && raw.systems.is_empty() {
            return Err(ConfigError::Invalid {
                path: self.path.to_owned(),
                line: 1,
                key: "runs".into(),
                reason: "no [[runs]] table: add one with a `path` for each run to evaluate \
                         (or a [[systems]] table with the `runs` of a system)"
                    .into(),
            });
        }
        let paths: Vec<PathBuf> = raw
            .runs
            .iter()
            .map(|run| PathBuf::from(run.get_ref().path.get_ref()))
            .collect();
        let default_names = crate::experiment::run_names(&paths);
        let mut runs: Vec<NamedRun> = Vec::with_capacity(raw.runs.len());
        // The first run without judgements when there are no qrels.
        let mut unjudged: Option<ConfigError> = None;
        let mut names = std::collections::HashSet::with_capacity(raw.runs.len());
        for (index, (run, default_name)) in raw.runs.iter().zip(default_names).enumerate() {
            let key = format!("runs[{}]", index + 1);
            let table = run.get_ref();
            let file = self.file(&table.path, &format!("{key}.path"))?;
            let name = match &table.name {
                Some(name) if name.get_ref().trim().is_empty() => {
                    return Err(self.invalid(
                        name,
                        format!("{key}.name"),
                        "a run name cannot be empty",
                    ));
                }
                Some(name) if name.get_ref().chars().any(char::is_control) => {
                    return Err(self.invalid(
                        name,
                        format!("{key}.name"),
                        "a run name cannot hold a control character (a newline, a tab): \
                         it would break the report's layout",
                    ));
                }
                Some(name) => name.get_ref().clone(),
                None => default_name,
            };
            if !names.insert(name.clone()) {
                let at = table.name.as_ref().unwrap_or(&table.path);
                return Err(self.invalid(
                    at,
                    format!("{key}.name"),
                    format!("another run is already named `{name}`; give each run its own `name`"),
                ));
            }
            let columns = self.columns(&csv, table.columns().collect(), &key)?;
            let input = with_format(Input::file(&file), table.format, columns);
            // Refused below unless every metric is a corpus metric, which
            // needs no judgements.
            if qrels.is_none() && input.format() != Format::Jsonl && unjudged.is_none() {
                unjudged = Some(self.invalid(
                    &table.path,
                    format!("{key}.path"),
                    "there is no `qrels` key, so every run must be JSON Lines with `relevant` \
                     (only corpus metrics need no judgements)",
                ));
            }
            runs.push(NamedRun { name, input });
        }
        let systems = self.systems(&raw, &csv, &mut runs, &mut names)?;
        for (key, list) in [("metrics", &raw.metrics), ("aggregators", &raw.aggregators)] {
            if let Some(list) = list
                && list.get_ref().is_empty()
            {
                return Err(self.invalid(
                    list,
                    key,
                    format!("the list is empty: give at least one, or leave `{key}` out for the defaults"),
                ));
            }
        }
        let training = match &raw.training {
            Some(spanned) => Some(match spanned.get_ref() {
                RawQrels::Path(path) => with_format(
                    Input::file(self.file_at(path, self.line(spanned), "training")?),
                    None,
                    csv.clone(),
                ),
                RawQrels::Table(table) => {
                    let columns = self.columns(&csv, table.columns().collect(), "training")?;
                    with_format(
                        Input::file(self.file(&table.path, "training.path")?),
                        table.format,
                        columns,
                    )
                }
            }),
            None => None,
        };
        let corpus_inputs = CorpusSources {
            catalog: match &raw.catalog {
                Some(path) => Some(self.file(path, "catalog")?),
                None => None,
            },
            training,
            features: match &raw.item_features {
                Some(path) => Some(self.file(path, "item_features")?),
                None => None,
            },
        };
        let mut notes = Vec::new();
        let (metrics, corpus_metrics) = if let Some(list) = &raw.metrics {
            let mut requested = Vec::with_capacity(list.get_ref().len());
            for (index, table) in list.get_ref().iter().enumerate() {
                let key = format!("metrics[{}]", index + 1);
                let metric = self.requested(table, &key)?;
                if let RequestedMetric::Query(query) = &metric
                    && let Some(note) = typed_name(table.get_ref())
                        .and_then(|typed| metric_note(typed, query.as_ref()))
                {
                    notes.push(note);
                }
                if let RequestedMetric::Corpus(corpus) = &metric
                    && let Some(missing) = corpus_inputs.missing_for(corpus.as_ref())
                {
                    return Err(self.invalid(
                        table,
                        key,
                        format!(
                            "{} needs {}: add `{} = \"FILE\"` at the top of the file",
                            corpus.name(),
                            missing.what(),
                            missing.key()
                        ),
                    ));
                }
                requested.push(metric);
            }
            split_requested(requested)
        } else {
            let metrics = DEFAULT_METRICS
                .iter()
                .map(|spec| registry::parse_metric(spec))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|source| ConfigError::Plugin {
                    path: self.path.to_owned(),
                    line: 1,
                    key: "metrics".into(),
                    source: Box::new(source),
                })?;
            (metrics, Vec::new())
        };
        let aggregators = if let Some(list) = &raw.aggregators {
            self.plugins::<dyn Aggregator>(list.get_ref(), "aggregators")?
        } else {
            vec![
                registry::parse_aggregator("mean").map_err(|source| ConfigError::Plugin {
                    path: self.path.to_owned(),
                    line: 1,
                    key: "aggregators".into(),
                    source: Box::new(source),
                })?,
            ]
        };
        if let Some(error) = unjudged
            && !metrics.is_empty()
        {
            return Err(error);
        }
        let ties = raw.ties.as_ref().map_or(Ties::Docid, |t| *t.get_ref());
        if let Err(reason) = check_ties(&metrics, ties) {
            return Err(match (&raw.ties, &raw.metrics) {
                (Some(at), _) => self.invalid(at, "ties", reason),
                (None, Some(at)) => self.invalid(at, "metrics", reason),
                (None, None) => ConfigError::Invalid {
                    path: self.path.to_owned(),
                    line: 1,
                    key: "ties".into(),
                    reason,
                },
            });
        }
        if let Some(at) = &raw.score_threshold
            && let Some(run) = runs.iter().find(|r| !has_scores(r.input.format()))
        {
            return Err(self.invalid(at, "score_threshold", unscored_run(&run.name)));
        }
        let metrics = match raw.judged_only {
            Some(true) => unique_by_name(metrics.into_iter().map(judged_only).collect()),
            Some(false) | None => unique_by_name(metrics),
        };
        let metrics = match &raw.bounds {
            Some(at) if *at.get_ref() => {
                with_bounds(metrics).map_err(|source| ConfigError::Plugin {
                    path: self.path.to_owned(),
                    line: self.line(at),
                    key: "bounds".into(),
                    source: Box::new(source),
                })?
            }
            _ => metrics,
        };
        let missing = raw.missing.unwrap_or_default();
        let comparison = self.comparison(&raw, &runs, &metrics, missing)?;
        if let Some(at) = raw.bounds.as_ref().filter(|b| *b.get_ref())
            && comparison.is_some()
        {
            return Err(self.invalid(at, "bounds", BOUNDS_WITH_COMPARISON.to_owned()));
        }
        Ok(Experiment {
            qrels,
            runs,
            metrics,
            aggregators: unique_by_name(aggregators),
            corpus_metrics: unique_by_name(corpus_metrics),
            corpus_inputs,
            systems,
            groups: match &raw.groups {
                Some(path) => Some(self.file(path, "groups")?),
                None => None,
            },
            turns: match &raw.turns {
                Some(at) if at.get_ref().is_empty() => {
                    return Err(self.invalid(
                        at,
                        "turns",
                        "the separator of conversation and turn in the query ids is empty (e.g. \"_\" for 31_4)".to_owned(),
                    ));
                }
                Some(at) => Some(at.get_ref().clone()),
                None => None,
            },
            per_conversation: match &raw.per_conversation {
                Some(at) if *at.get_ref() && raw.turns.is_none() && raw.groups.is_none() => {
                    return Err(self.invalid(
                        at,
                        "per_conversation",
                        "needs `turns` (the separator of conversation and turn in the query ids) \
                         or `groups` (a file with a `conversation` column)"
                            .to_owned(),
                    ));
                }
                Some(at) if *at.get_ref() && raw.groups.is_some() && raw.turns.is_some() => {
                    return Err(self.invalid(
                        at,
                        "per_conversation",
                        "with `turns` and `groups`: the groups name queries (turns), and the unit is then \
                         the conversation; give the conversations by one of them"
                            .to_owned(),
                    ));
                }
                Some(at) => *at.get_ref(),
                None => false,
            },
            options: Options {
                missing,
                level: raw.rel.unwrap_or_default(),
                ties,
                score_threshold: raw.score_threshold.as_ref().map(|t| *t.get_ref()),
                allow_empty_run: raw.allow_empty_run.unwrap_or(false),
            },
            read: ReadOptions {
                duplicates: raw.duplicates.unwrap_or_default(),
                ties,
            },
            comparison,
            notes: unique_notes(notes),
        })
    }

    /// The comparison asked for by `baseline`, `[compare]` and `[[gates]]`,
    /// every name and number checked; `None` when none of them is there.
    fn comparison(
        &self,
        raw: &RawExperiment,
        runs: &[NamedRun],
        metrics: &[Box<dyn Metric>],
        missing: crate::engine::Missing,
    ) -> Result<Option<ComparisonPlan>, ConfigError> {
        if raw.baseline.is_none() && raw.compare.is_none() && raw.gates.is_empty() {
            return Ok(None);
        }
        let mut settings = Settings {
            missing,
            ..Settings::default()
        };
        if let Some(table) = &raw.compare {
            let c = table.get_ref();
            if let Some(test) = c.test {
                settings.test = test;
            }
            if let Some(bootstrap) = c.bootstrap {
                settings.bootstrap = bootstrap;
            }
            if let Some(correction) = c.correction {
                settings.correction = correction;
            }
            if let Some(family) = c.family {
                settings.family = family;
            }
            if let Some(joint) = c.groups_in_family {
                settings.groups_in_family = joint;
            }
            let jackknife = match &c.interval {
                None => false,
                Some(at) => match at.get_ref().as_str() {
                    "test" => false,
                    "jackknife" => true,
                    other => {
                        return Err(self.invalid(
                            at,
                            "compare.interval",
                            format!("`{other}`: \"test\" (the test's own) or \"jackknife\""),
                        ));
                    }
                },
            };
            match (&c.jackknife_groups, jackknife) {
                (Some(at), false) => {
                    return Err(self.invalid(
                        at,
                        "compare.jackknife_groups",
                        "goes with interval = \"jackknife\"".to_owned(),
                    ));
                }
                (groups, true) => {
                    let groups = match groups {
                        Some(at) => u32::try_from(*at.get_ref())
                            .ok()
                            .filter(|g| *g >= 2)
                            .ok_or_else(|| {
                                self.invalid(at, "compare.jackknife_groups", "must be at least 2")
                            })?,
                        None => rankeval_compare::keyed::DEFAULT_GROUPS,
                    };
                    settings.jackknife_groups = Some(groups);
                }
                (None, false) => {}
            }
            if let Some(resamples) = &c.resamples {
                settings.resamples = u64::try_from(*resamples.get_ref())
                    .ok()
                    .filter(|r| *r >= 1)
                    .ok_or_else(|| {
                        self.invalid(resamples, "compare.resamples", "must be at least 1")
                    })?;
                rankeval_compare::check_resamples(settings.resamples).map_err(|error| {
                    self.invalid(resamples, "compare.resamples", error.to_string())
                })?;
            }
            if settings.test == rankeval_compare::Test::BootstrapKeyed
                && settings.bootstrap == rankeval_compare::BootstrapMethod::Multinomial
            {
                return Err(self.invalid(
                    table,
                    "compare.bootstrap",
                    format!(
                        "\"multinomial\" with test = \"bootstrap_keyed\": {}",
                        crate::compare::KEYED_BOOTSTRAP_VARIANT
                    ),
                ));
            }
            if let Some(seed) = &c.seed {
                settings.seed = u64::try_from(*seed.get_ref()).map_err(|_| {
                    self.invalid(seed, "compare.seed", "must be a whole number >= 0")
                })?;
            }
            if let Some(alpha) = &c.alpha {
                let a = *alpha.get_ref();
                if !(a > 0.0 && a <= 1.0) {
                    return Err(self.invalid(
                        alpha,
                        "compare.alpha",
                        format!("must be in (0, 1], e.g. 0.05; got {a}"),
                    ));
                }
                settings.alpha = a;
            }
            if let Some(confidence) = &c.confidence {
                let level = *confidence.get_ref();
                if !(level > 0.0 && level < 1.0) {
                    return Err(self.invalid(
                        confidence,
                        "compare.confidence",
                        format!("must be strictly between 0 and 1, e.g. 0.95; got {level}"),
                    ));
                }
                settings.level = level;
            }
            if matches!(
                settings.test,
                rankeval_compare::Test::Bootstrap | rankeval_compare::Test::BootstrapKeyed
            ) && let Err(error) =
                rankeval_compare::check_percentile_resamples(settings.resamples, settings.level)
            {
                return Err(match &c.resamples {
                    Some(at) => self.invalid(at, "compare.resamples", error.to_string()),
                    None => self.invalid(table, "compare", error.to_string()),
                });
            }
            if let Err(error) = settings.validate() {
                let reason = match error {
                    CompareRunError::Settings(reason) => reason,
                    other => other.to_string(),
                };
                return Err(self.invalid(table, "compare", reason));
            }
        }
        let run_names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
        let baseline = match &raw.baseline {
            None => None,
            Some(spanned) => Some(match spanned.get_ref() {
                RawBaseline::Run(name) => {
                    if !run_names.contains(&name.as_str()) {
                        return Err(self.invalid(
                            spanned,
                            "baseline",
                            format!(
                                "no run is named `{name}` (the runs are {}); for a results file, write `baseline = {{ results = \"{name}\" }}`",
                                listed(&run_names)
                            ),
                        ));
                    }
                    BaselineRef::Run(name.clone())
                }
                RawBaseline::Results(table) => {
                    // A directory is a per-query Parquet table's part files.
                    let dir = self.base.join(table.results.get_ref());
                    let path = if dir.is_dir() {
                        dir
                    } else {
                        self.file(&table.results, "baseline.results")?
                    };
                    let run = match &table.run {
                        Some(run) if run.get_ref().trim().is_empty() => {
                            return Err(self.invalid(run, "baseline.run", "cannot be empty"));
                        }
                        Some(run) => Some(run.get_ref().clone()),
                        None => None,
                    };
                    BaselineRef::Results { path, run }
                }
            }),
        };
        let baseline_label = match &baseline {
            None => None,
            Some(BaselineRef::Run(name)) => Some(name.as_str()),
            // A results file's run is no run of the experiment.
            Some(BaselineRef::Results { .. }) => Some("\u{0}"),
        };
        if baseline.is_none()
            && let Some(at) = raw
                .compare
                .as_ref()
                .and_then(|c| c.get_ref().interval.as_ref())
                .filter(|_| settings.jackknife_groups.is_some())
        {
            return Err(self.invalid(
                at,
                "compare.interval",
                "the jackknife is the interval of differences with a `baseline`".to_owned(),
            ));
        }
        let metric_names: Vec<String> = metrics.iter().map(|m| m.name()).collect();
        let metric_refs: Vec<&str> = metric_names.iter().map(String::as_str).collect();
        let mut gates = Vec::with_capacity(raw.gates.len());
        for (index, table) in raw.gates.iter().enumerate() {
            let key = format!("gates[{}]", index + 1);
            let spec = self.gate(table, &key, settings.alpha, raw.judged_only == Some(true))?;
            check_gates(
                std::slice::from_ref(&spec),
                &run_names,
                &metric_refs,
                baseline_label,
            )
            .map_err(|error| {
                let reason = match error {
                    CompareRunError::Gate { reason, .. } => reason,
                    other => other.to_string(),
                };
                self.invalid(table, key.clone(), reason)
            })?;
            gates.push(spec);
        }
        Ok(Some(ComparisonPlan {
            baseline,
            settings,
            gates,
        }))
    }

    /// One `[[gates]]` table as a gate.
    fn gate(
        &self,
        table: &Spanned<RawGate>,
        key: &str,
        alpha: f64,
        all_judged_only: bool,
    ) -> Result<GateSpec, ConfigError> {
        let g = table.get_ref();
        let metric =
            registry::parse_metric(g.metric.get_ref()).map_err(|source| ConfigError::Plugin {
                path: self.path.to_owned(),
                line: self.line(&g.metric),
                key: format!("{key}.metric"),
                source: Box::new(source),
            })?;
        // The experiment's judged_only renames every metric, and so the
        // metric a gate names.
        let metric = match all_judged_only {
            true => judged_only(metric).name(),
            false => metric.name(),
        };
        let Some(rule) = rule_name(g.rule.get_ref()) else {
            return Err(self.invalid(
                &g.rule,
                format!("{key}.rule"),
                format!("unknown rule `{}`; the rules are {RULES}", g.rule.get_ref()),
            ));
        };
        let own = match rule {
            "at_least" => "floor",
            "non_inferior" => "margin",
            _ => "alpha",
        };
        let given: [(&str, Option<usize>); 3] = [
            ("floor", g.floor.as_ref().map(|v| self.line(v))),
            ("margin", g.margin.as_ref().map(|v| self.line(v))),
            ("alpha", g.alpha.as_ref().map(|v| self.line(v))),
        ];
        for (param, line) in given {
            if let Some(line) = line
                && param != own
            {
                return Err(ConfigError::Invalid {
                    path: self.path.to_owned(),
                    line,
                    key: format!("{key}.{param}"),
                    reason: format!("{rule} takes `{own}`, not `{param}`"),
                });
            }
        }
        let needs = |what: &str| {
            self.invalid(
                table,
                key.to_owned(),
                format!("{rule} needs `{own}` ({what})"),
            )
        };
        let gate = match rule {
            "at_least" => Gate::AtLeast {
                floor: *g
                    .floor
                    .as_ref()
                    .ok_or_else(|| needs("the lowest acceptable mean, e.g. 0.4"))?
                    .get_ref(),
            },
            "non_inferior" => {
                let margin = g.margin.as_ref().ok_or_else(|| {
                    needs("e.g. 0.01 in the metric's units, or \"2%\" of the baseline's mean")
                })?;
                Gate::NonInferior {
                    margin: match margin.get_ref() {
                        RawMargin::Number(m) => Margin::Absolute(*m),
                        RawMargin::Table(m) => *m,
                        RawMargin::Text(text) => parse_margin(text).map_err(|reason| {
                            self.invalid(margin, format!("{key}.margin"), reason)
                        })?,
                    },
                }
            }
            _ => Gate::Superior {
                alpha: g.alpha.as_ref().map_or(alpha, |a| *a.get_ref()),
            },
        };
        gate.validate().map_err(|error| {
            let reason = match error {
                rankeval_compare::CompareError::InvalidGate { message, .. } => message,
                other => other.to_string(),
            };
            self.invalid(table, key.to_owned(), reason)
        })?;
        let group = match &g.group {
            Some(group) => Some(
                crate::compare::parse_group(group.get_ref())
                    .map_err(|reason| self.invalid(group, format!("{key}.group"), reason))?,
            ),
            None => None,
        };
        Ok(GateSpec {
            run: g.run.as_ref().map(|r| r.get_ref().clone()),
            metric,
            gate,
            group,
        })
    }

    /// Builds every entry of a `metrics` or `aggregators` array.
    fn plugins<T: Plugin + ?Sized>(
        &self,
        tables: &[Spanned<RawPluginEntry>],
        section: &str,
    ) -> Result<Vec<Box<T>>, ConfigError> {
        tables
            .iter()
            .enumerate()
            .map(|(index, table)| self.plugin::<T>(table, &format!("{section}[{}]", index + 1)))
            .collect()
    }

    /// A `metrics` entry: a per-query metric, or a corpus metric when no
    /// per-query metric has its name; a string is read as `-m` reads it.
    fn requested(
        &self,
        table: &Spanned<RawPluginEntry>,
        key: &str,
    ) -> Result<RequestedMetric, ConfigError> {
        let entries = match table.get_ref() {
            RawPluginEntry::Short(text) => {
                return rankeval_core::parse_requested(text)
                    .map_err(|source| self.plugin_error(table, key, source));
            }
            RawPluginEntry::Table(entries) => entries,
        };
        let name = entries
            .iter()
            .find(|(k, _)| k.get_ref() == "type")
            .and_then(|(_, v)| match v.get_ref() {
                RawValue::Toml(toml::Value::String(name)) => Some(name.as_str()),
                _ => None,
            });
        match name {
            Some(name)
                if registry::find::<dyn Metric>(name).is_err()
                    && registry::find::<dyn CorpusMetric>(name).is_ok() =>
            {
                self.plugin::<dyn CorpusMetric>(table, key)
                    .map(RequestedMetric::Corpus)
            }
            _ => self
                .plugin::<dyn Metric>(table, key)
                .map(RequestedMetric::Query),
        }
    }

    /// A metric or aggregator error at `at`, the entry `key`.
    fn plugin_error<T>(&self, at: &Spanned<T>, key: &str, source: PluginError) -> ConfigError {
        ConfigError::Plugin {
            path: self.path.to_owned(),
            line: self.line(at),
            key: key.to_owned(),
            source: Box::new(source),
        }
    }

    /// A `metrics` or `aggregators` entry built as a `T`: a string in the
    /// short syntax, or a table with `type` and parameters.
    fn plugin<T: Plugin + ?Sized>(
        &self,
        table: &Spanned<RawPluginEntry>,
        key: &str,
    ) -> Result<Box<T>, ConfigError> {
        let entries = match table.get_ref() {
            RawPluginEntry::Short(text) => {
                return registry::parse::<T>(text)
                    .map_err(|source| self.plugin_error(table, key, source));
            }
            RawPluginEntry::Table(entries) => entries,
        };
        let type_entry = entries.iter().find(|(k, _)| k.get_ref() == "type");
        let Some((_, type_value)) = type_entry else {
            return Err(self.invalid(
                table,
                key,
                "the table has no `type` (the metric or aggregator name)",
            ));
        };
        let RawValue::Toml(toml::Value::String(name)) = type_value.get_ref() else {
            return Err(self.invalid(type_value, format!("{key}.type"), "`type` must be a string"));
        };
        let mut params = Vec::with_capacity(entries.len());
        for (param, value) in entries.iter().filter(|(k, _)| k.get_ref() != "type") {
            let value = match value.get_ref() {
                RawValue::BigInteger(i) => ParamValue::BigInteger(*i),
                RawValue::Toml(toml::Value::Integer(i)) => ParamValue::Integer(*i),
                RawValue::Toml(toml::Value::Float(x)) => ParamValue::Float(*x),
                RawValue::Toml(toml::Value::Boolean(b)) => ParamValue::Bool(*b),
                RawValue::Toml(toml::Value::String(s)) => ParamValue::String(s.clone()),
                RawValue::Toml(other) => {
                    return Err(self.invalid(
                        value,
                        format!("{key}.{}", param.get_ref()),
                        format!(
                            "a parameter is a string, number or boolean, not {}",
                            other.type_str()
                        ),
                    ));
                }
            };
            params.push((param.get_ref().clone(), value));
        }
        registry::build::<T>(name, params).map_err(|source| {
            let line = self
                .line_of_param::<T>(entries, name, source.param())
                .unwrap_or_else(|| self.line(type_value));
            ConfigError::Plugin {
                path: self.path.to_owned(),
                line,
                key: key.to_owned(),
                source: Box::new(source),
            }
        })
    }

    /// The line of the key that sets `param` (by its name or alias).
    fn line_of_param<T: Plugin + ?Sized>(
        &self,
        entries: &RawPlugin,
        plugin: &str,
        param: Option<&str>,
    ) -> Option<usize> {
        let param = param?;
        let alias = registry::find::<T>(plugin)
            .ok()
            .and_then(|d| d.params.iter().find(|p| p.name == param))
            .and_then(|p| p.alias);
        entries
            .iter()
            .find(|(k, _)| k.get_ref() == param || Some(k.get_ref().as_str()) == alias)
            .map(|(k, _)| self.line(k))
    }
}

/// The name a `metrics` entry was written with: the short syntax as
/// given, or a table's `type`.
fn typed_name(entry: &RawPluginEntry) -> Option<&str> {
    match entry {
        RawPluginEntry::Short(text) => Some(text),
        RawPluginEntry::Table(entries) => entries
            .iter()
            .find(|(k, _)| k.get_ref() == "type")
            .and_then(|(_, v)| match v.get_ref() {
                RawValue::Toml(toml::Value::String(name)) => Some(name.as_str()),
                _ => None,
            }),
    }
}

/// Names as a list for messages: `a`, `b`.
fn listed(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
