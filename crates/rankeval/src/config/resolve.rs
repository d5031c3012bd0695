//! The TOML front end: the raw file mapped onto an
//! [`ExperimentSpec`](crate::spec::ExperimentSpec) (paths made relative to
//! the experiment file, metrics and aggregators built through the registry
//! as the short syntax is, each value with its key and line), which
//! [`spec::resolve`](crate::spec::resolve) checks as it checks the command
//! line's. Nothing here reads the data.

use std::path::{Path, PathBuf};

use rankeval_core::registry::{self, Plugin};
use rankeval_core::{Aggregator, CorpusMetric, Metric, ParamValue, PluginError, RequestedMetric};
use toml::Spanned;

use super::raw::{
    RawBaseline, RawExperiment, RawMargin, RawOfficial, RawPlugin, RawPluginEntry, RawQrels,
    RawValue,
};
use super::{ConfigError, read_config};
use crate::benchmarks::irds;
use crate::experiment::Experiment;
use crate::read::{CsvOptions, Format, Input};
use crate::spec::{
    BaselineRequest, BenchmarkRequest, CompareRequest, CorpusRequest, ExperimentSpec, GateRequest,
    GateTable, Given, HISTORY_PREFIX, IntervalKind, MarginRequest, MetricRequest, Origin,
    RecordRequest, RunRequest, SystemRequest,
};

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
    let spec = Resolver {
        path: &name,
        newlines: memchr::memchr_iter(b'\n', text.as_bytes()).collect(),
        base,
    }
    .spec(raw)?;
    let mut spec = spec;
    if spec.record.db.is_some() {
        spec.record.experiment_hash =
            Some(rankeval_history::fingerprint::bytes_hash(text.as_bytes()));
    }
    crate::spec::resolve(spec).map_err(ConfigError::from)
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

    /// The origin of the value at `at`, the key `key`.
    fn at<T>(&self, at: &Spanned<T>, key: impl Into<String>) -> Origin {
        Origin::key(self.path, self.line(at), key)
    }

    /// The origin of a key whose line is not kept (a plain value).
    fn top(&self, key: &str) -> Origin {
        Origin::key(self.path, 1, key)
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

    /// A `qrels` or `training` value (a path, or a table with its path,
    /// format and columns) as an input, with the origin of its path.
    fn input_table(
        &self,
        spanned: &Spanned<RawQrels>,
        key: &str,
        format: Option<Format>,
        csv: &CsvOptions,
    ) -> Result<Given<Input>, ConfigError> {
        let with_format = |input: Input, format: Option<Format>, columns: CsvOptions| {
            let input = match format {
                Some(format) => input.with_format(format),
                None => input,
            };
            input.with_columns(columns)
        };
        Ok(match spanned.get_ref() {
            // An ir_datasets id is no path: `spec::resolve` finds its file.
            RawQrels::Path(path) if irds::id_of(path).is_some() => {
                Given::new(Input::file(path), self.at(spanned, key))
            }
            RawQrels::Path(path) => Given::new(
                with_format(Input::file(self.base.join(path)), format, csv.clone()),
                self.at(spanned, key),
            ),
            RawQrels::Table(table) => {
                if format.is_some() {
                    return Err(self.invalid(
                        spanned,
                        "qrels_format",
                        "give the format once: `format` in the [qrels] table",
                    ));
                }
                let columns = self.columns(csv, table.columns().collect(), key)?;
                Given::new(
                    with_format(
                        Input::file(self.base.join(table.path.get_ref())),
                        table.format,
                        columns,
                    ),
                    self.at(&table.path, format!("{key}.path")),
                )
            }
        })
    }

    /// The file's values as a spec, each with its key and line.
    fn spec(&self, raw: RawExperiment) -> Result<ExperimentSpec, ConfigError> {
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
        let qrels = match &raw.qrels {
            Some(spanned) => Some(self.input_table(spanned, "qrels", raw.qrels_format, &csv)?),
            None => None,
        };
        let mut runs = Vec::with_capacity(raw.runs.len());
        for (index, run) in raw.runs.iter().enumerate() {
            let key = format!("runs[{}]", index + 1);
            let table = run.get_ref();
            let columns = self.columns(&csv, table.columns().collect(), &key)?;
            let input = Input::file(self.base.join(table.path.get_ref())).with_columns(columns);
            runs.push(RunRequest {
                input: match table.format {
                    Some(format) => input.with_format(format),
                    None => input,
                },
                written: PathBuf::from(table.path.get_ref()),
                name: table.name.as_ref().map(|name| {
                    Given::new(name.get_ref().clone(), self.at(name, format!("{key}.name")))
                }),
                from: self.at(&table.path, format!("{key}.path")),
            });
        }
        let systems = raw
            .systems
            .iter()
            .enumerate()
            .map(|(index, system)| {
                let key = format!("systems[{}]", index + 1);
                let table = system.get_ref();
                SystemRequest {
                    name: Given::new(
                        table.name.get_ref().clone(),
                        self.at(&table.name, format!("{key}.name")),
                    ),
                    patterns: Given::new(
                        table.runs.get_ref().clone(),
                        self.at(&table.runs, format!("{key}.runs")),
                    ),
                    base: self.base.to_owned(),
                    columns: csv.clone(),
                    format: None,
                }
            })
            .collect();
        let metrics = match &raw.metrics {
            Some(list) => {
                let mut requested = Vec::with_capacity(list.get_ref().len());
                for (index, table) in list.get_ref().iter().enumerate() {
                    let key = format!("metrics[{}]", index + 1);
                    if let RawPluginEntry::Short(text) = table.get_ref() {
                        // `"ndcg@1,3"` is one metric per cutoff, as for -m.
                        for (typed, metric) in rankeval_core::parse_requested_each(text) {
                            requested.push(MetricRequest {
                                metric: metric
                                    .map_err(|source| self.plugin_error(table, &key, source))?,
                                typed: Some(typed),
                                from: self.at(table, key.clone()),
                            });
                        }
                        continue;
                    }
                    requested.push(MetricRequest {
                        typed: typed_name(table.get_ref()).map(str::to_owned),
                        metric: self.requested(table, &key)?,
                        from: self.at(table, key),
                    });
                }
                Some(Given::new(requested, self.at(list, "metrics")))
            }
            None => None,
        };
        let aggregators = match &raw.aggregators {
            Some(list) => Some(Given::new(
                self.plugins::<dyn Aggregator>(list.get_ref(), "aggregators")?,
                self.at(list, "aggregators"),
            )),
            None => None,
        };
        let corpus = CorpusRequest {
            catalog: raw
                .catalog
                .as_ref()
                .map(|p| Given::new(self.base.join(p.get_ref()), self.at(p, "catalog"))),
            training: match &raw.training {
                Some(spanned) => Some(self.input_table(spanned, "training", None, &csv)?),
                None => None,
            },
            features: raw
                .item_features
                .as_ref()
                .map(|p| Given::new(self.base.join(p.get_ref()), self.at(p, "item_features"))),
            subtopics: raw
                .subtopic_qrels
                .as_ref()
                .map(|p| Given::new(self.base.join(p.get_ref()), self.at(p, "subtopic_qrels"))),
            doc_groups: raw
                .doc_groups
                .as_ref()
                .map(|p| Given::new(self.base.join(p.get_ref()), self.at(p, "doc_groups"))),
            group_targets: raw
                .group_targets
                .as_ref()
                .map(|p| Given::new(self.base.join(p.get_ref()), self.at(p, "group_targets"))),
            label_counts: raw
                .label_counts
                .as_ref()
                .map(|p| Given::new(self.base.join(p.get_ref()), self.at(p, "label_counts"))),
            train_instances: raw
                .train_instances
                .as_ref()
                .map(|n| Given::new(*n.get_ref(), self.at(n, "train_instances"))),
            inverse_propensities: raw.inverse_propensities.as_ref().map(|p| {
                Given::new(
                    self.base.join(p.get_ref()),
                    self.at(p, "inverse_propensities"),
                )
            }),
        };
        let compare = self.compare(&raw)?;
        let bool_at = |value: &Option<Spanned<bool>>, key: &str| {
            value
                .as_ref()
                .map(|v| Given::new(*v.get_ref(), self.at(v, key)))
        };
        Ok(ExperimentSpec {
            whole: self.top("runs"),
            qrels,
            runs,
            systems,
            metrics,
            aggregators,
            corpus,
            groups: raw
                .groups
                .as_ref()
                .map(|p| Given::new(self.base.join(p.get_ref()), self.at(p, "groups"))),
            turns: raw
                .turns
                .as_ref()
                .map(|t| Given::new(t.get_ref().clone(), self.at(t, "turns"))),
            per_conversation: bool_at(&raw.per_conversation, "per_conversation"),
            missing: raw.missing.map(|m| Given::new(m, self.top("missing"))),
            rel: raw.rel.map(|r| Given::new(r.get(), self.top("rel"))),
            ties: raw
                .ties
                .as_ref()
                .map(|t| Given::new(*t.get_ref(), self.at(t, "ties"))),
            score_threshold: raw
                .score_threshold
                .as_ref()
                .map(|t| Given::new(t.get_ref().get(), self.at(t, "score_threshold"))),
            judged_only: raw
                .judged_only
                .map(|j| Given::new(j, self.top("judged_only"))),
            bounds: bool_at(&raw.bounds, "bounds"),
            duplicates: raw
                .duplicates
                .map(|d| Given::new(d, self.top("duplicates"))),
            allow_empty_run: raw
                .allow_empty_run
                .map(|a| Given::new(a, self.top("allow_empty_run"))),
            samples: bool_at(&raw.samples, "samples"),
            compare,
            title: raw
                .title
                .as_ref()
                .map(|t| Given::new(t.get_ref().clone(), self.at(t, "title"))),
            record: match &raw.record {
                Some(record) => {
                    let r = record.get_ref();
                    let text = |v: &Option<Spanned<String>>, key: &str| {
                        v.as_ref().map(|v| {
                            Given::new(v.get_ref().clone(), self.at(v, format!("record.{key}")))
                        })
                    };
                    RecordRequest {
                        db: Some(Given::new(
                            self.base.join(r.db.get_ref()),
                            self.at(&r.db, "record.db"),
                        )),
                        label: text(&r.label, "label"),
                        commit: text(&r.commit, "commit"),
                        experiment_hash: None,
                    }
                }
                None => RecordRequest::default(),
            },
            benchmark: BenchmarkRequest {
                fetch: raw.fetch.map(|f| Given::new(f, self.top("fetch"))),
                drop_identical_ids: raw
                    .drop_identical_ids
                    .map(|d| Given::new(d, self.top("drop_identical_ids"))),
                official: match &raw.official {
                    None | Some(RawOfficial::On(false)) => None,
                    Some(RawOfficial::On(true)) => Some(Given::new(None, self.top("official"))),
                    Some(RawOfficial::Id(id)) => {
                        Some(Given::new(Some(id.clone()), self.top("official")))
                    }
                },
                qrels_benchmark: None,
            },
        })
    }

    /// `baseline`, `[compare]` and `[[gates]]` as the spec's comparison.
    fn compare(&self, raw: &RawExperiment) -> Result<CompareRequest, ConfigError> {
        let mut request = CompareRequest {
            allow_changed_qrels: None,
            baseline: raw
                .baseline
                .as_ref()
                .map(|spanned| match spanned.get_ref() {
                    RawBaseline::Run(text) if text.starts_with(HISTORY_PREFIX) => Given::new(
                        BaselineRequest::History {
                            text: text.clone(),
                            relative_to: self.base.to_owned(),
                        },
                        self.at(spanned, "baseline"),
                    ),
                    RawBaseline::Run(name) => Given::new(
                        BaselineRequest::Run(name.clone()),
                        self.at(spanned, "baseline"),
                    ),
                    RawBaseline::Results(table) => Given::new(
                        BaselineRequest::Results {
                            path: self.base.join(table.results.get_ref()),
                            run: table.run.as_ref().map(|run| {
                                Given::new(run.get_ref().clone(), self.at(run, "baseline.run"))
                            }),
                        },
                        self.at(&table.results, "baseline"),
                    ),
                }),
            ..CompareRequest::default()
        };
        if let Some(table) = &raw.compare {
            let c = table.get_ref();
            let at = |key: &str| self.at(table, format!("compare.{key}"));
            request.table = Some(self.at(table, "compare"));
            request.test = c.test.map(|t| Given::new(t, at("test")));
            request.bootstrap = c.bootstrap.map(|b| Given::new(b, at("bootstrap")));
            request.correction = c.correction.map(|v| Given::new(v, at("correction")));
            request.family = c.family.map(|v| Given::new(v, at("family")));
            request.groups_in_family = c
                .groups_in_family
                .map(|v| Given::new(v, at("groups_in_family")));
            request.interval = match &c.interval {
                None => None,
                Some(spanned) => Some(Given::new(
                    match spanned.get_ref().as_str() {
                        "test" => IntervalKind::Test,
                        "jackknife" => IntervalKind::Jackknife,
                        other => {
                            return Err(self.invalid(
                                spanned,
                                "compare.interval",
                                format!("`{other}`: \"test\" (the test's own) or \"jackknife\""),
                            ));
                        }
                    },
                    self.at(spanned, "compare.interval"),
                )),
            };
            let whole = |value: &Option<Spanned<i64>>, key: &str| {
                value.as_ref().map(|v| {
                    Given::new(
                        i128::from(*v.get_ref()),
                        self.at(v, format!("compare.{key}")),
                    )
                })
            };
            request.allow_changed_qrels = c
                .allow_changed_qrels
                .as_ref()
                .map(|a| Given::new(*a.get_ref(), self.at(a, "compare.allow_changed_qrels")));
            request.allow_changed_options = c
                .allow_changed_options
                .as_ref()
                .map(|a| Given::new(*a.get_ref(), self.at(a, "compare.allow_changed_options")));
            request.jackknife_groups = whole(&c.jackknife_groups, "jackknife_groups");
            request.resamples = whole(&c.resamples, "resamples");
            request.seed = whole(&c.seed, "seed");
            let number = |value: &Option<Spanned<f64>>, key: &str| {
                value
                    .as_ref()
                    .map(|v| Given::new(*v.get_ref(), self.at(v, format!("compare.{key}"))))
            };
            request.alpha = number(&c.alpha, "alpha");
            request.confidence = number(&c.confidence, "confidence");
        }
        for (index, table) in raw.gates.iter().enumerate() {
            let key = format!("gates[{}]", index + 1);
            let g = table.get_ref();
            let at = |value: &Spanned<_>, part: &str| self.at(value, format!("{key}.{part}"));
            request.gates.push(GateRequest::Table(Box::new(GateTable {
                from: self.at(table, key.clone()),
                run: g.run.as_ref().map(|r| r.get_ref().clone()),
                metric: Given::new(
                    g.metric.get_ref().clone(),
                    self.at(&g.metric, format!("{key}.metric")),
                ),
                rule: Given::new(
                    g.rule.get_ref().clone(),
                    self.at(&g.rule, format!("{key}.rule")),
                ),
                floor: g
                    .floor
                    .as_ref()
                    .map(|v| Given::new(*v.get_ref(), at(v, "floor"))),
                margin: g.margin.as_ref().map(|v| {
                    Given::new(
                        match v.get_ref() {
                            RawMargin::Number(m) => MarginRequest::Number(*m),
                            RawMargin::Text(text) => MarginRequest::Text(text.clone()),
                            RawMargin::Table(m) => MarginRequest::Margin(*m),
                        },
                        self.at(v, format!("{key}.margin")),
                    )
                }),
                alpha: g
                    .alpha
                    .as_ref()
                    .map(|v| Given::new(*v.get_ref(), self.at(v, format!("{key}.alpha")))),
                group: g
                    .group
                    .as_ref()
                    .map(|v| Given::new(v.get_ref().clone(), self.at(v, format!("{key}.group")))),
            })));
        }
        Ok(request)
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
